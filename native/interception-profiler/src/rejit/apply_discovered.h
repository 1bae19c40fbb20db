/* The worker's drain of the callers found as they were compiled (rejit/caller_discovery.h):
 * each one still calling a target that is carried, not routed yet, not itself a target, is
 * routed to the target's carrier as a known inliner is (aip_redirect_caller) once the carrier
 * is armed (the target compiled that body itself: rejit/carried_targets.h), kept for a later
 * drain until then; the callers routed are re-JIT'd with one request. Their code keeps its real
 * call until the runtime re-JITs them, at their next call. Worker thread. */
#ifndef AIP_APPLY_DISCOVERED_H
#define AIP_APPLY_DISCOVERED_H

#include "alvorkit_interception_profiler.h"

/* The command (aip_command_fn; context: the worker's aip_apply_env, payload unused). ALVK_OK. */
alvk_status aip_apply_discovered(void *payload, void *context);

#endif
