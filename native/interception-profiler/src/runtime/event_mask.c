#include "runtime/event_mask.h"
#include "coreclr/corprof_enums.h"

aip_event_mask aip_event_mask_for(const aip_config *config)
{
    aip_event_mask mask = {0, 0};
    if (aip_config_is_inert(config->startup_status))
        return mask;
    mask.low = COR_PRF_MONITOR_MODULE_LOADS;
    if (config->startup_status == ALVK_OK)
        mask.low |=
            COR_PRF_ENABLE_REJIT | COR_PRF_MONITOR_JIT_COMPILATION | COR_PRF_MONITOR_CACHE_SEARCHES;
    /* Immutable bits only: COR_PRF_MONITOR_OBJECT_ALLOCATED (exact) and the large and pinned
     * object bits (sampled) are switched on while a capture window is open
     * (allocation_capture.c, sampled_capture.c), so no allocation callback runs outside
     * windows. Sampled profiling never sets ENABLE_OBJECT_ALLOCATED, which would put every
     * allocation of the process on the runtime's slow path; it listens to EventPipe instead
     * (mutable, free without a session). */
    if (config->allocation_profiling == ALVK_ALLOCATION_PROFILING_EXACT)
        mask.low |= COR_PRF_ENABLE_OBJECT_ALLOCATED | COR_PRF_ENABLE_STACK_SNAPSHOT;
    else if (config->allocation_profiling == ALVK_ALLOCATION_PROFILING_SAMPLED) {
        mask.low |= COR_PRF_ENABLE_STACK_SNAPSHOT;
        mask.high |= COR_PRF_HIGH_MONITOR_EVENT_PIPE;
    }
    return mask;
}
