/* The capture-control thread's state machine, driven through fakes of the runtime's session
 * calls: cycles, a refused start, a stop that outlasts the bound, a window closed while its
 * start runs (close returns at once, the thread stops the session later), a window closed
 * before its start ran, the dummy session after every stop, and shutdown with a session open
 * (no dummy session then). Runs under TSan too (tests/native/run_tsan.sh). */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "allocation/sampling_session.h"

static void sleep_ms(unsigned ms)
{
    struct timespec t = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

#define E_FAKE ((int32_t)0x80004005)

typedef struct fake_runtime {
    _Atomic int32_t start_result;   /* what the next window start answers */
    _Atomic uint32_t hold_start;    /* 1: a window start waits until released */
    _Atomic uint32_t hold_stop;     /* 1: a window stop waits until released */
    _Atomic uint32_t in_start;      /* a window start is waiting on hold_start */
    _Atomic uint32_t in_stop;
    _Atomic uint64_t next_handle;
    _Atomic uint64_t open_handle;   /* the window session the fake runtime has open */
    _Atomic uint64_t starts, stops, dummy_starts, dummy_stops, inits;
    _Atomic uint64_t bad_stops;     /* a stop of a handle that is not open */
} fake_runtime;

static int32_t fake_init(void *context)
{
    fake_runtime *f = context;
    atomic_fetch_add(&f->inits, 1);
    return 0;
}

static int32_t fake_start(void *context, int dummy, uint64_t *session)
{
    fake_runtime *f = context;
    if (dummy) {
        atomic_fetch_add(&f->dummy_starts, 1);
        *session = 0xD000 + atomic_fetch_add(&f->next_handle, 1);
        return 0;
    }
    atomic_fetch_add(&f->starts, 1);
    atomic_store(&f->in_start, 1);
    while (atomic_load(&f->hold_start))
        sleep_ms(1);
    atomic_store(&f->in_start, 0);
    int32_t hr = atomic_load(&f->start_result);
    if (hr >= 0) {
        *session = 0x1000 + atomic_fetch_add(&f->next_handle, 1);
        atomic_store(&f->open_handle, *session);
    }
    return hr;
}

static int32_t fake_stop(void *context, uint64_t session)
{
    fake_runtime *f = context;
    if (session >= 0xD000) {
        atomic_fetch_add(&f->dummy_stops, 1);
        return 0;
    }
    atomic_fetch_add(&f->stops, 1);
    atomic_store(&f->in_stop, 1);
    while (atomic_load(&f->hold_stop))
        sleep_ms(1);
    atomic_store(&f->in_stop, 0);
    if (atomic_load(&f->open_handle) != session)
        atomic_fetch_add(&f->bad_stops, 1);
    atomic_store(&f->open_handle, 0);
    return 0;
}

static aip_sampling_session *start_fake(fake_runtime *f, uint32_t stop_bound_ms,
                                        uint32_t start_bound_ms)
{
    static aip_sampling_session s;
    memset(f, 0, sizeof *f);
    aip_session_port port = {f, fake_init, fake_start, fake_stop};
    assert_int_equal(aip_sampling_session_start(&s, &port, stop_bound_ms, start_bound_ms), 0);
    return &s;
}

static void wait_for(_Atomic uint32_t *flag)
{
    for (int i = 0; i < 10000 && !atomic_load(flag); ++i)
        sleep_ms(1);
    assert_true(atomic_load(flag));
}

static void cycles_start_stop_and_the_dummy_session(void **state)
{
    (void)state;
    fake_runtime f;
    aip_sampling_session *s = start_fake(&f, 5000, 5000);
    for (uint64_t w = 1; w <= 3; ++w) {
        int32_t hr = -1;
        assert_int_equal(aip_sampling_session_ready(s), ALVK_OK);
        assert_int_equal(aip_sampling_session_open(s, w, 1, &hr), ALVK_OK);
        assert_int_equal(hr, 0);
        assert_int_equal(atomic_load(&s->delivering_window), w);
        assert_int_not_equal(atomic_load(&f.open_handle), 0);
        aip_session_outcome out;
        aip_sampling_session_close(s, w, &out);
        assert_int_equal(out.attempted, 1);
        assert_int_equal(out.started, 1);
        assert_int_equal(out.hresult, 0);
        assert_int_equal(out.stop_pending, 0);
        assert_true(out.stop_ns > 0);
        assert_true(out.started_ns > 0);
        assert_int_equal(atomic_load(&f.open_handle), 0);
        assert_int_equal(atomic_load(&s->delivering_window), 0);
        assert_false(aip_sampling_session_stopping(s));
    }
    assert_int_equal(atomic_load(&f.inits), 1);
    assert_int_equal(atomic_load(&f.starts), 3);
    assert_int_equal(atomic_load(&f.stops), 3);
    /* One throw-away session after each stop, and it is stopped too. */
    assert_int_equal(atomic_load(&f.dummy_starts), 3);
    assert_int_equal(atomic_load(&f.dummy_stops), 3);
    assert_int_equal(atomic_load(&f.bad_stops), 0);
    assert_int_equal(atomic_load(&s->sessions_started), 3);
    assert_int_equal(atomic_load(&s->sessions_stopped), 3);
    aip_sampling_session_shutdown(s, 5000000000ull);
    assert_int_equal(atomic_load(&s->alive), 0);
}

static void open_without_waiting_returns_before_the_start(void **state)
{
    (void)state;
    fake_runtime f;
    aip_sampling_session *s = start_fake(&f, 5000, 5000);
    atomic_store(&f.hold_start, 1);
    int32_t hr = -1;
    assert_int_equal(aip_sampling_session_open(s, 1, 0, &hr), ALVK_OK);
    wait_for(&f.in_start); /* the start runs on the thread while the caller is long gone */
    assert_int_equal(atomic_load(&s->delivering_window), 0);
    atomic_store(&f.hold_start, 0);
    for (int i = 0; i < 10000 && atomic_load(&s->delivering_window) != 1; ++i)
        sleep_ms(1);
    assert_int_equal(atomic_load(&s->delivering_window), 1);
    aip_session_outcome out;
    aip_sampling_session_close(s, 1, &out);
    assert_int_equal(out.started, 1);
    aip_sampling_session_shutdown(s, 5000000000ull);
}

static void a_refused_start_fails_the_waiting_open_and_is_not_retried(void **state)
{
    (void)state;
    fake_runtime f;
    aip_sampling_session *s = start_fake(&f, 5000, 5000);
    atomic_store(&f.start_result, E_FAKE);
    int32_t hr = 0;
    assert_int_equal(aip_sampling_session_open(s, 1, 1, &hr), ALVK_E_CAPTURE_SESSION_FAILED);
    assert_int_equal(hr, E_FAKE);
    assert_int_equal(atomic_load(&s->last_hresult), E_FAKE);
    aip_session_outcome out;
    aip_sampling_session_close(s, 1, &out);
    assert_int_equal(out.attempted, 1);
    assert_int_equal(out.started, 0);
    assert_int_equal(out.hresult, E_FAKE);
    /* Without waiting: the refusal comes in the outcome, once. */
    assert_int_equal(aip_sampling_session_open(s, 2, 0, &hr), ALVK_OK);
    for (int i = 0; i < 10000 && atomic_load(&f.starts) < 2; ++i)
        sleep_ms(1);
    sleep_ms(20);
    aip_sampling_session_close(s, 2, &out);
    assert_int_equal(out.started, 0);
    assert_int_equal(out.hresult, E_FAKE);
    assert_int_equal(atomic_load(&f.starts), 2);
    assert_int_equal(atomic_load(&f.stops), 0);
    assert_int_equal(atomic_load(&s->sessions_started), 0);
    /* The runtime accepts again: the next window works. */
    atomic_store(&f.start_result, 0);
    assert_int_equal(aip_sampling_session_open(s, 3, 1, &hr), ALVK_OK);
    aip_sampling_session_close(s, 3, &out);
    assert_int_equal(out.started, 1);
    aip_sampling_session_shutdown(s, 5000000000ull);
}

static void a_stop_past_the_bound_is_pending_until_it_returns(void **state)
{
    (void)state;
    fake_runtime f;
    aip_sampling_session *s = start_fake(&f, 50, 5000);
    int32_t hr = 0;
    assert_int_equal(aip_sampling_session_open(s, 1, 1, &hr), ALVK_OK);
    atomic_store(&f.hold_stop, 1);
    uint64_t t0 = aip_monotonic_ns();
    aip_session_outcome out;
    aip_sampling_session_close(s, 1, &out);
    uint64_t took = aip_monotonic_ns() - t0;
    assert_true(took >= 50000000ull);  /* it waited the bound */
    assert_true(took < 5000000000ull); /* and not for the stop */
    assert_int_equal(out.started, 1);
    assert_int_equal(out.stop_pending, 1);
    assert_int_equal(out.stop_ns, 0);
    assert_int_equal(atomic_load(&s->stop_hangs), 1);
    assert_true(aip_sampling_session_stopping(s));
    assert_int_equal(aip_sampling_session_ready(s), ALVK_E_CAPTURE_STOPPING);
    assert_int_equal(aip_sampling_session_open(s, 2, 0, &hr), ALVK_E_CAPTURE_STOPPING);
    assert_int_equal(atomic_load(&f.starts), 1);
    atomic_store(&f.hold_stop, 0);
    for (int i = 0; i < 10000 && aip_sampling_session_stopping(s); ++i)
        sleep_ms(1);
    assert_false(aip_sampling_session_stopping(s));
    assert_int_equal(aip_sampling_session_ready(s), ALVK_OK);
    assert_int_equal(aip_sampling_session_open(s, 2, 1, &hr), ALVK_OK);
    aip_sampling_session_close(s, 2, &out);
    assert_int_equal(out.stop_pending, 0);
    assert_int_equal(atomic_load(&s->sessions_stopped), 2);
    assert_int_equal(atomic_load(&f.bad_stops), 0);
    aip_sampling_session_shutdown(s, 5000000000ull);
}

static void wait_ready(aip_sampling_session *s)
{
    for (int i = 0; i < 10000 && aip_sampling_session_ready(s) != ALVK_OK; ++i)
        sleep_ms(1);
    assert_int_equal(aip_sampling_session_ready(s), ALVK_OK);
}

static void closing_while_the_start_runs_returns_at_once_and_the_thread_stops_it(void **state)
{
    (void)state;
    fake_runtime f;
    aip_sampling_session *s = start_fake(&f, 5000, 5000);
    atomic_store(&f.hold_start, 1);
    int32_t hr = 0;
    assert_int_equal(aip_sampling_session_open(s, 1, 0, &hr), ALVK_OK);
    wait_for(&f.in_start);
    /* The window closes while its start runs (held: it would never return in time): close
     * does not wait for it, the session is stopped when the start returns. */
    uint64_t t0 = aip_monotonic_ns();
    aip_session_outcome out;
    aip_sampling_session_close(s, 1, &out);
    assert_true(aip_monotonic_ns() - t0 < 1000000000ull);
    assert_int_equal(out.attempted, 0);
    assert_int_equal(out.started, 0);
    assert_int_equal(out.stop_pending, 1);
    assert_int_equal(out.stop_ns, 0);
    assert_int_equal(atomic_load(&s->stop_hangs), 0);
    assert_int_equal(aip_sampling_session_ready(s), ALVK_E_CAPTURE_STOPPING);
    assert_true(aip_sampling_session_stopping(s));
    assert_int_equal(aip_sampling_session_open(s, 2, 0, &hr), ALVK_E_CAPTURE_STOPPING);
    atomic_store(&f.hold_start, 0);
    wait_ready(s);
    assert_int_equal(atomic_load(&f.starts), 1);
    assert_int_equal(atomic_load(&f.stops), 1);
    assert_int_equal(atomic_load(&f.open_handle), 0);
    assert_int_equal(atomic_load(&f.bad_stops), 0);
    assert_false(aip_sampling_session_stopping(s));
    /* The next window works as ever. */
    assert_int_equal(aip_sampling_session_open(s, 2, 1, &hr), ALVK_OK);
    aip_sampling_session_close(s, 2, &out);
    assert_int_equal(out.started, 1);
    assert_int_equal(out.stop_pending, 0);
    aip_sampling_session_shutdown(s, 5000000000ull);
}

static void closing_before_the_start_ran_never_starts_it(void **state)
{
    (void)state;
    fake_runtime f;
    aip_sampling_session *s = start_fake(&f, 5000, 5000);
    int32_t hr = 0;
    assert_int_equal(aip_sampling_session_open(s, 1, 1, &hr), ALVK_OK);
    aip_session_outcome out;
    aip_sampling_session_close(s, 1, &out);
    /* Window 2 asks, as open does, but without waking the idle thread (open's broadcast left
     * out), so the ask is still untaken when the window closes. */
    aip_mutex_lock(&s->lock);
    s->wanted = 2;
    aip_mutex_unlock(&s->lock);
    aip_sampling_session_close(s, 2, &out);
    assert_int_equal(out.attempted, 0);
    assert_int_equal(out.started, 0);
    assert_int_equal(out.stop_pending, 0);
    sleep_ms(20);
    assert_int_equal(atomic_load(&f.starts), 1);
    assert_int_equal(atomic_load(&f.stops), 1);
    aip_sampling_session_shutdown(s, 5000000000ull);
}

static void a_thousand_cycles(void **state)
{
    (void)state;
    fake_runtime f;
    aip_sampling_session *s = start_fake(&f, 5000, 5000);
    for (uint64_t w = 1; w <= 1000; ++w) {
        int32_t hr = 0;
        assert_int_equal(aip_sampling_session_open(s, w, (int)(w % 2), &hr), ALVK_OK);
        aip_session_outcome out;
        aip_sampling_session_close(s, w, &out);
        /* An even window may close while its start runs: the thread stops it afterwards. */
        if (w % 2 == 1)
            assert_int_equal(out.stop_pending, 0);
        else if (out.stop_pending)
            wait_ready(s);
    }
    /* Odd windows waited for their start; even ones may have closed before it ran. */
    assert_int_equal(atomic_load(&f.starts), atomic_load(&f.stops));
    assert_true(atomic_load(&f.starts) >= 500);
    assert_int_equal(atomic_load(&f.dummy_starts), atomic_load(&f.stops));
    assert_int_equal(atomic_load(&f.bad_stops), 0);
    assert_int_equal(atomic_load(&f.open_handle), 0);
    assert_int_equal(atomic_load(&s->stop_hangs), 0);
    aip_sampling_session_shutdown(s, 5000000000ull);
}

static void shutdown_stops_an_open_session(void **state)
{
    (void)state;
    fake_runtime f;
    aip_sampling_session *s = start_fake(&f, 5000, 5000);
    int32_t hr = 0;
    assert_int_equal(aip_sampling_session_open(s, 1, 1, &hr), ALVK_OK);
    aip_sampling_session_shutdown(s, 5000000000ull);
    assert_int_equal(atomic_load(&s->alive), 0);
    assert_int_equal(atomic_load(&f.stops), 1);
    assert_int_equal(atomic_load(&f.open_handle), 0);
    /* No throw-away session while the runtime shuts down. */
    assert_int_equal(atomic_load(&f.dummy_starts), 0);
    assert_int_equal(aip_sampling_session_open(s, 2, 0, &hr), ALVK_E_CAPTURE_CONTROL_UNAVAILABLE);
}

static void shutdown_leaves_a_hung_thread_behind_in_bounded_time(void **state)
{
    (void)state;
    fake_runtime f;
    aip_sampling_session *s = start_fake(&f, 20, 5000);
    int32_t hr = 0;
    assert_int_equal(aip_sampling_session_open(s, 1, 1, &hr), ALVK_OK);
    atomic_store(&f.hold_stop, 1);
    uint64_t t0 = aip_monotonic_ns();
    aip_sampling_session_shutdown(s, 50000000ull);
    assert_true(aip_monotonic_ns() - t0 < 5000000000ull);
    assert_int_equal(atomic_load(&s->alive), 1);
    /* Released, the thread ends by itself; the second shutdown joins it. */
    atomic_store(&f.hold_stop, 0);
    aip_sampling_session_shutdown(s, 5000000000ull);
    assert_int_equal(atomic_load(&s->alive), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cycles_start_stop_and_the_dummy_session),
        cmocka_unit_test(open_without_waiting_returns_before_the_start),
        cmocka_unit_test(a_refused_start_fails_the_waiting_open_and_is_not_retried),
        cmocka_unit_test(a_stop_past_the_bound_is_pending_until_it_returns),
        cmocka_unit_test(closing_while_the_start_runs_returns_at_once_and_the_thread_stops_it),
        cmocka_unit_test(closing_before_the_start_ran_never_starts_it),
        cmocka_unit_test(a_thousand_cycles),
        cmocka_unit_test(shutdown_stops_an_open_session),
        cmocka_unit_test(shutdown_leaves_a_hung_thread_behind_in_bounded_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
