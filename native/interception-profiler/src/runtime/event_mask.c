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
     * windows. Sampled profiling sets nothing here: it never sets ENABLE_OBJECT_ALLOCATED,
     * which would put every allocation of the process on the runtime's slow path, and the
     * mutable bits it needs (EventPipe's delivery, the stack walks) are armed by its first
     * window (sampled_capture.c), so a process that never opens one has the mask of a
     * profiler without allocation profiling. */
    if (config->allocation_profiling == ALVK_ALLOCATION_PROFILING_EXACT)
        mask.low |= COR_PRF_ENABLE_OBJECT_ALLOCATED | COR_PRF_ENABLE_STACK_SNAPSHOT;
    return mask;
}
