/* Concurrency stress of the worker queue and RejitState, the way the profiler drives them:
 * eight producers submitting with and without waiting, waits abandoned by short timeouts, a
 * full queue, a stop with commands still queued while producers keep submitting; and the
 * patch table shared by client, worker, ReJIT-callback and reader threads at once; and the
 * table growing chunk by chunk while installers, callbacks and readers use it.
 * Accounting is exact: every accepted command completes exactly once, refused submissions
 * change nothing, no queue slot and no snapshot reference leaks. Runs in the ASan and the
 * TSan builds; ALVK_STRESS_SCALE=N multiplies the work for a long run. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rejit/rejit_batch.h"
#include "rejit/rejit_events.h"
#include "rejit/rejit_generations.h"
#include "rejit/rejit_owners.h"
#include "rejit/rejit_state.h"
#include "runtime/command_queue.h"

#define SECONDS(n) ((uint64_t)(n) * 1000000000ull)

/* --- shared helpers --------------------------------------------------------------------- */

/* Threads other than cmocka's may not assert: they count violations, main asserts none. */
static _Atomic uint32_t g_violations;
static _Atomic int g_first_line;
static _Atomic(const char *) g_first_text;

static void note_violation(int line, const char *text)
{
    if (atomic_fetch_add(&g_violations, 1) == 0) {
        atomic_store(&g_first_line, line);
        atomic_store(&g_first_text, text);
    }
}
#define CHECK(cond) ((cond) ? 1 : (note_violation(__LINE__, #cond), 0))

static void assert_no_violations(void)
{
    uint32_t n = atomic_load(&g_violations);
    if (n != 0)
        fail_msg("%u violation(s) on other threads; first at line %d: %s", (unsigned)n,
                 atomic_load(&g_first_line), atomic_load(&g_first_text));
}

static uint32_t stress_scale(void)
{
    const char *text = getenv("ALVK_STRESS_SCALE");
    unsigned long n = text != NULL ? strtoul(text, NULL, 10) : 1;
    return n < 1 ? 1 : n > 10000 ? 10000 : (uint32_t)n;
}

/* Waits (yielding) until *counter reaches target or `seconds` pass; returns the value. */
static uint64_t await_at_least(_Atomic uint64_t *counter, uint64_t target, unsigned seconds)
{
    uint64_t deadline = aip_monotonic_ns() + SECONDS(seconds);
    uint64_t v;
    while ((v = atomic_load(counter)) < target && aip_monotonic_ns() < deadline)
        sched_yield();
    return v;
}

/* For retry loops: 1 once `*since` (0: not refused yet) is a minute old, so a leak that keeps
 * the queue full fails the test instead of hanging it. */
static int refused_too_long(uint64_t *since)
{
    uint64_t now = aip_monotonic_ns();
    if (*since == 0)
        *since = now;
    return now - *since > SECONDS(60);
}

static void queue_worker(void *q) { aip_queue_run_worker(q); }

/* What alvk_get_runtime_status reads from any thread, checked against the queue's bounds. */
static void check_queue_gauges(aip_queue *q, uint64_t *completed_before)
{
    uint64_t completed = aip_queue_completed(q);
    CHECK(completed >= *completed_before);
    *completed_before = completed;
    CHECK(aip_queue_depth(q) <= q->capacity);
    CHECK(aip_queue_slots_in_use(q) <= q->capacity);
}

/* --- the queue: producers, a full queue, abandoned waits, stop ------------------------- */

enum { PRODUCERS = 8, QUEUE_CAPACITY = 8, GATE_ID = 0, STOP_REFUSALS = 4 };
enum { OUTCOME_NONE = 0, OUTCOME_ACCEPTED, OUTCOME_REFUSED_STOPPED };

typedef struct q_payload {
    uint32_t id;
    uint32_t spin;
    uint64_t echo; /* the command flips it: a waiter can tell run from unrun */
} q_payload;

typedef struct q_world {
    aip_queue q;
    _Atomic uint32_t *runs; /* per command id: times the worker ran it */
    uint32_t ids;
    _Atomic int gate_entered;
    _Atomic int gate_open;
    _Atomic uint64_t full_refusals;
    _Atomic uint32_t producers_done;
} q_world;

typedef struct q_producer {
    q_world *w;
    uint32_t p;
    uint32_t first_id, id_count;
    uint32_t per;       /* commands to get accepted (steady phase) */
    int until_stopped;  /* stop phase: submit until STOP_REFUSALS refusals after stop */
    uint8_t *outcome;   /* per id of this producer */
    uint32_t accepted, full, stopped, abandoned, waited_ran, waited_unrun;
} q_producer;

static uint64_t echo_of(uint32_t id) { return (uint64_t)id * 0x9E3779B97F4A7C15ull + 1; }
/* A status the queue itself never produces, so a waiter knows its own command's result. */
static alvk_status result_of(uint32_t id) { return id % 2 ? ALVK_OK : ALVK_E_LIMIT_EXCEEDED; }

static alvk_status q_run(void *payload, void *context)
{
    q_world *w = context;
    q_payload *c = payload;
    if (!CHECK(c->id < w->ids) || !CHECK(c->echo == echo_of(c->id)))
        return ALVK_E_INTERNAL;
    atomic_fetch_add(&w->runs[c->id], 1);
    if (c->id == GATE_ID) {
        atomic_store(&w->gate_entered, 1);
        while (!atomic_load(&w->gate_open))
            sched_yield();
        return ALVK_OK;
    }
    for (volatile uint32_t i = 0; i < c->spin; ++i) {
    }
    c->echo = ~c->echo;
    return result_of(c->id);
}

/* Mode by submission: 0 nobody waits, 1 a long wait, 2 a short wait, 3 a zero wait. */
static void q_produce(void *arg)
{
    q_producer *pr = arg;
    q_world *w = pr->w;
    uint32_t k = 0;
    uint64_t full_since = 0;
    while (k < pr->id_count && (pr->until_stopped ? pr->stopped < STOP_REFUSALS : k < pr->per)) {
        uint32_t id = pr->first_id + k;
        uint32_t mode = (pr->p + k) % 4;
        q_payload c = {id, id % 8 == 0 ? 3000 : 0, echo_of(id)};
        uint64_t ticket = 0;
        alvk_status s = aip_queue_submit(&w->q, q_run, &c, sizeof c, mode == 0 ? NULL : &ticket);
        if (s == ALVK_E_QUEUE_FULL) { /* nothing was queued: the same id is tried again */
            ++pr->full;
            atomic_fetch_add(&w->full_refusals, 1);
            if (!CHECK(!refused_too_long(&full_since)))
                break;
            sched_yield();
            continue;
        }
        full_since = 0;
        ++k;
        if (s == ALVK_E_WORKER_UNAVAILABLE) {
            CHECK(pr->until_stopped);
            pr->outcome[id - pr->first_id] = OUTCOME_REFUSED_STOPPED;
            ++pr->stopped;
            continue;
        }
        if (!CHECK(s == ALVK_OK))
            continue;
        pr->outcome[id - pr->first_id] = OUTCOME_ACCEPTED;
        ++pr->accepted;
        if (mode == 0)
            continue;
        uint64_t timeout = mode == 1 ? SECONDS(30) : mode == 2 ? (uint64_t)(k % 4) * 20000u : 0;
        alvk_status result = ALVK_E_INTERNAL;
        q_payload back = {0, 0, 0};
        alvk_status ws = aip_queue_wait(&w->q, ticket, timeout, &result, &back, sizeof back);
        if (ws == ALVK_E_TIMEOUT) {
            CHECK(mode != 1);
            ++pr->abandoned;
            /* The ticket is spent: a second wait neither blocks nor frees anything. */
            CHECK(aip_queue_wait(&w->q, ticket, SECONDS(1), &result, &back, sizeof back) ==
                  ALVK_E_INTERNAL);
            continue;
        }
        if (!CHECK(ws == ALVK_OK) || !CHECK(back.id == id))
            continue;
        if (result == ALVK_E_WORKER_UNAVAILABLE) { /* completed unrun, after stop */
            CHECK(pr->until_stopped);
            CHECK(back.echo == echo_of(id));
            ++pr->waited_unrun;
        } else {
            CHECK(result == result_of(id));
            CHECK(back.echo == ~echo_of(id));
            ++pr->waited_ran;
        }
    }
    atomic_fetch_add(&w->producers_done, 1);
}

static q_world g_qw;
static q_producer g_producers[PRODUCERS];

/* A fresh world whose worker is held inside the gate command (id 0). */
static void q_open_world(uint32_t ids, aip_thread *worker)
{
    free(g_qw.runs);
    memset(&g_qw, 0, sizeof g_qw);
    g_qw.ids = ids;
    g_qw.runs = malloc(ids * sizeof *g_qw.runs);
    assert_non_null(g_qw.runs);
    for (uint32_t i = 0; i < ids; ++i)
        atomic_init(&g_qw.runs[i], 0);
    assert_int_equal(aip_queue_init(&g_qw.q, QUEUE_CAPACITY, &g_qw), ALVK_OK);
    assert_int_equal(aip_thread_start(worker, queue_worker, &g_qw.q), 0);
    q_payload gate = {GATE_ID, 0, echo_of(GATE_ID)};
    assert_int_equal(aip_queue_submit(&g_qw.q, q_run, &gate, sizeof gate, NULL), ALVK_OK);
    uint64_t deadline = aip_monotonic_ns() + SECONDS(10);
    while (!atomic_load(&g_qw.gate_entered) && aip_monotonic_ns() < deadline)
        sched_yield();
    assert_true(atomic_load(&g_qw.gate_entered));
}

static void q_start_producers(aip_thread *threads, uint32_t per, uint32_t id_count,
                              int until_stopped)
{
    for (uint32_t p = 0; p < PRODUCERS; ++p) {
        q_producer *pr = &g_producers[p];
        free(pr->outcome);
        *pr = (q_producer){&g_qw, p, 1 + p * id_count, id_count, per, until_stopped,
                           calloc(id_count, 1), 0, 0, 0, 0, 0, 0};
        assert_non_null(pr->outcome);
        assert_int_equal(aip_thread_start(&threads[p], q_produce, pr), 0);
    }
}

/* Every accepted command ran exactly once; nothing else ran. */
static void steady_load_full_queue_and_abandoned_waits(void **state)
{
    (void)state;
    uint32_t per = 1500 * stress_scale();
    uint32_t main_id = 1 + PRODUCERS * per;
    aip_thread worker, threads[PRODUCERS];
    q_open_world(main_id + 1, &worker);

    /* With the worker held, a wait must time out: the slot is abandoned, the ticket spent. */
    q_payload mine = {main_id, 0, echo_of(main_id)};
    uint64_t ticket = 0;
    alvk_status result = ALVK_OK;
    assert_int_equal(aip_queue_submit(&g_qw.q, q_run, &mine, sizeof mine, &ticket), ALVK_OK);
    assert_int_equal(aip_queue_wait(&g_qw.q, ticket, 2000000, &result, NULL, 0), ALVK_E_TIMEOUT);
    assert_int_equal(aip_queue_wait(&g_qw.q, ticket, 0, &result, NULL, 0), ALVK_E_INTERNAL);
    uint64_t accepted = 2; /* the gate and main's */

    q_start_producers(threads, per, per, 0);
    /* The worker is still held, so the queue fills and producers see QUEUE_FULL. */
    assert_true(await_at_least(&g_qw.full_refusals, 2 * PRODUCERS, 30) >= 2 * PRODUCERS);
    assert_int_equal(aip_queue_depth(&g_qw.q), QUEUE_CAPACITY - 1);
    atomic_store(&g_qw.gate_open, 1);
    /* Meanwhile main reads the gauges, as a status call from another thread does. */
    uint64_t completed_seen = 0, polls = 0;
    while (atomic_load(&g_qw.producers_done) < PRODUCERS) {
        check_queue_gauges(&g_qw.q, &completed_seen);
        ++polls;
        sched_yield();
    }
    uint64_t full = 0, abandoned = 1, waited = 0;
    for (uint32_t p = 0; p < PRODUCERS; ++p) {
        aip_thread_join(&threads[p]);
        q_producer *pr = &g_producers[p];
        assert_int_equal(pr->accepted, per);
        accepted += pr->accepted;
        full += pr->full;
        abandoned += pr->abandoned;
        waited += pr->waited_ran;
        assert_int_equal(pr->waited_unrun, 0);
    }
    assert_no_violations();

    /* Abandoned and fire-and-forget slots are freed by the worker as their commands end. */
    uint64_t deadline = aip_monotonic_ns() + SECONDS(30);
    while ((aip_queue_completed(&g_qw.q) < accepted || aip_queue_slots_in_use(&g_qw.q) != 0) &&
           aip_monotonic_ns() < deadline)
        sched_yield();
    assert_int_equal(aip_queue_completed(&g_qw.q), accepted);
    assert_int_equal(aip_queue_slots_in_use(&g_qw.q), 0);
    assert_int_equal(aip_queue_depth(&g_qw.q), 0);
    assert_int_equal(full, atomic_load(&g_qw.full_refusals));
    for (uint32_t p = 0; p < PRODUCERS; ++p)
        for (uint32_t k = 0; k < per; ++k)
            assert_int_equal(g_producers[p].outcome[k], OUTCOME_ACCEPTED);
    for (uint32_t id = 0; id < g_qw.ids; ++id)
        if (atomic_load(&g_qw.runs[id]) != 1)
            fail_msg("command %u ran %u times", (unsigned)id,
                     (unsigned)atomic_load(&g_qw.runs[id]));
    aip_queue_stop(&g_qw.q);
    aip_thread_join(&worker);
    assert_int_equal(aip_queue_completed(&g_qw.q), accepted);
    assert_int_equal(aip_queue_slots_in_use(&g_qw.q), 0);
    aip_queue_destroy(&g_qw.q);
    printf("[ stress   ] queue: %u producers, %llu accepted, %llu QUEUE_FULL refusals, "
           "%llu waits abandoned, %llu waited results, %llu gauge reads\n",
           (unsigned)PRODUCERS, (unsigned long long)accepted, (unsigned long long)full,
           (unsigned long long)abandoned, (unsigned long long)waited,
           (unsigned long long)polls);
}

/* Stop while the queue is full and producers keep submitting: only the gate runs; every
 * other accepted command completes unrun, and every submission after stop is refused. */
static void stop_with_commands_queued(void **state)
{
    (void)state;
    enum { IDS_EACH = 64 };
    aip_thread worker, threads[PRODUCERS];
    q_open_world(1 + PRODUCERS * IDS_EACH, &worker);
    q_start_producers(threads, 0, IDS_EACH, 1);
    assert_true(await_at_least(&g_qw.full_refusals, 2 * PRODUCERS, 30) >= 2 * PRODUCERS);
    /* Held in the gate, the worker takes nothing: the queue stays exactly full. */
    assert_int_equal(aip_queue_depth(&g_qw.q), QUEUE_CAPACITY - 1);
    assert_int_equal(aip_queue_slots_in_use(&g_qw.q), QUEUE_CAPACITY);
    aip_queue_stop(&g_qw.q);
    q_payload late = {0, 0, 0};
    uint64_t ticket = 0;
    assert_int_equal(aip_queue_submit(&g_qw.q, q_run, &late, sizeof late, &ticket),
                     ALVK_E_WORKER_UNAVAILABLE);
    assert_int_equal(aip_queue_depth(&g_qw.q), QUEUE_CAPACITY - 1);
    atomic_store(&g_qw.gate_open, 1);
    uint64_t accepted = 1, unrun = 0, stopped = 0, abandoned = 0;
    for (uint32_t p = 0; p < PRODUCERS; ++p) {
        aip_thread_join(&threads[p]);
        q_producer *pr = &g_producers[p];
        assert_true(pr->stopped >= STOP_REFUSALS);
        accepted += pr->accepted;
        unrun += pr->waited_unrun;
        stopped += pr->stopped;
        abandoned += pr->abandoned;
        assert_int_equal(pr->waited_ran, 0);
    }
    aip_thread_join(&worker);
    assert_no_violations();
    assert_int_equal(aip_queue_completed(&g_qw.q), accepted);
    assert_int_equal(aip_queue_slots_in_use(&g_qw.q), 0);
    assert_int_equal(aip_queue_depth(&g_qw.q), 0);
    assert_true(accepted >= QUEUE_CAPACITY);
    assert_int_equal(atomic_load(&g_qw.runs[GATE_ID]), 1);
    for (uint32_t p = 0; p < PRODUCERS; ++p) {
        const q_producer *pr = &g_producers[p];
        for (uint32_t k = 0; k < IDS_EACH; ++k) {
            uint32_t id = pr->first_id + k;
            assert_int_equal(atomic_load(&g_qw.runs[id]), 0);
            if (pr->outcome[k] == OUTCOME_NONE) /* ids are used in order, with no gaps */
                assert_true(k >= pr->accepted + pr->stopped);
        }
    }
    aip_queue_destroy(&g_qw.q);
    printf("[ stress   ] stop: %llu accepted (all but the gate completed unrun, %llu of them "
           "collected by waiters), %llu waits abandoned, %llu submissions refused after stop\n",
           (unsigned long long)accepted, (unsigned long long)unrun,
           (unsigned long long)abandoned, (unsigned long long)stopped);
}

/* --- RejitState: shared patches under install / replace / remove and callbacks --------- */

enum { TARGETS = 4, CLIENTS = 6, JITS = 2, STATE_QUEUE_CAPACITY = 16, UNLOAD_EVERY = 8 };
enum { S_INSTALL = 1, S_REPLACE, S_REMOVE, S_ROLLBACK };
#define S_MODULE ((uintptr_t)0x7000)
#define S_TOKEN0 0x06000100u
#define S_FOREIGN_OWNER 0xF0F0ull
#define S_BODY_BYTES 24u

static const alvk_mvid s_mvid = {{9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5, 6}};

typedef struct s_cmd {
    uint32_t kind;
    uint32_t index;
    alvk_patch_handle handle;
    uint64_t owner;
    uint64_t replacement;
    alvk_generation_id generation;
    uint32_t added_owner;
    uint64_t queued_ns;
    alvk_command_id command;
} s_cmd;

typedef struct s_world {
    aip_queue q;
    aip_rejit_state st;
    /* Every snapshot the worker made, with one reference held here (worker-only until the
     * worker is joined): at the end each must be back to exactly that one reference. */
    aip_prepared_rejit **snapshots;
    uint32_t snapshot_count, snapshot_capacity;
    _Atomic uint64_t accepted, full_refusals, commands_run, rollbacks_queued, rollbacks_served;
    _Atomic uint64_t acquired, failed_compiles, unloads, iterations, ended_under_client;
    _Atomic int clients_done;
    _Atomic uint64_t latest[CLIENTS]; /* each client's newest handle, for the readers */
} s_world;

static s_world g_sw;

static uint8_t body_byte(alvk_generation_id generation, uint32_t i)
{
    return (uint8_t)(generation * 31u + i * 7u);
}

static aip_prepared_rejit *s_snapshot(s_world *w, alvk_generation_id generation)
{
    uint8_t body[S_BODY_BYTES];
    for (uint32_t i = 0; i < S_BODY_BYTES; ++i)
        body[i] = body_byte(generation, i);
    aip_prepared_rejit *p = aip_prepared_create(generation, body, sizeof body, NULL, 0);
    if (p == NULL)
        return NULL;
    if (w->snapshot_count == w->snapshot_capacity) {
        uint32_t capacity = w->snapshot_capacity ? 2 * w->snapshot_capacity : 256;
        aip_prepared_rejit **grown = realloc(w->snapshots, capacity * sizeof *grown);
        if (grown == NULL) {
            aip_prepared_release(p);
            return NULL;
        }
        w->snapshots = grown;
        w->snapshot_capacity = capacity;
    }
    atomic_fetch_add(&p->refs, 1);
    w->snapshots[w->snapshot_count++] = p;
    return p;
}

/* Publishes `body` as generation `id`, marks it requested before the (simulated) request and
 * commits the granted request after it, as the worker does: the JIT threads' callbacks may
 * land in between. */
/* A body published and its generation marked requested; what the commit releases in *a. */
static void s_publish(s_world *w, uint32_t index, alvk_generation_id id,
                      aip_prepared_rejit *body, uint64_t queued_ns, aip_rejit_applied *a)
{
    aip_prepared_rejit *previous = aip_rejit_publish(&w->st, index, body);
    aip_request_mark mark;
    memset(&mark, 0, sizeof mark);
    mark.index = index;
    mark.id = id;
    aip_rejit_mark_requested(&w->st, &mark, 1, queued_ns);
    a->requested = 1;
    a->replaced = previous;
}

static void s_serve_rollbacks(s_world *w)
{
    uint32_t index = 0;
    while (aip_rejit_next_rollback(&w->st, &index)) {
        aip_prepared_rejit *prepared = NULL;
        alvk_generation_id back = 0;
        if (aip_rejit_take_rollback(&w->st, index, &prepared, &back)) {
            aip_rejit_applied a;
            memset(&a, 0, sizeof a);
            s_publish(w, index, back, prepared, aip_monotonic_ns(), &a);
            aip_rejit_commit(&w->st, index, &a);
            atomic_fetch_add(&w->rollbacks_served, 1);
        }
    }
}

static alvk_status s_install_or_replace(s_world *w, const s_cmd *c, const aip_patch *before,
                                        aip_rejit_applied *a)
{
    if (c->kind == S_REPLACE && !aip_rejit_has_owner(&w->st, c->index, c->owner))
        return ALVK_E_NOT_OWNER;
    if (before->module_id == 0)
        aip_rejit_set_target(&w->st, c->index, S_MODULE, 1);
    aip_prepared_rejit *body = s_snapshot(w, c->generation);
    if (body == NULL)
        return ALVK_E_INTERNAL;
    s_publish(w, c->index, c->generation, body, c->queued_ns, a);
    aip_rejit_set_dispatch(&w->st, c->index, 0x11000001u, 0, c->replacement);
    a->owner_replacement = c->replacement;
    return ALVK_OK;
}

/* A removal decided on the live patch (rejit_owners.h), its body put in force. */
static alvk_status s_remove(s_world *w, const s_cmd *c, aip_owner_decision *d,
                            aip_rejit_applied *a)
{
    aip_patch now;
    aip_prepared_rejit *body = NULL;
    aip_rejit_decide_leave(&w->st, c->index, c->owner, d, &now, &body);
    if (d->publish) {
        s_publish(w, c->index, d->id, body, c->queued_ns, a);
        uint64_t replacement = body != NULL ? body->dispatch.replacement : 0;
        aip_rejit_set_dispatch(&w->st, c->index, 0x11000001u, 0, replacement);
    }
    return d->granted.status;
}

/* The worker's side of a patch command, shaped like rejit/apply_batch.c's: prepare (a removal
 * decides its body), publish, the owner change decided, one commit. */
static alvk_status s_run(void *payload, void *context)
{
    s_world *w = context;
    const s_cmd *c = payload;
    atomic_fetch_add(&w->commands_run, 1);
    if (c->kind == S_ROLLBACK) {
        s_serve_rollbacks(w);
        return ALVK_OK;
    }
    /* A queued command holds its patch: the slot cannot be recycled under it. */
    aip_patch before;
    if (!CHECK(aip_rejit_lookup(&w->st, c->handle, &before) == ALVK_OK) ||
        !CHECK(before.pending > 0) || !CHECK(before.token - S_TOKEN0 < TARGETS))
        return ALVK_E_INTERNAL;
    alvk_status status;
    aip_owner_decision d;
    int decided = 0;
    aip_rejit_applied a;
    memset(&a, 0, sizeof a);
    if (aip_patch_state_is_terminal(before.state))
        status = ALVK_E_PATCH_ENDED;
    else if (c->kind == S_REMOVE)
        status = s_remove(w, c, &d, &a), decided = 1;
    else if (c->kind == S_REPLACE && before.state != ALVK_PATCH_ACTIVE)
        status = ALVK_E_NOT_OWNER;
    else
        status = s_install_or_replace(w, c, &before, &a);
    if (status != ALVK_OK && c->kind != S_REMOVE)
        aip_rejit_generation_rejected(&w->st, c->index, c->generation, status, 0, 0);
    if (!decided) {
        aip_owner_command oc = {c->kind == S_REMOVE ? AIP_OWNER_LEAVE : AIP_OWNER_SET, c->owner,
                                c->added_owner};
        aip_patch now;
        aip_rejit_decide_end(&w->st, c->index, before.state, &oc, status, &d, &now);
        if (d.publish) /* a failed join nobody else holds: the original back */
            s_publish(w, c->index, 0, NULL, c->queued_ns, &a);
    }
    /* Everything the command learned, committed in one transition (this model's publishes
     * are never refused). */
    const aip_owner_result *r = aip_owner_result_of(&d, 1);
    a.owner_body = r->body_owner;
    a.drop_owner = r->drop_owner;
    a.decided_close = d.closes;
    a.finish = 1;
    a.command = c->command;
    a.state = r->state;
    a.status = r->status;
    a.queued_ns = c->queued_ns;
    aip_rejit_commit(&w->st, c->index, &a);
    s_serve_rollbacks(w); /* rollbacks whose own command was refused */
    return status;
}

/* A queue slot first, as patch_commands.c does: QUEUE_FULL refuses before any state change. */
static alvk_status s_reserve(s_world *w, uint32_t *slot)
{
    alvk_status s = aip_queue_reserve(&w->q, slot);
    if (s != ALVK_OK) {
        CHECK(s == ALVK_E_QUEUE_FULL);
        atomic_fetch_add(&w->full_refusals, 1);
    }
    return s;
}

/* Queues a begun command into its reserved slot: it gets its ID and cannot be refused. */
static void s_commit(s_world *w, uint32_t slot, s_cmd *c, uint64_t *ticket)
{
    c->queued_ns = aip_monotonic_ns();
    c->command = aip_rejit_issue_command(&w->st);
    aip_queue_commit(&w->q, slot, s_run, NULL, c, sizeof *c, ticket);
    atomic_fetch_add(&w->accepted, 1);
}

typedef struct s_client {
    s_world *w;
    uint32_t n;
    uint32_t iterations;
    uint32_t installs, replaces, removes, refused;
} s_client;

/* Install, maybe replace, then remove (waiting for the remove, as the managed API does),
 * rotating over the shared targets. */
static void s_client_main(void *arg)
{
    s_client *cl = arg;
    s_world *w = cl->w;
    uint64_t owner = 100 + cl->n;
    for (uint32_t it = 0; it < cl->iterations; ++it) {
        atomic_fetch_add(&w->iterations, 1);
        uint32_t token = S_TOKEN0 + (cl->n + it) % TARGETS;
        s_cmd c = {S_INSTALL, 0, 0, owner, 0x5000 + it, 0, 0, 0, 0};
        int added = 0;
        uint32_t slot = 0;
        if (s_reserve(w, &slot) != ALVK_OK) {
            ++cl->refused;
            continue;
        }
        if (!CHECK(aip_rejit_begin_install(&w->st, &s_mvid, S_MODULE, 1, token, owner, 0, &c.index, &c.handle,
                                           &added) == ALVK_OK)) {
            aip_queue_release(&w->q, slot);
            continue;
        }
        CHECK(added == 1); /* our previous remove finished: we held nothing */
        c.added_owner = (uint32_t)added;
        atomic_store(&w->latest[cl->n], c.handle);
        alvk_generation_id stale = 0;
        CHECK(aip_rejit_begin_generation(&w->st, c.index, 1, 0xFFFFFFF0u, &stale) ==
              ALVK_E_STALE_GENERATION);
        if (!CHECK(aip_rejit_begin_generation(&w->st, c.index, 0, 0, &c.generation) == ALVK_OK)) {
            aip_rejit_cancel_command(&w->st, c.index, c.owner);
            aip_queue_release(&w->q, slot);
            continue;
        }
        s_commit(w, slot, &c, NULL);
        ++cl->installs;
        (void)aip_rejit_wait(&w->st, c.handle, 20000);
        alvk_patch_handle h = c.handle;
        uint32_t index = 0;
        alvk_status s;
        if (it % 2 == 0) {
            uint32_t rslot = 0;
            if (s_reserve(w, &rslot) != ALVK_OK) {
                ++cl->refused;
            } else {
                s = aip_rejit_begin_command(&w->st, h, owner, &index);
                CHECK(s == ALVK_OK || s == ALVK_E_PATCH_ENDED || s == ALVK_E_UNKNOWN_PATCH);
                alvk_generation_id generation = 0;
                if (s == ALVK_OK &&
                    CHECK(aip_rejit_begin_generation(&w->st, index, 0, 0, &generation) == ALVK_OK)) {
                    s_cmd r = {S_REPLACE, index, h, owner, 0x9000 + it, generation, 0, 0, 0};
                    s_commit(w, rslot, &r, NULL);
                    ++cl->replaces;
                } else {
                    if (s == ALVK_OK)
                        aip_rejit_cancel_command(&w->st, index, 0);
                    aip_queue_release(&w->q, rslot);
                }
            }
        }
        alvk_patch_telemetry t;
        t.size = sizeof t;
        s = aip_rejit_telemetry(&w->st, h, &t);
        CHECK(s == ALVK_OK || s == ALVK_E_UNKNOWN_PATCH);
        /* Remove: retried until queued, or until the patch ended without us (unloaded). */
        uint64_t full_since = 0;
        for (;;) {
            uint32_t dslot = 0;
            if (s_reserve(w, &dslot) != ALVK_OK) {
                ++cl->refused;
                if (!CHECK(!refused_too_long(&full_since)))
                    break;
                sched_yield();
                continue;
            }
            s = aip_rejit_begin_command(&w->st, h, owner, &index);
            if (s != ALVK_OK) {
                aip_queue_release(&w->q, dslot);
                CHECK(s == ALVK_E_PATCH_ENDED || s == ALVK_E_UNKNOWN_PATCH);
                atomic_fetch_add(&w->ended_under_client, 1);
                break;
            }
            s_cmd r = {S_REMOVE, index, h, owner, 0, 0, 0, 0, 0};
            uint64_t ticket = 0;
            s_commit(w, dslot, &r, &ticket);
            ++cl->removes;
            alvk_status result = ALVK_E_INTERNAL;
            CHECK(aip_queue_wait(&w->q, ticket, SECONDS(30), &result, NULL, 0) == ALVK_OK);
            if (result == ALVK_E_NOT_OWNER) {
                /* Only when the module unloaded between the worker's look at the patch and
                 * its removal of the owner: the patch has ended. */
                aip_patch now;
                s = aip_rejit_lookup(&w->st, h, &now);
                CHECK(s == ALVK_E_UNKNOWN_PATCH || now.state == ALVK_PATCH_UNLOADED);
                atomic_fetch_add(&w->ended_under_client, 1);
            } else {
                CHECK(result == ALVK_OK || result == ALVK_E_PATCH_ENDED);
            }
            break;
        }
    }
}

typedef struct s_jit {
    s_world *w;
    uint32_t n;
} s_jit;

/* A ReJIT-callback thread: GetReJITParameters, compilation started / finished (one in 13
 * fails, so rollbacks are queued), inlining checks; the first one also unloads the module
 * now and then. */
static void s_jit_main(void *arg)
{
    s_jit *j = arg;
    s_world *w = j->w;
    uint64_t n = 0, unloaded_at = 0;
    while (!atomic_load(&w->clients_done)) {
        for (uint32_t t = 0; t < TARGETS; ++t, ++n) {
            uint32_t token = S_TOKEN0 + t;
            aip_prepared_rejit *p = aip_rejit_acquire_for(&w->st, S_MODULE, token);
            if (p != NULL) {
                atomic_fetch_add(&w->acquired, 1);
                int intact = p->body_size == S_BODY_BYTES;
                for (uint32_t i = 0; intact && i < S_BODY_BYTES; ++i)
                    intact = p->data[i] == body_byte(p->generation, i);
                CHECK(intact);
                aip_rejit_record(&w->st, S_MODULE, token, AIP_EVENT_SET_IL, 0);
                aip_prepared_release(p);
            }
            uint64_t rejit_id = ((uint64_t)(j->n + 1) << 40) | n;
            uint32_t index = 0;
            aip_rejit_record(&w->st, S_MODULE, token, AIP_EVENT_STARTED, 0);
            aip_rejit_record_inliner(&w->st, S_MODULE, token + 0x1000, rejit_id, NULL);
            int rollback = aip_rejit_generation_started(&w->st, S_MODULE, token, rejit_id, &index);
            int fail = n % 13 == 0;
            int32_t hr = fail ? (int32_t)0x80004005 : 0;
            rollback |= aip_rejit_generation_compiled(&w->st, S_MODULE, token, hr, &index);
            aip_rejit_record(&w->st, S_MODULE, token, fail ? AIP_EVENT_ERROR : AIP_EVENT_FINISHED,
                             hr);
            if (rollback) {
                atomic_fetch_add(&w->failed_compiles, 1);
                s_cmd r = {S_ROLLBACK, index, 0, 0, 0, 0, 0, 0, 0};
                /* Refused when full: the next command's finish serves it. */
                if (aip_queue_submit(&w->q, s_run, &r, sizeof r, NULL) == ALVK_OK) {
                    atomic_fetch_add(&w->accepted, 1);
                    atomic_fetch_add(&w->rollbacks_queued, 1);
                }
            }
            (void)aip_rejit_blocks_inlining(&w->st, S_MODULE, token);
            aip_rejit_generation_il_map(&w->st, S_MODULE, token, 1, 0);
        }
        uint64_t iterations = atomic_load(&w->iterations);
        if (j->n == 0 && iterations / UNLOAD_EVERY != unloaded_at) {
            unloaded_at = iterations / UNLOAD_EVERY;
            aip_rejit_module_unloaded(&w->st, S_MODULE);
            atomic_fetch_add(&w->unloads, 1);
        }
        sched_yield();
    }
}

/* Reads by handle (telemetry, lookup, generation records, waits) and a foreign owner's
 * commands, which must be refused without changing anything. */
static void s_reader_main(void *arg)
{
    s_world *w = arg;
    alvk_patch_handle last[CLIENTS] = {0};
    uint64_t completed_seen = 0;
    alvk_patch_telemetry seen[CLIENTS];
    memset(seen, 0, sizeof seen);
    while (!atomic_load(&w->clients_done)) {
        for (uint32_t c = 0; c < CLIENTS; ++c) {
            alvk_patch_handle h = atomic_load(&w->latest[c]);
            if (h == 0)
                continue;
            alvk_patch_telemetry t;
            t.size = sizeof t;
            alvk_status s = aip_rejit_telemetry(&w->st, h, &t);
            if (s != ALVK_OK) {
                CHECK(s == ALVK_E_UNKNOWN_PATCH);
                continue;
            }
            CHECK(t.owner_count <= CLIENTS);
            CHECK(t.pending_commands <= STATE_QUEUE_CAPACITY + CLIENTS);
            CHECK(t.method_token - S_TOKEN0 < TARGETS);
            CHECK(t.state <= ALVK_PATCH_UNLOADED);
            if (h == last[c]) { /* counters of one patch never go back */
                CHECK(t.commands_completed >= seen[c].commands_completed);
                CHECK(t.get_rejit_parameters >= seen[c].get_rejit_parameters);
                CHECK(t.rejit_started >= seen[c].rejit_started);
                CHECK(t.rejit_finished >= seen[c].rejit_finished);
            }
            last[c] = h;
            seen[c] = t;
            aip_generation_record r;
            s = aip_rejit_generation_lookup(&w->st, h, t.latest_generation, &r);
            CHECK(s == ALVK_OK || s == ALVK_E_UNKNOWN_GENERATION || s == ALVK_E_UNKNOWN_PATCH);
            if (s == ALVK_OK)
                CHECK(r.result.generation == t.latest_generation);
            uint32_t index = 0;
            s = aip_rejit_begin_command(&w->st, h, S_FOREIGN_OWNER, &index);
            if (!CHECK(s == ALVK_E_NOT_OWNER || s == ALVK_E_PATCH_ENDED ||
                       s == ALVK_E_UNKNOWN_PATCH))
                aip_rejit_cancel_command(&w->st, index, 0);
            /* A settled patch gives its last command's status (NOT_OWNER: a remove that
             * raced an unload). */
            s = aip_rejit_wait(&w->st, h, 50000);
            CHECK(s == ALVK_OK || s == ALVK_E_TIMEOUT || s == ALVK_E_UNKNOWN_PATCH ||
                  s == ALVK_E_PATCH_ENDED || s == ALVK_E_MODULE_UNLOADED ||
                  s == ALVK_E_NOT_OWNER);
        }
        check_queue_gauges(&w->q, &completed_seen);
        sched_yield();
    }
}

static void shared_patches_under_concurrent_traffic(void **state)
{
    (void)state;
    s_world *w = &g_sw;
    memset(w, 0, sizeof *w);
    assert_int_equal(aip_rejit_init(&w->st, ALVK_MIN_PATCH_CAPACITY), 0);
    assert_int_equal(aip_queue_init(&w->q, STATE_QUEUE_CAPACITY, w), ALVK_OK);
    aip_thread worker, clients[CLIENTS], jits[JITS], reader;
    s_client cl[CLIENTS];
    s_jit jit[JITS];
    assert_int_equal(aip_thread_start(&worker, queue_worker, &w->q), 0);
    for (uint32_t j = 0; j < JITS; ++j) {
        jit[j] = (s_jit){w, j};
        assert_int_equal(aip_thread_start(&jits[j], s_jit_main, &jit[j]), 0);
    }
    assert_int_equal(aip_thread_start(&reader, s_reader_main, w), 0);
    uint32_t iterations = 1000 * stress_scale();
    for (uint32_t c = 0; c < CLIENTS; ++c) {
        cl[c] = (s_client){w, c, iterations, 0, 0, 0, 0};
        assert_int_equal(aip_thread_start(&clients[c], s_client_main, &cl[c]), 0);
    }
    uint64_t installs = 0, replaces = 0, removes = 0, refused = 0;
    for (uint32_t c = 0; c < CLIENTS; ++c) {
        aip_thread_join(&clients[c]);
        installs += cl[c].installs;
        replaces += cl[c].replaces;
        removes += cl[c].removes;
        refused += cl[c].refused;
    }
    atomic_store(&w->clients_done, 1);
    for (uint32_t j = 0; j < JITS; ++j)
        aip_thread_join(&jits[j]);
    aip_thread_join(&reader);

    /* Drain: every accepted command (client commands and rollbacks) ran exactly once. */
    uint64_t accepted = atomic_load(&w->accepted);
    uint64_t deadline = aip_monotonic_ns() + SECONDS(30);
    while ((aip_queue_completed(&w->q) < accepted || aip_queue_slots_in_use(&w->q) != 0) &&
           aip_monotonic_ns() < deadline)
        sched_yield();
    aip_queue_stop(&w->q);
    aip_thread_join(&worker);
    assert_no_violations();
    assert_int_equal(aip_queue_completed(&w->q), accepted);
    assert_int_equal(atomic_load(&w->commands_run), accepted);
    assert_int_equal(accepted, installs + replaces + removes + atomic_load(&w->rollbacks_queued));
    assert_int_equal(atomic_load(&w->full_refusals), refused);
    assert_int_equal(aip_queue_slots_in_use(&w->q), 0);
    assert_true(installs > 0);

    /* Every patch ended: nothing pending, no owner, no snapshot left in the table. */
    for (uint32_t i = 0; i < w->st.extent; ++i) {
        static aip_patch p;
        aip_rejit_copy(&w->st, i, &p);
        assert_int_equal(p.pending, 0);
        if (!p.in_use)
            continue;
        if (!aip_patch_state_is_terminal(p.state))
            fail_msg("patch %u is still live (state %d)", (unsigned)i, (int)p.state);
        if (p.prepared != NULL || p.good != NULL)
            fail_msg("patch %u ended (state %d) still holding a snapshot (generation %u)",
                     (unsigned)i, (int)p.state,
                     (unsigned)(p.prepared != NULL ? p.prepared : p.good)->generation);
        assert_int_equal(p.owner_count, 0);
        for (uint32_t o = 0; o < ALVK_MAX_PATCH_OWNERS; ++o)
            assert_null(p.owner_bodies[o]);
    }
    /* ... and every snapshot is back to the one reference this test holds. */
    for (uint32_t i = 0; i < w->snapshot_count; ++i) {
        uint32_t refs = atomic_load(&w->snapshots[i]->refs);
        if (refs != 1)
            fail_msg("snapshot %u (generation %u) has %u references, expected 1", (unsigned)i,
                     (unsigned)w->snapshots[i]->generation, (unsigned)refs);
        aip_prepared_release(w->snapshots[i]);
    }
    printf("[ stress   ] rejit: %u clients x %u iterations on %u targets: %llu installs, "
           "%llu replaces, %llu removes, %llu QUEUE_FULL refusals (nothing changed), %llu snapshots, "
           "%llu acquired by callbacks, %llu failed compilations, %llu rollbacks served, "
           "%llu unloads, %llu patches ended under their client\n",
           (unsigned)CLIENTS, (unsigned)iterations, (unsigned)TARGETS,
           (unsigned long long)installs, (unsigned long long)replaces,
           (unsigned long long)removes, (unsigned long long)refused,
           (unsigned long long)w->snapshot_count, (unsigned long long)atomic_load(&w->acquired),
           (unsigned long long)atomic_load(&w->failed_compiles),
           (unsigned long long)atomic_load(&w->rollbacks_served),
           (unsigned long long)atomic_load(&w->unloads),
           (unsigned long long)atomic_load(&w->ended_under_client));
    free(w->snapshots);
    aip_queue_destroy(&w->q);
    aip_rejit_destroy(&w->st);
}

/* --- the patch table growing under concurrent installs ------------------------------------ */

enum { G_INSTALLERS = 4, G_READERS = 2, G_PER_INSTALLER = 600, G_BOUND = 4096 };
enum { G_BATCHES = 50, G_PER_BATCH = 8 };
#define G_MODULE ((uintptr_t)0x7200)
#define G_TOKEN(installer, i) (0x06010000u + (uint32_t)(installer) * 0x1000u + (uint32_t)(i))

typedef struct g_world {
    aip_rejit_state st;
    _Atomic uint64_t handles[G_INSTALLERS][G_PER_INSTALLER]; /* 0 until installed */
    alvk_patch_handle batch_handles[G_BATCHES][G_PER_BATCH];  /* the batcher's own */
    _Atomic uint32_t installers_done;
    _Atomic uint64_t reads, found_live;
} g_world;
static g_world g_gw;
static const alvk_mvid g_mvid = {{7, 7, 7, 7, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}};

typedef struct g_installer {
    g_world *w;
    uint32_t n;
} g_installer;

static void g_installer_main(void *arg)
{
    g_installer *in = arg;
    g_world *w = in->w;
    for (uint32_t i = 0; i < G_PER_INSTALLER; ++i) {
        uint32_t index = 0;
        alvk_patch_handle h = 0;
        int added = 0;
        alvk_status s = aip_rejit_begin_install(&w->st, &g_mvid, G_MODULE, 1, G_TOKEN(in->n, i),
                                                100 + in->n, ALVK_INSTALL_INLINER_FALLBACK,
                                                &index, &h, &added);
        if (!CHECK(s == ALVK_OK) || !CHECK(added))
            continue;
        aip_rejit_set_target(&w->st, index, G_MODULE, 1);
        aip_rejit_finish_command(&w->st, index, 0, ALVK_PATCH_ACTIVE, ALVK_OK, aip_monotonic_ns());
        atomic_store(&w->handles[in->n][i], h);
        /* Every other one is joined by a second owner at once (the index finds it). */
        if (i % 2 == 0) {
            uint32_t joined_index = 0;
            alvk_patch_handle joined = 0;
            CHECK(aip_rejit_begin_install(&w->st, &g_mvid, G_MODULE, 1, G_TOKEN(in->n, i), 7, 0,
                                          &joined_index, &joined, &added) == ALVK_OK);
            CHECK(joined == h);
            aip_rejit_cancel_command(&w->st, joined_index, 7);
        }
    }
    atomic_fetch_add(&w->installers_done, 1);
}

/* Batches of new targets accepted whole while the installers grow the table; every tenth
 * names one target twice and must change nothing. */
#define G_BATCH_TOKEN(b, i) (0x06020000u + (uint32_t)(b) * 0x10u + (uint32_t)(i))
static void g_batcher_main(void *arg)
{
    g_world *w = arg;
    aip_rejit_request requests[G_PER_BATCH];
    aip_rejit_accepted accepted[G_PER_BATCH];
    alvk_status statuses[G_PER_BATCH];
    for (uint32_t b = 0; b < G_BATCHES; ++b) {
        for (uint32_t i = 0; i < G_PER_BATCH; ++i) {
            aip_rejit_request r = {AIP_REQUEST_INSTALL, &g_mvid, G_MODULE, 1, G_BATCH_TOKEN(b, i),
                                   ALVK_INSTALL_INLINER_FALLBACK, 0, 0xBA7, 0};
            requests[i] = r;
        }
        int duplicate = b % 10 == 9;
        if (duplicate)
            requests[G_PER_BATCH - 1].token = G_BATCH_TOKEN(b, 0);
        alvk_status s = aip_rejit_accept_batch(&w->st, requests, G_PER_BATCH, accepted, statuses);
        if (duplicate) {
            CHECK(s == ALVK_E_DUPLICATE_TARGET);
            CHECK(statuses[G_PER_BATCH - 1] == ALVK_E_DUPLICATE_TARGET);
            for (uint32_t i = 0; i < G_PER_BATCH; ++i)
                CHECK(!aip_rejit_blocks_inlining(&w->st, G_MODULE, G_BATCH_TOKEN(b, i)));
            continue;
        }
        if (!CHECK(s == ALVK_OK))
            continue;
        for (uint32_t i = 0; i < G_PER_BATCH; ++i) {
            CHECK(accepted[i].command == accepted[0].command);
            aip_rejit_set_target(&w->st, accepted[i].index, G_MODULE, 1);
            aip_rejit_finish_command(&w->st, accepted[i].index, 0, ALVK_PATCH_ACTIVE, ALVK_OK,
                                     aip_monotonic_ns());
            w->batch_handles[b][i] = accepted[i].handle;
        }
        aip_rejit_end_command(&w->st, accepted[0].command, ALVK_OK);
        alvk_status result = ALVK_E_INTERNAL;
        CHECK(aip_rejit_wait_command(&w->st, accepted[0].command, 0, &result) == ALVK_OK);
        CHECK(result == ALVK_OK);
    }
}

/* Reads by handle (telemetry) and by (module, token) (the callbacks' lookups) while the
 * table grows: a published handle always names its own target, live. */
static void g_reader_main(void *arg)
{
    g_world *w = arg;
    uint64_t seed = 0x2545F4914F6CDD1Dull + (uintptr_t)arg;
    while (atomic_load(&w->installers_done) < G_INSTALLERS) {
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        uint32_t n = (uint32_t)(seed % G_INSTALLERS), i = (uint32_t)((seed >> 8) % G_PER_INSTALLER);
        alvk_patch_handle h = atomic_load(&w->handles[n][i]);
        if (h != 0) {
            alvk_patch_telemetry t;
            if (CHECK(aip_rejit_telemetry(&w->st, h, &t) == ALVK_OK)) {
                CHECK(t.method_token == G_TOKEN(n, i));
                CHECK(t.state == ALVK_PATCH_ACTIVE);
            }
            CHECK(aip_rejit_blocks_inlining(&w->st, G_MODULE, G_TOKEN(n, i)));
            atomic_fetch_add(&w->found_live, 1);
        }
        aip_rejit_record(&w->st, G_MODULE, G_TOKEN(n, i), AIP_EVENT_STARTED, 0);
        CHECK(aip_rejit_acquire_for(&w->st, G_MODULE, G_TOKEN(n, i) + 0x800u) == NULL);
        atomic_fetch_add(&w->reads, 1);
    }
}

static void the_table_grows_under_concurrent_installs(void **state)
{
    (void)state;
    g_world *w = &g_gw;
    memset(w, 0, sizeof *w);
    assert_int_equal(aip_rejit_init(&w->st, G_BOUND), 0);
    aip_thread installers[G_INSTALLERS], readers[G_READERS], batcher;
    g_installer in[G_INSTALLERS];
    for (uint32_t r = 0; r < G_READERS; ++r)
        assert_int_equal(aip_thread_start(&readers[r], g_reader_main, w), 0);
    assert_int_equal(aip_thread_start(&batcher, g_batcher_main, w), 0);
    for (uint32_t n = 0; n < G_INSTALLERS; ++n) {
        in[n] = (g_installer){w, n};
        assert_int_equal(aip_thread_start(&installers[n], g_installer_main, &in[n]), 0);
    }
    for (uint32_t n = 0; n < G_INSTALLERS; ++n)
        aip_thread_join(&installers[n]);
    aip_thread_join(&batcher);
    for (uint32_t r = 0; r < G_READERS; ++r)
        aip_thread_join(&readers[r]);
    assert_no_violations();

    enum { BATCHED = (G_BATCHES - G_BATCHES / 10) * G_PER_BATCH };
    enum { TOTAL = G_INSTALLERS * G_PER_INSTALLER + BATCHED };
    uint32_t capacity, allocated, live;
    aip_rejit_counts(&w->st, &capacity, &allocated, &live);
    assert_int_equal(capacity, G_BOUND);
    assert_int_equal(live, TOTAL);
    /* Slots taken in order, chunks allocated as needed: exactly enough for TOTAL. */
    assert_int_equal(allocated, (TOTAL + AIP_PATCH_CHUNK_SLOTS - 1) / AIP_PATCH_CHUNK_SLOTS *
                                    AIP_PATCH_CHUNK_SLOTS);
    static uint8_t seen[G_BOUND];
    for (uint32_t n = 0; n < G_INSTALLERS; ++n)
        for (uint32_t i = 0; i < G_PER_INSTALLER; ++i) {
            alvk_patch_handle h = atomic_load(&w->handles[n][i]);
            uint32_t slot = (uint32_t)(h & 0xFFFFFFFFu);
            assert_true(slot >= 1 && slot <= TOTAL);
            assert_int_equal(seen[slot - 1], 0); /* one slot per patch */
            seen[slot - 1] = 1;
            alvk_patch_telemetry t;
            assert_int_equal(aip_rejit_telemetry(&w->st, h, &t), ALVK_OK);
            assert_int_equal(t.method_token, G_TOKEN(n, i));
            assert_int_equal(t.owner_count, 1);
            assert_true(aip_rejit_blocks_inlining(&w->st, G_MODULE, G_TOKEN(n, i)));
            aip_rejit_finish_command(&w->st, slot - 1, 0, ALVK_PATCH_REMOVED, ALVK_OK,
                                     aip_monotonic_ns());
            assert_false(aip_rejit_blocks_inlining(&w->st, G_MODULE, G_TOKEN(n, i)));
        }
    /* Every accepted batch: its patches live, each its own target. */
    for (uint32_t b = 0; b < G_BATCHES; ++b)
        for (uint32_t i = 0; b % 10 != 9 && i < G_PER_BATCH; ++i) {
            alvk_patch_telemetry t;
            alvk_patch_handle h = w->batch_handles[b][i];
            uint32_t slot = (uint32_t)(h & 0xFFFFFFFFu);
            assert_true(slot >= 1 && slot <= TOTAL);
            assert_int_equal(seen[slot - 1], 0);
            seen[slot - 1] = 1;
            assert_int_equal(aip_rejit_telemetry(&w->st, h, &t), ALVK_OK);
            assert_int_equal(t.method_token, G_BATCH_TOKEN(b, i));
            assert_int_equal(t.state, ALVK_PATCH_ACTIVE);
        }
    aip_rejit_counts(&w->st, &capacity, &allocated, &live);
    assert_int_equal(live, BATCHED);
    printf("[ stress   ] growth: %u installers x %u targets (half joined), %u batches of %u (every "
           "tenth refused whole), %llu concurrent reads (%llu of live patches), %u slots allocated\n",
           (unsigned)G_INSTALLERS, (unsigned)G_PER_INSTALLER, (unsigned)G_BATCHES,
           (unsigned)G_PER_BATCH,
           (unsigned long long)atomic_load(&w->reads),
           (unsigned long long)atomic_load(&w->found_live), (unsigned)allocated);
    aip_rejit_destroy(&w->st);
}

/* --- slots recycled while callbacks arrive ----------------------------------------------- */

/* One thread installs, requests and ends patches on ever new targets, past the table's bound,
 * so ended slots are recycled; callback threads meanwhile report compilations (failures
 * included, which queue rollbacks) and look targets up. A handle names its own target or is
 * unknown (recycled); the count of rollbacks due always matches the table. */
enum { R_BOUND = ALVK_MIN_PATCH_CAPACITY, R_TOKENS = 3 * ALVK_MIN_PATCH_CAPACITY, R_CALLBACKS = 2 };
#define R_MODULE ((uintptr_t)0x7400)
#define R_TOKEN(i) (0x06030000u + (uint32_t)(i))

typedef struct r_world {
    aip_rejit_state st;
    _Atomic uint64_t handles[R_TOKENS];
    _Atomic uint32_t installed;
    _Atomic int done;
    _Atomic uint64_t recycled_seen, live_seen, failures_reported;
} r_world;
static r_world g_rw;
static const alvk_mvid r_mvid = {{5, 5, 5, 5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}};

/* The count RejitState keeps against a scan of the table. */
static int r_rollbacks_consistent(aip_rejit_state *st)
{
    aip_mutex_lock(&st->lock);
    uint32_t due = 0;
    for (uint32_t i = 0; i < st->extent; ++i)
        due += aip_patch_at(st, i)->in_use && aip_patch_at(st, i)->rollback_due;
    int same = due == st->rollbacks_due;
    aip_mutex_unlock(&st->lock);
    return same;
}

static void r_installer_main(void *arg)
{
    r_world *w = arg;
    for (uint32_t i = 0; i < R_TOKENS; ++i) {
        uint32_t index = 0;
        alvk_patch_handle h = 0;
        int added = 0;
        alvk_status s = aip_rejit_begin_install(&w->st, &r_mvid, R_MODULE, 1, R_TOKEN(i), 1, 0,
                                                &index, &h, &added);
        if (!CHECK(s == ALVK_OK))
            continue;
        aip_rejit_set_target(&w->st, index, R_MODULE, 1);
        alvk_generation_id id = 0;
        CHECK(aip_rejit_begin_generation(&w->st, index, 0, 0, &id) == ALVK_OK);
        aip_request_mark mark;
        memset(&mark, 0, sizeof mark);
        mark.index = index;
        mark.id = id;
        aip_rejit_mark_requested(&w->st, &mark, 1, aip_monotonic_ns());
        if (i % 5 == 4)
            aip_rejit_unmark_requested(&w->st, &mark, 1, (int32_t)0x80004005); /* refused */
        aip_rejit_finish_command(&w->st, index, 0, ALVK_PATCH_ACTIVE, ALVK_OK, aip_monotonic_ns());
        atomic_store(&w->handles[i], h);
        atomic_store(&w->installed, i + 1);
        /* A few calls later the patch ends; any rollback due is served first. */
        uint32_t due = 0;
        while (aip_rejit_next_rollback(&w->st, &due)) {
            aip_prepared_rejit *prepared = NULL;
            alvk_generation_id back = 0;
            if (aip_rejit_take_rollback(&w->st, due, &prepared, &back))
                aip_prepared_release(prepared);
        }
        if (i >= 4) {
            alvk_patch_handle old = atomic_load(&w->handles[i - 4]);
            aip_patch copy;
            if (old != 0 && aip_rejit_lookup(&w->st, old, &copy) == ALVK_OK)
                aip_rejit_finish_command(&w->st, (uint32_t)(old & 0xFFFFFFFFu) - 1, 0,
                                         ALVK_PATCH_REMOVED, ALVK_OK, aip_monotonic_ns());
        }
    }
    atomic_store(&w->done, 1);
}

static void r_callback_main(void *arg)
{
    r_world *w = arg;
    uint64_t seed = 0x9E3779B97F4A7C15ull ^ (uintptr_t)arg;
    while (!atomic_load(&w->done)) {
        uint32_t installed = atomic_load(&w->installed);
        if (installed == 0)
            continue;
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        uint32_t i = installed - 1 - (uint32_t)(seed % (installed < 8 ? installed : 8));
        uint32_t index = 0;
        int32_t hr = (seed >> 20) % 3 == 0 ? (int32_t)0x80131500 : 0;
        aip_rejit_generation_started(&w->st, R_MODULE, R_TOKEN(i), seed >> 32, &index);
        aip_rejit_record(&w->st, R_MODULE, R_TOKEN(i), AIP_EVENT_FINISHED, hr);
        if (aip_rejit_generation_compiled(&w->st, R_MODULE, R_TOKEN(i), hr, &index))
            atomic_fetch_add(&w->failures_reported, 1);
        aip_prepared_release(aip_rejit_acquire_for(&w->st, R_MODULE, R_TOKEN(i)));
        aip_rejit_record_inliner(&w->st, R_MODULE, R_TOKEN(i) + 0x8000u, seed, NULL);
        alvk_patch_handle h = atomic_load(&w->handles[i]);
        alvk_patch_telemetry t;
        if (h != 0) {
            alvk_status s = aip_rejit_telemetry(&w->st, h, &t);
            if (s == ALVK_OK && CHECK(t.method_token == R_TOKEN(i)))
                atomic_fetch_add(&w->live_seen, 1);
            else if (CHECK(s == ALVK_E_UNKNOWN_PATCH))
                atomic_fetch_add(&w->recycled_seen, 1);
        }
        CHECK(r_rollbacks_consistent(&w->st));
    }
}

static void slots_recycle_while_callbacks_arrive(void **state)
{
    (void)state;
    r_world *w = &g_rw;
    memset(w, 0, sizeof *w);
    assert_int_equal(aip_rejit_init(&w->st, R_BOUND), 0);
    aip_thread installer, callbacks[R_CALLBACKS];
    for (uint32_t c = 0; c < R_CALLBACKS; ++c)
        assert_int_equal(aip_thread_start(&callbacks[c], r_callback_main, w), 0);
    assert_int_equal(aip_thread_start(&installer, r_installer_main, w), 0);
    aip_thread_join(&installer);
    for (uint32_t c = 0; c < R_CALLBACKS; ++c)
        aip_thread_join(&callbacks[c]);
    assert_no_violations();
    uint32_t capacity, allocated, live;
    aip_rejit_counts(&w->st, &capacity, &allocated, &live);
    assert_true(allocated <= R_BOUND); /* R_TOKENS patches in R_BOUND slots: recycled */
    assert_int_equal(live, 4);         /* the last four, not yet ended */
    assert_true(r_rollbacks_consistent(&w->st));
    /* The first patches' slots were reused: their handles are unknown now. */
    alvk_patch_telemetry t;
    assert_int_equal(aip_rejit_telemetry(&w->st, atomic_load(&w->handles[0]), &t),
                     ALVK_E_UNKNOWN_PATCH);
    aip_rejit_destroy(&w->st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(steady_load_full_queue_and_abandoned_waits),
        cmocka_unit_test(stop_with_commands_queued),
        cmocka_unit_test(shared_patches_under_concurrent_traffic),
        cmocka_unit_test(the_table_grows_under_concurrent_installs),
        cmocka_unit_test(slots_recycle_while_callbacks_arrive),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    free(g_qw.runs);
    for (uint32_t p = 0; p < PRODUCERS; ++p)
        free(g_producers[p].outcome);
    return failed;
}
