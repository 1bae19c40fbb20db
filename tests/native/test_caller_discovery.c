/* Callers found as they are compiled: the IL scan's decision (which carried targets a body calls
 * so that its calls can be redirected), the carried-target table (set, replaced, cleared, bounded,
 * a module forgotten, the gate's count, armed once the target compiled its body) and the inbox
 * to the worker (order, bound, laps, the callers parked for a later drain, the drain's claim;
 * pushed from several threads while one pops). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <string.h>

#include "platform/platform.h"
#include "rejit/caller_discovery.h"
#include "rejit/carried_targets.h"
#include "rejit/discovered_inbox.h"

#define MODULE 0x1000u
#define OTHER 0x2000u
#define CALLER 0x06000010u
#define T1 0x06000001u
#define T2 0x06000002u
#define T3 0x06000003u
#define T4 0x06000004u

static aip_il_starts starts;

/* A tiny-header body (code under 64 bytes) around code. */
static uint32_t tiny_body(uint8_t *out, const uint8_t *code, uint32_t size)
{
    out[0] = (uint8_t)((size << 2) | 0x2u);
    memcpy(out + 1, code, size);
    return size + 1;
}

static const uint8_t k_calls[] = {
    0x02,                               /* ldarg.0 */
    0x28, 0x01, 0x00, 0x00, 0x06,       /* call T1 */
    0x6F, 0x02, 0x00, 0x00, 0x06,       /* callvirt T2 */
    0xFE, 0x06, 0x03, 0x00, 0x00, 0x06, /* ldftn T3: not a call */
    0x20, 0x03, 0x00, 0x00, 0x06,       /* ldc.i4 with T3's bytes */
    0x26,                               /* pop */
    0x26,                               /* pop */
    0x2A,                               /* ret */
};

static void a_body_calling_carried_targets_is_found_for_those_alone(void **state)
{
    (void)state;
    uint8_t body[64];
    uint32_t size = tiny_body(body, k_calls, sizeof k_calls);
    const uint32_t targets[] = {T3, T1, T4, T2};
    /* T1 (call) and T2 (callvirt): bits 1 and 3; T3 only loaded, T4 absent. */
    assert_int_equal(aip_discovery_scan(body, size, CALLER, targets, 4, &starts), 0xAu);
    uint32_t found = 0xFFu;
    assert_int_equal(aip_il_find_calls(body, size, targets, 4, &starts, &found), ALVK_OK);
    assert_int_equal(found, 0xAu);
    /* No carried target called: nothing. */
    const uint32_t others[] = {T3, T4};
    assert_int_equal(aip_discovery_scan(body, size, CALLER, others, 2, &starts), 0);
    assert_int_equal(aip_discovery_scan(body, size, CALLER, others, 0, &starts), 0);
}

static void a_recursive_target_is_no_caller_of_itself(void **state)
{
    (void)state;
    uint8_t body[64];
    uint32_t size = tiny_body(body, k_calls, sizeof k_calls);
    const uint32_t targets[] = {T1, T2};
    assert_int_equal(aip_discovery_scan(body, size, T1, targets, 2, &starts), 0x2u);
}

static void a_constrained_call_keeps_the_caller_out(void **state)
{
    (void)state;
    const uint8_t code[] = {
        0x02,                               /* ldarg.0 */
        0x6F, 0x01, 0x00, 0x00, 0x06,       /* callvirt T1 */
        0x26,                               /* pop */
        0x03,                               /* ldarg.1 */
        0xFE, 0x16, 0x05, 0x00, 0x00, 0x02, /* constrained. typedef */
        0x6F, 0x01, 0x00, 0x00, 0x06,       /* callvirt T1 */
        0x02,                               /* ldarg.0 */
        0x28, 0x02, 0x00, 0x00, 0x06,       /* call T2 */
        0x26,                               /* pop */
        0x2A,                               /* ret */
    };
    uint8_t body[64];
    uint32_t size = tiny_body(body, code, sizeof code);
    const uint32_t targets[] = {T1, T2};
    /* Redirecting would keep every call of T1 (il/call_redirect.h): only T2 is found. */
    assert_int_equal(aip_discovery_scan(body, size, CALLER, targets, 2, &starts), 0x2u);
}

static void a_malformed_or_oversized_search_finds_nothing(void **state)
{
    (void)state;
    const uint8_t truncated[] = {0x28, 0x01, 0x00}; /* call with a cut operand */
    uint8_t body[64];
    uint32_t size = tiny_body(body, truncated, sizeof truncated);
    const uint32_t targets[] = {T1};
    uint32_t found = 0xFFu;
    assert_int_equal(aip_il_find_calls(body, size, targets, 1, &starts, &found),
                     ALVK_E_IL_MALFORMED);
    assert_int_equal(found, 0);
    assert_int_equal(aip_discovery_scan(body, size, CALLER, targets, 1, &starts), 0);
    /* A header claiming more code than there is. */
    size = tiny_body(body, k_calls, sizeof k_calls);
    assert_int_not_equal(aip_il_find_calls(body, size - 4, targets, 1, &starts, &found), ALVK_OK);
    assert_int_equal(found, 0);
    /* More targets than one search looks for. */
    uint32_t many[AIP_IL_FIND_CALLS_MAX + 1];
    for (uint32_t i = 0; i < AIP_IL_FIND_CALLS_MAX + 1; ++i)
        many[i] = T1;
    assert_int_equal(aip_il_find_calls(body, size, many, AIP_IL_FIND_CALLS_MAX + 1, &starts,
                                       &found),
                     ALVK_E_LIMIT_EXCEEDED);
    assert_int_equal(aip_discovery_scan(body, size, CALLER, many, AIP_IL_FIND_CALLS_MAX, &starts),
                     0xFFFFFFFFu); /* 32 is still one search: every bit */
    assert_int_equal(aip_il_find_calls(NULL, size, many, 1, &starts, &found),
                     ALVK_E_NULL_ARGUMENT);
    assert_int_equal(aip_il_find_calls(body, size, NULL, 1, &starts, &found),
                     ALVK_E_NULL_ARGUMENT);
    assert_int_equal(aip_il_find_calls(body, size, many, 1, NULL, &found), ALVK_E_NULL_ARGUMENT);
    assert_int_equal(aip_il_find_calls(body, size, many, 1, &starts, NULL), ALVK_E_NULL_ARGUMENT);
}

static aip_carried_targets carried;

static int carried_setup(void **state)
{
    (void)state;
    memset(&carried, 0, sizeof carried);
    return aip_carried_init(&carried);
}

static int carried_teardown(void **state)
{
    (void)state;
    aip_carried_destroy(&carried);
    return 0;
}

static void carried_targets_are_set_replaced_cleared_and_forgotten(void **state)
{
    (void)state;
    assert_false(aip_carried_any(&carried));
    assert_int_equal(aip_carried_set(&carried, MODULE, T1, 0x06000040u), 0);
    assert_int_equal(aip_carried_set(&carried, MODULE, T2, 0x06000041u), 0);
    assert_int_equal(aip_carried_set(&carried, OTHER, T1, 0x06000042u), 0);
    assert_true(aip_carried_any(&carried));
    assert_int_equal(aip_carried_lookup(&carried, MODULE, T1, NULL), 0x06000040u);
    assert_int_equal(aip_carried_lookup(&carried, OTHER, T1, NULL), 0x06000042u);
    assert_int_equal(aip_carried_lookup(&carried, MODULE, T3, NULL), 0);
    assert_int_equal(aip_carried_lookup(&carried, 0, T1, NULL), 0);
    /* A new body's carrier replaces the old one: no second entry. */
    assert_int_equal(aip_carried_set(&carried, MODULE, T1, 0x06000043u), 0);
    assert_int_equal(aip_carried_lookup(&carried, MODULE, T1, NULL), 0x06000043u);
    uint32_t targets[4];
    assert_int_equal(aip_carried_in_module(&carried, MODULE, targets, 4), 2);
    assert_true((targets[0] == T1 && targets[1] == T2) || (targets[0] == T2 && targets[1] == T1));
    assert_int_equal(aip_carried_in_module(&carried, MODULE, targets, 1), 2); /* all counted */
    assert_int_equal(aip_carried_in_module(&carried, 0, targets, 4), 0);
    /* Cleared: the original is back. Clearing one that is not carried changes nothing. */
    assert_int_equal(aip_carried_set(&carried, MODULE, T1, 0), 0);
    assert_int_equal(aip_carried_set(&carried, MODULE, T4, 0), 0);
    assert_int_equal(aip_carried_lookup(&carried, MODULE, T1, NULL), 0);
    assert_int_equal(atomic_load(&carried.active), 2);
    /* The module unloads. */
    aip_carried_forget_module(&carried, OTHER);
    assert_int_equal(aip_carried_lookup(&carried, OTHER, T1, NULL), 0);
    aip_carried_set(&carried, MODULE, T2, 0);
    assert_false(aip_carried_any(&carried));
    /* Module 0 is no module. */
    assert_int_equal(aip_carried_set(&carried, 0, T1, 0x06000040u), -1);
    assert_false(aip_carried_any(&carried));
}

static void a_carrier_is_armed_once_its_target_compiled_the_body(void **state)
{
    (void)state;
    int armed = -1;
    assert_int_equal(aip_carried_arm(&carried, MODULE, T1), 0); /* not carried: nothing */
    assert_int_equal(aip_carried_set(&carried, MODULE, T1, 0x06000040u), 0);
    assert_int_equal(aip_carried_lookup(&carried, MODULE, T1, &armed), 0x06000040u);
    assert_int_equal(armed, 0);
    assert_int_equal(aip_carried_arm(&carried, MODULE, T1), 1);
    assert_int_equal(aip_carried_arm(&carried, MODULE, T1), 0); /* its Tier1 compile: once */
    assert_int_equal(aip_carried_lookup(&carried, MODULE, T1, &armed), 0x06000040u);
    assert_int_equal(armed, 1);
    assert_int_equal(aip_carried_arm(&carried, OTHER, T1), 0);
    /* A new body: a new carrier, not armed until the target compiles it. */
    assert_int_equal(aip_carried_set(&carried, MODULE, T1, 0x06000041u), 0);
    assert_int_equal(aip_carried_lookup(&carried, MODULE, T1, &armed), 0x06000041u);
    assert_int_equal(armed, 0);
    assert_int_equal(aip_carried_arm(&carried, MODULE, T1), 1);
    /* Removed: nothing to arm, nothing found. */
    assert_int_equal(aip_carried_set(&carried, MODULE, T1, 0), 0);
    assert_int_equal(aip_carried_arm(&carried, MODULE, T1), 0);
    assert_int_equal(aip_carried_lookup(&carried, MODULE, T1, &armed), 0);
    assert_int_equal(armed, 0);
}

static void a_full_table_refuses_and_counts(void **state)
{
    (void)state;
    for (uint32_t i = 0; i < AIP_CARRIED_TARGETS; ++i)
        assert_int_equal(aip_carried_set(&carried, MODULE, 0x06000100u + i, 0x06000400u + i), 0);
    assert_int_equal(aip_carried_set(&carried, MODULE, T1, 0x06000040u), -1);
    assert_int_equal(atomic_load(&carried.full), 1);
    assert_int_equal(aip_carried_lookup(&carried, MODULE, T1, NULL), 0);
    /* A carried one can still change. */
    assert_int_equal(aip_carried_set(&carried, MODULE, 0x06000100u, 0x06000777u), 0);
    assert_int_equal(aip_carried_lookup(&carried, MODULE, 0x06000100u, NULL), 0x06000777u);
    assert_int_equal(aip_carried_in_module(&carried, MODULE, NULL, 0), AIP_CARRIED_TARGETS);
    aip_carried_forget_module(&carried, MODULE);
    assert_int_equal(atomic_load(&carried.active), 0);
}

static aip_discovered_inbox inbox;

static int inbox_setup(void **state)
{
    (void)state;
    memset(&inbox, 0, sizeof inbox); /* zeroed storage: an empty inbox */
    return 0;
}

static aip_discovered item_of(uint32_t n)
{
    return (aip_discovered){MODULE, 0x06000000u + n, T1 + (n & 3u)};
}

static void the_inbox_keeps_order_and_bound_over_laps(void **state)
{
    (void)state;
    aip_discovered out;
    assert_int_equal(aip_inbox_pop(&inbox, &out), 0);
    uint32_t next_in = 0, next_out = 0;
    for (int lap = 0; lap < 5; ++lap) {
        /* Fill it: one more is dropped and counted. */
        for (uint32_t i = 0; i < AIP_DISCOVERED_CAPACITY; ++i)
            assert_int_equal(aip_inbox_push(&inbox, item_of(next_in++)), 1);
        assert_int_equal(aip_inbox_push(&inbox, item_of(9999)), 0);
        /* Take some, put some back: order holds across the wrap. */
        for (uint32_t i = 0; i < AIP_DISCOVERED_CAPACITY / 2 + (uint32_t)lap; ++i) {
            assert_int_equal(aip_inbox_pop(&inbox, &out), 1);
            assert_int_equal(out.caller, item_of(next_out).caller);
            assert_int_equal(out.target, item_of(next_out).target);
            next_out++;
        }
        while (next_in - next_out < AIP_DISCOVERED_CAPACITY)
            assert_int_equal(aip_inbox_push(&inbox, item_of(next_in++)), 1);
        while (aip_inbox_pop(&inbox, &out)) {
            assert_int_equal(out.caller, item_of(next_out).caller);
            next_out++;
        }
        assert_int_equal(next_in, next_out);
    }
    assert_int_equal(atomic_load(&inbox.dropped), 5);
    assert_int_equal(atomic_load(&inbox.pushed), next_in);
}

static void the_worker_parks_callers_once_and_within_its_bound(void **state)
{
    (void)state;
    aip_discovered out[AIP_DISCOVERED_CAPACITY];
    assert_int_equal(aip_inbox_take_parked(&inbox, out), 0);
    assert_int_equal(aip_inbox_park(&inbox, item_of(1)), 1);
    assert_int_equal(aip_inbox_park(&inbox, item_of(1)), 1); /* found twice: kept once */
    assert_int_equal(aip_inbox_park(&inbox, item_of(2)), 1);
    assert_int_equal(aip_inbox_take_parked(&inbox, out), 2);
    assert_int_equal(out[0].caller, item_of(1).caller);
    assert_int_equal(out[1].caller, item_of(2).caller);
    assert_int_equal(aip_inbox_take_parked(&inbox, out), 0); /* taken: none left */
    for (uint32_t i = 0; i < AIP_DISCOVERED_CAPACITY; ++i)
        assert_int_equal(aip_inbox_park(&inbox, item_of(100 + i)), 1);
    assert_int_equal(aip_inbox_park(&inbox, item_of(999)), 0);
    assert_int_equal(atomic_load(&inbox.dropped), 1);
    assert_int_equal(aip_inbox_take_parked(&inbox, out), AIP_DISCOVERED_CAPACITY);
    assert_int_equal(out[AIP_DISCOVERED_CAPACITY - 1].caller,
                     item_of(100 + AIP_DISCOVERED_CAPACITY - 1).caller);
}

static void one_drain_is_claimed_until_it_starts(void **state)
{
    (void)state;
    assert_int_equal(aip_inbox_claim_drain(&inbox), 1);
    assert_int_equal(aip_inbox_claim_drain(&inbox), 0); /* on its way already */
    aip_inbox_drain_done(&inbox);                        /* it starts (or was refused) */
    assert_int_equal(aip_inbox_claim_drain(&inbox), 1);
    aip_inbox_drain_done(&inbox);
}

/* Several JIT threads push (retrying while the ring is full) while one worker pops: every item
 * arrives once, each thread's in its order. */
#define PUSHERS 4
#define PER_PUSHER 5000u

static _Atomic uint32_t pushers_done;

static void pusher(void *arg)
{
    uint32_t id = (uint32_t)(uintptr_t)arg;
    for (uint32_t n = 0; n < PER_PUSHER; ++n) {
        aip_discovered item = {MODULE + id, n, id};
        while (!aip_inbox_push(&inbox, item)) {
        }
        (void)aip_inbox_claim_drain(&inbox);
    }
    atomic_fetch_add(&pushers_done, 1);
}

static void pushes_from_several_threads_arrive_once_in_order(void **state)
{
    (void)state;
    atomic_store(&pushers_done, 0);
    aip_thread threads[PUSHERS];
    for (uintptr_t i = 0; i < PUSHERS; ++i)
        assert_int_equal(aip_thread_start(&threads[i], pusher, (void *)i), 0);
    uint32_t next[PUSHERS] = {0};
    uint32_t received = 0;
    aip_discovered out;
    while (received < PUSHERS * PER_PUSHER) {
        aip_inbox_drain_done(&inbox);
        while (aip_inbox_pop(&inbox, &out)) {
            assert_true(out.target < PUSHERS);
            assert_int_equal(out.module_id, MODULE + out.target);
            assert_int_equal(out.caller, next[out.target]);
            next[out.target]++;
            received++;
        }
    }
    for (int i = 0; i < PUSHERS; ++i)
        aip_thread_join(&threads[i]);
    assert_int_equal(atomic_load(&pushers_done), PUSHERS);
    assert_int_equal(aip_inbox_pop(&inbox, &out), 0);
}

/* The worker sets and clears carriers while JIT threads read the table. */
static _Atomic int readers_stop;

static void reader(void *arg)
{
    (void)arg;
    uint32_t targets[AIP_CARRIED_TARGETS];
    while (!atomic_load(&readers_stop)) {
        if (!aip_carried_any(&carried))
            continue;
        uint32_t n = aip_carried_in_module(&carried, MODULE, targets, AIP_CARRIED_TARGETS);
        for (uint32_t i = 0; i < n && i < AIP_CARRIED_TARGETS; ++i) {
            uint32_t carrier = aip_carried_lookup(&carried, MODULE, targets[i], NULL);
            /* 0 when cleared since; otherwise the carrier that goes with the target. */
            assert_true(carrier == 0 || carrier == targets[i] + 0x300u);
        }
    }
}

static void the_table_is_read_while_the_worker_changes_it(void **state)
{
    (void)state;
    atomic_store(&readers_stop, 0);
    aip_thread threads[2];
    for (int i = 0; i < 2; ++i)
        assert_int_equal(aip_thread_start(&threads[i], reader, NULL), 0);
    for (uint32_t round = 0; round < 2000; ++round) {
        uint32_t target = 0x06000100u + (round % 8);
        aip_carried_set(&carried, MODULE, target, round % 3 == 0 ? 0 : target + 0x300u);
    }
    atomic_store(&readers_stop, 1);
    for (int i = 0; i < 2; ++i)
        aip_thread_join(&threads[i]);
    aip_carried_forget_module(&carried, MODULE);
    assert_false(aip_carried_any(&carried));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_body_calling_carried_targets_is_found_for_those_alone),
        cmocka_unit_test(a_recursive_target_is_no_caller_of_itself),
        cmocka_unit_test(a_constrained_call_keeps_the_caller_out),
        cmocka_unit_test(a_malformed_or_oversized_search_finds_nothing),
        cmocka_unit_test_setup_teardown(carried_targets_are_set_replaced_cleared_and_forgotten,
                                        carried_setup, carried_teardown),
        cmocka_unit_test_setup_teardown(a_carrier_is_armed_once_its_target_compiled_the_body,
                                        carried_setup, carried_teardown),
        cmocka_unit_test_setup_teardown(a_full_table_refuses_and_counts, carried_setup,
                                        carried_teardown),
        cmocka_unit_test_setup_teardown(the_table_is_read_while_the_worker_changes_it,
                                        carried_setup, carried_teardown),
        cmocka_unit_test_setup(the_inbox_keeps_order_and_bound_over_laps, inbox_setup),
        cmocka_unit_test_setup(the_worker_parks_callers_once_and_within_its_bound, inbox_setup),
        cmocka_unit_test_setup(one_drain_is_claimed_until_it_starts, inbox_setup),
        cmocka_unit_test_setup(pushes_from_several_threads_arrive_once_in_order, inbox_setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
