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
    /* Immutable bits only: COR_PRF_MONITOR_OBJECT_ALLOCATED is switched on while a capture
     * window is open (allocation_capture.c), so no callback runs outside windows. */
    if (config->allocation_profiling)
        mask.low |= COR_PRF_ENABLE_OBJECT_ALLOCATED | COR_PRF_ENABLE_STACK_SNAPSHOT;
    return mask;
}
