/* RejitState's callback accounting: what the runtime's callbacks record on the patch table. */
#include "rejit/rejit_events.h"

#include "rejit/patch_slots.h"
#include "rejit/rejit_generations.h"
#include "rejit/rejit_owners.h"
#include "rejit/rejit_state.h"

aip_prepared_rejit *aip_rejit_acquire_for(aip_rejit_state *st, uintptr_t module_id, uint32_t token)
{
    aip_prepared_rejit *prepared = NULL;
    aip_mutex_lock(&st->lock);
    aip_patch *p = aip_slots_newest(st, module_id, token);
    if (p != NULL) {
        p->telemetry.get_rejit_parameters++;
        if (!aip_patch_state_is_terminal(p->state) && p->prepared != NULL) {
            prepared = aip_prepared_retain(p->prepared);
        }
    }
    aip_mutex_unlock(&st->lock);
    return prepared;
}

void aip_rejit_record(aip_rejit_state *st, uintptr_t module_id, uint32_t token,
                      aip_rejit_event event, int32_t hresult)
{
    aip_mutex_lock(&st->lock);
    aip_patch *p = aip_slots_newest(st, module_id, token);
    if (p != NULL) {
        alvk_patch_telemetry *t = &p->telemetry;
        switch (event) {
        case AIP_EVENT_SET_IL:
            t->set_il_hresult = hresult;
            break;
        case AIP_EVENT_STARTED:
            t->rejit_started++;
            break;
        case AIP_EVENT_FINISHED:
            t->rejit_finished++;
            t->compilation_hresult = hresult;
            if (p->awaiting_compile_since != 0) {
                t->compile_elapsed_ns = aip_monotonic_ns() - p->awaiting_compile_since;
                p->awaiting_compile_since = 0;
            }
            break;
        case AIP_EVENT_ERROR:
            t->rejit_errors++;
            t->error_hresult = hresult;
            break;
        }
    }
    aip_mutex_unlock(&st->lock);
}

int aip_rejit_is_target(aip_rejit_state *st, uintptr_t module_id, uint32_t token)
{
    aip_mutex_lock(&st->lock);
    int target = aip_slots_newest(st, module_id, token) != NULL;
    aip_mutex_unlock(&st->lock);
    return target;
}

uint64_t aip_rejit_newest_request(aip_rejit_state *st, const aip_method_key *methods,
                                  uint32_t count)
{
    uint64_t newest = 0;
    aip_mutex_lock(&st->lock);
    for (uint32_t i = 0; i < count; ++i) {
        const aip_patch *p = aip_slots_newest(st, methods[i].module_id, methods[i].token);
        if (p != NULL && p->request > newest)
            newest = p->request;
    }
    aip_mutex_unlock(&st->lock);
    return newest;
}

/* One inliner re-JIT counted on p, once per ReJIT ID. Lock held. */
static void count_inliner(aip_patch *p, uint64_t rejit_id)
{
    uint32_t seen = p->telemetry.inliners_rejitted;
    for (uint32_t i = 0; i < seen && i < AIP_PATCH_INLINER_IDS; ++i)
        if (p->inliner_rejit_ids[i] == rejit_id)
            return;
    if (seen < AIP_PATCH_INLINER_IDS)
        p->inliner_rejit_ids[seen] = rejit_id;
    p->telemetry.inliners_rejitted++;
}

void aip_rejit_record_inliner(aip_rejit_state *st, uintptr_t module_id, uint32_t token,
                              uint64_t rejit_id, const aip_inliner_facts *facts)
{
    aip_mutex_lock(&st->lock);
    if (aip_slots_newest(st, module_id, token) == NULL) {
        if (facts != NULL && facts->newest != 0) {
            for (uint32_t i = 0; i < facts->count; ++i) {
                aip_patch *p =
                    aip_slots_newest(st, facts->inlined[i].module_id, facts->inlined[i].token);
                if (p != NULL && p->request > facts->counted && p->request <= facts->newest)
                    count_inliner(p, rejit_id);
            }
        } else if (st->last_requested >= 0) {
            count_inliner(aip_patch_at(st, (uint32_t)st->last_requested), rejit_id);
        }
    }
    aip_mutex_unlock(&st->lock);
}

void aip_rejit_module_unloaded(aip_rejit_state *st, uintptr_t module_id)
{
    aip_mutex_lock(&st->lock);
    for (uint32_t i = 0; i < st->extent; ++i) {
        aip_patch *p = aip_patch_at(st, i);
        if (p->in_use && p->module_id == module_id && !aip_patch_state_is_terminal(p->state)) {
            p->state = ALVK_PATCH_UNLOADED;
            aip_rejit_patch_ended(st, i);
            p->last_status = ALVK_E_MODULE_UNLOADED;
            aip_prepared_release(p->prepared);
            p->prepared = NULL;
            aip_prepared_release(p->good);
            p->good = NULL;
            aip_patch_set_rollback_due(st, p, 0);
            aip_patch_drop_all_owners(p);
        }
    }
    aip_cond_broadcast(&st->changed);
    aip_mutex_unlock(&st->lock);
}

int aip_rejit_revert_unsafe(aip_rejit_state *st, uintptr_t module_id, uint32_t token,
                            const aip_method_key *inlined, uint32_t count)
{
    int unsafe = 0;
    aip_mutex_lock(&st->lock);
    for (uint32_t i = 0; i < st->extent && !unsafe; ++i) {
        const aip_patch *p = aip_patch_at(st, i);
        unsafe = p->in_use && !aip_patch_state_is_terminal(p->state) && p->module_id == module_id &&
                 p->token != token;
    }
    for (uint32_t i = 0; i < count && !unsafe; ++i) {
        const aip_patch *p = aip_slots_newest(st, inlined[i].module_id, inlined[i].token);
        unsafe = p != NULL && !aip_patch_state_is_terminal(p->state);
    }
    aip_mutex_unlock(&st->lock);
    return unsafe;
}

int aip_rejit_blocks_inlining(aip_rejit_state *st, uintptr_t module_id, uint32_t token)
{
    aip_mutex_lock(&st->lock);
    aip_patch *p = aip_slots_newest(st, module_id, token);
    int blocks = p != NULL && !aip_patch_state_is_terminal(p->state) &&
                 (p->telemetry.flags & ALVK_INSTALL_INLINER_FALLBACK) != 0;
    aip_mutex_unlock(&st->lock);
    return blocks;
}

alvk_status aip_rejit_telemetry(aip_rejit_state *st, alvk_patch_handle handle,
                                alvk_patch_telemetry *out)
{
    aip_mutex_lock(&st->lock);
    const aip_patch *p = aip_patch_from_handle(st, handle, NULL);
    if (p != NULL) {
        *out = p->telemetry;
        out->size = sizeof *out;
        out->state = p->state;
        out->last_status = p->last_status;
        out->pending_commands = p->pending;
        out->owner_count = p->owner_count;
        out->current_generation = p->current_generation;
        out->latest_generation = p->latest_generation;
        out->module_id = p->copy_id;
    }
    aip_mutex_unlock(&st->lock);
    return p != NULL ? ALVK_OK : ALVK_E_UNKNOWN_PATCH;
}
