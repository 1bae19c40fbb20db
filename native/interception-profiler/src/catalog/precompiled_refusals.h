/* The loaded modules whose precompiled (ReadyToRun) code the profiler refuses: images that may
 * inline methods of an allowlisted module across assemblies, where the runtime does not track
 * the inlining (see docs/Interception.md, "ReadyToRun"). Their methods are JIT-compiled
 * instead, so the JIT's own inline tracking (JITInlining, RequestReJITWithInliners) applies.
 * Lock-free: modules are added at load and removed at unload; the cache-search callback reads
 * it on the runtime's threads, and returns at once while it is empty. */
#ifndef AIP_PRECOMPILED_REFUSALS_H
#define AIP_PRECOMPILED_REFUSALS_H

#include <stdatomic.h>
#include <stdint.h>

/* At most this many such modules at once; more are logged and keep their code. */
#define AIP_PRECOMPILED_REFUSAL_CAPACITY 128u

typedef struct aip_precompiled_refusals {
    _Atomic uint32_t held; /* modules held now */
    _Atomic uintptr_t modules[AIP_PRECOMPILED_REFUSAL_CAPACITY];
    _Atomic uint64_t methods_refused; /* cache searches answered "do not use" */
    _Atomic uint32_t overflowed;      /* modules not held because the set was full */
} aip_precompiled_refusals;

/* 1 when `module` is now held, 0 when the set is full (counted in `overflowed`). */
int aip_refusals_add(aip_precompiled_refusals *r, uintptr_t module);

/* Forgets `module` (unloaded); nothing when it is not held. */
void aip_refusals_remove(aip_precompiled_refusals *r, uintptr_t module);

/* 1 when the set holds `module`. */
int aip_refusals_hold(aip_precompiled_refusals *r, uintptr_t module);

/* 1 when the set holds any module: the one check ordinary cache searches pay. */
static inline int aip_refusals_any(aip_precompiled_refusals *r)
{
    return atomic_load_explicit(&r->held, memory_order_acquire) != 0;
}

#endif
