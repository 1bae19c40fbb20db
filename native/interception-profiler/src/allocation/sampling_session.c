/* The capture-control thread and its state machine. Every field the thread and the callers
 * share is under `lock`, apart from the counters; the runtime calls run with it released. */
#include "allocation/sampling_session.h"

#include <string.h>

#define NS_PER_MS 1000000ull

static void control_main(void *arg)
{
    aip_sampling_session *s = arg;
    atomic_store(&s->init_hresult, s->port.thread_init(s->port.context));
    aip_mutex_lock(&s->lock);
    for (;;) {
        if (!s->quit && s->wanted != 0 && s->served != s->wanted && !s->has_session) {
            uint64_t window = s->wanted;
            s->busy = 1;
            s->starting = window;
            aip_mutex_unlock(&s->lock);
            uint64_t handle = 0;
            int32_t hr = s->port.start(s->port.context, 0, &handle);
            uint64_t now = aip_monotonic_ns();
            aip_mutex_lock(&s->lock);
            s->busy = 0;
            s->starting = 0;
            s->served = window;
            memset(&s->outcome, 0, sizeof s->outcome);
            s->outcome.attempted = 1;
            s->outcome.hresult = hr;
            s->outcome.started = hr >= 0;
            s->outcome.started_ns = now;
            atomic_store(&s->last_hresult, hr);
            if (hr >= 0) {
                s->has_session = 1;
                s->session = handle;
                atomic_fetch_add(&s->sessions_started, 1);
                atomic_store(&s->delivering_window, window);
            }
            aip_cond_broadcast(&s->changed);
            continue;
        }
        if (s->has_session && (s->quit || s->wanted != s->served)) {
            uint64_t handle = s->session;
            int quitting = s->quit != 0;
            s->busy = 2;
            aip_mutex_unlock(&s->lock);
            uint64_t t0 = aip_monotonic_ns();
            s->port.stop(s->port.context, handle);
            uint64_t took = aip_monotonic_ns() - t0;
            /* dotnet/runtime#121462: after the last session of a provider stops, the
             * provider's keywords can stay cached, and the runtime keeps paying for the
             * allocation sampling nobody listens to. Starting and stopping a second session
             * makes the runtime evaluate them again (the Datadog profiler does this after
             * each of its own sessions: port.start's dummy says which session).
             * Not while quitting: no session starts during the runtime's Shutdown. */
            aip_mutex_lock(&s->lock);
            quitting |= s->quit != 0; /* a shutdown may have begun during the stop */
            aip_mutex_unlock(&s->lock);
            uint64_t dummy = 0;
            if (!quitting && s->port.start(s->port.context, 1, &dummy) >= 0)
                s->port.stop(s->port.context, dummy);
            aip_mutex_lock(&s->lock);
            s->busy = 0;
            s->has_session = 0;
            s->session = 0;
            s->outcome.stop_ns = took != 0 ? took : 1;
            atomic_fetch_add(&s->sessions_stopped, 1);
            atomic_store(&s->delivering_window, 0);
            aip_cond_broadcast(&s->changed);
            continue;
        }
        if (s->quit)
            break;
        aip_cond_wait(&s->changed, &s->lock);
    }
    atomic_store(&s->alive, 0);
    aip_cond_broadcast(&s->changed);
    aip_mutex_unlock(&s->lock);
}

int aip_sampling_session_start(aip_sampling_session *s, const aip_session_port *port,
                               uint32_t stop_bound_ms, uint32_t start_bound_ms)
{
    memset(s, 0, sizeof *s);
    s->port = *port;
    s->stop_bound_ns = stop_bound_ms * NS_PER_MS;
    s->start_bound_ns = start_bound_ms * NS_PER_MS;
    if (aip_mutex_init(&s->lock) != 0)
        return -1;
    if (aip_cond_init(&s->changed) != 0) {
        aip_mutex_destroy(&s->lock);
        return -1;
    }
    atomic_store(&s->alive, 1);
    if (aip_thread_start(&s->thread, control_main, s) != 0) {
        atomic_store(&s->alive, 0);
        return -1;
    }
    s->started_thread = 1;
    return 0;
}

/* Under lock, with no window open: the last window's session is still starting (its window
 * closed first) or stopping. */
static int stop_outstanding(const aip_sampling_session *s)
{
    return s->has_session || s->busy != 0;
}

alvk_status aip_sampling_session_ready(aip_sampling_session *s)
{
    if (!s->started_thread)
        return ALVK_E_CAPTURE_CONTROL_UNAVAILABLE;
    aip_mutex_lock(&s->lock);
    alvk_status status = !atomic_load(&s->alive) || s->quit ? ALVK_E_CAPTURE_CONTROL_UNAVAILABLE
                         : stop_outstanding(s)              ? ALVK_E_CAPTURE_STOPPING
                                                            : ALVK_OK;
    aip_mutex_unlock(&s->lock);
    return status;
}

alvk_status aip_sampling_session_open(aip_sampling_session *s, uint64_t window, int wait,
                                      int32_t *hresult)
{
    *hresult = 0;
    if (!s->started_thread)
        return ALVK_E_CAPTURE_CONTROL_UNAVAILABLE;
    aip_mutex_lock(&s->lock);
    alvk_status status = ALVK_OK;
    if (!atomic_load(&s->alive) || s->quit)
        status = ALVK_E_CAPTURE_CONTROL_UNAVAILABLE;
    else if (stop_outstanding(s))
        status = ALVK_E_CAPTURE_STOPPING;
    if (status != ALVK_OK) {
        aip_mutex_unlock(&s->lock);
        return status;
    }
    s->wanted = window;
    /* The window's own start decides session_hresult: an earlier window's failure must not
     * read as this one's (a caller polls it to tell a refused session from a slow one). */
    atomic_store(&s->last_hresult, 0);
    aip_cond_broadcast(&s->changed);
    if (wait) {
        uint64_t deadline = aip_monotonic_ns() + s->start_bound_ns;
        while (s->served != window && atomic_load(&s->alive) &&
               aip_cond_wait_until(&s->changed, &s->lock, deadline) == 0) {
        }
        if (s->served != window) {
            status = atomic_load(&s->alive) ? ALVK_E_TIMEOUT : ALVK_E_CAPTURE_CONTROL_UNAVAILABLE;
        } else if (!s->outcome.started) {
            *hresult = s->outcome.hresult;
            s->wanted = 0;
            status = ALVK_E_CAPTURE_SESSION_FAILED;
        }
    }
    aip_mutex_unlock(&s->lock);
    return status;
}

void aip_sampling_session_close(aip_sampling_session *s, uint64_t window, aip_session_outcome *out)
{
    memset(out, 0, sizeof *out);
    if (!s->started_thread)
        return;
    aip_mutex_lock(&s->lock);
    if (s->wanted == window)
        s->wanted = 0;
    aip_cond_broadcast(&s->changed);
    if (s->busy == 1 && s->starting == window) {
        /* The window's own start is running (a process's first can take hundreds of
         * milliseconds): the caller does not wait for it. The thread stops the session when
         * the start returns (wanted no longer matches), and ready answers
         * ALVK_E_CAPTURE_STOPPING until it has. */
        out->stop_pending = 1;
        aip_mutex_unlock(&s->lock);
        return;
    }
    uint64_t deadline = aip_monotonic_ns() + s->stop_bound_ns;
    int timed_out = 0;
    while (atomic_load(&s->alive) && (s->busy != 0 || s->has_session)) {
        if (aip_cond_wait_until(&s->changed, &s->lock, deadline) != 0) {
            timed_out = s->busy != 0 || s->has_session;
            break;
        }
    }
    if (s->served == window)
        *out = s->outcome;
    if (timed_out) {
        out->stop_pending = 1;
        out->stop_ns = 0;
        atomic_fetch_add(&s->stop_hangs, 1);
    }
    aip_mutex_unlock(&s->lock);
}

int aip_sampling_session_stopping(aip_sampling_session *s)
{
    if (!s->started_thread)
        return 0;
    aip_mutex_lock(&s->lock);
    int stopping = s->wanted == 0 && stop_outstanding(s);
    aip_mutex_unlock(&s->lock);
    return stopping;
}

void aip_sampling_session_shutdown(aip_sampling_session *s, uint64_t timeout_ns)
{
    if (!s->started_thread)
        return;
    aip_mutex_lock(&s->lock);
    s->quit = 1;
    s->wanted = 0;
    aip_cond_broadcast(&s->changed);
    uint64_t deadline = aip_monotonic_ns() + timeout_ns;
    while (atomic_load(&s->alive) && aip_cond_wait_until(&s->changed, &s->lock, deadline) == 0) {
    }
    int exited = !atomic_load(&s->alive);
    aip_mutex_unlock(&s->lock);
    if (exited) {
        aip_thread_join(&s->thread);
        s->started_thread = 0;
    }
}
