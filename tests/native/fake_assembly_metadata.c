#include "fake_assembly_metadata.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coreclr/cor_guids.h"

#define FAKE_OF(ptr, member) ((fake_assemblies *)(void *)((char *)(ptr) - offsetof(fake_assemblies, member)))

void fake_widen(const char *in, WCHAR *out, ULONG capacity, ULONG *length)
{
    ULONG n = 0;
    for (; in[n] != 0 && n + 1 < capacity; ++n)
        out[n] = (WCHAR)in[n];
    out[n] = 0;
    if (length != NULL)
        *length = n + 1;
}

static HRESULT STDMETHODCALLTYPE from_scope(IMetaDataAssemblyImport *This, mdAssembly *token)
{
    *token = 0x20000001u;
    return FAKE_OF(This, import)->identity_hr;
}

static HRESULT STDMETHODCALLTYPE assembly_props(IMetaDataAssemblyImport *This, mdAssembly token,
                                                const void **key, ULONG *key_length, ULONG *hash,
                                                LPWSTR name, ULONG capacity, ULONG *length,
                                                ASSEMBLYMETADATA *md, DWORD *flags)
{
    (void)token;
    const fake_assemblies *f = FAKE_OF(This, import);
    *key = f->public_key;
    *key_length = f->public_key_length;
    *hash = 0x8004;
    fake_widen(f->name, name, capacity, length);
    if (f->name_units != 0)
        *length = f->name_units;
    md->usMajorVersion = 1, md->usMinorVersion = 2, md->usBuildNumber = 3;
    md->usRevisionNumber = 4;
    if (f->locale != NULL)
        fake_widen(f->locale, md->szLocale, md->cbLocale, &md->cbLocale);
    else
        md->cbLocale = 0;
    *flags = f->flags;
    return S_OK;
}

/* Two references on the first call, none after. */
static HRESULT STDMETHODCALLTYPE enum_refs(IMetaDataAssemblyImport *This, HCORENUM *e,
                                           mdAssemblyRef *refs, ULONG capacity, ULONG *count)
{
    (void)This, (void)capacity;
    *count = *e == NULL ? 2 : 0;
    *e = (HCORENUM)(uintptr_t)1;
    refs[0] = FAKE_SYSTEM_RUNTIME_REF, refs[1] = FAKE_SECOND_REF;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE ref_props(IMetaDataAssemblyImport *This, mdAssemblyRef ref,
                                           const void **key, ULONG *key_length, LPWSTR name,
                                           ULONG capacity, ULONG *length, ASSEMBLYMETADATA *md,
                                           const void **hash, ULONG *hash_length, DWORD *flags)
{
    (void)key, (void)key_length, (void)md, (void)hash, (void)hash_length, (void)flags;
    fake_widen(ref == FAKE_SYSTEM_RUNTIME_REF ? "System.Runtime" : FAKE_OF(This, import)->second_ref,
               name, capacity, length);
    return S_OK;
}

static void STDMETHODCALLTYPE import_close(IMetaDataAssemblyImport *This, HCORENUM e)
{
    (void)This, (void)e;
}

static ULONG STDMETHODCALLTYPE import_release(IMetaDataAssemblyImport *This)
{
    (void)This;
    return 0;
}

static HRESULT STDMETHODCALLTYPE emit_query(IMetaDataAssemblyEmit *This, REFIID riid, void **out)
{
    (void)riid;
    *out = &FAKE_OF(This, emit)->import;
    return S_OK;
}

static ULONG STDMETHODCALLTYPE emit_release(IMetaDataAssemblyEmit *This)
{
    (void)This;
    return 0;
}

static HRESULT STDMETHODCALLTYPE define_ref(IMetaDataAssemblyEmit *This, const void *key,
                                            ULONG key_length, LPCWSTR name,
                                            const ASSEMBLYMETADATA *md, const void *hash,
                                            ULONG hash_length, DWORD flags, mdAssemblyRef *out)
{
    (void)hash, (void)hash_length;
    fake_assemblies *f = FAKE_OF(This, emit);
    if (FAILED(f->define_hr))
        return f->define_hr;
    size_t n = 0;
    for (; name[n] != 0 && n + 1 < sizeof f->defined_name / sizeof *f->defined_name; ++n)
        f->defined_name[n] = name[n];
    f->defined_name[n] = 0;
    f->defined_md = *md;
    f->defined_md.szLocale = NULL;
    for (n = 0; n < md->cbLocale && n + 1 < sizeof f->defined_locale / sizeof *f->defined_locale; ++n)
        f->defined_locale[n] = md->szLocale[n];
    f->defined_locale[n] = 0;
    assert_true(key_length <= sizeof f->defined_key);
    if (key_length > 0)
        memcpy(f->defined_key, key, key_length);
    f->defined_key_length = key_length;
    f->defined_flags = flags;
    *out = FAKE_FIRST_DEFINED_REF + f->defines++;
    return S_OK;
}

static IMetaDataAssemblyImportVtbl import_vtbl = {
    .GetAssemblyFromScope = from_scope,
    .GetAssemblyProps = assembly_props,
    .EnumAssemblyRefs = enum_refs,
    .GetAssemblyRefProps = ref_props,
    .CloseEnum = import_close,
    .Release = import_release,
};

static IMetaDataAssemblyEmitVtbl emit_vtbl = {
    .QueryInterface = emit_query,
    .Release = emit_release,
    .DefineAssemblyRef = define_ref,
};

void fake_assemblies_init(fake_assemblies *f, const char *name, const char *second_ref)
{
    memset(f, 0, sizeof *f);
    f->import.lpVtbl = &import_vtbl;
    f->emit.lpVtbl = &emit_vtbl;
    f->name = name;
    f->second_ref = second_ref;
}

/* ---- the module part ------------------------------------------------------------------------ */

#define MODULE_OF(ptr, member) ((fake_module *)(void *)((char *)(ptr) - offsetof(fake_module, member)))

static int guid_is(REFIID riid, const GUID *iid)
{
    return memcmp(riid, iid, sizeof *iid) == 0;
}

static void narrow(LPCWSTR in, char *out, size_t capacity)
{
    size_t n = 0;
    for (; in[n] != 0 && n + 1 < capacity; ++n)
        out[n] = (char)in[n];
    out[n] = 0;
}

static int wide_equals(LPCWSTR wide, const char *ascii)
{
    size_t n = 0;
    for (; wide[n] != 0 && ascii[n] != 0; ++n)
        if (wide[n] != (WCHAR)(unsigned char)ascii[n])
            return 0;
    return wide[n] == 0 && ascii[n] == 0;
}

/* A name into (buffer, capacity) as the runtime writes it: *length counts the terminating 0. */
static void name_out(const char *name, LPWSTR buffer, ULONG capacity, ULONG *length)
{
    if (buffer != NULL && capacity > 0)
        fake_widen(name, buffer, capacity, length);
    else if (length != NULL)
        *length = (ULONG)strlen(name) + 1;
}

fake_type_def *fake_module_find_type(fake_module *m, mdTypeDef token)
{
    for (uint32_t i = 0; i < m->type_count; ++i)
        if (m->types[i].token == token)
            return &m->types[i];
    return NULL;
}

fake_method_def *fake_module_find_method(fake_module *m, mdMethodDef token)
{
    for (uint32_t i = 0; i < m->method_count; ++i)
        if (m->methods[i].token == token)
            return &m->methods[i];
    return NULL;
}

static fake_type_ref *find_ref(fake_module *m, mdTypeRef token)
{
    for (uint32_t i = 0; i < m->ref_count; ++i)
        if (m->refs[i].token == token)
            return &m->refs[i];
    return NULL;
}

/* ICorProfilerInfo15 */

static HRESULT STDMETHODCALLTYPE module_metadata(ICorProfilerInfo15 *This, ModuleID module,
                                                 DWORD flags, REFIID riid, IUnknown **out)
{
    (void)module, (void)flags;
    fake_module *m = MODULE_OF(This, info);
    if (FAILED(m->metadata_hr))
        return m->metadata_hr;
    m->metadata_opens++;
    if (guid_is(riid, &IID_IMetaDataImport2))
        *out = (IUnknown *)(void *)&m->import;
    else if (guid_is(riid, &IID_IMetaDataEmit2))
        *out = (IUnknown *)(void *)&m->emit;
    else
        return E_NOINTERFACE;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE body_allocator(ICorProfilerInfo15 *This, ModuleID module,
                                                IMethodMalloc **out)
{
    (void)module;
    *out = &MODULE_OF(This, info)->allocator;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE set_body(ICorProfilerInfo15 *This, ModuleID module,
                                          mdMethodDef method, LPCBYTE body)
{
    (void)module;
    fake_method_def *row = fake_module_find_method(MODULE_OF(This, info), method);
    if (row == NULL)
        return E_INVALIDARG;
    row->body = (uint8_t *)(uintptr_t)body;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE apply(ICorProfilerInfo15 *This, ModuleID module)
{
    (void)module;
    MODULE_OF(This, info)->applies++;
    return S_OK;
}

/* IMethodMalloc */

static ULONG STDMETHODCALLTYPE allocator_release(IMethodMalloc *This)
{
    (void)This;
    return 0;
}

static PVOID STDMETHODCALLTYPE allocator_alloc(IMethodMalloc *This, ULONG cb)
{
    fake_module *m = MODULE_OF(This, allocator);
    assert_true(m->allocation_count < FAKE_MODULE_ROWS);
    void *p = malloc(cb);
    m->allocations[m->allocation_count++] = p;
    return p;
}

/* IMetaDataEmit2 */

static HRESULT STDMETHODCALLTYPE module_emit_query(IMetaDataEmit2 *This, REFIID riid, void **out)
{
    if (!guid_is(riid, &IID_IMetaDataImport2))
        return E_NOINTERFACE;
    *out = &MODULE_OF(This, emit)->import;
    return S_OK;
}

static ULONG STDMETHODCALLTYPE module_emit_release(IMetaDataEmit2 *This)
{
    (void)This;
    return 0;
}

static HRESULT STDMETHODCALLTYPE define_nested_type(IMetaDataEmit2 *This, LPCWSTR name,
                                                    DWORD flags, mdToken base,
                                                    mdToken *implements, mdTypeDef encloser,
                                                    mdTypeDef *out)
{
    assert_null(implements);
    fake_module *m = MODULE_OF(This, emit);
    char ascii[64];
    narrow(name, ascii, sizeof ascii);
    *out = FAKE_FIRST_DEFINED_TYPE + m->defined_types++;
    fake_module_type_def(m, *out, ascii, flags, base, encloser);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE define_method(IMetaDataEmit2 *This, mdTypeDef type, LPCWSTR name,
                                               DWORD flags, PCCOR_SIGNATURE sig, ULONG sig_size,
                                               ULONG rva, DWORD impl_flags, mdMethodDef *out)
{
    assert_int_equal(rva, 0);
    fake_module *m = MODULE_OF(This, emit);
    char ascii[64];
    narrow(name, ascii, sizeof ascii);
    *out = FAKE_FIRST_DEFINED_METHOD + m->defined_methods++;
    fake_module_method_def(m, *out, type, ascii, flags, sig, sig_size)->impl_flags = impl_flags;
    return S_OK;
}

/* IMetaDataImport2 */

static HRESULT STDMETHODCALLTYPE module_import_query(IMetaDataImport2 *This, REFIID riid,
                                                     void **out)
{
    if (!guid_is(riid, &IID_IMetaDataAssemblyImport))
        return E_NOINTERFACE;
    *out = &MODULE_OF(This, import)->assemblies.import;
    return S_OK;
}

static ULONG STDMETHODCALLTYPE module_import_release(IMetaDataImport2 *This)
{
    (void)This;
    return 0;
}

static void STDMETHODCALLTYPE module_close_enum(IMetaDataImport2 *This, HCORENUM e)
{
    (void)This, (void)e;
}

/* An enumeration's position is kept in the handle itself (position + 1). */
static ULONG next_chunk(HCORENUM *e, ULONG total, ULONG capacity)
{
    ULONG at = *e == NULL ? 0 : (ULONG)((uintptr_t)*e - 1);
    ULONG n = total - at < capacity ? total - at : capacity;
    *e = (HCORENUM)(uintptr_t)(at + n + 1);
    return n;
}

static HRESULT STDMETHODCALLTYPE enum_type_refs(IMetaDataImport2 *This, HCORENUM *e,
                                                mdTypeRef *out, ULONG capacity, ULONG *count)
{
    fake_module *m = MODULE_OF(This, import);
    ULONG at = *e == NULL ? 0 : (ULONG)((uintptr_t)*e - 1);
    *count = next_chunk(e, m->ref_count, capacity);
    for (ULONG i = 0; i < *count; ++i)
        out[i] = m->refs[at + i].token;
    return *count > 0 ? S_OK : S_FALSE;
}

static HRESULT STDMETHODCALLTYPE find_type_def(IMetaDataImport2 *This, LPCWSTR name,
                                               mdToken encloser, mdTypeDef *out)
{
    fake_module *m = MODULE_OF(This, import);
    for (uint32_t i = 0; i < m->type_count; ++i)
        if (m->types[i].encloser == encloser && wide_equals(name, m->types[i].name)) {
            *out = m->types[i].token;
            return S_OK;
        }
    return CLDB_E_RECORD_NOTFOUND;
}

static HRESULT STDMETHODCALLTYPE type_def_props(IMetaDataImport2 *This, mdTypeDef token,
                                                LPWSTR name, ULONG capacity, ULONG *length,
                                                DWORD *flags, mdToken *base)
{
    const fake_type_def *row = fake_module_find_type(MODULE_OF(This, import), token);
    if (row == NULL)
        return CLDB_E_RECORD_NOTFOUND;
    name_out(row->name, name, capacity, length);
    *flags = row->flags;
    *base = row->base;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE type_ref_props(IMetaDataImport2 *This, mdTypeRef token,
                                                mdToken *scope, LPWSTR name, ULONG capacity,
                                                ULONG *length)
{
    const fake_type_ref *row = find_ref(MODULE_OF(This, import), token);
    if (row == NULL)
        return CLDB_E_RECORD_NOTFOUND;
    *scope = FAKE_SYSTEM_RUNTIME_REF;
    name_out(row->name, name, capacity, length);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE method_props(IMetaDataImport2 *This, mdMethodDef token,
                                              mdTypeDef *owner, LPWSTR name, ULONG capacity,
                                              ULONG *length, DWORD *flags, PCCOR_SIGNATURE *sig,
                                              ULONG *sig_size, ULONG *rva, DWORD *impl_flags)
{
    const fake_method_def *row = fake_module_find_method(MODULE_OF(This, import), token);
    if (row == NULL)
        return CLDB_E_RECORD_NOTFOUND;
    *owner = row->owner;
    name_out(row->name, name, capacity, length);
    *flags = row->flags;
    *sig = row->sig;
    *sig_size = row->sig_size;
    *rva = 0;
    *impl_flags = row->impl_flags;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE find_method(IMetaDataImport2 *This, mdTypeDef type, LPCWSTR name,
                                             PCCOR_SIGNATURE sig, ULONG sig_size, mdMethodDef *out)
{
    fake_module *m = MODULE_OF(This, import);
    for (uint32_t i = 0; i < m->method_count; ++i) {
        const fake_method_def *row = &m->methods[i];
        if (row->owner == type && wide_equals(name, row->name) && row->sig_size == sig_size &&
            memcmp(row->sig, sig, sig_size) == 0) {
            *out = row->token;
            return S_OK;
        }
    }
    return CLDB_E_RECORD_NOTFOUND;
}

static HRESULT STDMETHODCALLTYPE nested_class_props(IMetaDataImport2 *This, mdTypeDef token,
                                                    mdTypeDef *encloser)
{
    const fake_type_def *row = fake_module_find_type(MODULE_OF(This, import), token);
    if (row == NULL || row->encloser == 0)
        return CLDB_E_RECORD_NOTFOUND;
    *encloser = row->encloser;
    return S_OK;
}

/* Generic parameters 0x2A000001, 0x2A000002, ... of a TypeDef or a MethodDef. */
static HRESULT STDMETHODCALLTYPE enum_generic_params(IMetaDataImport2 *This, HCORENUM *e,
                                                     mdToken owner, mdGenericParam *out,
                                                     ULONG capacity, ULONG *count)
{
    fake_module *m = MODULE_OF(This, import);
    const fake_type_def *type = fake_module_find_type(m, owner);
    const fake_method_def *method = fake_module_find_method(m, owner);
    ULONG total = type != NULL ? type->generic_params : method != NULL ? method->generic_params : 0;
    ULONG at = *e == NULL ? 0 : (ULONG)((uintptr_t)*e - 1);
    *count = next_chunk(e, total, capacity);
    for (ULONG i = 0; i < *count; ++i)
        out[i] = 0x2A000001u + at + i;
    return *count > 0 ? S_OK : S_FALSE;
}

static ICorProfilerInfo15Vtbl module_info_vtbl = {
    .GetModuleMetaData = module_metadata,
    .GetILFunctionBodyAllocator = body_allocator,
    .SetILFunctionBody = set_body,
    .ApplyMetaData = apply,
};

static IMethodMallocVtbl allocator_vtbl = {
    .Release = allocator_release,
    .Alloc = allocator_alloc,
};

static IMetaDataEmit2Vtbl module_emit_vtbl = {
    .QueryInterface = module_emit_query,
    .Release = module_emit_release,
    .DefineNestedType = define_nested_type,
    .DefineMethod = define_method,
};

static IMetaDataImport2Vtbl module_import_vtbl = {
    .QueryInterface = module_import_query,
    .Release = module_import_release,
    .CloseEnum = module_close_enum,
    .EnumTypeRefs = enum_type_refs,
    .FindTypeDefByName = find_type_def,
    .GetTypeDefProps = type_def_props,
    .GetTypeRefProps = type_ref_props,
    .GetMethodProps = method_props,
    .FindMethod = find_method,
    .GetNestedClassProps = nested_class_props,
    .EnumGenericParams = enum_generic_params,
};

void fake_module_init(fake_module *m)
{
    memset(m, 0, sizeof *m);
    m->info.lpVtbl = &module_info_vtbl;
    m->emit.lpVtbl = &module_emit_vtbl;
    m->import.lpVtbl = &module_import_vtbl;
    m->allocator.lpVtbl = &allocator_vtbl;
    fake_assemblies_init(&m->assemblies, "Mods", "Other");
}

void fake_module_free(fake_module *m)
{
    for (uint32_t i = 0; i < m->allocation_count; ++i)
        free(m->allocations[i]);
    m->allocation_count = 0;
}

void fake_module_type_def(fake_module *m, mdTypeDef token, const char *name, DWORD flags,
                          mdToken base, mdTypeDef encloser)
{
    assert_true(m->type_count < FAKE_MODULE_ROWS);
    fake_type_def *row = &m->types[m->type_count++];
    memset(row, 0, sizeof *row);
    row->token = token;
    snprintf(row->name, sizeof row->name, "%s", name);
    row->flags = flags;
    row->base = base;
    row->encloser = encloser;
}

void fake_module_type_ref(fake_module *m, mdTypeRef token, const char *name)
{
    assert_true(m->ref_count < FAKE_MODULE_ROWS);
    fake_type_ref *row = &m->refs[m->ref_count++];
    row->token = token;
    snprintf(row->name, sizeof row->name, "%s", name);
}

fake_method_def *fake_module_method_def(fake_module *m, mdMethodDef token, mdTypeDef owner,
                                        const char *name, DWORD flags, const uint8_t *sig,
                                        ULONG sig_size)
{
    assert_true(m->method_count < FAKE_MODULE_ROWS);
    assert_true(sig_size <= sizeof m->methods[0].sig);
    fake_method_def *row = &m->methods[m->method_count++];
    memset(row, 0, sizeof *row);
    row->token = token;
    row->owner = owner;
    snprintf(row->name, sizeof row->name, "%s", name);
    row->flags = flags;
    memcpy(row->sig, sig, sig_size);
    row->sig_size = sig_size;
    return row;
}
