/* One relocation into metadata: the emitter call for each kind. */
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
