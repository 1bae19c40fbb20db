/* One relocation into metadata: the emitter call for each kind; user strings. */
#include "emit/metadata_emit.h"
#include "text/utf.h"

#define AIP_MAX_NAME_UNITS 1024

alvk_status aip_emit_relocation(IMetaDataEmit2 *emit, alvk_relocation_kind kind, uint32_t parent,
                                const uint8_t *name, size_t name_length, const uint8_t *blob,
                                size_t blob_length, uint32_t *token, HRESULT *hr)
{
    WCHAR wide[AIP_MAX_NAME_UNITS];
    if ((kind == ALVK_RELOCATION_MEMBER_REF || kind == ALVK_RELOCATION_TYPE_REF) &&
        aip_utf8_to_utf16(name, name_length, (uint16_t *)wide, AIP_MAX_NAME_UNITS) < 0)
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

alvk_status aip_emit_user_string(IMetaDataEmit2 *emit, uint8_t *utf16le, size_t length,
                                 uint32_t *token, HRESULT *hr)
{
    if (length % 2u != 0)
        return ALVK_E_RELOCATION_MALFORMED;
    /* Decoded in place, unit i from bytes 2i and 2i + 1, whatever the host's byte order. */
    WCHAR *units = (WCHAR *)(void *)utf16le;
    for (size_t i = 0; i < length / 2u; ++i)
        units[i] = (WCHAR)(utf16le[2u * i] | (utf16le[2u * i + 1u] << 8));
    mdString t = 0;
    *hr = emit->lpVtbl->DefineUserString(emit, units, (ULONG)(length / 2u), &t);
    if (FAILED(*hr))
        return ALVK_E_METADATA_EMIT_FAILED;
    *token = t;
    return ALVK_OK;
}
