/* The worker queue: order, bounds, timeouts, stop, and no leaked slots under contention. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <string.h>

#include "runtime/command_queue.h"

typedef struct log_context {
    _Atomic int gate_open;
    _Atomic int64_t sum;
    int order[64];
    int count;
} log_context;

static alvk_status record(void *payload, void *context)
{
    log_context *log = context;
    int value;
    memcpy(&value, payload, sizeof value);
    while (!atomic_load(&log->gate_open)) {
    }
    if (log->count < 64)
        log->order[log->count++] = value;
    atomic_fetch_add(&log->sum, value);
    alvk_status result = value % 2 == 0 ? ALVK_OK : ALVK_E_INTERNAL;
    value *= 10; /* commands hand data back through their payload */
    memcpy(payload, &value, sizeof value);
    return result;
}

static void worker(void *arg) { aip_queue_run_worker(arg); }

static void runs_in_order_and_returns_results(void **state)
{
    (void)state;
    static aip_queue q;
    log_context log = {1, 0, {0}, 0};
    assert_int_equal(aip_queue_init(&q, 8, &log), ALVK_OK);
    uint64_t tickets[5];
    for (int i = 0; i < 5; ++i)
        assert_int_equal(aip_queue_submit(&q, record, &i, sizeof i, &tickets[i]), ALVK_OK);
    aip_thread t;
    assert_int_equal(aip_thread_start(&t, worker, &q), 0);
    for (int i = 0; i < 5; ++i) {
        alvk_status result = ALVK_OK;
        int returned = -1;
        assert_int_equal(aip_queue_wait(&q, tickets[i], 5000000000ull, &result, &returned,
                                        sizeof returned),
                         ALVK_OK);
        assert_int_equal(result, i % 2 == 0 ? ALVK_OK : ALVK_E_INTERNAL);
        assert_int_equal(returned, i * 10);
    }
    for (int i = 0; i < 5; ++i)
        assert_int_equal(log.order[i], i);
    alvk_status result;
    assert_int_equal(aip_queue_wait(&q, tickets[0], 1000, &result, NULL, 0), ALVK_E_INTERNAL);
    assert_int_equal(aip_queue_completed(&q), 5);
    aip_queue_stop(&q);
    aip_thread_join(&t);
    assert_int_equal(aip_queue_slots_in_use(&q), 0);
    aip_queue_destroy(&q);
}

static void full_queue_refuses_without_change(void **state)
{
    (void)state;
    static aip_queue q;
    log_context log = {1, 0, {0}, 0};
    assert_int_equal(aip_queue_init(&q, 3, &log), ALVK_OK);
    uint64_t ticket, tickets[3];
    int v = 2;
    assert_int_equal(aip_queue_submit(&q, record, &v, sizeof v, NULL), ALVK_OK);
    for (int i = 1; i < 3; ++i)
        assert_int_equal(aip_queue_submit(&q, record, &v, sizeof v, &tickets[i]), ALVK_OK);
    assert_int_equal(aip_queue_submit(&q, record, &v, sizeof v, &ticket), ALVK_E_QUEUE_FULL);
    assert_int_equal(aip_queue_depth(&q), 3);
    assert_int_equal(aip_queue_submit(&q, NULL, &v, sizeof v, &ticket), ALVK_E_NULL_ARGUMENT);
    assert_int_equal(aip_queue_submit(&q, record, &v, AIP_COMMAND_PAYLOAD_BYTES + 1, &ticket),
                     ALVK_E_INTERNAL);
    assert_int_equal(aip_queue_depth(&q), 3);
    /* Stopping completes the queued commands unrun and frees their slots once collected. */
    aip_queue_stop(&q);
    aip_queue_run_worker(&q);
    assert_int_equal(aip_queue_slots_in_use(&q), 2); /* the detached one is already free */
    for (int i = 1; i < 3; ++i) {
        alvk_status result = ALVK_OK;
        assert_int_equal(aip_queue_wait(&q, tickets[i], 1000, &result, NULL, 0), ALVK_OK);
        assert_int_equal(result, ALVK_E_WORKER_UNAVAILABLE);
    }
    assert_int_equal(aip_queue_slots_in_use(&q), 0);
    assert_int_equal(atomic_load(&log.sum), 0);
    assert_int_equal(aip_queue_submit(&q, record, &v, sizeof v, &ticket),
                     ALVK_E_WORKER_UNAVAILABLE);
    aip_queue_destroy(&q);
    assert_int_equal(aip_queue_init(&q, 0, &log), ALVK_E_INTERNAL);
    assert_int_equal(aip_queue_init(&q, AIP_QUEUE_MAX_CAPACITY + 1, &log), ALVK_E_INTERNAL);
}

static void abandoned_waits_do_not_leak_slots(void **state)
{
    (void)state;
    static aip_queue q;
    log_context log = {0, 0, {0}, 0};
    assert_int_equal(aip_queue_init(&q, 4, &log), ALVK_OK);
    aip_thread t;
    assert_int_equal(aip_thread_start(&t, worker, &q), 0);
    uint64_t ticket;
    int v = 4;
    assert_int_equal(aip_queue_submit(&q, record, &v, sizeof v, &ticket), ALVK_OK);
    alvk_status result;
    assert_int_equal(aip_queue_wait(&q, ticket, 20000000ull, &result, NULL, 0), ALVK_E_TIMEOUT);
    assert_int_equal(aip_queue_wait(&q, ticket, 1000, &result, NULL, 0), ALVK_E_INTERNAL);
    atomic_store(&log.gate_open, 1);
    uint64_t deadline = aip_monotonic_ns() + 5000000000ull;
    while (aip_queue_slots_in_use(&q) != 0 && aip_monotonic_ns() < deadline) {
    }
    assert_int_equal(aip_queue_slots_in_use(&q), 0);
    assert_int_equal(atomic_load(&log.sum), 4);
    aip_queue_stop(&q);
    aip_thread_join(&t);
    aip_queue_destroy(&q);
}

typedef struct producer_args {
    aip_queue *q;
    int base;
    int refused;
} producer_args;

enum { PRODUCERS = 4, PER_PRODUCER = 1000 };

static void producer(void *arg)
{
    producer_args *p = arg;
    for (int i = 0; i < PER_PRODUCER; ++i) {
        int v = 2 * (p->base + i);
        uint64_t ticket;
        alvk_status s;
        while ((s = aip_queue_submit(p->q, record, &v, sizeof v, &ticket)) == ALVK_E_QUEUE_FULL)
            ++p->refused;
        alvk_status result = ALVK_E_INTERNAL;
        if (s != ALVK_OK || aip_queue_wait(p->q, ticket, 10000000000ull, &result, NULL, 0) != ALVK_OK ||
            result != ALVK_OK)
            p->refused = -1000000;
    }
}

static void contention_loses_nothing(void **state)
{
    (void)state;
    static aip_queue q;
    log_context log = {1, 0, {0}, 0};
    assert_int_equal(aip_queue_init(&q, 2, &log), ALVK_OK);
    aip_thread w, threads[PRODUCERS];
    producer_args args[PRODUCERS];
    assert_int_equal(aip_thread_start(&w, worker, &q), 0);
    for (int i = 0; i < PRODUCERS; ++i) {
        args[i] = (producer_args){&q, i * PER_PRODUCER, 0};
        assert_int_equal(aip_thread_start(&threads[i], producer, &args[i]), 0);
    }
    for (int i = 0; i < PRODUCERS; ++i) {
        aip_thread_join(&threads[i]);
        assert_true(args[i].refused >= 0);
    }
    int64_t n = PRODUCERS * PER_PRODUCER;
    assert_int_equal(atomic_load(&log.sum), n * (n - 1));
    assert_int_equal(aip_queue_completed(&q), (uint64_t)n);
    assert_int_equal(aip_queue_slots_in_use(&q), 0);
    aip_queue_stop(&q);
    aip_thread_join(&w);
    aip_queue_destroy(&q);
}

static void discard_count(void *payload, void *context)
{
    log_context *log = context;
    int value;
    memcpy(&value, payload, sizeof value);
    atomic_fetch_add(&log->sum, -value); /* discarded commands subtract */
}

static void reservations_refuse_before_anything_changes(void **state)
{
    (void)state;
    static aip_queue q;
    log_context log = {0};
    atomic_store(&log.gate_open, 1);
    assert_int_equal(aip_queue_init(&q, 3, &log), ALVK_OK);
    uint32_t a, b, c, d;
    assert_int_equal(aip_queue_reserve(&q, &a), ALVK_OK);
    assert_int_equal(aip_queue_reserve(&q, &b), ALVK_OK);
    int v = 1;
    uint64_t ticket;
    assert_int_equal(aip_queue_submit(&q, record, &v, sizeof v, &ticket), ALVK_OK);
    /* Reserved slots count as used: the queue is full for reservations and submissions. */
    assert_int_equal(aip_queue_reserve(&q, &c), ALVK_E_QUEUE_FULL);
    assert_int_equal(aip_queue_submit(&q, record, &v, sizeof v, NULL), ALVK_E_QUEUE_FULL);
    assert_int_equal(aip_queue_slots_in_use(&q), 3);
    assert_int_equal(aip_queue_depth(&q), 1);
    aip_queue_release(&q, b);
    assert_int_equal(aip_queue_slots_in_use(&q), 2);
    assert_int_equal(aip_queue_reserve(&q, &c), ALVK_OK);
    v = 4;
    aip_queue_commit(&q, a, record, discard_count, &v, sizeof v, NULL);
    assert_int_equal(aip_queue_depth(&q), 2);
    /* A spent ticket's slot, reserved again, is not mistaken for the waited command. */
    alvk_status ignored;
    uint64_t stale = ((uint64_t)q.slots[c].sequence << 32) | c;
    assert_int_equal(aip_queue_wait(&q, stale, 0, &ignored, NULL, 0), ALVK_E_INTERNAL);
    /* Stop with two commands queued: the one with a discard function is discarded. */
    aip_queue_stop(&q);
    aip_queue_run_worker(&q);
    assert_int_equal(atomic_load(&log.sum), -4);
    alvk_status result = ALVK_OK;
    assert_int_equal(aip_queue_wait(&q, ticket, 1000, &result, NULL, 0), ALVK_OK);
    assert_int_equal(result, ALVK_E_WORKER_UNAVAILABLE);
    /* A reservation committed after the stop is discarded at once, on this thread. */
    v = 10;
    uint64_t waited = 0;
    aip_queue_commit(&q, c, record, discard_count, &v, sizeof v, &waited);
    assert_int_equal(atomic_load(&log.sum), -14);
    assert_int_equal(aip_queue_slots_in_use(&q), 1); /* until its waiter collects it */
    result = ALVK_OK;
    assert_int_equal(aip_queue_wait(&q, waited, 0, &result, NULL, 0), ALVK_OK);
    assert_int_equal(result, ALVK_E_WORKER_UNAVAILABLE);
    assert_int_equal(aip_queue_slots_in_use(&q), 0);
    assert_int_equal(aip_queue_completed(&q), 3);
    assert_int_equal(aip_queue_reserve(&q, &d), ALVK_E_WORKER_UNAVAILABLE);
    aip_queue_destroy(&q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(runs_in_order_and_returns_results),
        cmocka_unit_test(full_queue_refuses_without_change),
        cmocka_unit_test(abandoned_waits_do_not_leak_slots),
        cmocka_unit_test(contention_loses_nothing),
        cmocka_unit_test(reservations_refuse_before_anything_changes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
