/* The worker's half of a method generation: relocations emitted (or reused) for the loaded
 * module epoch, tokens written into a private copy of the body, the copy published as the
 * PreparedRejit snapshot, and the ReJIT requested. Exact-dispatch installs come through here
 * too, as a generation with one StandAloneSig relocation. */
#ifndef AIP_GENERATION_WORKER_H
#define AIP_GENERATION_WORKER_H

#include "catalog/module_catalog_clr.h"
#include "runtime/runtime_state.h"
#include "il/method_body.h"

/* A generation copied off the caller's memory at submission. */
typedef struct aip_staged_generation {
    alvk_generation g; /* its pointers point into `storage` */
    alvk_generation_id id;
    alvk_command_id command;
    uint32_t index;
    uint32_t added_owner;
    alvk_status resolve_status; /* why no module copy resolved when it was queued */
    uint64_t queued_ns;
    _Alignas(8) uint8_t storage[];
} aip_staged_generation;

/* A heap copy of a validated generation; NULL when out of memory. Freed with free(). */
aip_staged_generation *aip_generation_stage(const alvk_generation *g);

/* Emits, patches, publishes and requests generation `id` of patch `index` for `target`.
 * `code_offset` is where the code starts in g->body. On failure nothing stays published. */
alvk_status aip_generation_apply(aip_runtime *rt, uint32_t index, alvk_generation_id id,
                                 const alvk_generation *g, uint32_t code_offset,
                                 const aip_method_target *target, uint64_t queued_ns);

/* Emits every relocation of g (generation_emit.c) and writes the tokens into body (a
 * private copy whose code starts at code_offset). On failure *failing names the relocation;
 * *metadata_hr receives the first failing HRESULT, or ApplyMetaData's. */
alvk_status aip_generation_emit(aip_runtime *rt, ModuleID module, const alvk_generation *g,
                                uint8_t *body, uint32_t code_offset,
                                alvk_relocation_result *results, uint32_t *failing,
                                HRESULT *metadata_hr);

/* Publishes `prepared` (NULL: the original IL) for generation `id` (0: the original) and
 * requests the ReJIT; on refusal the previous snapshot comes back. Takes `prepared`. */
alvk_status aip_generation_publish(aip_runtime *rt, uint32_t index, alvk_generation_id id,
                                   aip_prepared_rejit *prepared, uint64_t queued_ns);

/* Queue commands: a submitted generation (payload: aip_staged_generation *), and the
 * rollback of a generation that failed to compile (payload: uint32_t patch index). */
alvk_status aip_generation_run(void *payload, void *context);
void aip_generation_discard(void *payload, void *context);
alvk_status aip_generation_rollback_run(void *payload, void *context);

#endif
