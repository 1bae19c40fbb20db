/* ECMA-335 II.23.2: compressed integers, TypeDefOrRefOrSpecEncoded tokens and method
 * signatures. Types live in signature_type.c. Every read is bounds-checked. */
#include "signature.h"

#include "coreclr/cor_metadata_defs.h"

#include <string.h>

/* Shared with signature_type.c (no private header): depth-aware parsers. A nested method
 * signature (FNPTR) is parsed with out == NULL; *uses_generic reports VAR/MVAR inside. */
alvk_status aip_sig_parse_type_depth(const uint8_t *blob, size_t length, size_t *offset,
                                     int allow_pinned, uint32_t depth, aip_sig_type *out);
alvk_status aip_sig_parse_method_depth(const uint8_t *blob, size_t length, size_t *offset,
                                       uint32_t depth, aip_method_sig *out, uint8_t *uses_generic);

#define AIP_SIG_MAX_COMPRESSED 0x1FFFFFFFu
#define AIP_SIG_MAX_RID 0x00FFFFFFu
#define AIP_SIG_CC_RESERVED 0x80u

alvk_status aip_sig_read_compressed(const uint8_t *blob, size_t length, size_t *offset,
                                    uint32_t *value)
{
    if (blob == NULL || offset == NULL || value == NULL)
        return ALVK_E_NULL_ARGUMENT;
    size_t at = *offset;
    if (at >= length)
        return ALVK_E_SIGNATURE_MALFORMED;
    uint8_t lead = blob[at];
    size_t available = length - at;
    uint32_t result;
    size_t used;
    if ((lead & 0x80u) == 0) {
        result = lead;
        used = 1;
    } else if ((lead & 0xC0u) == 0x80u) {
        if (available < 2)
            return ALVK_E_SIGNATURE_MALFORMED;
        result = ((uint32_t)(lead & 0x3Fu) << 8) | blob[at + 1];
        used = 2;
    } else if ((lead & 0xE0u) == 0xC0u) {
        if (available < 4)
            return ALVK_E_SIGNATURE_MALFORMED;
        result = ((uint32_t)(lead & 0x1Fu) << 24) | ((uint32_t)blob[at + 1] << 16) |
                 ((uint32_t)blob[at + 2] << 8) | blob[at + 3];
        used = 4;
    } else {
        return ALVK_E_SIGNATURE_MALFORMED;
    }
    *value = result;
    *offset = at + used;
    return ALVK_OK;
}

size_t aip_sig_write_compressed(uint32_t value, uint8_t *out, size_t capacity)
{
    if (out == NULL || value > AIP_SIG_MAX_COMPRESSED)
        return 0;
    if (value <= 0x7Fu) {
        if (capacity < 1)
            return 0;
        out[0] = (uint8_t)value;
        return 1;
    }
    if (value <= 0x3FFFu) {
        if (capacity < 2)
            return 0;
        out[0] = (uint8_t)(0x80u | (value >> 8));
        out[1] = (uint8_t)(value & 0xFFu);
        return 2;
    }
    if (capacity < 4)
        return 0;
    out[0] = (uint8_t)(0xC0u | (value >> 24));
    out[1] = (uint8_t)((value >> 16) & 0xFFu);
    out[2] = (uint8_t)((value >> 8) & 0xFFu);
    out[3] = (uint8_t)(value & 0xFFu);
    return 4;
}

alvk_status aip_sig_read_type_token(const uint8_t *blob, size_t length, size_t *offset,
                                    uint32_t *token)
{
    if (blob == NULL || offset == NULL || token == NULL)
        return ALVK_E_NULL_ARGUMENT;
    size_t at = *offset;
    uint32_t coded;
    alvk_status status = aip_sig_read_compressed(blob, length, &at, &coded);
    if (status != ALVK_OK)
        return status;
    static const uint32_t tables[3] = {mdtTypeDef, mdtTypeRef, mdtTypeSpec};
    uint32_t tag = coded & 0x3u;
    uint32_t rid = coded >> 2;
    if (tag == 3 || rid == 0 || rid > AIP_SIG_MAX_RID)
        return ALVK_E_SIGNATURE_MALFORMED;
    *token = tables[tag] | rid;
    *offset = at;
    return ALVK_OK;
}

size_t aip_sig_write_type_token(uint32_t token, uint8_t *out, size_t capacity)
{
    uint32_t rid = token & AIP_SIG_MAX_RID;
    uint32_t tag;
    switch (token & 0xFF000000u) {
    case mdtTypeDef:
        tag = 0;
        break;
    case mdtTypeRef:
        tag = 1;
        break;
    case mdtTypeSpec:
        tag = 2;
        break;
    default:
        return 0;
    }
    if (rid == 0)
        return 0;
    return aip_sig_write_compressed((rid << 2) | tag, out, capacity);
}

/* One parameter slot: an optional SENTINEL (vararg signatures only, at most once), then a
 * Type that is not VOID. */
static alvk_status parse_param(const uint8_t *blob, size_t length, size_t *offset, uint32_t depth,
                               uint32_t index, uint8_t kind, uint32_t *sentinel_index,
                               aip_sig_type *param)
{
    if (*offset >= length)
        return ALVK_E_SIGNATURE_MALFORMED;
    if (blob[*offset] == ELEMENT_TYPE_SENTINEL) {
        if (kind != IMAGE_CEE_CS_CALLCONV_VARARG || *sentinel_index != UINT32_MAX)
            return ALVK_E_SIGNATURE_MALFORMED;
        *sentinel_index = index;
        *offset += 1;
    }
    alvk_status status = aip_sig_parse_type_depth(blob, length, offset, 0, depth, param);
    if (status != ALVK_OK)
        return status;
    if (param->element_type == ELEMENT_TYPE_VOID)
        return ALVK_E_SIGNATURE_MALFORMED;
    return ALVK_OK;
}

alvk_status aip_sig_parse_method_depth(const uint8_t *blob, size_t length, size_t *offset,
                                       uint32_t depth, aip_method_sig *out, uint8_t *uses_generic)
{
    if (depth > AIP_SIG_MAX_DEPTH)
        return ALVK_E_LIMIT_EXCEEDED;
    size_t at = *offset;
    if (at >= length)
        return ALVK_E_SIGNATURE_MALFORMED;
    uint8_t cc = blob[at++];
    uint8_t kind = (uint8_t)(cc & IMAGE_CEE_CS_CALLCONV_MASK);
    uint8_t has_this = (cc & IMAGE_CEE_CS_CALLCONV_HASTHIS) != 0;
    uint8_t explicit_this = (cc & IMAGE_CEE_CS_CALLCONV_EXPLICITTHIS) != 0;
    int known_kind =
        kind <= IMAGE_CEE_CS_CALLCONV_VARARG || kind == IMAGE_CEE_CS_CALLCONV_UNMANAGED;
    if (!known_kind || (cc & AIP_SIG_CC_RESERVED) != 0 || (explicit_this && !has_this))
        return ALVK_E_SIGNATURE_MALFORMED;

    uint32_t generic_count = 0;
    alvk_status status;
    if ((cc & IMAGE_CEE_CS_CALLCONV_GENERIC) != 0) {
        status = aip_sig_read_compressed(blob, length, &at, &generic_count);
        if (status != ALVK_OK)
            return status;
        if (generic_count == 0)
            return ALVK_E_SIGNATURE_MALFORMED;
    }
    uint32_t param_count;
    status = aip_sig_read_compressed(blob, length, &at, &param_count);
    if (status != ALVK_OK)
        return status;
    if (param_count > AIP_SIG_MAX_PARAMS)
        return ALVK_E_LIMIT_EXCEEDED;

    aip_sig_type scratch;
    aip_sig_type *ret = out != NULL ? &out->ret : &scratch;
    status = aip_sig_parse_type_depth(blob, length, &at, 0, depth, ret);
    if (status != ALVK_OK)
        return status;
    uint8_t generic = ret->uses_generic_variable;

    uint32_t sentinel_index = UINT32_MAX;
    for (uint32_t i = 0; i < param_count; ++i) {
        aip_sig_type *param = out != NULL ? &out->params[i] : &scratch;
        status = parse_param(blob, length, &at, depth, i, kind, &sentinel_index, param);
        if (status != ALVK_OK)
            return status;
        generic |= param->uses_generic_variable;
    }
    if ((uint64_t)at > UINT32_MAX)
        return ALVK_E_LIMIT_EXCEEDED;

    if (out != NULL) {
        out->calling_convention = cc;
        out->has_this = has_this;
        out->explicit_this = explicit_this;
        out->kind = kind;
        out->generic_param_count = generic_count;
        out->param_count = param_count;
        out->sentinel_index = sentinel_index;
        out->length = (uint32_t)(at - *offset);
    }
    if (uses_generic != NULL)
        *uses_generic = generic;
    *offset = at;
    return ALVK_OK;
}

alvk_status aip_sig_parse_method(const uint8_t *blob, size_t length, int allow_trailing,
                                 aip_method_sig *out)
{
    if (blob == NULL || out == NULL)
        return ALVK_E_NULL_ARGUMENT;
    memset(out, 0, sizeof *out);
    out->sentinel_index = UINT32_MAX;
    size_t at = 0;
    alvk_status status = aip_sig_parse_method_depth(blob, length, &at, 1, out, NULL);
    if (status != ALVK_OK)
        return status;
    if (!allow_trailing && at != length)
        return ALVK_E_SIGNATURE_MALFORMED;
    return ALVK_OK;
}
