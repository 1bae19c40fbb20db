#!/usr/bin/env python3
"""Print the failed tests of every .trx file under a folder: name, message and the top of the
stack, so that a failed run names its failures at the end of its log, where a CI excerpt
(the log's tail) shows them. Exit 0 always: the run's own status is what fails it."""
import pathlib
import sys
import xml.etree.ElementTree as ET

NS = "{http://microsoft.com/schemas/VisualStudio/TeamTest/2010}"
MESSAGE_LINES = 25
STACK_LINES = 8


def head(text, lines):
    rows = (text or "").strip().splitlines()
    more = len(rows) - lines
    return rows[:lines] + ([f"... {more} more lines"] if more > 0 else [])


def failures(trx):
    root = ET.parse(trx).getroot()
    for result in root.iter(NS + "UnitTestResult"):
        if result.get("outcome") != "Failed":
            continue
        info = result.find(f"{NS}Output/{NS}ErrorInfo")
        message = info.findtext(NS + "Message") if info is not None else ""
        stack = info.findtext(NS + "StackTrace") if info is not None else ""
        yield result.get("testName"), result.get("duration"), message, stack


def main():
    folder = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "build/test-results")
    found = 0
    for trx in sorted(folder.rglob("*.trx")):
        try:
            rows = list(failures(trx))
        except ET.ParseError as error:
            print(f"{trx}: unreadable ({error})")
            continue
        for name, duration, message, stack in rows:
            if found == 0:
                print("\n==> failed tests")
            found += 1
            print(f"\n--- {trx.stem}: {name} ({duration})")
            for line in head(message, MESSAGE_LINES):
                print(f"    {line}")
            for line in head(stack, STACK_LINES):
                print(f"    {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
