/* A relocation's operands (relocation_sites.h): its sites read from the blob pool, and the
 * operand-to-relocation map the stack check looks instructions up in. */
#include "generation/relocation_sites.h"

#include <stdlib.h>
#include <string.h>

int aip_relocation_sites_inside(const alvk_generation *g, const alvk_relocation *r)
{
    uint64_t end = (uint64_t)r->sites_offset + (uint64_t)r->site_count * AIP_RELOCATION_SITE_BYTES;
    return r->site_count == 0 || end <= (uint64_t)g->blobs_size;
}

uint32_t aip_relocation_site(const alvk_generation *g, const alvk_relocation *r, uint32_t j)
{
    const uint8_t *at = g->blobs + r->sites_offset + (size_t)j * AIP_RELOCATION_SITE_BYTES;
    return (uint32_t)at[0] | (uint32_t)at[1] << 8 | (uint32_t)at[2] << 16 | (uint32_t)at[3] << 24;
}

static int by_operand(const void *a, const void *b)
{
    uint32_t x = ((const aip_site_entry *)a)->operand, y = ((const aip_site_entry *)b)->operand;
    return (x > y) - (x < y);
}

void aip_site_map_build(const alvk_generation *g, aip_site_map *map)
{
    memset(map, 0, sizeof *map);
    size_t total = 0;
    for (uint32_t i = 0; i < g->relocation_count; ++i)
        total += 1u + (size_t)g->relocations[i].site_count;
    map->entries = total > 0 ? malloc(total * sizeof *map->entries) : NULL;
    if (map->entries == NULL) {
        map->complete = total == 0;
        return;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->relocation_count; ++i) {
        const alvk_relocation *r = &g->relocations[i];
        if (r->il_offset != ALVK_RELOCATION_NO_OPERAND)
            map->entries[n++] = (aip_site_entry){r->il_offset, i};
        for (uint32_t j = 0; j < r->site_count; ++j)
            map->entries[n++] = (aip_site_entry){aip_relocation_site(g, r, j), i};
    }
    qsort(map->entries, n, sizeof *map->entries, by_operand);
    map->count = n;
    map->complete = 1;
}

void aip_site_map_free(aip_site_map *map)
{
    free(map->entries);
    memset(map, 0, sizeof *map);
}

/* Without a map: every relocation's operands, in order. */
static uint32_t scan(const alvk_generation *g, uint32_t operand)
{
    for (uint32_t i = 0; i < g->relocation_count; ++i) {
        const alvk_relocation *r = &g->relocations[i];
        if (r->il_offset == operand)
            return i;
        for (uint32_t j = 0; j < r->site_count; ++j)
            if (aip_relocation_site(g, r, j) == operand)
                return i;
    }
    return UINT32_MAX;
}

uint32_t aip_site_map_find(const aip_site_map *map, const alvk_generation *g, uint32_t operand)
{
    if (operand == ALVK_RELOCATION_NO_OPERAND)
        return UINT32_MAX;
    if (!map->complete)
        return scan(g, operand);
    uint32_t lo = 0, hi = map->count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2u;
        if (map->entries[mid].operand < operand)
            lo = mid + 1u;
        else
            hi = mid;
    }
    return lo < map->count && map->entries[lo].operand == operand ? map->entries[lo].relocation
                                                                  : UINT32_MAX;
}
