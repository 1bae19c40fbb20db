/* Per-type allocation counts: a lock-free open-addressing table keyed by ClassID, allocated
 * once at startup. Adding is wait-free apart from a bounded probe; a type that finds no slot
 * (the table keeps a quarter free) is counted as overflow, never lost. Each slot holds an
 * exact part (every object in exact profiling; the large and pinned objects in sampled
 * profiling) and a sampled part (the Horvitz-Thompson sums of sampled_estimate.h). Pure. */
#ifndef AIP_TYPE_TABLE_H
#define AIP_TYPE_TABLE_H

#include "allocation/sampled_estimate.h"

#include <stdatomic.h>
#include <stdint.h>

typedef struct aip_type_slot {
    _Atomic uintptr_t class_id; /* 0: empty */
    _Atomic uint64_t count;     /* exact part */
    _Atomic uint64_t bytes;
    _Atomic uint64_t samples; /* sampled part: events, and the saturating sums of their weights */
    _Atomic uint64_t objects_fx;
    _Atomic uint64_t est_bytes;
    _Atomic uint64_t var_objects_fx;
    _Atomic uint64_t var_bytes;
} aip_type_slot;

/* The sampled part's sums (of a slot, of the overflow). */
typedef struct aip_sampled_sums {
    _Atomic uint64_t samples;
    _Atomic uint64_t objects_fx;
    _Atomic uint64_t est_bytes;
    _Atomic uint64_t var_objects_fx;
    _Atomic uint64_t var_bytes;
} aip_sampled_sums;

typedef struct aip_type_table {
    uint32_t capacity; /* a power of two */
    aip_type_slot *slots;
    _Atomic uint32_t used;
    _Atomic uint64_t total_objects; /* exact part, overflow included */
    _Atomic uint64_t total_bytes;
    _Atomic uint64_t overflow_objects; /* exact part of the types that found no slot */
    _Atomic uint64_t overflow_bytes;
    aip_sampled_sums overflow_sampled; /* sampled part of the types that found no slot */
} aip_type_table;

/* Allocates `capacity` slots (rounded up to a power of two, at least 16). 0 on success. */
int aip_type_table_init(aip_type_table *table, uint32_t capacity);
void aip_type_table_free(aip_type_table *table);

/* Empties the table; only while nobody adds. */
void aip_type_table_clear(aip_type_table *table);

/* Exact path (exact profiling: every object; sampled profiling: LOH/POH objects): counts one
 * object of class_id (nonzero) and its size into the slot's exact part. Safe from any number
 * of threads. */
void aip_type_table_add(aip_type_table *table, uintptr_t class_id, uint64_t bytes);

/* One AllocationSampled event (SOH) of class_id (nonzero): adds the weight to the slot's
 * sampled part (creates the slot like add does; a full table goes to overflow_sampled). Every
 * sum saturates at UINT64_MAX instead of wrapping. Safe from any number of threads. */
void aip_type_table_add_sampled(aip_type_table *table, uintptr_t class_id,
                                const aip_sampled_weight *w);

/* Slots that hold a type (capacity * 3/4 at most). */
uint32_t aip_type_table_used(const aip_type_table *table);

typedef struct aip_type_estimate {
    uint64_t count, bytes; /* exact part + estimate (objects_fx converted, rounded) */
    uint64_t count_low, count_high, bytes_low, bytes_high;
    uint64_t samples; /* sampled events */
    uint64_t exact_count, exact_bytes;
} aip_type_estimate;

/* The figures of slot `index` (0..capacity-1; a slot without a type, or an index past the
 * table, gives zeros), and of the whole table (totals including overflow, from the summed
 * events and variances). Each interval is aip_estimate_interval's of the exact part and the
 * sampled sums: Wald, widened to the Poisson bounds below AIP_POISSON_EXACT_BELOW events, and
 * [exact, UINT64_MAX] once a sum saturated. Only while nobody adds (after the window closed).
 * An exact-only slot gives the interval [count, count] and [bytes, bytes]. */
void aip_type_table_estimate(const aip_type_table *table, uint32_t index, aip_type_estimate *out);
void aip_type_table_total_estimate(const aip_type_table *table, aip_type_estimate *out);

/* What the types that found no slot allocated: the overflow's exact part plus its sampled part
 * converted (objects_fx rounded to whole objects like a slot's estimate; each sum saturating at
 * UINT64_MAX). A table that never overflowed gives 0 and 0. Only while nobody adds. */
void aip_type_table_overflow_estimate(const aip_type_table *table, uint64_t *objects,
                                      uint64_t *bytes);

#endif
