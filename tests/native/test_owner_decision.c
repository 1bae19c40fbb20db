/* The owner decision (rejit/owner_decision.h): what a command leads to for a patch's owners,
 * computed from a copy of the patch; and the same decisions made on RejitState's live patch
 * and committed in one transition (rejit/rejit_owners.h, aip_rejit_commit), as the command
 * runner commits them. No runtime. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "rejit/owner_decision.h"
#include "rejit/rejit_generations.h"
#include "rejit/rejit_owners.h"
#include "rejit/rejit_state.h"

static const uint8_t k_body[] = {0x0A, 0x2A}; /* a tiny header and ret */

/* ---- On a copy of the patch -------------------------------------------------------------- */

/* The bodies the hand-made patches point at (released by each test). */
static aip_prepared_rejit *bodies[8];
static uint32_t body_count;

static aip_prepared_rejit *body(alvk_generation_id id)
{
    aip_prepared_rejit *b = aip_prepared_create(id, k_body, sizeof k_body, NULL, 0);
    assert_non_null(b);
    bodies[body_count++] = b;
    return b;
}

static int release_bodies(void **state)
{
    (void)state;
    for (uint32_t i = 0; i < body_count; ++i)
        aip_prepared_release(bodies[i]);
    body_count = 0;
    return 0;
}

/* An active patch whose generation `current` is in force. */
static void active(aip_patch *p, alvk_generation_id current)
{
    memset(p, 0, sizeof *p);
    p->in_use = 1;
    p->state = ALVK_PATCH_ACTIVE;
    p->current_generation = current;
}

/* Owner `owner` holding p, its last body `id` (0: none) set at `order`. */
static void holds(aip_patch *p, uint64_t owner, alvk_generation_id id, uint64_t order)
{
    uint32_t at = p->owner_count++;
    p->owners[at] = owner;
    p->owner_bodies[at] = id != 0 ? body(id) : NULL;
    p->owner_order[at] = id != 0 ? order : 0;
}

static void last_removal_restores_the_original(void **state)
{
    (void)state;
    aip_patch p;
    active(&p, 5);
    holds(&p, 0xA, 5, 1);
    aip_owner_decision d;
    aip_owner_decide_leave(&p, 0xA, &d);
    assert_true(d.publish);
    assert_int_equal(d.successor, -1);
    assert_int_equal(d.id, 0);
    assert_true(d.closes);
    assert_int_equal(d.granted.drop_owner, 0xA);
    assert_int_equal(d.granted.state, ALVK_PATCH_REMOVED);
    assert_int_equal(d.granted.status, ALVK_OK);
    /* Refused: nothing changes; the owner keeps holding what still runs. */
    assert_int_equal(d.refused.drop_owner, 0);
    assert_int_equal(d.refused.state, ALVK_PATCH_ACTIVE);
    assert_int_equal(d.refused.status, ALVK_E_REJIT_FAILED);
    assert_ptr_equal(aip_owner_result_of(&d, 0), &d.refused);
    assert_ptr_equal(aip_owner_result_of(&d, 1), &d.granted);
}

static void removal_of_one_of_two_puts_the_others_newest_body(void **state)
{
    (void)state;
    aip_patch p;
    active(&p, 7);
    holds(&p, 0xA, 7, 4); /* A's body is the newest and in force */
    holds(&p, 0xB, 3, 1);
    holds(&p, 0xC, 6, 3); /* of the others, C set the newest */
    aip_owner_decision d;
    aip_owner_decide_leave(&p, 0xA, &d);
    assert_true(d.publish);
    assert_int_equal(d.successor, 2);
    assert_int_equal(d.id, 6);
    assert_false(d.closes);
    assert_int_equal(d.granted.drop_owner, 0xA);
    assert_int_equal(d.granted.state, ALVK_PATCH_ACTIVE);
    assert_int_equal(d.refused.drop_owner, 0);
    assert_int_equal(d.refused.status, ALVK_E_REJIT_FAILED);
    /* B leaving while A's body runs: nothing to publish, B just goes. */
    aip_owner_decide_leave(&p, 0xB, &d);
    assert_false(d.publish);
    assert_int_equal(d.id, 7);
    assert_int_equal(d.granted.drop_owner, 0xB);
    assert_int_equal(aip_owner_result_of(&d, 0)->drop_owner, 0xB);
}

static void removal_leaving_owners_without_bodies_restores_the_original(void **state)
{
    (void)state;
    aip_patch p;
    active(&p, 4);
    holds(&p, 0xA, 4, 1);
    holds(&p, 0xB, 0, 0); /* joined, never put a body in force */
    aip_owner_decision d;
    aip_owner_decide_leave(&p, 0xA, &d);
    assert_true(d.publish);
    assert_int_equal(d.successor, -1);
    assert_int_equal(d.id, 0);
    assert_false(d.closes); /* B still holds it */
    assert_int_equal(d.granted.state, ALVK_PATCH_ACTIVE);
}

static void removal_refusals(void **state)
{
    (void)state;
    aip_patch p;
    active(&p, 4);
    holds(&p, 0xA, 4, 1);
    aip_owner_decision d;
    aip_owner_decide_leave(&p, 0xB, &d);
    assert_false(d.publish);
    assert_int_equal(d.granted.status, ALVK_E_NOT_OWNER);
    assert_int_equal(d.granted.drop_owner, 0);
    assert_int_equal(d.granted.state, ALVK_PATCH_ACTIVE);
    p.state = ALVK_PATCH_UNLOADED;
    aip_owner_decide_leave(&p, 0xA, &d);
    assert_false(d.publish);
    assert_int_equal(d.granted.status, ALVK_E_PATCH_ENDED);
    assert_int_equal(d.granted.state, ALVK_PATCH_UNLOADED);
    assert_int_equal(d.granted.drop_owner, 0);
}

static void joins_granted_and_refused(void **state)
{
    (void)state;
    aip_patch p;
    active(&p, 4);
    holds(&p, 0xA, 4, 1);
    holds(&p, 0xB, 0, 0); /* B joined when its install was accepted */
    aip_owner_command join = {AIP_OWNER_SET, 0xB, 1};
    aip_owner_decision d;
    aip_owner_decide_end(&p, ALVK_PATCH_ACTIVE, &join, ALVK_OK, &d);
    assert_false(d.publish);
    assert_int_equal(d.granted.body_owner, 0xB);
    assert_int_equal(d.granted.drop_owner, 0);
    assert_int_equal(d.granted.state, ALVK_PATCH_ACTIVE);
    /* Refused while A holds: B taken out, A's body stays. */
    aip_owner_decide_end(&p, ALVK_PATCH_ACTIVE, &join, ALVK_E_MEMBER_NOT_FOUND, &d);
    assert_false(d.publish);
    assert_int_equal(d.granted.body_owner, 0);
    assert_int_equal(d.granted.drop_owner, 0xB);
    assert_int_equal(d.granted.status, ALVK_E_MEMBER_NOT_FOUND);
    /* A replace by an owner that was there before takes nobody out. */
    aip_owner_command replace = {AIP_OWNER_SET, 0xA, 0};
    aip_owner_decide_end(&p, ALVK_PATCH_ACTIVE, &replace, ALVK_E_REJIT_FAILED, &d);
    assert_int_equal(d.granted.drop_owner, 0);
    assert_int_equal(d.granted.state, ALVK_PATCH_ACTIVE);
}

static void first_command_sets_the_state(void **state)
{
    (void)state;
    aip_patch p;
    active(&p, 0);
    p.state = ALVK_PATCH_PENDING;
    holds(&p, 0xA, 0, 0);
    aip_owner_command install = {AIP_OWNER_SET, 0xA, 1};
    aip_owner_decision d;
    aip_owner_decide_end(&p, ALVK_PATCH_PENDING, &install, ALVK_OK, &d);
    assert_int_equal(d.granted.state, ALVK_PATCH_ACTIVE);
    assert_int_equal(d.granted.body_owner, 0xA);
    aip_owner_decide_end(&p, ALVK_PATCH_PENDING, &install, ALVK_E_REJIT_FAILED, &d);
    assert_int_equal(d.granted.state, ALVK_PATCH_FAILED);
    assert_int_equal(d.granted.drop_owner, 0xA);
    assert_false(d.publish); /* nothing of it was in force */
    aip_owner_decide_end(&p, ALVK_PATCH_PENDING, &install, ALVK_E_STACK_TYPE_MISMATCH, &d);
    assert_int_equal(d.granted.state, ALVK_PATCH_REJECTED);
}

static void failed_join_whose_others_left_restores(void **state)
{
    (void)state;
    aip_patch p;
    active(&p, 0); /* the others left: the original is in force, the joiner alone holds */
    holds(&p, 0xB, 0, 0);
    aip_owner_command join = {AIP_OWNER_SET, 0xB, 1};
    aip_owner_decision d;
    aip_owner_decide_end(&p, ALVK_PATCH_ACTIVE, &join, ALVK_E_MEMBER_NOT_FOUND, &d);
    assert_true(d.publish);
    assert_int_equal(d.id, 0);
    assert_true(d.closes);
    assert_int_equal(d.granted.drop_owner, 0xB);
    assert_int_equal(d.granted.state, ALVK_PATCH_REMOVED);
    assert_int_equal(d.granted.status, ALVK_E_MEMBER_NOT_FOUND);
    assert_int_equal(d.refused.drop_owner, 0); /* still patched: it keeps holding */
    assert_int_equal(d.refused.state, ALVK_PATCH_ACTIVE);
    /* Ended meanwhile (unloaded): nothing to restore, nobody to take out. */
    p.state = ALVK_PATCH_UNLOADED;
    p.owner_count = 0;
    aip_owner_decide_end(&p, ALVK_PATCH_ACTIVE, &join, ALVK_E_MEMBER_NOT_FOUND, &d);
    assert_false(d.publish);
    assert_int_equal(d.granted.drop_owner, 0);
}

/* ---- On RejitState's live patch, committed ------------------------------------------------ */

static aip_rejit_state st;
static const alvk_mvid k_mvid = {{9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5, 6}};
enum { MODULE = 0x7100, OUTER = 0x06000020, INNER = 0x06000021 };

static int free_table(void **state)
{
    (void)state;
    if (st.chunks != NULL)
        aip_rejit_destroy(&st);
    memset(&st, 0, sizeof st);
    return 0;
}

/* An install of `token` by `owner` accepted (joining or opening its patch). */
static aip_rejit_accepted accept_install(uint32_t token, uint64_t owner)
{
    aip_rejit_request r = {AIP_REQUEST_INSTALL, &k_mvid, MODULE, 1, token, 0, 0, owner, 0};
    aip_rejit_accepted a;
    assert_int_equal(aip_rejit_accept(&st, &r, &a), ALVK_OK);
    return a;
}

/* What the runner commits for a decision, on the side its publish went. */
static void commit(uint32_t index, const aip_owner_decision *d, int granted,
                   alvk_command_id command, aip_rejit_applied *a)
{
    const aip_owner_result *r = aip_owner_result_of(d, granted);
    a->owner_body = r->body_owner;
    a->drop_owner = r->drop_owner;
    a->decided_close = d->closes;
    a->finish = 1;
    a->command = command;
    a->state = r->state;
    a->status = r->status;
    a->queued_ns = aip_monotonic_ns();
    aip_rejit_commit(&st, index, a);
}

/* The body of generation `id` published and its install's end committed as granted. */
static void installed(const aip_rejit_accepted *acc, uint64_t owner)
{
    aip_rejit_set_target(&st, acc->index, MODULE, 1);
    aip_prepared_release(aip_rejit_publish(
        &st, acc->index, aip_prepared_create(acc->generation, k_body, sizeof k_body, NULL, 0)));
    aip_request_mark mark;
    memset(&mark, 0, sizeof mark);
    mark.index = acc->index;
    mark.id = acc->generation;
    aip_rejit_mark_requested(&st, &mark, 1, aip_monotonic_ns());
    aip_patch before, now;
    aip_rejit_copy(&st, acc->index, &before);
    aip_owner_command c = {AIP_OWNER_SET, owner, acc->added_owner};
    aip_owner_decision d;
    aip_rejit_decide_end(&st, acc->index, before.state, &c, ALVK_OK, &d, &now);
    assert_false(d.publish);
    aip_rejit_applied a;
    memset(&a, 0, sizeof a);
    commit(acc->index, &d, 1, acc->command, &a);
}

/* A patch on a method (outer) whose body calls another patched method (inner): removing the
 * inner patch, granted or refused, leaves the outer patch as it was. */
static void removing_an_inner_patch_never_undoes_the_outer_one(void **state)
{
    (void)state;
    assert_int_equal(aip_rejit_init(&st, ALVK_MIN_PATCH_CAPACITY), 0);
    aip_rejit_accepted outer = accept_install(OUTER, 0x01);
    installed(&outer, 0x01);
    aip_rejit_accepted inner = accept_install(INNER, 0x02);
    installed(&inner, 0x02);
    aip_patch outer_before;
    aip_rejit_copy(&st, outer.index, &outer_before);
    assert_int_equal(outer_before.state, ALVK_PATCH_ACTIVE);
    assert_non_null(outer_before.prepared);

    for (int granted = 0; granted <= 1; ++granted) {
        uint32_t index = 0;
        assert_int_equal(aip_rejit_begin_command(&st, inner.handle, 0x02, &index), ALVK_OK);
        aip_owner_decision d;
        aip_patch now;
        aip_prepared_rejit *successor = NULL;
        aip_rejit_decide_leave(&st, index, 0x02, &d, &now, &successor);
        assert_true(d.publish);
        assert_null(successor); /* the original */
        assert_true(now.closing);
        /* Nobody joins a patch on its way out: an install of the inner target now opens a
         * new patch (cancelled here). */
        aip_rejit_request r = {AIP_REQUEST_INSTALL, &k_mvid, MODULE, 1, INNER, 0, 0, 0x03, 0};
        aip_rejit_accepted other;
        assert_int_equal(aip_rejit_accept(&st, &r, &other), ALVK_OK);
        assert_int_not_equal(other.index, index);
        aip_rejit_cancel_command(&st, other.index, 0x03);
        aip_rejit_end_command(&st, other.command, ALVK_E_WORKER_UNAVAILABLE);
        if (granted)
            aip_prepared_release(aip_rejit_publish(&st, index, NULL));
        aip_rejit_applied a;
        memset(&a, 0, sizeof a);
        commit(index, &d, granted, 0, &a);
        aip_patch in, out;
        aip_rejit_copy(&st, inner.index, &in);
        aip_rejit_copy(&st, outer.index, &out);
        assert_false(in.closing);
        assert_int_equal(in.state, granted ? ALVK_PATCH_REMOVED : ALVK_PATCH_ACTIVE);
        assert_int_equal(in.owner_count, granted ? 0 : 1);
        assert_int_equal(in.last_status, granted ? ALVK_OK : ALVK_E_REJIT_FAILED);
        /* The outer patch: its owner, its body, its state, untouched. */
        assert_int_equal(out.state, ALVK_PATCH_ACTIVE);
        assert_int_equal(out.owner_count, 1);
        assert_int_equal(out.owners[0], 0x01);
        assert_ptr_equal(out.prepared, outer_before.prepared);
        assert_ptr_equal(out.owner_bodies[0], outer_before.owner_bodies[0]);
        assert_int_equal(out.current_generation, outer_before.current_generation);
    }
    free_table(NULL);
}

/* B joins A's patch; A leaves while B's install waits (the original back: B has no body
 * yet); B's install then fails: nobody holds the patch, the original is restored and the
 * patch ends REMOVED. A refused restore keeps B holding it, open to joins again. */
static void a_failed_join_after_the_others_left_restores(void **state)
{
    (void)state;
    assert_int_equal(aip_rejit_init(&st, ALVK_MIN_PATCH_CAPACITY), 0);
    aip_rejit_accepted a_acc = accept_install(OUTER, 0x0A);
    installed(&a_acc, 0x0A);
    aip_rejit_accepted b_acc = accept_install(OUTER, 0x0B);
    assert_int_equal(b_acc.index, a_acc.index); /* joined */
    assert_true(b_acc.added_owner);

    uint32_t index = 0;
    assert_int_equal(aip_rejit_begin_command(&st, a_acc.handle, 0x0A, &index), ALVK_OK);
    aip_owner_decision d;
    aip_patch now;
    aip_prepared_rejit *successor = NULL;
    aip_rejit_decide_leave(&st, index, 0x0A, &d, &now, &successor);
    assert_true(d.publish);
    assert_false(d.closes); /* B holds it */
    assert_null(successor);
    aip_prepared_release(aip_rejit_publish(&st, index, NULL));
    aip_rejit_applied a;
    memset(&a, 0, sizeof a);
    commit(index, &d, 1, 0, &a);
    aip_patch p;
    aip_rejit_copy(&st, index, &p);
    assert_int_equal(p.state, ALVK_PATCH_ACTIVE);
    assert_int_equal(p.owner_count, 1);
    assert_int_equal(p.owners[0], 0x0B);

    /* B's install fails: the restore is decided; refused first, then granted. */
    aip_owner_command join = {AIP_OWNER_SET, 0x0B, 1};
    aip_rejit_decide_end(&st, index, ALVK_PATCH_ACTIVE, &join, ALVK_E_MEMBER_NOT_FOUND, &d, &now);
    assert_true(d.publish);
    assert_true(d.closes);
    assert_true(now.closing);
    memset(&a, 0, sizeof a);
    commit(index, &d, 0, 0, &a);
    aip_rejit_copy(&st, index, &p);
    assert_false(p.closing);
    assert_int_equal(p.state, ALVK_PATCH_ACTIVE);
    assert_int_equal(p.owner_count, 1); /* B keeps holding: no owner added back by hand */
    assert_int_equal(aip_rejit_joinable_locked(&st, &k_mvid, MODULE, 1, OUTER), (int)index);

    assert_int_equal(aip_rejit_begin_command(&st, b_acc.handle, 0x0B, &index), ALVK_OK);
    aip_rejit_decide_end(&st, index, ALVK_PATCH_ACTIVE, &join, ALVK_E_MEMBER_NOT_FOUND, &d, &now);
    assert_true(d.publish);
    memset(&a, 0, sizeof a);
    commit(index, &d, 1, 0, &a);
    aip_rejit_copy(&st, index, &p);
    assert_int_equal(p.state, ALVK_PATCH_REMOVED);
    assert_int_equal(p.owner_count, 0);
    assert_int_equal(p.last_status, ALVK_E_MEMBER_NOT_FOUND);
    free_table(NULL);
}

/* The owner's body recorded by the commit is the snapshot published, and a later removal of
 * another owner puts exactly that body back. */
static void the_committed_body_is_the_successor(void **state)
{
    (void)state;
    assert_int_equal(aip_rejit_init(&st, ALVK_MIN_PATCH_CAPACITY), 0);
    aip_rejit_accepted a_acc = accept_install(OUTER, 0x0A);
    installed(&a_acc, 0x0A);
    aip_patch after_a;
    aip_rejit_copy(&st, a_acc.index, &after_a);
    aip_rejit_accepted b_acc = accept_install(OUTER, 0x0B);
    installed(&b_acc, 0x0B); /* B's body now in force */
    uint32_t index = 0;
    assert_int_equal(aip_rejit_begin_command(&st, b_acc.handle, 0x0B, &index), ALVK_OK);
    aip_owner_decision d;
    aip_patch now;
    aip_prepared_rejit *successor = NULL;
    aip_rejit_decide_leave(&st, index, 0x0B, &d, &now, &successor);
    assert_true(d.publish);
    assert_ptr_equal(successor, after_a.prepared); /* A's body, a new reference */
    assert_int_equal(d.id, a_acc.generation);
    aip_prepared_release(aip_rejit_publish(&st, index, successor));
    aip_rejit_applied a;
    memset(&a, 0, sizeof a);
    commit(index, &d, 1, 0, &a);
    aip_patch p;
    aip_rejit_copy(&st, index, &p);
    assert_int_equal(p.owner_count, 1);
    assert_int_equal(p.owners[0], 0x0A);
    assert_ptr_equal(p.prepared, after_a.prepared);
    free_table(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(last_removal_restores_the_original, release_bodies),
        cmocka_unit_test_teardown(removal_of_one_of_two_puts_the_others_newest_body,
                                  release_bodies),
        cmocka_unit_test_teardown(removal_leaving_owners_without_bodies_restores_the_original,
                                  release_bodies),
        cmocka_unit_test_teardown(removal_refusals, release_bodies),
        cmocka_unit_test_teardown(joins_granted_and_refused, release_bodies),
        cmocka_unit_test_teardown(first_command_sets_the_state, release_bodies),
        cmocka_unit_test_teardown(failed_join_whose_others_left_restores, release_bodies),
        cmocka_unit_test_teardown(removing_an_inner_patch_never_undoes_the_outer_one, free_table),
        cmocka_unit_test_teardown(a_failed_join_after_the_others_left_restores, free_table),
        cmocka_unit_test_teardown(the_committed_body_is_the_successor, free_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
