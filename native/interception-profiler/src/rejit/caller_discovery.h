/* Callers of carried targets found as the JIT compiles them. The runtime never inlines a method
 * with an active ReJIT version and does not even ask the profiler (no JITInlining), so a caller
 * first compiled while its target is hooked is in no inliner map: it keeps a real call. Each
 * compilation of a method's original IL (JITCompilationFinished: the first one, and tiering's
 * later ones of the same version) in a module with a carried target (rejit/carried_targets.h)
 * (and each re-JIT of a method that is no target: aip_discover_on_rejit) has its IL read and
 * walked once; each carried target it calls as the known inliners' bodies
 * would be redirected (il/call_redirect.h) is pushed to the worker's inbox
 * (rejit/discovered_inbox.h), which routes the caller to the target's carrier and re-JITs it
 * (rejit/apply_discovered.h). While nothing is carried, a compilation costs one relaxed load
 * (aip_carried_any, checked by the caller of aip_discover_callers). JIT threads. */
#ifndef AIP_CALLER_DISCOVERY_H
#define AIP_CALLER_DISCOVERY_H

#include "coreclr/corprof_info.h"
#include "il/call_redirect.h"
#include "rejit/carried_targets.h"
#include "rejit/discovered_inbox.h"

#include <stdint.h>

/* The decision, pure: which of targets[0 .. count) the method `caller`, whose whole IL body is
 * body[0 .. size), calls so that its calls can be redirected (aip_il_find_calls): bit i for
 * targets[i]; never the caller itself (a recursive target); 0 when the body cannot be walked or
 * count exceeds AIP_IL_FIND_CALLS_MAX. */
uint32_t aip_discovery_scan(const uint8_t *body, uint32_t size, uint32_t caller,
                            const uint32_t *targets, uint32_t count, aip_il_starts *starts);

/* JITCompilationFinished of `function` (its original IL compiled): pushes each carried target
 * it calls with it to the inbox. Returns 1 when it pushed one and claimed the drain: the caller
 * then queues the worker's drain (aip_inbox_drain_done when that fails). */
int aip_discover_callers(aip_carried_targets *carried, aip_discovered_inbox *inbox,
                         ICorProfilerInfo15 *info, FunctionID function);

/* ReJITCompilationFinished of `function`, succeeded: a carried target that compiled its body
 * arms its carrier (rejit/carried_targets.h), and the callers waiting for it are drained;
 * any other method (a caller re-JIT'd with its original IL after its route was taken out) is
 * scanned as aip_discover_callers does. Returns 1 when the caller is to queue a drain. */
int aip_discover_on_rejit(aip_carried_targets *carried, aip_discovered_inbox *inbox,
                          ICorProfilerInfo15 *info, FunctionID function);

#endif
