/* Exact-dispatch emission: the calli signature built from the target's own signature bytes
 * and the fat-header IL body that forwards every argument to the replacement via calli. */
#include "il/dispatch.h"

#include "coreclr/cor_metadata_defs.h"
#include "il/il_walk.h"     /* AIP_CEE_*: opcode values from il_opcodes.h */
#include "il/method_body.h" /* AIP_FAT_HEADER_BYTES */

#include <string.h>

static int type_fits(const aip_sig_type *type, size_t signature_length)
{
    return type->length > 0 && (uint64_t)type->offset + type->length <= signature_length;
}

/* The refusals shared by both emitters; on ALVK_OK *arg_count counts the receiver and is at
 * most AIP_SIG_MAX_PARAMS, so the calli signature re-parses (and ldarg.s always suffices). */
static alvk_status check_target(const aip_dispatch_target *target, uint32_t *arg_count)
{
    const aip_method_sig *sig = target->parsed;
    if (sig->param_count > AIP_SIG_MAX_PARAMS || !type_fits(&sig->ret, target->signature_length))
        return ALVK_E_SIGNATURE_MALFORMED;
    uint8_t generic = sig->ret.uses_generic_variable;
    for (uint32_t i = 0; i < sig->param_count; ++i) {
        if (!type_fits(&sig->params[i], target->signature_length))
            return ALVK_E_SIGNATURE_MALFORMED;
        generic |= sig->params[i].uses_generic_variable;
    }
    if (sig->generic_param_count > 0 || generic ||
        (sig->calling_convention & IMAGE_CEE_CS_CALLCONV_GENERIC) != 0)
        return ALVK_E_GENERIC_TARGET_UNSUPPORTED;
    if (sig->kind != IMAGE_CEE_CS_CALLCONV_DEFAULT || sig->explicit_this)
        return ALVK_E_SIGNATURE_UNSUPPORTED;
    switch (target->receiver) {
    case AIP_RECEIVER_NONE:
        if (sig->has_this)
            return ALVK_E_SIGNATURE_UNSUPPORTED;
        *arg_count = sig->param_count;
        return ALVK_OK;
    case AIP_RECEIVER_CLASS:
    case AIP_RECEIVER_VALUE_TYPE:
        if (!sig->has_this || AIP_TYPE_FROM_TOKEN(target->declaring_type) != mdtTypeDef ||
            AIP_IS_NIL_TOKEN(target->declaring_type))
            return ALVK_E_SIGNATURE_UNSUPPORTED;
        if (sig->param_count + 1 > AIP_SIG_MAX_PARAMS)
            return ALVK_E_LIMIT_EXCEEDED; /* the calli signature must parse as well */
        *arg_count = sig->param_count + 1;
        return ALVK_OK;
    default:
        return ALVK_E_SIGNATURE_UNSUPPORTED;
    }
}

/* The receiver parameter: CLASS <type> or BYREF VALUETYPE <type>; 0 bytes when static. */
static size_t receiver_bytes(const aip_dispatch_target *target, uint8_t out[8])
{
    size_t n = 0;
    if (target->receiver == AIP_RECEIVER_CLASS) {
        out[n++] = ELEMENT_TYPE_CLASS;
    } else if (target->receiver == AIP_RECEIVER_VALUE_TYPE) {
        out[n++] = ELEMENT_TYPE_BYREF;
        out[n++] = ELEMENT_TYPE_VALUETYPE;
    } else {
        return 0;
    }
    size_t token = aip_sig_write_type_token(target->declaring_type, out + n, 8 - n);
    return token == 0 ? 0 : n + token;
}

alvk_status aip_dispatch_build_calli_signature(const aip_dispatch_target *target, uint8_t *out,
                                               size_t capacity, size_t *written)
{
    if (target == NULL || out == NULL || written == NULL || target->signature == NULL ||
        target->parsed == NULL)
        return ALVK_E_NULL_ARGUMENT;
    uint32_t arg_count = 0;
    alvk_status status = check_target(target, &arg_count);
    if (status != ALVK_OK)
        return status;
    const aip_method_sig *sig = target->parsed;

    uint8_t count_bytes[4];
    size_t count_length = aip_sig_write_compressed(arg_count, count_bytes, sizeof count_bytes);
    uint8_t receiver[8];
    size_t receiver_length = receiver_bytes(target, receiver);
    if (count_length == 0 || (target->receiver != AIP_RECEIVER_NONE && receiver_length == 0))
        return ALVK_E_SIGNATURE_UNSUPPORTED;

    size_t total = 1 + count_length + sig->ret.length + receiver_length;
    for (uint32_t i = 0; i < sig->param_count; ++i)
        total += sig->params[i].length;
    if (total > AIP_DISPATCH_MAX_SIG_BYTES)
        return ALVK_E_LIMIT_EXCEEDED;
    if (capacity < total)
        return ALVK_E_BUFFER_TOO_SMALL;

    size_t at = 0;
    out[at++] = IMAGE_CEE_CS_CALLCONV_DEFAULT;
    memcpy(out + at, count_bytes, count_length);
    at += count_length;
    memcpy(out + at, target->signature + sig->ret.offset, sig->ret.length);
    at += sig->ret.length;
    memcpy(out + at, receiver, receiver_length);
    at += receiver_length;
    for (uint32_t i = 0; i < sig->param_count; ++i) {
        memcpy(out + at, target->signature + sig->params[i].offset, sig->params[i].length);
        at += sig->params[i].length;
    }
    *written = at;
    return ALVK_OK;
}

static size_t put_le(uint8_t *out, uint64_t value, size_t bytes)
{
    for (size_t i = 0; i < bytes; ++i)
        out[i] = (uint8_t)(value >> (8 * i));
    return bytes;
}

static size_t ldarg_size(uint32_t index)
{
    return index <= 3 ? 1 : (index <= 255 ? 2 : 4);
}

static size_t put_ldarg(uint8_t *out, uint32_t index)
{
    if (index <= 3) {
        out[0] = (uint8_t)(AIP_CEE_LDARG_0 + index);
        return 1;
    }
    if (index <= 255) {
        out[0] = AIP_CEE_LDARG_S;
        out[1] = (uint8_t)index;
        return 2;
    }
    out[0] = AIP_CEE_PREFIX1;
    out[1] = (uint8_t)(AIP_CEE_LDARG & 0xFFu); /* the second byte of 0xFE09 */
    return 2 + put_le(out + 2, index, 2);
}

/* The fat header (no locals) and the ldarg of every argument: where the call starts. */
static size_t put_header_and_args(uint8_t *out, uint32_t arg_count, uint32_t max_stack,
                                  size_t code_size)
{
    aip_method_body_write_fat_header(out, (uint16_t)max_stack, (uint32_t)code_size, 0, 0);
    size_t at = AIP_FAT_HEADER_BYTES;
    for (uint32_t i = 0; i < arg_count; ++i)
        at += put_ldarg(out + at, i);
    return at;
}

/* Checks the target and sizes a body whose call sequence is `call_bytes` long. */
static alvk_status size_body(const aip_dispatch_target *target, size_t call_bytes, size_t capacity,
                             uint32_t *arg_count, size_t *code_size)
{
    alvk_status status = check_target(target, arg_count);
    if (status != ALVK_OK)
        return status;
    *code_size = call_bytes + 1; /* ... ret */
    for (uint32_t i = 0; i < *arg_count; ++i)
        *code_size += ldarg_size(i);
    size_t total = AIP_FAT_HEADER_BYTES + *code_size;
    if (total > AIP_DISPATCH_MAX_BODY_BYTES)
        return ALVK_E_LIMIT_EXCEEDED;
    return capacity < total ? ALVK_E_BUFFER_TOO_SMALL : ALVK_OK;
}

alvk_status aip_dispatch_emit_body(const aip_dispatch_target *target, uint64_t replacement,
                                   uint32_t calli_sig_token, uint8_t *out, size_t capacity,
                                   size_t *written, uint32_t *token_offset)
{
    if (target == NULL || out == NULL || written == NULL || token_offset == NULL ||
        target->signature == NULL || target->parsed == NULL)
        return ALVK_E_NULL_ARGUMENT;
    uint32_t arg_count = 0;
    size_t code_size = 0;
    /* ldc.i8 <replacement>, conv.i, calli <token> */
    alvk_status status = size_body(target, 9 + 1 + 5, capacity, &arg_count, &code_size);
    if (status != ALVK_OK && status != ALVK_E_BUFFER_TOO_SMALL)
        return status;
    if (AIP_TYPE_FROM_TOKEN(calli_sig_token) != mdtSignature || AIP_IS_NIL_TOKEN(calli_sig_token))
        return ALVK_E_SIGNATURE_UNSUPPORTED;
    if (status != ALVK_OK)
        return status;
    size_t at = put_header_and_args(out, arg_count, arg_count + 1, code_size);
    out[at++] = AIP_CEE_LDC_I8;
    at += put_le(out + at, replacement, 8);
    out[at++] = AIP_CEE_CONV_I;
    out[at++] = AIP_CEE_CALLI;
    *token_offset = (uint32_t)at;
    at += put_le(out + at, calli_sig_token, 4);
    out[at++] = AIP_CEE_RET;
    *written = at;
    return ALVK_OK;
}

alvk_status aip_dispatch_emit_call_body(const aip_dispatch_target *target, uint32_t method_token,
                                        uint8_t *out, size_t capacity, size_t *written,
                                        uint32_t *token_offset)
{
    if (target == NULL || out == NULL || written == NULL || token_offset == NULL ||
        target->signature == NULL || target->parsed == NULL)
        return ALVK_E_NULL_ARGUMENT;
    uint32_t arg_count = 0;
    size_t code_size = 0;
    alvk_status status = size_body(target, 5, capacity, &arg_count, &code_size); /* call <t> */
    if (status != ALVK_OK && status != ALVK_E_BUFFER_TOO_SMALL)
        return status;
    uint32_t table = AIP_TYPE_FROM_TOKEN(method_token);
    if ((table != mdtMethodDef && table != mdtMemberRef) || AIP_IS_NIL_TOKEN(method_token))
        return ALVK_E_SIGNATURE_UNSUPPORTED;
    if (status != ALVK_OK)
        return status;
    /* The arguments, then at most the one return value in their place. */
    size_t at = put_header_and_args(out, arg_count, arg_count > 0 ? arg_count : 1, code_size);
    out[at++] = AIP_CEE_CALL;
    *token_offset = (uint32_t)at;
    at += put_le(out + at, method_token, 4);
    out[at++] = AIP_CEE_RET;
    *written = at;
    return ALVK_OK;
}
