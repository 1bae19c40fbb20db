/* The worker's command runner: prepare all, publish all or none, commit each. */
#include "rejit/apply_batch.h"

#include "rejit/batch_abort.h"
#include "rejit/rejit_owners.h"
#include "rejit/rejit_state.h"

#include <stdlib.h>
#include <string.h>

/* One entry of the batch as the worker takes it. */
typedef struct batch_work {
    aip_batch_entry e;
    aip_patch before;
    aip_batch_step s;
} batch_work;

/* The command each patch finishes with: a batch of one ends its command with its patch. */
static alvk_command_id patch_command(uint32_t count, alvk_command_id command)
{
    return count == 1 ? command : 0;
}

/* Every entry prepared (nothing published) until the first refusal; statuses[i] each one's
 * own result (ALVK_OK for those never prepared). */
static void prepare_all(const aip_apply_env *env, const aip_batch_kind *kind, const void *batch,
                        batch_work *w, alvk_status *statuses, uint32_t count)
{
    alvk_status first = ALVK_OK;
    const aip_held_publish *flags = NULL; /* the first body's: one request, one flag */
    for (uint32_t i = 0; i < count && first == ALVK_OK; ++i) {
        batch_work *x = &w[i];
        statuses[i] = kind->ends_commands && aip_patch_state_is_terminal(x->before.state)
                          ? ALVK_E_PATCH_ENDED
                          : kind->prepare(env, batch, i, &x->before, &x->s);
        x->s.held.index = x->e.index;
        if (x->s.due && flags == NULL)
            flags = &x->s.held;
        /* (accept_batch checked; a join keeps its patch's, which cannot change while it
         * lives) */
        if (statuses[i] == ALVK_OK && x->s.due &&
            ((x->s.held.flags ^ flags->flags) & ALVK_INSTALL_INLINER_FALLBACK) != 0)
            statuses[i] = ALVK_E_INVALID_FLAGS;
        first = statuses[i];
    }
}

/* Every entry's body that is due published and every target requested at once
 * (aip_apply_publish): each such entry's `granted` says how it went, a granted one's commit
 * gets the request's HRESULT and the snapshot its body replaced. Returns the HRESULT (S_OK
 * when nothing was due). `held` and `marks` have room for every entry. */
static HRESULT publish_due(const aip_apply_env *env, batch_work *w, uint32_t count,
                           aip_held_publish *held, aip_request_mark *marks)
{
    uint32_t n = 0;
    uint64_t queued_ns = 0;
    for (uint32_t i = 0; i < count; ++i)
        if (w[i].s.due) {
            queued_ns = n == 0 ? w[i].e.queued_ns : queued_ns;
            held[n++] = w[i].s.held;
        }
    if (n == 0)
        return S_OK;
    HRESULT hr = aip_apply_publish(env, held, marks, n, queued_ns);
    n = 0;
    for (uint32_t i = 0; i < count; ++i) {
        aip_batch_step *s = &w[i].s;
        if (!s->due)
            continue;
        s->due = 0;
        s->held.prepared = NULL; /* taken */
        s->granted = SUCCEEDED(hr);
        if (s->granted) {
            s->a.requested = 1;
            s->a.request_hresult = hr;
            s->a.replaced = held[n].replaced;
        }
        n++;
    }
    return hr;
}

/* What an entry refused (on its own, or by the batch's abort) leaves: its body never
 * published, its generation's record saying why, nothing of its telemetry. */
static void refused(const aip_apply_env *env, batch_work *x, alvk_status status)
{
    static const aip_refusal no_refusal;
    if (x->s.due)
        aip_prepared_release(x->s.held.prepared);
    x->s.due = 0;
    x->s.held.prepared = NULL;
    x->s.granted = 0;
    memset(&x->s.a, 0, sizeof x->s.a);
    if (x->e.generation != 0)
        aip_apply_record_refusal(env, x->e.index, x->e.generation, status,
                                 status == ALVK_E_BATCH_ABORTED ? &no_refusal : &x->s.why);
}

/* The owner change of every entry not decided at prepare, decided now that its status is
 * known; a restore it calls for (the original, for a failed join nobody else holds) due. */
static void decide_all(const aip_apply_env *env, batch_work *w, const alvk_status *statuses,
                       uint32_t count)
{
    for (uint32_t i = 0; i < count; ++i) {
        batch_work *x = &w[i];
        if (x->s.decided)
            continue;
        aip_patch now;
        aip_rejit_decide_end(env->rejit, x->e.index, x->before.state, &x->e.owner, statuses[i],
                             &x->s.d, &now);
        x->s.decided = 1;
        if (x->s.d.publish) {
            aip_held_publish h = {NULL,       0,   now.module_id, now.token, now.telemetry.flags,
                                  x->e.index, NULL};
            x->s.held = h;
            x->s.due = 1;
        }
    }
}

/* Entry x's decision, on the side its publish went, committed with everything it learned in
 * one transition (the command's end too, unless the kind ends none). */
static void commit(const aip_apply_env *env, const aip_batch_kind *kind, batch_work *x,
                   alvk_command_id command)
{
    aip_rejit_applied *a = &x->s.a;
    aip_rejit_applied_owner(a, &x->s.d, x->s.granted, kind->ends_commands);
    if (kind->ends_commands) {
        a->command = command;
        a->queued_ns = x->e.queued_ns;
    }
    aip_rejit_commit(env->rejit, x->e.index, a);
}

alvk_status aip_batch_run(const aip_apply_env *env, const aip_batch_kind *kind, const void *batch,
                          uint32_t count, alvk_command_id command)
{
    batch_work *w = calloc(count, sizeof *w);
    aip_held_publish *held = calloc(count, sizeof *held);
    aip_request_mark *marks = calloc(count, sizeof *marks);
    alvk_status *statuses = calloc(count, sizeof *statuses);
    alvk_status first = ALVK_E_INTERNAL;
    if (w == NULL || held == NULL || marks == NULL || statuses == NULL) {
        /* Out of memory before anything ran: every entry refused with ALVK_E_INTERNAL, one
         * at a time. */
        const alvk_status no_memory = ALVK_E_INTERNAL;
        for (uint32_t i = 0; i < count; ++i) {
            batch_work x;
            aip_held_publish h;
            aip_request_mark m;
            memset(&x, 0, sizeof x);
            kind->entry(batch, i, &x.e);
            aip_rejit_copy(env->rejit, x.e.index, &x.before);
            refused(env, &x, no_memory);
            decide_all(env, &x, &no_memory, 1);
            publish_due(env, &x, 1, &h, &m);
            commit(env, kind, &x, patch_command(count, command));
        }
    } else {
        for (uint32_t i = 0; i < count; ++i) {
            kind->entry(batch, i, &w[i].e);
            aip_rejit_copy(env->rejit, w[i].e.index, &w[i].before);
            w[i].s.granted = 1;
        }
        prepare_all(env, kind, batch, w, statuses, count);
        first = aip_batch_abort(statuses, count);
        if (first == ALVK_OK && FAILED(publish_due(env, w, count, held, marks))) {
            for (uint32_t i = 0; i < count; ++i)
                statuses[i] = ALVK_E_REJIT_FAILED;
            first = aip_batch_abort(statuses, count);
        }
        for (uint32_t i = 0; i < count; ++i)
            if (statuses[i] != ALVK_OK || !w[i].s.granted)
                refused(env, &w[i], statuses[i]);
        decide_all(env, w, statuses, count);
        publish_due(env, w, count, held, marks); /* the restores decided */
        for (uint32_t i = 0; i < count; ++i)
            commit(env, kind, &w[i], patch_command(count, command));
    }
    if (kind->ends_commands && patch_command(count, command) == 0)
        aip_rejit_end_command(env->rejit, command, first);
    free(statuses);
    free(marks);
    free(held);
    free(w);
    return first;
}

void aip_batch_discard(const aip_apply_env *env, const aip_batch_kind *kind, const void *batch,
                       uint32_t count, alvk_command_id command)
{
    for (uint32_t i = 0; i < count; ++i) {
        aip_batch_entry e;
        kind->entry(batch, i, &e);
        aip_rejit_discard_command(env->rejit, e.index, patch_command(count, command), e.generation,
                                  e.owner.added ? e.owner.owner : 0, e.queued_ns);
    }
    if (patch_command(count, command) == 0)
        aip_rejit_end_command(env->rejit, command, ALVK_E_WORKER_UNAVAILABLE);
}
