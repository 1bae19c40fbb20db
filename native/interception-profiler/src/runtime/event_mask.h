/* The event mask the profiler asks for, derived from its configuration alone. */
#ifndef AIP_EVENT_MASK_H
#define AIP_EVENT_MASK_H

#include "runtime/config.h"

typedef struct aip_event_mask {
    uint32_t low;  /* COR_PRF_MONITOR */
    uint32_t high; /* COR_PRF_HIGH_MONITOR */
} aip_event_mask;

/* Inert configurations ask for nothing; without patchable modules there is no ReJIT and
 * ReadyToRun code stays enabled; exact allocation profiling adds the immutable allocation and
 * stack-snapshot bits (the callback itself is enabled per capture window); sampled profiling
 * adds the stack-snapshot bit and EventPipe, never the allocation bit. */
aip_event_mask aip_event_mask_for(const aip_config *config);

#endif
