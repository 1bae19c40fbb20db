/* The native worker's start, deferred to the first call that needs it (the ABI's status, a
 * command, allocation capture's port), and its close at Shutdown: once closed it never starts. */
#include "runtime/profiler.h"
#include "runtime/profiler_runtime.h"

#include "platform/platform.h"

#include <stdio.h>

static void worker_log(const char *message)
{
    char line[256];
    snprintf(line, sizeof line, "[alvorkit-interception] %s", message);
    aip_write_stderr_line(line);
}

static void worker_main(void *arg)
{
    aip_profiler *rt = arg;
    /* Must come first: it makes this native thread known to the runtime, so the ReJIT
     * entry points accept calls from it. */
    HRESULT hr = rt->info->lpVtbl->InitializeCurrentThread(rt->info);
    atomic_store(&rt->worker.init_hresult, hr);
    aip_apply_scratch_claim(&rt->worker.scratch);
    if (FAILED(hr)) {
        char message[128];
        snprintf(message, sizeof message, "the worker's InitializeCurrentThread failed (0x%08X)",
                 (unsigned)hr);
        worker_log(message);
    }
    aip_queue_run_worker(&rt->worker.queue);
    aip_mutex_lock(&rt->worker.queue.lock);
    atomic_store(&rt->worker.alive, 0);
    aip_cond_broadcast(&rt->worker.queue.work_done);
    aip_mutex_unlock(&rt->worker.queue.lock);
}

static void start_worker(aip_profiler *rt)
{
    aip_apply_env env = {rt->info,       &rt->rejit,   &rt->catalog,
                         &rt->inliners,  &rt->emitter, &rt->worker.scratch,
                         &rt->redirects, &rt->carried, &rt->discovered};
    rt->worker.env = env;
    if (aip_queue_init(&rt->worker.queue, AIP_COMMAND_QUEUE_CAPACITY, &rt->worker.env) != ALVK_OK) {
        worker_log("could not set up the native worker's command queue");
        return;
    }
    atomic_store(&rt->worker.alive, 1);
    if (aip_thread_start(&rt->worker.thread, worker_main, rt) != 0) {
        atomic_store(&rt->worker.alive, 0);
        worker_log("could not start the native worker thread");
        return;
    }
    atomic_store(&rt->worker.started, 1);
}

void aip_runtime_ensure_worker(aip_profiler *rt)
{
    if (atomic_load_explicit(&rt->worker.start_state, memory_order_acquire) != AIP_WORKER_STARTABLE)
        return; /* started (or failed to), closed, or never to start (inert) */
    aip_mutex_lock(&rt->worker.start_lock);
    if (atomic_load(&rt->worker.start_state) == AIP_WORKER_STARTABLE) {
        start_worker(rt);
        atomic_store_explicit(&rt->worker.start_state, AIP_WORKER_TRIED, memory_order_release);
    }
    aip_mutex_unlock(&rt->worker.start_lock);
}

void aip_runtime_close_worker(aip_profiler *rt)
{
    if (atomic_load(&rt->worker.start_state) == AIP_WORKER_NONE)
        return; /* its lock was never set up */
    aip_mutex_lock(&rt->worker.start_lock);
    atomic_store(&rt->worker.start_state, AIP_WORKER_CLOSED);
    aip_mutex_unlock(&rt->worker.start_lock);
}
