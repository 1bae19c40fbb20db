/* The worker's apply path: every command that changes what a patched method runs prepares
 * one generation (check the body's stack types, emit its relocations, check their members,
 * snapshot it as a PreparedRejit), which the command runner (apply_batch.h) then publishes
 * and requests with the rest of its command (apply_publish.h). An exact-dispatch install or
 * replace is a generation too: on the direct-call path (ABI 3.4) the body calls the
 * replacement's MethodDef, or a MemberRef emitted as relocations (TypeRef chain under an
 * AssemblyRef, then the MemberRef); on the calli path, and whenever the direct call cannot
 * work, the body calls the entry point through calli with one StandAloneSig relocation. A remove
 * publishes a remaining owner's body or the original IL, as a publish of one. Rollbacks of
 * bodies that failed to compile come through here as well. Runs on the worker thread only. */
#ifndef AIP_APPLY_GENERATION_H
#define AIP_APPLY_GENERATION_H

#include "il/il_stack_types.h"
#include "rejit/apply_publish.h"
#include "rejit/patch_table.h"

#include <stdint.h>

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

/* The worker queue's rollback command (runtime/command_queue.h; `context` the
 * const aip_apply_env * the worker was started with, payload unused): returns every patch
 * with a rollback due to its last body that compiled. */
alvk_status aip_apply_rollbacks(void *payload, void *context);

/* A removal (kind AIP_PATCH_REMOVE) run to its end: the owner taken out, the body of a
 * remaining owner (or the original, its version active again) put in force, the patch's
 * state and the command's record, waiters woken; returns its result. */
alvk_status aip_apply_remove(const aip_apply_env *env, const aip_patch_command *c);

/* The command runner's pieces (apply_batch.c), on the worker. An install or replace run up
 * to its publish, which it holds in *held (*a filled as for a granted publish, but for the
 * request: the runner requests every target of the command at once); a generation
 * (apply_generation_batch.c) the same way. */
alvk_status aip_apply_install_held(const aip_apply_env *env, const aip_patch_command *c,
                                   const aip_patch *p, aip_refusal *why, aip_rejit_applied *a,
                                   aip_held_publish *held);
alvk_status aip_apply_generation_held(const aip_apply_env *env, aip_staged_generation *s,
                                      const aip_patch *p, aip_refusal *why, aip_rejit_applied *a,
                                      aip_held_publish *held);
/* A refused generation's record; and the end of a patch's part of a command, as every
 * command ends (command 0: a batch's patch, whose command ends with the batch). */
void aip_apply_record_refusal(const aip_apply_env *env, uint32_t index, alvk_generation_id id,
                              alvk_status status, const aip_refusal *why);
void aip_apply_finish(const aip_apply_env *env, uint32_t index, alvk_command_id command,
                      const aip_patch *before, alvk_status status, uint64_t added_owner,
                      uint64_t queued_ns, aip_rejit_applied *a);
/* Every rollback due, served: once after a command's patches finish (aip_apply_finish does
 * not). */
void aip_apply_rollbacks_once(const aip_apply_env *env);

#endif
