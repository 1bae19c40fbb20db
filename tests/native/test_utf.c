/* UTF-8 validation and the UTF-8 <-> UTF-16 converters of text/utf.h: each rule of the
 * validator at its boundary, surrogate pairs both ways, the terminating 0, capacity at
 * exactly enough and one unit or byte short, unpaired surrogates. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "text/utf.h"

/* Exact-size heap copies, so ASan sees any read past the end. */
static int valid(const char *bytes, size_t n)
{
    uint8_t *copy = malloc(n + (n == 0));
    assert_non_null(copy);
    memcpy(copy, bytes, n);
    int ok = aip_utf8_valid(copy, n);
    free(copy);
    return ok;
}

#define VALID(s) valid((s), sizeof(s) - 1)

static void validator_accepts(void **state)
{
    (void)state;
    assert_true(aip_utf8_valid(NULL, 0));
    assert_true(VALID("Add"));
    assert_true(VALID("Caf\xC3\xA9\xE2\x82\xAC"));
    assert_true(VALID("\x7F"));
    assert_true(VALID("\xC2\x80"));         /* U+0080, the smallest two-byte form */
    assert_true(VALID("\xDF\xBF"));         /* U+07FF */
    assert_true(VALID("\xE0\xA0\x80"));     /* U+0800 */
    assert_true(VALID("\xED\x9F\xBF"));     /* U+D7FF, below the surrogates */
    assert_true(VALID("\xEE\x80\x80"));     /* U+E000, above them */
    assert_true(VALID("\xEF\xBF\xBF"));     /* U+FFFF */
    assert_true(VALID("\xF0\x90\x80\x80")); /* U+10000 */
    assert_true(VALID("\xF0\x9F\x98\x80")); /* U+1F600 */
    assert_true(VALID("\xF4\x8F\xBF\xBF")); /* U+10FFFF */
}

static void validator_refuses(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "\xC0\x80",         "\xC1\xBF",         /* overlong two-byte */
        "\xE0\x80\x80",     "\xE0\x9F\xBF",     /* overlong three-byte */
        "\xF0\x80\x80\x80", "\xF0\x8F\xBF\xBF", /* overlong four-byte */
        "\xED\xA0\x80",     "\xED\xBF\xBF",     /* surrogates */
        "\xF4\x90\x80\x80", "\xF7\xBF\xBF\xBF", /* above U+10FFFF */
        "\x80",             "\xBF",             /* lone continuation bytes */
        "\xF8\x88\x80\x80\x80", "\xFC\x84\x80\x80\x80\x80", "\xFE", "\xFF",
        "\xC3\x28",         "\xE2\x28\xA1",     /* continuation byte missing */
        "A\xC3",            "\xE2\x82",         /* cut by the end */
        "\xF0\x9F\x98",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i)
        assert_false(valid(bad[i], strlen(bad[i])));
    assert_false(valid("\0", 1)); /* NUL */
    assert_false(valid("M\0p", 3));
    assert_false(valid("\xE2\x82\xAC", 2));
}

static int to_utf16(const char *bytes, size_t n, uint16_t *out, size_t capacity)
{
    uint8_t *copy = malloc(n + (n == 0));
    uint16_t *units = malloc(capacity * sizeof *units + (capacity == 0));
    assert_non_null(copy);
    assert_non_null(units);
    memcpy(copy, bytes, n);
    int written = aip_utf8_to_utf16(copy, n, units, capacity);
    if (written >= 0)
        memcpy(out, units, ((size_t)written + 1) * sizeof *units);
    free(units);
    free(copy);
    return written;
}

static void utf8_to_utf16(void **state)
{
    (void)state;
    uint16_t out[16];
    assert_int_equal(to_utf16("", 0, out, 1), 0);
    assert_int_equal(out[0], 0);
    assert_int_equal(to_utf16("", 0, out, 0), -1); /* no room for the terminating 0 */
    static const char text[] = "A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"; /* A e-acute euro U+1F600 */
    static const uint16_t expected[] = {0x41, 0xE9, 0x20AC, 0xD83D, 0xDE00, 0};
    assert_int_equal(to_utf16(text, sizeof text - 1, out, 6), 5);
    assert_memory_equal(out, expected, sizeof expected);
    assert_int_equal(to_utf16(text, sizeof text - 1, out, 5), -1); /* 0 does not fit */
    assert_int_equal(to_utf16("\xF0\x9F\x98\x80", 4, out, 3), 2);
    assert_int_equal(to_utf16("\xF0\x9F\x98\x80", 4, out, 2), -1); /* pair does not fit */
    assert_int_equal(to_utf16("\xF4\x8F\xBF\xBF", 4, out, 3), 2);
    assert_int_equal(out[0], 0xDBFF);
    assert_int_equal(out[1], 0xDFFF);
    assert_int_equal(to_utf16("\xC0\x80", 2, out, 16), -1);
    assert_int_equal(to_utf16("\xED\xA0\x80", 3, out, 16), -1);
    assert_int_equal(to_utf16("a\0b", 3, out, 16), -1);
    assert_int_equal(to_utf16("\xE2\x82", 2, out, 16), -1);
}

static int to_utf8(const uint16_t *units, char *out, size_t capacity)
{
    size_t count = 0;
    while (units[count] != 0)
        ++count;
    uint16_t *copy = malloc((count + 1) * sizeof *copy);
    char *bytes = malloc(capacity + (capacity == 0));
    assert_non_null(copy);
    assert_non_null(bytes);
    memcpy(copy, units, (count + 1) * sizeof *copy);
    int written = aip_utf16_to_utf8(copy, bytes, capacity);
    if (written >= 0)
        memcpy(out, bytes, (size_t)written + 1);
    else if (capacity > 0)
        assert_int_equal(bytes[0], '\0');
    free(bytes);
    free(copy);
    return written;
}

static void utf16_to_utf8(void **state)
{
    (void)state;
    char out[32];
    static const uint16_t empty[] = {0};
    assert_int_equal(to_utf8(empty, out, 1), 0);
    assert_string_equal(out, "");
    assert_int_equal(to_utf8(empty, out, 0), -2);
    static const uint16_t text[] = {0x41, 0x7FF, 0x800, 0xFFFF, 0xD83D, 0xDE00, 0};
    static const char expected[] = "A\xDF\xBF\xE0\xA0\x80\xEF\xBF\xBF\xF0\x9F\x98\x80";
    assert_int_equal(to_utf8(text, out, sizeof expected), (int)sizeof expected - 1);
    assert_string_equal(out, expected);
    assert_int_equal(to_utf8(text, out, sizeof expected - 1), -2);
    /* Unpaired surrogates, each U+FFFD: a high before a non-surrogate, two lone lows, a high
     * before a high, a high at the end. */
    static const uint16_t lone[] = {0xD800, 0x41, 0xDC00, 0xDC00, 0xD800, 0xDBFF, 0};
    static const char replaced[] = "\xEF\xBF\xBD" "A" "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"
                                   "\xEF\xBF\xBD";
    assert_int_equal(to_utf8(lone, out, sizeof out), (int)sizeof replaced - 1);
    assert_string_equal(out, replaced);
}

/* Every scalar value through UTF-16 to UTF-8 and back. */
static void every_scalar_round_trips(void **state)
{
    (void)state;
    for (uint32_t c = 1; c <= 0x10FFFFu; ++c) {
        if (c >= 0xD800u && c <= 0xDFFFu)
            continue;
        uint16_t units[3] = {0};
        if (c >= 0x10000u) {
            units[0] = (uint16_t)(0xD800u + ((c - 0x10000u) >> 10));
            units[1] = (uint16_t)(0xDC00u + ((c - 0x10000u) & 0x3FFu));
        } else {
            units[0] = (uint16_t)c;
        }
        char bytes[5];
        int n = aip_utf16_to_utf8(units, bytes, sizeof bytes);
        assert_int_equal(n, c < 0x80u ? 1 : c < 0x800u ? 2 : c < 0x10000u ? 3 : 4);
        assert_true(aip_utf8_valid((const uint8_t *)bytes, (size_t)n));
        uint16_t back[3];
        int m = aip_utf8_to_utf16((const uint8_t *)bytes, (size_t)n, back, 3);
        assert_int_equal(m, c >= 0x10000u ? 2 : 1);
        assert_memory_equal(back, units, ((size_t)m + 1) * sizeof back[0]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(validator_accepts),
        cmocka_unit_test(validator_refuses),
        cmocka_unit_test(utf8_to_utf16),
        cmocka_unit_test(utf16_to_utf8),
        cmocka_unit_test(every_scalar_round_trips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
