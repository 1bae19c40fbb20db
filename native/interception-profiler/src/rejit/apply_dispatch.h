/* The exact-dispatch body of an install or replace, prepared as a generation for the command
 * runner (apply_batch.h): on the direct-call path (ABI 3.4) the body calls the replacement's
 * MethodDef, or a MemberRef emitted as relocations (TypeRef chain under an AssemblyRef, then
 * the MemberRef); on the calli path, and whenever the direct call cannot work, the body calls
 * the entry point through calli with one StandAloneSig relocation. Either body then takes a
 * generation's preparation (apply_generation.h). Runs on the worker thread only. */
#ifndef AIP_APPLY_DISPATCH_H
#define AIP_APPLY_DISPATCH_H

#include "rejit/apply_generation.h"

/* Install or replace `c` on patch `p` as the batch found it: the target resolved and checked
 * (signature and body hashes on install; no generic target; a replace only by an owner of an
 * active patch), the body built and prepared: it in *held, its dispatch telemetry in *a. */
alvk_status aip_apply_dispatch_prepare(const aip_apply_env *env, const aip_patch_command *c,
                                       const aip_patch *p, aip_refusal *why, aip_rejit_applied *a,
                                       aip_held_publish *held);

#endif
