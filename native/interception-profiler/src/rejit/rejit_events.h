/* RejitState's callback accounting: what GetReJITParameters, the ReJIT compilation
 * callbacks, ReJITError, JITInlining and module unloads record on the patch table, and the
 * telemetry read back from it. */
#ifndef AIP_REJIT_EVENTS_H
#define AIP_REJIT_EVENTS_H

#include "rejit/patch_table.h"

/* GetReJITParameters: the snapshot of the newest patch of (module, token), acquired (the
 * caller releases it), or NULL when the original IL should stay. Counts the callback. */
aip_prepared_rejit *aip_rejit_acquire_for(aip_rejit_state *st, uintptr_t module_id, uint32_t token);

/* Callback accounting for (module, token); no-ops for methods without a patch. */
typedef enum aip_rejit_event {
    AIP_EVENT_SET_IL, /* hresult of SetILFunctionBody */
    AIP_EVENT_STARTED,
    AIP_EVENT_FINISHED, /* hresult of the compilation */
    AIP_EVENT_ERROR,    /* ReJITError hresult */
} aip_rejit_event;
void aip_rejit_record(aip_rejit_state *st, uintptr_t module_id, uint32_t token,
                      aip_rejit_event event, int32_t hresult);

/* ReJITCompilationStarted of a method that is not a target: an inliner re-JITted along with
 * the latest request. Counted once per ReJIT ID (tiering compiles one ID several times).
 * Attribution goes to the most recently requested patch. */
void aip_rejit_record_inliner(aip_rejit_state *st, uintptr_t module_id, uint32_t token,
                              uint64_t rejit_id);

/* ModuleUnloadStarted: every live patch of the module ends UNLOADED. */
void aip_rejit_module_unloaded(aip_rejit_state *st, uintptr_t module_id);

/* 1 when a live patch of (module, token) was installed with ALVK_INSTALL_INLINER_FALLBACK. */
int aip_rejit_blocks_inlining(aip_rejit_state *st, uintptr_t module_id, uint32_t token);

alvk_status aip_rejit_telemetry(aip_rejit_state *st, alvk_patch_handle handle,
                                alvk_patch_telemetry *out);

#endif
