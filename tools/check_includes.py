#!/usr/bin/env python3
"""The include graph of the native sources, checked.

Reads every `#include "..."` under native/interception-profiler/src, resolves it (first
beside the including file, then from the source root, as the build's include path does;
headers found in the public include/ directory are outside the graph) and fails on:
  (a) a cycle between files, or between units (a .c with its same-named .h),
  (b) a cycle between folders (the first path component under the source root),
  (c) an include that crosses a forbidden edge of the layer rules below.
Each finding is printed with the include lines that make it.

  tools/check_includes.py [--report-only] [--root SRC] [--include-dir DIR ...]

Exit status: 0 clean (or --report-only), 1 findings, 2 usage. Python 3 standard library only.
"""
import argparse
import os
import re
import sys

# ---- the layer rules: (folders, folders they must not include) ----
# The pure layers depend on nothing stateful; the stateful middle (allocation, the catalog,
# the rejit bookkeeping, emission) does not reach up into the runtime or the COM adapter;
# the runtime does not reach up into the adapter. A folder that does not exist is absent.
PURE = ("coreclr", "platform", "identity", "text", "metadata", "il", "generation", "image")
MIDDLE = ("allocation", "catalog", "rejit", "emit")
LAYER_RULES = (
    (PURE, ("catalog", "rejit", "emit", "runtime", "allocation", "adapter")),
    (MIDDLE, ("runtime", "adapter")),
    (("runtime",), ("adapter",)),
)

INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"')
SOURCE_SUFFIXES = (".c", ".h")


class Include:
    """One resolved include line: source file, line number, spelling, target file."""

    def __init__(self, source, line, spelled, target):
        self.source, self.line, self.spelled, self.target = source, line, spelled, target

    def describe(self):
        return f'{self.source}:{self.line}: #include "{self.spelled}" -> {self.target}'


def folder_of(rel):
    parts = rel.split("/")
    return parts[0] if len(parts) > 1 else "."


def read_includes(root, include_dirs):
    """Every quoted include of every .c/.h under root; returns (files, includes, unresolved)."""
    files = []
    for directory, subdirs, names in os.walk(root):
        subdirs.sort()
        for name in sorted(names):
            if name.endswith(SOURCE_SUFFIXES):
                files.append(os.path.relpath(os.path.join(directory, name), root).replace(os.sep, "/"))
    known = set(files)
    includes, unresolved = [], []
    for rel in files:
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            for number, text in enumerate(f, 1):
                m = INCLUDE.match(text)
                if not m:
                    continue
                spelled = m.group(1)
                target = None
                for base in (os.path.dirname(rel), ""):
                    candidate = os.path.normpath(os.path.join(base, spelled)).replace(os.sep, "/")
                    if candidate in known:
                        target = candidate
                        break
                if target is not None:
                    includes.append(Include(rel, number, spelled, target))
                elif not any(os.path.isfile(os.path.join(d, spelled)) for d in include_dirs):
                    unresolved.append(f'{rel}:{number}: #include "{spelled}" resolves to no file')
    return files, includes, unresolved


def strongly_connected(nodes, edges):
    """Tarjan's algorithm, iterative; components of more than one node or with a self-edge."""
    index, low, on_stack, stack, result = {}, {}, set(), [], []
    counter = 0
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in edges.get(node, ()):
                    result.append(sorted(component))
    return result


def one_cycle(component, edges):
    """A shortest cycle through the component's first node, as a list of nodes (first repeated)."""
    members = set(component)
    start = component[0]
    previous = {start: None}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for child in sorted(edges.get(node, ())):
            if child == start:
                path = [node]
                while previous[path[-1]] is not None:
                    path.append(previous[path[-1]])
                return list(reversed(path)) + [start]
            if child in members and child not in previous:
                previous[child] = node
                queue.append(child)
    return [start, start]


def unit_of(rel):
    return os.path.splitext(rel)[0]


def cycles(kind, nodes, edges, witness):
    """One finding per strongly connected component: its members, one cycle through it, and
    every include line between its members (the whole knot to untie)."""
    findings = []
    for component in strongly_connected(nodes, edges):
        members = set(component)
        lines = [f"{kind} cycle among {len(component)} {kind}s: " + ", ".join(component),
                 "    for example: " + " -> ".join(one_cycle(component, edges))]
        for a in component:
            for b in sorted(edges.get(a, ())):
                if b in members:
                    lines += ["    " + inc.describe() for inc in witness[(a, b)]]
        findings.append(lines)
    return findings


def check(root, include_dirs):
    """Returns the findings, each a list of lines (a headline, then the include lines)."""
    files, includes, unresolved = read_includes(root, include_dirs)
    findings = [[line] for line in unresolved]

    # (a) files, and units (a .c with its same-named .h: one module, as the include
    # cycles of the project's review count them)
    file_edges, unit_edges, witness = {}, {}, {}
    for inc in includes:
        file_edges.setdefault(inc.source, set()).add(inc.target)
        witness.setdefault((inc.source, inc.target), []).append(inc)
        a, b = unit_of(inc.source), unit_of(inc.target)
        if a != b:
            unit_edges.setdefault(a, set()).add(b)
            witness.setdefault((a, b), []).append(inc)
    findings += cycles("file", files, file_edges, witness)
    findings += cycles("unit", {unit_of(f) for f in files}, unit_edges, witness)

    # (b) folders
    folder_edges = {}
    for inc in includes:
        a, b = folder_of(inc.source), folder_of(inc.target)
        if a != b:
            folder_edges.setdefault(a, set()).add(b)
            witness.setdefault((a + "/", b + "/"), []).append(inc)
    findings += cycles("folder", {folder_of(f) + "/" for f in files},
                       {a + "/": {b + "/" for b in bs} for a, bs in folder_edges.items()}, witness)

    # (c) layer rules
    for inc in includes:
        a, b = folder_of(inc.source), folder_of(inc.target)
        for sources, forbidden in LAYER_RULES:
            if a in sources and b in forbidden:
                findings.append([f"forbidden edge: {a}/ must not include {b}/",
                                 "    " + inc.describe()])
    return files, includes, findings


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(here)
    parser = argparse.ArgumentParser(description="Checks the include graph of the native sources.")
    parser.add_argument("--report-only", action="store_true",
                        help="print the findings but exit 0")
    parser.add_argument("--root", default=os.path.join(repo, "native", "interception-profiler", "src"),
                        help="the source root (default: native/interception-profiler/src)")
    parser.add_argument("--include-dir", action="append", default=None,
                        help="a directory of headers outside the graph (default: include/)")
    args = parser.parse_args(argv)
    include_dirs = args.include_dir if args.include_dir is not None else [os.path.join(repo, "include")]
    if not os.path.isdir(args.root):
        print(f"check_includes: {args.root} is not a directory", file=sys.stderr)
        return 2

    files, includes, findings = check(args.root, include_dirs)
    for lines in findings:
        print("\n".join(lines))
    print(f"check_includes: {len(files)} files, {len(includes)} includes, "
          f"{len(findings)} finding{'s' if len(findings) != 1 else ''}"
          + (" (report only)" if args.report_only and findings else ""))
    return 0 if args.report_only or not findings else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
