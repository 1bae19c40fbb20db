/* RejitState's carrier accounting: what the worker records on a patch of how its target's body
 * reaches the callers that inlined (or would inline) it (rejit/apply_redirects.h): whether the
 * body in force is carried and by which carrier, or why not, and how many callers were
 * redirected to the carrier, found as they compiled, or kept the real call. Read back with the
 * telemetry (ABI 3.10). Lock-held updates of the newest patch of (module, token); no-ops for a
 * method without one. Pure: no runtime calls. */
#ifndef AIP_REJIT_CARRIERS_H
#define AIP_REJIT_CARRIERS_H

#include "rejit/patch_table.h"

#include <stdint.h>

/* The target (module, token) now runs a body whose carrier is `carrier` (0: none) in `state`. */
void aip_rejit_note_carrier(aip_rejit_state *st, uintptr_t module_id, uint32_t token,
                            alvk_carrier_state state, uint32_t carrier);

/* What happened to one caller of the target (module, token). */
typedef enum aip_caller_outcome {
    AIP_CALLER_REDIRECTED, /* a known inliner's body redirected to the carrier */
    AIP_CALLER_DISCOVERED, /* a caller found as it compiled, redirected to the carrier */
    AIP_CALLER_KEPT,       /* it keeps the real call */
} aip_caller_outcome;
void aip_rejit_count_caller(aip_rejit_state *st, uintptr_t module_id, uint32_t token,
                            aip_caller_outcome outcome);

#endif
