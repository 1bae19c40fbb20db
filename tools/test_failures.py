#!/usr/bin/env python3
"""Print the failed tests of every .trx file under a folder: name, message and the top of the
stack, so that a failed run names its failures at the end of its log, where a CI excerpt
(the log's tail) shows them. Exit 0 always: the run's own status is what fails it."""
import os
import pathlib
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trx import read_results  # noqa: E402

MESSAGE_LINES = 25
STACK_LINES = 8


def head(text, lines):
    rows = (text or "").strip().splitlines()
    more = len(rows) - lines
    return rows[:lines] + ([f"... {more} more lines"] if more > 0 else [])


def main():
    folder = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "build/test-results")
    found = 0
    for trx in sorted(folder.rglob("*.trx")):
        try:
            rows = [r for r in read_results(trx) if r.outcome == "Failed"]
        except ET.ParseError as error:
            print(f"{trx}: unreadable ({error})")
            continue
        for r in rows:
            if found == 0:
                print("\n==> failed tests")
            found += 1
            print(f"\n--- {trx.stem}: {r.test_name} ({r.duration})")
            for line in head(r.message, MESSAGE_LINES):
                print(f"    {line}")
            for line in head(r.stack, STACK_LINES):
                print(f"    {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
