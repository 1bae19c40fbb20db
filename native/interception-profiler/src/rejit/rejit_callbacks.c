/* The ReJIT and inlining callbacks. They only look up, count and copy: the IL they hand
 * over was prepared on the worker. */
#include "runtime/profiler_runtime.h"

#include "runtime/runtime_state.h"
#include "coreclr/corprof_control.h"

_Static_assert(sizeof(alvk_il_map_entry) == sizeof(COR_IL_MAP), "one layout for IL maps");

static int method_of(aip_runtime *rt, FunctionID function, aip_method_key *key)
{
    ClassID klass = 0;
    ModuleID module = 0;
    mdToken token = 0;
    if (FAILED(rt->info->lpVtbl->GetFunctionInfo(rt->info, function, &klass, &module, &token)))
        return 0;
    key->module_id = module;
    key->token = token;
    return 1;
}

static int patching(aip_runtime *rt)
{
    return atomic_load(&rt->attached) && rt->config.startup_status == ALVK_OK;
}

HRESULT aip_runtime_get_rejit_parameters(ModuleID module, mdMethodDef method,
                                         ICorProfilerFunctionControl *control)
{
    aip_runtime *rt = &g_aip_runtime;
    if (!patching(rt))
        return S_OK;
    aip_prepared_rejit *prepared = aip_rejit_acquire_for(&rt->rejit, module, method);
    if (prepared == NULL)
        return S_OK; /* the original IL stays: a restore, or an inliner */
    /* The runtime copies the body (and the map) into memory it owns. */
    HRESULT hr = control->lpVtbl->SetILFunctionBody(control, prepared->body_size, prepared->data);
    aip_rejit_record(&rt->rejit, module, method, AIP_EVENT_SET_IL, hr);
    if (SUCCEEDED(hr) && prepared->il_map_count > 0) {
        /* Without a debugger this is CORPROF_E_DEBUGGING_DISABLED: reported, not fatal. */
        HRESULT map_hr = control->lpVtbl->SetILInstrumentedCodeMap(
            control, prepared->il_map_count, (COR_IL_MAP *)(uintptr_t)prepared->il_map);
        aip_rejit_generation_il_map(&rt->rejit, module, method, prepared->generation, map_hr);
    }
    aip_prepared_release(prepared);
    return hr;
}

void aip_runtime_rejit_event(FunctionID function, ReJITID rejit_id, int finished,
                             HRESULT status)
{
    aip_runtime *rt = &g_aip_runtime;
    aip_method_key key;
    if (!patching(rt) || !method_of(rt, function, &key))
        return;
    aip_rejit_record(&rt->rejit, key.module_id, key.token,
                     finished ? AIP_EVENT_FINISHED : AIP_EVENT_STARTED, status);
    uint32_t index = 0;
    int rollback;
    if (!finished) {
        aip_rejit_record_inliner(&rt->rejit, key.module_id, key.token, rejit_id);
        rollback = aip_rejit_generation_started(&rt->rejit, key.module_id, key.token, rejit_id,
                                                &index);
    } else {
        rollback = aip_rejit_generation_compiled(&rt->rejit, key.module_id, key.token, status,
                                                 &index);
    }
    if (rollback)
        aip_runtime_queue_rollback(index);
}

void aip_runtime_rejit_error(ModuleID module, mdMethodDef method, HRESULT status)
{
    aip_runtime *rt = &g_aip_runtime;
    uint32_t index = 0;
    if (!patching(rt))
        return;
    aip_rejit_record(&rt->rejit, module, method, AIP_EVENT_ERROR, status);
    if (aip_rejit_generation_compiled(&rt->rejit, module, method, status, &index))
        aip_runtime_queue_rollback(index);
}

/* Records which callers inline methods of allowed modules, and refuses inlining of targets
 * patched with the JITInlining fallback. */
void aip_runtime_jit_inlining(FunctionID caller, FunctionID callee, BOOL *should_inline)
{
    aip_runtime *rt = &g_aip_runtime;
    aip_method_key callee_key, caller_key;
    if (!patching(rt) || !method_of(rt, callee, &callee_key) ||
        !aip_catalog_module_allowed(&rt->catalog, callee_key.module_id))
        return;
    if (method_of(rt, caller, &caller_key))
        aip_inliner_map_add(&rt->inliners, callee_key, caller_key);
    if (aip_rejit_blocks_inlining(&rt->rejit, callee_key.module_id, callee_key.token))
        *should_inline = 0;
}
