/* Names for reports, resolved after a window: types (generic arguments and arrays included)
 * and methods, from the runtime's IDs and the modules' metadata. */
#include "allocation/allocation_resolve.h"

#include "coreclr/cor_guids.h"
#include "coreclr/cor_metadata.h"

#include <string.h>

typedef struct text {
    char *buf;
    size_t cap, len;
} text;

static void put(text *t, const char *s)
{
    for (; *s != '\0' && t->len + 1 < t->cap; ++s)
        t->buf[t->len++] = *s;
    t->buf[t->len] = '\0';
}

/* UTF-16 to UTF-8 (BMP and surrogate pairs), dropping the generic arity suffix "`N". */
static void put_wide(text *t, const WCHAR *w, ULONG n)
{
    for (ULONG i = 0; i < n && w[i] != 0; ++i) {
        uint32_t c = w[i];
        if (c == '`')
            break;
        if (c >= 0xD800 && c < 0xDC00 && i + 1 < n) {
            c = 0x10000 + ((c - 0xD800) << 10) + (w[i + 1] - 0xDC00);
            ++i;
        }
        char u[5] = {0};
        if (c < 0x80)
            u[0] = (char)c;
        else if (c < 0x800)
            u[0] = (char)(0xC0 | (c >> 6)), u[1] = (char)(0x80 | (c & 0x3F));
        else if (c < 0x10000)
            u[0] = (char)(0xE0 | (c >> 12)), u[1] = (char)(0x80 | ((c >> 6) & 0x3F)),
            u[2] = (char)(0x80 | (c & 0x3F));
        else
            u[0] = (char)(0xF0 | (c >> 18)), u[1] = (char)(0x80 | ((c >> 12) & 0x3F)),
            u[2] = (char)(0x80 | ((c >> 6) & 0x3F)), u[3] = (char)(0x80 | (c & 0x3F));
        put(t, u);
    }
}

static IMetaDataImport2 *import_of(ICorProfilerInfo15 *info, ModuleID module)
{
    IUnknown *unknown = NULL;
    if (FAILED(
            info->lpVtbl->GetModuleMetaData(info, module, ofRead, &IID_IMetaDataImport2, &unknown)))
        return NULL;
    return (IMetaDataImport2 *)unknown;
}

/* "Namespace.Outer+Inner" of a TypeDef. */
static void put_typedef(text *t, IMetaDataImport2 *import, mdTypeDef type, int depth)
{
    mdTypeDef enclosing = 0;
    if (depth < 8 && SUCCEEDED(import->lpVtbl->GetNestedClassProps(import, type, &enclosing)) &&
        enclosing != 0) {
        put_typedef(t, import, enclosing, depth + 1);
        put(t, "+");
    }
    WCHAR name[256];
    ULONG length = 0;
    DWORD flags = 0;
    mdToken extends = 0;
    if (SUCCEEDED(
            import->lpVtbl->GetTypeDefProps(import, type, name, 256, &length, &flags, &extends)))
        put_wide(t, name, length);
    else
        put(t, "?");
}

static void put_class(text *t, ICorProfilerInfo15 *info, ClassID cls, int depth)
{
    if (depth > 8) {
        put(t, "...");
        return;
    }
    CorElementType element = 0;
    ClassID element_class = 0;
    ULONG rank = 0;
    if (info->lpVtbl->IsArrayClass(info, cls, &element, &element_class, &rank) == S_OK) {
        put_class(t, info, element_class, depth + 1);
        put(t, "[");
        for (ULONG i = 1; i < rank; ++i)
            put(t, ",");
        put(t, "]");
        return;
    }
    ModuleID module = 0;
    mdTypeDef type = 0;
    ClassID parent = 0, args[16];
    ULONG32 count = 0;
    IMetaDataImport2 *import = NULL;
    if (FAILED(
            info->lpVtbl->GetClassIDInfo2(info, cls, &module, &type, &parent, 16, &count, args)) ||
        (import = import_of(info, module)) == NULL) {
        put(t, "?");
        return;
    }
    put_typedef(t, import, type, 0);
    import->lpVtbl->Release(import);
    for (ULONG32 i = 0; i < count && i < 16; ++i) {
        put(t, i == 0 ? "<" : ",");
        put_class(t, info, args[i], depth + 1);
    }
    if (count > 0)
        put(t, ">");
}

void aip_allocation_type_name(ICorProfilerInfo15 *info, ClassID cls, char *out, size_t cap)
{
    text t = {out, cap, 0};
    out[0] = '\0';
    put_class(&t, info, cls, 0);
}

alvk_status aip_allocation_method_name(ICorProfilerInfo15 *info, FunctionID function,
                                       ModuleID *module, uint32_t *token, char *out, size_t cap)
{
    ClassID cls = 0;
    mdToken method = 0;
    if (FAILED(info->lpVtbl->GetFunctionInfo2(info, function, 0, &cls, module, &method, 0, NULL,
                                              NULL)))
        return ALVK_E_UNKNOWN_FUNCTION;
    *token = method;
    text t = {out, cap, 0};
    out[0] = '\0';
    IMetaDataImport2 *import = import_of(info, *module);
    if (import == NULL)
        return ALVK_OK;
    mdTypeDef type = 0;
    WCHAR name[256];
    ULONG length = 0;
    DWORD attributes = 0, impl = 0;
    PCCOR_SIGNATURE sig = NULL;
    ULONG sig_length = 0, rva = 0;
    if (SUCCEEDED(import->lpVtbl->GetMethodProps(import, method, &type, name, 256, &length,
                                                 &attributes, &sig, &sig_length, &rva, &impl))) {
        put_typedef(&t, import, type, 0);
        put(&t, ".");
        put_wide(&t, name, length);
    }
    import->lpVtbl->Release(import);
    return ALVK_OK;
}

/* A FunctionID is trusted only if the last window recorded it: the runtime would follow any
 * other value as a pointer. */
static int recorded(const aip_allocation_state *a, uint64_t function_id)
{
    uint32_t kept = aip_sample_store_count(&a->samples);
    for (uint32_t i = 0; i < kept; ++i)
        for (uint32_t k = 0; k < a->samples.samples[i].frame_count; ++k)
            if (a->samples.samples[i].frames[k].function_id == function_id)
                return 1;
    return 0;
}

typedef struct describe_payload {
    aip_allocation_state *a;
    uint64_t function_id;
    ModuleID module;
    alvk_method_info info;
} describe_payload;
_Static_assert(sizeof(describe_payload) <= AIP_PORT_PAYLOAD_BYTES, "fits a queue slot");

static alvk_status run_describe(void *payload, void *context)
{
    (void)context;
    describe_payload *p = payload;
    return aip_allocation_method_name(p->a->info, p->function_id, &p->module, &p->info.method_token,
                                      p->info.name, sizeof p->info.name);
}

alvk_status aip_allocation_describe_function(aip_allocation_state *a, uint64_t function_id,
                                             alvk_method_info *out)
{
    if (a == NULL || !a->enabled)
        return ALVK_E_ALLOCATION_PROFILING_OFF;
    if (!atomic_load_explicit(&a->has_result, memory_order_acquire))
        return ALVK_E_NO_CAPTURE;
    if (function_id == 0 || !recorded(a, function_id))
        return ALVK_E_UNKNOWN_FUNCTION;
    describe_payload p;
    memset(&p, 0, sizeof p);
    p.a = a;
    p.function_id = function_id;
    uint32_t slot = 0;
    alvk_status status = a->port.reserve_worker(a->port.context, &slot);
    if (status == ALVK_OK)
        status = a->port.run_reserved(a->port.context, slot, run_describe, &p, sizeof p);
    if (status != ALVK_OK)
        return status;
    out->method_token = p.info.method_token;
    memcpy(out->name, p.info.name, sizeof out->name);
    memset(&out->module_mvid, 0, sizeof out->module_mvid);
    a->port.module_mvid(a->port.context, p.module, &out->module_mvid);
    return ALVK_OK;
}
