/* Exact profiling's capture windows and allocation callback: atomic accounting and, when
 * sampled, a synchronous walk of the allocating thread into preallocated storage. No locks,
 * no allocation, no metadata work in the callback. The entry points hand sampled profiling
 * over to sampled_capture.c. */
#include "allocation/allocation_capture.h"

#include "allocation/allocation_resolve.h"
#include "allocation/sampled_capture.h"
#include "coreclr/corprof_enums.h"
#include "platform/cpu_relax.h"
#include "platform/platform.h"

#include <stdlib.h>
#include <string.h>

typedef struct sampler_thread {
    uint64_t window;
    aip_rng rng;
    int64_t remaining;
} sampler_thread;

static _Thread_local sampler_thread t_sampler;

int aip_allocation_init(aip_allocation_state *a, ICorProfilerInfo15 *info, uint32_t info_version,
                        uint32_t runtime_major, uint32_t profiling, uint32_t mask_low,
                        uint32_t mask_high, uint32_t type_slots, uint32_t sample_slots,
                        const aip_allocation_port *port)
{
    a->info = info;
    a->port = *port;
    a->profiling = profiling;
    a->base_mask_low = mask_low & ~(uint32_t)COR_PRF_MONITOR_OBJECT_ALLOCATED;
    a->base_mask_high = mask_high & ~(uint32_t)(COR_PRF_HIGH_MONITOR_LARGEOBJECT_ALLOCATED |
                                                COR_PRF_HIGH_MONITOR_PINNEDOBJECT_ALLOCATED);
    if (aip_type_table_init(&a->types, type_slots) != 0 ||
        aip_sample_store_init(&a->samples, sample_slots) != 0 ||
        (a->type_names = calloc(a->types.capacity, sizeof *a->type_names)) == NULL)
        return -1;
    if (profiling == ALVK_ALLOCATION_PROFILING_SAMPLED)
        aip_sampled_init(a, info_version, runtime_major);
    a->enabled = 1;
    return 0;
}

void aip_allocation_shutdown(aip_allocation_state *a)
{
    if (a != NULL && a->enabled && a->profiling == ALVK_ALLOCATION_PROFILING_SAMPLED)
        aip_sampling_session_shutdown(&a->session, (uint64_t)ALVK_CAPTURE_STOP_BOUND_MS * 1000000u);
}

static void sample_if_due(aip_allocation_state *a, ClassID class_id, uint64_t bytes)
{
    uint64_t window = atomic_load_explicit(&a->window, memory_order_relaxed);
    uint32_t mean = a->options.sample_interval_bytes;
    if (t_sampler.window != window) {
        t_sampler.window = window;
        aip_rng_seed(&t_sampler.rng,
                     a->options.seed ^ (window << 32) ^ (uint64_t)(uintptr_t)&t_sampler);
        t_sampler.remaining = aip_sampling_distance(&t_sampler.rng, mean);
    }
    uint32_t taken = aip_sampling_take(&t_sampler.rng, mean, &t_sampler.remaining, bytes);
    if (taken == 0)
        return;
    aip_raw_sample *s = aip_sample_store_reserve(&a->samples, taken);
    if (s == NULL)
        return;
    s->class_id = class_id;
    s->object_size = bytes;
    s->weight_bytes = (uint64_t)taken * mean;
    aip_allocation_walk(a, s, a->options.max_frames);
}

void aip_allocation_on_object(aip_allocation_state *a, ObjectID object, ClassID class_id)
{
    if (a == NULL || !atomic_load(&a->active))
        return;
    if (a->profiling == ALVK_ALLOCATION_PROFILING_SAMPLED) {
        aip_sampled_on_large_object(a, object, class_id);
        return;
    }
    atomic_fetch_add(&a->inflight, 1);
    if (atomic_load(&a->active)) {
        SIZE_T size = 0;
        a->info->lpVtbl->GetObjectSize2(a->info, object, &size);
        aip_type_table_add(&a->types, class_id, size);
        if (a->options.mode == ALVK_CAPTURE_SAMPLED)
            sample_if_due(a, class_id, size);
    }
    atomic_fetch_sub(&a->inflight, 1);
}

alvk_status aip_allocation_begin(aip_allocation_state *a, const alvk_capture_options *options)
{
    if (a == NULL || !a->enabled)
        return ALVK_E_ALLOCATION_PROFILING_OFF;
    if ((options->flags & ~ALVK_CAPTURE_VALID_FLAGS) != 0 || options->reserved2 != 0 ||
        (options->mode != ALVK_CAPTURE_COUNT_ONLY && options->mode != ALVK_CAPTURE_SAMPLED))
        return ALVK_E_INVALID_FLAGS;
    if (options->max_frames > ALVK_MAX_SAMPLE_FRAMES || options->max_samples > a->samples.capacity)
        return ALVK_E_LIMIT_EXCEEDED;
    if (a->profiling == ALVK_ALLOCATION_PROFILING_SAMPLED)
        return aip_sampled_begin(a, options);
    /* Exact profiling: the flag (waiting for a session) has nothing to wait for. */
    if (options->stack_every > 1 ||
        (options->sample_interval_bytes != 0 &&
         options->sample_interval_bytes < ALVK_MIN_SAMPLE_INTERVAL_BYTES))
        return ALVK_E_LIMIT_EXCEEDED;
    uint32_t idle = 0;
    if (!atomic_compare_exchange_strong(&a->phase, &idle, 1))
        return ALVK_E_CAPTURE_ACTIVE;
    alvk_capture_options o = *options;
    if (o.sample_interval_bytes == 0)
        o.sample_interval_bytes = ALVK_DEFAULT_SAMPLE_INTERVAL_BYTES;
    if (o.max_frames == 0)
        o.max_frames = ALVK_MAX_SAMPLE_FRAMES;
    if (o.seed == 0)
        o.seed = aip_monotonic_ns() | 1;
    o.stack_every = o.mode == ALVK_CAPTURE_SAMPLED ? 1 : 0;
    /* The runtime calls ObjectAllocated only while a window is open. The mask before the
     * reset: refused, the last window's results stay readable (the callback finds `active`
     * still 0 until the reset is done). */
    HRESULT hr = a->info->lpVtbl->SetEventMask2(
        a->info, a->base_mask_low | COR_PRF_MONITOR_OBJECT_ALLOCATED, a->base_mask_high);
    if (FAILED(hr)) {
        /* No callback will come: the window never opened. */
        a->mask_hresult = hr;
        atomic_store(&a->phase, 0);
        return ALVK_E_EVENT_MASK_REFUSED;
    }
    aip_allocation_reset_window(a, &o);
    atomic_store(&a->active, 1);
    atomic_store(&a->phase, 2);
    return ALVK_OK;
}

alvk_status aip_allocation_end(aip_allocation_state *a, alvk_capture_summary *summary)
{
    if (a == NULL || !a->enabled)
        return ALVK_E_ALLOCATION_PROFILING_OFF;
    if (a->profiling == ALVK_ALLOCATION_PROFILING_SAMPLED)
        return aip_sampled_end(a, summary);
    /* The resolution's place on the worker first: without it, the window stays open. */
    uint32_t slot = 0;
    alvk_status closing = aip_allocation_close_begin(a, &slot);
    if (closing != ALVK_OK)
        return closing;
    atomic_store(&a->active, 0);
    /* Refused, the callback keeps coming but finds the window closed: kept for diagnosis. */
    HRESULT hr = a->info->lpVtbl->SetEventMask2(a->info, a->base_mask_low, a->base_mask_high);
    if (FAILED(hr))
        a->mask_hresult = hr;
    while (atomic_load(&a->inflight) != 0)
        aip_cpu_relax();
    alvk_capture_summary *s = &a->summary;
    memset(s, 0, sizeof *s);
    s->size = sizeof *s;
    s->mode = a->options.mode;
    s->type_count = aip_type_table_used(&a->types);
    s->sample_count = aip_sample_store_count(&a->samples);
    s->total_objects = atomic_load(&a->types.total_objects);
    s->total_bytes = atomic_load(&a->types.total_bytes);
    s->overflow_objects = atomic_load(&a->types.overflow_objects);
    s->overflow_bytes = atomic_load(&a->types.overflow_bytes);
    s->dropped_samples = atomic_load(&a->samples.dropped);
    s->elapsed_ns = aip_monotonic_ns() - a->begin_ns;
    s->type_slots = a->types.capacity;
    s->sample_slots = a->samples.capacity;
    s->source = ALVK_ALLOCATION_PROFILING_EXACT;
    s->stack_every = a->options.stack_every;
    *summary = *s;
    return aip_allocation_resolve(a, slot);
}

alvk_status aip_allocation_get_state(aip_allocation_state *a, alvk_capture_state *out)
{
    memset(out, 0, sizeof *out);
    out->size = sizeof *out;
    out->phase = ALVK_CAPTURE_PHASE_IDLE;
    out->profiling = ALVK_ALLOCATION_PROFILING_OFF;
    if (a == NULL || !a->enabled)
        return ALVK_E_ALLOCATION_PROFILING_OFF;
    out->profiling = (alvk_allocation_profiling)a->profiling;
    out->windows_opened = atomic_load(&a->windows_opened);
    uint32_t phase = atomic_load(&a->phase);
    if (a->profiling == ALVK_ALLOCATION_PROFILING_SAMPLED) {
        aip_sampled_state(a, phase, out);
        return ALVK_OK;
    }
    out->phase = phase == 1   ? ALVK_CAPTURE_PHASE_OPENING
                 : phase == 2 ? ALVK_CAPTURE_PHASE_OPEN
                 : phase == 3 ? ALVK_CAPTURE_PHASE_CLOSING
                              : ALVK_CAPTURE_PHASE_IDLE;
    return ALVK_OK;
}
