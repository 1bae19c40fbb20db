/* The owner decision: computed from a copy of the patch, committed after the publish. */
#include "rejit/owner_decision.h"

#include <string.h>

alvk_patch_state aip_owner_end_state(alvk_patch_state before, alvk_status status)
{
    if (before != ALVK_PATCH_PENDING)
        return before;
    return status == ALVK_OK               ? ALVK_PATCH_ACTIVE
           : status == ALVK_E_REJIT_FAILED ? ALVK_PATCH_FAILED
                                           : ALVK_PATCH_REJECTED;
}

static int find(const aip_patch *p, uint64_t owner)
{
    for (uint32_t i = 0; i < p->owner_count; ++i)
        if (p->owners[i] == owner)
            return (int)i;
    return -1;
}

/* Nothing to publish: `status`, and the state that follows from it. */
static void only(aip_owner_decision *d, alvk_patch_state before, alvk_status status)
{
    memset(d, 0, sizeof *d);
    d->successor = -1;
    d->granted.state = aip_owner_end_state(before, status);
    d->granted.status = status;
    d->refused = d->granted;
}

/* The newest body set by an owner other than slot `leaving`, or -1 (the original). */
static int successor(const aip_patch *p, int leaving)
{
    int at = -1;
    uint64_t newest = 0;
    for (uint32_t i = 0; i < p->owner_count; ++i)
        if ((int)i != leaving && p->owner_bodies[i] != NULL && p->owner_order[i] > newest) {
            newest = p->owner_order[i];
            at = (int)i;
        }
    return at;
}

void aip_owner_decide_leave(const aip_patch *p, uint64_t owner, aip_owner_decision *d)
{
    int at = find(p, owner);
    if (aip_patch_state_is_terminal(p->state)) {
        only(d, p->state, ALVK_E_PATCH_ENDED); /* ended (e.g. unloaded) while it waited */
        return;
    }
    if (p->state != ALVK_PATCH_ACTIVE || at < 0) {
        only(d, p->state, ALVK_E_NOT_OWNER);
        return;
    }
    only(d, p->state, ALVK_OK);
    d->granted.drop_owner = owner;
    d->refused.status = ALVK_E_REJIT_FAILED; /* its body still runs: it keeps holding */
    if (p->owner_count == 1) {
        d->publish = 1; /* the original everywhere */
        d->closes = 1;
        d->granted.state = ALVK_PATCH_REMOVED;
        return;
    }
    d->successor = successor(p, at);
    d->id = d->successor >= 0 ? p->owner_bodies[d->successor]->generation : 0;
    d->publish = d->id != p->current_generation; /* else already in force */
}

void aip_owner_decide_end(const aip_patch *p, alvk_patch_state before, const aip_owner_command *c,
                          alvk_status status, aip_owner_decision *d)
{
    only(d, before, status);
    if (c->change != AIP_OWNER_SET || aip_patch_state_is_terminal(before))
        return;
    if (status == ALVK_OK) {
        d->granted.body_owner = c->owner;
        d->refused = d->granted;
        return;
    }
    if (!c->added || find(p, c->owner) < 0)
        return;
    d->granted.drop_owner = c->owner;
    if (before == ALVK_PATCH_PENDING || aip_patch_state_is_terminal(p->state) ||
        p->owner_count > 1) {
        d->refused = d->granted;
        return;
    }
    /* A failed join whose other owners all left while it waited: the original restored. */
    d->publish = 1;
    d->closes = 1;
    d->granted.state = ALVK_PATCH_REMOVED;
    d->refused.drop_owner = 0; /* still patched: it keeps holding */
}

const aip_owner_result *aip_owner_result_of(const aip_owner_decision *d, int publish_granted)
{
    return d->publish && !publish_granted ? &d->refused : &d->granted;
}
