/* RejitState: the patch table's command transitions. A command is queued (begin_*, then
 * issue), the worker records what it learns (publish, set_target, set_dispatch, commit)
 * and finishes it (finish or discard); callers wait for it. Every transition happens under the
 * table's one lock (patch_table.h). Pure: no runtime calls, so every transition is unit-tested.
 * The owner set, the generation chain and the callbacks' accounting have their own files. */
#ifndef AIP_REJIT_STATE_H
#define AIP_REJIT_STATE_H

#include "rejit/owner_decision.h"
#include "rejit/patch_table.h"

/* An empty table bounded at `capacity` patches (ALVK_MIN_PATCH_CAPACITY..
 * ALVK_MAX_PATCH_CAPACITY); its slots are allocated as patches are installed. 0, or -1. */
int aip_rejit_init(aip_rejit_state *st, uint32_t capacity);

/* Frees the table and what its patches still hold (tests; the profiler's lives until the
 * process exits). */
void aip_rejit_destroy(aip_rejit_state *st);

/* The table's size, for the runtime status: its bound, the slots allocated so far and the
 * live (not terminal) patches. */
void aip_rejit_counts(aip_rejit_state *st, uint32_t *capacity, uint32_t *slots_allocated,
                      uint32_t *live);

/* A patch in use became terminal (the caller sets its state): its end order taken, counted
 * out of the live ones, appended to the ended list. Lock held. */
void aip_rejit_patch_ended(aip_rejit_state *st, uint32_t index);

/* A command being queued, as the patch table sees it. */
typedef enum aip_rejit_request_kind {
    AIP_REQUEST_INSTALL = 1,    /* exact dispatch: joins or opens the target's patch */
    AIP_REQUEST_GENERATION = 2, /* joins or opens the target's patch, chained on `prior` */
    AIP_REQUEST_REPLACE = 3,    /* an owner's new replacement for `handle` */
    AIP_REQUEST_REMOVE = 4,     /* an owner leaves `handle` */
} aip_rejit_request_kind;

typedef struct aip_rejit_request {
    aip_rejit_request_kind kind;
    const alvk_mvid *mvid; /* install and generation: the target */
    uintptr_t copy_id;
    uint32_t copy_epoch;
    uint32_t token;
    uint32_t flags;
    alvk_patch_handle handle; /* replace and remove */
    uint64_t owner;
    alvk_generation_id prior; /* generation */
} aip_rejit_request;

typedef struct aip_rejit_accepted {
    uint32_t index;
    alvk_patch_handle handle;
    int added_owner;
    alvk_generation_id generation; /* install, generation and replace */
    alvk_command_id command;
} aip_rejit_accepted;

/* Accepts a command whose queue slot is reserved, in one transition under the lock: the
 * patch joined or opened (as begin_install, begin_chained_install) or checked (as
 * begin_command), its generation opened (as begin_generation), and the command's ID issued
 * (as issue_command). On refusal nothing changed. */
alvk_status aip_rejit_accept(aip_rejit_state *st, const aip_rejit_request *request,
                             aip_rejit_accepted *out);

/* Queuing an install: joins the live patch of (module copy, load epoch, token) or takes a
 * free (or the oldest ended) slot. Two copies of one assembly are two targets. A command
 * that names no copy (copy_id 0: its module did not resolve) never joins. *index and
 * *handle name it; its pending count is raised. The owner holds the
 * patch from now on (*added_owner says whether it is new), so a remove queued earlier by
 * the last other owner cannot end the patch under a queued join; the worker takes the owner
 * back out if the install fails. ALVK_E_OWNERS_FULL; ALVK_E_PATCH_TABLE_FULL when every slot
 * up to the bound is live; ALVK_E_INTERNAL when memory ran out (a chunk of the table, its
 * index). */
alvk_status aip_rejit_begin_install(aip_rejit_state *st, const alvk_mvid *mvid, uintptr_t copy_id,
                                    uint32_t copy_epoch, uint32_t token, uint64_t owner,
                                    uint32_t flags, uint32_t *index, alvk_patch_handle *handle,
                                    int *added_owner);
/* As begin_install, for a generation naming `prior`: ALVK_E_STALE_GENERATION, with nothing
 * changed, unless prior is the target's latest generation (0 when it has no live patch). */
alvk_status aip_rejit_begin_chained_install(aip_rejit_state *st, const alvk_mvid *mvid,
                                            uintptr_t copy_id, uint32_t copy_epoch, uint32_t token,
                                            uint64_t owner, uint32_t flags,
                                            alvk_generation_id prior, uint32_t *index,
                                            alvk_patch_handle *handle, int *added_owner);

/* Queuing replace (require_owner) or remove: checks handle, state and owner; raises
 * pending. */
alvk_status aip_rejit_begin_command(aip_rejit_state *st, alvk_patch_handle handle, uint64_t owner,
                                    uint32_t *index);

/* Undoes a begin_* whose command is not queued after all (and the owner an install added). A
 * new patch that never ran a command returns to the free list. */
void aip_rejit_cancel_command(aip_rejit_state *st, uint32_t index, uint64_t added_owner);

/* The ID of a command that passed every check and is being queued (its slot reserved, so
 * nothing can refuse it any more): recorded as running. */
alvk_command_id aip_rejit_issue_command(aip_rejit_state *st);

/* The worker's end of a command: state, status and elapsed time recorded, pending lowered,
 * the command's record finished, waiters woken. */
void aip_rejit_finish_command(aip_rejit_state *st, uint32_t index, alvk_command_id command,
                              alvk_patch_state state, alvk_status status, uint64_t queued_ns);

/* A queued command that will never run (the worker stopped): its generation (if any)
 * rejected, the owner an install added taken out, and the command finished, all with
 * ALVK_E_WORKER_UNAVAILABLE; a new patch that never ran a command ends REJECTED. */
void aip_rejit_discard_command(aip_rejit_state *st, uint32_t index, alvk_command_id command,
                               alvk_generation_id generation, uint64_t added_owner,
                               uint64_t queued_ns);

/* A command that spans several patches (a batch, whose patches finish with command 0):
 * its record finished with `status`, waiters woken. */
void aip_rejit_end_command(aip_rejit_state *st, alvk_command_id command, alvk_status status);

/* Waits for one command: ALVK_OK with *result, ALVK_E_TIMEOUT, ALVK_E_UNKNOWN_COMMAND. */
alvk_status aip_rejit_wait_command(aip_rejit_state *st, alvk_command_id command,
                                   uint64_t timeout_ns, alvk_status *result);

/* Publishes `prepared` (may be NULL) as the patch's snapshot and returns the previous one,
 * which the caller releases or republishes. An ended patch (e.g. unloaded while the worker
 * prepared the body) keeps nothing: `prepared` itself is returned. */
aip_prepared_rejit *aip_rejit_publish(aip_rejit_state *st, uint32_t index,
                                      aip_prepared_rejit *prepared);

/* Worker-side facts about a patch, recorded as the command learns them. */
void aip_rejit_set_target(aip_rejit_state *st, uint32_t index, uintptr_t module_id,
                          uint32_t module_epoch);
void aip_rejit_set_dispatch(aip_rejit_state *st, uint32_t index, uint32_t calli_token,
                            int32_t metadata_hresult, uint64_t replacement);

/* What the worker learned applying a command, committed in one transition (the request's
 * HRESULT, the owner decided on (owner_decision.h): its body recorded or it taken out, the
 * dispatch telemetry, the command's end, in that order): each part only when its flag (or
 * owner) is set. The requested generation itself was made current before the runtime was
 * asked (aip_rejit_mark_requested), not here. */
typedef struct aip_rejit_applied {
    int requested;                /* a ReJIT request succeeded: */
    int32_t request_hresult;      /*   its HRESULT */
    aip_prepared_rejit *replaced; /*   the snapshot it replaced (the commit releases it) */
    uint64_t owner_body;          /* the owner whose body is now the published one ... */
    uint64_t owner_replacement;   /*   ... and its replacement (0: a generation) */
    uint64_t drop_owner;          /* the owner that leaves the patch (0: none) */
    int decided_close;            /* the decision marked the patch closing: no longer */
    int dispatch;                 /* set_dispatch: */
    uint32_t calli_token;
    int32_t metadata_hresult;
    uint64_t replacement;
    alvk_dispatch_path dispatch_path; /* ABI 3.4: the path, why not direct, the call's token */
    alvk_status dispatch_fallback;
    uint32_t call_token;
    int finish; /* finish_command (a terminal state other than REMOVED drops the snapshot): */
    alvk_command_id command;
    alvk_patch_state state;
    alvk_status status;
    uint64_t queued_ns;
} aip_rejit_applied;

/* The dispatch telemetry of a body going in force, as its facts say (NULL: the original, or
 * a generation: no replacement), with patch p's calli token and metadata HRESULT kept. */
void aip_rejit_applied_dispatch(aip_rejit_applied *a, const aip_patch *p,
                                const aip_dispatch_facts *facts);

/* The owner change of decision d, on the side its publish went (granted: 1 when the publish,
 * if any, was granted), put into `a`: the body's owner, the owner that leaves, the closing
 * mark; with `finish`, the command's end with the decision's state and status (its command and
 * queued time are the caller's to set). */
void aip_rejit_applied_owner(aip_rejit_applied *a, const aip_owner_decision *d, int granted,
                             int finish);

/* Commits `a` under one lock, then clears it. */
void aip_rejit_commit(aip_rejit_state *st, uint32_t index, aip_rejit_applied *a);

/* Reads: a copy of the patch by index (worker) or by handle. */
void aip_rejit_copy(aip_rejit_state *st, uint32_t index, aip_patch *copy);
alvk_status aip_rejit_lookup(aip_rejit_state *st, alvk_patch_handle handle, aip_patch *copy);
alvk_status aip_rejit_wait(aip_rejit_state *st, alvk_patch_handle handle, uint64_t timeout_ns);

/* Lock-held forms, for the batch's acceptance (rejit_batch.c): the live patch an install of
 * (mvid, copy, epoch, token) joins (or -1); begin_install's (and with `prior`,
 * begin_chained_install's) work; cancel_command's; issue_command's. */
int aip_rejit_joinable_locked(const aip_rejit_state *st, const alvk_mvid *mvid, uintptr_t copy_id,
                              uint32_t copy_epoch, uint32_t token);
alvk_status aip_rejit_install_locked(aip_rejit_state *st, const alvk_mvid *mvid, uintptr_t copy_id,
                                     uint32_t copy_epoch, uint32_t token, uint64_t owner,
                                     uint32_t flags, const alvk_generation_id *prior,
                                     uint32_t *index, alvk_patch_handle *handle, int *added_owner);
void aip_rejit_cancel_locked(aip_rejit_state *st, uint32_t index, uint64_t added_owner);
alvk_command_id aip_rejit_issue_locked(aip_rejit_state *st);

#endif
