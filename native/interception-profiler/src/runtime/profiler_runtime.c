/* ProfilerRuntime: lifecycle, event mask and the native worker. */
#include "runtime/profiler_runtime.h"

#include "runtime/runtime_state.h"
#include "allocation/allocation_capture.h"
#include "coreclr/cor_guids.h"
#include "platform/platform.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

aip_runtime g_aip_runtime;

void aip_runtime_log(const char *message)
{
    char line[AIP_MESSAGE_CAPACITY + 64];
    snprintf(line, sizeof line, "[alvorkit-interception] %s", message);
    aip_write_stderr_line(line);
}

static const struct {
    const GUID *iid;
    uint32_t version;
} k_info_versions[] = {
    {&IID_ICorProfilerInfo15, 15}, {&IID_ICorProfilerInfo14, 14}, {&IID_ICorProfilerInfo13, 13},
    {&IID_ICorProfilerInfo12, 12}, {&IID_ICorProfilerInfo11, 11}, {&IID_ICorProfilerInfo10, 10},
};

static void query_info(IUnknown *unknown, aip_runtime *rt)
{
    for (size_t i = 0; i < sizeof k_info_versions / sizeof k_info_versions[0]; ++i) {
        void *p = NULL;
        if (SUCCEEDED(unknown->lpVtbl->QueryInterface(unknown, k_info_versions[i].iid, &p)) &&
            p != NULL) {
            rt->info = (ICorProfilerInfo15 *)p;
            rt->info_version = k_info_versions[i].version;
            return;
        }
    }
}

/* Reads GetRuntimeInformation (Info3) through whatever interface the runtime gave. */
static void read_runtime_information(IUnknown *unknown, aip_runtime *rt)
{
    void *p = NULL;
    if (FAILED(unknown->lpVtbl->QueryInterface(unknown, &IID_ICorProfilerInfo3, &p)) || !p)
        return;
    ICorProfilerInfo15 *info3 = (ICorProfilerInfo15 *)p; /* only Info3 slots are used */
    USHORT instance = 0;
    COR_PRF_RUNTIME_TYPE type = 0;
    WCHAR text[ALVK_RUNTIME_VERSION_CAPACITY];
    ULONG length = 0;
    HRESULT hr = info3->lpVtbl->GetRuntimeInformation(
        info3, &instance, &type, &rt->version[0], &rt->version[1], &rt->version[2],
        &rt->version[3], ALVK_RUNTIME_VERSION_CAPACITY, &length, text);
    if (SUCCEEDED(hr)) {
        rt->runtime_type = (uint32_t)type;
        size_t i = 0; /* the version string is ASCII digits and dots */
        for (; i + 1 < sizeof rt->runtime_version && i < length && text[i] != 0; ++i)
            rt->runtime_version[i] = text[i] < 0x80 ? (char)text[i] : '?';
        rt->runtime_version[i] = '\0';
    }
    info3->lpVtbl->Release(info3);
}

static void worker_main(void *arg)
{
    aip_runtime *rt = arg;
    /* Must come first: it makes this native thread known to the runtime, so the ReJIT
     * entry points accept calls from it. */
    HRESULT hr = rt->info->lpVtbl->InitializeCurrentThread(rt->info);
    atomic_store(&rt->worker_init_hresult, hr);
    if (FAILED(hr)) {
        char message[128];
        snprintf(message, sizeof message,
                 "the worker's InitializeCurrentThread failed (0x%08X)", (unsigned)hr);
        aip_runtime_log(message);
    }
    aip_queue_run_worker(&rt->queue);
    aip_mutex_lock(&rt->queue.lock);
    atomic_store(&rt->worker_alive, 0);
    aip_cond_broadcast(&rt->queue.work_done);
    aip_mutex_unlock(&rt->queue.lock);
}

static HRESULT start_worker(aip_runtime *rt)
{
    if (aip_queue_init(&rt->queue, AIP_WORKER_QUEUE_CAPACITY, rt) != ALVK_OK)
        return E_OUTOFMEMORY;
    atomic_store(&rt->worker_alive, 1);
    if (aip_thread_start(&rt->worker, worker_main, rt) != 0) {
        atomic_store(&rt->worker_alive, 0);
        aip_runtime_log("could not start the native worker thread");
        return E_FAIL;
    }
    atomic_store(&rt->worker_started, 1);
    return S_OK;
}

HRESULT aip_runtime_initialize(IUnknown *info_unknown)
{
    aip_runtime *rt = &g_aip_runtime;
    if (info_unknown == NULL)
        return E_POINTER;
    read_runtime_information(info_unknown, rt);
    query_info(info_unknown, rt);
    if (rt->info == NULL) {
        char message[ALVK_RUNTIME_VERSION_CAPACITY + 192];
        snprintf(message, sizeof message,
                 "runtime %.63s (type %u) does not provide ICorProfilerInfo10 or newer; "
                 "the profiler needs .NET 5 or later and is not attaching",
                 rt->runtime_version[0] ? rt->runtime_version : "unknown",
                 (unsigned)rt->runtime_type);
        aip_runtime_log(message);
        return E_NOINTERFACE;
    }
    if (aip_catalog_init(&rt->catalog) != 0 || aip_rejit_init(&rt->rejit) != 0 ||
        aip_inliner_map_init(&rt->inliners) != 0 || aip_token_cache_init(&rt->tokens) != 0)
        return E_OUTOFMEMORY;
    aip_config_load(&rt->config);
    if (rt->config.message[0] != '\0')
        aip_runtime_log(rt->config.message);
    atomic_store(&rt->attached, 1);
    if (aip_config_is_inert(rt->config.startup_status))
        return S_OK;
    aip_event_mask mask = aip_event_mask_for(&rt->config);
    HRESULT hr = rt->info->lpVtbl->SetEventMask2(rt->info, mask.low, mask.high);
    if (FAILED(hr)) {
        char message[128];
        snprintf(message, sizeof message, "SetEventMask2(0x%08X, 0x%08X) failed (0x%08X)",
                 (unsigned)mask.low, (unsigned)mask.high, (unsigned)hr);
        aip_runtime_log(message);
        rt->config.startup_status = ALVK_E_EVENT_MASK_REFUSED;
        return S_OK;
    }
    rt->mask = mask;
    if (rt->config.allocation_profiling && aip_allocation_init(rt->info, mask.low, mask.high,
                                                             rt->config.allocation_type_slots,
                                                             rt->config.allocation_sample_slots) != 0)
        aip_runtime_log("allocation profiling is off: its storage could not be allocated");
    /* The profiler stays attached without a worker; the status then says why commands fail. */
    if (start_worker(rt) != S_OK)
        rt->config.startup_status = ALVK_E_WORKER_UNAVAILABLE;
    return S_OK;
}

void aip_runtime_shutdown(void)
{
    aip_runtime *rt = &g_aip_runtime;
    if (!atomic_load(&rt->worker_started))
        return;
    aip_queue_stop(&rt->queue);
    uint64_t deadline = aip_monotonic_ns() + AIP_WORKER_STOP_TIMEOUT_NS;
    aip_mutex_lock(&rt->queue.lock);
    while (atomic_load(&rt->worker_alive) &&
           aip_cond_wait_until(&rt->queue.work_done, &rt->queue.lock, deadline) == 0) {
    }
    int exited = !atomic_load(&rt->worker_alive);
    aip_mutex_unlock(&rt->queue.lock);
    if (exited) {
        aip_thread_join(&rt->worker);
        atomic_store(&rt->worker_started, 0);
    } else {
        aip_runtime_log("the worker did not stop within 2 s; leaving it to process exit");
    }
}

alvk_status aip_runtime_get_status(alvk_runtime_status *out)
{
    const aip_runtime *rt = &g_aip_runtime;
    uint32_t size = out->size;
    memset(out, 0, sizeof *out);
    out->size = size;
    out->attached = atomic_load(&g_aip_runtime.attached);
    out->startup_status = out->attached ? rt->config.startup_status : ALVK_E_NOT_ATTACHED;
    out->profiler_info_version = rt->info_version;
    out->event_mask_low = rt->mask.low;
    out->event_mask_high = rt->mask.high;
    out->runtime_type = rt->runtime_type;
    out->runtime_major = rt->version[0];
    out->runtime_minor = rt->version[1];
    out->runtime_build = rt->version[2];
    out->runtime_qfe = rt->version[3];
    out->allowlist_kind = rt->config.allowlist.kind;
    out->allowlist_count = rt->config.allowlist.count;
    out->allocation_profiling = rt->config.allocation_profiling;
    out->worker_alive = atomic_load(&g_aip_runtime.worker_alive);
    out->worker_init_hresult = atomic_load(&g_aip_runtime.worker_init_hresult);
    if (atomic_load(&g_aip_runtime.worker_started) || out->worker_alive) {
        out->queue_capacity = rt->queue.capacity;
        out->queue_depth = aip_queue_depth(&g_aip_runtime.queue);
        out->commands_completed = aip_queue_completed(&g_aip_runtime.queue);
    }
    memcpy(out->runtime_version, rt->runtime_version, sizeof out->runtime_version);
    out->metadata_tokens_emitted = atomic_load(&g_aip_runtime.metadata_tokens_emitted);
    out->metadata_bytes_emitted = atomic_load(&g_aip_runtime.metadata_bytes_emitted);
    out->metadata_tokens_reused = atomic_load(&g_aip_runtime.metadata_tokens_reused);
    aip_prepared_totals(&out->snapshot_bytes, &out->snapshot_count);
    if (aip_allowlist_format(&rt->config.allowlist, out->allowlist, sizeof out->allowlist) !=
        ALVK_OK)
        return ALVK_E_INTERNAL;
    return out->attached ? ALVK_OK : ALVK_E_NOT_ATTACHED;
}
