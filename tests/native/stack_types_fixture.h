/* A table-driven oracle for the stack-type tests, and check() over exact-size heap copies
 * so ASan sees any overread. Include after cmocka.h. */
#ifndef AIP_TEST_STACK_TYPES_FIXTURE_H
#define AIP_TEST_STACK_TYPES_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "il/il_stack_types.h"

#define BLOB(...) ((const uint8_t[]){__VA_ARGS__}), (uint32_t)sizeof((const uint8_t[]){__VA_ARGS__})
/* A token's four operand bytes, little-endian. */
#define TOK(t) (uint8_t)(t), (uint8_t)((t) >> 8), (uint8_t)((t) >> 16), (uint8_t)((t) >> 24)
#define ANY_OPERAND 0xFFFFFFF0u

/* Tokens the tests name. */
enum {
    T_ADD = 0x0A000001u,      /* MemberRef */
    T_CTOR = 0x0A000002u,
    T_FIELD = 0x0A000003u,
    T_ECHO = 0x2B000001u,     /* MethodSpec */
    T_CALLI = 0x11000001u,    /* StandAloneSig */
    T_LOCALS = 0x11000002u,
    T_METHOD = 0x06000001u,   /* MethodDef */
    T_SFIELD = 0x04000001u,   /* FieldDef */
    T_INT32 = 0x01000001u,    /* TypeRef System.Int32 */
    T_POINT = 0x02000002u,    /* TypeDef: a struct */
    T_SIZE = 0x02000003u,     /* TypeDef: another struct */
    T_COLOR = 0x02000004u,    /* TypeDef: an enum of int32 */
    T_WIDGET = 0x02000005u,   /* TypeDef: a class */
    T_LIST_INT = 0x1B000001u, /* TypeSpec */
    T_OPAQUE = 0x01000009u    /* TypeRef the oracle knows nothing about */
};

typedef struct member_entry {
    uint32_t token;
    uint32_t operand; /* ANY_OPERAND: wherever it appears */
    aip_stack_member answer;
} member_entry;

typedef struct type_entry {
    uint32_t token;
    aip_stack_type_answer answer;
} type_entry;

typedef struct test_oracle {
    member_entry members[24];
    uint32_t member_count;
    type_entry types[24];
    uint32_t type_count;
    uint32_t member_queries;
    uint32_t type_queries;
} test_oracle;

static int test_member(void *context, uint32_t token, uint32_t operand, aip_stack_member *out)
{
    test_oracle *o = context;
    o->member_queries++;
    for (uint32_t i = 0; i < o->member_count; ++i)
        if (o->members[i].token == token &&
            (o->members[i].operand == ANY_OPERAND || o->members[i].operand == operand)) {
            *out = o->members[i].answer;
            return 1;
        }
    return 0;
}

static int test_type(void *context, uint32_t token, uint32_t operand, aip_stack_type_answer *out)
{
    (void)operand;
    test_oracle *o = context;
    o->type_queries++;
    for (uint32_t i = 0; i < o->type_count; ++i)
        if (o->types[i].token == token) {
            *out = o->types[i].answer;
            return 1;
        }
    return 0;
}

static inline aip_stack_member *add_member(test_oracle *o, uint32_t token, uint32_t operand,
                                           const uint8_t *sig, uint32_t length)
{
    member_entry *e = &o->members[o->member_count++];
    memset(e, 0, sizeof *e);
    e->token = token;
    e->operand = operand;
    e->answer.signature = sig;
    e->answer.signature_length = length;
    return &e->answer;
}

static inline void add_type(test_oracle *o, uint32_t token, alvk_stack_type stack)
{
    type_entry *e = &o->types[o->type_count++];
    memset(e, 0, sizeof *e);
    e->token = token;
    e->answer.stack = stack;
}

static inline void add_spec(test_oracle *o, uint32_t token, const uint8_t *spec, uint32_t length)
{
    type_entry *e = &o->types[o->type_count++];
    memset(e, 0, sizeof *e);
    e->token = token;
    e->answer.spec = spec;
    e->answer.spec_length = length;
}

/* The types every test knows: System.Int32, two structs, an enum, a class. */
static inline void oracle_init(test_oracle *o)
{
    memset(o, 0, sizeof *o);
    add_type(o, T_INT32, ALVK_STACK_INT32);
    add_type(o, T_POINT, ALVK_STACK_VALUE_TYPE);
    add_type(o, T_SIZE, ALVK_STACK_VALUE_TYPE);
    add_type(o, T_COLOR, ALVK_STACK_INT32);
    add_type(o, T_WIDGET, ALVK_STACK_OBJECT);
}

typedef struct body_spec {
    const uint8_t *code;
    uint32_t code_size;
    const aip_eh_clause *clauses;
    uint32_t clause_count;
    uint32_t locals_token;
    const uint8_t *signature; /* the target's */
    uint32_t signature_length;
    uint32_t value_type_receiver;
} body_spec;

/* Runs the checker over heap copies of the code, clauses and target signature. */
static inline alvk_status check_with(const body_spec *b, test_oracle *o, aip_stack_result *out)
{
    uint8_t *code = malloc(b->code_size + 1u);
    uint8_t *sig = malloc(b->signature_length + 1u);
    aip_eh_clause *clauses = malloc(b->clause_count * sizeof *clauses + 1u);
    assert_non_null(code);
    assert_non_null(sig);
    assert_non_null(clauses);
    if (b->code_size)
        memcpy(code, b->code, b->code_size);
    if (b->signature_length)
        memcpy(sig, b->signature, b->signature_length);
    if (b->clause_count)
        memcpy(clauses, b->clauses, b->clause_count * sizeof *clauses);
    aip_stack_body body = {code, b->code_size, b->clause_count ? clauses : NULL, b->clause_count,
                           b->locals_token};
    aip_stack_target target = {b->signature ? sig : NULL, b->signature_length,
                               b->value_type_receiver};
    aip_stack_oracle oracle = {o, test_member, test_type};
    alvk_status status = aip_il_check_stack_types(&body, &target, o ? &oracle : NULL, out);
    free(code);
    free(sig);
    free(clauses);
    return status;
}

/* Expects a refusal at `offset` with these types. */
static inline void expect_mismatch(const body_spec *b, test_oracle *o, uint32_t offset,
                                   uint32_t opcode, alvk_stack_type found,
                                   alvk_stack_type expected)
{
    aip_stack_result r;
    assert_int_equal(check_with(b, o, &r), ALVK_E_STACK_TYPE_MISMATCH);
    assert_int_equal(r.offset, offset);
    assert_int_equal(r.opcode, opcode);
    assert_int_equal(r.found, found);
    assert_int_equal(r.expected, expected);
}

static inline void expect_ok(const body_spec *b, test_oracle *o, uint32_t complete)
{
    aip_stack_result r;
    alvk_status status = check_with(b, o, &r);
    if (status != ALVK_OK)
        print_error("refused at %u (opcode 0x%X): found %s, expected %s\n", r.offset, r.opcode,
                    aip_stack_type_name(r.found), aip_stack_type_name(r.expected));
    assert_int_equal(status, ALVK_OK);
    assert_int_equal(r.complete, complete);
}

/* Target signatures. */
#define SIG_INT_INT BLOB(0x00, 0x01, 0x08, 0x08)         /* static int32(int32) */
#define SIG_STRING_INT BLOB(0x00, 0x01, 0x0E, 0x08)      /* static string(int32) */
#define SIG_DOUBLE_INT BLOB(0x00, 0x01, 0x0D, 0x08)      /* static float64(int32) */
#define SIG_VOID BLOB(0x00, 0x00, 0x01)                  /* static void() */
#define SIG_INT_OBJECT BLOB(0x00, 0x01, 0x08, 0x1C)      /* static int32(object) */

#endif
