/* PreparedRejit snapshots: allocation, references, and the process-wide accounting. */
#include "rejit/prepared_rejit.h"

#include <stdlib.h>
#include <string.h>

/* The snapshot allocator's accounting: process-wide, as the heap it counts. */
static _Atomic uint64_t g_prepared_bytes, g_prepared_count;

void aip_prepared_totals(uint64_t *bytes, uint64_t *count)
{
    *bytes = atomic_load_explicit(&g_prepared_bytes, memory_order_relaxed);
    *count = atomic_load_explicit(&g_prepared_count, memory_order_relaxed);
}

static size_t total_of(uint32_t body_size, uint32_t il_map_count)
{
    size_t body_space = ((size_t)body_size + 7u) & ~(size_t)7u;
    return sizeof(aip_prepared_rejit) + body_space +
           (size_t)il_map_count * sizeof(alvk_il_map_entry);
}

aip_prepared_rejit *aip_prepared_create(alvk_generation_id generation, const uint8_t *body,
                                        uint32_t size, const alvk_il_map_entry *il_map,
                                        uint32_t il_map_count)
{
    size_t body_space = ((size_t)size + 7u) & ~(size_t)7u;
    size_t map_bytes = (size_t)il_map_count * sizeof *il_map;
    size_t total = total_of(size, il_map_count);
    aip_prepared_rejit *p = malloc(total);
    if (p == NULL)
        return NULL;
    atomic_fetch_add_explicit(&g_prepared_bytes, total, memory_order_relaxed);
    atomic_fetch_add_explicit(&g_prepared_count, 1, memory_order_relaxed);
    atomic_init(&p->refs, 1);
    p->generation = generation;
    p->body_size = size;
    p->il_map_count = il_map_count;
    memset(&p->dispatch, 0, sizeof p->dispatch); /* NONE, OK: a generation's */
    memcpy(p->data, body, size);
    alvk_il_map_entry *map = (alvk_il_map_entry *)(void *)(p->data + body_space);
    if (map_bytes > 0)
        memcpy(map, il_map, map_bytes);
    p->il_map = map;
    return p;
}

aip_prepared_rejit *aip_prepared_retain(aip_prepared_rejit *prepared)
{
    if (prepared != NULL)
        atomic_fetch_add(&prepared->refs, 1);
    return prepared;
}

void aip_prepared_release(aip_prepared_rejit *prepared)
{
    if (prepared != NULL && atomic_fetch_sub(&prepared->refs, 1) == 1) {
        size_t total = total_of(prepared->body_size, prepared->il_map_count);
        atomic_fetch_sub_explicit(&g_prepared_bytes, total, memory_order_relaxed);
        atomic_fetch_sub_explicit(&g_prepared_count, 1, memory_order_relaxed);
        free(prepared);
    }
}
