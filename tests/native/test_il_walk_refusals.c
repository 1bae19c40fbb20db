/* CIL instruction walker refusals: unknown opcodes, operands cut at every length, branch
 * and switch targets into instructions or past the end; operand lookup; bounds. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "il/il_walk.h"

#define CODE(...) ((const uint8_t[]){__VA_ARGS__}), (uint32_t)sizeof((const uint8_t[]){__VA_ARGS__})

static aip_il_starts starts;

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

static alvk_status walk(const uint8_t *bytes, uint32_t n)
{
    uint8_t *copy = malloc(n + (n == 0));
    assert_non_null(copy);
    memcpy(copy, bytes, n);
    alvk_status status = aip_il_walk(copy, n, &starts, NULL, NULL);
    free(copy);
    return status;
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
        assert_int_equal(walk(stream, n + 9), ALVK_E_IL_MALFORMED);
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
            assert_int_equal(walk(buf, full), ALVK_E_IL_MALFORMED); /* +0 is the end */
        else
            assert_int_equal(walk(buf, full), ALVK_OK);
        assert_int_equal(decode(buf, full, 0, &insn), ALVK_OK);
        assert_int_equal(insn.next_offset, full);
        for (uint32_t cut = 0; cut < full; ++cut) {
            assert_int_equal(decode(buf, cut, 0, &insn), ALVK_E_IL_MALFORMED);
            assert_int_equal(walk(buf, cut), cut == 0 ? ALVK_OK : ALVK_E_IL_MALFORMED);
        }
    }
    /* a switch whose count runs past the end, however large */
    assert_int_equal(decode(CODE(0x45, 2, 0, 0, 0, 0, 0, 0, 0), 0, &insn), ALVK_E_IL_MALFORMED);
    assert_int_equal(decode(CODE(0x45, 0xFF, 0xFF, 0xFF, 0xFF, 0), 0, &insn),
                     ALVK_E_IL_MALFORMED);
    assert_int_equal(walk(CODE(0x45, 0, 0, 0, 0, 0x2A)), ALVK_OK); /* empty switch */
}

static void branch_targets(void **state)
{
    (void)state;
    /* valid: backward to 0, to itself, forward to ret, a switch to both ends */
    assert_int_equal(walk(CODE(0x00, 0x2B, 0xFD, 0x2A)), ALVK_OK);
    assert_int_equal(walk(CODE(0x2B, 0xFE, 0x2A)), ALVK_OK);
    assert_int_equal(walk(CODE(0x38, 0x00, 0, 0, 0, 0x2A)), ALVK_OK);
    assert_int_equal(walk(CODE(0x45, 2, 0, 0, 0, 0xF3, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0x2A)),
                     ALVK_OK);
    assert_int_equal(walk(CODE(0xDE, 0x00, 0x2A)), ALVK_OK); /* leave.s */
    /* into the middle of an instruction: ldc.i4's operand, call's token, the prefix pair */
    assert_int_equal(walk(CODE(0x2B, 0x01, 0x20, 1, 2, 3, 4, 0x2A)), ALVK_E_IL_MALFORMED);
    assert_int_equal(walk(CODE(0x38, 3, 0, 0, 0, 0x28, 1, 0, 0, 0x0A, 0x2A)),
                     ALVK_E_IL_MALFORMED);
    assert_int_equal(walk(CODE(0x2B, 0x01, 0xFE, 0x01, 0x2A)), ALVK_E_IL_MALFORMED);
    assert_int_equal(walk(CODE(0x45, 1, 0, 0, 0, 2, 0, 0, 0, 0x20, 1, 2, 3, 4, 0x2A)),
                     ALVK_E_IL_MALFORMED);
    /* the end of the code (code_size) and past it, before the start */
    assert_int_equal(walk(CODE(0x2B, 0x01, 0x2A)), ALVK_E_IL_MALFORMED);
    assert_int_equal(walk(CODE(0x2B, 0x7F, 0x2A)), ALVK_E_IL_MALFORMED);
    assert_int_equal(walk(CODE(0x38, 0xFF, 0xFF, 0xFF, 0x7F, 0x2A)), ALVK_E_IL_MALFORMED);
    assert_int_equal(walk(CODE(0x00, 0x2B, 0xFC, 0x2A)), ALVK_E_IL_MALFORMED);
    assert_int_equal(walk(CODE(0x38, 0, 0, 0, 0x80, 0x2A)), ALVK_E_IL_MALFORMED);
    assert_int_equal(walk(CODE(0x45, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0x2A)),
                     ALVK_E_IL_MALFORMED);
    assert_int_equal(walk(CODE(0x45, 1, 0, 0, 0, 0xF0, 0xFF, 0xFF, 0xFF, 0x2A)),
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
        cmocka_unit_test(unknown_opcodes),
        cmocka_unit_test(cut_operands_at_every_length),
        cmocka_unit_test(branch_targets),
        cmocka_unit_test(operand_lookup_and_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
