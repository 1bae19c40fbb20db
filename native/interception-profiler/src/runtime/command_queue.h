/* The bounded command queue drained by the profiler's native worker thread.
 *
 * Slots are preallocated. A command's payload is copied into its slot at submission, so
 * the submitter owns nothing afterwards. A submitter may wait for the result with a
 * timeout; a waiter that gives up abandons the slot and the worker frees it when the
 * command finishes, so no slot can leak. Commands still queued at stop complete with
 * ALVK_E_WORKER_UNAVAILABLE without running; their discard function (if any) releases what
 * the payload owns and records the end.
 *
 * A command whose acceptance changes other state (a patch's pending count, a generation ID)
 * reserves its slot first: ALVK_E_QUEUE_FULL then comes before anything changed, and the
 * commit that follows cannot fail. */
#ifndef AIP_COMMAND_QUEUE_H
#define AIP_COMMAND_QUEUE_H

#include "alvorkit_interception_profiler.h"
#include "platform/platform.h"

#include <stdatomic.h>
#include <stddef.h>

#define AIP_QUEUE_MAX_CAPACITY 256
#define AIP_COMMAND_PAYLOAD_BYTES 512

/* Runs on the worker thread; returns the command's result. */
typedef alvk_status (*aip_command_fn)(void *payload, void *context);
/* Runs instead of the command when it completes unrun (the queue stopped). */
typedef void (*aip_command_discard_fn)(void *payload, void *context);

typedef enum aip_slot_state {
    AIP_SLOT_FREE = 0,
    AIP_SLOT_RESERVED,
    AIP_SLOT_QUEUED,
    AIP_SLOT_RUNNING,
    AIP_SLOT_DONE,
} aip_slot_state;

typedef struct aip_queue_slot {
    aip_slot_state state;
    int abandoned;
    uint32_t sequence;
    alvk_status result;
    aip_command_fn run;
    aip_command_discard_fn discard;
    _Alignas(16) unsigned char payload[AIP_COMMAND_PAYLOAD_BYTES];
} aip_queue_slot;

typedef struct aip_queue {
    aip_mutex lock;
    aip_cond work_ready;
    aip_cond work_done;
    uint32_t capacity;
    uint32_t head;   /* next position of `order` to run */
    uint32_t queued; /* entries in `order` */
    uint32_t in_use; /* slots not FREE */
    int stopping;
    void *context; /* passed to every command */
    _Atomic uint64_t completed;
    uint32_t order[AIP_QUEUE_MAX_CAPACITY];
    aip_queue_slot slots[AIP_QUEUE_MAX_CAPACITY];
} aip_queue;

/* Returns ALVK_OK, or ALVK_E_INTERNAL when capacity is 0 or above the maximum or the
 * synchronization objects cannot be created. */
alvk_status aip_queue_init(aip_queue *q, uint32_t capacity, void *context);
void aip_queue_destroy(aip_queue *q);

/* Copies payload into a free slot and queues it. With ticket NULL nobody will wait and the
 * slot is freed when the command finishes. ALVK_E_QUEUE_FULL when every slot is in use,
 * ALVK_E_WORKER_UNAVAILABLE after stop; in both cases nothing was queued. */
alvk_status aip_queue_submit(aip_queue *q, aip_command_fn run, const void *payload,
                             size_t payload_size, uint64_t *ticket);

/* Takes a free slot for a command committed later: ALVK_OK with *slot, or ALVK_E_QUEUE_FULL
 * / ALVK_E_WORKER_UNAVAILABLE with nothing taken. A reserved slot is committed or released,
 * exactly once. */
alvk_status aip_queue_reserve(aip_queue *q, uint32_t *slot);
void aip_queue_release(aip_queue *q, uint32_t slot);

/* Queues a command in a reserved slot (payload_size at most AIP_COMMAND_PAYLOAD_BYTES); with
 * ticket NULL nobody waits for it, else *ticket is for aip_queue_wait. Never fails: when the
 * queue stopped since the reservation, the command is discarded at once on the calling
 * thread and completes with ALVK_E_WORKER_UNAVAILABLE. */
void aip_queue_commit(aip_queue *q, uint32_t slot, aip_command_fn run,
                      aip_command_discard_fn discard, const void *payload, size_t payload_size,
                      uint64_t *ticket);

/* Waits for the command behind `ticket`. On completion stores its result, copies the first
 * payload_out_size bytes of the payload as the command left it into payload_out (commands
 * return data that way; NULL/0 copies nothing), frees the slot and returns ALVK_OK. On
 * timeout returns ALVK_E_TIMEOUT and abandons the slot: the ticket is spent and nothing is
 * written to payload_out later. An unknown or spent ticket gives ALVK_E_INTERNAL. */
alvk_status aip_queue_wait(aip_queue *q, uint64_t ticket, uint64_t timeout_ns, alvk_status *result,
                           void *payload_out, size_t payload_out_size);

/* The worker's loop: runs commands in submission order until aip_queue_stop. */
void aip_queue_run_worker(aip_queue *q);

/* Asks the worker loop to return; queued commands complete unrun. Idempotent. */
void aip_queue_stop(aip_queue *q);

uint32_t aip_queue_depth(aip_queue *q);
uint32_t aip_queue_slots_in_use(aip_queue *q);
uint64_t aip_queue_completed(aip_queue *q);

#endif
