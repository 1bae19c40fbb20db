/* ModuleCatalog: every module load is an epoch; the catalog records its ModuleID, MVID,
 * assembly name, whether the allowlist names it and whether it is collectible, and finds
 * modules by ModuleID (the exact copy) or by MVID. One assembly can be loaded more than once
 * (the default AssemblyLoadContext and a plugin's): every copy is its own entry, with the
 * same MVID. The table is pure and bounded; module_catalog_clr.c feeds it from CoreCLR
 * callbacks and discovers methods. */
#ifndef AIP_MODULE_CATALOG_H
#define AIP_MODULE_CATALOG_H

#include "alvorkit_interception_profiler.h"
#include "platform/platform.h"

#include <stdint.h>

#define AIP_CATALOG_MAX_MODULES 1024
#define AIP_ASSEMBLY_NAME_CAPACITY 256

typedef struct aip_module_entry {
    uintptr_t module_id;
    uint32_t epoch;
    uint8_t allowed;     /* the allowlist names its assembly (never for dynamic modules) */
    uint8_t collectible; /* COR_PRF_MODULE_COLLECTIBLE: the runtime cannot ReJIT it */
    uint8_t unloaded;
    alvk_mvid mvid;
    char assembly_name[AIP_ASSEMBLY_NAME_CAPACITY];
} aip_module_entry;

typedef struct aip_module_catalog {
    aip_mutex lock;
    uint32_t count;
    uint32_t dropped; /* loads that found the table full */
    uint32_t last_epoch;
    aip_module_entry entries[AIP_CATALOG_MAX_MODULES];
} aip_module_catalog;

/* Requires zeroed storage (the profiler object is zero pages from the OS: writing the zeros
 * again would make the whole table resident). Returns 0, or -1 when the lock fails. */
int aip_catalog_init(aip_module_catalog *catalog);

/* Records a load; *epoch receives its number. When the table is full, the entry of an
 * unloaded module is reused; ALVK_E_CATALOG_FULL when there is none. */
alvk_status aip_catalog_add(aip_module_catalog *catalog, uintptr_t module_id, const alvk_mvid *mvid,
                            const char *assembly_name, int allowed, int collectible,
                            uint32_t *epoch);

/* Ends the epoch of a loaded module (ModuleUnloadStarted). Unknown IDs are ignored. */
void aip_catalog_unload(aip_module_catalog *catalog, uintptr_t module_id);

/* 1 when module_id is a loaded module that may be patched: allowed and not collectible. */
int aip_catalog_module_allowed(aip_module_catalog *catalog, uintptr_t module_id);

/* The live entry of a ModuleID: ALVK_OK with a copy, or ALVK_E_UNKNOWN_MODULE. */
alvk_status aip_catalog_find_module(aip_module_catalog *catalog, uintptr_t module_id,
                                    aip_module_entry *out);

/* One copy by ModuleID: load `epoch` of it (0: its live load). ALVK_OK with a copy;
 * ALVK_E_MODULE_UNLOADED when that load ended (or the ModuleID's live load is another
 * epoch); ALVK_E_UNKNOWN_MODULE when no load had that ModuleID (ALVK_E_CATALOG_FULL when
 * loads were dropped for lack of room: it may be one of them). */
alvk_status aip_catalog_find_copy(aip_module_catalog *catalog, uintptr_t module_id, uint32_t epoch,
                                  aip_module_entry *out);

/* The copy an MVID alone names (module_id 0 in the ABI). Collectible copies can never be
 * patched, so they do not count while a non-collectible copy is loaded: the only live
 * non-collectible copy; ALVK_E_MODULE_AMBIGUOUS when several are live (a plugin's
 * AssemblyLoadContext holds another copy); with only collectible copies live, the newest of
 * them. ALVK_E_MODULE_UNLOADED when every epoch with the MVID ended, ALVK_E_UNKNOWN_MODULE
 * when none had it, or ALVK_E_CATALOG_FULL when none had it and loads were dropped. */
alvk_status aip_catalog_find(aip_module_catalog *catalog, const alvk_mvid *mvid,
                             aip_module_entry *out);

/* What a command names: the copy module_id (load epoch, 0: the live one), whose MVID must
 * then be *mvid when mvid is not NULL (else ALVK_E_UNKNOWN_MODULE); or, with module_id 0,
 * the copy *mvid names (aip_catalog_find). */
alvk_status aip_catalog_select(aip_module_catalog *catalog, const alvk_mvid *mvid,
                               uintptr_t module_id, uint32_t epoch, aip_module_entry *out);

/* The live copies with this MVID, in catalog order: up to capacity ModuleIDs into ids; returns
 * how many there are (which may exceed capacity). */
uint32_t aip_catalog_copies(aip_module_catalog *catalog, const alvk_mvid *mvid, uintptr_t *ids,
                            uint32_t capacity);

/* Whether methods of a copy may be described and patched: ALVK_OK,
 * ALVK_E_MODULE_COLLECTIBLE (whatever the allowlist says: nothing would make it patchable),
 * or ALVK_E_MODULE_NOT_ALLOWED. */
alvk_status aip_catalog_patchable(const aip_module_entry *module);

/* alvk_module_flags of a copy. */
uint32_t aip_catalog_flags(const aip_module_entry *module);

#endif
