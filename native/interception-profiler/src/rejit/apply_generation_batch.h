/* The worker's side of submitted generations (alvk_generation_submit, and ABI 3.6
 * alvk_generation_submit_batch): every generation checked (stack types, members) and emitted
 * before any body is published, then all published and requested at once, or none: the
 * command runner of apply_batch.h with generations as its entries, a single one as a batch
 * of one. Runs on the worker thread only. */
#ifndef AIP_APPLY_GENERATION_BATCH_H
#define AIP_APPLY_GENERATION_BATCH_H

#include "rejit/apply_generation.h"

/* A batch as queued: its generations (heap copies, each with its patch's slot held by its
 * pending count), under one command. */
typedef struct aip_generation_batch {
    uint32_t count;
    alvk_command_id command;
    aip_staged_generation *entries[];
} aip_generation_batch;

/* A batch of `count` empty entries (malloc; NULL when out of memory). */
aip_generation_batch *aip_generation_batch_create(uint32_t count);
/* Frees the batch and every entry staged into it (NULL: nothing). */
void aip_generation_batch_free(aip_generation_batch *b);

/* The worker queue's commands (payload: aip_generation_batch *, freed): the batch run to its
 * end (every generation's record and patch, then the batch's command), returning the
 * batch's result; or, when it will never run, every generation and the command ended with
 * ALVK_E_WORKER_UNAVAILABLE. */
alvk_status aip_apply_generation_batch(void *payload, void *context);
void aip_discard_generation_batch(void *payload, void *context);

#endif
