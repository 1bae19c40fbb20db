/* RejitState, continued: PreparedRejit snapshots and what the ReJIT callbacks record. */
#include "rejit/rejit_internal.h"

#include <stdlib.h>
#include <string.h>

/* The snapshot allocator's accounting: process-wide, as the heap it counts. */
static _Atomic uint64_t g_prepared_bytes, g_prepared_count;

void aip_prepared_totals(uint64_t *bytes, uint64_t *count)
{
    *bytes = atomic_load_explicit(&g_prepared_bytes, memory_order_relaxed);
    *count = atomic_load_explicit(&g_prepared_count, memory_order_relaxed);
}

aip_prepared_rejit *aip_prepared_create(alvk_generation_id generation, const uint8_t *body,
                                        uint32_t size, const alvk_il_map_entry *il_map,
                                        uint32_t il_map_count)
{
    size_t body_space = ((size_t)size + 7u) & ~(size_t)7u;
    size_t map_bytes = (size_t)il_map_count * sizeof *il_map;
    size_t total = sizeof(aip_prepared_rejit) + body_space + map_bytes;
    aip_prepared_rejit *p = malloc(total);
    if (p == NULL)
        return NULL;
    atomic_fetch_add_explicit(&g_prepared_bytes, total, memory_order_relaxed);
    atomic_fetch_add_explicit(&g_prepared_count, 1, memory_order_relaxed);
    atomic_init(&p->refs, 1);
    p->generation = generation;
    p->body_size = size;
    p->il_map_count = il_map_count;
    memcpy(p->data, body, size);
    alvk_il_map_entry *map = (alvk_il_map_entry *)(void *)(p->data + body_space);
    if (map_bytes > 0)
        memcpy(map, il_map, map_bytes);
    p->il_map = map;
    return p;
}

void aip_prepared_release(aip_prepared_rejit *prepared)
{
    if (prepared != NULL && atomic_fetch_sub(&prepared->refs, 1) == 1) {
        size_t body_space = ((size_t)prepared->body_size + 7u) & ~(size_t)7u;
        size_t total = sizeof *prepared + body_space +
                       (size_t)prepared->il_map_count * sizeof *prepared->il_map;
        atomic_fetch_sub_explicit(&g_prepared_bytes, total, memory_order_relaxed);
        atomic_fetch_sub_explicit(&g_prepared_count, 1, memory_order_relaxed);
        free(prepared);
    }
}

aip_prepared_rejit *aip_rejit_publish(aip_rejit_state *st, uint32_t index,
                                      aip_prepared_rejit *prepared)
{
    aip_mutex_lock(&st->lock);
    aip_patch *p = &st->patches[index];
    aip_prepared_rejit *previous = prepared;
    /* A module unload may end the patch between the worker's look at it and this publish;
     * an ended patch keeps no snapshot (nothing would release it, and its slot could never
     * be recycled), so the snapshot goes back to the caller. */
    if (!aip_patch_state_is_terminal(p->state)) {
        previous = p->prepared;
        p->prepared = prepared;
    }
    aip_mutex_unlock(&st->lock);
    return previous;
}

void aip_rejit_set_target(aip_rejit_state *st, uint32_t index, uintptr_t module_id,
                          uint32_t module_epoch)
{
    aip_mutex_lock(&st->lock);
    st->patches[index].module_id = module_id;
    st->patches[index].telemetry.module_epoch = module_epoch;
    aip_mutex_unlock(&st->lock);
}

void aip_rejit_set_dispatch(aip_rejit_state *st, uint32_t index, uint32_t calli_token,
                            int32_t metadata_hresult, uint64_t replacement)
{
    aip_mutex_lock(&st->lock);
    alvk_patch_telemetry *t = &st->patches[index].telemetry;
    t->calli_signature_token = calli_token;
    t->metadata_hresult = metadata_hresult;
    t->replacement = replacement;
    aip_mutex_unlock(&st->lock);
}

void aip_rejit_note_request(aip_rejit_state *st, uint32_t index, int32_t hresult,
                            uint64_t queued_ns)
{
    aip_mutex_lock(&st->lock);
    st->patches[index].telemetry.request_hresult = hresult;
    if (hresult >= 0) {
        st->patches[index].awaiting_compile_since = queued_ns;
        st->last_requested = (int32_t)index;
    }
    aip_mutex_unlock(&st->lock);
}

/* The patch of (module, token): the live one, else the one that ended last. Lock held. */
static aip_patch *newest_for(aip_rejit_state *st, uintptr_t module_id, uint32_t token)
{
    aip_patch *best = NULL;
    for (int i = 0; i < ALVK_MAX_PATCHES; ++i) {
        aip_patch *p = &st->patches[i];
        if (!p->in_use || p->module_id != module_id || p->token != token || module_id == 0)
            continue;
        if (!aip_patch_state_is_terminal(p->state))
            return p;
        if (best == NULL || p->ended_order > best->ended_order)
            best = p;
    }
    return best;
}

aip_prepared_rejit *aip_rejit_acquire_for(aip_rejit_state *st, uintptr_t module_id,
                                          uint32_t token)
{
    aip_prepared_rejit *prepared = NULL;
    aip_mutex_lock(&st->lock);
    aip_patch *p = newest_for(st, module_id, token);
    if (p != NULL) {
        p->telemetry.get_rejit_parameters++;
        if (!aip_patch_state_is_terminal(p->state) && p->prepared != NULL) {
            prepared = p->prepared;
            atomic_fetch_add(&prepared->refs, 1);
        }
    }
    aip_mutex_unlock(&st->lock);
    return prepared;
}

void aip_rejit_record(aip_rejit_state *st, uintptr_t module_id, uint32_t token,
                      aip_rejit_event event, int32_t hresult)
{
    aip_mutex_lock(&st->lock);
    aip_patch *p = newest_for(st, module_id, token);
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

void aip_rejit_record_inliner(aip_rejit_state *st, uintptr_t module_id, uint32_t token,
                              uint64_t rejit_id)
{
    aip_mutex_lock(&st->lock);
    if (st->last_requested >= 0 && newest_for(st, module_id, token) == NULL) {
        aip_patch *p = &st->patches[st->last_requested];
        uint32_t seen = p->telemetry.inliners_rejitted;
        int known = 0;
        for (uint32_t i = 0; i < seen && i < 32 && !known; ++i)
            known = p->inliner_rejit_ids[i] == rejit_id;
        if (!known) {
            if (seen < 32)
                p->inliner_rejit_ids[seen] = rejit_id;
            p->telemetry.inliners_rejitted++;
        }
    }
    aip_mutex_unlock(&st->lock);
}

void aip_rejit_module_unloaded(aip_rejit_state *st, uintptr_t module_id)
{
    aip_mutex_lock(&st->lock);
    for (int i = 0; i < ALVK_MAX_PATCHES; ++i) {
        aip_patch *p = &st->patches[i];
        if (p->in_use && p->module_id == module_id && !aip_patch_state_is_terminal(p->state)) {
            p->state = ALVK_PATCH_UNLOADED;
            p->ended_order = ++st->end_counter;
            p->last_status = ALVK_E_MODULE_UNLOADED;
            aip_prepared_release(p->prepared);
            p->prepared = NULL;
            aip_prepared_release(p->good);
            p->good = NULL;
            p->rollback_due = 0;
            aip_patch_drop_all_owners(p);
        }
    }
    aip_cond_broadcast(&st->changed);
    aip_mutex_unlock(&st->lock);
}

int aip_rejit_blocks_inlining(aip_rejit_state *st, uintptr_t module_id, uint32_t token)
{
    aip_mutex_lock(&st->lock);
    aip_patch *p = newest_for(st, module_id, token);
    int blocks = p != NULL && !aip_patch_state_is_terminal(p->state) &&
                 (p->telemetry.flags & ALVK_INSTALL_INLINER_FALLBACK) != 0;
    aip_mutex_unlock(&st->lock);
    return blocks;
}

alvk_status aip_rejit_telemetry(aip_rejit_state *st, alvk_patch_handle handle,
                                alvk_patch_telemetry *out)
{
    aip_patch copy;
    alvk_status status = aip_rejit_lookup(st, handle, &copy);
    if (status != ALVK_OK)
        return status;
    *out = copy.telemetry;
    out->size = sizeof *out;
    out->state = copy.state;
    out->last_status = copy.last_status;
    out->pending_commands = copy.pending;
    out->owner_count = copy.owner_count;
    out->current_generation = copy.current_generation;
    out->latest_generation = copy.latest_generation;
    out->module_id = copy.copy_id;
    return ALVK_OK;
}
