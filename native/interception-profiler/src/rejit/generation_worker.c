/* Method generations on the worker thread: check, emit, publish, request; and rollback. */
#include "rejit/generation_worker.h"

#include "emit/member_check.h"
#include "rejit/patch_worker.h"
#include "emit/stack_type_oracle.h"
#include "generation/generation_validate.h"

#include <stdlib.h>
#include <string.h>

#define AIP_MAX_INLINERS_PER_REQUEST AIP_INLINER_MAP_CAPACITY /* every recorded caller */

aip_staged_generation *aip_generation_stage(const alvk_generation *g)
{
    size_t body = ((size_t)g->body_size + 7u) & ~(size_t)7u;
    size_t blobs = ((size_t)g->blobs_size + 7u) & ~(size_t)7u;
    size_t relocs = (size_t)g->relocation_count * sizeof *g->relocations;
    size_t map = (size_t)g->il_map_count * sizeof *g->il_map;
    aip_staged_generation *s = malloc(sizeof *s + body + blobs + relocs + map);
    if (s == NULL)
        return NULL;
    memset(s, 0, sizeof *s);
    s->g = *g;
    uint8_t *at = s->storage;
    memcpy(at, g->body, g->body_size), s->g.body = at, at += body;
    if (g->blobs_size > 0)
        memcpy(at, g->blobs, g->blobs_size);
    s->g.blobs = at, at += blobs;
    if (relocs > 0)
        memcpy(at, g->relocations, relocs);
    s->g.relocations = (const alvk_relocation *)(void *)at, at += relocs;
    if (map > 0)
        memcpy(at, g->il_map, map);
    s->g.il_map = (const alvk_il_map_entry *)(void *)at;
    return s;
}

static HRESULT request_rejit(aip_runtime *rt, ModuleID module, uint32_t token, uint32_t flags)
{
    if ((flags & ALVK_INSTALL_INLINER_FALLBACK) == 0) {
        mdMethodDef method = token;
        return rt->info->lpVtbl->RequestReJITWithInliners(rt->info, COR_PRF_REJIT_BLOCK_INLINING,
                                                          1, &module, &method);
    }
    static ModuleID modules[AIP_MAX_INLINERS_PER_REQUEST + 1]; /* worker-only */
    static mdMethodDef methods[AIP_MAX_INLINERS_PER_REQUEST + 1];
    static aip_method_key callers[AIP_MAX_INLINERS_PER_REQUEST];
    modules[0] = module;
    methods[0] = token;
    aip_method_key callee = {module, token};
    uint32_t n = aip_inliner_map_callers(&rt->inliners, callee, callers,
                                         AIP_MAX_INLINERS_PER_REQUEST);
    if (n > AIP_MAX_INLINERS_PER_REQUEST)
        n = AIP_MAX_INLINERS_PER_REQUEST;
    for (uint32_t i = 0; i < n; ++i) {
        modules[i + 1] = callers[i].module_id;
        methods[i + 1] = callers[i].token;
    }
    return rt->info->lpVtbl->RequestReJIT(rt->info, n + 1, modules, methods);
}

alvk_status aip_generation_publish(aip_runtime *rt, uint32_t index, alvk_generation_id id,
                                   aip_prepared_rejit *prepared, uint64_t queued_ns)
{
    aip_patch patch;
    aip_rejit_copy(&rt->rejit, index, &patch);
    aip_prepared_rejit *previous = aip_rejit_publish(&rt->rejit, index, prepared);
    HRESULT hr = request_rejit(rt, patch.module_id, patch.token, patch.telemetry.flags);
    aip_rejit_note_request(&rt->rejit, index, hr, queued_ns);
    if (FAILED(hr)) {
        aip_prepared_release(aip_rejit_publish(&rt->rejit, index, previous));
        return ALVK_E_REJIT_FAILED;
    }
    aip_rejit_generation_requested(&rt->rejit, index, id, previous);
    return ALVK_OK;
}

alvk_status aip_generation_apply(aip_runtime *rt, uint32_t index, alvk_generation_id id,
                                 const alvk_generation *g, uint32_t code_offset,
                                 const aip_method_target *target, uint64_t queued_ns)
{
    static uint8_t body[ALVK_MAX_GENERATION_BODY_BYTES]; /* worker-only scratch */
    static alvk_relocation_result results[ALVK_MAX_RELOCATIONS];
    /* The JIT does not verify IL: a type-unsafe body is refused before any metadata is
     * emitted, unless the caller flagged it as deliberately unverifiable. */
    aip_stack_result types;
    if ((g->flags & ALVK_INSTALL_UNVERIFIABLE) == 0 &&
        aip_stack_check_generation(rt->info, target, g, &types) == ALVK_E_STACK_TYPE_MISMATCH) {
        aip_rejit_generation_type_mismatch(&rt->rejit, index, id, types.offset, types.found,
                                           types.expected);
        return ALVK_E_STACK_TYPE_MISMATCH;
    }
    memcpy(body, g->body, g->body_size);
    uint32_t failing = 0;
    HRESULT metadata_hr = S_OK;
    alvk_status status = aip_generation_emit(rt, target->module_id, g, body, code_offset,
                                             results, &failing, &metadata_hr);
    aip_rejit_generation_relocations(&rt->rejit, index, id, results,
                                     status == ALVK_OK ? g->relocation_count : failing + 1,
                                     metadata_hr);
    /* Tokens known: a member that certainly does not exist ends it here, unpublished. */
    int32_t missing = 0;
    if (status == ALVK_OK)
        status = aip_member_check(rt, target->module_id, results, g->relocation_count, &failing,
                                  &missing);
    if (status != ALVK_OK) {
        aip_rejit_generation_rejected(&rt->rejit, index, id, status, failing, metadata_hr);
        return status;
    }
    aip_prepared_rejit *prepared =
        aip_prepared_create(id, body, g->body_size, g->il_map, g->il_map_count);
    if (prepared == NULL)
        status = ALVK_E_INTERNAL;
    else
        status = aip_generation_publish(rt, index, id, prepared, queued_ns);
    if (status != ALVK_OK)
        aip_rejit_generation_rejected(&rt->rejit, index, id, status, 0, 0);
    return status;
}

/* A submitted generation: resolve, check, apply. */
static alvk_status run_generation(aip_runtime *rt, aip_staged_generation *s,
                                  const aip_patch *patch, uint32_t *failing)
{
    aip_method_target target;
    HRESULT hr = S_OK;
    /* The copy the patch is for, as aip_patch_run finds it. */
    alvk_status status =
        patch->copy_id == 0
            ? (s->resolve_status != ALVK_OK ? s->resolve_status : ALVK_E_INTERNAL)
            : aip_catalog_resolve(rt->info, &rt->catalog, &patch->mvid, patch->copy_id,
                                  patch->copy_epoch, s->g.method_token, &target, &hr);
    if (status != ALVK_OK)
        return status;
    if (memcmp(target.description.body_identity, s->g.expected_body_identity, 32) != 0)
        return ALVK_E_BODY_IDENTITY_MISMATCH;
    if (s->g.prior_generation != patch->current_generation)
        return ALVK_E_STALE_GENERATION;
    if (patch->module_id != 0 && patch->module_id != target.module_id)
        return ALVK_E_MODULE_UNLOADED;
    aip_generation_check check;
    status = aip_generation_validate(&s->g, target.description.code_size, &check);
    *failing = check.failing_index;
    if (status != ALVK_OK)
        return status;
    if (patch->module_id == 0)
        aip_rejit_set_target(&rt->rejit, s->index, target.module_id,
                             target.description.module_epoch);
    status = aip_generation_apply(rt, s->index, s->id, &s->g, check.body.code_offset, &target,
                                  s->queued_ns);
    if (status == ALVK_OK) {
        aip_rejit_set_owner_body(&rt->rejit, s->index, s->g.owner, 0);
        aip_rejit_set_dispatch(&rt->rejit, s->index, patch->telemetry.calli_signature_token,
                               patch->telemetry.metadata_hresult, 0); /* no replacement now */
    }
    return status;
}

alvk_status aip_generation_run(void *payload, void *context)
{
    aip_runtime *rt = context;
    aip_staged_generation *s = *(aip_staged_generation **)payload;
    aip_patch patch;
    aip_rejit_copy(&rt->rejit, s->index, &patch);
    uint32_t failing = 0;
    alvk_status status = aip_patch_state_is_terminal(patch.state)
                             ? ALVK_E_PATCH_ENDED
                             : run_generation(rt, s, &patch, &failing);
    if (status != ALVK_OK)
        aip_rejit_generation_rejected(&rt->rejit, s->index, s->id, status, failing, 0);
    aip_patch_finish(rt, s->index, s->command, &patch, status, s->added_owner ? s->g.owner : 0,
                     s->queued_ns);
    free(s);
    return status;
}

void aip_generation_discard(void *payload, void *context)
{
    aip_runtime *rt = context;
    aip_staged_generation *s = *(aip_staged_generation **)payload;
    aip_rejit_discard_command(&rt->rejit, s->index, s->command, s->id,
                              s->added_owner ? s->g.owner : 0, s->queued_ns);
    free(s);
}

alvk_status aip_generation_rollback_run(void *payload, void *context)
{
    (void)payload; /* every patch with a rollback due is served, whichever one queued this */
    aip_runtime *rt = context;
    alvk_status status = ALVK_OK;
    uint32_t index = 0;
    while (aip_rejit_next_rollback(&rt->rejit, &index)) {
        aip_prepared_rejit *prepared = NULL;
        alvk_generation_id back = 0;
        aip_member_check_failure(rt, index); /* what the failure was, when we can tell */
        if (aip_rejit_take_rollback(&rt->rejit, index, &prepared, &back)) {
            alvk_status s = aip_generation_publish(rt, index, back, prepared, aip_monotonic_ns());
            status = s != ALVK_OK ? s : status;
        }
    }
    return status;
}
