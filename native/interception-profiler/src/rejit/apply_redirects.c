/* Redirecting a target's known inliners to its carrier, or back to the target. */
#include "rejit/apply_redirects.h"

#include "coreclr/cor_metadata_defs.h"
#include "emit/carrier.h"
#include "emit/carrier_ref.h"
#include "il/call_redirect.h"
#include "il/method_body.h"
#include "rejit/rejit_carriers.h"

#include <stdlib.h>
#include <string.h>

/* Scratch for one caller's rebuild: the walker's bit set is 8 KiB. */
static _Thread_local aip_il_starts t_starts;

static void count(_Atomic uint64_t *counter)
{
    atomic_fetch_add_explicit(counter, 1, memory_order_relaxed);
}

/* One caller's outcome on the target's patch (ABI 3.10 telemetry). */
static void count_caller(const aip_redirect_env *env, uintptr_t module, uint32_t target,
                         aip_caller_outcome outcome)
{
    if (env->rejit != NULL)
        aip_rejit_count_caller(env->rejit, module, target, outcome);
}

/* caller recorded as re-JIT'd with its new redirected body (once). */
static void touch(const aip_redirect_env *env, uintptr_t module, uint32_t caller)
{
    aip_redirect_touched *t = env->touched;
    if (t == NULL)
        return;
    for (uint32_t i = 0; i < t->count; ++i)
        if (t->keys[i].module_id == module && t->keys[i].token == caller)
            return;
    if (t->count < AIP_REDIRECT_CALLERS)
        t->keys[t->count++] = (aip_method_key){module, caller};
}

/* caller's body rebuilt from its original IL with `routes` applied and published (none: its
 * entry goes, and it is re-JIT'd with the original IL). 0; 1 when its code calls `target`
 * nowhere (it reached it through a nested inline); 2 when a call of `target` in its code is
 * `constrained.`-prefixed (il/call_redirect.h: it keeps its calls); -1 when the body could not
 * be read. */
static int rebuild(const aip_redirect_env *env, uintptr_t module, uint32_t caller, uint32_t target,
                   const aip_call_route *routes, int route_count)
{
    aip_inliner_redirects *r = env->redirects;
    if (route_count <= 0) {
        aip_redirects_publish(r, module, caller, NULL);
        touch(env, module, caller);
        return 0;
    }
    LPCBYTE original = NULL;
    ULONG size = 0;
    ICorProfilerInfo15 *info = env->info;
    if (FAILED(info->lpVtbl->GetILFunctionBody(info, module, caller, &original, &size)) ||
        size == 0)
        return -1;
    uint8_t *copy = malloc(size);
    if (copy == NULL)
        return -1;
    memcpy(copy, original, size);
    /* The target's route alone first: a caller that reaches it only through a nested inline
     * has nothing to redirect. */
    aip_call_redirect_counts counts = {0, 0, 0};
    aip_call_route own = {target, 0};
    for (int i = 0; i < route_count; ++i)
        if (routes[i].from == target)
            own = routes[i];
    alvk_status status =
        own.to != 0 ? aip_il_redirect_body(copy, size, &own, 1, &t_starts, &counts) : ALVK_OK;
    if (status == ALVK_OK && own.to != 0 && counts.redirected == 0) {
        free(copy);
        return counts.constrained > 0 ? 2 : 1;
    }
    if (status == ALVK_OK) {
        memcpy(copy, original, size);
        status =
            aip_il_redirect_body(copy, size, routes, (uint32_t)route_count, &t_starts, &counts);
    }
    aip_prepared_rejit *body =
        status == ALVK_OK ? aip_prepared_create(0, copy, size, NULL, 0) : NULL;
    free(copy);
    if (body == NULL)
        return -1;
    aip_redirects_publish(r, module, caller, body);
    touch(env, module, caller);
    count(&r->redirected);
    return 0;
}

/* The target's route taken out of caller's body. */
static void unroute(const aip_redirect_env *env, uintptr_t module, uint32_t caller, uint32_t target)
{
    aip_call_route routes[AIP_REDIRECT_ROUTES];
    int left = aip_redirects_route(env->redirects, module, caller, target, 0, routes);
    if (rebuild(env, module, caller, target, routes, left) != 0) {
        /* The remaining routes' body could not be built: the caller gets its original IL. */
        while (left > 0)
            left = aip_redirects_route(env->redirects, module, caller, routes[left - 1].from, 0,
                                       routes);
        aip_redirects_publish(env->redirects, module, caller, NULL);
        touch(env, module, caller);
    }
}

/* Every caller with a route for target loses it. */
static void unroute_all(const aip_redirect_env *env, uintptr_t module, uint32_t target)
{
    uint32_t callers[AIP_REDIRECT_CALLERS];
    uint32_t n =
        aip_redirects_callers_of(env->redirects, module, target, callers, AIP_REDIRECT_CALLERS);
    for (uint32_t i = 0; i < n && i < AIP_REDIRECT_CALLERS; ++i)
        unroute(env, module, callers[i], target);
}

/* The carrier of body for target, or 0 (the reason counted, and set in *state). */
static uint32_t carrier_of(const aip_redirect_env *env, uintptr_t module, uint32_t target,
                           const aip_prepared_rejit *body, alvk_carrier_state *state)
{
    aip_redirect_skips *skips = &env->redirects->skips;
    aip_method_body parsed;
    *state = ALVK_CARRIER_FAILED;
    if (aip_method_body_parse(body->data, body->body_size, &parsed, NULL, 0) != ALVK_OK) {
        count(&skips->failed);
        return 0;
    }
    if (parsed.eh_clause_count > 0) {
        *state = ALVK_CARRIER_HANDLERS;
        count(&skips->handlers);
        return 0;
    }
    uint32_t carrier = 0;
    int defined = 0;
    HRESULT hr = S_OK;
    switch (aip_carrier_for(env->emitter, module, target, body->data, body->body_size, &carrier,
                            &defined, &hr)) {
    case AIP_CARRIER_DEFINED:
        if (defined)
            count(&env->redirects->carriers);
        *state = ALVK_CARRIER_ACTIVE;
        return carrier;
    case AIP_CARRIER_GENERIC:
        *state = ALVK_CARRIER_GENERIC;
        count(&skips->generic);
        return 0;
    case AIP_CARRIER_VIRTUAL:
        *state = ALVK_CARRIER_VIRTUAL;
        count(&skips->virtual_target);
        return 0;
    case AIP_CARRIER_HANDLERS:
        *state = ALVK_CARRIER_HANDLERS;
        count(&skips->handlers);
        return 0;
    default:
        count(&skips->failed);
        return 0;
    }
}

/* ALVK_CARRIER_ACTIVE when target may be carried for callers not yet known: the JIT may inline
 * it (not marked NoInlining or Synchronized: a carrier would inline what its author kept out of
 * line) and its original code is small enough; else why not. */
static alvk_carrier_state carried_size(const aip_redirect_env *env, uintptr_t module,
                                       uint32_t target)
{
    uint32_t impl = 0;
    if (aip_carrier_method_impl(env->emitter, module, target, &impl) != 0)
        return ALVK_CARRIER_FAILED;
    if ((impl & (miNoInlining | miSynchronized)) != 0)
        return ALVK_CARRIER_NO_INLINING;
    LPCBYTE original = NULL;
    ULONG size = 0;
    ICorProfilerInfo15 *info = env->info;
    aip_method_body parsed;
    if (FAILED(info->lpVtbl->GetILFunctionBody(info, module, target, &original, &size)) ||
        aip_method_body_parse(original, size, &parsed, NULL, 0) != ALVK_OK)
        return ALVK_CARRIER_FAILED;
    return parsed.code_size <= AIP_DISCOVERY_MAX_CODE_BYTES ? ALVK_CARRIER_ACTIVE
                                                            : ALVK_CARRIER_TOO_BIG;
}

/* The patched target whose telemetry a caller's outcome is counted on: (module, token) of the
 * target's module, which for a caller in another module is not the module of its routes. */
typedef struct patch_key {
    uintptr_t module;
    uint32_t target;
} patch_key;

/* aip_redirect_caller with the routes in caller's module (`module`, `target` the token its code
 * calls) and the outcomes counted on `patch`. */
static int redirect_caller(const aip_redirect_env *env, uintptr_t module, uint32_t caller,
                           uint32_t target, uint32_t carrier, patch_key patch)
{
    aip_redirect_skips *skips = &env->redirects->skips;
    if (caller == target)
        return 0;
    if (aip_carrier_method_generic(env->emitter, module, caller) != 0) {
        count(&skips->generic);
        count_caller(env, patch.module, patch.target, AIP_CALLER_KEPT);
        return 0;
    }
    aip_call_route routes[AIP_REDIRECT_ROUTES];
    int routed = aip_redirects_route(env->redirects, module, caller, target, carrier, routes);
    if (routed < 0) {
        count(&skips->full);
        count_caller(env, patch.module, patch.target, AIP_CALLER_KEPT);
        return 0;
    }
    int rebuilt = rebuild(env, module, caller, target, routes, routed);
    if (rebuilt == 0)
        return 1;
    if (rebuilt < 0)
        count(&skips->failed);
    else if (rebuilt == 2)
        count(&skips->constrained);
    if (rebuilt != 1) /* 1: its code calls the target nowhere, nothing to keep */
        count_caller(env, patch.module, patch.target, AIP_CALLER_KEPT);
    unroute(env, module, caller, target);
    return 0;
}

int aip_redirect_caller(const aip_redirect_env *env, uintptr_t module, uint32_t caller,
                        uint32_t target, uint32_t carrier)
{
    return redirect_caller(env, module, caller, target, carrier, (patch_key){module, target});
}

/* The known inliners in other modules routed to the target's carrier lose that route. */
static void unroute_other_modules(const aip_redirect_env *env, uintptr_t module, uint32_t target,
                                  const aip_method_key *callers, uint32_t n)
{
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t from = 0;
        if (callers[i].module_id == module ||
            aip_carrier_ref_target(env->emitter, module, target, callers[i].module_id, &from) !=
                AIP_CARRIER_REF_OK ||
            aip_redirects_route_of(env->redirects, callers[i].module_id, callers[i].token, from) ==
                0)
            continue;
        unroute(env, callers[i].module_id, callers[i].token, from);
    }
}

/* A known inliner in another module (B): routed from B's MemberRef of the target to B's
 * MemberRef of the carrier (emit/carrier_ref.h), or it keeps the real call (counted). */
static void redirect_other_module(const aip_redirect_env *env, uintptr_t module, uint32_t target,
                                  uint32_t carrier, aip_method_key caller)
{
    uint32_t from = 0, to = 0;
    if (aip_carrier_ref_for(env->emitter, module, target, carrier, caller.module_id, &from, &to) !=
        AIP_CARRIER_REF_OK) {
        count(&env->redirects->skips.other_module);
        count_caller(env, module, target, AIP_CALLER_KEPT);
        unroute_other_modules(env, module, target, &caller, 1); /* a previous carrier's route */
        return;
    }
    if (redirect_caller(env, caller.module_id, caller.token, from, to, (patch_key){module, target}))
        count_caller(env, module, target, AIP_CALLER_REDIRECTED);
}

void aip_apply_redirects(const aip_redirect_env *env, uintptr_t module, uint32_t target,
                         const aip_prepared_rejit *body)
{
    if (env->redirects == NULL || env->inliners == NULL)
        return;
    aip_method_key callee = {module, target};
    aip_method_key *callers = env->callers;
    uint32_t n = aip_inliner_map_callers(env->inliners, callee, callers, env->capacity);
    if (n > env->capacity)
        n = env->capacity;
    /* The callers routed to its previous carrier: the known inliners and those found as they
     * were compiled (rejit/caller_discovery.h). */
    uint32_t routed[AIP_REDIRECT_CALLERS];
    uint32_t m =
        aip_redirects_callers_of(env->redirects, module, target, routed, AIP_REDIRECT_CALLERS);
    if (m > AIP_REDIRECT_CALLERS)
        m = AIP_REDIRECT_CALLERS;
    /* Why not (ABI 3.10): the original IL, or no caller known and none to be found. */
    alvk_carrier_state state = ALVK_CARRIER_NONE;
    if (body != NULL && n == 0 && m == 0 && env->carried != NULL)
        state = carried_size(env, module, target);
    int wanted = n > 0 || m > 0 || state == ALVK_CARRIER_ACTIVE;
    uint32_t carrier = wanted && body != NULL ? carrier_of(env, module, target, body, &state) : 0;
    if (env->carried != NULL && aip_carried_set(env->carried, module, target, carrier) != 0)
        state = ALVK_CARRIER_KNOWN_CALLERS; /* carried for its known inliners alone */
    if (env->rejit != NULL)
        aip_rejit_note_carrier(env->rejit, module, target, state, carrier);
    if (carrier == 0) {
        unroute_all(env, module, target);
        unroute_other_modules(env, module, target, callers, n);
        return;
    }
    for (uint32_t i = 0; i < n; ++i) {
        if (callers[i].module_id != module) {
            redirect_other_module(env, module, target, carrier, callers[i]);
            continue;
        }
        if (aip_redirect_caller(env, module, callers[i].token, target, carrier))
            count_caller(env, module, target, AIP_CALLER_REDIRECTED);
    }
    /* The others were found as they compiled: they call the target again until its new body
     * compiled (re-JIT'd with their original IL, found again then: rejit/apply_discovered.h). */
    for (uint32_t i = 0; i < m; ++i) {
        int known = 0;
        for (uint32_t k = 0; k < n && !known; ++k)
            known = callers[k].module_id == module && callers[k].token == routed[i];
        if (!known)
            unroute(env, module, routed[i], target);
    }
}
