/* Field, local-variable, TypeSpec, MethodSpec, MemberRef and StandAloneSig blobs
 * (ECMA-335 II.23.2), on top of the Type and method-signature parsers of signature.h. */
#include "metadata/signature_blobs.h"

#include "coreclr/cor_metadata_defs.h"

/* One Type at *offset; a top-level VOID (bare or BYREF) is refused. */
static alvk_status parse_value_type(const uint8_t *blob, size_t length, size_t *offset,
                                    int allow_pinned, const aip_sig_hook *hook, aip_sig_type *out)
{
    alvk_status status = aip_sig_parse_type_hooked(blob, length, offset, allow_pinned, hook, out);
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
                                   uint32_t min, uint32_t max, const aip_sig_hook *hook,
                                   uint32_t *count)
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
        status = parse_value_type(blob, length, offset, locals, hook, &type);
        if (status != ALVK_OK)
            return status;
        if (!locals && (type.is_byref || type.element_type == ELEMENT_TYPE_TYPEDBYREF))
            return ALVK_E_SIGNATURE_MALFORMED;
    }
    *count = n;
    return ALVK_OK;
}

static alvk_status parse_field_at0(const uint8_t *blob, size_t length, const aip_sig_hook *hook,
                                   aip_sig_type *type)
{
    size_t at;
    alvk_status status = expect_lead(blob, length, IMAGE_CEE_CS_CALLCONV_FIELD, &at);
    if (status != ALVK_OK)
        return status;
    aip_sig_type parsed;
    status = parse_value_type(blob, length, &at, 0, hook, &parsed);
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
    return parse_field_at0(blob, length, NULL, type);
}

static alvk_status parse_locals_at0(const uint8_t *blob, size_t length, const aip_sig_hook *hook,
                                    uint32_t *count)
{
    size_t at;
    alvk_status status = expect_lead(blob, length, IMAGE_CEE_CS_CALLCONV_LOCAL_SIG, &at);
    if (status != ALVK_OK)
        return status;
    uint32_t n;
    status =
        parse_type_list(blob, length, &at, 1, AIP_SIG_MIN_LOCALS, AIP_SIG_MAX_LOCALS, hook, &n);
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
    return parse_locals_at0(blob, length, NULL, count);
}

static alvk_status parse_type_spec_at0(const uint8_t *blob, size_t length, const aip_sig_hook *hook,
                                       aip_sig_type *type)
{
    size_t at = 0;
    aip_sig_type parsed;
    alvk_status status = parse_value_type(blob, length, &at, 0, hook, &parsed);
    if (status != ALVK_OK)
        return status;
    if (at != length)
        return ALVK_E_SIGNATURE_MALFORMED;
    *type = parsed;
    return ALVK_OK;
}

alvk_status aip_sig_parse_type_spec(const uint8_t *blob, size_t length, aip_sig_type *type)
{
    if (blob == NULL || type == NULL)
        return ALVK_E_NULL_ARGUMENT;
    return parse_type_spec_at0(blob, length, NULL, type);
}

static alvk_status parse_method_spec_at0(const uint8_t *blob, size_t length,
                                         const aip_sig_hook *hook, uint32_t *count)
{
    size_t at;
    alvk_status status = expect_lead(blob, length, IMAGE_CEE_CS_CALLCONV_GENERICINST, &at);
    if (status != ALVK_OK)
        return status;
    uint32_t n;
    status = parse_type_list(blob, length, &at, 0, 1, UINT32_MAX, hook, &n);
    if (status != ALVK_OK)
        return status;
    if (at != length)
        return ALVK_E_SIGNATURE_MALFORMED;
    *count = n;
    return ALVK_OK;
}

alvk_status aip_sig_parse_method_spec(const uint8_t *blob, size_t length, uint32_t *count)
{
    if (blob == NULL || count == NULL)
        return ALVK_E_NULL_ARGUMENT;
    return parse_method_spec_at0(blob, length, NULL, count);
}

static alvk_status parse_member_ref_at0(const uint8_t *blob, size_t length,
                                        const aip_sig_hook *hook, aip_member_sig_kind *kind)
{
    if (length == 0)
        return ALVK_E_SIGNATURE_MALFORMED;
    alvk_status status;
    if (blob[0] == IMAGE_CEE_CS_CALLCONV_FIELD) {
        status = parse_field_at0(blob, length, hook, NULL);
        if (status == ALVK_OK)
            *kind = AIP_MEMBER_SIG_FIELD;
        return status;
    }
    aip_method_sig sig;
    status = aip_sig_parse_method_hooked(blob, length, 0, hook, &sig);
    if (status != ALVK_OK)
        return status;
    if (sig.kind != IMAGE_CEE_CS_CALLCONV_DEFAULT && sig.kind != IMAGE_CEE_CS_CALLCONV_VARARG)
        return ALVK_E_SIGNATURE_MALFORMED;
    *kind = AIP_MEMBER_SIG_METHOD;
    return ALVK_OK;
}

alvk_status aip_sig_parse_member_ref(const uint8_t *blob, size_t length, aip_member_sig_kind *kind)
{
    if (blob == NULL || kind == NULL)
        return ALVK_E_NULL_ARGUMENT;
    return parse_member_ref_at0(blob, length, NULL, kind);
}

static alvk_status parse_standalone_at0(const uint8_t *blob, size_t length,
                                        const aip_sig_hook *hook, aip_standalone_sig_kind *kind)
{
    if (length == 0)
        return ALVK_E_SIGNATURE_MALFORMED;
    alvk_status status;
    if (blob[0] == IMAGE_CEE_CS_CALLCONV_LOCAL_SIG) {
        status = parse_locals_at0(blob, length, hook, NULL);
        if (status == ALVK_OK)
            *kind = AIP_STANDALONE_SIG_LOCALS;
        return status;
    }
    aip_method_sig sig;
    status = aip_sig_parse_method_hooked(blob, length, 0, hook, &sig);
    if (status != ALVK_OK)
        return status;
    if ((sig.calling_convention & IMAGE_CEE_CS_CALLCONV_GENERIC) != 0)
        return ALVK_E_SIGNATURE_MALFORMED;
    *kind = AIP_STANDALONE_SIG_METHOD;
    return ALVK_OK;
}

alvk_status aip_sig_parse_standalone(const uint8_t *blob, size_t length,
                                     aip_standalone_sig_kind *kind)
{
    if (blob == NULL || kind == NULL)
        return ALVK_E_NULL_ARGUMENT;
    return parse_standalone_at0(blob, length, NULL, kind);
}

alvk_status aip_sig_parse_relocation_blob(alvk_relocation_kind kind, const uint8_t *blob,
                                          size_t length, const aip_sig_hook *hook,
                                          uint8_t *method_sig)
{
    if (blob == NULL || method_sig == NULL)
        return ALVK_E_NULL_ARGUMENT;
    *method_sig = 0;
    alvk_status status;
    aip_sig_type type;
    uint32_t count;
    aip_standalone_sig_kind standalone = AIP_STANDALONE_SIG_LOCALS;
    aip_member_sig_kind member = AIP_MEMBER_SIG_FIELD;
    switch (kind) {
    case ALVK_RELOCATION_STANDALONE_SIG:
        status = parse_standalone_at0(blob, length, hook, &standalone);
        *method_sig = status == ALVK_OK && standalone == AIP_STANDALONE_SIG_METHOD;
        return status;
    case ALVK_RELOCATION_TYPE_SPEC:
        return parse_type_spec_at0(blob, length, hook, &type);
    case ALVK_RELOCATION_MEMBER_REF:
        status = parse_member_ref_at0(blob, length, hook, &member);
        *method_sig = status == ALVK_OK && member == AIP_MEMBER_SIG_METHOD;
        return status;
    case ALVK_RELOCATION_METHOD_SPEC:
        return parse_method_spec_at0(blob, length, hook, &count);
    default:
        return ALVK_E_SIGNATURE_MALFORMED; /* TYPE_REF, USER_STRING: no signature */
    }
}
