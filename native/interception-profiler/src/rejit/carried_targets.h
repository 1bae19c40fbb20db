/* The targets whose current body has a carrier (emit/carrier.h) that callers may be redirected
 * to: (module, target) -> carrier, set by the worker when it publishes a target's body and
 * cleared when the target's original IL comes back. A carrier is armed once the target's own
 * compilation of that body succeeded (ReJITCompilationFinished): until then a caller found
 * keeps its real call, so the body is compiled, counted and, when the JIT rejects it, rolled
 * back as the target's, never first met inlined through a carrier. Read on the JIT's threads, where
 * a method compiled while a target is patched is checked for calls to it
 * (rejit/caller_discovery.h): `active` is that check's gate, one relaxed load while nothing is
 * carried. Bounded: a target that finds no free entry is not carried for callers found this way
 * (counted). Pure. */
#ifndef AIP_CARRIED_TARGETS_H
#define AIP_CARRIED_TARGETS_H

#include "platform/platform.h"

#include <stdatomic.h>
#include <stdint.h>

#define AIP_CARRIED_TARGETS 64

typedef struct aip_carried_target {
    uintptr_t module_id; /* 0: free */
    uint32_t target;
    uint32_t carrier;
    uint32_t armed; /* the target compiled its body: callers may be routed */
} aip_carried_target;

typedef struct aip_carried_targets {
    _Atomic uint32_t active; /* entries in use */
    aip_mutex lock;
    aip_carried_target entries[AIP_CARRIED_TARGETS];
    _Atomic uint64_t full; /* targets not carried: no free entry */
} aip_carried_targets;

/* Requires zeroed storage. 0, or -1 when the lock fails. */
int aip_carried_init(aip_carried_targets *t);
void aip_carried_destroy(aip_carried_targets *t);

/* 1 when some target is carried: the JIT thread's gate. */
static inline int aip_carried_any(aip_carried_targets *t)
{
    return atomic_load_explicit(&t->active, memory_order_relaxed) != 0;
}

/* target's carrier set, not armed (carrier 0: the target no longer carried). 0, or -1 when the
 * table is full (counted; nothing changed). */
int aip_carried_set(aip_carried_targets *t, uintptr_t module_id, uint32_t target, uint32_t carrier);

/* ReJITCompilationFinished of target, succeeded: 1 when that armed its carrier (it was not). */
int aip_carried_arm(aip_carried_targets *t, uintptr_t module_id, uint32_t target);

/* target's carrier, or 0; *armed (may be NULL) whether it is armed. */
uint32_t aip_carried_lookup(aip_carried_targets *t, uintptr_t module_id, uint32_t target,
                            int *armed);

/* The carried targets of module_id: up to capacity copied into out; returns how many there are
 * in all. */
uint32_t aip_carried_in_module(aip_carried_targets *t, uintptr_t module_id, uint32_t *out,
                               uint32_t capacity);

/* ModuleUnloadStarted: the module's targets are no longer carried. */
void aip_carried_forget_module(aip_carried_targets *t, uintptr_t module_id);

#endif
