/* A removal prepared for the command runner (apply_batch.h): it prepares no body, it decides
 * one. The owner decision (owner_decision.h, made on the live patch: rejit_owners.h) says
 * which body the owner's leaving puts in force: the newest body a remaining owner set, or the
 * original when none did or nobody remains; nothing when that body is already in force. The
 * runner publishes it and commits the decision. Runs on the worker thread only. */
#ifndef AIP_APPLY_REMOVAL_H
#define AIP_APPLY_REMOVAL_H

#include "rejit/apply_batch.h"

/* Removal `c`: the decision in step->d (step->decided), the body it puts in force in
 * step->held (step->due) with its dispatch telemetry in step->a; returns the decision's
 * result (ALVK_E_NOT_OWNER, ALVK_E_PATCH_ENDED: nothing to publish). */
alvk_status aip_apply_removal_prepare(const aip_apply_env *env, const aip_patch_command *c,
                                      aip_batch_step *step);

#endif
