/* The ReadyToRun refusal's glue against a fake runtime: which loaded images go into the set
 * (catalog/module_catalog_clr.c: the header read, an unreadable header of a ReadyToRun module,
 * the AssemblyRef walk over several pages, a failed query, a full set, no set at all), and
 * which methods a cache search refuses (catalog/precompiled_function.c: the method's module,
 * its own and its class's type arguments, nested and array ones, the bounds, shared code). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "catalog/allowlist.h"
#include "catalog/module_catalog_clr.h"
#include "catalog/precompiled_function.h"
#include "coreclr/cor_metadata.h"
#include "coreclr/corprof_enums.h"
#include "readytorun_fixture.h"
#include "runtime/profiler_callbacks.h"

#include <stdlib.h>

#define MODULE 0x5000u
#define REFUSED 0x7000u
#define OTHER 0x8000u

/* Types: ClassID i (1..15) is a class of module `type_module[i]` with `type_args[i]`; an
 * array when `array_of[i]` is nonzero. */
typedef struct fake {
    ICorProfilerInfo15 info;
    IMetaDataImport2 import;
    IMetaDataAssemblyImport assembly;
    uint8_t image[FIX_MAPPED_BYTES];
    int has_image;
    DWORD module_flags;
    int qi_fails;
    ULONG ref_count;   /* the module's AssemblyRefs */
    ULONG game_ref_at; /* index of the one named "Game", or >= ref_count for none */
    ULONG pages;       /* EnumAssemblyRefs calls that returned tokens */
    int enum_closed;
    /* the function */
    HRESULT function_hr;
    int function_calls;
    ModuleID function_module;
    ClassID function_class;
    ULONG32 function_arg_count;
    ClassID function_args[12];
    /* the types */
    ModuleID type_module[16];
    ULONG32 type_arg_count[16];
    ClassID type_args[16][12];
    ClassID array_of[16];
    int type_fails[16];
} fake;

static fake F;
static ICorProfilerInfo15Vtbl info_vtbl;
static IMetaDataImport2Vtbl import_vtbl;
static IMetaDataAssemblyImportVtbl assembly_vtbl;
static aip_module_catalog catalog;
static aip_precompiled_refusals refusals;
static aip_allowlist allowlist;

static void widen(const char *in, WCHAR *out, ULONG capacity, ULONG *length)
{
    ULONG n = 0;
    for (; in[n] != 0 && n + 1 < capacity; ++n)
        out[n] = (WCHAR)in[n];
    out[n] = 0;
    *length = n + 1;
}

static HRESULT STDMETHODCALLTYPE module_info(ICorProfilerInfo15 *This, ModuleID module,
                                             LPCBYTE *base, ULONG capacity, ULONG *length,
                                             WCHAR *name, AssemblyID *assembly, DWORD *flags)
{
    (void)This, (void)module, (void)capacity, (void)length, (void)name;
    *base = F.has_image ? F.image : NULL;
    *assembly = 1;
    *flags = F.module_flags;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE assembly_info(ICorProfilerInfo15 *This, AssemblyID assembly,
                                               ULONG capacity, ULONG *length, WCHAR *name,
                                               AppDomainID *domain, ModuleID *module)
{
    (void)This, (void)assembly, (void)domain, (void)module;
    widen("Mod", name, capacity, length);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE module_metadata(ICorProfilerInfo15 *This, ModuleID module,
                                                 DWORD flags, REFIID riid, IUnknown **out)
{
    (void)This, (void)module, (void)flags, (void)riid;
    *out = (IUnknown *)(void *)&F.import;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE import_query(IMetaDataImport2 *This, REFIID riid, void **out)
{
    (void)This, (void)riid;
    if (F.qi_fails) {
        *out = NULL;
        return E_NOINTERFACE;
    }
    *out = &F.assembly;
    return S_OK;
}

static ULONG STDMETHODCALLTYPE import_release(IMetaDataImport2 *This)
{
    (void)This;
    return 0;
}

static HRESULT STDMETHODCALLTYPE scope_props(IMetaDataImport2 *This, LPWSTR name, ULONG capacity,
                                             ULONG *length, GUID *mvid)
{
    (void)This, (void)name, (void)capacity, (void)length;
    memset(mvid, 0x5A, sizeof *mvid);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE enum_refs(IMetaDataAssemblyImport *This, HCORENUM *e,
                                           mdAssemblyRef *refs, ULONG capacity, ULONG *count)
{
    (void)This;
    uintptr_t next = *e == NULL ? 0 : (uintptr_t)*e - 1; /* the cursor, plus 1: never NULL */
    ULONG n = 0;
    for (; n < capacity && next < F.ref_count; ++n, ++next)
        refs[n] = (mdAssemblyRef)(0x23000001u + next);
    *e = (HCORENUM)(next + 1);
    *count = n;
    if (n > 0)
        F.pages++;
    return n > 0 ? S_OK : S_FALSE;
}

static HRESULT STDMETHODCALLTYPE ref_props(IMetaDataAssemblyImport *This, mdAssemblyRef ref,
                                           const void **key, ULONG *key_length, LPWSTR name,
                                           ULONG capacity, ULONG *length, ASSEMBLYMETADATA *md,
                                           const void **hash, ULONG *hash_length, DWORD *flags)
{
    (void)This, (void)key, (void)key_length, (void)md, (void)hash, (void)hash_length,
        (void)flags;
    ULONG index = ref - 0x23000001u;
    widen(index == F.game_ref_at ? "Game" : "Other", name, capacity, length);
    return S_OK;
}

static void STDMETHODCALLTYPE close_enum(IMetaDataAssemblyImport *This, HCORENUM e)
{
    (void)This, (void)e;
    F.enum_closed++;
}

static ULONG STDMETHODCALLTYPE assembly_release(IMetaDataAssemblyImport *This)
{
    (void)This;
    return 0;
}

static HRESULT STDMETHODCALLTYPE function_info(ICorProfilerInfo15 *This, FunctionID function,
                                               COR_PRF_FRAME_INFO frame, ClassID *type,
                                               ModuleID *module, mdToken *token,
                                               ULONG32 capacity, ULONG32 *count, ClassID *args)
{
    (void)This, (void)function, (void)frame;
    F.function_calls++;
    if (FAILED(F.function_hr))
        return F.function_hr;
    *type = F.function_class;
    *module = F.function_module;
    *token = 0x06000001u;
    *count = F.function_arg_count;
    for (ULONG32 i = 0; i < F.function_arg_count && i < capacity; ++i)
        args[i] = F.function_args[i];
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE class_info(ICorProfilerInfo15 *This, ClassID type,
                                            ModuleID *module, mdTypeDef *token, ClassID *parent,
                                            ULONG32 capacity, ULONG32 *count, ClassID *args)
{
    (void)This;
    assert_true(type < 16);
    if (F.type_fails[type])
        return E_INVALIDARG;
    *module = F.type_module[type];
    *token = 0x02000002u;
    *parent = 0;
    *count = F.type_arg_count[type];
    for (ULONG32 i = 0; i < F.type_arg_count[type] && i < capacity; ++i)
        args[i] = F.type_args[type][i];
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE is_array(ICorProfilerInfo15 *This, ClassID type,
                                          CorElementType *element, ClassID *element_type,
                                          ULONG *rank)
{
    (void)This;
    assert_true(type < 16);
    if (F.array_of[type] == 0)
        return S_FALSE;
    *element = 0x12; /* ELEMENT_TYPE_CLASS */
    *element_type = F.array_of[type];
    *rank = 1;
    return S_OK;
}

static int setup(void **state)
{
    (void)state;
    memset(&F, 0, sizeof F);
    memset(&refusals, 0, sizeof refusals);
    memset(&info_vtbl, 0, sizeof info_vtbl);
    memset(&import_vtbl, 0, sizeof import_vtbl);
    memset(&assembly_vtbl, 0, sizeof assembly_vtbl);
    info_vtbl.GetModuleInfo2 = module_info;
    info_vtbl.GetAssemblyInfo = assembly_info;
    info_vtbl.GetModuleMetaData = module_metadata;
    info_vtbl.GetFunctionInfo2 = function_info;
    info_vtbl.GetClassIDInfo2 = class_info;
    info_vtbl.IsArrayClass = is_array;
    import_vtbl.QueryInterface = import_query;
    import_vtbl.Release = import_release;
    import_vtbl.GetScopeProps = scope_props;
    assembly_vtbl.EnumAssemblyRefs = enum_refs;
    assembly_vtbl.GetAssemblyRefProps = ref_props;
    assembly_vtbl.CloseEnum = close_enum;
    assembly_vtbl.Release = assembly_release;
    F.info.lpVtbl = &info_vtbl;
    F.import.lpVtbl = &import_vtbl;
    F.assembly.lpVtbl = &assembly_vtbl;
    F.game_ref_at = 1000;
    char message[128];
    assert_int_equal(aip_allowlist_parse("Game", &allowlist, message, sizeof message), ALVK_OK);
    assert_int_equal(aip_catalog_init(&catalog), 0);
    return 0;
}

/* A ReadyToRun image that says COMPONENT (may inline other modules); `flags` adds to it. */
static void r2r_image(uint32_t flags)
{
    static const uint32_t none[1] = {0};
    fix_build(F.image, AIP_IMAGE_MAPPED, FIX_R2R_RVA, AIP_R2R_SIGNATURE, flags, none, 0);
    F.has_image = 1;
}

/* A multi-module-format image with section 119 (crossgen2 10.0.12's bytes for the proof's
 * CrossEarly, test_readytorun_image.c): without and with --opt-cross-module. */
static void r2r_image_119(const uint8_t *bytes, uint32_t n)
{
    static const uint32_t types[1] = {AIP_R2R_SECTION_CROSS_MODULE_INLINES};
    fix_build(F.image, AIP_IMAGE_MAPPED, FIX_R2R_RVA, AIP_R2R_SIGNATURE,
              AIP_R2R_FLAG_MULTIMODULE_VERSION_BUBBLE, types, 1);
    fix_section_bytes(F.image, AIP_IMAGE_MAPPED, 0, bytes, n);
    F.has_image = 1;
}

static const uint8_t OWN_INLINEES[] = {0x00, 0x02, 0x02};
static const uint8_t CROSS_INLINEES[] = {0x00, 0x02, 0x04, 0x23, 0x02, 0x06, 0x02, 0x06, 0x00};

static void load(void)
{
    aip_catalog_on_module_loaded(&F.info, &catalog, &allowlist, &refusals, MODULE);
}

static void refused_when_it_references_the_allowlisted_on_a_later_page(void **state)
{
    (void)state;
    r2r_image_119(CROSS_INLINEES, sizeof CROSS_INLINEES);
    F.ref_count = 70;
    F.game_ref_at = 68; /* third page of 32 */
    load();
    assert_true(aip_refusals_hold(&refusals, MODULE));
    assert_int_equal(F.pages, 3);
    assert_int_equal(F.enum_closed, 1);
}

static void kept_when_no_reference_names_an_allowlisted_assembly(void **state)
{
    (void)state;
    r2r_image(AIP_R2R_FLAG_COMPONENT);
    F.ref_count = 40;
    load();
    assert_false(aip_refusals_any(&refusals));
    assert_int_equal(F.pages, 2);
}

static void kept_when_its_code_inlines_only_its_own_module(void **state)
{
    (void)state;
    r2r_image_119(OWN_INLINEES, sizeof OWN_INLINEES);
    F.ref_count = 1;
    F.game_ref_at = 0;
    load();
    assert_false(aip_refusals_any(&refusals));
    assert_int_equal(F.pages, 0); /* the reference walk is not even paid */
}

static void refused_when_the_reference_query_fails(void **state)
{
    (void)state;
    r2r_image(AIP_R2R_FLAG_COMPONENT);
    F.qi_fails = 1;
    load();
    assert_true(aip_refusals_hold(&refusals, MODULE));
}

static void an_unreadable_header_of_a_readytorun_module_may_inline(void **state)
{
    (void)state;
    r2r_image(AIP_R2R_FLAG_COMPONENT);
    F.image[0] = 'X'; /* no longer a PE image */
    F.module_flags = COR_PRF_MODULE_NGEN;
    F.ref_count = 2;
    F.game_ref_at = 1;
    load();
    assert_true(aip_refusals_hold(&refusals, MODULE));
    /* The same bytes in a module the runtime does not call ReadyToRun: nothing to refuse. */
    memset(&refusals, 0, sizeof refusals);
    F.module_flags = 0;
    load();
    assert_false(aip_refusals_any(&refusals));
}

static void no_set_no_refusal(void **state)
{
    (void)state;
    r2r_image(AIP_R2R_FLAG_COMPONENT);
    F.ref_count = 1;
    F.game_ref_at = 0;
    aip_catalog_on_module_loaded(&F.info, &catalog, &allowlist, NULL, MODULE);
    assert_int_equal(F.pages, 0);
}

static void a_full_set_keeps_the_code_and_counts_it(void **state)
{
    (void)state;
    for (uint32_t i = 0; i < AIP_PRECOMPILED_REFUSAL_CAPACITY; ++i)
        assert_true(aip_refusals_add(&refusals, 0x10000u + i));
    r2r_image(AIP_R2R_FLAG_COMPONENT);
    F.ref_count = 1;
    F.game_ref_at = 0;
    load();
    assert_false(aip_refusals_hold(&refusals, MODULE));
    assert_int_equal(atomic_load(&refusals.overflowed), 1);
}

static int held(void)
{
    assert_true(aip_refusals_add(&refusals, REFUSED));
    return aip_refusals_hold_function(&F.info, &refusals, 42);
}

static void a_method_of_a_refused_module(void **state)
{
    (void)state;
    F.function_module = REFUSED;
    F.function_class = 1;
    F.type_module[1] = REFUSED;
    assert_true(held());
    F.function_module = F.type_module[1] = OTHER;
    assert_false(held());
}

static void a_method_type_argument_of_a_refused_module(void **state)
{
    (void)state;
    F.function_module = F.type_module[1] = OTHER; /* Game.Helper<RType> */
    F.function_class = 1;
    F.function_arg_count = 2;
    F.function_args[0] = 2;
    F.function_args[1] = 3;
    F.type_module[2] = OTHER;
    F.type_module[3] = REFUSED;
    assert_true(held());
    F.type_module[3] = OTHER;
    assert_false(held());
}

static void a_nested_class_type_argument_of_a_refused_module(void **state)
{
    (void)state;
    F.function_module = F.type_module[1] = OTHER; /* Game.Box<List<RType[]>>.Get */
    F.function_class = 1;
    F.type_arg_count[1] = 1;
    F.type_args[1][0] = 2;
    F.type_module[2] = OTHER;
    F.type_arg_count[2] = 1;
    F.type_args[2][0] = 3;
    F.array_of[3] = 4;
    F.type_module[4] = REFUSED;
    assert_true(held());
    F.type_module[4] = OTHER;
    assert_false(held());
}

static void past_the_bounds_or_unknown_is_refused(void **state)
{
    (void)state;
    F.function_module = F.type_module[1] = OTHER;
    F.function_class = 1;
    assert_false(held());
    /* more type arguments than looked at */
    F.function_arg_count = AIP_PRECOMPILED_TYPE_ARGS + 1;
    for (uint32_t i = 0; i < F.function_arg_count; ++i) {
        F.function_args[i] = 2;
    }
    F.type_module[2] = OTHER;
    assert_true(held());
    F.function_arg_count = 0;
    /* nested deeper than looked into: 1 -> 2 -> 3 -> 4 -> 5 */
    for (ClassID t = 1; t < 5; ++t) {
        F.type_module[t] = OTHER;
        F.type_arg_count[t] = 1;
        F.type_args[t][0] = t + 1;
    }
    F.type_module[5] = OTHER;
    assert_true(held());
    F.type_arg_count[4] = 0;
    assert_false(held());
    /* a type the runtime cannot describe */
    F.type_fails[2] = 1;
    assert_true(held());
    F.type_fails[2] = 0;
    /* shared code of a generic class: no class without a frame */
    F.function_class = 0;
    assert_true(held());
    /* the function itself cannot be described */
    F.function_class = 1;
    F.function_hr = E_FAIL;
    assert_true(held());
}

/* The callback: nothing asked while the set is empty or patching is off; a refusal counted. */
static void the_cache_search_callback(void **state)
{
    (void)state;
    aip_profiler *p = calloc(1, sizeof *p);
    assert_non_null(p);
    p->info = &F.info;
    atomic_store(&p->attached, 1);
    p->config.startup_status = ALVK_OK;
    F.function_module = F.type_module[1] = OTHER;
    F.function_class = 1;
    F.function_arg_count = 1;
    F.function_args[0] = 2;
    F.type_module[2] = REFUSED;
    BOOL use_cached = 1;
    aip_runtime_cached_function_search(p, 42, &use_cached);
    assert_true(use_cached);
    assert_int_equal(F.function_calls, 0);
    assert_true(aip_refusals_add(&p->refusals, REFUSED));
    aip_runtime_cached_function_search(p, 42, &use_cached);
    assert_false(use_cached);
    assert_int_equal(atomic_load(&p->refusals.methods_refused), 1);
    F.type_module[2] = OTHER;
    use_cached = 1;
    aip_runtime_cached_function_search(p, 42, &use_cached);
    assert_true(use_cached);
    assert_int_equal(atomic_load(&p->refusals.methods_refused), 1);
    p->config.startup_status = ALVK_E_NO_PATCHABLE_MODULES;
    F.type_module[2] = REFUSED;
    int calls = F.function_calls;
    aip_runtime_cached_function_search(p, 42, &use_cached);
    assert_true(use_cached);
    assert_int_equal(F.function_calls, calls);
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(refused_when_it_references_the_allowlisted_on_a_later_page, setup),
        cmocka_unit_test_setup(kept_when_no_reference_names_an_allowlisted_assembly, setup),
        cmocka_unit_test_setup(kept_when_its_code_inlines_only_its_own_module, setup),
        cmocka_unit_test_setup(refused_when_the_reference_query_fails, setup),
        cmocka_unit_test_setup(an_unreadable_header_of_a_readytorun_module_may_inline, setup),
        cmocka_unit_test_setup(no_set_no_refusal, setup),
        cmocka_unit_test_setup(a_full_set_keeps_the_code_and_counts_it, setup),
        cmocka_unit_test_setup(a_method_of_a_refused_module, setup),
        cmocka_unit_test_setup(a_method_type_argument_of_a_refused_module, setup),
        cmocka_unit_test_setup(a_nested_class_type_argument_of_a_refused_module, setup),
        cmocka_unit_test_setup(past_the_bounds_or_unknown_is_refused, setup),
        cmocka_unit_test_setup(the_cache_search_callback, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
