/* RejitState's callback accounting: what GetReJITParameters, the ReJIT compilation
 * callbacks, ReJITError, JITInlining and module unloads record on the patch table, and the
 * telemetry read back from it. */
#ifndef AIP_REJIT_EVENTS_H
#define AIP_REJIT_EVENTS_H

#include "rejit/inliner_map.h"
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

/* 1 when (module, token) has a patch (live, or ended): its compilations are its own. */
int aip_rejit_is_target(aip_rejit_state *st, uintptr_t module_id, uint32_t token);

/* The newest request (aip_patch.request) among the patches of the `count` methods, 0 when
 * none of them has a requested patch. */
uint64_t aip_rejit_newest_request(aip_rejit_state *st, const aip_method_key *methods,
                                  uint32_t count);

/* What the inliner map says of a method being re-JITted (aip_inliner_map_inlinees). */
typedef struct aip_inliner_facts {
    const aip_method_key *inlined; /* the methods it inlined, as the JIT reported them */
    uint32_t count;
    uint64_t counted; /* the newest request it was counted for already (0: none) */
    uint64_t newest;  /* aip_rejit_newest_request of `inlined` */
} aip_inliner_facts;

/* ReJITCompilationStarted of a method that is not a target: an inliner re-JITted with a
 * request. It counts for the patches of the methods it inlined whose request is newer than
 * facts->counted and not newer than facts->newest: each request re-JITs it once, and a version
 * a later request superseded before its first call is compiled for both. When it inlined no
 * method with a requested patch, as far as the JIT reported (ReadyToRun code inlines unreported;
 * the map may be full), it counts for the most recently requested patch. Once per ReJIT ID
 * (tiering compiles one ID several times). facts may be NULL: nothing known. */
void aip_rejit_record_inliner(aip_rejit_state *st, uintptr_t module_id, uint32_t token,
                              uint64_t rejit_id, const aip_inliner_facts *facts);

/* ModuleUnloadStarted: every live patch of the module ends UNLOADED. */
void aip_rejit_module_unloaded(aip_rejit_state *st, uintptr_t module_id);

/* 1 when making (module, token)'s original IL version active again (RequestRevert) could run
 * native code with an inlined copy of a method that is patched now: a live patch of another
 * method of the same module (ReadyToRun code inlines within its module without the JIT's
 * report), or of one of the `count` methods the JIT reported it inlined. */
int aip_rejit_revert_unsafe(aip_rejit_state *st, uintptr_t module_id, uint32_t token,
                            const aip_method_key *inlined, uint32_t count);

/* 1 when a live patch of (module, token) was installed with ALVK_INSTALL_INLINER_FALLBACK. */
int aip_rejit_blocks_inlining(aip_rejit_state *st, uintptr_t module_id, uint32_t token);

alvk_status aip_rejit_telemetry(aip_rejit_state *st, alvk_patch_handle handle,
                                alvk_patch_telemetry *out);

#endif
