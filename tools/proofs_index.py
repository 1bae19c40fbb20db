#!/usr/bin/env python3
"""Writes docs/Proofs.md, the index of the profiled-process proofs: by feature, each proof class
with what it asserts (its /// <summary>) and its test methods, read from the proof classes
themselves (tools/proof_classes.py). Every proof class carries [Trait("Feature", "...")] with
one of FEATURES; a class without one, or with another, fails the run.

  python3 tools/proofs_index.py          rewrite docs/Proofs.md
  python3 tools/proofs_index.py --check  fail when docs/Proofs.md differs from what it writes

Python 3 standard library only."""
import argparse
import difflib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from proof_classes import PROOFS_DIR, read_proofs  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
INDEX = os.path.join("docs", "Proofs.md")

# The features, in the index's order: name, the doc that describes the feature, what it covers.
FEATURES = [
    ("Patches", "Interception.md#patches-how-a-method-is-replaced-and-restored",
     "install, replace and remove; dispatch paths; owners; inlining callers; ReadyToRun code; the patch table"),
    ("Generations", "Interception.md#method-generations",
     "complete IL bodies, their relocations, plans from the original IL, batches and refusals"),
    ("Managed API", "ManagedApi.md", "AlvorKit.Interception from a profiled process"),
    ("Hooks", "ManagedApi.md#hooks-prefixes-postfixes-and-finalizers",
     "prefixes, postfixes, finalizers, infixes, transpilers, reverse patches and patch classes woven into bodies"),
    ("Harmony API", "ManagedApi.md#porting-a-harmony-mod-alvorkitinterceptionharmonylib",
     "a mod written against the Harmony-shaped surface"),
    ("Hot reload", "HotReload.md", "a save compiled and applied to the running game"),
    ("Allocations", "Interception.md#allocation-capture", "exact and sampled allocation capture, and its exports"),
    ("Launch and loading", "Interception.md#runtime",
     "the profiler loading, hosted runtimes, modules and their copies, method identity"),
    ("Reliability and concurrency", "Guide.md#reliability",
     "many threads, full queues, process exit, memory held, stress"),
    ("Platforms", "Interception.md#runtime-identifiers", "the process of each runtime identifier"),
    ("Proof harness", "Guide.md#build-targets-and-what-the-tests-run", "how the proofs read what a profiled process reports"),
]

HEADER = """# Proofs: what each profiled-process proof asserts

The proofs (tests/Proofs/AlvorKit.Proofs, run by `./build.sh test`) start real .NET processes
with the profiler loaded and assert on what those processes report. This index lists them by
feature: each class, what it asserts (its summary) and its tests. It is generated from the
proof classes by `python3 tools/proofs_index.py` (their `[Trait("Feature", ...)]` and
`/// <summary>`); `./build.sh test` fails when it differs. Run one feature's proofs with
`dotnet test tests/Proofs/AlvorKit.Proofs/AlvorKit.Proofs.csproj -c Release --no-build --filter "Feature=Hooks"`.
"""


# Where a value of the Platform trait runs the proof again (build.sh's platform_proofs).
PLATFORMS = {"all": "on linux-arm64 and win-x64", "linux": "on linux-arm64"}


def also_run(c):
    """Where the class's proofs run again besides linux-x64, from its Sanitized and Platform
    traits (on the class, or on some of its methods)."""
    again = []
    if "yes" in c.trait("Sanitized"):
        again.append("with the profiler under ASan + UBSan")
    for value in c.trait("Platform"):
        again.append(PLATFORMS.get(value, f"with Platform = {value}"))
    for value in sorted({v for m in c.methods for k, v in m.traits if k == "Platform"}):
        names = ", ".join(f"`{m.name}`" for m in c.methods if ("Platform", value) in m.traits)
        again.append(f"{PLATFORMS.get(value, f'with Platform = {value}')}: {names}")
    return again


def render(classes):
    by_feature = {name: [] for name, _, _ in FEATURES}
    errors = []
    for c in classes:
        features = c.trait("Feature")
        if len(features) != 1:
            errors.append(f"{c.path}: class {c.name} carries {len(features)} Feature traits, not one")
        elif features[0] not in by_feature:
            errors.append(f"{c.path}: class {c.name}: feature '{features[0]}' is not one of tools/proofs_index.py's FEATURES")
        else:
            by_feature[features[0]].append(c)
        if not c.summary:
            errors.append(f"{c.path}: class {c.name} has no /// <summary> saying what it asserts")
    if errors:
        raise ValueError("\n".join(errors))
    out = [HEADER]
    tests = sum(len(c.methods) for c in classes)
    out.append(f"{len(classes)} proof classes, {tests} test methods (a theory counts once).\n")
    for name, doc, covers in FEATURES:
        if by_feature[name]:
            anchor = name.lower().replace(" ", "-")
            out.append(f"- [{name}](#{anchor}): {covers}")
    out.append("")
    for name, doc, covers in FEATURES:
        members = sorted(by_feature[name], key=lambda c: c.name)
        if not members:
            continue
        out.append(f"## {name}\n")
        out.append(f"{covers[0].upper() + covers[1:]}; described in [{doc.split('#')[0]}]({doc}).\n")
        for c in members:
            link = os.path.relpath(c.path, "docs").replace(os.sep, "/")
            out.append(f"### {c.name}\n")
            out.append(f"[{os.path.basename(c.path)}]({link}). {c.summary}\n")
            out.append("Tests: " + ", ".join(f"`{m.name}`" for m in c.methods) + ".\n")
            again = also_run(c)
            if again:
                out.append("Also run " + "; ".join(again) + ".\n")
    return "\n".join(out).rstrip("\n") + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail when docs/Proofs.md differs")
    parser.add_argument("--root", default=ROOT, help="the repository's root")
    parser.add_argument("--proofs", default=PROOFS_DIR, help="the proofs' folder, relative to the root")
    args = parser.parse_args()
    try:
        text = render(read_proofs(args.root, args.proofs))
    except ValueError as e:
        print(f"proofs_index: {e}", file=sys.stderr)
        return 1
    path = os.path.join(args.root, INDEX)
    if args.check:
        current = ""
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                current = f.read()
        if current != text:
            sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), text.splitlines(True),
                                                       INDEX, "generated"))
            print(f"proofs_index: {INDEX} is not what the proof classes give: run python3 tools/proofs_index.py",
                  file=sys.stderr)
            return 1
        print(f"proofs_index: {INDEX} matches the proof classes")
        return 0
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"proofs_index: wrote {INDEX}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
