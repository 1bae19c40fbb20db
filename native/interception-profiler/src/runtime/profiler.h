/* The profiler object: one per attached runtime, owning everything the profiler keeps (the
 * configuration, the module catalog, RejitState, the emitter, the worker and allocation
 * capture). The COM object holds it (adapter/interception_profiler.c) and passes it down;
 * runtime/ functions take it, and hand each layer below only the part it needs. */
#ifndef AIP_PROFILER_H
#define AIP_PROFILER_H

#include "allocation/allocation_capture.h"
#include "catalog/module_catalog.h"
#include "catalog/precompiled_refusals.h"
#include "coreclr/corprof_info.h"
#include "emit/relocation_emit.h"
#include "platform/platform.h"
#include "rejit/apply_generation.h"
#include "rejit/carried_targets.h"
#include "rejit/discovered_inbox.h"
#include "rejit/inliner_map.h"
#include "rejit/inliner_redirects.h"
#include "rejit/patch_table.h"
#include "runtime/command_queue.h"
#include "runtime/config.h"
#include "runtime/event_mask.h"

#include <stdatomic.h>

/* The native worker: the thread, the bounded command queue it drains, and the scratch only
 * it touches. The only thread that requests ReJIT and reads metadata outside callbacks. */
/* The worker's start (worker_start.c): NONE until Initialize allows one, STARTABLE until the
 * first call that needs it, TRIED once it was started (alive says whether it runs), CLOSED
 * from Shutdown on. */
enum { AIP_WORKER_NONE = 0, AIP_WORKER_STARTABLE = 1, AIP_WORKER_TRIED = 2, AIP_WORKER_CLOSED = 3 };

typedef struct aip_worker {
    aip_queue queue;
    aip_thread thread;
    _Atomic uint32_t start_state;
    aip_mutex start_lock; /* serializes the start and the close */
    _Atomic uint32_t started;
    _Atomic uint32_t alive;
    _Atomic int32_t init_hresult; /* InitializeCurrentThread's, on the worker */
    aip_apply_env env;            /* what its commands act on: the queue's context */
    aip_apply_scratch scratch;
} aip_worker;

typedef struct aip_profiler {
    /* 1 once Initialize finished (the fields below written first): stored with release,
     * read with acquire. */
    _Atomic uint32_t attached;
    aip_config config;
    ICorProfilerInfo15 *info;
    uint32_t info_version;
    aip_event_mask mask;
    uint32_t runtime_type;
    uint16_t version[4];
    char runtime_version[ALVK_RUNTIME_VERSION_CAPACITY];
    aip_module_catalog catalog;
    aip_precompiled_refusals refusals; /* ReadyToRun images whose code is JIT-compiled instead */
    aip_rejit_state rejit;
    aip_inliner_map inliners;
    aip_inliner_redirects redirects; /* the known inliners of hooked targets, redirected */
    aip_carried_targets carried;     /* the targets callers found as they compile are routed to */
    aip_discovered_inbox discovered; /* those callers, for the worker */
    aip_emitter emitter;
    aip_worker worker;
    aip_allocation_state allocations;
} aip_profiler;

/* 1 when p is attached (NULL never is). */
static inline int aip_profiler_attached(aip_profiler *p)
{
    return p != NULL && atomic_load_explicit(&p->attached, memory_order_acquire) != 0;
}

/* Starts the worker if it may start and has not been yet (the first call that needs it);
 * afterwards `worker.alive` says whether it runs. Never after aip_runtime_close_worker. */
void aip_runtime_ensure_worker(aip_profiler *p);

/* Shutdown: no worker starts from now on. */
void aip_runtime_close_worker(aip_profiler *p);

/* Why commands are refused right now, or ALVK_OK. */
static inline alvk_status aip_runtime_commands_available(aip_profiler *p)
{
    if (!aip_profiler_attached(p))
        return ALVK_E_NOT_ATTACHED;
    if (p->config.startup_status != ALVK_OK)
        return p->config.startup_status;
    aip_runtime_ensure_worker(p);
    if (!atomic_load(&p->worker.alive))
        return ALVK_E_WORKER_UNAVAILABLE;
    return ALVK_OK;
}

/* The module copy an install or a generation names (module_id and epoch, or the MVID alone
 * when module_id is 0), resolved through the catalog when the command is queued, so that it
 * joins the patch of that very copy and the worker acts on it whatever loads meanwhile:
 * *copy_id and *copy_epoch, or 0 with *status saying why none resolved. */
void aip_runtime_resolve_copy(aip_profiler *p, const alvk_mvid *mvid, uint64_t module_id,
                              uint32_t module_epoch, uint64_t *copy_id, uint32_t *copy_epoch,
                              alvk_status *status);

/* Runs `run` on the worker and waits (10 s at most); the payload comes back with the
 * command's output. Work that needs metadata must run there: the runtime refuses
 * GetModuleMetaData on managed threads outside callbacks. */
alvk_status aip_runtime_run_on_worker(aip_profiler *p, aip_command_fn run, void *payload,
                                      size_t size);

/* The same in two steps, for a caller that must know the worker will take the command
 * before it changes anything: a slot reserved (ALVK_E_QUEUE_FULL, ALVK_E_WORKER_UNAVAILABLE
 * or a startup error when not), then the command run in it, which cannot be refused. */
alvk_status aip_runtime_reserve_worker(aip_profiler *p, uint32_t *slot);
void aip_runtime_release_worker(aip_profiler *p, uint32_t slot);
alvk_status aip_runtime_run_reserved(aip_profiler *p, uint32_t slot, aip_command_fn run,
                                     void *payload, size_t size);

/* A failed compilation was seen in a callback: the worker rolls back. */
void aip_runtime_queue_rollback(aip_profiler *p, uint32_t index);

/* Callers of carried targets were found as they compiled: the worker drains them (a queue
 * that refuses the command leaves them for the next drain). */
void aip_runtime_queue_discovery(aip_profiler *p);

#endif
