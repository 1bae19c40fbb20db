/* Relocations into metadata for one generation: parents checked, tokens emitted into the
 * loaded module (or reused from the module epoch's token cache), and written into the private
 * copy of the code. Runs on the worker. */
#ifndef AIP_RELOCATION_EMIT_H
#define AIP_RELOCATION_EMIT_H

#include "alvorkit_interception_profiler.h"
#include "catalog/module_catalog.h"
#include "coreclr/corprof_info.h"
#include "emit/emitter.h"

/* Requires zeroed storage (as aip_token_cache_init). Returns 0, or -1 when the token cache's
 * lock cannot be created. */
int aip_emitter_init(aip_emitter *e, ICorProfilerInfo15 *info);

/* ModuleUnloadStarted: the epoch's tokens are gone. */
void aip_emitter_forget_module(aip_emitter *e, uintptr_t module_id);

/* Emits every relocation of g (validated) and writes the tokens into body (a private copy
 * of g->body_size bytes whose code starts at code_offset): instruction operands, the fat
 * header's LocalVarSigTok, catch clauses' class tokens. A blob's class references (ABI 3.3)
 * are replaced by the tokens of the relocations they name before it is defined, in
 * blob_scratch (AIP_RELOCATION_BLOB_MAX bytes, 2-byte aligned; the caller's, so nothing is
 * allocated). An ASSEMBLY_REF relocation (ABI 3.6) names a module of `catalog`
 * (aip_emit_module_assembly_ref: its refusals, ALVK_E_UNKNOWN_MODULE, ALVK_E_MODULE_UNLOADED,
 * ALVK_E_MODULE_COLLECTIBLE, ALVK_E_METADATA_EMIT_FAILED, are this relocation's). On failure
 * *failing names the relocation; *metadata_hr receives the first failing HRESULT, or
 * ApplyMetaData's. Worker thread. */
alvk_status aip_emit_generation(aip_emitter *e, aip_module_catalog *catalog, ModuleID module,
                                const alvk_generation *g, uint8_t *body, uint32_t code_offset,
                                uint8_t *blob_scratch, alvk_relocation_result *results,
                                uint32_t *failing, HRESULT *metadata_hr);

#endif
