/* Properties every signature harness checks on what the parsers of metadata/signature.h
 * report: a Type's bytes lie inside the blob, parse again to the same result when copied
 * out on their own (a Type depends on nothing after it), and start with exactly the
 * prefixes (custom modifiers, PINNED, BYREF) the flags claim; a method signature's header,
 * return type and parameters tile its reported length. Also the ECMA-335 grammar of a
 * count followed by that many non-VOID Types, composed from aip_sig_parse_type, which the
 * blob harnesses compare the blob parsers against. Include after fuzz_input.h. */
#ifndef AIP_FUZZ_SIG_CHECKS_H
#define AIP_FUZZ_SIG_CHECKS_H

#include "coreclr/cor_metadata_defs.h"
#include "metadata/signature.h"

/* Statuses a signature parser may return for input it refuses. */
static inline int aip_fuzz_sig_refusal(alvk_status status)
{
    return status == ALVK_E_SIGNATURE_MALFORMED || status == ALVK_E_LIMIT_EXCEEDED;
}

/* The element types a parsed Type may report (II.23.1.16, the prefixes excluded). */
static inline int aip_fuzz_is_element(uint8_t e)
{
    return (e >= ELEMENT_TYPE_VOID && e <= ELEMENT_TYPE_TYPEDBYREF && e != ELEMENT_TYPE_BYREF) ||
           e == ELEMENT_TYPE_I || e == ELEMENT_TYPE_U || e == ELEMENT_TYPE_FNPTR ||
           e == ELEMENT_TYPE_OBJECT || e == ELEMENT_TYPE_SZARRAY || e == ELEMENT_TYPE_MVAR;
}

/* Element types that are complete in one byte. */
static inline int aip_fuzz_is_primitive(uint8_t e)
{
    return (e >= ELEMENT_TYPE_VOID && e <= ELEMENT_TYPE_STRING) || e == ELEMENT_TYPE_TYPEDBYREF ||
           e == ELEMENT_TYPE_I || e == ELEMENT_TYPE_U || e == ELEMENT_TYPE_OBJECT;
}

/* *type was reported for a Type inside blob[0 .. n), parsed with allow_pinned. */
static inline void aip_fuzz_check_type(const uint8_t *blob, size_t n, const aip_sig_type *type,
                                       int allow_pinned)
{
    AIP_FUZZ_CHECK(type->length >= 1);
    AIP_FUZZ_CHECK((uint64_t)type->offset + type->length <= n);
    AIP_FUZZ_CHECK(aip_fuzz_is_element(type->element_type));

    /* The prefixes, walked here independently of the parser. */
    const uint8_t *p = blob + type->offset;
    size_t at = 0;
    int modifiers = 0, pinned = 0, byref = 0;
    for (;;) {
        AIP_FUZZ_CHECK(at < type->length);
        uint8_t b = p[at];
        if (b == ELEMENT_TYPE_CMOD_REQD || b == ELEMENT_TYPE_CMOD_OPT) {
            ++at;
            uint32_t coded = 0;
            AIP_FUZZ_CHECK(aip_sig_read_compressed(p, type->length, &at, &coded) == ALVK_OK);
            AIP_FUZZ_CHECK((coded & 3u) != 3u && (coded >> 2) != 0);
            modifiers = 1;
        } else if (b == ELEMENT_TYPE_PINNED && !pinned && !byref && allow_pinned) {
            pinned = 1;
            ++at;
        } else if (b == ELEMENT_TYPE_BYREF && !byref) {
            byref = 1;
            ++at;
        } else {
            break;
        }
    }
    AIP_FUZZ_CHECK(p[at] == type->element_type);
    AIP_FUZZ_CHECK(type->has_modifiers == modifiers);
    AIP_FUZZ_CHECK(type->is_byref == byref);
    if (aip_fuzz_is_primitive(type->element_type))
        AIP_FUZZ_CHECK(at + 1 == type->length);
    else
        AIP_FUZZ_CHECK(at + 1 < type->length);
    if (type->element_type == ELEMENT_TYPE_VAR || type->element_type == ELEMENT_TYPE_MVAR)
        AIP_FUZZ_CHECK(type->uses_generic_variable);
    if (type->uses_generic_variable)
        AIP_FUZZ_CHECK(memchr(p, ELEMENT_TYPE_VAR, type->length) != NULL ||
                       memchr(p, ELEMENT_TYPE_MVAR, type->length) != NULL);

    /* The Type's bytes alone, in a block of exactly their size, parse to the same Type. */
    uint8_t *alone = aip_fuzz_copy(p, type->length);
    size_t end = 0;
    aip_sig_type again;
    AIP_FUZZ_CHECK(aip_sig_parse_type(alone, type->length, &end, allow_pinned, &again) == ALVK_OK);
    AIP_FUZZ_CHECK(end == type->length && again.offset == 0 && again.length == type->length);
    AIP_FUZZ_CHECK(again.element_type == type->element_type && again.is_byref == type->is_byref &&
                   again.has_modifiers == type->has_modifiers &&
                   again.uses_generic_variable == type->uses_generic_variable);
    free(alone);
}

/* *sig was reported by aip_sig_parse_method for blob[0 .. n) (trailing bytes allowed). */
static inline void aip_fuzz_check_method(const uint8_t *blob, size_t n, const aip_method_sig *sig)
{
    AIP_FUZZ_CHECK(sig->length >= 3 && sig->length <= n);
    uint8_t cc = blob[0];
    AIP_FUZZ_CHECK(sig->calling_convention == cc);
    AIP_FUZZ_CHECK(sig->kind == (cc & IMAGE_CEE_CS_CALLCONV_MASK));
    AIP_FUZZ_CHECK(sig->kind <= IMAGE_CEE_CS_CALLCONV_VARARG ||
                   sig->kind == IMAGE_CEE_CS_CALLCONV_UNMANAGED);
    AIP_FUZZ_CHECK((cc & 0x80u) == 0);
    AIP_FUZZ_CHECK(sig->has_this == ((cc & IMAGE_CEE_CS_CALLCONV_HASTHIS) != 0));
    AIP_FUZZ_CHECK(sig->explicit_this == ((cc & IMAGE_CEE_CS_CALLCONV_EXPLICITTHIS) != 0));
    AIP_FUZZ_CHECK(!sig->explicit_this || sig->has_this);
    AIP_FUZZ_CHECK(((cc & IMAGE_CEE_CS_CALLCONV_GENERIC) != 0) == (sig->generic_param_count > 0));
    AIP_FUZZ_CHECK(sig->param_count <= AIP_SIG_MAX_PARAMS);

    /* Header: [GenParamCount] ParamCount, then the return type right after it. */
    size_t at = 1;
    uint32_t value = 0;
    if (sig->generic_param_count > 0) {
        AIP_FUZZ_CHECK(aip_sig_read_compressed(blob, n, &at, &value) == ALVK_OK);
        AIP_FUZZ_CHECK(value == sig->generic_param_count);
    }
    AIP_FUZZ_CHECK(aip_sig_read_compressed(blob, n, &at, &value) == ALVK_OK);
    AIP_FUZZ_CHECK(value == sig->param_count);
    AIP_FUZZ_CHECK(sig->ret.offset == at);
    aip_fuzz_check_type(blob, sig->length, &sig->ret, 0);
    at += sig->ret.length;

    /* Parameters follow one another; a SENTINEL byte only before sentinel_index. */
    if (sig->sentinel_index != UINT32_MAX)
        AIP_FUZZ_CHECK(sig->kind == IMAGE_CEE_CS_CALLCONV_VARARG &&
                       sig->sentinel_index < sig->param_count);
    for (uint32_t i = 0; i < sig->param_count; ++i) {
        if (i == sig->sentinel_index) {
            AIP_FUZZ_CHECK(blob[at] == ELEMENT_TYPE_SENTINEL);
            ++at;
        }
        const aip_sig_type *param = &sig->params[i];
        AIP_FUZZ_CHECK(param->offset == at);
        AIP_FUZZ_CHECK(param->element_type != ELEMENT_TYPE_VOID);
        aip_fuzz_check_type(blob, sig->length, param, 0);
        at += param->length;
    }
    AIP_FUZZ_CHECK(at == sig->length);
}

/* The reference grammar "count, then count Types that are not VOID", read at *at:
 * ALVK_OK when it parses inside blob[0 .. n) with min <= count <= max. Local variables
 * (allow_pinned) may be PINNED, BYREF or TYPEDBYREF; generic arguments are Types proper,
 * none of these (II.23.2.6, II.23.2.15). */
static inline alvk_status aip_fuzz_ref_type_list(const uint8_t *blob, size_t n, size_t *at,
                                                 int allow_pinned, uint32_t min, uint32_t max,
                                                 uint32_t *count)
{
    alvk_status status = aip_sig_read_compressed(blob, n, at, count);
    if (status != ALVK_OK)
        return status;
    if (*count < min || *count > max)
        return ALVK_E_SIGNATURE_MALFORMED;
    for (uint32_t i = 0; i < *count; ++i) {
        aip_sig_type type;
        status = aip_sig_parse_type(blob, n, at, allow_pinned, &type);
        if (status != ALVK_OK)
            return status;
        if (type.element_type == ELEMENT_TYPE_VOID)
            return ALVK_E_SIGNATURE_MALFORMED;
        if (!allow_pinned && (type.is_byref || type.element_type == ELEMENT_TYPE_TYPEDBYREF))
            return ALVK_E_SIGNATURE_MALFORMED;
        aip_fuzz_check_type(blob, n, &type, allow_pinned);
    }
    return ALVK_OK;
}

#endif
