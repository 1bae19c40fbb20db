/* Sampled allocation capture against a fake runtime (ICorProfilerInfo15 with the session,
 * mask, object and stack calls): begin's checks, the window's mask, AllocationSampled events
 * counted into estimates (and the ones that must not be: outside windows, another provider,
 * another event or version, a truncated payload, large and pinned kinds), large and pinned
 * objects counted exactly and told apart, 1-in-N stacks and their weight, a stack the runtime
 * gives, a refused session, and exact profiling's checks of the new options; an end racing an
 * opening begin, an end while the start runs, unbiased stacks in short windows, the control
 * thread's own events, the readers' partial copies, a refused mask keeping the last results,
 * 608 without .NET 10 or Info12, and the overflow without overflow. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "allocation/allocation_capture.h"
#include "allocation/allocation_resolve.h"
#include "allocation/sampled_capture.h"
#include "allocation/sampled_estimate.h"
#include "coreclr/corprof_enums.h"

#define RUNTIME_PROVIDER 0xAA00u
#define OTHER_PROVIDER 0xBB00u
#define FOO 0x1111u
#define BAR 0x2222u
#define E_FAKE ((HRESULT)0x80004005)

typedef struct fake {
    ICorProfilerInfo15 info;
    HRESULT start_hr;
    _Atomic uint32_t starts, stops, dummy_starts; /* on the control thread */
    uint32_t mask_low, mask_high;
    HRESULT generation_hr;
    COR_PRF_GC_GENERATION generation;
    SIZE_T object_size;
    uint32_t provider_lookups;
    uint32_t walks;
    HRESULT mask_hr;                /* what SetEventMask2 answers */
    _Atomic uint32_t start_delay_ms; /* a window start takes this long */
    _Atomic uint32_t in_start;       /* a window start is running */
    _Atomic uint32_t deliver_in_start; /* a window start delivers an event and an object */
} fake;

static fake F;
static ICorProfilerInfo15Vtbl vtbl;
static aip_allocation_state A;

static void deliver(uintptr_t provider, uint32_t id, uint32_t version, uint32_t kind,
                    uint64_t type_id, uint64_t size);

static void sleep_ms(unsigned ms)
{
    struct timespec t = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static void widen(const char *in, WCHAR *out)
{
    size_t n = 0;
    for (; in[n] != 0; ++n)
        out[n] = (WCHAR)in[n];
    out[n] = 0;
}

static HRESULT STDMETHODCALLTYPE init_thread(ICorProfilerInfo15 *This)
{
    (void)This;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE start_session(ICorProfilerInfo15 *This, UINT32 count,
                                               COR_PRF_EVENTPIPE_PROVIDER_CONFIG *configs,
                                               BOOL rundown, EVENTPIPE_SESSION *session)
{
    (void)This;
    WCHAR name[64];
    widen(AIP_RUNTIME_PROVIDER_NAME, name);
    assert_int_equal(count, 1);
    assert_int_equal(rundown, 0);
    assert_null(configs[0].filterData);
    assert_memory_equal(configs[0].providerName, name, sizeof(WCHAR) * 32);
    if (configs[0].keywords == 0) {
        /* The dummy session: nothing that enables AllocationSampled. */
        assert_int_equal(configs[0].loggingLevel, COR_PRF_EVENTPIPE_CRITICAL);
        ++F.dummy_starts;
        *session = 0xD0;
        return S_OK;
    }
    assert_int_equal(configs[0].keywords, AIP_ALLOCATION_SAMPLING_KEYWORD);
    assert_int_equal(configs[0].loggingLevel, COR_PRF_EVENTPIPE_INFORMATIONAL);
    atomic_store(&F.in_start, 1);
    if (atomic_load(&F.deliver_in_start)) {
        /* What the application's EventSource callback allocates while the session starts. */
        deliver(RUNTIME_PROVIDER, 303, 0, 0, FOO, 24);
        aip_allocation_on_object(&A, 0x10, BAR);
    }
    sleep_ms(atomic_load(&F.start_delay_ms));
    atomic_store(&F.in_start, 0);
    *session = 0x50 + atomic_fetch_add(&F.starts, 1);
    return F.start_hr;
}

static HRESULT STDMETHODCALLTYPE stop_session(ICorProfilerInfo15 *This, EVENTPIPE_SESSION s)
{
    (void)This;
    if (s != 0xD0)
        ++F.stops;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE provider_info(ICorProfilerInfo15 *This, EVENTPIPE_PROVIDER p,
                                               ULONG capacity, ULONG *length, WCHAR *name)
{
    (void)This;
    ++F.provider_lookups;
    const char *text = p == RUNTIME_PROVIDER ? AIP_RUNTIME_PROVIDER_NAME : "Other-Provider";
    assert_true(strlen(text) + 1 <= capacity);
    widen(text, name);
    *length = (ULONG)strlen(text) + 1;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE set_mask(ICorProfilerInfo15 *This, DWORD low, DWORD high)
{
    (void)This;
    if (FAILED(F.mask_hr))
        return F.mask_hr;
    F.mask_low = low;
    F.mask_high = high;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE object_size(ICorProfilerInfo15 *This, ObjectID o, SIZE_T *size)
{
    (void)This, (void)o;
    *size = F.object_size;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE object_generation(ICorProfilerInfo15 *This, ObjectID o,
                                                   COR_PRF_GC_GENERATION_RANGE *range)
{
    (void)This, (void)o;
    range->generation = F.generation;
    return F.generation_hr;
}

static HRESULT STDMETHODCALLTYPE snapshot(ICorProfilerInfo15 *This, ThreadID thread,
                                          StackSnapshotCallback callback, ULONG32 flags,
                                          void *data, BYTE *context, ULONG32 context_size)
{
    (void)This, (void)flags, (void)context, (void)context_size;
    assert_int_equal(thread, 0); /* the current thread */
    ++F.walks;
    callback(0x7001, 0x9001, 0, 0, NULL, data);
    callback(0x7002, 0x9002, 0, 0, NULL, data);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE function_from_ip(ICorProfilerInfo15 *This, LPCBYTE ip,
                                                  FunctionID *function, ReJITID *rejit)
{
    (void)This;
    *function = (uintptr_t)ip == 0x9100 ? 0x7100 : 0;
    *rejit = 0;
    return *function != 0 ? S_OK : E_FAKE;
}

static HRESULT STDMETHODCALLTYPE fails_function_info(ICorProfilerInfo15 *This, FunctionID f,
                                                     COR_PRF_FRAME_INFO frame, ClassID *cls,
                                                     ModuleID *module, mdToken *token,
                                                     ULONG32 n, ULONG32 *count, ClassID *args)
{
    (void)This, (void)f, (void)frame, (void)cls, (void)module, (void)token, (void)n, (void)count,
        (void)args;
    return E_FAKE;
}

static HRESULT STDMETHODCALLTYPE not_array(ICorProfilerInfo15 *This, ClassID cls,
                                           CorElementType *element, ClassID *element_class,
                                           ULONG *rank)
{
    (void)This, (void)cls, (void)element, (void)element_class, (void)rank;
    return S_FALSE;
}

static HRESULT STDMETHODCALLTYPE fails_class_info(ICorProfilerInfo15 *This, ClassID cls,
                                                  ModuleID *module, mdTypeDef *type,
                                                  ClassID *parent, ULONG32 n, ULONG32 *count,
                                                  ClassID *args)
{
    (void)This, (void)cls, (void)module, (void)type, (void)parent, (void)n, (void)count,
        (void)args;
    return E_FAKE;
}

/* The worker port: commands run inline. */
static alvk_status reserve(void *context, uint32_t *slot)
{
    (void)context;
    *slot = 1;
    return ALVK_OK;
}

static void release(void *context, uint32_t slot)
{
    (void)context, (void)slot;
}

static alvk_status run(void *context, uint32_t slot, aip_port_command_fn fn, void *payload,
                       size_t size)
{
    (void)slot, (void)size;
    return fn(payload, context);
}

static int no_mvid(void *context, uintptr_t module, alvk_mvid *mvid)
{
    (void)context, (void)module, (void)mvid;
    return 0;
}

static int setup(void **state)
{
    (void)state;
    memset(&F, 0, sizeof F);
    memset(&vtbl, 0, sizeof vtbl);
    vtbl.InitializeCurrentThread = init_thread;
    vtbl.EventPipeStartSession = start_session;
    vtbl.EventPipeStopSession = stop_session;
    vtbl.EventPipeGetProviderInfo = provider_info;
    vtbl.SetEventMask2 = set_mask;
    vtbl.GetObjectSize2 = object_size;
    vtbl.GetObjectGeneration = object_generation;
    vtbl.DoStackSnapshot = snapshot;
    vtbl.GetFunctionFromIP3 = function_from_ip;
    vtbl.GetFunctionInfo2 = fails_function_info;
    vtbl.IsArrayClass = not_array;
    vtbl.GetClassIDInfo2 = fails_class_info;
    F.info.lpVtbl = &vtbl;
    memset(&A, 0, sizeof A);
    aip_allocation_port port = {NULL, reserve, release, run, no_mvid};
    uint32_t low = COR_PRF_ENABLE_STACK_SNAPSHOT, high = COR_PRF_HIGH_MONITOR_EVENT_PIPE;
    assert_int_equal(aip_allocation_init(&A, &F.info, 15, 10, ALVK_ALLOCATION_PROFILING_SAMPLED, low,
                                         high, 64, 16, &port),
                     0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    aip_allocation_shutdown(&A);
    aip_type_table_free(&A.types);
    aip_sample_store_free(&A.samples);
    free(A.type_names);
    return 0;
}

/* An AllocationSampled v0 payload (64-bit pointers): kind, instance, TypeID, name, address,
 * size, offset. */
static size_t payload(uint8_t *out, uint32_t kind, uint64_t type_id, uint64_t size)
{
    size_t n = 0;
    memcpy(out + n, &kind, 4), n += 4;
    uint16_t instance = 7;
    memcpy(out + n, &instance, 2), n += 2;
    memcpy(out + n, &type_id, 8), n += 8;
    const uint16_t name[] = {'F', 'o', 'o', 0};
    memcpy(out + n, name, sizeof name), n += sizeof name;
    uint64_t address = 0x1234;
    memcpy(out + n, &address, 8), n += 8;
    memcpy(out + n, &size, 8), n += 8;
    uint64_t offset = 5;
    memcpy(out + n, &offset, 8), n += 8;
    return n;
}

static void deliver(uintptr_t provider, uint32_t id, uint32_t version, uint32_t kind,
                    uint64_t type_id, uint64_t size)
{
    uint8_t buffer[64];
    size_t n = payload(buffer, kind, type_id, size);
    aip_allocation_on_event(&A, provider, id, version, buffer, (uint32_t)n, 0, NULL);
}

static alvk_capture_options options(alvk_capture_mode mode, uint32_t flags, uint32_t stack_every)
{
    alvk_capture_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.mode = mode;
    o.flags = flags;
    o.stack_every = stack_every;
    return o;
}

static void begin_checks_its_options(void **state)
{
    (void)state;
    alvk_capture_options o = options(ALVK_CAPTURE_SAMPLED, 0, 0);
    o.sample_interval_bytes = 65536; /* only the runtime's mean */
    assert_int_equal(aip_allocation_begin(&A, &o), ALVK_E_LIMIT_EXCEEDED);
    o = options(ALVK_CAPTURE_SAMPLED, 0, ALVK_MAX_STACK_EVERY + 1);
    assert_int_equal(aip_allocation_begin(&A, &o), ALVK_E_LIMIT_EXCEEDED);
    o = options(ALVK_CAPTURE_SAMPLED, 0x2, 0);
    assert_int_equal(aip_allocation_begin(&A, &o), ALVK_E_INVALID_FLAGS);
    o = options(ALVK_CAPTURE_SAMPLED, 0, 0);
    o.reserved2 = 1;
    assert_int_equal(aip_allocation_begin(&A, &o), ALVK_E_INVALID_FLAGS);
    o = options((alvk_capture_mode)2, 0, 0);
    assert_int_equal(aip_allocation_begin(&A, &o), ALVK_E_INVALID_FLAGS);
    assert_int_equal(F.starts, 0);
    o = options(ALVK_CAPTURE_SAMPLED, ALVK_CAPTURE_WAIT_UNTIL_SAMPLING, ALVK_MAX_STACK_EVERY);
    o.sample_interval_bytes = ALVK_RUNTIME_SAMPLING_MEAN_BYTES;
    assert_int_equal(aip_allocation_begin(&A, &o), ALVK_OK);
    assert_int_equal(aip_allocation_begin(&A, &o), ALVK_E_CAPTURE_ACTIVE);
    alvk_capture_summary s;
    assert_int_equal(aip_allocation_end(&A, &s), ALVK_OK);
    assert_int_equal(s.stack_every, ALVK_MAX_STACK_EVERY);
}

static void a_window_counts_estimates_and_nothing_else(void **state)
{
    (void)state;
    deliver(RUNTIME_PROVIDER, 303, 0, 0, FOO, 24); /* before any window */
    deliver(RUNTIME_PROVIDER, 1, 0, 0, FOO, 24);   /* not AllocationSampled: not counted */
    deliver(OTHER_PROVIDER, 303, 0, 0, FOO, 24);
    alvk_capture_options o = options(ALVK_CAPTURE_COUNT_ONLY, ALVK_CAPTURE_WAIT_UNTIL_SAMPLING, 0);
    assert_int_equal(aip_allocation_begin(&A, &o), ALVK_OK);
    assert_int_equal(F.starts, 1);
    /* Open: the large and pinned objects come through ObjectAllocated, EventPipe stays. */
    assert_int_equal(F.mask_high, COR_PRF_HIGH_MONITOR_EVENT_PIPE |
                                      COR_PRF_HIGH_MONITOR_LARGEOBJECT_ALLOCATED |
                                      COR_PRF_HIGH_MONITOR_PINNEDOBJECT_ALLOCATED);
    assert_false(F.mask_low & COR_PRF_MONITOR_OBJECT_ALLOCATED);
    alvk_capture_state st;
    assert_int_equal(aip_allocation_get_state(&A, &st), ALVK_OK);
    assert_int_equal(st.phase, ALVK_CAPTURE_PHASE_OPEN);
    assert_int_equal(st.events_outside_windows, 1);
    aip_sampled_weight w24, w1000, sum = {0, 0, 0, 0};
    aip_sampled_weight_of(24, ALVK_RUNTIME_SAMPLING_MEAN_BYTES, &w24);
    aip_sampled_weight_of(1000, ALVK_RUNTIME_SAMPLING_MEAN_BYTES, &w1000);
    for (int i = 0; i < 30; ++i)
        deliver(RUNTIME_PROVIDER, 303, 0, 0, FOO, 24);
    for (int i = 0; i < 5; ++i)
        deliver(RUNTIME_PROVIDER, 303, 0, 0, BAR, 1000);
    sum.bytes = 30 * w24.bytes + 5 * w1000.bytes;
    /* Not AllocationSampled v0 of the runtime: ignored. */
    deliver(OTHER_PROVIDER, 303, 0, 0, FOO, 24);
    deliver(RUNTIME_PROVIDER, 304, 0, 0, FOO, 24);
    deliver(RUNTIME_PROVIDER, 303, 1, 0, FOO, 24);
    uint8_t buffer[64];
    size_t n = payload(buffer, 0, FOO, 24);
    aip_allocation_on_event(&A, RUNTIME_PROVIDER, 303, 0, buffer, (uint32_t)n - 9, 0, NULL);
    /* A large object's event counts as an event, not into the estimate: ObjectAllocated
     * counts it exactly. */
    deliver(RUNTIME_PROVIDER, 303, 0, 1, BAR, 200000);
    F.object_size = 200000;
    F.generation = COR_PRF_GC_LARGE_OBJECT_HEAP;
    aip_allocation_on_object(&A, 0x10, BAR);
    F.object_size = 512;
    F.generation = COR_PRF_GC_PINNED_OBJECT_HEAP;
    aip_allocation_on_object(&A, 0x11, BAR);
    /* Without a generation: the size says which heap. */
    F.generation_hr = E_FAKE;
    F.object_size = 90000;
    aip_allocation_on_object(&A, 0x12, BAR);
    F.object_size = 100;
    aip_allocation_on_object(&A, 0x13, BAR);
    assert_int_equal(aip_allocation_get_state(&A, &st), ALVK_OK);
    assert_int_equal(st.current_window_events, 36);
    alvk_capture_summary s;
    assert_int_equal(aip_allocation_end(&A, &s), ALVK_OK);
    assert_int_equal(F.mask_high, COR_PRF_HIGH_MONITOR_EVENT_PIPE);
    assert_int_equal(F.stops, 1);
    assert_int_equal(F.dummy_starts, 1);
    assert_int_equal(s.source, ALVK_ALLOCATION_PROFILING_SAMPLED);
    assert_int_equal(s.flags, 0);
    assert_int_equal(s.sampled_events, 36);
    assert_int_equal(s.large_objects, 2);
    assert_int_equal(s.large_bytes, 290000);
    assert_int_equal(s.pinned_objects, 2);
    assert_int_equal(s.pinned_bytes, 612);
    assert_int_equal(s.session_hresult, 0);
    assert_true(s.sampling_started_ns > 0);
    assert_true(s.session_stop_ns > 0);
    assert_int_equal(s.sample_count, 0); /* count-only */
    assert_int_equal(s.stack_every, 0);
    assert_int_equal(s.type_count, 2);
    /* The bytes: the events' weights plus the exact large and pinned bytes (rounding aside). */
    uint64_t want = sum.bytes + 290000 + 612;
    assert_true(s.total_bytes + 2 >= want && s.total_bytes <= want + 2);
    /* The provider's name was read once (the first event), then only its handle compared. */
    assert_int_equal(F.provider_lookups, 1);
    alvk_type_count types[4];
    uint32_t written = 0;
    assert_int_equal(aip_allocation_read_types(&A, 0, types, sizeof types[0], 4, &written), ALVK_OK);
    assert_int_equal(written, 2);
    for (uint32_t i = 0; i < written; ++i) {
        if (types[i].class_id == FOO) {
            assert_int_equal(types[i].samples, 30);
            assert_int_equal(types[i].exact_count, 0);
            assert_true(types[i].count_low <= types[i].count);
            assert_true(types[i].count <= types[i].count_high);
            assert_true(types[i].count_high > types[i].count_low);
        } else {
            assert_int_equal(types[i].class_id, BAR);
            assert_int_equal(types[i].samples, 5);
            assert_int_equal(types[i].exact_count, 4);
            assert_int_equal(types[i].exact_bytes, 290612);
            assert_true(types[i].count_low >= 4); /* never below the exact part */
        }
    }
    assert_int_equal(aip_allocation_get_state(&A, &st), ALVK_OK);
    assert_int_equal(st.phase, ALVK_CAPTURE_PHASE_IDLE);
    assert_int_equal(st.events_in_windows, 36);
    assert_int_equal(st.sessions_started, 1);
    assert_int_equal(st.sessions_stopped, 1);
    assert_int_equal(st.windows_opened, 1);
}

static void stacks_every_nth_event_with_their_weight(void **state)
{
    (void)state;
    alvk_capture_options o = options(ALVK_CAPTURE_SAMPLED, ALVK_CAPTURE_WAIT_UNTIL_SAMPLING, 3);
    assert_int_equal(aip_allocation_begin(&A, &o), ALVK_OK);
    for (int i = 0; i < 9; ++i)
        deliver(RUNTIME_PROVIDER, 303, 0, 0, FOO, 24);
    /* A stack the runtime gives: its IPs are the frames, nothing is walked. */
    uintptr_t ips[2] = {0x9100, 0x9200};
    uint8_t buffer[64];
    size_t n = payload(buffer, 0, FOO, 24);
    uint32_t walks = F.walks;
    aip_allocation_on_event(&A, RUNTIME_PROVIDER, 303, 0, buffer, (uint32_t)n, sizeof ips, ips);
    aip_allocation_on_event(&A, RUNTIME_PROVIDER, 303, 0, buffer, (uint32_t)n, sizeof ips, ips);
    aip_allocation_on_event(&A, RUNTIME_PROVIDER, 303, 0, buffer, (uint32_t)n, sizeof ips, ips);
    assert_int_equal(F.walks, walks);
    alvk_capture_summary s;
    assert_int_equal(aip_allocation_end(&A, &s), ALVK_OK);
    assert_int_equal(s.sample_count, 4);
    assert_int_equal(s.stack_every, 3);
    aip_sampled_weight w;
    aip_sampled_weight_of(24, ALVK_RUNTIME_SAMPLING_MEAN_BYTES, &w);
    alvk_sample samples[4];
    uint32_t written = 0;
    assert_int_equal(aip_allocation_read_samples(&A, 0, samples, sizeof samples[0], 4, &written), ALVK_OK);
    assert_int_equal(written, 4);
    for (int i = 0; i < 3; ++i) {
        assert_int_equal(samples[i].weight_bytes, w.bytes * 3);
        assert_int_equal(samples[i].class_id, FOO);
        assert_int_equal(samples[i].frame_count, 2);
        assert_int_equal(samples[i].frames[0].function_id, 0x7001);
        assert_int_equal(samples[i].frames[1].ip, 0x9002);
    }
    assert_int_equal(samples[3].frame_count, 2);
    assert_int_equal(samples[3].frames[0].ip, 0x9100);
    assert_int_equal(samples[3].frames[0].function_id, 0x7100); /* resolved from the IP */
    assert_int_equal(samples[3].frames[1].ip, 0x9200);
    assert_int_equal(samples[3].frames[1].function_id, 0);
}

static void a_refused_session_closes_the_window_again(void **state)
{
    (void)state;
    F.start_hr = E_FAKE;
    alvk_capture_options o = options(ALVK_CAPTURE_SAMPLED, ALVK_CAPTURE_WAIT_UNTIL_SAMPLING, 0);
    assert_int_equal(aip_allocation_begin(&A, &o), ALVK_E_CAPTURE_SESSION_FAILED);
    assert_int_equal(F.mask_high, COR_PRF_HIGH_MONITOR_EVENT_PIPE);
    alvk_capture_state st;
    assert_int_equal(aip_allocation_get_state(&A, &st), ALVK_OK);
    assert_int_equal(st.phase, ALVK_CAPTURE_PHASE_IDLE);
    assert_int_equal(st.session_hresult, E_FAKE);
    deliver(RUNTIME_PROVIDER, 303, 0, 0, FOO, 24);
    assert_int_equal(aip_allocation_get_state(&A, &st), ALVK_OK);
    assert_int_equal(st.events_outside_windows, 1);
    alvk_capture_summary s;
    assert_int_equal(aip_allocation_end(&A, &s), ALVK_E_CAPTURE_NOT_ACTIVE);
    /* Without waiting, the refusal comes in the summary. */
    o.flags = 0;
    assert_int_equal(aip_allocation_begin(&A, &o), ALVK_OK);
    for (int i = 0; i < 10000 && atomic_load(&F.starts) < 2; ++i) {
        struct timespec t = {0, 1000000};
        nanosleep(&t, NULL);
    }
    assert_int_equal(aip_allocation_end(&A, &s), ALVK_OK);
    assert_true(s.flags & ALVK_CAPTURE_SESSION_REFUSED);
    assert_int_equal(s.session_hresult, E_FAKE);
    assert_int_equal(s.sampling_started_ns, 0);
    assert_int_equal(F.stops, 0);
    struct timespec t = {0, 20000000}; /* the start returned: let the thread record it */
    nanosleep(&t, NULL);
    F.start_hr = S_OK;
    o.flags = ALVK_CAPTURE_WAIT_UNTIL_SAMPLING;
    assert_int_equal(aip_allocation_begin(&A, &o), ALVK_OK);
    assert_int_equal(aip_allocation_end(&A, &s), ALVK_OK);
    assert_int_equal(s.flags, 0);
}

static void exact_profiling_checks_the_new_options(void **state)
{
    (void)state;
    teardown(state);
    memset(&A, 0, sizeof A);
    aip_allocation_port port = {NULL, reserve, release, run, no_mvid};
    assert_int_equal(aip_allocation_init(&A, &F.info, 15, 10, ALVK_ALLOCATION_PROFILING_EXACT,
                                         COR_PRF_ENABLE_OBJECT_ALLOCATED, 0, 64, 16, &port),
                     0);
    alvk_capture_options o = options(ALVK_CAPTURE_SAMPLED, 0, 2);
    assert_int_equal(aip_allocation_begin(&A, &o), ALVK_E_LIMIT_EXCEEDED);
    o = options(ALVK_CAPTURE_SAMPLED, ALVK_CAPTURE_WAIT_UNTIL_SAMPLING, 1); /* ignored */
    assert_int_equal(aip_allocation_begin(&A, &o), ALVK_OK);
    assert_true(F.mask_low & COR_PRF_MONITOR_OBJECT_ALLOCATED);
    F.object_size = 24;
    aip_allocation_on_object(&A, 0x10, FOO);
    deliver(RUNTIME_PROVIDER, 303, 0, 0, FOO, 24); /* no sessions in exact profiling */
    alvk_capture_summary s;
    assert_int_equal(aip_allocation_end(&A, &s), ALVK_OK);
    assert_int_equal(s.source, ALVK_ALLOCATION_PROFILING_EXACT);
    assert_int_equal(s.total_objects, 1);
    assert_int_equal(s.sampled_events, 0);
    assert_int_equal(F.starts, 0);
    alvk_type_count t;
    uint32_t written = 0;
    assert_int_equal(aip_allocation_read_types(&A, 0, &t, sizeof t, 1, &written), ALVK_OK);
    assert_int_equal(written, 1);
    assert_int_equal(t.count_low, 1);
    assert_int_equal(t.count_high, 1);
    assert_int_equal(t.exact_count, 1);
    assert_int_equal(t.exact_bytes, 24);
    assert_int_equal(t.samples, 0);
}

/* The exported calls' size checks (no profiler is attached in this process, so a call that
 * passes them answers ALVK_E_ALLOCATION_PROFILING_OFF): the ABI 3.0 sizes are the minimum, an
 * array of type counts takes its stride from its first element. */
static void exported_capture_calls_take_minimum_sizes(void **state)
{
    (void)state;
    alvk_capture_options o;
    memset(&o, 0, sizeof o);
    o.size = 31;
    assert_int_equal(alvk_capture_begin(&o), ALVK_E_STRUCT_SIZE);
    o.size = 32;
    assert_int_equal(alvk_capture_begin(&o), ALVK_E_ALLOCATION_PROFILING_OFF);
    alvk_capture_summary s;
    memset(&s, 0, sizeof s);
    s.size = 71;
    assert_int_equal(alvk_capture_end(&s), ALVK_E_STRUCT_SIZE);
    s.size = 72;
    assert_int_equal(alvk_capture_end(&s), ALVK_E_ALLOCATION_PROFILING_OFF);
    static unsigned char types[3 * 600];
    uint32_t written = 7, stride = 543;
    memcpy(types, &stride, 4);
    assert_int_equal(alvk_capture_read_types(0, (alvk_type_count *)(void *)types, 1, &written),
                     ALVK_E_STRUCT_SIZE);
    stride = 545; /* odd strides are fine: elements are copied, not read in place */
    for (int i = 0; i < 3; ++i)
        memcpy(types + i * stride, &stride, 4);
    assert_int_equal(alvk_capture_read_types(0, (alvk_type_count *)(void *)types, 3, &written),
                     ALVK_E_ALLOCATION_PROFILING_OFF);
    assert_int_equal(written, 0);
    uint32_t other = 600;
    memcpy(types + 2 * stride, &other, 4);
    assert_int_equal(alvk_capture_read_types(0, (alvk_type_count *)(void *)types, 3, &written),
                     ALVK_E_STRUCT_SIZE);
    static unsigned char samples[2 * sizeof(alvk_sample)];
    uint32_t old_sample = (uint32_t)offsetof(alvk_sample, object_size) - 1;
    memcpy(samples, &old_sample, 4);
    assert_int_equal(alvk_capture_read_samples(0, (alvk_sample *)(void *)samples, 1, &written),
                     ALVK_E_STRUCT_SIZE);
    old_sample += 1; /* the ABI 3.0 size, also the stride */
    memcpy(samples, &old_sample, 4);
    memcpy(samples + old_sample, &old_sample, 4);
    assert_int_equal(alvk_capture_read_samples(0, (alvk_sample *)(void *)samples, 2, &written),
                     ALVK_E_ALLOCATION_PROFILING_OFF);
    assert_int_equal(written, 0);
    alvk_capture_state st;
    memset(&st, 0xFF, sizeof st);
    st.size = sizeof st - 1;
    assert_int_equal(alvk_capture_get_state(&st), ALVK_E_STRUCT_SIZE);
    st.size = sizeof st;
    assert_int_equal(alvk_capture_get_state(&st), ALVK_E_ALLOCATION_PROFILING_OFF);
    assert_int_equal(st.size, sizeof st);
    assert_int_equal(st.phase, ALVK_CAPTURE_PHASE_IDLE);
    assert_int_equal(st.profiling, ALVK_ALLOCATION_PROFILING_OFF);
    assert_int_equal(st.windows_opened, 0);
}

static _Atomic int32_t begin_status;

static void begin_waiting(void *arg)
{
    (void)arg;
    alvk_capture_options o = options(ALVK_CAPTURE_SAMPLED, ALVK_CAPTURE_WAIT_UNTIL_SAMPLING, 0);
    atomic_store(&begin_status, (int32_t)aip_allocation_begin(&A, &o));
}

static void wait_until_idle(void)
{
    alvk_capture_state st;
    for (int i = 0; i < 10000; ++i) {
        aip_allocation_get_state(&A, &st);
        if (st.phase == ALVK_CAPTURE_PHASE_IDLE)
            return;
        sleep_ms(1);
    }
    fail_msg("the capture never became idle");
}

/* An end racing a begin that waits for its (slow) start finds no window yet: it must not close
 * a window whose session is asked for after the close (nobody would stop it). */
static void an_end_racing_an_opening_begin_finds_no_window(void **state)
{
    (void)state;
    atomic_store(&F.start_delay_ms, 200);
    atomic_store(&begin_status, -1);
    aip_thread t;
    assert_int_equal(aip_thread_start(&t, begin_waiting, NULL), 0);
    for (int i = 0; i < 10000 && !atomic_load(&F.in_start); ++i)
        sleep_ms(1);
    assert_true(atomic_load(&F.in_start));
    alvk_capture_summary s;
    assert_int_equal(aip_allocation_end(&A, &s), ALVK_E_CAPTURE_NOT_ACTIVE);
    alvk_capture_state st;
    assert_int_equal(aip_allocation_get_state(&A, &st), ALVK_OK);
    assert_int_equal(st.phase, ALVK_CAPTURE_PHASE_OPENING);
    aip_thread_join(&t);
    assert_int_equal(atomic_load(&begin_status), ALVK_OK);
    assert_int_equal(aip_allocation_end(&A, &s), ALVK_OK);
    assert_int_equal(s.flags, 0);
    wait_until_idle();
    atomic_store(&F.start_delay_ms, 0);
    alvk_capture_options o = options(ALVK_CAPTURE_SAMPLED, ALVK_CAPTURE_WAIT_UNTIL_SAMPLING, 0);
    assert_int_equal(aip_allocation_begin(&A, &o), ALVK_OK);
    assert_int_equal(aip_allocation_end(&A, &s), ALVK_OK);
    assert_int_equal(atomic_load(&F.starts), 2);
    assert_int_equal(F.stops, 2);
}

/* An end while the window's start still runs returns at once: the session is stopped when the
 * start returns, and begin answers ALVK_E_CAPTURE_STOPPING until then. */
static void an_end_does_not_wait_for_a_running_start(void **state)
{
    (void)state;
    atomic_store(&F.start_delay_ms, 300);
    alvk_capture_options o = options(ALVK_CAPTURE_SAMPLED, 0, 0);
    assert_int_equal(aip_allocation_begin(&A, &o), ALVK_OK);
    for (int i = 0; i < 10000 && !atomic_load(&F.in_start); ++i)
        sleep_ms(1);
    uint64_t t0 = aip_monotonic_ns();
    alvk_capture_summary s;
    assert_int_equal(aip_allocation_end(&A, &s), ALVK_OK);
    assert_true(aip_monotonic_ns() - t0 < 150000000ull);
    assert_int_equal(s.flags, ALVK_CAPTURE_CLOSED_BEFORE_SAMPLING | ALVK_CAPTURE_STOP_PENDING);
    assert_int_equal(s.sampling_started_ns, 0);
    assert_int_equal(aip_allocation_begin(&A, &o), ALVK_E_CAPTURE_STOPPING);
    wait_until_idle();
    assert_int_equal(F.stops, 1);
    atomic_store(&F.start_delay_ms, 0);
}

/* Every event is a stack with probability 1/stack_every: windows of 3 events with N = 10 get
 * a stack 3 times in 10, and the stacks' weights sum to about the events'. */
static void stacks_are_unbiased_in_short_windows(void **state)
{
    (void)state;
    aip_sampled_weight w;
    aip_sampled_weight_of(24, ALVK_RUNTIME_SAMPLING_MEAN_BYTES, &w);
    const uint32_t windows = 400;
    uint64_t stacks = 0, stack_weight = 0;
    for (uint32_t i = 0; i < windows; ++i) {
        alvk_capture_options o = options(ALVK_CAPTURE_SAMPLED, ALVK_CAPTURE_WAIT_UNTIL_SAMPLING, 10);
        assert_int_equal(aip_allocation_begin(&A, &o), ALVK_OK);
        for (int k = 0; k < 3; ++k)
            deliver(RUNTIME_PROVIDER, 303, 0, 0, FOO, 24);
        alvk_capture_summary s;
        assert_int_equal(aip_allocation_end(&A, &s), ALVK_OK);
        alvk_sample samples[4];
        uint32_t written = 0;
        assert_int_equal(
            aip_allocation_read_samples(&A, 0, samples, sizeof samples[0], 4, &written), ALVK_OK);
        assert_true(written <= 1); /* 3 consecutive events hold at most one of every 10th */
        for (uint32_t k = 0; k < written; ++k)
            stack_weight += samples[k].weight_bytes;
        stacks += written;
    }
    /* Stacks per window: Bernoulli(0.3); the sum is within 5 standard errors of its mean. */
    double mean = windows * 0.3, se = 9.17; /* sqrt(400 * 0.3 * 0.7) */
    assert_true((double)stacks > mean - 5 * se && (double)stacks < mean + 5 * se);
    double events_weight = (double)windows * 3 * (double)w.bytes;
    assert_true((double)stack_weight > events_weight * (1 - 5 * se / mean) &&
                (double)stack_weight < events_weight * (1 + 5 * se / mean));
}

/* The capture-control thread's events (the application's EventSource callback during the
 * start) are the profiler's own: not counted, neither sampled nor large. */
static void events_on_the_control_thread_are_ignored(void **state)
{
    (void)state;
    atomic_store(&F.deliver_in_start, 1);
    F.object_size = 100000;
    F.generation = COR_PRF_GC_LARGE_OBJECT_HEAP;
    alvk_capture_options o = options(ALVK_CAPTURE_SAMPLED, ALVK_CAPTURE_WAIT_UNTIL_SAMPLING, 0);
    assert_int_equal(aip_allocation_begin(&A, &o), ALVK_OK);
    deliver(RUNTIME_PROVIDER, 303, 0, 0, FOO, 24); /* the application's own */
    alvk_capture_summary s;
    assert_int_equal(aip_allocation_end(&A, &s), ALVK_OK);
    assert_int_equal(s.sampled_events, 1);
    assert_int_equal(s.large_objects, 0);
    alvk_capture_state st;
    assert_int_equal(aip_allocation_get_state(&A, &st), ALVK_OK);
    assert_int_equal(st.events_outside_windows, 0);
    atomic_store(&F.deliver_in_start, 0);
}

/* The readers fill each element as far as the caller's size (the stride) reaches: the 3.0
 * sizes leave the fields past them untouched; object_size comes with the full size. */
static void readers_fill_only_the_callers_size(void **state)
{
    (void)state;
    alvk_capture_options o = options(ALVK_CAPTURE_SAMPLED, ALVK_CAPTURE_WAIT_UNTIL_SAMPLING, 1);
    assert_int_equal(aip_allocation_begin(&A, &o), ALVK_OK);
    deliver(RUNTIME_PROVIDER, 303, 0, 0, FOO, 24);
    deliver(RUNTIME_PROVIDER, 303, 0, 0, BAR, 1000);
    alvk_capture_summary s;
    assert_int_equal(aip_allocation_end(&A, &s), ALVK_OK);
    assert_int_equal(s.type_count, 2);
    const size_t stride = offsetof(alvk_type_count, count_low); /* 544 */
    assert_int_equal(stride, 544);
    static unsigned char types[3 * 544];
    memset(types, 0xA5, sizeof types);
    uint32_t size = (uint32_t)stride;
    memcpy(types, &size, 4);
    memcpy(types + stride, &size, 4);
    uint32_t written = 0;
    assert_int_equal(aip_allocation_read_types(&A, 0, types, stride, 2, &written), ALVK_OK);
    assert_int_equal(written, 2);
    uint64_t seen = 0;
    for (uint32_t i = 0; i < 2; ++i) {
        alvk_type_count t;
        memset(&t, 0, sizeof t);
        memcpy(&t, types + i * stride, stride);
        assert_int_equal(t.size, stride);
        assert_true(t.class_id == FOO || t.class_id == BAR);
        seen |= t.class_id;
        assert_true(t.count >= 1);
        assert_int_equal(t.reserved, 0);
    }
    assert_int_equal(seen, FOO | BAR);
    for (size_t b = 2 * stride; b < sizeof types; ++b)
        assert_int_equal(types[b], 0xA5);
    /* Samples: the 3.0 size, then the full one. */
    alvk_sample samples[3];
    memset(samples, 0xA5, sizeof samples);
    const size_t old_size = offsetof(alvk_sample, object_size);
    size = (uint32_t)sizeof samples[0];
    memcpy(&samples[2], &size, 4);
    unsigned char *raw = (unsigned char *)samples;
    size = (uint32_t)old_size;
    memcpy(raw, &size, 4);
    memcpy(raw + old_size, &size, 4);
    assert_int_equal(aip_allocation_read_samples(&A, 0, raw, old_size, 2, &written), ALVK_OK);
    assert_int_equal(written, 2);
    for (size_t b = 2 * old_size; b < 2 * sizeof samples[0]; ++b)
        assert_int_equal(raw[b], 0xA5);
    alvk_sample first;
    memcpy(&first, raw, old_size);
    assert_int_equal(first.size, old_size);
    assert_int_equal(first.class_id, FOO);
    assert_int_equal(first.frame_count, 2);
    assert_int_equal(aip_allocation_read_samples(&A, 1, &samples[2], sizeof samples[2], 1,
                                                 &written),
                     ALVK_OK);
    assert_int_equal(written, 1);
    assert_int_equal(samples[2].size, sizeof samples[2]);
    assert_int_equal(samples[2].class_id, BAR);
    assert_int_equal(samples[2].object_size, 1000);
}

/* A begin the runtime refuses the mask leaves the last window's results readable. */
static void a_refused_mask_keeps_the_last_results(void **state)
{
    (void)state;
    alvk_capture_options o = options(ALVK_CAPTURE_SAMPLED, ALVK_CAPTURE_WAIT_UNTIL_SAMPLING, 0);
    assert_int_equal(aip_allocation_begin(&A, &o), ALVK_OK);
    deliver(RUNTIME_PROVIDER, 303, 0, 0, FOO, 24);
    alvk_capture_summary s;
    assert_int_equal(aip_allocation_end(&A, &s), ALVK_OK);
    wait_until_idle();
    F.mask_hr = E_FAKE;
    assert_int_equal(aip_allocation_begin(&A, &o), ALVK_E_EVENT_MASK_REFUSED);
    F.mask_hr = S_OK;
    alvk_type_count t;
    uint32_t written = 0;
    assert_int_equal(aip_allocation_read_types(&A, 0, &t, sizeof t, 1, &written), ALVK_OK);
    assert_int_equal(written, 1);
    assert_int_equal(t.class_id, FOO);
    assert_int_equal(t.samples, 1);
}

/* Nothing of sampled profiling is in the mask until the first window: init sets no mask; a
 * refused first begin arms nothing; the first window arms EventPipe's delivery and the stack
 * walks beside the large and pinned objects, and only the latter go when it closes. */
static void the_first_window_arms_event_pipe_and_stack_walks(void **state)
{
    teardown(state);
    memset(&A, 0, sizeof A);
    aip_allocation_port port = {NULL, reserve, release, run, no_mvid};
    const uint32_t startup_low = COR_PRF_MONITOR_MODULE_LOADS;
    F.mask_low = F.mask_high = 0xFFFFFFFFu;
    assert_int_equal(aip_allocation_init(&A, &F.info, 15, 10, ALVK_ALLOCATION_PROFILING_SAMPLED,
                                         startup_low, 0, 64, 16, &port),
                     0);
    assert_int_equal(F.mask_low, 0xFFFFFFFFu);
    assert_int_equal(F.mask_high, 0xFFFFFFFFu);
    alvk_capture_options o = options(ALVK_CAPTURE_COUNT_ONLY, ALVK_CAPTURE_WAIT_UNTIL_SAMPLING, 0);
    F.mask_hr = E_FAKE;
    assert_int_equal(aip_allocation_begin(&A, &o), ALVK_E_EVENT_MASK_REFUSED);
    F.mask_hr = S_OK;
    assert_int_equal(A.base_mask_low, startup_low);
    assert_int_equal(A.base_mask_high, 0);
    assert_int_equal(aip_allocation_begin(&A, &o), ALVK_OK);
    assert_int_equal(F.mask_low, startup_low | COR_PRF_ENABLE_STACK_SNAPSHOT);
    assert_int_equal(F.mask_high, COR_PRF_HIGH_MONITOR_EVENT_PIPE |
                                      COR_PRF_HIGH_MONITOR_LARGEOBJECT_ALLOCATED |
                                      COR_PRF_HIGH_MONITOR_PINNEDOBJECT_ALLOCATED);
    deliver(RUNTIME_PROVIDER, 303, 0, 0, FOO, 24);
    alvk_capture_summary s;
    assert_int_equal(aip_allocation_end(&A, &s), ALVK_OK);
    assert_int_equal(s.sampled_events, 1);
    assert_int_equal(F.mask_low, startup_low | COR_PRF_ENABLE_STACK_SNAPSHOT);
    assert_int_equal(F.mask_high, COR_PRF_HIGH_MONITOR_EVENT_PIPE);
    wait_until_idle();
}

/* Without .NET 10 (no AllocationSampled) or Info12 (no sessions) windows answer 608, and no
 * control thread runs. */
static void sampling_needs_net10_and_info12(void **state)
{
    for (int c = 0; c < 2; ++c) {
        teardown(state);
        memset(&A, 0, sizeof A);
        aip_allocation_port port = {NULL, reserve, release, run, no_mvid};
        assert_int_equal(aip_allocation_init(&A, &F.info, c == 0 ? 15 : 11, c == 0 ? 9 : 10,
                                             ALVK_ALLOCATION_PROFILING_SAMPLED,
                                             COR_PRF_ENABLE_STACK_SNAPSHOT,
                                             COR_PRF_HIGH_MONITOR_EVENT_PIPE, 64, 16, &port),
                         0);
        alvk_capture_options o = options(ALVK_CAPTURE_SAMPLED, 0, 0);
        assert_int_equal(aip_allocation_begin(&A, &o), ALVK_E_SAMPLING_UNSUPPORTED);
        assert_int_equal(A.session.started_thread, 0);
    }
    assert_int_equal(atomic_load(&F.starts), 0);
}

/* Without overflow, the summary's overflow is 0: 20 types whose one event's estimate rounds
 * down (fraction in [0.3, 0.5)), so the whole's estimate exceeds the sum of the slots'. */
static void no_overflow_reads_zero(void **state)
{
    (void)state;
    alvk_capture_options o = options(ALVK_CAPTURE_COUNT_ONLY, ALVK_CAPTURE_WAIT_UNTIL_SAMPLING, 0);
    assert_int_equal(aip_allocation_begin(&A, &o), ALVK_OK);
    const uint64_t one = 1ull << AIP_ESTIMATE_FRACTION_BITS;
    uint64_t types = 0;
    for (uint64_t size = 24; size < 100000 && types < 20; size += 8) {
        aip_sampled_weight w;
        aip_sampled_weight_of(size, ALVK_RUNTIME_SAMPLING_MEAN_BYTES, &w);
        uint64_t fraction = w.objects_fx % one;
        if (fraction < one * 3 / 10 || fraction >= one / 2)
            continue;
        deliver(RUNTIME_PROVIDER, 303, 0, 0, 0x1000 + ++types, size);
    }
    assert_int_equal(types, 20);
    alvk_capture_summary s;
    assert_int_equal(aip_allocation_end(&A, &s), ALVK_OK);
    assert_int_equal(s.type_count, 20);
    assert_int_equal(s.overflow_objects, 0);
    assert_int_equal(s.overflow_bytes, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(begin_checks_its_options, setup, teardown),
        cmocka_unit_test_setup_teardown(a_window_counts_estimates_and_nothing_else, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(stacks_every_nth_event_with_their_weight, setup, teardown),
        cmocka_unit_test_setup_teardown(a_refused_session_closes_the_window_again, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(exact_profiling_checks_the_new_options, setup, teardown),
        cmocka_unit_test(exported_capture_calls_take_minimum_sizes),
        cmocka_unit_test_setup_teardown(an_end_racing_an_opening_begin_finds_no_window, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(an_end_does_not_wait_for_a_running_start, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(stacks_are_unbiased_in_short_windows, setup, teardown),
        cmocka_unit_test_setup_teardown(events_on_the_control_thread_are_ignored, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(readers_fill_only_the_callers_size, setup, teardown),
        cmocka_unit_test_setup_teardown(a_refused_mask_keeps_the_last_results, setup, teardown),
        cmocka_unit_test_setup_teardown(the_first_window_arms_event_pipe_and_stack_walks, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(sampling_needs_net10_and_info12, setup, teardown),
        cmocka_unit_test_setup_teardown(no_overflow_reads_zero, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
