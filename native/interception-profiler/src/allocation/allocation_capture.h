/* Allocation capture windows: the ObjectAllocated callback's accounting, the sampled stack
 * walks, and opening and closing windows. Resolution of what a window recorded lives in
 * allocation_resolve.c and runs on the worker after the window closes. */
#ifndef AIP_ALLOCATION_CAPTURE_H
#define AIP_ALLOCATION_CAPTURE_H

#include "alvorkit_interception_profiler.h"
#include "allocation/sampling.h"
#include "allocation/type_table.h"
#include "coreclr/corprof_info.h"


typedef struct aip_allocation_state {
    int enabled;
    ICorProfilerInfo15 *info;
    uint32_t base_mask_low, base_mask_high; /* the mask outside windows */
    aip_type_table types;
    char (*type_names)[ALVK_TYPE_NAME_CAPACITY]; /* per type slot, filled after a window */
    aip_sample_store samples;
    _Atomic uint32_t phase;    /* 0 idle, 1 opening, 2 open, 3 closing */
    _Atomic uint32_t active;   /* what the callback looks at */
    _Atomic uint32_t inflight;
    _Atomic uint64_t window;
    alvk_capture_options options;
    uint64_t begin_ns;
    int has_result;
    alvk_capture_summary summary;
} aip_allocation_state;

extern aip_allocation_state g_aip_allocations;

/* Startup: the storage, sized by the configuration. Returns 0, or -1 when out of memory. */
int aip_allocation_init(ICorProfilerInfo15 *info, uint32_t mask_low, uint32_t mask_high,
                        uint32_t type_slots, uint32_t sample_slots);

/* ObjectAllocated. */
void aip_allocation_on_object(ObjectID object, ClassID class_id);

alvk_status aip_allocation_begin(const alvk_capture_options *options);
/* Closes the window, waits for callbacks still inside it, fills the summary, and has the
 * worker resolve names and frames (allocation_resolve.c). The worker's slot is reserved
 * first: when the queue is full (or the worker gone) the window stays open and nothing
 * changed. */
alvk_status aip_allocation_end(alvk_capture_summary *summary);

/* The worker's slot for a window's resolution: reserved before the window closes (or given
 * back), then the resolution run in it, which ends the closing phase. */
alvk_status aip_allocation_reserve_resolution(uint32_t *slot);
void aip_allocation_release_resolution(uint32_t slot);
alvk_status aip_allocation_resolve(uint32_t slot);

#endif
