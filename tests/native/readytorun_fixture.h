/* A small PE image with a CLI header and, optionally, a ReadyToRun header, laid out as the
 * loader maps it or as its file: for the ReadyToRun header parser's tests. One section
 * (.text, RVA 0x1000, file offset 0x200, 0x2000 bytes) holds the CLI header (RVA 0x1000) and
 * the ReadyToRun header (RVA 0x1100). */
#ifndef AIP_READYTORUN_FIXTURE_H
#define AIP_READYTORUN_FIXTURE_H

#include "image/readytorun_image.h"

#include <stdint.h>
#include <string.h>

#define FIX_MAPPED_BYTES 0x3000u
#define FIX_FLAT_BYTES 0x2200u
#define FIX_LFANEW 0x80u
#define FIX_OPTIONAL (FIX_LFANEW + 24u)
#define FIX_SECTIONS (FIX_OPTIONAL + 240u)
#define FIX_CLI_RVA 0x1000u
#define FIX_R2R_RVA 0x1100u

static void fix_put(uint8_t *b, size_t at, uint32_t v, int width)
{
    for (int k = 0; k < width; ++k)
        b[at + (size_t)k] = (uint8_t)(v >> (8 * k));
}

static size_t fix_at(aip_image_layout layout, uint32_t rva)
{
    return layout == AIP_IMAGE_MAPPED ? rva : rva - 0x1000u + 0x200u;
}

/* Writes the image into b (FIX_MAPPED_BYTES or FIX_FLAT_BYTES long); returns its length.
 * native_rva 0: IL only. signature: what the native header starts with. */
static size_t fix_build(uint8_t *b, aip_image_layout layout, uint32_t native_rva,
                        uint32_t signature, uint32_t flags, const uint32_t *types, uint32_t count)
{
    size_t length = layout == AIP_IMAGE_MAPPED ? FIX_MAPPED_BYTES : FIX_FLAT_BYTES;
    memset(b, 0, length);
    b[0] = 'M';
    b[1] = 'Z';
    fix_put(b, 0x3C, FIX_LFANEW, 4);
    memcpy(b + FIX_LFANEW, "PE\0\0", 4);
    fix_put(b, FIX_LFANEW + 4, 0x8664, 2);  /* machine */
    fix_put(b, FIX_LFANEW + 6, 1, 2);       /* sections */
    fix_put(b, FIX_LFANEW + 20, 240, 2);    /* SizeOfOptionalHeader */
    fix_put(b, FIX_OPTIONAL, 0x20B, 2);     /* PE32+ */
    fix_put(b, FIX_OPTIONAL + 56, FIX_MAPPED_BYTES, 4); /* SizeOfImage */
    fix_put(b, FIX_OPTIONAL + 60, 0x200, 4);            /* SizeOfHeaders */
    fix_put(b, FIX_OPTIONAL + 108, 16, 4);              /* NumberOfRvaAndSizes */
    fix_put(b, FIX_OPTIONAL + 112 + 14 * 8, FIX_CLI_RVA, 4);
    fix_put(b, FIX_OPTIONAL + 112 + 14 * 8 + 4, 72, 4);
    memcpy(b + FIX_SECTIONS, ".text", 5);
    fix_put(b, FIX_SECTIONS + 8, 0x2000, 4);  /* VirtualSize */
    fix_put(b, FIX_SECTIONS + 12, 0x1000, 4); /* VirtualAddress */
    fix_put(b, FIX_SECTIONS + 16, 0x2000, 4); /* SizeOfRawData */
    fix_put(b, FIX_SECTIONS + 20, 0x200, 4);  /* PointerToRawData */
    size_t cli = fix_at(layout, FIX_CLI_RVA);
    fix_put(b, cli, 72, 4);
    fix_put(b, cli + 64, native_rva, 4);
    fix_put(b, cli + 68, 16 + 12 * count, 4);
    if (native_rva != 0) {
        size_t h = fix_at(layout, native_rva);
        fix_put(b, h, signature, 4);
        fix_put(b, h + 4, 16, 2);
        fix_put(b, h + 6, 0, 2);
        fix_put(b, h + 8, flags, 4);
        fix_put(b, h + 12, count, 4);
        for (uint32_t i = 0; i < count; ++i) {
            fix_put(b, h + 16 + 12 * i, types[i], 4);
            fix_put(b, h + 16 + 12 * i + 4, 0x1800 + 0x10 * i, 4);
            fix_put(b, h + 16 + 12 * i + 8, 0x10, 4);
        }
    }
    return length;
}

/* Writes `n` bytes as the content of section `index` (RVA 0x1800 + 0x10 * index; at most 16
 * bytes there, or 64 for the last section) and sets its size. */
static void fix_section_bytes(uint8_t *b, aip_image_layout layout, uint32_t index,
                              const uint8_t *bytes, uint32_t n)
{
    size_t h = fix_at(layout, FIX_R2R_RVA);
    memcpy(b + fix_at(layout, 0x1800 + 0x10 * index), bytes, n);
    fix_put(b, h + 16 + 12 * index + 8, n, 4);
}

#endif
