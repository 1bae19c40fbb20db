#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_stack_types.c (tests/fuzz/corpus/stack_types): the body
shapes the project submits and one body per refusal kind, in the harness's input layout."""
import os
import struct

from corpus_files import write_seeds

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "stack_types")
ANY = 0xFFFFFFFF


def tok(t):
    return struct.pack("<I", t)


def member(token, sig, operand=ANY, owner=0, owner_token=0, owner_inst=b"", method_inst=b""):
    return (tok(token) + tok(operand) + bytes([0, owner]) + tok(owner_token)
            + bytes([len(sig)]) + sig + bytes([len(owner_inst)]) + owner_inst
            + bytes([len(method_inst)]) + method_inst)


def type_stack(token, stack, operand=ANY):
    return tok(token) + tok(operand) + bytes([1, stack])


def type_spec(token, spec, operand=ANY):
    return tok(token) + tok(operand) + bytes([2, len(spec)]) + spec


def seed(sig, code, clauses=(), locals_token=0, entries=(), flags=0, forget=0x5A, pool=b""):
    out = bytes([flags, forget, len(sig)]) + sig + struct.pack("<H", len(code)) + code
    out += bytes([len(clauses)])
    for kind, try_off, try_len, handler, handler_len, filt in clauses:
        out += bytes([{0: 0, 1: 1, 2: 2, 4: 3}[kind]])
        out += struct.pack("<HHHHH", try_off, try_len, handler, handler_len, filt)
    out += tok(locals_token) + bytes([len(entries)]) + b"".join(entries) + pool
    return out


INT_INT = bytes([0x00, 0x01, 0x08, 0x08])
STRING_INT = bytes([0x00, 0x01, 0x0E, 0x08])
DOUBLE_INT = bytes([0x00, 0x01, 0x0D, 0x08])
BOX_OF_INT = bytes([0x15, 0x12, 0x14, 0x01, 0x08])
TYPES = [type_stack(0x01000001, 1), type_stack(0x02000002, 7), type_stack(0x02000004, 1),
         type_stack(0x02000005, 5)]

seeds = {
    # exact dispatch of int32(int32): ldarg.0; ldc.i8; conv.i; calli; ret
    "dispatch_static": seed(INT_INT, bytes([0x02, 0x21]) + struct.pack("<Q", 0x7F0012345678)
                            + bytes([0xD3, 0x29]) + tok(0x11000001) + bytes([0x2A]),
                            entries=[member(0x11000001, INT_INT, operand=12)]),
    # exact dispatch of a struct's instance int32(ref int64): ldarg.0 (&); ldarg.1; ...
    "dispatch_struct": seed(bytes([0x20, 0x01, 0x08, 0x10, 0x0A]),
                            bytes([0x02, 0x03, 0x21]) + struct.pack("<Q", 1) + bytes([0xD3, 0x29])
                            + tok(0x11000001) + bytes([0x2A]), flags=1,
                            entries=[member(0x11000001, bytes([0x00, 0x02, 0x08, 0x10, 0x11, 0x08,
                                                               0x10, 0x0A]), operand=13)] + TYPES),
    # unmanaged calli, then + 1
    "calli_add": seed(INT_INT, bytes([0x02, 0x21]) + struct.pack("<Q", 1) + bytes([0xD3, 0x29])
                      + tok(0x11000001) + bytes([0x17, 0x58, 0x2A]),
                      entries=[member(0x11000001, bytes([0x01, 0x01, 0x08, 0x08]))]),
    # Triple(Echo(new GenBox<int>(Scale(in x)).Value))
    "four_kinds": seed(INT_INT, bytes([0x0F, 0x00, 0x28]) + tok(0x0A000001) + bytes([0x73])
                       + tok(0x0A000002) + bytes([0x7B]) + tok(0x0A000003) + bytes([0x28])
                       + tok(0x2B000001) + bytes([0x28]) + tok(0x06000001) + bytes([0x2A]),
                       entries=[member(0x0A000001, bytes([0x00, 0x01, 0x08, 0x1F, 0x05, 0x10, 0x08])),
                                member(0x0A000002, bytes([0x20, 0x01, 0x01, 0x13, 0x00]), owner=5,
                                       owner_inst=BOX_OF_INT),
                                member(0x0A000003, bytes([0x06, 0x13, 0x00]), owner_inst=BOX_OF_INT),
                                member(0x2B000001, bytes([0x10, 0x01, 0x01, 0x1E, 0x00, 0x1E, 0x00]),
                                       method_inst=bytes([0x0A, 0x01, 0x08])),
                                member(0x06000001, INT_INT)] + TYPES),
    # try { 100 / x } catch { -1 } with a local
    "catch_local": seed(INT_INT, bytes([0x20, 100, 0, 0, 0, 0x02, 0x5B, 0x0A, 0xDD, 10, 0, 0, 0,
                                        0x00, 0x00, 0x26, 0x15, 0x0A, 0xDE, 0x03, 0, 0, 0,
                                        0x06, 0x2A]),
                        clauses=[(0, 0, 15, 15, 8, 0)], locals_token=0x11000002,
                        entries=[member(0x11000002, bytes([0x07, 0x01, 0x08]), operand=0xFFFFFFFE)]),
    # a loop over a local, a switch
    "loop_switch": seed(INT_INT, bytes([0x16, 0x0A, 0x06, 0x17, 0x58, 0x0A, 0x06, 0x02, 0x32, 0xF8,
                                        0x06, 0x45, 2, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0x16, 0x2A,
                                        0x17, 0x2A]),
                        locals_token=0x11000002,
                        entries=[member(0x11000002, bytes([0x07, 0x01, 0x08]))]),
    # box/isinst/unbox.any, newarr of a TypeSpec, ldtoken and calls
    "type_operands": seed(INT_INT, bytes([0x02, 0x8C]) + tok(0x01000001) + bytes([0x75])
                          + tok(0x01000001) + bytes([0xA5]) + tok(0x01000001) + bytes([0x19, 0x8D])
                          + tok(0x1B000001) + bytes([0x8E, 0x69, 0x58, 0xD0]) + tok(0x1B000001)
                          + bytes([0x28]) + tok(0x06000001) + bytes([0x6F]) + tok(0x0A000001)
                          + bytes([0x6F]) + tok(0x0A000002) + bytes([0x58, 0x2A]),
                          entries=[type_spec(0x1B000001, bytes([0x15, 0x12, 0x19, 0x01, 0x08])),
                                   member(0x06000001, bytes([0x00, 0x01, 0x12, 0x1D, 0x11, 0x25])),
                                   member(0x0A000001, bytes([0x20, 0x00, 0x0E])),
                                   member(0x0A000002, bytes([0x20, 0x00, 0x08]))] + TYPES),
    # refusals: int32 for string, O for double, a depth mismatch, a try entered with a value
    "refuse_int_for_string": seed(STRING_INT, bytes([0x02, 0x2A])),
    "refuse_object_for_double": seed(DOUBLE_INT, bytes([0x14, 0x2A])),
    "refuse_merge_depth": seed(INT_INT, bytes([0x02, 0x2D, 0x01, 0x17, 0x18, 0x2A])),
    "refuse_try_entry": seed(INT_INT, bytes([0x16, 0x00, 0xDE, 0x01, 0xDC, 0x2A]),
                             clauses=[(2, 1, 3, 4, 1, 0)]),
    "refuse_call_argument": seed(INT_INT, bytes([0x14, 0x02, 0x28]) + tok(0x06000001) + bytes([0x2A]),
                                 entries=[member(0x06000001, bytes([0x00, 0x02, 0x08, 0x08, 0x0E]))]),
    # a pool for the hash-driven answers
    "pool": seed(INT_INT, bytes([0x02, 0x28]) + tok(0x0A000007) + bytes([0x7B]) + tok(0x0A000008)
                 + bytes([0x2A]), pool=bytes([4, 0x00, 0x01, 0x08, 0x08, 2, 0x06, 0x08, 3, 0x20, 0x00, 0x0E] * 4)),
}

write_seeds(OUT, seeds)
