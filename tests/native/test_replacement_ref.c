/* The direct-call path's reads and references against fake metadata: the replacement read in
 * its module (emit/replacement_read.c: its checks, its type chain outermost first, its
 * assembly's identity), and the AssemblyRef in the target's module (emit/assembly_ref.c: an
 * existing one of the same name reused, else defined with that identity, cached per module,
 * forgotten with the module). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "coreclr/cor_metadata.h"
#include "emit/assembly_ref.h"
#include "emit/relocation_emit.h"
#include "emit/replacement_read.h"
#include "text/utf.h"

#include "fake_assembly_metadata.h"

#define REPLACEMENT_MODULE 0x1000u
#define TARGET_MODULE 0x2000u
#define METHOD 0x06000010u
#define OUTER 0x02000002u
#define INNER 0x02000003u

/* One replacement method of type INNER (nested in OUTER, or top level when nested is 0). */
typedef struct fake {
    ICorProfilerInfo15 info;
    IMetaDataImport2 import;
    fake_assemblies assemblies; /* the target's module: its own Assembly row is "Mods" */
    DWORD method_attributes, impl_flags, outer_flags, inner_flags;
    ULONG rva;
    int nested;
    int no_signature;
    mdToken generic_owner; /* the one token with a generic parameter, or 0 */
    HRESULT method_props_hr, metadata_hr;
} fake;

static fake F;
/* int32 Replace(class Outer/Inner, int32&) */
static const uint8_t method_sig[] = {0x00, 0x02, 0x08, 0x12, 0x0D, 0x10, 0x08};
static ICorProfilerInfo15Vtbl info_vtbl;
static IMetaDataImport2Vtbl import_vtbl;
static const uint8_t public_key[] = {0x00, 0x24, 0x00, 0x00, 0x04, 0x80, 0x00, 0x00};

static HRESULT STDMETHODCALLTYPE get_module_metadata(ICorProfilerInfo15 *This, ModuleID module,
                                                     DWORD flags, REFIID riid, IUnknown **out)
{
    (void)This, (void)flags, (void)riid;
    if (FAILED(F.metadata_hr))
        return F.metadata_hr;
    *out = module == REPLACEMENT_MODULE ? (IUnknown *)(void *)&F.import
                                        : (IUnknown *)(void *)&F.assemblies.emit;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE import_query(IMetaDataImport2 *This, REFIID riid, void **out)
{
    (void)This, (void)riid;
    *out = &F.assemblies.import;
    return S_OK;
}

static ULONG STDMETHODCALLTYPE import_release(IMetaDataImport2 *This)
{
    (void)This;
    return 0;
}

static BOOL STDMETHODCALLTYPE is_valid_token(IMetaDataImport2 *This, mdToken token)
{
    (void)This;
    return token == METHOD;
}

static HRESULT STDMETHODCALLTYPE method_props(IMetaDataImport2 *This, mdMethodDef method,
                                              mdTypeDef *type, LPWSTR name, ULONG capacity,
                                              ULONG *length, DWORD *attributes,
                                              PCCOR_SIGNATURE *sig, ULONG *sig_length, ULONG *rva,
                                              DWORD *impl)
{
    (void)This, (void)method;
    if (FAILED(F.method_props_hr))
        return F.method_props_hr;
    *type = INNER;
    fake_widen("Replace", name, capacity, length);
    *attributes = F.method_attributes;
    *sig = F.no_signature ? NULL : method_sig;
    *sig_length = F.no_signature ? 0 : (ULONG)sizeof method_sig;
    *rva = F.rva;
    *impl = F.impl_flags;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE type_props(IMetaDataImport2 *This, mdTypeDef type, LPWSTR name,
                                            ULONG capacity, ULONG *length, DWORD *flags,
                                            mdToken *extends)
{
    (void)This;
    *extends = 0;
    if (type == OUTER) {
        fake_widen("Mods.Outer", name, capacity, length);
        *flags = F.outer_flags;
    } else {
        fake_widen(F.nested ? "Inner" : "Mods.Inner", name, capacity, length);
        *flags = F.inner_flags;
    }
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE nested_props(IMetaDataImport2 *This, mdTypeDef type,
                                              mdTypeDef *enclosing)
{
    (void)This;
    assert_int_equal(type, INNER);
    *enclosing = OUTER;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE generic_params(IMetaDataImport2 *This, HCORENUM *e, mdToken owner,
                                                mdGenericParam *params, ULONG capacity,
                                                ULONG *count)
{
    (void)This, (void)e, (void)capacity;
    *count = owner == F.generic_owner ? 1 : 0;
    params[0] = 0x2A000001u;
    return S_OK;
}

static void STDMETHODCALLTYPE import_close(IMetaDataImport2 *This, HCORENUM e)
{
    (void)This, (void)e;
}

static void fake_init(void)
{
    memset(&F, 0, sizeof F);
    info_vtbl.GetModuleMetaData = get_module_metadata;
    import_vtbl.QueryInterface = import_query;
    import_vtbl.Release = import_release;
    import_vtbl.IsValidToken = is_valid_token;
    import_vtbl.GetMethodProps = method_props;
    import_vtbl.GetTypeDefProps = type_props;
    import_vtbl.GetNestedClassProps = nested_props;
    import_vtbl.EnumGenericParams = generic_params;
    import_vtbl.CloseEnum = import_close;
    F.info.lpVtbl = &info_vtbl;
    F.import.lpVtbl = &import_vtbl;
    fake_assemblies_init(&F.assemblies, "Mods", "Other");
    F.assemblies.public_key = public_key;
    F.assemblies.public_key_length = sizeof public_key;
    F.assemblies.locale = "fr";
    F.assemblies.flags = afPublicKey;
    /* public static, IL with a body, of a public type nested public in a public type */
    F.method_attributes = mdPublic | mdStatic | mdHideBySig;
    F.impl_flags = miIL | miManaged;
    F.rva = 0x2050;
    F.outer_flags = tdPublic;
    F.inner_flags = tdNestedPublic;
    F.nested = 1;
}

static aip_replacement_name name;

static alvk_status read(int same_assembly, HRESULT *hr)
{
    return aip_replacement_read(&F.info, REPLACEMENT_MODULE, METHOD, same_assembly, &name, hr);
}

static void expect_name(const aip_name_span *span, const char *text)
{
    assert_int_equal(span->length, strlen(text));
    assert_memory_equal(name.names + span->offset, text, span->length);
}

static void a_public_nested_method_is_read_outermost_first(void **state)
{
    (void)state;
    fake_init();
    HRESULT hr = E_FAIL;
    assert_int_equal(read(0, &hr), ALVK_OK);
    assert_int_equal(hr, S_OK);
    assert_int_equal(name.type_count, 2);
    /* Its signature, copied as its module has it, for the MemberRef comparison. */
    assert_int_equal(name.signature_length, sizeof method_sig);
    assert_memory_equal(name.signature, method_sig, sizeof method_sig);
    expect_name(&name.types[0], "Mods.Outer");
    expect_name(&name.types[1], "Inner");
    expect_name(&name.method, "Replace");
    char assembly[16], locale[8];
    assert_true(aip_utf16_to_utf8((const uint16_t *)name.assembly.name, assembly, sizeof assembly) >
                0);
    assert_true(aip_utf16_to_utf8((const uint16_t *)name.assembly.locale, locale, sizeof locale) >
                0);
    assert_string_equal(assembly, "Mods");
    assert_string_equal(locale, "fr");
    assert_int_equal(name.assembly.version[0], 1);
    assert_int_equal(name.assembly.version[3], 4);
    assert_int_equal(name.assembly.public_key_length, sizeof public_key);
    assert_memory_equal(name.assembly.public_key, public_key, sizeof public_key);
    assert_int_equal(name.assembly.flags, afPublicKey);

    /* A top-level type: one name, with its namespace. */
    F.nested = 0;
    F.inner_flags = tdPublic;
    assert_int_equal(read(0, &hr), ALVK_OK);
    assert_int_equal(name.type_count, 1);
    expect_name(&name.types[0], "Mods.Inner");
}

static void visibility_decides_accessibility(void **state)
{
    (void)state;
    HRESULT hr;
    static const DWORD method_access[] = {mdPrivate, mdFamily, mdAssem, mdFamORAssem,
                                          mdFamANDAssem};
    static const int same_ok[] = {0, 0, 1, 1, 0};
    for (size_t i = 0; i < sizeof method_access / sizeof method_access[0]; ++i) {
        fake_init();
        F.method_attributes = method_access[i] | mdStatic;
        assert_int_equal(read(0, &hr), ALVK_E_REPLACEMENT_NOT_ACCESSIBLE);
        assert_int_equal(read(1, &hr), same_ok[i] ? ALVK_OK : ALVK_E_REPLACEMENT_NOT_ACCESSIBLE);
    }
    static const DWORD nested_access[] = {tdNestedPrivate,  tdNestedFamily,     tdNestedAssembly,
                                          tdNestedFamORAssem, tdNestedFamANDAssem};
    static const int nested_same_ok[] = {0, 0, 1, 1, 0};
    for (size_t i = 0; i < sizeof nested_access / sizeof nested_access[0]; ++i) {
        fake_init();
        F.inner_flags = nested_access[i];
        assert_int_equal(read(0, &hr), ALVK_E_REPLACEMENT_NOT_ACCESSIBLE);
        assert_int_equal(read(1, &hr),
                         nested_same_ok[i] ? ALVK_OK : ALVK_E_REPLACEMENT_NOT_ACCESSIBLE);
    }
    /* An internal enclosing type hides a public nested one from other assemblies. */
    fake_init();
    F.outer_flags = tdNotPublic;
    assert_int_equal(read(0, &hr), ALVK_E_REPLACEMENT_NOT_ACCESSIBLE);
    assert_int_equal(read(1, &hr), ALVK_OK);
}

static void what_no_direct_call_can_serve_is_unsupported(void **state)
{
    (void)state;
    HRESULT hr;
    fake_init();
    F.method_attributes = mdPublic; /* an instance method */
    assert_int_equal(read(0, &hr), ALVK_E_REPLACEMENT_UNSUPPORTED);
    fake_init();
    F.method_attributes |= mdPinvokeImpl;
    assert_int_equal(read(0, &hr), ALVK_E_REPLACEMENT_UNSUPPORTED);
    fake_init();
    F.impl_flags = miInternalCall;
    assert_int_equal(read(0, &hr), ALVK_E_REPLACEMENT_UNSUPPORTED);
    fake_init();
    F.impl_flags = miRuntime;
    assert_int_equal(read(0, &hr), ALVK_E_REPLACEMENT_UNSUPPORTED);
    fake_init();
    F.rva = 0;
    assert_int_equal(read(0, &hr), ALVK_E_REPLACEMENT_UNSUPPORTED);
    /* A static virtual interface member with a default body: not callable by a plain call. */
    fake_init();
    F.method_attributes |= mdVirtual;
    assert_int_equal(read(1, &hr), ALVK_E_REPLACEMENT_UNSUPPORTED);
    assert_int_equal(read(0, &hr), ALVK_E_REPLACEMENT_UNSUPPORTED);
    /* No signature to compare with the reference. */
    fake_init();
    F.no_signature = 1;
    assert_int_equal(read(1, &hr), ALVK_E_REPLACEMENT_UNSUPPORTED);
    /* Generic: the method, its type, or an enclosing type; before any accessibility. */
    static const mdToken generic[] = {METHOD, INNER, OUTER};
    for (size_t i = 0; i < 3; ++i) {
        fake_init();
        F.generic_owner = generic[i];
        F.method_attributes = mdPrivate | mdStatic;
        assert_int_equal(read(0, &hr), ALVK_E_REPLACEMENT_UNSUPPORTED);
    }
    /* Not a MethodDef of the module. */
    fake_init();
    assert_int_equal(aip_replacement_read(&F.info, REPLACEMENT_MODULE, INNER, 0, &name, &hr),
                     ALVK_E_REPLACEMENT_UNSUPPORTED);
    assert_int_equal(aip_replacement_read(&F.info, REPLACEMENT_MODULE, 0x06000000u, 0, &name, &hr),
                     ALVK_E_REPLACEMENT_UNSUPPORTED);
    assert_int_equal(aip_replacement_read(&F.info, REPLACEMENT_MODULE, 0x06000011u, 0, &name, &hr),
                     ALVK_E_REPLACEMENT_UNSUPPORTED);
}

static void metadata_failures_keep_their_hresult(void **state)
{
    (void)state;
    HRESULT hr = S_OK;
    fake_init();
    F.metadata_hr = (HRESULT)0x80131130;
    assert_int_equal(read(0, &hr), ALVK_E_METADATA_FAILED);
    assert_int_equal(hr, (HRESULT)0x80131130);
    fake_init();
    F.method_props_hr = (HRESULT)0x80131124;
    assert_int_equal(read(0, &hr), ALVK_E_METADATA_FAILED);
    assert_int_equal(hr, (HRESULT)0x80131124);
}

/* ---- the AssemblyRef --------------------------------------------------------------------- */

static aip_emitter emitter;

static void emitter_init(void)
{
    memset(&emitter, 0, sizeof emitter); /* init requires zeroed storage */
    assert_int_equal(aip_emitter_init(&emitter, &F.info), 0);
}

static void an_assembly_ref_is_defined_once_per_module(void **state)
{
    (void)state;
    fake_init();
    emitter_init();
    HRESULT hr = E_FAIL;
    assert_int_equal(read(0, &hr), ALVK_OK);
    uint32_t token = 0, again = 0;
    assert_int_equal(aip_emit_assembly_ref(&emitter, TARGET_MODULE, &name.assembly, &token, &hr),
                     ALVK_OK);
    assert_int_equal(token, 0x23000011u);
    assert_int_equal(F.assemblies.defines, 1);
    char defined[16], locale[8];
    assert_true(aip_utf16_to_utf8((const uint16_t *)F.assemblies.defined_name, defined, sizeof defined) > 0);
    assert_true(aip_utf16_to_utf8((const uint16_t *)F.assemblies.defined_locale, locale, sizeof locale) > 0);
    assert_string_equal(defined, "Mods");
    assert_string_equal(locale, "fr");
    assert_int_equal(F.assemblies.defined_md.usMajorVersion, 1);
    assert_int_equal(F.assemblies.defined_md.usMinorVersion, 2);
    assert_int_equal(F.assemblies.defined_md.usBuildNumber, 3);
    assert_int_equal(F.assemblies.defined_md.usRevisionNumber, 4);
    assert_int_equal(F.assemblies.defined_key_length, sizeof public_key);
    assert_memory_equal(F.assemblies.defined_key, public_key, sizeof public_key);
    assert_int_equal(F.assemblies.defined_flags, afPublicKey);
    assert_int_equal(atomic_load(&emitter.tokens_emitted), 1);

    /* Cached: the same token, nothing defined, counted as reused. */
    assert_int_equal(aip_emit_assembly_ref(&emitter, TARGET_MODULE, &name.assembly, &again, &hr),
                     ALVK_OK);
    assert_int_equal(again, token);
    assert_int_equal(F.assemblies.defines, 1);
    assert_int_equal(atomic_load(&emitter.tokens_reused), 1);

    /* Another module is another entry; an unloaded module's entries are gone. */
    assert_int_equal(
        aip_emit_assembly_ref(&emitter, TARGET_MODULE + 1, &name.assembly, &again, &hr), ALVK_OK);
    assert_int_equal(F.assemblies.defines, 2);
    aip_emitter_forget_module(&emitter, TARGET_MODULE);
    assert_int_equal(aip_emit_assembly_ref(&emitter, TARGET_MODULE, &name.assembly, &again, &hr),
                     ALVK_OK);
    assert_int_equal(F.assemblies.defines, 3);
}

static void an_existing_reference_of_that_name_is_reused(void **state)
{
    (void)state;
    fake_init();
    emitter_init();
    HRESULT hr;
    assert_int_equal(read(0, &hr), ALVK_OK);
    F.assemblies.second_ref = "MODS"; /* the binder compares names without regard to ASCII case */
    uint32_t token = 0;
    assert_int_equal(aip_emit_assembly_ref(&emitter, TARGET_MODULE, &name.assembly, &token, &hr),
                     ALVK_OK);
    assert_int_equal(token, 0x23000002u);
    assert_int_equal(F.assemblies.defines, 0);
    assert_int_equal(atomic_load(&emitter.tokens_emitted), 0);
    /* A name that only starts the same is another assembly. */
    fake_init();
    emitter_init();
    assert_int_equal(read(0, &hr), ALVK_OK);
    F.assemblies.second_ref = "Mods.Extra";
    assert_int_equal(aip_emit_assembly_ref(&emitter, TARGET_MODULE, &name.assembly, &token, &hr),
                     ALVK_OK);
    assert_int_equal(F.assemblies.defines, 1);
}

static void emission_failures_are_metadata_emit_failed(void **state)
{
    (void)state;
    fake_init();
    emitter_init();
    HRESULT hr = S_OK;
    assert_int_equal(read(0, &hr), ALVK_OK);
    F.assemblies.define_hr = (HRESULT)0x80131187;
    uint32_t token = 0;
    assert_int_equal(aip_emit_assembly_ref(&emitter, TARGET_MODULE, &name.assembly, &token, &hr),
                     ALVK_E_METADATA_EMIT_FAILED);
    assert_int_equal(hr, (HRESULT)0x80131187);
    /* Nothing cached: it is tried again. */
    F.assemblies.define_hr = S_OK;
    assert_int_equal(aip_emit_assembly_ref(&emitter, TARGET_MODULE, &name.assembly, &token, &hr),
                     ALVK_OK);
    assert_int_equal(F.assemblies.defines, 1);
    F.metadata_hr = (HRESULT)0x80131130;
    assert_int_equal(
        aip_emit_assembly_ref(&emitter, TARGET_MODULE + 5, &name.assembly, &token, &hr),
        ALVK_E_METADATA_EMIT_FAILED);
    assert_int_equal(hr, (HRESULT)0x80131130);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_public_nested_method_is_read_outermost_first),
        cmocka_unit_test(visibility_decides_accessibility),
        cmocka_unit_test(what_no_direct_call_can_serve_is_unsupported),
        cmocka_unit_test(metadata_failures_keep_their_hresult),
        cmocka_unit_test(an_assembly_ref_is_defined_once_per_module),
        cmocka_unit_test(an_existing_reference_of_that_name_is_reused),
        cmocka_unit_test(emission_failures_are_metadata_emit_failed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
