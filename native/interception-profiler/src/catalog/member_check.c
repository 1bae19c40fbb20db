/* The member check: a generation's MemberRefs looked up as the runtime binds them, so a
 * member that does not exist is refused before anything is published. */
#include "catalog/member_check.h"

#include "coreclr/cor_guids.h"
#include "coreclr/cor_metadata.h"
#include "metadata/signature.h"
#include "metadata/signature_blobs.h"
#include "metadata/signature_compare.h"

#include <string.h>

/* ---------------------------------------------------------------- signatures (pure) */

static aip_member_match match_of(aip_sig_relation r)
{
    return r == AIP_SIG_DIFFERENT ? AIP_MEMBER_DIFFERENT : AIP_MEMBER_MAYBE;
}

aip_member_match aip_member_sig_compare(const uint8_t *ref, size_t ref_length, const uint8_t *def,
                                        size_t def_length, int same_scope)
{
    if (ref == NULL || def == NULL || ref_length == 0 || def_length == 0)
        return AIP_MEMBER_MAYBE;
    int ref_field = ref[0] == IMAGE_CEE_CS_CALLCONV_FIELD,
        def_field = def[0] == IMAGE_CEE_CS_CALLCONV_FIELD;
    if (ref_field != def_field)
        return AIP_MEMBER_DIFFERENT;
    if (same_scope && ref_length == def_length && memcmp(ref, def, ref_length) == 0)
        return AIP_MEMBER_MATCHES;
    if (ref_field) {
        aip_sig_type ta, tb;
        if (!same_scope || aip_sig_parse_field(ref, ref_length, &ta) != ALVK_OK ||
            aip_sig_parse_field(def, def_length, &tb) != ALVK_OK)
            return AIP_MEMBER_MAYBE;
        size_t a = 1, b = 1;
        return match_of(
            aip_sig_compare_type(ref, ref_length, &a, def, def_length, &b, AIP_SIG_ONE_MODULE));
    }
    aip_method_sig sa, sb; /* 6 KiB: no recursion holds them */
    if (aip_sig_parse_method(ref, ref_length, 0, &sa) != ALVK_OK ||
        aip_sig_parse_method(def, def_length, 0, &sb) != ALVK_OK)
        return AIP_MEMBER_MAYBE;
    if ((sa.calling_convention & IMAGE_CEE_CS_CALLCONV_MASK) == IMAGE_CEE_CS_CALLCONV_VARARG)
        return AIP_MEMBER_MAYBE; /* its parameter list includes the call site's extras */
    if (sa.param_count != sb.param_count)
        return AIP_MEMBER_DIFFERENT;
    if (!same_scope)
        return AIP_MEMBER_MAYBE;
    if (sa.calling_convention != sb.calling_convention)
        return ((sa.calling_convention ^ sb.calling_convention) &
                ~IMAGE_CEE_CS_CALLCONV_EXPLICITTHIS) == 0
                   ? AIP_MEMBER_MAYBE
                   : AIP_MEMBER_DIFFERENT;
    if (sa.generic_param_count != sb.generic_param_count)
        return AIP_MEMBER_DIFFERENT;
    /* Equal bytes were MATCHES above; whatever else is not DIFFERENT is only possibly equal. */
    return match_of(aip_sig_compare_method_types(ref, ref_length, &sa, def, def_length, &sb,
                                                 AIP_SIG_ONE_MODULE));
}

/* ------------------------------------------------------------- resolution (runtime) */

#define AIP_CHECK_MAX_SCOPES 16
#define AIP_CHECK_MAX_DEPTH 64    /* base types, nesting and forwarders followed, in all */
#define AIP_CHECK_NAME_UNITS 1024 /* member names, as metadata_emit.c bounds them */
#define AIP_TYPE_NAME_UNITS 512   /* type names (longer ones: unknown) */

typedef struct check_scope {
    ModuleID module;
    IMetaDataImport2 *import;
    IMetaDataAssemblyImport *assembly; /* opened on first use */
} check_scope;

typedef struct check_session {
    ICorProfilerInfo15 *info;
    aip_module_catalog *catalog;
    ModuleID target;
    uint32_t scope_count;
    check_scope scopes[AIP_CHECK_MAX_SCOPES];
    int steps;                               /* what is left of AIP_CHECK_MAX_DEPTH */
    WCHAR member_name[AIP_CHECK_NAME_UNITS]; /* the MemberRef being checked */
} check_session;

/* A type found: its module and TypeDef. */
typedef struct resolved_type {
    check_scope *scope;
    uint32_t type_def;
} resolved_type;

static check_scope *scope_of(check_session *s, ModuleID module)
{
    for (uint32_t i = 0; i < s->scope_count; ++i)
        if (s->scopes[i].module == module)
            return &s->scopes[i];
    if (s->scope_count == AIP_CHECK_MAX_SCOPES)
        return NULL;
    /* The target is opened for writing, as emission opened it, so the import sees the
     * tokens just emitted; every other module is only read. */
    DWORD flags = module == s->target ? (DWORD)(ofRead | ofWrite) : (DWORD)ofRead;
    IUnknown *unknown = NULL;
    HRESULT hr =
        s->info->lpVtbl->GetModuleMetaData(s->info, module, flags, &IID_IMetaDataImport2, &unknown);
    if (FAILED(hr) || unknown == NULL)
        return NULL;
    check_scope *c = &s->scopes[s->scope_count++];
    c->module = module;
    c->import = (IMetaDataImport2 *)unknown;
    c->assembly = NULL;
    return c;
}

static IMetaDataAssemblyImport *assembly_of(check_scope *c)
{
    if (c->assembly == NULL) {
        void *assembly = NULL;
        if (SUCCEEDED(c->import->lpVtbl->QueryInterface(c->import, &IID_IMetaDataAssemblyImport,
                                                        &assembly)))
            c->assembly = assembly;
    }
    return c->assembly;
}

static void close_session(check_session *s)
{
    for (uint32_t i = 0; i < s->scope_count; ++i) {
        if (s->scopes[i].assembly != NULL)
            s->scopes[i].assembly->lpVtbl->Release(s->scopes[i].assembly);
        s->scopes[i].import->lpVtbl->Release(s->scopes[i].import);
    }
    s->scope_count = 0;
}

static int ascii_lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* The one live module of the assembly an AssemblyRef names: 0 when none is loaded, when more
 * than one copy is (which one binds depends on load contexts we cannot see), or when the
 * name is not plain ASCII (the catalog keeps ASCII names). */
static ModuleID module_of_assembly(aip_module_catalog *catalog, const WCHAR *name, ULONG length)
{
    char narrow[AIP_ASSEMBLY_NAME_CAPACITY];
    if (length == 0 || length >= sizeof narrow)
        return 0;
    for (ULONG i = 0; i < length; ++i) {
        if (name[i] == 0 || name[i] >= 0x80 || name[i] == '?')
            return 0;
        narrow[i] = (char)name[i];
    }
    narrow[length] = '\0';
    ModuleID found = 0;
    int copies = 0;
    aip_mutex_lock(&catalog->lock);
    for (uint32_t i = 0; i < catalog->count; ++i) {
        const aip_module_entry *e = &catalog->entries[i];
        if (e->unloaded || e->module_id == 0)
            continue;
        size_t k = 0;
        while (narrow[k] != '\0' && ascii_lower(narrow[k]) == ascii_lower(e->assembly_name[k]))
            ++k;
        if (narrow[k] == '\0' && e->assembly_name[k] == '\0') {
            found = e->module_id;
            ++copies;
        }
    }
    aip_mutex_unlock(&catalog->lock);
    return copies == 1 ? found : 0;
}

/* Version as one comparable number: major.minor.build.revision, 16 bits each. */
static uint64_t version_of(const ASSEMBLYMETADATA *m)
{
    return ((uint64_t)m->usMajorVersion << 48) | ((uint64_t)m->usMinorVersion << 32) |
           ((uint64_t)m->usBuildNumber << 16) | m->usRevisionNumber;
}

/* 1 when the loaded copy `loaded` can be the one `ref` (an AssemblyRef of `from`) binds to: its
 * version is at least the one asked for. A reference to a newer version than the loaded copy
 * binds, in some load context, to a copy we have not seen: nothing there is certain. */
static int loaded_copy_serves(check_scope *from, mdAssemblyRef ref, check_scope *loaded)
{
    IMetaDataAssemblyImport *a = assembly_of(from), *b = assembly_of(loaded);
    ASSEMBLYMETADATA wanted, have;
    mdAssembly self = 0;
    memset(&wanted, 0, sizeof wanted);
    memset(&have, 0, sizeof have);
    if (a == NULL || b == NULL ||
        FAILED(a->lpVtbl->GetAssemblyRefProps(a, ref, NULL, NULL, NULL, 0, NULL, &wanted, NULL,
                                              NULL, NULL)) ||
        FAILED(b->lpVtbl->GetAssemblyFromScope(b, &self)) ||
        FAILED(b->lpVtbl->GetAssemblyProps(b, self, NULL, NULL, NULL, NULL, 0, NULL, &have, NULL)))
        return 0;
    return version_of(&have) >= version_of(&wanted);
}

/* GetXxxProps name lengths count the terminating NUL. */
static ULONG name_units(const WCHAR *name, ULONG reported)
{
    ULONG n = 0;
    while (n < reported && name[n] != 0)
        ++n;
    return n;
}

static int resolve(check_session *s, check_scope *c, uint32_t token, resolved_type *out);

/* A top-level type by its full name in the assembly of module `c`: its TypeDef, or, through
 * an ExportedType that forwards to another assembly, the TypeDef there. */
static int find_in_assembly(check_session *s, check_scope *c, const WCHAR *name, resolved_type *out)
{
    for (; c != NULL && s->steps-- > 0;) {
        mdTypeDef td = 0;
        if (SUCCEEDED(c->import->lpVtbl->FindTypeDefByName(c->import, name, mdTokenNil, &td)) &&
            AIP_TYPE_FROM_TOKEN(td) == mdtTypeDef && AIP_RID_FROM_TOKEN(td) != 0) {
            out->scope = c;
            out->type_def = td;
            return 1;
        }
        IMetaDataAssemblyImport *assembly = assembly_of(c);
        mdExportedType exported = 0;
        mdToken implementation = 0;
        mdTypeDef hint = 0;
        DWORD flags = 0;
        if (assembly == NULL ||
            FAILED(
                assembly->lpVtbl->FindExportedTypeByName(assembly, name, mdTokenNil, &exported)) ||
            FAILED(assembly->lpVtbl->GetExportedTypeProps(assembly, exported, NULL, 0, NULL,
                                                          &implementation, &hint, &flags)) ||
            AIP_TYPE_FROM_TOKEN(implementation) != mdtAssemblyRef)
            return 0; /* not there (a TypeLoadException, not ours), or in another file */
        WCHAR target[AIP_ASSEMBLY_NAME_CAPACITY];
        ULONG length = 0;
        if (FAILED(assembly->lpVtbl->GetAssemblyRefProps(assembly, implementation, NULL, NULL,
                                                         target, AIP_ASSEMBLY_NAME_CAPACITY,
                                                         &length, NULL, NULL, NULL, NULL)))
            return 0;
        ModuleID next = module_of_assembly(s->catalog, target, name_units(target, length));
        check_scope *forwarded = next != 0 ? scope_of(s, next) : NULL;
        c = forwarded != NULL && loaded_copy_serves(c, implementation, forwarded) ? forwarded
                                                                                  : NULL;
    }
    return 0;
}

static int resolve_type_ref(check_session *s, check_scope *c, uint32_t token, resolved_type *out)
{
    WCHAR local[AIP_TYPE_NAME_UNITS]; /* live across the recursion for nested types */
    mdToken scope = 0;
    ULONG length = 0;
    if (FAILED(c->import->lpVtbl->GetTypeRefProps(c->import, token, &scope, local,
                                                  AIP_TYPE_NAME_UNITS, &length)) ||
        length > AIP_TYPE_NAME_UNITS)
        return 0;
    switch (AIP_TYPE_FROM_TOKEN(scope)) {
    case mdtModule: { /* this module; nil: an exported type of this assembly */
        mdTypeDef td = 0;
        if (AIP_RID_FROM_TOKEN(scope) == 0 ||
            FAILED(c->import->lpVtbl->FindTypeDefByName(c->import, local, mdTokenNil, &td)) ||
            AIP_TYPE_FROM_TOKEN(td) != mdtTypeDef)
            return 0;
        out->scope = c;
        out->type_def = td;
        return 1;
    }
    case mdtTypeRef: { /* nested: the enclosing type first */
        resolved_type enclosing;
        mdTypeDef td = 0;
        if (!resolve(s, c, scope, &enclosing) ||
            FAILED(enclosing.scope->import->lpVtbl->FindTypeDefByName(
                enclosing.scope->import, local, enclosing.type_def, &td)) ||
            AIP_TYPE_FROM_TOKEN(td) != mdtTypeDef)
            return 0;
        out->scope = enclosing.scope;
        out->type_def = td;
        return 1;
    }
    case mdtAssemblyRef: {
        IMetaDataAssemblyImport *assembly = assembly_of(c);
        WCHAR target[AIP_ASSEMBLY_NAME_CAPACITY];
        ULONG n = 0;
        if (assembly == NULL || FAILED(assembly->lpVtbl->GetAssemblyRefProps(
                                    assembly, scope, NULL, NULL, target, AIP_ASSEMBLY_NAME_CAPACITY,
                                    &n, NULL, NULL, NULL, NULL)))
            return 0;
        ModuleID module = module_of_assembly(s->catalog, target, name_units(target, n));
        check_scope *other = module != 0 ? scope_of(s, module) : NULL;
        return other != NULL && loaded_copy_serves(c, scope, other) &&
               find_in_assembly(s, other, local, out);
    }
    default:
        return 0; /* a ModuleRef: another module of a multi-module assembly */
    }
}

/* A TypeDef, TypeRef, or the generic type of a GENERICINST TypeSpec, to a TypeDef. */
static int resolve(check_session *s, check_scope *c, uint32_t token, resolved_type *out)
{
    if (s->steps-- <= 0 || AIP_RID_FROM_TOKEN(token) == 0)
        return 0;
    switch (AIP_TYPE_FROM_TOKEN(token)) {
    case mdtTypeDef:
        out->scope = c;
        out->type_def = token;
        return 1;
    case mdtTypeRef:
        return resolve_type_ref(s, c, token, out);
    case mdtTypeSpec: {
        PCCOR_SIGNATURE sig = NULL;
        ULONG length = 0;
        size_t at = 2;
        uint32_t generic = 0;
        if (FAILED(c->import->lpVtbl->GetTypeSpecFromToken(c->import, token, &sig, &length)) ||
            length < 3 || sig[0] != ELEMENT_TYPE_GENERICINST ||
            aip_sig_read_type_token(sig, length, &at, &generic) != ALVK_OK ||
            AIP_TYPE_FROM_TOKEN(generic) == mdtTypeSpec)
            return 0; /* arrays, pointers, generic variables: the runtime's own types */
        return resolve(s, c, generic, out);
    }
    default:
        return 0;
    }
}

/* Candidates named `name` of one kind on one type: FOUND when one may be the member. */
static aip_member_verdict search_type(check_session *s, const resolved_type *t, const WCHAR *name,
                                      int field, PCCOR_SIGNATURE ref, ULONG ref_length,
                                      int same_scope)
{
    IMetaDataImport2 *import = t->scope->import;
    HCORENUM e = NULL;
    mdToken members[16];
    ULONG n = 0;
    aip_member_verdict verdict = AIP_MEMBER_MISSING;
    for (;;) {
        HRESULT hr = field ? import->lpVtbl->EnumFieldsWithName(import, &e, t->type_def, name,
                                                                members, 16, &n)
                           : import->lpVtbl->EnumMethodsWithName(import, &e, t->type_def, name,
                                                                 members, 16, &n);
        if (FAILED(hr)) {
            verdict = AIP_MEMBER_UNKNOWN;
            break;
        }
        if (n == 0)
            break;
        for (ULONG i = 0; i < n && verdict == AIP_MEMBER_MISSING; ++i) {
            PCCOR_SIGNATURE def = NULL;
            ULONG def_length = 0;
            DWORD attributes = 0;
            hr = field ? import->lpVtbl->GetFieldProps(import, members[i], NULL, NULL, 0, NULL,
                                                       &attributes, &def, &def_length, NULL, NULL,
                                                       NULL)
                       : import->lpVtbl->GetMethodProps(import, members[i], NULL, NULL, 0, NULL,
                                                        &attributes, &def, &def_length, NULL, NULL);
            if (FAILED(hr))
                verdict = AIP_MEMBER_UNKNOWN;
            else if (aip_member_sig_compare(ref, ref_length, def, def_length, same_scope) !=
                     AIP_MEMBER_DIFFERENT)
                verdict = AIP_MEMBER_FOUND;
        }
        if (verdict != AIP_MEMBER_MISSING)
            break;
    }
    if (e != NULL)
        import->lpVtbl->CloseEnum(import, e);
    (void)s;
    return verdict;
}

/* The member on the type, then up its base types. */
static aip_member_verdict search_chain(check_session *s, resolved_type t, const WCHAR *name,
                                       int field, PCCOR_SIGNATURE ref, ULONG ref_length)
{
    int substituted = 0; /* a generic base was crossed: its members' VARs are not the ref's */
    while (s->steps-- > 0) {
        int same_scope = !substituted && t.scope->module == s->target;
        aip_member_verdict v = search_type(s, &t, name, field, ref, ref_length, same_scope);
        if (v != AIP_MEMBER_MISSING)
            return v;
        DWORD flags = 0;
        mdToken extends = 0;
        ULONG length = 0;
        if (FAILED(t.scope->import->lpVtbl->GetTypeDefProps(t.scope->import, t.type_def, NULL, 0,
                                                            &length, &flags, &extends)))
            return AIP_MEMBER_UNKNOWN;
        if ((flags & tdInterface) != 0)
            return AIP_MEMBER_UNKNOWN; /* how far an interface's reference reaches: not ours */
        if (AIP_RID_FROM_TOKEN(extends) == 0)
            return AIP_MEMBER_MISSING; /* the root: the whole chain was searched */
        substituted |= AIP_TYPE_FROM_TOKEN(extends) == mdtTypeSpec;
        resolved_type base;
        if (!resolve(s, t.scope, extends, &base))
            return AIP_MEMBER_UNKNOWN;
        t = base;
    }
    return AIP_MEMBER_UNKNOWN;
}

static aip_member_verdict check_one(check_session *s, uint32_t member_ref, int *field)
{
    WCHAR *name = s->member_name;
    check_scope *c = scope_of(s, s->target);
    if (c == NULL || AIP_TYPE_FROM_TOKEN(member_ref) != mdtMemberRef)
        return AIP_MEMBER_UNKNOWN;
    mdToken parent = 0;
    ULONG length = 0, sig_length = 0;
    PCCOR_SIGNATURE sig = NULL;
    if (FAILED(c->import->lpVtbl->GetMemberRefProps(c->import, member_ref, &parent, name,
                                                    AIP_CHECK_NAME_UNITS, &length, &sig,
                                                    &sig_length)) ||
        length > AIP_CHECK_NAME_UNITS || sig == NULL || sig_length == 0)
        return AIP_MEMBER_UNKNOWN;
    *field = sig[0] == IMAGE_CEE_CS_CALLCONV_FIELD;
    resolved_type t;
    s->steps = AIP_CHECK_MAX_DEPTH;
    if (!resolve(s, c, parent, &t))
        return AIP_MEMBER_UNKNOWN; /* a MethodDef or ModuleRef parent, an array, unloaded... */
    return search_chain(s, t, name, *field, sig, sig_length);
}

alvk_status aip_member_check(ICorProfilerInfo15 *info, aip_module_catalog *catalog, ModuleID module,
                             const alvk_relocation_result *results, uint32_t count,
                             uint32_t *failing, int32_t *missing_hresult)
{
    check_session s;
    memset(&s, 0, sizeof s);
    s.info = info;
    s.catalog = catalog;
    s.target = module;
    alvk_status status = ALVK_OK;
    for (uint32_t i = 0; i < count && status == ALVK_OK; ++i) {
        int field = 0;
        if (results[i].kind == ALVK_RELOCATION_MEMBER_REF &&
            check_one(&s, results[i].token, &field) == AIP_MEMBER_MISSING) {
            status = ALVK_E_MEMBER_NOT_FOUND;
            *failing = i;
            *missing_hresult = field ? COR_E_MISSINGFIELD : COR_E_MISSINGMETHOD;
        }
    }
    close_session(&s);
    return status;
}
