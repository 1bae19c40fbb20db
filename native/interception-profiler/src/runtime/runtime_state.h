/* ProfilerRuntime's state, shared by its files (profiler_runtime.c: lifecycle;
 * runtime_commands.c: what the exported commands do). Nothing outside runtime/ sees it. */
#ifndef AIP_RUNTIME_STATE_H
#define AIP_RUNTIME_STATE_H

#include "runtime/config.h"
#include "runtime/event_mask.h"
#include "rejit/inliner_map.h"
#include "catalog/module_catalog.h"
#include "rejit/rejit_state.h"
#include "emit/token_cache.h"
#include "runtime/worker_queue.h"
#include "coreclr/corprof_info.h"

#include <stdatomic.h>

typedef struct aip_runtime {
    _Atomic uint32_t attached;
    aip_config config;
    ICorProfilerInfo15 *info;
    uint32_t info_version;
    aip_event_mask mask;
    uint32_t runtime_type;
    uint16_t version[4];
    char runtime_version[ALVK_RUNTIME_VERSION_CAPACITY];
    aip_module_catalog catalog;
    aip_rejit_state rejit;
    aip_inliner_map inliners;
    aip_token_cache tokens;
    aip_queue queue;
    aip_thread worker;
    _Atomic uint32_t worker_started;
    _Atomic uint32_t worker_alive;
    _Atomic int32_t worker_init_hresult;
    /* Metadata this profiler added to modules, and emissions the token cache served. */
    _Atomic uint64_t metadata_tokens_emitted;
    _Atomic uint64_t metadata_bytes_emitted;
    _Atomic uint64_t metadata_tokens_reused;
} aip_runtime;

/* The process's one runtime. */
extern aip_runtime g_aip_runtime;

/* Why commands are refused right now, or ALVK_OK. */
alvk_status aip_runtime_commands_available(void);

/* The module copy an install or a generation names (module_id and epoch, or the MVID alone
 * when module_id is 0), resolved through the catalog when the command is queued, so that it
 * joins the patch of that very copy and the worker acts on it whatever loads meanwhile:
 * *copy_id and *copy_epoch, or 0 with *status saying why none resolved. */
void aip_runtime_resolve_copy(const alvk_mvid *mvid, uint64_t module_id, uint32_t module_epoch,
                              uint64_t *copy_id, uint32_t *copy_epoch, alvk_status *status);

/* Runs `run` on the worker and waits (10 s at most); the payload comes back with the
 * command's output. Work that needs metadata must run there: the runtime refuses
 * GetModuleMetaData on managed threads outside callbacks. */
alvk_status aip_runtime_run_on_worker(aip_command_fn run, void *payload, size_t size);

/* The same in two steps, for a caller that must know the worker will take the command
 * before it changes anything: a slot reserved (ALVK_E_QUEUE_FULL, ALVK_E_WORKER_UNAVAILABLE
 * or a startup error when not), then the command run in it, which cannot be refused. */
alvk_status aip_runtime_reserve_worker(uint32_t *slot);
void aip_runtime_release_worker(uint32_t slot);
alvk_status aip_runtime_run_reserved(uint32_t slot, aip_command_fn run, void *payload,
                                     size_t size);

#endif
