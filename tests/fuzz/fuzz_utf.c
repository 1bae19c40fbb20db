/* Fuzzes text/utf.h: aip_utf8_valid, aip_utf8_to_utf16, aip_utf16_to_utf8. Input: the whole
 * input is read twice, as UTF-8 bytes and as little-endian UTF-16 units (a trailing odd byte
 * dropped, the units cut at the first 0), each in an exact-size heap block.
 * Checks, UTF-8 side: the validator agrees with the harness's own reading of the Unicode
 * well-formed byte sequences (Table 3-7) without U+0000; aip_utf8_to_utf16 succeeds exactly
 * on valid input, with the units the harness's own decoder gives and a terminating 0; it
 * needs exactly units + 1 of capacity (one fewer is -1); converting those units back with
 * aip_utf16_to_utf8 gives the input bytes exactly.
 * UTF-16 side: aip_utf16_to_utf8 gives the harness's own encoding (unpaired surrogates as
 * U+FFFD), which aip_utf8_valid accepts; it needs exactly bytes + 1 of capacity (one fewer is
 * -2, the output then empty); converting back gives the units with unpaired surrogates
 * replaced by U+FFFD. */
#include "fuzz_input.h"

#include "text/utf.h"

/* Length of the well-formed sequence at in[i] per Unicode Table 3-7 (U+0000 excluded), or 0. */
static size_t reference_sequence(const uint8_t *in, size_t n, size_t i)
{
    uint8_t b = in[i];
    size_t need;
    uint8_t lo = 0x80, hi = 0xBF; /* the second byte's range */
    if (b >= 0x01 && b <= 0x7F)
        return 1;
    if (b >= 0xC2 && b <= 0xDF)
        need = 2;
    else if (b == 0xE0)
        need = 3, lo = 0xA0;
    else if ((b >= 0xE1 && b <= 0xEC) || b == 0xEE || b == 0xEF)
        need = 3;
    else if (b == 0xED)
        need = 3, hi = 0x9F;
    else if (b == 0xF0)
        need = 4, lo = 0x90;
    else if (b >= 0xF1 && b <= 0xF3)
        need = 4;
    else if (b == 0xF4)
        need = 4, hi = 0x8F;
    else
        return 0;
    if (n - i < need || in[i + 1] < lo || in[i + 1] > hi)
        return 0;
    for (size_t k = 2; k < need; ++k) {
        if (in[i + k] < 0x80 || in[i + k] > 0xBF)
            return 0;
    }
    return need;
}

/* The scalar value of a well-formed sequence of `length` bytes. */
static uint32_t reference_value(const uint8_t *s, size_t length)
{
    static const uint8_t lead_mask[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
    uint32_t c = s[0] & lead_mask[length];
    for (size_t k = 1; k < length; ++k)
        c = (c << 6) | (s[k] & 0x3Fu);
    return c;
}

static size_t reference_encode(uint32_t c, uint8_t *out)
{
    if (c < 0x80u) {
        out[0] = (uint8_t)c;
        return 1;
    }
    if (c < 0x800u) {
        out[0] = (uint8_t)(0xC0u + (c >> 6));
        out[1] = (uint8_t)(0x80u + (c & 0x3Fu));
        return 2;
    }
    if (c < 0x10000u) {
        out[0] = (uint8_t)(0xE0u + (c >> 12));
        out[1] = (uint8_t)(0x80u + ((c >> 6) & 0x3Fu));
        out[2] = (uint8_t)(0x80u + (c & 0x3Fu));
        return 3;
    }
    out[0] = (uint8_t)(0xF0u + (c >> 18));
    out[1] = (uint8_t)(0x80u + ((c >> 12) & 0x3Fu));
    out[2] = (uint8_t)(0x80u + ((c >> 6) & 0x3Fu));
    out[3] = (uint8_t)(0x80u + (c & 0x3Fu));
    return 4;
}

static int is_high(uint32_t u)
{
    return u >= 0xD800u && u <= 0xDBFFu;
}
static int is_low(uint32_t u)
{
    return u >= 0xDC00u && u <= 0xDFFFu;
}

static void utf8_side(const uint8_t *data, size_t n)
{
    uint8_t *bytes = aip_fuzz_copy(data, n);
    /* The harness's own reading: valid, and the UTF-16 units it decodes to. */
    uint16_t *expected = aip_fuzz_alloc((n + 1) * sizeof *expected);
    size_t units = 0;
    int valid = 1;
    for (size_t i = 0; i < n;) {
        size_t length = reference_sequence(bytes, n, i);
        if (length == 0) {
            valid = 0;
            break;
        }
        uint32_t c = reference_value(bytes + i, length);
        if (c >= 0x10000u) {
            expected[units++] = (uint16_t)(0xD800u + ((c - 0x10000u) >> 10));
            expected[units++] = (uint16_t)(0xDC00u + ((c - 0x10000u) & 0x3FFu));
        } else {
            expected[units++] = (uint16_t)c;
        }
        i += length;
    }
    AIP_FUZZ_CHECK(aip_utf8_valid(bytes, n) == valid);

    uint16_t *out = aip_fuzz_alloc((n + 1) * sizeof *out);
    int written = aip_utf8_to_utf16(bytes, n, out, n + 1);
    AIP_FUZZ_CHECK(written == (valid ? (int)units : -1));
    if (valid) {
        AIP_FUZZ_CHECK(out[units] == 0);
        AIP_FUZZ_CHECK(units == 0 || memcmp(out, expected, units * sizeof *out) == 0);
        /* Exactly units + 1 of capacity, in an exact-size block; one fewer is refused. */
        uint16_t *exact = aip_fuzz_alloc((units + 1) * sizeof *exact);
        AIP_FUZZ_CHECK(aip_utf8_to_utf16(bytes, n, exact, units + 1) == (int)units);
        AIP_FUZZ_CHECK(memcmp(exact, out, (units + 1) * sizeof *out) == 0);
        AIP_FUZZ_CHECK(aip_utf8_to_utf16(bytes, n, exact, units) == -1);
        free(exact);
        /* And back: the input bytes exactly. */
        char *back = aip_fuzz_alloc(n + 1);
        AIP_FUZZ_CHECK(aip_utf16_to_utf8(out, back, n + 1) == (int)n);
        AIP_FUZZ_CHECK(back[n] == '\0' && (n == 0 || memcmp(back, bytes, n) == 0));
        free(back);
    }
    free(out);
    free(expected);
    free(bytes);
}

static void utf16_side(const uint8_t *data, size_t size)
{
    size_t count = 0;
    while (count < size / 2 && (data[2 * count] | data[2 * count + 1]) != 0)
        ++count;
    uint16_t *in = aip_fuzz_alloc((count + 1) * sizeof *in);
    for (size_t i = 0; i < count; ++i)
        in[i] = (uint16_t)(data[2 * i] | (data[2 * i + 1] << 8));
    in[count] = 0;

    /* The harness's own encoding, and the units it stands for (unpaired surrogates as
     * U+FFFD). At most 3 bytes per unit. */
    uint8_t *expected = aip_fuzz_alloc(3 * count + 1);
    uint16_t *repaired = aip_fuzz_alloc((count + 1) * sizeof *repaired);
    size_t bytes = 0, units = 0;
    for (size_t i = 0; i < count;) {
        uint32_t c = in[i];
        if (is_high(c) && i + 1 < count && is_low(in[i + 1])) {
            repaired[units++] = in[i];
            repaired[units++] = in[i + 1];
            c = 0x10000u + ((c - 0xD800u) << 10) + (in[i + 1] - 0xDC00u);
            i += 2;
        } else {
            if (is_high(c) || is_low(c))
                c = 0xFFFDu;
            repaired[units++] = (uint16_t)c;
            i += 1;
        }
        bytes += reference_encode(c, expected + bytes);
    }
    repaired[units] = 0;

    char *out = aip_fuzz_alloc(bytes + 1);
    AIP_FUZZ_CHECK(aip_utf16_to_utf8(in, out, bytes + 1) == (int)bytes);
    AIP_FUZZ_CHECK(out[bytes] == '\0' && (bytes == 0 || memcmp(out, expected, bytes) == 0));
    AIP_FUZZ_CHECK(aip_utf8_valid((const uint8_t *)out, bytes));
    uint16_t *back = aip_fuzz_alloc((units + 1) * sizeof *back);
    AIP_FUZZ_CHECK(aip_utf8_to_utf16((const uint8_t *)out, bytes, back, units + 1) == (int)units);
    AIP_FUZZ_CHECK(memcmp(back, repaired, (units + 1) * sizeof *back) == 0);
    free(back);
    free(out);
    /* One byte short: -2 and the empty string (or nothing at all for capacity 0). */
    char *short_out = aip_fuzz_alloc(bytes);
    AIP_FUZZ_CHECK(aip_utf16_to_utf8(in, short_out, bytes) == -2);
    AIP_FUZZ_CHECK(bytes == 0 || short_out[0] == '\0');
    free(short_out);
    free(repaired);
    free(expected);
    free(in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    utf8_side(data, size);
    utf16_side(data, size);
    return 0;
}
