/* alvk_generation_submit and alvk_generation_get_result: validation on the caller's thread,
 * a private copy, and queuing; results from RejitState. */
#include "runtime/profiler_runtime.h"

#include "rejit/generation_worker.h"
#include "generation/generation_validate.h"

#include <stdlib.h>
#include <string.h>

alvk_status aip_runtime_generation_submit(const alvk_generation *g, alvk_patch_handle *handle,
                                          alvk_generation_id *id, alvk_command_id *command)
{
    aip_generation_check check;
    alvk_status status = aip_generation_validate(g, AIP_ORIGINAL_SIZE_UNKNOWN, &check);
    if (status != ALVK_OK)
        return status;
    if ((status = aip_runtime_commands_available()) != ALVK_OK)
        return status;
    aip_runtime *rt = &g_aip_runtime;
    uint32_t slot = 0;
    if ((status = aip_queue_reserve(&rt->queue, &slot)) != ALVK_OK)
        return status;
    aip_staged_generation *s = aip_generation_stage(g);
    if (s == NULL) {
        aip_queue_release(&rt->queue, slot);
        return ALVK_E_INTERNAL;
    }
    int added_owner = 0;
    alvk_patch_handle h = 0;
    uint64_t copy_id = 0;
    uint32_t copy_epoch = 0;
    aip_runtime_resolve_copy(&g->module_mvid, g->module_id, g->module_epoch, &copy_id,
                             &copy_epoch, &s->resolve_status);
    if (s->resolve_status != ALVK_OK && g->prior_generation != 0) {
        /* A chain on a copy that does not resolve (gone, or now one of several): say why,
         * rather than call the prior stale against a patch that cannot be found. */
        aip_queue_release(&rt->queue, slot);
        status = s->resolve_status;
        free(s);
        return status;
    }
    status = aip_rejit_begin_chained_install(&rt->rejit, &g->module_mvid, (uintptr_t)copy_id,
                                             copy_epoch, g->method_token, g->owner, g->flags,
                                             g->prior_generation, &s->index, &h, &added_owner);
    s->added_owner = (uint32_t)added_owner;
    if (status == ALVK_OK) {
        status = aip_rejit_begin_generation(&rt->rejit, s->index, 1, g->prior_generation, &s->id);
        if (status != ALVK_OK)
            aip_rejit_cancel_command(&rt->rejit, s->index, added_owner ? g->owner : 0);
    }
    if (status != ALVK_OK) {
        aip_queue_release(&rt->queue, slot);
        free(s);
        return status;
    }
    /* The worker owns s once it is committed (it frees it): read what we return first. */
    *handle = h;
    *id = s->id;
    s->queued_ns = aip_monotonic_ns();
    s->command = *command = aip_rejit_issue_command(&rt->rejit);
    aip_queue_commit(&rt->queue, slot, aip_generation_run, aip_generation_discard, &s, sizeof s,
                     NULL);
    return ALVK_OK;
}

alvk_status aip_runtime_generation_result(alvk_patch_handle handle, alvk_generation_id id,
                                          alvk_generation_result *out,
                                          alvk_relocation_result *relocations, uint32_t capacity)
{
    if (!atomic_load(&g_aip_runtime.attached))
        return ALVK_E_NOT_ATTACHED;
    static _Thread_local aip_generation_record record;
    alvk_status status = aip_rejit_generation_lookup(&g_aip_runtime.rejit, handle, id, &record);
    if (status != ALVK_OK)
        return status;
    *out = record.result;
    uint32_t n = record.result.relocation_count < capacity ? record.result.relocation_count
                                                            : capacity;
    if (n > 0)
        memcpy(relocations, record.relocations, n * sizeof *relocations);
    return ALVK_OK;
}

/* A failed compilation was seen in a callback: the worker rolls back. The patch carries a
 * rollback-due flag, so if the queue refuses this command (full), the next command of any
 * kind serves the rollback when it finishes (aip_patch_finish). */
void aip_runtime_queue_rollback(uint32_t index)
{
    aip_queue_submit(&g_aip_runtime.queue, aip_generation_rollback_run, &index, sizeof index,
                     NULL);
}
