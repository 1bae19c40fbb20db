/* What one active exact-dispatch patch keeps in native memory: its record in the patch
 * table, its published snapshot (header and the dispatch body the emitter writes) and the
 * one relocation result of its calli signature. The performance budget is 2 KiB per patch;
 * a growing record fails here before it reaches a game. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "il/dispatch.h"
#include "rejit/patch_table.h"
#include "rejit/prepared_rejit.h"

#define AIP_PATCH_BUDGET_BYTES 2048u

static aip_method_sig parsed;

/* Bytes an active patch keeps for a target of this signature. */
static size_t footprint(const uint8_t *sig, size_t n, aip_receiver_kind receiver)
{
    assert_int_equal(aip_sig_parse_method(sig, n, 0, &parsed), ALVK_OK);
    aip_dispatch_target target = {sig, n, &parsed, receiver, 0x02000002u};
    uint8_t body[AIP_DISPATCH_MAX_BODY_BYTES];
    size_t body_length = 0;
    uint32_t token_offset = 0;
    assert_int_equal(aip_dispatch_emit_body(&target, 0x1122334455667788ull, 0x11000001u, body,
                                            sizeof body, &body_length, &token_offset),
                     ALVK_OK);
    size_t total = sizeof(aip_patch) + sizeof(aip_prepared_rejit) + body_length +
                   sizeof(alvk_relocation_result);
    printf("patch record %zu + snapshot header %zu + dispatch body %zu + relocation result %zu"
           " = %zu bytes\n",
           sizeof(aip_patch), sizeof(aip_prepared_rejit), body_length,
           sizeof(alvk_relocation_result), total);
    return total;
}

static void an_active_patch_keeps_under_two_kib(void **state)
{
    (void)state;
    /* int M(int, int): the common small static method. */
    static const uint8_t small[] = {0x00, 0x02, 0x08, 0x08, 0x08};
    assert_true(footprint(small, sizeof small, AIP_RECEIVER_NONE) <= AIP_PATCH_BUDGET_BYTES);
    /* An instance method with 16 parameters of mixed kinds (string, double, ref int ...). */
    uint8_t wide[3 + 16 * 2];
    size_t n = 0;
    wide[n++] = 0x20, wide[n++] = 16, wide[n++] = 0x01;
    static const uint8_t cycle[] = {0x0E, 0x0D, 0x08, 0x10};
    for (int i = 0; i < 16; ++i) {
        wide[n++] = cycle[i % 4];
        if (cycle[i % 4] == 0x10)
            wide[n++] = 0x08;
    }
    assert_true(footprint(wide, n, AIP_RECEIVER_CLASS) <= AIP_PATCH_BUDGET_BYTES);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(an_active_patch_keeps_under_two_kib),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
