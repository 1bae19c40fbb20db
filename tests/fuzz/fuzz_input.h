/* What every harness shares: the libFuzzer entry point's prototype, the property check
 * that aborts (so libFuzzer records the input as a crash), exact-size heap copies (so
 * AddressSanitizer reports any read past what the code under test was given), and a
 * reader that splits the fuzz input into fields, yielding zeros once it runs out. */
#ifndef AIP_FUZZ_INPUT_H
#define AIP_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A violated property: say which, then abort. */
#define AIP_FUZZ_CHECK(condition) \
    do { \
        if (!(condition)) { \
            fprintf(stderr, "%s:%d: property violated: %s\n", __FILE__, __LINE__, #condition); \
            abort(); \
        } \
    } while (0)

/* A heap block of exactly n bytes (n == 0 gives a block ASan treats as empty). Never NULL. */
static inline void *aip_fuzz_alloc(size_t n)
{
    void *block = malloc(n);
    if (block == NULL && n == 0)
        block = malloc(1); /* only if malloc(0) gave NULL, which ASan's malloc never does */
    if (block == NULL)
        abort();
    return block;
}

/* An exact-size heap copy of bytes[0 .. n). */
static inline uint8_t *aip_fuzz_copy(const uint8_t *bytes, size_t n)
{
    uint8_t *copy = aip_fuzz_alloc(n);
    if (n > 0)
        memcpy(copy, bytes, n);
    return copy;
}

/* A NUL-terminated heap copy of bytes[0 .. n), cut at the first NUL. */
static inline char *aip_fuzz_string(const uint8_t *bytes, size_t n)
{
    const uint8_t *nul = n > 0 ? memchr(bytes, 0, n) : NULL;
    size_t length = nul != NULL ? (size_t)(nul - bytes) : n;
    char *text = malloc(length + 1);
    if (text == NULL)
        abort();
    if (length > 0)
        memcpy(text, bytes, length);
    text[length] = '\0';
    return text;
}

typedef struct aip_fuzz_reader {
    const uint8_t *data;
    size_t size;
    size_t at;
} aip_fuzz_reader;

static inline aip_fuzz_reader aip_fuzz_reader_of(const uint8_t *data, size_t size)
{
    aip_fuzz_reader r = {data, size, 0};
    return r;
}

static inline size_t aip_fuzz_left(const aip_fuzz_reader *r)
{
    return r->size - r->at;
}

/* Little-endian integer of `bytes` bytes; missing bytes read as 0. */
static inline uint64_t aip_fuzz_take(aip_fuzz_reader *r, unsigned bytes)
{
    uint64_t value = 0;
    for (unsigned i = 0; i < bytes; ++i) {
        if (r->at < r->size)
            value |= (uint64_t)r->data[r->at++] << (8 * i);
    }
    return value;
}

static inline uint8_t aip_fuzz_u8(aip_fuzz_reader *r)
{
    return (uint8_t)aip_fuzz_take(r, 1);
}
static inline uint16_t aip_fuzz_u16(aip_fuzz_reader *r)
{
    return (uint16_t)aip_fuzz_take(r, 2);
}
static inline uint32_t aip_fuzz_u32(aip_fuzz_reader *r)
{
    return (uint32_t)aip_fuzz_take(r, 4);
}
static inline uint64_t aip_fuzz_u64(aip_fuzz_reader *r)
{
    return aip_fuzz_take(r, 8);
}

/* Up to n bytes (fewer when the input runs out); *got receives how many. */
static inline const uint8_t *aip_fuzz_bytes(aip_fuzz_reader *r, size_t n, size_t *got)
{
    size_t left = aip_fuzz_left(r);
    *got = n < left ? n : left;
    const uint8_t *p = r->data + r->at;
    r->at += *got;
    return p;
}

#endif
