/* The modules whose precompiled code is refused: a small lock-free set of ModuleIDs. */
#include "catalog/precompiled_refusals.h"

int aip_refusals_add(aip_precompiled_refusals *r, uintptr_t module)
{
    if (module == 0)
        return 0;
    for (uint32_t i = 0; i < AIP_PRECOMPILED_REFUSAL_CAPACITY; ++i) {
        uintptr_t empty = 0;
        if (atomic_compare_exchange_strong(&r->modules[i], &empty, module)) {
            atomic_fetch_add_explicit(&r->held, 1, memory_order_release);
            return 1;
        }
        if (empty == module)
            return 1; /* already held */
    }
    atomic_fetch_add_explicit(&r->overflowed, 1, memory_order_relaxed);
    return 0;
}

void aip_refusals_remove(aip_precompiled_refusals *r, uintptr_t module)
{
    for (uint32_t i = 0; module != 0 && i < AIP_PRECOMPILED_REFUSAL_CAPACITY; ++i) {
        uintptr_t expected = module;
        if (atomic_compare_exchange_strong(&r->modules[i], &expected, 0)) {
            atomic_fetch_sub_explicit(&r->held, 1, memory_order_release);
            return;
        }
    }
}

int aip_refusals_hold(aip_precompiled_refusals *r, uintptr_t module)
{
    for (uint32_t i = 0; module != 0 && i < AIP_PRECOMPILED_REFUSAL_CAPACITY; ++i)
        if (atomic_load_explicit(&r->modules[i], memory_order_acquire) == module)
            return 1;
    return 0;
}
