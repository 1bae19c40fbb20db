/* The patch table's storage: chunks, the (module copy, token) index, the free and ended
 * lists. */
#include "rejit/patch_slots.h"

#include <stdlib.h>
#include <string.h>

#define INDEX_MIN_ENTRIES 64u

int aip_slots_init(aip_rejit_state *st, uint32_t capacity)
{
    uint32_t chunks = (capacity + AIP_PATCH_CHUNK_SLOTS - 1) / AIP_PATCH_CHUNK_SLOTS;
    st->capacity = capacity;
    st->chunks = calloc(chunks > 0 ? chunks : 1, sizeof *st->chunks);
    return st->chunks != NULL ? 0 : -1;
}

void aip_slots_destroy(aip_rejit_state *st)
{
    for (uint32_t c = 0; st->chunks != NULL && c < st->allocated / AIP_PATCH_CHUNK_SLOTS; ++c)
        free(st->chunks[c]);
    free(st->chunks);
    free(st->index.entries);
    st->chunks = NULL;
    st->index.entries = NULL;
    st->index.mask = st->index.count = 0;
    st->capacity = st->extent = st->allocated = 0;
}

/* ---- lists ----------------------------------------------------------------------------- */

static void list_append(aip_rejit_state *st, aip_patch_list *list, uint32_t index)
{
    aip_patch *p = aip_patch_at(st, index);
    p->list_prev = list->tail;
    p->list_next = 0;
    if (list->tail != 0)
        aip_patch_at(st, list->tail - 1)->list_next = index + 1;
    else
        list->head = index + 1;
    list->tail = index + 1;
    list->count++;
}

static void list_remove(aip_rejit_state *st, aip_patch_list *list, uint32_t index)
{
    aip_patch *p = aip_patch_at(st, index);
    if (p->list_prev != 0)
        aip_patch_at(st, p->list_prev - 1)->list_next = p->list_next;
    else
        list->head = p->list_next;
    if (p->list_next != 0)
        aip_patch_at(st, p->list_next - 1)->list_prev = p->list_prev;
    else
        list->tail = p->list_prev;
    p->list_prev = p->list_next = 0;
    list->count--;
}

/* ---- the index ------------------------------------------------------------------------- */

static uint32_t hash_of(uintptr_t copy_id, uint32_t token)
{
    uint64_t h =
        (uint64_t)copy_id * 0x9E3779B97F4A7C15ull ^ (uint64_t)token * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    return (uint32_t)(h >> 32);
}

static uint32_t home_of(const aip_rejit_state *st, uint32_t entry)
{
    const aip_patch *p = aip_patch_at(st, entry - 1);
    return hash_of(p->copy_id, p->token) & st->index.mask;
}

static void index_put(aip_rejit_state *st, uint32_t *entries, uint32_t mask, uint32_t entry)
{
    const aip_patch *p = aip_patch_at(st, entry - 1);
    uint32_t at = hash_of(p->copy_id, p->token) & mask;
    while (entries[at] != 0)
        at = (at + 1) & mask;
    entries[at] = entry;
}

/* Room for one more entry at a load of one half at most: 0, or -1 (nothing changed). */
static int index_reserve(aip_rejit_state *st)
{
    aip_patch_index *ix = &st->index;
    uint32_t size = ix->entries != NULL ? ix->mask + 1 : 0;
    if ((ix->count + 1) * 2 <= size)
        return 0;
    uint32_t grown = size == 0 ? INDEX_MIN_ENTRIES : size * 2;
    uint32_t *entries = calloc(grown, sizeof *entries);
    if (entries == NULL)
        return -1;
    for (uint32_t i = 0; i < size; ++i)
        if (ix->entries[i] != 0)
            index_put(st, entries, grown - 1, ix->entries[i]);
    free(ix->entries);
    ix->entries = entries;
    ix->mask = grown - 1;
    return 0;
}

int aip_slots_index_add(aip_rejit_state *st, uint32_t index)
{
    if (index_reserve(st) != 0)
        return -1;
    index_put(st, st->index.entries, st->index.mask, index + 1);
    st->index.count++;
    return 0;
}

/* Takes the slot's entry out, if it has one (backward-shift deletion: no tombstones). */
static void index_remove(aip_rejit_state *st, uint32_t index)
{
    aip_patch_index *ix = &st->index;
    const aip_patch *p = aip_patch_at(st, index);
    if (ix->entries == NULL || p->copy_id == 0)
        return;
    uint32_t at = hash_of(p->copy_id, p->token) & ix->mask;
    while (ix->entries[at] != 0 && ix->entries[at] != index + 1)
        at = (at + 1) & ix->mask;
    if (ix->entries[at] == 0)
        return;
    uint32_t hole = at;
    for (uint32_t next = (hole + 1) & ix->mask; ix->entries[next] != 0;
         next = (next + 1) & ix->mask) {
        uint32_t home = home_of(st, ix->entries[next]);
        /* The entry at `next` may move back into the hole unless its home lies cyclically in
         * (hole, next]. */
        int stays = hole <= next ? (home > hole && home <= next) : (home > hole || home <= next);
        if (!stays) {
            ix->entries[hole] = ix->entries[next];
            hole = next;
        }
    }
    ix->entries[hole] = 0;
    ix->count--;
}

void aip_slots_find(const aip_rejit_state *st, uintptr_t copy_id, uint32_t token,
                    aip_slot_cursor *cursor)
{
    cursor->copy_id = copy_id;
    cursor->token = token;
    cursor->position = hash_of(copy_id, token) & st->index.mask;
    cursor->steps = 0;
}

int aip_slots_next(const aip_rejit_state *st, aip_slot_cursor *cursor, uint32_t *index)
{
    const aip_patch_index *ix = &st->index;
    if (ix->entries == NULL || cursor->copy_id == 0)
        return 0;
    while (cursor->steps <= ix->mask) {
        uint32_t entry = ix->entries[cursor->position];
        if (entry == 0)
            return 0;
        cursor->position = (cursor->position + 1) & ix->mask;
        cursor->steps++;
        const aip_patch *p = aip_patch_at(st, entry - 1);
        if (p->copy_id == cursor->copy_id && p->token == cursor->token) {
            *index = entry - 1;
            return 1;
        }
    }
    return 0;
}

aip_patch *aip_slots_newest(aip_rejit_state *st, uintptr_t module_id, uint32_t token)
{
    aip_patch *best = NULL;
    aip_slot_cursor cursor;
    uint32_t i;
    aip_slots_find(st, module_id, token, &cursor);
    while (aip_slots_next(st, &cursor, &i)) {
        aip_patch *p = aip_patch_at(st, i);
        if (!p->in_use || p->module_id != module_id || p->token != token || module_id == 0)
            continue;
        if (!aip_patch_state_is_terminal(p->state))
            return p;
        if (best == NULL || p->ended_order > best->ended_order)
            best = p;
    }
    return best;
}

/* ---- slots ----------------------------------------------------------------------------- */

/* The next never-used slot (the chunk allocated when needed), AIP_SLOTS_FULL or
 * AIP_SLOTS_NO_MEMORY. */
static int grow(aip_rejit_state *st)
{
    if (st->extent >= st->capacity)
        return AIP_SLOTS_FULL;
    if (st->extent == st->allocated) {
        aip_patch *chunk = malloc(AIP_PATCH_CHUNK_SLOTS * sizeof *chunk);
        if (chunk == NULL)
            return AIP_SLOTS_NO_MEMORY;
        st->chunks[st->allocated / AIP_PATCH_CHUNK_SLOTS] = chunk;
        st->allocated += AIP_PATCH_CHUNK_SLOTS;
    }
    uint32_t index = st->extent++;
    /* Zeroed when first handed out, not before: a chunk costs memory as it is used. */
    memset(aip_patch_at(st, index), 0, sizeof(aip_patch));
    return (int)index;
}

/* The oldest ended patch with nothing pending and no snapshot, or -1. */
static int oldest_idle_ended(const aip_rejit_state *st)
{
    for (uint32_t at = st->ended.head; at != 0; at = aip_patch_at(st, at - 1)->list_next) {
        const aip_patch *p = aip_patch_at(st, at - 1);
        if (p->pending == 0 && p->prepared == NULL)
            return (int)(at - 1);
    }
    return -1;
}

int aip_slots_take(aip_rejit_state *st)
{
    if (st->free_slots.head != 0) {
        uint32_t index = st->free_slots.head - 1;
        list_remove(st, &st->free_slots, index);
        return (int)index;
    }
    int index = -1;
    if (st->ended.count >= AIP_ENDED_PATCHES_KEPT || st->extent >= st->capacity)
        index = oldest_idle_ended(st);
    if (index < 0)
        return grow(st);
    list_remove(st, &st->ended, (uint32_t)index);
    index_remove(st, (uint32_t)index);
    return index;
}

uint32_t aip_slots_available(const aip_rejit_state *st)
{
    uint32_t n = st->free_slots.count + (st->capacity - st->extent);
    for (uint32_t at = st->ended.head; at != 0; at = aip_patch_at(st, at - 1)->list_next) {
        const aip_patch *p = aip_patch_at(st, at - 1);
        n += p->pending == 0 && p->prepared == NULL;
    }
    return n;
}

void aip_slots_release(aip_rejit_state *st, uint32_t index)
{
    index_remove(st, index);
    list_append(st, &st->free_slots, index);
}

void aip_slots_ended(aip_rejit_state *st, uint32_t index)
{
    list_append(st, &st->ended, index);
}
