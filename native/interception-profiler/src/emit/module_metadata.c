/* A loaded module's metadata opened for writing. */
#include "emit/module_metadata.h"

#include "coreclr/cor_guids.h"

#include <stddef.h>

HRESULT aip_module_metadata_open(ICorProfilerInfo15 *info, ModuleID module, IMetaDataEmit2 **emit,
                                 IMetaDataImport2 **import)
{
    IUnknown *unknown = NULL;
    *emit = NULL;
    *import = NULL;
    HRESULT hr = info->lpVtbl->GetModuleMetaData(info, module, ofRead | ofWrite,
                                                 &IID_IMetaDataEmit2, &unknown);
    if (FAILED(hr))
        return hr;
    *emit = (IMetaDataEmit2 *)unknown;
    void *queried = NULL;
    hr = (*emit)->lpVtbl->QueryInterface(*emit, &IID_IMetaDataImport2, &queried);
    *import = SUCCEEDED(hr) ? queried : NULL;
    return hr;
}

void aip_module_metadata_release(IMetaDataEmit2 *emit, IMetaDataImport2 *import)
{
    if (import != NULL)
        import->lpVtbl->Release(import);
    if (emit != NULL)
        emit->lpVtbl->Release(emit);
}
