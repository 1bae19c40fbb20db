/* The inliners the JIT reported (JITInlining) for methods of allowed modules: which caller
 * inlined which callee. The fallback ReJIT path re-JITs them with a patched target, since
 * a caller that inlined the target keeps running the old body otherwise; and an inliner's
 * re-JIT is counted for the patches of the methods it inlined. Bounded: when full, new pairs
 * are counted as dropped. Pure. */
#ifndef AIP_INLINER_MAP_H
#define AIP_INLINER_MAP_H

#include "platform/platform.h"

#include <stdint.h>

#define AIP_INLINER_MAP_CAPACITY 4096 /* power of two */

typedef struct aip_method_key {
    uintptr_t module_id;
    uint32_t token;
} aip_method_key;

typedef struct aip_inliner_pair {
    aip_method_key callee;
    aip_method_key caller;
    uint64_t counted; /* the newest patch request the caller's re-JIT was counted for (the
                       * same on every pair of one caller; aip_inliner_map_raise_counted) */
} aip_inliner_pair;

typedef struct aip_inliner_map {
    aip_mutex lock;
    uint32_t count;
    uint32_t dropped;
    aip_inliner_pair slots[AIP_INLINER_MAP_CAPACITY]; /* callee.module_id 0: empty */
} aip_inliner_map;

/* Requires zeroed storage (the profiler object is zero pages from the OS: writing the zeros
 * again would make the whole table resident). Returns 0, or -1 when the lock fails. */
int aip_inliner_map_init(aip_inliner_map *map);

/* Records that caller inlined callee (once per pair). Returns 1 if new, 0 if known or
 * dropped. */
int aip_inliner_map_add(aip_inliner_map *map, aip_method_key callee, aip_method_key caller);

/* ModuleUnloadStarted: pairs with a caller or callee in the module are removed (left as
 * tombstones, so probes stay correct), so no unloaded ModuleID reaches RequestReJIT. */
void aip_inliner_map_forget_module(aip_inliner_map *map, uintptr_t module_id);

/* Copies up to capacity callers of callee into out; returns how many there are in all. */
uint32_t aip_inliner_map_callers(aip_inliner_map *map, aip_method_key callee, aip_method_key *out,
                                 uint32_t capacity);

/* Pairs not recorded because the map was full: what it says of inlinees is then incomplete. */
uint32_t aip_inliner_map_dropped(aip_inliner_map *map);

/* How many levels of nested inlines aip_inliner_map_inlinees follows. */
#define AIP_INLINEE_DEPTH 3

/* What caller inlined: the callees it inlined, and theirs up to AIP_INLINEE_DEPTH levels (the
 * JIT reports an inline nested in another with the method it was inlined into as the caller,
 * while the runtime re-JITs the outermost method). Copies up to capacity distinct methods into
 * out and returns how many it copied; *counted: the newest request caller's re-JIT was counted
 * for (0: none). */
uint32_t aip_inliner_map_inlinees(aip_inliner_map *map, aip_method_key caller, aip_method_key *out,
                                  uint32_t capacity, uint64_t *counted);

/* Records that caller's re-JIT was counted for the requests up to `request`, when it was still
 * counted up to `seen` (as aip_inliner_map_inlinees read it): 1, or 0 when another compilation
 * of caller recorded a count since (it counted this request already). */
int aip_inliner_map_raise_counted(aip_inliner_map *map, aip_method_key caller, uint64_t seen,
                                  uint64_t request);

#endif
