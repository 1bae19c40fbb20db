/* Install, replace and remove on the worker thread (the only thread that requests ReJIT). */
#include "patch_worker.h"

#include "module_catalog_clr.h"
#include "runtime_state.h"
#include "../coreclr/cor_guids.h"
#include "../coreclr/cor_metadata.h"
#include "../coreclr/corprof_enums.h"
#include "../il/dispatch.h"

#include <string.h>

#define AIP_MAX_INLINERS_PER_REQUEST 63

/* The StandAloneSig for the calli, emitted into the target's module and applied. */
static alvk_status emit_calli_token(aip_runtime *rt, ModuleID module, const uint8_t *sig,
                                    size_t length, uint32_t *token, HRESULT *hr)
{
    IUnknown *unknown = NULL;
    *hr = rt->info->lpVtbl->GetModuleMetaData(rt->info, module, ofRead | ofWrite,
                                              &IID_IMetaDataEmit2, &unknown);
    if (FAILED(*hr))
        return ALVK_E_METADATA_EMIT_FAILED;
    IMetaDataEmit2 *emit = (IMetaDataEmit2 *)unknown;
    mdSignature signature = 0;
    *hr = emit->lpVtbl->GetTokenFromSig(emit, sig, (ULONG)length, &signature);
    emit->lpVtbl->Release(emit);
    if (SUCCEEDED(*hr))
        *hr = rt->info->lpVtbl->ApplyMetaData(rt->info, module);
    if (FAILED(*hr))
        return ALVK_E_METADATA_EMIT_FAILED;
    *token = signature;
    return ALVK_OK;
}

static HRESULT request_rejit(aip_runtime *rt, ModuleID module, uint32_t token, uint32_t flags)
{
    if ((flags & ALVK_INSTALL_INLINER_FALLBACK) == 0) {
        mdMethodDef method = token;
        return rt->info->lpVtbl->RequestReJITWithInliners(rt->info, COR_PRF_REJIT_BLOCK_INLINING,
                                                          1, &module, &method);
    }
    ModuleID modules[AIP_MAX_INLINERS_PER_REQUEST + 1] = {module};
    mdMethodDef methods[AIP_MAX_INLINERS_PER_REQUEST + 1] = {token};
    aip_method_key callers[AIP_MAX_INLINERS_PER_REQUEST];
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

/* Publishes `prepared` (NULL: the original IL) and requests the ReJIT; on refusal the
 * previous snapshot comes back, so nothing is half-applied. Takes `prepared`. */
static alvk_status publish_and_request(aip_runtime *rt, const aip_patch *patch, uint32_t index,
                                       aip_prepared_rejit *prepared, uint64_t queued_ns)
{
    aip_prepared_rejit *previous = aip_rejit_publish(&rt->rejit, index, prepared);
    HRESULT hr = request_rejit(rt, patch->module_id, patch->token, patch->telemetry.flags);
    aip_rejit_note_request(&rt->rejit, index, hr, queued_ns);
    if (FAILED(hr)) {
        aip_prepared_release(aip_rejit_publish(&rt->rejit, index, previous));
        return ALVK_E_REJIT_FAILED;
    }
    aip_prepared_release(previous);
    return ALVK_OK;
}

/* Builds the exact-dispatch body for `replacement` and requests it. */
static alvk_status apply_replacement(aip_runtime *rt, uint32_t index,
                                     const aip_method_target *target, uint64_t replacement,
                                     uint64_t queued_ns)
{
    aip_patch patch;
    aip_rejit_copy(&rt->rejit, index, &patch);
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
    uint32_t calli = patch.telemetry.calli_signature_token;
    HRESULT metadata_hr = patch.telemetry.metadata_hresult;
    if (calli == 0) {
        uint8_t calli_sig[AIP_DISPATCH_MAX_SIG_BYTES];
        size_t length = 0;
        status = aip_dispatch_build_calli_signature(&dt, calli_sig, sizeof calli_sig, &length);
        if (status == ALVK_OK)
            status = emit_calli_token(rt, target->module_id, calli_sig, length, &calli,
                                      &metadata_hr);
        aip_rejit_set_dispatch(&rt->rejit, index, calli, metadata_hr, patch.telemetry.replacement);
        if (status != ALVK_OK)
            return status;
    }
    uint8_t body[AIP_DISPATCH_MAX_BODY_BYTES];
    size_t body_length = 0;
    uint32_t token_offset = 0;
    status = aip_dispatch_emit_body(&dt, replacement, calli, body, sizeof body, &body_length,
                                    &token_offset);
    if (status != ALVK_OK)
        return status;
    aip_prepared_rejit *prepared = aip_prepared_create(body, (uint32_t)body_length);
    if (prepared == NULL)
        return ALVK_E_INTERNAL;
    patch.module_id = target->module_id;
    status = publish_and_request(rt, &patch, index, prepared, queued_ns);
    if (status == ALVK_OK)
        aip_rejit_set_dispatch(&rt->rejit, index, calli, metadata_hr, replacement);
    return status;
}

static alvk_status check_target(const aip_method_target *t, const aip_patch_command *c)
{
    if (memcmp(t->description.signature_hash, c->signature_hash, 32) != 0)
        return ALVK_E_SIGNATURE_HASH_MISMATCH;
    if (memcmp(t->description.body_identity, c->body_identity, 32) != 0)
        return ALVK_E_BODY_IDENTITY_MISMATCH;
    if (t->description.flags & (ALVK_METHOD_GENERIC | ALVK_METHOD_DECLARING_TYPE_GENERIC))
        return ALVK_E_GENERIC_TARGET_UNSUPPORTED;
    return ALVK_OK;
}

static alvk_status install(aip_runtime *rt, const aip_patch_command *c, const aip_patch *patch)
{
    aip_method_target target;
    HRESULT hr = S_OK;
    alvk_status status = aip_catalog_resolve(rt->info, &rt->catalog, &c->mvid, c->token,
                                             &target, &hr);
    if (status == ALVK_OK)
        status = check_target(&target, c);
    if (status == ALVK_OK && patch->module_id != 0 && patch->module_id != target.module_id)
        status = ALVK_E_MODULE_UNLOADED; /* the live patch belongs to an older epoch */
    if (status != ALVK_OK)
        return status;
    if (patch->module_id == 0)
        aip_rejit_set_target(&rt->rejit, c->index, target.module_id,
                             target.description.module_epoch);
    return apply_replacement(rt, c->index, &target, c->replacement, c->queued_ns);
}

static alvk_status replace(aip_runtime *rt, const aip_patch_command *c, const aip_patch *patch)
{
    if (!aip_rejit_has_owner(&rt->rejit, c->index, c->owner))
        return ALVK_E_NOT_OWNER;
    aip_method_target target;
    HRESULT hr = S_OK;
    alvk_status status = aip_catalog_resolve(rt->info, &rt->catalog, &patch->mvid,
                                             patch->token, &target, &hr);
    if (status != ALVK_OK)
        return status;
    return apply_replacement(rt, c->index, &target, c->replacement, c->queued_ns);
}

/* The last owner's removal asks the runtime to re-JIT the original IL everywhere. */
static alvk_status remove_owner(aip_runtime *rt, const aip_patch_command *c,
                                const aip_patch *patch, int *ended)
{
    int left = aip_rejit_remove_owner(&rt->rejit, c->index, c->owner);
    if (left < 0)
        return ALVK_E_NOT_OWNER;
    if (left > 0)
        return ALVK_OK;
    alvk_status status = publish_and_request(rt, patch, c->index, NULL, c->queued_ns);
    if (status != ALVK_OK)
        aip_rejit_add_owner(&rt->rejit, c->index, c->owner); /* still patched: keep holding */
    else
        aip_rejit_set_dispatch(&rt->rejit, c->index, patch->telemetry.calli_signature_token,
                               patch->telemetry.metadata_hresult, 0);
    *ended = status == ALVK_OK;
    return status;
}

/* A join that failed validation: its owner leaves again. If every other owner left while it
 * was queued, nobody holds the patch any more and the original comes back. */
static alvk_patch_state failed_join(aip_runtime *rt, const aip_patch_command *c,
                                    const aip_patch *patch)
{
    if (aip_rejit_remove_owner(&rt->rejit, c->index, c->owner) != 0)
        return patch->state;
    aip_patch current;
    aip_rejit_copy(&rt->rejit, c->index, &current);
    if (publish_and_request(rt, &current, c->index, NULL, c->queued_ns) != ALVK_OK) {
        aip_rejit_add_owner(&rt->rejit, c->index, c->owner); /* still patched: keep holding */
        return patch->state;
    }
    return ALVK_PATCH_REMOVED;
}

alvk_status aip_patch_run(void *payload, void *context)
{
    aip_runtime *rt = context;
    const aip_patch_command *c = payload;
    aip_patch patch;
    aip_rejit_copy(&rt->rejit, c->index, &patch);
    alvk_patch_state state = patch.state;
    alvk_status status;
    if (aip_patch_state_is_terminal(patch.state)) {
        status = ALVK_E_PATCH_ENDED; /* ended (e.g. unloaded) while the command waited */
    } else if (c->kind == AIP_PATCH_INSTALL) {
        status = install(rt, c, &patch);
        if (patch.state == ALVK_PATCH_PENDING && status != ALVK_OK)
            aip_rejit_remove_owner(&rt->rejit, c->index, c->owner);
        if (patch.state == ALVK_PATCH_PENDING)
            state = status == ALVK_OK               ? ALVK_PATCH_ACTIVE
                    : status == ALVK_E_REJIT_FAILED ? ALVK_PATCH_FAILED
                                                    : ALVK_PATCH_REJECTED;
        else if (status != ALVK_OK && c->added_owner)
            state = failed_join(rt, c, &patch); /* the joiner's owner comes back out */
    } else if (c->kind == AIP_PATCH_REPLACE) {
        status = patch.state == ALVK_PATCH_ACTIVE ? replace(rt, c, &patch) : ALVK_E_NOT_OWNER;
    } else {
        int ended = 0;
        status = patch.state == ALVK_PATCH_ACTIVE ? remove_owner(rt, c, &patch, &ended)
                                                  : ALVK_E_NOT_OWNER;
        if (ended)
            state = ALVK_PATCH_REMOVED;
    }
    if (aip_patch_state_is_terminal(state) && state != ALVK_PATCH_REMOVED)
        aip_prepared_release(aip_rejit_publish(&rt->rejit, c->index, NULL));
    aip_rejit_finish_command(&rt->rejit, c->index, state, status, c->queued_ns);
    return status;
}
