/* The window pieces both profiling modes share. */
#include "allocation/capture_state.h"

#include "coreclr/corprof_enums.h"
#include "platform/platform.h"

typedef struct walk {
    aip_raw_sample *sample;
    uint32_t max_frames;
} walk;

static HRESULT STDMETHODCALLTYPE record_frame(FunctionID function, UINT_PTR ip,
                                              COR_PRF_FRAME_INFO frame, ULONG32 context_size,
                                              BYTE context[], void *data)
{
    (void)frame, (void)context_size, (void)context;
    walk *w = data;
    aip_raw_sample *s = w->sample;
    if (s->frame_count >= w->max_frames)
        return S_FALSE; /* storage for this sample is full: stop the walk */
    s->frames[s->frame_count].function_id = function;
    s->frames[s->frame_count].ip = ip;
    s->frame_count++;
    return S_OK;
}

void aip_allocation_walk(aip_allocation_state *a, aip_raw_sample *sample, uint32_t max_frames)
{
    sample->frame_count = 0;
    walk w = {sample, max_frames};
    a->info->lpVtbl->DoStackSnapshot(a->info, 0, record_frame, COR_PRF_SNAPSHOT_DEFAULT, &w, NULL,
                                     0);
}

void aip_allocation_reset_window(aip_allocation_state *a, const alvk_capture_options *options)
{
    a->options = *options;
    aip_type_table_clear(&a->types);
    aip_sample_store_reset(&a->samples, a->options.max_samples);
    atomic_store(&a->window_events, 0);
    atomic_store(&a->large_objects, 0);
    atomic_store(&a->large_bytes, 0);
    atomic_store(&a->pinned_objects, 0);
    atomic_store(&a->pinned_bytes, 0);
    atomic_store_explicit(&a->has_result, 0, memory_order_release);
    atomic_fetch_add(&a->window, 1);
    atomic_fetch_add(&a->windows_opened, 1);
    a->begin_ns = aip_monotonic_ns();
}

alvk_status aip_allocation_close_begin(aip_allocation_state *a, uint32_t *slot)
{
    alvk_status reserved = a->port.reserve_worker(a->port.context, slot);
    uint32_t open = 2;
    if (!atomic_compare_exchange_strong(&a->phase, &open, 3)) {
        if (reserved == ALVK_OK)
            a->port.release_worker(a->port.context, *slot);
        return ALVK_E_CAPTURE_NOT_ACTIVE;
    }
    if (reserved != ALVK_OK) {
        atomic_store(&a->phase, 2);
        return reserved;
    }
    return ALVK_OK;
}
