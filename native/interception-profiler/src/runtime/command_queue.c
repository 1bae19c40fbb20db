/* Bounded command queue: one mutex, two condition variables, preallocated slots. */
#include "runtime/command_queue.h"

#include <stddef.h>
#include <string.h>

alvk_status aip_queue_init(aip_queue *q, uint32_t capacity, void *context)
{
    /* Everything before the slots is reset; of each slot only its state is read before it is
     * written, and it is written only when not already FREE: slots never used stay untouched
     * (the profiler's are zero pages the OS has not backed yet). A slot's sequence goes on. */
    memset(q, 0, offsetof(aip_queue, slots));
    for (uint32_t i = 0; i < AIP_QUEUE_MAX_CAPACITY; ++i)
        if (q->slots[i].state != AIP_SLOT_FREE)
            q->slots[i].state = AIP_SLOT_FREE;
    if (capacity == 0 || capacity > AIP_QUEUE_MAX_CAPACITY)
        return ALVK_E_INTERNAL;
    if (aip_mutex_init(&q->lock) != 0)
        return ALVK_E_INTERNAL;
    if (aip_cond_init(&q->work_ready) != 0) {
        aip_mutex_destroy(&q->lock);
        return ALVK_E_INTERNAL;
    }
    if (aip_cond_init(&q->work_done) != 0) {
        aip_cond_destroy(&q->work_ready);
        aip_mutex_destroy(&q->lock);
        return ALVK_E_INTERNAL;
    }
    q->capacity = capacity;
    q->context = context;
    atomic_init(&q->completed, 0);
    return ALVK_OK;
}

void aip_queue_destroy(aip_queue *q)
{
    aip_cond_destroy(&q->work_done);
    aip_cond_destroy(&q->work_ready);
    aip_mutex_destroy(&q->lock);
}

static uint64_t make_ticket(uint32_t slot, uint32_t sequence)
{
    return ((uint64_t)sequence << 32) | slot;
}

static void free_slot(aip_queue *q, aip_queue_slot *slot)
{
    slot->state = AIP_SLOT_FREE;
    slot->abandoned = 0;
    slot->run = NULL;
    slot->discard = NULL;
    --q->in_use;
}

static void finish(aip_queue *q, aip_queue_slot *slot, alvk_status result);

/* Takes a free slot. Lock held. */
static alvk_status take(aip_queue *q, uint32_t *index)
{
    if (q->stopping)
        return ALVK_E_WORKER_UNAVAILABLE;
    if (q->in_use == q->capacity)
        return ALVK_E_QUEUE_FULL;
    uint32_t i = 0;
    while (q->slots[i].state != AIP_SLOT_FREE)
        ++i;
    q->slots[i].state = AIP_SLOT_RESERVED;
    ++q->in_use;
    *index = i;
    return ALVK_OK;
}

/* Fills a taken slot and queues it. Lock held; the queue is not stopping. */
static void enqueue(aip_queue *q, uint32_t index, aip_command_fn run,
                    aip_command_discard_fn discard, const void *payload, size_t payload_size,
                    uint64_t *ticket)
{
    aip_queue_slot *slot = &q->slots[index];
    slot->state = AIP_SLOT_QUEUED;
    slot->abandoned = ticket == NULL; /* fire and forget: freed when it finishes */
    slot->sequence++;
    slot->result = ALVK_E_INTERNAL;
    slot->run = run;
    slot->discard = discard;
    memset(slot->payload, 0, sizeof slot->payload);
    if (payload_size > 0)
        memcpy(slot->payload, payload, payload_size);
    q->order[(q->head + q->queued) % q->capacity] = index;
    ++q->queued;
    if (ticket != NULL)
        *ticket = make_ticket(index, slot->sequence);
    aip_cond_signal(&q->work_ready);
}

alvk_status aip_queue_submit(aip_queue *q, aip_command_fn run, const void *payload,
                             size_t payload_size, uint64_t *ticket)
{
    if (run == NULL || (payload == NULL && payload_size > 0))
        return ALVK_E_NULL_ARGUMENT;
    if (payload_size > AIP_COMMAND_PAYLOAD_BYTES)
        return ALVK_E_INTERNAL;
    aip_mutex_lock(&q->lock);
    uint32_t index = 0;
    alvk_status status = take(q, &index);
    if (status == ALVK_OK)
        enqueue(q, index, run, NULL, payload, payload_size, ticket);
    aip_mutex_unlock(&q->lock);
    return status;
}

alvk_status aip_queue_reserve(aip_queue *q, uint32_t *slot)
{
    aip_mutex_lock(&q->lock);
    alvk_status status = take(q, slot);
    aip_mutex_unlock(&q->lock);
    return status;
}

void aip_queue_release(aip_queue *q, uint32_t slot)
{
    aip_mutex_lock(&q->lock);
    if (slot < q->capacity && q->slots[slot].state == AIP_SLOT_RESERVED)
        free_slot(q, &q->slots[slot]);
    aip_cond_broadcast(&q->work_done);
    aip_mutex_unlock(&q->lock);
}

void aip_queue_commit(aip_queue *q, uint32_t slot, aip_command_fn run,
                      aip_command_discard_fn discard, const void *payload, size_t payload_size,
                      uint64_t *ticket)
{
    aip_mutex_lock(&q->lock);
    if (slot >= q->capacity || q->slots[slot].state != AIP_SLOT_RESERVED) {
        aip_mutex_unlock(&q->lock); /* a caller's bug: nothing was reserved for this */
        return;
    }
    if (payload_size > AIP_COMMAND_PAYLOAD_BYTES) { /* a caller's bug: give the slot back */
        free_slot(q, &q->slots[slot]);
        aip_mutex_unlock(&q->lock);
        return;
    }
    if (!q->stopping) {
        enqueue(q, slot, run, discard, payload, payload_size, ticket);
        aip_mutex_unlock(&q->lock);
        return;
    }
    /* Stopped since the reservation: the command completes unrun, here. */
    aip_queue_slot *s = &q->slots[slot];
    s->state = AIP_SLOT_RUNNING;
    s->abandoned = ticket == NULL;
    s->sequence++;
    memset(s->payload, 0, sizeof s->payload);
    if (payload_size > 0)
        memcpy(s->payload, payload, payload_size);
    if (ticket != NULL)
        *ticket = make_ticket(slot, s->sequence);
    aip_mutex_unlock(&q->lock);
    if (discard != NULL)
        discard(s->payload, q->context);
    aip_mutex_lock(&q->lock);
    finish(q, s, ALVK_E_WORKER_UNAVAILABLE);
    aip_mutex_unlock(&q->lock);
}

alvk_status aip_queue_wait(aip_queue *q, uint64_t ticket, uint64_t timeout_ns, alvk_status *result,
                           void *payload_out, size_t payload_out_size)
{
    uint32_t index = (uint32_t)(ticket & 0xFFFFFFFFu);
    uint32_t sequence = (uint32_t)(ticket >> 32);
    if (result == NULL || (payload_out == NULL && payload_out_size > 0))
        return ALVK_E_NULL_ARGUMENT;
    if (payload_out_size > AIP_COMMAND_PAYLOAD_BYTES)
        return ALVK_E_INTERNAL;
    if (index >= q->capacity)
        return ALVK_E_INTERNAL;
    uint64_t deadline = aip_monotonic_ns() + timeout_ns;
    aip_mutex_lock(&q->lock);
    aip_queue_slot *slot = &q->slots[index];
    alvk_status status = ALVK_OK;
    for (;;) {
        if (slot->sequence != sequence || slot->state == AIP_SLOT_FREE ||
            slot->state == AIP_SLOT_RESERVED || slot->abandoned) {
            status = ALVK_E_INTERNAL;
            break;
        }
        if (slot->state == AIP_SLOT_DONE) {
            *result = slot->result;
            if (payload_out_size > 0)
                memcpy(payload_out, slot->payload, payload_out_size);
            free_slot(q, slot);
            break;
        }
        if (aip_cond_wait_until(&q->work_done, &q->lock, deadline) != 0 &&
            slot->state != AIP_SLOT_DONE) {
            slot->abandoned = 1;
            status = ALVK_E_TIMEOUT;
            break;
        }
    }
    aip_mutex_unlock(&q->lock);
    return status;
}

/* Called with the lock held: records the result and frees the slot if nobody waits. */
static void finish(aip_queue *q, aip_queue_slot *slot, alvk_status result)
{
    slot->result = result;
    slot->state = AIP_SLOT_DONE;
    atomic_fetch_add_explicit(&q->completed, 1, memory_order_relaxed);
    if (slot->abandoned)
        free_slot(q, slot);
    aip_cond_broadcast(&q->work_done);
}

void aip_queue_run_worker(aip_queue *q)
{
    aip_mutex_lock(&q->lock);
    for (;;) {
        while (!q->stopping && q->queued == 0)
            aip_cond_wait(&q->work_ready, &q->lock);
        if (q->stopping)
            break;
        aip_queue_slot *slot = &q->slots[q->order[q->head]];
        q->head = (q->head + 1) % q->capacity;
        --q->queued;
        slot->state = AIP_SLOT_RUNNING;
        aip_mutex_unlock(&q->lock);
        alvk_status result = slot->run(slot->payload, q->context);
        aip_mutex_lock(&q->lock);
        finish(q, slot, result);
    }
    while (q->queued > 0) {
        aip_queue_slot *slot = &q->slots[q->order[q->head]];
        q->head = (q->head + 1) % q->capacity;
        --q->queued;
        slot->state = AIP_SLOT_RUNNING;
        if (slot->discard != NULL) {
            aip_mutex_unlock(&q->lock);
            slot->discard(slot->payload, q->context);
            aip_mutex_lock(&q->lock);
        }
        finish(q, slot, ALVK_E_WORKER_UNAVAILABLE);
    }
    aip_mutex_unlock(&q->lock);
}

void aip_queue_stop(aip_queue *q)
{
    aip_mutex_lock(&q->lock);
    q->stopping = 1;
    aip_cond_broadcast(&q->work_ready);
    aip_mutex_unlock(&q->lock);
}

uint32_t aip_queue_depth(aip_queue *q)
{
    aip_mutex_lock(&q->lock);
    uint32_t depth = q->queued;
    aip_mutex_unlock(&q->lock);
    return depth;
}

uint32_t aip_queue_slots_in_use(aip_queue *q)
{
    aip_mutex_lock(&q->lock);
    uint32_t n = q->in_use;
    aip_mutex_unlock(&q->lock);
    return n;
}

uint64_t aip_queue_completed(aip_queue *q)
{
    return atomic_load_explicit(&q->completed, memory_order_relaxed);
}
