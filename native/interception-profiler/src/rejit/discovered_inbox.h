/* The callers found on the JIT's threads calling a carried target (rejit/caller_discovery.h),
 * handed to the worker: a bounded ring of fixed cells, pushed by any thread without a lock or
 * an allocation, drained by the worker alone. A full ring drops the caller (counted): it keeps
 * its real call. `drain_queued` says a drain command is on its way, so that a burst of pushes
 * queues one command, not one per caller. Pure. */
#ifndef AIP_DISCOVERED_INBOX_H
#define AIP_DISCOVERED_INBOX_H

#include <stdatomic.h>
#include <stdint.h>

#define AIP_DISCOVERED_CAPACITY 64 /* power of two; zeroed storage is an empty inbox */

typedef struct aip_discovered {
    uintptr_t module_id;
    uint32_t caller; /* MethodDef compiled with a call of target */
    uint32_t target;
} aip_discovered;

typedef struct aip_discovered_cell {
    _Atomic uint64_t sequence; /* relative to the cell's lap (discovered_inbox.c) */
    aip_discovered item;
} aip_discovered_cell;

typedef struct aip_discovered_inbox {
    aip_discovered_cell cells[AIP_DISCOVERED_CAPACITY];
    _Atomic uint64_t push_at;
    _Atomic uint64_t pop_at;
    _Atomic uint32_t drain_queued;
    _Atomic uint64_t pushed;
    _Atomic uint64_t dropped; /* the ring was full, or no room to wait */
    /* The worker's alone: callers of targets whose carrier is not armed yet, kept for a later
     * drain (aip_inbox_park, aip_inbox_take_parked). */
    aip_discovered parked[AIP_DISCOVERED_CAPACITY];
    uint32_t parked_count;
} aip_discovered_inbox;

/* Any thread: 1 when queued, 0 when the ring is full (counted as dropped). */
int aip_inbox_push(aip_discovered_inbox *inbox, aip_discovered item);

/* The worker (one thread): 1 and *out for the oldest item, 0 when none is ready. */
int aip_inbox_pop(aip_discovered_inbox *inbox, aip_discovered *out);

/* The worker: item kept until a later drain. 1, or 0 when AIP_DISCOVERED_CAPACITY wait already
 * (counted as dropped). */
int aip_inbox_park(aip_discovered_inbox *inbox, aip_discovered item);

/* The worker: the items parked, moved into out (AIP_DISCOVERED_CAPACITY of room); how many. */
uint32_t aip_inbox_take_parked(aip_discovered_inbox *inbox, aip_discovered *out);

/* After a push: 1 when the caller is the one to queue a drain (none was on its way). */
int aip_inbox_claim_drain(aip_discovered_inbox *inbox);

/* The drain starts (before its first pop), or its command could not be queued: a later push
 * claims a new one. */
void aip_inbox_drain_done(aip_discovered_inbox *inbox);

#endif
