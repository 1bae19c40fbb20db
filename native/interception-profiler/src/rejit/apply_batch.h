/* The worker's command runner: the one route of every body put in force. Every command runs
 * as a batch (a single install, replace, generation or removal as a batch of one; a rollback
 * as a batch of one that ends no command), in three stages:
 *   prepare  each entry's body built, emitted and checked, or, for a removal, decided
 *            (owner_decision.h: the body it leaves in force); nothing published; one
 *            refusal rejects the whole batch (rejit/batch_abort.h);
 *   publish  every body published and every target requested at once (aip_apply_publish);
 *   commit   each entry's owner change decided (the owner's body recorded, or the owner it
 *            added taken out, the original restored when nobody else holds the patch: those
 *            restores published at once), then committed with everything the entry learned
 *            in one RejitState transition (aip_rejit_commit).
 * Runs on the worker thread only. */
#ifndef AIP_APPLY_BATCH_H
#define AIP_APPLY_BATCH_H

#include "rejit/apply_generation.h"
#include "rejit/owner_decision.h"

/* What the runner needs of entry `i` of a batch. */
typedef struct aip_batch_entry {
    uint32_t index;                /* the patch's slot (held by its pending count) */
    alvk_generation_id generation; /* the generation the command opened on it (0: none) */
    aip_owner_command owner;       /* its owner and what the command does to it */
    uint64_t queued_ns;
} aip_batch_entry;

/* One entry's work, carried through the stages. */
typedef struct aip_batch_step {
    aip_refusal why;       /* prepare: what a refusal's record keeps */
    aip_rejit_applied a;   /* what the commit records (prepare fills the dispatch telemetry) */
    aip_held_publish held; /* the body to put in force, when `due` (its index the runner's) */
    int due;
    int granted; /* its publish was granted (1 when nothing was published) */
    int decided; /* `d` made at prepare (a removal, a rollback) */
    aip_owner_decision d;
} aip_batch_step;

typedef struct aip_batch_kind {
    void (*entry)(const void *batch, uint32_t i, aip_batch_entry *out);
    /* Entry i run up to its publish (`before`: its patch as the batch found it): its body in
     * step->held with step->due set, or a decision with nothing to publish, or a refusal. */
    alvk_status (*prepare)(const aip_apply_env *env, const void *batch, uint32_t i,
                           const aip_patch *before, aip_batch_step *step);
    int ends_commands; /* each entry ends its command (0: a rollback) */
} aip_batch_kind;

/* Runs `count` entries of `batch` under `command`: each prepared (nothing published) until
 * the first refusal; then, when none was refused, every body published and every target
 * requested at once (aip_apply_publish); else nothing published, and the batch's abort rule
 * (rejit/batch_abort.h) gives each entry its status: the refused entry its own (and its
 * refusal), the others ALVK_E_BATCH_ABORTED; a refused request, ALVK_E_REJIT_FAILED for
 * every entry. Every entry's owner change decided and committed, then the command ends with
 * the first failure (or ALVK_OK), which is returned; a batch of one ends its command with its
 * patch, in one transition, as its status is the command's. Does not free `batch`. */
alvk_status aip_batch_run(const aip_apply_env *env, const aip_batch_kind *kind, const void *batch,
                          uint32_t count, alvk_command_id command);

/* A batch that will never run: every entry and the command ended with
 * ALVK_E_WORKER_UNAVAILABLE. */
void aip_batch_discard(const aip_apply_env *env, const aip_batch_kind *kind, const void *batch,
                       uint32_t count, alvk_command_id command);

#endif
