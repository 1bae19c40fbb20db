/* Relocations into metadata for one generation: parents checked, tokens emitted into the
 * loaded module (or reused from the module epoch's token cache), and written into the private
 * copy of the code. Runs on the worker. */
#ifndef AIP_RELOCATION_EMIT_H
#define AIP_RELOCATION_EMIT_H

#include "alvorkit_interception_profiler.h"
#include "coreclr/corprof_info.h"
#include "emit/token_cache.h"

#include <stdatomic.h>

/* What emission needs and counts: the runtime's profiling interface, the token cache, and the
 * metadata this profiler added to modules (the runtime status reports the counters). */
typedef struct aip_emitter {
    ICorProfilerInfo15 *info;
    aip_token_cache tokens;
    _Atomic uint64_t tokens_emitted;
    _Atomic uint64_t bytes_emitted;
    _Atomic uint64_t tokens_reused;
} aip_emitter;

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
 * allocated). On failure *failing names the relocation; *metadata_hr receives the first
 * failing HRESULT, or ApplyMetaData's. Worker thread. */
alvk_status aip_emit_generation(aip_emitter *e, ModuleID module, const alvk_generation *g,
                                uint8_t *body, uint32_t code_offset, uint8_t *blob_scratch,
                                alvk_relocation_result *results, uint32_t *failing,
                                HRESULT *metadata_hr);

#endif
