/* Carriers: a nested type and its one method per distinct body, defined through
 * IMetaDataEmit2 and given the body with SetILFunctionBody. */
#include "emit/carrier.h"

#include "coreclr/cor_guids.h"
#include "coreclr/cor_metadata.h"
#include "coreclr/corprof_control.h"
#include "coreclr/corprof_info.h"
#include "emit/carrier_ref.h"
#include "emit/module_metadata.h"
#include "il/dispatch.h"
#include "il/il_walk.h"
#include "il/method_body.h"
#include "metadata/signature.h"

#include <stdlib.h>
#include <string.h>

/* The token cache's kind for carriers: outside alvk_relocation_kind's values. */
#define AIP_CARRIER_TOKEN_KIND 0x43415252u

/* Abstract and sealed; nested assembly, or public in a publicly visible declaring type, so a
 * caller in another module may call it too (emit/carrier_ref.h). */
#define CARRIER_TYPE_FLAGS (0x80u /* tdAbstract */ | 0x100u /* tdSealed */)
#define CARRIER_METHOD_FLAGS (mdStatic | mdHideBySig)
#define CARRIER_IMPL_FLAGS 0x0100u /* miIL | miAggressiveInlining */

static const WCHAR k_carry[] = {'C', 'a', 'r', 'r', 'y', 0};
static const WCHAR k_object[] = {'S', 'y', 's', 't', 'e', 'm', '.',
                                 'O', 'b', 'j', 'e', 'c', 't', 0};
static const WCHAR k_value_type[] = {'S', 'y', 's', 't', 'e', 'm', '.', 'V', 'a',
                                     'l', 'u', 'e', 'T', 'y', 'p', 'e', 0};

typedef struct carrier_session {
    IMetaDataEmit2 *emit;
    IMetaDataImport2 *import;
} carrier_session;

static int has_generic_params(IMetaDataImport2 *im, mdToken owner)
{
    HCORENUM e = NULL;
    mdGenericParam param = 0;
    ULONG n = 0;
    HRESULT hr = im->lpVtbl->EnumGenericParams(im, &e, owner, &param, 1, &n);
    im->lpVtbl->CloseEnum(im, e);
    return SUCCEEDED(hr) && n > 0;
}

/* 1 generic, 0 not, -1 unreadable; *klass and the signature when not NULL. */
static int method_generic(IMetaDataImport2 *im, uint32_t method, mdTypeDef *klass, DWORD *attr,
                          PCCOR_SIGNATURE *sig, ULONG *sig_size)
{
    mdTypeDef owner = 0;
    DWORD flags = 0;
    PCCOR_SIGNATURE blob = NULL;
    ULONG size = 0, rva = 0;
    DWORD impl = 0;
    if (FAILED(im->lpVtbl->GetMethodProps(im, method, &owner, NULL, 0, NULL, &flags, &blob, &size,
                                          &rva, &impl)) ||
        size == 0)
        return -1;
    if (klass != NULL) {
        *klass = owner;
        *attr = flags;
        *sig = blob;
        *sig_size = size;
    }
    if ((blob[0] & IMAGE_CEE_CS_CALLCONV_GENERIC) != 0)
        return 1;
    /* A type nested in a generic type repeats its encloser's parameters (ECMA-335 II.10.7). */
    for (mdTypeDef t = owner; t != 0;) {
        if (has_generic_params(im, t))
            return 1;
        mdTypeDef encloser = 0;
        if (FAILED(im->lpVtbl->GetNestedClassProps(im, t, &encloser)))
            break;
        t = encloser;
    }
    return 0;
}

int aip_carrier_method_generic(aip_emitter *e, ModuleID module, uint32_t method)
{
    IUnknown *unknown = NULL;
    if (FAILED(e->info->lpVtbl->GetModuleMetaData(e->info, module, ofRead, &IID_IMetaDataImport2,
                                                  &unknown)))
        return -1;
    IMetaDataImport2 *im = (IMetaDataImport2 *)unknown;
    int generic = method_generic(im, method, NULL, NULL, NULL, NULL);
    im->lpVtbl->Release(im);
    return generic;
}

int aip_carrier_method_impl(aip_emitter *e, ModuleID module, uint32_t method, uint32_t *impl)
{
    IUnknown *unknown = NULL;
    if (FAILED(e->info->lpVtbl->GetModuleMetaData(e->info, module, ofRead, &IID_IMetaDataImport2,
                                                  &unknown)))
        return -1;
    IMetaDataImport2 *im = (IMetaDataImport2 *)unknown;
    mdTypeDef owner = 0;
    DWORD flags = 0, bits = 0;
    ULONG rva = 0;
    HRESULT hr = im->lpVtbl->GetMethodProps(im, method, &owner, NULL, 0, NULL, &flags, NULL, NULL,
                                            &rva, &bits);
    im->lpVtbl->Release(im);
    if (FAILED(hr))
        return -1;
    *impl = bits;
    return 0;
}

/* 1 when type is a TypeRef named `expected` (terminated, `units` with the 0). */
static int is_type_ref_named(IMetaDataImport2 *im, mdToken type, const WCHAR *expected, ULONG units)
{
    WCHAR name[32];
    ULONG length = 0;
    mdToken scope = 0;
    if ((type & 0xFF000000u) != mdtTypeRef ||
        FAILED(im->lpVtbl->GetTypeRefProps(im, type, &scope, name, 32, &length)))
        return 0;
    return length == units && memcmp(name, expected, units * sizeof(WCHAR)) == 0;
}

static int is_object(IMetaDataImport2 *im, mdToken type)
{
    return is_type_ref_named(im, type, k_object, sizeof k_object / sizeof k_object[0]);
}

/* The receiver an instance method of klass takes: `ref klass` for a struct (its base is the
 * module's System.ValueType reference), `klass` for a class; NONE when klass's base is a
 * TypeDef of this module or cannot be read (a struct of the core library itself). */
static aip_receiver_kind receiver_of(IMetaDataImport2 *im, mdTypeDef klass)
{
    DWORD flags = 0;
    mdToken base = 0;
    if (FAILED(im->lpVtbl->GetTypeDefProps(im, klass, NULL, 0, NULL, &flags, &base)))
        return AIP_RECEIVER_NONE;
    if (is_type_ref_named(im, base, k_value_type, sizeof k_value_type / sizeof k_value_type[0]))
        return AIP_RECEIVER_VALUE_TYPE;
    return (base & 0xFF000000u) == mdtTypeDef ? AIP_RECEIVER_NONE : AIP_RECEIVER_CLASS;
}

/* The module's TypeRef of System.Object: the declaring type's base when it is that, else the
 * first TypeRef of that name; 0 when there is none. */
static mdToken object_ref(IMetaDataImport2 *im, mdTypeDef klass)
{
    DWORD flags = 0;
    mdToken base = 0;
    if (SUCCEEDED(im->lpVtbl->GetTypeDefProps(im, klass, NULL, 0, NULL, &flags, &base)) &&
        is_object(im, base))
        return base;
    HCORENUM e = NULL;
    mdTypeRef refs[64];
    ULONG n = 0;
    mdToken found = 0;
    while (found == 0 && SUCCEEDED(im->lpVtbl->EnumTypeRefs(im, &e, refs, 64, &n)) && n > 0)
        for (ULONG i = 0; i < n && found == 0; ++i)
            if (is_object(im, refs[i]))
                found = refs[i];
    im->lpVtbl->CloseEnum(im, e);
    return found;
}

/* `AlvkCarrier_` and 16 hex digits of the body's digest. */
static void carrier_name(const uint8_t digest[32], WCHAR name[29])
{
    static const char prefix[] = "AlvkCarrier_";
    static const char hex[] = "0123456789abcdef";
    size_t at = 0;
    for (; prefix[at] != 0; ++at)
        name[at] = (WCHAR)prefix[at];
    for (int i = 0; i < 8; ++i) {
        name[at++] = (WCHAR)hex[digest[i] >> 4];
        name[at++] = (WCHAR)hex[digest[i] & 15];
    }
    name[at] = 0;
}

/* The body given to the new method: a copy in the module's IL allocator's memory. */
static HRESULT set_body(ICorProfilerInfo15 *info, ModuleID module, mdMethodDef method,
                        const uint8_t *body, uint32_t size)
{
    IMethodMalloc *allocator = NULL;
    HRESULT hr = info->lpVtbl->GetILFunctionBodyAllocator(info, module, &allocator);
    if (FAILED(hr))
        return hr;
    void *copy = allocator->lpVtbl->Alloc(allocator, size);
    allocator->lpVtbl->Release(allocator);
    if (copy == NULL)
        return E_OUTOFMEMORY;
    memcpy(copy, body, size);
    return info->lpVtbl->SetILFunctionBody(info, module, method, copy);
}

static aip_carrier_outcome define(aip_emitter *e, carrier_session *s, ModuleID module,
                                  mdTypeDef klass, PCCOR_SIGNATURE sig, ULONG sig_size,
                                  const uint8_t digest[32], const uint8_t *body, uint32_t size,
                                  uint32_t *carrier, int *defined, HRESULT *hr)
{
    WCHAR name[29];
    carrier_name(digest, name);
    mdTypeDef type = 0;
    mdMethodDef method = 0;
    IMetaDataImport2 *im = s->import;
    /* Defined in this module before, its cache entry dropped: the same name, the same body. */
    if (SUCCEEDED(im->lpVtbl->FindTypeDefByName(im, name, klass, &type)) &&
        SUCCEEDED(im->lpVtbl->FindMethod(im, type, k_carry, sig, sig_size, &method))) {
        *carrier = method;
        return AIP_CARRIER_DEFINED;
    }
    mdToken base = object_ref(im, klass);
    if (base == 0) {
        *hr = E_FAIL;
        return AIP_CARRIER_FAILED;
    }
    int visible = aip_carrier_ref_visible(im, klass);
    *hr = s->emit->lpVtbl->DefineNestedType(
        s->emit, name, CARRIER_TYPE_FLAGS | (visible ? tdNestedPublic : tdNestedAssembly), base,
        NULL, klass, &type);
    if (SUCCEEDED(*hr))
        *hr = s->emit->lpVtbl->DefineMethod(s->emit, type, k_carry,
                                            CARRIER_METHOD_FLAGS | (visible ? mdPublic : mdAssem),
                                            sig, sig_size, 0, CARRIER_IMPL_FLAGS, &method);
    if (SUCCEEDED(*hr))
        *hr = set_body(e->info, module, method, body, size);
    if (SUCCEEDED(*hr))
        *hr = e->info->lpVtbl->ApplyMetaData(e->info, module);
    if (FAILED(*hr))
        return AIP_CARRIER_FAILED;
    atomic_fetch_add_explicit(&e->tokens_emitted, 2, memory_order_relaxed);
    *carrier = method;
    *defined = 1;
    return AIP_CARRIER_DEFINED;
}

/* An instance target's carrier is static: the receiver becomes its first parameter, as the
 * dispatch's calli signature passes it (CLASS klass, or BYREF VALUETYPE klass), so each
 * argument keeps its index and the body its meaning. A class's carrier starts with the check
 * its callers' `callvirt` made (`ldarg.0; brtrue.s +2; ldnull; throw`: a NullReferenceException
 * before anything of the body runs); a struct's receiver is a managed pointer, never null. */
typedef struct instance_carrier {
    uint8_t sig[AIP_DISPATCH_MAX_SIG_BYTES];
    size_t sig_size;
    uint8_t *body; /* malloc'd */
    uint32_t body_size;
} instance_carrier;

static const uint8_t k_null_check[] = {AIP_CEE_LDARG_0, AIP_CEE_BRTRUE_S, 2, AIP_CEE_LDNULL,
                                       AIP_CEE_THROW};

/* DEFINED when *out holds the carrier's signature and body; HANDLERS; FAILED (a signature or
 * body that does not parse, or no memory). */
static aip_carrier_outcome instance_carrier_make(aip_receiver_kind receiver, mdTypeDef klass,
                                                 PCCOR_SIGNATURE sig, ULONG sig_size,
                                                 const uint8_t *body, uint32_t size,
                                                 instance_carrier *out)
{
    aip_method_sig parsed;
    alvk_status status = aip_sig_parse_method(sig, sig_size, 0, &parsed);
    aip_dispatch_target dt = {sig, sig_size, &parsed, receiver, klass};
    if (status == ALVK_OK)
        status = aip_dispatch_build_calli_signature(&dt, out->sig, sizeof out->sig, &out->sig_size);
    aip_method_body b;
    if (status == ALVK_OK)
        status = aip_method_body_parse(body, size, &b, NULL, 0);
    if (status != ALVK_OK)
        return AIP_CARRIER_FAILED;
    if (b.eh_clause_count > 0) /* the prologue would move every clause */
        return AIP_CARRIER_HANDLERS;
    uint32_t prologue = receiver == AIP_RECEIVER_CLASS ? (uint32_t)sizeof k_null_check : 0;
    out->body_size = AIP_FAT_HEADER_BYTES + prologue + b.code_size;
    out->body = malloc(out->body_size);
    if (out->body == NULL)
        return AIP_CARRIER_FAILED;
    aip_method_body_write_fat_header(out->body, b.max_stack > 0 ? b.max_stack : 1,
                                     prologue + b.code_size, b.local_var_sig_token, b.init_locals);
    memcpy(out->body + AIP_FAT_HEADER_BYTES, k_null_check, prologue);
    memcpy(out->body + AIP_FAT_HEADER_BYTES + prologue, body + b.code_offset, b.code_size);
    return AIP_CARRIER_DEFINED;
}

aip_carrier_outcome aip_carrier_decide(int generic, uint32_t attr, aip_receiver_kind receiver)
{
    /* A final virtual's slot cannot be overridden: a call or callvirt of its own token reaches
     * it alone, as a non-virtual instance method's does. */
    uint32_t virtual_bits = attr & (mdVirtual | mdFinal | mdAbstract);
    int overridable = (attr & mdVirtual) != 0 && virtual_bits != (mdVirtual | mdFinal);
    if (generic < 0)
        return AIP_CARRIER_FAILED;
    if (generic > 0)
        return AIP_CARRIER_GENERIC;
    if (overridable)
        return AIP_CARRIER_VIRTUAL;
    return (attr & mdStatic) != 0 || receiver != AIP_RECEIVER_NONE ? AIP_CARRIER_DEFINED
                                                                   : AIP_CARRIER_FAILED;
}

aip_carrier_outcome aip_carrier_for(aip_emitter *e, ModuleID module, uint32_t target,
                                    const uint8_t *body, uint32_t size, uint32_t *carrier,
                                    int *defined, HRESULT *hr)
{
    static const uint8_t k_name[] = "carrier";
    *hr = S_OK;
    *defined = 0;
    aip_token_key key = aip_token_key_make(module, AIP_CARRIER_TOKEN_KIND, target, k_name,
                                           sizeof k_name - 1, body, size);
    if (aip_token_cache_find(&e->tokens, &key, carrier)) {
        atomic_fetch_add_explicit(&e->tokens_reused, 1, memory_order_relaxed);
        return AIP_CARRIER_DEFINED;
    }
    carrier_session s;
    *hr = aip_module_metadata_open(e->info, module, &s.emit, &s.import);
    if (FAILED(*hr) || s.import == NULL) {
        aip_module_metadata_release(s.emit, s.import);
        return AIP_CARRIER_FAILED;
    }
    mdTypeDef klass = 0;
    DWORD attr = 0;
    PCCOR_SIGNATURE sig = NULL;
    ULONG sig_size = 0;
    int generic = method_generic(s.import, target, &klass, &attr, &sig, &sig_size);
    aip_receiver_kind receiver =
        generic == 0 && (attr & mdStatic) == 0 ? receiver_of(s.import, klass) : AIP_RECEIVER_NONE;
    aip_carrier_outcome outcome = aip_carrier_decide(generic, attr, receiver);
    if (outcome == AIP_CARRIER_DEFINED && (attr & mdStatic) != 0) {
        outcome = define(e, &s, module, klass, sig, sig_size, key.digest, body, size, carrier,
                         defined, hr);
    } else if (outcome == AIP_CARRIER_DEFINED) {
        instance_carrier c = {.body = NULL};
        outcome = instance_carrier_make(receiver, klass, sig, sig_size, body, size, &c);
        if (outcome == AIP_CARRIER_DEFINED)
            outcome = define(e, &s, module, klass, c.sig, (ULONG)c.sig_size, key.digest, c.body,
                             c.body_size, carrier, defined, hr);
        free(c.body);
    }
    aip_module_metadata_release(s.emit, s.import);
    if (outcome == AIP_CARRIER_DEFINED)
        aip_token_cache_put(&e->tokens, &key, *carrier);
    return outcome;
}
