/* The state every command is applied with on the worker (its env and scratch), and the one
 * sequence that puts bodies in force: every body of a command published, every generation
 * made current (requested), every target requested from the runtime at once, or, when the
 * runtime refuses, all of it undone. The command runner (apply_batch.h) is its one caller:
 * installs, replaces, generations, removals and rollbacks alike. Runs on the worker thread
 * only. */
#ifndef AIP_APPLY_PUBLISH_H
#define AIP_APPLY_PUBLISH_H

#include "alvorkit_interception_profiler.h"
#include "catalog/module_catalog_clr.h"
#include "emit/relocation_emit.h"
#include "emit/replacement_read.h"
#include "generation/relocation_blob.h"
#include "il/dispatch.h"
#include "metadata/signature.h"
#include "rejit/carried_targets.h"
#include "rejit/discovered_inbox.h"
#include "rejit/inliner_map.h"
#include "rejit/inliner_redirects.h"
#include "rejit/rejit_generations.h"
#include "rejit/rejit_state.h"

#include <stdint.h>

/* Every recorded inliner of a target goes into one fallback request. */
#define AIP_MAX_INLINERS_PER_REQUEST AIP_INLINER_MAP_CAPACITY

/* What applying needs beyond the stack, owned by the worker: touched on its thread only
 * (aip_apply_scratch_claim on that thread; a debug build asserts every use). */
typedef struct aip_apply_scratch {
    uint8_t body[ALVK_MAX_GENERATION_BODY_BYTES]; /* the private copy tokens are written into */
    /* One relocation blob as emission defines it (class references replaced, a user string
     * decoded): 2-byte aligned for the UTF-16 units. */
    _Alignas(8) uint8_t blob[AIP_RELOCATION_BLOB_MAX];
    alvk_relocation_result results[ALVK_MAX_RELOCATIONS];
    aip_method_sig target_sig; /* the target's signature, parsed once per resolve */
    /* The direct-call path: the replacement as read in its module, and the generation's
     * blobs (its type and method names, then the MemberRef signature). */
    aip_replacement_name replacement;
    uint8_t direct_blobs[AIP_REPLACEMENT_NAME_BYTES + AIP_DISPATCH_MAX_SIG_BYTES];
    aip_generation_record failed; /* a failed generation, checked again after the fact */
    /* The targets of one request while they fit (one target and its recorded inliners). */
    ModuleID request_modules[AIP_MAX_INLINERS_PER_REQUEST + 1];
    mdMethodDef request_methods[AIP_MAX_INLINERS_PER_REQUEST + 1];
    aip_method_key request_callers[AIP_MAX_INLINERS_PER_REQUEST];
} aip_apply_scratch;

/* A body ready to go in force: the body prepared (NULL: the original IL), for the generation
 * (0: the original) and the target's module and token, of the patch in slot `index`. */
typedef struct aip_held_publish {
    aip_prepared_rejit *prepared; /* taken by aip_apply_publish */
    alvk_generation_id id;
    uintptr_t module_id;
    uint32_t token;
    uint32_t flags; /* the patch's install flags (ALVK_INSTALL_INLINER_FALLBACK) */
    uint32_t index;
    aip_prepared_rejit *replaced; /* granted: the snapshot it replaced, for the commit */
} aip_held_publish;

/* The state the apply path reads and changes. */
typedef struct aip_apply_env {
    ICorProfilerInfo15 *info;
    aip_rejit_state *rejit;
    aip_module_catalog *catalog;
    aip_inliner_map *inliners;
    aip_emitter *emitter;
    aip_apply_scratch *scratch;
    /* The known inliners' redirected bodies (NULL: none kept, a runtime-free test). */
    aip_inliner_redirects *redirects;
    /* The targets carried for callers found as they are compiled, and those callers (NULL:
     * none found that way, a runtime-free test). */
    aip_carried_targets *carried;
    aip_discovered_inbox *discovered;
} aip_apply_env;

/* Marks the calling thread as the one that may use `scratch` (the worker, when it starts). */
void aip_apply_scratch_claim(aip_apply_scratch *scratch);
/* env's scratch, on the thread that claimed it. */
aip_apply_scratch *aip_apply_scratch_of(const aip_apply_env *env);

/* Puts `count` bodies in force as one: each published (taken), each generation made current
 * (requested, marks[i] what that changed) before the runtime is asked, so what the request
 * raises finds it; then every target requested at once: RequestReJITWithInliners, or, when
 * held[0] carries ALVK_INSTALL_INLINER_FALLBACK (a command's requests all carry one flag),
 * RequestReJIT with the callers the profiler saw inline each target. Granted: each
 * held[i].replaced is the snapshot its body replaced, and each target whose original IL came
 * back has its original version made active again where that is safe. Refused: every mark
 * undone and every previous snapshot back, replaced NULL. Returns the request's HRESULT. */
HRESULT aip_apply_publish(const aip_apply_env *env, aip_held_publish *held, aip_request_mark *marks,
                          uint32_t count, uint64_t queued_ns);

#endif
