/* The patch table's storage: slots in chunks allocated as the table grows (up to the bound),
 * the (module copy, token) index that install joins and the runtime's callbacks look up
 * instead of scanning the table, the free list and the ended list (oldest first, what
 * recycling takes). Every function here runs with the table's lock held and changes only
 * the storage; rejit_state.c decides the transitions. Pure: no runtime calls. */
#ifndef AIP_PATCH_SLOTS_H
#define AIP_PATCH_SLOTS_H

#include "rejit/patch_table.h"

/* An empty table of at most `capacity` slots (ALVK_MIN_PATCH_CAPACITY..ALVK_MAX_PATCH_CAPACITY):
 * only the chunk directory is allocated. 0, or -1 when out of memory. */
int aip_slots_init(aip_rejit_state *st, uint32_t capacity);

/* Frees every chunk, the index and the directory (heap parts of the patches are the
 * caller's: aip_rejit_destroy). */
void aip_slots_destroy(aip_rejit_state *st);

/* A slot for a new patch, in this order: a free one; the oldest ended idle one (no command
 * pending, no snapshot) once AIP_ENDED_PATCHES_KEPT patches have ended or the table is at its
 * bound; a new one (growing by a chunk when needed). The slot is off every list and out of
 * the index, its record as it was (the caller resets it). AIP_SLOTS_FULL when the bound is
 * live, AIP_SLOTS_NO_MEMORY when the chunk could not be allocated. */
#define AIP_SLOTS_FULL (-1)
#define AIP_SLOTS_NO_MEMORY (-2)
int aip_slots_take(aip_rejit_state *st);

/* How many slots aip_slots_take could hand out now, one after another: free ones, room
 * below the bound, and ended idle patches (recycled when the others run out). */
uint32_t aip_slots_available(const aip_rejit_state *st);

/* A slot taken but never used (its first command was not queued): back to the free list. */
void aip_slots_release(aip_rejit_state *st, uint32_t index);

/* The patch in `index` ended (it is in use): appended to the ended list. */
void aip_slots_ended(aip_rejit_state *st, uint32_t index);

/* Adds the patch in `index` (in use, copy_id set and not 0) to the index. 0, or -1 when the
 * index could not grow (the patch is then not found by lookups: the caller refuses it). */
int aip_slots_index_add(aip_rejit_state *st, uint32_t index);

/* A walk over the patches in use of one (copy_id, token), live or ended, in no particular
 * order: aip_slots_find starts it, aip_slots_next gives the next slot (1) or ends it (0). The
 * table must not change during the walk. */
typedef struct aip_slot_cursor {
    uintptr_t copy_id;
    uint32_t token;
    uint32_t position;
    uint32_t steps;
} aip_slot_cursor;
void aip_slots_find(const aip_rejit_state *st, uintptr_t copy_id, uint32_t token,
                    aip_slot_cursor *cursor);
int aip_slots_next(const aip_rejit_state *st, aip_slot_cursor *cursor, uint32_t *index);

/* The patch of (module, token) the runtime's callbacks and the worker's notes are about: the
 * live one, else the one that ended last; NULL when it has none (or module_id is 0). */
aip_patch *aip_slots_newest(aip_rejit_state *st, uintptr_t module_id, uint32_t token);

#endif
