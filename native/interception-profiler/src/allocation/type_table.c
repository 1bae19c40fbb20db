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

void aip_type_table_clear(aip_type_table *table)
{
    for (uint32_t i = 0; i < table->capacity; ++i) {
        atomic_store_explicit(&table->slots[i].class_id, 0, memory_order_relaxed);
        atomic_store_explicit(&table->slots[i].count, 0, memory_order_relaxed);
        atomic_store_explicit(&table->slots[i].bytes, 0, memory_order_relaxed);
    }
    atomic_store(&table->used, 0);
    atomic_store(&table->total_objects, 0);
    atomic_store(&table->total_bytes, 0);
    atomic_store(&table->overflow_objects, 0);
    atomic_store(&table->overflow_bytes, 0);
}

static uint32_t hash_class(uintptr_t class_id)
{
    uint64_t h = (uint64_t)class_id * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 32);
}

void aip_type_table_add(aip_type_table *table, uintptr_t class_id, uint64_t bytes)
{
    atomic_fetch_add_explicit(&table->total_objects, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&table->total_bytes, bytes, memory_order_relaxed);
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
                break;
            uintptr_t expected = 0;
            if (atomic_compare_exchange_strong(&slot->class_id, &expected, class_id)) {
                atomic_fetch_add_explicit(&table->used, 1, memory_order_relaxed);
                seen = class_id;
            } else {
                seen = expected; /* another thread took it: maybe for the same class */
            }
        }
        if (seen == class_id) {
            atomic_fetch_add_explicit(&slot->count, 1, memory_order_relaxed);
            atomic_fetch_add_explicit(&slot->bytes, bytes, memory_order_relaxed);
            return;
        }
    }
    atomic_fetch_add_explicit(&table->overflow_objects, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&table->overflow_bytes, bytes, memory_order_relaxed);
}

uint32_t aip_type_table_used(const aip_type_table *table)
{
    return atomic_load(&((aip_type_table *)table)->used);
}
