/* Sampled allocation profiling: windows that count the runtime's own AllocationSampled events
 * (EventPipe, delivered synchronously on the allocating thread) into per-type estimates, and
 * the large and pinned objects exactly through ObjectAllocated. The session is opened and
 * stopped by the capture-control thread (sampling_session.c), never here. */
#ifndef AIP_SAMPLED_CAPTURE_H
#define AIP_SAMPLED_CAPTURE_H

#include "allocation/capture_state.h"
#include "coreclr/corprof_enums.h"

/* The provider, keyword and level of AllocationSampled (.NET 10), and its event. */
#define AIP_RUNTIME_PROVIDER_NAME "Microsoft-Windows-DotNETRuntime"
#define AIP_ALLOCATION_SAMPLING_KEYWORD 0x80000000000ull

/* The event-mask bits sampled profiling needs from its first window on, both mutable:
 * EventPipe's delivery to the profiler and the stack walks. Not set at startup: a process that
 * never opens a window runs with the mask of a profiler without allocation profiling. The
 * first begin adds them to the mask kept outside windows, for good (a window's session stops,
 * and its dummy session runs, after the window has closed). */
#define AIP_SAMPLED_ARMED_LOW COR_PRF_ENABLE_STACK_SNAPSHOT
#define AIP_SAMPLED_ARMED_HIGH COR_PRF_HIGH_MONITOR_EVENT_PIPE

/* Startup: the capture-control thread (not when the runtime's interface is older than
 * ICorProfilerInfo12, which has no EventPipe sessions, or the runtime older than .NET 10,
 * which has no AllocationSampled event: windows then answer ALVK_E_SAMPLING_UNSUPPORTED). */
void aip_sampled_init(aip_allocation_state *a, uint32_t info_version, uint32_t runtime_major);

/* EventPipeEventDelivered. `stack_bytes` is the runtime's numStackFrames: a byte count of the
 * instruction pointers at `stack`. No lock, no allocation, no managed call; never stops a
 * session. */
void aip_allocation_on_event(aip_allocation_state *a, uintptr_t provider, uint32_t event_id,
                             uint32_t version, const uint8_t *data, uint32_t size,
                             uint32_t stack_bytes, const uintptr_t *stack);

/* ObjectAllocated while a sampled window is open: only large and pinned objects come. */
void aip_sampled_on_large_object(aip_allocation_state *a, ObjectID object, ClassID class_id);

/* aip_allocation_begin / _end for sampled profiling (common checks already made). */
alvk_status aip_sampled_begin(aip_allocation_state *a, const alvk_capture_options *options);
alvk_status aip_sampled_end(aip_allocation_state *a, alvk_capture_summary *summary);

/* The phase and the session's counters, for aip_allocation_get_state. */
void aip_sampled_state(aip_allocation_state *a, uint32_t window_phase, alvk_capture_state *out);

#endif
