/* RejitState's generation chain: each patch's generations, from queued through requested
 * to active, failed or rejected, the last body that compiled, and the rollback to it. */
#ifndef AIP_REJIT_GENERATIONS_H
#define AIP_REJIT_GENERATIONS_H

#include "rejit/patch_table.h"

/* Queuing a generation: as begin_install, and also assigns its ID and opens its record.
 * With check_prior, `prior` must be the patch's latest generation (0 for a new patch):
 * ALVK_E_STALE_GENERATION otherwise. Without it (exact-dispatch installs and replaces) the
 * generation follows whatever is latest. */
alvk_status aip_rejit_begin_generation(aip_rejit_state *st, uint32_t index, int check_prior,
                                       alvk_generation_id prior, alvk_generation_id *id);

/* Rejected before anything was requested: the record says why; latest falls back. */
void aip_rejit_generation_rejected(aip_rejit_state *st, uint32_t index, alvk_generation_id id,
                                   alvk_status status, uint32_t failing_index,
                                   int32_t metadata_hresult);
/* Rejected with ALVK_E_STACK_TYPE_MISMATCH: the instruction and the alvk_stack_type values it
 * found and expected go into the record (as rejected does otherwise). */
void aip_rejit_generation_type_mismatch(aip_rejit_state *st, uint32_t index, alvk_generation_id id,
                                        uint32_t offset, uint32_t found, uint32_t expected);
/* Its relocations' results, as emission produced them. */
void aip_rejit_generation_relocations(aip_rejit_state *st, uint32_t index, alvk_generation_id id,
                                      const alvk_relocation_result *r, uint32_t count,
                                      int32_t metadata_hresult);
/* The ReJIT for it was requested: it becomes current. Takes (and drops) the reference to
 * `replaced`: a rollback returns to the last body that compiled, not to what this one
 * replaced, which may never have compiled. */
void aip_rejit_generation_requested(aip_rejit_state *st, uint32_t index, alvk_generation_id id,
                                    aip_prepared_rejit *replaced);
/* What marking one generation requested changed, kept to undo it when the runtime refuses
 * the request. */
typedef struct aip_request_mark {
    uint32_t index;              /* the patch */
    alvk_generation_id id;       /* the generation marked requested */
    alvk_generation_id previous; /* the current generation before */
    alvk_generation_state was;   /* its record's state before (SUPERSEDED now) */
    uint64_t awaiting_since;     /* the patch's awaiting_compile_since before */
    uint64_t floor;              /* the patch's rejit_floor before */
    uint64_t request;            /* the patch's request number before */
} aip_request_mark;
/* Before RequestReJIT(WithInliners), under one lock for all `count` patches: each mark's
 * generation becomes current (REQUESTED), its patch takes the request's number (one for all
 * of them: aip_rejit_record_inliner) and awaits compilation since queued_ns, so
 * a compilation or ReJITError the request raises (the runtime reports some inside the call)
 * finds the generation it belongs to. The snapshot it replaced is released by the commit. */
void aip_rejit_mark_requested(aip_rejit_state *st, aip_request_mark *marks, uint32_t count,
                              uint64_t queued_ns);
/* The runtime refused the request: each mark is undone (the previous generation current
 * again; the marked one PENDING for its refusal, or FAILED when an error was already
 * reported for it, with no rollback due) and `hresult` noted, under one lock. */
void aip_rejit_unmark_requested(aip_rejit_state *st, const aip_request_mark *marks, uint32_t count,
                                int32_t hresult);
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
/* ReJITCompilationFinished for ReJIT ID `rejit_id`: as aip_rejit_generation_compiled, unless
 * the ID is at or below the one the current generation was requested after (a compilation of
 * the version the request replaced, still finishing on another thread, which says nothing of
 * the current generation: it returns 0). Starts are filtered the same way. */
int aip_rejit_generation_finished(aip_rejit_state *st, uintptr_t module_id, uint32_t token,
                                  uint64_t rejit_id, int32_t hresult, uint32_t *index);
/* A cause found after the fact for generation `id`, FAILED with AIP_COMPILATION_UNREPORTED:
 * the HRESULT the caller saw and the relocation it came from. Anything else is left alone. */
void aip_rejit_generation_failure_cause(aip_rejit_state *st, uint32_t index, alvk_generation_id id,
                                        int32_t hresult, uint32_t failing_index);
/* The worker's rollback of patch `index`: the last body that compiled (a new reference;
 * NULL: the original) and its generation, which the caller publishes again; 0 when no
 * rollback is due. */
int aip_rejit_take_rollback(aip_rejit_state *st, uint32_t index, aip_prepared_rejit **prepared,
                            alvk_generation_id *generation);
/* A patch with a rollback due (so a rollback whose queue slot was refused is not lost): at
 * once 0 when none is due (RejitState counts them), else a scan of the table. */
int aip_rejit_next_rollback(aip_rejit_state *st, uint32_t *index);
/* SetILInstrumentedCodeMap's result for the generation of a snapshot. */
void aip_rejit_generation_il_map(aip_rejit_state *st, uintptr_t module_id, uint32_t token,
                                 alvk_generation_id id, int32_t hresult);
/* A generation's result and up to `capacity` of its relocations' results, copied into the
 * caller's arrays (what alvk_generation_get_result answers, without a whole record):
 * ALVK_E_UNKNOWN_PATCH / ALVK_E_UNKNOWN_GENERATION. */
alvk_status aip_rejit_generation_result(aip_rejit_state *st, alvk_patch_handle handle,
                                        alvk_generation_id id, alvk_generation_result *out,
                                        alvk_relocation_result *relocations, uint32_t capacity);
/* A copy of a generation's record: ALVK_E_UNKNOWN_PATCH / ALVK_E_UNKNOWN_GENERATION. */
alvk_status aip_rejit_generation_lookup(aip_rejit_state *st, alvk_patch_handle handle,
                                        alvk_generation_id id, aip_generation_record *out);

/* The record of patch `index`'s current generation when it FAILED with
 * AIP_COMPILATION_UNREPORTED (a cause may still be found): 1 with *out and the patch's
 * module; 0 otherwise. */
int aip_rejit_unreported_failure(aip_rejit_state *st, uint32_t index, uintptr_t *module_id,
                                 aip_generation_record *out);

/* generation_requested's work on patch p, lock held. */
void aip_patch_generation_requested(aip_patch *p, alvk_generation_id id,
                                    aip_prepared_rejit *replaced);

/* begin_generation's work on patch p, lock held. */
alvk_status aip_patch_open_generation(aip_rejit_state *st, aip_patch *p, int check_prior,
                                      alvk_generation_id prior, alvk_generation_id *id);

/* Lock held: sets or clears p's rollback_due, keeping RejitState's count of them. */
void aip_patch_set_rollback_due(aip_rejit_state *st, aip_patch *p, int due);

/* Lock held: frees the relocation results every history entry holds (the slot is reused). */
void aip_patch_clear_history(aip_patch *p);

#endif
