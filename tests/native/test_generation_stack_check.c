/* A generation's stack-type check: relocated operands answered from the generation's own
 * blobs, names and parents; other tokens from the module oracle; the exact-dispatch
 * generation; EH sections and locals from the body. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "generation/generation_stack_check.h"
#include "generation/generation_validate.h"
#include "il/dispatch.h"
#include "stack_types_fixture.h"

typedef struct gen {
    uint8_t body[256];
    uint8_t blobs[256];
    alvk_relocation relocs[8];
    alvk_generation g;
} gen;

static void put32(uint8_t *p, uint32_t v)
{
    for (int k = 0; k < 4; ++k)
        p[k] = (uint8_t)(v >> (8 * k));
}

/* A fat-header body around `code`, optionally with one small EH clause after it. */
static void gen_init(gen *x, const uint8_t *code, uint32_t code_size, uint32_t locals,
                     const aip_eh_clause *clause)
{
    memset(x, 0, sizeof *x);
    put32(x->body, 0x3003u | (clause ? 0x8u : 0) | (locals ? 0x10u : 0) | (8u << 16));
    put32(x->body + 4, code_size);
    put32(x->body + 8, locals);
    memcpy(x->body + 12, code, code_size);
    uint32_t size = 12 + code_size;
    if (clause != NULL) {
        size = (size + 3u) & ~3u;
        x->body[size] = 0x01;
        x->body[size + 1] = 16;
        uint8_t *c = x->body + size + 4;
        c[0] = (uint8_t)clause->flags;
        c[2] = (uint8_t)clause->try_offset;
        c[4] = (uint8_t)clause->try_length;
        c[5] = (uint8_t)clause->handler_offset;
        c[7] = (uint8_t)clause->handler_length;
        put32(c + 8, clause->class_token_or_filter_offset);
        size += 16;
    }
    x->g.size = sizeof x->g;
    x->g.method_token = 0x06000001u;
    x->g.owner = 1;
    x->g.body = x->body;
    x->g.body_size = size;
    x->g.blobs = x->blobs;
    x->g.relocations = x->relocs;
}

static uint32_t gen_reloc(gen *x, alvk_relocation_kind kind, uint32_t il_offset,
                          const uint8_t *blob, uint32_t blob_length, const char *name)
{
    alvk_relocation *r = &x->relocs[x->g.relocation_count++];
    memset(r, 0, sizeof *r);
    r->size = sizeof *r;
    r->kind = kind;
    r->il_offset = il_offset;
    if (name != NULL) {
        r->name_offset = x->g.blobs_size;
        r->name_length = (uint32_t)strlen(name);
        memcpy(x->blobs + x->g.blobs_size, name, r->name_length);
        x->g.blobs_size += r->name_length;
    }
    if (blob_length) {
        r->blob_offset = x->g.blobs_size;
        r->blob_length = blob_length;
        memcpy(x->blobs + x->g.blobs_size, blob, blob_length);
        x->g.blobs_size += blob_length;
    }
    return x->g.relocation_count; /* 1-based */
}

static alvk_status run(gen *x, const uint8_t *sig, uint32_t sig_length, test_oracle *module,
                       aip_stack_result *out)
{
    aip_generation_check check;
    assert_int_equal(aip_generation_validate(&x->g, AIP_ORIGINAL_SIZE_UNKNOWN, &check), ALVK_OK);
    aip_stack_target target = {sig, sig_length, 0};
    aip_stack_oracle oracle = {module, test_member, test_type};
    return aip_generation_check_stack_types(&x->g, &target, module ? &oracle : NULL, out);
}

static void expect_gen(gen *x, const uint8_t *sig, uint32_t sig_length, test_oracle *module,
                       alvk_status status, uint32_t offset, alvk_stack_type found,
                       alvk_stack_type expected)
{
    aip_stack_result r;
    assert_int_equal(run(x, sig, sig_length, module, &r), status);
    if (status == ALVK_E_STACK_TYPE_MISMATCH) {
        assert_int_equal(r.offset, offset);
        assert_int_equal(r.found, found);
        assert_int_equal(r.expected, expected);
    }
}

/* The exact-dispatch generation the worker builds for an install. */
static void exact_dispatch_generation(void **state)
{
    (void)state;
    const uint8_t target_sig[] = {0x20, 0x02, 0x0E, 0x08, 0x11, 0x08}; /* string(int32, Point) */
    aip_method_sig parsed;
    assert_int_equal(aip_sig_parse_method(target_sig, sizeof target_sig, 0, &parsed), ALVK_OK);
    aip_dispatch_target dt = {target_sig, sizeof target_sig, &parsed, AIP_RECEIVER_CLASS, T_WIDGET};
    uint8_t calli[64], body[128];
    size_t calli_length, body_length;
    uint32_t token_offset;
    assert_int_equal(aip_dispatch_build_calli_signature(&dt, calli, sizeof calli, &calli_length), ALVK_OK);
    assert_int_equal(aip_dispatch_emit_body(&dt, 0x1234, 0x11000001u, body, sizeof body,
                                            &body_length, &token_offset), ALVK_OK);
    alvk_relocation r = {.size = sizeof r,
                         .kind = ALVK_RELOCATION_STANDALONE_SIG,
                         .il_offset = token_offset - 12u,
                         .blob_length = (uint32_t)calli_length};
    alvk_generation g;
    memset(&g, 0, sizeof g);
    g.size = sizeof g;
    g.owner = 1;
    g.body = body;
    g.body_size = (uint32_t)body_length;
    g.blobs = calli;
    g.blobs_size = (uint32_t)calli_length;
    g.relocations = &r;
    g.relocation_count = 1;
    aip_stack_target target = {target_sig, sizeof target_sig, 0};
    aip_stack_result out;
    test_oracle o;
    oracle_init(&o);
    aip_stack_oracle module = {&o, test_member, test_type};
    assert_int_equal(aip_generation_check_stack_types(&g, &target, &module, &out), ALVK_OK);
    assert_int_equal(out.complete, 1);
    /* Without a module oracle the struct parameter is opaque, and still passes. */
    assert_int_equal(aip_generation_check_stack_types(&g, &target, NULL, &out), ALVK_OK);
    assert_int_equal(out.complete, 1);
}

/* The defect through relocations: a calli returning int32 where the target returns string. */
static void relocated_calli_result(void **state)
{
    (void)state;
    gen x;
    const uint8_t code[] = {0x02, 0x21, 1, 0, 0, 0, 0, 0, 0, 0, 0xD3, 0x29, TOK(0x11000000u), 0x2A};
    gen_init(&x, code, sizeof code, 0, NULL);
    gen_reloc(&x, ALVK_RELOCATION_STANDALONE_SIG, 12, BLOB(0x01, 0x01, 0x08, 0x08), NULL);
    expect_gen(&x, SIG_STRING_INT, NULL, ALVK_E_STACK_TYPE_MISMATCH, 16, ALVK_STACK_INT32,
               ALVK_STACK_OBJECT);
    expect_gen(&x, SIG_INT_INT, NULL, ALVK_OK, 0, 0, 0);
}

/* MemberRefs on a TypeSpec parent relocation: VAR 0 comes from the parent's blob. */
static void member_ref_on_relocated_type_spec(void **state)
{
    (void)state;
    gen x;
    const uint8_t code[] = {0x02, 0x73, TOK(0x0A000000u), 0x7B, TOK(0x0A000000u), 0x2A};
    gen_init(&x, code, sizeof code, 0, NULL);
    uint32_t box = gen_reloc(&x, ALVK_RELOCATION_TYPE_SPEC, ALVK_RELOCATION_NO_OPERAND,
                             BLOB(0x15, 0x12, 0x08, 0x01, 0x08), NULL);
    x.relocs[gen_reloc(&x, ALVK_RELOCATION_MEMBER_REF, 2, BLOB(0x20, 0x01, 0x01, 0x13, 0x00),
                       ".ctor") - 1].parent_relocation = box;
    x.relocs[gen_reloc(&x, ALVK_RELOCATION_MEMBER_REF, 7, BLOB(0x06, 0x13, 0x00), "Value") - 1]
        .parent_relocation = box;
    expect_gen(&x, SIG_INT_INT, NULL, ALVK_OK, 0, 0, 0);
    expect_gen(&x, SIG_STRING_INT, NULL, ALVK_E_STACK_TYPE_MISMATCH, 11, ALVK_STACK_INT32,
               ALVK_STACK_OBJECT);
    /* The constructor of GenBox<int> given an object reference. */
    gen y;
    const uint8_t wrong[] = {0x14, 0x73, TOK(0x0A000000u), 0x26, 0x16, 0x2A};
    gen_init(&y, wrong, sizeof wrong, 0, NULL);
    box = gen_reloc(&y, ALVK_RELOCATION_TYPE_SPEC, ALVK_RELOCATION_NO_OPERAND,
                    BLOB(0x15, 0x12, 0x08, 0x01, 0x08), NULL);
    y.relocs[gen_reloc(&y, ALVK_RELOCATION_MEMBER_REF, 2, BLOB(0x20, 0x01, 0x01, 0x13, 0x00),
                       ".ctor") - 1].parent_relocation = box;
    expect_gen(&y, SIG_INT_INT, NULL, ALVK_E_STACK_TYPE_MISMATCH, 1, ALVK_STACK_OBJECT,
               ALVK_STACK_INT32);
}

/* MethodSpecs: on a MemberRef relocation (MVAR from the instantiation, VAR from the
 * MemberRef's TypeSpec parent), and on a MethodDef the module oracle describes. */
static void method_specs(void **state)
{
    (void)state;
    gen x;
    /* ldarg.0; newobj GenBox<int>(!0); ldnull; callvirt Map<string>; ret */
    const uint8_t code[] = {0x02, 0x73, TOK(0x0A000000u), 0x14, 0x6F, TOK(0x2B000000u), 0x2A};
    gen_init(&x, code, sizeof code, 0, NULL);
    uint32_t box = gen_reloc(&x, ALVK_RELOCATION_TYPE_SPEC, ALVK_RELOCATION_NO_OPERAND,
                             BLOB(0x15, 0x12, 0x08, 0x01, 0x08), NULL);
    x.relocs[gen_reloc(&x, ALVK_RELOCATION_MEMBER_REF, 2, BLOB(0x20, 0x01, 0x01, 0x13, 0x00),
                       ".ctor") - 1].parent_relocation = box;
    uint32_t map = gen_reloc(&x, ALVK_RELOCATION_MEMBER_REF, ALVK_RELOCATION_NO_OPERAND,
                             BLOB(0x30, 0x01, 0x01, 0x1E, 0x00, 0x15, 0x12, 0x19, 0x02, 0x13, 0x00,
                                  0x1E, 0x00),
                             "Map");
    x.relocs[map - 1].parent_relocation = box;
    x.relocs[gen_reloc(&x, ALVK_RELOCATION_METHOD_SPEC, 8, BLOB(0x0A, 0x01, 0x0E), NULL) - 1]
        .parent_relocation = map;
    expect_gen(&x, SIG_STRING_INT, NULL, ALVK_OK, 0, 0, 0);
    expect_gen(&x, SIG_DOUBLE_INT, NULL, ALVK_E_STACK_TYPE_MISMATCH, 12, ALVK_STACK_OBJECT,
               ALVK_STACK_FLOAT);

    /* Echo<int>(x) where Echo is a MethodDef of the module. */
    gen y;
    const uint8_t echo[] = {0x02, 0x28, TOK(0x2B000000u), 0x2A};
    gen_init(&y, echo, sizeof echo, 0, NULL);
    y.relocs[gen_reloc(&y, ALVK_RELOCATION_METHOD_SPEC, 2, BLOB(0x0A, 0x01, 0x08), NULL) - 1]
        .parent_token = T_METHOD;
    test_oracle o;
    oracle_init(&o);
    add_member(&o, T_METHOD, ANY_OPERAND, BLOB(0x10, 0x01, 0x01, 0x1E, 0x00, 0x1E, 0x00));
    expect_gen(&y, SIG_INT_INT, &o, ALVK_OK, 0, 0, 0);
    expect_gen(&y, SIG_STRING_INT, &o, ALVK_E_STACK_TYPE_MISMATCH, 6, ALVK_STACK_INT32,
               ALVK_STACK_OBJECT);
    /* Without the module's answer the call's result is not known: nothing is refused. */
    aip_stack_result r;
    assert_int_equal(run(&y, SIG_STRING_INT, NULL, &r), ALVK_OK);
    assert_int_equal(r.complete, 0);
}

/* A TypeRef relocation named System.Int32 for box; a TypeSpec relocation for unbox.any. */
static void type_operand_relocations(void **state)
{
    (void)state;
    gen x;
    const uint8_t code[] = {0x14, 0x8C, TOK(0x01000000u), 0x26, 0x16, 0x2A};
    gen_init(&x, code, sizeof code, 0, NULL);
    x.relocs[gen_reloc(&x, ALVK_RELOCATION_TYPE_REF, 2, NULL, 0, "System.Int32") - 1].parent_token =
        0x23000001u;
    expect_gen(&x, SIG_INT_INT, NULL, ALVK_E_STACK_TYPE_MISMATCH, 1, ALVK_STACK_OBJECT,
               ALVK_STACK_INT32);
    /* A TypeRef the name does not tell about: not refused. */
    memcpy(x.blobs, "Game.Score12", 12);
    expect_gen(&x, SIG_INT_INT, NULL, ALVK_OK, 0, 0, 0);

    gen y;
    const uint8_t unbox[] = {0x14, 0xA5, TOK(0x1B000000u), 0x2A};
    gen_init(&y, unbox, sizeof unbox, 0, NULL);
    gen_reloc(&y, ALVK_RELOCATION_TYPE_SPEC, 2, BLOB(0x1D, 0x08), NULL); /* int32[] */
    expect_gen(&y, SIG_STRING_INT, NULL, ALVK_OK, 0, 0, 0);
    expect_gen(&y, SIG_INT_INT, NULL, ALVK_E_STACK_TYPE_MISMATCH, 6, ALVK_STACK_OBJECT,
               ALVK_STACK_INT32);
}

/* Locals through the header relocation; a catch clause in the body's EH section. */
static void locals_and_clauses(void **state)
{
    (void)state;
    gen x;
    const uint8_t code[] = {0x02, 0x0A, 0x06, 0x2A};
    gen_init(&x, code, sizeof code, 0x11000000u, NULL);
    gen_reloc(&x, ALVK_RELOCATION_STANDALONE_SIG, ALVK_RELOCATION_LOCALS_SIGNATURE,
              BLOB(0x07, 0x01, 0x0E), NULL);
    expect_gen(&x, SIG_INT_INT, NULL, ALVK_E_STACK_TYPE_MISMATCH, 1, ALVK_STACK_INT32,
               ALVK_STACK_OBJECT);
    x.blobs[x.relocs[0].blob_offset + 2] = 0x08;
    expect_gen(&x, SIG_INT_INT, NULL, ALVK_OK, 0, 0, 0);

    /* An existing locals token: the module oracle answers it. */
    gen m;
    gen_init(&m, code, sizeof code, T_LOCALS, NULL);
    test_oracle o;
    oracle_init(&o);
    add_member(&o, T_LOCALS, ANY_OPERAND, BLOB(0x07, 0x01, 0x0D));
    expect_gen(&m, SIG_INT_INT, &o, ALVK_E_STACK_TYPE_MISMATCH, 1, ALVK_STACK_INT32,
               ALVK_STACK_FLOAT);

    /* try { nop; leave } catch { ret the exception object } */
    gen c;
    const uint8_t handler[] = {0x00, 0xDE, 0x01, 0x2A, 0x16, 0x2A};
    const aip_eh_clause clause = {0, 0, 3, 3, 1, 0x01000001u};
    gen_init(&c, handler, sizeof handler, 0, &clause);
    expect_gen(&c, SIG_INT_INT, NULL, ALVK_E_STACK_TYPE_MISMATCH, 3, ALVK_STACK_OBJECT,
               ALVK_STACK_INT32);
    expect_gen(&c, SIG_STRING_INT, NULL, ALVK_E_STACK_TYPE_MISMATCH, 5, ALVK_STACK_INT32,
               ALVK_STACK_OBJECT);
}

/* Existing tokens: a MemberRef of the module with a TypeSpec parent, answered by the module. */
static void existing_tokens(void **state)
{
    (void)state;
    gen x;
    const uint8_t code[] = {0x02, 0x7B, TOK(T_FIELD), 0x2A};
    gen_init(&x, code, sizeof code, 0, NULL);
    test_oracle o;
    oracle_init(&o);
    aip_stack_member *f = add_member(&o, T_FIELD, ANY_OPERAND, BLOB(0x06, 0x13, 0x00));
    f->owner_instantiation = (const uint8_t[]){0x15, 0x12, 0x08, 0x01, 0x0D};
    f->owner_instantiation_length = 5;
    expect_gen(&x, BLOB(0x00, 0x01, 0x0D, 0x1C), &o, ALVK_OK, 0, 0, 0);
    expect_gen(&x, BLOB(0x00, 0x01, 0x08, 0x1C), &o, ALVK_E_STACK_TYPE_MISMATCH, 6,
               ALVK_STACK_FLOAT, ALVK_STACK_INT32);
    assert_int_equal(aip_stack_type_of_type_spec(BLOB(0x15, 0x11, 0x08, 0x01, 0x08)),
                     ALVK_STACK_VALUE_TYPE);
    assert_int_equal(aip_stack_type_of_type_spec(BLOB(0x1D, 0x08)), ALVK_STACK_OBJECT);
    assert_int_equal(aip_stack_type_of_type_spec(BLOB(0x13, 0x00)), ALVK_STACK_NOTHING);
    assert_int_equal(aip_stack_type_of_type_spec(NULL, 0), ALVK_STACK_NOTHING);
    aip_stack_result r;
    assert_int_equal(aip_generation_check_stack_types(NULL, NULL, NULL, &r), ALVK_E_NULL_ARGUMENT);
    assert_int_equal(aip_generation_check_stack_types(&x.g, NULL, NULL, NULL), ALVK_E_NULL_ARGUMENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exact_dispatch_generation),
        cmocka_unit_test(relocated_calli_result),
        cmocka_unit_test(member_ref_on_relocated_type_spec),
        cmocka_unit_test(method_specs),
        cmocka_unit_test(type_operand_relocations),
        cmocka_unit_test(locals_and_clauses),
        cmocka_unit_test(existing_tokens),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
