/* The ReJIT and inlining callbacks: look up, count, copy. */
#include "rejit/rejit_callbacks.h"

#include "rejit/rejit_events.h"
#include "rejit/rejit_generations.h"

_Static_assert(sizeof(alvk_il_map_entry) == sizeof(COR_IL_MAP), "one layout for IL maps");

static int method_of(ICorProfilerInfo15 *info, FunctionID function, aip_method_key *key)
{
    ClassID klass = 0;
    ModuleID module = 0;
    mdToken token = 0;
    if (FAILED(info->lpVtbl->GetFunctionInfo(info, function, &klass, &module, &token)))
        return 0;
    key->module_id = module;
    key->token = token;
    return 1;
}

HRESULT aip_rejit_on_get_parameters(aip_rejit_state *st, aip_inliner_redirects *redirects,
                                    ModuleID module, mdMethodDef method,
                                    ICorProfilerFunctionControl *control)
{
    aip_prepared_rejit *prepared = aip_rejit_acquire_for(st, module, method);
    if (prepared == NULL && redirects != NULL) {
        /* A known inliner of a hooked target: its IL calling the target's carrier. */
        aip_prepared_rejit *redirected = aip_redirects_acquire(redirects, module, method);
        if (redirected == NULL)
            return S_OK; /* the original IL stays: a restore, or an inliner */
        HRESULT hr =
            control->lpVtbl->SetILFunctionBody(control, redirected->body_size, redirected->data);
        aip_rejit_record(st, module, method, AIP_EVENT_SET_IL, hr);
        aip_prepared_release(redirected);
        return hr;
    }
    if (prepared == NULL)
        return S_OK; /* the original IL stays: a restore, or an inliner */
    /* The runtime copies the body (and the map) into memory it owns. */
    HRESULT hr = control->lpVtbl->SetILFunctionBody(control, prepared->body_size, prepared->data);
    aip_rejit_record(st, module, method, AIP_EVENT_SET_IL, hr);
    if (SUCCEEDED(hr) && prepared->il_map_count > 0) {
        /* Without a debugger this is CORPROF_E_DEBUGGING_DISABLED: reported, not fatal. */
        HRESULT map_hr = control->lpVtbl->SetILInstrumentedCodeMap(
            control, prepared->il_map_count, (COR_IL_MAP *)(uintptr_t)prepared->il_map);
        aip_rejit_generation_il_map(st, module, method, prepared->generation, map_hr);
    }
    aip_prepared_release(prepared);
    return hr;
}

/* The most methods one inliner's re-JIT is attributed through (its inlines, nested ones too). */
#define AIP_INLINEES_PER_INLINER 32

/* A compilation of a method without a patch started: an inliner, counted for the patches of the
 * methods the JIT reported it inlined (rejit_events.h), each request once. */
static void record_inliner(aip_rejit_state *st, aip_inliner_map *inliners, aip_method_key key,
                           ReJITID rejit_id)
{
    aip_method_key inlined[AIP_INLINEES_PER_INLINER];
    aip_inliner_facts facts = {inlined, 0, 0, 0};
    facts.count =
        aip_inliner_map_inlinees(inliners, key, inlined, AIP_INLINEES_PER_INLINER, &facts.counted);
    facts.newest = aip_rejit_newest_request(st, inlined, facts.count);
    /* Counted for these requests by another compilation of it (a tier-up) since: done. */
    if (facts.newest > facts.counted &&
        !aip_inliner_map_raise_counted(inliners, key, facts.counted, facts.newest))
        return;
    aip_rejit_record_inliner(st, key.module_id, key.token, rejit_id, &facts);
}

int aip_rejit_on_compilation(aip_rejit_state *st, aip_inliner_map *inliners,
                             ICorProfilerInfo15 *info, FunctionID function, ReJITID rejit_id,
                             int finished, HRESULT status, uint32_t *rollback_index)
{
    aip_method_key key;
    if (!method_of(info, function, &key))
        return 0;
    aip_rejit_record(st, key.module_id, key.token,
                     finished ? AIP_EVENT_FINISHED : AIP_EVENT_STARTED, status);
    if (finished)
        return aip_rejit_generation_finished(st, key.module_id, key.token, rejit_id, status,
                                             rollback_index);
    if (!aip_rejit_is_target(st, key.module_id, key.token))
        record_inliner(st, inliners, key, rejit_id);
    return aip_rejit_generation_started(st, key.module_id, key.token, rejit_id, rollback_index);
}

int aip_rejit_on_error(aip_rejit_state *st, ModuleID module, mdMethodDef method, HRESULT status,
                       uint32_t *rollback_index)
{
    aip_rejit_record(st, module, method, AIP_EVENT_ERROR, status);
    return aip_rejit_generation_compiled(st, module, method, status, rollback_index);
}

void aip_rejit_on_inlining(aip_rejit_state *st, aip_inliner_map *inliners,
                           aip_module_catalog *catalog, ICorProfilerInfo15 *info, FunctionID caller,
                           FunctionID callee, BOOL *should_inline)
{
    aip_method_key callee_key, caller_key;
    if (!method_of(info, callee, &callee_key) ||
        !aip_catalog_module_allowed(catalog, callee_key.module_id))
        return;
    if (method_of(info, caller, &caller_key))
        aip_inliner_map_add(inliners, callee_key, caller_key);
    if (aip_rejit_blocks_inlining(st, callee_key.module_id, callee_key.token))
        *should_inline = 0;
}
