/* Allocation capture windows: the entry points, and exact profiling's ObjectAllocated
 * accounting, sampled stack walks, and windows (the state both modes share:
 * capture_state.h). Sampled profiling's event
 * callback and windows live in sampled_capture.c (the entry points below hand over to it),
 * its capture-control thread in sampling_session.c. Resolution of what a window recorded
 * lives in allocation_resolve.c and runs on the worker after the window closes. */
#ifndef AIP_ALLOCATION_CAPTURE_H
#define AIP_ALLOCATION_CAPTURE_H

#include "allocation/capture_state.h"

/* Every entry point below takes the profiler's allocation state; NULL (no profiler attached)
 * or a state whose storage was never allocated answers ALVK_E_ALLOCATION_PROFILING_OFF. */

/* Startup: the storage, sized by the configuration, for `profiling` (EXACT or SAMPLED; sampled
 * profiling also starts the capture-control thread, which needs ICorProfilerInfo12 and .NET 10:
 * info_version and runtime_major say what the runtime gave). Returns 0, or -1 when out of
 * memory. */
int aip_allocation_init(aip_allocation_state *a, ICorProfilerInfo15 *info, uint32_t info_version,
                        uint32_t runtime_major, uint32_t profiling, uint32_t mask_low,
                        uint32_t mask_high, uint32_t type_slots, uint32_t sample_slots,
                        const aip_allocation_port *port);

/* Shutdown: stops the capture-control thread (bounded; sampled profiling). */
void aip_allocation_shutdown(aip_allocation_state *a);

/* ObjectAllocated: every object in exact profiling; the large and pinned objects in sampled
 * profiling. */
void aip_allocation_on_object(aip_allocation_state *a, ObjectID object, ClassID class_id);

/* Opens a window (`options` whole: the caller zero-extended a shorter one). See
 * alvk_capture_begin. ALVK_E_EVENT_MASK_REFUSED when the runtime refuses the allocation
 * callback (the window stays closed). */
alvk_status aip_allocation_begin(aip_allocation_state *a, const alvk_capture_options *options);
/* Closes the window, waits for callbacks still inside it, fills the summary, and has the
 * worker resolve names and frames (allocation_resolve.c). The worker's slot is reserved
 * first: when the queue is full (or the worker gone) the window stays open and nothing
 * changed. */
alvk_status aip_allocation_end(aip_allocation_state *a, alvk_capture_summary *summary);

/* See alvk_capture_get_state (`out` whole). */
alvk_status aip_allocation_get_state(aip_allocation_state *a, alvk_capture_state *out);

#endif
