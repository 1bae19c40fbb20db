/* The worker's apply path: every command that changes what a patched method runs ends in one
 * apply_generation (check the body's stack types, emit its relocations, check their members,
 * publish the PreparedRejit snapshot, request the ReJIT). An exact-dispatch install or
 * replace is a generation too: on the direct-call path (ABI 3.4) the body calls the
 * replacement's MethodDef, or a MemberRef emitted as relocations (TypeRef chain under an
 * AssemblyRef, then the MemberRef); on the calli path, and whenever the direct call cannot
 * work, the body calls the entry point through calli with one StandAloneSig relocation. A remove
 * publishes a remaining owner's body or the original IL. Rollbacks of bodies that failed to compile
 * come through here as well. Runs on the worker thread only. */
#ifndef AIP_APPLY_GENERATION_H
#define AIP_APPLY_GENERATION_H

#include "alvorkit_interception_profiler.h"
#include "catalog/module_catalog_clr.h"
#include "emit/relocation_emit.h"
#include "emit/replacement_read.h"
#include "generation/relocation_blob.h"
#include "il/dispatch.h"
#include "il/il_stack_types.h"
#include "metadata/signature.h"
#include "rejit/inliner_map.h"
#include "rejit/patch_table.h"
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
    ModuleID request_modules[AIP_MAX_INLINERS_PER_REQUEST + 1];
    mdMethodDef request_methods[AIP_MAX_INLINERS_PER_REQUEST + 1];
    aip_method_key request_callers[AIP_MAX_INLINERS_PER_REQUEST];
} aip_apply_scratch;

/* Marks the calling thread as the one that may use `scratch` (the worker, when it starts). */
void aip_apply_scratch_claim(aip_apply_scratch *scratch);

/* An install of a batch whose publish is held back (apply_batch.c): the body it prepared, for
 * the generation and the target's module and token, published with the batch's others once
 * every install of the batch is prepared. */
typedef struct aip_held_publish {
    aip_prepared_rejit *prepared; /* NULL: nothing was prepared (or the original IL) */
    alvk_generation_id id;
    uintptr_t module_id;
    uint32_t token;
    uint32_t flags; /* the patch's install flags (ALVK_INSTALL_INLINER_FALLBACK) */
} aip_held_publish;

/* The state the apply path reads and changes. */
typedef struct aip_apply_env {
    ICorProfilerInfo15 *info;
    aip_rejit_state *rejit;
    aip_module_catalog *catalog;
    aip_inliner_map *inliners;
    aip_emitter *emitter;
    aip_apply_scratch *scratch;
    aip_held_publish *held; /* NULL; a batch's install: publish holds its body here */
} aip_apply_env;

/* Why a generation was refused, as its record keeps it: recorded once, by the command. */
typedef struct aip_refusal {
    uint32_t failing;    /* the relocation (or instruction) it came from */
    int32_t metadata_hr; /* the metadata HRESULT behind it, or 0 */
    int type_mismatch;   /* the stack-type check refused it: `types` says where */
    aip_stack_result types;
} aip_refusal;

typedef enum aip_patch_command_kind {
    AIP_PATCH_INSTALL = 1,
    AIP_PATCH_REPLACE = 2,
    AIP_PATCH_REMOVE = 3,
} aip_patch_command_kind;

/* An exact-dispatch command (install, replace, remove), as queued. */
typedef struct aip_patch_command {
    uint32_t kind;
    uint32_t index; /* the patch's slot (held by its pending count) */
    uint64_t owner;
    uint64_t replacement;
    uint64_t replacement_module; /* install and replace: the replacement as a method (ABI 3.4), */
    uint32_t replacement_token;  /* for the direct call; both 0: calli only */
    uint64_t queued_ns;
    uint32_t token;
    uint32_t added_owner;          /* install: the owner was not holding the patch before */
    alvk_generation_id generation; /* install and replace: the dispatch generation */
    alvk_command_id command;
    alvk_status resolve_status; /* install: why no module copy resolved when it was queued */
    uint8_t signature_hash[32];
    uint8_t body_identity[32];
} aip_patch_command;

/* A submitted generation, copied off the caller's memory. */
typedef struct aip_staged_generation {
    alvk_generation g; /* its pointers point into `storage` */
    alvk_generation_id id;
    alvk_command_id command;
    uint32_t index;
    uint32_t added_owner;
    alvk_status resolve_status; /* why no module copy resolved when it was queued */
    uint64_t queued_ns;
    _Alignas(8) uint8_t storage[];
} aip_staged_generation;

/* A heap copy of a validated generation; NULL when out of memory. Freed with free(). */
aip_staged_generation *aip_generation_stage(const alvk_generation *g);

/* The worker queue's commands (runtime/command_queue.h): `context` is the queue's, the
 * const aip_apply_env * the worker was started with.
 * aip_apply_patch_command (payload: aip_patch_command) and aip_apply_staged_generation
 * (payload: aip_staged_generation *, freed) run a queued command to its end: the patch's
 * state, the command's record, waiters woken; they return its result. The discard functions
 * finish a command that will never run (the worker stopped) with ALVK_E_WORKER_UNAVAILABLE.
 * aip_apply_rollbacks (payload unused) returns every patch with a rollback due to its last
 * body that compiled. */
alvk_status aip_apply_patch_command(void *payload, void *context);
void aip_discard_patch_command(void *payload, void *context);
alvk_status aip_apply_staged_generation(void *payload, void *context);
void aip_discard_staged_generation(void *payload, void *context);
alvk_status aip_apply_rollbacks(void *payload, void *context);

/* The batch's pieces of a command (apply_batch.c), on the worker: an install run as
 * aip_apply_patch_command runs it, up to its publish, which it holds in *held (*a filled as for
 * a granted publish, but for the request: the batch requests every target at once); a
 * refused generation's record; and the end of an install's command, as every command ends
 * (command 0: a batch's patch, whose command ends with the batch). */
alvk_status aip_apply_install_held(const aip_apply_env *env, const aip_patch_command *c,
                                   const aip_patch *p, aip_refusal *why, aip_rejit_applied *a,
                                   aip_held_publish *held);
/* ABI 3.6: a generation of a batch (apply_generation_batch.c) run as
 * aip_apply_staged_generation runs it, up to its publish, held in *held as above. */
alvk_status aip_apply_generation_held(const aip_apply_env *env, aip_staged_generation *s,
                                      const aip_patch *p, aip_refusal *why, aip_rejit_applied *a,
                                      aip_held_publish *held);
void aip_apply_record_refusal(const aip_apply_env *env, uint32_t index, alvk_generation_id id,
                              alvk_status status, const aip_refusal *why);
void aip_apply_finish(const aip_apply_env *env, uint32_t index, alvk_command_id command,
                      const aip_patch *before, alvk_status status, uint64_t added_owner,
                      uint64_t queued_ns, aip_rejit_applied *a);
/* Every rollback due, served: once after a batch's installs finish (aip_apply_finish does not). */
void aip_apply_rollbacks_once(const aip_apply_env *env);

#endif
