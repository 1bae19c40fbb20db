/* IL method bodies: headers, EH sections, each documented malformation, truncation, bit flips. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "il/method_body.h"

static const aip_eh_clause FINALLY_0_4_4_5 = {2, 0, 4, 4, 5, 0};

static void put(uint8_t *b, size_t at, uint32_t v, int width)
{
    for (int k = 0; k < width; ++k) {
        b[at + (size_t)k] = (uint8_t)(v >> (8 * k));
    }
}

/* Fat header (12 bytes, max stack 4), code_size bytes of nop + ret; returns the code end. */
static size_t fat(uint8_t *b, uint16_t flags, uint32_t code_size, uint32_t token)
{
    put(b, 0, (0x3000u | 0x3u | flags) | (4u << 16), 4);
    put(b, 4, code_size, 4);
    put(b, 8, token, 4);
    memset(b + 12, 0x00, code_size);
    b[12 + code_size - 1] = 0x2A;
    return 12 + code_size;
}

/* Section header at the next 4-aligned offset (padding 0xCC); small DataSize is < 256. */
static size_t section(uint8_t *b, size_t at, uint8_t kind, uint32_t count)
{
    while (at % 4 != 0) {
        b[at++] = 0xCC;
    }
    b[at] = kind;
    put(b, at + 1, 4 + count * ((kind & 0x40) ? 24u : 12u), 3);
    return at + 4;
}

static size_t clause(uint8_t *b, size_t at, int is_fat, const aip_eh_clause *c)
{
    static const int widths[2][6] = {{2, 2, 1, 2, 1, 4}, {4, 4, 4, 4, 4, 4}};
    const uint32_t v[6] = {c->flags, c->try_offset, c->try_length, c->handler_offset,
                           c->handler_length, c->class_token_or_filter_offset};
    for (int i = 0; i < 6; ++i) {
        put(b, at, v[i], widths[is_fat][i]);
        at += (size_t)widths[is_fat][i];
    }
    return at;
}

/* Parses a heap copy of exactly `length` bytes so ASan sees any read past the end. */
static alvk_status parse(const uint8_t *src, size_t length, aip_method_body *out,
                         aip_eh_clause *clauses, uint32_t capacity)
{
    uint8_t *copy = malloc(length ? length : 1);
    assert_non_null(copy);
    memcpy(copy, src, length);
    alvk_status status = aip_method_body_parse(copy, length, out, clauses, capacity);
    free(copy);
    if (status != ALVK_OK) {
        static const aip_method_body zero;
        assert_memory_equal(out, &zero, sizeof zero);
    }
    return status;
}

static void expect(const aip_method_body *body, unsigned is_fat, unsigned init_locals,
                   unsigned code_size, uint32_t token, unsigned clauses, unsigned total)
{
    assert_int_equal(body->is_fat, is_fat);
    assert_int_equal(body->init_locals, init_locals);
    assert_int_equal(body->max_stack, is_fat ? 4 : 8);
    assert_int_equal(body->header_size, is_fat ? 12 : 1);
    assert_int_equal(body->code_offset, body->header_size);
    assert_int_equal(body->code_size, code_size);
    assert_int_equal(body->local_var_sig_token, token);
    assert_int_equal(body->eh_clause_count, clauses);
    assert_int_equal(body->total_size, total);
}

/* Fat body, code 10 bytes (ends at 22), 2 padding bytes, small EH section with a finally. */
static size_t build_eh_body(uint8_t *b)
{
    return clause(b, section(b, fat(b, 0x8, 10, 0), 0x01, 1), 0, &FINALLY_0_4_4_5);
}

static void bodies_without_sections(void **state)
{
    (void)state;
    const uint8_t odd[] = {(3 << 2) | 0x2, 0x02, 0x17, 0x2A, 0xFF}, even[] = {0x0A, 0, 0x2A};
    uint8_t b[64];
    aip_method_body body;
    assert_int_equal(parse(odd, sizeof odd, &body, NULL, 0), ALVK_OK);
    expect(&body, 0, 0, 3, 0, 0, 4); /* tiny, trailing byte ignored */
    assert_int_equal(parse(even, sizeof even, &body, NULL, 0), ALVK_OK);
    expect(&body, 0, 0, 2, 0, 0, 3);
    size_t end = fat(b, 0, 5, 0);
    assert_int_equal(parse(b, end, &body, NULL, 0), ALVK_OK);
    expect(&body, 1, 0, 5, 0, 0, 17);
    end = fat(b, 0x10, 7, 0x11000003u); /* InitLocals and a local signature */
    assert_int_equal(parse(b, end + 9, &body, NULL, 0), ALVK_OK);
    expect(&body, 1, 1, 7, 0x11000003u, 0, 19);
    b[1] = 0x20; /* size field 2: without the check this would read as an 8-byte header */
    assert_int_equal(parse(b, end, &body, NULL, 0), ALVK_E_METHOD_BODY_MALFORMED);
}

static void small_eh_section_after_padding(void **state)
{
    (void)state;
    uint8_t b[64];
    aip_eh_clause clauses[2];
    aip_method_body body;
    size_t total = build_eh_body(b);
    assert_int_equal(parse(b, total, &body, clauses, 2), ALVK_OK);
    expect(&body, 1, 0, 10, 0, 1, 40);
    assert_memory_equal(&clauses[0], &FINALLY_0_4_4_5, sizeof clauses[0]);
}

static void fat_eh_section_with_filter(void **state)
{
    (void)state;
    const aip_eh_clause want[2] = {{0, 0, 8, 8, 4, 0x01000005u}, {1, 0, 8, 16, 4, 12}};
    uint8_t b[128];
    aip_eh_clause got[2];
    aip_method_body body;
    size_t at = section(b, fat(b, 0x8, 24, 0), 0x41, 2);
    at = clause(b, clause(b, at, 1, &want[0]), 1, &want[1]);
    assert_int_equal(parse(b, at, &body, got, 2), ALVK_OK);
    expect(&body, 1, 0, 24, 0, 2, 88);
    assert_memory_equal(got, want, sizeof want);
    put(b, 40 + 24 + 20, 24, 4); /* filter offset == code size */
    assert_int_equal(parse(b, at, &body, got, 2), ALVK_E_METHOD_BODY_MALFORMED);
    put(b, 40 + 24 + 20, 12, 4);
    assert_int_equal(parse(b, at, &body, got, 2), ALVK_OK);
    put(b, 40 + 4, 0xFFFFFFF0u, 4); /* try offset + length wraps in u32 */
    put(b, 40 + 8, 0x20u, 4);
    assert_int_equal(parse(b, at, &body, got, 2), ALVK_E_METHOD_BODY_MALFORMED);
}

static void chained_sections(void **state)
{
    (void)state;
    const aip_eh_clause second = {0, 1, 2, 3, 4, 0x02000001u};
    uint8_t b[128];
    aip_eh_clause got[2];
    aip_method_body body;
    size_t at = clause(b, section(b, fat(b, 0x8, 13, 0), 0x81, 1), 0, &FINALLY_0_4_4_5);
    at = clause(b, section(b, at, 0x41, 1), 1, &second);
    assert_int_equal(parse(b, at, &body, got, 2), ALVK_OK);
    expect(&body, 1, 0, 13, 0, 2, 72);
    assert_memory_equal(&got[0], &FINALLY_0_4_4_5, sizeof got[0]);
    assert_memory_equal(&got[1], &second, sizeof got[1]);
    assert_int_equal(parse(b, at, &body, NULL, 0), ALVK_OK); /* sizes only */
    expect(&body, 1, 0, 13, 0, 2, 72);
    assert_int_equal(parse(b, at, &body, got, 1), ALVK_E_LIMIT_EXCEEDED);
}

static void malformed_bodies(void **state)
{
    (void)state;
    uint8_t b[64];
    aip_method_body body;
    aip_eh_clause got[2];
    /* {offset, new byte} edits on the valid EH body: header 0x300B at 0, code size at 4,
     * section kind at 24, DataSize at 25, clause at 28 (try offset 30, handler offset 33). */
    static const uint8_t edits[][2] = {
        {0, 0x09}, {0, 0x08},              /* low bits 01, 00: unknown format */
        {1, 0x20}, {1, 0x00},              /* fat size field 2, 0 */
        {0, 0xFE}, {4, 100},               /* code past end: tiny 63 bytes, fat 100 bytes */
        {25, 28},                          /* section past end: DataSize for two clauses */
        {24, 0x02}, {24, 0x00}, {24, 0x03}, /* section kinds OptILTable, reserved, unknown */
        {25, 15}, {25, 2},                 /* DataSize not 4 + n * 12, below the header */
        {30, 8}, {33, 7},                  /* try 8 + 4, handler 7 + 5 past code 10 */
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; ++i) {
        size_t total = build_eh_body(b);
        assert_int_equal(parse(b, total, &body, got, 2), ALVK_OK);
        b[edits[i][0]] = edits[i][1];
        assert_int_equal(parse(b, total, &body, got, 2), ALVK_E_METHOD_BODY_MALFORMED);
    }
    size_t total = build_eh_body(b);
    assert_int_equal(parse(b, total, &body, got, 0), ALVK_E_LIMIT_EXCEEDED); /* capacity */
    assert_int_equal(aip_method_body_parse(b, total, NULL, NULL, 0), ALVK_E_NULL_ARGUMENT);
    assert_int_equal(aip_method_body_parse(NULL, total, &body, NULL, 0), ALVK_E_NULL_ARGUMENT);
    assert_int_equal(aip_method_body_parse(b, total, &body, NULL, 2), ALVK_E_NULL_ARGUMENT);
}

static void documented_bounds(void **state)
{
    (void)state;
    const aip_eh_clause c = {0, 0, 1, 1, 1, 0x01000001u};
    uint8_t *b = calloc(1, AIP_BODY_MAX_BYTES + 64);
    aip_method_body body;
    assert_non_null(b);
    size_t at = section(b, fat(b, 0x8, 4, 0), 0x41, AIP_BODY_MAX_EH_CLAUSES + 1);
    for (uint32_t i = 0; i <= AIP_BODY_MAX_EH_CLAUSES; ++i) {
        at = clause(b, at, 1, &c);
    }
    assert_int_equal(parse(b, at, &body, NULL, 0), ALVK_E_LIMIT_EXCEEDED);
    section(b, 16, 0x41, AIP_BODY_MAX_EH_CLAUSES);
    assert_int_equal(parse(b, at - 24, &body, NULL, 0), ALVK_OK);
    assert_int_equal(body.eh_clause_count, AIP_BODY_MAX_EH_CLAUSES);
    fat(b, 0, AIP_BODY_MAX_BYTES - 12, 0); /* ends exactly at the bound */
    assert_int_equal(aip_method_body_parse(b, AIP_BODY_MAX_BYTES + 64, &body, NULL, 0), ALVK_OK);
    assert_int_equal(body.total_size, AIP_BODY_MAX_BYTES);
    fat(b, 0, AIP_BODY_MAX_BYTES - 11, 0); /* one byte past the bound */
    assert_int_equal(aip_method_body_parse(b, AIP_BODY_MAX_BYTES + 64, &body, NULL, 0),
                     ALVK_E_LIMIT_EXCEEDED);
    free(b);
}

static void every_truncation_fails_and_bit_flips_stay_in_bounds(void **state)
{
    (void)state;
    uint8_t b[64], flipped[64];
    aip_eh_clause got[4];
    aip_method_body body;
    size_t total = build_eh_body(b);
    for (size_t length = 0; length < total; ++length) {
        assert_int_not_equal(parse(b, length, &body, got, 4), ALVK_OK);
    }
    for (size_t bit = 0; bit < total * 8; ++bit) {
        memcpy(flipped, b, total);
        flipped[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        if (parse(flipped, total, &body, got, 4) == ALVK_OK) {
            assert_true(body.total_size <= total);
            assert_true(body.eh_clause_count <= 4);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bodies_without_sections),
        cmocka_unit_test(small_eh_section_after_padding),
        cmocka_unit_test(fat_eh_section_with_filter),
        cmocka_unit_test(chained_sections),
        cmocka_unit_test(malformed_bodies),
        cmocka_unit_test(documented_bounds),
        cmocka_unit_test(every_truncation_fails_and_bit_flips_stay_in_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
