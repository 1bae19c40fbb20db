/* RejitState transitions, snapshots and callback accounting, without a runtime. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "rejit/rejit_carriers.h"
#include "rejit/rejit_events.h"
#include "rejit/rejit_generations.h"
#include "rejit/rejit_owners.h"
#include "rejit/rejit_state.h"

#include "owner_steps.h"

static aip_rejit_state st;
static const alvk_mvid k_mvid = {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}};
enum { TOKEN = 0x06000010, MODULE = 0x7000 };

/* The table emptied (the previous test's freed) with this bound. */
static int fresh_table(uint32_t capacity)
{
    if (st.chunks != NULL)
        aip_rejit_destroy(&st);
    return aip_rejit_init(&st, capacity);
}

static int free_table(void **state)
{
    (void)state;
    aip_rejit_destroy(&st);
    return 0;
}

static alvk_patch_handle installed(uint64_t owner, uint32_t flags, uint32_t *index)
{
    alvk_patch_handle h = 0;
    int added = 0;
    assert_int_equal(aip_rejit_begin_install(&st, &k_mvid, MODULE, 3, TOKEN, owner, flags, index,
                                             &h, &added),
                     ALVK_OK);
    assert_true(added);
    aip_rejit_set_target(&st, *index, MODULE, 3);
    assert_int_equal(owner_set(&st, *index, ALVK_PATCH_PENDING, owner, 1, ALVK_OK, 0), ALVK_OK);
    return h;
}

static void install_then_join_then_remove(void **state)
{
    (void)state;
    assert_int_equal(fresh_table(ALVK_MIN_PATCH_CAPACITY), 0);
    uint32_t index, again;
    alvk_patch_handle h = 0;
    int added = 0;
    assert_int_equal(aip_rejit_begin_install(&st, &k_mvid, MODULE, 3, TOKEN, 7, 0, &index, &h,
                                             &added),
                     ALVK_OK);
    assert_true(added);
    assert_int_equal(aip_rejit_wait(&st, h, 1000000), ALVK_E_TIMEOUT); /* still pending */
    alvk_patch_telemetry t;
    assert_int_equal(aip_rejit_telemetry(&st, h, &t), ALVK_OK);
    assert_int_equal(t.state, ALVK_PATCH_PENDING);
    assert_int_equal(t.pending_commands, 1);
    aip_rejit_set_target(&st, index, MODULE, 3);
    assert_int_equal(owner_set(&st, index, ALVK_PATCH_PENDING, 7, 1, ALVK_OK, 0), ALVK_OK);
    assert_int_equal(aip_rejit_wait(&st, h, 1000000), ALVK_OK);
    /* A second owner joins the same patch. */
    alvk_patch_handle joined = 0;
    assert_int_equal(aip_rejit_begin_install(&st, &k_mvid, MODULE, 3, TOKEN, 8, 0, &again, &joined,
                                             &added),
                     ALVK_OK);
    assert_int_equal(joined, h);
    assert_true(added); /* held from the moment it is queued */
    assert_int_equal(aip_rejit_telemetry(&st, h, &t), ALVK_OK);
    assert_int_equal(t.owner_count, 2);
    assert_int_equal(owner_set(&st, again, ALVK_PATCH_ACTIVE, 8, 1, ALVK_OK, 0), ALVK_OK);
    assert_int_equal(aip_rejit_begin_command(&st, h, 99, &again), ALVK_E_NOT_OWNER);
    /* A removal by an owner that does not hold it: refused, nothing to publish or change. */
    aip_owner_decision d;
    const aip_prepared_rejit *successor = NULL;
    uint64_t replacement = 0;
    assert_null(owner_decide_leave(&st, index, 99, &d, &successor, &replacement));
    assert_int_equal(d.granted.status, ALVK_E_NOT_OWNER);
    assert_int_equal(d.granted.drop_owner, 0);
    assert_false(d.publish);
    assert_int_equal(owner_count(&st, index), 2);
    /* Owner 7 leaves; 8 still holds the patch. */
    assert_int_equal(aip_rejit_begin_command(&st, h, 7, &again), ALVK_OK);
    assert_int_equal(owner_leave(&st, index, 7), ALVK_OK);
    assert_int_equal(owner_count(&st, index), 1);
    assert_int_equal(aip_rejit_begin_command(&st, h, 7, &again), ALVK_E_NOT_OWNER);
    /* The last owner's remove: queued while it holds the patch, run by the worker, which
     * decides it (the original back, the patch REMOVED) before it publishes. */
    assert_int_equal(aip_rejit_begin_command(&st, h, 8, &again), ALVK_OK);
    assert_null(owner_decide_leave(&st, index, 8, &d, &successor, &replacement));
    assert_true(d.publish);
    assert_true(d.closes);
    assert_int_equal(d.successor, -1);
    assert_int_equal(d.granted.state, ALVK_PATCH_REMOVED);
    assert_int_equal(d.granted.drop_owner, 8);
    /* While the restore runs, the patch is closing: an install starts a new patch. */
    uint32_t fresh_index, other;
    alvk_patch_handle fresh = 0;
    assert_int_equal(aip_rejit_begin_install(&st, &k_mvid, MODULE, 3, TOKEN, 9, 0, &fresh_index,
                                             &fresh, &added),
                     ALVK_OK);
    assert_int_not_equal(fresh, h);
    assert_int_equal(aip_rejit_begin_command(&st, h, 8, &other), ALVK_E_PATCH_ENDED);
    aip_rejit_cancel_command(&st, fresh_index, 9);
    aip_prepared_release(aip_rejit_publish(&st, index, NULL));
    assert_int_equal(owner_commit(&st, index, &d, 1, 0, 1), ALVK_OK);
    assert_int_equal(owner_count(&st, index), 0);
    assert_int_equal(aip_rejit_telemetry(&st, h, &t), ALVK_OK);
    assert_int_equal(t.state, ALVK_PATCH_REMOVED);
    assert_int_equal(t.commands_completed, 4); /* two installs, two removals */
    assert_int_equal(t.module_epoch, 3);
    assert_int_equal(aip_rejit_begin_command(&st, h, 8, &again), ALVK_E_PATCH_ENDED);
    assert_int_equal(aip_rejit_begin_command(&st, h + 1, 8, &again), ALVK_E_UNKNOWN_PATCH);
    assert_int_equal(aip_rejit_begin_command(&st, 0, 8, &again), ALVK_E_UNKNOWN_PATCH);
}

/* The last owner's removal refused (the original's publish failed): the owner keeps the
 * patch, ACTIVE, and the patch, closing while the removal ran, is open again: an install joins
 * it. */
static void a_refused_last_removal_keeps_the_owner(void **state)
{
    (void)state;
    assert_int_equal(fresh_table(ALVK_MIN_PATCH_CAPACITY), 0);
    uint32_t index, again;
    alvk_patch_handle h = installed(7, 0, &index);
    assert_int_equal(aip_rejit_begin_command(&st, h, 7, &again), ALVK_OK);
    aip_owner_decision d;
    const aip_prepared_rejit *successor = NULL;
    uint64_t replacement = 0;
    assert_null(owner_decide_leave(&st, index, 7, &d, &successor, &replacement));
    assert_true(d.publish);
    assert_true(d.closes);
    assert_int_equal(aip_rejit_begin_command(&st, h, 7, &again), ALVK_E_PATCH_ENDED);
    assert_int_equal(owner_commit(&st, index, &d, 0, 0, 1), ALVK_E_REJIT_FAILED);
    assert_true(aip_rejit_has_owner(&st, index, 7));
    alvk_patch_telemetry t;
    assert_int_equal(aip_rejit_telemetry(&st, h, &t), ALVK_OK);
    assert_int_equal(t.state, ALVK_PATCH_ACTIVE);
    assert_int_equal(t.last_status, ALVK_E_REJIT_FAILED);
    assert_int_equal(t.owner_count, 1);
    uint32_t joined = 0;
    alvk_patch_handle same = 0;
    int added = 0;
    assert_int_equal(aip_rejit_begin_install(&st, &k_mvid, MODULE, 3, TOKEN, 9, 0, &joined, &same,
                                             &added),
                     ALVK_OK);
    assert_int_equal(same, h);
    assert_true(added);
    aip_rejit_cancel_command(&st, joined, 9);
}

static void cancelled_install_leaves_nothing(void **state)
{
    (void)state;
    assert_int_equal(fresh_table(ALVK_MIN_PATCH_CAPACITY), 0);
    uint32_t index;
    alvk_patch_handle h = 0;
    int added = 0;
    assert_int_equal(aip_rejit_begin_install(&st, &k_mvid, MODULE, 3, TOKEN, 7, 0, &index, &h,
                                             &added),
                     ALVK_OK);
    aip_rejit_cancel_command(&st, index, 7);
    alvk_patch_telemetry t;
    assert_int_equal(aip_rejit_telemetry(&st, h, &t), ALVK_E_UNKNOWN_PATCH);
    assert_int_equal(aip_rejit_wait(&st, h, 1000), ALVK_E_UNKNOWN_PATCH);
}

static void owners_and_slots_are_bounded(void **state)
{
    (void)state;
    assert_int_equal(fresh_table(ALVK_MIN_PATCH_CAPACITY), 0);
    uint32_t index;
    installed(1, 0, &index);
    for (uint64_t owner = 2; owner <= ALVK_MAX_PATCH_OWNERS; ++owner)
        owner_join(&st, &k_mvid, MODULE, 3, TOKEN, index, owner);
    alvk_patch_handle h;
    int added = 0;
    assert_int_equal(aip_rejit_begin_install(&st, &k_mvid, MODULE, 3, TOKEN, 999, 0, &index, &h,
                                             &added),
                     ALVK_E_OWNERS_FULL);
    /* An existing owner may re-install (a replace in effect). */
    assert_int_equal(aip_rejit_begin_install(&st, &k_mvid, MODULE, 3, TOKEN, 5, 0, &index, &h,
                                             &added),
                     ALVK_OK);
    assert_false(added);
    aip_rejit_cancel_command(&st, index, 0);
    alvk_patch_telemetry t;
    assert_int_equal(aip_rejit_telemetry(&st, h, &t), ALVK_OK);
    assert_int_equal(t.owner_count, ALVK_MAX_PATCH_OWNERS);

    assert_int_equal(fresh_table(ALVK_MIN_PATCH_CAPACITY), 0);
    alvk_patch_handle first = 0;
    for (uint32_t i = 0; i < ALVK_MAX_PATCHES; ++i) {
        alvk_patch_handle each;
        assert_int_equal(aip_rejit_begin_install(&st, &k_mvid, MODULE, 3, TOKEN + i, 1, 0, &index,
                                                 &each, &added),
                         ALVK_OK);
        if (i == 0)
            first = each;
    }
    assert_int_equal(aip_rejit_begin_install(&st, &k_mvid, MODULE, 3, 0x06000FFF, 1, 0, &index, &h,
                                             &added),
                     ALVK_E_PATCH_TABLE_FULL);
    /* Once one ends, its slot is recycled and its old handle goes stale. */
    aip_rejit_finish_command(&st, 0, 0, ALVK_PATCH_REJECTED, ALVK_E_BODY_IDENTITY_MISMATCH,
                             aip_monotonic_ns());
    assert_int_equal(aip_rejit_wait(&st, first, 1000), ALVK_E_BODY_IDENTITY_MISMATCH);
    /* A first generation naming a prior is stale: refused before the ended patch is recycled. */
    assert_int_equal(aip_rejit_begin_chained_install(&st, &k_mvid, MODULE, 3, 0x06000FFF, 1, 0,
                                                     42, &index, &h, &added),
                     ALVK_E_STALE_GENERATION);
    assert_int_equal(aip_rejit_wait(&st, first, 1000), ALVK_E_BODY_IDENTITY_MISMATCH);
    assert_int_equal(aip_rejit_begin_install(&st, &k_mvid, MODULE, 3, 0x06000FFF, 1, 0, &index, &h,
                                             &added),
                     ALVK_OK);
    assert_int_equal(index, 0);
    assert_int_not_equal(h, first);
    assert_int_equal(aip_rejit_wait(&st, first, 1000), ALVK_E_UNKNOWN_PATCH);
}

static void snapshots_callbacks_and_unload(void **state)
{
    (void)state;
    assert_int_equal(fresh_table(ALVK_MIN_PATCH_CAPACITY), 0);
    uint32_t index;
    alvk_patch_handle h = installed(7, ALVK_INSTALL_INLINER_FALLBACK, &index);
    static const uint8_t body[] = {0x0A, 0x17, 0x2A};
    aip_prepared_rejit *prepared = aip_prepared_create(5, body, sizeof body, NULL, 0);
    assert_null(aip_rejit_publish(&st, index, prepared));
    aip_request_mark mark;
    memset(&mark, 0, sizeof mark);
    mark.index = index;
    mark.id = 5;
    aip_rejit_mark_requested(&st, &mark, 1, aip_monotonic_ns() - 5);
    aip_prepared_rejit *got = aip_rejit_acquire_for(&st, MODULE, TOKEN);
    assert_ptr_equal(got, prepared);
    assert_int_equal(atomic_load(&got->refs), 2);
    assert_memory_equal(got->data, body, sizeof body);
    assert_int_equal(got->generation, 5);
    assert_int_equal(got->il_map_count, 0);
    aip_prepared_release(got);
    /* A method without a patch keeps its IL; its compilations count as inliners, once per
     * ReJIT ID: with nothing known of what they inlined, of the latest request
     * (test_inliner_attribution.c: with what the JIT reported). */
    assert_null(aip_rejit_acquire_for(&st, MODULE, TOKEN + 1));
    aip_rejit_record_inliner(&st, MODULE, TOKEN + 1, 41, NULL);
    aip_rejit_record_inliner(&st, MODULE, TOKEN + 1, 41, NULL); /* tier-up of the same version */
    aip_rejit_record_inliner(&st, MODULE, TOKEN + 2, 42, NULL);
    aip_rejit_record_inliner(&st, MODULE, TOKEN, 43, NULL); /* the target itself: no inliner */
    aip_rejit_record(&st, MODULE, TOKEN, AIP_EVENT_STARTED, 0);
    aip_rejit_record(&st, MODULE, TOKEN, AIP_EVENT_FINISHED, 0);
    aip_rejit_record(&st, MODULE, TOKEN, AIP_EVENT_ERROR, (int32_t)0x80131506);
    aip_rejit_record(&st, MODULE, TOKEN + 1, AIP_EVENT_ERROR, 1); /* no patch: ignored */
    assert_true(aip_rejit_blocks_inlining(&st, MODULE, TOKEN));
    assert_false(aip_rejit_blocks_inlining(&st, MODULE, TOKEN + 1));
    alvk_patch_telemetry t;
    assert_int_equal(aip_rejit_telemetry(&st, h, &t), ALVK_OK);
    assert_int_equal(t.get_rejit_parameters, 1);
    assert_int_equal(t.inliners_rejitted, 2);
    assert_int_equal(t.rejit_started, 1);
    assert_int_equal(t.rejit_finished, 1);
    assert_int_equal(t.rejit_errors, 1);
    assert_int_equal(t.error_hresult, (int32_t)0x80131506);
    assert_true(t.compile_elapsed_ns >= 5);
    /* Unload ends the patch, drops its snapshot, and the original IL stays from then on. */
    aip_rejit_module_unloaded(&st, MODULE);
    assert_int_equal(aip_rejit_telemetry(&st, h, &t), ALVK_OK);
    assert_int_equal(t.state, ALVK_PATCH_UNLOADED);
    assert_int_equal(t.last_status, ALVK_E_MODULE_UNLOADED);
    assert_null(aip_rejit_acquire_for(&st, MODULE, TOKEN));
    assert_false(aip_rejit_blocks_inlining(&st, MODULE, TOKEN));
}

static void owners_replacements_and_cancelled_generations(void **state)
{
    (void)state;
    assert_int_equal(fresh_table(ALVK_MIN_PATCH_CAPACITY), 0);
    uint32_t index, again;
    alvk_patch_handle h = installed(1, 0, &index);
    int added = 0;
    assert_int_equal(aip_rejit_begin_install(&st, &k_mvid, MODULE, 3, TOKEN, 2, 0, &again, &h,
                                             &added),
                     ALVK_OK);
    static const uint8_t body_a[] = {0x16, 0x2A}, body_b[] = {0x17, 0x2A};
    /* Owner 1 replaces its body (replacement 0xA), then owner 2's install puts a generation in
     * force. */
    assert_int_equal(aip_rejit_begin_command(&st, h, 1, &again), ALVK_OK);
    aip_prepared_release(aip_rejit_publish(&st, index, aip_prepared_create(1, body_a, 2, NULL, 0)));
    assert_int_equal(owner_set(&st, index, ALVK_PATCH_ACTIVE, 1, 0, ALVK_OK, 0xA), ALVK_OK);
    aip_prepared_release(aip_rejit_publish(&st, index, aip_prepared_create(2, body_b, 2, NULL, 0)));
    assert_int_equal(owner_set(&st, index, ALVK_PATCH_ACTIVE, 2, 1, ALVK_OK, 0), ALVK_OK);
    /* Owner 2's body is newest: were owner 1 to leave, it would stay in force. */
    aip_owner_decision d;
    const aip_prepared_rejit *successor = NULL;
    uint64_t replacement = 99;
    aip_prepared_release(owner_decide_leave(&st, index, 1, &d, &successor, &replacement));
    assert_non_null(successor);
    assert_int_equal(successor->generation, 2);
    assert_int_equal(d.id, 2);
    assert_int_equal(replacement, 0);
    /* When 2 leaves, owner 1's comes back, with its replacement. */
    assert_int_equal(aip_rejit_begin_command(&st, h, 2, &again), ALVK_OK);
    aip_prepared_rejit *next = owner_decide_leave(&st, index, 2, &d, &successor, &replacement);
    assert_true(d.publish);
    assert_non_null(next);
    assert_ptr_equal(next, successor);
    assert_int_equal(next->generation, 1);
    assert_int_equal(replacement, 0xA);
    aip_prepared_release(aip_rejit_publish(&st, index, next));
    assert_int_equal(owner_commit(&st, index, &d, 1, 0, 1), ALVK_OK);
    assert_int_equal(owner_count(&st, index), 1);
    assert_false(aip_rejit_has_owner(&st, index, 2));
    /* A stale generation is refused without taking an ID: the next one gets the next ID. */
    alvk_generation_id g1 = 0, g2 = 0;
    assert_int_equal(aip_rejit_begin_generation(&st, index, 1, 0, &g1), ALVK_OK);
    assert_int_equal(aip_rejit_begin_generation(&st, index, 1, 0, &g2), ALVK_E_STALE_GENERATION);
    assert_int_equal(g2, 0);
    assert_int_equal(aip_rejit_begin_generation(&st, index, 1, g1, &g2), ALVK_OK);
    assert_int_equal(g2, g1 + 1);
    /* A patch that ends releases its owners' bodies (ASan's leak check sees any kept). */
    assert_int_equal(aip_rejit_begin_command(&st, h, 1, &again), ALVK_OK);
    assert_int_equal(owner_leave(&st, index, 1), ALVK_OK);
    assert_int_equal(owner_count(&st, index), 0);
    aip_prepared_release(aip_rejit_publish(&st, index, NULL));
}

static void commands_are_waited_for_one_by_one(void **state)
{
    (void)state;
    assert_int_equal(fresh_table(ALVK_MIN_PATCH_CAPACITY), 0);
    uint32_t index;
    installed(1, 0, &index);
    alvk_command_id a = aip_rejit_issue_command(&st), b = aip_rejit_issue_command(&st);
    assert_int_equal(b, a + 1);
    alvk_status result = ALVK_E_INTERNAL;
    assert_int_equal(aip_rejit_wait_command(&st, a, 1000000, &result), ALVK_E_TIMEOUT);
    /* b finishing first does not answer a waiter of a. */
    aip_rejit_finish_command(&st, index, b, ALVK_PATCH_ACTIVE, ALVK_E_NOT_OWNER, 0);
    assert_int_equal(aip_rejit_wait_command(&st, a, 1000000, &result), ALVK_E_TIMEOUT);
    assert_int_equal(aip_rejit_wait_command(&st, b, 0, &result), ALVK_OK);
    assert_int_equal(result, ALVK_E_NOT_OWNER);
    aip_rejit_finish_command(&st, index, a, ALVK_PATCH_ACTIVE, ALVK_OK, 0);
    assert_int_equal(aip_rejit_wait_command(&st, a, 0, &result), ALVK_OK);
    assert_int_equal(result, ALVK_OK);
    assert_int_equal(aip_rejit_wait_command(&st, 0, 0, &result), ALVK_E_UNKNOWN_COMMAND);
    assert_int_equal(aip_rejit_wait_command(&st, b + 1, 0, &result), ALVK_E_UNKNOWN_COMMAND);
    /* Only the latest ALVK_COMMAND_HISTORY commands are remembered. */
    for (int i = 0; i < ALVK_COMMAND_HISTORY; ++i)
        aip_rejit_issue_command(&st);
    assert_int_equal(aip_rejit_wait_command(&st, a, 0, &result), ALVK_E_UNKNOWN_COMMAND);
}

static void discarded_commands_end_with_worker_unavailable(void **state)
{
    (void)state;
    assert_int_equal(fresh_table(ALVK_MIN_PATCH_CAPACITY), 0);
    uint32_t index = 0;
    alvk_patch_handle h = 0;
    int added = 0;
    assert_int_equal(aip_rejit_begin_install(&st, &k_mvid, MODULE, 3, TOKEN, 7, 0, &index, &h, &added),
                     ALVK_OK);
    alvk_generation_id g = 0;
    assert_int_equal(aip_rejit_begin_generation(&st, index, 0, 0, &g), ALVK_OK);
    alvk_command_id c = aip_rejit_issue_command(&st);
    aip_rejit_discard_command(&st, index, c, g, 7, 0);
    alvk_status result = ALVK_OK;
    assert_int_equal(aip_rejit_wait_command(&st, c, 0, &result), ALVK_OK);
    assert_int_equal(result, ALVK_E_WORKER_UNAVAILABLE);
    alvk_patch_telemetry t;
    assert_int_equal(aip_rejit_telemetry(&st, h, &t), ALVK_OK);
    assert_int_equal(t.state, ALVK_PATCH_REJECTED);
    assert_int_equal(t.pending_commands, 0);
    assert_int_equal(t.owner_count, 0);
    aip_generation_record r;
    assert_int_equal(aip_rejit_generation_lookup(&st, h, g, &r), ALVK_OK);
    assert_int_equal(r.result.state, ALVK_GENERATION_REJECTED);
    assert_int_equal(r.result.status, ALVK_E_WORKER_UNAVAILABLE);
}

/* A module unload landing between the worker's look at a patch and its publish: the ended
 * patch keeps no snapshot (nothing would release it, and it would pin the slot forever). */
static void publish_after_unload_keeps_nothing(void **state)
{
    (void)state;
    assert_int_equal(fresh_table(ALVK_MIN_PATCH_CAPACITY), 0);
    uint32_t index, other;
    alvk_patch_handle h = installed(7, 0, &index);
    static const uint8_t body[] = {0x17, 0x2A};
    aip_prepared_release(aip_rejit_publish(&st, index, aip_prepared_create(1, body, 2, NULL, 0)));
    aip_rejit_module_unloaded(&st, MODULE);
    aip_prepared_rejit *late = aip_prepared_create(2, body, 2, NULL, 0);
    assert_ptr_equal(aip_rejit_publish(&st, index, late), late); /* handed back, not kept */
    assert_int_equal(atomic_load(&late->refs), 1);
    aip_prepared_release(late);
    static aip_patch p;
    assert_int_equal(aip_rejit_lookup(&st, h, &p), ALVK_OK);
    assert_int_equal(p.state, ALVK_PATCH_UNLOADED);
    assert_null(p.prepared);
    assert_null(aip_rejit_acquire_for(&st, MODULE, TOKEN));
    /* With every other slot live, a new install recycles the ended one. */
    alvk_patch_handle each;
    int added = 0;
    for (uint32_t i = 1; i < ALVK_MAX_PATCHES; ++i)
        assert_int_equal(aip_rejit_begin_install(&st, &k_mvid, MODULE, 3, TOKEN + i, 1, 0, &other, &each,
                                                 &added),
                         ALVK_OK);
    assert_int_equal(aip_rejit_begin_install(&st, &k_mvid, MODULE, 3, 0x06000FFF, 1, 0, &other, &each,
                                             &added),
                     ALVK_OK);
    assert_int_equal(other, index);
}

/* One assembly loaded twice: the same token in two copies is two patches, each found by
 * its own ModuleID; a command whose module did not resolve joins nothing. */
static void copies_of_a_module_are_separate_targets(void **state)
{
    (void)state;
    assert_int_equal(fresh_table(ALVK_MIN_PATCH_CAPACITY), 0);
    enum { PLUGIN = 0x7100 };
    uint32_t first, second, third, joined_index, lost_a, lost_b;
    alvk_patch_handle a = 0, b = 0, c = 0, joined = 0, unresolved_a = 0, unresolved_b = 0;
    int added = 0;
    assert_int_equal(aip_rejit_begin_install(&st, &k_mvid, MODULE, 3, TOKEN, 7, 0, &first, &a,
                                             &added),
                     ALVK_OK);
    assert_int_equal(aip_rejit_begin_install(&st, &k_mvid, PLUGIN, 4, TOKEN, 7, 0, &second, &b,
                                             &added),
                     ALVK_OK);
    assert_int_not_equal(a, b);
    assert_true(added);
    alvk_patch_telemetry t;
    assert_int_equal(aip_rejit_telemetry(&st, b, &t), ALVK_OK);
    assert_int_equal(t.module_id, PLUGIN); /* the copy it is for, from the start */
    assert_int_equal(t.module_epoch, 4);
    /* Another load at a reused ModuleID is another target too. */
    assert_int_equal(aip_rejit_begin_install(&st, &k_mvid, PLUGIN, 9, TOKEN, 7, 0, &third, &c,
                                             &added),
                     ALVK_OK);
    assert_int_not_equal(c, b);
    aip_rejit_cancel_command(&st, third, 7);
    /* The same copy again: joined. */
    assert_int_equal(aip_rejit_begin_install(&st, &k_mvid, PLUGIN, 4, TOKEN, 8, 0,
                                             &joined_index, &joined, &added),
                     ALVK_OK);
    assert_int_equal(joined, b);
    /* Unresolved commands: a patch each, to be rejected by the worker. */
    assert_int_equal(aip_rejit_begin_install(&st, &k_mvid, 0, 0, TOKEN, 7, 0, &lost_a,
                                             &unresolved_a, &added),
                     ALVK_OK);
    assert_int_equal(aip_rejit_begin_install(&st, &k_mvid, 0, 0, TOKEN, 7, 0, &lost_b,
                                             &unresolved_b, &added),
                     ALVK_OK);
    assert_int_not_equal(unresolved_a, unresolved_b);
    assert_int_not_equal(unresolved_a, a);
    /* Callbacks tell the copies apart by ModuleID once each install validated. */
    aip_rejit_set_target(&st, first, MODULE, 3);
    aip_rejit_set_target(&st, second, PLUGIN, 4);
    aip_rejit_finish_command(&st, first, 0, ALVK_PATCH_ACTIVE, ALVK_OK, aip_monotonic_ns());
    aip_rejit_finish_command(&st, second, 0, ALVK_PATCH_ACTIVE, ALVK_OK, aip_monotonic_ns());
    aip_rejit_record(&st, PLUGIN, TOKEN, AIP_EVENT_STARTED, 0);
    assert_int_equal(aip_rejit_telemetry(&st, a, &t), ALVK_OK);
    assert_int_equal(t.rejit_started, 0);
    assert_int_equal(aip_rejit_telemetry(&st, b, &t), ALVK_OK);
    assert_int_equal(t.rejit_started, 1);
    /* The plugin's copy unloads: only its patch ends. */
    aip_rejit_module_unloaded(&st, PLUGIN);
    assert_int_equal(aip_rejit_telemetry(&st, b, &t), ALVK_OK);
    assert_int_equal(t.state, ALVK_PATCH_UNLOADED);
    assert_int_equal(aip_rejit_telemetry(&st, a, &t), ALVK_OK);
    assert_int_equal(t.state, ALVK_PATCH_ACTIVE);
}

/* An active patch of `token` (installed with the inliner fallback flag, so that
 * aip_rejit_blocks_inlining answers whether the index finds it live). */
static alvk_patch_handle active(uint32_t token, uint32_t *index)
{
    alvk_patch_handle h = 0;
    int added = 0;
    alvk_status s = aip_rejit_begin_install(&st, &k_mvid, MODULE, 3, token, 1,
                                            ALVK_INSTALL_INLINER_FALLBACK, index, &h, &added);
    if (s != ALVK_OK)
        return 0;
    aip_rejit_set_target(&st, *index, MODULE, 3);
    aip_rejit_finish_command(&st, *index, 0, ALVK_PATCH_ACTIVE, ALVK_OK, aip_monotonic_ns());
    return h;
}

static void ended(uint32_t index)
{
    aip_rejit_finish_command(&st, index, 0, ALVK_PATCH_REMOVED, ALVK_OK, aip_monotonic_ns());
}

static void the_table_grows_by_chunks_up_to_its_bound(void **state)
{
    (void)state;
    enum { BOUND = 300 };
    assert_int_equal(fresh_table(BOUND), 0);
    uint32_t capacity = 0, allocated = 0, live = 0;
    aip_rejit_counts(&st, &capacity, &allocated, &live);
    assert_int_equal(capacity, BOUND);
    assert_int_equal(allocated, 0); /* nothing until the first install */
    assert_int_equal(live, 0);
    static alvk_patch_handle handles[BOUND];
    uint32_t index = 0;
    for (uint32_t i = 0; i < BOUND; ++i) {
        handles[i] = active(TOKEN + i, &index);
        assert_int_not_equal(handles[i], 0);
        assert_int_equal(index, i);
        aip_rejit_counts(&st, &capacity, &allocated, &live);
        /* One chunk at a time: the slots allocated cover the patches and no more. */
        assert_int_equal(allocated, (i / AIP_PATCH_CHUNK_SLOTS + 1) * AIP_PATCH_CHUNK_SLOTS);
        assert_int_equal(live, i + 1);
    }
    alvk_patch_handle h = 0;
    int added = 0;
    assert_int_equal(aip_rejit_begin_install(&st, &k_mvid, MODULE, 3, TOKEN + BOUND, 1, 0, &index,
                                             &h, &added),
                     ALVK_E_PATCH_TABLE_FULL);
    /* Growth moved nothing: every handle still names its own target, found by the index. */
    for (uint32_t i = 0; i < BOUND; ++i) {
        alvk_patch_telemetry t;
        assert_int_equal(aip_rejit_telemetry(&st, handles[i], &t), ALVK_OK);
        assert_int_equal(t.method_token, TOKEN + i);
        assert_int_equal(t.state, ALVK_PATCH_ACTIVE);
        assert_true(aip_rejit_blocks_inlining(&st, MODULE, TOKEN + i));
        /* An install of the same target joins it. */
        uint32_t joined_index = 0;
        alvk_patch_handle joined = 0;
        assert_int_equal(aip_rejit_begin_install(&st, &k_mvid, MODULE, 3, TOKEN + i, 2, 0,
                                                 &joined_index, &joined, &added),
                         ALVK_OK);
        assert_int_equal(joined, handles[i]);
        aip_rejit_cancel_command(&st, joined_index, 2);
    }
    assert_false(aip_rejit_blocks_inlining(&st, MODULE, TOKEN + BOUND));
    assert_false(aip_rejit_blocks_inlining(&st, MODULE + 1, TOKEN));
    /* At the bound, an ended patch is recycled at once. */
    ended(7);
    aip_rejit_counts(&st, &capacity, &allocated, &live);
    assert_int_equal(live, BOUND - 1);
    assert_false(aip_rejit_blocks_inlining(&st, MODULE, TOKEN + 7));
    assert_non_null(active(TOKEN + BOUND, &index) != 0 ? &index : NULL);
    assert_int_equal(index, 7);
    assert_int_equal(aip_rejit_wait(&st, handles[7], 1000), ALVK_E_UNKNOWN_PATCH);
    assert_true(aip_rejit_blocks_inlining(&st, MODULE, TOKEN + BOUND));
}

static void ended_patches_are_kept_then_recycled_oldest_first(void **state)
{
    (void)state;
    assert_int_equal(fresh_table(4096), 0);
    static alvk_patch_handle handles[AIP_ENDED_PATCHES_KEPT];
    uint32_t index = 0, capacity, allocated, live;
    /* Ended patches below the number kept: each install takes a new slot. */
    for (uint32_t i = 0; i < AIP_ENDED_PATCHES_KEPT; ++i) {
        handles[i] = active(TOKEN + i, &index);
        assert_int_equal(index, i);
        ended(i);
    }
    for (uint32_t i = 0; i < AIP_ENDED_PATCHES_KEPT; ++i)
        assert_int_equal(aip_rejit_wait(&st, handles[i], 1000), ALVK_OK); /* still answered */
    aip_rejit_counts(&st, &capacity, &allocated, &live);
    assert_int_equal(live, 0);
    assert_int_equal(allocated, AIP_ENDED_PATCHES_KEPT);
    /* With that many ended, the next install recycles the oldest ended patch's slot ... */
    uint32_t first = 0, second = 0, third = 0;
    assert_int_not_equal(active(0x06100000u, &first), 0);
    assert_int_equal(first, 0);
    assert_int_equal(aip_rejit_wait(&st, handles[0], 1000), ALVK_E_UNKNOWN_PATCH);
    assert_int_equal(aip_rejit_wait(&st, handles[1], 1000), ALVK_OK);
    /* ... and then 255 are ended: the one after takes a new slot (a new chunk). */
    assert_int_not_equal(active(0x06100001u, &second), 0);
    assert_int_equal(second, AIP_ENDED_PATCHES_KEPT);
    aip_rejit_counts(&st, &capacity, &allocated, &live);
    assert_int_equal(live, 2);
    assert_int_equal(allocated, AIP_ENDED_PATCHES_KEPT + AIP_PATCH_CHUNK_SLOTS);
    /* The recycled slot's patch ends: 256 ended again, the oldest (slot 1) goes next. */
    ended(first);
    assert_int_not_equal(active(0x06100002u, &third), 0);
    assert_int_equal(third, 1);
    assert_int_equal(aip_rejit_wait(&st, handles[1], 1000), ALVK_E_UNKNOWN_PATCH);
    assert_int_equal(aip_rejit_wait(&st, handles[2], 1000), ALVK_OK);
}

/* Installs, joins and ends on many targets in a pseudo-random order, with the table's bound
 * forcing recycling: after every step, the index answers exactly what a plain model says. */
static void the_index_agrees_with_a_model_through_churn(void **state)
{
    (void)state;
    enum { BOUND = 256, TARGETS_N = 700, STEPS = 20000 };
    assert_int_equal(fresh_table(BOUND), 0);
    static int32_t live_index[TARGETS_N]; /* the live patch's slot, or -1 */
    static uint32_t live_slots[BOUND];
    uint32_t live_count = 0;
    for (uint32_t t = 0; t < TARGETS_N; ++t)
        live_index[t] = -1;
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    uint32_t refused = 0;
    for (uint32_t step = 0; step < STEPS; ++step) {
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        uint32_t t = (uint32_t)(seed % TARGETS_N);
        uint32_t index = 0;
        if (live_index[t] < 0) {
            alvk_patch_handle h = active(TOKEN + t, &index);
            if (h == 0) {
                assert_int_equal(live_count, BOUND); /* refused only when every slot is live */
                refused++;
            } else {
                live_index[t] = (int32_t)index;
                live_slots[live_count++] = t;
            }
        } else if ((seed >> 40) % 3 == 0) {
            ended((uint32_t)live_index[t]);
            live_index[t] = -1;
            for (uint32_t i = 0; i < live_count; ++i)
                if (live_slots[i] == t) {
                    live_slots[i] = live_slots[--live_count];
                    break;
                }
        } else {
            uint32_t joined = 0;
            alvk_patch_handle h = 0;
            int added = 0;
            assert_int_equal(aip_rejit_begin_install(&st, &k_mvid, MODULE, 3, TOKEN + t, 9, 0,
                                                     &joined, &h, &added),
                             ALVK_OK);
            assert_int_equal(joined, (uint32_t)live_index[t]);
            aip_rejit_cancel_command(&st, joined, 9);
        }
        if (step % 97 == 0)
            for (uint32_t u = 0; u < TARGETS_N; ++u)
                assert_int_equal(aip_rejit_blocks_inlining(&st, MODULE, TOKEN + u),
                                 live_index[u] >= 0);
    }
    uint32_t capacity, allocated, live;
    aip_rejit_counts(&st, &capacity, &allocated, &live);
    assert_int_equal(live, live_count);
    assert_true(allocated <= BOUND);
    assert_true(refused < STEPS);
}

/* ABI 3.10: the worker's carrier notes land on the target's patch, and only there: the carrier
 * in force (or why none), the callers redirected (those found as they compiled among them) and
 * those that kept the real call; the counters outlive the carrier. */
static void carrier_notes_and_caller_counts_land_on_the_targets_patch(void **state)
{
    (void)state;
    assert_int_equal(fresh_table(ALVK_MIN_PATCH_CAPACITY), 0);
    uint32_t index;
    alvk_patch_handle h = installed(7, 0, &index);
    alvk_patch_telemetry t;
    assert_int_equal(aip_rejit_telemetry(&st, h, &t), ALVK_OK);
    assert_int_equal(t.carrier_state, ALVK_CARRIER_NONE);
    assert_int_equal(t.carrier_token + t.callers_redirected + t.callers_discovered + t.callers_kept,
                     0);

    aip_rejit_note_carrier(&st, MODULE, TOKEN, ALVK_CARRIER_ACTIVE, 0x06000099u);
    aip_rejit_count_caller(&st, MODULE, TOKEN, AIP_CALLER_REDIRECTED);
    aip_rejit_count_caller(&st, MODULE, TOKEN, AIP_CALLER_REDIRECTED);
    aip_rejit_count_caller(&st, MODULE, TOKEN, AIP_CALLER_DISCOVERED);
    aip_rejit_count_caller(&st, MODULE, TOKEN, AIP_CALLER_KEPT);
    /* Another method, another module copy, no module: no patch of theirs, nothing changes. */
    aip_rejit_note_carrier(&st, MODULE, TOKEN + 1, ALVK_CARRIER_TOO_BIG, 0);
    aip_rejit_note_carrier(&st, MODULE + 1, TOKEN, ALVK_CARRIER_GENERIC, 0);
    aip_rejit_note_carrier(&st, 0, TOKEN, ALVK_CARRIER_FAILED, 0);
    aip_rejit_count_caller(&st, MODULE, TOKEN + 1, AIP_CALLER_REDIRECTED);
    aip_rejit_count_caller(&st, MODULE + 1, TOKEN, AIP_CALLER_KEPT);
    assert_int_equal(aip_rejit_telemetry(&st, h, &t), ALVK_OK);
    assert_int_equal(t.carrier_state, ALVK_CARRIER_ACTIVE);
    assert_int_equal(t.carrier_token, 0x06000099u);
    assert_int_equal(t.callers_redirected, 3);
    assert_int_equal(t.callers_discovered, 1);
    assert_int_equal(t.callers_kept, 1);
    assert_int_equal(t.reserved3, 0);

    /* The original IL back: no carrier, the counts stay. */
    aip_rejit_note_carrier(&st, MODULE, TOKEN, ALVK_CARRIER_NONE, 0);
    assert_int_equal(aip_rejit_telemetry(&st, h, &t), ALVK_OK);
    assert_int_equal(t.carrier_state, ALVK_CARRIER_NONE);
    assert_int_equal(t.carrier_token, 0);
    assert_int_equal(t.callers_redirected, 3);
    assert_int_equal(t.callers_discovered, 1);

    /* Its module unloaded, the patch ended: it is still the one of (module, token). */
    aip_rejit_module_unloaded(&st, MODULE);
    aip_rejit_count_caller(&st, MODULE, TOKEN, AIP_CALLER_KEPT);
    assert_int_equal(aip_rejit_telemetry(&st, h, &t), ALVK_OK);
    assert_int_equal(t.state, ALVK_PATCH_UNLOADED);
    assert_int_equal(t.callers_kept, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(install_then_join_then_remove),
        cmocka_unit_test(a_refused_last_removal_keeps_the_owner),
        cmocka_unit_test(cancelled_install_leaves_nothing),
        cmocka_unit_test(owners_and_slots_are_bounded),
        cmocka_unit_test(snapshots_callbacks_and_unload),
        cmocka_unit_test(owners_replacements_and_cancelled_generations),
        cmocka_unit_test(commands_are_waited_for_one_by_one),
        cmocka_unit_test(discarded_commands_end_with_worker_unavailable),
        cmocka_unit_test(publish_after_unload_keeps_nothing),
        cmocka_unit_test(copies_of_a_module_are_separate_targets),
        cmocka_unit_test(the_table_grows_by_chunks_up_to_its_bound),
        cmocka_unit_test(ended_patches_are_kept_then_recycled_oldest_first),
        cmocka_unit_test(the_index_agrees_with_a_model_through_churn),
        cmocka_unit_test(carrier_notes_and_caller_counts_land_on_the_targets_patch),
    };
    return cmocka_run_group_tests(tests, NULL, free_table);
}
