#include "fake_assembly_metadata.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

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
