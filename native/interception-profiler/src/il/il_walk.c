/* CIL instruction decoding and walking. Opcode tables are built at compile time from the
 * AIP_IL_OPCODES list; every read is checked against code_size before it happens, and
 * offsets and targets are computed in 64 bits so no sum can wrap. */
#include "il/il_walk.h"

#include <stddef.h>
#include <string.h>

/* Table slot of an opcode: one-byte opcodes at 0x000-0x0FF, 0xFExx at 0x100-0x1FF. */
/* clang-format off */
#define AIP_IL_SLOT(value) ((value) < 0x100u ? (value) : 0x100u | ((value) & 0xFFu))
/* clang-format on */
#define AIP_IL_SLOTS 0x200u
#define AIP_IL_TWO_BYTE_BASE 0xFE00u

/* Operand kind + 1 per slot; 0 marks an unused or reserved value. */
static const uint8_t aip_il_kind_plus_one[AIP_IL_SLOTS] = {
#define AIP_IL_KIND_ENTRY(ident, name, value, operand, stack, type) \
    [AIP_IL_SLOT(value)] = (uint8_t)(AIP_OPERAND_##operand + 1),
    AIP_IL_OPCODES(AIP_IL_KIND_ENTRY)
#undef AIP_IL_KIND_ENTRY
};

static const char *const aip_il_names[AIP_IL_SLOTS] = {
#define AIP_IL_NAME_ENTRY(ident, name, value, operand, stack, type) [AIP_IL_SLOT(value)] = name,
    AIP_IL_OPCODES(AIP_IL_NAME_ENTRY)
#undef AIP_IL_NAME_ENTRY
};

/* Stack rule and stack type per slot (unused slots read as NONE / NOTHING). */
static const struct {
    uint8_t rule;
    uint8_t type;
} aip_il_stack[AIP_IL_SLOTS] = {
#define AIP_IL_STACK_ENTRY(ident, name, value, operand, stack, type) \
    [AIP_IL_SLOT(value)] = {(uint8_t)AIP_STACK_RULE_##stack, (uint8_t)ALVK_STACK_##type},
    AIP_IL_OPCODES(AIP_IL_STACK_ENTRY)
#undef AIP_IL_STACK_ENTRY
};
_Static_assert(AIP_STACK_RULE_COUNT <= 256, "a stack rule fits the table's byte");

/* Fixed operand sizes by kind; SWITCH is 4 here (its count) plus 4 per target. */
static const uint8_t aip_il_operand_sizes[AIP_OPERAND_KIND_COUNT] = {
    [AIP_OPERAND_NONE] = 0,     [AIP_OPERAND_SHORT_VAR] = 1, [AIP_OPERAND_SHORT_I] = 1,
    [AIP_OPERAND_SHORT_BR] = 1, [AIP_OPERAND_SHORT_R] = 4,   [AIP_OPERAND_I] = 4,
    [AIP_OPERAND_I8] = 8,       [AIP_OPERAND_R] = 8,         [AIP_OPERAND_VAR] = 2,
    [AIP_OPERAND_BR] = 4,       [AIP_OPERAND_SWITCH] = 4,    [AIP_OPERAND_METHOD] = 4,
    [AIP_OPERAND_FIELD] = 4,    [AIP_OPERAND_TYPE] = 4,      [AIP_OPERAND_TOK] = 4,
    [AIP_OPERAND_STRING] = 4,   [AIP_OPERAND_SIG] = 4,
};

static uint32_t aip_il_rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static int aip_il_slot_of(uint32_t opcode, uint32_t *slot)
{
    if (opcode < 0x100u && opcode != AIP_CEE_PREFIX1) {
        *slot = opcode;
        return 1;
    }
    if ((opcode & ~0xFFu) == AIP_IL_TWO_BYTE_BASE) {
        *slot = AIP_IL_SLOT(opcode);
        return 1;
    }
    return 0;
}

const char *aip_il_opcode_name(uint32_t opcode)
{
    uint32_t slot;
    return aip_il_slot_of(opcode, &slot) ? aip_il_names[slot] : NULL;
}

int aip_il_opcode_operand(uint32_t opcode, aip_operand_kind *kind)
{
    uint32_t slot;
    if (!aip_il_slot_of(opcode, &slot) || aip_il_kind_plus_one[slot] == 0)
        return 0;
    if (kind != NULL)
        *kind = (aip_operand_kind)(aip_il_kind_plus_one[slot] - 1);
    return 1;
}

int aip_il_opcode_stack(uint32_t opcode, aip_stack_rule *rule, alvk_stack_type *type)
{
    uint32_t slot;
    if (!aip_il_slot_of(opcode, &slot) || aip_il_kind_plus_one[slot] == 0)
        return 0;
    if (rule != NULL)
        *rule = (aip_stack_rule)aip_il_stack[slot].rule;
    if (type != NULL)
        *type = (alvk_stack_type)aip_il_stack[slot].type;
    return 1;
}

int aip_il_operand_is_token(aip_operand_kind kind)
{
    switch (kind) {
    case AIP_OPERAND_METHOD:
    case AIP_OPERAND_FIELD:
    case AIP_OPERAND_TYPE:
    case AIP_OPERAND_TOK:
    case AIP_OPERAND_STRING:
    case AIP_OPERAND_SIG:
        return 1;
    default:
        return 0;
    }
}

alvk_status aip_il_decode(const uint8_t *code, uint32_t code_size, uint32_t offset,
                          aip_il_instruction *out)
{
    if (out == NULL || (code == NULL && code_size != 0))
        return ALVK_E_NULL_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (code_size > AIP_IL_MAX_CODE_BYTES)
        return ALVK_E_LIMIT_EXCEEDED;
    if (offset >= code_size)
        return ALVK_E_IL_MALFORMED;
    uint32_t opcode = code[offset];
    uint64_t operand_offset = (uint64_t)offset + 1u;
    if (opcode == AIP_CEE_PREFIX1) {
        if (operand_offset >= code_size)
            return ALVK_E_IL_MALFORMED;
        opcode = AIP_IL_TWO_BYTE_BASE | code[operand_offset];
        operand_offset += 1u;
    }
    aip_operand_kind kind;
    if (!aip_il_opcode_operand(opcode, &kind))
        return ALVK_E_IL_MALFORMED;
    uint64_t operand_size = aip_il_operand_sizes[kind];
    if (operand_offset + operand_size > code_size)
        return ALVK_E_IL_MALFORMED;
    if (kind == AIP_OPERAND_SWITCH) {
        uint64_t count = aip_il_rd32(code + operand_offset);
        operand_size += 4u * count;
        if (operand_offset + operand_size > code_size)
            return ALVK_E_IL_MALFORMED;
    }
    out->offset = offset;
    out->opcode = opcode;
    out->operand_kind = kind;
    out->operand_offset = (uint32_t)operand_offset;
    out->operand_size = (uint32_t)operand_size;
    out->next_offset = (uint32_t)(operand_offset + operand_size);
    return ALVK_OK;
}

int aip_il_is_start(const aip_il_starts *starts, uint32_t code_size, uint32_t offset)
{
    if (starts == NULL || offset >= code_size || offset >= AIP_IL_MAX_CODE_BYTES)
        return 0;
    return (starts->bits[offset >> 3] >> (offset & 7u)) & 1u;
}

static int aip_il_target_ok(const aip_il_starts *starts, uint32_t code_size, uint32_t next,
                            int32_t displacement)
{
    int64_t target = (int64_t)next + displacement;
    if (target < 0 || target >= (int64_t)code_size)
        return 0;
    return aip_il_is_start(starts, code_size, (uint32_t)target);
}

static alvk_status aip_il_check_targets(const uint8_t *code, uint32_t code_size,
                                        const aip_il_starts *starts, const aip_il_instruction *insn)
{
    const uint8_t *operand = code + insn->operand_offset;
    int32_t displacement;
    switch (insn->operand_kind) {
    case AIP_OPERAND_SHORT_BR:
        displacement = (int8_t)operand[0];
        break;
    case AIP_OPERAND_BR:
        displacement = (int32_t)aip_il_rd32(operand);
        break;
    case AIP_OPERAND_SWITCH: {
        uint32_t count = aip_il_rd32(operand);
        for (uint32_t i = 0; i < count; ++i) {
            displacement = (int32_t)aip_il_rd32(operand + 4u + 4u * (size_t)i);
            if (!aip_il_target_ok(starts, code_size, insn->next_offset, displacement))
                return ALVK_E_IL_MALFORMED;
        }
        return ALVK_OK;
    }
    default:
        return ALVK_OK;
    }
    return aip_il_target_ok(starts, code_size, insn->next_offset, displacement)
               ? ALVK_OK
               : ALVK_E_IL_MALFORMED;
}

alvk_status aip_il_walk(const uint8_t *code, uint32_t code_size, aip_il_starts *starts,
                        aip_il_visit visit, void *context)
{
    if (starts == NULL || (code == NULL && code_size != 0))
        return ALVK_E_NULL_ARGUMENT;
    if (code_size > AIP_IL_MAX_CODE_BYTES)
        return ALVK_E_LIMIT_EXCEEDED;
    memset(starts->bits, 0, ((size_t)code_size + 7u) / 8u);
    aip_il_instruction insn;
    alvk_status status;
    for (uint32_t offset = 0; offset < code_size; offset = insn.next_offset) {
        status = aip_il_decode(code, code_size, offset, &insn);
        if (status != ALVK_OK)
            return status;
        starts->bits[offset >> 3] |= (uint8_t)(1u << (offset & 7u));
    }
    for (uint32_t offset = 0; offset < code_size; offset = insn.next_offset) {
        status = aip_il_decode(code, code_size, offset, &insn);
        if (status == ALVK_OK)
            status = aip_il_check_targets(code, code_size, starts, &insn);
        if (status == ALVK_OK && visit != NULL)
            status = visit(context, &insn);
        if (status != ALVK_OK)
            return status;
    }
    return ALVK_OK;
}

int aip_il_find_operand(const uint8_t *code, uint32_t code_size, const aip_il_starts *starts,
                        uint32_t operand_offset, aip_il_instruction *out)
{
    if (code == NULL || starts == NULL || out == NULL || operand_offset >= code_size)
        return 0;
    /* The opcode is 1 or 2 bytes, so the instruction starts 1 or 2 bytes earlier. */
    for (uint32_t back = 1; back <= 2 && back <= operand_offset; ++back) {
        uint32_t start = operand_offset - back;
        if (!aip_il_is_start(starts, code_size, start))
            continue;
        aip_il_instruction insn;
        if (aip_il_decode(code, code_size, start, &insn) == ALVK_OK &&
            insn.operand_offset == operand_offset && insn.operand_size != 0) {
            *out = insn;
            return 1;
        }
        return 0; /* a start one byte back rules out one two bytes back */
    }
    return 0;
}
