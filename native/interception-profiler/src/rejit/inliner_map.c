/* Open-addressing set of (callee, caller) pairs. A map no pair was ever added to is not scanned:
 * its slots are zero pages nothing has touched, and a first scan took a page fault for each
 * (0.5 ms in a process's first patch batch). */
#include "rejit/inliner_map.h"

#include <string.h>

int aip_inliner_map_init(aip_inliner_map *map)
{
    return aip_mutex_init(&map->lock);
}

static uint32_t hash_pair(aip_method_key callee, aip_method_key caller)
{
    uint64_t h = (uint64_t)callee.module_id * 0x9E3779B97F4A7C15ull;
    h ^= callee.token + 0x7F4A7C15u + (h << 6) + (h >> 2);
    h ^= (uint64_t)caller.module_id * 0xC2B2AE3D27D4EB4Full;
    h ^= caller.token + (h << 6) + (h >> 2);
    return (uint32_t)(h ^ (h >> 32));
}

/* A removed pair: not empty (so probing continues past it), never a real ModuleID. */
#define AIP_TOMBSTONE ((uintptr_t)1)

/* How many slots a scan visits: none while no pair was ever added (count never decreases). */
static uint32_t scanned_slots(const aip_inliner_map *map)
{
    return map->count > 0 ? AIP_INLINER_MAP_CAPACITY : 0;
}

static int same(aip_method_key a, aip_method_key b)
{
    return a.module_id == b.module_id && a.token == b.token;
}

int aip_inliner_map_add(aip_inliner_map *map, aip_method_key callee, aip_method_key caller)
{
    if (callee.module_id == 0 || callee.module_id == AIP_TOMBSTONE)
        return 0;
    int added = 0;
    aip_mutex_lock(&map->lock);
    uint32_t mask = AIP_INLINER_MAP_CAPACITY - 1;
    uint32_t at = hash_pair(callee, caller) & mask;
    for (uint32_t probe = 0; probe < AIP_INLINER_MAP_CAPACITY; ++probe, at = (at + 1) & mask) {
        aip_inliner_pair *slot = &map->slots[at];
        if (slot->callee.module_id == 0) {
            /* Keep a quarter free so probes stay short. */
            if (map->count >= AIP_INLINER_MAP_CAPACITY - AIP_INLINER_MAP_CAPACITY / 4) {
                map->dropped++;
            } else {
                slot->callee = callee;
                slot->caller = caller;
                map->count++;
                added = 1;
            }
            break;
        }
        if (same(slot->callee, callee) && same(slot->caller, caller))
            break;
    }
    aip_mutex_unlock(&map->lock);
    return added;
}

void aip_inliner_map_forget_module(aip_inliner_map *map, uintptr_t module_id)
{
    aip_mutex_lock(&map->lock);
    for (uint32_t i = 0, end = scanned_slots(map); i < end; ++i) {
        aip_inliner_pair *slot = &map->slots[i];
        if (slot->callee.module_id == module_id || slot->caller.module_id == module_id) {
            slot->callee.module_id = AIP_TOMBSTONE;
            slot->caller.module_id = AIP_TOMBSTONE;
        }
    }
    aip_mutex_unlock(&map->lock);
}

uint32_t aip_inliner_map_callers(aip_inliner_map *map, aip_method_key callee, aip_method_key *out,
                                 uint32_t capacity)
{
    uint32_t n = 0;
    aip_mutex_lock(&map->lock);
    for (uint32_t i = 0, end = scanned_slots(map); i < end; ++i) {
        const aip_inliner_pair *slot = &map->slots[i];
        if (slot->callee.module_id != 0 && same(slot->callee, callee)) {
            if (n < capacity)
                out[n] = slot->caller;
            ++n;
        }
    }
    aip_mutex_unlock(&map->lock);
    return n;
}

/* 1 when key is one of the n in list. */
static int listed(const aip_method_key *list, uint32_t n, aip_method_key key)
{
    for (uint32_t i = 0; i < n; ++i)
        if (same(list[i], key))
            return 1;
    return 0;
}

static int live_pair(const aip_inliner_pair *slot)
{
    return slot->callee.module_id != 0 && slot->callee.module_id != AIP_TOMBSTONE;
}

uint32_t aip_inliner_map_inlinees(aip_inliner_map *map, aip_method_key caller, aip_method_key *out,
                                  uint32_t capacity, uint64_t *counted)
{
    uint32_t n = 0;
    /* Each level's callers: caller itself, then out[from, to), the level found before. */
    uint32_t from = 0, to = 0;
    *counted = 0;
    aip_mutex_lock(&map->lock);
    for (uint32_t depth = 0; depth < AIP_INLINEE_DEPTH; ++depth) {
        for (uint32_t i = 0, end = scanned_slots(map); i < end; ++i) {
            const aip_inliner_pair *slot = &map->slots[i];
            if (!live_pair(slot))
                continue;
            int direct = same(slot->caller, caller);
            if (direct && slot->counted > *counted)
                *counted = slot->counted;
            if (n < capacity &&
                (depth == 0 ? direct : listed(out + from, to - from, slot->caller)) &&
                !same(slot->callee, caller) && !listed(out, n, slot->callee))
                out[n++] = slot->callee;
        }
        if (n == to)
            break; /* nothing new: no deeper level */
        from = to;
        to = n;
    }
    aip_mutex_unlock(&map->lock);
    return n;
}

int aip_inliner_map_raise_counted(aip_inliner_map *map, aip_method_key caller, uint64_t seen,
                                  uint64_t request)
{
    int raised = 1;
    aip_mutex_lock(&map->lock);
    for (uint32_t i = 0, end = scanned_slots(map); i < end && raised; ++i) {
        const aip_inliner_pair *slot = &map->slots[i];
        if (live_pair(slot) && same(slot->caller, caller) && slot->counted > seen)
            raised = 0;
    }
    for (uint32_t i = 0, end = scanned_slots(map); i < end && raised; ++i) {
        aip_inliner_pair *slot = &map->slots[i];
        if (live_pair(slot) && same(slot->caller, caller))
            slot->counted = request;
    }
    aip_mutex_unlock(&map->lock);
    return raised;
}

uint32_t aip_inliner_map_dropped(aip_inliner_map *map)
{
    aip_mutex_lock(&map->lock);
    uint32_t dropped = map->dropped;
    aip_mutex_unlock(&map->lock);
    return dropped;
}
