/* A removal: the owner's leaving decided, the body it leaves in force held for the runner. */
#include "rejit/apply_removal.h"

#include "rejit/rejit_owners.h"
#include "rejit/rejit_state.h"

alvk_status aip_apply_removal_prepare(const aip_apply_env *env, const aip_patch_command *c,
                                      aip_batch_step *step)
{
    aip_patch now;
    aip_prepared_rejit *body = NULL;
    aip_rejit_decide_leave(env->rejit, c->index, c->owner, &step->d, &now, &body);
    step->decided = 1;
    if (step->d.publish) {
        aip_held_publish h = {body,     step->d.id, now.module_id, now.token, now.telemetry.flags,
                              c->index, NULL};
        step->held = h;
        step->due = 1;
        /* The body going back in force, and its path (NULL: the original). */
        aip_rejit_applied_dispatch(&step->a, &now, body != NULL ? &body->dispatch : NULL);
    }
    return step->d.granted.status;
}
