/* ProfilerRuntime's lifecycle against a fake ICorProfilerInfo: Initialize negotiates the
 * interface, asks for the configured event mask, starts the worker (which calls
 * InitializeCurrentThread on its own thread first), and Shutdown stops it. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "alvorkit_interception_profiler.h"
#include "adapter/interception_profiler.h"
#include "coreclr/cor_guids.h"
#include "coreclr/corprof_callback.h"
#include "coreclr/corprof_enums.h"
#include "coreclr/corprof_info.h"
#include "platform/platform.h"

HRESULT STDMETHODCALLTYPE DllGetClassObject(REFCLSID clsid, REFIID riid, void **ppv);

static struct {
    uint32_t highest_version; /* the fake answers ICorProfilerInfo up to this version */
    int set_mask_calls;
    DWORD mask_low, mask_high;
    _Atomic int init_thread_calls;
    pthread_t init_thread;
} fake;

static const GUID *const k_info_iids[] = {
    &IID_ICorProfilerInfo,   &IID_ICorProfilerInfo2,  &IID_ICorProfilerInfo3,
    &IID_ICorProfilerInfo4,  &IID_ICorProfilerInfo5,  &IID_ICorProfilerInfo6,
    &IID_ICorProfilerInfo7,  &IID_ICorProfilerInfo8,  &IID_ICorProfilerInfo9,
    &IID_ICorProfilerInfo10, &IID_ICorProfilerInfo11, &IID_ICorProfilerInfo12,
    &IID_ICorProfilerInfo13, &IID_ICorProfilerInfo14, &IID_ICorProfilerInfo15,
};

static HRESULT STDMETHODCALLTYPE fake_qi(ICorProfilerInfo15 *This, REFIID riid, void **ppv)
{
    *ppv = NULL;
    for (uint32_t v = 1; v <= fake.highest_version; ++v) {
        if (aip_guid_equal(riid, k_info_iids[v - 1]) || aip_guid_equal(riid, &IID_IUnknown)) {
            *ppv = This;
            return S_OK;
        }
    }
    return E_NOINTERFACE;
}

static ULONG STDMETHODCALLTYPE fake_ref(ICorProfilerInfo15 *This) { (void)This; return 1; }

static HRESULT STDMETHODCALLTYPE fake_set_mask2(ICorProfilerInfo15 *This, DWORD low, DWORD high)
{
    (void)This;
    fake.set_mask_calls++;
    fake.mask_low = low;
    fake.mask_high = high;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE fake_runtime_information(
    ICorProfilerInfo15 *This, USHORT *instance, COR_PRF_RUNTIME_TYPE *type, USHORT *major,
    USHORT *minor, USHORT *build, USHORT *qfe, ULONG cch, ULONG *pcch, WCHAR *text)
{
    (void)This;
    static const char version[] = "10.0.99-fake";
    *instance = 0;
    *type = COR_PRF_CORE_CLR;
    *major = 10, *minor = 0, *build = 99, *qfe = 1;
    *pcch = (ULONG)sizeof version;
    for (ULONG i = 0; i < cch && i < sizeof version; ++i)
        text[i] = (WCHAR)version[i];
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE fake_initialize_current_thread(ICorProfilerInfo15 *This)
{
    (void)This;
    fake.init_thread = pthread_self();
    atomic_fetch_add(&fake.init_thread_calls, 1);
    return S_OK;
}

static void initialize_then_shutdown(void **state)
{
    (void)state;
    static ICorProfilerInfo15Vtbl vtbl; /* slots we never call stay NULL */
    vtbl.QueryInterface = fake_qi;
    vtbl.AddRef = fake_ref;
    vtbl.Release = fake_ref;
    vtbl.SetEventMask2 = fake_set_mask2;
    vtbl.GetRuntimeInformation = fake_runtime_information;
    vtbl.InitializeCurrentThread = fake_initialize_current_thread;
    ICorProfilerInfo15 info = {&vtbl};
    fake.highest_version = 12;

    setenv("ALVORKIT_INTERCEPTION_PROFILER_PATH", "/proc/self/exe", 1);
    setenv("ALVORKIT_INTERCEPTION_MODULES", "Game;Tools", 1);
    setenv("ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING", "1", 1);

    IClassFactory *factory = NULL;
    assert_int_equal(DllGetClassObject(&CLSID_AlvorKitInterceptionProfiler, &IID_IClassFactory,
                                       (void **)&factory), S_OK);
    ICorProfilerCallback11 *profiler = NULL;
    assert_int_equal(factory->lpVtbl->CreateInstance(factory, NULL, &IID_ICorProfilerCallback11,
                                                     (void **)&profiler), S_OK);
    assert_int_equal(profiler->lpVtbl->Initialize(profiler, (IUnknown *)&info), S_OK);

    assert_int_equal(fake.set_mask_calls, 1);
    assert_int_equal(fake.mask_low, COR_PRF_MONITOR_MODULE_LOADS | COR_PRF_ENABLE_REJIT |
                                        COR_PRF_MONITOR_JIT_COMPILATION |
                                        COR_PRF_MONITOR_CACHE_SEARCHES |
                                        COR_PRF_ENABLE_OBJECT_ALLOCATED |
                                        COR_PRF_ENABLE_STACK_SNAPSHOT);
    assert_int_equal(fake.mask_high, 0);
    /* Initialize starts no thread: the worker starts with the ABI's first call. */
    assert_int_equal(atomic_load(&fake.init_thread_calls), 0);

    alvk_runtime_status s;
    s.size = sizeof s;
    assert_int_equal(alvk_get_runtime_status(&s), ALVK_OK);
    uint64_t deadline = aip_monotonic_ns() + 5000000000ull;
    while (atomic_load(&fake.init_thread_calls) == 0 && aip_monotonic_ns() < deadline) {
    }
    assert_int_equal(atomic_load(&fake.init_thread_calls), 1);
    assert_false(pthread_equal(fake.init_thread, pthread_self()));
    assert_int_equal(s.attached, 1);
    assert_int_equal(s.startup_status, ALVK_OK);
    assert_int_equal(s.profiler_info_version, 12);
    assert_int_equal(s.event_mask_low, fake.mask_low);
    assert_int_equal(s.runtime_type, COR_PRF_CORE_CLR);
    assert_int_equal(s.runtime_major, 10);
    assert_int_equal(s.runtime_build, 99);
    assert_string_equal(s.runtime_version, "10.0.99-fake");
    assert_int_equal(s.allowlist_kind, ALVK_ALLOWLIST_NAMED);
    assert_string_equal(s.allowlist, "Game;Tools");
    assert_int_equal(s.allocation_profiling, 1);
    assert_int_equal(s.worker_alive, 1);
    assert_int_equal(s.worker_init_hresult, S_OK);
    assert_int_equal(s.queue_capacity, 64);
    assert_int_equal(s.queue_depth, 0);

    assert_int_equal(profiler->lpVtbl->Shutdown(profiler), S_OK);
    assert_int_equal(alvk_get_runtime_status(&s), ALVK_OK);
    assert_int_equal(s.worker_alive, 0);
    assert_int_equal(s.attached, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(initialize_then_shutdown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
