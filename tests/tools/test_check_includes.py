#!/usr/bin/env python3
"""Self-test of tools/check_includes.py over synthetic source trees in a temporary
directory: a clean layered tree passes; a file cycle, a unit cycle, a folder cycle, each
forbidden kind of edge and an unresolved include fail with the include lines named;
--report-only prints the same findings and exits 0. Python 3 standard library only."""
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools",
                      "check_includes.py")


def run(tree, *flags):
    """Writes tree ({path: text}) under a fresh root and runs the check over it."""
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, "src")
        public = os.path.join(tmp, "include")
        os.makedirs(public)
        with open(os.path.join(public, "public.h"), "w") as f:
            f.write("/* public */\n")
        for path, text in tree.items():
            full = os.path.join(root, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as f:
                f.write(text)
        os.makedirs(root, exist_ok=True)
        done = subprocess.run([sys.executable, SCRIPT, "--root", root, "--include-dir", public, *flags],
                              capture_output=True, text=True)
        return done.returncode, done.stdout + done.stderr


# A tree that keeps every rule: pure layers, a middle layer, the runtime, the adapter, each
# including only downward, in both spellings (beside the file and root-relative).
CLEAN = {
    "coreclr/types.h": "#include <stdint.h>\n",
    "text/utf.h": '#include "../coreclr/types.h"\n',
    "text/utf.c": '#include "text/utf.h"\n#include "public.h"\n',
    "il/walk.h": '#include "coreclr/types.h"\n',
    "il/walk.c": '#include "walk.h"\n#include "../text/utf.h"\n',
    "rejit/state.h": '#include "il/walk.h"\n',
    "runtime/runtime.c": '#include "../rejit/state.h"\n',
    "runtime/runtime.h": "",
    "adapter/com.c": '#include "runtime/runtime.h"\n#include "rejit/state.h"\n',
}


class CheckIncludes(unittest.TestCase):
    def test_clean_tree_passes(self):
        code, out = run(CLEAN)
        self.assertEqual(code, 0, out)
        self.assertIn("0 findings", out)

    def test_file_cycle(self):
        tree = dict(CLEAN, **{"il/a.h": '#include "b.h"\n', "il/b.h": '#include "il/a.h"\n'})
        code, out = run(tree)
        self.assertEqual(code, 1, out)
        self.assertIn("file cycle among 2 files: il/a.h, il/b.h", out)
        self.assertIn('il/a.h:1: #include "b.h" -> il/b.h', out)
        self.assertIn('il/b.h:1: #include "il/a.h" -> il/a.h', out)

    def test_unit_cycle(self):
        tree = dict(CLEAN, **{"il/a.h": "", "il/a.c": '#include "b.h"\n',
                              "il/b.h": "", "il/b.c": '#include "a.h"\n'})
        code, out = run(tree)
        self.assertEqual(code, 1, out)
        self.assertIn("unit cycle among 2 units: il/a, il/b", out)
        self.assertNotIn("file cycle", out)

    def test_folder_cycle(self):
        # No file or unit cycle: x/a.c -> y/b.h and y/c.c -> x/d.h.
        tree = dict(CLEAN, **{"x/a.c": '#include "../y/b.h"\n', "y/b.h": "",
                              "y/c.c": '#include "../x/d.h"\n', "x/d.h": ""})
        code, out = run(tree)
        self.assertEqual(code, 1, out)
        self.assertIn("folder cycle among 2 folders: x/, y/", out)
        self.assertIn('x/a.c:1: #include "../y/b.h" -> y/b.h', out)
        self.assertIn('y/c.c:1: #include "../x/d.h" -> x/d.h', out)
        self.assertNotIn("file cycle", out)

    def test_forbidden_edges(self):
        cases = [
            ("generation/check.c", '#include "../runtime/runtime.h"\n', "generation/", "runtime/"),
            ("coreclr/x.h", '#include "adapter/com.h"\n', "coreclr/", "adapter/"),
            ("platform/p.c", '#include "../emit/e.h"\n', "platform/", "emit/"),
            ("allocation/a.c", '#include "../runtime/runtime.h"\n', "allocation/", "runtime/"),
            ("emit/e.c", '#include "adapter/com.h"\n', "emit/", "adapter/"),
            ("runtime/r.c", '#include "../adapter/com.h"\n', "runtime/", "adapter/"),
        ]
        for path, text, source, target in cases:
            with self.subTest(path=path):
                tree = dict(CLEAN, **{path: text, "adapter/com.h": "", "emit/e.h": ""})
                code, out = run(tree)
                self.assertEqual(code, 1, out)
                self.assertIn(f"forbidden edge: {source} must not include {target}", out)
                self.assertIn(f"{path}:1: #include", out)

    def test_allowed_downward_edges(self):
        tree = dict(CLEAN, **{"catalog/c.c": '#include "../il/walk.h"\n',
                              "runtime/r.c": '#include "../catalog/c.h"\n', "catalog/c.h": "",
                              "adapter/a.c": '#include "../allocation/a.h"\n', "allocation/a.h": ""})
        code, out = run(tree)
        self.assertEqual(code, 0, out)

    def test_unresolved_include(self):
        tree = dict(CLEAN, **{"il/x.c": '#include "missing.h"\n'})
        code, out = run(tree)
        self.assertEqual(code, 1, out)
        self.assertIn('il/x.c:1: #include "missing.h" resolves to no file', out)

    def test_report_only(self):
        tree = dict(CLEAN, **{"il/a.h": '#include "b.h"\n', "il/b.h": '#include "a.h"\n'})
        code, out = run(tree, "--report-only")
        self.assertEqual(code, 0, out)
        self.assertIn("file cycle", out)
        self.assertIn("(report only)", out)

    def test_commented_and_system_includes_ignored(self):
        tree = dict(CLEAN, **{"il/c.c": '#include <stdio.h>\n// #include "../runtime/runtime.h"\n'})
        code, out = run(tree)
        self.assertEqual(code, 0, out)


if __name__ == "__main__":
    unittest.main(verbosity=1)
