/* The ReJIT and inlining callbacks' handlers. They only look up, count and copy: the IL they
 * hand over was prepared on the worker. A failed compilation they see is answered by a
 * rollback, which the caller queues to the worker. */
#ifndef AIP_REJIT_CALLBACKS_H
#define AIP_REJIT_CALLBACKS_H

#include "catalog/module_catalog.h"
#include "coreclr/corprof_control.h"
#include "coreclr/corprof_info.h"
#include "rejit/inliner_map.h"
#include "rejit/inliner_redirects.h"
#include "rejit/patch_table.h"

/* How every ReJIT request with inliners asks: block the targets' inlining, and ask for the
 * inliners' IL too (COR_PRF_REJIT_INLINING_CALLBACKS). Without the second flag the runtime
 * gives every inliner it re-JITs its original IL, unasked: an inliner with a patch of its own
 * would lose that patch's body whenever a method it inlined is re-JIT'd or restored. */
#define AIP_REJIT_INLINER_FLAGS (COR_PRF_REJIT_BLOCK_INLINING | COR_PRF_REJIT_INLINING_CALLBACKS)

/* GetReJITParameters (for a target, or for an inliner of one): the published snapshot of
 * (module, method) handed to the runtime; for a method without one, an inliner's redirected
 * body from `redirects` (its calls of hooked targets made calls of their carriers); else S_OK
 * with nothing set (the original IL stays: a restore, or an inliner without a redirect). */
HRESULT aip_rejit_on_get_parameters(aip_rejit_state *st, aip_inliner_redirects *redirects,
                                    ModuleID module, mdMethodDef method,
                                    ICorProfilerFunctionControl *control);

/* ReJITCompilationStarted (finished 0) and ReJITCompilationFinished (finished 1). A start of a
 * method without a patch is an inliner's, counted for the patches whose targets `inliners`
 * says it inlined. Returns 1 with *rollback_index when the patch's current generation failed:
 * a rollback must be queued. */
int aip_rejit_on_compilation(aip_rejit_state *st, aip_inliner_map *inliners,
                             ICorProfilerInfo15 *info, FunctionID function, ReJITID rejit_id,
                             int finished, HRESULT status, uint32_t *rollback_index);

/* ReJITError; returns as aip_rejit_on_compilation. */
int aip_rejit_on_error(aip_rejit_state *st, ModuleID module, mdMethodDef method, HRESULT status,
                       uint32_t *rollback_index);

/* JITInlining: records which callers inline methods of allowed modules, and refuses
 * inlining of targets patched with the JITInlining fallback. */
void aip_rejit_on_inlining(aip_rejit_state *st, aip_inliner_map *inliners,
                           aip_module_catalog *catalog, ICorProfilerInfo15 *info, FunctionID caller,
                           FunctionID callee, BOOL *should_inline);

#endif
