/* Fuzzes il/call_redirect.h: the input's first 8 bytes are the `from` and `to` tokens (little
 * endian), the rest is code. aip_il_redirect_calls must answer what aip_il_walk answers for the
 * code; when it refuses, the code is unchanged; when it succeeds, the code is as long as before,
 * walks again, and differs exactly in the `call <from>` and `callvirt <from>` instructions (now
 * `call <to>`), whose number is `redirected`, the callvirts among them `virtual_calls`; unless a
 * call of `from` follows a `constrained.` prefix (other prefixes between them allowed): then the
 * code is unchanged, `redirected` and `virtual_calls` are 0 and `constrained` counts those calls.
 * The instructions are found by the walk of the original code (il_walk's own harness checks that
 * walk against a reference). aip_il_find_calls, over the same code behind a fat header, must
 * answer the walk's status and find `from` exactly when the rewrite would change something. */
#include "fuzz_input.h"

#include "il/call_redirect.h"

static aip_il_starts starts;

typedef struct found_calls {
    const uint8_t *code;
    uint32_t from;
    uint8_t *changed; /* 1 at each `call`/`callvirt <from>` operand's first byte, 2 at a callvirt */
    uint32_t calls, virtual_calls, constrained;
    int after_constrained; /* a `constrained.` prefix precedes the next instruction */
} found_calls;

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* ECMA-335 III.2: unaligned., volatile., tail., constrained., no., readonly. */
static int prefix(uint32_t opcode)
{
    switch (opcode) {
    case 0xFE12:
    case 0xFE13:
    case 0xFE14:
    case 0xFE16:
    case 0xFE19:
    case 0xFE1E:
        return 1;
    default:
        return 0;
    }
}

/* code behind a fat header (ECMA-335 II.25.4.3: flags 0x3003, max stack 8, no locals). */
static uint8_t *fat_body(const uint8_t *code, uint32_t n)
{
    uint8_t *body = aip_fuzz_alloc(n + 12);
    const uint8_t header[12] = {0x03,
                                0x30,
                                0x08,
                                0x00,
                                (uint8_t)n,
                                (uint8_t)(n >> 8),
                                (uint8_t)(n >> 16),
                                (uint8_t)(n >> 24),
                                0,
                                0,
                                0,
                                0};
    memcpy(body, header, sizeof header);
    if (n > 0)
        memcpy(body + 12, code, n);
    return body;
}

static alvk_status find(void *context, const aip_il_instruction *insn)
{
    found_calls *f = context;
    int constrained = f->after_constrained;
    if (insn->opcode == 0xFE16)
        f->after_constrained = 1;
    else if (!prefix(insn->opcode))
        f->after_constrained = 0;
    if ((insn->opcode == AIP_CEE_CALL || insn->opcode == AIP_CEE_CALLVIRT) &&
        rd32(f->code + insn->operand_offset) == f->from && constrained) {
        f->constrained++;
    } else if ((insn->opcode == AIP_CEE_CALL || insn->opcode == AIP_CEE_CALLVIRT) &&
               rd32(f->code + insn->operand_offset) == f->from) {
        f->changed[insn->operand_offset] = 1;
        if (insn->opcode == AIP_CEE_CALL) {
            f->calls++;
        } else {
            f->changed[insn->offset] = 2;
            f->virtual_calls++;
        }
    }
    return ALVK_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8 || size - 8 > AIP_IL_MAX_CODE_BYTES)
        return 0;
    uint32_t from = rd32(data), to = rd32(data + 4), n = (uint32_t)(size - 8);
    uint8_t *original = aip_fuzz_copy(data + 8, n);
    uint8_t *code = aip_fuzz_copy(data + 8, n);
    found_calls f = {original, from, aip_fuzz_alloc(n + 1), 0, 0, 0, 0};
    memset(f.changed, 0, n + 1);
    alvk_status walked = aip_il_walk(original, n, &starts, find, &f);

    /* The search, before the rewrite changes the code: `from` found (as the first or the second
     * method looked for) exactly when there is a call of it to rewrite. */
    uint8_t *body = fat_body(original, n);
    const uint32_t looked[2] = {to, from};
    uint32_t found = UINT32_MAX;
    int expected = walked == ALVK_OK && f.constrained == 0 && f.calls + f.virtual_calls > 0;
    AIP_FUZZ_CHECK(aip_il_find_calls(body, n + 12, looked + 1, 1, &starts, &found) == walked);
    AIP_FUZZ_CHECK(found == (expected ? 1u : 0u));
    AIP_FUZZ_CHECK(aip_il_find_calls(body, n + 12, looked, 2, &starts, &found) == walked);
    AIP_FUZZ_CHECK(((found >> 1) & 1u) == (uint32_t)expected);
    free(body);

    aip_call_redirect_counts counts = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
    alvk_status status = aip_il_redirect_calls(code, n, from, to, &starts, &counts);
    AIP_FUZZ_CHECK(status == walked);
    if (status != ALVK_OK) {
        AIP_FUZZ_CHECK(memcmp(code, original, n) == 0);
        goto done;
    }
    AIP_FUZZ_CHECK(counts.constrained == f.constrained);
    if (f.constrained > 0) {
        AIP_FUZZ_CHECK(counts.redirected == 0 && counts.virtual_calls == 0);
        AIP_FUZZ_CHECK(memcmp(code, original, n) == 0);
        goto done;
    }
    AIP_FUZZ_CHECK(counts.redirected == f.calls + f.virtual_calls &&
                   counts.virtual_calls == f.virtual_calls);
    for (uint32_t at = 0; at < n;) {
        if (f.changed[at] == 2) {
            AIP_FUZZ_CHECK(code[at] == AIP_CEE_CALL);
            at++;
            continue;
        }
        if (f.changed[at] == 1 && at + 4 <= n) {
            AIP_FUZZ_CHECK(rd32(code + at) == to);
            at += 4;
            continue;
        }
        AIP_FUZZ_CHECK(code[at] == original[at]);
        at++;
    }
    AIP_FUZZ_CHECK(aip_il_walk(code, n, &starts, NULL, NULL) == ALVK_OK);
    /* A null argument is refused and changes nothing. */
    AIP_FUZZ_CHECK(aip_il_redirect_calls(code, n, from, to, &starts, NULL) == ALVK_E_NULL_ARGUMENT);
done:
    free(f.changed);
    free(code);
    free(original);
    return 0;
}
