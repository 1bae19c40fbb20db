#!/usr/bin/env python3
"""Checks that a run of the proofs selected by trait really ran them: given the .trx of the
run and the values of the Platform trait it selected, every proof class carrying the trait
(on the class) and every test method carrying it (on the method) must have at least one
passed test in the .trx. A selection that quietly ran nothing of a class (its tests skipped,
or not found under the emulator) fails, naming what is missing.

  python3 tools/check_platform_run.py RESULTS.trx all linux

Python 3 standard library only."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from proof_classes import read_proofs  # noqa: E402
from trx import read_results  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
TRAIT = "Platform"


def passed_tests(trx):
    """(class name without namespace, method name) of every passed test of the .trx."""
    return {(r.class_name, r.method) for r in read_results(trx) if r.outcome == "Passed" and r.class_name}


def missing(classes, values, passed):
    """What carries the trait with one of values and has no passed test."""
    gaps = []
    ran_classes = {c for c, _ in passed}
    for c in classes:
        if any(v in values for v in c.trait(TRAIT)):
            if c.name not in ran_classes:
                gaps.append(c.name)
            continue
        for m in c.methods:
            if any(k == TRAIT and v in values for k, v in m.traits) and (c.name, m.name) not in passed:
                gaps.append(f"{c.name}.{m.name}")
    return gaps


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 64
    trx, values = argv[1], set(argv[2:])
    classes = read_proofs(ROOT)
    selected = [c for c in classes if any(v in values for v in c.trait(TRAIT)) or
                any(k == TRAIT and v in values for m in c.methods for k, v in m.traits)]
    if not selected:
        print(f"check_platform_run: no proof carries {TRAIT} = {' or '.join(sorted(values))}", file=sys.stderr)
        return 1
    gaps = missing(classes, values, passed_tests(trx))
    if gaps:
        print(f"check_platform_run: no passed test in {trx} for: {', '.join(gaps)}", file=sys.stderr)
        return 1
    print(f"check_platform_run: every proof with {TRAIT} = {' or '.join(sorted(values))} passed "
          f"({len(selected)} classes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
