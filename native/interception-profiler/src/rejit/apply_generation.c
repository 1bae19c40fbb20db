/* A generation's preparation: stage, resolve, check, emit, snapshot; nothing published. */
#include "rejit/apply_generation.h"

#include "catalog/member_check.h"
#include "catalog/stack_type_oracle.h"
#include "generation/generation_validate.h"
#include "rejit/rejit_generations.h"
#include "rejit/rejit_state.h"

#include <stdlib.h>
#include <string.h>

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

/* The generation's record, once: rejected with why (and where the types differ). */
void aip_apply_record_refusal(const aip_apply_env *env, uint32_t index, alvk_generation_id id,
                              alvk_status status, const aip_refusal *why)
{
    if (why->type_mismatch)
        aip_rejit_generation_type_mismatch(env->rejit, index, id, why->types.offset,
                                           why->types.found, why->types.expected);
    else
        aip_rejit_generation_rejected(env->rejit, index, id, status, why->failing,
                                      why->metadata_hr);
}

/* Only MemberRefs are checked against the live module (an exact dispatch has none). */
static int has_member_refs(const alvk_generation *g)
{
    for (uint32_t i = 0; i < g->relocation_count; ++i)
        if (g->relocations[i].kind == ALVK_RELOCATION_MEMBER_REF)
            return 1;
    return 0;
}

/* Emits and checks generation `id` (apply_generation.h). */
alvk_status aip_apply_prepare_body(const aip_apply_env *env, uint32_t index, alvk_generation_id id,
                                   const alvk_generation *g, uint32_t code_offset,
                                   const aip_method_target *target, HRESULT *metadata_hr,
                                   aip_refusal *why, aip_prepared_rejit **prepared)
{
    aip_apply_scratch *x = aip_apply_scratch_of(env);
    /* The JIT does not verify IL: a type-unsafe body is refused before any metadata is
     * emitted, unless the caller flagged it as deliberately unverifiable. */
    if ((g->flags & ALVK_INSTALL_UNVERIFIABLE) == 0 &&
        aip_stack_check_generation(env->info, target, g, &why->types) ==
            ALVK_E_STACK_TYPE_MISMATCH) {
        why->type_mismatch = 1;
        return ALVK_E_STACK_TYPE_MISMATCH;
    }
    memcpy(x->body, g->body, g->body_size);
    uint32_t failing = 0;
    *metadata_hr = S_OK;
    alvk_status status =
        aip_emit_generation(env->emitter, env->catalog, target->module_id, g, x->body, code_offset,
                            x->blob, x->results, &failing, metadata_hr);
    aip_rejit_generation_relocations(env->rejit, index, id, x->results,
                                     status == ALVK_OK ? g->relocation_count : failing + 1,
                                     *metadata_hr);
    /* Tokens known: a member that certainly does not exist ends it here, unpublished. */
    int32_t missing = 0;
    if (status == ALVK_OK && has_member_refs(g))
        status = aip_member_check(env->info, env->catalog, target->module_id, x->results,
                                  g->relocation_count, &failing, &missing);
    if (status != ALVK_OK) {
        why->failing = failing;
        why->metadata_hr = *metadata_hr;
        return status;
    }
    *prepared = aip_prepared_create(id, x->body, g->body_size, g->il_map, g->il_map_count);
    return *prepared == NULL ? ALVK_E_INTERNAL : ALVK_OK;
}

/* The copy the patch is for (an install joins only the patch of the copy it resolved). Records
 * nothing. */
alvk_status aip_apply_resolve_target(const aip_apply_env *env, const aip_patch *p, uint32_t token,
                                     alvk_status resolve_status, aip_method_target *target)
{
    HRESULT hr = S_OK;
    if (p->copy_id == 0)
        return resolve_status != ALVK_OK ? resolve_status : ALVK_E_INTERNAL;
    alvk_status status =
        aip_catalog_resolve(env->info, env->catalog, &p->mvid, p->copy_id, p->copy_epoch, token,
                            &aip_apply_scratch_of(env)->target_sig, target, &hr);
    if (status == ALVK_OK && p->module_id != 0 && p->module_id != target->module_id)
        status = ALVK_E_MODULE_UNLOADED; /* the live patch belongs to an older epoch */
    if (status == ALVK_OK && (target->description.flags & ALVK_METHOD_NON_VERSIONABLE) != 0)
        status = ALVK_E_TARGET_NON_VERSIONABLE; /* inlined untracked across version bubbles */
    return status;
}

alvk_status aip_apply_generation_prepare(const aip_apply_env *env, aip_staged_generation *s,
                                         const aip_patch *p, aip_refusal *why, aip_rejit_applied *a,
                                         aip_held_publish *held)
{
    aip_method_target target;
    alvk_status status =
        aip_apply_resolve_target(env, p, s->g.method_token, s->resolve_status, &target);
    if (status != ALVK_OK)
        return status;
    if (memcmp(target.description.body_identity, s->g.expected_body_identity, 32) != 0)
        return ALVK_E_BODY_IDENTITY_MISMATCH;
    if (s->g.prior_generation != p->current_generation)
        return ALVK_E_STALE_GENERATION;
    aip_generation_check check;
    status = aip_generation_validate(&s->g, target.description.code_size, &check);
    if (status != ALVK_OK) {
        why->failing = check.failing_index;
        return status;
    }
    if (p->module_id == 0)
        aip_rejit_set_target(env->rejit, s->index, target.module_id,
                             target.description.module_epoch);
    aip_patch now = *p;
    now.module_id = target.module_id;
    HRESULT metadata_hr = S_OK;
    aip_prepared_rejit *prepared = NULL;
    status = aip_apply_prepare_body(env, s->index, s->id, &s->g, check.body.code_offset, &target,
                                    &metadata_hr, why, &prepared);
    if (status != ALVK_OK)
        return status;
    aip_held_publish h = {prepared, s->id, now.module_id, now.token, now.telemetry.flags,
                          s->index, NULL};
    *held = h;
    a->owner_replacement = 0;
    aip_rejit_applied_dispatch(a, p, NULL); /* no replacement now */
    return ALVK_OK;
}
