/* A loaded module's metadata opened for writing: its IMetaDataEmit2 and, from it, its
 * IMetaDataImport2 (the relocations' and the carriers' one way in). */
#ifndef AIP_MODULE_METADATA_H
#define AIP_MODULE_METADATA_H

#include "coreclr/cor_metadata.h"
#include "coreclr/corprof_info.h"

/* GetModuleMetaData(ofRead | ofWrite) for IMetaDataEmit2, then QueryInterface for
 * IMetaDataImport2. Each pointer is NULL or holds a reference, whatever the result: release
 * both with aip_module_metadata_release. */
HRESULT aip_module_metadata_open(ICorProfilerInfo15 *info, ModuleID module, IMetaDataEmit2 **emit,
                                 IMetaDataImport2 **import);

/* Releases what aip_module_metadata_open gave (NULL pointers are skipped). */
void aip_module_metadata_release(IMetaDataEmit2 *emit, IMetaDataImport2 *import);

#endif
