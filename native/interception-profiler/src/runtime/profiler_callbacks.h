/* The CoreCLR callbacks that run on the runtime's threads while code is being compiled or
 * objects allocated: the gate (attached, and patching allowed) and the hand-off to the layer
 * that answers, inline, so the hot ones (ObjectAllocated, JITInlining) cost no extra call. A
 * failed compilation seen here queues a rollback to the worker. */
#ifndef AIP_PROFILER_CALLBACKS_H
#define AIP_PROFILER_CALLBACKS_H

#include "allocation/allocation_capture.h"
#include "allocation/sampled_capture.h"
#include "catalog/precompiled_function.h"
#include "rejit/caller_discovery.h"
#include "rejit/rejit_callbacks.h"
#include "runtime/profiler.h"

/* Patching callbacks count only in an attached profiler whose configuration allows patching. */
static inline int aip_profiler_patching(aip_profiler *p)
{
    return aip_profiler_attached(p) && p->config.startup_status == ALVK_OK;
}

static inline HRESULT aip_runtime_get_rejit_parameters(aip_profiler *p, ModuleID module,
                                                       mdMethodDef method,
                                                       ICorProfilerFunctionControl *control)
{
    if (!aip_profiler_patching(p))
        return S_OK;
    return aip_rejit_on_get_parameters(&p->rejit, &p->redirects, module, method, control);
}

static inline void aip_runtime_rejit_event(aip_profiler *p, FunctionID function, ReJITID rejit_id,
                                           int finished, HRESULT status)
{
    uint32_t index = 0;
    if (aip_profiler_patching(p) &&
        aip_rejit_on_compilation(&p->rejit, &p->inliners, p->info, function, rejit_id, finished,
                                 status, &index))
        aip_runtime_queue_rollback(p, index);
    /* While a target is carried: its carrier armed, or a re-JIT'd caller found
     * (caller_discovery.h). */
    if (finished && SUCCEEDED(status) && p != NULL && aip_carried_any(&p->carried) &&
        aip_profiler_patching(p) &&
        aip_discover_on_rejit(&p->carried, &p->discovered, p->info, function))
        aip_runtime_queue_discovery(p);
}

static inline void aip_runtime_rejit_error(aip_profiler *p, ModuleID module, mdMethodDef method,
                                           HRESULT status)
{
    uint32_t index = 0;
    if (aip_profiler_patching(p) && aip_rejit_on_error(&p->rejit, module, method, status, &index))
        aip_runtime_queue_rollback(p, index);
}

static inline void aip_runtime_jit_inlining(aip_profiler *p, FunctionID caller, FunctionID callee,
                                            BOOL *should_inline)
{
    if (aip_profiler_patching(p))
        aip_rejit_on_inlining(&p->rejit, &p->inliners, &p->catalog, p->info, caller, callee,
                              should_inline);
}

/* JITCompilationFinished: a method's original IL compiled. While a target is carried, its calls
 * of one make it a caller to route (rejit/caller_discovery.h); otherwise one relaxed load. */
static inline void aip_runtime_jit_finished(aip_profiler *p, FunctionID function, HRESULT status)
{
    if (p == NULL || !aip_carried_any(&p->carried) || FAILED(status) || !aip_profiler_patching(p))
        return;
    if (aip_discover_callers(&p->carried, &p->discovered, p->info, function))
        aip_runtime_queue_discovery(p);
}

/* JITCachedFunctionSearchStarted: a method's ReadyToRun code is about to be used. Refused when
 * it may come from an image in p->refusals (its code may inline an allowlisted method
 * untracked): the method's module, or a type argument's (precompiled_function.h); every other
 * search costs one load while the set is empty. */
static inline void aip_runtime_cached_function_search(aip_profiler *p, FunctionID function,
                                                      BOOL *use_cached)
{
    if (!aip_profiler_patching(p) || !aip_refusals_any(&p->refusals))
        return;
    if (aip_refusals_hold_function(p->info, &p->refusals, function)) {
        *use_cached = 0;
        atomic_fetch_add_explicit(&p->refusals.methods_refused, 1, memory_order_relaxed);
    }
}

static inline void aip_runtime_object_allocated(aip_profiler *p, ObjectID object, ClassID class_id)
{
    if (p != NULL)
        aip_allocation_on_object(&p->allocations, object, class_id);
}

/* EventPipeEventDelivered: sampled allocation profiling's AllocationSampled events. */
static inline void aip_runtime_event_delivered(aip_profiler *p, uintptr_t provider,
                                               uint32_t event_id, uint32_t version,
                                               const uint8_t *data, uint32_t size,
                                               uint32_t stack_bytes, const uintptr_t *stack)
{
    if (p != NULL)
        aip_allocation_on_event(&p->allocations, provider, event_id, version, data, size,
                                stack_bytes, stack);
}

#endif
