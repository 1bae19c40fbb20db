/* The capture-control thread of sampled allocation profiling: the one native thread that
 * starts and stops the in-process EventPipe sessions, never the caller's (the first start of
 * a process runs the application's managed EventSource callback on the starting thread) and
 * never a runtime callback's (a stop from inside the session's callback deadlocks). A window
 * asks for a session (open) and gives it back (close); the thread runs the runtime calls
 * through a port of function pointers, so the state machine is tested without a runtime.
 * close waits a bounded time for the stop: a stop that outlasts it is reported, the thread
 * finishes it in the background, and no new session opens until it has. */
#ifndef AIP_SAMPLING_SESSION_H
#define AIP_SAMPLING_SESSION_H

#include "alvorkit_interception_profiler.h"
#include "platform/platform.h"

#include <stdatomic.h>
#include <stdint.h>

/* What the thread calls; HRESULTs as int32_t (negative: failed). */
typedef struct aip_session_port {
    void *context;
    /* First, on the control thread (the runtime's InitializeCurrentThread). */
    int32_t (*thread_init)(void *context);
    /* Starts the window's session (dummy 0) or the throw-away session that makes the runtime
     * re-evaluate the provider's keywords after a stop (dummy 1); *session on success. */
    int32_t (*start)(void *context, int dummy, uint64_t *session);
    int32_t (*stop)(void *context, uint64_t session);
} aip_session_port;

/* What became of one window's session. */
typedef struct aip_session_outcome {
    uint32_t attempted;    /* the start ran and returned */
    uint32_t started;      /* ... with success */
    int32_t hresult;       /* the start's (0 when it never ran) */
    uint32_t stop_pending; /* close: the stop had not returned within the bound */
    uint64_t started_ns;   /* aip_monotonic_ns() when the start returned */
    uint64_t stop_ns;      /* how long the stop took (0: none, or still pending) */
} aip_session_outcome;

typedef struct aip_sampling_session {
    aip_session_port port;
    uint64_t stop_bound_ns;
    uint64_t start_bound_ns;
    aip_mutex lock;
    aip_cond changed;
    aip_thread thread;
    /* Under lock. */
    uint64_t wanted;  /* the window that wants a session, 0: none */
    uint64_t served;  /* the last window whose start ran */
    uint64_t session; /* the open session's handle, when has_session */
    uint32_t has_session;
    uint32_t busy;     /* 1: a start is running, 2: a stop */
    uint64_t starting; /* the window whose start is running (busy 1), 0: none */
    uint32_t quit;
    aip_session_outcome outcome; /* of window `served` */
    /* Read anywhere. */
    _Atomic uint32_t started_thread;
    _Atomic uint32_t alive;
    _Atomic int32_t init_hresult;
    _Atomic int32_t last_hresult;       /* of the last window's start */
    _Atomic uint64_t delivering_window; /* the window whose session started, 0: none */
    _Atomic uint64_t sessions_started;
    _Atomic uint64_t sessions_stopped;
    _Atomic uint64_t stop_hangs;
} aip_sampling_session;

/* Starts the thread. The bounds: how long close waits for a stop, and open (waiting) for a
 * start; production passes ALVK_CAPTURE_STOP_BOUND_MS and ALVK_CAPTURE_START_BOUND_MS.
 * 0, or -1 when the thread could not start (open then answers
 * ALVK_E_CAPTURE_CONTROL_UNAVAILABLE). */
int aip_sampling_session_start(aip_sampling_session *s, const aip_session_port *port,
                               uint32_t stop_bound_ms, uint32_t start_bound_ms);

/* ALVK_E_CAPTURE_STOPPING while the last window's stop has not returned, else ALVK_OK. */
alvk_status aip_sampling_session_ready(aip_sampling_session *s);

/* Asks for window `window`'s session (window ids grow, never 0) and returns at once unless
 * `wait`: then it waits up to the start bound. ALVK_OK (started, or asked without waiting),
 * ALVK_E_CAPTURE_CONTROL_UNAVAILABLE (the thread is gone), ALVK_E_CAPTURE_STOPPING,
 * ALVK_E_TIMEOUT (still starting: the session opens when the start returns),
 * ALVK_E_CAPTURE_SESSION_FAILED (*hresult says why; the window no longer wants one). */
alvk_status aip_sampling_session_open(aip_sampling_session *s, uint64_t window, int wait,
                                      int32_t *hresult);

/* The window gives its session back: a start not yet begun never runs; while the window's
 * own start runs it returns at once with stop_pending (the thread stops the session when the
 * start returns); else it waits up to the stop bound for the stop to return. *out says what
 * became of the session (stop_pending when the bound passed or the start still runs). */
void aip_sampling_session_close(aip_sampling_session *s, uint64_t window, aip_session_outcome *out);

/* 1 when no window wants a session and one is still open or stopping. */
int aip_sampling_session_stopping(aip_sampling_session *s);

/* Stops the thread: a session still open is stopped by it first. Waits up to timeout_ns,
 * then leaves a thread that did not return to the process's exit. */
void aip_sampling_session_shutdown(aip_sampling_session *s, uint64_t timeout_ns);

#endif
