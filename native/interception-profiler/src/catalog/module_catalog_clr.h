/* ModuleCatalog's CoreCLR side: reading each loaded module's identity, and discovering a
 * method (signature, IL body, identity hashes) through the profiling and metadata APIs. */
#ifndef AIP_MODULE_CATALOG_CLR_H
#define AIP_MODULE_CATALOG_CLR_H

#include "catalog/allowlist.h"
#include "catalog/module_catalog.h"
#include "catalog/precompiled_refusals.h"
#include "metadata/signature.h"
#include "coreclr/corprof_info.h"

/* ModuleLoadFinished: records the module's epoch. Dynamic modules are recorded but never
 * allowed; collectible ones are recorded as such (the runtime cannot ReJIT either). A
 * ReadyToRun image that may inline methods of other assemblies untracked and references an
 * allowlisted assembly goes into `refusals` (NULL: none kept): its precompiled code is
 * refused. Other modules pay one read of their ReadyToRun header. */
void aip_catalog_on_module_loaded(ICorProfilerInfo15 *info, aip_module_catalog *catalog,
                                  const aip_allowlist *allowlist,
                                  aip_precompiled_refusals *refusals, ModuleID module_id);

/* A method found through the catalog: its description, its module, and its signature blob
 * (runtime metadata memory, valid while the module stays loaded). */
typedef struct aip_method_target {
    alvk_method_description description;
    ModuleID module_id;
    PCCOR_SIGNATURE signature;
    ULONG signature_length;
} aip_method_target;

/* Resolves one method of the copy aip_catalog_select names (module_id and epoch, or the MVID
 * alone when module_id is 0) if it may be patched; see alvk_describe_method and
 * alvk_describe_module_method for the statuses. Runs on the worker. The target's signature is
 * parsed into *parsed_sig (the caller's storage, too large for comfort on the stack), where
 * it stays for the caller. *hresult receives the runtime HRESULT behind
 * ALVK_E_METADATA_FAILED. */
alvk_status aip_catalog_resolve(ICorProfilerInfo15 *info, aip_module_catalog *catalog,
                                const alvk_mvid *mvid, uintptr_t module_id, uint32_t epoch,
                                uint32_t method_token, aip_method_sig *parsed_sig,
                                aip_method_target *out, HRESULT *hresult);

/* alvk_module_identify: the live copy of `mvid` in which MethodDef method_token has the
 * FunctionID method_handle (compared, never dereferenced); method_handle 0: the copy the MVID
 * alone names (aip_catalog_find). Runs on the worker. */
alvk_status aip_catalog_identify(ICorProfilerInfo15 *info, aip_module_catalog *catalog,
                                 const alvk_mvid *mvid, uint32_t method_token,
                                 uint64_t method_handle, alvk_module_info *out);

#endif
