/* The worker's side of a batch: prepare all, then publish and request all, or none. */
#include "rejit/apply_batch.h"

#include "rejit/rejit_callbacks.h"
#include "rejit/rejit_generations.h"
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

/* One install of the batch as the worker takes it. */
typedef struct batch_install {
    aip_patch before;
    aip_refusal why;
    aip_rejit_applied a;
    aip_held_publish held;
    alvk_status status;
    int published;
} batch_install;

/* The targets (module, method) one request names, grown as needed. */
typedef struct request_list {
    ModuleID *modules;
    mdMethodDef *methods;
    uint32_t count, capacity;
} request_list;

static int request_add(request_list *r, ModuleID module, mdMethodDef method)
{
    if (r->count == r->capacity) {
        uint32_t grown = r->capacity == 0 ? 64 : r->capacity * 2;
        ModuleID *modules = realloc(r->modules, grown * sizeof *modules);
        if (modules != NULL)
            r->modules = modules;
        mdMethodDef *methods =
            modules != NULL ? realloc(r->methods, grown * sizeof *methods) : NULL;
        if (methods == NULL)
            return -1;
        r->methods = methods;
        r->capacity = grown;
    }
    r->modules[r->count] = module;
    r->methods[r->count++] = method;
    return 0;
}

/* The request of every target of the batch (one flag for all: aip_rejit_accept_batch): with
 * inliners, RequestReJITWithInliners; on the fallback, RequestReJIT with the callers the
 * profiler saw inline each target. */
static HRESULT request_all(const aip_apply_env *env, const batch_install *w, uint32_t count,
                           aip_method_key *callers)
{
    request_list r = {NULL, NULL, 0, 0};
    HRESULT hr = S_OK;
    int fallback = count > 0 && (w[0].held.flags & ALVK_INSTALL_INLINER_FALLBACK) != 0;
    for (uint32_t i = 0; i < count && hr == S_OK; ++i) {
        const aip_held_publish *h = &w[i].held;
        if (request_add(&r, h->module_id, h->token) != 0) {
            hr = E_OUTOFMEMORY;
            break;
        }
        aip_method_key callee = {h->module_id, h->token};
        uint32_t n = fallback ? aip_inliner_map_callers(env->inliners, callee, callers,
                                                        AIP_MAX_INLINERS_PER_REQUEST)
                              : 0;
        for (uint32_t k = 0; k < n && k < AIP_MAX_INLINERS_PER_REQUEST; ++k)
            if (request_add(&r, callers[k].module_id, callers[k].token) != 0)
                hr = E_OUTOFMEMORY;
    }
    if (hr == S_OK && r.count > 0) {
        ICorProfilerInfo15 *info = env->info;
        hr = fallback ? info->lpVtbl->RequestReJIT(info, r.count, r.modules, r.methods)
                      : info->lpVtbl->RequestReJITWithInliners(info, AIP_REJIT_INLINER_FLAGS,
                                                               r.count, r.modules, r.methods);
    }
    free(r.modules);
    free(r.methods);
    return hr;
}

/* Every body published and every generation made current (requested) under one lock, then
 * all targets requested at once. When the runtime refuses the request, every entry gets
 * its previous body and generation back and ALVK_E_REJIT_FAILED. */
static void publish_all(const aip_apply_env *env, batch_install *w, aip_request_mark *marks,
                        const aip_batch_entry *e, uint32_t count, uint64_t queued_ns)
{
    for (uint32_t i = 0; i < count; ++i) {
        w[i].a.replaced = aip_rejit_publish(env->rejit, e[i].index, w[i].held.prepared);
        w[i].held.prepared = NULL; /* published: the table holds it */
        marks[i].index = e[i].index;
        marks[i].id = w[i].held.id;
    }
    aip_rejit_mark_requested(env->rejit, marks, count, queued_ns);
    /* The fallback's callers, read once per target (the scratch is the worker's). */
    HRESULT hr = request_all(env, w, count, env->scratch->request_callers);
    if (FAILED(hr))
        aip_rejit_unmark_requested(env->rejit, marks, count, hr);
    for (uint32_t i = 0; i < count; ++i) {
        batch_install *x = &w[i];
        if (FAILED(hr)) {
            aip_prepared_release(aip_rejit_publish(env->rejit, e[i].index, x->a.replaced));
            memset(&x->a, 0, sizeof x->a);
            x->status = ALVK_E_REJIT_FAILED;
            continue;
        }
        x->a.requested = 1;
        x->a.request_hresult = hr;
        x->published = 1;
    }
}

/* Out of memory before anything ran: every entry refused with ALVK_E_INTERNAL. */
static void refuse_all(const aip_apply_env *env, const aip_batch_kind *kind, const void *batch,
                       uint32_t count)
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
        aip_apply_finish(env, e.index, 0, &before, ALVK_E_INTERNAL, e.added_owner, e.queued_ns,
                         &none);
    }
}

alvk_status aip_batch_run(const aip_apply_env *env, const aip_batch_kind *kind, const void *batch,
                          uint32_t count, alvk_command_id command)
{
    batch_install *w = calloc(count, sizeof *w);
    aip_request_mark *marks = calloc(count, sizeof *marks);
    aip_batch_entry *e = calloc(count, sizeof *e);
    if (w == NULL || marks == NULL || e == NULL) {
        refuse_all(env, kind, batch, count);
        aip_apply_rollbacks_once(env);
        aip_rejit_end_command(env->rejit, command, ALVK_E_INTERNAL);
        free(w);
        free(marks);
        free(e);
        return ALVK_E_INTERNAL;
    }
    alvk_status first = ALVK_OK;
    for (uint32_t i = 0; i < count; ++i) {
        kind->entry(batch, i, &e[i]);
        aip_rejit_copy(env->rejit, e[i].index, &w[i].before);
    }
    uint64_t queued_ns = count > 0 ? e[0].queued_ns : aip_monotonic_ns();
    /* Every entry prepared (nothing published) until the first refusal. */
    for (uint32_t i = 0; i < count && first == ALVK_OK; ++i) {
        batch_install *x = &w[i];
        x->status = aip_patch_state_is_terminal(x->before.state)
                        ? ALVK_E_PATCH_ENDED
                        : kind->prepare(env, batch, i, &x->before, &x->why, &x->a, &x->held);
        /* One request for the batch, so one flag (accept_batch checked; a join keeps its
         * patch's, which cannot change while it lives). */
        if (x->status == ALVK_OK &&
            ((x->held.flags ^ w[0].held.flags) & ALVK_INSTALL_INLINER_FALLBACK) != 0)
            x->status = ALVK_E_INVALID_FLAGS;
        if (x->status != ALVK_OK)
            first = x->status;
    }
    if (first == ALVK_OK)
        publish_all(env, w, marks, e, count, queued_ns);
    for (uint32_t i = 0; i < count; ++i) {
        batch_install *x = &w[i];
        if (!x->published) {
            /* Refused: this entry's own failure (or its request's), else the batch's.
             * Nothing of it runs. */
            static const aip_refusal no_refusal;
            alvk_status status = x->status != ALVK_OK ? x->status : ALVK_E_BATCH_ABORTED;
            aip_prepared_release(x->held.prepared);
            memset(&x->a, 0, sizeof x->a);
            aip_apply_record_refusal(env, e[i].index, e[i].generation, status,
                                     status == x->status ? &x->why : &no_refusal);
            if (first == ALVK_OK)
                first = status;
            x->status = status;
        }
        aip_apply_finish(env, e[i].index, 0, &x->before, x->status, e[i].added_owner,
                         e[i].queued_ns, &x->a);
    }
    aip_apply_rollbacks_once(env); /* any rollback whose own command was refused */
    aip_rejit_end_command(env->rejit, command, first);
    free(e);
    free(marks);
    free(w);
    return first;
}

void aip_batch_discard(const aip_apply_env *env, const aip_batch_kind *kind, const void *batch,
                       uint32_t count, alvk_command_id command)
{
    for (uint32_t i = 0; i < count; ++i) {
        aip_batch_entry e;
        kind->entry(batch, i, &e);
        aip_rejit_discard_command(env->rejit, e.index, 0, e.generation, e.added_owner, e.queued_ns);
    }
    aip_rejit_end_command(env->rejit, command, ALVK_E_WORKER_UNAVAILABLE);
}

/* ---- Installs ------------------------------------------------------------------------------ */

static void install_entry(const void *batch, uint32_t i, aip_batch_entry *out)
{
    const aip_patch_command *c = &((const aip_patch_batch *)batch)->entries[i];
    out->index = c->index;
    out->generation = c->generation;
    out->added_owner = c->added_owner ? c->owner : 0;
    out->queued_ns = c->queued_ns;
}

static alvk_status install_prepare(const aip_apply_env *env, const void *batch, uint32_t i,
                                   const aip_patch *before, aip_refusal *why, aip_rejit_applied *a,
                                   aip_held_publish *held)
{
    const aip_patch_command *c = &((const aip_patch_batch *)batch)->entries[i];
    return aip_apply_install_held(env, c, before, why, a, held);
}

static const aip_batch_kind installs = {install_entry, install_prepare};

alvk_status aip_apply_batch(void *payload, void *context)
{
    aip_patch_batch *b = *(aip_patch_batch **)payload;
    alvk_status status = aip_batch_run(context, &installs, b, b->count, b->command);
    free(b);
    return status;
}

void aip_discard_batch(void *payload, void *context)
{
    aip_patch_batch *b = *(aip_patch_batch **)payload;
    aip_batch_discard(context, &installs, b, b->count, b->command);
    free(b);
}
