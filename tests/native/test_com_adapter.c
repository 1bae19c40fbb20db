/* The COM surface CoreCLR sees: DllGetClassObject, the class factory, the profiler object's
 * QueryInterface and its full callback vtable. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "adapter/interception_profiler.h"
#include "coreclr/cor_guids.h"
#include "coreclr/corprof_callback.h"

HRESULT STDMETHODCALLTYPE DllGetClassObject(REFCLSID clsid, REFIID riid, void **ppv);

static ICorProfilerCallback11 *create_profiler(void)
{
    IClassFactory *factory = NULL;
    assert_int_equal(DllGetClassObject(&CLSID_AlvorKitInterceptionProfiler, &IID_IClassFactory,
                                       (void **)&factory),
                     S_OK);
    void *object = NULL;
    assert_int_equal(factory->lpVtbl->CreateInstance(factory, NULL, &IID_ICorProfilerCallback11,
                                                     &object),
                     S_OK);
    factory->lpVtbl->Release(factory);
    return object;
}

static void only_our_clsid_is_served(void **state)
{
    (void)state;
    void *p = (void *)0x1;
    assert_int_equal(DllGetClassObject(&IID_ICorProfilerCallback, &IID_IClassFactory, &p),
                     CLASS_E_CLASSNOTAVAILABLE);
    assert_null(p);
    assert_int_equal(DllGetClassObject(&CLSID_AlvorKitInterceptionProfiler, &IID_IClassFactory,
                                       NULL),
                     E_POINTER);
    p = (void *)0x1;
    assert_int_equal(DllGetClassObject(&CLSID_AlvorKitInterceptionProfiler,
                                       &IID_ICorProfilerInfo, &p),
                     E_NOINTERFACE);
    assert_null(p);
}

static void factory_refuses_aggregation(void **state)
{
    (void)state;
    IClassFactory *factory = NULL;
    assert_int_equal(DllGetClassObject(&CLSID_AlvorKitInterceptionProfiler, &IID_IUnknown,
                                       (void **)&factory),
                     S_OK);
    void *object = (void *)0x1;
    IUnknown *outer = (IUnknown *)factory;
    assert_int_equal(factory->lpVtbl->CreateInstance(factory, outer, &IID_IUnknown, &object),
                     CLASS_E_NOAGGREGATION);
    assert_null(object);
    assert_int_equal(factory->lpVtbl->LockServer(factory, 1), S_OK);
}

static void profiler_answers_every_callback_version(void **state)
{
    (void)state;
    ICorProfilerCallback11 *profiler = create_profiler();
    const GUID *iids[] = {
        &IID_IUnknown,              &IID_ICorProfilerCallback,  &IID_ICorProfilerCallback2,
        &IID_ICorProfilerCallback3, &IID_ICorProfilerCallback4, &IID_ICorProfilerCallback5,
        &IID_ICorProfilerCallback6, &IID_ICorProfilerCallback7, &IID_ICorProfilerCallback8,
        &IID_ICorProfilerCallback9, &IID_ICorProfilerCallback10, &IID_ICorProfilerCallback11,
    };
    for (size_t i = 0; i < sizeof iids / sizeof iids[0]; ++i) {
        void *p = NULL;
        assert_int_equal(profiler->lpVtbl->QueryInterface(profiler, iids[i], &p), S_OK);
        assert_ptr_equal(p, profiler);
        profiler->lpVtbl->Release(profiler);
    }
    void *p = (void *)0x1;
    assert_int_equal(profiler->lpVtbl->QueryInterface(profiler, &IID_IClassFactory, &p),
                     E_NOINTERFACE);
    assert_null(p);
    assert_int_equal(profiler->lpVtbl->QueryInterface(profiler, &IID_IUnknown, NULL), E_POINTER);
    profiler->lpVtbl->Release(profiler);
}

static void every_slot_is_implemented(void **state)
{
    (void)state;
    ICorProfilerCallback11 *profiler = create_profiler();
    const ICorProfilerCallback11Vtbl *vtbl = profiler->lpVtbl;
    int slots = 3;
    assert_non_null(vtbl->QueryInterface);
#define CHECK_SLOT(ret, name, params) \
    assert_non_null(vtbl->name);      \
    ++slots;
    AIP_COR_CALLBACK_SLOTS(CHECK_SLOT)
#undef CHECK_SLOT
    assert_int_equal(slots * sizeof(void *), sizeof(ICorProfilerCallback11Vtbl));
    /* Unused callbacks succeed and do nothing. */
    assert_int_equal(vtbl->ModuleLoadFinished(profiler, 0x1234, S_OK), S_OK);
    assert_int_equal(vtbl->GarbageCollectionFinished(profiler), S_OK);
    /* Attach is outside the product. */
    assert_int_equal(vtbl->InitializeForAttach(profiler, NULL, NULL, 0), E_NOTIMPL);
    profiler->lpVtbl->Release(profiler);
}

/* A runtime offering no ICorProfilerInfo at all: Initialize refuses to attach. */
static HRESULT STDMETHODCALLTYPE no_info_qi(IUnknown *This, REFIID riid, void **ppv)
{
    (void)This;
    (void)riid;
    *ppv = NULL;
    return E_NOINTERFACE;
}
static ULONG STDMETHODCALLTYPE no_info_ref(IUnknown *This) { (void)This; return 1; }

static void initialize_without_profiler_info_refuses(void **state)
{
    (void)state;
    static const IUnknownVtbl vtbl = {no_info_qi, no_info_ref, no_info_ref};
    IUnknown unknown = {&vtbl};
    ICorProfilerCallback11 *profiler = create_profiler();
    assert_int_equal(profiler->lpVtbl->Initialize(profiler, &unknown), E_NOINTERFACE);
    assert_int_equal(profiler->lpVtbl->Initialize(profiler, NULL), E_POINTER);
    profiler->lpVtbl->Release(profiler);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(only_our_clsid_is_served),
        cmocka_unit_test(factory_refuses_aggregation),
        cmocka_unit_test(profiler_answers_every_callback_version),
        cmocka_unit_test(every_slot_is_implemented),
        cmocka_unit_test(initialize_without_profiler_info_refuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
