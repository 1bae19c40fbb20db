/* Fuzzes exact-dispatch emission (il/dispatch.h) and checks what it emits with the
 * parsers. Input: byte 0 = receiver kind (low 2 bits; 3 is no valid kind) and the direct
 * call's token (bit 3 set: bytes 13-16 as they are; else their row under MemberRef, or
 * MethodDef when bit 2 is set), bytes 1-4 the declaring type token, 5-12 the replacement
 * pointer, 13-16 the calli signature token (all little-endian); the rest is the target's
 * signature, which must parse as a method signature for anything to be emitted. Checks:
 *  - both emitters refuse exactly what the header says, with the status it names;
 *  - the calli signature re-parses (aip_sig_parse_method, aip_sig_parse_standalone) as a
 *    static DEFAULT signature whose return type and parameters are the target's bytes,
 *    after the receiver (CLASS or BYREF VALUETYPE of the declaring type) when there is one;
 *  - the body re-parses (aip_method_body_parse) as a fat body of exactly the bytes
 *    written, no locals, no clauses, max_stack = arguments + 1, and its code walks
 *    (aip_il_walk) as ldarg 0 .. n-1 in the shortest forms, ldc.i8 <replacement>, conv.i,
 *    calli <token> at the reported offset, ret, with n = the calli signature's parameters;
 *  - one byte less of capacity is BUFFER_TOO_SMALL (exact-size output blocks otherwise);
 *  - the body and signature, as the generation rejit/apply_generation.c builds from them, pass
 *    aip_generation_validate;
 *  - the direct-call body (aip_dispatch_emit_call_body) refuses what the calli body does and
 *    a token that is neither a MethodDef nor a MemberRef; otherwise it is ldarg 0 .. n-1 as
 *    above, call <token> at the reported offset, ret, with max_stack = max(n, 1), exact-size,
 *    and its generation (a MethodDef: no relocation; a MemberRef: TypeRef under an
 *    AssemblyRef, then the MemberRef with the calli signature) validates. */
#include "fuzz_input.h"
#include "fuzz_sig_checks.h"

#include "generation/generation_validate.h"
#include "il/dispatch.h"
#include "il/il_walk.h"
#include "metadata/signature_blobs.h"

#define HEADER_BYTES 17
#define FAT_HEADER 12u

static aip_method_sig target_sig, calli_sig;

/* The status the emitters must return for this target, from the header's rules. */
static alvk_status expected_status(const aip_dispatch_target *t, uint32_t *arg_count)
{
    const aip_method_sig *s = t->parsed;
    uint8_t generic = s->ret.uses_generic_variable;
    for (uint32_t i = 0; i < s->param_count; ++i)
        generic |= s->params[i].uses_generic_variable;
    if (s->generic_param_count > 0 || generic)
        return ALVK_E_GENERIC_TARGET_UNSUPPORTED;
    if (s->kind != IMAGE_CEE_CS_CALLCONV_DEFAULT || s->explicit_this)
        return ALVK_E_SIGNATURE_UNSUPPORTED;
    if (t->receiver == AIP_RECEIVER_NONE) {
        *arg_count = s->param_count;
        return s->has_this ? ALVK_E_SIGNATURE_UNSUPPORTED : ALVK_OK;
    }
    if (t->receiver != AIP_RECEIVER_CLASS && t->receiver != AIP_RECEIVER_VALUE_TYPE)
        return ALVK_E_SIGNATURE_UNSUPPORTED;
    if (!s->has_this || (t->declaring_type & 0xFF000000u) != mdtTypeDef ||
        (t->declaring_type & 0x00FFFFFFu) == 0)
        return ALVK_E_SIGNATURE_UNSUPPORTED;
    *arg_count = s->param_count + 1;
    return *arg_count > AIP_SIG_MAX_PARAMS ? ALVK_E_LIMIT_EXCEEDED : ALVK_OK;
}

static void same_bytes(const uint8_t *a, const aip_sig_type *ta, const uint8_t *b,
                       const aip_sig_type *tb)
{
    AIP_FUZZ_CHECK(ta->length == tb->length);
    AIP_FUZZ_CHECK(memcmp(a + ta->offset, b + tb->offset, ta->length) == 0);
}

static void check_calli_signature(const aip_dispatch_target *t, const uint8_t *sig, size_t n,
                                  uint32_t arg_count)
{
    AIP_FUZZ_CHECK(aip_sig_parse_method(sig, n, 0, &calli_sig) == ALVK_OK);
    aip_fuzz_check_method(sig, n, &calli_sig);
    AIP_FUZZ_CHECK(calli_sig.calling_convention == IMAGE_CEE_CS_CALLCONV_DEFAULT);
    AIP_FUZZ_CHECK(calli_sig.param_count == arg_count);
    aip_standalone_sig_kind kind;
    AIP_FUZZ_CHECK(aip_sig_parse_standalone(sig, n, &kind) == ALVK_OK &&
                   kind == AIP_STANDALONE_SIG_METHOD);
    same_bytes(sig, &calli_sig.ret, t->signature, &target_sig.ret);
    uint32_t first = 0;
    if (t->receiver != AIP_RECEIVER_NONE) {
        const aip_sig_type *receiver = &calli_sig.params[0];
        int by_value = t->receiver == AIP_RECEIVER_VALUE_TYPE;
        AIP_FUZZ_CHECK(receiver->is_byref == by_value && !receiver->has_modifiers);
        AIP_FUZZ_CHECK(receiver->element_type ==
                       (by_value ? ELEMENT_TYPE_VALUETYPE : ELEMENT_TYPE_CLASS));
        size_t at = receiver->offset + (by_value ? 2u : 1u);
        uint32_t token = 0;
        AIP_FUZZ_CHECK(aip_sig_read_type_token(sig, n, &at, &token) == ALVK_OK);
        AIP_FUZZ_CHECK(token == t->declaring_type && at == receiver->offset + receiver->length);
        first = 1;
    }
    for (uint32_t i = 0; i < target_sig.param_count; ++i)
        same_bytes(sig, &calli_sig.params[first + i], t->signature, &target_sig.params[i]);
}

typedef struct expected_code {
    int direct; /* call <token>, ret */
    uint32_t arg_count;
    uint64_t replacement;
    uint32_t token;
    uint32_t token_offset; /* in the code */
    uint32_t visited;
} expected_code;

static uint64_t operand_value(const aip_il_instruction *insn, const uint8_t *code)
{
    uint64_t value = 0;
    for (uint32_t i = 0; i < insn->operand_size && i < 8; ++i)
        value |= (uint64_t)code[insn->operand_offset + i] << (8 * i);
    return value;
}

typedef struct walk_context {
    expected_code *want;
    const uint8_t *code;
} walk_context;

static alvk_status check_instruction(void *context, const aip_il_instruction *insn)
{
    walk_context *c = context;
    expected_code *want = c->want;
    uint32_t i = want->visited++;
    if (i < want->arg_count) {
        uint32_t expect = i <= 3 ? AIP_CEE_LDARG_0 + i : i <= 255 ? AIP_CEE_LDARG_S : AIP_CEE_LDARG;
        AIP_FUZZ_CHECK(insn->opcode == expect);
        if (i > 3)
            AIP_FUZZ_CHECK(operand_value(insn, c->code) == i);
        return ALVK_OK;
    }
    if (want->direct) {
        AIP_FUZZ_CHECK(i - want->arg_count < 2);
        if (i == want->arg_count) {
            AIP_FUZZ_CHECK(insn->opcode == AIP_CEE_CALL);
            AIP_FUZZ_CHECK(insn->operand_offset == want->token_offset);
            AIP_FUZZ_CHECK(operand_value(insn, c->code) == want->token);
        } else {
            AIP_FUZZ_CHECK(insn->opcode == AIP_CEE_RET);
        }
        return ALVK_OK;
    }
    switch (i - want->arg_count) {
    case 0:
        AIP_FUZZ_CHECK(insn->opcode == AIP_CEE_LDC_I8);
        AIP_FUZZ_CHECK(operand_value(insn, c->code) == want->replacement);
        break;
    case 1:
        AIP_FUZZ_CHECK(insn->opcode == AIP_CEE_CONV_I);
        break;
    case 2:
        AIP_FUZZ_CHECK(insn->opcode == AIP_CEE_CALLI);
        AIP_FUZZ_CHECK(insn->operand_offset == want->token_offset);
        AIP_FUZZ_CHECK(operand_value(insn, c->code) == want->token);
        break;
    case 3:
        AIP_FUZZ_CHECK(insn->opcode == AIP_CEE_RET);
        break;
    default:
        AIP_FUZZ_CHECK(!"an instruction after ret");
    }
    return ALVK_OK;
}

static void check_body(const uint8_t *body, size_t n, uint32_t token_offset, uint64_t replacement,
                       uint32_t token, uint32_t arg_count)
{
    aip_method_body parsed;
    AIP_FUZZ_CHECK(aip_method_body_parse(body, n, &parsed, NULL, 0) == ALVK_OK);
    AIP_FUZZ_CHECK(parsed.is_fat && parsed.header_size == FAT_HEADER && parsed.total_size == n);
    AIP_FUZZ_CHECK(parsed.code_size == n - FAT_HEADER && parsed.eh_clause_count == 0);
    AIP_FUZZ_CHECK(parsed.local_var_sig_token == 0 && !parsed.init_locals);
    AIP_FUZZ_CHECK(parsed.max_stack == arg_count + 1);
    AIP_FUZZ_CHECK(token_offset >= FAT_HEADER && token_offset + 4 < n);

    static aip_il_starts starts;
    expected_code want = {0, arg_count, replacement, token, token_offset - FAT_HEADER, 0};
    walk_context context = {&want, body + FAT_HEADER};
    AIP_FUZZ_CHECK(aip_il_walk(body + FAT_HEADER, parsed.code_size, &starts, check_instruction,
                               &context) == ALVK_OK);
    AIP_FUZZ_CHECK(want.visited == arg_count + 4);
    AIP_FUZZ_CHECK(arg_count == calli_sig.param_count);
}

/* The generation rejit/apply_generation.c applies for this dispatch must validate. */
static void check_generation(const uint8_t *body, size_t body_n, const uint8_t *sig, size_t sig_n,
                             uint32_t token_offset)
{
    alvk_relocation *calli = aip_fuzz_alloc(sizeof *calli);
    memset(calli, 0, sizeof *calli);
    calli->size = sizeof *calli;
    calli->kind = ALVK_RELOCATION_STANDALONE_SIG;
    calli->il_offset = token_offset - FAT_HEADER;
    calli->blob_length = (uint32_t)sig_n;
    alvk_generation g;
    memset(&g, 0, sizeof g);
    g.size = sizeof g;
    g.owner = 1;
    g.body = body;
    g.body_size = (uint32_t)body_n;
    g.blobs = sig;
    g.blobs_size = (uint32_t)sig_n;
    g.relocations = calli;
    g.relocation_count = 1;
    aip_generation_check check;
    AIP_FUZZ_CHECK(aip_generation_validate(&g, AIP_ORIGINAL_SIZE_UNKNOWN, &check) == ALVK_OK);
    free(calli);
}

/* The direct-call body for the same target, and its generation. */
static void check_direct(const aip_dispatch_target *t, uint32_t token, const uint8_t *sig,
                         size_t sig_n, alvk_status target_status, uint32_t arg_count)
{
    uint8_t scratch[AIP_DISPATCH_MAX_BODY_BYTES];
    size_t n = 0;
    uint32_t token_offset = 0;
    alvk_status status =
        aip_dispatch_emit_call_body(t, token, scratch, sizeof scratch, &n, &token_offset);
    uint32_t table = token & 0xFF000000u;
    alvk_status expected = target_status;
    if (expected == ALVK_OK &&
        ((table != mdtMethodDef && table != mdtMemberRef) || (token & 0x00FFFFFFu) == 0))
        expected = ALVK_E_SIGNATURE_UNSUPPORTED;
    AIP_FUZZ_CHECK(status == expected);
    if (status != ALVK_OK || sig == NULL)
        return;
    uint8_t *body = aip_fuzz_alloc(n);
    size_t written = 0;
    uint32_t again = 0;
    AIP_FUZZ_CHECK(aip_dispatch_emit_call_body(t, token, body, n - 1, &written, &again) ==
                   ALVK_E_BUFFER_TOO_SMALL);
    AIP_FUZZ_CHECK(aip_dispatch_emit_call_body(t, token, body, n, &written, &again) == ALVK_OK &&
                   written == n && again == token_offset && memcmp(body, scratch, n) == 0);
    aip_method_body parsed;
    AIP_FUZZ_CHECK(aip_method_body_parse(body, n, &parsed, NULL, 0) == ALVK_OK);
    AIP_FUZZ_CHECK(parsed.is_fat && parsed.total_size == n && parsed.eh_clause_count == 0);
    AIP_FUZZ_CHECK(parsed.local_var_sig_token == 0);
    AIP_FUZZ_CHECK(parsed.max_stack == (arg_count > 0 ? arg_count : 1));
    static aip_il_starts starts;
    expected_code want = {1, arg_count, 0, token, token_offset - FAT_HEADER, 0};
    walk_context context = {&want, body + FAT_HEADER};
    AIP_FUZZ_CHECK(aip_il_walk(body + FAT_HEADER, parsed.code_size, &starts, check_instruction,
                               &context) == ALVK_OK);
    AIP_FUZZ_CHECK(want.visited == arg_count + 2);

    /* The generation: names "N.T" and "M", then the signature, in one blob area. */
    size_t blobs_n = 4 + sig_n;
    uint8_t *blobs = aip_fuzz_alloc(blobs_n);
    memcpy(blobs, "N.TM", 4);
    memcpy(blobs + 4, sig, sig_n);
    alvk_relocation *r = aip_fuzz_alloc(2 * sizeof *r);
    memset(r, 0, 2 * sizeof *r);
    r[0].size = r[1].size = sizeof *r;
    r[0].kind = ALVK_RELOCATION_TYPE_REF;
    r[0].il_offset = ALVK_RELOCATION_NO_OPERAND;
    r[0].parent_token = 0x23000001u;
    r[0].name_length = 3;
    r[1].kind = ALVK_RELOCATION_MEMBER_REF;
    r[1].il_offset = token_offset - FAT_HEADER;
    r[1].parent_relocation = 1;
    r[1].name_offset = 3;
    r[1].name_length = 1;
    r[1].blob_offset = 4;
    r[1].blob_length = (uint32_t)sig_n;
    alvk_generation g;
    memset(&g, 0, sizeof g);
    g.size = sizeof g;
    g.owner = 1;
    g.body = body;
    g.body_size = (uint32_t)n;
    g.blobs = blobs;
    g.blobs_size = (uint32_t)blobs_n;
    g.relocations = r;
    g.relocation_count = table == mdtMemberRef ? 2 : 0;
    aip_generation_check check;
    AIP_FUZZ_CHECK(aip_generation_validate(&g, AIP_ORIGINAL_SIZE_UNKNOWN, &check) == ALVK_OK);
    free(r);
    free(blobs);
    free(body);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < HEADER_BYTES)
        return 0;
    aip_fuzz_reader r = aip_fuzz_reader_of(data, size);
    uint8_t mode = aip_fuzz_u8(&r);
    aip_receiver_kind receiver = (aip_receiver_kind)(mode & 3u);
    uint32_t declaring_type = aip_fuzz_u32(&r);
    uint64_t replacement = aip_fuzz_u64(&r);
    uint32_t token = aip_fuzz_u32(&r);
    uint32_t call_token =
        (mode & 8u) != 0 ? token
                         : (token & 0x00FFFFFFu) | ((mode & 4u) != 0 ? mdtMethodDef : mdtMemberRef);
    size_t n = size - HEADER_BYTES;
    uint8_t *signature = aip_fuzz_copy(data + HEADER_BYTES, n);
    if (aip_sig_parse_method(signature, n, 0, &target_sig) != ALVK_OK) {
        free(signature);
        return 0;
    }
    aip_dispatch_target t = {signature, n, &target_sig, receiver, declaring_type};
    uint32_t arg_count = 0;
    alvk_status expected = expected_status(&t, &arg_count);

    uint8_t scratch[AIP_DISPATCH_MAX_SIG_BYTES];
    size_t sig_n = 0;
    alvk_status status = aip_dispatch_build_calli_signature(&t, scratch, sizeof scratch, &sig_n);
    size_t total = 0;
    if (expected == ALVK_OK) {
        /* The signature's size: the bound is the only refusal left. */
        uint8_t coded[4];
        total = 1 + (arg_count <= 0x7F ? 1 : 2) + target_sig.ret.length;
        total += receiver == AIP_RECEIVER_NONE
                     ? 0
                     : (receiver == AIP_RECEIVER_VALUE_TYPE ? 2 : 1) +
                           aip_sig_write_type_token(declaring_type, coded, sizeof coded);
        for (uint32_t i = 0; i < target_sig.param_count; ++i)
            total += target_sig.params[i].length;
        if (total > AIP_DISPATCH_MAX_SIG_BYTES)
            expected = ALVK_E_LIMIT_EXCEEDED;
    }
    AIP_FUZZ_CHECK(status == expected);

    uint8_t body_scratch[AIP_DISPATCH_MAX_BODY_BYTES];
    size_t body_n = 0;
    uint32_t token_offset = 0;
    alvk_status body_status = aip_dispatch_emit_body(&t, replacement, token, body_scratch,
                                                     sizeof body_scratch, &body_n, &token_offset);
    alvk_status body_expected = expected_status(&t, &arg_count);
    if (body_expected == ALVK_OK &&
        ((token & 0xFF000000u) != mdtSignature || (token & 0x00FFFFFFu) == 0))
        body_expected = ALVK_E_SIGNATURE_UNSUPPORTED;
    AIP_FUZZ_CHECK(body_status == body_expected);
    check_direct(&t, call_token, status == ALVK_OK ? scratch : NULL, sig_n,
                 expected_status(&t, &arg_count), arg_count);
    if (status != ALVK_OK || body_status != ALVK_OK) {
        free(signature);
        return 0;
    }
    AIP_FUZZ_CHECK(sig_n == total);

    /* Exact-size outputs; one byte short is BUFFER_TOO_SMALL. */
    uint8_t *sig = aip_fuzz_alloc(sig_n);
    size_t written = 0;
    AIP_FUZZ_CHECK(aip_dispatch_build_calli_signature(&t, sig, sig_n - 1, &written) ==
                   ALVK_E_BUFFER_TOO_SMALL);
    AIP_FUZZ_CHECK(aip_dispatch_build_calli_signature(&t, sig, sig_n, &written) == ALVK_OK &&
                   written == sig_n && memcmp(sig, scratch, sig_n) == 0);
    uint8_t *body = aip_fuzz_alloc(body_n);
    uint32_t offset_again = 0;
    AIP_FUZZ_CHECK(aip_dispatch_emit_body(&t, replacement, token, body, body_n - 1, &written,
                                          &offset_again) == ALVK_E_BUFFER_TOO_SMALL);
    AIP_FUZZ_CHECK(aip_dispatch_emit_body(&t, replacement, token, body, body_n, &written,
                                          &offset_again) == ALVK_OK);
    AIP_FUZZ_CHECK(written == body_n && offset_again == token_offset &&
                   memcmp(body, body_scratch, body_n) == 0);

    check_calli_signature(&t, sig, sig_n, arg_count);
    check_body(body, body_n, token_offset, replacement, token, arg_count);
    check_generation(body, body_n, sig, sig_n, token_offset);
    free(body);
    free(sig);
    free(signature);
    return 0;
}
