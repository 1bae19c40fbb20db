/* ModuleCatalog's CoreCLR side: reading each loaded module's identity, and discovering a
 * method (signature, IL body, identity hashes) through the profiling and metadata APIs. */
#ifndef AIP_MODULE_CATALOG_CLR_H
#define AIP_MODULE_CATALOG_CLR_H

#include "config.h"
#include "module_catalog.h"
#include "../coreclr/corprof_info.h"

/* ModuleLoadFinished: records the module's epoch. Dynamic and collectible modules are
 * recorded but never allowed (the runtime cannot ReJIT them). */
void aip_catalog_on_module_loaded(ICorProfilerInfo15 *info, aip_module_catalog *catalog,
                                  const aip_allowlist *allowlist, ModuleID module_id);

/* A method found through the catalog: its description, its module, and its signature blob
 * (runtime metadata memory, valid while the module stays loaded). */
typedef struct aip_method_target {
    alvk_method_description description;
    ModuleID module_id;
    PCCOR_SIGNATURE signature;
    ULONG signature_length;
} aip_method_target;

/* Resolves one method of an allowed module; see alvk_describe_method for the statuses.
 * Runs on the worker. *hresult receives the runtime HRESULT behind ALVK_E_METADATA_FAILED. */
alvk_status aip_catalog_resolve(ICorProfilerInfo15 *info, aip_module_catalog *catalog,
                                const alvk_mvid *mvid, uint32_t method_token,
                                aip_method_target *out, HRESULT *hresult);

#endif
