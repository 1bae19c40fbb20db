/* The worker's side of a batch install (alvk_patch_install_batch): every install of the batch
 * prepared as a single install is (target resolved and checked against the loaded method,
 * body built, emitted and checked) before any body is published; one failure rejects the
 * whole batch. Then every body is published and the targets requested at once: one
 * RequestReJITWithInliners for all of them (one RequestReJIT with their recorded inliners
 * for those installed with ALVK_INSTALL_INLINER_FALLBACK). Runs on the worker thread only. */
#ifndef AIP_APPLY_BATCH_H
#define AIP_APPLY_BATCH_H

#include "rejit/apply_generation.h"

/* A batch as queued: its installs (each as aip_patch_command, with its patch's slot held by
 * its pending count), under one command. */
typedef struct aip_patch_batch {
    uint32_t count;
    alvk_command_id command;
    aip_patch_command entries[];
} aip_patch_batch;

/* An empty batch of `count` installs (malloc; NULL when out of memory). Freed with free(). */
aip_patch_batch *aip_patch_batch_create(uint32_t count);

/* The worker queue's commands (payload: aip_patch_batch *, freed): the batch run to its end
 * (every patch's state and result, then the batch's command), returning the batch's result;
 * or, when it will never run, every patch and the command ended with
 * ALVK_E_WORKER_UNAVAILABLE. */
alvk_status aip_apply_batch(void *payload, void *context);
void aip_discard_batch(void *payload, void *context);

#endif
