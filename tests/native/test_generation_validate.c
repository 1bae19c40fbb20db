/* Generation validation: a valid generation, then one refusal per documented failure, each
 * with its exact status and failing_index; the shape, body, parent, name, blob, operand and
 * IL-map refusals in groups, and a loop that flips every bit of the body and
 * the blob pool. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "generation/relocation_parent.h"
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
    f.relocs[2].kind = (alvk_relocation_kind)(ALVK_RELOCATION_USER_STRING + 1);
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

/* Validates, expects `expected` at `index`, then restores the fixture. */
static void expect(alvk_status expected, uint32_t index)
{
    aip_generation_check check;
    assert_int_equal(validate(&f, FIXTURE_ORIGINAL_SIZE, &check), expected);
    assert_int_equal(check.failing_index, index);
    fixture_init(&f);
}

static void shape(void **state)
{
    (void)state;
    f.g.size = sizeof f.g - 1;
    expect(ALVK_E_STRUCT_SIZE, 0);
    f.g.size = sizeof f.g + 16; /* a newer caller's larger struct is fine */
    expect(ALVK_OK, 0);
    f.g.flags = 0x4;
    expect(ALVK_E_INVALID_FLAGS, 0);
    f.g.flags = ALVK_INSTALL_UNVERIFIABLE;
    expect(ALVK_OK, 0);
    f.g.reserved1 = 1;
    expect(ALVK_E_INVALID_FLAGS, 0);
    f.g.module_epoch = 3; /* an epoch without the module it belongs to */
    expect(ALVK_E_INVALID_FLAGS, 0);
    f.g.flags = 0;
    expect(ALVK_OK, 0);
    f.g.body = NULL;
    expect(ALVK_E_NULL_ARGUMENT, 0);
    f.g.blobs = NULL;
    expect(ALVK_E_NULL_ARGUMENT, 0);
    f.g.il_map = NULL;
    expect(ALVK_E_NULL_ARGUMENT, 0);
    f.g.owner = 0; /* owner comes before flags and NULLs */
    f.g.reserved = 1;
    f.g.body = NULL;
    expect(ALVK_E_INVALID_OWNER, 0);
    f.g.blobs_size = ALVK_MAX_GENERATION_BLOB_BYTES + 1;
    expect(ALVK_E_LIMIT_EXCEEDED, 0);
    f.g.relocation_count = ALVK_MAX_RELOCATIONS + 1;
    expect(ALVK_E_LIMIT_EXCEEDED, 0);
    f.g.il_map_count = ALVK_MAX_IL_MAP_ENTRIES + 1;
    expect(ALVK_E_LIMIT_EXCEEDED, 0);
}

static void body_and_code(void **state)
{
    (void)state;
    f.g.body_size = FIXTURE_BODY_SIZE + 1; /* a trailing byte */
    expect(ALVK_E_METHOD_BODY_MALFORMED, 0);
    f.g.body_size = FIXTURE_BODY_SIZE - 1; /* the section cut */
    expect(ALVK_E_METHOD_BODY_MALFORMED, 0);
    f.g.body_size = 0;
    expect(ALVK_E_METHOD_BODY_MALFORMED, 0);
    fixture_put32(f.body + 8, 0x02000001u); /* locals token of the wrong table */
    expect(ALVK_E_METHOD_BODY_MALFORMED, 0);
    fixture_put32(f.body + 8, 0x11000000u);
    expect(ALVK_E_METHOD_BODY_MALFORMED, 0);
    fixture_put32(f.body + 8, 0);
    expect(ALVK_OK, 0);
    f.body[12 + 32] = 0x24; /* pop -> an unused opcode */
    expect(ALVK_E_IL_MALFORMED, 0);
    f.body[12 + 32] = 0x2B; /* pop -> br.s 0x2A: past the end */
    expect(ALVK_E_IL_MALFORMED, 0);
    f.body[12 + 27] = 0x20; /* ldtoken -> ldc.i4: R7 no longer on a token */
    expect(ALVK_E_RELOCATION_NOT_OPERAND, 7);
    f.body[12 + 17] = 0x72; /* box -> ldstr: a TYPE_REF makes no string token */
    expect(ALVK_E_RELOCATION_KIND_MISMATCH, 5);
}

static void parents(void **state)
{
    (void)state;
    f.relocs[1].parent_token = 0x02000001u; /* both */
    expect(ALVK_E_RELOCATION_MALFORMED, 1);
    f.relocs[1].parent_relocation = 0; /* neither */
    expect(ALVK_E_RELOCATION_MALFORMED, 1);
    f.relocs[0].parent_token = 0x02000001u; /* TYPE_SPEC takes no parent */
    expect(ALVK_E_RELOCATION_MALFORMED, 0);
    f.relocs[3].parent_token = 0x23000001u; /* a MemberRef's parent is not an AssemblyRef */
    expect(ALVK_E_RELOCATION_MALFORMED, 3);
    f.relocs[3].parent_token = 0x01000000u; /* nil */
    expect(ALVK_E_RELOCATION_MALFORMED, 3);
    f.relocs[5].parent_token = 0x06000001u; /* nor a TypeRef's scope a MethodDef */
    expect(ALVK_E_RELOCATION_MALFORMED, 5);
    f.relocs[4].parent_relocation = 1; /* a MethodSpec's parent is not a TypeSpec */
    expect(ALVK_E_RELOCATION_MALFORMED, 4);
    f.relocs[3].blob_offset = f.relocs[6].blob_offset; /* nor a field MemberRef */
    f.relocs[3].blob_length = f.relocs[6].blob_length;
    expect(ALVK_E_RELOCATION_MALFORMED, 4);
    f.relocs[6].parent_relocation = 3; /* a MemberRef's parent is not a StandAloneSig */
    expect(ALVK_E_RELOCATION_MALFORMED, 6);
    f.relocs[4].parent_token = 0x0A000001u; /* an existing MemberRef */
    f.relocs[4].parent_relocation = 0;
    expect(ALVK_OK, 0);
}

/* The parent-table rule itself, as emission uses it too. */
static void parent_tables(void **state)
{
    (void)state;
    static const uint32_t member_ref[] = {0x02000001u, 0x01000001u, 0x1A000001u, 0x06000001u,
                                          0x1B000001u};
    static const uint32_t method_spec[] = {0x06000001u, 0x0A000001u};
    static const uint32_t type_ref[] = {0x00000001u, 0x1A000001u, 0x23000001u, 0x01000001u};
    for (size_t i = 0; i < 5; ++i) {
        assert_true(aip_relocation_parent_allowed(ALVK_RELOCATION_MEMBER_REF, member_ref[i]));
        assert_false(aip_relocation_parent_allowed(ALVK_RELOCATION_MEMBER_REF,
                                                   member_ref[i] & 0xFF000000u)); /* nil */
    }
    for (size_t i = 0; i < 2; ++i)
        assert_true(aip_relocation_parent_allowed(ALVK_RELOCATION_METHOD_SPEC, method_spec[i]));
    for (size_t i = 0; i < 4; ++i)
        assert_true(aip_relocation_parent_allowed(ALVK_RELOCATION_TYPE_REF, type_ref[i]));
    assert_false(aip_relocation_parent_allowed(ALVK_RELOCATION_MEMBER_REF, 0x0A000001u));
    assert_false(aip_relocation_parent_allowed(ALVK_RELOCATION_METHOD_SPEC, 0x01000001u));
    assert_false(aip_relocation_parent_allowed(ALVK_RELOCATION_TYPE_REF, 0x02000001u));
    assert_false(aip_relocation_parent_allowed(ALVK_RELOCATION_STANDALONE_SIG, 0x02000001u));
    assert_false(aip_relocation_parent_allowed(ALVK_RELOCATION_TYPE_SPEC, 0x02000001u));
}

static void names_and_blobs(void **state)
{
    (void)state;
    f.relocs[7].name_offset = f.relocs[1].name_offset; /* a TypeSpec has no name */
    f.relocs[7].name_length = 1;
    expect(ALVK_E_RELOCATION_MALFORMED, 7);
    f.relocs[1].name_length = 0; /* a MemberRef needs one */
    expect(ALVK_E_RELOCATION_MALFORMED, 1);
    f.blobs[f.relocs[3].name_offset + 1] = 0; /* "M\0p" */
    expect(ALVK_E_RELOCATION_MALFORMED, 3);
    f.blobs[f.relocs[3].name_offset + 1] = 0xC3; /* "M\xC3p": a cut sequence */
    expect(ALVK_E_RELOCATION_MALFORMED, 3);
    f.relocs[5].blob_offset = 0; /* a TypeRef has no blob */
    f.relocs[5].blob_length = 2;
    expect(ALVK_E_RELOCATION_MALFORMED, 5);
    f.relocs[7].blob_length = 0; /* a TypeSpec needs one */
    expect(ALVK_E_RELOCATION_MALFORMED, 7);
    f.relocs[7].blob_offset = f.g.blobs_size - 1; /* one byte past the pool */
    expect(ALVK_E_RELOCATION_MALFORMED, 7);
    f.relocs[2].blob_offset = f.relocs[0].blob_offset; /* a TypeSpec blob as a calli sig */
    f.relocs[2].blob_length = f.relocs[0].blob_length;
    expect(ALVK_E_SIGNATURE_MALFORMED, 2);
}

static void operands_and_kinds(void **state)
{
    (void)state;
    f.relocs[7].il_offset = 6; /* ldc.i4.1 has no operand */
    expect(ALVK_E_RELOCATION_NOT_OPERAND, 7);
    f.relocs[7].il_offset = FIXTURE_CODE_SIZE;
    expect(ALVK_E_RELOCATION_NOT_OPERAND, 7);
    f.relocs[7].il_offset = FIXTURE_CODE_SIZE + 100;
    expect(ALVK_E_RELOCATION_NOT_OPERAND, 7);
    static const uint8_t locals[] = {0x07, 0x01, 0x08};
    f.relocs[2].blob_offset = fixture_add(&f, locals, sizeof locals); /* locals on calli */
    f.relocs[2].blob_length = sizeof locals;
    expect(ALVK_E_RELOCATION_KIND_MISMATCH, 2);
    f.relocs[2].il_offset = OP_LDTOKEN; /* a StandAloneSig on ldtoken */
    f.relocs[7].il_offset = ALVK_RELOCATION_NO_OPERAND;
    expect(ALVK_E_RELOCATION_KIND_MISMATCH, 2);
    f.relocs[7].il_offset = OP_CALL_SPEC; /* a TypeSpec on call */
    f.relocs[4].il_offset = OP_LDTOKEN;   /* a MethodSpec on ldtoken is fine */
    expect(ALVK_E_RELOCATION_KIND_MISMATCH, 7);
    f.relocs[4].il_offset = OP_LDTOKEN;
    f.relocs[7].il_offset = ALVK_RELOCATION_NO_OPERAND;
    expect(ALVK_OK, 0);
    f.relocs[3].il_offset = OP_LDSFLD; /* a method MemberRef on ldsfld */
    f.relocs[6].il_offset = ALVK_RELOCATION_NO_OPERAND;
    expect(ALVK_E_RELOCATION_KIND_MISMATCH, 3);
    f.map[0].accurate = 2;
    expect(ALVK_E_IL_MAP_INVALID, 0);
}

static int defined_status(alvk_status s, uint32_t index)
{
    switch (s) {
    case ALVK_OK:
    case ALVK_E_METHOD_BODY_MALFORMED:
    case ALVK_E_LIMIT_EXCEEDED:
    case ALVK_E_IL_MALFORMED:
        return index == 0;
    case ALVK_E_RELOCATION_MALFORMED:
    case ALVK_E_RELOCATION_NOT_OPERAND:
    case ALVK_E_RELOCATION_KIND_MISMATCH:
    case ALVK_E_RELOCATION_OVERLAP:
    case ALVK_E_SIGNATURE_MALFORMED:
        return index < FIXTURE_RELOCATIONS;
    case ALVK_E_IL_MAP_INVALID:
        return index < FIXTURE_MAP;
    default:
        return 0;
    }
}

static void every_bit_flipped(void **state)
{
    (void)state;
    uint32_t ok = 0, total = 0;
    for (int pool = 0; pool < 2; ++pool) {
        uint32_t bytes = pool == 0 ? FIXTURE_BODY_SIZE : f.g.blobs_size;
        for (uint32_t bit = 0; bit < bytes * 8; ++bit) {
            fixture_init(&f);
            uint8_t *p = pool == 0 ? f.body : f.blobs;
            p[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            aip_generation_check check;
            alvk_status s = validate(&f, FIXTURE_ORIGINAL_SIZE, &check);
            assert_true(defined_status(s, check.failing_index));
            ok += s == ALVK_OK;
            total++;
        }
    }
    assert_true(ok > 0 && ok < total);
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
        T(shape), T(body_and_code), T(parents), T(parent_tables), T(names_and_blobs), T(operands_and_kinds),
        T(every_bit_flipped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
