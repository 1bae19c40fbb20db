/* The state of allocation capture both profiling modes share (the profiler's, passed down),
 * the port to the profiler around it, and the pieces of a window both modes use: the stack
 * walk from inside an allocation callback and the window's reset. */
#ifndef AIP_CAPTURE_STATE_H
#define AIP_CAPTURE_STATE_H

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
    int sampling_unsupported;           /* Info12 or .NET 10 missing: windows answer 608 */
    _Atomic uintptr_t runtime_provider; /* Microsoft-Windows-DotNETRuntime's handle, once seen */
    _Atomic uint64_t window_events;     /* AllocationSampled events this window counted */
    _Atomic uint64_t large_objects, large_bytes, pinned_objects, pinned_bytes; /* this window */
    _Atomic uint64_t events_closed;  /* counted by the windows that closed */
    _Atomic uint64_t events_outside; /* delivered while no window counted */
    _Atomic uint64_t windows_opened;
} aip_allocation_state;

/* Walks the calling thread's managed stack into `sample` (at most max_frames frames): from
 * inside an allocation callback, into preallocated storage. */
void aip_allocation_walk(aip_allocation_state *a, aip_raw_sample *sample, uint32_t max_frames);

/* The window's storage emptied and its counters reset for a window of `options` (already
 * checked and defaulted), before it opens; a new window id. */
void aip_allocation_reset_window(aip_allocation_state *a, const alvk_capture_options *options);

/* The first step of closing a window, both modes: the resolution's place on the worker
 * reserved first (*slot), then the open window (phase 2) moved to closing (3). ALVK_OK, or
 * ALVK_E_CAPTURE_NOT_ACTIVE (no window open) or the reservation's refusal: then nothing
 * changed (the window stays open, no slot held). */
alvk_status aip_allocation_close_begin(aip_allocation_state *a, uint32_t *slot);

#endif
