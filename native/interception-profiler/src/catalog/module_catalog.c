/* The bounded module table behind ModuleCatalog. */
#include "catalog/module_catalog.h"

#include <string.h>

int aip_catalog_init(aip_module_catalog *catalog)
{
    return aip_mutex_init(&catalog->lock);
}

alvk_status aip_catalog_add(aip_module_catalog *catalog, uintptr_t module_id, const alvk_mvid *mvid,
                            const char *assembly_name, int allowed, int collectible,
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
        e->collectible = collectible ? 1 : 0;
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
    return aip_catalog_find_module(catalog, module_id, &e) == ALVK_OK &&
           aip_catalog_patchable(&e) == ALVK_OK;
}

/* Why no entry answered a look-up. Lock held. */
static alvk_status not_found(const aip_module_catalog *catalog)
{
    /* It may be one of the loads the full table dropped. */
    return catalog->dropped > 0 ? ALVK_E_CATALOG_FULL : ALVK_E_UNKNOWN_MODULE;
}

alvk_status aip_catalog_find_copy(aip_module_catalog *catalog, uintptr_t module_id, uint32_t epoch,
                                  aip_module_entry *out)
{
    aip_mutex_lock(&catalog->lock);
    const aip_module_entry *live = NULL, *exact = NULL;
    int seen = 0;
    for (uint32_t i = 0; i < catalog->count; ++i) {
        const aip_module_entry *e = &catalog->entries[i];
        if (e->module_id != module_id || module_id == 0)
            continue;
        seen = 1;
        if (!e->unloaded)
            live = e;
        if (e->epoch == epoch)
            exact = e;
    }
    const aip_module_entry *found = epoch == 0 ? live : exact;
    alvk_status status = found != NULL && !found->unloaded ? ALVK_OK
                         : seen                            ? ALVK_E_MODULE_UNLOADED
                                                           : not_found(catalog);
    if (status == ALVK_OK)
        *out = *found;
    aip_mutex_unlock(&catalog->lock);
    return status;
}

alvk_status aip_catalog_find(aip_module_catalog *catalog, const alvk_mvid *mvid,
                             aip_module_entry *out)
{
    aip_mutex_lock(&catalog->lock);
    const aip_module_entry *patchable = NULL, *collectible = NULL;
    uint32_t patchable_copies = 0;
    int seen = 0;
    for (uint32_t i = 0; i < catalog->count; ++i) {
        const aip_module_entry *e = &catalog->entries[i];
        if (memcmp(&e->mvid, mvid, sizeof *mvid) != 0)
            continue;
        seen = 1;
        if (e->unloaded)
            continue;
        if (!e->collectible) {
            patchable = e;
            patchable_copies++;
        } else if (collectible == NULL || e->epoch > collectible->epoch) {
            collectible = e; /* the newest */
        }
    }
    alvk_status status = ALVK_OK;
    if (patchable_copies > 1)
        status = ALVK_E_MODULE_AMBIGUOUS;
    else if (patchable != NULL)
        *out = *patchable;
    else if (collectible != NULL)
        *out = *collectible;
    else
        status = seen ? ALVK_E_MODULE_UNLOADED : not_found(catalog);
    aip_mutex_unlock(&catalog->lock);
    return status;
}

alvk_status aip_catalog_select(aip_module_catalog *catalog, const alvk_mvid *mvid,
                               uintptr_t module_id, uint32_t epoch, aip_module_entry *out)
{
    if (module_id == 0)
        return aip_catalog_find(catalog, mvid, out);
    aip_module_entry e;
    alvk_status status = aip_catalog_find_copy(catalog, module_id, epoch, &e);
    if (status == ALVK_OK && mvid != NULL && memcmp(&e.mvid, mvid, sizeof *mvid) != 0)
        status = ALVK_E_UNKNOWN_MODULE; /* that module is not the one the caller means */
    if (status == ALVK_OK)
        *out = e;
    return status;
}

uint32_t aip_catalog_copies(aip_module_catalog *catalog, const alvk_mvid *mvid, uintptr_t *ids,
                            uint32_t capacity)
{
    uint32_t n = 0;
    aip_mutex_lock(&catalog->lock);
    for (uint32_t i = 0; i < catalog->count; ++i) {
        const aip_module_entry *e = &catalog->entries[i];
        if (e->unloaded || memcmp(&e->mvid, mvid, sizeof *mvid) != 0)
            continue;
        if (n < capacity)
            ids[n] = e->module_id;
        n++;
    }
    aip_mutex_unlock(&catalog->lock);
    return n;
}

alvk_status aip_catalog_patchable(const aip_module_entry *module)
{
    if (module->collectible)
        return ALVK_E_MODULE_COLLECTIBLE;
    return module->allowed ? ALVK_OK : ALVK_E_MODULE_NOT_ALLOWED;
}

uint32_t aip_catalog_flags(const aip_module_entry *module)
{
    return (module->allowed ? (uint32_t)ALVK_MODULE_ALLOWED : 0u) |
           (module->collectible ? (uint32_t)ALVK_MODULE_COLLECTIBLE : 0u) |
           (module->unloaded ? (uint32_t)ALVK_MODULE_UNLOADED : 0u);
}
