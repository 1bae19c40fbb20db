/* The inliners' redirect table: routes per caller set, replaced and taken out; bodies
 * published, acquired with a reference and freed with the last route; bounded; a module's
 * entries forgotten when it unloads. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <string.h>

#include "platform/platform.h"
#include "rejit/inliner_redirects.h"

#define MODULE 0x1000u
#define OTHER 0x2000u
#define CALLER 0x06000010u
#define TINY 0x06000001u
#define SMALL 0x06000002u

static aip_inliner_redirects table;

static int setup(void **state)
{
    (void)state;
    memset(&table, 0, sizeof table);
    return aip_redirects_init(&table);
}

static int teardown(void **state)
{
    (void)state;
    aip_redirects_destroy(&table);
    uint64_t bytes = 0, count = 0;
    aip_prepared_totals(&bytes, &count);
    assert_int_equal(count, 0); /* every body released */
    return 0;
}

static aip_prepared_rejit *body_of(uint8_t marker)
{
    uint8_t bytes[] = {(uint8_t)((1u << 2) | 0x2u), marker};
    return aip_prepared_create(0, bytes, sizeof bytes, NULL, 0);
}

static void routes_are_set_replaced_and_taken_out(void **state)
{
    (void)state;
    aip_call_route out[AIP_REDIRECT_ROUTES];
    assert_int_equal(aip_redirects_route(&table, MODULE, CALLER, TINY, 0x06000040u, out), 1);
    assert_int_equal(out[0].from, TINY);
    assert_int_equal(out[0].to, 0x06000040u);
    /* A new generation's carrier replaces the route. */
    assert_int_equal(aip_redirects_route(&table, MODULE, CALLER, TINY, 0x06000041u, out), 1);
    assert_int_equal(out[0].to, 0x06000041u);
    /* A second hooked target of the same caller adds one. */
    assert_int_equal(aip_redirects_route(&table, MODULE, CALLER, SMALL, 0x06000042u, out), 2);
    uint32_t callers[4];
    assert_int_equal(aip_redirects_callers_of(&table, MODULE, TINY, callers, 4), 1);
    assert_int_equal(callers[0], CALLER);
    assert_int_equal(aip_redirects_callers_of(&table, OTHER, TINY, callers, 4), 0);
    /* Taking Tiny's out leaves Small's. */
    assert_int_equal(aip_redirects_route(&table, MODULE, CALLER, TINY, 0, out), 1);
    assert_int_equal(out[0].from, SMALL);
    assert_int_equal(aip_redirects_callers_of(&table, MODULE, TINY, callers, 4), 0);
    assert_int_equal(aip_redirects_route(&table, MODULE, CALLER, SMALL, 0, out), 0);
    /* Removing a route nobody has: none left, nothing created. */
    assert_int_equal(aip_redirects_route(&table, MODULE, 0x06000099u, TINY, 0, out), 0);
    assert_int_equal(table.count, 1); /* the caller's entry stays until its body is published */
    aip_redirects_publish(&table, MODULE, CALLER, NULL);
    assert_int_equal(table.count, 0);
}

static void bodies_are_acquired_with_a_reference_and_freed_with_the_last_route(void **state)
{
    (void)state;
    aip_call_route out[AIP_REDIRECT_ROUTES];
    assert_null(aip_redirects_acquire(&table, MODULE, CALLER));
    assert_int_equal(aip_redirects_route(&table, MODULE, CALLER, TINY, 0x06000040u, out), 1);
    assert_null(aip_redirects_acquire(&table, MODULE, CALLER)); /* routed, not built yet */
    aip_redirects_publish(&table, MODULE, CALLER, body_of(0x2A));
    aip_prepared_rejit *held = aip_redirects_acquire(&table, MODULE, CALLER);
    assert_non_null(held);
    assert_int_equal(held->data[1], 0x2A);
    assert_null(aip_redirects_acquire(&table, OTHER, CALLER));
    assert_null(aip_redirects_acquire(&table, MODULE, CALLER + 1));
    /* A newer body replaces it; the one acquired stays valid until released. */
    aip_redirects_publish(&table, MODULE, CALLER, body_of(0x2B));
    assert_int_equal(held->data[1], 0x2A);
    aip_prepared_release(held);
    held = aip_redirects_acquire(&table, MODULE, CALLER);
    assert_int_equal(held->data[1], 0x2B);
    aip_prepared_release(held);
    /* The last route out: publishing frees the entry, and a body offered with it. */
    assert_int_equal(aip_redirects_route(&table, MODULE, CALLER, TINY, 0, out), 0);
    aip_redirects_publish(&table, MODULE, CALLER, body_of(0x2C));
    assert_null(aip_redirects_acquire(&table, MODULE, CALLER));
    assert_int_equal(table.count, 0);
}

static void the_table_and_a_callers_routes_are_bounded(void **state)
{
    (void)state;
    aip_call_route out[AIP_REDIRECT_ROUTES];
    for (uint32_t i = 0; i < AIP_REDIRECT_ROUTES; ++i)
        assert_int_equal(aip_redirects_route(&table, MODULE, CALLER, TINY + i, 0x06000100u + i, out),
                         (int)i + 1);
    assert_int_equal(aip_redirects_route(&table, MODULE, CALLER, 0x06000050u, 0x06000200u, out),
                     -1);
    for (uint32_t i = 1; i < AIP_REDIRECT_CALLERS; ++i)
        assert_int_equal(aip_redirects_route(&table, MODULE, CALLER + i, TINY, 0x06000040u, out), 1);
    assert_int_equal(aip_redirects_route(&table, OTHER, CALLER, TINY, 0x06000040u, out), -1);
    assert_int_equal(table.count, AIP_REDIRECT_CALLERS);
    /* Module 0 is never a module. */
    assert_int_equal(aip_redirects_route(&table, 0, CALLER, TINY, 0x06000040u, out), -1);
}

static void a_modules_entries_go_when_it_unloads(void **state)
{
    (void)state;
    aip_call_route out[AIP_REDIRECT_ROUTES];
    assert_int_equal(aip_redirects_route(&table, MODULE, CALLER, TINY, 0x06000040u, out), 1);
    aip_redirects_publish(&table, MODULE, CALLER, body_of(0x2A));
    assert_int_equal(aip_redirects_route(&table, OTHER, CALLER, TINY, 0x06000040u, out), 1);
    aip_redirects_publish(&table, OTHER, CALLER, body_of(0x2B));
    aip_redirects_forget_module(&table, MODULE);
    assert_null(aip_redirects_acquire(&table, MODULE, CALLER));
    aip_prepared_rejit *kept = aip_redirects_acquire(&table, OTHER, CALLER);
    assert_non_null(kept);
    assert_int_equal(kept->data[1], 0x2B);
    aip_prepared_release(kept);
    assert_int_equal(table.count, 1);
}

/* The worker's side (routes set and taken out, bodies published) and a ReJIT callback's
 * (acquire, read, release) at once: every body acquired is whole (one of the markers
 * published, its bytes intact) until its release, and none is left when both end. */
#define RACE_ROUNDS 20000u

typedef struct race {
    _Atomic uint32_t done;
    uint64_t acquired;
    uint32_t torn;
} race;

static void race_callback(void *arg)
{
    race *r = arg;
    while (atomic_load(&r->done) == 0) {
        aip_prepared_rejit *b = aip_redirects_acquire(&table, MODULE, CALLER);
        if (b == NULL)
            continue;
        ++r->acquired;
        if (b->body_size != 2 || b->data[1] < 0x10 || b->data[1] > 0x1F)
            ++r->torn;
        aip_prepared_release(b);
    }
}

static void a_callback_acquires_while_the_worker_publishes(void **state)
{
    (void)state;
    race r = {0};
    aip_thread callback;
    assert_int_equal(aip_thread_start(&callback, race_callback, &r), 0);
    aip_call_route out[AIP_REDIRECT_ROUTES];
    for (uint32_t i = 0; i < RACE_ROUNDS; ++i) {
        assert_int_equal(aip_redirects_route(&table, MODULE, CALLER, TINY, 0x06000040u + i % 4, out),
                         1);
        aip_redirects_publish(&table, MODULE, CALLER, body_of((uint8_t)(0x10 + i % 16)));
        if (i % 8 == 7) { /* the last route out: the entry and its body go */
            assert_int_equal(aip_redirects_route(&table, MODULE, CALLER, TINY, 0, out), 0);
            aip_redirects_publish(&table, MODULE, CALLER, NULL);
        }
    }
    atomic_store(&r.done, 1);
    aip_thread_join(&callback);
    assert_int_equal(r.torn, 0);
    print_message("%llu bodies acquired while %u were published\n",
                  (unsigned long long)r.acquired, RACE_ROUNDS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(routes_are_set_replaced_and_taken_out, setup, teardown),
        cmocka_unit_test_setup_teardown(
            bodies_are_acquired_with_a_reference_and_freed_with_the_last_route, setup, teardown),
        cmocka_unit_test_setup_teardown(the_table_and_a_callers_routes_are_bounded, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_modules_entries_go_when_it_unloads, setup, teardown),
        cmocka_unit_test_setup_teardown(a_callback_acquires_while_the_worker_publishes, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
