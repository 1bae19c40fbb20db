/* The exported describe and identify commands, and running a command on the worker: commands
 * that touch the runtime's metadata run there; the caller waits for them with a bound. */
#include "runtime/profiler_runtime.h"

#include "catalog/module_catalog_clr.h"
#include "runtime/profiler.h"

#include <string.h>

#define AIP_COMMAND_TIMEOUT_NS 10000000000ull

typedef struct describe_payload {
    alvk_mvid mvid;
    uint64_t module_id; /* 0: the copy the MVID names */
    uint32_t module_epoch;
    uint32_t token;
    HRESULT hresult;
    alvk_method_description description;
} describe_payload;
_Static_assert(sizeof(describe_payload) <= AIP_COMMAND_PAYLOAD_BYTES, "fits a queue slot");

static alvk_status run_describe(void *payload, void *context)
{
    describe_payload *p = payload;
    const aip_apply_env *env = context; /* the worker's */
    aip_method_target target;
    alvk_status status = aip_catalog_resolve(
        env->info, env->catalog, p->module_id != 0 ? NULL : &p->mvid, (uintptr_t)p->module_id,
        p->module_epoch, p->token, &env->scratch->target_sig, &target, &p->hresult);
    if (status == ALVK_OK)
        p->description = target.description;
    return status;
}

typedef struct identify_payload {
    alvk_mvid mvid;
    uint32_t method_token;
    uint64_t method_handle;
    alvk_module_info info;
} identify_payload;
_Static_assert(sizeof(identify_payload) <= AIP_COMMAND_PAYLOAD_BYTES, "fits a queue slot");

static alvk_status run_identify(void *payload, void *context)
{
    identify_payload *p = payload;
    const aip_apply_env *env = context; /* the worker's */
    return aip_catalog_identify(env->info, env->catalog, &p->mvid, p->method_token,
                                p->method_handle, &p->info);
}

alvk_status aip_runtime_reserve_worker(aip_profiler *rt, uint32_t *slot)
{
    if (!aip_profiler_attached(rt))
        return ALVK_E_NOT_ATTACHED;
    aip_runtime_ensure_worker(rt);
    if (!atomic_load(&rt->worker.alive))
        return ALVK_E_WORKER_UNAVAILABLE; /* nobody would ever take the command */
    return aip_queue_reserve(&rt->worker.queue, slot);
}

void aip_runtime_release_worker(aip_profiler *rt, uint32_t slot)
{
    aip_queue_release(&rt->worker.queue, slot);
}

alvk_status aip_runtime_run_reserved(aip_profiler *rt, uint32_t slot, aip_command_fn run,
                                     void *payload, size_t size)
{
    uint64_t ticket = 0;
    aip_queue_commit(&rt->worker.queue, slot, run, NULL, payload, size, &ticket);
    alvk_status result = ALVK_E_INTERNAL;
    alvk_status status =
        aip_queue_wait(&rt->worker.queue, ticket, AIP_COMMAND_TIMEOUT_NS, &result, payload, size);
    return status != ALVK_OK ? status : result;
}

alvk_status aip_runtime_run_on_worker(aip_profiler *rt, aip_command_fn run, void *payload,
                                      size_t size)
{
    uint32_t slot = 0;
    alvk_status status = aip_runtime_reserve_worker(rt, &slot);
    return status != ALVK_OK ? status : aip_runtime_run_reserved(rt, slot, run, payload, size);
}

alvk_status aip_runtime_describe_method(aip_profiler *rt, const alvk_mvid *mvid, uint64_t module_id,
                                        uint32_t module_epoch, uint32_t method_token,
                                        alvk_method_description *out)
{
    alvk_status status = aip_runtime_commands_available(rt);
    if (status != ALVK_OK)
        return status;
    if ((mvid == NULL) == (module_id == 0) || (uintptr_t)module_id != module_id)
        return ALVK_E_UNKNOWN_MODULE; /* exactly one of them names the copy */
    describe_payload p;
    memset(&p, 0, sizeof p);
    if (mvid != NULL)
        p.mvid = *mvid;
    p.module_id = module_id;
    p.module_epoch = module_epoch;
    p.token = method_token;
    p.description.size = sizeof p.description;
    status = aip_runtime_run_on_worker(rt, run_describe, &p, sizeof p);
    if (status == ALVK_OK)
        memcpy(out, &p.description, sizeof *out);
    return status;
}

alvk_status aip_runtime_module_identify(aip_profiler *rt, const alvk_mvid *mvid,
                                        uint32_t method_token, uint64_t method_handle,
                                        alvk_module_info *out)
{
    alvk_status status = aip_runtime_commands_available(rt);
    if (status != ALVK_OK)
        return status;
    identify_payload p;
    memset(&p, 0, sizeof p);
    p.mvid = *mvid;
    p.method_token = method_token;
    p.method_handle = method_handle;
    status = aip_runtime_run_on_worker(rt, run_identify, &p, sizeof p);
    if (status == ALVK_OK)
        memcpy(out, &p.info, sizeof *out);
    return status;
}
