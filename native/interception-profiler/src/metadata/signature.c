/* Signature traversal (ECMA-335 II.23.2): method signatures (II.23.2.1-2) and the Types
 * inside them (II.23.2.12, with the II.23.2.7 custom modifiers, BYREF, PINNED and the
 * II.23.2.13 ArrayShape), parsed in place over a bounded blob. One job in one file: a
 * Type can hold a method signature (FNPTR) and a method signature holds Types, so the two
 * parsers recurse into each other, bounded by AIP_SIG_MAX_DEPTH. BYREF, TYPEDBYREF and VOID
 * are refused where the grammar has no place for them (inside another Type; after BYREF),
 * as a type loader would refuse them. The integer and token encodings are
 * signature_codec.c's. */
#include "metadata/signature.h"

#include "coreclr/cor_metadata_defs.h"

#include <string.h>

/* Depth-aware parsers. A nested method signature (FNPTR) is parsed with out == NULL;
 * *uses_generic reports VAR/MVAR inside. */
static alvk_status parse_type_depth(const uint8_t *blob, size_t length, size_t *offset,
                                    int allow_pinned, uint32_t depth, const aip_sig_hook *hook,
                                    aip_sig_type *out);
static alvk_status parse_method_depth(const uint8_t *blob, size_t length, size_t *offset,
                                      uint32_t depth, const aip_sig_hook *hook, aip_method_sig *out,
                                      uint8_t *uses_generic);

#define AIP_SIG_CC_RESERVED 0x80u

/* Arrays of more dimensions than this are refused (the runtime's own bound). */
#define AIP_SIG_MAX_ARRAY_RANK 32u

/* Where a Type stands. At the top (a return type, parameter, field, local, TypeSpec or
 * MethodSpec argument) BYREF, TYPEDBYREF and VOID may appear, and the callers refuse VOID
 * where it cannot be; BYREF is then followed by a Type proper. Inside another Type (an
 * array element, a generic argument) only a Type proper: none of the three. Under PTR, a
 * Type proper or VOID. (II.23.2.10-12: Param, RetType, Type.) */
typedef enum aip_sig_position {
    AIP_SIG_TOP = 0,
    AIP_SIG_INNER = 1,
    AIP_SIG_POINTEE = 2
} aip_sig_position;

static alvk_status parse_type_at(const uint8_t *blob, size_t length, size_t *offset,
                                 aip_sig_position position, int allow_pinned, uint32_t depth,
                                 const aip_sig_hook *hook, aip_sig_type *out);

/* One TypeDefOrRefOrSpecEncoded: a token, or, given a hook, a relocation reference the hook
 * accepts (signature_codec.h says what tag 3 means). */
static alvk_status read_type(const uint8_t *blob, size_t length, size_t *offset,
                             const aip_sig_hook *hook)
{
    uint32_t token = 0, row = 0;
    if (hook == NULL)
        return aip_sig_read_type_token(blob, length, offset, &token);
    size_t start = *offset;
    alvk_status status = aip_sig_read_type_reference(blob, length, offset, &token, &row);
    if (status != ALVK_OK || token != 0)
        return status;
    return hook->reference(hook->context, start, *offset - start, row);
}

/* A nested Type (never PINNED); ORs its generic-variable flag into *generic. */
static alvk_status parse_nested(const uint8_t *blob, size_t length, size_t *offset,
                                aip_sig_position position, uint32_t depth, const aip_sig_hook *hook,
                                uint8_t *generic)
{
    aip_sig_type inner;
    alvk_status status = parse_type_at(blob, length, offset, position, 0, depth + 1, hook, &inner);
    if (status == ALVK_OK)
        *generic |= inner.uses_generic_variable;
    return status;
}

/* ArrayShape: Rank, NumSizes Size*, NumLoBounds LoBound* (signed; consumed, not decoded). */
static alvk_status parse_array_shape(const uint8_t *blob, size_t length, size_t *offset)
{
    uint32_t rank;
    alvk_status status = aip_sig_read_compressed(blob, length, offset, &rank);
    if (status != ALVK_OK)
        return status;
    if (rank == 0 || rank > AIP_SIG_MAX_ARRAY_RANK)
        return ALVK_E_SIGNATURE_MALFORMED;
    for (int list = 0; list < 2; ++list) {
        uint32_t count;
        status = aip_sig_read_compressed(blob, length, offset, &count);
        if (status != ALVK_OK)
            return status;
        if (count > rank)
            return ALVK_E_SIGNATURE_MALFORMED;
        for (uint32_t i = 0; i < count; ++i) {
            uint32_t ignored;
            status = aip_sig_read_compressed(blob, length, offset, &ignored);
            if (status != ALVK_OK)
                return status;
        }
    }
    return ALVK_OK;
}

/* GENERICINST (CLASS | VALUETYPE) TypeDefOrRefOrSpecEncoded GenArgCount Type+ */
static alvk_status parse_generic_inst(const uint8_t *blob, size_t length, size_t *offset,
                                      uint32_t depth, const aip_sig_hook *hook, uint8_t *generic)
{
    if (*offset >= length)
        return ALVK_E_SIGNATURE_MALFORMED;
    uint8_t kind = blob[*offset];
    if (kind != ELEMENT_TYPE_CLASS && kind != ELEMENT_TYPE_VALUETYPE)
        return ALVK_E_SIGNATURE_MALFORMED;
    *offset += 1;
    alvk_status status = read_type(blob, length, offset, hook);
    if (status != ALVK_OK)
        return status;
    uint32_t count;
    status = aip_sig_read_compressed(blob, length, offset, &count);
    if (status != ALVK_OK)
        return status;
    if (count == 0)
        return ALVK_E_SIGNATURE_MALFORMED;
    if (count > AIP_SIG_MAX_PARAMS)
        return ALVK_E_LIMIT_EXCEEDED;
    for (uint32_t i = 0; i < count; ++i) {
        status = parse_nested(blob, length, offset, AIP_SIG_INNER, depth, hook, generic);
        if (status != ALVK_OK)
            return status;
    }
    return ALVK_OK;
}

/* The element after the prefixes: blob[*offset - 1] == element, *offset is past it. */
static alvk_status parse_element(const uint8_t *blob, size_t length, size_t *offset,
                                 uint8_t element, uint32_t depth, const aip_sig_hook *hook,
                                 uint8_t *generic)
{
    uint32_t ignored;
    alvk_status status;
    switch (element) {
    case ELEMENT_TYPE_VOID:
    case ELEMENT_TYPE_BOOLEAN:
    case ELEMENT_TYPE_CHAR:
    case ELEMENT_TYPE_I1:
    case ELEMENT_TYPE_U1:
    case ELEMENT_TYPE_I2:
    case ELEMENT_TYPE_U2:
    case ELEMENT_TYPE_I4:
    case ELEMENT_TYPE_U4:
    case ELEMENT_TYPE_I8:
    case ELEMENT_TYPE_U8:
    case ELEMENT_TYPE_R4:
    case ELEMENT_TYPE_R8:
    case ELEMENT_TYPE_I:
    case ELEMENT_TYPE_U:
    case ELEMENT_TYPE_STRING:
    case ELEMENT_TYPE_OBJECT:
    case ELEMENT_TYPE_TYPEDBYREF:
        return ALVK_OK;
    case ELEMENT_TYPE_VALUETYPE:
    case ELEMENT_TYPE_CLASS:
        return read_type(blob, length, offset, hook);
    case ELEMENT_TYPE_PTR: /* CustomMod* (VOID | Type): the nested parse takes the mods */
        return parse_nested(blob, length, offset, AIP_SIG_POINTEE, depth, hook, generic);
    case ELEMENT_TYPE_SZARRAY:
        return parse_nested(blob, length, offset, AIP_SIG_INNER, depth, hook, generic);
    case ELEMENT_TYPE_ARRAY:
        status = parse_nested(blob, length, offset, AIP_SIG_INNER, depth, hook, generic);
        if (status != ALVK_OK)
            return status;
        return parse_array_shape(blob, length, offset);
    case ELEMENT_TYPE_GENERICINST:
        return parse_generic_inst(blob, length, offset, depth, hook, generic);
    case ELEMENT_TYPE_VAR:
    case ELEMENT_TYPE_MVAR:
        *generic = 1;
        return aip_sig_read_compressed(blob, length, offset, &ignored);
    case ELEMENT_TYPE_FNPTR: {
        uint8_t inner = 0;
        status = parse_method_depth(blob, length, offset, depth + 1, hook, NULL, &inner);
        if (status == ALVK_OK)
            *generic |= inner;
        return status;
    }
    default:
        return ALVK_E_SIGNATURE_MALFORMED;
    }
}

/* VOID and TYPEDBYREF stand only at the top, not after BYREF; VOID also under PTR. */
static int element_allowed(uint8_t element, aip_sig_position position, uint8_t is_byref)
{
    if (element == ELEMENT_TYPE_VOID)
        return position == AIP_SIG_POINTEE || (position == AIP_SIG_TOP && !is_byref);
    if (element == ELEMENT_TYPE_TYPEDBYREF)
        return position == AIP_SIG_TOP && !is_byref;
    return 1;
}

static alvk_status parse_type_depth(const uint8_t *blob, size_t length, size_t *offset,
                                    int allow_pinned, uint32_t depth, const aip_sig_hook *hook,
                                    aip_sig_type *out)
{
    return parse_type_at(blob, length, offset, AIP_SIG_TOP, allow_pinned, depth, hook, out);
}

static alvk_status parse_type_at(const uint8_t *blob, size_t length, size_t *offset,
                                 aip_sig_position position, int allow_pinned, uint32_t depth,
                                 const aip_sig_hook *hook, aip_sig_type *out)
{
    if (depth > AIP_SIG_MAX_DEPTH)
        return ALVK_E_LIMIT_EXCEEDED;
    size_t start = *offset;
    size_t at = start;
    uint8_t has_modifiers = 0;
    uint8_t is_byref = 0;
    uint8_t pinned = 0;
    alvk_status status;
    /* Prefixes: custom modifiers anywhere among them, PINNED once before BYREF when
     * allowed, BYREF once, both at the top only. Any other BYREF falls through to the
     * element and is refused. */
    for (;;) {
        if (at >= length)
            return ALVK_E_SIGNATURE_MALFORMED;
        uint8_t b = blob[at];
        if (b == ELEMENT_TYPE_CMOD_REQD || b == ELEMENT_TYPE_CMOD_OPT) {
            at += 1;
            status = read_type(blob, length, &at, hook);
            if (status != ALVK_OK)
                return status;
            has_modifiers = 1;
        } else if (b == ELEMENT_TYPE_PINNED && allow_pinned && !pinned && !is_byref) {
            pinned = 1;
            at += 1;
        } else if (b == ELEMENT_TYPE_BYREF && position == AIP_SIG_TOP && !is_byref) {
            is_byref = 1;
            at += 1;
        } else {
            break;
        }
    }
    uint8_t element = blob[at++];
    if (!element_allowed(element, position, is_byref))
        return ALVK_E_SIGNATURE_MALFORMED;
    uint8_t generic = 0;
    status = parse_element(blob, length, &at, element, depth, hook, &generic);
    if (status != ALVK_OK)
        return status;
    if ((uint64_t)at > UINT32_MAX)
        return ALVK_E_LIMIT_EXCEEDED;
    out->offset = (uint32_t)start;
    out->length = (uint32_t)(at - start);
    out->element_type = element;
    out->is_byref = is_byref;
    out->has_modifiers = has_modifiers;
    out->uses_generic_variable = generic;
    *offset = at;
    return ALVK_OK;
}

alvk_status aip_sig_parse_type(const uint8_t *blob, size_t length, size_t *offset, int allow_pinned,
                               aip_sig_type *out)
{
    return aip_sig_parse_type_hooked(blob, length, offset, allow_pinned, NULL, out);
}

alvk_status aip_sig_parse_type_hooked(const uint8_t *blob, size_t length, size_t *offset,
                                      int allow_pinned, const aip_sig_hook *hook, aip_sig_type *out)
{
    if (blob == NULL || offset == NULL || out == NULL)
        return ALVK_E_NULL_ARGUMENT;
    memset(out, 0, sizeof *out);
    return parse_type_depth(blob, length, offset, allow_pinned, 1, hook, out);
}

/* One parameter slot: an optional SENTINEL (vararg signatures only, at most once), then a
 * Type that is not VOID. */
static alvk_status parse_param(const uint8_t *blob, size_t length, size_t *offset, uint32_t depth,
                               const aip_sig_hook *hook, uint32_t index, uint8_t kind,
                               uint32_t *sentinel_index, aip_sig_type *param)
{
    if (*offset >= length)
        return ALVK_E_SIGNATURE_MALFORMED;
    if (blob[*offset] == ELEMENT_TYPE_SENTINEL) {
        if (kind != IMAGE_CEE_CS_CALLCONV_VARARG || *sentinel_index != UINT32_MAX)
            return ALVK_E_SIGNATURE_MALFORMED;
        *sentinel_index = index;
        *offset += 1;
    }
    alvk_status status = parse_type_depth(blob, length, offset, 0, depth, hook, param);
    if (status != ALVK_OK)
        return status;
    if (param->element_type == ELEMENT_TYPE_VOID)
        return ALVK_E_SIGNATURE_MALFORMED;
    return ALVK_OK;
}

static alvk_status parse_method_depth(const uint8_t *blob, size_t length, size_t *offset,
                                      uint32_t depth, const aip_sig_hook *hook, aip_method_sig *out,
                                      uint8_t *uses_generic)
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
    status = parse_type_depth(blob, length, &at, 0, depth, hook, ret);
    if (status != ALVK_OK)
        return status;
    uint8_t generic = ret->uses_generic_variable;

    uint32_t sentinel_index = UINT32_MAX;
    for (uint32_t i = 0; i < param_count; ++i) {
        aip_sig_type *param = out != NULL ? &out->params[i] : &scratch;
        status = parse_param(blob, length, &at, depth, hook, i, kind, &sentinel_index, param);
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
    return aip_sig_parse_method_hooked(blob, length, allow_trailing, NULL, out);
}

alvk_status aip_sig_parse_method_hooked(const uint8_t *blob, size_t length, int allow_trailing,
                                        const aip_sig_hook *hook, aip_method_sig *out)
{
    if (blob == NULL || out == NULL)
        return ALVK_E_NULL_ARGUMENT;
    memset(out, 0, sizeof *out);
    out->sentinel_index = UINT32_MAX;
    size_t at = 0;
    alvk_status status = parse_method_depth(blob, length, &at, 1, hook, out, NULL);
    if (status != ALVK_OK)
        return status;
    if (!allow_trailing && at != length)
        return ALVK_E_SIGNATURE_MALFORMED;
    return ALVK_OK;
}
