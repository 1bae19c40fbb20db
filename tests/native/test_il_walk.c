/* CIL opcode table and instruction walker: the table against ECMA-335, every operand class,
 * two-byte opcodes; then what the walker refuses: unknown opcodes, operands cut at every
 * length, branch and switch targets into instructions or past the end; operand lookup;
 * bounds. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "il/il_walk.h"

#define CODE(...) ((const uint8_t[]){__VA_ARGS__}), (uint32_t)sizeof((const uint8_t[]){__VA_ARGS__})

/* Exact-size heap copies, so ASan sees any read past the end. */
static alvk_status decode(const uint8_t *bytes, uint32_t n, uint32_t offset,
                          aip_il_instruction *out)
{
    uint8_t *copy = malloc(n + (n == 0));
    assert_non_null(copy);
    memcpy(copy, bytes, n);
    alvk_status status = aip_il_decode(copy, n, offset, out);
    free(copy);
    return status;
}

typedef struct recorder {
    aip_il_instruction insns[32];
    uint32_t count;
} recorder;

static alvk_status record(void *context, const aip_il_instruction *insn)
{
    recorder *r = context;
    assert_true(r->count < 32);
    r->insns[r->count++] = *insn;
    return ALVK_OK;
}

static aip_il_starts starts;

static alvk_status walk(const uint8_t *bytes, uint32_t n, recorder *r)
{
    uint8_t *copy = malloc(n + (n == 0));
    assert_non_null(copy);
    memcpy(copy, bytes, n);
    if (r != NULL)
        r->count = 0;
    alvk_status status = aip_il_walk(copy, n, &starts, r != NULL ? record : NULL, r);
    free(copy);
    return status;
}

static void expect(const aip_il_instruction *insn, uint32_t offset, uint32_t opcode,
                   aip_operand_kind kind, uint32_t operand_size)
{
    uint32_t opcode_size = opcode > 0xFF ? 2 : 1;
    assert_int_equal(insn->offset, offset);
    assert_int_equal(insn->opcode, opcode);
    assert_int_equal(insn->operand_kind, kind);
    assert_int_equal(insn->operand_offset, offset + opcode_size);
    assert_int_equal(insn->operand_size, operand_size);
    assert_int_equal(insn->next_offset, offset + opcode_size + operand_size);
}

static void table_matches_ecma(void **state)
{
    (void)state;
    uint32_t per_kind[AIP_OPERAND_KIND_COUNT] = {0};
    uint32_t one_byte = 0, two_byte = 0;
    aip_operand_kind kind;
    for (uint32_t v = 0; v < 0x10000; ++v) {
        if (!aip_il_opcode_operand(v, &kind)) {
            assert_null(aip_il_opcode_name(v));
            continue;
        }
        assert_non_null(aip_il_opcode_name(v));
        per_kind[kind]++;
        if (v < 0x100)
            one_byte++;
        else
            two_byte++;
    }
    assert_int_equal(one_byte, 191);
    assert_int_equal(two_byte, 28);
    static const uint32_t expected[AIP_OPERAND_KIND_COUNT] = {
        [AIP_OPERAND_SHORT_VAR] = 6, [AIP_OPERAND_SHORT_I] = 3, [AIP_OPERAND_SHORT_BR] = 14,
        [AIP_OPERAND_SHORT_R] = 1,   [AIP_OPERAND_I] = 1,       [AIP_OPERAND_I8] = 1,
        [AIP_OPERAND_R] = 1,         [AIP_OPERAND_VAR] = 6,     [AIP_OPERAND_BR] = 14,
        [AIP_OPERAND_SWITCH] = 1,    [AIP_OPERAND_METHOD] = 6,  [AIP_OPERAND_FIELD] = 6,
        [AIP_OPERAND_TYPE] = 17,     [AIP_OPERAND_TOK] = 1,     [AIP_OPERAND_STRING] = 1,
        [AIP_OPERAND_SIG] = 1,
    };
    for (uint32_t k = 1; k < AIP_OPERAND_KIND_COUNT; ++k)
        assert_int_equal(per_kind[k], expected[k]);
    assert_int_equal(per_kind[AIP_OPERAND_NONE], 219 - 80);
    static const uint32_t unused[] = {0x24, 0x77, 0x78, 0xA6, 0xB2, 0xBB, 0xC1, 0xC4, 0xC5,
                                      0xC7, 0xCF, 0xE1, 0xFE, 0xFF, 0xFE08, 0xFE10, 0xFE1B,
                                      0xFE1F, 0xFEFF, 0xFF00, 0x100};
    for (size_t i = 0; i < sizeof unused / sizeof unused[0]; ++i)
        assert_false(aip_il_opcode_operand(unused[i], NULL));
    assert_string_equal(aip_il_opcode_name(AIP_CEE_CALL), "call");
    assert_string_equal(aip_il_opcode_name(AIP_CEE_CONSTRAINED), "constrained.");
    assert_string_equal(aip_il_opcode_name(AIP_CEE_LDELEM_REF), "ldelem.ref");
    assert_int_equal(AIP_CEE_LDARG, 0xFE09);
    assert_int_equal(AIP_CEE_CONV_U, 0xE0);
    assert_true(aip_il_operand_is_token(AIP_OPERAND_SIG));
    assert_false(aip_il_operand_is_token(AIP_OPERAND_I));
}

/* The stack facts of the table: every opcode has a rule; the families carry their type. */
static void stack_facts(void **state)
{
    (void)state;
    aip_stack_rule rule;
    alvk_stack_type type;
    uint32_t with_rule = 0, per_rule[AIP_STACK_RULE_COUNT] = {0};
    for (uint32_t v = 0; v < 0x10000; ++v) {
        int valid = aip_il_opcode_operand(v, NULL);
        assert_int_equal(aip_il_opcode_stack(v, &rule, &type), valid);
        if (!valid)
            continue;
        assert_true(rule < AIP_STACK_RULE_COUNT);
        assert_true(type <= ALVK_STACK_VALUE_TYPE);
        per_rule[rule]++;
        with_rule += rule != AIP_STACK_RULE_NONE;
    }
    assert_int_equal(with_rule, 219 - 8); /* nop, break and the six prefixes do nothing */
    for (uint32_t r = 0; r < AIP_STACK_RULE_COUNT; ++r)
        assert_true(per_rule[r] > 0); /* every rule is some opcode's */
    static const struct {
        uint32_t opcode;
        aip_stack_rule rule;
        alvk_stack_type type;
    } expected[] = {
        {AIP_CEE_LDARG_3, AIP_STACK_RULE_LDARG, ALVK_STACK_NOTHING},
        {AIP_CEE_LDLOCA, AIP_STACK_RULE_LDLOCA, ALVK_STACK_BYREF},
        {AIP_CEE_LDNULL, AIP_STACK_RULE_PUSH, ALVK_STACK_OBJECT},
        {AIP_CEE_LDC_I8, AIP_STACK_RULE_PUSH, ALVK_STACK_INT64},
        {AIP_CEE_LDC_R4, AIP_STACK_RULE_PUSH, ALVK_STACK_FLOAT},
        {AIP_CEE_LDFTN, AIP_STACK_RULE_PUSH, ALVK_STACK_NATIVE_INT},
        {AIP_CEE_CALLVIRT, AIP_STACK_RULE_CALL, ALVK_STACK_NOTHING},
        {AIP_CEE_CALLI, AIP_STACK_RULE_CALLI, ALVK_STACK_NOTHING},
        {AIP_CEE_LDIND_I, AIP_STACK_RULE_LDIND, ALVK_STACK_NATIVE_INT},
        {AIP_CEE_LDIND_U4, AIP_STACK_RULE_LDIND, ALVK_STACK_INT32},
        {AIP_CEE_STIND_REF, AIP_STACK_RULE_STIND, ALVK_STACK_OBJECT},
        {AIP_CEE_CONV_OVF_U8_UN, AIP_STACK_RULE_CONVERT, ALVK_STACK_INT64},
        {AIP_CEE_CONV_R_UN, AIP_STACK_RULE_CONVERT, ALVK_STACK_FLOAT},
        {AIP_CEE_CONV_U, AIP_STACK_RULE_CONVERT, ALVK_STACK_NATIVE_INT},
        {AIP_CEE_LDELEM_REF, AIP_STACK_RULE_LDELEM, ALVK_STACK_OBJECT},
        {AIP_CEE_STELEM_I, AIP_STACK_RULE_STELEM, ALVK_STACK_NATIVE_INT},
        {AIP_CEE_LDLEN, AIP_STACK_RULE_LDLEN, ALVK_STACK_NATIVE_INT},
        {AIP_CEE_CLT_UN, AIP_STACK_RULE_COMPARE, ALVK_STACK_INT32},
        {AIP_CEE_BLE_UN_S, AIP_STACK_RULE_BRANCH_COMPARE, ALVK_STACK_NOTHING},
        {AIP_CEE_LEAVE_S, AIP_STACK_RULE_LEAVE, ALVK_STACK_NOTHING},
        {AIP_CEE_CONSTRAINED, AIP_STACK_RULE_NONE, ALVK_STACK_NOTHING},
        {AIP_CEE_LDTOKEN, AIP_STACK_RULE_PUSH, ALVK_STACK_VALUE_TYPE},
    };
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; ++i) {
        assert_true(aip_il_opcode_stack(expected[i].opcode, &rule, &type));
        assert_int_equal(rule, expected[i].rule);
        assert_int_equal(type, expected[i].type);
    }
    assert_false(aip_il_opcode_stack(0x24, NULL, NULL));
}

static void every_operand_class(void **state)
{
    (void)state;
    recorder r;
    assert_int_equal(walk(CODE(0x00,                         /* 0 nop */
                               0x0E, 0x01,                   /* 1 ldarg.s 1 */
                               0x1F, 0xF0,                   /* 3 ldc.i4.s -16 */
                               0x2B, 0x00,                   /* 5 br.s +0 */
                               0x22, 0, 0, 0x80, 0x3F,       /* 7 ldc.r4 1.0 */
                               0x20, 1, 2, 3, 4,             /* 12 ldc.i4 */
                               0x21, 1, 2, 3, 4, 5, 6, 7, 8, /* 17 ldc.i8 */
                               0x23, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F, /* 26 ldc.r8 1.0 */
                               0xFE, 0x09, 0x02, 0x01,       /* 35 ldarg 0x0102 */
                               0x38, 0, 0, 0, 0,             /* 39 br +0 */
                               0x45, 2, 0, 0, 0, 0, 0, 0, 0, 0xF3, 0xFF, 0xFF, 0xFF,
                                                             /* 44 switch (57, 44) */
                               0x28, 1, 0, 0, 0x0A,          /* 57 call */
                               0x7B, 1, 0, 0, 0x0A,          /* 62 ldfld */
                               0x8C, 1, 0, 0, 0x1B,          /* 67 box */
                               0xD0, 1, 0, 0, 0x01,          /* 72 ldtoken */
                               0x72, 1, 0, 0, 0x70,          /* 77 ldstr */
                               0x29, 1, 0, 0, 0x11,          /* 82 calli */
                               0x2A),                        /* 87 ret */
                          &r),
                     ALVK_OK);
    assert_int_equal(r.count, 18);
    expect(&r.insns[0], 0, AIP_CEE_NOP, AIP_OPERAND_NONE, 0);
    expect(&r.insns[1], 1, AIP_CEE_LDARG_S, AIP_OPERAND_SHORT_VAR, 1);
    expect(&r.insns[2], 3, AIP_CEE_LDC_I4_S, AIP_OPERAND_SHORT_I, 1);
    expect(&r.insns[3], 5, AIP_CEE_BR_S, AIP_OPERAND_SHORT_BR, 1);
    expect(&r.insns[4], 7, AIP_CEE_LDC_R4, AIP_OPERAND_SHORT_R, 4);
    expect(&r.insns[5], 12, AIP_CEE_LDC_I4, AIP_OPERAND_I, 4);
    expect(&r.insns[6], 17, AIP_CEE_LDC_I8, AIP_OPERAND_I8, 8);
    expect(&r.insns[7], 26, AIP_CEE_LDC_R8, AIP_OPERAND_R, 8);
    expect(&r.insns[8], 35, AIP_CEE_LDARG, AIP_OPERAND_VAR, 2);
    expect(&r.insns[9], 39, AIP_CEE_BR, AIP_OPERAND_BR, 4);
    expect(&r.insns[10], 44, AIP_CEE_SWITCH, AIP_OPERAND_SWITCH, 12);
    expect(&r.insns[11], 57, AIP_CEE_CALL, AIP_OPERAND_METHOD, 4);
    expect(&r.insns[12], 62, AIP_CEE_LDFLD, AIP_OPERAND_FIELD, 4);
    expect(&r.insns[13], 67, AIP_CEE_BOX, AIP_OPERAND_TYPE, 4);
    expect(&r.insns[14], 72, AIP_CEE_LDTOKEN, AIP_OPERAND_TOK, 4);
    expect(&r.insns[15], 77, AIP_CEE_LDSTR, AIP_OPERAND_STRING, 4);
    expect(&r.insns[16], 82, AIP_CEE_CALLI, AIP_OPERAND_SIG, 4);
    expect(&r.insns[17], 87, AIP_CEE_RET, AIP_OPERAND_NONE, 0);
    for (uint32_t i = 0; i < 18; ++i)
        assert_true(aip_il_is_start(&starts, 88, r.insns[i].offset));
    assert_false(aip_il_is_start(&starts, 88, 2));
    assert_false(aip_il_is_start(&starts, 88, 88));
}

static void two_byte_opcodes(void **state)
{
    (void)state;
    recorder r;
    assert_int_equal(walk(CODE(0xFE, 0x09, 0x00, 0x01,       /* 0 ldarg 256 */
                               0xFE, 0x0E, 0xFF, 0xFF,       /* 4 stloc 65535 */
                               0xFE, 0x06, 1, 0, 0, 0x06,    /* 8 ldftn */
                               0xFE, 0x12, 0x01,             /* 14 unaligned. 1 */
                               0xFE, 0x16, 2, 0, 0, 0x1B,    /* 17 constrained. */
                               0xFE, 0x1C, 3, 0, 0, 0x02,    /* 23 sizeof */
                               0xFE, 0x01,                   /* 29 ceq */
                               0xFE, 0x1A),                  /* 31 rethrow */
                          &r),
                     ALVK_OK);
    assert_int_equal(r.count, 8);
    expect(&r.insns[0], 0, 0xFE09, AIP_OPERAND_VAR, 2);
    expect(&r.insns[1], 4, AIP_CEE_STLOC, AIP_OPERAND_VAR, 2);
    expect(&r.insns[2], 8, AIP_CEE_LDFTN, AIP_OPERAND_METHOD, 4);
    expect(&r.insns[3], 14, AIP_CEE_UNALIGNED, AIP_OPERAND_SHORT_I, 1);
    expect(&r.insns[4], 17, AIP_CEE_CONSTRAINED, AIP_OPERAND_TYPE, 4);
    expect(&r.insns[5], 23, AIP_CEE_SIZEOF, AIP_OPERAND_TYPE, 4);
    expect(&r.insns[6], 29, AIP_CEE_CEQ, AIP_OPERAND_NONE, 0);
    expect(&r.insns[7], 31, AIP_CEE_RETHROW, AIP_OPERAND_NONE, 0);

    aip_il_instruction insn;
    assert_int_equal(decode(CODE(0xFE), 0, &insn), ALVK_E_IL_MALFORMED); /* lone prefix */
    assert_int_equal(decode(CODE(0x00, 0xFE), 1, &insn), ALVK_E_IL_MALFORMED);
    assert_int_equal(decode(CODE(0xFE, 0x1F), 0, &insn), ALVK_E_IL_MALFORMED);
    assert_int_equal(decode(CODE(0xFE, 0xFE, 0x01), 0, &insn), ALVK_E_IL_MALFORMED);
}

/* Writes the opcode and a full operand (switch: one target) into buf; returns its size. */
static uint32_t encode(uint32_t opcode, aip_operand_kind kind, uint8_t *buf)
{
    static const uint32_t sizes[AIP_OPERAND_KIND_COUNT] = {0, 1, 1, 1, 4, 4, 8, 8, 2, 4,
                                                           8, 4, 4, 4, 4, 4, 4};
    uint32_t n = 0;
    if (opcode > 0xFF)
        buf[n++] = 0xFE;
    buf[n++] = (uint8_t)opcode;
    memset(buf + n, 0, sizes[kind]);
    if (kind == AIP_OPERAND_SWITCH)
        buf[n] = 1;
    return n + sizes[kind];
}

static void unknown_opcodes(void **state)
{
    (void)state;
    uint8_t buf[16] = {0};
    aip_il_instruction insn;
    uint32_t refused = 0;
    for (uint32_t v = 0; v < 0x200; ++v) {
        uint32_t opcode = v < 0x100 ? v : 0xFE00 | (v & 0xFF);
        if (v == 0xFE || aip_il_opcode_operand(opcode, NULL))
            continue;
        uint32_t n = 0;
        if (opcode > 0xFF)
            buf[n++] = 0xFE;
        buf[n++] = (uint8_t)opcode;
        memset(buf + n, 0, 8);
        assert_int_equal(decode(buf, n + 8, 0, &insn), ALVK_E_IL_MALFORMED);
        /* after a valid instruction too: the walk refuses the stream */
        uint8_t stream[20] = {0x00};
        memcpy(stream + 1, buf, n + 8);
        assert_int_equal(walk(stream, n + 9, NULL), ALVK_E_IL_MALFORMED);
        refused++;
    }
    assert_int_equal(refused, 0x200 - 1 - 219);
}

static void cut_operands_at_every_length(void **state)
{
    (void)state;
    uint8_t buf[16];
    aip_il_instruction insn;
    for (uint32_t v = 0; v < 0x200; ++v) {
        uint32_t opcode = v < 0x100 ? v : 0xFE00 | (v & 0xFF);
        aip_operand_kind kind;
        if (!aip_il_opcode_operand(opcode, &kind))
            continue;
        uint32_t full = encode(opcode, kind, buf);
        if (kind == AIP_OPERAND_SHORT_BR || kind == AIP_OPERAND_BR || kind == AIP_OPERAND_SWITCH)
            assert_int_equal(walk(buf, full, NULL), ALVK_E_IL_MALFORMED); /* +0 is the end */
        else
            assert_int_equal(walk(buf, full, NULL), ALVK_OK);
        assert_int_equal(decode(buf, full, 0, &insn), ALVK_OK);
        assert_int_equal(insn.next_offset, full);
        for (uint32_t cut = 0; cut < full; ++cut) {
            assert_int_equal(decode(buf, cut, 0, &insn), ALVK_E_IL_MALFORMED);
            assert_int_equal(walk(buf, cut, NULL), cut == 0 ? ALVK_OK : ALVK_E_IL_MALFORMED);
        }
    }
    /* a switch whose count runs past the end, however large */
    assert_int_equal(decode(CODE(0x45, 2, 0, 0, 0, 0, 0, 0, 0), 0, &insn), ALVK_E_IL_MALFORMED);
    assert_int_equal(decode(CODE(0x45, 0xFF, 0xFF, 0xFF, 0xFF, 0), 0, &insn),
                     ALVK_E_IL_MALFORMED);
    assert_int_equal(walk(CODE(0x45, 0, 0, 0, 0, 0x2A), NULL), ALVK_OK); /* empty switch */
}

static void branch_targets(void **state)
{
    (void)state;
    /* valid: backward to 0, to itself, forward to ret, a switch to both ends */
    assert_int_equal(walk(CODE(0x00, 0x2B, 0xFD, 0x2A), NULL), ALVK_OK);
    assert_int_equal(walk(CODE(0x2B, 0xFE, 0x2A), NULL), ALVK_OK);
    assert_int_equal(walk(CODE(0x38, 0x00, 0, 0, 0, 0x2A), NULL), ALVK_OK);
    assert_int_equal(walk(CODE(0x45, 2, 0, 0, 0, 0xF3, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0x2A), NULL),
                     ALVK_OK);
    assert_int_equal(walk(CODE(0xDE, 0x00, 0x2A), NULL), ALVK_OK); /* leave.s */
    /* into the middle of an instruction: ldc.i4's operand, call's token, the prefix pair */
    assert_int_equal(walk(CODE(0x2B, 0x01, 0x20, 1, 2, 3, 4, 0x2A), NULL), ALVK_E_IL_MALFORMED);
    assert_int_equal(walk(CODE(0x38, 3, 0, 0, 0, 0x28, 1, 0, 0, 0x0A, 0x2A), NULL),
                     ALVK_E_IL_MALFORMED);
    assert_int_equal(walk(CODE(0x2B, 0x01, 0xFE, 0x01, 0x2A), NULL), ALVK_E_IL_MALFORMED);
    assert_int_equal(walk(CODE(0x45, 1, 0, 0, 0, 2, 0, 0, 0, 0x20, 1, 2, 3, 4, 0x2A), NULL),
                     ALVK_E_IL_MALFORMED);
    /* the end of the code (code_size) and past it, before the start */
    assert_int_equal(walk(CODE(0x2B, 0x01, 0x2A), NULL), ALVK_E_IL_MALFORMED);
    assert_int_equal(walk(CODE(0x2B, 0x7F, 0x2A), NULL), ALVK_E_IL_MALFORMED);
    assert_int_equal(walk(CODE(0x38, 0xFF, 0xFF, 0xFF, 0x7F, 0x2A), NULL), ALVK_E_IL_MALFORMED);
    assert_int_equal(walk(CODE(0x00, 0x2B, 0xFC, 0x2A), NULL), ALVK_E_IL_MALFORMED);
    assert_int_equal(walk(CODE(0x38, 0, 0, 0, 0x80, 0x2A), NULL), ALVK_E_IL_MALFORMED);
    assert_int_equal(walk(CODE(0x45, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0x2A), NULL),
                     ALVK_E_IL_MALFORMED);
    assert_int_equal(walk(CODE(0x45, 1, 0, 0, 0, 0xF0, 0xFF, 0xFF, 0xFF, 0x2A), NULL),
                     ALVK_E_IL_MALFORMED);
}

static alvk_status stop_at_second(void *context, const aip_il_instruction *insn)
{
    uint32_t *seen = context;
    (void)insn;
    return ++*seen == 2 ? ALVK_E_INTERNAL : ALVK_OK;
}

static void operand_lookup_and_bounds(void **state)
{
    (void)state;
    static const uint8_t code[] = {0x02,                         /* 0 ldarg.0 */
                                   0x28, 1, 0, 0, 0x0A,          /* 1 call */
                                   0xFE, 0x06, 2, 0, 0, 0x0A,    /* 6 ldftn */
                                   0x20, 5, 0, 0, 0,             /* 12 ldc.i4 */
                                   0x2A};                        /* 17 ret */
    assert_int_equal(aip_il_walk(code, sizeof code, &starts, NULL, NULL), ALVK_OK);
    aip_il_instruction insn;
    assert_true(aip_il_find_operand(code, sizeof code, &starts, 2, &insn));
    assert_int_equal(insn.opcode, AIP_CEE_CALL);
    assert_true(aip_il_find_operand(code, sizeof code, &starts, 8, &insn));
    assert_int_equal(insn.opcode, AIP_CEE_LDFTN);
    assert_true(aip_il_find_operand(code, sizeof code, &starts, 13, &insn));
    assert_int_equal(insn.operand_kind, AIP_OPERAND_I);
    static const uint32_t not_operands[] = {0, 1, 3, 5, 6, 7, 9, 12, 14, 17, 18, 1000,
                                            UINT32_MAX};
    for (size_t i = 0; i < sizeof not_operands / sizeof not_operands[0]; ++i)
        assert_false(aip_il_find_operand(code, sizeof code, &starts, not_operands[i], &insn));

    uint32_t seen = 0;
    assert_int_equal(aip_il_walk(code, sizeof code, &starts, stop_at_second, &seen),
                     ALVK_E_INTERNAL);
    assert_int_equal(seen, 2);
    assert_int_equal(aip_il_walk(code, 0, &starts, NULL, NULL), ALVK_OK);
    assert_int_equal(aip_il_walk(NULL, 0, &starts, NULL, NULL), ALVK_OK);
    assert_int_equal(aip_il_walk(NULL, 1, &starts, NULL, NULL), ALVK_E_NULL_ARGUMENT);
    assert_int_equal(aip_il_walk(code, sizeof code, NULL, NULL, NULL), ALVK_E_NULL_ARGUMENT);
    assert_int_equal(aip_il_decode(code, sizeof code, 0, NULL), ALVK_E_NULL_ARGUMENT);
    assert_int_equal(aip_il_decode(code, sizeof code, sizeof code, &insn), ALVK_E_IL_MALFORMED);
    assert_int_equal(aip_il_walk(code, AIP_IL_MAX_CODE_BYTES + 1, &starts, NULL, NULL),
                     ALVK_E_LIMIT_EXCEEDED);
    assert_int_equal(aip_il_decode(code, AIP_IL_MAX_CODE_BYTES + 1, 0, &insn),
                     ALVK_E_LIMIT_EXCEEDED);

    /* the largest code: 65535 nops and a ret, with a branch from the end back to 0 */
    static uint8_t big[AIP_IL_MAX_CODE_BYTES];
    memset(big, 0x00, sizeof big);
    big[sizeof big - 6] = 0x38;
    uint32_t back = (uint32_t)-(int32_t)(sizeof big - 1);
    memcpy(big + sizeof big - 5, &(uint8_t[4]){(uint8_t)back, (uint8_t)(back >> 8),
                                                (uint8_t)(back >> 16), (uint8_t)(back >> 24)},
           4);
    big[sizeof big - 1] = 0x2A;
    assert_int_equal(aip_il_walk(big, sizeof big, &starts, NULL, NULL), ALVK_OK);
    assert_true(aip_il_is_start(&starts, sizeof big, sizeof big - 1));
    big[sizeof big - 5] += 1; /* now lands on offset 1: still a nop, still fine */
    assert_int_equal(aip_il_walk(big, sizeof big, &starts, NULL, NULL), ALVK_OK);
    big[sizeof big - 2] = 0x7F; /* -> 0x7F..: far past the end */
    assert_int_equal(aip_il_walk(big, sizeof big, &starts, NULL, NULL), ALVK_E_IL_MALFORMED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(table_matches_ecma),
        cmocka_unit_test(stack_facts),
        cmocka_unit_test(every_operand_class),
        cmocka_unit_test(two_byte_opcodes),
        cmocka_unit_test(unknown_opcodes),
        cmocka_unit_test(cut_operands_at_every_length),
        cmocka_unit_test(branch_targets),
        cmocka_unit_test(operand_lookup_and_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
