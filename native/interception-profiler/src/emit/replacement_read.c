/* A replacement method read in its own module: its checks, its names, its assembly. */
#include "emit/replacement_read.h"

#include "coreclr/cor_guids.h"
#include "coreclr/cor_metadata.h"
#include "text/utf.h"

#include <stddef.h>
#include <string.h>

typedef struct reader {
    IMetaDataImport2 *import;
    aip_replacement_name *out;
    int same_assembly;
    HRESULT *hr;
} reader;

/* ALVK_E_METADATA_FAILED with the HRESULT kept. */
static alvk_status failed(reader *r, HRESULT hr)
{
    *r->hr = hr;
    return ALVK_E_METADATA_FAILED;
}

/* Appends a 0-terminated UTF-16 name as UTF-8 to out->names. */
static alvk_status add_name(reader *r, const WCHAR *wide, aip_name_span *span)
{
    aip_replacement_name *o = r->out;
    int n = aip_utf16_to_utf8((const uint16_t *)wide, (char *)o->names + o->names_length,
                              sizeof o->names - o->names_length);
    if (n <= 0)
        return ALVK_E_REPLACEMENT_UNSUPPORTED; /* too long for the bound (or no name) */
    span->offset = o->names_length;
    span->length = (uint32_t)n;
    o->names_length += (uint32_t)n;
    return ALVK_OK;
}

/* 1 when `owner` (a TypeDef or MethodDef) declares generic parameters; -1 on failure. */
static int has_generic_params(reader *r, mdToken owner)
{
    HCORENUM e = NULL;
    mdGenericParam params[1];
    ULONG count = 0;
    HRESULT hr = r->import->lpVtbl->EnumGenericParams(r->import, &e, owner, params, 1, &count);
    r->import->lpVtbl->CloseEnum(r->import, e);
    if (FAILED(hr)) {
        *r->hr = hr;
        return -1;
    }
    return count > 0;
}

/* Whether a type of visibility `v` can be named from the target's module. */
static int type_visible(const reader *r, DWORD flags)
{
    DWORD v = flags & tdVisibilityMask;
    if (v == tdPublic || v == tdNestedPublic)
        return 1;
    return r->same_assembly &&
           (v == tdNotPublic || v == tdNestedAssembly || v == tdNestedFamORAssem);
}

static int method_visible(const reader *r, DWORD attributes)
{
    DWORD access = attributes & mdMemberAccessMask;
    return access == mdPublic ||
           (r->same_assembly && (access == mdAssem || access == mdFamORAssem));
}

/* The declaring type chain, innermost first into the spans, then reversed. */
static alvk_status read_types(reader *r, mdTypeDef type)
{
    aip_replacement_name *o = r->out;
    WCHAR wide[1024];
    alvk_status refused = ALVK_OK;
    for (;;) {
        if (o->type_count == AIP_REPLACEMENT_MAX_NESTING)
            return ALVK_E_REPLACEMENT_UNSUPPORTED;
        ULONG length = 0;
        DWORD flags = 0;
        mdToken extends = 0;
        HRESULT hr = r->import->lpVtbl->GetTypeDefProps(r->import, type, wide, 1024, &length,
                                                        &flags, &extends);
        if (FAILED(hr))
            return failed(r, hr);
        if (length == 0 || length > 1024)
            return ALVK_E_REPLACEMENT_UNSUPPORTED;
        wide[length - 1] = 0;
        int generic = has_generic_params(r, type);
        if (generic < 0)
            return ALVK_E_METADATA_FAILED;
        if (generic)
            return ALVK_E_REPLACEMENT_UNSUPPORTED; /* every refusal of this kind wins */
        if (!type_visible(r, flags))
            refused = ALVK_E_REPLACEMENT_NOT_ACCESSIBLE;
        alvk_status status = add_name(r, wide, &o->types[o->type_count]);
        if (status != ALVK_OK)
            return status;
        o->type_count++;
        if ((flags & tdVisibilityMask) < tdNestedPublic)
            break; /* top level */
        mdTypeDef enclosing = 0;
        hr = r->import->lpVtbl->GetNestedClassProps(r->import, type, &enclosing);
        if (FAILED(hr))
            return failed(r, hr);
        type = enclosing;
    }
    for (uint32_t i = 0, j = o->type_count - 1; i < j; ++i, --j) {
        aip_name_span t = o->types[i];
        o->types[i] = o->types[j];
        o->types[j] = t;
    }
    return refused;
}

/* The shared reader's bounds are this path's: a refusal of the replacement. */
static alvk_status read_assembly(reader *r)
{
    alvk_status status = aip_assembly_identity_read(r->import, &r->out->assembly, r->hr);
    return status == ALVK_E_LIMIT_EXCEEDED ? ALVK_E_REPLACEMENT_UNSUPPORTED : status;
}

static alvk_status read_method(reader *r, mdMethodDef method)
{
    WCHAR wide[1024];
    ULONG length = 0, rva = 0, sig_length = 0;
    DWORD attributes = 0, impl = 0;
    mdTypeDef type = 0;
    PCCOR_SIGNATURE sig = NULL;
    if (!r->import->lpVtbl->IsValidToken(r->import, method))
        return ALVK_E_REPLACEMENT_UNSUPPORTED;
    HRESULT hr = r->import->lpVtbl->GetMethodProps(r->import, method, &type, wide, 1024, &length,
                                                   &attributes, &sig, &sig_length, &rva, &impl);
    if (FAILED(hr))
        return failed(r, hr);
    if (length == 0 || length > 1024)
        return ALVK_E_REPLACEMENT_UNSUPPORTED;
    wide[length - 1] = 0;
    int generic = has_generic_params(r, method);
    if (generic < 0)
        return ALVK_E_METADATA_FAILED;
    if (generic || (attributes & mdStatic) == 0 ||
        (attributes & (mdAbstract | mdVirtual | mdPinvokeImpl)) ||
        (impl & (miCodeTypeMask | miInternalCall)) != miIL || rva == 0 || AIP_IS_NIL_TOKEN(type) ||
        AIP_TYPE_FROM_TOKEN(type) != mdtTypeDef || sig == NULL || sig_length == 0 ||
        sig_length > AIP_REPLACEMENT_SIG_BYTES)
        return ALVK_E_REPLACEMENT_UNSUPPORTED;
    memcpy(r->out->signature, sig, sig_length);
    r->out->signature_length = sig_length;
    alvk_status status = read_types(r, type);
    if (status != ALVK_OK && status != ALVK_E_REPLACEMENT_NOT_ACCESSIBLE)
        return status;
    alvk_status named = add_name(r, wide, &r->out->method);
    if (named != ALVK_OK)
        return named;
    return status == ALVK_OK && !method_visible(r, attributes) ? ALVK_E_REPLACEMENT_NOT_ACCESSIBLE
                                                               : status;
}

alvk_status aip_replacement_read(ICorProfilerInfo15 *info, ModuleID module, uint32_t method_token,
                                 int same_assembly, aip_replacement_name *out, HRESULT *hr)
{
    *hr = S_OK;
    memset(out, 0, offsetof(aip_replacement_name, names));
    if (AIP_TYPE_FROM_TOKEN(method_token) != mdtMethodDef || AIP_IS_NIL_TOKEN(method_token))
        return ALVK_E_REPLACEMENT_UNSUPPORTED;
    IUnknown *unknown = NULL;
    HRESULT open =
        info->lpVtbl->GetModuleMetaData(info, module, ofRead, &IID_IMetaDataImport2, &unknown);
    if (FAILED(open)) {
        *hr = open;
        return ALVK_E_METADATA_FAILED;
    }
    reader r = {(IMetaDataImport2 *)unknown, out, same_assembly, hr};
    alvk_status status = read_method(&r, method_token);
    if (status == ALVK_OK && !same_assembly)
        status = read_assembly(&r);
    r.import->lpVtbl->Release(r.import);
    return status;
}
