/* The member check's signature comparison: what makes a candidate certainly not the member a
 * MemberRef names (same module: exact, token-aware; another module: kind and parameter
 * count), and everything that must stay "maybe" so no existing member is refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "catalog/member_check.h"

#define SIG(...) ((const uint8_t[]){__VA_ARGS__}), sizeof((const uint8_t[]){__VA_ARGS__})

#define SAME 1
#define OTHER 0

/* TypeDefOrRef coded tokens (II.23.2.8): rid << 2 | 0 TypeDef, 1 TypeRef, 2 TypeSpec. */
#define TD2 0x08
#define TD3 0x0C
#define TR2 0x09
#define TS1 0x06

static aip_member_match cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn, int scope)
{
    return aip_member_sig_compare(a, an, b, bn, scope);
}

#define CMP(scope, REF, DEF) cmp(REF, DEF, scope)
#define R(...) SIG(__VA_ARGS__)

static void identical_signatures_match(void **state)
{
    (void)state;
    /* static int32 (int32) */
    assert_int_equal(CMP(SAME, R(0x00, 0x01, 0x08, 0x08), R(0x00, 0x01, 0x08, 0x08)),
                     AIP_MEMBER_MATCHES);
    /* FIELD VAR 0 */
    assert_int_equal(CMP(SAME, R(0x06, 0x13, 0x00), R(0x06, 0x13, 0x00)), AIP_MEMBER_MATCHES);
    /* GENERIC|HASTHIS, 1 generic, 1 param, MVAR 0 (class Func`2<VAR 0, MVAR 0>) */
    assert_int_equal(CMP(SAME, R(0x30, 0x01, 0x01, 0x1E, 0x00, 0x15, 0x12, TR2, 0x02, 0x13, 0x00, 0x1E, 0x00),
                         R(0x30, 0x01, 0x01, 0x1E, 0x00, 0x15, 0x12, TR2, 0x02, 0x13, 0x00, 0x1E, 0x00)),
                     AIP_MEMBER_MATCHES);
}

static void certain_differences_in_one_module(void **state)
{
    (void)state;
    /* int64 (int64) against int32 (int32): the "exists by name, other signature" case */
    assert_int_equal(CMP(SAME, R(0x00, 0x01, 0x0A, 0x0A), R(0x00, 0x01, 0x08, 0x08)),
                     AIP_MEMBER_DIFFERENT);
    /* the return type alone */
    assert_int_equal(CMP(SAME, R(0x00, 0x00, 0x01), R(0x00, 0x00, 0x08)), AIP_MEMBER_DIFFERENT);
    /* parameter count */
    assert_int_equal(CMP(SAME, R(0x00, 0x02, 0x08, 0x08, 0x08), R(0x00, 0x01, 0x08, 0x08)),
                     AIP_MEMBER_DIFFERENT);
    /* instance against static */
    assert_int_equal(CMP(SAME, R(0x20, 0x00, 0x01), R(0x00, 0x00, 0x01)), AIP_MEMBER_DIFFERENT);
    /* generic arity */
    assert_int_equal(CMP(SAME, R(0x10, 0x02, 0x00, 0x01), R(0x10, 0x01, 0x00, 0x01)),
                     AIP_MEMBER_DIFFERENT);
    /* two distinct TypeDefs */
    assert_int_equal(CMP(SAME, R(0x00, 0x01, 0x01, 0x12, TD2), R(0x00, 0x01, 0x01, 0x12, TD3)),
                     AIP_MEMBER_DIFFERENT);
    /* a field's type; by-reference against by-value; arrays of other elements or ranks */
    assert_int_equal(CMP(SAME, R(0x06, 0x08), R(0x06, 0x0A)), AIP_MEMBER_DIFFERENT);
    assert_int_equal(CMP(SAME, R(0x06, 0x10, 0x08), R(0x06, 0x08)), AIP_MEMBER_DIFFERENT);
    assert_int_equal(CMP(SAME, R(0x06, 0x1D, 0x08), R(0x06, 0x1D, 0x0A)), AIP_MEMBER_DIFFERENT);
    assert_int_equal(CMP(SAME, R(0x06, 0x14, 0x08, 0x02, 0x00, 0x00), R(0x06, 0x14, 0x08, 0x03, 0x00, 0x00)),
                     AIP_MEMBER_DIFFERENT);
    /* one generic type, other arguments */
    assert_int_equal(CMP(SAME, R(0x06, 0x15, 0x12, TD2, 0x01, 0x08), R(0x06, 0x15, 0x12, TD2, 0x01, 0x0A)),
                     AIP_MEMBER_DIFFERENT);
    /* a rank differs whatever a TypeRef element is; one generic type as class and as struct */
    assert_int_equal(CMP(SAME, R(0x06, 0x14, 0x12, TR2, 0x02, 0x00, 0x00), R(0x06, 0x14, 0x12, TR2, 0x03, 0x00, 0x00)),
                     AIP_MEMBER_DIFFERENT);
    assert_int_equal(CMP(SAME, R(0x06, 0x15, 0x12, TD2, 0x01, 0x08), R(0x06, 0x15, 0x11, TD2, 0x01, 0x08)),
                     AIP_MEMBER_DIFFERENT);
    /* a field is never a method, in any module */
    assert_int_equal(CMP(SAME, R(0x06, 0x08), R(0x00, 0x00, 0x08)), AIP_MEMBER_DIFFERENT);
    assert_int_equal(CMP(OTHER, R(0x00, 0x00, 0x08), R(0x06, 0x08)), AIP_MEMBER_DIFFERENT);
}

static void token_differences_stay_maybe(void **state)
{
    (void)state;
    /* a TypeRef may name the very TypeDef */
    assert_int_equal(CMP(SAME, R(0x00, 0x01, 0x01, 0x12, TR2), R(0x00, 0x01, 0x01, 0x12, TD2)),
                     AIP_MEMBER_MAYBE);
    /* a TypeSpec, a named type against a primitive, CLASS against VALUETYPE */
    assert_int_equal(CMP(SAME, R(0x06, 0x12, TS1), R(0x06, 0x12, TD2)), AIP_MEMBER_MAYBE);
    assert_int_equal(CMP(SAME, R(0x06, 0x11, TR2), R(0x06, 0x08)), AIP_MEMBER_MAYBE);
    assert_int_equal(CMP(SAME, R(0x06, 0x1C), R(0x06, 0x12, TR2)), AIP_MEMBER_MAYBE);
    assert_int_equal(CMP(SAME, R(0x06, 0x12, TD2), R(0x06, 0x11, TD2)), AIP_MEMBER_MAYBE);
    /* inside arrays and generic instantiations */
    assert_int_equal(CMP(SAME, R(0x06, 0x1D, 0x12, TR2), R(0x06, 0x1D, 0x12, TD2)), AIP_MEMBER_MAYBE);
    assert_int_equal(CMP(SAME, R(0x06, 0x15, 0x12, TR2, 0x01, 0x08), R(0x06, 0x15, 0x12, TD2, 0x02, 0x08, 0x08)),
                     AIP_MEMBER_MAYBE);
    /* generic variables: the runtime may substitute the parent's instantiation */
    assert_int_equal(CMP(SAME, R(0x06, 0x13, 0x00), R(0x06, 0x13, 0x01)), AIP_MEMBER_MAYBE);
    assert_int_equal(CMP(SAME, R(0x06, 0x1E, 0x00), R(0x06, 0x13, 0x00)), AIP_MEMBER_MAYBE);
    assert_int_equal(CMP(SAME, R(0x06, 0x08), R(0x06, 0x13, 0x00)), AIP_MEMBER_MAYBE);
    /* custom modifiers, function pointers, an explicit this */
    assert_int_equal(CMP(SAME, R(0x06, 0x1F, TR2, 0x08), R(0x06, 0x08)), AIP_MEMBER_MAYBE);
    assert_int_equal(CMP(SAME, R(0x06, 0x1B, 0x00, 0x00, 0x01), R(0x06, 0x1B, 0x00, 0x00, 0x08)),
                     AIP_MEMBER_MAYBE);
    assert_int_equal(CMP(SAME, R(0x60, 0x00, 0x01), R(0x20, 0x00, 0x01)), AIP_MEMBER_MAYBE);
    /* a function pointer on either side */
    assert_int_equal(CMP(SAME, R(0x06, 0x08), R(0x06, 0x1B, 0x00, 0x00, 0x08)), AIP_MEMBER_MAYBE);
    /* one certain difference outweighs a token that may match */
    assert_int_equal(CMP(SAME, R(0x00, 0x02, 0x01, 0x12, TR2, 0x0A), R(0x00, 0x02, 0x01, 0x12, TD2, 0x08)),
                     AIP_MEMBER_DIFFERENT);
}

static void other_modules_compare_kind_and_count(void **state)
{
    (void)state;
    assert_int_equal(CMP(OTHER, R(0x00, 0x01, 0x0A, 0x0A), R(0x00, 0x01, 0x08, 0x08)), AIP_MEMBER_MAYBE);
    assert_int_equal(CMP(OTHER, R(0x00, 0x01, 0x08, 0x08), R(0x00, 0x01, 0x08, 0x08)), AIP_MEMBER_MAYBE);
    assert_int_equal(CMP(OTHER, R(0x00, 0x02, 0x08, 0x08, 0x08), R(0x00, 0x01, 0x08, 0x08)),
                     AIP_MEMBER_DIFFERENT);
    assert_int_equal(CMP(OTHER, R(0x06, 0x08), R(0x06, 0x0A)), AIP_MEMBER_MAYBE);
    /* generic arity and instance-ness are not compared across modules */
    assert_int_equal(CMP(OTHER, R(0x20, 0x00, 0x01), R(0x00, 0x00, 0x01)), AIP_MEMBER_MAYBE);
}

static void varargs_and_malformed_are_never_different(void **state)
{
    (void)state;
    /* VARARG: one fixed parameter, a sentinel, one extra: the count includes the extra */
    assert_int_equal(CMP(SAME, R(0x05, 0x02, 0x01, 0x08, 0x41, 0x08), R(0x05, 0x01, 0x01, 0x08)),
                     AIP_MEMBER_MAYBE);
    assert_int_equal(CMP(OTHER, R(0x05, 0x02, 0x01, 0x08, 0x41, 0x08), R(0x05, 0x01, 0x01, 0x08)),
                     AIP_MEMBER_MAYBE);
    /* cut, empty, NULL */
    assert_int_equal(CMP(SAME, R(0x00, 0x02, 0x01, 0x08), R(0x00, 0x01, 0x01, 0x08)), AIP_MEMBER_MAYBE);
    assert_int_equal(CMP(SAME, R(0x06, 0x12), R(0x06, 0x08)), AIP_MEMBER_MAYBE);
    assert_int_equal(aip_member_sig_compare(NULL, 0, SIG(0x06, 0x08), SAME), AIP_MEMBER_MAYBE);
    assert_int_equal(aip_member_sig_compare(SIG(0x06, 0x08), NULL, 0, SAME), AIP_MEMBER_MAYBE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(identical_signatures_match),
        cmocka_unit_test(certain_differences_in_one_module),
        cmocka_unit_test(token_differences_stay_maybe),
        cmocka_unit_test(other_modules_compare_kind_and_count),
        cmocka_unit_test(varargs_and_malformed_are_never_different),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
