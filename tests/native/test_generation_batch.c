/* ABI 3.6, alvk_generation_submit_batch before the worker: the export's argument checks
 * (NULLs, count bounds, the stride, validation of every generation, each with its status and
 * nothing queued), and RejitState's acceptance of a batch of generations
 * (rejit/rejit_batch.c): chained on each target's latest generation (joins of live patches,
 * new patches from 0), stale priors, duplicate targets and the one-fallback-flag rule
 * refusing the whole batch with nothing changed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "generation_fixture.h"
#include "rejit/rejit_batch.h"
#include "rejit/rejit_generations.h"
#include "rejit/rejit_owners.h"

/* ---- the export ---------------------------------------------------------------------------- */

enum { N = 4 };

static fixture fixtures[N];
static alvk_generation gens[N];
static alvk_patch_handle handles[N];
static alvk_generation_id ids[N];
static alvk_status statuses[N];

static void valid_batch(void)
{
    for (uint32_t i = 0; i < N; ++i) {
        fixture_init(&fixtures[i]);
        fixtures[i].g.method_token = 0x06000010u + i;
        gens[i] = fixtures[i].g;
        handles[i] = 0xDEAD;
        ids[i] = 0xDEAD;
        statuses[i] = (alvk_status)12345;
    }
}

static void expect_refused(const alvk_status *expected)
{
    for (uint32_t i = 0; i < N; ++i) {
        assert_int_equal(statuses[i], expected[i]);
        assert_int_equal(handles[i], 0);
        assert_int_equal(ids[i], 0);
    }
    assert_int_equal(alvk_last_command(), 0);
}

static void null_arrays_and_counts_are_refused(void **state)
{
    (void)state;
    valid_batch();
    assert_int_equal(alvk_generation_submit_batch(NULL, N, handles, ids, statuses),
                     ALVK_E_NULL_ARGUMENT);
    assert_int_equal(alvk_generation_submit_batch(gens, N, NULL, ids, statuses),
                     ALVK_E_NULL_ARGUMENT);
    assert_int_equal(alvk_generation_submit_batch(gens, N, handles, NULL, statuses),
                     ALVK_E_NULL_ARGUMENT);
    assert_int_equal(alvk_generation_submit_batch(gens, N, handles, ids, NULL),
                     ALVK_E_NULL_ARGUMENT);
    assert_int_equal(alvk_generation_submit_batch(gens, 0, handles, ids, statuses),
                     ALVK_E_LIMIT_EXCEEDED);
    /* Counts are refused before any generation is read: 4097 over a 4-element array. */
    assert_int_equal(
        alvk_generation_submit_batch(gens, ALVK_MAX_BATCH_REQUESTS + 1, handles, ids, statuses),
        ALVK_E_LIMIT_EXCEEDED);
    /* The arrays were not touched. */
    for (uint32_t i = 0; i < N; ++i) {
        assert_int_equal(handles[i], 0xDEAD);
        assert_int_equal(statuses[i], 12345);
    }
}

static void every_size_must_equal_the_first(void **state)
{
    (void)state;
    valid_batch();
    gens[2].size = sizeof gens[2] - 8;
    assert_int_equal(alvk_generation_submit_batch(gens, N, handles, ids, statuses),
                     ALVK_E_STRUCT_SIZE);
    const alvk_status expected[N] = {ALVK_E_BATCH_ABORTED, ALVK_E_BATCH_ABORTED,
                                     ALVK_E_STRUCT_SIZE, ALVK_E_BATCH_ABORTED};
    expect_refused(expected);
    /* A first size below the ABI 3.0 struct. */
    valid_batch();
    gens[0].size = 16;
    assert_int_equal(alvk_generation_submit_batch(gens, N, handles, ids, statuses),
                     ALVK_E_STRUCT_SIZE);
    const alvk_status first[N] = {ALVK_E_STRUCT_SIZE, ALVK_E_BATCH_ABORTED, ALVK_E_BATCH_ABORTED,
                                  ALVK_E_BATCH_ABORTED};
    expect_refused(first);
}

/* The ABI 3.0 size as the stride: generations packed at that stride, unaligned for the
 * 8-byte fields, read through the stride (ASan sees any read past the packed array). */
static void the_stride_is_the_first_size(void **state)
{
    (void)state;
    valid_batch();
    size_t stride = offsetof(alvk_generation, module_id);
    uint8_t *packed = malloc(stride * N);
    assert_non_null(packed);
    for (uint32_t i = 0; i < N; ++i) {
        alvk_generation g = gens[i];
        g.size = (uint32_t)stride;
        g.owner = i == 1 ? 0 : g.owner; /* the second fails validation */
        memcpy(packed + i * stride, &g, stride);
    }
    assert_int_equal(alvk_generation_submit_batch((const alvk_generation *)(void *)packed, N,
                                                  handles, ids, statuses),
                     ALVK_E_INVALID_OWNER);
    const alvk_status expected[N] = {ALVK_E_BATCH_ABORTED, ALVK_E_INVALID_OWNER,
                                     ALVK_E_BATCH_ABORTED, ALVK_E_BATCH_ABORTED};
    expect_refused(expected);
    free(packed);
}

static void each_generation_is_validated_at_once(void **state)
{
    (void)state;
    valid_batch();
    fixtures[3].relocs[2].kind = (alvk_relocation_kind)99;
    assert_int_equal(alvk_generation_submit_batch(gens, N, handles, ids, statuses),
                     ALVK_E_RELOCATION_MALFORMED);
    const alvk_status expected[N] = {ALVK_E_BATCH_ABORTED, ALVK_E_BATCH_ABORTED,
                                     ALVK_E_BATCH_ABORTED, ALVK_E_RELOCATION_MALFORMED};
    expect_refused(expected);
    /* Two failures: each has its own status, the call returns the first. */
    gens[0].flags = 0x80u;
    assert_int_equal(alvk_generation_submit_batch(gens, N, handles, ids, statuses),
                     ALVK_E_INVALID_FLAGS);
    assert_int_equal(statuses[0], ALVK_E_INVALID_FLAGS);
    assert_int_equal(statuses[1], ALVK_E_BATCH_ABORTED);
    assert_int_equal(statuses[3], ALVK_E_RELOCATION_MALFORMED);
}

static void valid_generations_without_a_profiler_are_not_attached(void **state)
{
    (void)state;
    valid_batch();
    assert_int_equal(alvk_generation_submit_batch(gens, N, handles, ids, statuses),
                     ALVK_E_NOT_ATTACHED);
    const alvk_status expected[N] = {ALVK_E_NOT_ATTACHED, ALVK_E_NOT_ATTACHED, ALVK_E_NOT_ATTACHED,
                                     ALVK_E_NOT_ATTACHED};
    expect_refused(expected);
}

/* ---- RejitState ------------------------------------------------------------------------------ */

static aip_rejit_state st;
static const alvk_mvid k_mvid = {{9, 3, 2, 1, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}};
enum { TOKEN = 0x06000400, MODULE = 0x7300 };

static aip_rejit_request requests[N];
static aip_rejit_accepted accepted[N];

static int free_table(void **state)
{
    (void)state;
    if (st.chunks != NULL)
        aip_rejit_destroy(&st);
    return 0;
}

static void fresh_table(void)
{
    free_table(NULL);
    assert_int_equal(aip_rejit_init(&st, ALVK_MIN_PATCH_CAPACITY), 0);
}

static aip_rejit_request generation_of(uint32_t token, uint64_t owner, alvk_generation_id prior)
{
    aip_rejit_request r = {AIP_REQUEST_GENERATION, &k_mvid, MODULE, 3, token, 0, 0, owner, prior};
    return r;
}

/* A live patch of `token` whose latest generation is a requested one of `owner`. */
static const aip_patch *live_with_generation(uint32_t token, uint64_t owner, uint32_t *index)
{
    aip_rejit_request r = generation_of(token, owner, 0);
    aip_rejit_accepted a;
    assert_int_equal(aip_rejit_accept(&st, &r, &a), ALVK_OK);
    aip_rejit_set_target(&st, a.index, MODULE, 3);
    aip_request_mark mark;
    memset(&mark, 0, sizeof mark);
    mark.index = a.index;
    mark.id = a.generation;
    aip_rejit_mark_requested(&st, &mark, 1, aip_monotonic_ns()); /* its body is current */
    aip_rejit_finish_command(&st, a.index, a.command, ALVK_PATCH_ACTIVE, ALVK_OK,
                             aip_monotonic_ns());
    *index = a.index;
    const aip_patch *p = aip_patch_at(&st, a.index);
    assert_int_equal(p->latest_generation, a.generation);
    return p;
}

static void generations_chain_on_each_targets_latest(void **state)
{
    (void)state;
    fresh_table();
    uint32_t index = 0;
    const aip_patch *joined = live_with_generation(TOKEN + 9, 0xA1, &index);
    alvk_generation_id prior = joined->latest_generation;
    /* The same internal owner replaces its own body (the woven-body case), beside new
     * targets whose first generation names 0. */
    requests[0] = generation_of(TOKEN, 0xA1, 0);
    requests[1] = generation_of(TOKEN + 9, 0xA1, prior);
    requests[2] = generation_of(TOKEN + 1, 0xA1, 0);
    requests[2].flags = ALVK_INSTALL_UNVERIFIABLE; /* may differ */
    alvk_command_id last = st.last_command;
    assert_int_equal(aip_rejit_accept_batch(&st, requests, 3, accepted, statuses), ALVK_OK);
    assert_int_equal(st.last_command, last + 1); /* one command */
    for (uint32_t i = 0; i < 3; ++i) {
        assert_int_equal(statuses[i], ALVK_OK);
        assert_int_equal(accepted[i].command, last + 1);
        assert_int_not_equal(accepted[i].generation, 0);
    }
    assert_int_equal(accepted[1].index, index);
    assert_false(accepted[1].added_owner); /* it held the patch already */
    assert_true(accepted[0].added_owner);
    assert_int_equal(joined->latest_generation, accepted[1].generation);
    /* Each record names the generation it replaces. */
    static aip_generation_record record;
    assert_int_equal(aip_rejit_generation_lookup(&st, accepted[1].handle, accepted[1].generation,
                                                 &record),
                     ALVK_OK);
    assert_int_equal(record.result.prior_generation, prior);
    assert_int_equal(record.result.state, ALVK_GENERATION_PENDING);
    assert_int_equal(aip_rejit_generation_lookup(&st, accepted[0].handle, accepted[0].generation,
                                                 &record),
                     ALVK_OK);
    assert_int_equal(record.result.prior_generation, 0);
}

static void a_stale_prior_refuses_the_whole_batch(void **state)
{
    (void)state;
    fresh_table();
    uint32_t index = 0;
    const aip_patch *joined = live_with_generation(TOKEN + 9, 0xA1, &index);
    alvk_generation_id latest = joined->latest_generation;
    uint32_t capacity = 0, allocated = 0, live = 0, live_after = 0;
    aip_rejit_counts(&st, &capacity, &allocated, &live);
    alvk_command_id last = st.last_command;
    /* A join naming an older generation; then a new target naming one. */
    for (int round = 0; round < 2; ++round) {
        requests[0] = generation_of(TOKEN, 0xB1, 0);
        requests[1] = round == 0 ? generation_of(TOKEN + 9, 0xB1, latest - 1)
                                 : generation_of(TOKEN + 2, 0xB1, latest);
        requests[2] = generation_of(TOKEN + 1, 0xB1, 0);
        assert_int_equal(aip_rejit_accept_batch(&st, requests, 3, accepted, statuses),
                         ALVK_E_STALE_GENERATION);
        assert_int_equal(statuses[0], ALVK_E_BATCH_ABORTED);
        assert_int_equal(statuses[1], ALVK_E_STALE_GENERATION);
        assert_int_equal(statuses[2], ALVK_E_BATCH_ABORTED);
        aip_rejit_counts(&st, &capacity, &allocated, &live_after);
        assert_int_equal(live_after, live);
        assert_int_equal(st.last_command, last);
        assert_int_equal(joined->latest_generation, latest);
        assert_false(aip_rejit_has_owner(&st, index, 0xB1));
    }
    /* With the latest named, the join goes through. */
    requests[1] = generation_of(TOKEN + 9, 0xB1, latest);
    assert_int_equal(aip_rejit_accept_batch(&st, requests, 3, accepted, statuses), ALVK_OK);
    assert_true(accepted[1].added_owner);
}

static void duplicates_and_mixed_fallback_flags_are_refused(void **state)
{
    (void)state;
    fresh_table();
    requests[0] = generation_of(TOKEN, 0xC1, 0);
    requests[1] = generation_of(TOKEN + 1, 0xC1, 0);
    requests[2] = generation_of(TOKEN, 0xC2, 0); /* the first's target */
    alvk_command_id last = st.last_command;
    assert_int_equal(aip_rejit_accept_batch(&st, requests, 3, accepted, statuses),
                     ALVK_E_DUPLICATE_TARGET);
    assert_int_equal(statuses[0], ALVK_E_BATCH_ABORTED);
    assert_int_equal(statuses[2], ALVK_E_DUPLICATE_TARGET);
    assert_int_equal(st.last_command, last);
    requests[2] = generation_of(TOKEN + 2, 0xC1, 0);
    requests[2].flags = ALVK_INSTALL_INLINER_FALLBACK | ALVK_INSTALL_UNVERIFIABLE;
    assert_int_equal(aip_rejit_accept_batch(&st, requests, 3, accepted, statuses),
                     ALVK_E_INVALID_FLAGS);
    assert_int_equal(statuses[1], ALVK_E_BATCH_ABORTED);
    assert_int_equal(statuses[2], ALVK_E_INVALID_FLAGS);
    assert_int_equal(st.last_command, last);
    uint32_t capacity = 0, allocated = 0, live = 0;
    aip_rejit_counts(&st, &capacity, &allocated, &live);
    assert_int_equal(live, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(null_arrays_and_counts_are_refused),
        cmocka_unit_test(every_size_must_equal_the_first),
        cmocka_unit_test(the_stride_is_the_first_size),
        cmocka_unit_test(each_generation_is_validated_at_once),
        cmocka_unit_test(valid_generations_without_a_profiler_are_not_attached),
        cmocka_unit_test(generations_chain_on_each_targets_latest),
        cmocka_unit_test(a_stale_prior_refuses_the_whole_batch),
        cmocka_unit_test(duplicates_and_mixed_fallback_flags_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, free_table);
}
