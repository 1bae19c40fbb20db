/* RejitState's acceptance of a batch install: all requests checked at once, all accepted under
 * one command, or none with each request's own status. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "rejit/rejit_batch.h"
#include "rejit/rejit_events.h"
#include "rejit/rejit_owners.h"

#include "owner_steps.h"

static aip_rejit_state st;
static const alvk_mvid k_mvid = {{4, 3, 2, 1, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}};
enum { TOKEN = 0x06000400, MODULE = 0x7300, N_MAX = 8 };

static aip_rejit_request requests[N_MAX];
static aip_rejit_accepted accepted[N_MAX];
static alvk_status statuses[N_MAX];

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

static aip_rejit_request install_of(uint32_t token, uintptr_t copy_id, uint64_t owner)
{
    aip_rejit_request r = {AIP_REQUEST_INSTALL, &k_mvid, copy_id, copy_id != 0 ? 3u : 0u,
                           token, 0, 0, owner, 0};
    return r;
}

/* An active patch of `token` held by `owner`, through the one-install path. */
static alvk_patch_handle active(uint32_t token, uint64_t owner, uint32_t *index)
{
    alvk_patch_handle h = 0;
    int added = 0;
    assert_int_equal(aip_rejit_begin_install(&st, &k_mvid, MODULE, 3, token, owner, 0, index, &h,
                                             &added),
                     ALVK_OK);
    aip_rejit_set_target(&st, *index, MODULE, 3);
    aip_rejit_finish_command(&st, *index, 0, ALVK_PATCH_ACTIVE, ALVK_OK, aip_monotonic_ns());
    return h;
}

typedef struct table_shape {
    uint32_t allocated, live;
    alvk_command_id last_command;
} table_shape;

static table_shape shape(void)
{
    table_shape s;
    uint32_t capacity;
    aip_rejit_counts(&st, &capacity, &s.allocated, &s.live);
    s.last_command = st.last_command;
    return s;
}

static void assert_unchanged(table_shape before)
{
    table_shape now = shape();
    assert_int_equal(now.allocated, before.allocated);
    assert_int_equal(now.live, before.live);
    assert_int_equal(now.last_command, before.last_command); /* no command issued */
}

static void a_batch_is_accepted_as_one_command(void **state)
{
    (void)state;
    assert_int_equal(fresh_table(ALVK_MIN_PATCH_CAPACITY), 0);
    uint32_t live_index = 0;
    alvk_patch_handle live = active(TOKEN + 9, 0xA1, &live_index);
    for (uint32_t i = 0; i < 3; ++i)
        requests[i] = install_of(TOKEN + i, MODULE, 0xB1);
    requests[3] = install_of(TOKEN + 9, MODULE, 0xB1); /* joins the live patch */
    assert_int_equal(aip_rejit_accept_batch(&st, requests, 4, accepted, statuses), ALVK_OK);
    for (uint32_t i = 0; i < 4; ++i) {
        assert_int_equal(statuses[i], ALVK_OK);
        assert_int_equal(accepted[i].command, accepted[0].command);
        assert_true(accepted[i].added_owner);
        assert_int_not_equal(accepted[i].generation, 0);
        alvk_patch_telemetry t;
        assert_int_equal(aip_rejit_telemetry(&st, accepted[i].handle, &t), ALVK_OK);
        assert_int_equal(t.pending_commands, 1);
        assert_int_equal(t.method_token, requests[i].token);
        for (uint32_t j = 0; j < i; ++j)
            assert_int_not_equal(accepted[i].handle, accepted[j].handle);
    }
    assert_int_equal(accepted[3].handle, live);
    assert_int_equal(accepted[3].index, live_index);
    assert_true(aip_rejit_has_owner(&st, live_index, 0xB1));
    assert_int_not_equal(accepted[0].command, 0);
    assert_int_equal(st.last_command, accepted[0].command);
    /* The patches finish one by one (command 0); the batch's command ends once. */
    alvk_status result = ALVK_OK;
    assert_int_equal(aip_rejit_wait_command(&st, accepted[0].command, 1000, &result),
                     ALVK_E_TIMEOUT);
    for (uint32_t i = 0; i < 4; ++i)
        aip_rejit_finish_command(&st, accepted[i].index, 0, ALVK_PATCH_ACTIVE, ALVK_OK,
                                 aip_monotonic_ns());
    assert_int_equal(aip_rejit_wait_command(&st, accepted[0].command, 1000, &result),
                     ALVK_E_TIMEOUT);
    aip_rejit_end_command(&st, accepted[0].command, ALVK_OK);
    assert_int_equal(aip_rejit_wait_command(&st, accepted[0].command, 1000, &result), ALVK_OK);
    assert_int_equal(result, ALVK_OK);
}

static void a_duplicate_target_refuses_the_whole_batch(void **state)
{
    (void)state;
    assert_int_equal(fresh_table(ALVK_MIN_PATCH_CAPACITY), 0);
    uint32_t index = 0;
    active(TOKEN + 7, 0xA1, &index);
    table_shape before = shape();
    requests[0] = install_of(TOKEN, MODULE, 0xB1);
    requests[1] = install_of(TOKEN + 1, MODULE, 0xB1);
    requests[2] = install_of(TOKEN, MODULE, 0xB2); /* the first's target, another owner */
    requests[3] = install_of(TOKEN + 7, MODULE, 0xB1);
    assert_int_equal(aip_rejit_accept_batch(&st, requests, 4, accepted, statuses),
                     ALVK_E_DUPLICATE_TARGET);
    assert_int_equal(statuses[0], ALVK_E_BATCH_ABORTED);
    assert_int_equal(statuses[1], ALVK_E_BATCH_ABORTED);
    assert_int_equal(statuses[2], ALVK_E_DUPLICATE_TARGET);
    assert_int_equal(statuses[3], ALVK_E_BATCH_ABORTED);
    assert_unchanged(before);
    assert_false(aip_rejit_has_owner(&st, index, 0xB1)); /* the live patch was not joined */
    /* The same token in another copy, or another epoch of this one, is another target. */
    requests[2].copy_id = MODULE + 1;
    requests[1] = install_of(TOKEN, MODULE, 0xB1);
    requests[1].copy_epoch = 4;
    assert_int_equal(aip_rejit_accept_batch(&st, requests, 3, accepted, statuses), ALVK_OK);
    /* Two requests whose module did not resolve, on one MVID and token: a duplicate too. */
    assert_int_equal(fresh_table(ALVK_MIN_PATCH_CAPACITY), 0);
    requests[0] = install_of(TOKEN, 0, 0xB1);
    requests[1] = install_of(TOKEN, 0, 0xB2);
    assert_int_equal(aip_rejit_accept_batch(&st, requests, 2, accepted, statuses),
                     ALVK_E_DUPLICATE_TARGET);
    assert_int_equal(statuses[0], ALVK_E_BATCH_ABORTED);
}

static void a_batch_needs_a_slot_for_every_new_patch(void **state)
{
    (void)state;
    assert_int_equal(fresh_table(ALVK_MIN_PATCH_CAPACITY), 0);
    uint32_t index = 0, first = 0;
    for (uint32_t i = 0; i < ALVK_MIN_PATCH_CAPACITY - 2; ++i)
        active(0x06100000u + i, 0xA1, i == 0 ? &first : &index);
    table_shape before = shape();
    /* Two slots left: a join and two new patches fit, a third new one does not. */
    requests[0] = install_of(0x06100000u, MODULE, 0xB1); /* joins */
    requests[1] = install_of(TOKEN, MODULE, 0xB1);
    requests[2] = install_of(TOKEN + 1, MODULE, 0xB1);
    requests[3] = install_of(TOKEN + 2, MODULE, 0xB1);
    assert_int_equal(aip_rejit_accept_batch(&st, requests, 4, accepted, statuses),
                     ALVK_E_PATCH_TABLE_FULL);
    assert_int_equal(statuses[0], ALVK_E_BATCH_ABORTED);
    assert_int_equal(statuses[1], ALVK_E_BATCH_ABORTED);
    assert_int_equal(statuses[2], ALVK_E_BATCH_ABORTED);
    assert_int_equal(statuses[3], ALVK_E_PATCH_TABLE_FULL);
    assert_unchanged(before);
    assert_false(aip_rejit_has_owner(&st, first, 0xB1));
    /* An ended patch's slot counts: with one ended, the four fit. */
    aip_rejit_finish_command(&st, index, 0, ALVK_PATCH_REMOVED, ALVK_OK, aip_monotonic_ns());
    assert_int_equal(aip_rejit_accept_batch(&st, requests, 4, accepted, statuses), ALVK_OK);
    assert_int_equal(accepted[3].index, index); /* recycled */
}

static void a_full_owner_set_refuses_the_batch(void **state)
{
    (void)state;
    assert_int_equal(fresh_table(ALVK_MIN_PATCH_CAPACITY), 0);
    uint32_t index = 0;
    active(TOKEN, 1, &index);
    for (uint64_t owner = 2; owner <= ALVK_MAX_PATCH_OWNERS; ++owner)
        owner_join(&st, &k_mvid, MODULE, 3, TOKEN, index, owner);
    table_shape before = shape();
    requests[0] = install_of(TOKEN + 1, MODULE, 0xB1);
    requests[1] = install_of(TOKEN, MODULE, 0xB1);
    assert_int_equal(aip_rejit_accept_batch(&st, requests, 2, accepted, statuses),
                     ALVK_E_OWNERS_FULL);
    assert_int_equal(statuses[0], ALVK_E_BATCH_ABORTED);
    assert_int_equal(statuses[1], ALVK_E_OWNERS_FULL);
    assert_unchanged(before);
    /* An owner that already holds it joins without a new place. */
    requests[1].owner = 5;
    assert_int_equal(aip_rejit_accept_batch(&st, requests, 2, accepted, statuses), ALVK_OK);
    assert_false(accepted[1].added_owner);
}

/* The batch is one ReJIT request: patches that differ in ALVK_INSTALL_INLINER_FALLBACK (a
 * join takes its patch's flag, not the request's) refuse it, with nothing changed. */
static void one_fallback_flag_per_batch(void **state)
{
    (void)state;
    assert_int_equal(fresh_table(ALVK_MIN_PATCH_CAPACITY), 0);
    for (uint32_t i = 0; i < 3; ++i)
        requests[i] = install_of(TOKEN + i, MODULE, 0xC1);
    requests[1].flags = ALVK_INSTALL_INLINER_FALLBACK;
    requests[2].flags = ALVK_INSTALL_INLINER_FALLBACK;
    table_shape before = shape();
    assert_int_equal(aip_rejit_accept_batch(&st, requests, 3, accepted, statuses),
                     ALVK_E_INVALID_FLAGS);
    assert_int_equal(statuses[0], ALVK_E_BATCH_ABORTED);
    assert_int_equal(statuses[1], ALVK_E_INVALID_FLAGS);
    assert_int_equal(statuses[2], ALVK_E_BATCH_ABORTED); /* the first that differs only */
    assert_unchanged(before);
    /* A live patch installed with the fallback: a join without the flag still takes it. */
    uint32_t index = 0;
    alvk_patch_handle h = 0;
    int added = 0;
    assert_int_equal(aip_rejit_begin_install(&st, &k_mvid, MODULE, 3, TOKEN + 7, 0xA1,
                                             ALVK_INSTALL_INLINER_FALLBACK, &index, &h, &added),
                     ALVK_OK);
    aip_rejit_set_target(&st, index, MODULE, 3);
    aip_rejit_finish_command(&st, index, 0, ALVK_PATCH_ACTIVE, ALVK_OK, aip_monotonic_ns());
    requests[0] = install_of(TOKEN + 7, MODULE, 0xC1);
    requests[1] = install_of(TOKEN + 8, MODULE, 0xC1);
    before = shape();
    assert_int_equal(aip_rejit_accept_batch(&st, requests, 2, accepted, statuses),
                     ALVK_E_INVALID_FLAGS);
    assert_int_equal(statuses[1], ALVK_E_INVALID_FLAGS);
    assert_unchanged(before);
    requests[1].flags = ALVK_INSTALL_INLINER_FALLBACK;
    assert_int_equal(aip_rejit_accept_batch(&st, requests, 2, accepted, statuses), ALVK_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_batch_is_accepted_as_one_command),
        cmocka_unit_test(a_duplicate_target_refuses_the_whole_batch),
        cmocka_unit_test(a_batch_needs_a_slot_for_every_new_patch),
        cmocka_unit_test(a_full_owner_set_refuses_the_batch),
        cmocka_unit_test(one_fallback_flag_per_batch),
    };
    return cmocka_run_group_tests(tests, NULL, free_table);
}
