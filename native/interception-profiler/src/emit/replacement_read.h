/* The direct-call path's first step: a replacement method read in its own module (ABI 3.4).
 * What the target's module needs to name it (its declaring type chain and name, its
 * assembly's identity for an AssemblyRef, its signature to compare with the MemberRef's) and
 * whether a direct call can work: a static, non-virtual, non-generic method with IL, of
 * non-generic types, that the target's module may access.
 * Runs on the worker. */
#ifndef AIP_REPLACEMENT_READ_H
#define AIP_REPLACEMENT_READ_H

#include "alvorkit_interception_profiler.h"
#include "coreclr/corprof_info.h"
#include "emit/assembly_identity.h"

#include <stdint.h>

#define AIP_REPLACEMENT_MAX_NESTING 8   /* declaring type and its enclosing types */
#define AIP_REPLACEMENT_NAME_BYTES 4096 /* their UTF-8 names and the method's */
#define AIP_REPLACEMENT_SIG_BYTES 1024  /* the method's signature, tokens of its module */

/* A UTF-8 name in aip_replacement_name.names. */
typedef struct aip_name_span {
    uint32_t offset;
    uint32_t length;
} aip_name_span;

typedef struct aip_replacement_name {
    uint32_t type_count;                              /* outermost type first */
    aip_name_span types[AIP_REPLACEMENT_MAX_NESTING]; /* "Namespace.Name", then nested names */
    aip_name_span method;
    uint32_t signature_length;
    uint8_t signature[AIP_REPLACEMENT_SIG_BYTES]; /* its MethodDefSig, as its module has it */
    uint32_t names_length;                        /* bytes of names used */
    uint8_t names[AIP_REPLACEMENT_NAME_BYTES];
    aip_assembly_identity assembly;
} aip_replacement_name;

/* Reads MethodDef `method_token` of `module` into *out. `same_assembly`: the target lives in
 * that module, so assembly visibility suffices; otherwise the method and every type of its
 * chain must be public (nested public). ALVK_OK; ALVK_E_REPLACEMENT_UNSUPPORTED (not a
 * MethodDef of the module, not static, virtual (a static virtual interface member), generic
 * or of a generic type, no IL, nested deeper, named or signed longer than the bounds above);
 * ALVK_E_REPLACEMENT_NOT_ACCESSIBLE; ALVK_E_METADATA_FAILED with the runtime's HRESULT in *hr. */
alvk_status aip_replacement_read(ICorProfilerInfo15 *info, ModuleID module, uint32_t method_token,
                                 int same_assembly, aip_replacement_name *out, HRESULT *hr);

#endif
