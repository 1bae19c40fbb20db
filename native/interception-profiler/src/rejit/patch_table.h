/* RejitState's data: the patch table, each patch's owners and generation chain, and the
 * record of every accepted command. Types and lock-held helpers only; the transitions live in
 * rejit_state.c (commands), rejit_owners.c (who holds a patch), rejit_generations.c (the
 * generation chain) and rejit_events.c (what the runtime's callbacks record); the table's
 * storage (chunks, the (module, token) index, the free and ended lists) in patch_slots.c.
 * Every transition happens under `lock`, so readers see whole states. Pure: no runtime
 * calls. */
#ifndef AIP_PATCH_TABLE_H
#define AIP_PATCH_TABLE_H

#include "alvorkit_interception_profiler.h"
#include "platform/platform.h"
#include "rejit/prepared_rejit.h"

#include <stdatomic.h>
#include <stdint.h>

/* What the profiler keeps of one generation: its result and its relocations' results. The
 * relocations live on the heap, sized to the generation (an exact dispatch has one), so a
 * patch stays small. */
#define AIP_GENERATION_HISTORY 4
typedef struct aip_generation_entry {
    alvk_generation_result result;       /* result.generation == 0: empty */
    alvk_relocation_result *relocations; /* result.relocation_count of them, or NULL */
} aip_generation_entry;

/* A copy of one generation's record, as a reader gets it. */
typedef struct aip_generation_record {
    alvk_generation_result result;
    alvk_relocation_result relocations[ALVK_MAX_RELOCATIONS];
} aip_generation_record;

/* Distinct inliner ReJIT IDs counted per patch. */
#define AIP_PATCH_INLINER_IDS 32

typedef struct aip_patch {
    uint32_t generation; /* part of the handle; bumps when the slot is reused */
    uint8_t in_use;
    uint8_t closing; /* the last owner left; the restore is under way: nobody may join */
    alvk_patch_state state;
    alvk_status last_status;
    uint32_t pending;
    uint64_t ended_order; /* when it became terminal: recycling takes the oldest */
    alvk_mvid mvid;
    uint32_t token;
    uintptr_t copy_id;   /* the module copy the patch is for, as its first command named or */
    uint32_t copy_epoch; /* resolved it (0: it named none, and the worker rejects it) */
    uintptr_t module_id; /* 0 until the install validated (then copy_id) */
    uint64_t owners[ALVK_MAX_PATCH_OWNERS];
    uint64_t owner_replacements[ALVK_MAX_PATCH_OWNERS];      /* each owner's dispatch target or 0 */
    aip_prepared_rejit *owner_bodies[ALVK_MAX_PATCH_OWNERS]; /* each owner's last body */
    uint64_t owner_order[ALVK_MAX_PATCH_OWNERS];             /* when it was set */
    uint32_t owner_count;
    uint64_t owner_clock;
    aip_prepared_rejit *prepared;          /* NULL: the runtime keeps the original IL */
    alvk_generation_id latest_generation;  /* newest accepted: what the next must name */
    alvk_generation_id current_generation; /* requested or in force; 0: the original */
    aip_prepared_rejit *good;              /* the last body that compiled (NULL: original) */
    alvk_generation_id good_generation;    /* ... and its generation; a rollback returns here */
    uint8_t rollback_due;                  /* a failure was seen; the worker rolls back */
    uint64_t started_rejit_id;             /* the target's last ReJITCompilationStarted ... */
    uint8_t started_open;                  /* ... not yet followed by ReJITCompilationFinished */
    uint64_t rejit_seen_max;               /* the highest ReJIT ID a compilation started with */
    uint64_t rejit_floor; /* rejit_seen_max when the current generation was requested: the
                           * runtime numbers ReJIT IDs from one rising counter, so a callback
                           * with an ID at or below it compiles an older version (a thread still
                           * running the body the request replaced) and says nothing of this one */
    uint32_t history_next;
    aip_generation_entry history[AIP_GENERATION_HISTORY];
    uint64_t awaiting_compile_since; /* command time, until a compilation finishes */
    uint64_t request;                /* the number of its latest ReJIT request (0: none) */
    uint64_t inliner_rejit_ids[AIP_PATCH_INLINER_IDS]; /* distinct inliner ReJIT IDs counted */
    alvk_patch_telemetry telemetry; /* counters and HRESULTs; state fields filled on read */
    /* The table's own links (patch_slots.c): the free list (a slot whose first command was
     * never queued) or the ended list (oldest first), slot + 1 of the next; 0: none. */
    uint32_t list_prev;
    uint32_t list_next;
} aip_patch;

/* One accepted command's end, for alvk_command_wait; slot = id % ALVK_COMMAND_HISTORY. */
typedef struct aip_command_record {
    alvk_command_id id; /* 0: empty */
    alvk_status status;
    uint32_t done;
} aip_command_record;

/* The patch table grows by chunks of this many slots; a slot never moves, so a patch's index
 * (in its handle) names it for its whole life. */
#define AIP_PATCH_CHUNK_SLOTS 64u
/* Ended patches stay answerable (telemetry, wait, results) until this many newer ones ended;
 * then (or when the table is at its bound) the oldest ended idle patch's slot is recycled, so
 * the table holds the live patches and at most this many ended ones. */
#define AIP_ENDED_PATCHES_KEPT ALVK_MIN_PATCH_CAPACITY

/* The (module copy, token) index: open addressing, linear probing, slot + 1 per entry (0:
 * empty). Every patch in use whose copy_id is not 0 has one entry, live or ended, until its
 * slot is recycled or freed, so a lookup sees the live patch and the ended ones of a key. */
typedef struct aip_patch_index {
    uint32_t *entries; /* mask + 1 of them, or NULL */
    uint32_t mask;
    uint32_t count;
} aip_patch_index;

/* A doubly linked list of slots through aip_patch.list_prev/list_next (slot + 1; 0: none). */
typedef struct aip_patch_list {
    uint32_t head; /* slot + 1 of the first (oldest), 0: empty */
    uint32_t tail;
    uint32_t count;
} aip_patch_list;

typedef struct aip_rejit_state {
    aip_mutex lock;
    aip_cond changed;
    uint64_t end_counter;
    alvk_command_id last_command;
    aip_command_record commands[ALVK_COMMAND_HISTORY];
    alvk_generation_id last_generation_id;
    int32_t last_requested; /* patch index of the latest ReJIT request, or -1 */
    uint64_t requests;      /* ReJIT requests made: each numbers its patches' aip_patch.request */
    uint32_t rollbacks_due; /* patches with rollback_due set (aip_patch_set_rollback_due) */
    uint32_t capacity;      /* the bound (ALVORKIT_INTERCEPTION_MAX_PATCHES) */
    uint32_t extent;        /* slots handed out so far: every loop over the table stops here */
    uint32_t allocated;     /* slots in allocated chunks (a multiple of the chunk size) */
    uint32_t live;          /* patches in use and not terminal */
    aip_patch **chunks;     /* capacity / chunk size (rounded up) pointers, NULL until used */
    aip_patch_index index;
    aip_patch_list free_slots; /* slots below extent not in use */
    aip_patch_list ended;      /* ended patches in use, oldest first */
} aip_rejit_state;

/* Terminal states end a patch. */
static inline int aip_patch_state_is_terminal(alvk_patch_state state)
{
    return state == ALVK_PATCH_REMOVED || state == ALVK_PATCH_FAILED ||
           state == ALVK_PATCH_REJECTED || state == ALVK_PATCH_UNLOADED;
}

/* The patch in slot `index` (below st->extent). Lock held. */
static inline aip_patch *aip_patch_at(const aip_rejit_state *st, uint32_t index)
{
    return &st->chunks[index / AIP_PATCH_CHUNK_SLOTS][index % AIP_PATCH_CHUNK_SLOTS];
}

static inline alvk_patch_handle aip_patch_handle_of(const aip_rejit_state *st, uint32_t index)
{
    return ((uint64_t)aip_patch_at(st, index)->generation << 32) | (uint64_t)(index + 1);
}

/* The live patch behind a handle, or NULL (*index set when index is not NULL). Lock held. */
static inline aip_patch *aip_patch_from_handle(aip_rejit_state *st, alvk_patch_handle handle,
                                               uint32_t *index)
{
    uint64_t slot = handle & 0xFFFFFFFFu;
    if (slot == 0 || slot > st->extent)
        return NULL;
    aip_patch *p = aip_patch_at(st, (uint32_t)(slot - 1));
    if (!p->in_use || p->generation != (uint32_t)(handle >> 32))
        return NULL;
    if (index != NULL)
        *index = (uint32_t)(slot - 1);
    return p;
}

#endif
