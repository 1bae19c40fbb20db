#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_allocation_sampled_event.c (tests/fuzz/corpus/allocation_sampled_event),
in the harness's input layout: byte 0 the pointer size (bit 0: 0 for 4 bytes, 1 for 8; bit 1 set:
byte 0 >> 2 as any pointer size), bytes 1-4 the sampling mean (little endian), then an
AllocationSampled v0 payload (event 303: AllocationKind u32, ClrInstanceID u16, TypeID
pointer-sized, TypeName UTF-16LE NUL-terminated, Address pointer-sized, ObjectSize u64,
SampledByteOffset u64). Seeds: small, large and pinned objects of both pointer sizes, an empty
name, a non-ASCII name, trailing bytes of a later version, and refusals (truncated, no NUL, a
bad pointer size). Files are named by the SHA-1 of their content, like the rest of the corpus."""
import os
import struct

from corpus_files import write_seeds

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus", "allocation_sampled_event")
RUNTIME_MEAN = 102400


def payload(ptr, kind, instance, type_id, name, address, size, offset, terminate=True):
    p = "<I" if ptr == 4 else "<Q"
    body = struct.pack("<IH", kind, instance) + struct.pack(p, type_id)
    body += name.encode("utf-16-le") + (b"\0\0" if terminate else b"")
    body += struct.pack(p, address) + struct.pack("<QQ", size, offset)
    return body


def seed(ptr, body, mean=RUNTIME_MEAN, pick=None):
    if pick is None:
        pick = 1 if ptr == 8 else 0
    return bytes([pick]) + struct.pack("<I", mean) + body


def main():
    seeds = []
    for ptr in (4, 8):
        big = 0x7F12345678 if ptr == 8 else 0x12345678
        seeds.append(seed(ptr, payload(ptr, 0, 7, big, "System.String", big + 0x40, 56, 3000)))
        seeds.append(seed(ptr, payload(ptr, 1, 7, big, "System.Byte[]", big + 0x80, 100000, 0)))
        seeds.append(seed(ptr, payload(ptr, 2, 7, big, "System.Int32[]", big, 4096, 17)))
        seeds.append(seed(ptr, payload(ptr, 0, 0, 1, "", 2, 24, 24)))
        seeds.append(seed(ptr, payload(ptr, 0, 1, big, "Généric<Ünïcode>", 3, 32, 1), mean=1000))
        seeds.append(seed(ptr, payload(ptr, 0, 1, big, "T", 4, 24, 5) + b"\x01" * 12))
        whole = payload(ptr, 0, 1, big, "Truncated", 5, 64, 6)
        seeds.append(seed(ptr, whole[:-1]))
        seeds.append(seed(ptr, payload(ptr, 0, 1, big, "NoNul", 5, 64, 6, terminate=False)))
        seeds.append(seed(ptr, payload(ptr, 0, 1, big, "Huge", 6, (1 << 64) - 1, 0), mean=2))
    # A pointer size other than 4 and 8 (16), to be refused.
    seeds.append(seed(8, payload(8, 0, 1, 9, "Wide", 5, 64, 6), pick=(16 << 2) | 2))
    write_seeds(OUT, seeds)


if __name__ == "__main__":
    main()
