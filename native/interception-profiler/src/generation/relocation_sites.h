/* A relocation's operands: its il_offset and the extra sites (alvk_relocation.site_count
 * offsets in the blob pool), read one way for validation, the stack check and emission, and
 * a sorted map from an operand to the relocation that fills it. Pure. */
#ifndef AIP_RELOCATION_SITES_H
#define AIP_RELOCATION_SITES_H

#include "alvorkit_interception_profiler.h"

#include <stdint.h>

/* Bytes of the blob pool one site takes. */
#define AIP_RELOCATION_SITE_BYTES 4u

/* 1 when r's sites lie inside g's blob pool (none always do). */
int aip_relocation_sites_inside(const alvk_generation *g, const alvk_relocation *r);

/* Site j (< r->site_count) of r, little-endian from the pool; the caller checked
 * aip_relocation_sites_inside. */
uint32_t aip_relocation_site(const alvk_generation *g, const alvk_relocation *r, uint32_t j);

/* Every operand of a validated generation that a relocation fills (il_offset and the sites;
 * ALVK_RELOCATION_NO_OPERAND left out), sorted by operand, with its relocation's index. */
typedef struct aip_site_entry {
    uint32_t operand;
    uint32_t relocation;
} aip_site_entry;

typedef struct aip_site_map {
    aip_site_entry *entries; /* heap; NULL when there are none or memory ran out */
    uint32_t count;
    uint8_t complete; /* 0: out of memory, aip_site_map_find falls back to a scan */
} aip_site_map;

/* Builds the map of g (validated, so no two entries share an operand). Free with
 * aip_site_map_free. */
void aip_site_map_build(const alvk_generation *g, aip_site_map *map);
void aip_site_map_free(aip_site_map *map);

/* The index of the relocation that fills `operand`, or UINT32_MAX when none does. */
uint32_t aip_site_map_find(const aip_site_map *map, const alvk_generation *g, uint32_t operand);

#endif
