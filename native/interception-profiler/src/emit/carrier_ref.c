/* A carrier named from another module: B's TypeRef and MemberRef of it, and B's MemberRef of
 * the target. */
#include "emit/carrier_ref.h"

#include "coreclr/cor_guids.h"
#include "coreclr/cor_metadata.h"
#include "coreclr/cor_metadata_assembly.h"
#include "emit/assembly_identity.h"
#include "emit/module_metadata.h"
#include "metadata/signature.h"
#include "metadata/signature_codec.h"
#include "metadata/signature_portable.h"

#include <string.h>

/* The token cache's kinds: outside alvk_relocation_kind's values and the carriers'. */
#define AIP_TARGET_REF_TOKEN_KIND 0x58524546u  /* B's MemberRef of a target of A */
#define AIP_CARRIER_REF_TOKEN_KIND 0x43524546u /* B's MemberRef of a carrier of A */

#define NAME_UNITS 512
#define SIG_BYTES 1024

static const WCHAR k_carry[] = {'C', 'a', 'r', 'r', 'y', 0};

/* What is read of A. */
typedef struct target_facts {
    WCHAR name[NAME_UNITS];
    ULONG name_units; /* with the 0 */
    mdTypeDef klass;
    uint8_t sig[SIG_BYTES];
    ULONG sig_size;
    aip_assembly_identity assembly;
    ULONG assembly_units; /* with the 0 */
    int instance;         /* not static: its carrier takes the receiver first */
} target_facts;

typedef struct ref_session {
    IMetaDataImport2 *a;
    IMetaDataEmit2 *b_emit;
    IMetaDataImport2 *b;
    IMetaDataAssemblyImport *b_assembly;
} ref_session;

static int same(const WCHAR *x, ULONG x_units, const WCHAR *y, ULONG y_units)
{
    return x_units == y_units && memcmp(x, y, x_units * sizeof(WCHAR)) == 0;
}

static ULONG units_of(const WCHAR *s)
{
    ULONG n = 0;
    while (s[n] != 0)
        n++;
    return n + 1;
}

int aip_carrier_ref_visible(IMetaDataImport2 *im, mdTypeDef klass)
{
    for (int depth = 0; depth < 64; ++depth) {
        DWORD flags = 0;
        mdToken base = 0;
        if (FAILED(im->lpVtbl->GetTypeDefProps(im, klass, NULL, 0, NULL, &flags, &base)))
            return 0;
        mdTypeDef encloser = 0;
        int nested =
            SUCCEEDED(im->lpVtbl->GetNestedClassProps(im, klass, &encloser)) && encloser != 0;
        if ((flags & tdVisibilityMask) != (nested ? tdNestedPublic : tdPublic))
            return 0;
        if (!nested)
            return 1;
        klass = encloser;
    }
    return 0;
}

static aip_carrier_ref_outcome read_target(IMetaDataImport2 *a, uint32_t target, target_facts *t)
{
    DWORD attr = 0, impl = 0;
    ULONG rva = 0;
    PCCOR_SIGNATURE sig = NULL;
    if (FAILED(a->lpVtbl->GetMethodProps(a, target, &t->klass, t->name, NAME_UNITS, &t->name_units,
                                         &attr, &sig, &t->sig_size, &rva, &impl)) ||
        t->sig_size > SIG_BYTES)
        return AIP_CARRIER_REF_FAILED;
    memcpy(t->sig, sig, t->sig_size);
    t->instance = (attr & mdStatic) == 0;
    if (!aip_carrier_ref_visible(a, t->klass))
        return AIP_CARRIER_REF_NOT_PUBLIC;
    if (!aip_sig_portable_method(t->sig, t->sig_size))
        return AIP_CARRIER_REF_SIGNATURE;
    HRESULT hr = S_OK;
    if (aip_assembly_identity_read(a, &t->assembly, &hr) != ALVK_OK)
        return AIP_CARRIER_REF_FAILED;
    t->assembly_units = units_of(t->assembly.name);
    return AIP_CARRIER_REF_OK;
}

/* 1 when B's resolution scope `scope` is an AssemblyRef named as A's assembly. */
static int scope_is_assembly(ref_session *s, mdToken scope, const target_facts *t)
{
    if ((scope & 0xFF000000u) != mdtAssemblyRef)
        return 0;
    WCHAR name[AIP_ASSEMBLY_NAME_UNITS];
    ULONG units = 0;
    ASSEMBLYMETADATA md;
    memset(&md, 0, sizeof md);
    IMetaDataAssemblyImport *ai = s->b_assembly;
    return SUCCEEDED(ai->lpVtbl->GetAssemblyRefProps(ai, scope, NULL, NULL, name,
                                                     AIP_ASSEMBLY_NAME_UNITS, &units, &md, NULL,
                                                     NULL, NULL)) &&
           same(name, units, t->assembly.name, t->assembly_units);
}

/* 1 when B's TypeRef `ref` names A's TypeDef `klass`: the same name, and the scope an
 * AssemblyRef of A (top level) or a TypeRef naming klass's encloser (nested). */
static int names_type(ref_session *s, mdTypeRef ref, mdTypeDef klass, const target_facts *t,
                      int depth)
{
    WCHAR ref_name[NAME_UNITS], def_name[NAME_UNITS];
    ULONG ref_units = 0, def_units = 0;
    mdToken scope = 0, base = 0;
    DWORD flags = 0;
    mdTypeDef encloser = 0;
    if (depth > 16 || (ref & 0xFF000000u) != mdtTypeRef ||
        FAILED(
            s->b->lpVtbl->GetTypeRefProps(s->b, ref, &scope, ref_name, NAME_UNITS, &ref_units)) ||
        FAILED(s->a->lpVtbl->GetTypeDefProps(s->a, klass, def_name, NAME_UNITS, &def_units, &flags,
                                             &base)) ||
        !same(ref_name, ref_units, def_name, def_units))
        return 0;
    if (SUCCEEDED(s->a->lpVtbl->GetNestedClassProps(s->a, klass, &encloser)) && encloser != 0)
        return names_type(s, scope, encloser, t, depth + 1);
    return scope_is_assembly(s, scope, t);
}

/* B's MemberRef of the target: a MemberRef under a TypeRef naming its declaring type, with its
 * name and signature bytes. */
static mdMemberRef find_target_ref(ref_session *s, const target_facts *t, mdTypeRef *klass_ref)
{
    HCORENUM types = NULL;
    mdTypeRef refs[64];
    ULONG n = 0;
    mdMemberRef found = 0;
    while (found == 0 && SUCCEEDED(s->b->lpVtbl->EnumTypeRefs(s->b, &types, refs, 64, &n)) && n > 0)
        for (ULONG i = 0; i < n && found == 0; ++i) {
            if (!names_type(s, refs[i], t->klass, t, 0))
                continue;
            HCORENUM members = NULL;
            mdMemberRef mrefs[64];
            ULONG m = 0;
            while (
                found == 0 &&
                SUCCEEDED(s->b->lpVtbl->EnumMemberRefs(s->b, &members, refs[i], mrefs, 64, &m)) &&
                m > 0)
                for (ULONG k = 0; k < m && found == 0; ++k) {
                    WCHAR name[NAME_UNITS];
                    ULONG units = 0, size = 0;
                    mdToken parent = 0;
                    PCCOR_SIGNATURE sig = NULL;
                    if (SUCCEEDED(s->b->lpVtbl->GetMemberRefProps(
                            s->b, mrefs[k], &parent, name, NAME_UNITS, &units, &sig, &size)) &&
                        same(name, units, t->name, t->name_units) && size == t->sig_size &&
                        memcmp(sig, t->sig, size) == 0) {
                        found = mrefs[k];
                        *klass_ref = refs[i];
                    }
                }
            s->b->lpVtbl->CloseEnum(s->b, members);
        }
    s->b->lpVtbl->CloseEnum(s->b, types);
    return found;
}

/* The carrier's signature in B's tokens: A's as it is (it names no type), or with its first
 * parameter, the receiver of an instance target's carrier (CLASS or BYREF VALUETYPE of the
 * declaring type), naming B's TypeRef instead. */
static int carrier_sig_in_b(const uint8_t *sig, ULONG size, int instance, mdTypeRef klass_ref,
                            uint8_t *out, ULONG *out_size)
{
    if (!instance) {
        memcpy(out, sig, size);
        *out_size = size;
        return 0;
    }
    aip_method_sig parsed;
    if (aip_sig_parse_method(sig, size, 0, &parsed) != ALVK_OK || parsed.param_count == 0)
        return -1;
    const aip_sig_type *receiver = &parsed.params[0];
    size_t at = receiver->offset;
    if (at + 8 > SIG_BYTES)
        return -1;
    memcpy(out, sig, at);
    if (receiver->is_byref)
        out[at++] = ELEMENT_TYPE_BYREF;
    out[at++] = receiver->element_type;
    size_t written = aip_sig_write_type_token(klass_ref, out + at, SIG_BYTES - at);
    size_t rest = size - (receiver->offset + receiver->length);
    if (written == 0 || at + written + rest > SIG_BYTES)
        return -1;
    at += written;
    memcpy(out + at, sig + receiver->offset + receiver->length, rest);
    *out_size = (ULONG)(at + rest);
    return 0;
}

static aip_token_key key_of(ModuleID caller_module, uint32_t kind, ModuleID module, uint32_t token)
{
    uint8_t blob[sizeof(ModuleID)];
    memcpy(blob, &module, sizeof module);
    return aip_token_key_make(caller_module, kind, token, (const uint8_t *)"ref", 3, blob,
                              sizeof blob);
}

static aip_carrier_ref_outcome open_session(aip_emitter *e, ModuleID module, ModuleID caller_module,
                                            ref_session *s)
{
    IUnknown *unknown = NULL;
    memset(s, 0, sizeof *s);
    if (FAILED(e->info->lpVtbl->GetModuleMetaData(e->info, module, ofRead, &IID_IMetaDataImport2,
                                                  &unknown)))
        return AIP_CARRIER_REF_FAILED;
    s->a = (IMetaDataImport2 *)unknown;
    void *queried = NULL;
    if (FAILED(aip_module_metadata_open(e->info, caller_module, &s->b_emit, &s->b)) ||
        s->b == NULL ||
        FAILED(s->b->lpVtbl->QueryInterface(s->b, &IID_IMetaDataAssemblyImport, &queried)))
        return AIP_CARRIER_REF_FAILED;
    s->b_assembly = queried;
    return AIP_CARRIER_REF_OK;
}

static void close_session(ref_session *s)
{
    if (s->b_assembly != NULL)
        s->b_assembly->lpVtbl->Release(s->b_assembly);
    aip_module_metadata_release(s->b_emit, s->b);
    if (s->a != NULL)
        s->a->lpVtbl->Release(s->a);
}

/* B's TypeRef and MemberRef of the carrier, defined (or found again) and applied. */
static aip_carrier_ref_outcome define_carrier_ref(aip_emitter *e, ref_session *s,
                                                  ModuleID caller_module, uint32_t carrier,
                                                  int instance, mdTypeRef klass_ref,
                                                  uint32_t *carrier_ref)
{
    WCHAR type_name[NAME_UNITS];
    ULONG units = 0, sig_size = 0, rva = 0, b_size = 0;
    mdTypeDef carrier_type = 0;
    DWORD attr = 0, impl = 0, flags = 0;
    mdToken base = 0;
    PCCOR_SIGNATURE sig = NULL;
    uint8_t b_sig[SIG_BYTES];
    if (FAILED(s->a->lpVtbl->GetMethodProps(s->a, carrier, &carrier_type, NULL, 0, NULL, &attr,
                                            &sig, &sig_size, &rva, &impl)) ||
        FAILED(s->a->lpVtbl->GetTypeDefProps(s->a, carrier_type, type_name, NAME_UNITS, &units,
                                             &flags, &base)) ||
        sig_size > SIG_BYTES)
        return AIP_CARRIER_REF_FAILED;
    mdTypeRef type_ref = 0;
    mdMemberRef ref = 0;
    if (carrier_sig_in_b(sig, sig_size, instance, klass_ref, b_sig, &b_size) != 0 ||
        FAILED(
            s->b_emit->lpVtbl->DefineTypeRefByName(s->b_emit, klass_ref, type_name, &type_ref)) ||
        FAILED(s->b_emit->lpVtbl->DefineMemberRef(s->b_emit, type_ref, k_carry, b_sig, b_size,
                                                  &ref)) ||
        FAILED(e->info->lpVtbl->ApplyMetaData(e->info, caller_module)))
        return AIP_CARRIER_REF_FAILED;
    atomic_fetch_add_explicit(&e->tokens_emitted, 2, memory_order_relaxed);
    *carrier_ref = ref;
    return AIP_CARRIER_REF_OK;
}

static aip_carrier_ref_outcome resolve(aip_emitter *e, ModuleID module, uint32_t target,
                                       uint32_t carrier, ModuleID caller_module,
                                       uint32_t *target_ref, uint32_t *carrier_ref)
{
    aip_token_key target_key = key_of(caller_module, AIP_TARGET_REF_TOKEN_KIND, module, target);
    aip_token_key carrier_key = key_of(caller_module, AIP_CARRIER_REF_TOKEN_KIND, module, carrier);
    int have_target = aip_token_cache_find(&e->tokens, &target_key, target_ref);
    int have_carrier = carrier == 0 || aip_token_cache_find(&e->tokens, &carrier_key, carrier_ref);
    if (have_target && have_carrier) {
        atomic_fetch_add_explicit(&e->tokens_reused, 1, memory_order_relaxed);
        return AIP_CARRIER_REF_OK;
    }
    static _Thread_local target_facts t;
    ref_session s;
    aip_carrier_ref_outcome outcome = open_session(e, module, caller_module, &s);
    if (outcome == AIP_CARRIER_REF_OK)
        outcome = read_target(s.a, target, &t);
    mdTypeRef klass_ref = 0;
    if (outcome == AIP_CARRIER_REF_OK) {
        *target_ref = find_target_ref(&s, &t, &klass_ref);
        outcome = *target_ref != 0 ? AIP_CARRIER_REF_OK : AIP_CARRIER_REF_NO_REFERENCE;
    }
    if (outcome == AIP_CARRIER_REF_OK)
        aip_token_cache_put(&e->tokens, &target_key, *target_ref);
    if (outcome == AIP_CARRIER_REF_OK && !have_carrier) {
        outcome =
            define_carrier_ref(e, &s, caller_module, carrier, t.instance, klass_ref, carrier_ref);
        if (outcome == AIP_CARRIER_REF_OK)
            aip_token_cache_put(&e->tokens, &carrier_key, *carrier_ref);
    }
    close_session(&s);
    return outcome;
}

aip_carrier_ref_outcome aip_carrier_ref_target(aip_emitter *e, ModuleID module, uint32_t target,
                                               ModuleID caller_module, uint32_t *target_ref)
{
    uint32_t unused = 0;
    return resolve(e, module, target, 0, caller_module, target_ref, &unused);
}

aip_carrier_ref_outcome aip_carrier_ref_for(aip_emitter *e, ModuleID module, uint32_t target,
                                            uint32_t carrier, ModuleID caller_module,
                                            uint32_t *target_ref, uint32_t *carrier_ref)
{
    if (carrier == 0)
        return AIP_CARRIER_REF_FAILED;
    return resolve(e, module, target, carrier, caller_module, target_ref, carrier_ref);
}
