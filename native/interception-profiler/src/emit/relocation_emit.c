/* Relocations into metadata for one generation: parents resolved, tokens emitted or reused
 * from the module epoch's cache, and written into the private copy of the code. */
#include "emit/relocation_emit.h"

#include "coreclr/cor_guids.h"
#include "emit/assembly_ref.h"
#include "emit/metadata_emit.h"
#include "emit/module_metadata.h"
#include "generation/relocation_blob.h"
#include "generation/relocation_parent.h"
#include "generation/relocation_sites.h"
#include "il/method_body.h"

#include <string.h>

int aip_emitter_init(aip_emitter *e, ICorProfilerInfo15 *info)
{
    e->info = info;
    atomic_init(&e->tokens_emitted, 0);
    atomic_init(&e->bytes_emitted, 0);
    atomic_init(&e->tokens_reused, 0);
    return aip_token_cache_init(&e->tokens);
}

void aip_emitter_forget_module(aip_emitter *e, uintptr_t module_id)
{
    aip_token_cache_forget_module(&e->tokens, module_id);
}

typedef struct emit_session {
    aip_emitter *e;
    aip_module_catalog *catalog; /* what ASSEMBLY_REF module_ids are looked up in */
    ModuleID module;
    IMetaDataEmit2 *emit;
    IMetaDataImport2 *import;
    uint8_t *scratch; /* AIP_RELOCATION_BLOB_MAX bytes, 2-aligned: the blob as defined */
} emit_session;

static HRESULT open_session(emit_session *s)
{
    return s->emit != NULL ? S_OK
                           : aip_module_metadata_open(s->e->info, s->module, &s->emit, &s->import);
}

/* ABI 3.6: the AssemblyRef to the assembly of the module the blob names (assembly_ref.h). */
static alvk_status emit_assembly_ref(emit_session *s, const alvk_generation *g, uint32_t i,
                                     alvk_relocation_result *res, int *emitted)
{
    aip_assembly_ref_outcome out;
    HRESULT hr = S_OK;
    alvk_status status = aip_emit_module_assembly_ref(s->e, s->catalog, s->module,
                                                      aip_relocation_module_id(g, i), &out, &hr);
    res[i].hresult = hr;
    if (status != ALVK_OK)
        return status;
    res[i].token = out.token;
    res[i].reused = out.reused;
    if (out.defined)
        *emitted = 1; /* applied with the generation's other metadata */
    return ALVK_OK;
}

static alvk_status emit_one(emit_session *s, const alvk_generation *g, uint32_t i,
                            alvk_relocation_result *res, int *emitted)
{
    const alvk_relocation *r = &g->relocations[i];
    uint32_t parent =
        r->parent_relocation != 0 ? res[r->parent_relocation - 1].token : r->parent_token;
    const uint8_t *name = g->blobs + r->name_offset;
    res[i].size = sizeof res[i];
    res[i].kind = r->kind;
    res[i].hresult = S_OK;
    if (r->kind == ALVK_RELOCATION_ASSEMBLY_REF)
        return emit_assembly_ref(s, g, i, res, emitted);
    if (r->kind != ALVK_RELOCATION_STANDALONE_SIG && r->kind != ALVK_RELOCATION_TYPE_SPEC &&
        r->kind != ALVK_RELOCATION_USER_STRING && !aip_relocation_parent_allowed(r->kind, parent))
        return ALVK_E_RELOCATION_MALFORMED;
    /* The blob with its class references replaced by the tokens emitted before it: what is
     * defined, and what the cache knows it by. */
    size_t blob_length = 0;
    alvk_status status =
        aip_relocation_blob_resolve(g, i, res, s->scratch, AIP_RELOCATION_BLOB_MAX, &blob_length);
    if (status != ALVK_OK)
        return ALVK_E_RELOCATION_MALFORMED;
    const uint8_t *blob = s->scratch;
    aip_token_key key = aip_token_key_make(s->module, (uint32_t)r->kind, parent, name,
                                           r->name_length, blob, blob_length);
    if (aip_token_cache_find(&s->e->tokens, &key, &res[i].token)) {
        res[i].reused = 1;
        atomic_fetch_add_explicit(&s->e->tokens_reused, 1, memory_order_relaxed);
        return ALVK_OK;
    }
    HRESULT hr = open_session(s);
    if (FAILED(hr)) {
        res[i].hresult = hr;
        return ALVK_E_METADATA_EMIT_FAILED;
    }
    if (parent != 0 && r->parent_relocation == 0 &&
        !s->import->lpVtbl->IsValidToken(s->import, parent))
        return ALVK_E_RELOCATION_MALFORMED;
    if (r->kind == ALVK_RELOCATION_USER_STRING)
        status = aip_emit_user_string(s->emit, s->scratch, blob_length, &res[i].token, &hr);
    else
        status = aip_emit_relocation(s->emit, r->kind, parent, name, r->name_length, blob,
                                     blob_length, &res[i].token, &hr);
    res[i].hresult = hr;
    if (status != ALVK_OK)
        return status;
    aip_token_cache_put(&s->e->tokens, &key, res[i].token);
    atomic_fetch_add_explicit(&s->e->tokens_emitted, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->e->bytes_emitted, (uint64_t)r->name_length + blob_length,
                              memory_order_relaxed);
    *emitted = 1;
    return ALVK_OK;
}

/* Where a relocation's operand `at` (its il_offset or a site) is in the private body copy: an
 * instruction's operand, the fat header's LocalVarSigTok (byte 8), or a catch clause's
 * ClassToken; NULL when nowhere. */
static uint8_t *operand_of(const alvk_generation *g, uint8_t *body, uint32_t code_offset,
                           uint32_t at)
{
    if (at == ALVK_RELOCATION_NO_OPERAND)
        return NULL;
    if (at == ALVK_RELOCATION_LOCALS_SIGNATURE)
        return body + 8;
    if (at >= ALVK_RELOCATION_CATCH_TYPE(0) &&
        at < ALVK_RELOCATION_CATCH_TYPE(ALVK_MAX_CATCH_TYPE_CLAUSE)) {
        aip_eh_clause clause;
        uint32_t class_token = 0;
        if (!aip_method_body_find_clause(body, g->body_size, at - ALVK_RELOCATION_CATCH_TYPE(0),
                                         &clause, &class_token))
            return NULL; /* validation found it: cannot happen */
        return body + class_token;
    }
    return body + code_offset + at;
}

/* A token, little-endian, into a 4-byte operand (nowhere when operand is NULL). */
static void write_token(uint8_t *operand, uint32_t t)
{
    if (operand == NULL)
        return;
    operand[0] = (uint8_t)t;
    operand[1] = (uint8_t)(t >> 8);
    operand[2] = (uint8_t)(t >> 16);
    operand[3] = (uint8_t)(t >> 24);
}

alvk_status aip_emit_generation(aip_emitter *e, aip_module_catalog *catalog, ModuleID module,
                                const alvk_generation *g, uint8_t *body, uint32_t code_offset,
                                uint8_t *blob_scratch, alvk_relocation_result *res,
                                uint32_t *failing, HRESULT *metadata_hr)
{
    emit_session s = {e, catalog, module, NULL, NULL, blob_scratch};
    alvk_status status = ALVK_OK;
    int emitted = 0;
    *metadata_hr = S_OK;
    memset(res, 0, g->relocation_count * sizeof *res);
    for (uint32_t i = 0; i < g->relocation_count && status == ALVK_OK; ++i) {
        status = emit_one(&s, g, i, res, &emitted);
        if (status != ALVK_OK) {
            *failing = i;
            *metadata_hr = res[i].hresult;
            break;
        }
        const alvk_relocation *r = &g->relocations[i];
        write_token(operand_of(g, body, code_offset, r->il_offset), res[i].token);
        for (uint32_t j = 0; j < r->site_count; ++j)
            write_token(operand_of(g, body, code_offset, aip_relocation_site(g, r, j)),
                        res[i].token);
    }
    aip_module_metadata_release(s.emit, s.import);
    if (status == ALVK_OK && emitted) {
        *metadata_hr = e->info->lpVtbl->ApplyMetaData(e->info, module);
        if (FAILED(*metadata_hr))
            status = ALVK_E_METADATA_EMIT_FAILED;
    }
    return status;
}
