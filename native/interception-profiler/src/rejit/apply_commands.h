/* The worker queue's exact-dispatch commands (runtime/command_queue.h): installs (a batch, or
 * a single one), replaces and removals, each run by the command runner (apply_batch.h) as a
 * batch, a single command as a batch of one; the rollbacks due served after each. Runs on the
 * worker thread only. */
#ifndef AIP_APPLY_COMMANDS_H
#define AIP_APPLY_COMMANDS_H

#include "rejit/apply_command.h"

/* A batch as queued: its installs (each as aip_patch_command, with its patch's slot held by
 * its pending count), under one command. */
typedef struct aip_patch_batch {
    uint32_t count;
    alvk_command_id command;
    aip_patch_command entries[];
} aip_patch_batch;

/* An empty batch of `count` installs (malloc; NULL when out of memory). Freed with free(). */
aip_patch_batch *aip_patch_batch_create(uint32_t count);

/* `context` is the queue's, the const aip_apply_env * the worker was started with.
 * aip_apply_batch (payload: aip_patch_batch *, freed) and aip_apply_patch_command (payload:
 * aip_patch_command: an install, a replace or a removal as a batch of one) run a queued
 * command to its end (every patch's state and result, then the command's), returning its
 * result; the discard functions end a command that will never run (the worker stopped):
 * every patch and the command with ALVK_E_WORKER_UNAVAILABLE. */
alvk_status aip_apply_batch(void *payload, void *context);
void aip_discard_batch(void *payload, void *context);
alvk_status aip_apply_patch_command(void *payload, void *context);
void aip_discard_patch_command(void *payload, void *context);

#endif
