/* One compilation's check: its module's carried targets, its IL walked once for their calls. */
#include "rejit/caller_discovery.h"

uint32_t aip_discovery_scan(const uint8_t *body, uint32_t size, uint32_t caller,
                            const uint32_t *targets, uint32_t count, aip_il_starts *starts)
{
    uint32_t found = 0;
    if (aip_il_find_calls(body, size, targets, count, starts, &found) != ALVK_OK)
        return 0;
    for (uint32_t i = 0; i < count; ++i)
        if (targets[i] == caller)
            found &= ~(1u << i);
    return found;
}

static int method_of(ICorProfilerInfo15 *info, FunctionID function, ModuleID *module,
                     mdToken *token)
{
    ClassID klass = 0;
    return SUCCEEDED(info->lpVtbl->GetFunctionInfo(info, function, &klass, module, token));
}

/* (module, token)'s original IL scanned: each carried target it calls pushed. */
static int scan_method(aip_carried_targets *carried, aip_discovered_inbox *inbox,
                       ICorProfilerInfo15 *info, ModuleID module, mdToken token)
{
    uint32_t targets[AIP_CARRIED_TARGETS];
    uint32_t count = aip_carried_in_module(carried, module, targets, AIP_CARRIED_TARGETS);
    if (count == 0)
        return 0;
    if (count > AIP_CARRIED_TARGETS)
        count = AIP_CARRIED_TARGETS;
    LPCBYTE body = NULL;
    ULONG size = 0;
    if (FAILED(info->lpVtbl->GetILFunctionBody(info, module, token, &body, &size)) || size == 0)
        return 0;
    aip_il_starts starts; /* 8 KiB of the JIT thread's stack, only while something is carried */
    int pushed = 0;
    for (uint32_t at = 0; at < count; at += AIP_IL_FIND_CALLS_MAX) {
        uint32_t n = count - at < AIP_IL_FIND_CALLS_MAX ? count - at : AIP_IL_FIND_CALLS_MAX;
        uint32_t found = aip_discovery_scan(body, size, token, targets + at, n, &starts);
        for (uint32_t i = 0; i < n; ++i)
            if ((found & (1u << i)) != 0)
                pushed |= aip_inbox_push(inbox, (aip_discovered){module, token, targets[at + i]});
    }
    return pushed && aip_inbox_claim_drain(inbox);
}

int aip_discover_callers(aip_carried_targets *carried, aip_discovered_inbox *inbox,
                         ICorProfilerInfo15 *info, FunctionID function)
{
    ModuleID module = 0;
    mdToken token = 0;
    return method_of(info, function, &module, &token) &&
           scan_method(carried, inbox, info, module, token);
}

int aip_discover_on_rejit(aip_carried_targets *carried, aip_discovered_inbox *inbox,
                          ICorProfilerInfo15 *info, FunctionID function)
{
    ModuleID module = 0;
    mdToken token = 0;
    if (!method_of(info, function, &module, &token))
        return 0;
    if (aip_carried_arm(carried, module, token))
        return aip_inbox_claim_drain(inbox); /* the callers waiting for it */
    return scan_method(carried, inbox, info, module, token);
}
