/* Whether a method's precompiled code may come from a refused image (precompiled_refusals.h).
 * Not only the image of the module that defines the method: the runtime also looks up a
 * generic instantiation's ReadyToRun code in the image of a type argument's module (code an
 * image built with --opt-cross-module holds for another module's generic method over its own
 * types). So a method is refused when its module, or the module of any of its class's or its
 * own type arguments (nested instantiations and array elements too, to a bound), is held. */
#ifndef AIP_PRECOMPILED_FUNCTION_H
#define AIP_PRECOMPILED_FUNCTION_H

#include "catalog/precompiled_refusals.h"
#include "coreclr/corprof_info.h"

/* Type arguments looked at per instantiation, and instantiations looked into, at most: past
 * either, or when the runtime cannot tell a type's module, the answer is 1 (the safe side). */
#define AIP_PRECOMPILED_TYPE_ARGS 8u
#define AIP_PRECOMPILED_TYPE_DEPTH 4u

/* 1 when `function`'s precompiled code may come from an image in `refusals`. */
int aip_refusals_hold_function(ICorProfilerInfo15 *info, aip_precompiled_refusals *refusals,
                               FunctionID function);

#endif
