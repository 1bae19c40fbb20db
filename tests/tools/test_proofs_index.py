#!/usr/bin/env python3
"""Self-test of tools/proofs_index.py and tools/check_platform_run.py over synthetic proof
folders in a temporary directory: classes with a Feature trait and a summary are indexed under
their feature with their tests; a class without a Feature trait, with an unknown one or without
a summary fails the run, naming it; --check fails on an index that differs and passes on the
one just written; the platform check fails when a class or method carrying the selected trait
has no passed test in the .trx, and passes when each has one. Python 3 standard library only."""
import os
import subprocess
import sys
import tempfile
import unittest

TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools")
INDEX = os.path.join(TOOLS, "proofs_index.py")
sys.path.insert(0, TOOLS)
import check_platform_run  # noqa: E402
from proof_classes import read_proofs  # noqa: E402

GOOD = '''using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// Install then remove: the target returns the
/// replacement's value, then its own.
/// </summary>
[Trait("Sanitized", "yes")]
[Trait("Feature", "Patches")]
[Trait("Platform", "all")]
public sealed class SampleProofs
{
    [Theory]
    [MemberData(nameof(Modes),
        MemberType = typeof(SampleProofs))]
    public void InstallChangesTheValue(string mode)
    {
        Assert.True(mode.Length > 0);
    }

    [Trait("Platform", "linux")]
    [Fact]
    public void RemoveRestoresIt()
    {
    }

    public void NotATest()
    {
    }
}

/// <summary>Hooks around a body.</summary>
[Trait("Feature", "Hooks")]
public sealed class OtherProofs
{
    [Fact]
    public void APrefixRuns()
    {
    }

    [Trait("Platform", "all")]
    [Fact]
    public void APostfixRuns()
    {
    }
}

public static class Helpers
{
    public static int Value() => 1;
}
'''


def write_tree(root, files):
    folder = os.path.join(root, "proofs")
    os.makedirs(folder)
    os.makedirs(os.path.join(root, "docs"))
    for name, text in files.items():
        with open(os.path.join(folder, name), "w") as f:
            f.write(text)


def index(root, *flags):
    done = subprocess.run([sys.executable, INDEX, "--root", root, "--proofs", "proofs", *flags],
                          capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr


def trx(path, passed):
    """A .trx with one passed test per (class, method) of passed and one failed test."""
    ns = "http://microsoft.com/schemas/VisualStudio/TeamTest/2010"
    tests, results = [], []
    for i, (cls, method, outcome) in enumerate(passed):
        tests.append(f'<UnitTest name="x" id="id{i}"><TestMethod className="AlvorKit.Proofs.{cls}" '
                     f'name="AlvorKit.Proofs.{cls}.{method}(mode: &quot;a&quot;)" /></UnitTest>')
        results.append(f'<UnitTestResult testId="id{i}" testName="x" outcome="{outcome}" />')
    with open(path, "w") as f:
        f.write(f'<?xml version="1.0"?><TestRun xmlns="{ns}"><Results>{"".join(results)}</Results>'
                f'<TestDefinitions>{"".join(tests)}</TestDefinitions></TestRun>')


class ProofsIndexTest(unittest.TestCase):
    def test_classes_are_read_with_traits_summaries_and_tests(self):
        with tempfile.TemporaryDirectory() as root:
            write_tree(root, {"SampleProofs.cs": GOOD})
            classes = read_proofs(root, "proofs")
            self.assertEqual(["SampleProofs", "OtherProofs"], [c.name for c in classes])
            sample = classes[0]
            self.assertEqual("Install then remove: the target returns the replacement's value, then its own.",
                             sample.summary)
            self.assertEqual(["Patches"], sample.trait("Feature"))
            self.assertEqual(["InstallChangesTheValue", "RemoveRestoresIt"], [m.name for m in sample.methods])
            self.assertEqual([("Platform", "linux")], sample.methods[1].traits)

    def test_the_index_lists_each_class_under_its_feature_and_check_compares(self):
        with tempfile.TemporaryDirectory() as root:
            write_tree(root, {"SampleProofs.cs": GOOD})
            rc, out = index(root, "--check")
            self.assertEqual(1, rc, out)
            rc, out = index(root)
            self.assertEqual(0, rc, out)
            with open(os.path.join(root, "docs", "Proofs.md")) as f:
                text = f.read()
            self.assertIn("### SampleProofs", text)
            self.assertIn("`InstallChangesTheValue`, `RemoveRestoresIt`", text)
            self.assertLess(text.index("## Patches"), text.index("### SampleProofs"))
            self.assertLess(text.index("## Hooks"), text.index("### OtherProofs"))
            self.assertLess(text.index("### SampleProofs"), text.index("## Hooks"))
            self.assertNotIn("Helpers", text)
            self.assertIn("Also run with the profiler under ASan + UBSan; on linux-arm64 and win-x64; "
                          "on linux-arm64: `RemoveRestoresIt`.", text)
            self.assertIn("Also run on linux-arm64 and win-x64: `APostfixRuns`.", text)
            rc, out = index(root, "--check")
            self.assertEqual(0, rc, out)
            with open(os.path.join(root, "proofs", "SampleProofs.cs"), "w") as f:
                f.write(GOOD.replace("then its own.", "then its own again."))
            rc, out = index(root, "--check")
            self.assertEqual(1, rc, out)
            self.assertIn("its own again.", out)

    def test_a_class_without_a_known_feature_or_a_summary_fails(self):
        for broken, named in [(GOOD.replace('[Trait("Feature", "Hooks")]\n', ""), "OtherProofs carries 0"),
                              (GOOD.replace('"Hooks"', '"Gadgets"'), "feature 'Gadgets'"),
                              (GOOD.replace("/// <summary>Hooks around a body.</summary>\n", ""),
                               "OtherProofs has no /// <summary>")]:
            with tempfile.TemporaryDirectory() as root:
                write_tree(root, {"SampleProofs.cs": broken})
                rc, out = index(root)
                self.assertEqual(1, rc, out)
                self.assertIn(named, out)
                self.assertFalse(os.path.exists(os.path.join(root, "docs", "Proofs.md")))

    def test_the_platform_check_needs_a_passed_test_per_selected_class_and_method(self):
        with tempfile.TemporaryDirectory() as root:
            write_tree(root, {"SampleProofs.cs": GOOD})
            classes = read_proofs(root, "proofs")
            path = os.path.join(root, "run.trx")
            trx(path, [("SampleProofs", "InstallChangesTheValue", "Passed"), ("OtherProofs", "APostfixRuns", "Passed")])
            passed = check_platform_run.passed_tests(path)
            self.assertEqual([], check_platform_run.missing(classes, {"all"}, passed))
            self.assertEqual([], check_platform_run.missing(classes, {"all", "linux"}, passed))
            trx(path, [("SampleProofs", "InstallChangesTheValue", "Passed"), ("OtherProofs", "APostfixRuns", "Failed")])
            passed = check_platform_run.passed_tests(path)
            self.assertEqual(["OtherProofs.APostfixRuns"], check_platform_run.missing(classes, {"all"}, passed))
            trx(path, [("OtherProofs", "APostfixRuns", "Passed"), ("OtherProofs", "APrefixRuns", "Passed")])
            passed = check_platform_run.passed_tests(path)
            self.assertEqual(["SampleProofs"], check_platform_run.missing(classes, {"all"}, passed))
            # A method-level value selects that method: linux alone needs RemoveRestoresIt.
            trx(path, [("SampleProofs", "InstallChangesTheValue", "Passed")])
            passed = check_platform_run.passed_tests(path)
            self.assertEqual(["SampleProofs.RemoveRestoresIt"], check_platform_run.missing(classes, {"linux"}, passed))


if __name__ == "__main__":
    unittest.main(verbosity=1)
