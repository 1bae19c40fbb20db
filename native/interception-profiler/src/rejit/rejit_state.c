/* RejitState: the patch table's command transitions. */
#include "rejit/rejit_state.h"

#include "rejit/patch_slots.h"
#include "rejit/rejit_generations.h"
#include "rejit/rejit_owners.h"

#include <string.h>

int aip_rejit_init(aip_rejit_state *st, uint32_t capacity)
{
    memset(st, 0, sizeof *st);
    st->last_requested = -1;
    if (aip_slots_init(st, capacity) != 0)
        return -1;
    if (aip_mutex_init(&st->lock) != 0)
        return -1;
    return aip_cond_init(&st->changed);
}

void aip_rejit_destroy(aip_rejit_state *st)
{
    for (uint32_t i = 0; i < st->extent; ++i) {
        aip_patch *p = aip_patch_at(st, i);
        aip_patch_clear_history(p);
        for (uint32_t o = 0; o < ALVK_MAX_PATCH_OWNERS; ++o)
            aip_prepared_release(p->owner_bodies[o]);
        aip_prepared_release(p->prepared);
        aip_prepared_release(p->good);
    }
    aip_slots_destroy(st);
}

void aip_rejit_counts(aip_rejit_state *st, uint32_t *capacity, uint32_t *slots_allocated,
                      uint32_t *live)
{
    aip_mutex_lock(&st->lock);
    *capacity = st->capacity;
    *slots_allocated = st->allocated;
    *live = st->live;
    aip_mutex_unlock(&st->lock);
}

void aip_rejit_patch_ended(aip_rejit_state *st, uint32_t index)
{
    aip_patch_at(st, index)->ended_order = ++st->end_counter;
    st->live--;
    aip_slots_ended(st, index);
}

/* The live patch an install of (mvid, copy, epoch, token) joins, or -1. Lock held. */
int aip_rejit_joinable_locked(const aip_rejit_state *st, const alvk_mvid *mvid, uintptr_t copy_id,
                              uint32_t copy_epoch, uint32_t token)
{
    aip_slot_cursor cursor;
    uint32_t i;
    aip_slots_find(st, copy_id, token, &cursor);
    while (aip_slots_next(st, &cursor, &i)) {
        const aip_patch *p = aip_patch_at(st, i);
        if (p->in_use && !p->closing && !aip_patch_state_is_terminal(p->state) &&
            p->copy_epoch == copy_epoch && memcmp(&p->mvid, mvid, sizeof *mvid) == 0)
            return (int)i;
    }
    return -1;
}

/* A new patch of (mvid, copy, epoch, token) in a free, recycled or new slot, or
 * AIP_SLOTS_FULL (the bound is live) or AIP_SLOTS_NO_MEMORY (a chunk or the index could not
 * grow). Lock held. */
static int open_patch(aip_rejit_state *st, const alvk_mvid *mvid, uintptr_t copy_id,
                      uint32_t copy_epoch, uint32_t token, uint32_t flags)
{
    int found = aip_slots_take(st);
    if (found < 0)
        return found;
    aip_patch *p = aip_patch_at(st, (uint32_t)found);
    uint32_t generation = p->generation + 1;
    aip_patch_clear_history(p);
    memset(p, 0, sizeof *p);
    p->generation = generation == 0 ? 1 : generation;
    p->in_use = 1;
    p->state = ALVK_PATCH_PENDING;
    p->last_status = ALVK_OK;
    p->mvid = *mvid;
    p->token = token;
    p->copy_id = copy_id;
    p->copy_epoch = copy_epoch;
    p->telemetry.method_token = token;
    p->telemetry.module_epoch = copy_epoch;
    p->telemetry.flags = flags;
    if (copy_id != 0 && aip_slots_index_add(st, (uint32_t)found) != 0) {
        p->in_use = 0;
        aip_slots_release(st, (uint32_t)found);
        return AIP_SLOTS_NO_MEMORY;
    }
    st->live++;
    return found;
}

/* begin_install's work, lock held (aip_rejit_install_locked). With `prior`, the generation that
 * will follow must chain on the target's latest one (0 for a target without a live patch):
 * ALVK_E_STALE_GENERATION otherwise, decided before any slot is taken (so no ended patch is
 * recycled for nothing). */
alvk_status aip_rejit_install_locked(aip_rejit_state *st, const alvk_mvid *mvid, uintptr_t copy_id,
                                     uint32_t copy_epoch, uint32_t token, uint64_t owner,
                                     uint32_t flags, const alvk_generation_id *prior,
                                     uint32_t *index, alvk_patch_handle *handle, int *added_owner)
{
    *added_owner = 0;
    alvk_status status = ALVK_OK;
    int found = copy_id != 0 ? aip_rejit_joinable_locked(st, mvid, copy_id, copy_epoch, token) : -1;
    if (prior != NULL &&
        *prior != (found >= 0 ? aip_patch_at(st, (uint32_t)found)->latest_generation : 0))
        return ALVK_E_STALE_GENERATION;
    if (found >= 0) {
        aip_patch *p = aip_patch_at(st, (uint32_t)found);
        if (aip_patch_find_owner(p, owner) < 0 && p->owner_count == ALVK_MAX_PATCH_OWNERS)
            status = ALVK_E_OWNERS_FULL;
    } else if ((found = open_patch(st, mvid, copy_id, copy_epoch, token, flags)) < 0) {
        status = found == AIP_SLOTS_NO_MEMORY ? ALVK_E_INTERNAL : ALVK_E_PATCH_TABLE_FULL;
    }
    if (status == ALVK_OK) {
        aip_patch *p = aip_patch_at(st, (uint32_t)found);
        if (aip_patch_find_owner(p, owner) < 0) {
            aip_patch_append_owner(p, owner);
            *added_owner = 1;
        }
        p->pending++;
        *index = (uint32_t)found;
        *handle = aip_patch_handle_of(st, (uint32_t)found);
    }
    return status;
}

alvk_status aip_rejit_begin_install(aip_rejit_state *st, const alvk_mvid *mvid, uintptr_t copy_id,
                                    uint32_t copy_epoch, uint32_t token, uint64_t owner,
                                    uint32_t flags, uint32_t *index, alvk_patch_handle *handle,
                                    int *added_owner)
{
    aip_mutex_lock(&st->lock);
    alvk_status status = aip_rejit_install_locked(st, mvid, copy_id, copy_epoch, token, owner,
                                                  flags, NULL, index, handle, added_owner);
    aip_mutex_unlock(&st->lock);
    return status;
}

alvk_status aip_rejit_begin_chained_install(aip_rejit_state *st, const alvk_mvid *mvid,
                                            uintptr_t copy_id, uint32_t copy_epoch, uint32_t token,
                                            uint64_t owner, uint32_t flags,
                                            alvk_generation_id prior, uint32_t *index,
                                            alvk_patch_handle *handle, int *added_owner)
{
    aip_mutex_lock(&st->lock);
    alvk_status status = aip_rejit_install_locked(st, mvid, copy_id, copy_epoch, token, owner,
                                                  flags, &prior, index, handle, added_owner);
    aip_mutex_unlock(&st->lock);
    return status;
}

/* begin_command's work, lock held. */
static alvk_status command_locked(aip_rejit_state *st, alvk_patch_handle handle, uint64_t owner,
                                  uint32_t *index)
{
    aip_patch *p = aip_patch_from_handle(st, handle, index);
    if (p == NULL)
        return ALVK_E_UNKNOWN_PATCH;
    if (aip_patch_state_is_terminal(p->state) || p->closing)
        return ALVK_E_PATCH_ENDED;
    if (aip_patch_find_owner(p, owner) < 0)
        return ALVK_E_NOT_OWNER;
    p->pending++;
    return ALVK_OK;
}

alvk_status aip_rejit_begin_command(aip_rejit_state *st, alvk_patch_handle handle, uint64_t owner,
                                    uint32_t *index)
{
    aip_mutex_lock(&st->lock);
    alvk_status status = command_locked(st, handle, owner, index);
    aip_mutex_unlock(&st->lock);
    return status;
}

void aip_rejit_cancel_locked(aip_rejit_state *st, uint32_t index, uint64_t added_owner)
{
    aip_patch *p = aip_patch_at(st, index);
    int at = added_owner != 0 ? aip_patch_find_owner(p, added_owner) : -1;
    if (at >= 0)
        aip_patch_drop_owner(p, at);
    if (p->pending > 0 && --p->pending == 0 && p->state == ALVK_PATCH_PENDING &&
        p->telemetry.commands_completed == 0) {
        p->in_use = 0;
        st->live--;
        aip_slots_release(st, index);
    }
}

void aip_rejit_cancel_command(aip_rejit_state *st, uint32_t index, uint64_t added_owner)
{
    aip_mutex_lock(&st->lock);
    aip_rejit_cancel_locked(st, index, added_owner);
    aip_cond_broadcast(&st->changed);
    aip_mutex_unlock(&st->lock);
}

alvk_command_id aip_rejit_issue_locked(aip_rejit_state *st)
{
    alvk_command_id id = ++st->last_command;
    aip_command_record *r = &st->commands[id % ALVK_COMMAND_HISTORY];
    r->id = id;
    r->status = ALVK_OK;
    r->done = 0;
    return id;
}

alvk_command_id aip_rejit_issue_command(aip_rejit_state *st)
{
    aip_mutex_lock(&st->lock);
    alvk_command_id id = aip_rejit_issue_locked(st);
    aip_mutex_unlock(&st->lock);
    return id;
}

alvk_status aip_rejit_accept(aip_rejit_state *st, const aip_rejit_request *r,
                             aip_rejit_accepted *out)
{
    alvk_status status;
    memset(out, 0, sizeof *out);
    aip_mutex_lock(&st->lock);
    if (r->kind == AIP_REQUEST_INSTALL || r->kind == AIP_REQUEST_GENERATION) {
        int chained = r->kind == AIP_REQUEST_GENERATION;
        status = aip_rejit_install_locked(st, r->mvid, r->copy_id, r->copy_epoch, r->token,
                                          r->owner, r->flags, chained ? &r->prior : NULL,
                                          &out->index, &out->handle, &out->added_owner);
        /* A prior was checked against this very patch's latest: opening cannot fail. */
        if (status == ALVK_OK)
            aip_patch_open_generation(st, aip_patch_at(st, out->index), chained, r->prior,
                                      &out->generation);
    } else {
        status = command_locked(st, r->handle, r->owner, &out->index);
        if (status == ALVK_OK && r->kind == AIP_REQUEST_REPLACE)
            aip_patch_open_generation(st, aip_patch_at(st, out->index), 0, 0, &out->generation);
    }
    if (status == ALVK_OK)
        out->command = aip_rejit_issue_locked(st);
    aip_mutex_unlock(&st->lock);
    return status;
}

/* The command's record, if it is still kept. Lock held. */
static aip_command_record *command_record(aip_rejit_state *st, alvk_command_id command)
{
    aip_command_record *r = &st->commands[command % ALVK_COMMAND_HISTORY];
    return command != 0 && r->id == command ? r : NULL;
}

/* Lock held. */
static void end_command(aip_rejit_state *st, alvk_command_id command, alvk_status status)
{
    aip_command_record *r = command_record(st, command);
    if (r != NULL) {
        r->status = status;
        r->done = 1;
    }
}

void aip_rejit_end_command(aip_rejit_state *st, alvk_command_id command, alvk_status status)
{
    aip_mutex_lock(&st->lock);
    end_command(st, command, status);
    aip_cond_broadcast(&st->changed);
    aip_mutex_unlock(&st->lock);
}

alvk_status aip_rejit_wait_command(aip_rejit_state *st, alvk_command_id command,
                                   uint64_t timeout_ns, alvk_status *result)
{
    uint64_t deadline = aip_monotonic_ns() + timeout_ns;
    alvk_status status;
    aip_mutex_lock(&st->lock);
    for (;;) {
        const aip_command_record *r = command_record(st, command);
        if (r == NULL) {
            status = ALVK_E_UNKNOWN_COMMAND;
            break;
        }
        if (r->done) {
            *result = r->status;
            status = ALVK_OK;
            break;
        }
        if (aip_cond_wait_until(&st->changed, &st->lock, deadline) != 0) {
            r = command_record(st, command);
            if (r == NULL || !r->done) {
                status = r == NULL ? ALVK_E_UNKNOWN_COMMAND : ALVK_E_TIMEOUT;
                break;
            }
        }
    }
    aip_mutex_unlock(&st->lock);
    return status;
}

void aip_rejit_discard_command(aip_rejit_state *st, uint32_t index, alvk_command_id command,
                               alvk_generation_id generation, uint64_t added_owner,
                               uint64_t queued_ns)
{
    if (generation != 0)
        aip_rejit_generation_rejected(st, index, generation, ALVK_E_WORKER_UNAVAILABLE, 0, 0);
    aip_mutex_lock(&st->lock);
    aip_patch *p = aip_patch_at(st, index);
    int at = added_owner != 0 ? aip_patch_find_owner(p, added_owner) : -1;
    if (at >= 0)
        aip_patch_drop_owner(p, at);
    alvk_patch_state state = p->state == ALVK_PATCH_PENDING && p->telemetry.commands_completed == 0
                                 ? ALVK_PATCH_REJECTED
                                 : p->state;
    aip_mutex_unlock(&st->lock);
    aip_rejit_finish_command(st, index, command, state, ALVK_E_WORKER_UNAVAILABLE, queued_ns);
}

/* finish_command's work, lock held. */
static void finish_locked(aip_rejit_state *st, uint32_t index, alvk_command_id command,
                          alvk_patch_state state, alvk_status status, uint64_t queued_ns)
{
    aip_patch *p = aip_patch_at(st, index);
    end_command(st, command, status);
    if (!aip_patch_state_is_terminal(p->state)) {
        if (aip_patch_state_is_terminal(state)) {
            aip_rejit_patch_ended(st, index);
            aip_prepared_release(p->good);
            p->good = NULL;
            aip_patch_set_rollback_due(st, p, 0);
            aip_patch_drop_all_owners(p);
        }
        p->state = state;
    }
    p->last_status = status;
    p->telemetry.commands_completed++;
    p->telemetry.command_elapsed_ns = aip_monotonic_ns() - queued_ns;
    if (p->pending > 0)
        p->pending--;
    aip_cond_broadcast(&st->changed);
}

void aip_rejit_finish_command(aip_rejit_state *st, uint32_t index, alvk_command_id command,
                              alvk_patch_state state, alvk_status status, uint64_t queued_ns)
{
    aip_mutex_lock(&st->lock);
    finish_locked(st, index, command, state, status, queued_ns);
    aip_mutex_unlock(&st->lock);
}

aip_prepared_rejit *aip_rejit_publish(aip_rejit_state *st, uint32_t index,
                                      aip_prepared_rejit *prepared)
{
    aip_mutex_lock(&st->lock);
    aip_patch *p = aip_patch_at(st, index);
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
    aip_patch_at(st, index)->module_id = module_id;
    aip_patch_at(st, index)->telemetry.module_epoch = module_epoch;
    aip_mutex_unlock(&st->lock);
}

static void set_dispatch_locked(aip_patch *p, uint32_t calli_token, int32_t metadata_hresult,
                                uint64_t replacement)
{
    p->telemetry.calli_signature_token = calli_token;
    p->telemetry.metadata_hresult = metadata_hresult;
    p->telemetry.replacement = replacement;
}

void aip_rejit_set_dispatch(aip_rejit_state *st, uint32_t index, uint32_t calli_token,
                            int32_t metadata_hresult, uint64_t replacement)
{
    aip_mutex_lock(&st->lock);
    set_dispatch_locked(aip_patch_at(st, index), calli_token, metadata_hresult, replacement);
    aip_mutex_unlock(&st->lock);
}

void aip_rejit_applied_dispatch(aip_rejit_applied *a, const aip_patch *p,
                                const aip_dispatch_facts *facts)
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

void aip_rejit_applied_owner(aip_rejit_applied *a, const aip_owner_decision *d, int granted,
                             int finish)
{
    const aip_owner_result *r = aip_owner_result_of(d, granted);
    a->owner_body = r->body_owner;
    a->drop_owner = r->drop_owner;
    a->decided_close = d->closes;
    if (finish) {
        a->finish = 1;
        a->state = r->state;
        a->status = r->status;
    }
}

void aip_rejit_commit(aip_rejit_state *st, uint32_t index, aip_rejit_applied *a)
{
    aip_mutex_lock(&st->lock);
    aip_patch *p = aip_patch_at(st, index);
    if (a->requested) {
        /* Marked requested before the runtime was asked (aip_rejit_mark_requested). */
        p->telemetry.request_hresult = a->request_hresult;
        aip_prepared_release(a->replaced);
    }
    if (a->owner_body != 0)
        aip_patch_set_owner_body(p, a->owner_body, a->owner_replacement);
    int leaving = a->drop_owner != 0 ? aip_patch_find_owner(p, a->drop_owner) : -1;
    if (leaving >= 0)
        aip_patch_drop_owner(p, leaving);
    if (a->decided_close)
        p->closing = 0;
    if (a->dispatch) {
        set_dispatch_locked(p, a->calli_token, a->metadata_hresult, a->replacement);
        p->telemetry.dispatch_path = a->dispatch_path;
        p->telemetry.dispatch_fallback = a->dispatch_fallback;
        p->telemetry.call_token = a->call_token;
    }
    aip_prepared_rejit *dropped = NULL;
    if (a->finish && !aip_patch_state_is_terminal(p->state) &&
        aip_patch_state_is_terminal(a->state) && a->state != ALVK_PATCH_REMOVED) {
        dropped = p->prepared; /* failed or rejected: nothing of it runs any more */
        p->prepared = NULL;
    }
    if (a->finish)
        finish_locked(st, index, a->command, a->state, a->status, a->queued_ns);
    aip_mutex_unlock(&st->lock);
    aip_prepared_release(dropped);
    memset(a, 0, sizeof *a); /* the reference to `replaced` is taken */
}

void aip_rejit_copy(aip_rejit_state *st, uint32_t index, aip_patch *copy)
{
    aip_mutex_lock(&st->lock);
    *copy = *aip_patch_at(st, index);
    aip_mutex_unlock(&st->lock);
}

alvk_status aip_rejit_lookup(aip_rejit_state *st, alvk_patch_handle handle, aip_patch *copy)
{
    aip_mutex_lock(&st->lock);
    aip_patch *p = aip_patch_from_handle(st, handle, NULL);
    if (p != NULL)
        *copy = *p;
    aip_mutex_unlock(&st->lock);
    return p != NULL ? ALVK_OK : ALVK_E_UNKNOWN_PATCH;
}

alvk_status aip_rejit_wait(aip_rejit_state *st, alvk_patch_handle handle, uint64_t timeout_ns)
{
    uint64_t deadline = aip_monotonic_ns() + timeout_ns;
    alvk_status status;
    aip_mutex_lock(&st->lock);
    for (;;) {
        aip_patch *p = aip_patch_from_handle(st, handle, NULL);
        if (p == NULL) {
            status = ALVK_E_UNKNOWN_PATCH;
            break;
        }
        if (p->pending == 0) {
            status = p->last_status;
            break;
        }
        if (aip_cond_wait_until(&st->changed, &st->lock, deadline) != 0 && p->pending != 0) {
            status = ALVK_E_TIMEOUT;
            break;
        }
    }
    aip_mutex_unlock(&st->lock);
    return status;
}
