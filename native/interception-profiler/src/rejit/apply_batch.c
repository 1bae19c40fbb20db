/* The worker's command runner: prepare all, then publish and request all, or none. */
#include "rejit/apply_batch.h"

#include "rejit/batch_abort.h"
#include "rejit/rejit_state.h"

#include <stdlib.h>
#include <string.h>

aip_patch_batch *aip_patch_batch_create(uint32_t count)
{
    aip_patch_batch *b = malloc(sizeof *b + (size_t)count * sizeof b->entries[0]);
    if (b != NULL) {
        memset(b, 0, sizeof *b);
        b->count = count;
    }
    return b;
}

/* One entry of the batch as the worker takes it. */
typedef struct batch_install {
    aip_batch_entry e;
    aip_patch before;
    aip_refusal why;
    aip_rejit_applied a;
    int published;
} batch_install;

/* The command each patch finishes with: a batch of one ends its command with its patch. */
static alvk_command_id patch_command(uint32_t count, alvk_command_id command)
{
    return count == 1 ? command : 0;
}

/* Out of memory before anything ran: every entry refused with ALVK_E_INTERNAL. */
static void refuse_all(const aip_apply_env *env, const aip_batch_kind *kind, const void *batch,
                       uint32_t count, alvk_command_id command)
{
    static const aip_refusal no_memory;
    for (uint32_t i = 0; i < count; ++i) {
        aip_batch_entry e;
        kind->entry(batch, i, &e);
        aip_patch before;
        aip_rejit_copy(env->rejit, e.index, &before);
        aip_rejit_applied none;
        memset(&none, 0, sizeof none);
        aip_apply_record_refusal(env, e.index, e.generation, ALVK_E_INTERNAL, &no_memory);
        aip_apply_finish(env, e.index, patch_command(count, command), &before, ALVK_E_INTERNAL,
                         e.added_owner, e.queued_ns, &none);
    }
}

/* Every entry prepared (nothing published) until the first refusal; statuses[i] each one's
 * own result (ALVK_OK for those never prepared). */
static void prepare_all(const aip_apply_env *env, const aip_batch_kind *kind, const void *batch,
                        batch_install *w, aip_held_publish *held, alvk_status *statuses,
                        uint32_t count)
{
    alvk_status first = ALVK_OK;
    for (uint32_t i = 0; i < count && first == ALVK_OK; ++i) {
        batch_install *x = &w[i];
        statuses[i] = aip_patch_state_is_terminal(x->before.state)
                          ? ALVK_E_PATCH_ENDED
                          : kind->prepare(env, batch, i, &x->before, &x->why, &x->a, &held[i]);
        held[i].index = x->e.index;
        /* One request for the batch, so one flag (accept_batch checked; a join keeps its
         * patch's, which cannot change while it lives). */
        if (statuses[i] == ALVK_OK &&
            ((held[i].flags ^ held[0].flags) & ALVK_INSTALL_INLINER_FALLBACK) != 0)
            statuses[i] = ALVK_E_INVALID_FLAGS;
        first = statuses[i];
    }
}

/* Every prepared body published and every target requested at once; a refused request
 * leaves every entry ALVK_E_REJIT_FAILED, its previous body back. */
static void publish_all(const aip_apply_env *env, batch_install *w, aip_held_publish *held,
                        aip_request_mark *marks, alvk_status *statuses, uint32_t count)
{
    HRESULT hr = aip_apply_publish(env, held, marks, count, count > 0 ? w[0].e.queued_ns : 0);
    for (uint32_t i = 0; i < count; ++i) {
        batch_install *x = &w[i];
        if (FAILED(hr)) {
            statuses[i] = ALVK_E_REJIT_FAILED;
            continue;
        }
        x->a.requested = 1;
        x->a.request_hresult = hr;
        x->a.replaced = held[i].replaced;
        x->published = 1;
    }
}

alvk_status aip_batch_run(const aip_apply_env *env, const aip_batch_kind *kind, const void *batch,
                          uint32_t count, alvk_command_id command)
{
    batch_install *w = calloc(count, sizeof *w);
    aip_held_publish *held = calloc(count, sizeof *held);
    aip_request_mark *marks = calloc(count, sizeof *marks);
    alvk_status *statuses = calloc(count, sizeof *statuses);
    alvk_status first = ALVK_E_INTERNAL;
    if (w == NULL || held == NULL || marks == NULL || statuses == NULL) {
        refuse_all(env, kind, batch, count, command);
    } else {
        for (uint32_t i = 0; i < count; ++i) {
            kind->entry(batch, i, &w[i].e);
            aip_rejit_copy(env->rejit, w[i].e.index, &w[i].before);
        }
        prepare_all(env, kind, batch, w, held, statuses, count);
        first = aip_batch_abort(statuses, count);
        if (first == ALVK_OK) {
            publish_all(env, w, held, marks, statuses, count);
            first = aip_batch_abort(statuses, count); /* ALVK_E_REJIT_FAILED, or ALVK_OK */
        }
        for (uint32_t i = 0; i < count; ++i) {
            batch_install *x = &w[i];
            if (!x->published) {
                /* Refused: its own refusal, or none when the batch's (aborted). Nothing of it
                 * runs. */
                static const aip_refusal no_refusal;
                aip_prepared_release(held[i].prepared);
                memset(&x->a, 0, sizeof x->a);
                aip_apply_record_refusal(env, x->e.index, x->e.generation, statuses[i],
                                         statuses[i] == ALVK_E_BATCH_ABORTED ? &no_refusal
                                                                             : &x->why);
            }
            aip_apply_finish(env, x->e.index, patch_command(count, command), &x->before,
                             statuses[i], x->e.added_owner, x->e.queued_ns, &x->a);
        }
    }
    aip_apply_rollbacks_once(env); /* any rollback whose own command was refused */
    if (patch_command(count, command) == 0)
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
                                  e.added_owner, e.queued_ns);
    }
    if (patch_command(count, command) == 0)
        aip_rejit_end_command(env->rejit, command, ALVK_E_WORKER_UNAVAILABLE);
}

/* ---- Installs and replaces ----------------------------------------------------------------- */

/* `batch` is the commands' array (a batch's entries, or a single command). */
static void install_entry(const void *batch, uint32_t i, aip_batch_entry *out)
{
    const aip_patch_command *c = &((const aip_patch_command *)batch)[i];
    out->index = c->index;
    out->generation = c->generation;
    out->added_owner = c->added_owner ? c->owner : 0;
    out->queued_ns = c->queued_ns;
}

static alvk_status install_prepare(const aip_apply_env *env, const void *batch, uint32_t i,
                                   const aip_patch *before, aip_refusal *why, aip_rejit_applied *a,
                                   aip_held_publish *held)
{
    const aip_patch_command *c = &((const aip_patch_command *)batch)[i];
    return aip_apply_install_held(env, c, before, why, a, held);
}

static const aip_batch_kind installs = {install_entry, install_prepare};

alvk_status aip_apply_batch(void *payload, void *context)
{
    aip_patch_batch *b = *(aip_patch_batch **)payload;
    alvk_status status = aip_batch_run(context, &installs, b->entries, b->count, b->command);
    free(b);
    return status;
}

void aip_discard_batch(void *payload, void *context)
{
    aip_patch_batch *b = *(aip_patch_batch **)payload;
    aip_batch_discard(context, &installs, b->entries, b->count, b->command);
    free(b);
}

alvk_status aip_apply_patch_command(void *payload, void *context)
{
    const aip_patch_command *c = payload;
    return c->kind == AIP_PATCH_REMOVE ? aip_apply_remove(context, c)
                                       : aip_batch_run(context, &installs, c, 1, c->command);
}

void aip_discard_patch_command(void *payload, void *context)
{
    const aip_patch_command *c = payload;
    aip_batch_discard(context, &installs, c, 1, c->command);
}
