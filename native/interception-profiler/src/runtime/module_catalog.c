/* The bounded module table behind ModuleCatalog. */
#include "module_catalog.h"

#include <string.h>

int aip_catalog_init(aip_module_catalog *catalog)
{
    memset(catalog, 0, sizeof *catalog);
    return aip_mutex_init(&catalog->lock);
}

alvk_status aip_catalog_add(aip_module_catalog *catalog, uintptr_t module_id,
                            const alvk_mvid *mvid, const char *assembly_name, int allowed,
                            uint32_t *epoch)
{
    alvk_status status = ALVK_OK;
    aip_mutex_lock(&catalog->lock);
    aip_module_entry *e = NULL;
    if (catalog->count < AIP_CATALOG_MAX_MODULES) {
        e = &catalog->entries[catalog->count++];
    } else {
        /* Full: reuse the oldest entry of an unloaded module (its epoch is over). */
        for (uint32_t i = 0; i < catalog->count && e == NULL; ++i)
            if (catalog->entries[i].unloaded)
                e = &catalog->entries[i];
    }
    if (e == NULL) {
        catalog->dropped++;
        status = ALVK_E_CATALOG_FULL;
    } else {
        memset(e, 0, sizeof *e);
        e->module_id = module_id;
        e->epoch = ++catalog->last_epoch;
        e->allowed = allowed ? 1 : 0;
        e->mvid = *mvid;
        size_t len = strlen(assembly_name);
        if (len >= sizeof e->assembly_name)
            len = sizeof e->assembly_name - 1;
        memcpy(e->assembly_name, assembly_name, len);
        if (epoch != NULL)
            *epoch = e->epoch;
    }
    aip_mutex_unlock(&catalog->lock);
    return status;
}

void aip_catalog_unload(aip_module_catalog *catalog, uintptr_t module_id)
{
    aip_mutex_lock(&catalog->lock);
    for (uint32_t i = catalog->count; i-- > 0;) {
        aip_module_entry *e = &catalog->entries[i];
        if (e->module_id == module_id && !e->unloaded) {
            e->unloaded = 1;
            break;
        }
    }
    aip_mutex_unlock(&catalog->lock);
}

alvk_status aip_catalog_find_module(aip_module_catalog *catalog, uintptr_t module_id,
                                    aip_module_entry *out)
{
    alvk_status status = ALVK_E_UNKNOWN_MODULE;
    aip_mutex_lock(&catalog->lock);
    for (uint32_t i = catalog->count; i-- > 0;) {
        const aip_module_entry *e = &catalog->entries[i];
        if (e->module_id == module_id && !e->unloaded) {
            *out = *e;
            status = ALVK_OK;
            break;
        }
    }
    aip_mutex_unlock(&catalog->lock);
    return status;
}

int aip_catalog_module_allowed(aip_module_catalog *catalog, uintptr_t module_id)
{
    aip_module_entry e;
    return aip_catalog_find_module(catalog, module_id, &e) == ALVK_OK && e.allowed;
}

alvk_status aip_catalog_find(aip_module_catalog *catalog, const alvk_mvid *mvid,
                             aip_module_entry *out)
{
    alvk_status status = ALVK_E_UNKNOWN_MODULE;
    aip_mutex_lock(&catalog->lock);
    for (uint32_t i = catalog->count; i-- > 0;) {
        const aip_module_entry *e = &catalog->entries[i];
        if (memcmp(&e->mvid, mvid, sizeof *mvid) != 0)
            continue;
        if (!e->unloaded) {
            *out = *e;
            status = ALVK_OK;
            break;
        }
        status = ALVK_E_MODULE_UNLOADED; /* keep looking for a live epoch */
    }
    if (status == ALVK_E_UNKNOWN_MODULE && catalog->dropped > 0)
        status = ALVK_E_CATALOG_FULL; /* it may be one of the loads the full table dropped */
    aip_mutex_unlock(&catalog->lock);
    return status;
}
