/* CIL instruction decoding and walking (ECMA-335 III.1.2, III.1.7): over a bounded code
 * range, every instruction's offset, opcode, operand kind, operand offset and size, with
 * branch and switch targets checked against the instruction starts. No allocation: the
 * caller provides the instruction-start bitmap. Pure; no runtime needed. */
#ifndef AIP_IL_WALK_H
#define AIP_IL_WALK_H

#include "alvorkit_interception_profiler.h"
#include "il/il_opcodes.h"

#include <stdint.h>

/* AIP_CEE_<ident> = value, e.g. AIP_CEE_CALLI = 0x29, AIP_CEE_LDARG = 0xFE09. */
/* clang-format off */
typedef enum aip_cee_opcode {
#define AIP_CEE_ENUM_ENTRY(ident, name, value, operand, stack, type) AIP_CEE_##ident = value,
    AIP_IL_OPCODES(AIP_CEE_ENUM_ENTRY)
#undef AIP_CEE_ENUM_ENTRY
    AIP_CEE_PREFIX1 = 0xFE /* first byte of every two-byte opcode; not an opcode itself */
} aip_cee_opcode;
/* clang-format on */

/* Longest code the walker accepts: the code of a generation body always fits. */
#define AIP_IL_MAX_CODE_BYTES ALVK_MAX_GENERATION_BODY_BYTES

/* One bit per code offset, set where an instruction starts (8 KiB; fine on a stack). */
typedef struct aip_il_starts {
    uint8_t bits[AIP_IL_MAX_CODE_BYTES / 8];
} aip_il_starts;

typedef struct aip_il_instruction {
    uint32_t offset; /* of the first opcode byte */
    uint32_t opcode; /* aip_cee_opcode: 0x00-0xE0, or 0xFE00 | second byte */
    aip_operand_kind operand_kind;
    uint32_t operand_offset; /* offset + 1, or offset + 2 for two-byte opcodes */
    uint32_t operand_size;   /* bytes; for SWITCH 4 + 4 * target count */
    uint32_t next_offset;    /* operand_offset + operand_size */
} aip_il_instruction;

/* The opcode's ECMA name ("ldarg.s", "constrained."), or NULL when it is not an opcode. */
const char *aip_il_opcode_name(uint32_t opcode);

/* 1 and *kind for a valid opcode, 0 for an unused or reserved value. */
int aip_il_opcode_operand(uint32_t opcode, aip_operand_kind *kind);

/* 1, *rule and *type (an alvk_stack_type) for a valid opcode: its stack rule and the stack
 * type the rule is about (il_opcodes.h); 0 for an unused or reserved value. */
int aip_il_opcode_stack(uint32_t opcode, aip_stack_rule *rule, alvk_stack_type *type);

/* 1 for the kinds whose operand is a metadata token (METHOD, FIELD, TYPE, TOK, STRING,
 * SIG). */
int aip_il_operand_is_token(aip_operand_kind kind);

/* Decodes the instruction at code[offset]. ALVK_E_IL_MALFORMED when offset is not inside
 * the code, the opcode is unused or reserved (a lone 0xFE at the end included), or the
 * operand runs past code_size; ALVK_E_LIMIT_EXCEEDED when code_size >
 * AIP_IL_MAX_CODE_BYTES; ALVK_E_NULL_ARGUMENT. Branch targets are not checked here. */
alvk_status aip_il_decode(const uint8_t *code, uint32_t code_size, uint32_t offset,
                          aip_il_instruction *out);

/* Called once per instruction, in order, after that instruction's branch or switch targets
 * were checked; a status other than ALVK_OK stops the walk and is returned. */
typedef alvk_status (*aip_il_visit)(void *context, const aip_il_instruction *instruction);

/* Walks code[0 .. code_size): decodes every instruction (as aip_il_decode), records the
 * instruction starts in *starts, then checks every branch and switch target: a target must
 * be the start of an instruction, so inside [0, code_size) (code_size itself is refused).
 * Any failure is ALVK_E_IL_MALFORMED (limits and NULLs as aip_il_decode; starts is
 * required, visit may be NULL). Empty code (code_size 0) walks no instruction. Bits of
 * *starts at or past code_size are unspecified. */
alvk_status aip_il_walk(const uint8_t *code, uint32_t code_size, aip_il_starts *starts,
                        aip_il_visit visit, void *context);

/* 1 when an instruction starts at offset (offset < code_size), after a successful walk. */
int aip_il_is_start(const aip_il_starts *starts, uint32_t code_size, uint32_t offset);

/* After a successful walk of the same code: 1 and *out when some instruction's operand
 * (of nonzero size) starts exactly at operand_offset; 0 otherwise (an opcode byte, the
 * middle of an operand, an instruction without operand, or outside the code). */
int aip_il_find_operand(const uint8_t *code, uint32_t code_size, const aip_il_starts *starts,
                        uint32_t operand_offset, aip_il_instruction *out);

#endif
