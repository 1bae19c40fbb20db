/* Relocations that fill more than one operand (alvk_relocation's sites): a shared TYPE_REF is
 * valid, and each way a site can be wrong is refused with its status at its relocation; the
 * bounds (ALVK_MAX_RELOCATIONS relocations, ALVK_MAX_RELOCATION_SITES sites); the sorted
 * operand map; and ABI 3.8 relocation arrays widened into today's layout. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "generation/relocation_sites.h"
#include "generation/relocation_widen.h"
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

/* Relocation `index` also fills the sites given, appended to the pool. */
static void sites_of(uint32_t index, uint32_t count, const uint32_t *operands)
{
    alvk_relocation *r = &f.relocs[index];
    r->sites_offset = f.g.blobs_size;
    r->site_count = count;
    for (uint32_t j = 0; j < count; ++j) {
        uint8_t le[4];
        fixture_put32(le, operands[j]);
        fixture_add(&f, le, sizeof le);
    }
}

/* R5 (TYPE_REF Vector2, on the box) also fills the sites given. */
static void sites(uint32_t count, const uint32_t *operands)
{
    sites_of(5, count, operands);
}

/* The box's TypeRef also fills the ldtoken operand (InlineTok takes a TYPE_REF), whose own
 * relocation then fills nothing. */
static void shared_type_ref_fills_two_operands(void **state)
{
    (void)state;
    f.relocs[7].il_offset = ALVK_RELOCATION_NO_OPERAND;
    sites(1, (const uint32_t[]){OP_LDTOKEN});
    aip_generation_check check;
    assert_int_equal(validate(&f, FIXTURE_ORIGINAL_SIZE, &check), ALVK_OK);

    aip_site_map map;
    aip_site_map_build(&f.g, &map);
    assert_true(map.complete);
    assert_int_equal(map.count, 6); /* five il_offsets and the site */
    assert_int_equal(aip_site_map_find(&map, &f.g, OP_BOX), 5);
    assert_int_equal(aip_site_map_find(&map, &f.g, OP_LDTOKEN), 5);
    assert_int_equal(aip_site_map_find(&map, &f.g, OP_CALL), 1);
    assert_int_equal(aip_site_map_find(&map, &f.g, OP_CALL + 1), UINT32_MAX);
    assert_int_equal(aip_site_map_find(&map, &f.g, ALVK_RELOCATION_NO_OPERAND), UINT32_MAX);
    aip_site_map_free(&map);
}

static void site_on_an_operand_another_relocation_fills(void **state)
{
    (void)state;
    sites(1, (const uint32_t[]){OP_LDTOKEN});
    refused(ALVK_E_RELOCATION_OVERLAP, 7); /* reported at the later relocation */
}

static void site_on_its_own_operand(void **state)
{
    (void)state;
    sites(1, (const uint32_t[]){OP_BOX});
    refused(ALVK_E_RELOCATION_OVERLAP, 5);
}

static void the_same_site_twice(void **state)
{
    (void)state;
    f.relocs[7].il_offset = ALVK_RELOCATION_NO_OPERAND;
    sites(2, (const uint32_t[]){OP_LDTOKEN, OP_LDTOKEN});
    refused(ALVK_E_RELOCATION_OVERLAP, 5);
}

static void site_on_an_earlier_relocations_operand(void **state)
{
    (void)state;
    sites_of(7, 1, (const uint32_t[]){OP_BOX}); /* R7's TypeSpec on R5's box */
    refused(ALVK_E_RELOCATION_OVERLAP, 7);
}

static void site_of_the_wrong_kind(void **state)
{
    (void)state;
    /* OP_CALL_SPEC is R4's; a TYPE_REF on a call is the wrong kind before it is an overlap. */
    sites(1, (const uint32_t[]){OP_CALL_SPEC});
    refused(ALVK_E_RELOCATION_KIND_MISMATCH, 5);
}

static void site_that_is_not_a_token_operand(void **state)
{
    (void)state;
    sites(1, (const uint32_t[]){OP_BOX - 1}); /* the box opcode */
    refused(ALVK_E_RELOCATION_NOT_OPERAND, 5);
    setup(NULL);
    sites(1, (const uint32_t[]){OP_BOX + 1}); /* inside the operand */
    refused(ALVK_E_RELOCATION_NOT_OPERAND, 5);
    setup(NULL);
    sites(1, (const uint32_t[]){FIXTURE_CODE_SIZE + 4}); /* past the code */
    refused(ALVK_E_RELOCATION_NOT_OPERAND, 5);
    setup(NULL);
    sites(1, (const uint32_t[]){ALVK_RELOCATION_NO_OPERAND});
    refused(ALVK_E_RELOCATION_NOT_OPERAND, 5);
    setup(NULL);
    sites(1, (const uint32_t[]){ALVK_RELOCATION_LOCALS_SIGNATURE});
    refused(ALVK_E_RELOCATION_NOT_OPERAND, 5);
    setup(NULL);
    sites(1, (const uint32_t[]){ALVK_RELOCATION_CATCH_TYPE(0)}); /* a finally: no class */
    refused(ALVK_E_RELOCATION_NOT_OPERAND, 5);
}

static void sites_outside_the_pool(void **state)
{
    (void)state;
    f.relocs[7].il_offset = ALVK_RELOCATION_NO_OPERAND;
    sites(1, (const uint32_t[]){OP_LDTOKEN});
    f.relocs[5].sites_offset = f.g.blobs_size - 3; /* the last site cut by the pool's end */
    refused(ALVK_E_RELOCATION_MALFORMED, 5);
    f.relocs[5].sites_offset = UINT32_MAX - 1; /* wraps in 32 bits */
    refused(ALVK_E_RELOCATION_MALFORMED, 5);
}

static void too_many_sites(void **state)
{
    (void)state;
    f.relocs[5].site_count = ALVK_MAX_RELOCATION_SITES + 1; /* bound checked before the pool */
    refused(ALVK_E_LIMIT_EXCEEDED, 0);
    setup(NULL);
    f.relocs[5].site_count = UINT32_MAX; /* summed without wrapping */
    f.relocs[6].site_count = 2;
    refused(ALVK_E_LIMIT_EXCEEDED, 0);
}

/* `count` relocations, each a distinct one-unit user string on its own ldstr (ldstr; pop). */
typedef struct many_strings {
    uint8_t *body;
    uint8_t *pool;
    alvk_relocation *relocs;
    alvk_generation g;
} many_strings;

static void many_strings_init(many_strings *m, uint32_t count)
{
    uint32_t code_size = count * 6u + 1u;
    m->body = malloc(12u + code_size);
    m->pool = malloc((size_t)count * 2u);
    m->relocs = calloc(count, sizeof *m->relocs);
    assert_non_null(m->body);
    assert_non_null(m->pool);
    assert_non_null(m->relocs);
    fixture_put32(m->body, 0x3003u | (8u << 16)); /* fat, no locals, max stack 8 */
    fixture_put32(m->body + 4, code_size);
    fixture_put32(m->body + 8, 0);
    for (uint32_t i = 0; i < count; ++i) {
        uint8_t *insn = m->body + 12 + i * 6u;
        insn[0] = 0x72; /* ldstr */
        fixture_put32(insn + 1, 0x70000000u);
        insn[5] = 0x26; /* pop */
        m->pool[2 * i] = (uint8_t)i;
        m->pool[2 * i + 1] = (uint8_t)(i >> 8);
        alvk_relocation *r = &m->relocs[i];
        r->size = sizeof *r;
        r->kind = ALVK_RELOCATION_USER_STRING;
        r->il_offset = i * 6u + 1u;
        r->blob_offset = 2 * i;
        r->blob_length = 2;
    }
    m->body[12 + code_size - 1] = 0x2A; /* ret */
    memset(&m->g, 0, sizeof m->g);
    m->g.size = sizeof m->g;
    m->g.owner = 1;
    m->g.body = m->body;
    m->g.body_size = 12u + code_size;
    m->g.blobs = m->pool;
    m->g.blobs_size = count * 2u;
    m->g.relocations = m->relocs;
    m->g.relocation_count = count;
}

static void many_strings_free(many_strings *m)
{
    free(m->body);
    free(m->pool);
    free(m->relocs);
}

static void as_many_relocations_as_the_bound(void **state)
{
    (void)state;
    many_strings m;
    many_strings_init(&m, ALVK_MAX_RELOCATIONS);
    aip_generation_check check;
    assert_int_equal(aip_generation_validate(&m.g, AIP_ORIGINAL_SIZE_UNKNOWN, &check), ALVK_OK);
    aip_site_map map;
    aip_site_map_build(&m.g, &map);
    assert_int_equal(map.count, ALVK_MAX_RELOCATIONS);
    for (uint32_t i = 0; i < ALVK_MAX_RELOCATIONS; i += 97)
        assert_int_equal(aip_site_map_find(&map, &m.g, i * 6u + 1u), i);
    aip_site_map_free(&map);
    many_strings_free(&m);

    many_strings_init(&m, ALVK_MAX_RELOCATIONS + 1);
    assert_int_equal(aip_generation_validate(&m.g, AIP_ORIGINAL_SIZE_UNKNOWN, &check),
                     ALVK_E_LIMIT_EXCEEDED);
    many_strings_free(&m);
}

/* The fixture's relocations packed as an ABI 3.8 caller lays them out (36 bytes each). */
static unsigned char *packed_3_8(void)
{
    unsigned char *old = malloc(FIXTURE_RELOCATIONS * AIP_RELOCATION_SIZE_3_8);
    assert_non_null(old);
    for (uint32_t i = 0; i < FIXTURE_RELOCATIONS; ++i) {
        alvk_relocation r = f.relocs[i];
        r.size = AIP_RELOCATION_SIZE_3_8;
        memcpy(old + i * AIP_RELOCATION_SIZE_3_8, &r, AIP_RELOCATION_SIZE_3_8);
    }
    return old;
}

static void narrow_relocations_are_widened(void **state)
{
    (void)state;
    assert_int_equal(AIP_RELOCATION_SIZE_3_8, 36);
    unsigned char *old = packed_3_8();
    alvk_generation g = f.g;
    g.relocations = (const alvk_relocation *)(void *)old;
    alvk_relocation *wide = NULL;
    assert_int_equal(aip_relocations_widen(&g, &wide), ALVK_OK);
    assert_non_null(wide);
    assert_ptr_equal(g.relocations, wide);
    for (uint32_t i = 0; i < FIXTURE_RELOCATIONS; ++i) {
        assert_int_equal(wide[i].size, sizeof(alvk_relocation));
        assert_int_equal(wide[i].il_offset, f.relocs[i].il_offset);
        assert_int_equal(wide[i].blob_length, f.relocs[i].blob_length);
        assert_int_equal(wide[i].site_count, 0);
    }
    aip_generation_check check;
    assert_int_equal(aip_generation_validate(&g, FIXTURE_ORIGINAL_SIZE, &check), ALVK_OK);
    free(wide);

    /* One element of another size than the first: that one is refused. */
    uint32_t odd = AIP_RELOCATION_SIZE_3_8 + 4;
    memcpy(old + 3 * AIP_RELOCATION_SIZE_3_8, &odd, sizeof odd);
    g = f.g;
    g.relocations = (const alvk_relocation *)(void *)old;
    assert_int_equal(aip_relocations_widen(&g, &wide), ALVK_OK);
    assert_int_equal(aip_generation_validate(&g, FIXTURE_ORIGINAL_SIZE, &check),
                     ALVK_E_RELOCATION_MALFORMED);
    assert_int_equal(check.failing_index, 3);
    free(wide);
    free(old);

    /* Today's layout, none, and an array past the bound are left for validation. */
    g = f.g;
    assert_int_equal(aip_relocations_widen(&g, &wide), ALVK_OK);
    assert_null(wide);
    assert_ptr_equal(g.relocations, f.relocs);
    g.relocation_count = 0;
    assert_int_equal(aip_relocations_widen(&g, &wide), ALVK_OK);
    assert_null(wide);
    g = f.g;
    g.relocation_count = ALVK_MAX_RELOCATIONS + 1;
    assert_int_equal(aip_relocations_widen(&g, &wide), ALVK_OK);
    assert_null(wide);
}

/* Through the exported entry point, as a caller built against ABI 3.8 calls it. */
static void narrow_layout_caller_validates(void **state)
{
    (void)state;
    unsigned char *old = packed_3_8();
    alvk_generation g = f.g;
    g.relocations = (const alvk_relocation *)(void *)old;
    uint32_t failing = 99;
    assert_int_equal(alvk_generation_validate(&g, &failing), ALVK_OK);
    assert_int_equal(failing, 0);
    /* R5 on the ldtoken too: the overlap is found in the widened copy. */
    alvk_relocation r5 = f.relocs[5];
    r5.size = AIP_RELOCATION_SIZE_3_8;
    r5.il_offset = OP_LDTOKEN;
    memcpy(old + 5 * AIP_RELOCATION_SIZE_3_8, &r5, AIP_RELOCATION_SIZE_3_8);
    assert_int_equal(alvk_generation_validate(&g, &failing), ALVK_E_RELOCATION_OVERLAP);
    assert_int_equal(failing, 7);
    free(old);
}

#define T(name) cmocka_unit_test_setup(name, setup)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(shared_type_ref_fills_two_operands),
        T(site_on_an_operand_another_relocation_fills),
        T(site_on_its_own_operand),
        T(the_same_site_twice),
        T(site_on_an_earlier_relocations_operand),
        T(site_of_the_wrong_kind),
        T(site_that_is_not_a_token_operand),
        T(sites_outside_the_pool),
        T(too_many_sites),
        T(as_many_relocations_as_the_bound),
        T(narrow_relocations_are_widened),
        T(narrow_layout_caller_validates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
