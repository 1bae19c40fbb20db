/* ProfilerRuntime: what the adapter calls. The profiler's lifecycle (Initialize, Shutdown),
 * the event mask, the native worker thread that owns the bounded command queue, the
 * callbacks, and the exported commands. Every function takes the profiler object; NULL (the
 * exported ABI called before CoreCLR initialized the profiler) is not attached. */
#ifndef AIP_PROFILER_RUNTIME_H
#define AIP_PROFILER_RUNTIME_H

#include "alvorkit_interception_profiler.h"
#include "coreclr/cor_types.h"
#include "coreclr/corprof_control.h"

typedef struct aip_profiler aip_profiler;

/* The worker's command queue capacity (slots). */
#define AIP_COMMAND_QUEUE_CAPACITY 64
/* How long Shutdown waits for the worker to leave before abandoning it. */
#define AIP_WORKER_STOP_TIMEOUT_NS 2000000000ull

/* A zeroed, not yet attached profiler object (NULL when out of memory). Never freed: CoreCLR
 * may call into the profiler while the process exits. */
aip_profiler *aip_runtime_create(void);

/* Called from ICorProfilerCallback::Initialize. Always returns S_OK once the runtime
 * handed us a usable ICorProfilerInfo, even when the configuration leaves the profiler
 * inert, so that managed code can read why through alvk_get_runtime_status. */
HRESULT aip_runtime_initialize(aip_profiler *p, IUnknown *info_unknown);

/* Called from ICorProfilerCallback::Shutdown: stops the worker. */
void aip_runtime_shutdown(aip_profiler *p);

/* Fills the status of this instance; see alvk_get_runtime_status. */
alvk_status aip_runtime_get_status(aip_profiler *p, alvk_runtime_status *out);

/* ModuleLoadFinished / ModuleUnloadStarted: keep the module catalog current. */
void aip_runtime_module_loaded(aip_profiler *p, ModuleID module_id);
void aip_runtime_module_unloading(aip_profiler *p, ModuleID module_id);

/* See alvk_describe_method (mvid, module_id 0) and alvk_describe_module_method (mvid NULL);
 * arguments already checked. */
alvk_status aip_runtime_describe_method(aip_profiler *p, const alvk_mvid *mvid, uint64_t module_id,
                                        uint32_t module_epoch, uint32_t method_token,
                                        alvk_method_description *out);

/* See alvk_module_identify; arguments already checked. */
alvk_status aip_runtime_module_identify(aip_profiler *p, const alvk_mvid *mvid,
                                        uint32_t method_token, uint64_t method_handle,
                                        alvk_module_info *out);

/* The patch commands (patch_commands.c); arguments already checked for NULL and struct size.
 * An accepted command's ID comes back in *command (untouched on refusal). */
alvk_status aip_runtime_patch_install(aip_profiler *p, const alvk_install_request *request,
                                      alvk_patch_handle *handle, alvk_command_id *command);
/* See alvk_patch_install_batch: `requests` is `count` (1..ALVK_MAX_BATCH_REQUESTS) whole
 * requests (the caller copied them off the caller's stride), handles and statuses as many. */
alvk_status aip_runtime_patch_install_batch(aip_profiler *p, const alvk_install_request *requests,
                                            uint32_t count, alvk_patch_handle *handles,
                                            alvk_status *statuses, alvk_command_id *command);
alvk_status aip_runtime_patch_replace(aip_profiler *p, alvk_patch_handle handle, uint64_t owner,
                                      uint64_t replacement, alvk_command_id *command);
/* ABI 3.4: as replace, with the replacement named as a method too (alvk_replacement; its
 * size already checked). */
alvk_status aip_runtime_patch_replace_with(aip_profiler *p, alvk_patch_handle handle,
                                           uint64_t owner, const alvk_replacement *replacement,
                                           alvk_command_id *command);
alvk_status aip_runtime_patch_remove(aip_profiler *p, alvk_patch_handle handle, uint64_t owner,
                                     alvk_command_id *command);
alvk_status aip_runtime_command_wait(aip_profiler *p, alvk_command_id command, uint32_t timeout_ms,
                                     alvk_status *result);
alvk_status aip_runtime_patch_wait(aip_profiler *p, alvk_patch_handle handle, uint32_t timeout_ms);
alvk_status aip_runtime_patch_telemetry(aip_profiler *p, alvk_patch_handle handle,
                                        alvk_patch_telemetry *out);

/* Generations (patch_commands.c); arguments already checked for NULL. */
alvk_status aip_runtime_generation_submit(aip_profiler *p, const alvk_generation *g,
                                          alvk_patch_handle *handle, alvk_generation_id *id,
                                          alvk_command_id *command);
/* See alvk_generation_submit_batch: `generations` is `count` (1..ALVK_MAX_BATCH_REQUESTS) whole
 * generations (the caller copied them off the caller's stride), handles, ids and statuses as
 * many. */
alvk_status aip_runtime_generation_submit_batch(aip_profiler *p, const alvk_generation *generations,
                                                uint32_t count, alvk_patch_handle *handles,
                                                alvk_generation_id *ids, alvk_status *statuses,
                                                alvk_command_id *command);
alvk_status aip_runtime_generation_result(aip_profiler *p, alvk_patch_handle handle,
                                          alvk_generation_id id, alvk_generation_result *out,
                                          alvk_relocation_result *relocations, uint32_t capacity);

/* The compilation and allocation callbacks are inline: runtime/profiler_callbacks.h. */

/* The allocation capture state of p (NULL when p is NULL): what the capture exports take. */
struct aip_allocation_state *aip_runtime_allocations(aip_profiler *p);

/* Writes "[alvorkit-interception] <message>" to stderr. */
void aip_runtime_log(const char *message);

#endif
