/* ALVK_RELOCATION_LOCALS_SIGNATURE: a generation declares locals through a relocated
 * StandAloneSig in its fat header. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "generation_fixture.h"

static const uint8_t k_locals[] = {0x07, 0x02, 0x08, 0x0E}; /* locals (int32, string) */

/* Turns relocation 7 (the ldtoken TypeSpec) into the locals signature. */
static void use_locals(fixture *f, uint32_t il_offset, alvk_relocation_kind kind,
                       const uint8_t *blob, uint32_t length)
{
    fixture_reloc(f, 7, kind, il_offset, blob, length);
}

static void a_locals_relocation_validates(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f);
    use_locals(&f, ALVK_RELOCATION_LOCALS_SIGNATURE, ALVK_RELOCATION_STANDALONE_SIG, k_locals,
               sizeof k_locals);
    /* ldtoken's operand is now unrelocated: give it an existing TypeDef token. */
    fixture_put32(f.body + 12 + 28, 0x02000002u);
    aip_generation_check failing;
    assert_int_equal(validate(&f, FIXTURE_ORIGINAL_SIZE, &failing), ALVK_OK);
    /* The nil StandAloneSig is a placeholder the relocation fills... */
    fixture_put32(f.body + 8, 0x11000000u);
    assert_int_equal(validate(&f, FIXTURE_ORIGINAL_SIZE, &failing), ALVK_OK);
    /* ...and without that relocation it is refused. */
    fixture_reloc(&f, 7, ALVK_RELOCATION_TYPE_SPEC, ALVK_RELOCATION_NO_OPERAND,
                  (const uint8_t[]){0x1D, 0x08}, 2);
    assert_int_equal(validate(&f, FIXTURE_ORIGINAL_SIZE, &failing),
                     ALVK_E_METHOD_BODY_MALFORMED);
}

static void only_local_signatures_fill_the_header(void **state)
{
    (void)state;
    fixture f;
    static const uint8_t method_sig[] = {0x00, 0x00, 0x01};
    static const uint8_t int_array[] = {0x1D, 0x08};
    aip_generation_check failing;
    fixture_init(&f);
    use_locals(&f, ALVK_RELOCATION_LOCALS_SIGNATURE, ALVK_RELOCATION_STANDALONE_SIG, method_sig,
               sizeof method_sig);
    fixture_put32(f.body + 12 + 28, 0x02000002u);
    assert_int_equal(validate(&f, FIXTURE_ORIGINAL_SIZE, &failing),
                     ALVK_E_RELOCATION_KIND_MISMATCH);
    assert_int_equal(failing.failing_index, 7);
    fixture_init(&f);
    use_locals(&f, ALVK_RELOCATION_LOCALS_SIGNATURE, ALVK_RELOCATION_TYPE_SPEC, int_array,
               sizeof int_array);
    fixture_put32(f.body + 12 + 28, 0x02000002u);
    assert_int_equal(validate(&f, FIXTURE_ORIGINAL_SIZE, &failing),
                     ALVK_E_RELOCATION_KIND_MISMATCH);
}

static void the_header_is_filled_once_and_only_in_fat_bodies(void **state)
{
    (void)state;
    fixture f;
    aip_generation_check failing;
    fixture_init(&f);
    use_locals(&f, ALVK_RELOCATION_LOCALS_SIGNATURE, ALVK_RELOCATION_STANDALONE_SIG, k_locals,
               sizeof k_locals);
    fixture_reloc(&f, 2, ALVK_RELOCATION_STANDALONE_SIG, ALVK_RELOCATION_LOCALS_SIGNATURE,
                  k_locals, sizeof k_locals);
    assert_int_equal(validate(&f, FIXTURE_ORIGINAL_SIZE, &failing), ALVK_E_RELOCATION_OVERLAP);
    assert_int_equal(failing.failing_index, 7);

    /* A tiny body has no header token to fill. */
    static const uint8_t tiny[] = {(2u << 2) | 0x2u, 0x00, 0x2A}; /* nop; ret */
    static const alvk_relocation locals = {.size = sizeof(alvk_relocation),
                                           .kind = ALVK_RELOCATION_STANDALONE_SIG,
                                           .il_offset = ALVK_RELOCATION_LOCALS_SIGNATURE,
                                           .blob_length = sizeof k_locals};
    alvk_generation g;
    memset(&g, 0, sizeof g);
    g.size = sizeof g;
    g.owner = 1;
    g.body = tiny;
    g.body_size = sizeof tiny;
    g.blobs = k_locals;
    g.blobs_size = sizeof k_locals;
    g.relocations = &locals;
    g.relocation_count = 1;
    aip_generation_check check;
    assert_int_equal(aip_generation_validate(&g, AIP_ORIGINAL_SIZE_UNKNOWN, &check),
                     ALVK_E_RELOCATION_NOT_OPERAND);
    assert_int_equal(check.failing_index, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_locals_relocation_validates),
        cmocka_unit_test(only_local_signatures_fill_the_header),
        cmocka_unit_test(the_header_is_filled_once_and_only_in_fat_bodies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
