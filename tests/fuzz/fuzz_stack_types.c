/* libFuzzer harness for the stack-type checker (il/il_stack_types.h).
 *
 *   clang -fsanitize=fuzzer,address,undefined -I include -I native/interception-profiler/src \
 *     tests/fuzz/fuzz_stack_types.c \
 *     native/interception-profiler/src/il/{il_stack_types,il_walk}.c \
 *     native/interception-profiler/src/metadata/{signature,signature_codec,signature_blobs}.c
 *   ./a.out tests/fuzz/corpus/stack_types
 *
 * The input is a body, the target's signature, EH clauses and an oracle:
 *   u8  flags          bit 0: value-type receiver; bits 1-7 unused
 *   u8  forget         which answers the forgetful oracle drops (see below)
 *   u8  n, n bytes     the target's signature
 *   u16 n, n bytes     the code (at most 4096 bytes are used)
 *   u8  n (<= 4), n x  clause: u8 kind (0 catch, 1 filter, 2 finally, 4 fault),
 *                      u16 try offset, u16 try length, u16 handler offset,
 *                      u16 handler length, u16 filter offset
 *   u32 locals token
 *   u8  n, n entries   answers: u32 token, u32 operand (0xFFFFFFFF: any), u8 kind, then
 *                        kind 0 (member): u8 owner, u32 owner token, u8 n + signature,
 *                                         u8 n + owner instantiation, u8 n + method instantiation
 *                        kind 1 (type):   u8 stack type
 *                        kind 2 (type):   u8 n + TypeSpec blob
 *   the rest           a pool the oracle answers other tokens from, by a hash of the token
 *
 * Properties checked besides "no crash, no sanitizer report":
 *  - the status is OK, STACK_TYPE_MISMATCH or a walk refusal; a mismatch names an
 *    instruction start with its opcode and stack types in range;
 *  - the result is deterministic (a second run gives the same);
 *  - knowing less never refuses more: when the full oracle's check is OK and complete, the
 *    checks with a forgetful oracle (a subset of the same answers) and with no oracle are OK. */
#include "il/il_stack_types.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CODE 4096u
#define MAX_CLAUSES 4u
#define MAX_ENTRIES 32u

typedef struct reader {
    const uint8_t *at;
    size_t left;
} reader;

static uint32_t u8(reader *r)
{
    if (r->left == 0)
        return 0;
    r->left--;
    return *r->at++;
}

static uint32_t u16(reader *r)
{
    uint32_t lo = u8(r);
    return lo | (u8(r) << 8);
}

static uint32_t u32(reader *r)
{
    uint32_t lo = u16(r);
    return lo | (u16(r) << 16);
}

/* n bytes (as many as are left); *length receives how many. */
static const uint8_t *bytes(reader *r, size_t n, uint32_t *length)
{
    if (n > r->left)
        n = r->left;
    const uint8_t *p = r->at;
    r->at += n;
    r->left -= n;
    *length = (uint32_t)n;
    return p;
}

typedef struct entry {
    uint32_t token;
    uint32_t operand;
    uint8_t kind;
    aip_stack_member member;
    aip_stack_type_answer type;
} entry;

typedef struct oracle {
    entry entries[MAX_ENTRIES];
    uint32_t count;
    const uint8_t *pool;
    uint32_t pool_length;
    uint32_t forget; /* 0: the full oracle */
} oracle;

static uint32_t mix(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    x *= 0x846CA68Bu;
    x ^= x >> 16;
    return x;
}

/* A slice of the pool picked by h: a length byte, then that many bytes. */
static const uint8_t *slice(const oracle *o, uint32_t h, uint32_t *length)
{
    *length = 0;
    if (o->pool_length < 2)
        return NULL;
    uint32_t start = h % (o->pool_length - 1u);
    uint32_t n = o->pool[start] % 48u;
    if (n > o->pool_length - start - 1u)
        n = o->pool_length - start - 1u;
    *length = n;
    return n ? o->pool + start + 1u : NULL;
}

static int forgotten(const oracle *o, uint32_t salt)
{
    return o->forget != 0 && ((mix(salt) ^ o->forget) & 3u) == 0;
}

static int member(void *context, uint32_t token, uint32_t operand, aip_stack_member *out)
{
    const oracle *o = context;
    for (uint32_t i = 0; i < o->count; ++i) {
        const entry *e = &o->entries[i];
        if (e->kind == 0 && e->token == token &&
            (e->operand == UINT32_MAX || e->operand == operand)) {
            if (forgotten(o, i))
                return 0;
            *out = e->member;
            return 1;
        }
    }
    uint32_t h = mix(token * 31u + operand);
    if ((h & 7u) == 0 || forgotten(o, h))
        return 0;
    out->signature = slice(o, h >> 3, &out->signature_length);
    if (h & 0x100u)
        out->owner_instantiation = slice(o, h >> 9, &out->owner_instantiation_length);
    if (h & 0x200u)
        out->method_instantiation = slice(o, h >> 10, &out->method_instantiation_length);
    out->owner = (alvk_stack_type)((h >> 12) % 9u);
    out->owner_token = (h & 0x400u) ? 0x02000000u | ((h >> 20) & 0xFu) : 0;
    return 1;
}

static int type(void *context, uint32_t token, uint32_t operand, aip_stack_type_answer *out)
{
    const oracle *o = context;
    for (uint32_t i = 0; i < o->count; ++i) {
        const entry *e = &o->entries[i];
        if (e->kind != 0 && e->token == token &&
            (e->operand == UINT32_MAX || e->operand == operand)) {
            if (forgotten(o, i))
                return 0;
            *out = e->type;
            return 1;
        }
    }
    uint32_t h = mix(token ^ 0x9E3779B9u);
    if ((h & 3u) == 0 || forgotten(o, h))
        return 0;
    if (h & 4u)
        out->spec = slice(o, h >> 3, &out->spec_length);
    else
        out->stack = (alvk_stack_type)((h >> 3) % 9u);
    return 1;
}

static void read_entries(reader *r, oracle *o)
{
    uint32_t n = u8(r);
    for (uint32_t i = 0; i < n && o->count < MAX_ENTRIES; ++i) {
        entry *e = &o->entries[o->count++];
        memset(e, 0, sizeof *e);
        e->token = u32(r);
        e->operand = u32(r);
        e->kind = (uint8_t)(u8(r) % 3u);
        if (e->kind == 0) {
            e->member.owner = (alvk_stack_type)(u8(r) % 9u);
            e->member.owner_token = u32(r);
            e->member.signature = bytes(r, u8(r), &e->member.signature_length);
            e->member.owner_instantiation = bytes(r, u8(r), &e->member.owner_instantiation_length);
            e->member.method_instantiation =
                bytes(r, u8(r), &e->member.method_instantiation_length);
        } else if (e->kind == 1) {
            e->type.stack = (alvk_stack_type)(u8(r) % 9u);
        } else {
            e->type.spec = bytes(r, u8(r), &e->type.spec_length);
        }
    }
}

static int same(const aip_stack_result *a, const aip_stack_result *b)
{
    return a->offset == b->offset && a->opcode == b->opcode && a->found == b->found &&
           a->expected == b->expected && a->complete == b->complete;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    uint32_t flags = u8(&r);
    uint32_t forget = u8(&r) | 0x100u; /* never 0: 0 is the full oracle */
    aip_stack_target target;
    memset(&target, 0, sizeof target);
    target.signature = bytes(&r, u8(&r), &target.signature_length);
    target.value_type_receiver = flags & 1u;

    aip_stack_body body;
    memset(&body, 0, sizeof body);
    uint32_t code_length = u16(&r);
    body.code = bytes(&r, code_length > MAX_CODE ? MAX_CODE : code_length, &body.code_size);
    aip_eh_clause clauses[MAX_CLAUSES];
    uint32_t clause_count = u8(&r) % (MAX_CLAUSES + 1u);
    uint32_t limit = body.code_size + 1u;
    for (uint32_t i = 0; i < clause_count; ++i) {
        static const uint32_t kinds[4] = {0, 1, 2, 4};
        clauses[i].flags = kinds[u8(&r) & 3u];
        clauses[i].try_offset = u16(&r) % limit;
        clauses[i].try_length = u16(&r) % limit;
        clauses[i].handler_offset = u16(&r) % limit;
        clauses[i].handler_length = u16(&r) % limit;
        clauses[i].class_token_or_filter_offset = u16(&r) % limit;
    }
    body.clauses = clause_count ? clauses : NULL;
    body.clause_count = clause_count;
    body.locals_token = u32(&r);

    static oracle full; /* large; one at a time */
    memset(&full, 0, sizeof full);
    read_entries(&r, &full);
    full.pool = r.at;
    full.pool_length = (uint32_t)(r.left > UINT32_MAX ? UINT32_MAX : r.left);

    aip_stack_oracle with_full = {&full, member, type};
    aip_stack_result first, second;
    alvk_status status = aip_il_check_stack_types(&body, &target, &with_full, &first);
    if (status != ALVK_OK && status != ALVK_E_STACK_TYPE_MISMATCH &&
        status != ALVK_E_IL_MALFORMED && status != ALVK_E_LIMIT_EXCEEDED)
        abort();
    if (status == ALVK_E_STACK_TYPE_MISMATCH) {
        static aip_il_starts starts;
        aip_il_instruction insn;
        if (aip_il_walk(body.code, body.code_size, &starts, NULL, NULL) != ALVK_OK ||
            !aip_il_is_start(&starts, body.code_size, first.offset) ||
            aip_il_decode(body.code, body.code_size, first.offset, &insn) != ALVK_OK ||
            insn.opcode != first.opcode || first.found > ALVK_STACK_VALUE_TYPE ||
            first.expected > ALVK_STACK_VALUE_TYPE)
            abort();
    }
    if (aip_il_check_stack_types(&body, &target, &with_full, &second) != status ||
        !same(&first, &second))
        abort();

    if (status == ALVK_OK && first.complete) {
        aip_stack_result less;
        full.forget = forget;
        if (aip_il_check_stack_types(&body, &target, &with_full, &less) != ALVK_OK)
            abort();
        if (aip_il_check_stack_types(&body, &target, NULL, &less) != ALVK_OK)
            abort();
    }
    return 0;
}
