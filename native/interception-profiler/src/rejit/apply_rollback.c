/* Rollbacks, run by the command runner. */
#include "rejit/apply_rollback.h"

#include "catalog/member_check.h"
#include "rejit/apply_batch.h"
#include "rejit/rejit_generations.h"
#include "rejit/rejit_state.h"

#include <string.h>

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

/* `batch` is the patch's slot. */
static void rollback_entry(const void *batch, uint32_t i, aip_batch_entry *out)
{
    (void)i;
    memset(out, 0, sizeof *out);
    out->index = *(const uint32_t *)batch;
    out->queued_ns = aip_monotonic_ns();
}

/* The last body that compiled, taken back from RejitState (nothing when no rollback is due
 * any more), with the dispatch telemetry of its path. */
static alvk_status rollback_prepare(const aip_apply_env *env, const void *batch, uint32_t i,
                                    const aip_patch *before, aip_batch_step *step)
{
    (void)i;
    uint32_t index = *(const uint32_t *)batch;
    aip_prepared_rejit *prepared = NULL;
    alvk_generation_id back = 0;
    step->decided = 1;              /* no owner change */
    find_failure_cause(env, index); /* what the failure was, when we can tell */
    if (!aip_rejit_take_rollback(env->rejit, index, &prepared, &back))
        return ALVK_OK;
    aip_held_publish h = {prepared, back, before->module_id, before->token, before->telemetry.flags,
                          index,    NULL};
    step->held = h;
    step->due = 1;
    aip_rejit_applied_dispatch(&step->a, before, prepared != NULL ? &prepared->dispatch : NULL);
    return ALVK_OK;
}

static const aip_batch_kind rollbacks = {rollback_entry, rollback_prepare, 0};

alvk_status aip_apply_rollbacks_once(const aip_apply_env *env)
{
    alvk_status status = ALVK_OK;
    uint32_t index = 0;
    while (aip_rejit_next_rollback(env->rejit, &index)) {
        alvk_status s = aip_batch_run(env, &rollbacks, &index, 1, 0);
        status = s != ALVK_OK ? s : status;
    }
    return status;
}

alvk_status aip_apply_rollbacks(void *payload, void *context)
{
    (void)payload; /* every patch with a rollback due is served, whichever one queued this */
    return aip_apply_rollbacks_once(context);
}
