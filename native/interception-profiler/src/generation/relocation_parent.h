/* Which metadata table a relocation's parent token may come from, per relocation kind: the
 * one statement of the rule, for validation (relocation_validate.c) and for emission. */
#ifndef AIP_RELOCATION_PARENT_H
#define AIP_RELOCATION_PARENT_H

#include "alvorkit_interception_profiler.h"

#include <stdint.h>

/* 1 when parent_token is a non-nil token of a table a row of this kind may have as parent:
 *   MEMBER_REF   TypeDef, TypeRef, ModuleRef, MethodDef, TypeSpec (MemberRefParent)
 *   METHOD_SPEC  MethodDef, MemberRef (MethodDefOrRef)
 *   TYPE_REF     Module, ModuleRef, AssemblyRef, TypeRef (ResolutionScope)
 * 0 otherwise, and for the kinds that take no parent (STANDALONE_SIG, TYPE_SPEC) or any
 * other value. */
int aip_relocation_parent_allowed(alvk_relocation_kind kind, uint32_t parent_token);

#endif
