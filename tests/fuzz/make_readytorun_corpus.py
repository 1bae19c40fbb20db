#!/usr/bin/env python3
"""Writes the seed corpora of fuzz_readytorun_image.c (tests/fuzz/corpus/readytorun_image) and
fuzz_r2r_inline_scope.c (tests/fuzz/corpus/r2r_inline_scope: byte 0 the multi-module format,
then a section 119: those of five real crossgen2 images of .NET 10.0.12, and synthetic ones:
an inlinee of another module of the bubble, inliners of other modules, 2-byte bucket offsets,
and refusals). The first is in
the harness's input layout (byte 0: 0 mapped, 1 flat; then the image): small PE32+ images, each
laid out mapped and flat, that are IL only, ReadyToRun with inlining in their own assembly only,
ReadyToRun with cross-module inline information (section 119), in a multi-module version bubble,
with unrelated code, a composite's component, a composite, with another kind of native header,
a native PE without a CLI header, and a few malformed ones (CLI or ReadyToRun header past the end,
too many sections). Files are named by the SHA-1 of their content, like the rest of the corpus."""
import os
import struct

from corpus_files import write_seeds

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus", "readytorun_image")
OUT_SCOPE = os.path.join(HERE, "corpus", "r2r_inline_scope")
# Section 119 of the proof's CrossEarly built without and with --opt-cross-module, of its
# Targets, and of AlvorKit.Interception.Native (tests/native/test_readytorun_image.c has them too).
REAL_119 = [
    bytes.fromhex("000202"),
    bytes.fromhex("000204230206020600"),
    bytes.fromhex("00020423020808080600"),  # CrossEarly with --inputbubble (Target: module 4)
    bytes.fromhex("00020423020808000804"),
    bytes.fromhex("00020a0c0e5a126616b91a06e8008406f0008406f800840601020084"),
]
SYNTHETIC_119 = [
    bytes.fromhex("000204230206080602"),        # local inlinee of module 3
    bytes.fromhex("0002042302040c02"),          # inliners of other modules
    bytes.fromhex("05060006000900770d00ff04010400"),  # 2-byte bucket offsets
    bytes.fromhex("030202"), bytes.fromhex("040303"), bytes.fromhex("000502"),
    bytes.fromhex("00020423 7e".replace(" ", "")), bytes.fromhex("000204230200"),
]
LFANEW, OPTIONAL = 0x80, 0x80 + 24
SECTIONS = OPTIONAL + 240
CLI_RVA, R2R_RVA = 0x1000, 0x1100
MAPPED_BYTES, FLAT_BYTES = 0x1400, 0x600  # one 0x400-byte section at RVA 0x1000, file 0x200
RTR = 0x00525452


def image(flat, native_rva=R2R_RVA, signature=RTR, flags=0, types=(), directories=16,
          cli_rva=CLI_RVA, count=None, section119=None):
    b = bytearray(FLAT_BYTES if flat else MAPPED_BYTES)
    at = (lambda rva: rva - 0x1000 + 0x200) if flat else (lambda rva: rva)
    b[0:2] = b"MZ"
    struct.pack_into("<I", b, 0x3C, LFANEW)
    b[LFANEW:LFANEW + 4] = b"PE\0\0"
    struct.pack_into("<HH", b, LFANEW + 4, 0x8664, 1)
    struct.pack_into("<H", b, LFANEW + 20, 240)
    struct.pack_into("<H", b, OPTIONAL, 0x20B)
    struct.pack_into("<II", b, OPTIONAL + 56, MAPPED_BYTES, 0x200)
    struct.pack_into("<I", b, OPTIONAL + 108, directories)
    struct.pack_into("<II", b, OPTIONAL + 112 + 14 * 8, cli_rva, 72)
    b[SECTIONS:SECTIONS + 5] = b".text"
    struct.pack_into("<IIII", b, SECTIONS + 8, 0x400, 0x1000, 0x400, 0x200)
    cli = at(CLI_RVA)
    struct.pack_into("<I", b, cli, 72)
    struct.pack_into("<II", b, cli + 64, native_rva, 16 + 12 * len(types))
    if native_rva and at(native_rva) + 16 > len(b):
        struct.pack_into("<I", b, at(native_rva), signature)  # the header runs past the end
    elif native_rva:
        h = at(native_rva)
        struct.pack_into("<IHHII", b, h, signature, 16, 0, flags,
                         len(types) if count is None else count)
        for i, t in enumerate(types):
            content = section119 if t == 119 and section119 is not None else b""
            struct.pack_into("<III", b, h + 16 + 12 * i, t, 0x1200 + 0x40 * i,
                             len(content) if content else 0x10)
            b[at(0x1200 + 0x40 * i):at(0x1200 + 0x40 * i) + len(content)] = content
    return bytes([1 if flat else 0]) + bytes(b)


def main():
    seeds = []
    for flat in (False, True):
        seeds += [
            image(flat, native_rva=0),
            image(flat, flags=0x1, types=(102, 103, 114)),
            image(flat, flags=0x1, types=(102, 103, 119)),
            image(flat, flags=0x4B, types=(100, 101, 102, 103, 105, 119, 121, 122, 123)),
            image(flat, flags=0x80, types=(102, 103)),
            image(flat, flags=0x20, types=(116,)),
            image(flat, flags=0x40, types=(102, 115)),
            image(flat, signature=0x12345678, types=(102,)),
            image(flat, directories=14),
            image(flat, cli_rva=0x13F0),
            image(flat, native_rva=0x13FC, types=()),
            image(flat, flags=0x1, types=(102,), count=300),
        ]
        for section in REAL_119:
            seeds.append(image(flat, flags=0x4B, types=(102, 103, 119), section119=section))
    write_seeds(OUT, seeds)
    write_seeds(OUT_SCOPE, [bytes([multi]) + s for s in REAL_119 + SYNTHETIC_119 for multi in (0, 1)])



if __name__ == "__main__":
    main()
