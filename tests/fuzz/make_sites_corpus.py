#!/usr/bin/env python3
"""Adds seeds with relocation operand sites to the corpus of fuzz_generation.c
(tests/fuzz/corpus/generation), in the harness's input layout with control bit 6 (relocations
of 11 u32: alvk_relocation with sites_offset and site_count): one user string on three ldstr,
a TypeRef on a box, a castclass and a catch clause, a MemberRef on two calls, one relocation
with sites and another with none; and the refusals: a site on an operand another relocation
fills, on its own il_offset, twice, on an opcode byte, past the code, on the locals or no
operand, on a call for a TypeRef, sites cut by the pool's end, more sites than
ALVK_MAX_RELOCATION_SITES. Files are named by the SHA-1 of their content, like the rest of
the corpus."""
import os
import struct

from corpus_files import write_seeds

from make_literal_catch_corpus import (LOCALS, MEMBER_REF, NO_OPERAND, OUT, TYPE_REF, USER_STRING,
                               Generation, catch, fat_body, small_section, u32)

SITES = 64  # control bit 6
MAX_SITES = 16384
LDSTR = bytes([0x72, 0, 0, 0, 0x70])
THREE_STRINGS = (LDSTR + bytes([0x26])) * 3 + bytes([0x2A])          # ldstr at 1, 7, 13
# ldnull; box <T> at 2; castclass <T> at 7; pop; try { ldstr; pop; leave } catch <T> { pop; leave }; ret
TYPED_CODE = (bytes([0x14, 0x8C, 0, 0, 0, 0x01, 0x74, 0, 0, 0, 0x01, 0x26])
              + LDSTR + bytes([0x26, 0xDE, 0x03, 0x26, 0xDE, 0x00, 0x2A]))
TWO_CALLS = bytes([0x28, 0, 0, 0, 0x0A, 0x28, 0, 0, 0, 0x0A, 0x2A])  # call at 1, 6
VOID = bytes([0x00, 0x00, 0x01])


class Shared(Generation):
    """A Generation whose relocations carry sites (operand offsets appended to the pool)."""

    def __init__(self, body):
        super().__init__(body)
        self.sites = []

    def add(self, kind, il_offset, blob=b"", name=b"", parent_token=0, parent_relocation=0,
            sites=(), sites_offset=None, site_count=None):
        row = super().add(kind, il_offset, blob, name, parent_token, parent_relocation)
        offset = len(self.pool)
        self.pool += b"".join(u32(s) for s in sites)
        self.sites.append((offset if sites_offset is None else sites_offset,
                           len(sites) if site_count is None else site_count))
        return row

    def seed(self):
        out = bytearray(super().seed())
        out[0] = SITES
        fixed = 48 + len(self.body) + len(self.pool)
        records = out[fixed:]
        wide = b""
        for i, (offset, count) in enumerate(self.sites):
            r = list(struct.unpack("<9I", records[36 * i:36 * i + 36]))
            r[0] = 44
            wide += b"".join(u32(v) for v in r) + u32(offset) + u32(count)
        return bytes(out[:fixed]) + wide


def strings(sites, il_offset=1, second=None):
    g = Shared(fat_body(THREE_STRINGS))
    g.add(USER_STRING, il_offset, "shared".encode("utf-16-le"), sites=sites)
    if second is not None:
        g.add(USER_STRING, second, "other".encode("utf-16-le"))
    return g


def seeds():
    yield strings([7, 13])
    yield strings([13, 7])
    yield strings([7], second=13)
    yield strings([1, 7], il_offset=NO_OPERAND)
    typed = (0, 12, 8, 20, 3, 0x01000000)
    g = Shared(fat_body(TYPED_CODE, sections=small_section([typed])))
    g.add(TYPE_REF, 2, name=b"Other.Thing", parent_token=0x23000001, sites=[7, catch(0)])
    g.add(USER_STRING, 13, "e".encode("utf-16-le"))
    yield g
    g = Shared(fat_body(TWO_CALLS))
    t = g.add(TYPE_REF, NO_OPERAND, name=b"Other.Hooks", parent_token=0x23000001)
    g.add(MEMBER_REF, 1, VOID, b"Run", parent_relocation=t, sites=[6])
    yield g
    # Refusals
    yield strings([7], second=7)                       # another relocation's operand
    yield strings([1])                                 # its own il_offset
    yield strings([7, 7])                              # twice
    yield strings([0])                                 # the opcode byte
    yield strings([2])                                 # inside the operand
    yield strings([40])                                # past the code
    yield strings([LOCALS])
    yield strings([NO_OPERAND])
    yield strings([catch(0)])                          # no EH clause
    g = Shared(fat_body(TWO_CALLS))
    g.add(TYPE_REF, NO_OPERAND, name=b"Other.Hooks", parent_token=0x23000001, sites=[1])
    yield g                                            # a TypeRef on a call
    g = strings([7, 13])
    g.sites[0] = (g.sites[0][0] + 2, 2)                # cut by the pool's end
    yield g
    g = strings([7, 13])
    g.sites[0] = (0xFFFFFFFE, 2)                       # wraps
    yield g
    g = strings([7, 13])
    g.sites[0] = (g.sites[0][0], MAX_SITES + 1)        # past the bound
    yield g


def main():
    write_seeds(OUT, [g.seed() for g in seeds()])


if __name__ == "__main__":
    main()
