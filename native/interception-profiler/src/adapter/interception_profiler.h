/* InterceptionProfiler: the COM object CoreCLR talks to. It implements every slot of
 * ICorProfilerCallback through ICorProfilerCallback11 and forwards the ones we use to
 * ProfilerRuntime; all behaviour lives there. */
#ifndef AIP_INTERCEPTION_PROFILER_H
#define AIP_INTERCEPTION_PROFILER_H

#include "coreclr/cor_types.h"

/* Our CLSID, {3840ACF7-5AF1-49EA-BF94-5F7086C57F57}. */
extern const GUID CLSID_AlvorKitInterceptionProfiler;

/* Hands out the process's single profiler object (AddRef'd) for `riid`. */
HRESULT aip_interception_profiler_query(REFIID riid, void **ppv);

/* The profiler object CoreCLR initialized (read with acquire), or NULL before Initialize:
 * the exported C ABI has no context argument, so exports.c finds it here. */
struct aip_profiler *aip_attached_profiler(void);

#endif
