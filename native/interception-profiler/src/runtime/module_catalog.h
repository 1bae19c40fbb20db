/* ModuleCatalog: every module load is an epoch; the catalog records its ModuleID, MVID,
 * assembly name and whether the allowlist lets it be patched, and finds modules by MVID.
 * The table is pure and bounded; module_catalog_clr.c feeds it from CoreCLR callbacks and
 * discovers methods. */
#ifndef AIP_MODULE_CATALOG_H
#define AIP_MODULE_CATALOG_H

#include "alvorkit_interception_profiler.h"
#include "../platform/platform.h"

#include <stdint.h>

#define AIP_CATALOG_MAX_MODULES 1024
#define AIP_ASSEMBLY_NAME_CAPACITY 256

typedef struct aip_module_entry {
    uintptr_t module_id;
    uint32_t epoch;
    uint8_t allowed;
    uint8_t unloaded;
    alvk_mvid mvid;
    char assembly_name[AIP_ASSEMBLY_NAME_CAPACITY];
} aip_module_entry;

typedef struct aip_module_catalog {
    aip_mutex lock;
    uint32_t count;
    uint32_t dropped;  /* loads that found the table full */
    uint32_t last_epoch;
    aip_module_entry entries[AIP_CATALOG_MAX_MODULES];
} aip_module_catalog;

int aip_catalog_init(aip_module_catalog *catalog);

/* Records a load; *epoch receives its number. When the table is full, the entry of an
 * unloaded module is reused; ALVK_E_CATALOG_FULL when there is none. */
alvk_status aip_catalog_add(aip_module_catalog *catalog, uintptr_t module_id,
                            const alvk_mvid *mvid, const char *assembly_name, int allowed,
                            uint32_t *epoch);

/* Ends the epoch of a loaded module (ModuleUnloadStarted). Unknown IDs are ignored. */
void aip_catalog_unload(aip_module_catalog *catalog, uintptr_t module_id);

/* 1 when module_id is a loaded module the allowlist lets be patched. */
int aip_catalog_module_allowed(aip_module_catalog *catalog, uintptr_t module_id);

/* The live entry of a ModuleID: ALVK_OK with a copy, or ALVK_E_UNKNOWN_MODULE. */
alvk_status aip_catalog_find_module(aip_module_catalog *catalog, uintptr_t module_id,
                                    aip_module_entry *out);

/* The newest epoch with this MVID. ALVK_OK with a copy in *out, ALVK_E_MODULE_UNLOADED
 * when every epoch with it ended, ALVK_E_UNKNOWN_MODULE when none had it, or
 * ALVK_E_CATALOG_FULL when none had it and loads were dropped for lack of room. */
alvk_status aip_catalog_find(aip_module_catalog *catalog, const alvk_mvid *mvid,
                             aip_module_entry *out);

#endif
