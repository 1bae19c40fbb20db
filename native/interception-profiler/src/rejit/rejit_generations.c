/* RejitState's generation chain: each patch's generations and their transitions. */
#include "rejit/rejit_generations.h"

#include "rejit/patch_slots.h"

#include <stdlib.h>
#include <string.h>

static aip_generation_entry *record_of(aip_patch *p, alvk_generation_id id)
{
    for (int i = 0; id != 0 && i < AIP_GENERATION_HISTORY; ++i)
        if (p->history[i].result.generation == id)
            return &p->history[i];
    return NULL;
}

alvk_status aip_patch_open_generation(aip_rejit_state *st, aip_patch *p, int check_prior,
                                      alvk_generation_id prior, alvk_generation_id *id)
{
    if (check_prior && prior != p->latest_generation)
        return ALVK_E_STALE_GENERATION;
    /* The next slot that holds neither the current nor the last good generation: their
     * records must outlive any number of later submissions. */
    uint32_t slot = p->history_next % AIP_GENERATION_HISTORY;
    for (int k = 0; k < AIP_GENERATION_HISTORY; ++k, slot = (slot + 1) % AIP_GENERATION_HISTORY) {
        alvk_generation_id held = p->history[slot].result.generation;
        if (held == 0 || (held != p->current_generation && held != p->good_generation))
            break;
    }
    p->history_next = slot + 1;
    aip_generation_entry *r = &p->history[slot];
    free(r->relocations);
    memset(r, 0, sizeof *r);
    r->result.size = sizeof r->result;
    r->result.generation = *id = ++st->last_generation_id;
    r->result.prior_generation = p->latest_generation;
    r->result.state = ALVK_GENERATION_PENDING;
    p->latest_generation = *id;
    return ALVK_OK;
}

alvk_status aip_rejit_begin_generation(aip_rejit_state *st, uint32_t index, int check_prior,
                                       alvk_generation_id prior, alvk_generation_id *id)
{
    aip_mutex_lock(&st->lock);
    alvk_status status =
        aip_patch_open_generation(st, aip_patch_at(st, index), check_prior, prior, id);
    aip_mutex_unlock(&st->lock);
    return status;
}

void aip_rejit_generation_rejected(aip_rejit_state *st, uint32_t index, alvk_generation_id id,
                                   alvk_status status, uint32_t failing_index,
                                   int32_t metadata_hresult)
{
    aip_mutex_lock(&st->lock);
    aip_patch *p = aip_patch_at(st, index);
    aip_generation_entry *r = record_of(p, id);
    if (r != NULL && r->result.state == ALVK_GENERATION_PENDING) {
        r->result.state = ALVK_GENERATION_REJECTED;
        r->result.status = status;
        r->result.failing_index = failing_index;
        if (metadata_hresult != 0)
            r->result.metadata_hresult = metadata_hresult;
        if (p->latest_generation == id)
            p->latest_generation = p->current_generation;
    }
    aip_mutex_unlock(&st->lock);
}

void aip_rejit_generation_type_mismatch(aip_rejit_state *st, uint32_t index, alvk_generation_id id,
                                        uint32_t offset, uint32_t found, uint32_t expected)
{
    aip_mutex_lock(&st->lock);
    aip_generation_entry *r = record_of(aip_patch_at(st, index), id);
    if (r != NULL && r->result.state == ALVK_GENERATION_PENDING) {
        r->result.type_error_offset = offset;
        r->result.type_found = found;
        r->result.type_expected = expected;
    }
    aip_mutex_unlock(&st->lock);
    aip_rejit_generation_rejected(st, index, id, ALVK_E_STACK_TYPE_MISMATCH, 0, 0);
}

void aip_rejit_generation_relocations(aip_rejit_state *st, uint32_t index, alvk_generation_id id,
                                      const alvk_relocation_result *res, uint32_t count,
                                      int32_t metadata_hresult)
{
    if (count > ALVK_MAX_RELOCATIONS)
        count = ALVK_MAX_RELOCATIONS;
    /* Allocated outside the lock; without memory the count stays and the results are lost. */
    alvk_relocation_result *copy = count > 0 ? malloc(count * sizeof *copy) : NULL;
    if (copy != NULL)
        memcpy(copy, res, count * sizeof *res);
    aip_mutex_lock(&st->lock);
    aip_generation_entry *r = record_of(aip_patch_at(st, index), id);
    if (r != NULL) {
        alvk_relocation_result *old = r->relocations;
        r->relocations = copy;
        copy = old;
        r->result.relocation_count = r->relocations != NULL ? count : 0;
        r->result.metadata_hresult = metadata_hresult;
    }
    aip_mutex_unlock(&st->lock);
    free(copy);
}

void aip_patch_generation_requested(aip_patch *p, alvk_generation_id id,
                                    aip_prepared_rejit *replaced)
{
    aip_generation_entry *old = record_of(p, p->current_generation);
    if (old != NULL && (old->result.state == ALVK_GENERATION_ACTIVE ||
                        old->result.state == ALVK_GENERATION_REQUESTED))
        old->result.state = ALVK_GENERATION_SUPERSEDED;
    aip_prepared_release(replaced);
    p->current_generation = id;
    p->rejit_floor = p->rejit_seen_max;
    aip_generation_entry *r = record_of(p, id);
    if (r != NULL)
        r->result.state = ALVK_GENERATION_REQUESTED;
}

void aip_rejit_generation_requested(aip_rejit_state *st, uint32_t index, alvk_generation_id id,
                                    aip_prepared_rejit *replaced)
{
    aip_mutex_lock(&st->lock);
    aip_patch_generation_requested(aip_patch_at(st, index), id, replaced);
    aip_mutex_unlock(&st->lock);
}

void aip_rejit_mark_requested(aip_rejit_state *st, aip_request_mark *marks, uint32_t count,
                              uint64_t queued_ns)
{
    aip_mutex_lock(&st->lock);
    uint64_t request = ++st->requests;
    for (uint32_t i = 0; i < count; ++i) {
        aip_request_mark *m = &marks[i];
        aip_patch *p = aip_patch_at(st, m->index);
        aip_generation_entry *old = record_of(p, p->current_generation);
        m->previous = p->current_generation;
        m->was = old != NULL ? old->result.state : ALVK_GENERATION_PENDING;
        m->awaiting_since = p->awaiting_compile_since;
        m->floor = p->rejit_floor;
        m->request = p->request;
        aip_patch_generation_requested(p, m->id, NULL);
        p->awaiting_compile_since = queued_ns;
        p->request = request;
        st->last_requested = (int32_t)m->index;
    }
    aip_mutex_unlock(&st->lock);
}

void aip_rejit_unmark_requested(aip_rejit_state *st, const aip_request_mark *marks, uint32_t count,
                                int32_t hresult)
{
    aip_mutex_lock(&st->lock);
    for (uint32_t i = count; i-- > 0;) {
        const aip_request_mark *m = &marks[i];
        aip_patch *p = aip_patch_at(st, m->index);
        aip_generation_entry *r = record_of(p, m->id);
        if (r != NULL && r->result.state != ALVK_GENERATION_FAILED)
            r->result.state = ALVK_GENERATION_PENDING;
        else if (r != NULL && p->latest_generation == m->id)
            p->latest_generation = m->previous; /* failed: not refused, so fall back here */
        aip_patch_set_rollback_due(st, p, 0);   /* the previous body stays in force */
        p->current_generation = m->previous;
        aip_generation_entry *old = record_of(p, m->previous);
        if (old != NULL && old->result.state == ALVK_GENERATION_SUPERSEDED)
            old->result.state = m->was;
        p->awaiting_compile_since = m->awaiting_since;
        p->rejit_floor = m->floor; /* the previous version's callbacks count again */
        p->request = m->request;   /* no inliner re-JITs with a refused request */
        p->telemetry.request_hresult = hresult;
    }
    aip_mutex_unlock(&st->lock);
}

void aip_patch_set_rollback_due(aip_rejit_state *st, aip_patch *p, int due)
{
    if (p->rollback_due && !due)
        st->rollbacks_due--;
    else if (!p->rollback_due && due)
        st->rollbacks_due++;
    p->rollback_due = due != 0;
}

/* The live patch of (module, token), or NULL. Lock held. */
static aip_patch *live_for(aip_rejit_state *st, uintptr_t module_id, uint32_t token,
                           uint32_t *index)
{
    aip_slot_cursor cursor;
    uint32_t i;
    aip_slots_find(st, module_id, token, &cursor);
    while (aip_slots_next(st, &cursor, &i)) {
        aip_patch *p = aip_patch_at(st, i);
        if (p->in_use && p->module_id == module_id && p->token == token && module_id != 0 &&
            !aip_patch_state_is_terminal(p->state)) {
            *index = i;
            return p;
        }
    }
    return NULL;
}

/* The current generation failed to compile. Lock held. No owner keeps it as its body: an
 * owner's departure must never publish a body the JIT rejected (the owner that set it has
 * none then, as if it had set nothing). */
static int fail_current(aip_rejit_state *st, aip_patch *p, int32_t hresult)
{
    aip_generation_entry *r = record_of(p, p->current_generation);
    if (r == NULL || r->result.state != ALVK_GENERATION_REQUESTED)
        return 0;
    r->result.state = ALVK_GENERATION_FAILED;
    r->result.status = ALVK_E_COMPILATION_FAILED;
    r->result.compilation_hresult = hresult;
    for (uint32_t i = 0; i < p->owner_count; ++i) {
        if (p->owner_bodies[i] != NULL && p->owner_bodies[i]->generation == p->current_generation) {
            aip_prepared_release(p->owner_bodies[i]);
            p->owner_bodies[i] = NULL;
        }
    }
    aip_patch_set_rollback_due(st, p, 1);
    aip_cond_broadcast(&st->changed);
    return 1;
}

int aip_rejit_generation_started(aip_rejit_state *st, uintptr_t module_id, uint32_t token,
                                 uint64_t rejit_id, uint32_t *index)
{
    int rollback = 0;
    aip_mutex_lock(&st->lock);
    aip_patch *p = live_for(st, module_id, token, index);
    if (p != NULL && rejit_id > p->rejit_floor) { /* else an older version's: not ours */
        if (rejit_id > p->rejit_seen_max)
            p->rejit_seen_max = rejit_id;
        if (p->started_open && p->started_rejit_id == rejit_id)
            rollback = fail_current(st, p, AIP_COMPILATION_UNREPORTED);
        p->started_open = 1;
        p->started_rejit_id = rejit_id;
    }
    aip_mutex_unlock(&st->lock);
    return rollback;
}

/* A compilation of the target's current version ended. Lock held. */
static int compiled_locked(aip_rejit_state *st, aip_patch *p, int32_t hresult)
{
    int rollback = 0;
    aip_generation_entry *r = p != NULL ? record_of(p, p->current_generation) : NULL;
    if (p != NULL)
        p->started_open = 0;
    /* Later compilations of a settled generation (tiering) change nothing. */
    if (r != NULL && r->result.state == ALVK_GENERATION_REQUESTED) {
        r->result.elapsed_ns = p->telemetry.compile_elapsed_ns;
        if (hresult >= 0) {
            r->result.compilation_hresult = hresult;
            r->result.state = ALVK_GENERATION_ACTIVE;
            if (p->prepared != NULL && p->prepared->generation == p->current_generation) {
                aip_prepared_release(p->good);
                p->good = aip_prepared_retain(p->prepared);
                p->good_generation = p->current_generation;
            }
            aip_cond_broadcast(&st->changed);
        } else {
            rollback = fail_current(st, p, hresult);
        }
    }
    return rollback;
}

int aip_rejit_generation_compiled(aip_rejit_state *st, uintptr_t module_id, uint32_t token,
                                  int32_t hresult, uint32_t *index)
{
    aip_mutex_lock(&st->lock);
    int rollback = compiled_locked(st, live_for(st, module_id, token, index), hresult);
    aip_mutex_unlock(&st->lock);
    return rollback;
}

int aip_rejit_generation_finished(aip_rejit_state *st, uintptr_t module_id, uint32_t token,
                                  uint64_t rejit_id, int32_t hresult, uint32_t *index)
{
    aip_mutex_lock(&st->lock);
    aip_patch *p = live_for(st, module_id, token, index);
    int rollback = p != NULL && rejit_id > p->rejit_floor ? compiled_locked(st, p, hresult) : 0;
    aip_mutex_unlock(&st->lock);
    return rollback;
}

void aip_rejit_generation_failure_cause(aip_rejit_state *st, uint32_t index, alvk_generation_id id,
                                        int32_t hresult, uint32_t failing_index)
{
    aip_mutex_lock(&st->lock);
    aip_generation_entry *r = record_of(aip_patch_at(st, index), id);
    if (r != NULL && r->result.state == ALVK_GENERATION_FAILED &&
        r->result.compilation_hresult == AIP_COMPILATION_UNREPORTED) {
        r->result.compilation_hresult = hresult;
        r->result.failing_index = failing_index;
    }
    aip_mutex_unlock(&st->lock);
}

int aip_rejit_take_rollback(aip_rejit_state *st, uint32_t index, aip_prepared_rejit **prepared,
                            alvk_generation_id *generation)
{
    int take = 0;
    aip_mutex_lock(&st->lock);
    aip_patch *p = aip_patch_at(st, index);
    if (p->in_use && p->rollback_due && !aip_patch_state_is_terminal(p->state)) {
        /* Publishing it makes the last good generation current again (requested). */
        aip_patch_set_rollback_due(st, p, 0);
        *prepared = aip_prepared_retain(p->good);
        *generation = p->good_generation;
        if (p->latest_generation == p->current_generation)
            p->latest_generation = p->good_generation;
        take = 1;
    }
    aip_mutex_unlock(&st->lock);
    return take;
}

int aip_rejit_next_rollback(aip_rejit_state *st, uint32_t *index)
{
    int found = 0;
    aip_mutex_lock(&st->lock);
    for (uint32_t i = 0; st->rollbacks_due > 0 && i < st->extent && !found; ++i) {
        if (aip_patch_at(st, i)->in_use && aip_patch_at(st, i)->rollback_due) {
            *index = i;
            found = 1;
        }
    }
    aip_mutex_unlock(&st->lock);
    return found;
}

void aip_rejit_generation_il_map(aip_rejit_state *st, uintptr_t module_id, uint32_t token,
                                 alvk_generation_id id, int32_t hresult)
{
    aip_mutex_lock(&st->lock);
    aip_slot_cursor cursor;
    uint32_t i;
    aip_slots_find(st, module_id, token, &cursor);
    while (aip_slots_next(st, &cursor, &i)) {
        aip_patch *p = aip_patch_at(st, i);
        aip_generation_entry *r;
        if (p->in_use && p->module_id == module_id && p->token == token &&
            (r = record_of(p, id)) != NULL)
            r->result.il_map_hresult = hresult;
    }
    aip_mutex_unlock(&st->lock);
}

/* A reader's copy of an entry. Lock held. */
static void copy_record(const aip_generation_entry *r, aip_generation_record *out)
{
    out->result = r->result;
    if (r->relocations != NULL)
        memcpy(out->relocations, r->relocations,
               r->result.relocation_count * sizeof *r->relocations);
}

/* Generation `id` of the live patch behind `handle`, or NULL with *status saying which is
 * unknown. Lock held. */
static aip_generation_entry *record_of_handle(aip_rejit_state *st, alvk_patch_handle handle,
                                              alvk_generation_id id, alvk_status *status)
{
    aip_patch *p = aip_patch_from_handle(st, handle, NULL);
    aip_generation_entry *r = p != NULL ? record_of(p, id) : NULL;
    *status = p == NULL ? ALVK_E_UNKNOWN_PATCH : r == NULL ? ALVK_E_UNKNOWN_GENERATION : ALVK_OK;
    return r;
}

alvk_status aip_rejit_generation_lookup(aip_rejit_state *st, alvk_patch_handle handle,
                                        alvk_generation_id id, aip_generation_record *out)
{
    alvk_status status;
    aip_mutex_lock(&st->lock);
    aip_generation_entry *r = record_of_handle(st, handle, id, &status);
    if (r != NULL)
        copy_record(r, out);
    aip_mutex_unlock(&st->lock);
    return status;
}

alvk_status aip_rejit_generation_result(aip_rejit_state *st, alvk_patch_handle handle,
                                        alvk_generation_id id, alvk_generation_result *out,
                                        alvk_relocation_result *relocations, uint32_t capacity)
{
    alvk_status status;
    aip_mutex_lock(&st->lock);
    aip_generation_entry *r = record_of_handle(st, handle, id, &status);
    if (r != NULL) {
        *out = r->result;
        uint32_t n = r->result.relocation_count < capacity ? r->result.relocation_count : capacity;
        if (n > 0 && r->relocations != NULL)
            memcpy(relocations, r->relocations, n * sizeof *relocations);
    }
    aip_mutex_unlock(&st->lock);
    return status;
}

int aip_rejit_unreported_failure(aip_rejit_state *st, uint32_t index, uintptr_t *module_id,
                                 aip_generation_record *out)
{
    int found = 0;
    aip_mutex_lock(&st->lock);
    aip_patch *p = aip_patch_at(st, index);
    aip_generation_entry *r = record_of(p, p->current_generation);
    if (r != NULL && p->module_id != 0 && r->result.state == ALVK_GENERATION_FAILED &&
        r->result.compilation_hresult == AIP_COMPILATION_UNREPORTED) {
        copy_record(r, out);
        *module_id = p->module_id;
        found = 1;
    }
    aip_mutex_unlock(&st->lock);
    return found;
}

void aip_patch_clear_history(aip_patch *p)
{
    for (int i = 0; i < AIP_GENERATION_HISTORY; ++i) {
        free(p->history[i].relocations);
        p->history[i].relocations = NULL;
    }
}
