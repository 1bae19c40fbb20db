/* The worker's stack-type check of a generation (generation/generation_stack_check.h): the
 * module oracle answers the target module's own tokens from its metadata (IMetaDataImport2,
 * opened for the check), the generation's relocations answer the operands they fill. */
#ifndef AIP_STACK_TYPE_ORACLE_H
#define AIP_STACK_TYPE_ORACLE_H

#include "catalog/module_catalog_clr.h"
#include "il/il_stack_types.h"

/* Checks generation g (validated) as the body of `target`. ALVK_E_STACK_TYPE_MISMATCH with
 * *out describing the instruction and the types; ALVK_OK otherwise: a body the check cannot
 * fault, including when the module's metadata cannot be opened (then only what the body, the
 * target's signature and the relocations say is checked). Runs on the worker. */
alvk_status aip_stack_check_generation(ICorProfilerInfo15 *info, const aip_method_target *target,
                                       const alvk_generation *g, aip_stack_result *out);

#endif
