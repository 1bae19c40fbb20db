/* Emission of a generation's relocations (emit/relocation_emit.c) against a fake metadata
 * emitter: a USER_STRING relocation defined with DefineUserString and its token written into
 * the ldstr operand, a CATCH_TYPE relocation's token written into the catch clause's
 * ClassToken (small and fat EH sections), a class reference (tag 3) replaced by the token its
 * TypeRef relocation was just given before the blob is defined, and the token cache keyed by
 * that substituted blob. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "coreclr/cor_metadata.h"
#include "emit/relocation_emit.h"
#include "generation/generation_validate.h"
#include "generation/relocation_blob.h"

/* The fake runtime: one module whose emitter hands out tokens in sequence and records the
 * last definition of each kind. */
typedef struct fake {
    ICorProfilerInfo15 info;
    IMetaDataEmit2 emit;
    IMetaDataImport2 import;
    uint32_t type_refs, type_specs, user_strings, applies;
    uint8_t spec[64];
    ULONG spec_length;
    WCHAR string[64];
    ULONG string_length;
    WCHAR type_ref_name[64];
} fake;

static fake F;
static ICorProfilerInfo15Vtbl info_vtbl;
static IMetaDataEmit2Vtbl emit_vtbl;
static IMetaDataImport2Vtbl import_vtbl;

static HRESULT STDMETHODCALLTYPE get_module_metadata(ICorProfilerInfo15 *This, ModuleID module,
                                                     DWORD flags, REFIID riid, IUnknown **out)
{
    (void)This, (void)module, (void)flags, (void)riid;
    *out = (IUnknown *)(void *)&F.emit;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE apply_metadata(ICorProfilerInfo15 *This, ModuleID module)
{
    (void)This, (void)module;
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

static HRESULT STDMETHODCALLTYPE define_type_ref(IMetaDataEmit2 *This, mdToken scope, LPCWSTR name,
                                                 mdTypeRef *out)
{
    (void)This, (void)scope;
    size_t n = 0;
    for (; name[n] != 0 && n + 1 < 64; ++n)
        F.type_ref_name[n] = name[n];
    F.type_ref_name[n] = 0;
    *out = 0x01000100u + F.type_refs++ * 0x1000u; /* 0x01000100, 0x01001100, ... */
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE type_spec(IMetaDataEmit2 *This, PCCOR_SIGNATURE sig, ULONG length,
                                           mdTypeSpec *out)
{
    (void)This;
    assert_true(length <= sizeof F.spec);
    memcpy(F.spec, sig, length);
    F.spec_length = length;
    *out = 0x1B000001u + F.type_specs++;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE define_user_string(IMetaDataEmit2 *This, LPCWSTR units, ULONG count,
                                                    mdString *out)
{
    (void)This;
    assert_true(count <= 64);
    memcpy(F.string, units, count * sizeof *units);
    F.string_length = count;
    *out = 0x70000001u + F.user_strings++;
    return S_OK;
}

static void fake_init(void)
{
    memset(&F, 0, sizeof F);
    info_vtbl.GetModuleMetaData = get_module_metadata;
    info_vtbl.ApplyMetaData = apply_metadata;
    emit_vtbl.QueryInterface = emit_query;
    emit_vtbl.Release = emit_release;
    emit_vtbl.DefineTypeRefByName = define_type_ref;
    emit_vtbl.GetTokenFromTypeSpec = type_spec;
    emit_vtbl.DefineUserString = define_user_string;
    import_vtbl.Release = import_release;
    import_vtbl.IsValidToken = is_valid_token;
    F.info.lpVtbl = &info_vtbl;
    F.emit.lpVtbl = &emit_vtbl;
    F.import.lpVtbl = &import_vtbl;
}

/* ---- the generation ------------------------------------------------------------------------ */

/* try { ldstr; pop; leave.s end } catch { pop; leave.s end } end: ret */
static const uint8_t code[] = {0x72, 0, 0, 0, 0x70, 0x26, 0xDE, 0x03, 0x26, 0xDE, 0x00, 0x2A};
#define LDSTR_OPERAND 1u
#define CODE_OFFSET 12u

typedef struct gen {
    uint8_t body[96];
    uint8_t blobs[64];
    alvk_relocation relocs[4];
    alvk_generation g;
    uint32_t class_token; /* where the clause's ClassToken is */
} gen;

static void put32(uint8_t *p, uint32_t v)
{
    for (int k = 0; k < 4; ++k)
        p[k] = (uint8_t)(v >> (8 * k));
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static void reloc(gen *x, alvk_relocation_kind kind, uint32_t il_offset, const uint8_t *blob,
                  uint32_t blob_length, const char *name, uint32_t parent_token)
{
    alvk_relocation *r = &x->relocs[x->g.relocation_count++];
    memset(r, 0, sizeof *r);
    r->size = sizeof *r;
    r->kind = kind;
    r->il_offset = il_offset;
    r->parent_token = parent_token;
    if (name != NULL) {
        r->name_offset = x->g.blobs_size;
        r->name_length = (uint32_t)strlen(name);
        memcpy(x->blobs + x->g.blobs_size, name, r->name_length);
        x->g.blobs_size += r->name_length;
    }
    r->blob_offset = x->g.blobs_size;
    r->blob_length = blob_length;
    if (blob_length)
        memcpy(x->blobs + x->g.blobs_size, blob, blob_length);
    x->g.blobs_size += blob_length;
}

/* A fat body with one typed catch clause (placeholder class token 0x01000000) in a small or a
 * fat EH section, and: R1 TYPE_REF `name` on the catch, R2 TYPE_SPEC `SZARRAY CLASS <R1>`,
 * R3 USER_STRING "hé" on the ldstr. */
static void gen_init(gen *x, int fat, const char *name)
{
    memset(x, 0, sizeof *x);
    put32(x->body, 0x3003u | 0x8u | (8u << 16));
    put32(x->body + 4, sizeof code);
    memcpy(x->body + CODE_OFFSET, code, sizeof code);
    uint32_t at = CODE_OFFSET + sizeof code; /* 24: already aligned */
    if (fat) {
        x->body[at] = 0x41;
        x->body[at + 1] = 4 + 24;
        uint8_t *c = x->body + at + 4;
        put32(c + 8, 8);  /* try [0, 8) */
        put32(c + 12, 8); /* handler [8, 11) */
        put32(c + 16, 3);
        put32(c + 20, 0x01000000u);
        x->class_token = at + 4 + 20;
        at += 4 + 24;
    } else {
        x->body[at] = 0x01;
        x->body[at + 1] = 4 + 12;
        uint8_t *c = x->body + at + 4;
        c[4] = 8;
        c[5] = 8;
        c[7] = 3;
        put32(c + 8, 0x01000000u);
        x->class_token = at + 4 + 8;
        at += 4 + 12;
    }
    x->g.size = sizeof x->g;
    x->g.owner = 1;
    x->g.body = x->body;
    x->g.body_size = at;
    x->g.blobs = x->blobs;
    x->g.relocations = x->relocs;
    reloc(x, ALVK_RELOCATION_TYPE_REF, ALVK_RELOCATION_CATCH_TYPE(0), NULL, 0, name, 0x23000001u);
    reloc(x, ALVK_RELOCATION_TYPE_SPEC, ALVK_RELOCATION_NO_OPERAND,
          (const uint8_t[]){0x1D, 0x12, (1u << 2) | 3u}, 3, NULL, 0);
    reloc(x, ALVK_RELOCATION_USER_STRING, LDSTR_OPERAND, (const uint8_t[]){'h', 0, 0xE9, 0}, 4, NULL,
          0);
    aip_generation_check check;
    assert_int_equal(aip_generation_validate(&x->g, AIP_ORIGINAL_SIZE_UNKNOWN, &check), ALVK_OK);
}

static _Alignas(8) uint8_t scratch[AIP_RELOCATION_BLOB_MAX];

static alvk_status emit(aip_emitter *e, const gen *x, uint8_t *body, alvk_relocation_result *results)
{
    memcpy(body, x->body, x->g.body_size);
    uint32_t failing = 0;
    HRESULT hr = S_OK;
    return aip_emit_generation(e, NULL, 0x1234, &x->g, body, CODE_OFFSET, scratch, results, &failing,
                               &hr);
}

static void emits_into_the_body(void **state)
{
    (void)state;
    for (int fat = 0; fat < 2; ++fat) {
        fake_init();
        aip_emitter e;
        memset(&e, 0, sizeof e); /* init requires zeroed storage */
        assert_int_equal(aip_emitter_init(&e, &F.info), 0);
        gen x;
        gen_init(&x, fat, "Other.Error");
        uint8_t body[96];
        alvk_relocation_result results[4];
        assert_int_equal(emit(&e, &x, body, results), ALVK_OK);
        assert_int_equal(F.applies, 1);
        /* The catch clause names the TypeRef; the ldstr the user string. */
        assert_int_equal(results[0].token, 0x01000100u);
        assert_int_equal(get32(body + x.class_token), 0x01000100u);
        assert_int_equal(results[2].token, 0x70000001u);
        assert_int_equal(get32(body + CODE_OFFSET + LDSTR_OPERAND), 0x70000001u);
        /* Nothing else in the body changed. */
        put32(body + x.class_token, 0x01000000u);
        put32(body + CODE_OFFSET + LDSTR_OPERAND, 0x70000000u);
        assert_memory_equal(body, x.body, x.g.body_size);
        /* The user string's units, decoded. */
        assert_int_equal(F.string_length, 2);
        assert_int_equal(F.string[0], 'h');
        assert_int_equal(F.string[1], 0xE9);
        /* The TypeSpec was defined with the TypeRef's token in place of the reference:
         * 0x01000100 is coded (0x100 << 2) | 1 = 0x401, two bytes. */
        const uint8_t spec[] = {0x1D, 0x12, 0x84, 0x01};
        assert_int_equal(F.spec_length, sizeof spec);
        assert_memory_equal(F.spec, spec, sizeof spec);
        assert_int_equal(results[1].token, 0x1B000001u);
    }
}

/* The cache knows a blob by its substituted bytes: the same generation again reuses every
 * token; the same TypeSpec bytes naming another TypeRef are another definition. */
static void cache_keyed_by_substituted_blob(void **state)
{
    (void)state;
    fake_init();
    aip_emitter e;
    memset(&e, 0, sizeof e); /* init requires zeroed storage */
    assert_int_equal(aip_emitter_init(&e, &F.info), 0);
    gen x;
    gen_init(&x, 0, "Other.Error");
    uint8_t body[96];
    alvk_relocation_result results[4];
    assert_int_equal(emit(&e, &x, body, results), ALVK_OK);
    assert_int_equal(emit(&e, &x, body, results), ALVK_OK);
    for (int i = 0; i < 3; ++i)
        assert_int_equal(results[i].reused, 1);
    assert_int_equal(F.type_refs, 1);
    assert_int_equal(F.type_specs, 1);
    assert_int_equal(F.user_strings, 1);
    assert_int_equal(F.applies, 1); /* nothing new to apply */

    gen y;
    gen_init(&y, 0, "Other.Fault"); /* another TypeRef: token 0x01001100 */
    assert_int_equal(emit(&e, &y, body, results), ALVK_OK);
    assert_int_equal(results[0].reused, 0);
    assert_int_equal(results[1].reused, 0);
    assert_int_equal(results[2].reused, 1); /* the same string */
    const uint8_t spec[] = {0x1D, 0x12, 0xC0, 0x00, 0x44, 0x01}; /* (0x1100 << 2) | 1 */
    assert_int_equal(F.spec_length, sizeof spec);
    assert_memory_equal(F.spec, spec, sizeof spec);
    assert_int_equal(get32(body + y.class_token), 0x01001100u);
}

/* One relocation with two more sites: one user string defined, its token written at all
 * three ldstr operands, nothing else of the body touched. */
static void writes_the_token_at_every_site(void **state)
{
    (void)state;
    fake_init();
    aip_emitter e;
    memset(&e, 0, sizeof e); /* init requires zeroed storage */
    assert_int_equal(aip_emitter_init(&e, &F.info), 0);
    /* tiny body: ldstr; pop; ldstr; pop; ldstr; pop; ret */
    static const uint8_t three[] = {0x72, 0, 0, 0, 0x70, 0x26, 0x72, 0, 0, 0, 0x70,
                                    0x26, 0x72, 0, 0, 0, 0x70, 0x26, 0x2A};
    uint8_t source[1 + sizeof three];
    source[0] = (uint8_t)((sizeof three << 2) | 0x2u);
    memcpy(source + 1, three, sizeof three);
    uint8_t pool[2 + 8];
    pool[0] = 'x', pool[1] = 0;
    put32(pool + 2, 7);
    put32(pool + 6, 13);
    alvk_relocation r;
    memset(&r, 0, sizeof r);
    r.size = sizeof r;
    r.kind = ALVK_RELOCATION_USER_STRING;
    r.il_offset = 1;
    r.blob_offset = 0;
    r.blob_length = 2;
    r.sites_offset = 2;
    r.site_count = 2;
    alvk_generation g;
    memset(&g, 0, sizeof g);
    g.size = sizeof g;
    g.owner = 1;
    g.body = source;
    g.body_size = sizeof source;
    g.blobs = pool;
    g.blobs_size = sizeof pool;
    g.relocations = &r;
    g.relocation_count = 1;
    aip_generation_check check;
    assert_int_equal(aip_generation_validate(&g, AIP_ORIGINAL_SIZE_UNKNOWN, &check), ALVK_OK);
    uint8_t body[sizeof source];
    memcpy(body, source, sizeof source);
    alvk_relocation_result result;
    uint32_t failing = 0;
    HRESULT hr = S_OK;
    assert_int_equal(aip_emit_generation(&e, NULL, 0x1234, &g, body, 1, scratch, &result,
                                         &failing, &hr),
                     ALVK_OK);
    assert_int_equal(F.user_strings, 1);
    assert_int_equal(result.token, 0x70000001u);
    for (uint32_t at = 1; at <= 13; at += 6) {
        assert_int_equal(get32(body + 1 + at), 0x70000001u);
        put32(body + 1 + at, 0x70000000u);
    }
    assert_memory_equal(body, source, sizeof source);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(emits_into_the_body),
        cmocka_unit_test(cache_keyed_by_substituted_blob),
        cmocka_unit_test(writes_the_token_at_every_site),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
