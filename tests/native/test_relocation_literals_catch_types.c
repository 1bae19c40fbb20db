/* Literal and catch-type relocations in validation, emission's blob substitution and the
 * stack-type check: USER_STRING relocations on ldstr, CATCH_TYPE relocations on typed catch
 * clauses (small, fat and chained EH sections), and class references (tag 3) inside
 * relocation blobs: every acceptance, every refusal with its status and failing index, and
 * the bytes substitution writes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "generation/generation_stack_check.h"
#include "generation/generation_validate.h"
#include "generation/relocation_blob.h"
#include "il/method_body.h"
#include "metadata/signature_blobs.h"
#include "metadata/signature_references.h"
#include "relocation_append.h"

#define BYTES(...) ((const uint8_t[]){__VA_ARGS__}), (uint32_t)sizeof((const uint8_t[]){__VA_ARGS__})

typedef struct gen {
    uint8_t body[160];
    uint8_t blobs[512];
    alvk_relocation relocs[12];
    alvk_generation g;
} gen;

static void put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int k = 0; k < 4; ++k)
        p[k] = (uint8_t)(v >> (8 * k));
}

/* A fat body around `code` with the given locals token and no EH sections. */
static uint32_t gen_init(gen *x, const uint8_t *code, uint32_t code_size, uint32_t locals)
{
    memset(x, 0, sizeof *x);
    put32(x->body, 0x3003u | (locals ? 0x10u : 0) | (8u << 16));
    put32(x->body + 4, code_size);
    put32(x->body + 8, locals);
    memcpy(x->body + 12, code, code_size);
    x->g.size = sizeof x->g;
    x->g.method_token = 0x06000001u;
    x->g.owner = 1;
    x->g.body = x->body;
    x->g.body_size = 12 + code_size;
    x->g.blobs = x->blobs;
    x->g.relocations = x->relocs;
    return 12 + code_size;
}

static alvk_relocation *gen_reloc(gen *x, alvk_relocation_kind kind, uint32_t il_offset,
                                  const uint8_t *blob, uint32_t blob_length, const char *name)
{
    return relocation_append(&x->g, x->relocs, x->blobs, kind, il_offset, blob, blob_length, name);
}

/* A TypeRef of another assembly, on no operand. */
static alvk_relocation *gen_type_ref(gen *x, const char *name)
{
    alvk_relocation *r = gen_reloc(x, ALVK_RELOCATION_TYPE_REF, ALVK_RELOCATION_NO_OPERAND, NULL,
                                   0, name);
    r->parent_token = 0x23000001u;
    return r;
}

static void expect(const gen *x, alvk_status status, uint32_t failing_index)
{
    aip_generation_check check;
    memset(&check, 0xAB, sizeof check);
    assert_int_equal(aip_generation_validate(&x->g, AIP_ORIGINAL_SIZE_UNKNOWN, &check), status);
    assert_int_equal(check.failing_index, failing_index);
}

/* ---- USER_STRING ----------------------------------------------------------------------- */

/* ldstr <0x70000000>; ldtoken <0x01000000>; pop; pop; ret */
static const uint8_t string_code[] = {0x72, 0, 0, 0, 0x70, 0xD0, 0, 0, 0, 0x01, 0x26, 0x26, 0x2A};
#define LDSTR_OPERAND 1u
#define LDTOKEN_OPERAND 6u

static void user_string_on_ldstr(void **state)
{
    (void)state;
    gen x;
    gen_init(&x, string_code, sizeof string_code, 0);
    gen_type_ref(&x, "Other.Thing");
    gen_reloc(&x, ALVK_RELOCATION_TYPE_REF, LDTOKEN_OPERAND, NULL, 0, "Other.Token")->parent_token =
        0x23000001u;
    gen_reloc(&x, ALVK_RELOCATION_USER_STRING, LDSTR_OPERAND, BYTES('h', 0, 'i', 0), NULL);
    expect(&x, ALVK_OK, 0);
    x.relocs[2].blob_length = 0; /* "" */
    expect(&x, ALVK_OK, 0);
    x.relocs[2].il_offset = ALVK_RELOCATION_NO_OPERAND; /* defined, written nowhere */
    expect(&x, ALVK_OK, 0);
}

static void user_string_refusals(void **state)
{
    (void)state;
    gen x;
    gen_init(&x, string_code, sizeof string_code, 0);
    gen_type_ref(&x, "Other.Thing");
    alvk_relocation *s =
        gen_reloc(&x, ALVK_RELOCATION_USER_STRING, LDSTR_OPERAND, BYTES('h', 0, 'i', 0), NULL);
    s->blob_length = 3; /* half a code unit */
    expect(&x, ALVK_E_RELOCATION_MALFORMED, 1);
    s->blob_length = 1;
    expect(&x, ALVK_E_RELOCATION_MALFORMED, 1);
    s->blob_length = 4;
    s->name_offset = x.relocs[0].name_offset; /* no name */
    s->name_length = 3;
    expect(&x, ALVK_E_RELOCATION_MALFORMED, 1);
    s->name_length = 0;
    s->parent_token = 0x23000001u; /* no parent */
    expect(&x, ALVK_E_RELOCATION_MALFORMED, 1);
    s->parent_token = 0;
    s->parent_relocation = 1;
    expect(&x, ALVK_E_RELOCATION_MALFORMED, 1);
    s->parent_relocation = 0;
    s->blob_offset = x.g.blobs_size - 2; /* past the pool */
    expect(&x, ALVK_E_RELOCATION_MALFORMED, 1);
    s->blob_offset = x.relocs[0].name_offset;
    expect(&x, ALVK_OK, 0);
    s->il_offset = LDTOKEN_OPERAND; /* ldtoken takes no string */
    expect(&x, ALVK_E_RELOCATION_KIND_MISMATCH, 1);
    s->il_offset = LDSTR_OPERAND + 1; /* inside the operand */
    expect(&x, ALVK_E_RELOCATION_NOT_OPERAND, 1);
    s->il_offset = LDSTR_OPERAND;
    x.relocs[0].il_offset = LDSTR_OPERAND; /* a TypeRef on ldstr */
    expect(&x, ALVK_E_RELOCATION_KIND_MISMATCH, 0);
    x.relocs[0].il_offset = ALVK_RELOCATION_NO_OPERAND;
    gen_reloc(&x, ALVK_RELOCATION_USER_STRING, LDSTR_OPERAND, BYTES('a', 0), NULL);
    expect(&x, ALVK_E_RELOCATION_OVERLAP, 2);
    x.relocs[2].il_offset = ALVK_RELOCATION_NO_OPERAND;
    alvk_relocation *m = gen_reloc(&x, ALVK_RELOCATION_MEMBER_REF, ALVK_RELOCATION_NO_OPERAND,
                                   BYTES(0x06, 0x08), "F");
    m->parent_relocation = 2; /* a user string is no member's parent */
    expect(&x, ALVK_E_RELOCATION_MALFORMED, 3);
}

/* The locals token in a fat body is not a user string's either. */
static void user_string_not_locals(void **state)
{
    (void)state;
    gen x;
    gen_init(&x, string_code, sizeof string_code, 0x11000000u);
    gen_reloc(&x, ALVK_RELOCATION_USER_STRING, ALVK_RELOCATION_LOCALS_SIGNATURE, BYTES('a', 0),
              NULL);
    expect(&x, ALVK_E_RELOCATION_KIND_MISMATCH, 0);
}

/* ---- CATCH_TYPE ------------------------------------------------------------------------ */

/* try { ldstr; pop; leave.s end } catch { pop; leave.s end } end: ret */
static const uint8_t catch_code[] = {0x72, 0, 0, 0, 0x70, 0x26, 0xDE, 0x03,
                                     0x26, 0xDE, 0x00, 0x2A};

enum { SMALL = 0, FAT = 1, SMALL_THEN_FAT = 2 };

/* Two clauses over the same try block and handler, flags as given: in one small section, one
 * fat section, or a small section followed by a fat one. class_token[i] receives where
 * clause i's ClassToken is in the body. */
static void gen_catch(gen *x, int layout, uint32_t flags0, uint32_t flags1, uint32_t *class_token)
{
    uint32_t size = gen_init(x, catch_code, sizeof catch_code, 0);
    x->body[0] |= 0x08; /* MoreSects */
    size = (size + 3u) & ~3u;
    uint32_t flags[2] = {flags0, flags1};
    for (uint32_t i = 0; i < 2; ++i) {
        int fat = layout == FAT || (layout == SMALL_THEN_FAT && i == 1);
        int starts = i == 0 || layout == SMALL_THEN_FAT;
        if (starts) {
            uint32_t clauses = layout == SMALL_THEN_FAT ? 1u : 2u;
            uint8_t *h = x->body + size;
            h[0] = (uint8_t)(0x01u | (fat ? 0x40u : 0) | (layout == SMALL_THEN_FAT && i == 0 ? 0x80u : 0));
            uint32_t data = 4u + clauses * (fat ? 24u : 12u);
            h[1] = (uint8_t)data;
            h[2] = (uint8_t)(fat ? data >> 8 : 0);
            h[3] = (uint8_t)(fat ? data >> 16 : 0);
            size += 4;
        }
        uint8_t *c = x->body + size;
        uint32_t filter_or_class = flags[i] == 1u ? 8u : 0x01000000u; /* filter at the handler */
        if (fat) {
            put32(c, flags[i]);
            put32(c + 4, 0);
            put32(c + 8, 8);
            put32(c + 12, 8);
            put32(c + 16, 3);
            put32(c + 20, filter_or_class);
            class_token[i] = size + 20;
            size += 24;
        } else {
            put16(c, flags[i]);
            put16(c + 2, 0);
            c[4] = 8;
            put16(c + 5, 8);
            c[7] = 3;
            put32(c + 8, filter_or_class);
            class_token[i] = size + 8;
            size += 12;
        }
    }
    x->g.body_size = size;
}

static void find_clause(void **state)
{
    (void)state;
    for (int layout = SMALL; layout <= SMALL_THEN_FAT; ++layout) {
        gen x;
        uint32_t at[2];
        gen_catch(&x, layout, 0, 2, at);
        aip_method_body body;
        assert_int_equal(aip_method_body_parse(x.body, x.g.body_size, &body, NULL, 0), ALVK_OK);
        assert_int_equal(body.eh_clause_count, 2);
        for (uint32_t i = 0; i < 2; ++i) {
            aip_eh_clause clause;
            uint32_t offset = 0;
            assert_true(aip_method_body_find_clause(x.body, x.g.body_size, i, &clause, &offset));
            assert_int_equal(offset, at[i]);
            assert_int_equal(clause.flags, i == 0 ? 0u : 2u);
            assert_int_equal(clause.handler_offset, 8);
            assert_int_equal(clause.handler_length, 3);
        }
        aip_eh_clause clause;
        uint32_t offset = 0;
        assert_false(aip_method_body_find_clause(x.body, x.g.body_size, 2, &clause, &offset));
        assert_false(aip_method_body_find_clause(x.body, x.g.body_size, UINT32_MAX, &clause, &offset));
        assert_false(aip_method_body_find_clause(x.body, x.g.body_size - 1, 0, &clause, &offset));
        assert_false(aip_method_body_find_clause(x.body, x.g.body_size, 0, NULL, &offset));
    }
    const uint8_t tiny[] = {0x06, 0x00};
    aip_eh_clause clause;
    uint32_t offset = 0;
    assert_false(aip_method_body_find_clause(tiny, sizeof tiny, 0, &clause, &offset));
}

static void catch_type_accepted(void **state)
{
    (void)state;
    for (int layout = SMALL; layout <= SMALL_THEN_FAT; ++layout) {
        gen x;
        uint32_t at[2];
        gen_catch(&x, layout, 0, 0, at);
        gen_reloc(&x, ALVK_RELOCATION_TYPE_REF, ALVK_RELOCATION_CATCH_TYPE(0), NULL, 0,
                  "Other.Error")
            ->parent_token = 0x23000001u;
        gen_reloc(&x, ALVK_RELOCATION_TYPE_SPEC, ALVK_RELOCATION_CATCH_TYPE(1),
                  BYTES(0x15, 0x12, 0x05, 0x01, 0x08), NULL);
        gen_reloc(&x, ALVK_RELOCATION_USER_STRING, LDSTR_OPERAND, BYTES('x', 0), NULL);
        expect(&x, ALVK_OK, 0);
    }
}

static void catch_type_refusals(void **state)
{
    (void)state;
    gen x;
    uint32_t at[2];
    static const uint32_t not_typed[] = {1u /* filter */, 2u /* finally */, 4u /* fault */};
    for (size_t k = 0; k < 3; ++k) {
        gen_catch(&x, k == 1 ? FAT : SMALL, 0, not_typed[k], at);
        gen_type_ref(&x, "Other.Error")->il_offset = ALVK_RELOCATION_CATCH_TYPE(1);
        expect(&x, ALVK_E_RELOCATION_NOT_OPERAND, 0);
        x.relocs[0].il_offset = ALVK_RELOCATION_CATCH_TYPE(0);
        expect(&x, ALVK_OK, 0);
    }
    gen_catch(&x, SMALL, 0, 0, at);
    alvk_relocation *r = gen_type_ref(&x, "Other.Error");
    r->il_offset = ALVK_RELOCATION_CATCH_TYPE(2); /* no third clause */
    expect(&x, ALVK_E_RELOCATION_NOT_OPERAND, 0);
    r->il_offset = ALVK_RELOCATION_CATCH_TYPE(ALVK_MAX_CATCH_TYPE_CLAUSE - 1u);
    expect(&x, ALVK_E_RELOCATION_NOT_OPERAND, 0);
    for (uint32_t above = ALVK_RELOCATION_CATCH_TYPE(ALVK_MAX_CATCH_TYPE_CLAUSE);
         above < ALVK_RELOCATION_LOCALS_SIGNATURE; ++above) {
        r->il_offset = above; /* neither a clause nor a named operand */
        expect(&x, ALVK_E_RELOCATION_NOT_OPERAND, 0);
    }
    r->il_offset = ALVK_RELOCATION_CATCH_TYPE(0);
    expect(&x, ALVK_OK, 0);
    /* Kinds that make no class token. */
    alvk_relocation *other = gen_reloc(&x, ALVK_RELOCATION_MEMBER_REF,
                                       ALVK_RELOCATION_CATCH_TYPE(1), BYTES(0x06, 0x08), "F");
    other->parent_relocation = 1;
    expect(&x, ALVK_E_RELOCATION_KIND_MISMATCH, 1);
    other->kind = ALVK_RELOCATION_USER_STRING;
    other->parent_relocation = 0;
    other->name_length = 0;
    expect(&x, ALVK_E_RELOCATION_KIND_MISMATCH, 1);
    other->kind = ALVK_RELOCATION_STANDALONE_SIG;
    other->blob_offset = x.g.blobs_size;
    memcpy(x.blobs + x.g.blobs_size, (const uint8_t[]){0x00, 0x00, 0x01}, 3);
    x.g.blobs_size += 3;
    other->blob_length = 3;
    expect(&x, ALVK_E_RELOCATION_KIND_MISMATCH, 1);
    /* Two on one clause. */
    other->kind = ALVK_RELOCATION_TYPE_SPEC;
    other->il_offset = ALVK_RELOCATION_CATCH_TYPE(0);
    other->blob_length = 0;
    memcpy(x.blobs + x.g.blobs_size, (const uint8_t[]){0x1D, 0x08}, 2);
    other->blob_offset = x.g.blobs_size;
    other->blob_length = 2;
    x.g.blobs_size += 2;
    expect(&x, ALVK_E_RELOCATION_OVERLAP, 1);
    other->il_offset = ALVK_RELOCATION_CATCH_TYPE(1);
    expect(&x, ALVK_OK, 0);
    /* A body without clauses has no catch to fill. */
    gen_init(&x, string_code, sizeof string_code, 0);
    gen_type_ref(&x, "Other.Error")->il_offset = ALVK_RELOCATION_CATCH_TYPE(0);
    expect(&x, ALVK_E_RELOCATION_NOT_OPERAND, 0);
}

/* ---- class references (tag 3) ---------------------------------------------------------- */

/* call <R>; ret */
static const uint8_t call_code[] = {0x28, 0, 0, 0, 0x0A, 0x2A};

static void class_references_accepted(void **state)
{
    (void)state;
    gen x;
    gen_init(&x, call_code, sizeof call_code, 0x11000000u);
    gen_type_ref(&x, "Other.Thing");                                       /* row 1 */
    gen_reloc(&x, ALVK_RELOCATION_TYPE_SPEC, ALVK_RELOCATION_NO_OPERAND,   /* List<Thing> */
              BYTES(0x15, 0x12, 0x05, 0x01, 0x12, 0x07), NULL);
    alvk_relocation *m = gen_reloc(&x, ALVK_RELOCATION_MEMBER_REF, ALVK_RELOCATION_NO_OPERAND,
                                   /* generic static Thing M<T>(Thing, modreq(Thing) int32) */
                                   BYTES(0x10, 0x01, 0x02, 0x12, 0x07, 0x11, 0x07, 0x1F, 0x07,
                                         0x08),
                                   "M");
    m->parent_relocation = 1;
    alvk_relocation *spec = gen_reloc(&x, ALVK_RELOCATION_METHOD_SPEC, 1, /* M<Thing> */
                                      BYTES(0x0A, 0x01, 0x12, 0x07), NULL);
    spec->parent_relocation = 3;
    gen_reloc(&x, ALVK_RELOCATION_STANDALONE_SIG, ALVK_RELOCATION_LOCALS_SIGNATURE,
              BYTES(0x07, 0x02, 0x12, 0x07, 0x1D, 0x11, 0x07), NULL); /* Thing, Thing[] */
    gen_reloc(&x, ALVK_RELOCATION_STANDALONE_SIG, ALVK_RELOCATION_NO_OPERAND, /* calli */
              BYTES(0x00, 0x01, 0x01, 0x0F, 0x11, 0x07), NULL);
    expect(&x, ALVK_OK, 0);
    /* A user string's bytes are text, whatever they look like. */
    gen_reloc(&x, ALVK_RELOCATION_USER_STRING, ALVK_RELOCATION_NO_OPERAND, BYTES(0x12, 0x07), NULL);
    expect(&x, ALVK_OK, 0);
}

static void class_reference_refusals(void **state)
{
    (void)state;
    gen x;
    /* Forward: R0's blob names R1. */
    gen_init(&x, call_code, sizeof call_code, 0);
    gen_reloc(&x, ALVK_RELOCATION_TYPE_SPEC, ALVK_RELOCATION_NO_OPERAND, BYTES(0x1D, 0x12, 0x0B),
              NULL);
    gen_type_ref(&x, "Other.Thing");
    expect(&x, ALVK_E_RELOCATION_MALFORMED, 0);
    /* Itself. */
    gen_init(&x, call_code, sizeof call_code, 0);
    gen_type_ref(&x, "Other.Thing");
    gen_reloc(&x, ALVK_RELOCATION_TYPE_SPEC, ALVK_RELOCATION_NO_OPERAND, BYTES(0x1D, 0x12, 0x0B),
              NULL);
    expect(&x, ALVK_E_RELOCATION_MALFORMED, 1);
    /* Not a TYPE_REF: R2 names R1, a TypeSpec (R1 itself is fine). */
    x.blobs[x.relocs[1].blob_offset + 2] = 0x07;
    expect(&x, ALVK_OK, 0);
    gen_reloc(&x, ALVK_RELOCATION_TYPE_SPEC, ALVK_RELOCATION_NO_OPERAND, BYTES(0x1D, 0x12, 0x0B),
              NULL);
    expect(&x, ALVK_E_RELOCATION_MALFORMED, 2);
    /* Row 0, and a row past every relocation. */
    x.blobs[x.relocs[2].blob_offset + 2] = 0x03;
    expect(&x, ALVK_E_RELOCATION_MALFORMED, 2);
    x.blobs[x.relocs[2].blob_offset + 2] = (9u << 2) | 3u;
    expect(&x, ALVK_E_RELOCATION_MALFORMED, 2);
    x.blobs[x.relocs[2].blob_offset + 2] = 0x07;
    expect(&x, ALVK_OK, 0);
    /* A good reference does not make a bad signature good: cut, or trailing bytes. */
    x.relocs[2].blob_length = 2;
    expect(&x, ALVK_E_SIGNATURE_MALFORMED, 2);
    x.relocs[2].blob_length = 3;
    gen_reloc(&x, ALVK_RELOCATION_TYPE_SPEC, ALVK_RELOCATION_NO_OPERAND,
              BYTES(0x15, 0x12, 0x07, 0x00), NULL); /* no generic arguments */
    expect(&x, ALVK_E_SIGNATURE_MALFORMED, 3);
    /* In the member check's and the stack check's blobs too: a MemberRef naming a TypeSpec. */
    gen_init(&x, call_code, sizeof call_code, 0);
    gen_type_ref(&x, "Other.Thing");
    gen_reloc(&x, ALVK_RELOCATION_TYPE_SPEC, ALVK_RELOCATION_NO_OPERAND, BYTES(0x1D, 0x12, 0x07),
              NULL);
    alvk_relocation *m = gen_reloc(&x, ALVK_RELOCATION_MEMBER_REF, 1,
                                   BYTES(0x00, 0x01, 0x01, 0x12, 0x0B), "M");
    m->parent_relocation = 1;
    expect(&x, ALVK_E_RELOCATION_MALFORMED, 2);
    x.blobs[m->blob_offset + 4] = 0x07;
    expect(&x, ALVK_OK, 0);
    /* A local signature naming a later TypeRef. */
    gen_init(&x, call_code, sizeof call_code, 0x11000000u);
    gen_reloc(&x, ALVK_RELOCATION_STANDALONE_SIG, ALVK_RELOCATION_LOCALS_SIGNATURE,
              BYTES(0x07, 0x01, 0x12, 0x0B), NULL);
    gen_type_ref(&x, "Other.Thing");
    expect(&x, ALVK_E_RELOCATION_MALFORMED, 0);
}

/* Module metadata never carries tag 3: the plain readers refuse it. */
static void plain_readers_refuse_tag_3(void **state)
{
    (void)state;
    const uint8_t coded[] = {0x07};
    size_t at = 0;
    uint32_t token = 0, row = 0;
    assert_int_equal(aip_sig_read_type_token(coded, 1, &at, &token), ALVK_E_SIGNATURE_MALFORMED);
    assert_int_equal(at, 0);
    assert_int_equal(aip_sig_read_type_reference(coded, 1, &at, &token, &row), ALVK_OK);
    assert_int_equal(token, 0);
    assert_int_equal(row, 1);
    assert_int_equal(at, 1);
    const uint8_t two_bytes[] = {0x80, (40u << 2) | 3u}; /* row 40, compressed in two bytes */
    at = 0;
    assert_int_equal(aip_sig_read_type_reference(two_bytes, 2, &at, &token, &row), ALVK_OK);
    assert_int_equal(row, 40);
    assert_int_equal(at, 2);
    const uint8_t type_ref[] = {0x05};
    at = 0;
    assert_int_equal(aip_sig_read_type_reference(type_ref, 1, &at, &token, &row), ALVK_OK);
    assert_int_equal(token, 0x01000001u);
    assert_int_equal(row, 0);
    aip_sig_type type;
    assert_int_equal(aip_sig_parse_type_spec((const uint8_t[]){0x12, 0x07}, 2, &type),
                     ALVK_E_SIGNATURE_MALFORMED);
    uint8_t method_sig = 0;
    assert_int_equal(aip_sig_parse_relocation_blob(ALVK_RELOCATION_TYPE_SPEC,
                                                   (const uint8_t[]){0x12, 0x07}, 2, NULL,
                                                   &method_sig),
                     ALVK_E_SIGNATURE_MALFORMED);
}

/* ---- substitution ---------------------------------------------------------------------- */

static void substituted(const gen *x, uint32_t index, const alvk_relocation_result *results,
                        const uint8_t *expected, size_t expected_length)
{
    uint8_t out[64];
    size_t length = 0;
    memset(out, 0xEE, sizeof out);
    assert_int_equal(aip_relocation_blob_resolve(&x->g, index, results, out, sizeof out, &length),
                     ALVK_OK);
    assert_int_equal(length, expected_length);
    assert_memory_equal(out, expected, expected_length);
    assert_true(length <= AIP_SIG_SUBSTITUTED_MAX(x->relocs[index].blob_length));
}

static void substitution(void **state)
{
    (void)state;
    gen x;
    gen_init(&x, call_code, sizeof call_code, 0);
    gen_type_ref(&x, "Other.Thing");
    gen_reloc(&x, ALVK_RELOCATION_TYPE_SPEC, ALVK_RELOCATION_NO_OPERAND,
              BYTES(0x15, 0x12, 0x07, 0x02, 0x11, 0x07, 0x08), NULL); /* G<Thing, int32> */
    gen_reloc(&x, ALVK_RELOCATION_USER_STRING, ALVK_RELOCATION_NO_OPERAND, BYTES(0x12, 0x07),
              NULL);
    alvk_relocation_result results[3];
    memset(results, 0, sizeof results);
    results[0].token = 0x01000012u; /* coded 0x49: one byte, as before */
    substituted(&x, 1, results, BYTES(0x15, 0x12, 0x49, 0x02, 0x11, 0x49, 0x08));
    results[0].token = 0x01000123u; /* coded 0x48D: two bytes */
    substituted(&x, 1, results, BYTES(0x15, 0x12, 0x84, 0x8D, 0x02, 0x11, 0x84, 0x8D, 0x08));
    results[0].token = 0x01004000u; /* coded 0x10001: four bytes */
    substituted(&x, 1, results,
                BYTES(0x15, 0x12, 0xC0, 0x01, 0x00, 0x01, 0x02, 0x11, 0xC0, 0x01, 0x00, 0x01, 0x08));
    /* Stand-ins before emission: a TypeRef no module reaches, mapped back to its row. */
    uint32_t stand_in = aip_relocation_stand_in(1), row = 0;
    assert_int_equal(stand_in, 0x01FFF000u);
    assert_true(aip_relocation_stand_in_row(stand_in, &row));
    assert_int_equal(row, 1);
    assert_true(aip_relocation_stand_in_row(aip_relocation_stand_in(ALVK_MAX_RELOCATIONS), &row));
    assert_int_equal(row, ALVK_MAX_RELOCATIONS);
    assert_false(aip_relocation_stand_in_row(0x01FFEFFFu, &row));
    assert_false(aip_relocation_stand_in_row(0x02FFF000u, &row));
    substituted(&x, 1, NULL,
                BYTES(0x15, 0x12, 0xC3, 0xFF, 0xC0, 0x01, 0x02, 0x11, 0xC3, 0xFF, 0xC0, 0x01, 0x08));
    /* The result parses as the kind says, without references. */
    uint8_t out[64];
    size_t length = 0;
    assert_int_equal(aip_relocation_blob_resolve(&x.g, 1, results, out, sizeof out, &length),
                     ALVK_OK);
    aip_sig_type type;
    assert_int_equal(aip_sig_parse_type_spec(out, length, &type), ALVK_OK);
    /* A user string and a TypeRef are copied as they are. */
    substituted(&x, 2, results, BYTES(0x12, 0x07));
    substituted(&x, 0, results, NULL, 0);
    /* Too little room; a token no coded index can hold; a row the rule refuses. */
    assert_int_equal(aip_relocation_blob_resolve(&x.g, 1, results, out, 8, &length),
                     ALVK_E_BUFFER_TOO_SMALL);
    assert_int_equal(aip_relocation_blob_resolve(&x.g, 1, results, out, 1, &length),
                     ALVK_E_BUFFER_TOO_SMALL);
    assert_int_equal(aip_relocation_blob_resolve(&x.g, 2, results, out, 1, &length),
                     ALVK_E_BUFFER_TOO_SMALL);
    results[0].token = 0x0A000001u;
    assert_int_equal(aip_relocation_blob_resolve(&x.g, 1, results, out, sizeof out, &length),
                     ALVK_E_RELOCATION_MALFORMED);
    x.relocs[0].kind = ALVK_RELOCATION_TYPE_SPEC;
    assert_int_equal(aip_relocation_blob_resolve(&x.g, 1, NULL, out, sizeof out, &length),
                     ALVK_E_RELOCATION_MALFORMED);
    assert_int_equal(aip_relocation_blob_resolve(&x.g, 3, NULL, out, sizeof out, &length),
                     ALVK_E_NULL_ARGUMENT);
}

static alvk_status row_times_two(void *context, uint32_t row, uint32_t *token)
{
    (*(uint32_t *)context)++;
    *token = 0x1B000000u | (row * 2u); /* a TypeSpec */
    return ALVK_OK;
}

/* The substitution itself, on a two-byte reference and inside a nested function pointer. */
static void substitute_rows(void **state)
{
    (void)state;
    /* FIELD  FNPTR default(1 param) returns CLASS row 40, param VALUETYPE row 2 */
    const uint8_t blob[] = {0x06, 0x1B, 0x00, 0x01, 0x12, 0x80, (40u << 2) | 3u, 0x11, 0x0B};
    uint8_t out[AIP_SIG_SUBSTITUTED_MAX(sizeof blob)];
    size_t length = 0;
    uint32_t calls = 0, references = 0;
    assert_int_equal(aip_sig_substitute(ALVK_RELOCATION_MEMBER_REF, blob, sizeof blob,
                                        row_times_two, &calls, out, sizeof out, &length,
                                        &references),
                     ALVK_OK);
    const uint8_t expected[] = {0x06, 0x1B, 0x00, 0x01, 0x12, 0x81, 0x42, 0x11, 0x12};
    assert_int_equal(length, sizeof expected);
    assert_memory_equal(out, expected, sizeof expected);
    assert_int_equal(references, 2);
    assert_int_equal(calls, 2);
    assert_int_equal(aip_sig_substitute(ALVK_RELOCATION_TYPE_REF, blob, sizeof blob, row_times_two,
                                        &calls, out, sizeof out, &length, &references),
                     ALVK_E_SIGNATURE_MALFORMED);
    assert_int_equal(aip_sig_substitute(ALVK_RELOCATION_MEMBER_REF, blob, sizeof blob - 1,
                                        row_times_two, &calls, out, sizeof out, &length,
                                        &references),
                     ALVK_E_SIGNATURE_MALFORMED);
}

/* ---- the stack-type check sees the substituted blobs -------------------------------------- */

static alvk_status stack_check(const gen *x, const uint8_t *sig, uint32_t sig_length,
                               aip_stack_result *out)
{
    aip_generation_check check;
    assert_int_equal(aip_generation_validate(&x->g, AIP_ORIGINAL_SIZE_UNKNOWN, &check), ALVK_OK);
    aip_stack_target target = {sig, sig_length, 0};
    return aip_generation_check_stack_types(&x->g, &target, NULL, out);
}

static void stack_check_reads_references(void **state)
{
    (void)state;
    static const uint8_t returns_int32[] = {0x00, 0x00, 0x08};
    static const uint8_t returns_object[] = {0x00, 0x00, 0x1C};
    gen x;
    aip_stack_result r;
    /* call Thing Make(): the MemberRef's return type is a class reference. */
    gen_init(&x, call_code, sizeof call_code, 0);
    gen_type_ref(&x, "Other.Thing");
    gen_reloc(&x, ALVK_RELOCATION_MEMBER_REF, 1, BYTES(0x00, 0x00, 0x12, 0x07), "Make")
        ->parent_relocation = 1;
    assert_int_equal(stack_check(&x, returns_object, sizeof returns_object, &r), ALVK_OK);
    assert_int_equal(r.complete, 1);
    assert_int_equal(stack_check(&x, returns_int32, sizeof returns_int32, &r),
                     ALVK_E_STACK_TYPE_MISMATCH);
    assert_int_equal(r.found, ALVK_STACK_OBJECT);
    /* VALUETYPE of a relocated System.Int64: the stand-in is answered by the TypeRef's name. */
    gen_init(&x, call_code, sizeof call_code, 0);
    gen_type_ref(&x, "System.Int64");
    gen_reloc(&x, ALVK_RELOCATION_MEMBER_REF, 1, BYTES(0x00, 0x00, 0x11, 0x07), "Make")
        ->parent_relocation = 1;
    assert_int_equal(stack_check(&x, returns_int32, sizeof returns_int32, &r),
                     ALVK_E_STACK_TYPE_MISMATCH);
    assert_int_equal(r.found, ALVK_STACK_INT64);
    assert_int_equal(stack_check(&x, BYTES(0x00, 0x00, 0x0A), &r), ALVK_OK);
}

static void stack_check_user_string(void **state)
{
    (void)state;
    const uint8_t code[] = {0x72, 0, 0, 0, 0x70, 0x2A}; /* ldstr; ret */
    gen x;
    aip_stack_result r;
    gen_init(&x, code, sizeof code, 0);
    gen_reloc(&x, ALVK_RELOCATION_USER_STRING, LDSTR_OPERAND, BYTES('n', 0, 'e', 0, 'w', 0), NULL);
    assert_int_equal(stack_check(&x, BYTES(0x00, 0x00, 0x0E), &r), ALVK_OK); /* string */
    assert_int_equal(r.complete, 1);
    assert_int_equal(stack_check(&x, BYTES(0x00, 0x00, 0x08), &r), ALVK_E_STACK_TYPE_MISMATCH);
    assert_int_equal(r.found, ALVK_STACK_OBJECT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(user_string_on_ldstr),
        cmocka_unit_test(user_string_refusals),
        cmocka_unit_test(user_string_not_locals),
        cmocka_unit_test(find_clause),
        cmocka_unit_test(catch_type_accepted),
        cmocka_unit_test(catch_type_refusals),
        cmocka_unit_test(class_references_accepted),
        cmocka_unit_test(class_reference_refusals),
        cmocka_unit_test(plain_readers_refuse_tag_3),
        cmocka_unit_test(substitution),
        cmocka_unit_test(substitute_rows),
        cmocka_unit_test(stack_check_reads_references),
        cmocka_unit_test(stack_check_user_string),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
