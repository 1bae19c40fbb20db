/* Exact per-type allocation counts: a lock-free open-addressing table keyed by ClassID,
 * allocated once at startup. Adding is wait-free apart from a bounded probe; a type that
 * finds no slot (the table keeps a quarter free) is counted as overflow, never lost. Pure. */
#ifndef AIP_TYPE_TABLE_H
#define AIP_TYPE_TABLE_H

#include <stdatomic.h>
#include <stdint.h>

typedef struct aip_type_slot {
    _Atomic uintptr_t class_id; /* 0: empty */
    _Atomic uint64_t count;
    _Atomic uint64_t bytes;
} aip_type_slot;

typedef struct aip_type_table {
    uint32_t capacity; /* a power of two */
    aip_type_slot *slots;
    _Atomic uint32_t used;
    _Atomic uint64_t total_objects;
    _Atomic uint64_t total_bytes;
    _Atomic uint64_t overflow_objects;
    _Atomic uint64_t overflow_bytes;
} aip_type_table;

/* Allocates `capacity` slots (rounded up to a power of two, at least 16). 0 on success. */
int aip_type_table_init(aip_type_table *table, uint32_t capacity);
void aip_type_table_free(aip_type_table *table);

/* Empties the table; only while nobody adds. */
void aip_type_table_clear(aip_type_table *table);

/* Counts one object of class_id (nonzero) and its size. Safe from any number of threads. */
void aip_type_table_add(aip_type_table *table, uintptr_t class_id, uint64_t bytes);

/* Slots that hold a type (capacity * 3/4 at most). */
uint32_t aip_type_table_used(const aip_type_table *table);

#endif
