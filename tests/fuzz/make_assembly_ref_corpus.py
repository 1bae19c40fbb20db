#!/usr/bin/env python3
"""Adds AssemblyRef seeds to the corpus of fuzz_generation.c (tests/fuzz/corpus/generation), in
the harness's input layout (make_literal_catch_corpus.py's Generation): ASSEMBLY_REF relocations
parenting TypeRefs (and nested TypeRefs, MemberRefs under them, class references to those
TypeRefs), and refusals: blobs of 0, 7 and 9 bytes, a name, a parent token or relocation, an
operand (call, locals, catch clause), a MemberRef or MethodSpec under it, a class reference
to it, kind 8. Files are named by the SHA-1 of their content, like the rest of the corpus."""
import os
import struct

from corpus_files import write_seeds

from make_literal_catch_corpus import (CALL_CODE, CATCH_CODE, LOCALS, MEMBER_REF, METHOD_SPEC,
                               NO_OPERAND, OUT, TYPE_REF, TYPE_SPEC, Generation, catch, fat_body,
                               ref, small_section)

ASSEMBLY_REF = 7
MODULE = struct.pack("<Q", 0x00007F3A12345678)
VOID = bytes([0x00, 0x00, 0x01])


def hooked(module=MODULE):
    """R1 ASSEMBLY_REF, R2 TYPE_REF under it, R3 MEMBER_REF on the call."""
    g = Generation(fat_body(CALL_CODE))
    g.add(ASSEMBLY_REF, NO_OPERAND, module)
    g.add(TYPE_REF, NO_OPERAND, name=b"Mods.Hooks", parent_relocation=1)
    g.add(MEMBER_REF, 1, VOID, b"Prefix", parent_relocation=2)
    return g


def seeds():
    yield hooked()
    yield hooked(b"\0" * 8)
    yield hooked(b"\xff" * 8)
    g = hooked()
    g.add(TYPE_REF, NO_OPERAND, name=b"Inner", parent_relocation=2)       # nested
    g.add(TYPE_SPEC, NO_OPERAND, bytes([0x1D, 0x12]) + ref(4))            # Inner[]
    g.add(MEMBER_REF, NO_OPERAND, bytes([0x00, 0x01, 0x01, 0x12]) + ref(2), b"Postfix",
          parent_relocation=2)
    yield g
    g = hooked()
    g.add(ASSEMBLY_REF, NO_OPERAND, struct.pack("<Q", 0x1000))           # a second assembly
    g.add(TYPE_REF, NO_OPERAND, name=b"Other.Type", parent_relocation=4)
    yield g
    # Refusals
    for blob in (b"", MODULE[:7], MODULE + b"\0", MODULE * 2):
        yield hooked(blob)
    g = Generation(fat_body(CALL_CODE))
    g.add(ASSEMBLY_REF, NO_OPERAND, MODULE, name=b"GameMod")
    yield g
    g = Generation(fat_body(CALL_CODE))
    g.add(ASSEMBLY_REF, NO_OPERAND, MODULE, parent_token=0x23000001)
    yield g
    g = hooked()
    g.add(ASSEMBLY_REF, NO_OPERAND, MODULE, parent_relocation=1)
    yield g
    g = Generation(fat_body(CALL_CODE))
    g.add(ASSEMBLY_REF, 1, MODULE)                                        # on the call
    yield g
    g = Generation(fat_body(CALL_CODE, locals_token=0x11000000))
    g.add(ASSEMBLY_REF, LOCALS, MODULE)
    yield g
    g = Generation(fat_body(CATCH_CODE, sections=small_section([(0, 0, 8, 8, 3, 0x01000000)])))
    g.add(ASSEMBLY_REF, catch(0), MODULE)
    yield g
    g = Generation(fat_body(CALL_CODE))
    g.add(ASSEMBLY_REF, NO_OPERAND, MODULE)
    g.add(MEMBER_REF, 1, VOID, b"Prefix", parent_relocation=1)            # MemberRef under it
    yield g
    g = Generation(fat_body(CALL_CODE))
    g.add(ASSEMBLY_REF, NO_OPERAND, MODULE)
    g.add(METHOD_SPEC, 1, bytes([0x0A, 0x01, 0x08]), parent_relocation=1)  # MethodSpec under it
    yield g
    g = Generation(fat_body(CALL_CODE))
    g.add(ASSEMBLY_REF, NO_OPERAND, MODULE)
    g.add(TYPE_SPEC, NO_OPERAND, bytes([0x1D, 0x12]) + ref(1))            # a class reference to it
    yield g
    g = Generation(fat_body(CALL_CODE))
    g.add(8, NO_OPERAND, MODULE)                                          # past the last kind
    yield g


def main():
    write_seeds(OUT, [g.seed() for g in seeds()])


if __name__ == "__main__":
    main()
