#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_readytorun_image.c (tests/fuzz/corpus/readytorun_image), in
the harness's input layout (byte 0: 0 mapped, 1 flat; then the image): small PE32+ images, each
laid out mapped and flat, that are IL only, ReadyToRun with inlining in their own assembly only,
ReadyToRun with cross-module inline information (section 119), in a multi-module version bubble,
with unrelated code, a composite's component, a composite, with another kind of native header,
a native PE without a CLI header, and a few malformed ones (CLI or ReadyToRun header past the end,
too many sections). Files are named by the SHA-1 of their content, like the rest of the corpus."""
import hashlib
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "readytorun_image")
LFANEW, OPTIONAL = 0x80, 0x80 + 24
SECTIONS = OPTIONAL + 240
CLI_RVA, R2R_RVA = 0x1000, 0x1100
MAPPED_BYTES, FLAT_BYTES = 0x1400, 0x600  # one 0x400-byte section at RVA 0x1000, file 0x200
RTR = 0x00525452


def image(flat, native_rva=R2R_RVA, signature=RTR, flags=0, types=(), directories=16,
          cli_rva=CLI_RVA, count=None):
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
            struct.pack_into("<III", b, h + 16 + 12 * i, t, 0x1200 + 0x10 * i, 0x10)
    return bytes([1 if flat else 0]) + bytes(b)


def main():
    os.makedirs(OUT, exist_ok=True)
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
    for seed in seeds:
        name = hashlib.sha1(seed).hexdigest()
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(seed)
    print(f"{len(seeds)} seeds in {OUT}")


if __name__ == "__main__":
    main()
