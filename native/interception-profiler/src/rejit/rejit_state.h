/* RejitState: the patch table. Every transition (a command queued, finished, a callback
 * counted, a module unloaded) happens under one lock, so readers see whole states. The IL a
 * patch hands to the runtime is an immutable PreparedRejit snapshot: the worker builds it,
 * publishes it here, and GetReJITParameters only acquires it, copies it out, releases it.
 * Pure: no runtime calls, so every transition is unit-tested. */
#ifndef AIP_REJIT_STATE_H
#define AIP_REJIT_STATE_H

#include "alvorkit_interception_profiler.h"
#include "platform/platform.h"

#include <stdatomic.h>
#include <stdint.h>

typedef struct aip_prepared_rejit {
    _Atomic uint32_t refs;
    alvk_generation_id generation;
    uint32_t body_size;
    uint32_t il_map_count;
    const alvk_il_map_entry *il_map; /* points into data, after the body */
    _Alignas(8) uint8_t data[];      /* the IL method body for SetILFunctionBody, then the map */
} aip_prepared_rejit;

/* What every snapshot alive in the process holds (bytes allocated, and how many). */
void aip_prepared_totals(uint64_t *bytes, uint64_t *count);

/* A snapshot holding copies of body and map, with one reference; NULL when out of memory. */
aip_prepared_rejit *aip_prepared_create(alvk_generation_id generation, const uint8_t *body,
                                        uint32_t size, const alvk_il_map_entry *il_map,
                                        uint32_t il_map_count);

/* What the profiler keeps of one generation: its result and its relocations' results. */
#define AIP_GENERATION_HISTORY 4
typedef struct aip_generation_record {
    alvk_generation_result result; /* result.generation == 0: empty */
    alvk_relocation_result relocations[ALVK_MAX_RELOCATIONS];
} aip_generation_record;
void aip_prepared_release(aip_prepared_rejit *prepared);

typedef struct aip_patch {
    uint32_t generation; /* part of the handle; bumps when the slot is reused */
    uint8_t in_use;
    uint8_t closing; /* the last owner left; the restore is under way: nobody may join */
    alvk_patch_state state;
    alvk_status last_status;
    uint32_t pending;
    uint64_t ended_order; /* when it became terminal: recycling takes the oldest */
    alvk_mvid mvid;
    uint32_t token;
    uintptr_t copy_id;   /* the module copy the patch is for, as its first command named or */
    uint32_t copy_epoch; /* resolved it (0: it named none, and the worker rejects it) */
    uintptr_t module_id; /* 0 until the install validated (then copy_id) */
    uint64_t owners[ALVK_MAX_PATCH_OWNERS];
    uint64_t owner_replacements[ALVK_MAX_PATCH_OWNERS]; /* each owner's dispatch target or 0 */
    aip_prepared_rejit *owner_bodies[ALVK_MAX_PATCH_OWNERS]; /* each owner's last body */
    uint64_t owner_order[ALVK_MAX_PATCH_OWNERS];        /* when it was set */
    uint32_t owner_count;
    uint64_t owner_clock;
    aip_prepared_rejit *prepared; /* NULL: the runtime keeps the original IL */
    alvk_generation_id latest_generation;  /* newest accepted: what the next must name */
    alvk_generation_id current_generation; /* requested or in force; 0: the original */
    aip_prepared_rejit *good;              /* the last body that compiled (NULL: original) */
    alvk_generation_id good_generation;    /* ... and its generation; a rollback returns here */
    uint8_t rollback_due;                  /* a failure was seen; the worker rolls back */
    uint64_t started_rejit_id; /* the target's last ReJITCompilationStarted ... */
    uint8_t started_open;      /* ... not yet followed by ReJITCompilationFinished */
    uint32_t history_next;
    aip_generation_record history[AIP_GENERATION_HISTORY];
    uint64_t awaiting_compile_since; /* command time, until a compilation finishes */
    uint64_t inliner_rejit_ids[32];   /* distinct inliner ReJIT IDs counted */
    alvk_patch_telemetry telemetry;  /* counters and HRESULTs; state fields filled on read */
} aip_patch;

/* One accepted command's end, for alvk_command_wait; slot = id % ALVK_COMMAND_HISTORY. */
typedef struct aip_command_record {
    alvk_command_id id; /* 0: empty */
    alvk_status status;
    uint32_t done;
} aip_command_record;

typedef struct aip_rejit_state {
    aip_mutex lock;
    aip_cond changed;
    uint64_t end_counter;
    alvk_command_id last_command;
    aip_command_record commands[ALVK_COMMAND_HISTORY];
    alvk_generation_id last_generation_id;
    int32_t last_requested; /* patch index of the latest ReJIT request, or -1 */
    aip_patch patches[ALVK_MAX_PATCHES];
} aip_rejit_state;

int aip_rejit_init(aip_rejit_state *st);

/* Terminal states end a patch. */
int aip_patch_state_is_terminal(alvk_patch_state state);

/* Queuing an install: joins the live patch of (module copy, load epoch, token) or takes a
 * free (or the oldest ended) slot. Two copies of one assembly are two targets. A command
 * that names no copy (copy_id 0: its module did not resolve) never joins. *index and
 * *handle name it; its pending count is raised. The owner holds the
 * patch from now on (*added_owner says whether it is new), so a remove queued earlier by
 * the last other owner cannot end the patch under a queued join; the worker takes the owner
 * back out if the install fails. */
alvk_status aip_rejit_begin_install(aip_rejit_state *st, const alvk_mvid *mvid,
                                    uintptr_t copy_id, uint32_t copy_epoch, uint32_t token,
                                    uint64_t owner, uint32_t flags, uint32_t *index,
                                    alvk_patch_handle *handle, int *added_owner);
/* As begin_install, for a generation naming `prior`: ALVK_E_STALE_GENERATION, with nothing
 * changed, unless prior is the target's latest generation (0 when it has no live patch). */
alvk_status aip_rejit_begin_chained_install(aip_rejit_state *st, const alvk_mvid *mvid,
                                            uintptr_t copy_id, uint32_t copy_epoch,
                                            uint32_t token, uint64_t owner, uint32_t flags,
                                            alvk_generation_id prior, uint32_t *index,
                                            alvk_patch_handle *handle, int *added_owner);

/* Queuing a generation: as begin_install, and also assigns its ID and opens its record.
 * With check_prior, `prior` must be the patch's latest generation (0 for a new patch):
 * ALVK_E_STALE_GENERATION otherwise. Without it (exact-dispatch installs and replaces) the
 * generation follows whatever is latest. */
alvk_status aip_rejit_begin_generation(aip_rejit_state *st, uint32_t index, int check_prior,
                                       alvk_generation_id prior, alvk_generation_id *id);

/* Queuing replace (require_owner) or remove: checks handle, state and owner; raises
 * pending. */
alvk_status aip_rejit_begin_command(aip_rejit_state *st, alvk_patch_handle handle,
                                    uint64_t owner, uint32_t *index);

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

/* Waits for one command: ALVK_OK with *result, ALVK_E_TIMEOUT, ALVK_E_UNKNOWN_COMMAND. */
alvk_status aip_rejit_wait_command(aip_rejit_state *st, alvk_command_id command,
                                   uint64_t timeout_ns, alvk_status *result);

/* Owner bookkeeping (worker only, lock taken inside). */
int aip_rejit_has_owner(aip_rejit_state *st, uint32_t index, uint64_t owner);
alvk_status aip_rejit_add_owner(aip_rejit_state *st, uint32_t index, uint64_t owner);
/* An owner's body (its exact-dispatch replacement, or 0 for a generation) is now the one
 * published: the owner keeps a reference to that snapshot. */
void aip_rejit_set_owner_body(aip_rejit_state *st, uint32_t index, uint64_t owner,
                              uint64_t replacement);
/* The body a departure should leave in force: the most recently set body of the remaining
 * owners (a new reference, with its replacement), or NULL for the original. */
aip_prepared_rejit *aip_rejit_successor_body(aip_rejit_state *st, uint32_t index,
                                             uint64_t *replacement);
/* Returns the owners left after removing, or -1 when owner did not hold the patch. When none
 * are left the patch is closing: installs no longer join it, commands get PATCH_ENDED, until
 * the worker ends it (or, if restoring fails, adds the owner back, which reopens it). */
int aip_rejit_remove_owner(aip_rejit_state *st, uint32_t index, uint64_t owner);

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
/* After RequestReJIT(WithInliners): its HRESULT; on success the patch awaits compilation
 * since queued_ns and is the one unattributed inliner callbacks are counted on. */
void aip_rejit_note_request(aip_rejit_state *st, uint32_t index, int32_t hresult,
                            uint64_t queued_ns);

/* Generation transitions (rejit_generations.c). */
/* Rejected before anything was requested: the record says why; latest falls back. */
void aip_rejit_generation_rejected(aip_rejit_state *st, uint32_t index, alvk_generation_id id,
                                   alvk_status status, uint32_t failing_index,
                                   int32_t metadata_hresult);
/* Rejected with ALVK_E_STACK_TYPE_MISMATCH: the instruction and the alvk_stack_type values it
 * found and expected go into the record (as rejected does otherwise). */
void aip_rejit_generation_type_mismatch(aip_rejit_state *st, uint32_t index,
                                        alvk_generation_id id, uint32_t offset, uint32_t found,
                                        uint32_t expected);
/* Its relocations' results, as emission produced them. */
void aip_rejit_generation_relocations(aip_rejit_state *st, uint32_t index,
                                      alvk_generation_id id, const alvk_relocation_result *r,
                                      uint32_t count, int32_t metadata_hresult);
/* The ReJIT for it was requested: it becomes current. Takes (and drops) the reference to
 * `replaced`: a rollback returns to the last body that compiled, not to what this one
 * replaced, which may never have compiled. */
void aip_rejit_generation_requested(aip_rejit_state *st, uint32_t index, alvk_generation_id id,
                                    aip_prepared_rejit *replaced);
/* The compilation HRESULT of a failure the runtime did not report: E_FAIL (the cause is not
 * known; the JIT threw whatever it threw to the caller). */
#define AIP_COMPILATION_UNREPORTED ((int32_t)0x80004005)
/* A compilation of the target started. The runtime reports no failure when the JIT
 * rejects a ReJIT body: it throws to the caller (InvalidProgramException for invalid IL,
 * MissingMethodException for a member it cannot bind, ...) and starts the same compilation
 * again on the next call. A second start of one ReJIT ID with no finish in between is
 * therefore a failed compilation: the current generation becomes FAILED (with
 * AIP_COMPILATION_UNREPORTED as its HRESULT) and 1 is returned: a rollback must be queued. */
int aip_rejit_generation_started(aip_rejit_state *st, uintptr_t module_id, uint32_t token,
                                 uint64_t rejit_id, uint32_t *index);
/* A compilation of the target finished (or ReJITError): the current generation becomes
 * ACTIVE, or FAILED. Returns 1 when a rollback must be queued. */
int aip_rejit_generation_compiled(aip_rejit_state *st, uintptr_t module_id, uint32_t token,
                                  int32_t hresult, uint32_t *index);
/* A cause found after the fact for generation `id`, FAILED with AIP_COMPILATION_UNREPORTED:
 * the HRESULT the caller saw and the relocation it came from. Anything else is left alone. */
void aip_rejit_generation_failure_cause(aip_rejit_state *st, uint32_t index, alvk_generation_id id,
                                        int32_t hresult, uint32_t failing_index);
/* The worker's rollback of patch `index`: the last body that compiled (a new reference;
 * NULL: the original) and its generation, which the caller publishes again; 0 when no
 * rollback is due. */
int aip_rejit_take_rollback(aip_rejit_state *st, uint32_t index, aip_prepared_rejit **prepared,
                            alvk_generation_id *generation);
/* A patch with a rollback due (so a rollback whose queue slot was refused is not lost). */
int aip_rejit_next_rollback(aip_rejit_state *st, uint32_t *index);
/* SetILInstrumentedCodeMap's result for the generation of a snapshot. */
void aip_rejit_generation_il_map(aip_rejit_state *st, uintptr_t module_id, uint32_t token,
                                 alvk_generation_id id, int32_t hresult);
/* A copy of a generation's record: ALVK_E_UNKNOWN_PATCH / ALVK_E_UNKNOWN_GENERATION. */
alvk_status aip_rejit_generation_lookup(aip_rejit_state *st, alvk_patch_handle handle,
                                        alvk_generation_id id, aip_generation_record *out);

/* GetReJITParameters: the snapshot of the newest patch of (module, token), acquired (the
 * caller releases it), or NULL when the original IL should stay. Counts the callback. */
aip_prepared_rejit *aip_rejit_acquire_for(aip_rejit_state *st, uintptr_t module_id,
                                          uint32_t token);

/* Callback accounting for (module, token); no-ops for methods without a patch. */
typedef enum aip_rejit_event {
    AIP_EVENT_SET_IL,        /* hresult of SetILFunctionBody */
    AIP_EVENT_STARTED,
    AIP_EVENT_FINISHED,      /* hresult of the compilation */
    AIP_EVENT_ERROR,         /* ReJITError hresult */
} aip_rejit_event;
void aip_rejit_record(aip_rejit_state *st, uintptr_t module_id, uint32_t token,
                      aip_rejit_event event, int32_t hresult);

/* ReJITCompilationStarted of a method that is not a target: an inliner re-JITted along with
 * the latest request. Counted once per ReJIT ID (tiering compiles one ID several times).
 * Attribution goes to the most recently requested patch. */
void aip_rejit_record_inliner(aip_rejit_state *st, uintptr_t module_id, uint32_t token,
                              uint64_t rejit_id);

/* ModuleUnloadStarted: every live patch of the module ends UNLOADED. */
void aip_rejit_module_unloaded(aip_rejit_state *st, uintptr_t module_id);

/* 1 when a live patch of (module, token) was installed with ALVK_INSTALL_INLINER_FALLBACK. */
int aip_rejit_blocks_inlining(aip_rejit_state *st, uintptr_t module_id, uint32_t token);

/* Reads: a copy of the patch by index (worker) or by handle. */
void aip_rejit_copy(aip_rejit_state *st, uint32_t index, aip_patch *copy);
alvk_status aip_rejit_lookup(aip_rejit_state *st, alvk_patch_handle handle, aip_patch *copy);
alvk_status aip_rejit_telemetry(aip_rejit_state *st, alvk_patch_handle handle,
                                alvk_patch_telemetry *out);
alvk_status aip_rejit_wait(aip_rejit_state *st, alvk_patch_handle handle, uint64_t timeout_ns);

#endif
