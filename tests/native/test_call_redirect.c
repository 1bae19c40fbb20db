/* Call-site redirection: every `call <from>` and `callvirt <from>` becomes `call <to>` in place;
 * ldftn, newobj and look-alike operand bytes stay; malformed code is left unchanged; code with a
 * `constrained.`-prefixed callvirt of `from` keeps every call (counted). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "il/call_redirect.h"

#define FROM 0x06000012u
#define TO 0x06000040u

static aip_il_starts starts;

static void redirects_every_call_and_nothing_else(void **state)
{
    (void)state;
    uint8_t code[] = {
        0x02,                         /* ldarg.0 */
        0x28, 0x12, 0x00, 0x00, 0x06, /* call FROM */
        0x20, 0x12, 0x00, 0x00, 0x06, /* ldc.i4 with FROM's bytes */
        0x58,                         /* add */
        0x28, 0x12, 0x00, 0x00, 0x06, /* call FROM */
        0x28, 0x13, 0x00, 0x00, 0x06, /* call another method */
        0x6F, 0x12, 0x00, 0x00, 0x06, /* callvirt FROM */
        0xFE, 0x06, 0x12, 0x00, 0x00, 0x06, /* ldftn FROM */
        0x73, 0x12, 0x00, 0x00, 0x06, /* newobj FROM */
        0x26,                         /* pop */
        0x2A,                         /* ret */
    };
    uint8_t expected[sizeof code];
    memcpy(expected, code, sizeof code);
    expected[2] = 0x40;  /* the first call */
    expected[13] = 0x40; /* the second call */
    expected[22] = 0x28; /* the callvirt, now a call */
    expected[23] = 0x40;
    aip_call_redirect_counts counts = {99, 99, 99};
    assert_int_equal(aip_il_redirect_calls(code, sizeof code, FROM, TO, &starts, &counts), ALVK_OK);
    assert_int_equal(counts.redirected, 3);
    assert_int_equal(counts.virtual_calls, 1);
    assert_int_equal(counts.constrained, 0);
    assert_memory_equal(code, expected, sizeof code);
}

static void code_without_the_call_is_unchanged(void **state)
{
    (void)state;
    uint8_t code[] = {0x02, 0x28, 0x13, 0x00, 0x00, 0x06, 0x2A};
    uint8_t before[sizeof code];
    memcpy(before, code, sizeof code);
    aip_call_redirect_counts counts;
    assert_int_equal(aip_il_redirect_calls(code, sizeof code, FROM, TO, &starts, &counts), ALVK_OK);
    assert_int_equal(counts.redirected, 0);
    assert_int_equal(counts.virtual_calls, 0);
    assert_memory_equal(code, before, sizeof code);
}

static void malformed_code_is_refused_and_left_as_it_was(void **state)
{
    (void)state;
    /* A call of FROM, then a branch into the middle of it. */
    uint8_t code[] = {0x28, 0x12, 0x00, 0x00, 0x06, 0x2B, 0xFA, 0x2A};
    uint8_t before[sizeof code];
    memcpy(before, code, sizeof code);
    aip_call_redirect_counts counts = {7, 7, 7};
    assert_int_equal(aip_il_redirect_calls(code, sizeof code, FROM, TO, &starts, &counts),
                     ALVK_E_IL_MALFORMED);
    assert_memory_equal(code, before, sizeof code);
    assert_int_equal(counts.redirected, 7);
    /* An operand cut short at the end. */
    uint8_t cut[] = {0x28, 0x12, 0x00, 0x00, 0x06, 0x28, 0x12, 0x00};
    memcpy(before, cut, sizeof cut);
    assert_int_equal(aip_il_redirect_calls(cut, sizeof cut, FROM, TO, &starts, &counts),
                     ALVK_E_IL_MALFORMED);
    assert_memory_equal(cut, before, sizeof cut);
}

static void null_arguments_are_refused(void **state)
{
    (void)state;
    uint8_t code[] = {0x2A};
    aip_call_redirect_counts counts;
    assert_int_equal(aip_il_redirect_calls(NULL, 1, FROM, TO, &starts, &counts),
                     ALVK_E_NULL_ARGUMENT);
    assert_int_equal(aip_il_redirect_calls(code, 1, FROM, TO, NULL, &counts),
                     ALVK_E_NULL_ARGUMENT);
    assert_int_equal(aip_il_redirect_calls(code, 1, FROM, TO, &starts, NULL),
                     ALVK_E_NULL_ARGUMENT);
}

/* A whole body: a tiny header, then code calling FROM and 0x06000013; both routes applied, the
 * header left as it was. */
static void a_whole_body_takes_every_route(void **state)
{
    (void)state;
    uint8_t body[] = {
        (uint8_t)((17u << 2) | 0x2u), /* tiny header: 17 bytes of code */
        0x02,                         /* ldarg.0 */
        0x28, 0x12, 0x00, 0x00, 0x06, /* call FROM */
        0x02,                         /* ldarg.0 */
        0x28, 0x13, 0x00, 0x00, 0x06, /* call 0x06000013 */
        0x58,                         /* add */
        0x6F, 0x12, 0x00, 0x00, 0x06, /* callvirt FROM: a truncated instruction, see below */
    };
    /* The last instruction runs past the 17 bytes of code: malformed, so nothing changes. */
    uint8_t copy[sizeof body];
    memcpy(copy, body, sizeof body);
    aip_call_route routes[] = {{FROM, TO}, {0x06000013u, 0x06000041u}};
    aip_call_redirect_counts totals = {99, 99, 99};
    assert_int_equal(aip_il_redirect_body(copy, sizeof copy, routes, 2, &starts, &totals),
                     ALVK_E_IL_MALFORMED);
    assert_memory_equal(copy, body, sizeof body);
    /* Cut to 13 bytes of code and a ret: both routes rewrite their one call each. */
    body[0] = (uint8_t)((13u << 2) | 0x2u);
    body[13] = 0x2A; /* ret */
    memcpy(copy, body, sizeof body);
    assert_int_equal(aip_il_redirect_body(copy, 14, routes, 2, &starts, &totals), ALVK_OK);
    assert_int_equal(totals.redirected, 2);
    assert_int_equal(totals.virtual_calls, 0);
    assert_int_equal(totals.constrained, 0);
    assert_int_equal(copy[0], body[0]);
    assert_int_equal(copy[3], 0x40);
    assert_int_equal(copy[9], 0x41);
    assert_memory_equal(copy + 10, body + 10, sizeof body - 10);
    /* No route: nothing changes, nothing counted. */
    memcpy(copy, body, sizeof body);
    assert_int_equal(aip_il_redirect_body(copy, 14, NULL, 0, &starts, &totals), ALVK_OK);
    assert_int_equal(totals.redirected, 0);
    assert_memory_equal(copy, body, sizeof body);
    assert_int_equal(aip_il_redirect_body(NULL, 14, routes, 2, &starts, &totals),
                     ALVK_E_NULL_ARGUMENT);
    assert_int_equal(aip_il_redirect_body(copy, 14, routes, 2, &starts, NULL),
                     ALVK_E_NULL_ARGUMENT);
}

/* `constrained. T callvirt FROM` made `constrained. T call TO` would be invalid IL: the code
 * keeps that call and every other call of FROM, and says why. */
static void a_constrained_callvirt_keeps_every_call(void **state)
{
    (void)state;
    uint8_t code[] = {
        0x0F, 0x00,                         /* ldarga.s 0 */
        0x28, 0x12, 0x00, 0x00, 0x06,       /* call FROM */
        0x26,                               /* pop */
        0x0F, 0x00,                         /* ldarga.s 0 */
        0xFE, 0x16, 0x03, 0x00, 0x00, 0x02, /* constrained. 0x02000003 */
        0x6F, 0x12, 0x00, 0x00, 0x06,       /* callvirt FROM */
        0x2A,                               /* ret */
    };
    uint8_t before[sizeof code];
    memcpy(before, code, sizeof code);
    aip_call_redirect_counts counts = {99, 99, 99};
    assert_int_equal(aip_il_redirect_calls(code, sizeof code, FROM, TO, &starts, &counts), ALVK_OK);
    assert_int_equal(counts.redirected, 0);
    assert_int_equal(counts.virtual_calls, 0);
    assert_int_equal(counts.constrained, 1);
    assert_memory_equal(code, before, sizeof code);
    /* Other prefixes between `constrained.` and its callvirt: still constrained. */
    uint8_t tail[] = {
        0x0F, 0x00,                         /* ldarga.s 0 */
        0xFE, 0x16, 0x03, 0x00, 0x00, 0x02, /* constrained. 0x02000003 */
        0xFE, 0x14,                         /* tail. */
        0x6F, 0x12, 0x00, 0x00, 0x06,       /* callvirt FROM */
        0x2A,                               /* ret */
    };
    memcpy(before, tail, sizeof tail);
    assert_int_equal(aip_il_redirect_calls(tail, sizeof tail, FROM, TO, &starts, &counts), ALVK_OK);
    assert_int_equal(counts.redirected, 0);
    assert_int_equal(counts.constrained, 1);
    assert_memory_equal(tail, before, sizeof tail);
    /* The same body through aip_il_redirect_body: the route counts its constrained call, the
     * other route still applies. */
    uint8_t body[1 + sizeof code];
    body[0] = (uint8_t)((sizeof code << 2) | 0x2u); /* tiny header */
    memcpy(body + 1, code, sizeof code);
    body[4] = 0x13; /* the plain call now calls 0x06000013 */
    uint8_t copy[sizeof body];
    memcpy(copy, body, sizeof body);
    aip_call_route routes[] = {{FROM, TO}, {0x06000013u, 0x06000041u}};
    aip_call_redirect_counts totals = {99, 99, 99};
    assert_int_equal(aip_il_redirect_body(copy, sizeof copy, routes, 2, &starts, &totals),
                     ALVK_OK);
    assert_int_equal(totals.redirected, 1);
    assert_int_equal(totals.constrained, 1);
    assert_int_equal(copy[4], 0x41);
    copy[4] = body[4];
    assert_memory_equal(copy, body, sizeof body);
}

/* A `constrained.` prefix of another call, or one ended by an instruction, does not hold back
 * a later call of FROM. */
static void a_constrained_call_of_another_method_does_not_count(void **state)
{
    (void)state;
    uint8_t code[] = {
        0x0F, 0x00,                         /* ldarga.s 0 */
        0xFE, 0x16, 0x03, 0x00, 0x00, 0x02, /* constrained. 0x02000003 */
        0x6F, 0x13, 0x00, 0x00, 0x06,       /* callvirt 0x06000013 */
        0x26,                               /* pop */
        0x02,                               /* ldarg.0 */
        0x6F, 0x12, 0x00, 0x00, 0x06,       /* callvirt FROM */
        0x2A,                               /* ret */
    };
    uint8_t expected[sizeof code];
    memcpy(expected, code, sizeof code);
    expected[15] = 0x28;
    expected[16] = 0x40;
    aip_call_redirect_counts counts = {99, 99, 99};
    assert_int_equal(aip_il_redirect_calls(code, sizeof code, FROM, TO, &starts, &counts), ALVK_OK);
    assert_int_equal(counts.redirected, 1);
    assert_int_equal(counts.virtual_calls, 1);
    assert_int_equal(counts.constrained, 0);
    assert_memory_equal(code, expected, sizeof code);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(redirects_every_call_and_nothing_else),
        cmocka_unit_test(code_without_the_call_is_unchanged),
        cmocka_unit_test(malformed_code_is_refused_and_left_as_it_was),
        cmocka_unit_test(null_arguments_are_refused),
        cmocka_unit_test(a_whole_body_takes_every_route),
        cmocka_unit_test(a_constrained_callvirt_keeps_every_call),
        cmocka_unit_test(a_constrained_call_of_another_method_does_not_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
