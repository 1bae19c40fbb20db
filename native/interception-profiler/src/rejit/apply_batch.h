/* The worker's side of a batch (alvk_patch_install_batch; alvk_generation_submit_batch runs
 * through the same aip_batch_run): every entry of the batch prepared as a single command
 * prepares it (target resolved and checked against the loaded method, body built, emitted
 * and checked) before any body is published; one failure rejects the whole batch. Then
 * every body is published and the targets requested at once: one RequestReJITWithInliners
 * for all of them (one RequestReJIT with their recorded inliners for those installed with
 * ALVK_INSTALL_INLINER_FALLBACK). Runs on the worker thread only. */
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

/* ---- The one algorithm of every batch (installs here, generations in
 * apply_generation_batch.c): prepare all, then publish all and request once, or none. ---- */

/* What the runner needs of entry `i` of a batch. */
typedef struct aip_batch_entry {
    uint32_t index;                /* the patch's slot (held by its pending count) */
    alvk_generation_id generation; /* the generation the batch opened on it */
    uint64_t added_owner;          /* the owner the batch added to it, or 0 */
    uint64_t queued_ns;
} aip_batch_entry;

typedef struct aip_batch_kind {
    void (*entry)(const void *batch, uint32_t i, aip_batch_entry *out);
    /* Entry i run up to its publish, which it holds in *held (aip_apply_install_held,
     * aip_apply_generation_held); `before` is its patch as the batch found it. */
    alvk_status (*prepare)(const aip_apply_env *env, const void *batch, uint32_t i,
                           const aip_patch *before, aip_refusal *why, aip_rejit_applied *a,
                           aip_held_publish *held);
} aip_batch_kind;

/* Runs `count` entries of `batch` under `command`: each prepared (nothing published) until
 * the first refusal; then, when none was refused, every body published and every target
 * requested at once (one RequestReJITWithInliners, or one RequestReJIT with the recorded
 * inliners for ALVK_INSTALL_INLINER_FALLBACK); else nothing published: the refused entry
 * ends with its own status and refusal, the others with ALVK_E_BATCH_ABORTED. Every patch
 * finishes (command 0), then the command ends with the first failure (or ALVK_OK), which is
 * returned. Does not free `batch`. */
alvk_status aip_batch_run(const aip_apply_env *env, const aip_batch_kind *kind, const void *batch,
                          uint32_t count, alvk_command_id command);

/* A batch that will never run: every entry and the command ended with
 * ALVK_E_WORKER_UNAVAILABLE. */
void aip_batch_discard(const aip_apply_env *env, const aip_batch_kind *kind, const void *batch,
                       uint32_t count, alvk_command_id command);

#endif
