/* A generation's preparation on the worker: the payload staged off the caller's memory, the
 * target resolved in the module copy the patch is for, the generation checked against it
 * (body identity, chain, validation), then the body's stack types checked, its relocations
 * emitted and recorded, their members checked, and the body snapshot as a PreparedRejit for
 * the command runner (apply_batch.h) to publish. Nothing is published here. An exact-dispatch
 * body (apply_dispatch.h) is prepared by the same steps. Runs on the worker thread only. */
#ifndef AIP_APPLY_GENERATION_H
#define AIP_APPLY_GENERATION_H

#include "rejit/apply_command.h"
#include "rejit/apply_publish.h"
#include "rejit/patch_table.h"

#include <stdint.h>

/* A heap copy of a validated generation; NULL when out of memory. Freed with free(). */
aip_staged_generation *aip_generation_stage(const alvk_generation *g);

/* The target of patch `p` for `token`, resolved in the module copy the patch is for (never
 * found again by MVID: another copy may be loaded meanwhile); `resolve_status` is why no
 * copy resolved when the command was queued. */
alvk_status aip_apply_resolve_target(const aip_apply_env *env, const aip_patch *p, uint32_t token,
                                     alvk_status resolve_status, aip_method_target *target);

/* Generation `id` of patch `index` for `target` (its code at `code_offset` in g->body): the
 * stack-type check, the relocations emitted and recorded, the member check, the snapshot
 * into *prepared. The relocation results stay in the scratch and *metadata_hr receives
 * emission's HRESULT; refused, *why says what the record should keep. */
alvk_status aip_apply_prepare_body(const aip_apply_env *env, uint32_t index, alvk_generation_id id,
                                   const alvk_generation *g, uint32_t code_offset,
                                   const aip_method_target *target, HRESULT *metadata_hr,
                                   aip_refusal *why, aip_prepared_rejit **prepared);

/* A submitted generation prepared for the runner: resolved, its body identity and chain
 * checked against patch `p` as the batch found it, validated against the original's size,
 * then as aip_apply_prepare_body; its body in *held, the dispatch telemetry (none) in *a. */
alvk_status aip_apply_generation_prepare(const aip_apply_env *env, aip_staged_generation *s,
                                         const aip_patch *p, aip_refusal *why, aip_rejit_applied *a,
                                         aip_held_publish *held);

/* A refused generation's record: why (and where the types differ), once. */
void aip_apply_record_refusal(const aip_apply_env *env, uint32_t index, alvk_generation_id id,
                              alvk_status status, const aip_refusal *why);

#endif
