/* A method against the refused images: its module and its type arguments' modules. */
#include "catalog/precompiled_function.h"

static int class_held(ICorProfilerInfo15 *info, aip_precompiled_refusals *refusals, ClassID type,
                      uint32_t depth);

static int args_held(ICorProfilerInfo15 *info, aip_precompiled_refusals *refusals,
                     const ClassID *args, ULONG32 count, uint32_t depth)
{
    if (count > AIP_PRECOMPILED_TYPE_ARGS)
        return 1;
    for (ULONG32 i = 0; i < count; ++i)
        if (class_held(info, refusals, args[i], depth))
            return 1;
    return 0;
}

static int class_held(ICorProfilerInfo15 *info, aip_precompiled_refusals *refusals, ClassID type,
                      uint32_t depth)
{
    if (type == 0 || depth >= AIP_PRECOMPILED_TYPE_DEPTH)
        return 1;
    CorElementType element = 0;
    ClassID element_type = 0;
    ULONG rank = 0;
    if (info->lpVtbl->IsArrayClass(info, type, &element, &element_type, &rank) == S_OK)
        return element_type != 0 && class_held(info, refusals, element_type, depth + 1);
    ModuleID module = 0;
    mdTypeDef token = 0;
    ClassID parent = 0;
    ULONG32 count = 0;
    ClassID args[AIP_PRECOMPILED_TYPE_ARGS];
    if (FAILED(info->lpVtbl->GetClassIDInfo2(info, type, &module, &token, &parent,
                                             AIP_PRECOMPILED_TYPE_ARGS, &count, args)))
        return 1;
    return aip_refusals_hold(refusals, module) || args_held(info, refusals, args, count, depth + 1);
}

int aip_refusals_hold_function(ICorProfilerInfo15 *info, aip_precompiled_refusals *refusals,
                               FunctionID function)
{
    ClassID type = 0;
    ModuleID module = 0;
    mdToken token = 0;
    ULONG32 count = 0;
    ClassID args[AIP_PRECOMPILED_TYPE_ARGS];
    if (FAILED(info->lpVtbl->GetFunctionInfo2(info, function, 0, &type, &module, &token,
                                              AIP_PRECOMPILED_TYPE_ARGS, &count, args)))
        return 1; /* cannot tell: refuse, the safe side */
    if (aip_refusals_hold(refusals, module) || args_held(info, refusals, args, count, 0))
        return 1;
    /* No class: code shared by the instantiations of a generic class, whose type arguments the
     * runtime names only with a frame; refused, the safe side. */
    return type == 0 || class_held(info, refusals, type, 0);
}
