/* The ASSEMBLY_REF relocation: validation (generation/relocation_validate.c: exactly
 * 8 blob bytes, NO_OPERAND, no name, no parent; only a TYPE_REF may name it as parent; a
 * class reference may not name it) and emission against fake metadata
 * (emit/relocation_emit.c, emit/assembly_ref.c): the module_id looked up in the catalog, the
 * identity read from that module's Assembly row, the target's AssemblyRef of that name found
 * or defined, cached per module, the TypeRef and MemberRef emitted under it; an unknown,
 * unloaded or collectible module_id refused as that relocation's failure. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "catalog/module_catalog.h"
#include "coreclr/cor_guids.h"
#include "coreclr/cor_metadata.h"
#include "emit/assembly_identity.h"
#include "emit/relocation_emit.h"
#include "generation/generation_stack_check.h"
#include "generation/generation_validate.h"
#include "generation/relocation_blob.h"

#include "fake_assembly_metadata.h"
#include "relocation_append.h"

#define TARGET_MODULE 0x1234u
#define MOD_MODULE 0x5000u      /* the hooks' module: catalogued, not collectible */
#define DYNAMIC_MODULE 0x6000u  /* collectible */
#define GONE_MODULE 0x7000u     /* unloaded */
#define NEVER_MODULE 0x8000u    /* never catalogued */
#define CALL_OPERAND 1u         /* code: call <R3>; ret */
#define CODE_OFFSET 1u          /* a tiny header */

/* ---- the generation ------------------------------------------------------------------------ */

typedef struct gen {
    uint8_t body[8];
    uint8_t blobs[96];
    alvk_relocation relocs[6];
    alvk_generation g;
} gen;

static alvk_relocation *add(gen *x, alvk_relocation_kind kind, uint32_t il_offset,
                            const void *blob, uint32_t blob_length, const char *name)
{
    return relocation_append(&x->g, x->relocs, x->blobs, kind, il_offset, blob, blob_length, name);
}

static void module_id_blob(uint64_t id, uint8_t out[8])
{
    for (int k = 0; k < 8; ++k)
        out[k] = (uint8_t)(id >> (8 * k));
}

/* R1 ASSEMBLY_REF <module>, R2 TYPE_REF "Mods.Hooks" under R1, R3 MEMBER_REF "Prefix"
 * (void()) under R2 on the call. */
static void gen_init(gen *x, uint64_t module)
{
    static const uint8_t code[] = {0x28, 0, 0, 0, 0x0A, 0x2A};
    static const uint8_t void_sig[] = {0x00, 0x00, 0x01};
    memset(x, 0, sizeof *x);
    x->body[0] = (uint8_t)((sizeof code << 2) | 0x2u);
    memcpy(x->body + 1, code, sizeof code);
    x->g.size = sizeof x->g;
    x->g.method_token = 0x06000002u;
    x->g.owner = 7;
    x->g.body = x->body;
    x->g.body_size = 1 + sizeof code;
    x->g.blobs = x->blobs;
    x->g.relocations = x->relocs;
    uint8_t id[8];
    module_id_blob(module, id);
    add(x, ALVK_RELOCATION_ASSEMBLY_REF, ALVK_RELOCATION_NO_OPERAND, id, 8, NULL);
    add(x, ALVK_RELOCATION_TYPE_REF, ALVK_RELOCATION_NO_OPERAND, NULL, 0, "Mods.Hooks")
        ->parent_relocation = 1;
    add(x, ALVK_RELOCATION_MEMBER_REF, CALL_OPERAND, void_sig, sizeof void_sig, "Prefix")
        ->parent_relocation = 2;
}

static alvk_status check(const gen *x, uint32_t *failing)
{
    aip_generation_check c;
    alvk_status status = aip_generation_validate(&x->g, AIP_ORIGINAL_SIZE_UNKNOWN, &c);
    *failing = c.failing_index;
    return status;
}

static void expect(const gen *x, alvk_status status, uint32_t failing)
{
    uint32_t at = 99;
    assert_int_equal(check(x, &at), status);
    assert_int_equal(at, failing);
}

/* ---- validation ---------------------------------------------------------------------------- */

static void a_type_ref_under_an_assembly_ref_is_valid(void **state)
{
    (void)state;
    gen x;
    gen_init(&x, MOD_MODULE);
    expect(&x, ALVK_OK, 0);
    assert_int_equal(aip_relocation_module_id(&x.g, 0), MOD_MODULE);
    assert_int_equal(aip_relocation_module_id(&x.g, 1), 0); /* not an ASSEMBLY_REF */
    /* All 8 bytes count, little-endian. */
    gen_init(&x, 0x0102030405060708ull);
    expect(&x, ALVK_OK, 0);
    assert_true(aip_relocation_module_id(&x.g, 0) == 0x0102030405060708ull);
    /* A nested TypeRef under the TypeRef under the AssemblyRef is valid too. */
    gen_init(&x, MOD_MODULE);
    add(&x, ALVK_RELOCATION_TYPE_REF, ALVK_RELOCATION_NO_OPERAND, NULL, 0, "Inner")
        ->parent_relocation = 2;
    expect(&x, ALVK_OK, 0);
}

static void the_blob_is_exactly_eight_bytes(void **state)
{
    (void)state;
    static const uint32_t lengths[] = {0, 1, 7, 9, 16};
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; ++i) {
        gen x;
        gen_init(&x, MOD_MODULE);
        x.relocs[0].blob_length = lengths[i];
        expect(&x, ALVK_E_RELOCATION_MALFORMED, 0);
    }
    /* Eight bytes that end past the pool. */
    gen x;
    gen_init(&x, MOD_MODULE);
    x.relocs[0].blob_offset = x.g.blobs_size - 4;
    expect(&x, ALVK_E_RELOCATION_MALFORMED, 0);
}

static void it_fills_no_operand(void **state)
{
    (void)state;
    static const uint32_t offsets[] = {CALL_OPERAND, 0, ALVK_RELOCATION_LOCALS_SIGNATURE,
                                       ALVK_RELOCATION_CATCH_TYPE(0), 1000};
    for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; ++i) {
        gen x;
        gen_init(&x, MOD_MODULE);
        x.relocs[0].il_offset = offsets[i];
        expect(&x, ALVK_E_RELOCATION_MALFORMED, 0);
    }
}

static void it_has_no_name_and_no_parent(void **state)
{
    (void)state;
    gen x;
    gen_init(&x, MOD_MODULE);
    x.relocs[0].name_offset = x.relocs[1].name_offset; /* "Mods.Hooks" */
    x.relocs[0].name_length = 4;
    expect(&x, ALVK_E_RELOCATION_MALFORMED, 0);
    gen_init(&x, MOD_MODULE);
    x.relocs[0].parent_token = 0x23000001u;
    expect(&x, ALVK_E_RELOCATION_MALFORMED, 0);
    /* A parent relocation: refused (the one at index 1 names index 0, the other itself). */
    gen_init(&x, MOD_MODULE);
    x.relocs[1] = x.relocs[0];
    x.relocs[1].parent_relocation = 1;
    expect(&x, ALVK_E_RELOCATION_MALFORMED, 1);
    gen_init(&x, MOD_MODULE);
    x.relocs[0].parent_relocation = 1;
    expect(&x, ALVK_E_RELOCATION_MALFORMED, 0);
}

static void only_a_type_ref_may_have_it_as_parent(void **state)
{
    (void)state;
    /* A MemberRef straight under the AssemblyRef. */
    gen x;
    gen_init(&x, MOD_MODULE);
    x.relocs[2].parent_relocation = 1;
    expect(&x, ALVK_E_RELOCATION_MALFORMED, 2);
    /* A MethodSpec under it. */
    static const uint8_t spec_sig[] = {0x0A, 0x01, 0x08};
    gen_init(&x, MOD_MODULE);
    add(&x, ALVK_RELOCATION_METHOD_SPEC, ALVK_RELOCATION_NO_OPERAND, spec_sig, sizeof spec_sig,
        NULL)
        ->parent_relocation = 1;
    expect(&x, ALVK_E_RELOCATION_MALFORMED, 3);
    /* A TYPE_REF parent_token naming an AssemblyRef of the module stays valid (ABI 3.0). */
    gen_init(&x, MOD_MODULE);
    x.relocs[1].parent_relocation = 0;
    x.relocs[1].parent_token = 0x23000001u;
    expect(&x, ALVK_OK, 0);
}

static void a_class_reference_may_not_name_it(void **state)
{
    (void)state;
    /* A TypeSpec `class <row 1>`: row 1 is the ASSEMBLY_REF, not a TYPE_REF. */
    static const uint8_t spec[] = {0x12, (1u << 2) | 3u};
    gen x;
    gen_init(&x, MOD_MODULE);
    add(&x, ALVK_RELOCATION_TYPE_SPEC, ALVK_RELOCATION_NO_OPERAND, spec, sizeof spec, NULL);
    expect(&x, ALVK_E_RELOCATION_MALFORMED, 3);
    /* Row 2, the TYPE_REF under it: valid. */
    static const uint8_t good[] = {0x12, (2u << 2) | 3u};
    gen_init(&x, MOD_MODULE);
    add(&x, ALVK_RELOCATION_TYPE_SPEC, ALVK_RELOCATION_NO_OPERAND, good, sizeof good, NULL);
    expect(&x, ALVK_OK, 0);
}

static void kinds_past_it_stay_malformed(void **state)
{
    (void)state;
    gen x;
    gen_init(&x, MOD_MODULE);
    x.relocs[0].kind = (alvk_relocation_kind)8;
    expect(&x, ALVK_E_RELOCATION_MALFORMED, 0);
}

/* The stack-type check reads the MemberRef under the TypeRef under the AssemblyRef from the
 * relocations: a void hook leaves nothing at ret; an int32 one leaves an int32 there. */
static void the_stack_check_reads_the_member_under_it(void **state)
{
    (void)state;
    static const uint8_t void_target[] = {0x00, 0x00, 0x01}; /* static void() */
    aip_stack_target t = {void_target, sizeof void_target, 0};
    aip_stack_result out;
    gen x;
    gen_init(&x, MOD_MODULE);
    assert_int_equal(aip_generation_check_stack_types(&x.g, &t, NULL, &out), ALVK_OK);
    assert_int_equal(out.complete, 1);
    x.blobs[x.relocs[2].blob_offset + 2] = 0x08; /* int32 Prefix() */
    assert_int_equal(aip_generation_check_stack_types(&x.g, &t, NULL, &out),
                     ALVK_E_STACK_TYPE_MISMATCH);
    assert_int_equal(out.offset, 5); /* the ret */
    assert_int_equal(out.found, ALVK_STACK_INT32);
}

/* ---- emission against fake metadata ------------------------------------------------------ */

/* The target's module (emit, import, assembly emit) and the hooks' module (import, whose
 * Assembly row is "GameMod" 1.2.3.4, culture "", public key token-less). */
typedef struct fake {
    ICorProfilerInfo15 info;
    IMetaDataEmit2 emit;
    IMetaDataImport2 import;
    fake_assemblies assemblies; /* the target's; its own Assembly row is "GameMod" */
    uint32_t type_refs, member_refs, applies;
    mdToken type_ref_scope, member_ref_parent;
    ModuleID metadata_of[8]; /* the modules GetModuleMetaData was asked for */
    uint32_t metadata_calls;
} fake;

static fake F;
static ICorProfilerInfo15Vtbl info_vtbl;
static IMetaDataEmit2Vtbl emit_vtbl;
static IMetaDataImport2Vtbl import_vtbl;

static int same_iid(REFIID a, const GUID *b)
{
    return memcmp(a, b, sizeof *b) == 0;
}

static HRESULT STDMETHODCALLTYPE get_module_metadata(ICorProfilerInfo15 *This, ModuleID module,
                                                     DWORD flags, REFIID riid, IUnknown **out)
{
    (void)This, (void)flags;
    if (F.metadata_calls < 8)
        F.metadata_of[F.metadata_calls] = module;
    F.metadata_calls++;
    if (module != TARGET_MODULE) {
        assert_true(same_iid(riid, &IID_IMetaDataImport2)); /* read only, for its identity */
        *out = (IUnknown *)(void *)&F.import;
        return S_OK;
    }
    if (same_iid(riid, &IID_IMetaDataAssemblyEmit))
        *out = (IUnknown *)(void *)&F.assemblies.emit;
    else
        *out = (IUnknown *)(void *)&F.emit;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE apply_metadata(ICorProfilerInfo15 *This, ModuleID module)
{
    (void)This;
    assert_int_equal(module, TARGET_MODULE);
    F.applies++;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE emit_query(IMetaDataEmit2 *This, REFIID riid, void **out)
{
    (void)This, (void)riid;
    *out = &F.import;
    return S_OK;
}

static ULONG STDMETHODCALLTYPE emit_release(IMetaDataEmit2 *This)
{
    (void)This;
    return 0;
}

static HRESULT STDMETHODCALLTYPE define_type_ref(IMetaDataEmit2 *This, mdToken scope, LPCWSTR name,
                                                 mdTypeRef *out)
{
    (void)This, (void)name;
    F.type_ref_scope = scope;
    *out = 0x01000040u + F.type_refs++;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE define_member_ref(IMetaDataEmit2 *This, mdToken parent,
                                                   LPCWSTR name, PCCOR_SIGNATURE sig, ULONG length,
                                                   mdMemberRef *out)
{
    (void)This, (void)name, (void)sig, (void)length;
    F.member_ref_parent = parent;
    *out = 0x0A000080u + F.member_refs++;
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
    (void)This, (void)token;
    return 1;
}

static void fake_init(void)
{
    memset(&F, 0, sizeof F);
    info_vtbl.GetModuleMetaData = get_module_metadata;
    info_vtbl.ApplyMetaData = apply_metadata;
    emit_vtbl.QueryInterface = emit_query;
    emit_vtbl.Release = emit_release;
    emit_vtbl.DefineTypeRefByName = define_type_ref;
    emit_vtbl.DefineMemberRef = define_member_ref;
    import_vtbl.QueryInterface = import_query;
    import_vtbl.Release = import_release;
    import_vtbl.IsValidToken = is_valid_token;
    F.info.lpVtbl = &info_vtbl;
    F.emit.lpVtbl = &emit_vtbl;
    F.import.lpVtbl = &import_vtbl;
    fake_assemblies_init(&F.assemblies, "GameMod", "Game");
}

/* The catalog and the emitter: zeroed statics, as the profiler object's are. */
static aip_module_catalog catalog;
static aip_emitter emitter;
static _Alignas(8) uint8_t scratch[AIP_RELOCATION_BLOB_MAX];

static void world_init(void)
{
    fake_init();
    memset(&catalog, 0, sizeof catalog);
    memset(&emitter, 0, sizeof emitter);
    assert_int_equal(aip_catalog_init(&catalog), 0);
    assert_int_equal(aip_emitter_init(&emitter, &F.info), 0);
    alvk_mvid m = {{1}};
    uint32_t epoch = 0;
    assert_int_equal(aip_catalog_add(&catalog, TARGET_MODULE, &m, "Game", 1, 0, &epoch), ALVK_OK);
    m.bytes[0] = 2;
    assert_int_equal(aip_catalog_add(&catalog, MOD_MODULE, &m, "GameMod", 0, 0, &epoch), ALVK_OK);
    m.bytes[0] = 3;
    assert_int_equal(aip_catalog_add(&catalog, DYNAMIC_MODULE, &m, "Dyn", 0, 1, &epoch), ALVK_OK);
    m.bytes[0] = 4;
    assert_int_equal(aip_catalog_add(&catalog, GONE_MODULE, &m, "Gone", 0, 0, &epoch), ALVK_OK);
    aip_catalog_unload(&catalog, GONE_MODULE);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static alvk_status emit(const gen *x, uint8_t *body, alvk_relocation_result *results,
                        uint32_t *failing, HRESULT *hr)
{
    uint32_t at;
    assert_int_equal(check(x, &at), ALVK_OK);
    memcpy(body, x->body, x->g.body_size);
    *failing = 99;
    return aip_emit_generation(&emitter, &catalog, TARGET_MODULE, &x->g, body, CODE_OFFSET,
                               scratch, results, failing, hr);
}

static void the_assembly_ref_is_defined_then_reused(void **state)
{
    (void)state;
    world_init();
    gen x;
    gen_init(&x, MOD_MODULE);
    uint8_t body[8];
    alvk_relocation_result res[6];
    uint32_t failing;
    HRESULT hr;
    assert_int_equal(emit(&x, body, res, &failing, &hr), ALVK_OK);
    /* The hooks' module was read for its identity; the target got an AssemblyRef with it. */
    assert_int_equal(F.metadata_of[0], MOD_MODULE);
    assert_int_equal(F.assemblies.defines, 1);
    WCHAR expected[32];
    fake_widen("GameMod", expected, 32, NULL);
    assert_memory_equal(F.assemblies.defined_name, expected, 8 * sizeof(WCHAR));
    assert_int_equal(F.assemblies.defined_md.usMajorVersion, 1);
    assert_int_equal(F.assemblies.defined_md.usRevisionNumber, 4);
    /* The result reports the AssemblyRef; the TypeRef's scope is it; the MemberRef's parent
     * the TypeRef; the call names the MemberRef; the new metadata was applied once. */
    assert_int_equal(res[0].kind, ALVK_RELOCATION_ASSEMBLY_REF);
    assert_int_equal(res[0].size, sizeof res[0]);
    assert_int_equal(res[0].token, 0x23000011u);
    assert_int_equal(res[0].reused, 0);
    assert_int_equal(res[0].hresult, S_OK);
    assert_int_equal(F.type_ref_scope, 0x23000011u);
    assert_int_equal(res[1].token, 0x01000040u);
    assert_int_equal(F.member_ref_parent, 0x01000040u);
    assert_int_equal(res[2].token, 0x0A000080u);
    assert_int_equal(get32(body + CODE_OFFSET + CALL_OPERAND), 0x0A000080u);
    assert_int_equal(F.applies, 1);

    /* The next generation of this module epoch: every token from the cache, nothing
     * defined, nothing applied. */
    uint32_t metadata_calls = F.metadata_calls;
    assert_int_equal(emit(&x, body, res, &failing, &hr), ALVK_OK);
    assert_int_equal(F.assemblies.defines, 1);
    assert_int_equal(res[0].token, 0x23000011u);
    assert_int_equal(res[0].reused, 1);
    assert_int_equal(res[1].reused, 1);
    assert_int_equal(res[2].reused, 1);
    assert_int_equal(F.applies, 1);
    assert_int_equal(F.metadata_calls, metadata_calls + 1); /* the identity is read again */

    /* The target module unloaded and loaded again: its cache is gone, so it is found or
     * defined again. */
    aip_emitter_forget_module(&emitter, TARGET_MODULE);
    assert_int_equal(emit(&x, body, res, &failing, &hr), ALVK_OK);
    assert_int_equal(F.assemblies.defines, 2);
    assert_int_equal(res[0].reused, 0);
}

static void the_modules_own_reference_is_found_by_name(void **state)
{
    (void)state;
    world_init();
    F.assemblies.second_ref = "GAMEMOD"; /* compared without regard to ASCII case */
    gen x;
    gen_init(&x, MOD_MODULE);
    uint8_t body[8];
    alvk_relocation_result res[6];
    uint32_t failing;
    HRESULT hr;
    assert_int_equal(emit(&x, body, res, &failing, &hr), ALVK_OK);
    assert_int_equal(F.assemblies.defines, 0);
    assert_int_equal(res[0].token, 0x23000002u);
    assert_int_equal(res[0].reused, 0);
    assert_int_equal(F.type_ref_scope, 0x23000002u);
}

static void refused_module_ids_fail_that_relocation(void **state)
{
    (void)state;
    static const struct {
        uint64_t module;
        alvk_status status;
    } cases[] = {
        {NEVER_MODULE, ALVK_E_UNKNOWN_MODULE},
        {0, ALVK_E_UNKNOWN_MODULE},
        {GONE_MODULE, ALVK_E_MODULE_UNLOADED},
        {DYNAMIC_MODULE, ALVK_E_MODULE_COLLECTIBLE},
        {0xFFFFFFFFFFFFFFFFull, ALVK_E_UNKNOWN_MODULE},
        /* The target's own module: its types are TypeDefs, never under an AssemblyRef. */
        {TARGET_MODULE, ALVK_E_RELOCATION_MALFORMED},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        world_init();
        gen x;
        gen_init(&x, cases[i].module);
        uint8_t body[8];
        alvk_relocation_result res[6];
        uint32_t failing;
        HRESULT hr = E_FAIL;
        assert_int_equal(emit(&x, body, res, &failing, &hr), cases[i].status);
        assert_int_equal(failing, 0);
        assert_int_equal(hr, S_OK);
        assert_int_equal(res[0].kind, ALVK_RELOCATION_ASSEMBLY_REF);
        /* Nothing touched the target's metadata, nothing was applied, the body is as it was. */
        assert_int_equal(F.assemblies.defines + F.type_refs + F.member_refs + F.applies, 0);
        assert_int_equal(F.metadata_calls, 0); /* refused before any metadata was opened */
        assert_memory_equal(body, x.body, x.g.body_size);
    }
    /* Without a catalog no module_id is known. */
    world_init();
    gen x;
    gen_init(&x, MOD_MODULE);
    uint8_t body[8];
    alvk_relocation_result res[6];
    uint32_t failing = 99;
    HRESULT hr;
    memcpy(body, x.body, x.g.body_size);
    assert_int_equal(aip_emit_generation(&emitter, NULL, TARGET_MODULE, &x.g, body, CODE_OFFSET,
                                         scratch, res, &failing, &hr),
                     ALVK_E_UNKNOWN_MODULE);
    assert_int_equal(failing, 0);
}

static void metadata_failures_fail_that_relocation_with_their_hresult(void **state)
{
    (void)state;
    gen x;
    uint8_t body[8];
    alvk_relocation_result res[6];
    uint32_t failing;
    HRESULT hr;
    /* The definition fails. */
    world_init();
    F.assemblies.define_hr = (HRESULT)0x80131130;
    gen_init(&x, MOD_MODULE);
    assert_int_equal(emit(&x, body, res, &failing, &hr), ALVK_E_METADATA_EMIT_FAILED);
    assert_int_equal(failing, 0);
    assert_int_equal(hr, (HRESULT)0x80131130);
    assert_int_equal(res[0].hresult, (HRESULT)0x80131130);
    assert_int_equal(F.type_refs + F.applies, 0);
    /* The hooks' module's identity cannot be read: a read failure, not an emission's. */
    world_init();
    F.assemblies.identity_hr = E_FAIL;
    assert_int_equal(emit(&x, body, res, &failing, &hr), ALVK_E_METADATA_FAILED);
    assert_int_equal(failing, 0);
    assert_int_equal(hr, E_FAIL);
    assert_int_equal(res[0].hresult, E_FAIL);
    assert_int_equal(F.assemblies.defines + F.type_refs + F.applies, 0);
    /* Its name exceeds the reader's bound (511 UTF-16 units): a limit, with no HRESULT. */
    world_init();
    F.assemblies.name_units = AIP_ASSEMBLY_NAME_UNITS + 1;
    assert_int_equal(emit(&x, body, res, &failing, &hr), ALVK_E_LIMIT_EXCEEDED);
    assert_int_equal(failing, 0);
    assert_int_equal(hr, S_OK);
    assert_int_equal(F.assemblies.defines + F.type_refs + F.applies, 0);
    /* At the bound it is read. */
    world_init();
    F.assemblies.name_units = AIP_ASSEMBLY_NAME_UNITS;
    assert_int_equal(emit(&x, body, res, &failing, &hr), ALVK_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_type_ref_under_an_assembly_ref_is_valid),
        cmocka_unit_test(the_blob_is_exactly_eight_bytes),
        cmocka_unit_test(it_fills_no_operand),
        cmocka_unit_test(it_has_no_name_and_no_parent),
        cmocka_unit_test(only_a_type_ref_may_have_it_as_parent),
        cmocka_unit_test(a_class_reference_may_not_name_it),
        cmocka_unit_test(kinds_past_it_stay_malformed),
        cmocka_unit_test(the_stack_check_reads_the_member_under_it),
        cmocka_unit_test(the_assembly_ref_is_defined_then_reused),
        cmocka_unit_test(the_modules_own_reference_is_found_by_name),
        cmocka_unit_test(refused_module_ids_fail_that_relocation),
        cmocka_unit_test(metadata_failures_fail_that_relocation_with_their_hresult),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
