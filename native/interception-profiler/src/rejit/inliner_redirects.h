/* The bodies the known inliners of hooked targets are re-JIT'd with: for a caller (module,
 * MethodDef), the routes `call <target>` -> `call <carrier>` in force (a carrier: a method the
 * profiler defined with the target's current body and no ReJIT version, which the JIT may
 * inline; emit/carrier.h) and the caller's original IL with those calls redirected. The worker
 * sets routes and publishes bodies before its ReJIT request; GetReJITParameters only acquires a
 * body and copies it out. A caller with no route left has no entry: it is re-JIT'd with its
 * original IL. Bounded: a caller that finds no free entry keeps the real call (counted). Pure. */
#ifndef AIP_INLINER_REDIRECTS_H
#define AIP_INLINER_REDIRECTS_H

#include "il/call_redirect.h"
#include "platform/platform.h"
#include "rejit/prepared_rejit.h"

#include <stdatomic.h>
#include <stdint.h>

#define AIP_REDIRECT_CALLERS 256 /* callers with a redirected body at once */
#define AIP_REDIRECT_ROUTES 8    /* hooked targets one caller's body is redirected for */

typedef struct aip_redirect_entry {
    uintptr_t module_id; /* 0: free */
    uint32_t caller;
    uint32_t route_count;
    aip_call_route routes[AIP_REDIRECT_ROUTES];
    aip_prepared_rejit *body; /* the caller's redirected body, or NULL (not built yet) */
} aip_redirect_entry;

/* Why a known inliner of a hooked target keeps the real call (each counted once per
 * generation and caller). */
typedef struct aip_redirect_skips {
    _Atomic uint64_t generic;        /* a generic target or caller: one carrier per shape needed */
    _Atomic uint64_t virtual_target; /* a virtual target that may be overridden */
    _Atomic uint64_t other_module;   /* an inliner in another module that cannot name the
                                      * carrier (emit/carrier_ref.h) */
    _Atomic uint64_t handlers;    /* a body with exception clauses, which the JIT never inlines */
    _Atomic uint64_t constrained; /* a caller calling the target behind `constrained.` */
    _Atomic uint64_t full;        /* no free entry or route */
    _Atomic uint64_t failed;      /* metadata or the caller's IL could not be read or emitted */
} aip_redirect_skips;

typedef struct aip_inliner_redirects {
    aip_mutex lock;
    uint32_t count;
    aip_redirect_entry entries[AIP_REDIRECT_CALLERS];
    aip_redirect_skips skips;
    _Atomic uint64_t carriers;   /* carriers defined (metadata rows: never removed) */
    _Atomic uint64_t redirected; /* redirected caller bodies published */
    _Atomic uint64_t discovered; /* callers found as they were compiled, routed */
} aip_inliner_redirects;

/* Requires zeroed storage. 0, or -1 when the lock fails. */
int aip_redirects_init(aip_inliner_redirects *r);

/* Frees every body held (tests; the profiler's table lives until the process exits). */
void aip_redirects_destroy(aip_inliner_redirects *r);

/* Sets caller's route for target to carrier (carrier 0: removes it), creating the caller's
 * entry when needed. Copies the caller's routes after the change into out (up to
 * AIP_REDIRECT_ROUTES) and returns how many there are, or -1 when the table (or the caller's
 * routes) is full: then nothing changed. */
int aip_redirects_route(aip_inliner_redirects *r, uintptr_t module_id, uint32_t caller,
                        uint32_t target, uint32_t carrier, aip_call_route *out);

/* Publishes caller's body (taken; NULL: none yet). An entry with no route left is freed with
 * its body, whatever `body` is (then released). */
void aip_redirects_publish(aip_inliner_redirects *r, uintptr_t module_id, uint32_t caller,
                           aip_prepared_rejit *body);

/* The callers in module_id that have a route for target: up to capacity copied into out;
 * returns how many there are in all. */
uint32_t aip_redirects_callers_of(aip_inliner_redirects *r, uintptr_t module_id, uint32_t target,
                                  uint32_t *out, uint32_t capacity);

/* caller's route for target: its carrier, or 0. */
uint32_t aip_redirects_route_of(aip_inliner_redirects *r, uintptr_t module_id, uint32_t caller,
                                uint32_t target);

/* GetReJITParameters: caller's redirected body with one more reference, or NULL. */
aip_prepared_rejit *aip_redirects_acquire(aip_inliner_redirects *r, uintptr_t module_id,
                                          uint32_t caller);

/* ModuleUnloadStarted: the module's entries are gone. */
void aip_redirects_forget_module(aip_inliner_redirects *r, uintptr_t module_id);

#endif
