/* Inliners' re-JITs counted for the patches whose targets they inlined: ReJITCompilationStarted
 * (rejit/rejit_callbacks.c) against a fake runtime that names methods, with the inlines the JIT
 * reported in the inliner map and the requests marked on the patch table. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "rejit/rejit_callbacks.h"
#include "rejit/rejit_events.h"
#include "rejit/rejit_generations.h"
#include "rejit/rejit_owners.h"
#include "rejit/rejit_state.h"

enum { MODULE = 0x7000, EPOCH = 3 };
enum {
    SMALL_A = 0x06000002, /* targets */
    SMALL_B = 0x06000003,
    CALLER_A = 0x06000010, /* inlined SMALL_A */
    CALLER_B = 0x06000011, /* inlined SMALL_B */
    CALLER_AB = 0x06000012, /* inlined both */
    MIDDLE = 0x06000013,    /* inlined SMALL_A, and was inlined into OUTER */
    OUTER = 0x06000014,
    UNREPORTED = 0x06000015, /* inlined a target the JIT never reported (ReadyToRun code) */
};

static aip_rejit_state st;
static aip_inliner_map map;
static ICorProfilerInfo15 info;
static ICorProfilerInfo15Vtbl info_vtbl;
static const alvk_mvid k_mvid = {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}};
static uint64_t next_owner;
static alvk_generation_id next_generation;

/* The fake runtime's FunctionID is the module in the high half and the token in the low. */
static FunctionID function_of(uint32_t token)
{
    return ((FunctionID)MODULE << 32) | token;
}

static HRESULT STDMETHODCALLTYPE function_info(ICorProfilerInfo15 *This, FunctionID function,
                                               ClassID *klass, ModuleID *module, mdToken *token)
{
    (void)This;
    *klass = 0;
    *module = (ModuleID)(function >> 32);
    *token = (mdToken)(function & 0xFFFFFFFFu);
    return S_OK;
}

static int fresh(void **state)
{
    (void)state;
    memset(&map, 0, sizeof map); /* init requires zeroed storage */
    assert_int_equal(aip_inliner_map_init(&map), 0);
    memset(&info_vtbl, 0, sizeof info_vtbl);
    info_vtbl.GetFunctionInfo = function_info;
    info.lpVtbl = &info_vtbl;
    next_owner = 0;
    next_generation = 0;
    return aip_rejit_init(&st, ALVK_MIN_PATCH_CAPACITY);
}

static int destroy(void **state)
{
    (void)state;
    aip_rejit_destroy(&st);
    return 0;
}

/* An active patch on `token`: its index. */
static uint32_t patch_on(uint32_t token)
{
    uint32_t index = 0;
    alvk_patch_handle h = 0;
    int added = 0;
    uint64_t owner = ++next_owner;
    assert_int_equal(aip_rejit_begin_install(&st, &k_mvid, MODULE, EPOCH, token, owner, 0, &index,
                                             &h, &added),
                     ALVK_OK);
    aip_rejit_set_target(&st, index, MODULE, EPOCH);
    aip_rejit_finish_command(&st, index, 0, ALVK_PATCH_ACTIVE, ALVK_OK, aip_monotonic_ns());
    return index;
}

/* One ReJIT request for the `count` patches (a batch when more than one). */
static void request(const uint32_t *indices, uint32_t count)
{
    aip_request_mark marks[4];
    memset(marks, 0, sizeof marks);
    for (uint32_t i = 0; i < count; ++i) {
        marks[i].index = indices[i];
        marks[i].id = ++next_generation;
    }
    aip_rejit_mark_requested(&st, marks, count, aip_monotonic_ns());
}

static void request_one(uint32_t index)
{
    request(&index, 1);
}

/* The JIT reported that caller inlined callee. */
static void inlined(uint32_t callee, uint32_t caller)
{
    aip_method_key callee_key = {MODULE, callee}, caller_key = {MODULE, caller};
    aip_inliner_map_add(&map, callee_key, caller_key);
}

/* A ReJIT compilation of `token` (ReJIT ID `rejit_id`) starts and finishes. */
static void compiled(uint32_t token, uint64_t rejit_id)
{
    uint32_t rollback = 0;
    assert_int_equal(aip_rejit_on_compilation(&st, &map, &info, function_of(token), rejit_id, 0,
                                              S_OK, &rollback),
                     0);
    assert_int_equal(aip_rejit_on_compilation(&st, &map, &info, function_of(token), rejit_id, 1,
                                              S_OK, &rollback),
                     0);
}

static uint32_t inliners_of(uint32_t index)
{
    return aip_patch_at(&st, index)->telemetry.inliners_rejitted;
}

/* The tester's case: two patches requested in a row, each target inlined by its own caller,
 * both callers re-JITted after the second request. Each counts for its own target (attributed
 * to the latest request, the first patch said 0 and the second 2). */
static void patches_in_a_row_count_their_own_inliners(void **state)
{
    (void)state;
    inlined(SMALL_A, CALLER_A);
    inlined(SMALL_B, CALLER_B);
    uint32_t a = patch_on(SMALL_A), b = patch_on(SMALL_B);
    request_one(a);
    request_one(b);
    assert_int_equal(inliners_of(a), 0); /* inliners recompile at their next call */
    compiled(SMALL_A, 1);
    compiled(CALLER_A, 2);
    compiled(SMALL_B, 3);
    compiled(CALLER_B, 4);
    assert_int_equal(inliners_of(a), 1);
    assert_int_equal(inliners_of(b), 1);
    /* Tier-ups compile the same versions again: nothing new. */
    compiled(CALLER_A, 2);
    compiled(CALLER_B, 4);
    assert_int_equal(inliners_of(a), 1);
    assert_int_equal(inliners_of(b), 1);
}

/* One caller that inlined two targets: its re-JIT counts once for each request that re-JITted
 * it, also for a request a later one superseded before the caller ran again. */
static void a_caller_of_two_targets_counts_once_per_request(void **state)
{
    (void)state;
    inlined(SMALL_A, CALLER_AB);
    inlined(SMALL_B, CALLER_AB);
    uint32_t a = patch_on(SMALL_A), b = patch_on(SMALL_B);
    request_one(a);
    compiled(CALLER_AB, 10); /* ran between the installs */
    request_one(b);
    compiled(CALLER_AB, 11);
    compiled(CALLER_AB, 11); /* tier-up */
    assert_int_equal(inliners_of(a), 1);
    assert_int_equal(inliners_of(b), 1);
    /* B replaced, then A and B in one batch, the caller not run in between. */
    request_one(b);
    uint32_t both[] = {a, b};
    request(both, 2);
    compiled(CALLER_AB, 13);
    assert_int_equal(inliners_of(a), 2);
    assert_int_equal(inliners_of(b), 2);
    /* Both installed before the caller ran again: it counts for both. */
    request_one(a);
    request_one(b);
    compiled(CALLER_AB, 16);
    assert_int_equal(inliners_of(a), 3);
    assert_int_equal(inliners_of(b), 3);
}

/* The JIT reports an inline nested in another with the method it was inlined into: the
 * outermost method, which the runtime re-JITs, counts for the innermost target. */
static void a_nested_inline_counts_for_the_innermost_target(void **state)
{
    (void)state;
    inlined(MIDDLE, OUTER);
    inlined(SMALL_A, MIDDLE);
    uint32_t a = patch_on(SMALL_A), b = patch_on(SMALL_B);
    request_one(a);
    request_one(b);
    compiled(OUTER, 20);
    assert_int_equal(inliners_of(a), 1);
    assert_int_equal(inliners_of(b), 0);
    compiled(MIDDLE, 21); /* re-JITted too (it inlined the target itself) */
    assert_int_equal(inliners_of(a), 2);
}

/* An inliner the JIT never reported (precompiled code) counts for the latest request, once per
 * ReJIT ID; a target's own compilations are not inliners'. */
static void an_unreported_inliner_counts_for_the_latest_request(void **state)
{
    (void)state;
    uint32_t a = patch_on(SMALL_A), b = patch_on(SMALL_B);
    request_one(a);
    request_one(b);
    compiled(UNREPORTED, 30);
    compiled(UNREPORTED, 30);
    compiled(SMALL_A, 31);
    compiled(SMALL_B, 32);
    assert_int_equal(inliners_of(a), 0);
    assert_int_equal(inliners_of(b), 1);
}

/* A request the runtime refused re-JITted nothing: the caller counts for the one before. */
static void a_refused_request_names_no_inliner(void **state)
{
    (void)state;
    inlined(SMALL_A, CALLER_AB);
    inlined(SMALL_B, CALLER_AB);
    uint32_t a = patch_on(SMALL_A), b = patch_on(SMALL_B);
    request_one(a);
    aip_request_mark refused;
    memset(&refused, 0, sizeof refused);
    refused.index = b;
    refused.id = ++next_generation;
    aip_rejit_mark_requested(&st, &refused, 1, aip_monotonic_ns());
    aip_rejit_unmark_requested(&st, &refused, 1, (int32_t)0x80070057);
    compiled(CALLER_AB, 40);
    assert_int_equal(inliners_of(a), 1);
    assert_int_equal(inliners_of(b), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(patches_in_a_row_count_their_own_inliners, fresh, destroy),
        cmocka_unit_test_setup_teardown(a_caller_of_two_targets_counts_once_per_request, fresh,
                                        destroy),
        cmocka_unit_test_setup_teardown(a_nested_inline_counts_for_the_innermost_target, fresh,
                                        destroy),
        cmocka_unit_test_setup_teardown(an_unreported_inliner_counts_for_the_latest_request, fresh,
                                        destroy),
        cmocka_unit_test_setup_teardown(a_refused_request_names_no_inliner, fresh, destroy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
