/* Generation validation: a valid generation, then one refusal per documented failure, each
 * with its exact status and failing_index. More refusals and the bit-flip loop live in
 * test_generation_validate_more.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "generation_fixture.h"

static fixture f;

static int setup(void **state)
{
    (void)state;
    fixture_init(&f);
    return 0;
}

static void refused(alvk_status expected, uint32_t failing_index)
{
    aip_generation_check check;
    memset(&check, 0xAB, sizeof check);
    assert_int_equal(validate(&f, FIXTURE_ORIGINAL_SIZE, &check), expected);
    assert_int_equal(check.failing_index, failing_index);
}

static void valid_generation(void **state)
{
    (void)state;
    aip_generation_check check;
    assert_int_equal(validate(&f, FIXTURE_ORIGINAL_SIZE, &check), ALVK_OK);
    assert_int_equal(check.failing_index, 0);
    assert_true(check.body.is_fat);
    assert_int_equal(check.body.code_offset, 12);
    assert_int_equal(check.body.code_size, FIXTURE_CODE_SIZE);
    assert_int_equal(check.body.total_size, FIXTURE_BODY_SIZE);
    assert_int_equal(check.body.eh_clause_count, 1);
    assert_int_equal(validate(&f, AIP_ORIGINAL_SIZE_UNKNOWN, &check), ALVK_OK);
    f.g.il_map = NULL; /* allowed with no entries */
    f.g.il_map_count = 0;
    assert_int_equal(validate(&f, FIXTURE_ORIGINAL_SIZE, &check), ALVK_OK);
    assert_int_equal(aip_generation_validate(&f.g, 0, NULL), ALVK_E_NULL_ARGUMENT);
    assert_int_equal(aip_generation_validate(NULL, 0, &check), ALVK_E_NULL_ARGUMENT);
}

static void bad_header(void **state)
{
    (void)state;
    f.body[0] = 0x01; /* neither tiny (..10) nor fat (..11) */
    refused(ALVK_E_METHOD_BODY_MALFORMED, 0);
}

static void relocation_on_an_opcode_byte(void **state)
{
    (void)state;
    f.relocs[1].il_offset = OP_CALL - 1;
    refused(ALVK_E_RELOCATION_NOT_OPERAND, 1);
}

static void relocation_inside_an_operand(void **state)
{
    (void)state;
    f.relocs[2].il_offset = OP_CALLI + 1;
    refused(ALVK_E_RELOCATION_NOT_OPERAND, 2);
}

static void type_spec_on_calli(void **state)
{
    (void)state;
    f.relocs[2].il_offset = ALVK_RELOCATION_NO_OPERAND;
    f.relocs[7].il_offset = OP_CALLI;
    refused(ALVK_E_RELOCATION_KIND_MISMATCH, 7);
}

static void field_member_ref_on_call(void **state)
{
    (void)state;
    f.relocs[1].il_offset = ALVK_RELOCATION_NO_OPERAND;
    f.relocs[6].il_offset = OP_CALL;
    refused(ALVK_E_RELOCATION_KIND_MISMATCH, 6);
}

static void overlapping_relocations(void **state)
{
    (void)state;
    f.relocs[7].il_offset = OP_BOX; /* TYPE_SPEC fits box, but R5 fills it already */
    refused(ALVK_E_RELOCATION_OVERLAP, 7);
}

static void eh_clause_out_of_range(void **state)
{
    (void)state;
    f.body[52 + 7] = 23; /* handler [12, 35) */
    refused(ALVK_E_METHOD_BODY_MALFORMED, 0);
}

static void il_map_out_of_order(void **state)
{
    (void)state;
    f.map[2].old_offset = f.map[1].old_offset; /* strictly increasing */
    refused(ALVK_E_IL_MAP_INVALID, 2);
    f.map[2].old_offset = 4;
    refused(ALVK_E_IL_MAP_INVALID, 2);
}

static void il_map_entry_out_of_range(void **state)
{
    (void)state;
    f.map[1].new_offset = FIXTURE_CODE_SIZE + 1;
    refused(ALVK_E_IL_MAP_INVALID, 1);
    f.map[1].new_offset = FIXTURE_CODE_SIZE; /* the end itself is fine */
    aip_generation_check check;
    assert_int_equal(validate(&f, FIXTURE_ORIGINAL_SIZE, &check), ALVK_OK);
    f.map[2].old_offset = FIXTURE_ORIGINAL_SIZE + 1;
    refused(ALVK_E_IL_MAP_INVALID, 2);
    assert_int_equal(validate(&f, AIP_ORIGINAL_SIZE_UNKNOWN, &check), ALVK_OK);
}

static void truncated_signature_blob(void **state)
{
    (void)state;
    f.relocs[2].blob_length -= 1;
    refused(ALVK_E_SIGNATURE_MALFORMED, 2);
}

static void oversize_body(void **state)
{
    (void)state;
    f.g.body_size = ALVK_MAX_GENERATION_BODY_BYTES + 1;
    refused(ALVK_E_LIMIT_EXCEEDED, 0);
}

static void forward_parent_relocation(void **state)
{
    (void)state;
    f.relocs[4].parent_relocation = 6; /* R5 comes later */
    refused(ALVK_E_RELOCATION_MALFORMED, 4);
    f.relocs[4].parent_relocation = 4;
    f.relocs[5].parent_token = 0;
    f.relocs[5].parent_relocation = 6; /* a TypeRef nested in itself */
    refused(ALVK_E_RELOCATION_MALFORMED, 5);
}

static void name_outside_the_pool(void **state)
{
    (void)state;
    f.relocs[3].name_offset = f.g.blobs_size - 2; /* "Map" needs 3 bytes */
    refused(ALVK_E_RELOCATION_MALFORMED, 3);
    f.relocs[3].name_offset = UINT32_MAX;
    refused(ALVK_E_RELOCATION_MALFORMED, 3);
}

static void unknown_kind(void **state)
{
    (void)state;
    f.relocs[2].kind = (alvk_relocation_kind)6;
    refused(ALVK_E_RELOCATION_MALFORMED, 2);
    f.relocs[2].kind = (alvk_relocation_kind)0;
    refused(ALVK_E_RELOCATION_MALFORMED, 2);
}

static void wrong_relocation_size(void **state)
{
    (void)state;
    f.relocs[5].size = sizeof(alvk_relocation) - 4;
    refused(ALVK_E_RELOCATION_MALFORMED, 5);
    f.relocs[5].size = sizeof(alvk_relocation) + 4;
    refused(ALVK_E_RELOCATION_MALFORMED, 5);
}

static void null_relocations(void **state)
{
    (void)state;
    f.g.relocations = NULL;
    refused(ALVK_E_NULL_ARGUMENT, 0);
}

static void owner_zero(void **state)
{
    (void)state;
    f.g.owner = 0;
    refused(ALVK_E_INVALID_OWNER, 0);
}

static void reserved_nonzero(void **state)
{
    (void)state;
    f.g.reserved = 1;
    refused(ALVK_E_INVALID_FLAGS, 0);
}

#define T(name) cmocka_unit_test_setup(name, setup)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(valid_generation),         T(bad_header),
        T(relocation_on_an_opcode_byte), T(relocation_inside_an_operand),
        T(type_spec_on_calli),       T(field_member_ref_on_call),
        T(overlapping_relocations),  T(eh_clause_out_of_range),
        T(il_map_out_of_order),      T(il_map_entry_out_of_range),
        T(truncated_signature_blob), T(oversize_body),
        T(forward_parent_relocation), T(name_outside_the_pool),
        T(unknown_kind),             T(wrong_relocation_size),
        T(null_relocations),         T(owner_zero),
        T(reserved_nonzero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
