/* The generation chain in RejitState: stale checks, supersession, compilation outcomes and
 * rollback, without a runtime. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "rejit/rejit_events.h"
#include "rejit/rejit_generations.h"
#include "rejit/rejit_owners.h"
#include "rejit/rejit_state.h"

#include "owner_steps.h"

static aip_rejit_state st;
static const alvk_mvid k_mvid = {{9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5, 6}};
enum { TOKEN = 0x06000020, MODULE = 0x8000 };

static int free_table(void **state)
{
    (void)state;
    aip_rejit_destroy(&st);
    return 0;
}

static uint32_t patch_index;
static alvk_patch_handle handle;

static void open_patch(void)
{
    int added = 0;
    if (st.chunks != NULL)
        aip_rejit_destroy(&st);
    assert_int_equal(aip_rejit_init(&st, ALVK_MIN_PATCH_CAPACITY), 0);
    assert_int_equal(aip_rejit_begin_install(&st, &k_mvid, MODULE, 2, TOKEN, 1, 0, &patch_index,
                                             &handle, &added),
                     ALVK_OK);
    aip_rejit_set_target(&st, patch_index, MODULE, 2);
}

static void close_patch(void)
{
    aip_prepared_release(aip_rejit_publish(&st, patch_index, NULL));
    aip_prepared_release(aip_patch_at(&st, patch_index)->good);
    aip_patch_at(&st, patch_index)->good = NULL;
}

static alvk_generation_state state_of(alvk_generation_id id)
{
    aip_generation_record r;
    assert_int_equal(aip_rejit_generation_lookup(&st, handle, id, &r), ALVK_OK);
    return r.result.state;
}

static aip_prepared_rejit *snapshot(alvk_generation_id id)
{
    static const uint8_t body[] = {0x06, 0x2A};
    static const alvk_il_map_entry map[] = {{0, 0, 1}, {1, 1, 1}};
    return aip_prepared_create(id, body, sizeof body, map, 2);
}

static void chain_is_checked_and_superseded(void **state)
{
    (void)state;
    open_patch();
    alvk_generation_id g1 = 0, g2 = 0, g3 = 0;
    assert_int_equal(aip_rejit_begin_generation(&st, patch_index, 1, 5, &g1),
                     ALVK_E_STALE_GENERATION);
    assert_int_equal(aip_rejit_begin_generation(&st, patch_index, 1, 0, &g1), ALVK_OK);
    assert_int_equal(state_of(g1), ALVK_GENERATION_PENDING);
    /* A second submission naming the same prior is stale: g1 is now the latest. */
    assert_int_equal(aip_rejit_begin_generation(&st, patch_index, 1, 0, &g2),
                     ALVK_E_STALE_GENERATION);
    aip_prepared_rejit *s1 = snapshot(g1);
    aip_prepared_release(aip_rejit_publish(&st, patch_index, s1));
    aip_rejit_generation_requested(&st, patch_index, g1, NULL);
    assert_int_equal(state_of(g1), ALVK_GENERATION_REQUESTED);
    uint32_t index = 99;
    assert_int_equal(aip_rejit_generation_compiled(&st, MODULE, TOKEN, 0, &index), 0);
    assert_int_equal(state_of(g1), ALVK_GENERATION_ACTIVE);
    /* Later compilations of the same generation (tiering) change nothing. */
    assert_int_equal(aip_rejit_generation_compiled(&st, MODULE, TOKEN, -1, &index), 0);
    assert_int_equal(state_of(g1), ALVK_GENERATION_ACTIVE);

    assert_int_equal(aip_rejit_begin_generation(&st, patch_index, 1, g1, &g2), ALVK_OK);
    aip_rejit_generation_rejected(&st, patch_index, g2, ALVK_E_RELOCATION_OVERLAP, 3, 0);
    aip_generation_record r;
    assert_int_equal(aip_rejit_generation_lookup(&st, handle, g2, &r), ALVK_OK);
    assert_int_equal(r.result.state, ALVK_GENERATION_REJECTED);
    assert_int_equal(r.result.status, ALVK_E_RELOCATION_OVERLAP);
    assert_int_equal(r.result.failing_index, 3);
    assert_int_equal(r.result.prior_generation, g1);
    /* The rejected one never became current: the next names g1 again. */
    assert_int_equal(aip_rejit_begin_generation(&st, patch_index, 1, g1, &g3), ALVK_OK);
    aip_prepared_rejit *replaced = aip_rejit_publish(&st, patch_index, snapshot(g3));
    aip_rejit_generation_requested(&st, patch_index, g3, replaced);
    assert_int_equal(state_of(g1), ALVK_GENERATION_SUPERSEDED);
    aip_rejit_generation_il_map(&st, MODULE, TOKEN, g3, (int32_t)0x80131363);
    assert_int_equal(aip_rejit_generation_lookup(&st, handle, g3, &r), ALVK_OK);
    assert_int_equal(r.result.il_map_hresult, (int32_t)0x80131363);
    assert_int_equal(aip_rejit_generation_lookup(&st, handle, 12345, &r),
                     ALVK_E_UNKNOWN_GENERATION);
    close_patch();
}

static void failed_compilation_rolls_back(void **state)
{
    (void)state;
    open_patch();
    alvk_generation_id g1 = 0, g2 = 0, back = 77;
    assert_int_equal(aip_rejit_begin_generation(&st, patch_index, 1, 0, &g1), ALVK_OK);
    aip_prepared_rejit *s1 = snapshot(g1);
    aip_prepared_release(aip_rejit_publish(&st, patch_index, s1));
    aip_rejit_generation_requested(&st, patch_index, g1, NULL);
    uint32_t index = 0;
    aip_rejit_generation_compiled(&st, MODULE, TOKEN, 0, &index);
    assert_int_equal(aip_rejit_begin_generation(&st, patch_index, 1, g1, &g2), ALVK_OK);
    aip_prepared_rejit *replaced = aip_rejit_publish(&st, patch_index, snapshot(g2));
    assert_ptr_equal(replaced, s1);
    aip_rejit_generation_requested(&st, patch_index, g2, replaced);
    aip_prepared_rejit *taken = NULL;
    assert_int_equal(aip_rejit_take_rollback(&st, patch_index, &taken, &back), 0);
    assert_int_equal(aip_rejit_generation_compiled(&st, MODULE, TOKEN, (int32_t)0x8013150A,
                                                   &index),
                     1);
    assert_int_equal(index, patch_index);
    aip_generation_record r;
    assert_int_equal(aip_rejit_generation_lookup(&st, handle, g2, &r), ALVK_OK);
    assert_int_equal(r.result.state, ALVK_GENERATION_FAILED);
    assert_int_equal(r.result.status, ALVK_E_COMPILATION_FAILED);
    assert_int_equal(r.result.compilation_hresult, (int32_t)0x8013150A);
    assert_int_equal(aip_rejit_take_rollback(&st, patch_index, &taken, &back), 1);
    assert_ptr_equal(taken, s1);
    assert_int_equal(back, g1);
    /* Republishing g1 makes it current again; the failed one stays failed. */
    aip_prepared_release(aip_rejit_publish(&st, patch_index, taken));
    aip_rejit_generation_requested(&st, patch_index, g1, NULL);
    assert_int_equal(state_of(g1), ALVK_GENERATION_REQUESTED);
    assert_int_equal(state_of(g2), ALVK_GENERATION_FAILED);
    alvk_generation_id g3 = 0;
    assert_int_equal(aip_rejit_begin_generation(&st, patch_index, 1, g2, &g3),
                     ALVK_E_STALE_GENERATION);
    assert_int_equal(aip_rejit_begin_generation(&st, patch_index, 1, g1, &g3), ALVK_OK);
    close_patch();
}

static void a_compilation_started_twice_has_failed(void **state)
{
    (void)state;
    open_patch();
    alvk_generation_id g1 = 0;
    assert_int_equal(aip_rejit_begin_generation(&st, patch_index, 1, 0, &g1), ALVK_OK);
    aip_prepared_release(aip_rejit_publish(&st, patch_index, snapshot(g1)));
    aip_rejit_generation_requested(&st, patch_index, g1, NULL);
    uint32_t index = 99;
    /* Tier 0, then tier 1 of one ReJIT ID: each start is followed by its finish. */
    assert_int_equal(aip_rejit_generation_started(&st, MODULE, TOKEN, 5, &index), 0);
    assert_int_equal(aip_rejit_generation_compiled(&st, MODULE, TOKEN, 0, &index), 0);
    assert_int_equal(aip_rejit_generation_started(&st, MODULE, TOKEN, 5, &index), 0);
    assert_int_equal(aip_rejit_generation_compiled(&st, MODULE, TOKEN, 0, &index), 0);
    assert_int_equal(state_of(g1), ALVK_GENERATION_ACTIVE);

    alvk_generation_id g2 = 0;
    assert_int_equal(aip_rejit_begin_generation(&st, patch_index, 1, g1, &g2), ALVK_OK);
    aip_prepared_rejit *replaced = aip_rejit_publish(&st, patch_index, snapshot(g2));
    aip_rejit_generation_requested(&st, patch_index, g2, replaced);
    assert_int_equal(aip_rejit_generation_started(&st, MODULE, TOKEN, 6, &index), 0);
    /* The JIT threw; the next call starts the same version again. */
    assert_int_equal(aip_rejit_generation_started(&st, MODULE, TOKEN, 6, &index), 1);
    assert_int_equal(index, patch_index);
    aip_generation_record r;
    assert_int_equal(aip_rejit_generation_lookup(&st, handle, g2, &r), ALVK_OK);
    assert_int_equal(r.result.state, ALVK_GENERATION_FAILED);
    assert_int_equal(r.result.status, ALVK_E_COMPILATION_FAILED);
    assert_int_equal(r.result.compilation_hresult, AIP_COMPILATION_UNREPORTED);
    /* Further starts of the failed version do not fail anything again. */
    assert_int_equal(aip_rejit_generation_started(&st, MODULE, TOKEN, 6, &index), 0);
    /* The worker found the cause later (a missing member): the HRESULT the caller saw, and
     * the relocation; the status stays a compilation failure. Only once, and only there. */
    aip_rejit_generation_failure_cause(&st, patch_index, g2, (int32_t)0x80131513, 3);
    assert_int_equal(aip_rejit_generation_lookup(&st, handle, g2, &r), ALVK_OK);
    assert_int_equal(r.result.state, ALVK_GENERATION_FAILED);
    assert_int_equal(r.result.status, ALVK_E_COMPILATION_FAILED);
    assert_int_equal(r.result.compilation_hresult, (int32_t)0x80131513);
    assert_int_equal(r.result.failing_index, 3);
    aip_rejit_generation_failure_cause(&st, patch_index, g2, (int32_t)0x80131511, 4);
    aip_rejit_generation_failure_cause(&st, patch_index, g1, (int32_t)0x80131511, 4);
    assert_int_equal(aip_rejit_generation_lookup(&st, handle, g2, &r), ALVK_OK);
    assert_int_equal(r.result.compilation_hresult, (int32_t)0x80131513);
    assert_int_equal(r.result.failing_index, 3);
    assert_int_equal(aip_rejit_generation_lookup(&st, handle, g1, &r), ALVK_OK);
    assert_int_equal(r.result.compilation_hresult, 0);
    close_patch();
}

static void rollback_returns_to_the_last_body_that_compiled(void **state)
{
    (void)state;
    open_patch();
    alvk_generation_id g1 = 0, g2 = 0, g3 = 0, back = 0;
    uint32_t index = 0;
    assert_int_equal(aip_rejit_begin_generation(&st, patch_index, 1, 0, &g1), ALVK_OK);
    aip_prepared_rejit *s1 = snapshot(g1);
    aip_prepared_release(aip_rejit_publish(&st, patch_index, s1));
    aip_rejit_generation_requested(&st, patch_index, g1, NULL);
    aip_rejit_generation_compiled(&st, MODULE, TOKEN, 0, &index); /* g1 good */
    /* Two bad generations queued back to back; neither ever compiles. */
    assert_int_equal(aip_rejit_begin_generation(&st, patch_index, 1, g1, &g2), ALVK_OK);
    aip_rejit_generation_requested(&st, patch_index, g2,
                                   aip_rejit_publish(&st, patch_index, snapshot(g2)));
    assert_int_equal(aip_rejit_begin_generation(&st, patch_index, 1, g2, &g3), ALVK_OK);
    aip_rejit_generation_requested(&st, patch_index, g3,
                                   aip_rejit_publish(&st, patch_index, snapshot(g3)));
    /* Many later submissions do not push the current or the good record out. */
    for (int i = 0; i < 6; ++i) {
        alvk_generation_id rejected = 0;
        assert_int_equal(aip_rejit_begin_generation(&st, patch_index, 0, 0, &rejected), ALVK_OK);
        aip_rejit_generation_rejected(&st, patch_index, rejected, ALVK_E_BODY_IDENTITY_MISMATCH, 0, 0);
    }
    assert_int_equal(aip_rejit_generation_compiled(&st, MODULE, TOKEN, (int32_t)0x8013153A, &index), 1);
    uint32_t due = 99;
    assert_int_equal(aip_rejit_next_rollback(&st, &due), 1);
    assert_int_equal(due, patch_index);
    aip_prepared_rejit *taken = NULL;
    assert_int_equal(aip_rejit_take_rollback(&st, patch_index, &taken, &back), 1);
    assert_ptr_equal(taken, s1); /* g1, not g2 which g3 replaced */
    assert_int_equal(back, g1);
    assert_int_equal(aip_rejit_next_rollback(&st, &due), 0);
    assert_int_equal(state_of(g3), ALVK_GENERATION_FAILED);
    aip_prepared_release(aip_rejit_publish(&st, patch_index, taken));
    close_patch();
}

/* The JIT rejected generation 2 (ReJIT ID 7 started twice) and the rollback made generation 1
 * current again; a caller still running version 7 starts it a third time before the rollback's
 * request takes over. That start, and its finish, belong to version 7: generation 1 stays
 * REQUESTED, then turns ACTIVE on its own version (ID 8), never FAILED. */
static void an_older_version_compiling_after_a_rollback_is_not_the_current(void **state)
{
    (void)state;
    open_patch();
    alvk_generation_id g1 = 0, g2 = 0, back = 0;
    uint32_t index = 0;
    assert_int_equal(aip_rejit_begin_generation(&st, patch_index, 1, 0, &g1), ALVK_OK);
    aip_prepared_rejit *s1 = snapshot(g1);
    aip_prepared_release(aip_rejit_publish(&st, patch_index, s1));
    aip_rejit_generation_requested(&st, patch_index, g1, NULL);
    assert_int_equal(aip_rejit_generation_started(&st, MODULE, TOKEN, 6, &index), 0);
    assert_int_equal(aip_rejit_generation_finished(&st, MODULE, TOKEN, 6, 0, &index), 0);
    assert_int_equal(state_of(g1), ALVK_GENERATION_ACTIVE);
    assert_int_equal(aip_rejit_begin_generation(&st, patch_index, 1, g1, &g2), ALVK_OK);
    aip_rejit_generation_requested(&st, patch_index, g2,
                                   aip_rejit_publish(&st, patch_index, snapshot(g2)));
    /* A tier-up of version 6 finishing now is generation 1's, not generation 2's. */
    assert_int_equal(aip_rejit_generation_started(&st, MODULE, TOKEN, 6, &index), 0);
    assert_int_equal(aip_rejit_generation_finished(&st, MODULE, TOKEN, 6, 0, &index), 0);
    assert_int_equal(state_of(g2), ALVK_GENERATION_REQUESTED);
    assert_int_equal(aip_rejit_generation_started(&st, MODULE, TOKEN, 7, &index), 0);
    assert_int_equal(aip_rejit_generation_started(&st, MODULE, TOKEN, 7, &index), 1);
    assert_int_equal(state_of(g2), ALVK_GENERATION_FAILED);
    aip_prepared_rejit *taken = NULL;
    assert_int_equal(aip_rejit_take_rollback(&st, patch_index, &taken, &back), 1);
    assert_int_equal(back, g1);
    aip_request_mark mark;
    memset(&mark, 0, sizeof mark);
    mark.index = patch_index;
    mark.id = back;
    aip_prepared_release(aip_rejit_publish(&st, patch_index, taken));
    aip_rejit_mark_requested(&st, &mark, 1, 1);
    assert_int_equal(state_of(g1), ALVK_GENERATION_REQUESTED);
    /* Version 7 again, on a thread the rollback's request has not reached yet. */
    assert_int_equal(aip_rejit_generation_started(&st, MODULE, TOKEN, 7, &index), 0);
    assert_int_equal(aip_rejit_generation_finished(&st, MODULE, TOKEN, 7, (int32_t)0x8013150A,
                                                   &index),
                     0);
    assert_int_equal(state_of(g1), ALVK_GENERATION_REQUESTED);
    uint32_t due = 99;
    assert_int_equal(aip_rejit_next_rollback(&st, &due), 0);
    assert_int_equal(aip_rejit_generation_started(&st, MODULE, TOKEN, 8, &index), 0);
    assert_int_equal(aip_rejit_generation_finished(&st, MODULE, TOKEN, 8, 0, &index), 0);
    assert_int_equal(state_of(g1), ALVK_GENERATION_ACTIVE);
    close_patch();
}

/* A refused request gives the replaced version its callbacks back. */
static void a_refused_request_restores_the_version_floor(void **state)
{
    (void)state;
    open_patch();
    alvk_generation_id g1 = 0, g2 = 0;
    uint32_t index = 0;
    assert_int_equal(aip_rejit_begin_generation(&st, patch_index, 1, 0, &g1), ALVK_OK);
    aip_prepared_release(aip_rejit_publish(&st, patch_index, snapshot(g1)));
    aip_rejit_generation_requested(&st, patch_index, g1, NULL);
    assert_int_equal(aip_rejit_generation_started(&st, MODULE, TOKEN, 4, &index), 0);
    assert_int_equal(aip_rejit_begin_generation(&st, patch_index, 1, g1, &g2), ALVK_OK);
    aip_request_mark mark;
    memset(&mark, 0, sizeof mark);
    mark.index = patch_index;
    mark.id = g2;
    aip_rejit_mark_requested(&st, &mark, 1, 1);
    aip_rejit_unmark_requested(&st, &mark, 1, (int32_t)0x80070057);
    assert_int_equal(aip_rejit_generation_finished(&st, MODULE, TOKEN, 4, 0, &index), 0);
    assert_int_equal(state_of(g1), ALVK_GENERATION_ACTIVE);
    close_patch();
}

/* Owner 1's body compiled, owner 2's was rejected by the JIT and rolled back: when owner 1
 * leaves, the successor is not owner 2's rejected body but the original (owner 2 set no body
 * that ran). */
static void a_rejected_body_is_no_owners_body(void **state)
{
    (void)state;
    open_patch(); /* owner 1's install */
    uint32_t joined = 0;
    alvk_patch_handle h2 = 0;
    int added = 0;
    assert_int_equal(aip_rejit_begin_install(&st, &k_mvid, MODULE, 2, TOKEN, 2, 0, &joined, &h2,
                                             &added),
                     ALVK_OK);
    assert_int_equal(joined, patch_index);
    assert_true(added);
    alvk_generation_id g1 = 0, g2 = 0, back = 0;
    uint32_t index = 0;
    aip_owner_decision d;
    const aip_prepared_rejit *successor = NULL;
    uint64_t replacement = 0;
    assert_int_equal(aip_rejit_begin_generation(&st, patch_index, 1, 0, &g1), ALVK_OK);
    aip_prepared_rejit *s1 = snapshot(g1);
    aip_prepared_release(aip_rejit_publish(&st, patch_index, s1));
    aip_rejit_generation_requested(&st, patch_index, g1, NULL);
    assert_int_equal(owner_set(&st, patch_index, ALVK_PATCH_PENDING, 1, 1, ALVK_OK, 0x1111),
                     ALVK_OK);
    aip_rejit_generation_compiled(&st, MODULE, TOKEN, 0, &index); /* g1 good */
    assert_int_equal(aip_rejit_begin_generation(&st, patch_index, 2, g1, &g2), ALVK_OK);
    aip_rejit_generation_requested(&st, patch_index, g2,
                                   aip_rejit_publish(&st, patch_index, snapshot(g2)));
    assert_int_equal(owner_set(&st, patch_index, ALVK_PATCH_ACTIVE, 2, 1, ALVK_OK, 0x2222),
                     ALVK_OK);
    /* Before it failed: owner 2's, the newest, is what owner 1's leaving would leave. */
    aip_prepared_release(owner_decide_leave(&st, patch_index, 1, &d, &successor, &replacement));
    assert_non_null(successor);
    assert_int_equal(successor->generation, g2);
    assert_int_equal(replacement, 0x2222);
    assert_int_equal(
        aip_rejit_generation_compiled(&st, MODULE, TOKEN, (int32_t)0x80131511, &index), 1);
    aip_prepared_rejit *taken = NULL;
    assert_int_equal(aip_rejit_take_rollback(&st, patch_index, &taken, &back), 1);
    assert_int_equal(back, g1);
    aip_prepared_release(aip_rejit_publish(&st, patch_index, taken));
    /* Now only owner 1's body remains: owner 2's leaving would leave it ... */
    aip_prepared_release(owner_decide_leave(&st, patch_index, 2, &d, &successor, &replacement));
    assert_ptr_equal(successor, s1);
    assert_int_equal(d.id, g1);
    assert_int_equal(replacement, 0x1111);
    /* ... and owner 1's the original, not g2. */
    aip_prepared_release(owner_decide_leave(&st, patch_index, 1, &d, &successor, &replacement));
    assert_null(successor);
    assert_int_equal(d.successor, -1);
    assert_int_equal(d.id, 0);
    assert_int_equal(replacement, 0);
    assert_int_equal(owner_leave(&st, patch_index, 1), ALVK_OK);
    assert_int_equal(owner_count(&st, patch_index), 1);
    assert_int_equal(owner_leave(&st, patch_index, 2), ALVK_OK);
    assert_int_equal(owner_count(&st, patch_index), 0);
    close_patch();
}

/* A stack-type refusal: REJECTED with ALVK_E_STACK_TYPE_MISMATCH, the instruction and the
 * types in the record, and the chain's latest falls back, so the next names the prior. */
static void a_type_mismatch_is_recorded(void **state)
{
    (void)state;
    open_patch();
    alvk_generation_id g1 = 0, g2 = 0;
    assert_int_equal(aip_rejit_begin_generation(&st, patch_index, 1, 0, &g1), ALVK_OK);
    aip_rejit_generation_type_mismatch(&st, patch_index, g1, 7, ALVK_STACK_INT32,
                                       ALVK_STACK_OBJECT);
    aip_generation_record r;
    assert_int_equal(aip_rejit_generation_lookup(&st, handle, g1, &r), ALVK_OK);
    assert_int_equal(r.result.state, ALVK_GENERATION_REJECTED);
    assert_int_equal(r.result.status, ALVK_E_STACK_TYPE_MISMATCH);
    assert_int_equal(r.result.type_error_offset, 7);
    assert_int_equal(r.result.type_found, ALVK_STACK_INT32);
    assert_int_equal(r.result.type_expected, ALVK_STACK_OBJECT);
    assert_int_equal(r.result.relocation_count, 0);
    assert_int_equal(aip_rejit_begin_generation(&st, patch_index, 1, 0, &g2), ALVK_OK);
    /* A record that is no longer pending keeps what it had. */
    aip_rejit_generation_type_mismatch(&st, patch_index, g1, 9, ALVK_STACK_FLOAT,
                                       ALVK_STACK_FLOAT);
    assert_int_equal(aip_rejit_generation_lookup(&st, handle, g1, &r), ALVK_OK);
    assert_int_equal(r.result.type_error_offset, 7);
    close_patch();
}

/* Marks generation `id` requested, as the worker does before it asks the runtime. */
static aip_request_mark mark_requested(alvk_generation_id id)
{
    aip_request_mark m;
    memset(&m, 0, sizeof m);
    m.index = patch_index;
    m.id = id;
    aip_rejit_mark_requested(&st, &m, 1, aip_monotonic_ns() - 5);
    return m;
}

/* The request granted: what the worker commits after the runtime call returned. */
static void commit_granted(aip_prepared_rejit *replaced)
{
    aip_rejit_applied a;
    memset(&a, 0, sizeof a);
    a.requested = 1;
    a.replaced = replaced;
    aip_rejit_commit(&st, patch_index, &a);
}

/* A compilation the runtime finishes before RequestReJIT returns finds its generation: it is
 * current (REQUESTED) before the call, and the commit after it changes neither the state nor
 * the compile timing. */
static void a_compilation_inside_the_request_finds_its_generation(void **state)
{
    (void)state;
    open_patch();
    alvk_generation_id g1 = 0;
    uint32_t index = 99;
    assert_int_equal(aip_rejit_begin_generation(&st, patch_index, 1, 0, &g1), ALVK_OK);
    aip_prepared_rejit *replaced = aip_rejit_publish(&st, patch_index, snapshot(g1));
    mark_requested(g1);
    assert_int_equal(state_of(g1), ALVK_GENERATION_REQUESTED);
    /* Inside the runtime's call: the compilation finishes. */
    aip_rejit_record(&st, MODULE, TOKEN, AIP_EVENT_FINISHED, 0);
    assert_int_equal(aip_rejit_generation_compiled(&st, MODULE, TOKEN, 0, &index), 0);
    assert_int_equal(index, patch_index);
    commit_granted(replaced);
    assert_int_equal(state_of(g1), ALVK_GENERATION_ACTIVE);
    assert_int_equal(aip_patch_at(&st, patch_index)->awaiting_compile_since, 0);
    assert_int_equal(aip_patch_at(&st, patch_index)->good_generation, g1);
    close_patch();
}

/* A ReJITError the runtime raises inside RequestReJIT fails the generation and queues the
 * rollback (before, it found the previous generation and was lost). */
static void an_error_inside_the_request_fails_the_generation(void **state)
{
    (void)state;
    open_patch();
    alvk_generation_id g1 = 0, g2 = 0, back = 99;
    uint32_t index = 0, due = 99;
    assert_int_equal(aip_rejit_begin_generation(&st, patch_index, 1, 0, &g1), ALVK_OK);
    aip_prepared_rejit *s1 = snapshot(g1);
    aip_prepared_rejit *replaced = aip_rejit_publish(&st, patch_index, s1);
    mark_requested(g1);
    aip_rejit_generation_compiled(&st, MODULE, TOKEN, 0, &index);
    commit_granted(replaced);
    assert_int_equal(aip_rejit_begin_generation(&st, patch_index, 1, g1, &g2), ALVK_OK);
    replaced = aip_rejit_publish(&st, patch_index, snapshot(g2));
    mark_requested(g2);
    assert_int_equal(state_of(g1), ALVK_GENERATION_SUPERSEDED);
    assert_int_equal(aip_rejit_generation_compiled(&st, MODULE, TOKEN, (int32_t)0x80131500, &index),
                     1);
    commit_granted(replaced);
    assert_int_equal(state_of(g2), ALVK_GENERATION_FAILED);
    assert_int_equal(st.rollbacks_due, 1);
    assert_int_equal(aip_rejit_next_rollback(&st, &due), 1);
    aip_prepared_rejit *taken = NULL;
    assert_int_equal(aip_rejit_take_rollback(&st, patch_index, &taken, &back), 1);
    assert_ptr_equal(taken, s1);
    assert_int_equal(back, g1);
    assert_int_equal(st.rollbacks_due, 0);
    aip_prepared_release(aip_rejit_publish(&st, patch_index, taken));
    close_patch();
}

/* The runtime refused the request: the previous generation is current (and ACTIVE) again,
 * the marked one PENDING for its refusal, the HRESULT noted, the compile wait as before; an
 * error already reported for it stays FAILED with no rollback due. */
static void a_refused_request_is_undone(void **state)
{
    (void)state;
    open_patch();
    alvk_generation_id g1 = 0, g2 = 0, g3 = 0;
    uint32_t index = 0, due = 99;
    assert_int_equal(aip_rejit_begin_generation(&st, patch_index, 1, 0, &g1), ALVK_OK);
    aip_prepared_rejit *replaced = aip_rejit_publish(&st, patch_index, snapshot(g1));
    mark_requested(g1);
    aip_rejit_record(&st, MODULE, TOKEN, AIP_EVENT_FINISHED, 0);
    aip_rejit_generation_compiled(&st, MODULE, TOKEN, 0, &index);
    commit_granted(replaced);
    assert_int_equal(aip_rejit_begin_generation(&st, patch_index, 1, g1, &g2), ALVK_OK);
    aip_request_mark m = mark_requested(g2);
    assert_int_not_equal(aip_patch_at(&st, patch_index)->awaiting_compile_since, 0);
    aip_rejit_unmark_requested(&st, &m, 1, (int32_t)0x80070057);
    const aip_patch *p = aip_patch_at(&st, patch_index);
    assert_int_equal(p->current_generation, g1);
    assert_int_equal(state_of(g1), ALVK_GENERATION_ACTIVE);
    assert_int_equal(state_of(g2), ALVK_GENERATION_PENDING);
    assert_int_equal(p->telemetry.request_hresult, (int32_t)0x80070057);
    assert_int_equal(p->awaiting_compile_since, 0);
    aip_rejit_generation_rejected(&st, patch_index, g2, ALVK_E_REJIT_FAILED, 0, 0);
    assert_int_equal(state_of(g2), ALVK_GENERATION_REJECTED);
    assert_int_equal(p->latest_generation, g1);
    /* An error reported inside the refused call. */
    assert_int_equal(aip_rejit_begin_generation(&st, patch_index, 1, g1, &g3), ALVK_OK);
    m = mark_requested(g3);
    assert_int_equal(aip_rejit_generation_compiled(&st, MODULE, TOKEN, (int32_t)0x80131500, &index),
                     1);
    aip_rejit_unmark_requested(&st, &m, 1, (int32_t)0x80004005);
    assert_int_equal(state_of(g3), ALVK_GENERATION_FAILED);
    assert_int_equal(state_of(g1), ALVK_GENERATION_ACTIVE);
    assert_int_equal(p->current_generation, g1);
    assert_int_equal(p->latest_generation, g1);
    assert_int_equal(aip_rejit_next_rollback(&st, &due), 0);
    assert_int_equal(st.rollbacks_due, 0);
    close_patch();
}

/* The count of rollbacks due follows every way a patch's rollback ends: an unload too. */
static void an_unload_clears_the_rollback_count(void **state)
{
    (void)state;
    open_patch();
    alvk_generation_id g1 = 0;
    uint32_t index = 0, due = 99;
    assert_int_equal(aip_rejit_begin_generation(&st, patch_index, 1, 0, &g1), ALVK_OK);
    aip_prepared_release(aip_rejit_publish(&st, patch_index, snapshot(g1)));
    mark_requested(g1);
    assert_int_equal(aip_rejit_generation_compiled(&st, MODULE, TOKEN, (int32_t)0x80131500, &index),
                     1);
    assert_int_equal(st.rollbacks_due, 1);
    aip_rejit_module_unloaded(&st, MODULE);
    assert_int_equal(st.rollbacks_due, 0);
    assert_int_equal(aip_rejit_next_rollback(&st, &due), 0);
    close_patch();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chain_is_checked_and_superseded),
        cmocka_unit_test(failed_compilation_rolls_back),
        cmocka_unit_test(a_compilation_started_twice_has_failed),
        cmocka_unit_test(rollback_returns_to_the_last_body_that_compiled),
        cmocka_unit_test(a_rejected_body_is_no_owners_body),
        cmocka_unit_test(a_type_mismatch_is_recorded),
        cmocka_unit_test(a_compilation_inside_the_request_finds_its_generation),
        cmocka_unit_test(an_error_inside_the_request_fails_the_generation),
        cmocka_unit_test(a_refused_request_is_undone),
        cmocka_unit_test(an_unload_clears_the_rollback_count),
        cmocka_unit_test(an_older_version_compiling_after_a_rollback_is_not_the_current),
        cmocka_unit_test(a_refused_request_restores_the_version_floor),
    };
    return cmocka_run_group_tests(tests, NULL, free_table);
}
