/* One relocation into metadata: the emitter call for each kind. */
#include "emit/metadata_emit.h"

#define AIP_MAX_NAME_UNITS 1024

/* UTF-8 to NUL-terminated UTF-16; 0 on invalid input or overflow. */
static int utf8_to_utf16(const uint8_t *in, size_t length, WCHAR *out, size_t capacity)
{
    size_t n = 0;
    for (size_t i = 0; i < length;) {
        uint32_t c = in[i], extra = 0;
        if (c < 0x80) extra = 0;
        else if ((c & 0xE0) == 0xC0) { c &= 0x1F; extra = 1; }
        else if ((c & 0xF0) == 0xE0) { c &= 0x0F; extra = 2; }
        else if ((c & 0xF8) == 0xF0) { c &= 0x07; extra = 3; }
        else return 0;
        if (i + extra >= length && extra > 0)
            return 0; /* the sequence is cut */
        for (uint32_t k = 1; k <= extra; ++k) {
            if ((in[i + k] & 0xC0) != 0x80)
                return 0;
            c = (c << 6) | (in[i + k] & 0x3F);
        }
        static const uint32_t minimum[] = {0, 0x80, 0x800, 0x10000};
        if (c < minimum[extra] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF) || c == 0)
            return 0;
        i += extra + 1;
        if (c >= 0x10000) {
            if (n + 2 >= capacity)
                return 0;
            c -= 0x10000;
            out[n++] = (WCHAR)(0xD800 + (c >> 10));
            out[n++] = (WCHAR)(0xDC00 + (c & 0x3FF));
        } else {
            if (n + 1 >= capacity)
                return 0;
            out[n++] = (WCHAR)c;
        }
    }
    out[n] = 0;
    return 1;
}

alvk_status aip_emit_relocation(IMetaDataEmit2 *emit, alvk_relocation_kind kind, uint32_t parent,
                                const uint8_t *name, size_t name_length, const uint8_t *blob,
                                size_t blob_length, uint32_t *token, HRESULT *hr)
{
    WCHAR wide[AIP_MAX_NAME_UNITS];
    if ((kind == ALVK_RELOCATION_MEMBER_REF || kind == ALVK_RELOCATION_TYPE_REF) &&
        !utf8_to_utf16(name, name_length, wide, AIP_MAX_NAME_UNITS))
        return ALVK_E_RELOCATION_MALFORMED;
    mdToken t = 0;
    ULONG n = (ULONG)blob_length;
    switch (kind) {
    case ALVK_RELOCATION_STANDALONE_SIG:
        *hr = emit->lpVtbl->GetTokenFromSig(emit, blob, n, &t);
        break;
    case ALVK_RELOCATION_TYPE_SPEC:
        *hr = emit->lpVtbl->GetTokenFromTypeSpec(emit, blob, n, &t);
        break;
    case ALVK_RELOCATION_MEMBER_REF:
        *hr = emit->lpVtbl->DefineMemberRef(emit, parent, wide, blob, n, &t);
        break;
    case ALVK_RELOCATION_METHOD_SPEC:
        *hr = emit->lpVtbl->DefineMethodSpec(emit, parent, blob, n, &t);
        break;
    case ALVK_RELOCATION_TYPE_REF:
        *hr = emit->lpVtbl->DefineTypeRefByName(emit, parent, wide, &t);
        break;
    default:
        return ALVK_E_RELOCATION_MALFORMED;
    }
    if (FAILED(*hr))
        return ALVK_E_METADATA_EMIT_FAILED;
    *token = t;
    return ALVK_OK;
}
