/* The worker's half of install, replace and remove: validation against the loaded method,
 * metadata emission, the dispatch body as a PreparedRejit snapshot, and the ReJIT request. */
#ifndef AIP_PATCH_WORKER_H
#define AIP_PATCH_WORKER_H

#include "alvorkit_interception_profiler.h"

#include <stdint.h>

typedef enum aip_patch_command_kind {
    AIP_PATCH_INSTALL = 1,
    AIP_PATCH_REPLACE = 2,
    AIP_PATCH_REMOVE = 3,
} aip_patch_command_kind;

typedef struct aip_patch_command {
    uint32_t kind;
    uint32_t index;     /* the patch's slot (held by its pending count) */
    uint64_t owner;
    uint64_t replacement;
    uint64_t queued_ns;
    uint32_t token;
    uint32_t added_owner; /* install: the owner was not holding the patch before */
    alvk_generation_id generation; /* install and replace: the dispatch generation */
    alvk_command_id command;
    alvk_mvid mvid;
    uint64_t module_id;         /* install: the copy resolved when it was queued (0: none) */
    uint32_t module_epoch;
    alvk_status resolve_status; /* install: why no copy resolved */
    uint8_t signature_hash[32];
    uint8_t body_identity[32];
} aip_patch_command;

/* aip_command_fn and aip_command_discard_fn for the queue; context is the runtime. */
alvk_status aip_patch_run(void *payload, void *context);
void aip_patch_discard(void *payload, void *context);

struct aip_runtime;
struct aip_patch;
/* The end of any patch command (generations too): the patch state that follows from
 * `status`, the owner an install added taken back out on failure (restoring the original
 * if nobody else holds the patch), and RejitState told. */
void aip_patch_finish(struct aip_runtime *rt, uint32_t index, alvk_command_id command,
                      const struct aip_patch *before, alvk_status status, uint64_t added_owner,
                      uint64_t queued_ns);

#endif
