/* The stack-type checker's module oracle over IMetaDataImport2: method, field and standalone
 * signatures, MethodSpec instantiations, declaring types, and what a type's values are on the
 * stack (classes, structs, enums with their underlying type, the primitive types of System). */
#include "catalog/stack_type_oracle.h"

#include "coreclr/cor_guids.h"
#include "coreclr/cor_metadata.h"
#include "generation/generation_stack_check.h"
#include "metadata/signature_blobs.h"

#include <string.h>

#define AIP_FD_STATIC 0x0010u    /* fdStatic */
#define AIP_TD_INTERFACE 0x0020u /* tdInterface */
#define AIP_TYPE_NAME_CAPACITY 256u

typedef struct metadata_oracle {
    IMetaDataImport2 *import;
} metadata_oracle;

/* Type names we compare are ASCII; anything else becomes '?'. */
static size_t narrow(const WCHAR *in, ULONG length, char *out, size_t capacity)
{
    size_t i = 0;
    for (; i + 1 < capacity && i < length && in[i] != 0; ++i)
        out[i] = in[i] < 0x80 ? (char)in[i] : '?';
    out[i] = '\0';
    return i;
}

/* "Namespace.Name" of a TypeDef or TypeRef; 0 when it cannot be read. */
static size_t type_name(IMetaDataImport2 *im, mdToken type, char *name, DWORD *flags,
                        mdToken *extends)
{
    WCHAR wide[AIP_TYPE_NAME_CAPACITY];
    ULONG length = 0;
    mdToken scope = 0;
    HRESULT hr = E_FAIL;
    *flags = 0;
    *extends = 0;
    if (AIP_TYPE_FROM_TOKEN(type) == mdtTypeDef)
        hr = im->lpVtbl->GetTypeDefProps(im, type, wide, AIP_TYPE_NAME_CAPACITY, &length, flags,
                                         extends);
    else if (AIP_TYPE_FROM_TOKEN(type) == mdtTypeRef)
        hr = im->lpVtbl->GetTypeRefProps(im, type, &scope, wide, AIP_TYPE_NAME_CAPACITY, &length);
    if (FAILED(hr))
        return 0;
    return narrow(wide, length, name, AIP_TYPE_NAME_CAPACITY);
}

static int named(IMetaDataImport2 *im, mdToken type, const char *expected)
{
    char name[AIP_TYPE_NAME_CAPACITY];
    DWORD flags;
    mdToken extends;
    return type_name(im, type, name, &flags, &extends) != 0 && strcmp(name, expected) == 0;
}

/* An enum's underlying type: its one instance field's type. */
static alvk_stack_type enum_underlying(IMetaDataImport2 *im, mdTypeDef type)
{
    HCORENUM e = NULL;
    mdFieldDef fields[8];
    ULONG count = 0;
    alvk_stack_type found = ALVK_STACK_NOTHING;
    if (SUCCEEDED(im->lpVtbl->EnumFields(im, &e, type, fields, 8, &count))) {
        for (ULONG i = 0; i < count && found == ALVK_STACK_NOTHING; ++i) {
            mdTypeDef owner = 0;
            ULONG name_length = 0, sig_length = 0, value_length = 0;
            DWORD attributes = 0, constant_type = 0;
            PCCOR_SIGNATURE sig = NULL;
            UVCP_CONSTANT value = NULL;
            aip_sig_type t;
            if (SUCCEEDED(im->lpVtbl->GetFieldProps(im, fields[i], &owner, NULL, 0, &name_length,
                                                    &attributes, &sig, &sig_length, &constant_type,
                                                    &value, &value_length)) &&
                (attributes & AIP_FD_STATIC) == 0 &&
                aip_sig_parse_field(sig, sig_length, &t) == ALVK_OK && !t.is_byref) {
                /* An enum's underlying type is integral (II.14.3): nothing else counts. */
                alvk_stack_type p = aip_stack_type_of_primitive(t.element_type);
                if (p == ALVK_STACK_INT32 || p == ALVK_STACK_INT64 || p == ALVK_STACK_NATIVE_INT)
                    found = p;
            }
        }
    }
    if (e != NULL)
        im->lpVtbl->CloseEnum(im, e);
    return found;
}

/* What a value of TypeDef or TypeRef `type` is on the stack; NOTHING when not known. */
static alvk_stack_type type_stack(IMetaDataImport2 *im, mdToken type)
{
    char name[AIP_TYPE_NAME_CAPACITY];
    DWORD flags;
    mdToken extends;
    size_t length = type_name(im, type, name, &flags, &extends);
    if (length == 0)
        return ALVK_STACK_NOTHING;
    alvk_stack_type system = aip_stack_type_of_system_name(name, length);
    if (system != ALVK_STACK_NOTHING || AIP_TYPE_FROM_TOKEN(type) != mdtTypeDef)
        return system; /* a TypeRef to anything else: class or struct is not known here */
    if ((flags & AIP_TD_INTERFACE) != 0 || AIP_IS_NIL_TOKEN(extends) ||
        strcmp(name, "System.Enum") == 0 || strcmp(name, "System.ValueType") == 0)
        return ALVK_STACK_OBJECT;
    if (named(im, extends, "System.Enum"))
        return enum_underlying(im, type);
    if (named(im, extends, "System.ValueType"))
        return ALVK_STACK_VALUE_TYPE;
    return ALVK_STACK_OBJECT;
}

static int valid(IMetaDataImport2 *im, mdToken token)
{
    return !AIP_IS_NIL_TOKEN(token) && im->lpVtbl->IsValidToken(im, token);
}

/* The declaring type of a member, from its parent token. */
static void describe_owner(IMetaDataImport2 *im, mdToken parent, aip_stack_member *out);

static int method_member(IMetaDataImport2 *im, mdToken token, aip_stack_member *out)
{
    mdTypeDef owner = 0;
    DWORD attributes = 0, impl = 0;
    ULONG length = 0, rva = 0;
    PCCOR_SIGNATURE sig = NULL;
    if (FAILED(im->lpVtbl->GetMethodProps(im, token, &owner, NULL, 0, NULL, &attributes, &sig,
                                          &length, &rva, &impl)))
        return 0;
    out->signature = sig;
    out->signature_length = length;
    describe_owner(im, owner, out);
    return 1;
}

static void describe_owner(IMetaDataImport2 *im, mdToken parent, aip_stack_member *out)
{
    PCCOR_SIGNATURE spec = NULL;
    ULONG length = 0;
    aip_stack_member method;
    if (!valid(im, parent))
        return;
    switch (AIP_TYPE_FROM_TOKEN(parent)) {
    case mdtTypeDef:
        out->owner = type_stack(im, parent);
        out->owner_token = parent;
        return;
    case mdtTypeRef:
        out->owner = type_stack(im, parent);
        return;
    case mdtTypeSpec:
        if (SUCCEEDED(im->lpVtbl->GetTypeSpecFromToken(im, parent, &spec, &length))) {
            out->owner_instantiation = spec;
            out->owner_instantiation_length = length;
            out->owner = aip_stack_type_of_type_spec(spec, length);
        }
        return;
    case mdtMethodDef: /* a vararg call site */
        memset(&method, 0, sizeof method);
        if (method_member(im, parent, &method)) {
            out->owner = method.owner;
            out->owner_token = method.owner_token;
        }
        return;
    default:
        return;
    }
}

static int member(void *context, uint32_t token, uint32_t operand_offset, aip_stack_member *out)
{
    (void)operand_offset;
    IMetaDataImport2 *im = ((metadata_oracle *)context)->import;
    if (!valid(im, token))
        return 0;
    mdToken parent = 0, owner = 0;
    PCCOR_SIGNATURE sig = NULL;
    ULONG length = 0, name_length = 0, value_length = 0;
    DWORD attributes = 0, constant_type = 0;
    UVCP_CONSTANT value = NULL;
    switch (AIP_TYPE_FROM_TOKEN(token)) {
    case mdtMethodDef:
        return method_member(im, token, out);
    case mdtMemberRef:
        if (FAILED(im->lpVtbl->GetMemberRefProps(im, token, &parent, NULL, 0, NULL, &sig, &length)))
            return 0;
        out->signature = sig;
        out->signature_length = length;
        describe_owner(im, parent, out);
        return 1;
    case mdtMethodSpec:
        if (FAILED(im->lpVtbl->GetMethodSpecProps(im, token, &parent, &sig, &length)) ||
            AIP_TYPE_FROM_TOKEN(parent) == mdtMethodSpec || !member(context, parent, 0, out))
            return 0;
        out->method_instantiation = sig;
        out->method_instantiation_length = length;
        return 1;
    case mdtFieldDef:
        if (FAILED(im->lpVtbl->GetFieldProps(im, token, &owner, NULL, 0, &name_length, &attributes,
                                             &sig, &length, &constant_type, &value, &value_length)))
            return 0;
        out->signature = sig;
        out->signature_length = length;
        describe_owner(im, owner, out);
        return 1;
    case mdtSignature:
        if (FAILED(im->lpVtbl->GetSigFromToken(im, token, &sig, &length)))
            return 0;
        out->signature = sig;
        out->signature_length = length;
        return 1;
    default:
        return 0;
    }
}

static int type(void *context, uint32_t token, uint32_t operand_offset, aip_stack_type_answer *out)
{
    (void)operand_offset;
    IMetaDataImport2 *im = ((metadata_oracle *)context)->import;
    if (!valid(im, token))
        return 0;
    PCCOR_SIGNATURE spec = NULL;
    ULONG length = 0;
    switch (AIP_TYPE_FROM_TOKEN(token)) {
    case mdtTypeDef:
    case mdtTypeRef:
        out->stack = type_stack(im, token);
        return out->stack != ALVK_STACK_NOTHING;
    case mdtTypeSpec:
        if (FAILED(im->lpVtbl->GetTypeSpecFromToken(im, token, &spec, &length)))
            return 0;
        out->spec = spec;
        out->spec_length = length;
        return 1;
    default:
        return 0;
    }
}

alvk_status aip_stack_check_generation(ICorProfilerInfo15 *info, const aip_method_target *target,
                                       const alvk_generation *g, aip_stack_result *out)
{
    metadata_oracle m = {NULL};
    IUnknown *unknown = NULL;
    if (info != NULL &&
        SUCCEEDED(info->lpVtbl->GetModuleMetaData(info, target->module_id, ofRead,
                                                  &IID_IMetaDataImport2, &unknown)) &&
        unknown != NULL)
        m.import = (IMetaDataImport2 *)unknown;
    aip_stack_oracle module = {&m, member, type};
    aip_stack_target t = {target->signature, target->signature_length,
                          (target->description.flags & ALVK_METHOD_VALUE_TYPE_RECEIVER) != 0};
    alvk_status status =
        aip_generation_check_stack_types(g, &t, m.import != NULL ? &module : NULL, out);
    if (m.import != NULL)
        m.import->lpVtbl->Release(m.import);
    return status == ALVK_E_STACK_TYPE_MISMATCH ? status : ALVK_OK;
}
