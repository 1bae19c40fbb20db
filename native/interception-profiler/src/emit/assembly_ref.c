/* The AssemblyRefs of the direct call and the ASSEMBLY_REF relocation: found, defined,
 * cached. */
#include "emit/assembly_ref.h"

#include "coreclr/cor_guids.h"
#include "coreclr/cor_metadata.h"

#include <string.h>

static size_t units_of(const WCHAR *s)
{
    size_t n = 0;
    while (s[n] != 0)
        ++n;
    return n;
}

static WCHAR fold(WCHAR c)
{
    return c >= 'A' && c <= 'Z' ? (WCHAR)(c - 'A' + 'a') : c;
}

static int same_name(const WCHAR *a, const WCHAR *b)
{
    for (; *a != 0 && fold(*a) == fold(*b); ++a, ++b) {
    }
    return *a == 0 && *b == 0;
}

/* The cache's key: the name's UTF-16 bytes as the name, the version, culture and key as the
 * blob, so another identity with the same name is another entry. */
static aip_token_key key_of(ModuleID module, const aip_assembly_identity *a)
{
    uint8_t blob[sizeof a->version + sizeof a->locale + sizeof a->public_key];
    size_t locale = units_of(a->locale) * sizeof(WCHAR), at = 0;
    memcpy(blob + at, a->version, sizeof a->version), at += sizeof a->version;
    memcpy(blob + at, a->locale, locale), at += locale;
    memcpy(blob + at, a->public_key, a->public_key_length), at += a->public_key_length;
    return aip_token_key_make(module, AIP_TOKEN_KIND_ASSEMBLY_REF, 0, (const uint8_t *)a->name,
                              units_of(a->name) * sizeof(WCHAR), blob, at);
}

/* An AssemblyRef of the module with the assembly's name, or 0. */
static mdAssemblyRef find_by_name(IMetaDataAssemblyImport *import, const WCHAR *name)
{
    HCORENUM e = NULL;
    mdAssemblyRef refs[64];
    ULONG count = 0;
    mdAssemblyRef found = 0;
    WCHAR other[AIP_ASSEMBLY_NAME_UNITS];
    while (found == 0 &&
           SUCCEEDED(import->lpVtbl->EnumAssemblyRefs(import, &e, refs, 64, &count)) && count > 0) {
        for (ULONG i = 0; i < count && found == 0; ++i) {
            ULONG length = 0;
            if (SUCCEEDED(import->lpVtbl->GetAssemblyRefProps(import, refs[i], NULL, NULL, other,
                                                              AIP_ASSEMBLY_NAME_UNITS, &length,
                                                              NULL, NULL, NULL, NULL)) &&
                length > 0 && length <= AIP_ASSEMBLY_NAME_UNITS) {
                other[length - 1] = 0;
                if (same_name(other, name))
                    found = refs[i];
            }
        }
    }
    import->lpVtbl->CloseEnum(import, e);
    return found;
}

static HRESULT define(IMetaDataAssemblyEmit *emit, const aip_assembly_identity *a,
                      mdAssemblyRef *token)
{
    ASSEMBLYMETADATA md;
    memset(&md, 0, sizeof md);
    md.usMajorVersion = a->version[0];
    md.usMinorVersion = a->version[1];
    md.usBuildNumber = a->version[2];
    md.usRevisionNumber = a->version[3];
    md.szLocale = (LPWSTR)a->locale;
    md.cbLocale = (ULONG)units_of(a->locale);
    return emit->lpVtbl->DefineAssemblyRef(emit, a->public_key_length > 0 ? a->public_key : NULL,
                                           a->public_key_length, a->name, &md, NULL, 0, a->flags,
                                           token);
}

/* The one path: the cache, else the module's own reference, else a definition. */
static alvk_status emit_ref(aip_emitter *e, ModuleID module, const aip_assembly_identity *assembly,
                            aip_assembly_ref_outcome *out, HRESULT *hr)
{
    *hr = S_OK;
    memset(out, 0, sizeof *out);
    aip_token_key key = key_of(module, assembly);
    if (aip_token_cache_find(&e->tokens, &key, &out->token)) {
        atomic_fetch_add_explicit(&e->tokens_reused, 1, memory_order_relaxed);
        out->reused = 1;
        return ALVK_OK;
    }
    IUnknown *unknown = NULL;
    *hr = e->info->lpVtbl->GetModuleMetaData(e->info, module, ofRead | ofWrite,
                                             &IID_IMetaDataAssemblyEmit, &unknown);
    if (FAILED(*hr))
        return ALVK_E_METADATA_EMIT_FAILED;
    IMetaDataAssemblyEmit *emit = (IMetaDataAssemblyEmit *)unknown;
    void *import = NULL;
    *hr = emit->lpVtbl->QueryInterface(emit, &IID_IMetaDataAssemblyImport, &import);
    mdAssemblyRef found = 0;
    if (SUCCEEDED(*hr)) {
        found = find_by_name(import, assembly->name);
        ((IMetaDataAssemblyImport *)import)->lpVtbl->Release(import);
    }
    int defined = 0;
    if (SUCCEEDED(*hr) && found == 0) {
        *hr = define(emit, assembly, &found);
        defined = SUCCEEDED(*hr);
    }
    emit->lpVtbl->Release(emit);
    if (FAILED(*hr))
        return ALVK_E_METADATA_EMIT_FAILED;
    aip_token_cache_put(&e->tokens, &key, found);
    if (defined) {
        atomic_fetch_add_explicit(&e->tokens_emitted, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&e->bytes_emitted,
                                  units_of(assembly->name) + assembly->public_key_length,
                                  memory_order_relaxed);
    }
    out->token = found;
    out->defined = (uint8_t)defined;
    return ALVK_OK;
}

alvk_status aip_emit_assembly_ref(aip_emitter *e, ModuleID module,
                                  const aip_assembly_identity *assembly, uint32_t *token,
                                  HRESULT *hr)
{
    aip_assembly_ref_outcome out;
    alvk_status status = emit_ref(e, module, assembly, &out, hr);
    if (status == ALVK_OK)
        *token = out.token;
    return status;
}

alvk_status aip_emit_module_assembly_ref(aip_emitter *e, aip_module_catalog *catalog,
                                         ModuleID module, uint64_t assembly_module,
                                         aip_assembly_ref_outcome *out, HRESULT *hr)
{
    *hr = S_OK;
    memset(out, 0, sizeof *out);
    aip_module_entry entry;
    alvk_status status =
        catalog == NULL || assembly_module == 0 ||
                (uint64_t)(uintptr_t)assembly_module != assembly_module
            ? ALVK_E_UNKNOWN_MODULE
            : aip_catalog_find_copy(catalog, (uintptr_t)assembly_module, 0, &entry);
    if (status != ALVK_OK)
        return status;
    if (entry.collectible)
        return ALVK_E_MODULE_COLLECTIBLE;
    IUnknown *unknown = NULL;
    *hr = e->info->lpVtbl->GetModuleMetaData(e->info, entry.module_id, ofRead,
                                             &IID_IMetaDataImport2, &unknown);
    if (FAILED(*hr))
        return ALVK_E_METADATA_EMIT_FAILED;
    IMetaDataImport2 *import = (IMetaDataImport2 *)unknown;
    aip_assembly_identity identity;
    status = aip_assembly_identity_read(import, &identity, hr);
    import->lpVtbl->Release(import);
    if (status != ALVK_OK)
        return ALVK_E_METADATA_EMIT_FAILED;
    return emit_ref(e, module, &identity, out, hr);
}
