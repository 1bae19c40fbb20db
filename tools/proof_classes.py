#!/usr/bin/env python3
"""Reads the proof classes of tests/Proofs/AlvorKit.Proofs: each top-level class with at least
one test method ([Fact], [Theory] or an attribute named ...Fact), with its file, the text of
its /// <summary>, its class-level traits and, for each test method, the method's own traits.
A library for tools/proofs_index.py and tools/check_platform_run.py; Python 3 standard
library only."""
import html
import os
import re
from dataclasses import dataclass, field

PROOFS_DIR = os.path.join("tests", "Proofs", "AlvorKit.Proofs")

CLASS = re.compile(r"^(?:public|internal)\s+(?:(?:sealed|static|partial|unsafe|abstract)\s+)*class\s+(\w+)")
METHOD = re.compile(r"^    public\s+(?:async\s+)?[\w<>\[\]]+\s+(\w+)\s*\(")
TEST_ATTRIBUTE = re.compile(r"^\[(?:Fact|Theory|\w+Fact)\b")
TRAIT = re.compile(r'Trait\(\s*"([^"]*)"\s*,\s*"([^"]*)"\s*\)')


@dataclass
class ProofMethod:
    name: str
    traits: list = field(default_factory=list)  # (name, value) pairs on the method itself


@dataclass
class ProofClass:
    name: str
    path: str  # relative to the repository's root, with forward slashes
    summary: str
    traits: list = field(default_factory=list)  # (name, value) pairs on the class
    methods: list = field(default_factory=list)

    def trait(self, name):
        """The values of the class-level trait `name`."""
        return [v for k, v in self.traits if k == name]


def summary_text(lines):
    """The text of a /// <summary> ... </summary> block (the lines without their ///), XML
    tags dropped (a cref or a name kept), whitespace joined."""
    text = " ".join(line.strip() for line in lines)
    match = re.search(r"<summary>(.*?)</summary>", text)
    if not match:
        return ""
    body = match.group(1)
    body = re.sub(r'<(?:see|paramref|typeparamref)\s+(?:cref|name|langword)="([^"]*)"\s*/>', r"`\1`", body)
    body = re.sub(r"</?(?:c|code)>", "`", body)
    body = re.sub(r"</?para>", " ", body)
    body = re.sub(r"<[^>]+>", "", body)
    return re.sub(r"\s+", " ", html.unescape(body)).strip()


def read_file(path, relative):
    """The proof classes of one C# file."""
    classes = []
    doc, attributes = [], []
    current = None
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    for line in lines:
        if line.startswith("///"):
            doc.append(line[3:])
            continue
        if attributes and attributes[-1].count("[") > attributes[-1].count("]"):
            attributes[-1] += " " + line.strip()  # an attribute over several lines
            continue
        if line.startswith("["):
            attributes.append(line)
            continue
        match = CLASS.match(line)
        if match:
            current = ProofClass(match.group(1), relative, summary_text(doc),
                                 [t for a in attributes for t in TRAIT.findall(a)])
            classes.append(current)
            doc, attributes = [], []
            continue
        stripped = line.strip()
        if current is not None and line.startswith("    [") and not line.startswith("     "):
            attributes.append(stripped)
            continue
        match = METHOD.match(line)
        if current is not None and match and any(TEST_ATTRIBUTE.match(a) for a in attributes):
            current.methods.append(ProofMethod(match.group(1), [t for a in attributes for t in TRAIT.findall(a)]))
        if stripped and not stripped.startswith("//"):
            doc, attributes = [], []
    return [c for c in classes if c.methods]


def read_proofs(root, directory=PROOFS_DIR):
    """Every proof class under directory (relative to root), by file name then position."""
    classes = []
    folder = os.path.join(root, directory)
    for name in sorted(os.listdir(folder)):
        if name.endswith(".cs"):
            relative = "/".join([*directory.split(os.sep), name])
            classes.extend(read_file(os.path.join(folder, name), relative))
    return classes
