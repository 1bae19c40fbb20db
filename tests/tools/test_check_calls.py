#!/usr/bin/env python3
"""Self-test of tools/check_calls.py: tiny C files compiled into the layout a CMake build of
the library has (native/interception-profiler/CMakeFiles/<target>.dir/src/<folder>/<file>.c.o);
a layered tree passes, two files calling each other fail, two folders calling each other
fail, and objects outside the library's targets (a test's) are not counted."""
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools",
                      "check_calls.py")
LIBRARY = os.path.join("native", "interception-profiler", "CMakeFiles", "core.dir", "src")


def run(tree, extra=None):
    """tree: {"folder/file": C source} compiled under the library's object layout; extra:
    the same, compiled elsewhere in the build tree."""
    with tempfile.TemporaryDirectory() as build:
        for base, files in ((LIBRARY, tree), (os.path.join("tests", "CMakeFiles", "t.dir"), extra or {})):
            for unit, text in files.items():
                source = os.path.join(build, "sources", unit + ".c")
                os.makedirs(os.path.dirname(source), exist_ok=True)
                with open(source, "w") as f:
                    f.write(text)
                target = os.path.join(build, base, unit + ".c.o")
                os.makedirs(os.path.dirname(target), exist_ok=True)
                subprocess.run(["cc", "-c", "-O0", source, "-o", target], check=True)
        done = subprocess.run([sys.executable, SCRIPT, build, os.path.join(build, "sources")],
                              capture_output=True, text=True)
        return done.returncode, done.stdout + done.stderr


class CheckCalls(unittest.TestCase):
    def test_layered_tree_passes(self):
        code, out = run({
            "low/a": "int low_a(void) { return 1; }\n",
            "low/b": "int low_a(void);\nint low_b(void) { return low_a() + 1; }\n",
            "high/c": "int low_b(void);\nint high_c(void) { return low_b(); }\n",
        })
        self.assertEqual(code, 0, out)
        self.assertIn("3 files, 2 calls between files", out)

    def test_files_calling_each_other_fail(self):
        code, out = run({
            "low/a": "int low_b(int);\nint low_a(int n) { return n ? low_b(n - 1) : 0; }\n",
            "low/b": "int low_a(int);\nint low_b(int n) { return n ? low_a(n - 1) : 1; }\n",
        })
        self.assertEqual(code, 1, out)
        self.assertIn("call cycle between files: low/a <-> low/b", out)

    def test_folders_calling_each_other_fail(self):
        code, out = run({
            "low/a": "int high_c(void);\nint low_a(void) { return high_c(); }\n",
            "low/b": "int low_b(void) { return 2; }\n",
            "high/c": "int low_b(void);\nint high_c(void) { return low_b(); }\n",
        })
        self.assertEqual(code, 1, out)
        self.assertIn("call cycle between folders: high <-> low", out)
        self.assertNotIn("call cycle between files", out)

    def test_objects_outside_the_library_are_not_counted(self):
        code, out = run({"low/a": "int low_a(void) { return 1; }\n"},
                        extra={"test_a": "int low_a(void);\nint main(void) { return low_a(); }\n"})
        self.assertEqual(code, 0, out)
        self.assertIn("1 files", out)

    def test_objects_of_deleted_sources_are_not_counted(self):
        with tempfile.TemporaryDirectory() as build:
            for unit, text in (("low/a", "int low_b(void);\nint low_a(void) { return low_b(); }\n"),
                               ("low/b", "int low_a(void);\nint low_b(void) { return low_a(); }\n")):
                source = os.path.join(build, "sources", unit + ".c")
                os.makedirs(os.path.dirname(source), exist_ok=True)
                with open(source, "w") as f:
                    f.write(text)
                target = os.path.join(build, LIBRARY, unit + ".c.o")
                os.makedirs(os.path.dirname(target), exist_ok=True)
                subprocess.run(["cc", "-c", "-O0", source, "-o", target], check=True)
            os.remove(os.path.join(build, "sources", "low", "b.c"))  # moved away since the build
            done = subprocess.run([sys.executable, SCRIPT, build, os.path.join(build, "sources")],
                                  capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            self.assertIn("1 files", done.stdout)

    def test_an_empty_build_is_an_error(self):
        code, out = run({})
        self.assertEqual(code, 2, out)


if __name__ == "__main__":
    unittest.main()
