/* The worker's apply path: resolve the target, build or take the generation, prepare it
 * (check, emit) for the command runner's publish, and finish the command. One path for exact
 * dispatch and for submitted generations. */
#include "rejit/apply_generation.h"

#include "emit/assembly_ref.h"
#include "catalog/member_check.h"
#include "catalog/stack_type_oracle.h"
#include "generation/generation_validate.h"
#include "il/dispatch.h"
#include "metadata/signature_shape.h"
#include "rejit/rejit_callbacks.h"
#include "rejit/rejit_events.h"
#include "rejit/rejit_generations.h"
#include "rejit/rejit_owners.h"
#include "rejit/rejit_state.h"

#include <assert.h>
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

/* ---- Publishing ------------------------------------------------------------------------- */

/* Puts `prepared` (NULL: the original IL) for generation `id` (0: the original) of the patch
 * `p` describes in force: held for the command runner while an install or generation is
 * prepared (env->held), else published and requested at once as a command of one
 * (aip_apply_publish). Granted, the rest (the HRESULT, the snapshot replaced) goes into *a
 * for the command's one commit; refused, `id` is no longer current, the request is noted and
 * the previous snapshot comes back at once. Takes `prepared`. */
static alvk_status publish(const aip_apply_env *env, uint32_t index, const aip_patch *p,
                           alvk_generation_id id, aip_prepared_rejit *prepared, uint64_t queued_ns,
                           aip_rejit_applied *a)
{
    assert(!a->requested && "one request per commit");
    aip_held_publish h = {prepared, id, p->module_id, p->token, p->telemetry.flags, index, NULL};
    if (env->held != NULL) {
        *env->held = h;
        return ALVK_OK;
    }
    aip_request_mark mark;
    HRESULT hr = aip_apply_publish(env, &h, &mark, 1, queued_ns);
    if (FAILED(hr))
        return ALVK_E_REJIT_FAILED;
    a->requested = 1;
    a->request_hresult = hr;
    a->replaced = h.replaced;
    return ALVK_OK;
}

/* ---- One generation ---------------------------------------------------------------------- */

typedef aip_refusal refusal; /* apply_generation.h */

/* The generation's record, once: rejected with why (and where the types differ). */
static void record_refusal(const aip_apply_env *env, uint32_t index, alvk_generation_id id,
                           alvk_status status, const refusal *why)
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

/* Emits and checks generation `id` of patch `index` for `target`, and snapshots it into
 * *prepared. `code_offset` is where the code starts in g->body. The relocation results stay
 * in the scratch (an exact dispatch reads its calli token there) and *metadata_hr receives
 * emission's HRESULT. On failure nothing is published and *why says what the record should
 * keep. */
static alvk_status prepare_generation(const aip_apply_env *env, uint32_t index,
                                      alvk_generation_id id, const alvk_generation *g,
                                      uint32_t code_offset, const aip_method_target *target,
                                      HRESULT *metadata_hr, refusal *why,
                                      aip_prepared_rejit **prepared)
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

/* Emits, checks, publishes and requests generation `id` (prepare_generation, then publish). */
static alvk_status apply_generation(const aip_apply_env *env, uint32_t index, const aip_patch *p,
                                    alvk_generation_id id, const alvk_generation *g,
                                    uint32_t code_offset, const aip_method_target *target,
                                    uint64_t queued_ns, HRESULT *metadata_hr, refusal *why,
                                    aip_rejit_applied *a)
{
    aip_prepared_rejit *prepared = NULL;
    alvk_status status =
        prepare_generation(env, index, id, g, code_offset, target, metadata_hr, why, &prepared);
    return status != ALVK_OK ? status : publish(env, index, p, id, prepared, queued_ns, a);
}

/* The copy the patch is for (an install joins only the patch of the copy it resolved), never
 * found again by MVID: another copy of the assembly may be loaded meanwhile. Records the
 * target on the patch's first command. */
static alvk_status resolve_target(const aip_apply_env *env, const aip_patch *p, uint32_t token,
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

/* ---- Exact dispatch -------------------------------------------------------------------- */

/* Exact dispatch needs one function pointer per target: generic targets (whose IL serves
 * every instantiation) are refused on install and on replace alike. */
static alvk_status check_dispatch_target(const aip_method_target *t, const aip_patch_command *c)
{
    if (c->kind == AIP_PATCH_INSTALL &&
        memcmp(t->description.signature_hash, c->signature_hash, 32) != 0)
        return ALVK_E_SIGNATURE_HASH_MISMATCH;
    if (c->kind == AIP_PATCH_INSTALL &&
        memcmp(t->description.body_identity, c->body_identity, 32) != 0)
        return ALVK_E_BODY_IDENTITY_MISMATCH;
    if (t->description.flags & (ALVK_METHOD_GENERIC | ALVK_METHOD_DECLARING_TYPE_GENERIC))
        return ALVK_E_GENERIC_TARGET_UNSUPPORTED;
    return ALVK_OK;
}

/* The dispatch telemetry of a body now in force, as its facts say (NULL: the original, or
 * a generation: no replacement), with the patch's calli token and metadata HRESULT kept. */
static void set_dispatch(aip_rejit_applied *a, const aip_patch *p, const aip_dispatch_facts *facts)
{
    static const aip_dispatch_facts none = {ALVK_DISPATCH_NONE, ALVK_OK, 0, 0};
    if (facts == NULL)
        facts = &none;
    a->dispatch = 1;
    a->calli_token = p->telemetry.calli_signature_token;
    a->metadata_hresult = p->telemetry.metadata_hresult;
    a->replacement = facts->replacement;
    a->dispatch_path = facts->path;
    a->dispatch_fallback = facts->fallback;
    a->call_token = facts->call_token;
}

/* The body a dispatch generation carries, and what it is made of. */
typedef struct dispatch_body {
    uint8_t body[AIP_DISPATCH_MAX_BODY_BYTES];
    alvk_relocation relocations[AIP_REPLACEMENT_MAX_NESTING + 1];
    alvk_generation g;
} dispatch_body;

static void generation_of(dispatch_body *d, size_t body_length, const uint8_t *blobs,
                          size_t blobs_size, uint32_t relocation_count)
{
    memset(&d->g, 0, sizeof d->g);
    d->g.size = sizeof d->g;
    d->g.body = d->body;
    d->g.body_size = (uint32_t)body_length;
    d->g.blobs = blobs;
    d->g.blobs_size = (uint32_t)blobs_size;
    d->g.relocations = d->relocations;
    d->g.relocation_count = relocation_count;
}

static alvk_relocation relocation(alvk_relocation_kind kind, uint32_t il_offset,
                                  uint32_t parent_token, uint32_t parent_relocation,
                                  aip_name_span name, uint32_t blob_offset, uint32_t blob_length)
{
    alvk_relocation r = {.size = sizeof r,
                         .kind = kind,
                         .il_offset = il_offset,
                         .parent_token = parent_token,
                         .parent_relocation = parent_relocation,
                         .name_offset = name.offset,
                         .name_length = name.length,
                         .blob_offset = blob_offset,
                         .blob_length = blob_length};
    return r;
}

/* The calli body: one StandAloneSig relocation for its signature. */
static alvk_status build_calli(const aip_dispatch_target *dt, uint64_t replacement,
                               const uint8_t *calli_sig, size_t sig_length, dispatch_body *d)
{
    size_t body_length = 0;
    uint32_t token_offset = 0;
    /* a placeholder token: the relocation writes the real one */
    alvk_status status = aip_dispatch_emit_body(dt, replacement, 0x11000001u, d->body,
                                                sizeof d->body, &body_length, &token_offset);
    if (status != ALVK_OK)
        return status;
    aip_name_span none = {0, 0};
    d->relocations[0] =
        relocation(ALVK_RELOCATION_STANDALONE_SIG, token_offset - AIP_FAT_HEADER_BYTES, 0, 0, none,
                   0, (uint32_t)sig_length);
    generation_of(d, body_length, calli_sig, sig_length, 1);
    return ALVK_OK;
}

/* The direct-call body for the replacement method the command names, in the target's module:
 * its MethodDef when it is the same module, else a MemberRef (the calli signature's) under
 * the TypeRef chain under the AssemblyRef, as relocations. ALVK_OK, or why not (the
 * fallback's reason, with *hr). */
static alvk_status build_direct(const aip_apply_env *env, const aip_patch_command *c,
                                const aip_method_target *target, const aip_dispatch_target *dt,
                                const uint8_t *calli_sig, size_t sig_length, dispatch_body *d,
                                HRESULT *hr)
{
    aip_apply_scratch *x = aip_apply_scratch_of(env);
    aip_module_entry module;
    alvk_status status = aip_assembly_ref_module(env->catalog, c->replacement_module, &module);
    if (status != ALVK_OK)
        return status;
    int same = module.module_id == target->module_id;
    aip_replacement_name *r = &x->replacement;
    status = aip_replacement_read(env->info, module.module_id, c->replacement_token, same, r, hr);
    if (status != ALVK_OK)
        return status;
    size_t body_length = 0;
    uint32_t token_offset = 0;
    if (same) {
        status = aip_dispatch_emit_call_body(dt, c->replacement_token, d->body, sizeof d->body,
                                             &body_length, &token_offset);
        if (status == ALVK_OK)
            generation_of(d, body_length, NULL, 0, 0);
        return status;
    }
    /* The MemberRef carries the calli signature; the runtime binds it only to a method whose
     * signature matches, custom modifiers included. */
    if (aip_signature_shapes_differ(calli_sig, sig_length, r->signature, r->signature_length))
        return ALVK_E_REPLACEMENT_UNSUPPORTED;
    uint32_t assembly_ref = 0;
    status =
        aip_emit_assembly_ref(env->emitter, target->module_id, &r->assembly, &assembly_ref, hr);
    if (status != ALVK_OK)
        return status;
    /* A placeholder MemberRef: its relocation writes the real one. */
    status = aip_dispatch_emit_call_body(dt, 0x0A000001u, d->body, sizeof d->body, &body_length,
                                         &token_offset);
    if (status != ALVK_OK)
        return status;
    memcpy(x->direct_blobs, r->names, r->names_length);
    memcpy(x->direct_blobs + r->names_length, calli_sig, sig_length);
    for (uint32_t i = 0; i < r->type_count; ++i)
        d->relocations[i] = relocation(ALVK_RELOCATION_TYPE_REF, ALVK_RELOCATION_NO_OPERAND,
                                       i == 0 ? assembly_ref : 0, i, r->types[i], 0, 0);
    d->relocations[r->type_count] =
        relocation(ALVK_RELOCATION_MEMBER_REF, token_offset - AIP_FAT_HEADER_BYTES, 0,
                   r->type_count, r->method, r->names_length, (uint32_t)sig_length);
    generation_of(d, body_length, x->direct_blobs, r->names_length + sig_length, r->type_count + 1);
    return ALVK_OK;
}

/* The direct-call body of command `c` prepared into *prepared (its call token in
 * *call_token), or why not: the fallback's reason, with the record's refusal cleared (the
 * calli body is what the record judges then). */
static alvk_status prepare_direct(const aip_apply_env *env, const aip_patch_command *c,
                                  const aip_method_target *target, const aip_dispatch_target *dt,
                                  const uint8_t *calli_sig, size_t sig_length, dispatch_body *d,
                                  HRESULT *hr, refusal *why, aip_prepared_rejit **prepared,
                                  uint32_t *call_token)
{
    alvk_status status = build_direct(env, c, target, dt, calli_sig, sig_length, d, hr);
    if (status == ALVK_OK)
        status = prepare_generation(env, c->index, c->generation, &d->g, AIP_FAT_HEADER_BYTES,
                                    target, hr, why, prepared);
    if (status != ALVK_OK) {
        memset(why, 0, sizeof *why);
        return status;
    }
    *call_token = d->g.relocation_count == 0
                      ? c->replacement_token
                      : aip_apply_scratch_of(env)->results[d->g.relocation_count - 1].token;
    return ALVK_OK;
}

/* Install and replace: the dispatch body for the replacement as a generation, applied like
 * any other: the direct call when the command names the replacement's method and it can
 * work, else (and when it was refused before publishing) calli. */
static alvk_status install_or_replace(const aip_apply_env *env, const aip_patch_command *c,
                                      const aip_patch *p, refusal *why, aip_rejit_applied *a)
{
    if (c->kind == AIP_PATCH_REPLACE && !aip_rejit_has_owner(env->rejit, c->index, c->owner))
        return ALVK_E_NOT_OWNER;
    aip_method_target target;
    alvk_status status = resolve_target(env, p, c->kind == AIP_PATCH_INSTALL ? c->token : p->token,
                                        c->resolve_status, &target);
    if (status == ALVK_OK)
        status = check_dispatch_target(&target, c);
    if (status != ALVK_OK)
        return status;
    if (p->module_id == 0)
        aip_rejit_set_target(env->rejit, c->index, target.module_id,
                             target.description.module_epoch);
    aip_patch now = *p;
    now.module_id = target.module_id;
    /* The target's signature, as resolve parsed it into the scratch. */
    uint32_t flags = target.description.flags;
    aip_dispatch_target dt = {
        target.signature, target.signature_length, &aip_apply_scratch_of(env)->target_sig,
        (flags & ALVK_METHOD_HAS_THIS) == 0              ? AIP_RECEIVER_NONE
        : (flags & ALVK_METHOD_VALUE_TYPE_RECEIVER) != 0 ? AIP_RECEIVER_VALUE_TYPE
                                                         : AIP_RECEIVER_CLASS,
        target.description.declaring_type};
    uint8_t calli_sig[AIP_DISPATCH_MAX_SIG_BYTES];
    size_t sig_length = 0;
    status = aip_dispatch_build_calli_signature(&dt, calli_sig, sizeof calli_sig, &sig_length);
    if (status != ALVK_OK)
        return status;
    dispatch_body d;
    HRESULT metadata_hr = S_OK;
    aip_prepared_rejit *prepared = NULL;
    uint32_t call_token = 0, calli_token = p->telemetry.calli_signature_token;
    alvk_status fallback = c->replacement_module == 0
                               ? ALVK_OK
                               : prepare_direct(env, c, &target, &dt, calli_sig, sig_length, &d,
                                                &metadata_hr, why, &prepared, &call_token);
    alvk_dispatch_path path = c->replacement_module != 0 && fallback == ALVK_OK
                                  ? ALVK_DISPATCH_DIRECT_CALL
                                  : ALVK_DISPATCH_CALLI;
    if (path == ALVK_DISPATCH_CALLI) {
        HRESULT direct_hr = metadata_hr; /* why the direct call failed, if it did */
        status = build_calli(&dt, c->replacement, calli_sig, sig_length, &d);
        if (status == ALVK_OK)
            status = prepare_generation(env, c->index, c->generation, &d.g, AIP_FAT_HEADER_BYTES,
                                        &target, &metadata_hr, why, &prepared);
        if (status != ALVK_OK)
            return status;
        calli_token = aip_apply_scratch_of(env)->results[0].token;
        if (SUCCEEDED(metadata_hr))
            metadata_hr = direct_hr;
    }
    aip_dispatch_facts facts = {path, fallback, call_token, c->replacement};
    prepared->dispatch = facts;
    status = publish(env, c->index, &now, c->generation, prepared, c->queued_ns, a);
    if (status == ALVK_OK) {
        a->owner_body = c->owner;
        a->owner_replacement = c->replacement;
        set_dispatch(a, p, &facts);
        a->calli_token = calli_token; /* this command's */
        a->metadata_hresult = metadata_hr;
    }
    return status;
}

/* When an owner leaves while others remain, the body in force becomes the most recently set
 * body of a remaining owner (its replacement or its generation), or the original when none
 * of them set one: nothing the departed owner put in force keeps running. */
static alvk_status restore_successor(const aip_apply_env *env, const aip_patch_command *c,
                                     const aip_patch *p, aip_rejit_applied *a)
{
    uint64_t replacement = 0;
    aip_prepared_rejit *body = aip_rejit_successor_body(env->rejit, c->index, &replacement);
    alvk_generation_id id = body != NULL ? body->generation : 0;
    if (id == p->current_generation) {
        aip_prepared_release(body); /* already in force */
        return ALVK_OK;
    }
    aip_dispatch_facts facts;
    memset(&facts, 0, sizeof facts);
    if (body != NULL)
        facts = body->dispatch; /* publish takes the body */
    alvk_status status = publish(env, c->index, p, id, body, c->queued_ns, a);
    if (status == ALVK_OK)
        set_dispatch(a, p, &facts);
    return status;
}

/* The last owner's removal asks the runtime to re-JIT the original IL everywhere (the target's
 * inliners get what their own patches call for) and makes the target's original version active
 * again (aip_apply_publish). */
static alvk_status remove_owner(const aip_apply_env *env, const aip_patch_command *c,
                                const aip_patch *p, int *ended, aip_rejit_applied *a)
{
    int left = aip_rejit_remove_owner(env->rejit, c->index, c->owner);
    if (left < 0) {
        /* The module unloaded since the worker looked: the patch ended and dropped its
         * owners; say so rather than blame the owner. */
        aip_patch now;
        aip_rejit_copy(env->rejit, c->index, &now);
        return aip_patch_state_is_terminal(now.state) ? ALVK_E_PATCH_ENDED : ALVK_E_NOT_OWNER;
    }
    if (left > 0) {
        alvk_status status = restore_successor(env, c, p, a);
        if (status != ALVK_OK)
            aip_rejit_add_owner(env->rejit, c->index, c->owner); /* its body still runs */
        return status;
    }
    alvk_status status = publish(env, c->index, p, 0, NULL, c->queued_ns, a);
    if (status != ALVK_OK)
        aip_rejit_add_owner(env->rejit, c->index, c->owner); /* still patched: keep holding */
    else
        set_dispatch(a, p, NULL);
    *ended = status == ALVK_OK;
    return status;
}

static alvk_status apply_rollbacks(const aip_apply_env *env);

static void end_command(aip_rejit_applied *a, alvk_command_id command, alvk_patch_state state,
                        alvk_status status, uint64_t queued_ns)
{
    a->finish = 1;
    a->command = command;
    a->state = state;
    a->status = status;
    a->queued_ns = queued_ns;
}

/* ---- The end of every command ---------------------------------------------------------- */

/* The patch state that follows from `status`, the owner an install added taken back out on
 * failure (restoring the original if nobody else holds the patch), and everything the
 * command learned committed to RejitState in one transition. */
static void finish(const aip_apply_env *env, uint32_t index, alvk_command_id command,
                   const aip_patch *before, alvk_status status, uint64_t added_owner,
                   uint64_t queued_ns, aip_rejit_applied *a)
{
    alvk_patch_state state = before->state;
    if (before->state == ALVK_PATCH_PENDING) {
        if (status != ALVK_OK && added_owner != 0)
            aip_rejit_remove_owner(env->rejit, index, added_owner);
        state = status == ALVK_OK               ? ALVK_PATCH_ACTIVE
                : status == ALVK_E_REJIT_FAILED ? ALVK_PATCH_FAILED
                                                : ALVK_PATCH_REJECTED;
    } else if (!aip_patch_state_is_terminal(before->state) && status != ALVK_OK &&
               added_owner != 0 && aip_rejit_remove_owner(env->rejit, index, added_owner) == 0) {
        /* A failed join whose other owners all left while it waited: restore. */
        aip_patch now;
        aip_rejit_copy(env->rejit, index, &now);
        if (publish(env, index, &now, 0, NULL, queued_ns, a) == ALVK_OK)
            state = ALVK_PATCH_REMOVED;
        else
            aip_rejit_add_owner(env->rejit, index, added_owner);
    }
    if (aip_patch_state_is_terminal(state) && state != ALVK_PATCH_REMOVED)
        aip_prepared_release(aip_rejit_publish(env->rejit, index, NULL));
    end_command(a, command, state, status, queued_ns);
    aip_rejit_commit(env->rejit, index, a);
}

alvk_status aip_apply_remove(const aip_apply_env *env, const aip_patch_command *c)
{
    aip_patch p;
    aip_rejit_copy(env->rejit, c->index, &p);
    alvk_status status;
    int ended = 0;
    aip_rejit_applied a;
    memset(&a, 0, sizeof a);
    if (aip_patch_state_is_terminal(p.state))
        status = ALVK_E_PATCH_ENDED; /* ended (e.g. unloaded) while the command waited */
    else
        status =
            p.state == ALVK_PATCH_ACTIVE ? remove_owner(env, c, &p, &ended, &a) : ALVK_E_NOT_OWNER;
    if (ended) {
        end_command(&a, c->command, ALVK_PATCH_REMOVED, status, c->queued_ns);
        aip_rejit_commit(env->rejit, c->index, &a);
        return status;
    }
    finish(env, c->index, c->command, &p, status, c->added_owner ? c->owner : 0, c->queued_ns, &a);
    apply_rollbacks(env); /* any rollback whose own command was refused */
    return status;
}

/* ---- Submitted generations --------------------------------------------------------------- */

static alvk_status run_generation(const aip_apply_env *env, aip_staged_generation *s,
                                  const aip_patch *p, refusal *why, aip_rejit_applied *a)
{
    aip_method_target target;
    alvk_status status = resolve_target(env, p, s->g.method_token, s->resolve_status, &target);
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
    status = apply_generation(env, s->index, &now, s->id, &s->g, check.body.code_offset, &target,
                              s->queued_ns, &metadata_hr, why, a);
    if (status == ALVK_OK) {
        a->owner_body = s->g.owner;
        a->owner_replacement = 0;
        set_dispatch(a, p, NULL); /* no replacement now */
    }
    return status;
}

/* ---- Rollbacks ----------------------------------------------------------------------------- */

/* After a failed compilation the runtime did not report: the member check again, on the
 * MemberRefs the failed generation emitted. By now the JIT tried to bind them, so an
 * assembly the first check found unloaded may be loaded: a member that is now certainly
 * missing becomes the failure's cause (what the caller saw, and its relocation). */
static void find_failure_cause(const aip_apply_env *env, uint32_t index)
{
    aip_generation_record *failed = &aip_apply_scratch_of(env)->failed;
    uintptr_t module_id = 0;
    if (!aip_rejit_unreported_failure(env->rejit, index, &module_id, failed))
        return;
    uint32_t failing = 0;
    int32_t hresult = 0;
    if (aip_member_check(env->info, env->catalog, module_id, failed->relocations,
                         failed->result.relocation_count, &failing,
                         &hresult) == ALVK_E_MEMBER_NOT_FOUND)
        aip_rejit_generation_failure_cause(env->rejit, index, failed->result.generation, hresult,
                                           failing);
}

static alvk_status apply_rollbacks(const aip_apply_env *env)
{
    alvk_status status = ALVK_OK;
    uint32_t index = 0;
    while (aip_rejit_next_rollback(env->rejit, &index)) {
        aip_prepared_rejit *prepared = NULL;
        alvk_generation_id back = 0;
        find_failure_cause(env, index); /* what the failure was, when we can tell */
        if (aip_rejit_take_rollback(env->rejit, index, &prepared, &back)) {
            aip_patch p;
            aip_rejit_copy(env->rejit, index, &p);
            aip_rejit_applied a;
            memset(&a, 0, sizeof a);
            aip_dispatch_facts facts;
            memset(&facts, 0, sizeof facts);
            if (prepared != NULL)
                facts = prepared->dispatch; /* publish takes the body */
            alvk_status s = publish(env, index, &p, back, prepared, aip_monotonic_ns(), &a);
            if (s == ALVK_OK)
                set_dispatch(&a, &p, &facts); /* the body rolled back to, and its path */
            aip_rejit_commit(env->rejit, index, &a);
            status = s != ALVK_OK ? s : status;
        }
    }
    return status;
}

alvk_status aip_apply_rollbacks(void *payload, void *context)
{
    (void)payload; /* every patch with a rollback due is served, whichever one queued this */
    return apply_rollbacks(context);
}

/* ---- The command runner's pieces (apply_batch.c) ----------------------------------------- */

alvk_status aip_apply_install_held(const aip_apply_env *env, const aip_patch_command *c,
                                   const aip_patch *p, aip_refusal *why, aip_rejit_applied *a,
                                   aip_held_publish *held)
{
    if (c->kind == AIP_PATCH_REPLACE && p->state != ALVK_PATCH_ACTIVE)
        return ALVK_E_NOT_OWNER;
    aip_apply_env holding = *env;
    holding.held = held;
    return install_or_replace(&holding, c, p, why, a);
}

alvk_status aip_apply_generation_held(const aip_apply_env *env, aip_staged_generation *s,
                                      const aip_patch *p, aip_refusal *why, aip_rejit_applied *a,
                                      aip_held_publish *held)
{
    aip_apply_env holding = *env;
    holding.held = held;
    return run_generation(&holding, s, p, why, a);
}

void aip_apply_record_refusal(const aip_apply_env *env, uint32_t index, alvk_generation_id id,
                              alvk_status status, const aip_refusal *why)
{
    record_refusal(env, index, id, status, why);
}

void aip_apply_finish(const aip_apply_env *env, uint32_t index, alvk_command_id command,
                      const aip_patch *before, alvk_status status, uint64_t added_owner,
                      uint64_t queued_ns, aip_rejit_applied *a)
{
    finish(env, index, command, before, status, added_owner, queued_ns, a);
}

void aip_apply_rollbacks_once(const aip_apply_env *env)
{
    apply_rollbacks(env);
}
