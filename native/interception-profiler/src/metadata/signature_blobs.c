/* Field, local-variable, TypeSpec, MethodSpec, MemberRef and StandAloneSig blobs
 * (ECMA-335 II.23.2), on top of the Type and method-signature parsers of signature.h. */
#include "metadata/signature_blobs.h"

#include "coreclr/cor_metadata_defs.h"

/* One Type at *offset; a top-level VOID (bare or BYREF) is refused. */
static alvk_status parse_value_type(const uint8_t *blob, size_t length, size_t *offset,
                                    int allow_pinned, aip_sig_type *out)
{
    alvk_status status = aip_sig_parse_type(blob, length, offset, allow_pinned, out);
    if (status != ALVK_OK)
        return status;
    return out->element_type == ELEMENT_TYPE_VOID ? ALVK_E_SIGNATURE_MALFORMED : ALVK_OK;
}

/* The lead byte must be `lead`; *offset is then 1. */
static alvk_status expect_lead(const uint8_t *blob, size_t length, uint8_t lead, size_t *offset)
{
    if (length == 0 || blob[0] != lead)
        return ALVK_E_SIGNATURE_MALFORMED;
    *offset = 1;
    return ALVK_OK;
}

/* A count, then `count` types; *offset is left past the last one. Local variables may be
 * PINNED, BYREF or TYPEDBYREF; generic arguments are Types proper (II.23.2.15), none of
 * them. */
static alvk_status parse_type_list(const uint8_t *blob, size_t length, size_t *offset, int locals,
                                   uint32_t min, uint32_t max, uint32_t *count)
{
    uint32_t n;
    alvk_status status = aip_sig_read_compressed(blob, length, offset, &n);
    if (status != ALVK_OK)
        return status;
    if (n < min || n > max)
        return ALVK_E_SIGNATURE_MALFORMED;
    /* Every type takes at least one byte, so the loop is bounded by the blob's length. */
    for (uint32_t i = 0; i < n; ++i) {
        aip_sig_type type;
        status = parse_value_type(blob, length, offset, locals, &type);
        if (status != ALVK_OK)
            return status;
        if (!locals && (type.is_byref || type.element_type == ELEMENT_TYPE_TYPEDBYREF))
            return ALVK_E_SIGNATURE_MALFORMED;
    }
    *count = n;
    return ALVK_OK;
}

static alvk_status parse_field_at0(const uint8_t *blob, size_t length, aip_sig_type *type)
{
    size_t at;
    alvk_status status = expect_lead(blob, length, IMAGE_CEE_CS_CALLCONV_FIELD, &at);
    if (status != ALVK_OK)
        return status;
    aip_sig_type parsed;
    status = parse_value_type(blob, length, &at, 0, &parsed);
    if (status != ALVK_OK)
        return status;
    if (at != length)
        return ALVK_E_SIGNATURE_MALFORMED;
    if (type != NULL)
        *type = parsed;
    return ALVK_OK;
}

alvk_status aip_sig_parse_field(const uint8_t *blob, size_t length, aip_sig_type *type)
{
    if (blob == NULL || type == NULL)
        return ALVK_E_NULL_ARGUMENT;
    return parse_field_at0(blob, length, type);
}

static alvk_status parse_locals_at0(const uint8_t *blob, size_t length, uint32_t *count)
{
    size_t at;
    alvk_status status = expect_lead(blob, length, IMAGE_CEE_CS_CALLCONV_LOCAL_SIG, &at);
    if (status != ALVK_OK)
        return status;
    uint32_t n;
    status = parse_type_list(blob, length, &at, 1, AIP_SIG_MIN_LOCALS, AIP_SIG_MAX_LOCALS, &n);
    if (status != ALVK_OK)
        return status;
    if (at != length)
        return ALVK_E_SIGNATURE_MALFORMED;
    if (count != NULL)
        *count = n;
    return ALVK_OK;
}

alvk_status aip_sig_parse_locals(const uint8_t *blob, size_t length, uint32_t *count)
{
    if (blob == NULL || count == NULL)
        return ALVK_E_NULL_ARGUMENT;
    return parse_locals_at0(blob, length, count);
}

alvk_status aip_sig_parse_type_spec(const uint8_t *blob, size_t length, aip_sig_type *type)
{
    if (blob == NULL || type == NULL)
        return ALVK_E_NULL_ARGUMENT;
    size_t at = 0;
    aip_sig_type parsed;
    alvk_status status = parse_value_type(blob, length, &at, 0, &parsed);
    if (status != ALVK_OK)
        return status;
    if (at != length)
        return ALVK_E_SIGNATURE_MALFORMED;
    *type = parsed;
    return ALVK_OK;
}

alvk_status aip_sig_parse_method_spec(const uint8_t *blob, size_t length, uint32_t *count)
{
    if (blob == NULL || count == NULL)
        return ALVK_E_NULL_ARGUMENT;
    size_t at;
    alvk_status status = expect_lead(blob, length, IMAGE_CEE_CS_CALLCONV_GENERICINST, &at);
    if (status != ALVK_OK)
        return status;
    uint32_t n;
    status = parse_type_list(blob, length, &at, 0, 1, UINT32_MAX, &n);
    if (status != ALVK_OK)
        return status;
    if (at != length)
        return ALVK_E_SIGNATURE_MALFORMED;
    *count = n;
    return ALVK_OK;
}

alvk_status aip_sig_parse_member_ref(const uint8_t *blob, size_t length, aip_member_sig_kind *kind)
{
    if (blob == NULL || kind == NULL)
        return ALVK_E_NULL_ARGUMENT;
    if (length == 0)
        return ALVK_E_SIGNATURE_MALFORMED;
    alvk_status status;
    if (blob[0] == IMAGE_CEE_CS_CALLCONV_FIELD) {
        status = parse_field_at0(blob, length, NULL);
        if (status == ALVK_OK)
            *kind = AIP_MEMBER_SIG_FIELD;
        return status;
    }
    aip_method_sig sig;
    status = aip_sig_parse_method(blob, length, 0, &sig);
    if (status != ALVK_OK)
        return status;
    if (sig.kind != IMAGE_CEE_CS_CALLCONV_DEFAULT && sig.kind != IMAGE_CEE_CS_CALLCONV_VARARG)
        return ALVK_E_SIGNATURE_MALFORMED;
    *kind = AIP_MEMBER_SIG_METHOD;
    return ALVK_OK;
}

alvk_status aip_sig_parse_standalone(const uint8_t *blob, size_t length,
                                     aip_standalone_sig_kind *kind)
{
    if (blob == NULL || kind == NULL)
        return ALVK_E_NULL_ARGUMENT;
    if (length == 0)
        return ALVK_E_SIGNATURE_MALFORMED;
    alvk_status status;
    if (blob[0] == IMAGE_CEE_CS_CALLCONV_LOCAL_SIG) {
        status = parse_locals_at0(blob, length, NULL);
        if (status == ALVK_OK)
            *kind = AIP_STANDALONE_SIG_LOCALS;
        return status;
    }
    aip_method_sig sig;
    status = aip_sig_parse_method(blob, length, 0, &sig);
    if (status != ALVK_OK)
        return status;
    if ((sig.calling_convention & IMAGE_CEE_CS_CALLCONV_GENERIC) != 0)
        return ALVK_E_SIGNATURE_MALFORMED;
    *kind = AIP_STANDALONE_SIG_METHOD;
    return ALVK_OK;
}
