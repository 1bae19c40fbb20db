/* Fuzzes the CIL decoder and walker of il/il_walk.h over the input as code. The harness
 * carries its own description of ECMA-335 Partition III (which opcodes exist, how long
 * each operand is, which ones branch), written from the standard, not from il_opcodes.h,
 * and its own walk; aip_il_walk must agree with it exactly: the same status, the same
 * instructions (offset, opcode, operand kind size, next offset) visited in order, each as
 * aip_il_decode reports it, the instruction-start bitmap, aip_il_find_operand at every
 * offset. Also: a visitor's refusal stops the walk at once and is returned; decoding at
 * any offset stays inside the code; the opcode name and operand-kind lookups agree. */
#include "fuzz_input.h"

#include "il/il_walk.h"

#define NOT_AN_OPCODE 0xFFu /* ref_operand_size: the value is unused or reserved */
#define SWITCH_SIZE 0xFEu   /* ref_operand_size: 4 + 4 * count */

static aip_il_starts starts;

/* Operand bytes of a one-byte opcode, per ECMA-335 III (6th edition). */
static unsigned ref_one_byte(uint8_t op)
{
    if (op <= 0x0D)
        return 0; /* nop .. stloc.3 */
    if (op <= 0x13)
        return 1; /* ldarg.s .. stloc.s */
    if (op <= 0x1E)
        return 0; /* ldnull, ldc.i4.m1 .. ldc.i4.8 */
    switch (op) {
    case 0x1F:
        return 1; /* ldc.i4.s */
    case 0x20:
    case 0x22:
        return 4; /* ldc.i4, ldc.r4 */
    case 0x21:
    case 0x23:
        return 8; /* ldc.i8, ldc.r8 */
    case 0x24:
        return NOT_AN_OPCODE;
    case 0x25:
    case 0x26:
        return 0; /* dup, pop */
    case 0x27:
    case 0x28:
    case 0x29:
        return 4; /* jmp, call, calli */
    case 0x2A:
        return 0; /* ret */
    case 0x45:
        return SWITCH_SIZE;
    default:
        break;
    }
    if (op >= 0x2B && op <= 0x37)
        return 1; /* br.s .. blt.un.s */
    if (op >= 0x38 && op <= 0x44)
        return 4; /* br .. blt.un */
    if (op >= 0x46 && op <= 0x6E)
        return 0; /* ldind.*, stind.*, arithmetic, conv.* */
    if (op >= 0x6F && op <= 0x75)
        return 4; /* callvirt .. isinst */
    if (op == 0x76 || op == 0x7A)
        return 0; /* conv.r.un, throw */
    if (op == 0x77 || op == 0x78)
        return NOT_AN_OPCODE;
    if (op == 0x79 || (op >= 0x7B && op <= 0x81))
        return 4; /* unbox, ldfld .. stobj */
    if (op >= 0x82 && op <= 0x8B)
        return 0; /* conv.ovf.*.un */
    if (op == 0x8C || op == 0x8D || op == 0x8F)
        return 4; /* box, newarr, ldelema */
    if (op == 0x8E || (op >= 0x90 && op <= 0xA2))
        return 0; /* ldlen, ldelem.*, stelem.* */
    if (op >= 0xA3 && op <= 0xA5)
        return 4; /* ldelem, stelem, unbox.any */
    if (op >= 0xB3 && op <= 0xBA)
        return 0; /* conv.ovf.* */
    if (op == 0xC2 || op == 0xC6 || op == 0xD0 || op == 0xDD)
        return 4; /* refanyval,
mkrefany, ldtoken, leave */
    if (op == 0xC3 || (op >= 0xD1 && op <= 0xDC) || op == 0xDF || op == 0xE0)
        return 0;
    if (op == 0xDE)
        return 1;         /* leave.s */
    return NOT_AN_OPCODE; /* A6-B2, BB-C1, C4, C5, C7-CF, E1-FF */
}

/* Operand bytes of 0xFE <op>. */
static unsigned ref_two_byte(uint8_t op)
{
    if (op <= 0x05)
        return 0; /* arglist, ceq .. clt.un */
    if (op == 0x06 || op == 0x07)
        return 4; /* ldftn, ldvirtftn */
    if (op >= 0x09 && op <= 0x0E)
        return 2; /* ldarg .. stloc */
    if (op == 0x0F || op == 0x11)
        return 0; /* localloc, endfilter */
    if (op == 0x12 || op == 0x19)
        return 1; /* unaligned., no. */
    if (op == 0x13 || op == 0x14 || op == 0x17 || op == 0x18 || op == 0x1A || op == 0x1D ||
        op == 0x1E)
        return 0; /* volatile., tail., cpblk, initblk,
                      rethrow, refanytype, readonly. */
    if (op == 0x15 || op == 0x16 || op == 0x1C)
        return 4;         /* initobj, constrained., sizeof */
    return NOT_AN_OPCODE; /* 08, 10, 1B, 1F-FF */
}

static int ref_is_short_branch(uint32_t op)
{
    return (op >= 0x2B && op <= 0x37) || op == 0xDE;
}
static int ref_is_branch(uint32_t op)
{
    return (op >= 0x38 && op <= 0x44) || op == 0xDD;
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

typedef struct ref_insn {
    uint32_t offset, opcode, operand_offset, next;
} ref_insn;

/* The reference walk: instructions into out (room for n), 1 when the code is well-formed. */
static int ref_walk(const uint8_t *code, uint32_t n, ref_insn *out, uint32_t *count,
                    uint8_t *is_start)
{
    *count = 0;
    memset(is_start, 0, n);
    for (uint64_t at = 0; at < n;) {
        ref_insn insn = {(uint32_t)at, code[at], (uint32_t)at + 1, 0};
        unsigned size;
        if (code[at] == 0xFE) {
            if (at + 1 >= n)
                return 0;
            insn.opcode = 0xFE00u | code[at + 1];
            insn.operand_offset += 1;
            size = ref_two_byte(code[at + 1]);
        } else {
            size = ref_one_byte(code[at]);
        }
        if (size == NOT_AN_OPCODE)
            return 0;
        uint64_t operand_size = size;
        if (size == SWITCH_SIZE) {
            if ((uint64_t)insn.operand_offset + 4 > n)
                return 0;
            operand_size = 4 + 4 * (uint64_t)rd32(code + insn.operand_offset);
        }
        if (insn.operand_offset + operand_size > n)
            return 0;
        insn.next = (uint32_t)(insn.operand_offset + operand_size);
        is_start[at] = 1;
        out[(*count)++] = insn;
        at = insn.next;
    }
    for (uint32_t i = 0; i < *count; ++i) {
        const ref_insn *insn = &out[i];
        const uint8_t *operand = code + insn->operand_offset;
        uint32_t targets = 0;
        int64_t displacement[2];
        if (ref_is_short_branch(insn->opcode)) {
            displacement[0] = (int8_t)operand[0];
            targets = 1;
        } else if (ref_is_branch(insn->opcode)) {
            displacement[0] = (int32_t)rd32(operand);
            targets = 1;
        } else if (insn->opcode == 0x45) {
            uint32_t k = rd32(operand);
            for (uint32_t t = 0; t < k; ++t) {
                int64_t target = (int64_t)insn->next + (int32_t)rd32(operand + 4 + 4 * (size_t)t);
                if (target < 0 || target >= n || !is_start[target])
                    return 0;
            }
        }
        for (uint32_t t = 0; t < targets; ++t) {
            int64_t target = (int64_t)insn->next + displacement[t];
            if (target < 0 || target >= n || !is_start[target])
                return 0;
        }
    }
    return 1;
}

typedef struct visit_log {
    const uint8_t *code;
    uint32_t code_size;
    aip_il_instruction *seen;
    uint32_t count;
    uint32_t stop_at; /* refuse at this visit (UINT32_MAX: never) */
} visit_log;

static alvk_status record(void *context, const aip_il_instruction *insn)
{
    visit_log *log = context;
    aip_il_instruction decoded;
    AIP_FUZZ_CHECK(aip_il_decode(log->code, log->code_size, insn->offset, &decoded) == ALVK_OK);
    AIP_FUZZ_CHECK(memcmp(&decoded, insn, sizeof decoded) == 0);
    log->seen[log->count] = *insn;
    if (log->count++ == log->stop_at)
        return ALVK_E_BUFFER_TOO_SMALL; /* a status the walk itself never returns */
    return ALVK_OK;
}

static void check_decode_anywhere(const uint8_t *code, uint32_t n)
{
    for (uint32_t at = 0; at < n; ++at) {
        aip_il_instruction insn;
        alvk_status status = aip_il_decode(code, n, at, &insn);
        AIP_FUZZ_CHECK(status == ALVK_OK || status == ALVK_E_IL_MALFORMED);
        if (status != ALVK_OK)
            continue;
        AIP_FUZZ_CHECK(insn.offset == at && insn.next_offset <= n && insn.next_offset > at);
        AIP_FUZZ_CHECK(insn.operand_offset + insn.operand_size == insn.next_offset);
        aip_operand_kind kind;
        AIP_FUZZ_CHECK(aip_il_opcode_operand(insn.opcode, &kind) && kind == insn.operand_kind);
        AIP_FUZZ_CHECK(aip_il_opcode_name(insn.opcode) != NULL);
        unsigned size = insn.opcode >= 0xFE00u ? ref_two_byte((uint8_t)insn.opcode)
                                               : ref_one_byte((uint8_t)insn.opcode);
        AIP_FUZZ_CHECK(size != NOT_AN_OPCODE);
        if (size != SWITCH_SIZE)
            AIP_FUZZ_CHECK(insn.operand_size == size);
        AIP_FUZZ_CHECK(insn.operand_offset == at + (insn.opcode >= 0xFE00u ? 2u : 1u));
    }
    aip_il_instruction past;
    AIP_FUZZ_CHECK(aip_il_decode(code, n, n, &past) == ALVK_E_IL_MALFORMED);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > AIP_IL_MAX_CODE_BYTES) {
        AIP_FUZZ_CHECK(aip_il_walk(data, (uint32_t)size, &starts, NULL, NULL) ==
                       ALVK_E_LIMIT_EXCEEDED);
        return 0;
    }
    uint32_t n = (uint32_t)size;
    uint8_t *code = aip_fuzz_copy(data, n);
    ref_insn *expected = aip_fuzz_alloc((n + 1) * sizeof *expected);
    uint8_t *is_start = aip_fuzz_alloc(n);
    visit_log log = {code, n, aip_fuzz_alloc((n + 1) * sizeof *log.seen), 0, UINT32_MAX};

    uint32_t count = 0;
    int well_formed = ref_walk(code, n, expected, &count, is_start);
    alvk_status status = aip_il_walk(code, n, &starts, record, &log);
    check_decode_anywhere(code, n);
    if (!well_formed) {
        AIP_FUZZ_CHECK(status == ALVK_E_IL_MALFORMED);
        goto done;
    }
    AIP_FUZZ_CHECK(status == ALVK_OK && log.count == count);
    for (uint32_t i = 0; i < count; ++i) {
        AIP_FUZZ_CHECK(log.seen[i].offset == expected[i].offset);
        AIP_FUZZ_CHECK(log.seen[i].opcode == expected[i].opcode);
        AIP_FUZZ_CHECK(log.seen[i].operand_offset == expected[i].operand_offset);
        AIP_FUZZ_CHECK(log.seen[i].next_offset == expected[i].next);
    }
    uint8_t *is_operand = aip_fuzz_alloc(n);
    memset(is_operand, 0, n);
    for (uint32_t i = 0; i < count; ++i)
        if (expected[i].next > expected[i].operand_offset)
            is_operand[expected[i].operand_offset] = 1;
    for (uint32_t at = 0; at <= n; ++at) {
        AIP_FUZZ_CHECK(aip_il_is_start(&starts, n, at) == (at < n && is_start[at]));
        aip_il_instruction found;
        int has = aip_il_find_operand(code, n, &starts, at, &found);
        AIP_FUZZ_CHECK(has == (at < n && is_operand[at]));
        if (has)
            AIP_FUZZ_CHECK(found.operand_offset == at && is_start[found.offset]);
    }
    free(is_operand);

    /* A visitor's refusal ends the walk at that instruction, with that status. */
    if (count > 0) {
        log.count = 0;
        log.stop_at = code[0] % count;
        AIP_FUZZ_CHECK(aip_il_walk(code, n, &starts, record, &log) == ALVK_E_BUFFER_TOO_SMALL);
        AIP_FUZZ_CHECK(log.count == log.stop_at + 1);
    }
done:
    free(log.seen);
    free(is_start);
    free(expected);
    free(code);
    return 0;
}
