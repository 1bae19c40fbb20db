/* Allocation capture windows: the state both profiling modes share, and exact profiling's
 * ObjectAllocated accounting, sampled stack walks, and windows. Sampled profiling's event
 * callback and windows live in sampled_capture.c (the entry points below hand over to it),
 * its capture-control thread in sampling_session.c. Resolution of what a window recorded
 * lives in allocation_resolve.c and runs on the worker after the window closes. */
#ifndef AIP_ALLOCATION_CAPTURE_H
#define AIP_ALLOCATION_CAPTURE_H

#include "alvorkit_interception_profiler.h"
#include "allocation/sampling.h"
#include "allocation/sampling_session.h"
#include "allocation/type_table.h"
#include "coreclr/corprof_info.h"

#include <stdatomic.h>
#include <stddef.h>

/* What allocation capture needs from the profiler around it, without knowing it: a place on
 * the worker thread (reserved first, then run and waited for: metadata work must run there)
 * and the MVID of a loaded module. The runtime fills it at startup. */
#define AIP_PORT_PAYLOAD_BYTES 512 /* the most a command run through the port may carry */
typedef alvk_status (*aip_port_command_fn)(void *payload, void *context);
typedef struct aip_allocation_port {
    void *context;
    alvk_status (*reserve_worker)(void *context, uint32_t *slot);
    void (*release_worker)(void *context, uint32_t slot);
    /* Runs `run(payload, ...)` in the reserved slot and waits; the payload comes back. */
    alvk_status (*run_reserved)(void *context, uint32_t slot, aip_port_command_fn run,
                                void *payload, size_t size);
    /* 1 with *mvid when module_id is a module the catalog knows. */
    int (*module_mvid)(void *context, uintptr_t module_id, alvk_mvid *mvid);
} aip_allocation_port;

/* Entries of one IL-to-native map read while resolving a frame. */
#define AIP_IL_MAP_ENTRIES 1024

typedef struct aip_allocation_state {
    int enabled;
    uint32_t profiling; /* an alvk_allocation_profiling: EXACT or SAMPLED once enabled */
    ICorProfilerInfo15 *info;
    uint32_t base_mask_low, base_mask_high; /* the mask outside windows */
    aip_type_table types;
    char (*type_names)[ALVK_TYPE_NAME_CAPACITY]; /* per type slot, filled after a window */
    aip_sample_store samples;
    _Atomic uint32_t phase;  /* 0 idle, 1 opening, 2 open, 3 closing */
    _Atomic uint32_t active; /* what the callback looks at */
    _Atomic uint32_t inflight;
    _Atomic uint64_t window;
    alvk_capture_options options;
    uint64_t begin_ns;
    _Atomic uint32_t has_result; /* a window's result is readable (release / acquire) */
    int32_t mask_hresult;        /* the last SetEventMask2 of a window that failed, or 0 */
    alvk_capture_summary summary;
    aip_allocation_port port;
    COR_DEBUG_IL_TO_NATIVE_MAP il_map[AIP_IL_MAP_ENTRIES]; /* the worker's, while resolving */
    /* Sampled profiling. */
    aip_sampling_session session;       /* the capture-control thread */
    _Atomic uintptr_t runtime_provider; /* Microsoft-Windows-DotNETRuntime's handle, once seen */
    _Atomic uint64_t window_events;     /* AllocationSampled events this window counted */
    _Atomic uint64_t large_objects, large_bytes, pinned_objects, pinned_bytes; /* this window */
    _Atomic uint64_t events_closed;  /* counted by the windows that closed */
    _Atomic uint64_t events_outside; /* delivered while no window counted */
    _Atomic uint64_t windows_opened;
} aip_allocation_state;

/* Every entry point below takes the profiler's allocation state; NULL (no profiler attached)
 * or a state whose storage was never allocated answers ALVK_E_ALLOCATION_PROFILING_OFF. */

/* Startup: the storage, sized by the configuration, for `profiling` (EXACT or SAMPLED; sampled
 * profiling also starts the capture-control thread, which needs ICorProfilerInfo12:
 * info_version says what the runtime gave). Returns 0, or -1 when out of memory. */
int aip_allocation_init(aip_allocation_state *a, ICorProfilerInfo15 *info, uint32_t info_version,
                        uint32_t profiling, uint32_t mask_low, uint32_t mask_high,
                        uint32_t type_slots, uint32_t sample_slots,
                        const aip_allocation_port *port);

/* Shutdown: stops the capture-control thread (bounded; sampled profiling). */
void aip_allocation_shutdown(aip_allocation_state *a);

/* ObjectAllocated: every object in exact profiling; the large and pinned objects in sampled
 * profiling. */
void aip_allocation_on_object(aip_allocation_state *a, ObjectID object, ClassID class_id);

/* Walks the calling thread's managed stack into `sample` (at most max_frames frames): from
 * inside an allocation callback, into preallocated storage. */
void aip_allocation_walk(aip_allocation_state *a, aip_raw_sample *sample, uint32_t max_frames);

/* The window's storage emptied and its counters reset for a window of `options` (already
 * checked and defaulted), before it opens. */
void aip_allocation_reset_window(aip_allocation_state *a, const alvk_capture_options *options);

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

/* The window's resolution, run in the worker slot reserved before it closed; it ends the
 * closing phase. */
alvk_status aip_allocation_resolve(aip_allocation_state *a, uint32_t slot);

#endif
