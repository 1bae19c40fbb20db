/* Exact-dispatch emission: calli signatures and replacement bodies, byte for byte. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "il/dispatch.h"

#define BLOB(...) ((const uint8_t[]){__VA_ARGS__}), sizeof((const uint8_t[]){__VA_ARGS__})
#define NONE AIP_RECEIVER_NONE
#define CLASS AIP_RECEIVER_CLASS
#define VALUE AIP_RECEIVER_VALUE_TYPE
#define SIG_TOKEN 0x11000007u
#define REPLACEMENT 0x1122334455667788ull

static aip_method_sig parsed;
static aip_method_sig reparsed;

static aip_dispatch_target target_of(const uint8_t *sig, size_t n, aip_receiver_kind receiver,
                                     uint32_t declaring_type)
{
    assert_int_equal(aip_sig_parse_method(sig, n, 0, &parsed), ALVK_OK);
    aip_dispatch_target target = {sig, n, &parsed, receiver, declaring_type};
    return target;
}

static void expect_calli(const uint8_t *sig, size_t n, aip_receiver_kind receiver,
                         uint32_t declaring_type, const uint8_t *expected, size_t expected_n)
{
    aip_dispatch_target target = target_of(sig, n, receiver, declaring_type);
    uint8_t out[AIP_DISPATCH_MAX_SIG_BYTES];
    size_t written = 0;
    assert_int_equal(aip_dispatch_build_calli_signature(&target, out, sizeof out, &written),
                     ALVK_OK);
    assert_int_equal(written, expected_n);
    assert_memory_equal(out, expected, expected_n);
    assert_int_equal(aip_dispatch_build_calli_signature(&target, out, written - 1, &written),
                     ALVK_E_BUFFER_TOO_SMALL);
    /* The produced signature is itself a valid, static, default-convention signature. */
    assert_int_equal(aip_sig_parse_method(out, expected_n, 0, &reparsed), ALVK_OK);
    assert_int_equal(reparsed.param_count, parsed.param_count + (receiver != NONE ? 1 : 0));
    assert_int_equal(reparsed.calling_convention, 0);
}

static void static_targets_keep_their_signature(void **state)
{
    (void)state;
    expect_calli(BLOB(0x00, 0x02, 0x08, 0x08, 0x08), NONE, 0, BLOB(0x00, 0x02, 0x08, 0x08, 0x08));
    expect_calli(BLOB(0x00, 0x01, 0x01, 0x0A), NONE, 0, BLOB(0x00, 0x01, 0x01, 0x0A));
    expect_calli(BLOB(0x00, 0x00, 0x01), NONE, 0, BLOB(0x00, 0x00, 0x01));
    uint8_t sig[3 + 16 * 2];
    size_t n = 0;
    sig[n++] = 0x00, sig[n++] = 16, sig[n++] = 0x0D;
    static const uint8_t cycle[] = {0x0C, 0x0D, 0x0A, 0x11};
    for (int i = 0; i < 16; ++i) {
        sig[n++] = cycle[i % 4];
        if (cycle[i % 4] == 0x11)
            sig[n++] = 0x0C;
    }
    expect_calli(sig, n, NONE, 0, sig, n);
}

static void instance_targets_pass_their_receiver_first(void **state)
{
    (void)state;
    /* string C::M(ref int, out string) on TypeDef 5 */
    expect_calli(BLOB(0x20, 0x02, 0x0E, 0x10, 0x08, 0x10, 0x0E), CLASS, 0x02000005,
                 BLOB(0x00, 0x03, 0x0E, 0x12, 0x14, 0x10, 0x08, 0x10, 0x0E));
    /* Vector3 Vector3::M(in Vector3): ref this, the modreq(InAttribute) kept verbatim */
    expect_calli(BLOB(0x20, 0x01, 0x11, 0x08, 0x1F, 0x09, 0x10, 0x11, 0x08), VALUE, 0x02000002,
                 BLOB(0x00, 0x02, 0x11, 0x08, 0x10, 0x11, 0x08, 0x1F, 0x09, 0x10, 0x11, 0x08));
    /* void C::M() on a TypeDef whose coded form takes two bytes */
    expect_calli(BLOB(0x20, 0x00, 0x01), CLASS, 0x02000100,
                 BLOB(0x00, 0x01, 0x01, 0x12, 0x84, 0x00));
}

static size_t emit(const aip_dispatch_target *target, uint8_t *out, size_t capacity,
                   uint32_t *token_offset)
{
    size_t written = 0;
    assert_int_equal(aip_dispatch_emit_body(target, REPLACEMENT, SIG_TOKEN, out, capacity,
                                            &written, token_offset),
                     ALVK_OK);
    return written;
}

static void static_body_is_exact(void **state)
{
    (void)state;
    aip_dispatch_target target = target_of(BLOB(0x00, 0x02, 0x08, 0x08, 0x08), NONE, 0);
    uint8_t out[AIP_DISPATCH_MAX_BODY_BYTES];
    uint32_t token_offset = 0;
    size_t n = emit(&target, out, sizeof out, &token_offset);
    static const uint8_t expected[] = {
        0x03, 0x30, 0x03, 0x00, 0x12, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* header */
        0x02, 0x03,                                                             /* ldarg.0, 1 */
        0x21, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0xD3,             /* ldc.i8, conv.i */
        0x29, 0x07, 0x00, 0x00, 0x11, 0x2A};                                   /* calli, ret */
    assert_int_equal(n, sizeof expected);
    assert_memory_equal(out, expected, sizeof expected);
    assert_int_equal(token_offset, 25);
    assert_memory_equal(out + token_offset, ((uint8_t[]){0x07, 0x00, 0x00, 0x11}), 4);
    size_t written = 0;
    assert_int_equal(aip_dispatch_emit_body(&target, REPLACEMENT, SIG_TOKEN, out, n - 1, &written,
                                            &token_offset),
                     ALVK_E_BUFFER_TOO_SMALL);
}

static void instance_body_uses_short_forms(void **state)
{
    (void)state;
    aip_dispatch_target target =
        target_of(BLOB(0x20, 0x06, 0x01, 0x08, 0x08, 0x08, 0x08, 0x08, 0x08), CLASS, 0x02000003);
    uint8_t out[AIP_DISPATCH_MAX_BODY_BYTES], again[AIP_DISPATCH_MAX_BODY_BYTES];
    uint32_t token_offset = 0, token_offset_again = 0;
    size_t n = emit(&target, out, sizeof out, &token_offset);
    assert_int_equal(n, 12 + 10 + 16);
    assert_memory_equal(out, ((uint8_t[]){0x03, 0x30, 0x08, 0x00, 0x1A, 0, 0, 0, 0, 0, 0, 0}), 12);
    assert_memory_equal(out + 12,
                        ((uint8_t[]){0x02, 0x03, 0x04, 0x05, 0x0E, 0x04, 0x0E, 0x05, 0x0E, 0x06}),
                        10);
    assert_int_equal(token_offset, n - 5);
    assert_memory_equal(out + token_offset, ((uint8_t[]){0x07, 0x00, 0x00, 0x11, 0x2A}), 5);
    /* Determinism: the same target gives the same bytes. */
    assert_int_equal(emit(&target, again, sizeof again, &token_offset_again), n);
    assert_int_equal(token_offset_again, token_offset);
    assert_memory_equal(out, again, n);
}

static void widest_target_stays_within_ldarg_s(void **state)
{
    (void)state;
    uint8_t sig[4 + 256];
    sig[0] = 0x00, sig[1] = 0x81, sig[2] = 0x00, sig[3] = 0x01; /* static void M(256 x int) */
    memset(sig + 4, 0x08, 256);
    aip_dispatch_target target = target_of(sig, sizeof sig, NONE, 0);
    uint8_t out[AIP_DISPATCH_MAX_BODY_BYTES];
    uint32_t token_offset = 0;
    size_t n = emit(&target, out, sizeof out, &token_offset);
    size_t code = 4 + 252 * 2 + 16;
    assert_int_equal(n, 12 + code);
    assert_int_equal(out[2] | (out[3] << 8), 257);
    assert_int_equal(out[4] | (out[5] << 8), code);
    assert_memory_equal(out + 12 + 4 + 251 * 2, ((uint8_t[]){0x0E, 0xFF, 0x21}), 3);
    assert_int_equal(token_offset, n - 5);
    expect_calli(sig, sizeof sig, NONE, 0, sig, sizeof sig);
    /* With a receiver the calli signature would need 257 parameters: past the bound. */
    sig[0] = 0x20;
    target = target_of(sig, sizeof sig, CLASS, 0x02000001);
    size_t written = 0;
    assert_int_equal(aip_dispatch_build_calli_signature(&target, out, sizeof out, &written),
                     ALVK_E_LIMIT_EXCEEDED);
    assert_int_equal(aip_dispatch_emit_body(&target, REPLACEMENT, SIG_TOKEN, out, sizeof out,
                                            &written, &token_offset),
                     ALVK_E_LIMIT_EXCEEDED);
}

static void expect_refused(const uint8_t *sig, size_t n, aip_receiver_kind receiver,
                           uint32_t declaring_type, alvk_status expected)
{
    aip_dispatch_target target = target_of(sig, n, receiver, declaring_type);
    uint8_t out[AIP_DISPATCH_MAX_BODY_BYTES];
    size_t written = 0;
    uint32_t token_offset = 0;
    assert_int_equal(aip_dispatch_build_calli_signature(&target, out, sizeof out, &written),
                     expected);
    assert_int_equal(aip_dispatch_emit_body(&target, REPLACEMENT, SIG_TOKEN, out, sizeof out,
                                            &written, &token_offset),
                     expected);
}

static void unsupported_targets_are_refused(void **state)
{
    (void)state;
    const alvk_status generic = ALVK_E_GENERIC_TARGET_UNSUPPORTED;
    const alvk_status unsupported = ALVK_E_SIGNATURE_UNSUPPORTED;
    expect_refused(BLOB(0x10, 0x01, 0x01, 0x1E, 0x00, 0x1E, 0x00), NONE, 0, generic);
    expect_refused(BLOB(0x20, 0x01, 0x01, 0x15, 0x12, 0x0D, 0x01, 0x13, 0x00), CLASS, 0x02000001,
                   generic);                                           /* void M(List<T>) */
    expect_refused(BLOB(0x00, 0x00, 0x13, 0x00), NONE, 0, generic);   /* T M() */
    expect_refused(BLOB(0x05, 0x01, 0x01, 0x08), NONE, 0, unsupported); /* vararg */
    expect_refused(BLOB(0x01, 0x00, 0x01), NONE, 0, unsupported);        /* unmanaged cdecl */
    expect_refused(BLOB(0x60, 0x00, 0x01), CLASS, 0x02000001, unsupported); /* explicit this */
    expect_refused(BLOB(0x20, 0x00, 0x01), NONE, 0, unsupported);
    expect_refused(BLOB(0x00, 0x00, 0x01), CLASS, 0x02000001, unsupported);
    expect_refused(BLOB(0x00, 0x00, 0x01), VALUE, 0x02000001, unsupported);
    expect_refused(BLOB(0x20, 0x00, 0x01), CLASS, 0x01000005, unsupported); /* TypeRef */
    expect_refused(BLOB(0x20, 0x00, 0x01), VALUE, 0x02000000, unsupported); /* nil TypeDef */
    expect_refused(BLOB(0x20, 0x00, 0x01), (aip_receiver_kind)7, 0x02000001, unsupported);
}

static void bad_arguments_are_refused(void **state)
{
    (void)state;
    aip_dispatch_target target = target_of(BLOB(0x00, 0x00, 0x01), NONE, 0);
    uint8_t out[64];
    size_t written = 0;
    uint32_t token_offset = 0;
    for (uint32_t i = 0; i < 2; ++i) {
        uint32_t token = i == 0 ? 0x11000000u : 0x06000001u;
        assert_int_equal(aip_dispatch_emit_body(&target, REPLACEMENT, token, out, sizeof out,
                                                &written, &token_offset),
                         ALVK_E_SIGNATURE_UNSUPPORTED);
    }
    assert_int_equal(aip_dispatch_build_calli_signature(NULL, out, sizeof out, &written),
                     ALVK_E_NULL_ARGUMENT);
    assert_int_equal(aip_dispatch_build_calli_signature(&target, NULL, sizeof out, &written),
                     ALVK_E_NULL_ARGUMENT);
    assert_int_equal(aip_dispatch_build_calli_signature(&target, out, sizeof out, NULL),
                     ALVK_E_NULL_ARGUMENT);
    assert_int_equal(aip_dispatch_emit_body(&target, REPLACEMENT, SIG_TOKEN, out, sizeof out,
                                            &written, NULL),
                     ALVK_E_NULL_ARGUMENT);
    assert_int_equal(aip_dispatch_emit_body(NULL, REPLACEMENT, SIG_TOKEN, out, sizeof out,
                                            &written, &token_offset),
                     ALVK_E_NULL_ARGUMENT);
    target.parsed = NULL;
    assert_int_equal(aip_dispatch_build_calli_signature(&target, out, sizeof out, &written),
                     ALVK_E_NULL_ARGUMENT);
}

/* ---- The direct-call body (ABI 3.4) ---- */

static size_t emit_call(const aip_dispatch_target *target, uint32_t token, uint8_t *out,
                        size_t capacity, uint32_t *token_offset)
{
    size_t written = 0;
    assert_int_equal(
        aip_dispatch_emit_call_body(target, token, out, capacity, &written, token_offset),
        ALVK_OK);
    return written;
}

static void static_call_body_is_exact(void **state)
{
    (void)state;
    aip_dispatch_target target = target_of(BLOB(0x00, 0x02, 0x08, 0x08, 0x08), NONE, 0);
    uint8_t out[AIP_DISPATCH_MAX_BODY_BYTES];
    uint32_t token_offset = 0;
    size_t n = emit_call(&target, 0x0A000012u, out, sizeof out, &token_offset);
    static const uint8_t expected[] = {
        0x03, 0x30, 0x02, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* header */
        0x02, 0x03,                                                             /* ldarg.0, 1 */
        0x28, 0x12, 0x00, 0x00, 0x0A, 0x2A};                                   /* call, ret */
    assert_int_equal(n, sizeof expected);
    assert_memory_equal(out, expected, sizeof expected);
    assert_int_equal(token_offset, 15);
    size_t written = 0;
    assert_int_equal(aip_dispatch_emit_call_body(&target, 0x0A000012u, out, n - 1, &written,
                                                 &token_offset),
                     ALVK_E_BUFFER_TOO_SMALL);
    /* A MethodDef (the same module) is called as it is. */
    n = emit_call(&target, 0x06000003u, out, sizeof out, &token_offset);
    assert_int_equal(n, sizeof expected);
    assert_memory_equal(out + token_offset, ((uint8_t[]){0x03, 0x00, 0x00, 0x06, 0x2A}), 5);
}

static void call_body_without_arguments_keeps_room_for_the_result(void **state)
{
    (void)state;
    /* static int M(): max_stack 1 for the result the call leaves. */
    aip_dispatch_target target = target_of(BLOB(0x00, 0x00, 0x08), NONE, 0);
    uint8_t out[AIP_DISPATCH_MAX_BODY_BYTES];
    uint32_t token_offset = 0;
    size_t n = emit_call(&target, 0x0A000001u, out, sizeof out, &token_offset);
    assert_int_equal(n, 12 + 6);
    assert_int_equal(out[2] | (out[3] << 8), 1);
    assert_int_equal(out[4] | (out[5] << 8), 6);
    assert_int_equal(out[12], 0x28);
    assert_int_equal(token_offset, 13);
    assert_int_equal(out[17], 0x2A);
}

static void instance_call_body_passes_the_receiver_first(void **state)
{
    (void)state;
    /* Vector3 Vector3::M(in Vector3, int, int, int, int): ref this then 5 arguments */
    aip_dispatch_target target = target_of(
        BLOB(0x20, 0x05, 0x11, 0x08, 0x10, 0x11, 0x08, 0x08, 0x08, 0x08, 0x08), VALUE, 0x02000002);
    uint8_t out[AIP_DISPATCH_MAX_BODY_BYTES], calli[AIP_DISPATCH_MAX_BODY_BYTES];
    uint32_t token_offset = 0, calli_offset = 0;
    size_t n = emit_call(&target, 0x0A000004u, out, sizeof out, &token_offset);
    assert_int_equal(n, 12 + 8 + 6);
    assert_int_equal(out[2] | (out[3] << 8), 6);
    assert_memory_equal(out + 12,
                        ((uint8_t[]){0x02, 0x03, 0x04, 0x05, 0x0E, 0x04, 0x0E, 0x05, 0x28}), 9);
    assert_int_equal(token_offset, 12 + 9);
    /* The same argument loads as the calli body: only the call differs. */
    size_t m = emit(&target, calli, sizeof calli, &calli_offset);
    assert_int_equal(m, n + 10);
    assert_memory_equal(calli + 12, out + 12, 8);
}

static void call_body_refusals(void **state)
{
    (void)state;
    aip_dispatch_target target = target_of(BLOB(0x00, 0x00, 0x01), NONE, 0);
    uint8_t out[64];
    size_t written = 0;
    uint32_t token_offset = 0;
    static const uint32_t bad[] = {0x0A000000u, 0x06000000u, 0x11000001u, 0x2B000001u,
                                   0x02000001u, 0};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i)
        assert_int_equal(aip_dispatch_emit_call_body(&target, bad[i], out, sizeof out, &written,
                                                     &token_offset),
                         ALVK_E_SIGNATURE_UNSUPPORTED);
    assert_int_equal(aip_dispatch_emit_call_body(NULL, 0x0A000001u, out, sizeof out, &written,
                                                 &token_offset),
                     ALVK_E_NULL_ARGUMENT);
    assert_int_equal(
        aip_dispatch_emit_call_body(&target, 0x0A000001u, out, sizeof out, &written, NULL),
        ALVK_E_NULL_ARGUMENT);
    /* The target's refusals are the calli body's. */
    aip_dispatch_target generic =
        target_of(BLOB(0x10, 0x01, 0x01, 0x1E, 0x00, 0x1E, 0x00), NONE, 0);
    assert_int_equal(aip_dispatch_emit_call_body(&generic, 0x0A000001u, out, sizeof out,
                                                 &written, &token_offset),
                     ALVK_E_GENERIC_TARGET_UNSUPPORTED);
    aip_dispatch_target vararg = target_of(BLOB(0x05, 0x01, 0x01, 0x08), NONE, 0);
    assert_int_equal(aip_dispatch_emit_call_body(&vararg, 0x0A000001u, out, sizeof out,
                                                 &written, &token_offset),
                     ALVK_E_SIGNATURE_UNSUPPORTED);
    uint8_t sig[4 + 256];
    sig[0] = 0x20, sig[1] = 0x81, sig[2] = 0x00, sig[3] = 0x01; /* 256 ints and a receiver */
    memset(sig + 4, 0x08, 256);
    aip_dispatch_target wide = target_of(sig, sizeof sig, CLASS, 0x02000001);
    uint8_t big[AIP_DISPATCH_MAX_BODY_BYTES];
    assert_int_equal(aip_dispatch_emit_call_body(&wide, 0x0A000001u, big, sizeof big, &written,
                                                 &token_offset),
                     ALVK_E_LIMIT_EXCEEDED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(static_targets_keep_their_signature),
        cmocka_unit_test(instance_targets_pass_their_receiver_first),
        cmocka_unit_test(static_body_is_exact),
        cmocka_unit_test(instance_body_uses_short_forms),
        cmocka_unit_test(widest_target_stays_within_ldarg_s),
        cmocka_unit_test(unsupported_targets_are_refused),
        cmocka_unit_test(bad_arguments_are_refused),
        cmocka_unit_test(static_call_body_is_exact),
        cmocka_unit_test(call_body_without_arguments_keeps_room_for_the_result),
        cmocka_unit_test(instance_call_body_passes_the_receiver_first),
        cmocka_unit_test(call_body_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
