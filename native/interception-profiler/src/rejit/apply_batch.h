/* The worker's command runner: every install and generation runs as a batch, a single one
 * (alvk_patch_install, alvk_patch_replace, alvk_generation_submit) as a batch of one. Every
 * entry is prepared as its command prepares it (target resolved and checked against the
 * loaded method, body built, emitted and checked) before any body is published; one failure
 * rejects the whole batch. Then every body is published and every target requested at once
 * (aip_apply_publish: one RequestReJITWithInliners for all of them, or one RequestReJIT with
 * their recorded inliners for those installed with ALVK_INSTALL_INLINER_FALLBACK). A
 * removal, which has no body to prepare, runs through aip_apply_remove. Runs on the worker
 * thread only. */
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

/* The worker queue's commands (runtime/command_queue.h): `context` is the queue's, the
 * const aip_apply_env * the worker was started with.
 * aip_apply_batch (payload: aip_patch_batch *, freed) and aip_apply_patch_command (payload:
 * aip_patch_command: an install or a replace as a batch of one, or a removal) run a queued
 * command to its end (every patch's state and result, then the command's), returning its
 * result; the discard functions end a command that will never run (the worker stopped):
 * every patch and the command with ALVK_E_WORKER_UNAVAILABLE. */
alvk_status aip_apply_batch(void *payload, void *context);
void aip_discard_batch(void *payload, void *context);
alvk_status aip_apply_patch_command(void *payload, void *context);
void aip_discard_patch_command(void *payload, void *context);

/* ---- The one algorithm of every install and generation (generations in
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
 * requested at once (aip_apply_publish); else nothing published, and the batch's abort rule
 * (rejit/batch_abort.h) gives each entry its status: the refused entry its own (and its
 * refusal), the others ALVK_E_BATCH_ABORTED; a refused request, ALVK_E_REJIT_FAILED for
 * every entry. Every patch finishes, then the command ends with the first failure (or
 * ALVK_OK), which is returned; a batch of one ends its command with its patch, in one
 * transition, as its status is the command's. Does not free `batch`. */
alvk_status aip_batch_run(const aip_apply_env *env, const aip_batch_kind *kind, const void *batch,
                          uint32_t count, alvk_command_id command);

/* A batch that will never run: every entry and the command ended with
 * ALVK_E_WORKER_UNAVAILABLE. */
void aip_batch_discard(const aip_apply_env *env, const aip_batch_kind *kind, const void *batch,
                       uint32_t count, alvk_command_id command);

#endif
