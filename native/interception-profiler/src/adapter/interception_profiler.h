/* InterceptionProfiler: the COM object CoreCLR talks to. It implements every slot of
 * ICorProfilerCallback through ICorProfilerCallback11 and forwards the ones we use to
 * ProfilerRuntime; all behaviour lives there. */
#ifndef AIP_INTERCEPTION_PROFILER_H
#define AIP_INTERCEPTION_PROFILER_H

#include "coreclr/cor_types.h"

#include <stdatomic.h>

/* Our CLSID, {3840ACF7-5AF1-49EA-BF94-5F7086C57F57}. */
extern const GUID CLSID_AlvorKitInterceptionProfiler;

/* Hands out the process's single profiler object (AddRef'd) for `riid`. */
HRESULT aip_interception_profiler_query(REFIID riid, void **ppv);

/* The profiler object CoreCLR initialized, or NULL before Initialize: the exported C ABI has
 * no context argument, so the exports find it here. Stored once, by Initialize (release). */
extern struct aip_profiler *_Atomic aip_attached_instance;

static inline struct aip_profiler *aip_attached_profiler(void)
{
    return atomic_load_explicit(&aip_attached_instance, memory_order_acquire);
}

#endif
