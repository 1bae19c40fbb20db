/* What emission needs and counts: the runtime's profiling interface, the token cache, and the
 * metadata this profiler added to modules (the runtime status reports the counters). Its
 * functions are relocation_emit.h's; the AssemblyRefs (assembly_ref.h) use it too. */
#ifndef AIP_EMITTER_H
#define AIP_EMITTER_H

#include "coreclr/corprof_info.h"
#include "emit/token_cache.h"

#include <stdatomic.h>
#include <stdint.h>

typedef struct aip_emitter {
    ICorProfilerInfo15 *info;
    aip_token_cache tokens;
    _Atomic uint64_t tokens_emitted;
    _Atomic uint64_t bytes_emitted;
    _Atomic uint64_t tokens_reused;
} aip_emitter;

#endif
