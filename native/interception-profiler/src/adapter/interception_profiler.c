/* InterceptionProfiler, in Wine's COM-in-C shape: the object embeds its interface, every
 * method starts from impl_from_ICorProfilerCallback11 and passes This->profiler down, and one
 * static const vtable lists every slot. Slots we do not use return S_OK through generated
 * defaults. */
#include "adapter/interception_profiler.h"

#include "adapter/export.h"
#include "coreclr/cor_guids.h"
#include "coreclr/corprof_callback.h"
#include "runtime/profiler_callbacks.h"
#include "runtime/profiler_runtime.h"

#include <stdatomic.h>
#include <stddef.h>

const GUID CLSID_AlvorKitInterceptionProfiler = {
    0x3840ACF7, 0x5AF1, 0x49EA, {0xBF, 0x94, 0x5F, 0x70, 0x86, 0xC5, 0x7F, 0x57}};

typedef struct InterceptionProfiler {
    ICorProfilerCallback11 ICorProfilerCallback11_iface;
    _Atomic ULONG ref;
    /* Created by Initialize, published with release once it returns; NULL before. */
    aip_profiler *_Atomic profiler;
} InterceptionProfiler;

static aip_profiler *profiler_of(InterceptionProfiler *This)
{
    return atomic_load_explicit(&This->profiler, memory_order_acquire);
}

static inline InterceptionProfiler *impl_from_ICorProfilerCallback11(ICorProfilerCallback11 *iface)
{
    return (InterceptionProfiler *)((char *)iface -
                                    offsetof(InterceptionProfiler, ICorProfilerCallback11_iface));
}

static const GUID *const k_callback_iids[] = {
    &IID_IUnknown,
    &IID_ICorProfilerCallback,
    &IID_ICorProfilerCallback2,
    &IID_ICorProfilerCallback3,
    &IID_ICorProfilerCallback4,
    &IID_ICorProfilerCallback5,
    &IID_ICorProfilerCallback6,
    &IID_ICorProfilerCallback7,
    &IID_ICorProfilerCallback8,
    &IID_ICorProfilerCallback9,
    &IID_ICorProfilerCallback10,
    &IID_ICorProfilerCallback11,
};

static HRESULT STDMETHODCALLTYPE InterceptionProfiler_QueryInterface(ICorProfilerCallback11 *iface,
                                                                     REFIID riid, void **ppv)
{
    if (ppv == NULL)
        return E_POINTER;
    *ppv = NULL;
    if (riid == NULL)
        return E_INVALIDARG;
    for (size_t i = 0; i < sizeof k_callback_iids / sizeof k_callback_iids[0]; ++i) {
        if (aip_guid_equal(riid, k_callback_iids[i])) {
            *ppv = iface;
            iface->lpVtbl->AddRef(iface);
            return S_OK;
        }
    }
    return E_NOINTERFACE;
}

static ULONG STDMETHODCALLTYPE InterceptionProfiler_AddRef(ICorProfilerCallback11 *iface)
{
    InterceptionProfiler *This = impl_from_ICorProfilerCallback11(iface);
    return atomic_fetch_add(&This->ref, 1) + 1;
}

/* The object is static and never freed: CoreCLR may still call into it while the process
 * shuts down, and freeing a profiler on its final Release has crashed other profilers. */
static ULONG STDMETHODCALLTYPE InterceptionProfiler_Release(ICorProfilerCallback11 *iface)
{
    InterceptionProfiler *This = impl_from_ICorProfilerCallback11(iface);
    ULONG current = atomic_load(&This->ref);
    while (current > 0 && !atomic_compare_exchange_weak(&This->ref, &current, current - 1)) {
    }
    return current > 0 ? current - 1 : 0;
}

static HRESULT STDMETHODCALLTYPE InterceptionProfiler_Initialize(ICorProfilerCallback11 *iface,
                                                                 IUnknown *info)
{
    InterceptionProfiler *This = impl_from_ICorProfilerCallback11(iface);
    if (info == NULL)
        return E_POINTER;
    aip_profiler *profiler = profiler_of(This);
    if (profiler == NULL && (profiler = aip_runtime_create()) == NULL)
        return E_OUTOFMEMORY;
    HRESULT hr = aip_runtime_initialize(profiler, info);
    atomic_store_explicit(&This->profiler, profiler, memory_order_release);
    atomic_store_explicit(&aip_attached_instance, profiler, memory_order_release);
    return hr;
}

static HRESULT STDMETHODCALLTYPE InterceptionProfiler_Shutdown(ICorProfilerCallback11 *iface)
{
    aip_runtime_shutdown(profiler_of(impl_from_ICorProfilerCallback11(iface)));
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE InterceptionProfiler_ModuleLoadFinished(
    ICorProfilerCallback11 *iface, ModuleID module_id, HRESULT status)
{
    if (SUCCEEDED(status))
        aip_runtime_module_loaded(profiler_of(impl_from_ICorProfilerCallback11(iface)), module_id);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE
InterceptionProfiler_ModuleUnloadStarted(ICorProfilerCallback11 *iface, ModuleID module_id)
{
    aip_runtime_module_unloading(profiler_of(impl_from_ICorProfilerCallback11(iface)), module_id);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE InterceptionProfiler_JITInlining(ICorProfilerCallback11 *iface,
                                                                  FunctionID caller,
                                                                  FunctionID callee,
                                                                  BOOL *should_inline)
{
    aip_runtime_jit_inlining(profiler_of(impl_from_ICorProfilerCallback11(iface)), caller, callee,
                             should_inline);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE InterceptionProfiler_JITCompilationFinished(
    ICorProfilerCallback11 *iface, FunctionID function, HRESULT status, BOOL safe)
{
    (void)safe;
    aip_runtime_jit_finished(profiler_of(impl_from_ICorProfilerCallback11(iface)), function,
                             status);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE InterceptionProfiler_JITCachedFunctionSearchStarted(
    ICorProfilerCallback11 *iface, FunctionID function, BOOL *use_cached)
{
    if (use_cached != NULL)
        aip_runtime_cached_function_search(profiler_of(impl_from_ICorProfilerCallback11(iface)),
                                           function, use_cached);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE
InterceptionProfiler_GetReJITParameters(ICorProfilerCallback11 *iface, ModuleID module,
                                        mdMethodDef method, ICorProfilerFunctionControl *control)
{
    return aip_runtime_get_rejit_parameters(profiler_of(impl_from_ICorProfilerCallback11(iface)),
                                            module, method, control);
}

static HRESULT STDMETHODCALLTYPE InterceptionProfiler_ReJITCompilationStarted(
    ICorProfilerCallback11 *iface, FunctionID function, ReJITID rejit, BOOL safe)
{
    (void)safe;
    aip_runtime_rejit_event(profiler_of(impl_from_ICorProfilerCallback11(iface)), function, rejit,
                            0, S_OK);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE InterceptionProfiler_ReJITCompilationFinished(
    ICorProfilerCallback11 *iface, FunctionID function, ReJITID rejit, HRESULT status, BOOL safe)
{
    (void)safe;
    aip_runtime_rejit_event(profiler_of(impl_from_ICorProfilerCallback11(iface)), function, rejit,
                            1, status);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE InterceptionProfiler_ReJITError(ICorProfilerCallback11 *iface,
                                                                 ModuleID module,
                                                                 mdMethodDef method,
                                                                 FunctionID function,
                                                                 HRESULT status)
{
    (void)function;
    aip_runtime_rejit_error(profiler_of(impl_from_ICorProfilerCallback11(iface)), module, method,
                            status);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE InterceptionProfiler_ObjectAllocated(ICorProfilerCallback11 *iface,
                                                                      ObjectID object,
                                                                      ClassID class_id)
{
    aip_runtime_object_allocated(profiler_of(impl_from_ICorProfilerCallback11(iface)), object,
                                 class_id);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE InterceptionProfiler_EventPipeEventDelivered(
    ICorProfilerCallback11 *iface, EVENTPIPE_PROVIDER provider, DWORD event_id, DWORD version,
    ULONG metadata_size, LPCBYTE metadata, ULONG data_size, LPCBYTE data, LPCGUID activity,
    LPCGUID related_activity, ThreadID thread, ULONG stack_bytes, UINT_PTR *stack)
{
    (void)metadata_size, (void)metadata, (void)activity, (void)related_activity, (void)thread;
    aip_runtime_event_delivered(profiler_of(impl_from_ICorProfilerCallback11(iface)), provider,
                                event_id, version, data, data_size, stack_bytes, stack);
    return S_OK;
}

/* Attaching to a running process is outside the product: say so and refuse. */
static HRESULT STDMETHODCALLTYPE InterceptionProfiler_InitializeForAttach(
    ICorProfilerCallback11 *iface, IUnknown *info, void *data, UINT cb)
{
    (void)iface;
    (void)info;
    (void)data;
    (void)cb;
    aip_runtime_log("attaching to a running process is not supported; start the process with "
                    "the profiler's environment variables instead");
    return E_NOTIMPL;
}

/* Defaults for the slots we do not use. */
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#endif
#define AIP_DEFAULT_SLOT(ret, name, params) \
    static AIP_MAYBE_UNUSED ret STDMETHODCALLTYPE default_##name params \
    { \
        return S_OK; \
    }
AIP_COR_CALLBACK_SLOTS(AIP_DEFAULT_SLOT)
#undef AIP_DEFAULT_SLOT

#if defined(__clang__)
#pragma GCC diagnostic ignored "-Winitializer-overrides"
#elif defined(__GNUC__)
#pragma GCC diagnostic ignored "-Woverride-init"
#endif
static const ICorProfilerCallback11Vtbl InterceptionProfiler_vtbl = {
#define AIP_DEFAULT_ENTRY(ret, name, params) .name = default_##name,
    AIP_COR_CALLBACK_SLOTS(AIP_DEFAULT_ENTRY)
#undef AIP_DEFAULT_ENTRY
        .QueryInterface = InterceptionProfiler_QueryInterface,
    .AddRef = InterceptionProfiler_AddRef,
    .Release = InterceptionProfiler_Release,
    .Initialize = InterceptionProfiler_Initialize,
    .Shutdown = InterceptionProfiler_Shutdown,
    .InitializeForAttach = InterceptionProfiler_InitializeForAttach,
    .ModuleLoadFinished = InterceptionProfiler_ModuleLoadFinished,
    .ModuleUnloadStarted = InterceptionProfiler_ModuleUnloadStarted,
    .JITInlining = InterceptionProfiler_JITInlining,
    .JITCompilationFinished = InterceptionProfiler_JITCompilationFinished,
    .JITCachedFunctionSearchStarted = InterceptionProfiler_JITCachedFunctionSearchStarted,
    .GetReJITParameters = InterceptionProfiler_GetReJITParameters,
    .ReJITCompilationStarted = InterceptionProfiler_ReJITCompilationStarted,
    .ReJITCompilationFinished = InterceptionProfiler_ReJITCompilationFinished,
    .ReJITError = InterceptionProfiler_ReJITError,
    .ObjectAllocated = InterceptionProfiler_ObjectAllocated,
    .EventPipeEventDelivered = InterceptionProfiler_EventPipeEventDelivered,
};
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
#endif

static InterceptionProfiler g_profiler = {{&InterceptionProfiler_vtbl}, 0, NULL};

struct aip_profiler *_Atomic aip_attached_instance;

HRESULT aip_interception_profiler_query(REFIID riid, void **ppv)
{
    return InterceptionProfiler_QueryInterface(&g_profiler.ICorProfilerCallback11_iface, riid, ppv);
}
