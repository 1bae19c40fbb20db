/* The parent tables of relocation_parent.h. */
#include "generation/relocation_parent.h"

#include "coreclr/cor_metadata_defs.h"

int aip_relocation_parent_allowed(alvk_relocation_kind kind, uint32_t parent_token)
{
    if (AIP_IS_NIL_TOKEN(parent_token))
        return 0;
    uint32_t table = AIP_TYPE_FROM_TOKEN(parent_token);
    switch (kind) {
    case ALVK_RELOCATION_MEMBER_REF:
        return table == mdtTypeDef || table == mdtTypeRef || table == mdtModuleRef ||
               table == mdtMethodDef || table == mdtTypeSpec;
    case ALVK_RELOCATION_METHOD_SPEC:
        return table == mdtMethodDef || table == mdtMemberRef;
    case ALVK_RELOCATION_TYPE_REF:
        return table == mdtModule || table == mdtModuleRef || table == mdtAssemblyRef ||
               table == mdtTypeRef;
    default:
        return 0;
    }
}
