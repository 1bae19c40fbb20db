#!/usr/bin/env python3
"""Self-test of tools/reap.py: a process its command leaves running (as MSBuild leaves its
worker nodes) is waited for, so its CPU time joins the caller's children's; the command's exit
status is reap.py's."""
import os
import subprocess
import sys
import time
import unittest

REAP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "reap.py")

# Starts an orphan that burns about half a second of CPU after its parent (this shell) exited.
ORPHAN = ("python3 -c 'import time\nend = time.process_time() + 0.5\n"
          "while time.process_time() < end: pass' & exit 3")


def children_cpu():
    times = os.times()
    return times.children_user + times.children_system


@unittest.skipUnless(sys.platform.startswith("linux"), "a subreaper is Linux's (prctl)")
class ReapTests(unittest.TestCase):
    def test_an_orphan_is_waited_for_and_counted(self):
        before = children_cpu()
        started = time.monotonic()
        rc = subprocess.call([sys.executable, REAP, "bash", "-c", ORPHAN])
        self.assertEqual(rc, 3)
        self.assertGreaterEqual(time.monotonic() - started, 0.4)  # it waited for the orphan
        self.assertGreaterEqual(children_cpu() - before, 0.4)  # and its CPU time is counted

    def test_without_reap_the_orphan_is_not_counted(self):
        # The case reap.py exists for: the same command run directly returns at once, and the
        # orphan's time is nobody's child time here.
        before = children_cpu()
        rc = subprocess.call(["bash", "-c", ORPHAN])
        self.assertEqual(rc, 3)
        self.assertLess(children_cpu() - before, 0.4)
        time.sleep(0.7)  # let the orphan end before the next test


if __name__ == "__main__":
    unittest.main()
