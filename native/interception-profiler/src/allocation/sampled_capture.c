/* Sampled profiling's windows and callbacks. */
#include "allocation/sampled_capture.h"

#include "allocation/allocation_resolve.h"
#include "allocation/allocation_sampled_event.h"
#include "allocation/sampled_estimate.h"
#include "coreclr/corprof_enums.h"
#include "platform/cpu_relax.h"
#include "platform/platform.h"

#include <string.h>

/* The large object heap's threshold: the classification when GetObjectGeneration fails. */
#define AIP_LARGE_OBJECT_BYTES 85000u
#define AIP_ALLOCATION_SAMPLED_VERSION 0u
#define AIP_LARGE_AND_PINNED \
    (COR_PRF_HIGH_MONITOR_LARGEOBJECT_ALLOCATED | COR_PRF_HIGH_MONITOR_PINNEDOBJECT_ALLOCATED)

/* Per thread: which window its stack_every count belongs to, the count (started at a random
 * phase each window), and the generator of that phase. */
typedef struct stack_counter {
    uint64_t window;
    uint32_t count;
    aip_rng rng;
} stack_counter;

static _Thread_local stack_counter t_stacks;

/* 1 on the capture-control thread: the events there are the profiler's own (the application's
 * EventSource enable callback runs there while a session starts), never counted. */
static _Thread_local int t_control_thread;

/* ---- The capture-control thread's port: the runtime's session calls ------------------------ */

static void widen(const char *ascii, WCHAR *out, size_t cap)
{
    size_t i = 0;
    for (; ascii[i] != '\0' && i + 1 < cap; ++i)
        out[i] = (WCHAR)(unsigned char)ascii[i];
    out[i] = 0;
}

static int32_t port_thread_init(void *context)
{
    aip_allocation_state *a = context;
    t_control_thread = 1;
    return a->info->lpVtbl->InitializeCurrentThread(a->info);
}

static int32_t port_start(void *context, int dummy, uint64_t *session)
{
    aip_allocation_state *a = context;
    WCHAR name[64];
    widen(AIP_RUNTIME_PROVIDER_NAME, name, sizeof name / sizeof name[0]);
    /* The window's session: AllocationSampled alone. The dummy session after a stop
     * (dotnet/runtime#121462) follows the Datadog profiler (dd-trace-dotnet,
     * HeapSnapshotManager::CleanupSession): after stopping its session it starts and stops a
     * session on the same provider, Microsoft-Windows-DotNETRuntime, with the keywords and
     * level that should stay in force (those of its long-lived runtime session), no filter,
     * no rundown. Nothing of ours should stay in force, so ours asks for no keyword at the
     * Critical level: AllocationSampled (keyword 0x80000000000, Informational) is off by
     * both. */
    COR_PRF_EVENTPIPE_PROVIDER_CONFIG config = {
        name, dummy ? 0 : AIP_ALLOCATION_SAMPLING_KEYWORD,
        dummy ? COR_PRF_EVENTPIPE_CRITICAL : COR_PRF_EVENTPIPE_INFORMATIONAL, NULL};
    EVENTPIPE_SESSION handle = 0;
    HRESULT hr = a->info->lpVtbl->EventPipeStartSession(a->info, 1, &config, 0, &handle);
    *session = handle;
    return hr;
}

static int32_t port_stop(void *context, uint64_t session)
{
    aip_allocation_state *a = context;
    return a->info->lpVtbl->EventPipeStopSession(a->info, session);
}

void aip_sampled_init(aip_allocation_state *a, uint32_t info_version, uint32_t runtime_major)
{
    /* No EventPipeStartSession before Info12, no AllocationSampled before .NET 10: the control
     * thread stays unstarted and windows answer ALVK_E_SAMPLING_UNSUPPORTED. */
    if (info_version < 12 || runtime_major < 10) {
        a->sampling_unsupported = 1;
        return;
    }
    const aip_session_port port = {a, port_thread_init, port_start, port_stop};
    aip_sampling_session_start(&a->session, &port, ALVK_CAPTURE_STOP_BOUND_MS,
                               ALVK_CAPTURE_START_BOUND_MS);
}

/* ---- Callbacks --------------------------------------------------------------------------- */

/* 1 when `provider` is Microsoft-Windows-DotNETRuntime: its name read once, then the handle. */
static int is_runtime_provider(aip_allocation_state *a, uintptr_t provider)
{
    uintptr_t known = atomic_load_explicit(&a->runtime_provider, memory_order_relaxed);
    if (known != 0)
        return provider == known;
    WCHAR name[64];
    ULONG length = 0;
    if (FAILED(a->info->lpVtbl->EventPipeGetProviderInfo(a->info, provider, 64, &length, name)))
        return 0;
    static const char expected[] = AIP_RUNTIME_PROVIDER_NAME;
    for (size_t i = 0; i < sizeof expected; ++i) /* the NUL included */
        if (i >= 64 || name[i] != (WCHAR)(unsigned char)expected[i])
            return 0;
    atomic_store_explicit(&a->runtime_provider, provider, memory_order_relaxed);
    return 1;
}

/* A stack for each event with probability exactly 1 / stack_every: the thread's count of a
 * window starts at a uniformly random phase in [0, stack_every), so a thread with fewer events
 * than stack_every, and a window's tail, get their share. */
static int stack_due(aip_allocation_state *a)
{
    uint64_t window = atomic_load_explicit(&a->window, memory_order_relaxed);
    uint32_t every = a->options.stack_every;
    if (t_stacks.window != window) {
        t_stacks.window = window;
        /* The thread-local's address tells live threads apart; the window's event count so
         * far tells apart a thread that reuses an exited one's thread-local block. */
        uint64_t so_far = atomic_load_explicit(&a->window_events, memory_order_relaxed);
        aip_rng_seed(&t_stacks.rng, a->options.seed ^ (window * 0x9E3779B97F4A7C15ull) ^
                                        (uint64_t)(uintptr_t)&t_stacks ^ (so_far << 40));
        /* (32 random bits * every) >> 32: uniform in [0, every) up to 2^-32. */
        t_stacks.count = (uint32_t)(((aip_rng_next(&t_stacks.rng) >> 32) * every) >> 32);
    }
    if (++t_stacks.count < every)
        return 0;
    t_stacks.count = 0;
    return 1;
}

static void take_stack(aip_allocation_state *a, uintptr_t class_id, uint64_t object_size,
                       uint64_t weight_bytes, uint32_t stack_bytes, const uintptr_t *stack)
{
    aip_raw_sample *s = aip_sample_store_reserve(&a->samples, 1);
    if (s == NULL)
        return;
    s->class_id = class_id;
    s->object_size = object_size;
    s->weight_bytes = weight_bytes;
    uint32_t ips = stack != NULL ? stack_bytes / (uint32_t)sizeof(uintptr_t) : 0;
    if (ips == 0) {
        aip_allocation_walk(a, s, a->options.max_frames);
        return;
    }
    /* The runtime gave the stack: its instruction pointers, resolved on the worker later. */
    uint32_t n = ips < a->options.max_frames ? ips : a->options.max_frames;
    for (uint32_t k = 0; k < n; ++k) {
        uintptr_t ip = 0;
        memcpy(&ip, (const char *)stack + (size_t)k * sizeof ip, sizeof ip);
        memset(&s->frames[k], 0, sizeof s->frames[k]);
        s->frames[k].ip = ip;
    }
    s->frame_count = n;
}

static void count_event(aip_allocation_state *a, const uint8_t *data, uint32_t size,
                        uint32_t stack_bytes, const uintptr_t *stack)
{
    aip_allocation_sampled e;
    if (aip_allocation_sampled_parse(data, size, (uint32_t)sizeof(void *), &e) != 0 ||
        e.class_id == 0)
        return;
    atomic_fetch_add_explicit(&a->window_events, 1, memory_order_relaxed);
    aip_sampled_weight w;
    aip_sampled_weight_of(e.object_size, ALVK_RUNTIME_SAMPLING_MEAN_BYTES, &w);
    /* Large and pinned objects are counted exactly through ObjectAllocated: their events
     * would count them twice. */
    if (e.kind == 0)
        aip_type_table_add_sampled(&a->types, e.class_id, &w);
    if (a->options.mode == ALVK_CAPTURE_SAMPLED && stack_due(a))
        take_stack(a, e.class_id, e.object_size,
                   w.bytes > UINT64_MAX / a->options.stack_every ? UINT64_MAX
                                                                 : w.bytes * a->options.stack_every,
                   stack_bytes, stack);
}

void aip_allocation_on_event(aip_allocation_state *a, uintptr_t provider, uint32_t event_id,
                             uint32_t version, const uint8_t *data, uint32_t size,
                             uint32_t stack_bytes, const uintptr_t *stack)
{
    if (a == NULL || a->profiling != ALVK_ALLOCATION_PROFILING_SAMPLED || t_control_thread)
        return;
    /* Only AllocationSampled of the runtime counts, in a window or outside one; the sessions'
     * own events (EventPipe's, the dummy session's) are ignored. */
    if (event_id != AIP_ALLOCATION_SAMPLED_EVENT_ID || version != AIP_ALLOCATION_SAMPLED_VERSION ||
        data == NULL)
        return;
    if (!atomic_load(&a->active)) {
        if (is_runtime_provider(a, provider))
            atomic_fetch_add_explicit(&a->events_outside, 1, memory_order_relaxed);
        return;
    }
    atomic_fetch_add(&a->inflight, 1);
    if (atomic_load(&a->active) && is_runtime_provider(a, provider))
        count_event(a, data, size, stack_bytes, stack);
    atomic_fetch_sub(&a->inflight, 1);
}

void aip_sampled_on_large_object(aip_allocation_state *a, ObjectID object, ClassID class_id)
{
    if (t_control_thread)
        return;
    atomic_fetch_add(&a->inflight, 1);
    if (atomic_load(&a->active)) {
        SIZE_T size = 0;
        a->info->lpVtbl->GetObjectSize2(a->info, object, &size);
        COR_PRF_GC_GENERATION_RANGE range;
        memset(&range, 0, sizeof range);
        int pinned = SUCCEEDED(a->info->lpVtbl->GetObjectGeneration(a->info, object, &range))
                         ? range.generation == COR_PRF_GC_PINNED_OBJECT_HEAP
                         : size < AIP_LARGE_OBJECT_BYTES;
        aip_type_table_add(&a->types, class_id, size);
        atomic_fetch_add_explicit(pinned ? &a->pinned_objects : &a->large_objects, 1,
                                  memory_order_relaxed);
        atomic_fetch_add_explicit(pinned ? &a->pinned_bytes : &a->large_bytes, size,
                                  memory_order_relaxed);
    }
    atomic_fetch_sub(&a->inflight, 1);
}

/* ---- Windows ----------------------------------------------------------------------------- */

/* Undoes an opening window: nothing counts any more, the mask is back. */
static void abandon_window(aip_allocation_state *a)
{
    atomic_store(&a->active, 0);
    while (atomic_load(&a->inflight) != 0)
        aip_cpu_relax();
    a->info->lpVtbl->SetEventMask2(a->info, a->base_mask_low, a->base_mask_high);
    atomic_fetch_add(&a->events_closed, atomic_load(&a->window_events));
    atomic_store(&a->phase, 0);
}

alvk_status aip_sampled_begin(aip_allocation_state *a, const alvk_capture_options *options)
{
    if (options->stack_every > ALVK_MAX_STACK_EVERY ||
        (options->sample_interval_bytes != 0 &&
         options->sample_interval_bytes != ALVK_RUNTIME_SAMPLING_MEAN_BYTES))
        return ALVK_E_LIMIT_EXCEEDED;
    if (a->sampling_unsupported)
        return ALVK_E_SAMPLING_UNSUPPORTED;
    uint32_t idle = 0;
    if (!atomic_compare_exchange_strong(&a->phase, &idle, 1))
        return ALVK_E_CAPTURE_ACTIVE;
    alvk_status ready = aip_sampling_session_ready(&a->session);
    if (ready != ALVK_OK) {
        atomic_store(&a->phase, 0);
        return ready;
    }
    alvk_capture_options o = *options;
    o.sample_interval_bytes = ALVK_RUNTIME_SAMPLING_MEAN_BYTES;
    if (o.max_frames == 0)
        o.max_frames = ALVK_MAX_SAMPLE_FRAMES;
    if (o.stack_every == 0)
        o.stack_every = 1;
    if (o.mode != ALVK_CAPTURE_SAMPLED)
        o.stack_every = 0;
    if (o.seed == 0)
        o.seed = aip_monotonic_ns() | 1; /* the stack phases' per-window seed */
    /* Large and pinned objects come through ObjectAllocated while the window is open; the
     * first window also arms EventPipe's delivery and the stack walks, which then stay in the
     * mask outside windows. The mask before the reset: refused, the last window's results
     * stay readable (the callback finds `active` still 0 meanwhile) and nothing is armed. */
    uint32_t armed_low = a->base_mask_low | AIP_SAMPLED_ARMED_LOW;
    uint32_t armed_high = a->base_mask_high | AIP_SAMPLED_ARMED_HIGH;
    HRESULT hr =
        a->info->lpVtbl->SetEventMask2(a->info, armed_low, armed_high | AIP_LARGE_AND_PINNED);
    if (FAILED(hr)) {
        a->mask_hresult = hr;
        atomic_store(&a->phase, 0);
        return ALVK_E_EVENT_MASK_REFUSED;
    }
    a->base_mask_low = armed_low;
    a->base_mask_high = armed_high;
    aip_allocation_reset_window(a, &o);
    a->mask_hresult = 0;
    /* Counting before the session is asked for: the runtime delivers the first events before
     * EventPipeStartSession returns. The phase stays OPENING until open returned, so an end
     * racing this begin finds no window to close (it would close before the session was
     * asked for, and open would then ask for a session nobody stops). */
    atomic_store(&a->active, 1);
    uint64_t window = atomic_load(&a->window);
    int32_t session_hr = 0;
    alvk_status status = aip_sampling_session_open(
        &a->session, window, (o.flags & ALVK_CAPTURE_WAIT_UNTIL_SAMPLING) != 0, &session_hr);
    if (status != ALVK_OK && status != ALVK_E_TIMEOUT) {
        /* Refused (or the control thread went away): the window closes again. */
        aip_session_outcome outcome;
        aip_sampling_session_close(&a->session, window, &outcome);
        abandon_window(a);
        return status;
    }
    atomic_store(&a->phase, 2);
    return status;
}

alvk_status aip_sampled_end(aip_allocation_state *a, alvk_capture_summary *summary)
{
    uint32_t slot = 0;
    alvk_status closing = aip_allocation_close_begin(a, &slot);
    if (closing != ALVK_OK)
        return closing;
    uint64_t closed_ns = aip_monotonic_ns();
    atomic_store(&a->active, 0);
    while (atomic_load(&a->inflight) != 0)
        aip_cpu_relax();
    HRESULT hr = a->info->lpVtbl->SetEventMask2(a->info, a->base_mask_low, a->base_mask_high);
    if (FAILED(hr))
        a->mask_hresult = hr;
    aip_session_outcome o;
    aip_sampling_session_close(&a->session, atomic_load(&a->window), &o);
    uint64_t events = atomic_load(&a->window_events);
    atomic_fetch_add(&a->events_closed, events);

    alvk_capture_summary *s = &a->summary;
    memset(s, 0, sizeof *s);
    s->size = sizeof *s;
    s->mode = a->options.mode;
    s->type_count = aip_type_table_used(&a->types);
    s->sample_count = aip_sample_store_count(&a->samples);
    aip_type_estimate total;
    aip_type_table_total_estimate(&a->types, &total);
    s->total_objects = total.count;
    s->total_bytes = total.bytes;
    aip_type_table_overflow_estimate(&a->types, &s->overflow_objects, &s->overflow_bytes);
    s->dropped_samples = atomic_load(&a->samples.dropped);
    s->elapsed_ns = closed_ns - a->begin_ns;
    s->type_slots = a->types.capacity;
    s->sample_slots = a->samples.capacity;
    s->source = ALVK_ALLOCATION_PROFILING_SAMPLED;
    s->sampled_events = events;
    s->large_objects = atomic_load(&a->large_objects);
    s->large_bytes = atomic_load(&a->large_bytes);
    s->pinned_objects = atomic_load(&a->pinned_objects);
    s->pinned_bytes = atomic_load(&a->pinned_bytes);
    s->session_hresult = o.hresult;
    s->stack_every = a->options.stack_every;
    /* The start had returned when the window closed (refused or not); the window sampled
     * when it had returned with a session. */
    int returned = o.attempted && o.started_ns <= closed_ns;
    int sampled = returned && o.started;
    if (o.attempted && !o.started)
        s->flags |= ALVK_CAPTURE_SESSION_REFUSED;
    if (!returned)
        s->flags |= ALVK_CAPTURE_CLOSED_BEFORE_SAMPLING;
    if (o.stop_pending)
        s->flags |= ALVK_CAPTURE_STOP_PENDING;
    s->sampling_started_ns =
        sampled ? (o.started_ns > a->begin_ns ? o.started_ns - a->begin_ns : 1) : 0;
    s->session_stop_ns = o.stop_ns;
    *summary = *s;
    return aip_allocation_resolve(a, slot);
}

void aip_sampled_state(aip_allocation_state *a, uint32_t window_phase, alvk_capture_state *out)
{
    aip_sampling_session *session = &a->session;
    uint64_t window = atomic_load(&a->window);
    uint64_t current = window_phase == 2 ? atomic_load(&a->window_events) : 0;
    switch (window_phase) {
    case 1:
        out->phase = ALVK_CAPTURE_PHASE_OPENING;
        break;
    case 2:
        out->phase = atomic_load(&session->delivering_window) == window || current != 0
                         ? ALVK_CAPTURE_PHASE_OPEN
                         : ALVK_CAPTURE_PHASE_OPENING;
        break;
    case 3:
        out->phase = ALVK_CAPTURE_PHASE_CLOSING;
        break;
    default:
        out->phase = aip_sampling_session_stopping(session) ? ALVK_CAPTURE_PHASE_STOPPING
                                                            : ALVK_CAPTURE_PHASE_IDLE;
        break;
    }
    out->session_hresult = atomic_load(&session->last_hresult);
    out->sessions_started = atomic_load(&session->sessions_started);
    out->sessions_stopped = atomic_load(&session->sessions_stopped);
    out->stop_hangs = atomic_load(&session->stop_hangs);
    out->events_in_windows = atomic_load(&a->events_closed) + current;
    out->events_outside_windows = atomic_load(&a->events_outside);
    out->current_window_events = current;
}
