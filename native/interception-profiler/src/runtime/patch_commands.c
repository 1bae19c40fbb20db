/* The exported patch commands: argument checks, RejitState bookkeeping, and queuing to the
 * worker. Nothing here calls the runtime. */
#include "runtime/profiler_runtime.h"

#include "rejit/patch_worker.h"
#include "runtime/runtime_state.h"

#include <string.h>

_Static_assert(sizeof(aip_patch_command) <= AIP_COMMAND_PAYLOAD_BYTES, "fits a queue slot");

void aip_runtime_resolve_copy(const alvk_mvid *mvid, uint64_t module_id, uint32_t module_epoch,
                              uint64_t *copy_id, uint32_t *copy_epoch, alvk_status *status)
{
    aip_module_entry module;
    *copy_id = 0;
    *copy_epoch = 0;
    *status = (uintptr_t)module_id != module_id
                  ? ALVK_E_UNKNOWN_MODULE
                  : aip_catalog_select(&g_aip_runtime.catalog, mvid, (uintptr_t)module_id,
                                       module_epoch, &module);
    if (*status == ALVK_OK) {
        *copy_id = module.module_id;
        *copy_epoch = module.epoch;
    }
}

/* Queues an accepted command into the slot reserved for it: it gets its ID, and the queue
 * cannot refuse it any more. */
static alvk_command_id commit(aip_runtime *rt, uint32_t slot, aip_patch_command *c)
{
    c->queued_ns = aip_monotonic_ns();
    c->command = aip_rejit_issue_command(&rt->rejit);
    aip_queue_commit(&rt->queue, slot, aip_patch_run, aip_patch_discard, c, sizeof *c, NULL);
    return c->command;
}

alvk_status aip_runtime_patch_install(const alvk_install_request *request,
                                      alvk_patch_handle *handle, alvk_command_id *command)
{
    if (request->owner == 0)
        return ALVK_E_INVALID_OWNER;
    if (request->replacement == 0)
        return ALVK_E_INVALID_REPLACEMENT;
    if ((request->flags & ~(uint32_t)ALVK_INSTALL_INLINER_FALLBACK) != 0 ||
        request->reserved != 0 || request->reserved1 != 0 ||
        (request->module_id == 0 && request->module_epoch != 0))
        return ALVK_E_INVALID_FLAGS;
    alvk_status status = aip_runtime_commands_available();
    if (status != ALVK_OK)
        return status;
    aip_runtime *rt = &g_aip_runtime;
    aip_patch_command c;
    memset(&c, 0, sizeof c);
    c.kind = AIP_PATCH_INSTALL;
    c.owner = request->owner;
    c.replacement = request->replacement;
    c.token = request->method_token;
    c.mvid = request->module_mvid;
    memcpy(c.signature_hash, request->signature_hash, sizeof c.signature_hash);
    memcpy(c.body_identity, request->body_identity, sizeof c.body_identity);
    aip_runtime_resolve_copy(&c.mvid, request->module_id, request->module_epoch, &c.module_id,
                             &c.module_epoch, &c.resolve_status);
    alvk_patch_handle h = 0;
    int added_owner = 0;
    uint32_t slot = 0;
    if ((status = aip_queue_reserve(&rt->queue, &slot)) != ALVK_OK)
        return status;
    status = aip_rejit_begin_install(&rt->rejit, &c.mvid, (uintptr_t)c.module_id, c.module_epoch,
                                     c.token, c.owner, request->flags, &c.index, &h,
                                     &added_owner);
    c.added_owner = (uint32_t)added_owner;
    if (status == ALVK_OK) {
        status = aip_rejit_begin_generation(&rt->rejit, c.index, 0, 0, &c.generation);
        if (status != ALVK_OK)
            aip_rejit_cancel_command(&rt->rejit, c.index, added_owner ? c.owner : 0);
    }
    if (status != ALVK_OK) {
        aip_queue_release(&rt->queue, slot);
        return status;
    }
    *handle = h;
    *command = commit(rt, slot, &c);
    return ALVK_OK;
}

static alvk_status command(alvk_patch_handle handle, uint64_t owner, uint64_t replacement,
                           aip_patch_command_kind kind, alvk_command_id *issued)
{
    if (owner == 0)
        return ALVK_E_INVALID_OWNER;
    alvk_status status = aip_runtime_commands_available();
    if (status != ALVK_OK)
        return status;
    aip_runtime *rt = &g_aip_runtime;
    aip_patch_command c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.owner = owner;
    c.replacement = replacement;
    uint32_t slot = 0;
    if ((status = aip_queue_reserve(&rt->queue, &slot)) != ALVK_OK)
        return status;
    status = aip_rejit_begin_command(&rt->rejit, handle, owner, &c.index);
    if (status == ALVK_OK && kind == AIP_PATCH_REPLACE) {
        status = aip_rejit_begin_generation(&rt->rejit, c.index, 0, 0, &c.generation);
        if (status != ALVK_OK)
            aip_rejit_cancel_command(&rt->rejit, c.index, 0);
    }
    if (status != ALVK_OK) {
        aip_queue_release(&rt->queue, slot);
        return status;
    }
    *issued = commit(rt, slot, &c);
    return ALVK_OK;
}

alvk_status aip_runtime_patch_replace(alvk_patch_handle handle, uint64_t owner,
                                      uint64_t replacement, alvk_command_id *issued)
{
    if (replacement == 0)
        return ALVK_E_INVALID_REPLACEMENT;
    return command(handle, owner, replacement, AIP_PATCH_REPLACE, issued);
}

alvk_status aip_runtime_patch_remove(alvk_patch_handle handle, uint64_t owner,
                                     alvk_command_id *issued)
{
    return command(handle, owner, 0, AIP_PATCH_REMOVE, issued);
}

alvk_status aip_runtime_command_wait(alvk_command_id command, uint32_t timeout_ms,
                                     alvk_status *result)
{
    if (!atomic_load(&g_aip_runtime.attached))
        return ALVK_E_NOT_ATTACHED;
    return aip_rejit_wait_command(&g_aip_runtime.rejit, command,
                                  (uint64_t)timeout_ms * 1000000u, result);
}

alvk_status aip_runtime_patch_wait(alvk_patch_handle handle, uint32_t timeout_ms)
{
    if (!atomic_load(&g_aip_runtime.attached))
        return ALVK_E_NOT_ATTACHED;
    return aip_rejit_wait(&g_aip_runtime.rejit, handle, (uint64_t)timeout_ms * 1000000u);
}

alvk_status aip_runtime_patch_telemetry(alvk_patch_handle handle, alvk_patch_telemetry *out)
{
    if (!atomic_load(&g_aip_runtime.attached))
        return ALVK_E_NOT_ATTACHED;
    return aip_rejit_telemetry(&g_aip_runtime.rejit, handle, out);
}
