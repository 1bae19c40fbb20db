#!/usr/bin/env python3
"""The native layers, checked over the #include lines of native/interception-profiler/src.

  check_layers.py SRC_ROOT

Fails (exit 1, one line per finding) when
  - a folder includes a folder above it: adapter -> runtime -> {rejit, catalog, emit,
    allocation} -> the pure layers (metadata, il, generation, identity, text, coreclr,
    platform); rejit may use catalog and emit, emit may use catalog; allocation uses none of
    them (it reaches the runtime through its port);
  - folders include each other in a circle;
  - units (a .c with its same-named .h) of the core folders include each other in a circle.
"""
import os
import re
import sys

CORE = {"adapter", "runtime", "rejit", "catalog", "emit", "allocation"}
PURE = {"metadata", "il", "generation", "identity", "text", "coreclr", "platform"}
ALLOWED = {
    "adapter": {"runtime", "rejit", "catalog", "emit", "allocation"} | PURE,
    "runtime": {"rejit", "catalog", "emit", "allocation"} | PURE,
    "rejit": {"catalog", "emit"} | PURE,
    "emit": {"catalog"} | PURE,
    "catalog": set(PURE),
    "allocation": set(PURE),
}

root = os.path.abspath(sys.argv[1])
include = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
files = [os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith((".c", ".h"))]
known = set(files)


def resolve(src, name):
    for base in (root, os.path.dirname(src)):
        path = os.path.normpath(os.path.join(base, name))
        if path in known:
            return path
    return None


def unit(path):
    return os.path.splitext(os.path.relpath(path, root))[0]


def folder(path):
    return os.path.relpath(os.path.dirname(path), root).split(os.sep)[0]


findings = []
folder_graph, unit_graph = {}, {}
for src in sorted(files):
    for name in include.findall(open(src, errors="replace").read()):
        target = resolve(src, name)
        if target is None:
            continue
        a, b = folder(src), folder(target)
        if a != b:
            folder_graph.setdefault(a, set()).add(b)
            if a in ALLOWED and b not in ALLOWED[a]:
                findings.append(f"{os.path.relpath(src, root)} includes {name}: {a}/ may not "
                                f"use {b}/")
        if unit(src) != unit(target) and a in CORE and b in CORE:
            unit_graph.setdefault(unit(src), set()).add(unit(target))


def cycles(graph):
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10000)
    for v in sorted(set(graph) | {w for ws in graph.values() for w in ws}):
        if v not in index:
            visit(v)
    return found


findings += ["folder cycle: " + " <-> ".join(c) for c in cycles(folder_graph)]
findings += ["unit cycle: " + " <-> ".join(c) for c in cycles(unit_graph)]
for line in findings:
    print(line)
print(f"native layers: {len(findings)} finding(s)")
sys.exit(1 if findings else 0)
