/* What the worker is handed: the queued commands (an exact-dispatch install, replace or
 * removal; a submitted generation, copied off the caller's memory) and what a refused
 * generation's record keeps. Types only. */
#ifndef AIP_APPLY_COMMAND_H
#define AIP_APPLY_COMMAND_H

#include "alvorkit_interception_profiler.h"
#include "il/il_stack_types.h"

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

#endif
