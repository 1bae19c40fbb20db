/* Redirecting call sites in place: one walk to check and count, one to rewrite (none when a
 * call of `from` is constrained). */
#include "il/call_redirect.h"

#include "il/method_body.h"

#include <stddef.h>

typedef struct redirect_pass {
    uint8_t *code;
    uint32_t from;
    uint32_t to;
    int rewrite;
    int constrained; /* a `constrained.` prefix precedes the next instruction */
    aip_call_redirect_counts counts;
} redirect_pass;

static uint32_t read_token(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static void write_token(uint8_t *p, uint32_t token)
{
    p[0] = (uint8_t)token;
    p[1] = (uint8_t)(token >> 8);
    p[2] = (uint8_t)(token >> 16);
    p[3] = (uint8_t)(token >> 24);
}

/* The prefixes (ECMA-335 III.2), which may stand between `constrained.` and its callvirt. */
static int is_prefix(uint32_t opcode)
{
    return opcode == AIP_CEE_CONSTRAINED || opcode == AIP_CEE_TAIL || opcode == AIP_CEE_UNALIGNED ||
           opcode == AIP_CEE_VOLATILE || opcode == AIP_CEE_NO || opcode == AIP_CEE_READONLY;
}

/* One step of a walk over call sites: updates *constrained (a `constrained.` prefix precedes the
 * next instruction); for a call or callvirt, sets *token and *behind_constrained and returns 1. */
static int call_site(int *constrained, const uint8_t *code, const aip_il_instruction *instruction,
                     uint32_t *token, int *behind_constrained)
{
    *behind_constrained = *constrained;
    if (instruction->opcode == AIP_CEE_CONSTRAINED)
        *constrained = 1;
    else if (!is_prefix(instruction->opcode))
        *constrained = 0;
    if (instruction->opcode != AIP_CEE_CALL && instruction->opcode != AIP_CEE_CALLVIRT)
        return 0;
    *token = read_token(code + instruction->operand_offset);
    return 1;
}

static alvk_status visit(void *context, const aip_il_instruction *instruction)
{
    redirect_pass *pass = context;
    uint32_t token;
    int constrained;
    if (!call_site(&pass->constrained, pass->code, instruction, &token, &constrained) ||
        token != pass->from)
        return ALVK_OK;
    uint8_t *operand = pass->code + instruction->operand_offset;
    if (constrained) {
        pass->counts.constrained++;
        return ALVK_OK;
    }
    if (instruction->opcode == AIP_CEE_CALLVIRT)
        pass->counts.virtual_calls++;
    pass->counts.redirected++;
    if (pass->rewrite) {
        pass->code[instruction->offset] = (uint8_t)AIP_CEE_CALL; /* callvirt's one byte */
        write_token(operand, pass->to);
    }
    return ALVK_OK;
}

alvk_status aip_il_redirect_calls(uint8_t *code, uint32_t code_size, uint32_t from, uint32_t to,
                                  aip_il_starts *starts, aip_call_redirect_counts *counts)
{
    if (code == NULL || starts == NULL || counts == NULL)
        return ALVK_E_NULL_ARGUMENT;
    redirect_pass pass = {code, from, to, 0, 0, {0, 0, 0}};
    alvk_status status = aip_il_walk(code, code_size, starts, visit, &pass);
    if (status != ALVK_OK)
        return status;
    if (pass.counts.constrained > 0) {
        pass.counts.redirected = 0;
        pass.counts.virtual_calls = 0;
    } else if (pass.counts.redirected > 0) {
        pass.rewrite = 1;
        pass.constrained = 0;
        pass.counts = (aip_call_redirect_counts){0, 0, 0};
        status = aip_il_walk(code, code_size, starts, visit, &pass);
        if (status != ALVK_OK)
            return status; /* not reached: the same code walked a moment ago */
    }
    *counts = pass.counts;
    return ALVK_OK;
}

alvk_status aip_il_redirect_body(uint8_t *body, uint32_t size, const aip_call_route *routes,
                                 uint32_t count, aip_il_starts *starts,
                                 aip_call_redirect_counts *totals)
{
    if (body == NULL || totals == NULL || (routes == NULL && count > 0))
        return ALVK_E_NULL_ARGUMENT;
    *totals = (aip_call_redirect_counts){0, 0, 0};
    aip_method_body parsed;
    alvk_status status = aip_method_body_parse(body, size, &parsed, NULL, 0);
    for (uint32_t i = 0; i < count && status == ALVK_OK; ++i) {
        aip_call_redirect_counts counts;
        status = aip_il_redirect_calls(body + parsed.code_offset, parsed.code_size, routes[i].from,
                                       routes[i].to, starts, &counts);
        if (status == ALVK_OK) {
            totals->redirected += counts.redirected;
            totals->virtual_calls += counts.virtual_calls;
            totals->constrained += counts.constrained;
        }
    }
    return status;
}

typedef struct find_pass {
    const uint8_t *code;
    const uint32_t *froms;
    uint32_t count;
    int constrained; /* as redirect_pass's */
    uint32_t called;
    uint32_t refused; /* froms called behind `constrained.` */
} find_pass;

static alvk_status find_visit(void *context, const aip_il_instruction *instruction)
{
    find_pass *pass = context;
    uint32_t token;
    int constrained;
    if (!call_site(&pass->constrained, pass->code, instruction, &token, &constrained))
        return ALVK_OK;
    for (uint32_t i = 0; i < pass->count; ++i)
        if (pass->froms[i] == token) {
            if (constrained)
                pass->refused |= 1u << i;
            else
                pass->called |= 1u << i;
        }
    return ALVK_OK;
}

alvk_status aip_il_find_calls(const uint8_t *body, uint32_t size, const uint32_t *froms,
                              uint32_t count, aip_il_starts *starts, uint32_t *found)
{
    if (body == NULL || starts == NULL || found == NULL || (froms == NULL && count > 0))
        return ALVK_E_NULL_ARGUMENT;
    *found = 0;
    if (count > AIP_IL_FIND_CALLS_MAX)
        return ALVK_E_LIMIT_EXCEEDED;
    aip_method_body parsed;
    alvk_status status = aip_method_body_parse(body, size, &parsed, NULL, 0);
    if (status != ALVK_OK)
        return status;
    find_pass pass = {body + parsed.code_offset, froms, count, 0, 0, 0};
    status = aip_il_walk(pass.code, parsed.code_size, starts, find_visit, &pass);
    if (status == ALVK_OK)
        *found = pass.called & ~pass.refused;
    return status;
}
