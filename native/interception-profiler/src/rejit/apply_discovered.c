/* Callers found as they were compiled: routed, then re-JIT'd in one request. */
#include "rejit/apply_discovered.h"

#include "rejit/apply_publish.h"
#include "rejit/apply_redirects.h"
#include "rejit/rejit_carriers.h"
#include "rejit/rejit_events.h"

/* One caller found: routed when its target's carrier is armed, kept for a later drain while
 * the target has not compiled its body yet, dropped when the target is no longer carried. */
static void take(const aip_apply_env *env, const aip_redirect_env *redirect, aip_discovered item)
{
    int armed = 0;
    uint32_t carrier = aip_carried_lookup(env->carried, item.module_id, item.target, &armed);
    if (carrier == 0 || item.caller == item.target)
        return; /* no longer carried (removed, its module unloading) */
    if (aip_redirects_route_of(env->redirects, item.module_id, item.caller, item.target) == carrier)
        return; /* routed already: found at two of its compilations */
    if (aip_rejit_is_target(env->rejit, item.module_id, item.caller))
        return; /* a patched method runs the body its patch gives it */
    if (!armed) {
        (void)aip_inbox_park(env->discovered, item);
        return;
    }
    if (aip_redirect_caller(redirect, item.module_id, item.caller, item.target, carrier)) {
        atomic_fetch_add_explicit(&env->redirects->discovered, 1, memory_order_relaxed);
        aip_rejit_count_caller(env->rejit, item.module_id, item.target, AIP_CALLER_DISCOVERED);
    }
}

alvk_status aip_apply_discovered(void *payload, void *context)
{
    (void)payload;
    const aip_apply_env *env = context;
    if (env->discovered == NULL || env->carried == NULL || env->redirects == NULL)
        return ALVK_OK;
    aip_discovered_inbox *inbox = env->discovered;
    aip_inbox_drain_done(inbox); /* before the first pop: a later push queues a new drain */
    aip_apply_scratch *x = aip_apply_scratch_of(env);
    aip_redirect_touched touched = {.count = 0};
    aip_redirect_env redirect = {env->info,      env->inliners,      env->emitter,
                                 env->redirects, x->request_callers, AIP_MAX_INLINERS_PER_REQUEST,
                                 &touched,       env->carried,       env->rejit};
    aip_discovered waiting[AIP_DISCOVERED_CAPACITY];
    uint32_t n = aip_inbox_take_parked(inbox, waiting);
    for (uint32_t i = 0; i < n; ++i)
        take(env, &redirect, waiting[i]);
    aip_discovered item;
    while (aip_inbox_pop(inbox, &item))
        take(env, &redirect, item);
    if (touched.count == 0)
        return ALVK_OK;
    for (uint32_t i = 0; i < touched.count; ++i) {
        x->request_modules[i] = touched.keys[i].module_id;
        x->request_methods[i] = touched.keys[i].token;
    }
    ICorProfilerInfo15 *info = env->info;
    HRESULT hr =
        info->lpVtbl->RequestReJIT(info, touched.count, x->request_modules, x->request_methods);
    if (FAILED(hr))
        atomic_fetch_add_explicit(&env->redirects->skips.failed, touched.count,
                                  memory_order_relaxed);
    return ALVK_OK;
}
