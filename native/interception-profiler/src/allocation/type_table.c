/* The lock-free ClassID table. */
#include "allocation/type_table.h"

#include <stdlib.h>
#include <string.h>

int aip_type_table_init(aip_type_table *table, uint32_t capacity)
{
    uint32_t n = 16;
    while (n < capacity && n < (1u << 30))
        n <<= 1;
    memset(table, 0, sizeof *table);
    table->slots = calloc(n, sizeof *table->slots);
    if (table->slots == NULL)
        return -1;
    table->capacity = n;
    return 0;
}

void aip_type_table_free(aip_type_table *table)
{
    free(table->slots);
    table->slots = NULL;
    table->capacity = 0;
}

static void clear_sums(aip_sampled_sums *s)
{
    atomic_store_explicit(&s->samples, 0, memory_order_relaxed);
    atomic_store_explicit(&s->objects_fx, 0, memory_order_relaxed);
    atomic_store_explicit(&s->est_bytes, 0, memory_order_relaxed);
    atomic_store_explicit(&s->var_objects_fx, 0, memory_order_relaxed);
    atomic_store_explicit(&s->var_bytes, 0, memory_order_relaxed);
}

void aip_type_table_clear(aip_type_table *table)
{
    for (uint32_t i = 0; i < table->capacity; ++i) {
        aip_type_slot *slot = &table->slots[i];
        atomic_store_explicit(&slot->class_id, 0, memory_order_relaxed);
        atomic_store_explicit(&slot->count, 0, memory_order_relaxed);
        atomic_store_explicit(&slot->bytes, 0, memory_order_relaxed);
        atomic_store_explicit(&slot->samples, 0, memory_order_relaxed);
        atomic_store_explicit(&slot->objects_fx, 0, memory_order_relaxed);
        atomic_store_explicit(&slot->est_bytes, 0, memory_order_relaxed);
        atomic_store_explicit(&slot->var_objects_fx, 0, memory_order_relaxed);
        atomic_store_explicit(&slot->var_bytes, 0, memory_order_relaxed);
    }
    atomic_store(&table->used, 0);
    atomic_store(&table->total_objects, 0);
    atomic_store(&table->total_bytes, 0);
    atomic_store(&table->overflow_objects, 0);
    atomic_store(&table->overflow_bytes, 0);
    clear_sums(&table->overflow_sampled);
}

static uint32_t hash_class(uintptr_t class_id)
{
    uint64_t h = (uint64_t)class_id * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 32);
}

/* The slot of class_id, claimed if new, or NULL when the table is at its load limit. */
static aip_type_slot *find_slot(aip_type_table *table, uintptr_t class_id)
{
    uint32_t mask = table->capacity - 1;
    uint32_t limit = table->capacity - table->capacity / 4;
    uint32_t at = hash_class(class_id) & mask;
    for (uint32_t probe = 0; probe < table->capacity; ++probe, at = (at + 1) & mask) {
        aip_type_slot *slot = &table->slots[at];
        uintptr_t seen = atomic_load_explicit(&slot->class_id, memory_order_acquire);
        if (seen == 0) {
            /* Claim a new slot only while under the load limit. */
            uint32_t used = atomic_load_explicit(&table->used, memory_order_relaxed);
            if (used >= limit)
                return NULL;
            uintptr_t expected = 0;
            if (atomic_compare_exchange_strong(&slot->class_id, &expected, class_id)) {
                atomic_fetch_add_explicit(&table->used, 1, memory_order_relaxed);
                seen = class_id;
            } else {
                seen = expected; /* another thread took it: maybe for the same class */
            }
        }
        if (seen == class_id)
            return slot;
    }
    return NULL;
}

void aip_type_table_add(aip_type_table *table, uintptr_t class_id, uint64_t bytes)
{
    atomic_fetch_add_explicit(&table->total_objects, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&table->total_bytes, bytes, memory_order_relaxed);
    aip_type_slot *slot = find_slot(table, class_id);
    if (slot != NULL) {
        atomic_fetch_add_explicit(&slot->count, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&slot->bytes, bytes, memory_order_relaxed);
        return;
    }
    atomic_fetch_add_explicit(&table->overflow_objects, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&table->overflow_bytes, bytes, memory_order_relaxed);
}

/* *sum += value, ending at UINT64_MAX instead of wrapping, wait-free: the add that wraps stores
 * UINT64_MAX after it; any add that lands on the wrapped or saturated value wraps (or adds to a
 * value some wrapping add will overwrite) and stores UINT64_MAX in turn, so once any add
 * wrapped the final value is UINT64_MAX whatever the interleaving. */
static void add_saturating(_Atomic uint64_t *sum, uint64_t value)
{
    if (value == 0)
        return;
    uint64_t old = atomic_fetch_add_explicit(sum, value, memory_order_relaxed);
    if (old > UINT64_MAX - value)
        atomic_store_explicit(sum, UINT64_MAX, memory_order_relaxed);
}

void aip_type_table_add_sampled(aip_type_table *table, uintptr_t class_id,
                                const aip_sampled_weight *w)
{
    aip_type_slot *slot = find_slot(table, class_id);
    if (slot != NULL) {
        atomic_fetch_add_explicit(&slot->samples, 1, memory_order_relaxed);
        add_saturating(&slot->objects_fx, w->objects_fx);
        add_saturating(&slot->est_bytes, w->bytes);
        add_saturating(&slot->var_objects_fx, w->var_objects_fx);
        add_saturating(&slot->var_bytes, w->var_bytes);
        return;
    }
    aip_sampled_sums *o = &table->overflow_sampled;
    atomic_fetch_add_explicit(&o->samples, 1, memory_order_relaxed);
    add_saturating(&o->objects_fx, w->objects_fx);
    add_saturating(&o->est_bytes, w->bytes);
    add_saturating(&o->var_objects_fx, w->var_objects_fx);
    add_saturating(&o->var_bytes, w->var_bytes);
}

uint32_t aip_type_table_used(const aip_type_table *table)
{
    return atomic_load(&((aip_type_table *)table)->used);
}

/* Plain sums of a sampled part, read after the window (fields of aip_type_slot or
 * aip_sampled_sums). */
typedef struct sums {
    uint64_t samples, objects_fx, est_bytes, var_objects_fx, var_bytes;
} sums;

static uint64_t load(const _Atomic uint64_t *a)
{
    return atomic_load_explicit((_Atomic uint64_t *)a, memory_order_relaxed);
}

static void add_sums(sums *to, uint64_t samples, uint64_t objects_fx, uint64_t est_bytes,
                     uint64_t var_objects_fx, uint64_t var_bytes)
{
    to->samples = aip_saturating_add(to->samples, samples);
    to->objects_fx = aip_saturating_add(to->objects_fx, objects_fx);
    to->est_bytes = aip_saturating_add(to->est_bytes, est_bytes);
    to->var_objects_fx = aip_saturating_add(to->var_objects_fx, var_objects_fx);
    to->var_bytes = aip_saturating_add(to->var_bytes, var_bytes);
}

static void add_slot(sums *to, const aip_type_slot *slot)
{
    add_sums(to, load(&slot->samples), load(&slot->objects_fx), load(&slot->est_bytes),
             load(&slot->var_objects_fx), load(&slot->var_bytes));
}

/* A fixed-point sum in units of 2^-bits, rounded to an integer (UINT64_MAX stays saturated). */
static uint64_t from_fixed(uint64_t fx, unsigned bits)
{
    if (fx == UINT64_MAX)
        return UINT64_MAX;
    return (fx >> bits) + ((fx >> (bits - 1)) & 1u);
}

static void fill(aip_type_estimate *out, uint64_t exact_count, uint64_t exact_bytes, const sums *s)
{
    out->exact_count = exact_count;
    out->exact_bytes = exact_bytes;
    out->samples = s->samples;
    uint64_t objects = from_fixed(s->objects_fx, AIP_ESTIMATE_FRACTION_BITS);
    out->count = aip_saturating_add(exact_count, objects);
    out->bytes = aip_saturating_add(exact_bytes, s->est_bytes);
    aip_estimate_interval(exact_count, objects,
                          from_fixed(s->var_objects_fx, AIP_ESTIMATE_VAR_FRACTION_BITS), s->samples,
                          &out->count_low, &out->count_high);
    aip_estimate_interval(exact_bytes, s->est_bytes, s->var_bytes, s->samples, &out->bytes_low,
                          &out->bytes_high);
}

void aip_type_table_estimate(const aip_type_table *table, uint32_t index, aip_type_estimate *out)
{
    memset(out, 0, sizeof *out);
    if (index >= table->capacity)
        return;
    const aip_type_slot *slot = &table->slots[index];
    if (atomic_load_explicit((_Atomic uintptr_t *)&slot->class_id, memory_order_acquire) == 0)
        return;
    sums s = {0, 0, 0, 0, 0};
    add_slot(&s, slot);
    fill(out, load(&slot->count), load(&slot->bytes), &s);
}

void aip_type_table_total_estimate(const aip_type_table *table, aip_type_estimate *out)
{
    memset(out, 0, sizeof *out);
    sums s = {0, 0, 0, 0, 0};
    for (uint32_t i = 0; i < table->capacity; ++i)
        add_slot(&s, &table->slots[i]);
    const aip_sampled_sums *o = &table->overflow_sampled;
    add_sums(&s, load(&o->samples), load(&o->objects_fx), load(&o->est_bytes),
             load(&o->var_objects_fx), load(&o->var_bytes));
    fill(out, load(&table->total_objects), load(&table->total_bytes), &s);
}

void aip_type_table_overflow_estimate(const aip_type_table *table, uint64_t *objects,
                                      uint64_t *bytes)
{
    const aip_sampled_sums *o = &table->overflow_sampled;
    *objects = aip_saturating_add(load(&table->overflow_objects),
                                  from_fixed(load(&o->objects_fx), AIP_ESTIMATE_FRACTION_BITS));
    *bytes = aip_saturating_add(load(&table->overflow_bytes), load(&o->est_bytes));
}
