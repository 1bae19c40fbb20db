/* ModuleCatalog against the runtime: module identity at load, method discovery on demand. */
#include "catalog/module_catalog_clr.h"

#include "coreclr/cor_guids.h"
#include "coreclr/cor_metadata.h"
#include "coreclr/corprof_enums.h"
#include "identity/sha256.h"
#include "il/method_body.h"
#include "image/readytorun_image.h"
#include "metadata/signature.h"
#include "platform/platform.h"

#include <stdio.h>
#include <string.h>

/* Assembly and type names we compare are ASCII; anything else becomes '?'. */
static void narrow(const WCHAR *in, ULONG length, char *out, size_t capacity)
{
    size_t i = 0;
    for (; i + 1 < capacity && i < length && in[i] != 0; ++i)
        out[i] = in[i] < 0x80 ? (char)in[i] : '?';
    out[i] = '\0';
}

static IMetaDataImport2 *open_import(ICorProfilerInfo15 *info, ModuleID module_id, HRESULT *hr)
{
    IUnknown *unknown = NULL;
    *hr = info->lpVtbl->GetModuleMetaData(info, module_id, ofRead, &IID_IMetaDataImport2, &unknown);
    return SUCCEEDED(*hr) ? (IMetaDataImport2 *)unknown : NULL;
}

/* How far the loaded image's bytes go, as its PE headers say: the runtime loaded and checked
 * them, so they are read step by step, never past what they declare. 0 when they do not read. */
static uint32_t image_extent(LPCBYTE base, aip_image_layout layout)
{
    size_t readable = 64, needed = 0;
    uint32_t extent = 0;
    aip_image_result result = AIP_IMAGE_NEED_MORE;
    for (int step = 0; step < 4 && result == AIP_IMAGE_NEED_MORE; ++step) {
        result = aip_pe_extent(base, readable, layout, &needed, &extent);
        readable = needed;
    }
    return result == AIP_IMAGE_OK ? extent : 0;
}

static aip_image_layout layout_of(DWORD module_flags)
{
    return (module_flags & COR_PRF_MODULE_FLAT_LAYOUT) != 0 ? AIP_IMAGE_FLAT : AIP_IMAGE_MAPPED;
}

/* The image's ReadyToRun header, read from its loaded bytes. */
static int read_readytorun(LPCBYTE base, DWORD module_flags, aip_readytorun_info *out)
{
    aip_image_layout layout = layout_of(module_flags);
    uint32_t extent = image_extent(base, layout);
    return extent != 0 && aip_readytorun_parse(base, extent, layout, out) == AIP_IMAGE_OK;
}

/* The MVID from the image's own metadata: 1 when it reads there. */
static int read_image_mvid(LPCBYTE base, DWORD module_flags, GUID *mvid)
{
    aip_image_layout layout = layout_of(module_flags);
    uint32_t extent = base != NULL ? image_extent(base, layout) : 0;
    uint8_t bytes[16];
    _Static_assert(sizeof bytes == sizeof *mvid, "an MVID is one GUID");
    if (extent == 0 || aip_image_mvid(base, extent, layout, bytes) != AIP_IMAGE_OK)
        return 0;
    memcpy(mvid, bytes, sizeof bytes);
    return 1;
}

/* 1 when one of the module's assembly references names an allowlisted assembly. Opens the
 * module's public metadata interface, which the runtime then keeps for the module, converted to
 * its slower read-write form: only for the few images that may inline other assemblies. */
static int references_allowlisted(ICorProfilerInfo15 *info, ModuleID module_id,
                                  const aip_allowlist *allowlist)
{
    HRESULT hr;
    IMetaDataImport2 *import = open_import(info, module_id, &hr);
    void *unknown = NULL;
    if (import == NULL)
        return 1; /* cannot tell: refuse, the safe side */
    hr = import->lpVtbl->QueryInterface(import, &IID_IMetaDataAssemblyImport, &unknown);
    import->lpVtbl->Release(import);
    if (FAILED(hr) || unknown == NULL)
        return 1;
    IMetaDataAssemblyImport *assembly = unknown;
    HCORENUM e = NULL;
    mdAssemblyRef refs[32];
    ULONG count = 0;
    int found = 0;
    while (!found &&
           SUCCEEDED(assembly->lpVtbl->EnumAssemblyRefs(assembly, &e, refs, 32, &count)) &&
           count > 0) {
        for (ULONG i = 0; i < count && !found; ++i) {
            WCHAR wide[AIP_ASSEMBLY_NAME_CAPACITY];
            char name[AIP_ASSEMBLY_NAME_CAPACITY];
            ULONG length = 0;
            if (SUCCEEDED(assembly->lpVtbl->GetAssemblyRefProps(assembly, refs[i], NULL, NULL, wide,
                                                                AIP_ASSEMBLY_NAME_CAPACITY, &length,
                                                                NULL, NULL, NULL, NULL))) {
                narrow(wide, length, name, sizeof name);
                found = aip_allowlist_allows(allowlist, name);
            }
        }
    }
    if (e != NULL)
        assembly->lpVtbl->CloseEnum(assembly, e);
    assembly->lpVtbl->Release(assembly);
    return found;
}

/* A ReadyToRun image whose code may inline methods of other assemblies untracked, and that
 * references an allowlisted one: its precompiled code is refused (JITCachedFunctionSearch).
 * One the runtime calls ReadyToRun (COR_PRF_MODULE_NGEN) whose header cannot be read here may
 * inline, as a failed reference query refuses: the safe side. */
static void check_precompiled(ICorProfilerInfo15 *info, const aip_allowlist *allowlist,
                              aip_precompiled_refusals *refusals, ModuleID module_id, LPCBYTE base,
                              DWORD module_flags, const char *name)
{
    if (refusals == NULL)
        return;
    aip_readytorun_info r2r;
    memset(&r2r, 0, sizeof r2r);
    int readable = base != NULL && read_readytorun(base, module_flags, &r2r) && r2r.is_readytorun;
    char line[AIP_ASSEMBLY_NAME_CAPACITY + 160];
    if (!readable) {
        if ((module_flags & COR_PRF_MODULE_NGEN) == 0)
            return;
        snprintf(line, sizeof line,
                 "[alvorkit-interception] %s: the runtime's ReadyToRun image, its ReadyToRun "
                 "header unreadable here; taken as one that may inline other assemblies",
                 name);
        aip_write_stderr_line(line);
    } else if (!r2r.may_inline_other_modules) {
        return;
    }
    if (!references_allowlisted(info, module_id, allowlist))
        return;
    int held = aip_refusals_add(refusals, module_id);
    snprintf(line, sizeof line,
             "[alvorkit-interception] %s: ReadyToRun code that may inline an allowlisted assembly "
             "(flags 0x%X)%s",
             name, (unsigned)r2r.flags,
             held ? "; its methods are JIT-compiled"
                  : "; too many such modules, its precompiled code is kept");
    aip_write_stderr_line(line);
}

void aip_catalog_on_module_loaded(ICorProfilerInfo15 *info, aip_module_catalog *catalog,
                                  const aip_allowlist *allowlist,
                                  aip_precompiled_refusals *refusals, ModuleID module_id)
{
    LPCBYTE base = NULL;
    ULONG length = 0;
    AssemblyID assembly = 0;
    DWORD module_flags = 0;
    WCHAR wide[AIP_ASSEMBLY_NAME_CAPACITY];
    char name[AIP_ASSEMBLY_NAME_CAPACITY] = "";
    if (FAILED(info->lpVtbl->GetModuleInfo2(info, module_id, &base, 0, &length, NULL, &assembly,
                                            &module_flags)))
        return;
    if (SUCCEEDED(info->lpVtbl->GetAssemblyInfo(info, assembly, AIP_ASSEMBLY_NAME_CAPACITY, &length,
                                                wide, NULL, NULL)))
        narrow(wide, length, name, sizeof name);
    int dynamic = (module_flags & COR_PRF_MODULE_DYNAMIC) != 0;
    GUID mvid;
    memset(&mvid, 0, sizeof mvid);
    /* The MVID from the image's bytes: asking the runtime for the module's public metadata
     * interface (GetModuleMetaData) would convert the module's metadata to the read-write form
     * for the rest of the process, which slows every later type load and compilation that
     * reads it (PEAssembly::OpenImporter); done for every framework module at start-up, that
     * was most of a profiled launch's cost. A dynamic module, or an image whose metadata does
     * not read here, is asked the runtime. */
    if (dynamic || !read_image_mvid(base, module_flags, &mvid)) {
        HRESULT hr;
        IMetaDataImport2 *import = open_import(info, module_id, &hr);
        if (import == NULL)
            return;
        hr = import->lpVtbl->GetScopeProps(import, NULL, 0, NULL, &mvid);
        import->lpVtbl->Release(import);
        if (FAILED(hr))
            return;
    }
    if (!dynamic)
        check_precompiled(info, allowlist, refusals, module_id, base, module_flags, name);
    alvk_mvid id;
    _Static_assert(sizeof id.bytes == sizeof mvid, "an MVID is one GUID");
    memcpy(id.bytes, &mvid, sizeof id.bytes); /* little-endian fields, as Guid.ToByteArray */
    aip_catalog_add(catalog, module_id, &id, name,
                    !dynamic && aip_allowlist_allows(allowlist, name),
                    (module_flags & COR_PRF_MODULE_COLLECTIBLE) != 0, NULL);
}

static int type_name_is(IMetaDataImport2 *import, mdToken type, const char *expected)
{
    WCHAR wide[128];
    char name[128];
    ULONG length = 0;
    mdToken scope = 0, extends = 0;
    DWORD flags = 0;
    HRESULT hr = E_FAIL;
    if (AIP_TYPE_FROM_TOKEN(type) == mdtTypeRef)
        hr = import->lpVtbl->GetTypeRefProps(import, type, &scope, wide, 128, &length);
    else if (AIP_TYPE_FROM_TOKEN(type) == mdtTypeDef)
        hr = import->lpVtbl->GetTypeDefProps(import, type, wide, 128, &length, &flags, &extends);
    if (FAILED(hr))
        return 0;
    narrow(wide, length, name, sizeof name);
    return strcmp(name, expected) == 0;
}

static uint32_t type_flags(IMetaDataImport2 *import, mdTypeDef declaring_type)
{
    uint32_t flags = 0;
    HCORENUM e = NULL;
    mdGenericParam param;
    ULONG count = 0;
    if (SUCCEEDED(
            import->lpVtbl->EnumGenericParams(import, &e, declaring_type, &param, 1, &count)) &&
        count > 0)
        flags |= ALVK_METHOD_DECLARING_TYPE_GENERIC;
    if (e != NULL)
        import->lpVtbl->CloseEnum(import, e);
    DWORD type_attributes = 0;
    mdToken extends = 0;
    ULONG length = 0;
    if (SUCCEEDED(import->lpVtbl->GetTypeDefProps(import, declaring_type, NULL, 0, &length,
                                                  &type_attributes, &extends)) &&
        (type_name_is(import, extends, "System.ValueType") ||
         type_name_is(import, extends, "System.Enum")))
        flags |= ALVK_METHOD_VALUE_TYPE_RECEIVER;
    return flags;
}

/* [System.Runtime.Versioning.NonVersionable], matched by name as crossgen2 and the runtime do. */
static const WCHAR k_non_versionable[] = {
    'S', 'y', 's', 't', 'e', 'm', '.', 'R', 'u', 'n', 't', 'i', 'm', 'e', '.', 'V', 'e',
    'r', 's', 'i', 'o', 'n', 'i', 'n', 'g', '.', 'N', 'o', 'n', 'V', 'e', 'r', 's', 'i',
    'o', 'n', 'a', 'b', 'l', 'e', 'A', 't', 't', 'r', 'i', 'b', 'u', 't', 'e', 0};

static alvk_status describe(ICorProfilerInfo15 *info, IMetaDataImport2 *import,
                            const aip_module_entry *module, uint32_t token,
                            aip_method_sig *parsed_sig, aip_method_target *target, HRESULT *hresult)
{
    if (!import->lpVtbl->IsValidToken(import, token))
        return ALVK_E_TOKEN_OUT_OF_RANGE;
    mdTypeDef declaring_type = 0;
    DWORD attributes = 0, impl = 0;
    PCCOR_SIGNATURE sig = NULL;
    ULONG sig_length = 0, rva = 0;
    HRESULT hr = import->lpVtbl->GetMethodProps(import, token, &declaring_type, NULL, 0, NULL,
                                                &attributes, &sig, &sig_length, &rva, &impl);
    if (FAILED(hr))
        return (*hresult = hr, ALVK_E_METADATA_FAILED);
    if ((attributes & (mdAbstract | mdPinvokeImpl)) != 0 || (impl & miCodeTypeMask) != miIL ||
        (impl & miInternalCall) != 0 || rva == 0)
        return ALVK_E_METHOD_HAS_NO_IL;
    alvk_status status = aip_sig_parse_method(sig, sig_length, 0, parsed_sig);
    if (status != ALVK_OK)
        return status;
    LPCBYTE body = NULL;
    ULONG body_length = 0;
    hr = info->lpVtbl->GetILFunctionBody(info, module->module_id, token, &body, &body_length);
    if (FAILED(hr))
        return (*hresult = hr, ALVK_E_METADATA_FAILED);
    aip_method_body parsed_body;
    status = aip_method_body_parse(body, body_length, &parsed_body, NULL, 0);
    if (status != ALVK_OK)
        return status;
    memset(target, 0, sizeof *target);
    target->module_id = module->module_id;
    target->signature = sig;
    target->signature_length = sig_length;
    alvk_method_description *out = &target->description;
    out->size = sizeof *out;
    out->method_token = token;
    out->module_mvid = module->mvid;
    out->module_epoch = module->epoch;
    out->module_id = module->module_id;
    out->module_flags = aip_catalog_flags(module);
    out->method_attributes = attributes;
    out->impl_attributes = impl;
    out->flags = type_flags(import, declaring_type) |
                 (parsed_sig->has_this ? ALVK_METHOD_HAS_THIS : 0) |
                 (parsed_sig->generic_param_count > 0 ? ALVK_METHOD_GENERIC : 0);
    if (!parsed_sig->has_this)
        out->flags &= ~(uint32_t)ALVK_METHOD_VALUE_TYPE_RECEIVER;
    if (import->lpVtbl->GetCustomAttributeByName(import, token, k_non_versionable, NULL, NULL) ==
        S_OK)
        out->flags |= ALVK_METHOD_NON_VERSIONABLE;
    out->declaring_type = declaring_type;
    out->param_count = parsed_sig->param_count;
    out->signature_length = sig_length;
    out->body_size = parsed_body.total_size;
    out->code_size = parsed_body.code_size;
    out->max_stack = parsed_body.max_stack;
    out->eh_clause_count = parsed_body.eh_clause_count;
    out->local_signature = parsed_body.local_var_sig_token;
    aip_sha256_digest(sig, sig_length, out->signature_hash);
    aip_sha256_digest(body, parsed_body.total_size, out->body_identity);
    return ALVK_OK;
}

alvk_status aip_catalog_resolve(ICorProfilerInfo15 *info, aip_module_catalog *catalog,
                                const alvk_mvid *mvid, uintptr_t module_id, uint32_t epoch,
                                uint32_t method_token, aip_method_sig *parsed_sig,
                                aip_method_target *out, HRESULT *hresult)
{
    *hresult = S_OK;
    aip_module_entry module;
    alvk_status status = aip_catalog_select(catalog, mvid, module_id, epoch, &module);
    if (status == ALVK_OK)
        status = aip_catalog_patchable(&module);
    if (status != ALVK_OK)
        return status;
    if (AIP_TYPE_FROM_TOKEN(method_token) != mdtMethodDef)
        return ALVK_E_TOKEN_NOT_METHODDEF;
    if (AIP_RID_FROM_TOKEN(method_token) == 0)
        return ALVK_E_TOKEN_OUT_OF_RANGE;
    IMetaDataImport2 *import = open_import(info, module.module_id, hresult);
    if (import == NULL)
        return ALVK_E_METADATA_FAILED;
    status = describe(info, import, &module, method_token, parsed_sig, out, hresult);
    import->lpVtbl->Release(import);
    return status;
}

/* Copies of one MVID the identification compares; more are never told apart. */
#define AIP_MAX_IDENTIFIED_COPIES 64

alvk_status aip_catalog_identify(ICorProfilerInfo15 *info, aip_module_catalog *catalog,
                                 const alvk_mvid *mvid, uint32_t method_token,
                                 uint64_t method_handle, alvk_module_info *out)
{
    if (method_handle != 0 && AIP_TYPE_FROM_TOKEN(method_token) != mdtMethodDef)
        return ALVK_E_TOKEN_NOT_METHODDEF;
    uintptr_t ids[AIP_MAX_IDENTIFIED_COPIES];
    uint32_t copies = aip_catalog_copies(catalog, mvid, ids, AIP_MAX_IDENTIFIED_COPIES);
    aip_module_entry module;
    alvk_status status = ALVK_E_UNKNOWN_MODULE;
    if (method_handle == 0 || copies == 0) {
        status = aip_catalog_find(catalog, mvid, &module);
    } else {
        uint32_t n = copies < AIP_MAX_IDENTIFIED_COPIES ? copies : AIP_MAX_IDENTIFIED_COPIES;
        for (uint32_t i = 0; i < n && status != ALVK_OK; ++i) {
            /* GetFunctionFromToken only looks the MethodDesc up (a copy whose type is not
             * loaded answers E_INVALIDARG): it never loads anything, and the caller's value is
             * only compared with its answer. (GetClassFromToken would load a type that is not
             * loaded yet, which crashes the runtime when done from this thread.) */
            FunctionID function = 0;
            if (SUCCEEDED(
                    info->lpVtbl->GetFunctionFromToken(info, ids[i], method_token, &function)) &&
                function != 0 && (uint64_t)function == method_handle)
                status = aip_catalog_find_module(catalog, ids[i], &module);
        }
    }
    if (status != ALVK_OK)
        return status;
    memset(out, 0, sizeof *out);
    out->size = sizeof *out;
    out->epoch = module.epoch;
    out->mvid = module.mvid;
    out->module_id = module.module_id;
    out->flags = aip_catalog_flags(&module);
    out->copies = copies;
    return ALVK_OK;
}
