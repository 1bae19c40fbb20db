/* The owner set's changes as the worker makes them, for the RejitState tests: a command's
 * owner decision taken on the live patch (aip_rejit_decide_end, aip_rejit_decide_leave), then
 * committed on the side its publish went (aip_rejit_applied_owner) in one transition
 * (aip_rejit_commit), as rejit/apply_batch.c does. Include after cmocka.h. */
#ifndef AIP_TEST_OWNER_STEPS_H
#define AIP_TEST_OWNER_STEPS_H

#include <string.h>

#include "rejit/owner_decision.h"
#include "rejit/rejit_owners.h"
#include "rejit/rejit_state.h"

/* Commits decision d on the side its publish went (granted: 1 when the publish, if any, was
 * granted), with `replacement` as the body owner's replacement; finish: the command ends with
 * the decision's state and status. Returns that status. */
static inline alvk_status owner_commit(aip_rejit_state *st, uint32_t index, const aip_owner_decision *d,
                                int granted, uint64_t replacement, int finish)
{
    aip_rejit_applied a;
    memset(&a, 0, sizeof a);
    aip_rejit_applied_owner(&a, d, granted, finish);
    a.owner_replacement = replacement;
    if (finish)
        a.queued_ns = aip_monotonic_ns();
    aip_rejit_commit(st, index, &a);
    return aip_owner_result_of(d, granted)->status;
}

/* The end of a command that put owner's body in force (an install, a replace, a generation)
 * and found the patch in `before`: decided with the publish's `status`, committed, the
 * command ended. `added`: the command added the owner when it was accepted. */
static inline alvk_status owner_set(aip_rejit_state *st, uint32_t index, alvk_patch_state before,
                             uint64_t owner, int added, alvk_status status, uint64_t replacement)
{
    aip_owner_command c = {AIP_OWNER_SET, owner, added};
    aip_owner_decision d;
    aip_patch now;
    aip_rejit_decide_end(st, index, before, &c, status, &d, &now);
    return owner_commit(st, index, &d, 1, replacement, 1);
}

/* An install of owner joining the live patch at index (ACTIVE), its command ended. */
static inline void owner_join(aip_rejit_state *st, const alvk_mvid *mvid, uintptr_t module,
                       uint32_t epoch, uint32_t token, uint32_t index, uint64_t owner)
{
    uint32_t joined = 0;
    alvk_patch_handle h = 0;
    int added = 0;
    assert_int_equal(
        aip_rejit_begin_install(st, mvid, module, epoch, token, owner, 0, &joined, &h, &added),
        ALVK_OK);
    assert_int_equal(joined, index);
    assert_true(added);
    assert_int_equal(owner_set(st, index, ALVK_PATCH_ACTIVE, owner, 1, ALVK_OK, 0), ALVK_OK);
}

/* owner's leaving decided (not committed): *d; *successor the body it leaves in force (the
 * newest another owner set, still held by that owner; NULL: the original) and *replacement
 * that owner's replacement (0: a generation, or the original). Returns the body to publish: a
 * new reference when d->publish (NULL: the original), else NULL. */
static inline aip_prepared_rejit *owner_decide_leave(aip_rejit_state *st, uint32_t index,
                                                     uint64_t owner, aip_owner_decision *d,
                                                     const aip_prepared_rejit **successor,
                                                     uint64_t *replacement)
{
    aip_patch now;
    aip_prepared_rejit *body = NULL;
    aip_rejit_decide_leave(st, index, owner, d, &now, &body);
    *successor = d->successor >= 0 ? now.owner_bodies[d->successor] : NULL;
    *replacement = d->successor >= 0 ? now.owner_replacements[d->successor] : 0;
    return body;
}

/* A removal by owner as the worker runs it: decided, its body published when the decision
 * says so (granted), committed, the command ended. Returns the decision's granted status. */
static inline alvk_status owner_leave(aip_rejit_state *st, uint32_t index, uint64_t owner)
{
    aip_owner_decision d;
    const aip_prepared_rejit *successor = NULL;
    uint64_t replacement = 0;
    aip_prepared_rejit *body = owner_decide_leave(st, index, owner, &d, &successor, &replacement);
    if (d.publish)
        aip_prepared_release(aip_rejit_publish(st, index, body));
    else
        aip_prepared_release(body);
    return owner_commit(st, index, &d, 1, replacement, 1);
}

/* The owners holding the patch at index. */
static inline uint32_t owner_count(aip_rejit_state *st, uint32_t index)
{
    aip_patch copy;
    aip_rejit_copy(st, index, &copy);
    return copy.owner_count;
}

#endif
