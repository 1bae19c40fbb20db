/* The carried targets: a small table searched under one lock, its count kept beside it. */
#include "rejit/carried_targets.h"

#include <string.h>

int aip_carried_init(aip_carried_targets *t)
{
    return aip_mutex_init(&t->lock);
}

void aip_carried_destroy(aip_carried_targets *t)
{
    aip_mutex_destroy(&t->lock);
}

/* Lock held. */
static aip_carried_target *find(aip_carried_targets *t, uintptr_t module_id, uint32_t target)
{
    for (uint32_t i = 0; i < AIP_CARRIED_TARGETS; ++i)
        if (t->entries[i].module_id == module_id && t->entries[i].target == target)
            return &t->entries[i];
    return NULL;
}

/* Lock held. */
static void free_entry(aip_carried_targets *t, aip_carried_target *e)
{
    memset(e, 0, sizeof *e);
    atomic_fetch_sub_explicit(&t->active, 1, memory_order_relaxed);
}

int aip_carried_set(aip_carried_targets *t, uintptr_t module_id, uint32_t target, uint32_t carrier)
{
    if (module_id == 0)
        return carrier == 0 ? 0 : -1;
    int result = 0;
    aip_mutex_lock(&t->lock);
    aip_carried_target *e = find(t, module_id, target);
    if (carrier == 0) {
        if (e != NULL)
            free_entry(t, e);
    } else if (e != NULL) {
        e->carrier = carrier;
        e->armed = 0;
    } else if ((e = find(t, 0, 0)) != NULL) {
        *e = (aip_carried_target){module_id, target, carrier, 0};
        atomic_fetch_add_explicit(&t->active, 1, memory_order_relaxed);
    } else {
        atomic_fetch_add_explicit(&t->full, 1, memory_order_relaxed);
        result = -1;
    }
    aip_mutex_unlock(&t->lock);
    return result;
}

int aip_carried_arm(aip_carried_targets *t, uintptr_t module_id, uint32_t target)
{
    if (module_id == 0)
        return 0;
    aip_mutex_lock(&t->lock);
    aip_carried_target *e = find(t, module_id, target);
    int armed = e != NULL && !e->armed;
    if (armed)
        e->armed = 1;
    aip_mutex_unlock(&t->lock);
    return armed;
}

uint32_t aip_carried_lookup(aip_carried_targets *t, uintptr_t module_id, uint32_t target,
                            int *armed)
{
    if (armed != NULL)
        *armed = 0;
    if (module_id == 0)
        return 0;
    aip_mutex_lock(&t->lock);
    const aip_carried_target *e = find(t, module_id, target);
    uint32_t carrier = e != NULL ? e->carrier : 0;
    if (e != NULL && armed != NULL)
        *armed = (int)e->armed;
    aip_mutex_unlock(&t->lock);
    return carrier;
}

uint32_t aip_carried_in_module(aip_carried_targets *t, uintptr_t module_id, uint32_t *out,
                               uint32_t capacity)
{
    uint32_t n = 0;
    if (module_id == 0)
        return 0;
    aip_mutex_lock(&t->lock);
    for (uint32_t i = 0; i < AIP_CARRIED_TARGETS; ++i)
        if (t->entries[i].module_id == module_id) {
            if (n < capacity)
                out[n] = t->entries[i].target;
            n++;
        }
    aip_mutex_unlock(&t->lock);
    return n;
}

void aip_carried_forget_module(aip_carried_targets *t, uintptr_t module_id)
{
    if (module_id == 0)
        return;
    aip_mutex_lock(&t->lock);
    for (uint32_t i = 0; i < AIP_CARRIED_TARGETS; ++i)
        if (t->entries[i].module_id == module_id)
            free_entry(t, &t->entries[i]);
    aip_mutex_unlock(&t->lock);
}
