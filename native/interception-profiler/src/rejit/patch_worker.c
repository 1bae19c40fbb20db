/* Install, replace and remove on the worker thread (the only thread that requests ReJIT).
 * Install and replace are exact-dispatch generations: the dispatch body with one
 * StandAloneSig relocation for its calli, applied through the generation path. */
#include "rejit/patch_worker.h"

#include "rejit/generation_worker.h"
#include "il/dispatch.h"

#include <string.h>

/* Builds and applies the exact-dispatch generation for `replacement`. */
static alvk_status apply_dispatch(aip_runtime *rt, const aip_patch_command *c,
                                  const aip_method_target *target)
{
    static aip_method_sig sig; /* worker-only */
    alvk_status status = aip_sig_parse_method(target->signature, target->signature_length, 0,
                                              &sig);
    if (status != ALVK_OK)
        return status;
    uint32_t flags = target->description.flags;
    aip_dispatch_target dt = {
        target->signature, target->signature_length, &sig,
        (flags & ALVK_METHOD_HAS_THIS) == 0             ? AIP_RECEIVER_NONE
        : (flags & ALVK_METHOD_VALUE_TYPE_RECEIVER) != 0 ? AIP_RECEIVER_VALUE_TYPE
                                                          : AIP_RECEIVER_CLASS,
        target->description.declaring_type};
    uint8_t calli_sig[AIP_DISPATCH_MAX_SIG_BYTES], body[AIP_DISPATCH_MAX_BODY_BYTES];
    size_t sig_length = 0, body_length = 0;
    uint32_t token_offset = 0;
    status = aip_dispatch_build_calli_signature(&dt, calli_sig, sizeof calli_sig, &sig_length);
    if (status == ALVK_OK) /* a placeholder token: the relocation writes the real one */
        status = aip_dispatch_emit_body(&dt, c->replacement, 0x11000001u, body, sizeof body,
                                        &body_length, &token_offset);
    if (status != ALVK_OK)
        return status;
    const uint32_t code_offset = 12; /* the emitter writes a fat header */
    alvk_relocation calli = {sizeof calli, ALVK_RELOCATION_STANDALONE_SIG,
                             token_offset - code_offset, 0, 0, 0, 0, 0, (uint32_t)sig_length};
    alvk_generation g;
    memset(&g, 0, sizeof g);
    g.size = sizeof g;
    g.body = body;
    g.body_size = (uint32_t)body_length;
    g.blobs = calli_sig;
    g.blobs_size = (uint32_t)sig_length;
    g.relocations = &calli;
    g.relocation_count = 1;
    status = aip_generation_apply(rt, c->index, c->generation, &g, code_offset, target,
                                  c->queued_ns);
    if (status == ALVK_OK) {
        aip_generation_record record;
        aip_patch patch;
        aip_rejit_copy(&rt->rejit, c->index, &patch);
        memset(&record, 0, sizeof record);
        for (int i = 0; i < AIP_GENERATION_HISTORY; ++i)
            if (patch.history[i].result.generation == c->generation)
                record = patch.history[i];
        aip_rejit_set_dispatch(&rt->rejit, c->index, record.relocations[0].token,
                               record.result.metadata_hresult, c->replacement);
    }
    return status;
}

/* Exact dispatch needs one function pointer per target: generic targets (whose IL serves
 * every instantiation) are refused on install and on replace alike. */
static alvk_status check_target(const aip_method_target *t, const aip_patch_command *c)
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

static alvk_status install_or_replace(aip_runtime *rt, const aip_patch_command *c,
                                      const aip_patch *patch)
{
    if (c->kind == AIP_PATCH_REPLACE && !aip_rejit_has_owner(&rt->rejit, c->index, c->owner))
        return ALVK_E_NOT_OWNER;
    uint32_t token = c->kind == AIP_PATCH_INSTALL ? c->token : patch->token;
    aip_method_target target;
    HRESULT hr = S_OK;
    /* The copy the patch is for (an install joins only the patch of the copy it resolved),
     * never found again by MVID: another copy of the assembly may be loaded meanwhile. */
    alvk_status status =
        patch->copy_id == 0
            ? (c->resolve_status != ALVK_OK ? c->resolve_status : ALVK_E_INTERNAL)
            : aip_catalog_resolve(rt->info, &rt->catalog, &patch->mvid, patch->copy_id,
                                  patch->copy_epoch, token, &target, &hr);
    if (status == ALVK_OK)
        status = check_target(&target, c);
    if (status == ALVK_OK && patch->module_id != 0 && patch->module_id != target.module_id)
        status = ALVK_E_MODULE_UNLOADED; /* the live patch belongs to an older epoch */
    if (status != ALVK_OK) {
        aip_rejit_generation_rejected(&rt->rejit, c->index, c->generation, status, 0, 0);
        return status;
    }
    if (patch->module_id == 0)
        aip_rejit_set_target(&rt->rejit, c->index, target.module_id,
                             target.description.module_epoch);
    status = apply_dispatch(rt, c, &target);
    if (status == ALVK_OK)
        aip_rejit_set_owner_body(&rt->rejit, c->index, c->owner, c->replacement);
    return status;
}

/* When an owner leaves while others remain, the body in force becomes the most recently set
 * body of a remaining owner (its replacement or its generation), or the original when none
 * of them set one: nothing the departed owner put in force keeps running. */
static alvk_status restore_successor(aip_runtime *rt, const aip_patch_command *c,
                                     const aip_patch *patch)
{
    uint64_t replacement = 0;
    aip_prepared_rejit *body = aip_rejit_successor_body(&rt->rejit, c->index, &replacement);
    alvk_generation_id id = body != NULL ? body->generation : 0;
    if (id == patch->current_generation) {
        aip_prepared_release(body); /* already in force */
        return ALVK_OK;
    }
    alvk_status status = aip_generation_publish(rt, c->index, id, body, c->queued_ns);
    if (status == ALVK_OK)
        aip_rejit_set_dispatch(&rt->rejit, c->index, patch->telemetry.calli_signature_token,
                               patch->telemetry.metadata_hresult, replacement);
    return status;
}

/* The last owner's removal asks the runtime to re-JIT the original IL everywhere. */
static alvk_status remove_owner(aip_runtime *rt, const aip_patch_command *c,
                                const aip_patch *patch, int *ended)
{
    int left = aip_rejit_remove_owner(&rt->rejit, c->index, c->owner);
    if (left < 0) {
        /* The module unloaded since the worker looked: the patch ended and dropped its
         * owners; say so rather than blame the owner. */
        aip_patch now;
        aip_rejit_copy(&rt->rejit, c->index, &now);
        return aip_patch_state_is_terminal(now.state) ? ALVK_E_PATCH_ENDED : ALVK_E_NOT_OWNER;
    }
    if (left > 0) {
        alvk_status status = restore_successor(rt, c, patch);
        if (status != ALVK_OK)
            aip_rejit_add_owner(&rt->rejit, c->index, c->owner); /* its body still runs */
        return status;
    }
    alvk_status status = aip_generation_publish(rt, c->index, 0, NULL, c->queued_ns);
    if (status != ALVK_OK)
        aip_rejit_add_owner(&rt->rejit, c->index, c->owner); /* still patched: keep holding */
    else
        aip_rejit_set_dispatch(&rt->rejit, c->index, patch->telemetry.calli_signature_token,
                               patch->telemetry.metadata_hresult, 0);
    *ended = status == ALVK_OK;
    return status;
}

void aip_patch_finish(aip_runtime *rt, uint32_t index, alvk_command_id command,
                      const aip_patch *before, alvk_status status, uint64_t added_owner,
                      uint64_t queued_ns)
{
    alvk_patch_state state = before->state;
    if (before->state == ALVK_PATCH_PENDING) {
        if (status != ALVK_OK && added_owner != 0)
            aip_rejit_remove_owner(&rt->rejit, index, added_owner);
        state = status == ALVK_OK               ? ALVK_PATCH_ACTIVE
                : status == ALVK_E_REJIT_FAILED ? ALVK_PATCH_FAILED
                                                : ALVK_PATCH_REJECTED;
    } else if (!aip_patch_state_is_terminal(before->state) && status != ALVK_OK &&
               added_owner != 0 && aip_rejit_remove_owner(&rt->rejit, index, added_owner) == 0) {
        /* A failed join whose other owners all left while it waited: restore. */
        if (aip_generation_publish(rt, index, 0, NULL, queued_ns) == ALVK_OK)
            state = ALVK_PATCH_REMOVED;
        else
            aip_rejit_add_owner(&rt->rejit, index, added_owner);
    }
    if (aip_patch_state_is_terminal(state) && state != ALVK_PATCH_REMOVED)
        aip_prepared_release(aip_rejit_publish(&rt->rejit, index, NULL));
    aip_rejit_finish_command(&rt->rejit, index, command, state, status, queued_ns);
    aip_generation_rollback_run(NULL, rt); /* any rollback whose own command was refused */
}

alvk_status aip_patch_run(void *payload, void *context)
{
    aip_runtime *rt = context;
    const aip_patch_command *c = payload;
    aip_patch patch;
    aip_rejit_copy(&rt->rejit, c->index, &patch);
    alvk_status status;
    int ended = 0;
    if (aip_patch_state_is_terminal(patch.state))
        status = ALVK_E_PATCH_ENDED; /* ended (e.g. unloaded) while the command waited */
    else if (c->kind == AIP_PATCH_REMOVE)
        status = patch.state == ALVK_PATCH_ACTIVE ? remove_owner(rt, c, &patch, &ended)
                                                  : ALVK_E_NOT_OWNER;
    else if (c->kind == AIP_PATCH_REPLACE && patch.state != ALVK_PATCH_ACTIVE)
        status = ALVK_E_NOT_OWNER;
    else
        status = install_or_replace(rt, c, &patch);
    if (status != ALVK_OK && c->kind != AIP_PATCH_REMOVE)
        aip_rejit_generation_rejected(&rt->rejit, c->index, c->generation, status, 0, 0);
    if (ended) {
        aip_rejit_finish_command(&rt->rejit, c->index, c->command, ALVK_PATCH_REMOVED, status,
                                 c->queued_ns);
        return status;
    }
    aip_patch_finish(rt, c->index, c->command, &patch, status, c->added_owner ? c->owner : 0,
                     c->queued_ns);
    return status;
}

void aip_patch_discard(void *payload, void *context)
{
    aip_runtime *rt = context;
    const aip_patch_command *c = payload;
    aip_rejit_discard_command(&rt->rejit, c->index, c->command, c->generation,
                              c->added_owner ? c->owner : 0, c->queued_ns);
}
