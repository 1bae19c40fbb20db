/* After a window: the worker resolves type names and frames into the startup-allocated
 * storage; readers then only copy. The runtime refuses metadata access on managed threads
 * outside callbacks, so none of this can run on the caller's thread. */
#include "allocation/allocation_resolve.h"

#include <string.h>

/* The IL offset of a return address: the mapping of the native code version holding ip - 1
 * (a return address points after its call). -1 when there is none. */
static int32_t il_offset_of(aip_allocation_state *a, FunctionID function, uintptr_t ip)
{
    ICorProfilerInfo15 *info = a->info;
    COR_DEBUG_IL_TO_NATIVE_MAP *map = a->il_map;
    FunctionID owner = 0;
    ReJITID rejit = 0;
    uintptr_t at = ip - 1;
    if (FAILED(info->lpVtbl->GetFunctionFromIP3(info, (LPCBYTE)at, &owner, &rejit)) ||
        owner != function)
        return -1;
    UINT_PTR starts[8];
    ULONG32 count = 0;
    if (FAILED(info->lpVtbl->GetNativeCodeStartAddresses(info, function, rejit, 8, &count, starts)))
        return -1;
    for (ULONG32 s = 0; s < count && s < 8; ++s) {
        ULONG32 n = 0;
        if (at < starts[s] || FAILED(info->lpVtbl->GetILToNativeMapping3(
                                  info, starts[s], AIP_IL_MAP_ENTRIES, &n, map)))
            continue;
        uintptr_t offset = at - starts[s];
        for (ULONG32 k = 0; k < n && k < AIP_IL_MAP_ENTRIES; ++k)
            if (offset >= map[k].nativeStartOffset && offset < map[k].nativeEndOffset &&
                (int32_t)map[k].ilOffset >= 0)
                return (int32_t)map[k].ilOffset;
    }
    return -1;
}

static alvk_status resolve_all(void *payload, void *context)
{
    (void)context;
    aip_allocation_state *a = *(aip_allocation_state **)payload;
    for (uint32_t i = 0; i < a->types.capacity; ++i) {
        uintptr_t cls = atomic_load(&a->types.slots[i].class_id);
        if (cls != 0)
            aip_allocation_type_name(a->info, cls, a->type_names[i], ALVK_TYPE_NAME_CAPACITY);
    }
    uint32_t kept = aip_sample_store_count(&a->samples);
    for (uint32_t i = 0; i < kept; ++i) {
        aip_raw_sample *s = &a->samples.samples[i];
        for (uint32_t k = 0; k < s->frame_count && k < ALVK_MAX_SAMPLE_FRAMES; ++k) {
            aip_raw_frame *f = &s->frames[k];
            ClassID cls = 0;
            ModuleID module = 0;
            mdToken token = 0;
            f->il_offset = -1;
            ReJITID rejit = 0;
            FunctionID from_ip = 0;
            /* A frame the runtime gave as an IP alone (sampled profiling's event stacks). */
            if (f->function_id == 0 && f->ip != 0 &&
                SUCCEEDED(
                    a->info->lpVtbl->GetFunctionFromIP3(a->info, (LPCBYTE)f->ip, &from_ip, &rejit)))
                f->function_id = from_ip;
            if (f->function_id != 0 &&
                SUCCEEDED(a->info->lpVtbl->GetFunctionInfo2(a->info, f->function_id, 0, &cls,
                                                            &module, &token, 0, NULL, NULL))) {
                f->module_id = module;
                f->token = token;
                f->il_offset = il_offset_of(a, f->function_id, f->ip);
            }
        }
    }
    atomic_store_explicit(&a->has_result, 1, memory_order_release);
    atomic_store(&a->phase, 0);
    return ALVK_OK;
}

alvk_status aip_allocation_resolve(aip_allocation_state *a, uint32_t slot)
{
    aip_allocation_state *payload = a;
    alvk_status status =
        a->port.run_reserved(a->port.context, slot, resolve_all, &payload, sizeof payload);
    if (status == ALVK_E_WORKER_UNAVAILABLE) {
        /* The worker stopped since the reservation: the counts stand, names stay empty. */
        atomic_store_explicit(&a->has_result, 1, memory_order_release);
        atomic_store(&a->phase, 0);
    }
    return status;
}

static alvk_status readable(const aip_allocation_state *a)
{
    if (a == NULL || !a->enabled)
        return ALVK_E_ALLOCATION_PROFILING_OFF;
    return atomic_load_explicit(&a->has_result, memory_order_acquire) ? ALVK_OK : ALVK_E_NO_CAPTURE;
}

/* Element `index` of the caller's array of `stride`-byte elements receives what its size
 * holds of `full` (its size field stays the caller's). */
static void put_element(void *out, size_t stride, uint32_t index, const void *full,
                        size_t full_size)
{
    char *to = (char *)out + (size_t)index * stride;
    size_t n = stride < full_size ? stride : full_size;
    memcpy(to + sizeof(uint32_t), (const char *)full + sizeof(uint32_t), n - sizeof(uint32_t));
}

alvk_status aip_allocation_read_types(aip_allocation_state *a, uint32_t first, void *out,
                                      size_t stride, uint32_t capacity, uint32_t *written)
{
    alvk_status status = readable(a);
    *written = 0;
    if (status != ALVK_OK)
        return status;
    uint32_t seen = 0;
    for (uint32_t i = 0; i < a->types.capacity && *written < capacity; ++i) {
        aip_type_slot *slot = &a->types.slots[i];
        uintptr_t cls = atomic_load(&slot->class_id);
        if (cls == 0 || seen++ < first)
            continue;
        alvk_type_count t;
        memset(&t, 0, sizeof t);
        aip_type_estimate e;
        aip_type_table_estimate(&a->types, i, &e);
        t.class_id = cls;
        t.count = e.count;
        t.bytes = e.bytes;
        memcpy(t.name, a->type_names[i], sizeof t.name);
        t.count_low = e.count_low;
        t.count_high = e.count_high;
        t.bytes_low = e.bytes_low;
        t.bytes_high = e.bytes_high;
        t.samples = e.samples;
        t.exact_count = e.exact_count;
        t.exact_bytes = e.exact_bytes;
        put_element(out, stride, (*written)++, &t, sizeof t);
    }
    return ALVK_OK;
}

alvk_status aip_allocation_read_samples(aip_allocation_state *a, uint32_t first, void *out,
                                        size_t stride, uint32_t capacity, uint32_t *written)
{
    alvk_status status = readable(a);
    *written = 0;
    if (status != ALVK_OK)
        return status;
    uint32_t kept = aip_sample_store_count(&a->samples);
    for (uint32_t i = first; i < kept && *written < capacity; ++i) {
        const aip_raw_sample *raw = &a->samples.samples[i];
        alvk_sample s;
        memset(&s, 0, sizeof s);
        s.frame_count = raw->frame_count;
        s.class_id = raw->class_id;
        s.weight_bytes = raw->weight_bytes;
        s.object_size = raw->object_size;
        for (uint32_t k = 0; k < raw->frame_count && k < ALVK_MAX_SAMPLE_FRAMES; ++k) {
            const aip_raw_frame *r = &raw->frames[k];
            alvk_frame *f = &s.frames[k];
            f->function_id = r->function_id;
            f->ip = r->ip;
            f->method_token = r->token;
            f->il_offset = r->il_offset;
            if (r->module_id != 0)
                a->port.module_mvid(a->port.context, r->module_id, &f->module_mvid);
        }
        put_element(out, stride, (*written)++, &s, sizeof s);
    }
    return ALVK_OK;
}
