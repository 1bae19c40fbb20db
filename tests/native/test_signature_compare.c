/* Two signature types walked side by side (metadata/signature_compare.c), in each scope: what
 * is certainly different, what only tokens or variables could decide, where the cursors end,
 * and that the answer does not depend on the order of the two types. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "metadata/signature_compare.h"

#define T(...) ((const uint8_t[]){__VA_ARGS__}), sizeof((const uint8_t[]){__VA_ARGS__})

#define ONE AIP_SIG_ONE_MODULE
#define TWO AIP_SIG_TWO_MODULES

/* TypeDefOrRef coded tokens (II.23.2.8): rid << 2 | 0 TypeDef, 1 TypeRef, 2 TypeSpec. */
#define TD2 0x08
#define TD3 0x0C
#define TR2 0x09

/* One Type per blob, from exact-size heap copies (ASan sees a read past either end); both
 * orders must agree and, when both types parse, each cursor must end at its blob's end. */
static aip_sig_relation rel(aip_sig_scope scope, const uint8_t *a, size_t an, const uint8_t *b,
                            size_t bn)
{
    uint8_t *x = malloc(an), *y = malloc(bn);
    assert_non_null(x);
    assert_non_null(y);
    memcpy(x, a, an);
    memcpy(y, b, bn);
    size_t xa = 0, ya = 0, yb = 0, xb = 0;
    aip_sig_relation r = aip_sig_compare_type(x, an, &xa, y, bn, &ya, scope);
    assert_int_equal(r, aip_sig_compare_type(y, bn, &yb, x, an, &xb, scope));
    if (xa != 0 || ya != 0) {
        assert_int_equal(xa, an);
        assert_int_equal(ya, bn);
    }
    free(x);
    free(y);
    return r;
}

#define REL(scope, A, B) rel(scope, A, B)

static void equal_bytes_are_the_same_in_both_scopes(void **state)
{
    (void)state;
    assert_int_equal(REL(ONE, T(0x08), T(0x08)), AIP_SIG_SAME);
    assert_int_equal(REL(TWO, T(0x15, 0x12, TR2, 0x01, 0x1F, TR2, 0x08),
                         T(0x15, 0x12, TR2, 0x01, 0x1F, TR2, 0x08)),
                     AIP_SIG_SAME);
}

static void primitive_and_shape_differences_are_certain_in_both(void **state)
{
    (void)state;
    for (int s = ONE; s <= TWO; ++s) {
        aip_sig_scope scope = (aip_sig_scope)s;
        assert_int_equal(REL(scope, T(0x08), T(0x0A)), AIP_SIG_DIFFERENT);
        assert_int_equal(REL(scope, T(0x10, 0x08), T(0x08)), AIP_SIG_DIFFERENT);
        assert_int_equal(REL(scope, T(0x0F, 0x08), T(0x10, 0x08)), AIP_SIG_DIFFERENT);
        assert_int_equal(REL(scope, T(0x1D, 0x08), T(0x1D, 0x0A)), AIP_SIG_DIFFERENT);
        /* arrays of another rank, of other sizes, of other lower bounds */
        assert_int_equal(REL(scope, T(0x14, 0x08, 0x02, 0x00, 0x00), T(0x14, 0x08, 0x03, 0x00, 0x00)),
                         AIP_SIG_DIFFERENT);
        assert_int_equal(REL(scope, T(0x14, 0x08, 0x01, 0x01, 0x04, 0x00), T(0x14, 0x08, 0x01, 0x01, 0x05, 0x00)),
                         AIP_SIG_DIFFERENT);
        assert_int_equal(REL(scope, T(0x14, 0x08, 0x01, 0x00, 0x01, 0x02), T(0x14, 0x08, 0x01, 0x00, 0x00)),
                         AIP_SIG_DIFFERENT);
        /* ranks differ whatever a TypeRef element turns out to be */
        assert_int_equal(REL(scope, T(0x14, 0x12, TR2, 0x02, 0x00, 0x00), T(0x14, 0x12, TD2, 0x03, 0x00, 0x00)),
                         AIP_SIG_DIFFERENT);
        /* one generic type, another argument, another arity, class against struct */
        assert_int_equal(REL(scope, T(0x15, 0x12, TD2, 0x01, 0x08), T(0x15, 0x12, TD2, 0x01, 0x0A)),
                         AIP_SIG_DIFFERENT);
        assert_int_equal(REL(scope, T(0x15, 0x12, TD2, 0x01, 0x08), T(0x15, 0x12, TD2, 0x02, 0x08, 0x08)),
                         AIP_SIG_DIFFERENT);
        assert_int_equal(REL(scope, T(0x15, 0x12, TD2, 0x01, 0x08), T(0x15, 0x11, TD2, 0x01, 0x08)),
                         AIP_SIG_DIFFERENT);
    }
}

static void what_stays_unknown_in_both(void **state)
{
    (void)state;
    for (int s = ONE; s <= TWO; ++s) {
        aip_sig_scope scope = (aip_sig_scope)s;
        /* a named type against a primitive or another kind of named type */
        assert_int_equal(REL(scope, T(0x12, TR2), T(0x0E)), AIP_SIG_UNKNOWN);
        assert_int_equal(REL(scope, T(0x12, TD2), T(0x11, TD2)), AIP_SIG_UNKNOWN);
        /* generic variables, function pointers (either side) */
        assert_int_equal(REL(scope, T(0x13, 0x00), T(0x13, 0x01)), AIP_SIG_UNKNOWN);
        assert_int_equal(REL(scope, T(0x1E, 0x00), T(0x08)), AIP_SIG_UNKNOWN);
        assert_int_equal(REL(scope, T(0x1B, 0x00, 0x00, 0x01), T(0x08)), AIP_SIG_UNKNOWN);
        assert_int_equal(REL(scope, T(0x1B, 0x00, 0x00, 0x01), T(0x1B, 0x00, 0x00, 0x08)),
                         AIP_SIG_UNKNOWN);
        /* what does not parse, on either side: no conclusion, cursors untouched (rel checks) */
        assert_int_equal(REL(scope, T(0x12), T(0x08)), AIP_SIG_UNKNOWN);
        assert_int_equal(REL(scope, T(0x08), T(0x41)), AIP_SIG_UNKNOWN);
    }
}

static void tokens_one_module(void **state)
{
    (void)state;
    assert_int_equal(REL(ONE, T(0x12, TD2), T(0x12, TD3)), AIP_SIG_DIFFERENT);
    assert_int_equal(REL(ONE, T(0x12, TR2), T(0x12, TD2)), AIP_SIG_UNKNOWN);
    /* a generic type that may be another one: its arity and arguments decide nothing */
    assert_int_equal(REL(ONE, T(0x15, 0x12, TR2, 0x01, 0x08), T(0x15, 0x12, TD2, 0x02, 0x08, 0x08)),
                     AIP_SIG_UNKNOWN);
    /* two distinct generic TypeDefs, whatever their kinds */
    assert_int_equal(REL(ONE, T(0x15, 0x12, TD2, 0x01, 0x08), T(0x15, 0x11, TD3, 0x01, 0x08)),
                     AIP_SIG_DIFFERENT);
    /* a modifier on either side: the runtime's call */
    assert_int_equal(REL(ONE, T(0x1F, TR2, 0x08), T(0x08)), AIP_SIG_UNKNOWN);
    assert_int_equal(REL(ONE, T(0x1F, TR2, 0x08), T(0x20, TR2, 0x08)), AIP_SIG_UNKNOWN);
}

static void tokens_and_modifiers_two_modules(void **state)
{
    (void)state;
    /* tokens of two modules are not compared */
    assert_int_equal(REL(TWO, T(0x12, TD2), T(0x12, TD3)), AIP_SIG_SAME);
    assert_int_equal(REL(TWO, T(0x15, 0x12, TR2, 0x01, 0x08), T(0x15, 0x12, TD2, 0x02, 0x08, 0x08)),
                     AIP_SIG_DIFFERENT);
    /* modifiers: by place, kind and count, their tokens not */
    assert_int_equal(REL(TWO, T(0x1F, TR2, 0x08), T(0x1F, TD2, 0x08)), AIP_SIG_SAME);
    assert_int_equal(REL(TWO, T(0x1F, TR2, 0x08), T(0x08)), AIP_SIG_DIFFERENT);
    assert_int_equal(REL(TWO, T(0x1F, TR2, 0x08), T(0x20, TR2, 0x08)), AIP_SIG_DIFFERENT);
    assert_int_equal(REL(TWO, T(0x20, TR2, 0x20, TD2, 0x08), T(0x20, TR2, 0x08)), AIP_SIG_DIFFERENT);
    assert_int_equal(REL(TWO, T(0x1D, 0x20, TR2, 0x08), T(0x1D, 0x08)), AIP_SIG_DIFFERENT);
    /* after equal modifiers the rest still counts */
    assert_int_equal(REL(TWO, T(0x1F, TR2, 0x08), T(0x1F, TD2, 0x0A)), AIP_SIG_DIFFERENT);
}

static void method_types_pairwise(void **state)
{
    (void)state;
    /* int32 (int32, C) and int32 (int32, C'): tokens decide in one module only */
    const uint8_t a[] = {0x00, 0x02, 0x08, 0x08, 0x12, TD2};
    const uint8_t b[] = {0x00, 0x02, 0x08, 0x08, 0x12, TR2};
    const uint8_t c[] = {0x00, 0x02, 0x08, 0x0A, 0x12, TR2};
    static aip_method_sig sa, sb, sc; /* 6 KiB each */
    assert_int_equal(aip_sig_parse_method(a, sizeof a, 0, &sa), ALVK_OK);
    assert_int_equal(aip_sig_parse_method(b, sizeof b, 0, &sb), ALVK_OK);
    assert_int_equal(aip_sig_parse_method(c, sizeof c, 0, &sc), ALVK_OK);
    assert_int_equal(aip_sig_compare_method_types(a, sizeof a, &sa, b, sizeof b, &sb, ONE),
                     AIP_SIG_UNKNOWN);
    assert_int_equal(aip_sig_compare_method_types(a, sizeof a, &sa, b, sizeof b, &sb, TWO),
                     AIP_SIG_SAME);
    /* one certain difference outweighs a token that may match */
    assert_int_equal(aip_sig_compare_method_types(a, sizeof a, &sa, c, sizeof c, &sc, ONE),
                     AIP_SIG_DIFFERENT);
    assert_int_equal(aip_sig_compare_method_types(c, sizeof c, &sc, a, sizeof a, &sa, TWO),
                     AIP_SIG_DIFFERENT);
    /* another parameter count is the caller's: no conclusion here */
    const uint8_t d[] = {0x00, 0x01, 0x08, 0x08};
    static aip_method_sig sd;
    assert_int_equal(aip_sig_parse_method(d, sizeof d, 0, &sd), ALVK_OK);
    assert_int_equal(aip_sig_compare_method_types(a, sizeof a, &sa, d, sizeof d, &sd, ONE),
                     AIP_SIG_UNKNOWN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(equal_bytes_are_the_same_in_both_scopes),
        cmocka_unit_test(primitive_and_shape_differences_are_certain_in_both),
        cmocka_unit_test(what_stays_unknown_in_both),
        cmocka_unit_test(tokens_one_module),
        cmocka_unit_test(tokens_and_modifiers_two_modules),
        cmocka_unit_test(method_types_pairwise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
