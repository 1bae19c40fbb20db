/* The static class factory and DllGetClassObject: CoreCLR's way in. */
#include "adapter/export.h"
#include "adapter/interception_profiler.h"
#include "coreclr/cor_guids.h"

#include <stddef.h>

typedef struct ClassFactory {
    IClassFactory IClassFactory_iface;
} ClassFactory;

static HRESULT STDMETHODCALLTYPE ClassFactory_QueryInterface(IClassFactory *iface, REFIID riid,
                                                             void **ppv)
{
    if (ppv == NULL)
        return E_POINTER;
    *ppv = NULL;
    if (riid == NULL)
        return E_INVALIDARG;
    if (aip_guid_equal(riid, &IID_IUnknown) || aip_guid_equal(riid, &IID_IClassFactory)) {
        *ppv = iface;
        iface->lpVtbl->AddRef(iface);
        return S_OK;
    }
    return E_NOINTERFACE;
}

/* A static singleton: reference counting is a formality. */
static ULONG STDMETHODCALLTYPE ClassFactory_AddRef(IClassFactory *iface)
{
    (void)iface;
    return 2;
}

static ULONG STDMETHODCALLTYPE ClassFactory_Release(IClassFactory *iface)
{
    (void)iface;
    return 1;
}

static HRESULT STDMETHODCALLTYPE ClassFactory_CreateInstance(IClassFactory *iface, IUnknown *outer,
                                                             REFIID riid, void **ppv)
{
    (void)iface;
    if (ppv == NULL)
        return E_POINTER;
    *ppv = NULL;
    if (outer != NULL)
        return CLASS_E_NOAGGREGATION;
    return aip_interception_profiler_query(riid, ppv);
}

static HRESULT STDMETHODCALLTYPE ClassFactory_LockServer(IClassFactory *iface, BOOL lock)
{
    (void)iface;
    (void)lock;
    return S_OK;
}

static const IClassFactoryVtbl ClassFactory_vtbl = {
    ClassFactory_QueryInterface, ClassFactory_AddRef,     ClassFactory_Release,
    ClassFactory_CreateInstance, ClassFactory_LockServer,
};

static ClassFactory g_class_factory = {{&ClassFactory_vtbl}};

AIP_COM_EXPORT HRESULT STDMETHODCALLTYPE DllGetClassObject(REFCLSID clsid, REFIID riid, void **ppv)
{
    if (ppv == NULL)
        return E_POINTER;
    *ppv = NULL;
    if (clsid == NULL || riid == NULL)
        return E_INVALIDARG;
    if (!aip_guid_equal(clsid, &CLSID_AlvorKitInterceptionProfiler))
        return CLASS_E_CLASSNOTAVAILABLE;
    return ClassFactory_QueryInterface(&g_class_factory.IClassFactory_iface, riid, ppv);
}
