#!/usr/bin/env python3
"""Call cycles between the native library's files and folders, read from its object files.

For each object file of the library, `nm` gives the symbols it defines and the symbols it
uses; file A calls file B when A uses a symbol B defines. The check fails (exit 1) when the
files, or the folders that hold them, call each other in a circle, and prints each circle.
Calls through function pointers (the COM vtables, the allocation port) are not seen, by
design: those are the seams that let a lower layer call up without depending on it.

  tools/check_calls.py <build dir> [<source dir>]
      e.g. build/native-release (the sources default to native/interception-profiler/src
      beside this script; objects of sources no longer there are left out)
"""
import os
import subprocess
import sys

# The one cycle finder of the layer checks (Tarjan), beside this script.
from check_includes import strongly_connected

SOURCE_MARK = os.sep + "src" + os.sep
DEFAULT_SOURCES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "native",
                               "interception-profiler", "src")
# The library's own targets, not the tests' or the fuzzers'.
LIBRARY_MARK = os.path.join("native", "interception-profiler", "CMakeFiles") + os.sep


def object_files(build_dir, sources):
    """The library's objects whose source still exists (a build tree keeps the objects of
    files since moved or deleted)."""
    for root, _, names in os.walk(build_dir):
        for name in names:
            path = os.path.join(root, name)
            if name.endswith(".c.o") and SOURCE_MARK in path and LIBRARY_MARK in path:
                if sources is None or os.path.isfile(os.path.join(sources, unit_of(path) + ".c")):
                    yield path


def unit_of(path):
    """src/rejit/rejit_state.c.o -> rejit/rejit_state"""
    tail = path.split(SOURCE_MARK, 1)[1]
    return tail[: -len(".c.o")]


def symbols(paths):
    """{path: (defined, used)} for the object files, from one `nm` over all of them (each line
    prefixed with its file: --print-file-name)."""
    table = {path: (set(), set()) for path in paths}
    if not paths:
        return table
    out = subprocess.run(["nm", "--print-file-name", *paths], check=True, capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        path, separator, rest = line.partition(".c.o:")
        if not separator:
            continue
        defined, used = table[path + ".c.o"]
        parts = rest.split()
        if len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBRC":
            defined.add(parts[2])
    return table


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 64
    sources = argv[2] if len(argv) == 3 else DEFAULT_SOURCES
    if not os.path.isdir(sources):
        sources = None
    files = {unit_of(p): found for p, found in symbols(list(object_files(argv[1], sources))).items()}
    if not files:
        print(f"check_calls: no object files of the library under {argv[1]}", file=sys.stderr)
        return 2
    owner = {}
    for unit, (defined, _) in files.items():
        for name in defined:
            owner[name] = unit
    unit_graph = {u: set() for u in files}
    for unit, (_, used) in files.items():
        for name in used:
            callee = owner.get(name)
            if callee and callee != unit:
                unit_graph[unit].add(callee)
    folder_graph = {}
    for unit, callees in unit_graph.items():
        folder = unit.split("/")[0]
        folder_graph.setdefault(folder, set())
        for callee in callees:
            target = callee.split("/")[0]
            if target != folder:
                folder_graph[folder].add(target)
    failures = 0
    for kind, graph in (("folder", folder_graph), ("file", unit_graph)):
        for component in strongly_connected(graph, graph):
            failures += 1
            print(f"call cycle between {kind}s: " + " <-> ".join(component))
    edges = sum(len(v) for v in unit_graph.values())
    print(f"check_calls: {len(unit_graph)} files, {edges} calls between files, "
          f"{len(folder_graph)} folders: {failures} cycles")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
