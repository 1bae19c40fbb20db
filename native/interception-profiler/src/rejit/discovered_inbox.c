/* A bounded ring with a sequence per cell, kept relative to the cell's lap so that zeroed
 * storage is an empty ring: for position pos (lap = pos & ~MASK), the cell is free for its push
 * when its sequence is lap, and holds that push's item when it is lap + 1; the pop leaves it
 * free for the next lap (lap + CAPACITY). Pushers take positions with a compare-and-swap, the
 * one popper follows them. */
#include "rejit/discovered_inbox.h"

#define MASK ((uint64_t)AIP_DISCOVERED_CAPACITY - 1u)

int aip_inbox_push(aip_discovered_inbox *inbox, aip_discovered item)
{
    uint64_t pos = atomic_load_explicit(&inbox->push_at, memory_order_relaxed);
    for (;;) {
        aip_discovered_cell *cell = &inbox->cells[pos & MASK];
        uint64_t sequence = atomic_load_explicit(&cell->sequence, memory_order_acquire);
        int64_t lag = (int64_t)(sequence - (pos & ~MASK));
        if (lag == 0) {
            if (atomic_compare_exchange_weak_explicit(&inbox->push_at, &pos, pos + 1,
                                                      memory_order_relaxed, memory_order_relaxed)) {
                cell->item = item;
                atomic_store_explicit(&cell->sequence, (pos & ~MASK) + 1, memory_order_release);
                atomic_fetch_add_explicit(&inbox->pushed, 1, memory_order_relaxed);
                return 1;
            }
        } else if (lag < 0) {
            atomic_fetch_add_explicit(&inbox->dropped, 1, memory_order_relaxed);
            return 0; /* the cell still holds an item from a lap ago: full */
        } else {
            pos = atomic_load_explicit(&inbox->push_at, memory_order_relaxed);
        }
    }
}

int aip_inbox_pop(aip_discovered_inbox *inbox, aip_discovered *out)
{
    uint64_t pos = atomic_load_explicit(&inbox->pop_at, memory_order_relaxed);
    aip_discovered_cell *cell = &inbox->cells[pos & MASK];
    uint64_t sequence = atomic_load_explicit(&cell->sequence, memory_order_acquire);
    if (sequence != (pos & ~MASK) + 1)
        return 0; /* empty, or its push has not finished */
    *out = cell->item;
    atomic_store_explicit(&inbox->pop_at, pos + 1, memory_order_relaxed);
    atomic_store_explicit(&cell->sequence, (pos & ~MASK) + AIP_DISCOVERED_CAPACITY,
                          memory_order_release);
    return 1;
}

int aip_inbox_park(aip_discovered_inbox *inbox, aip_discovered item)
{
    for (uint32_t i = 0; i < inbox->parked_count; ++i)
        if (inbox->parked[i].module_id == item.module_id &&
            inbox->parked[i].caller == item.caller && inbox->parked[i].target == item.target)
            return 1; /* waiting already: found at two of its compilations */
    if (inbox->parked_count == AIP_DISCOVERED_CAPACITY) {
        atomic_fetch_add_explicit(&inbox->dropped, 1, memory_order_relaxed);
        return 0;
    }
    inbox->parked[inbox->parked_count++] = item;
    return 1;
}

uint32_t aip_inbox_take_parked(aip_discovered_inbox *inbox, aip_discovered *out)
{
    uint32_t n = inbox->parked_count;
    for (uint32_t i = 0; i < n; ++i)
        out[i] = inbox->parked[i];
    inbox->parked_count = 0;
    return n;
}

int aip_inbox_claim_drain(aip_discovered_inbox *inbox)
{
    return atomic_exchange(&inbox->drain_queued, 1) == 0;
}

/* An exchange, not a store: it reads what the last push's claim wrote, so every push whose
 * claim found a drain on its way is seen by the pops that follow. */
void aip_inbox_drain_done(aip_discovered_inbox *inbox)
{
    (void)atomic_exchange(&inbox->drain_queued, 0);
}
