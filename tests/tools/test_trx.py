#!/usr/bin/env python3
"""Self-test of tools/trx.py (the .trx reader) and tools/test_failures.py (the failure recap)
over a synthetic .trx: one passed, one failed test with a message and a stack."""
import contextlib
import io
import os
import sys
import tempfile
import unittest

TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools")
sys.path.insert(0, TOOLS)
import test_failures  # noqa: E402
import trx  # noqa: E402

RUN = """<?xml version="1.0" encoding="utf-8"?>
<TestRun xmlns="http://microsoft.com/schemas/VisualStudio/TeamTest/2010">
  <Results>
    <UnitTestResult testId="a" testName="N.SampleProofs.Passes(x: 1)" outcome="Passed" duration="00:00:01" />
    <UnitTestResult testId="b" testName="N.SampleProofs.Fails" outcome="Failed" duration="00:00:02">
      <Output><ErrorInfo><Message>expected 6, got 5</Message><StackTrace>at N.SampleProofs.Fails()
at next frame</StackTrace></ErrorInfo></Output>
    </UnitTestResult>
  </Results>
  <TestDefinitions>
    <UnitTest id="a"><TestMethod className="N.SampleProofs" name="N.SampleProofs.Passes(x: 1)" /></UnitTest>
    <UnitTest id="b"><TestMethod className="N.SampleProofs" name="N.SampleProofs.Fails" /></UnitTest>
  </TestDefinitions>
</TestRun>
"""


class TrxTests(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        os.makedirs(os.path.join(self.folder.name, "proofs"))
        self.path = os.path.join(self.folder.name, "proofs", "proofs.trx")
        with open(self.path, "w", encoding="utf-8") as f:
            f.write(RUN)

    def tearDown(self):
        self.folder.cleanup()

    def test_results_carry_class_method_outcome_and_message(self):
        passed, failed = trx.read_results(self.path)
        self.assertEqual(("SampleProofs", "Passes", "Passed"), (passed.class_name, passed.method, passed.outcome))
        self.assertEqual(("SampleProofs", "Fails", "Failed"), (failed.class_name, failed.method, failed.outcome))
        self.assertEqual("expected 6, got 5", failed.message)
        self.assertIn("at next frame", failed.stack)

    def test_the_recap_names_the_failed_test_only(self):
        out = io.StringIO()
        sys.argv = ["test_failures.py", self.folder.name]
        with contextlib.redirect_stdout(out):
            self.assertEqual(0, test_failures.main())
        text = out.getvalue()
        self.assertIn("--- proofs: N.SampleProofs.Fails (00:00:02)", text)
        self.assertIn("expected 6, got 5", text)
        self.assertNotIn("Passes", text)


if __name__ == "__main__":
    unittest.main()
