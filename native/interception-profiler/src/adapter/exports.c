/* The exported C ABI: argument checks here, behaviour in ProfilerRuntime. */
#include "alvorkit_interception_profiler.h"

#include "../runtime/profiler_runtime.h"

ALVK_API uint32_t ALVK_CALL alvk_version_number(void) { return ALVK_ABI_VERSION; }

ALVK_API alvk_status ALVK_CALL alvk_get_runtime_status(alvk_runtime_status *out)
{
    if (out == 0)
        return ALVK_E_NULL_ARGUMENT;
    if (out->size < sizeof(alvk_runtime_status))
        return ALVK_E_STRUCT_SIZE;
    return aip_runtime_get_status(out);
}

ALVK_API alvk_status ALVK_CALL alvk_describe_method(const alvk_mvid *mvid, uint32_t method_token,
                                                   alvk_method_description *out)
{
    if (mvid == 0 || out == 0)
        return ALVK_E_NULL_ARGUMENT;
    if (out->size < sizeof(alvk_method_description))
        return ALVK_E_STRUCT_SIZE;
    return aip_runtime_describe_method(mvid, method_token, out);
}
