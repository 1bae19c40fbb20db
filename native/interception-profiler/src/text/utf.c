/* UTF-8 and UTF-16 conversion (utf.h): one UTF-8 decoder for the validator and the
 * converter, one UTF-16 decoder for the other direction. */
#include "text/utf.h"

#include <limits.h>

/* Decodes the character at in[*i]; on success stores it in *cp, advances *i past it and
 * returns 1. Returns 0 for a NUL, a bad lead or continuation byte, a cut sequence, an
 * overlong form, a surrogate or a value above U+10FFFF. */
static int utf8_next(const uint8_t *in, size_t length, size_t *i, uint32_t *cp)
{
    static const uint32_t minimum[] = {0, 0x80u, 0x800u, 0x10000u};
    uint32_t c = in[*i];
    uint32_t extra;
    if (c == 0)
        return 0;
    if (c < 0x80u) {
        extra = 0;
    } else if ((c & 0xE0u) == 0xC0u) {
        c &= 0x1Fu, extra = 1;
    } else if ((c & 0xF0u) == 0xE0u) {
        c &= 0x0Fu, extra = 2;
    } else if ((c & 0xF8u) == 0xF0u) {
        c &= 0x07u, extra = 3;
    } else {
        return 0;
    }
    if (length - *i <= extra)
        return 0; /* the sequence is cut */
    for (uint32_t k = 1; k <= extra; ++k) {
        uint8_t b = in[*i + k];
        if ((b & 0xC0u) != 0x80u)
            return 0;
        c = (c << 6) | (b & 0x3Fu);
    }
    if (c < minimum[extra] || c > 0x10FFFFu || (c >= 0xD800u && c <= 0xDFFFu))
        return 0;
    *i += extra + 1;
    *cp = c;
    return 1;
}

int aip_utf8_valid(const uint8_t *bytes, size_t length)
{
    uint32_t cp;
    for (size_t i = 0; i < length;) {
        if (!utf8_next(bytes, length, &i, &cp))
            return 0;
    }
    return 1;
}

int aip_utf8_to_utf16(const uint8_t *in, size_t length, uint16_t *out, size_t capacity)
{
    size_t n = 0;
    if (capacity == 0)
        return -1;
    for (size_t i = 0; i < length;) {
        uint32_t c;
        if (!utf8_next(in, length, &i, &c))
            return -1;
        size_t units = c >= 0x10000u ? 2 : 1;
        if (capacity - n <= units || n + units > (size_t)INT_MAX)
            return -1; /* no room for the units and the terminating 0 */
        if (units == 2) {
            c -= 0x10000u;
            out[n++] = (uint16_t)(0xD800u + (c >> 10));
            out[n++] = (uint16_t)(0xDC00u + (c & 0x3FFu));
        } else {
            out[n++] = (uint16_t)c;
        }
    }
    out[n] = 0;
    return (int)n;
}

int aip_utf16_to_utf8(const uint16_t *in, char *out, size_t capacity)
{
    size_t n = 0;
    for (size_t i = 0; in[i] != 0;) {
        uint32_t c = in[i++];
        if (c >= 0xD800u && c <= 0xDBFFu && in[i] >= 0xDC00u && in[i] <= 0xDFFFu)
            c = 0x10000u + ((c - 0xD800u) << 10) + (in[i++] - 0xDC00u);
        else if (c >= 0xD800u && c <= 0xDFFFu)
            c = 0xFFFDu; /* an unpaired surrogate */
        uint8_t bytes[4];
        size_t count;
        if (c < 0x80u) {
            bytes[0] = (uint8_t)c, count = 1;
        } else if (c < 0x800u) {
            bytes[0] = (uint8_t)(0xC0u | (c >> 6));
            bytes[1] = (uint8_t)(0x80u | (c & 0x3Fu));
            count = 2;
        } else if (c < 0x10000u) {
            bytes[0] = (uint8_t)(0xE0u | (c >> 12));
            bytes[1] = (uint8_t)(0x80u | ((c >> 6) & 0x3Fu));
            bytes[2] = (uint8_t)(0x80u | (c & 0x3Fu));
            count = 3;
        } else {
            bytes[0] = (uint8_t)(0xF0u | (c >> 18));
            bytes[1] = (uint8_t)(0x80u | ((c >> 12) & 0x3Fu));
            bytes[2] = (uint8_t)(0x80u | ((c >> 6) & 0x3Fu));
            bytes[3] = (uint8_t)(0x80u | (c & 0x3Fu));
            count = 4;
        }
        if (capacity - n <= count || n + count > (size_t)INT_MAX) {
            if (capacity > 0)
                out[0] = '\0';
            return -2;
        }
        for (size_t k = 0; k < count; ++k)
            out[n++] = (char)bytes[k];
    }
    if (capacity == 0)
        return -2;
    out[n] = '\0';
    return (int)n;
}
