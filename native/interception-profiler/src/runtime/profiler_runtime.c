/* ProfilerRuntime: lifecycle, event mask, the native worker, the module callbacks. */
#include "runtime/profiler_runtime.h"

#include "coreclr/cor_guids.h"
#include "platform/platform.h"
#include "rejit/rejit_events.h"
#include "rejit/rejit_state.h"
#include "runtime/profiler.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

aip_profiler *aip_runtime_create(void)
{
    /* Zero pages, not calloc: the object is large and mostly tables an inert process never
     * touches (see aip_runtime_start); the init functions rely on the zeros. */
    return aip_zero_pages(sizeof(aip_profiler));
}

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

static void query_info(IUnknown *unknown, aip_profiler *rt)
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
static void read_runtime_information(IUnknown *unknown, aip_profiler *rt)
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
        info3, &instance, &type, &rt->version[0], &rt->version[1], &rt->version[2], &rt->version[3],
        ALVK_RUNTIME_VERSION_CAPACITY, &length, text);
    if (SUCCEEDED(hr)) {
        rt->runtime_type = (uint32_t)type;
        size_t i = 0; /* the version string is ASCII digits and dots */
        for (; i + 1 < sizeof rt->runtime_version && i < length && text[i] != 0; ++i)
            rt->runtime_version[i] = text[i] < 0x80 ? (char)text[i] : '?';
        rt->runtime_version[i] = '\0';
    }
    info3->lpVtbl->Release(info3);
}

/* Allocation capture's port: the worker and the catalog, through the profiler. */
static alvk_status port_reserve(void *context, uint32_t *slot)
{
    return aip_runtime_reserve_worker(context, slot);
}

static void port_release(void *context, uint32_t slot)
{
    aip_runtime_release_worker(context, slot);
}

static alvk_status port_run(void *context, uint32_t slot, aip_port_command_fn run, void *payload,
                            size_t size)
{
    return aip_runtime_run_reserved(context, slot, run, payload, size);
}

static int port_module_mvid(void *context, uintptr_t module_id, alvk_mvid *mvid)
{
    aip_profiler *rt = context;
    aip_module_entry entry;
    if (aip_catalog_find_module(&rt->catalog, module_id, &entry) != ALVK_OK)
        return 0;
    *mvid = entry.mvid;
    return 1;
}

_Static_assert(AIP_PORT_PAYLOAD_BYTES <= AIP_COMMAND_PAYLOAD_BYTES, "port payloads fit a slot");

/* Everything Initialize sets up once the runtime's interface is known: the startup status
 * it ends with (the configuration's, or why the event mask or the worker failed). */
static alvk_status attach(aip_profiler *rt)
{
    if (rt->config.message[0] != '\0')
        aip_runtime_log(rt->config.message);
    if (aip_config_is_inert(rt->config.startup_status))
        return rt->config.startup_status;
    aip_event_mask mask = aip_event_mask_for(&rt->config);
    HRESULT hr = rt->info->lpVtbl->SetEventMask2(rt->info, mask.low, mask.high);
    if (FAILED(hr)) {
        char message[128];
        snprintf(message, sizeof message, "SetEventMask2(0x%08X, 0x%08X) failed (0x%08X)",
                 (unsigned)mask.low, (unsigned)mask.high, (unsigned)hr);
        aip_runtime_log(message);
        return ALVK_E_EVENT_MASK_REFUSED;
    }
    rt->mask = mask;
    const aip_allocation_port port = {rt, port_reserve, port_release, port_run, port_module_mvid};
    if (rt->config.allocation_profiling == ALVK_ALLOCATION_PROFILING_EXACT)
        aip_runtime_log("allocation profiling is exact (ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING="
                        "1 or exact): every allocation of this process takes the runtime's slow "
                        "path for its whole life, window open or not (several times slower; "
                        "docs/Benchmarks.md has the figures); =sampled keeps the fast path");
    if (rt->config.allocation_profiling &&
        aip_allocation_init(&rt->allocations, rt->info, rt->info_version, rt->version[0],
                            rt->config.allocation_profiling, mask.low, mask.high,
                            rt->config.allocation_type_slots, rt->config.allocation_sample_slots,
                            &port) != 0)
        aip_runtime_log("allocation profiling is off: its storage could not be allocated");
    if (rt->config.allocation_profiling == ALVK_ALLOCATION_PROFILING_SAMPLED &&
        rt->info_version < 12)
        aip_runtime_log("sampled allocation profiling needs ICorProfilerInfo12 (EventPipe "
                        "sessions): capture windows will be refused");
    else if (rt->config.allocation_profiling == ALVK_ALLOCATION_PROFILING_SAMPLED &&
             rt->version[0] < 10) {
        char message[ALVK_RUNTIME_VERSION_CAPACITY + 160];
        snprintf(message, sizeof message,
                 "sampled allocation profiling needs .NET 10 or later (its AllocationSampled "
                 "event); runtime %.63s has none: capture windows will be refused",
                 rt->runtime_version[0] ? rt->runtime_version : "unknown");
        aip_runtime_log(message);
    }
    /* The worker starts with the first call that needs it (worker_start.c), not here: a
     * thread the runtime is told about at start-up is launch time every profiled process
     * pays, and most never patch. The profiler stays attached without one; the status then
     * says why commands fail. */
    if (aip_mutex_init(&rt->worker.start_lock) != 0)
        return ALVK_E_WORKER_UNAVAILABLE;
    atomic_store(&rt->worker.start_state, AIP_WORKER_STARTABLE);
    return rt->config.startup_status;
}

HRESULT aip_runtime_initialize(aip_profiler *rt, IUnknown *info_unknown)
{
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
    /* The configuration first: it sizes the patch table (an inert profiler's is the
     * smallest, and stays empty). */
    aip_config_load(&rt->config);
    uint32_t capacity =
        rt->config.patch_capacity != 0 ? rt->config.patch_capacity : ALVK_MIN_PATCH_CAPACITY;
    if (aip_catalog_init(&rt->catalog) != 0 || aip_rejit_init(&rt->rejit, capacity) != 0 ||
        aip_inliner_map_init(&rt->inliners) != 0 || aip_redirects_init(&rt->redirects) != 0 ||
        aip_carried_init(&rt->carried) != 0 || aip_emitter_init(&rt->emitter, rt->info) != 0)
        return E_OUTOFMEMORY;
    /* The tables above (module catalog, inliner map, token cache, and the queue slots and
     * scratch not yet set up) are mostly unused until patching starts: the object is zero
     * pages from the OS (aip_runtime_create) and their inits write none of the zeros again,
     * so an idle profiled process does not pay for them. */
    rt->config.startup_status = attach(rt);
    /* Last: a reader that sees it attached sees the startup status and the mask. */
    atomic_store_explicit(&rt->attached, 1, memory_order_release);
    return S_OK;
}

void aip_runtime_shutdown(aip_profiler *rt)
{
    if (rt == NULL)
        return;
    /* The capture-control thread first: it stops a session still open (bounded). */
    aip_allocation_shutdown(&rt->allocations);
    aip_runtime_close_worker(rt); /* none starts after this */
    if (!atomic_load(&rt->worker.started))
        return;
    aip_queue_stop(&rt->worker.queue);
    uint64_t deadline = aip_monotonic_ns() + AIP_WORKER_STOP_TIMEOUT_NS;
    aip_queue *q = &rt->worker.queue;
    aip_mutex_lock(&q->lock);
    while (atomic_load(&rt->worker.alive) &&
           aip_cond_wait_until(&q->work_done, &q->lock, deadline) == 0) {
    }
    int exited = !atomic_load(&rt->worker.alive);
    aip_mutex_unlock(&rt->worker.queue.lock);
    if (exited) {
        aip_thread_join(&rt->worker.thread);
        atomic_store(&rt->worker.started, 0);
    } else {
        aip_runtime_log("the worker did not stop within 2 s; leaving it to process exit");
    }
}

alvk_status aip_runtime_get_status(aip_profiler *rt, alvk_runtime_status *out)
{
    uint32_t size = out->size;
    memset(out, 0, sizeof *out);
    out->size = size;
    aip_prepared_totals(&out->snapshot_bytes, &out->snapshot_count);
    if (rt == NULL) {
        out->startup_status = ALVK_E_NOT_ATTACHED;
        return ALVK_E_NOT_ATTACHED;
    }
    out->attached = aip_profiler_attached(rt);
    if (out->attached)
        aip_runtime_ensure_worker(rt); /* the ABI's first call starts it */
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
    out->worker_alive = atomic_load(&rt->worker.alive);
    out->worker_init_hresult = atomic_load(&rt->worker.init_hresult);
    if (atomic_load(&rt->worker.started) || out->worker_alive) {
        out->queue_capacity = rt->worker.queue.capacity;
        out->queue_depth = aip_queue_depth(&rt->worker.queue);
        out->commands_completed = aip_queue_completed(&rt->worker.queue);
    }
    memcpy(out->runtime_version, rt->runtime_version, sizeof out->runtime_version);
    if (out->attached && !aip_config_is_inert(rt->config.startup_status))
        aip_rejit_counts(&rt->rejit, &out->patch_capacity, &out->patch_slots_allocated,
                         &out->live_patches);
    out->precompiled_images_refused = atomic_load(&rt->refusals.held);
    out->precompiled_refusals_overflowed = atomic_load(&rt->refusals.overflowed);
    out->precompiled_methods_refused = atomic_load(&rt->refusals.methods_refused);
    out->metadata_tokens_emitted = atomic_load(&rt->emitter.tokens_emitted);
    out->metadata_bytes_emitted = atomic_load(&rt->emitter.bytes_emitted);
    out->metadata_tokens_reused = atomic_load(&rt->emitter.tokens_reused);
    if (aip_allowlist_format(&rt->config.allowlist, out->allowlist, sizeof out->allowlist) !=
        ALVK_OK)
        return ALVK_E_INTERNAL;
    return out->attached ? ALVK_OK : ALVK_E_NOT_ATTACHED;
}

/* ---- Callbacks ------------------------------------------------------------------------------ */

void aip_runtime_module_loaded(aip_profiler *p, ModuleID module_id)
{
    if (aip_profiler_attached(p) && p->mask.low != 0)
        aip_catalog_on_module_loaded(p->info, &p->catalog, &p->config.allowlist,
                                     p->config.startup_status == ALVK_OK ? &p->refusals : NULL,
                                     module_id);
}

void aip_runtime_module_unloading(aip_profiler *p, ModuleID module_id)
{
    if (aip_profiler_attached(p) && p->mask.low != 0) {
        aip_catalog_unload(&p->catalog, module_id);
        aip_refusals_remove(&p->refusals, module_id);
        aip_rejit_module_unloaded(&p->rejit, module_id);
        aip_emitter_forget_module(&p->emitter, module_id);
        aip_inliner_map_forget_module(&p->inliners, module_id);
        aip_redirects_forget_module(&p->redirects, module_id);
        aip_carried_forget_module(&p->carried, module_id);
    }
}

struct aip_allocation_state *aip_runtime_allocations(aip_profiler *p)
{
    return p != NULL ? &p->allocations : NULL;
}
