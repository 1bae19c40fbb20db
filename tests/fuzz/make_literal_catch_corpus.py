#!/usr/bin/env python3
"""Adds literal and catch-type seeds to the corpus of fuzz_generation.c (tests/fuzz/corpus/generation), in
the harness's input layout: USER_STRING relocations on ldstr (and a few refusals), CATCH_TYPE
relocations on typed catch clauses in small, fat and chained EH sections (and on clauses that
are not typed catches), and class references (tag 3) in TypeSpec, MemberRef, MethodSpec,
calli and locals blobs (and references that point forward, at themselves, at a non-TypeRef,
or at row 0). Files are named by the SHA-1 of their content, like the rest of the corpus."""
import os
import struct

from corpus_files import write_seeds

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "generation")
NO_OPERAND = 0xFFFFFFFF
LOCALS = 0xFFFFFFFE
STANDALONE, TYPE_SPEC, MEMBER_REF, METHOD_SPEC, TYPE_REF, USER_STRING = 1, 2, 3, 4, 5, 6


def catch(clause):
    return 0xFFFF0000 + clause


def u32(v):
    return struct.pack("<I", v)


def fat_body(code, locals_token=0, sections=b""):
    flags = 0x3003 | (0x10 if locals_token else 0) | (0x08 if sections else 0)
    body = struct.pack("<HHII", flags, 8, len(code), locals_token) + code
    if sections:
        body += b"\0" * (-len(body) % 4) + sections
    return body


def small_section(clauses, more=False):
    data = b"".join(struct.pack("<HHBHBI", f, t, tl, h, hl, tok) for f, t, tl, h, hl, tok in clauses)
    return bytes([0x01 | (0x80 if more else 0), 4 + len(data), 0, 0]) + data


def fat_section(clauses, more=False):
    data = b"".join(struct.pack("<IIIIII", *c) for c in clauses)
    size = 4 + len(data)
    return bytes([0x41 | (0x80 if more else 0), size & 0xFF, (size >> 8) & 0xFF, size >> 16]) + data


class Generation:
    def __init__(self, body):
        self.body = body
        self.pool = b""
        self.relocations = []

    def add(self, kind, il_offset, blob=b"", name=b"", parent_token=0, parent_relocation=0):
        name_offset = len(self.pool)
        self.pool += name
        blob_offset = len(self.pool)
        self.pool += blob
        self.relocations.append((36, kind, il_offset, parent_token, parent_relocation, name_offset,
                                 len(name), blob_offset, len(blob)))
        return len(self.relocations)  # 1-based

    def type_ref(self, name=b"Other.Thing", il_offset=NO_OPERAND):
        return self.add(TYPE_REF, il_offset, name=name, parent_token=0x23000001)

    def seed(self):
        out = struct.pack("<BBHII", 0, len(self.relocations), 0, len(self.body), len(self.pool))
        out += struct.pack("<IIQQIII", 0, 0, 7, 0, 0, 0, 0xFFFFFFFF)
        out += self.body + self.pool
        for r in self.relocations:
            out += b"".join(u32(v) for v in r)
        return out


def ref(row):
    """A tag-3 class reference to relocation `row`, compressed."""
    v = (row << 2) | 3
    return bytes([v]) if v < 0x80 else bytes([0x80 | (v >> 8), v & 0xFF])


LDSTR = bytes([0x72, 0, 0, 0, 0x70])
STRING_CODE = LDSTR + bytes([0x26, 0x2A])                       # ldstr; pop; ret
CALL_CODE = bytes([0x28, 0, 0, 0, 0x0A, 0x2A])                  # call; ret
CATCH_CODE = LDSTR + bytes([0x26, 0xDE, 0x03, 0x26, 0xDE, 0x00, 0x2A])


def seeds():
    # USER_STRING
    for text in ("", "hello", "Größe ✓", "\U0001F600"):
        g = Generation(fat_body(STRING_CODE))
        g.add(USER_STRING, 1, text.encode("utf-16-le"))
        yield g
    g = Generation(fat_body(STRING_CODE))
    g.add(USER_STRING, 1, b"odd")                              # half a code unit
    yield g
    g = Generation(fat_body(STRING_CODE))
    g.add(USER_STRING, 1, "x".encode("utf-16-le"), name=b"N")  # a name
    yield g
    g = Generation(fat_body(STRING_CODE))
    g.type_ref(il_offset=1)                                     # a TypeRef on ldstr
    yield g
    # CATCH_TYPE: small, fat, chained sections; typed and untyped clauses
    typed = (0, 0, 8, 8, 3, 0x01000000)
    fin = (2, 0, 8, 8, 3, 0)
    filt = (1, 0, 8, 8, 3, 8)
    for sections in (small_section([typed, typed]), fat_section([typed, typed]),
                     small_section([typed], more=True) + fat_section([typed]),
                     fat_section([typed, fin]), small_section([fin], more=True) + fat_section([typed]),
                     small_section([filt, typed])):
        for clause in (0, 1, 2):
            g = Generation(fat_body(CATCH_CODE, sections=sections))
            g.type_ref(b"Other.Error", il_offset=catch(clause))
            g.add(TYPE_SPEC, catch(1 - clause if clause < 2 else 0), bytes([0x1D, 0x12]) + ref(1))
            g.add(USER_STRING, 1, "e".encode("utf-16-le"))
            yield g
    g = Generation(fat_body(CATCH_CODE, sections=small_section([typed])))
    g.type_ref(b"Other.Error", il_offset=catch(0))
    g.add(TYPE_SPEC, catch(0), bytes([0x1D, 0x08]))            # two on one clause
    yield g
    g = Generation(fat_body(CATCH_CODE, sections=small_section([typed])))
    g.add(MEMBER_REF, catch(0), bytes([0x06, 0x08]), b"F", parent_token=0x01000001)
    yield g
    # Class references in every kind of blob
    g = Generation(fat_body(CALL_CODE, locals_token=0x11000000))
    g.type_ref()
    g.add(TYPE_SPEC, NO_OPERAND, bytes([0x15, 0x12, 0x05, 0x01, 0x12]) + ref(1))
    g.add(MEMBER_REF, NO_OPERAND, bytes([0x10, 0x01, 0x02, 0x12]) + ref(1) + bytes([0x11]) + ref(1)
          + bytes([0x1F]) + ref(1) + bytes([0x08]), b"M", parent_relocation=1)
    g.add(METHOD_SPEC, 1, bytes([0x0A, 0x01, 0x12]) + ref(1), parent_relocation=3)
    g.add(STANDALONE, LOCALS, bytes([0x07, 0x02, 0x12]) + ref(1) + bytes([0x1D, 0x11]) + ref(1))
    g.add(STANDALONE, NO_OPERAND, bytes([0x00, 0x01, 0x01, 0x0F, 0x11]) + ref(1))
    g.add(MEMBER_REF, NO_OPERAND, bytes([0x06, 0x1B, 0x00, 0x01, 0x12]) + ref(1) + bytes([0x11]) + ref(1),
          b"Fn", parent_relocation=1)
    yield g
    # A reference needing two compressed bytes: row 40 of 41 relocations.
    g = Generation(fat_body(CALL_CODE))
    for i in range(39):
        g.add(USER_STRING, NO_OPERAND, bytes([i, 0]))
    g.type_ref()
    g.add(MEMBER_REF, 1, bytes([0x00, 0x00, 0x12]) + ref(40), b"Make", parent_relocation=40)
    yield g
    # Refused references: forward, itself, a TypeSpec, row 0, past the end
    for row, first_is_ref in ((2, False), (2, True), (0, True), (9, True)):
        g = Generation(fat_body(CALL_CODE))
        if first_is_ref:
            g.type_ref()
        g.add(TYPE_SPEC, NO_OPERAND, bytes([0x1D, 0x12]) + ref(row))
        if not first_is_ref:
            g.type_ref()
        yield g
    g = Generation(fat_body(CALL_CODE))
    g.type_ref()
    g.add(TYPE_SPEC, NO_OPERAND, bytes([0x1D, 0x12]) + ref(1))
    g.add(TYPE_SPEC, NO_OPERAND, bytes([0x1D, 0x12]) + ref(2))  # names a TypeSpec
    yield g


def main():
    write_seeds(OUT, [g.seed() for g in seeds()])


if __name__ == "__main__":
    main()
