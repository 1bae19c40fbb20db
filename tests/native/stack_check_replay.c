/* The native half of the differential stack-type test (tests/Hooks/StackTypeAgreementTests.cs):
 * reads generations the managed plan builder lowered, with the metadata rows of their target's
 * module, and runs each through the worker's own check (aip_stack_check_generation, the module
 * oracle of catalog/stack_type_oracle.c) over a metadata import that serves those rows. Prints
 * one line per generation: `<id> <status> <offset> <found> <expected>` (status: the alvk_status
 * number; 0 0 0 after it unless a mismatch), or `<id> invalid <status>` when
 * aip_generation_validate refuses it.
 *
 * Input (argv[1], little-endian): u32 row count, then rows: u32 token, u32 a, u32 b,
 * u32 units + UTF-16 name, u32 bytes + blob, u32 count + u32 list. What a and b, the name, the
 * blob and the list are per table: TypeDef flags, extends, name, -, fields; TypeRef scope, -,
 * name; FieldDef and MethodDef owner, attributes, -, signature; MemberRef and MethodSpec
 * parent, -, -, signature or instantiation; TypeSpec and StandAloneSig -, -, -, blob. Rows in
 * token order. Then u32 generation count, then generations: u32 id, u32 flags (the
 * alvk_method_description flags of the target), u32 install flags, u32 bytes + the target's
 * MethodDefSig, u32 bytes + body, u32 bytes + blob pool, u32 count + relocations (11 u32 each,
 * alvk_relocation's fields in order). */
#include "alvorkit_interception_profiler.h"
#include "catalog/stack_type_oracle.h"
#include "coreclr/cor_metadata.h"
#include "generation/generation_validate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MODULE ((ModuleID)0x1000)

typedef struct row {
    uint32_t token, a, b;
    uint32_t units, bytes, count;
    WCHAR *name;
    uint8_t *blob;
    uint32_t *list;
} row;

typedef struct reader {
    const uint8_t *at, *end;
    int failed;
} reader;

static row *g_rows;
static uint32_t g_row_count;

static uint32_t u32(reader *r)
{
    if (r->end - r->at < 4) {
        r->failed = 1;
        return 0;
    }
    uint32_t v = (uint32_t)r->at[0] | (uint32_t)r->at[1] << 8 | (uint32_t)r->at[2] << 16 |
                 (uint32_t)r->at[3] << 24;
    r->at += 4;
    return v;
}

/* `count` items of `size` bytes, copied (exact-size heap copies: ASan sees a read past them). */
static void *bytes(reader *r, uint32_t count, size_t size)
{
    size_t n = (size_t)count * size;
    if (r->failed || (size_t)(r->end - r->at) < n) {
        r->failed = 1;
        return NULL;
    }
    void *copy = malloc(n > 0 ? n : 1);
    if (copy == NULL) {
        r->failed = 1;
        return NULL;
    }
    memcpy(copy, r->at, n);
    r->at += n;
    return copy;
}

static const row *find(uint32_t token)
{
    uint32_t lo = 0, hi = g_row_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g_rows[mid].token == token)
            return &g_rows[mid];
        if (g_rows[mid].token < token)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static const row *find_of(uint32_t token, uint32_t table)
{
    return AIP_TYPE_FROM_TOKEN(token) == table ? find(token) : NULL;
}

/* ---- the metadata import over the rows ---------------------------------------------------- */

static ULONG STDMETHODCALLTYPE release(IMetaDataImport2 *This)
{
    (void)This;
    return 0;
}

static void copy_name(const row *r, LPWSTR out, ULONG capacity, ULONG *length)
{
    if (out != NULL && capacity > 0) {
        ULONG n = r->units < capacity - 1 ? r->units : capacity - 1;
        memcpy(out, r->name, n * sizeof(WCHAR));
        out[n] = 0;
    }
    if (length != NULL)
        *length = r->units + 1;
}

static BOOL STDMETHODCALLTYPE is_valid(IMetaDataImport2 *This, mdToken token)
{
    (void)This;
    return find(token) != NULL;
}

static void STDMETHODCALLTYPE close_enum(IMetaDataImport2 *This, HCORENUM e)
{
    (void)This, (void)e;
}

static HRESULT STDMETHODCALLTYPE type_def_props(IMetaDataImport2 *This, mdTypeDef td, LPWSTR name,
                                                ULONG capacity, ULONG *length, DWORD *flags,
                                                mdToken *extends)
{
    (void)This;
    const row *r = find_of(td, mdtTypeDef);
    if (r == NULL)
        return E_FAIL;
    copy_name(r, name, capacity, length);
    if (flags != NULL)
        *flags = r->a;
    if (extends != NULL)
        *extends = r->b;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE type_ref_props(IMetaDataImport2 *This, mdTypeRef tr,
                                                mdToken *scope, LPWSTR name, ULONG capacity,
                                                ULONG *length)
{
    (void)This;
    const row *r = find_of(tr, mdtTypeRef);
    if (r == NULL)
        return E_FAIL;
    copy_name(r, name, capacity, length);
    if (scope != NULL)
        *scope = r->a;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE enum_fields(IMetaDataImport2 *This, HCORENUM *e, mdTypeDef type,
                                             mdFieldDef *fields, ULONG capacity, ULONG *count)
{
    (void)This;
    const row *r = find_of(type, mdtTypeDef);
    *e = (HCORENUM)(void *)&g_rows; /* one batch: nothing to release */
    *count = 0;
    if (r == NULL)
        return E_FAIL;
    for (uint32_t i = 0; i < r->count && i < capacity; ++i)
        fields[(*count)++] = r->list[i];
    return *count > 0 ? S_OK : S_FALSE;
}

static HRESULT STDMETHODCALLTYPE field_props(IMetaDataImport2 *This, mdFieldDef field,
                                             mdTypeDef *owner, LPWSTR name, ULONG capacity,
                                             ULONG *length, DWORD *attributes,
                                             PCCOR_SIGNATURE *sig, ULONG *sig_length,
                                             DWORD *constant_type, UVCP_CONSTANT *value,
                                             ULONG *value_length)
{
    (void)This, (void)name, (void)capacity;
    const row *r = find_of(field, mdtFieldDef);
    if (r == NULL)
        return E_FAIL;
    if (owner != NULL)
        *owner = r->a;
    if (length != NULL)
        *length = 0;
    if (attributes != NULL)
        *attributes = r->b;
    if (sig != NULL)
        *sig = r->blob;
    if (sig_length != NULL)
        *sig_length = r->bytes;
    if (constant_type != NULL)
        *constant_type = 0;
    if (value != NULL)
        *value = NULL;
    if (value_length != NULL)
        *value_length = 0;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE method_props(IMetaDataImport2 *This, mdMethodDef method,
                                              mdTypeDef *owner, LPWSTR name, ULONG capacity,
                                              ULONG *length, DWORD *attributes,
                                              PCCOR_SIGNATURE *sig, ULONG *sig_length, ULONG *rva,
                                              DWORD *impl)
{
    (void)This, (void)name, (void)capacity;
    const row *r = find_of(method, mdtMethodDef);
    if (r == NULL)
        return E_FAIL;
    if (owner != NULL)
        *owner = r->a;
    if (length != NULL)
        *length = 0;
    if (attributes != NULL)
        *attributes = r->b;
    if (sig != NULL)
        *sig = r->blob;
    if (sig_length != NULL)
        *sig_length = r->bytes;
    if (rva != NULL)
        *rva = 0;
    if (impl != NULL)
        *impl = 0;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE member_ref_props(IMetaDataImport2 *This, mdMemberRef member,
                                                  mdToken *parent, LPWSTR name, ULONG capacity,
                                                  ULONG *length, PCCOR_SIGNATURE *sig,
                                                  ULONG *sig_length)
{
    (void)This, (void)name, (void)capacity;
    const row *r = find_of(member, mdtMemberRef);
    if (r == NULL)
        return E_FAIL;
    if (parent != NULL)
        *parent = r->a;
    if (length != NULL)
        *length = 0;
    if (sig != NULL)
        *sig = r->blob;
    if (sig_length != NULL)
        *sig_length = r->bytes;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE method_spec_props(IMetaDataImport2 *This, mdMethodSpec spec,
                                                   mdToken *parent, PCCOR_SIGNATURE *blob,
                                                   ULONG *length)
{
    (void)This;
    const row *r = find_of(spec, mdtMethodSpec);
    if (r == NULL)
        return E_FAIL;
    *parent = r->a;
    *blob = r->blob;
    *length = r->bytes;
    return S_OK;
}

static HRESULT blob_of(uint32_t token, uint32_t table, PCCOR_SIGNATURE *blob, ULONG *length)
{
    const row *r = find_of(token, table);
    if (r == NULL)
        return E_FAIL;
    *blob = r->blob;
    *length = r->bytes;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE type_spec(IMetaDataImport2 *This, mdTypeSpec spec,
                                           PCCOR_SIGNATURE *blob, ULONG *length)
{
    (void)This;
    return blob_of(spec, mdtTypeSpec, blob, length);
}

static HRESULT STDMETHODCALLTYPE standalone_sig(IMetaDataImport2 *This, mdSignature sig,
                                                PCCOR_SIGNATURE *blob, ULONG *length)
{
    (void)This;
    return blob_of(sig, mdtSignature, blob, length);
}

static IMetaDataImport2Vtbl g_import_vtbl;
static IMetaDataImport2 g_import = {&g_import_vtbl};

static HRESULT STDMETHODCALLTYPE module_metadata(ICorProfilerInfo15 *This, ModuleID module,
                                                 DWORD flags, REFIID riid, IUnknown **out)
{
    (void)This, (void)flags, (void)riid;
    if (module != MODULE)
        return E_INVALIDARG;
    *out = (IUnknown *)(void *)&g_import;
    return S_OK;
}

static ICorProfilerInfo15Vtbl g_info_vtbl;
static ICorProfilerInfo15 g_info = {&g_info_vtbl};

/* ---- the generations ---------------------------------------------------------------------- */

static int replay(reader *r)
{
    uint32_t count = u32(r);
    for (uint32_t i = 0; i < count && !r->failed; ++i) {
        uint32_t id = u32(r), method_flags = u32(r), install_flags = u32(r);
        uint32_t sig_length = u32(r);
        uint8_t *sig = bytes(r, sig_length, 1);
        uint32_t body_size = u32(r);
        uint8_t *body = bytes(r, body_size, 1);
        uint32_t blobs_size = u32(r);
        uint8_t *blobs = bytes(r, blobs_size, 1);
        uint32_t relocation_count = u32(r);
        uint32_t *fields = bytes(r, relocation_count * 11u, sizeof(uint32_t));
        alvk_relocation *relocations = calloc(relocation_count + 1u, sizeof *relocations);
        if (r->failed || relocations == NULL) {
            free(sig), free(body), free(blobs), free(fields), free(relocations);
            return 0;
        }
        for (uint32_t k = 0; k < relocation_count; ++k) {
            const uint32_t *f = fields + k * 11u;
            alvk_relocation *x = &relocations[k];
            x->size = f[0];
            x->kind = (alvk_relocation_kind)f[1];
            x->il_offset = f[2], x->parent_token = f[3], x->parent_relocation = f[4];
            x->name_offset = f[5], x->name_length = f[6], x->blob_offset = f[7];
            x->blob_length = f[8], x->sites_offset = f[9], x->site_count = f[10];
        }
        alvk_generation g;
        memset(&g, 0, sizeof g);
        g.size = sizeof g;
        g.method_token = 0x06000001u;
        g.owner = 1;
        g.body = body, g.body_size = body_size;
        g.blobs = blobs, g.blobs_size = blobs_size;
        g.relocations = relocations, g.relocation_count = relocation_count;
        g.flags = install_flags;
        aip_generation_check check;
        memset(&check, 0, sizeof check);
        alvk_status status = aip_generation_validate(&g, AIP_ORIGINAL_SIZE_UNKNOWN, &check);
        if (status != ALVK_OK) {
            printf("%u invalid %d\n", id, (int)status);
        } else {
            aip_method_target target;
            memset(&target, 0, sizeof target);
            target.description.flags = method_flags;
            target.module_id = MODULE;
            target.signature = sig;
            target.signature_length = sig_length;
            aip_stack_result out;
            memset(&out, 0, sizeof out);
            status = aip_stack_check_generation(&g_info, &target, &g, &out);
            if (status == ALVK_E_STACK_TYPE_MISMATCH)
                printf("%u %d %u %d %d\n", id, (int)status, out.offset, (int)out.found,
                       (int)out.expected);
            else
                printf("%u %d 0 0 0\n", id, (int)status);
        }
        free(sig), free(body), free(blobs), free(fields), free(relocations);
    }
    return !r->failed;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: stack_check_replay <corpus>\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (f == NULL) {
        perror(argv[1]);
        return 2;
    }
    size_t capacity = 1u << 20, size = 0;
    uint8_t *data = malloc(capacity);
    for (size_t n; data != NULL && (n = fread(data + size, 1, capacity - size, f)) > 0;) {
        size += n;
        if (size == capacity) {
            uint8_t *grown = realloc(data, capacity *= 2);
            if (grown == NULL)
                free(data);
            data = grown;
        }
    }
    fclose(f);
    if (data == NULL)
        return 2;
    reader r = {data, data + size, 0};
    g_row_count = u32(&r);
    g_rows = calloc(g_row_count + 1u, sizeof *g_rows);
    for (uint32_t i = 0; g_rows != NULL && i < g_row_count && !r.failed; ++i) {
        row *x = &g_rows[i];
        x->token = u32(&r), x->a = u32(&r), x->b = u32(&r);
        x->units = u32(&r);
        x->name = bytes(&r, x->units, sizeof(WCHAR));
        x->bytes = u32(&r);
        x->blob = bytes(&r, x->bytes, 1);
        x->count = u32(&r);
        x->list = bytes(&r, x->count, sizeof(uint32_t));
        if (i > 0 && x->token <= g_rows[i - 1].token)
            r.failed = 1; /* find() needs token order */
    }
    g_import_vtbl.Release = release;
    g_import_vtbl.IsValidToken = is_valid;
    g_import_vtbl.CloseEnum = close_enum;
    g_import_vtbl.GetTypeDefProps = type_def_props;
    g_import_vtbl.GetTypeRefProps = type_ref_props;
    g_import_vtbl.EnumFields = enum_fields;
    g_import_vtbl.GetFieldProps = field_props;
    g_import_vtbl.GetMethodProps = method_props;
    g_import_vtbl.GetMemberRefProps = member_ref_props;
    g_import_vtbl.GetMethodSpecProps = method_spec_props;
    g_import_vtbl.GetTypeSpecFromToken = type_spec;
    g_import_vtbl.GetSigFromToken = standalone_sig;
    g_info_vtbl.GetModuleMetaData = module_metadata;
    int ok = g_rows != NULL && !r.failed && replay(&r) && r.at == r.end;
    for (uint32_t i = 0; g_rows != NULL && i < g_row_count; ++i)
        free(g_rows[i].name), free(g_rows[i].blob), free(g_rows[i].list);
    free(g_rows);
    free(data);
    if (!ok) {
        fprintf(stderr, "stack_check_replay: %s is not a complete corpus\n", argv[1]);
        return 2;
    }
    return 0;
}
