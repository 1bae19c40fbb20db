/* The known inliners of a target whose body changes: before the ReJIT request that re-JITs
 * them, each one (in the target's module, or in another module that may name the carrier:
 * emit/carrier_ref.h, its MemberRef of the target redirected to its MemberRef of the carrier)
 * gets its original IL with `call <target>` redirected to the carrier of the target's new body
 * (emit/carrier.h), published in the inliner redirect table (rejit/inliner_redirects.h) for
 * GetReJITParameters; when the target's original IL comes back (a removal), or its new body
 * cannot be carried, the target's routes are taken out of every caller's body, so the
 * removal's re-JIT gives those callers their original IL again. What is skipped (generic
 * targets or callers, overridable virtual targets, inliners in other modules that cannot name
 * the carrier, bodies with exception clauses) keeps the real call and is counted. Worker
 * thread. */
#ifndef AIP_APPLY_REDIRECTS_H
#define AIP_APPLY_REDIRECTS_H

#include "coreclr/corprof_info.h"
#include "emit/emitter.h"
#include "rejit/carried_targets.h"
#include "rejit/inliner_map.h"
#include "rejit/inliner_redirects.h"
#include "rejit/patch_table.h"

/* A target with no known inliner is carried for the callers compiled while it is patched
 * (rejit/caller_discovery.h) when its original code is at most this many IL bytes: twice the
 * JIT's always-inline size (16), so tiny getters and setters are, and a method the JIT would
 * not inline for its size is not made inlined through a carrier. */
#define AIP_DISCOVERY_MAX_CODE_BYTES 32

/* What redirecting reads and changes (the apply env's, on the worker). */
/* The callers whose redirected body changed (routes added, changed or taken out) in one
 * publish: the request re-JITs each of them by name. The runtime's own inliner tracking may not
 * list them: a redirected caller's code inlined the carrier, not the target. */
typedef struct aip_redirect_touched {
    aip_method_key keys[AIP_REDIRECT_CALLERS];
    uint32_t count;
} aip_redirect_touched;

typedef struct aip_redirect_env {
    ICorProfilerInfo15 *info;
    aip_inliner_map *inliners;
    aip_emitter *emitter;
    aip_inliner_redirects *redirects; /* NULL: nothing is redirected */
    aip_method_key *callers;          /* scratch for a target's known inliners */
    uint32_t capacity;
    aip_redirect_touched *touched; /* NULL: not recorded */
    aip_carried_targets *carried;  /* NULL: no caller is found as it is compiled */
    aip_rejit_state *rejit;        /* the patches' carrier telemetry; NULL: not recorded */
} aip_redirect_env;

/* caller (a MethodDef of module) routed to carrier for its calls of target, its body rebuilt
 * and published (recorded in env->touched): 1; 0 when it keeps the real call (the reason
 * counted, and on the target's patch as a caller kept (rejit/rejit_carriers.h): a generic
 * caller, a full table, a constrained call, a body that could not be read; or the target
 * itself). Its caller counts a success on the patch. */
int aip_redirect_caller(const aip_redirect_env *env, uintptr_t module, uint32_t caller,
                        uint32_t target, uint32_t carrier);

/* The target (module, token) now runs `body` (NULL: its original IL): its known inliners follow
 * it (routed to its new carrier, or back to it); the callers found as they compiled go back to
 * calling it (until its new body compiled: rejit/apply_discovered.h); and it is carried
 * (env->carried, not armed) while it has a carrier. The target's patch records its carrier (or
 * why it has none) and each known inliner redirected or kept (rejit/rejit_carriers.h). */
void aip_apply_redirects(const aip_redirect_env *env, uintptr_t module, uint32_t target,
                         const aip_prepared_rejit *body);

#endif
