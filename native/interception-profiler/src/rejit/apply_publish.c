/* The one publish sequence: publish, mark requested, request, or undo all of it. */
#include "rejit/apply_publish.h"

#include "rejit/apply_redirects.h"
#include "rejit/rejit_callbacks.h"
#include "rejit/rejit_events.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* The scratch the calling thread may use (set once, on the worker). */
static _Thread_local const aip_apply_scratch *t_claimed;

void aip_apply_scratch_claim(aip_apply_scratch *scratch)
{
    t_claimed = scratch;
}

aip_apply_scratch *aip_apply_scratch_of(const aip_apply_env *env)
{
    assert(t_claimed == env->scratch && "apply scratch touched off the worker thread");
    return env->scratch;
}

/* The targets (module, method) one request names: the scratch's arrays while they fit,
 * grown on the heap past them. */
typedef struct request_list {
    ModuleID *modules;
    mdMethodDef *methods;
    uint32_t count, capacity;
    int heap;
} request_list;

static int request_add(request_list *r, ModuleID module, mdMethodDef method)
{
    if (r->count == r->capacity) {
        uint32_t grown = r->capacity * 2;
        ModuleID *modules = malloc(grown * sizeof *modules);
        mdMethodDef *methods = malloc(grown * sizeof *methods);
        if (modules == NULL || methods == NULL) {
            free(modules);
            free(methods);
            return -1;
        }
        memcpy(modules, r->modules, r->count * sizeof *modules);
        memcpy(methods, r->methods, r->count * sizeof *methods);
        if (r->heap) {
            free(r->modules);
            free(r->methods);
        }
        r->modules = modules;
        r->methods = methods;
        r->capacity = grown;
        r->heap = 1;
    }
    r->modules[r->count] = module;
    r->methods[r->count++] = method;
    return 0;
}

static int request_has(const request_list *r, ModuleID module, mdMethodDef method)
{
    for (uint32_t i = 0; i < r->count; ++i)
        if (r->modules[i] == module && r->methods[i] == method)
            return 1;
    return 0;
}

/* The request of every target (one flag for all): with inliners, RequestReJITWithInliners;
 * on the fallback, RequestReJIT with the callers the profiler saw inline each target. Either
 * way with every caller whose redirected body changed (`touched`), by name. */
static HRESULT request_all(const aip_apply_env *env, const aip_held_publish *held, uint32_t count,
                           const aip_redirect_touched *touched)
{
    aip_apply_scratch *x = aip_apply_scratch_of(env);
    request_list r = {x->request_modules, x->request_methods, 0, AIP_MAX_INLINERS_PER_REQUEST + 1,
                      0};
    HRESULT hr = S_OK;
    int fallback = count > 0 && (held[0].flags & ALVK_INSTALL_INLINER_FALLBACK) != 0;
    for (uint32_t i = 0; i < count && hr == S_OK; ++i) {
        if (request_add(&r, held[i].module_id, held[i].token) != 0) {
            hr = E_OUTOFMEMORY;
            break;
        }
        aip_method_key callee = {held[i].module_id, held[i].token};
        uint32_t n = fallback ? aip_inliner_map_callers(env->inliners, callee, x->request_callers,
                                                        AIP_MAX_INLINERS_PER_REQUEST)
                              : 0;
        for (uint32_t k = 0; k < n && k < AIP_MAX_INLINERS_PER_REQUEST; ++k)
            if (request_add(&r, x->request_callers[k].module_id, x->request_callers[k].token) != 0)
                hr = E_OUTOFMEMORY;
    }
    for (uint32_t k = 0; k < touched->count && hr == S_OK; ++k)
        if (!request_has(&r, touched->keys[k].module_id, touched->keys[k].token) &&
            request_add(&r, touched->keys[k].module_id, touched->keys[k].token) != 0)
            hr = E_OUTOFMEMORY;
    if (hr == S_OK && r.count > 0) {
        ICorProfilerInfo15 *info = env->info;
        hr = fallback ? info->lpVtbl->RequestReJIT(info, r.count, r.modules, r.methods)
                      : info->lpVtbl->RequestReJITWithInliners(info, AIP_REJIT_INLINER_FLAGS,
                                                               r.count, r.modules, r.methods);
    }
    if (r.heap) {
        free(r.modules);
        free(r.methods);
    }
    return hr;
}

/* The original body back in force: the target's original IL version made active again
 * (RequestRevert), after the request that re-JITs its inliners. The runtime inlines a method
 * only while its active IL version is ready and carries the original IL (CEEInfo::canInline);
 * the version the request just made for the target stays "requested" until the target's next
 * call, so an inliner compiled before that call would keep calling the target out of line.
 * The original version is ready at once, and its native code is the target's original code;
 * so it is not reverted while that code may hold an inlined copy of a method patched now
 * (aip_rejit_revert_unsafe; an incomplete inliner map counts as such): it then runs the
 * requested original IL, which calls the patched method. A refusal changes nothing that ran
 * before either. */
#define AIP_REVERT_INLINEES 64
static void revert_to_original(const aip_apply_env *env, ModuleID module, uint32_t token)
{
    aip_method_key key = {module, token}, inlined[AIP_REVERT_INLINEES];
    uint64_t counted = 0;
    uint32_t count = 0;
    if (env->inliners != NULL) { /* NULL: no inline was ever reported (a runtime-free test) */
        count =
            aip_inliner_map_inlinees(env->inliners, key, inlined, AIP_REVERT_INLINEES, &counted);
        if (count == AIP_REVERT_INLINEES || aip_inliner_map_dropped(env->inliners) != 0)
            return;
    }
    if (aip_rejit_revert_unsafe(env->rejit, module, token, inlined, count))
        return;
    ICorProfilerInfo15 *info = env->info;
    mdMethodDef method = token;
    HRESULT status = S_OK;
    (void)info->lpVtbl->RequestRevert(info, 1, &module, &method, &status);
}

HRESULT aip_apply_publish(const aip_apply_env *env, aip_held_publish *held, aip_request_mark *marks,
                          uint32_t count, uint64_t queued_ns)
{
    for (uint32_t i = 0; i < count; ++i) {
        held[i].replaced = aip_rejit_publish(env->rejit, held[i].index, held[i].prepared);
        memset(&marks[i], 0, sizeof marks[i]);
        marks[i].index = held[i].index;
        marks[i].id = held[i].id;
    }
    /* Current before the runtime is asked: what the request raises finds it; and so are the
     * bodies of the targets' known inliners, which the request re-JITs with them. */
    aip_rejit_mark_requested(env->rejit, marks, count, queued_ns);
    aip_redirect_touched touched = {.count = 0};
    aip_redirect_env redirect = {env->info,
                                 env->inliners,
                                 env->emitter,
                                 env->redirects,
                                 aip_apply_scratch_of(env)->request_callers,
                                 AIP_MAX_INLINERS_PER_REQUEST,
                                 &touched,
                                 env->carried,
                                 env->rejit};
    for (uint32_t i = 0; i < count; ++i)
        aip_apply_redirects(&redirect, held[i].module_id, held[i].token, held[i].prepared);
    HRESULT hr = request_all(env, held, count, &touched);
    if (FAILED(hr))
        aip_rejit_unmark_requested(env->rejit, marks, count, hr);
    for (uint32_t i = 0; i < count; ++i) {
        if (FAILED(hr)) {
            aip_prepared_release(aip_rejit_publish(env->rejit, held[i].index, held[i].replaced));
            /* The table holds it again: the inliners' bodies follow it back. */
            aip_apply_redirects(&redirect, held[i].module_id, held[i].token, held[i].replaced);
            held[i].replaced = NULL;
        } else if (held[i].prepared == NULL) {
            revert_to_original(env, held[i].module_id, held[i].token);
        }
        held[i].prepared = NULL; /* published: the table holds it (or held it) */
    }
    return hr;
}
