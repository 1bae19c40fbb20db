/* The worker's batch runner (rejit/apply_batch.c, aip_batch_run), which runs install batches
 * and (ABI 3.6) generation batches, over a real RejitState and a fake runtime, with entries
 * whose preparation the test decides: all prepared -> every body published and ONE ReJIT
 * request naming every target; one refused -> nothing published, no request, that entry's own
 * status and failing index, the others ALVK_E_BATCH_ABORTED, new patches REJECTED, a joined
 * patch keeping its body and owners; the request refused -> every previous body back. The
 * same through the generation batch's own entries (aip_apply_generation_batch: staged
 * generations, each resolved against fake metadata, checked and held as a submitted one). And
 * the last owner's removal: the inliners re-JIT'd, then the target's original version made
 * active (RequestRevert); a refused request reverts nothing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "emit/relocation_emit.h"
#include "identity/sha256.h"
#include "rejit/apply_batch.h"
#include "rejit/apply_commands.h"
#include "rejit/apply_generation_batch.h"
#include "rejit/rejit_batch.h"
#include "rejit/rejit_events.h"
#include "rejit/rejit_generations.h"
#include "rejit/rejit_owners.h"

enum { N = 3, MODULE = 0x7300, TOKEN = 0x06000400, OWNER = 0x3601 };
static const alvk_mvid k_mvid = {{6, 3, 2, 1, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}};
static const uint8_t k_body[] = {0x0A, 0x2A}; /* tiny: ret */

/* ---- the fake runtime: records the ReJIT requests ------------------------------------------ */

typedef struct fake {
    ICorProfilerInfo15 info;
    uint32_t with_inliners, plain;
    uint32_t count;
    ModuleID modules[16];
    mdMethodDef methods[16];
    HRESULT answer;
} fake;

static fake F;
static ICorProfilerInfo15Vtbl vtbl;

static void record(ULONG count, const ModuleID *modules, const mdMethodDef *methods)
{
    F.count = count;
    for (ULONG i = 0; i < count && i < 16; ++i) {
        F.modules[i] = modules[i];
        F.methods[i] = methods[i];
    }
}

static HRESULT STDMETHODCALLTYPE with_inliners(ICorProfilerInfo15 *This, DWORD flags, ULONG count,
                                               ModuleID *modules, mdMethodDef *methods)
{
    (void)This;
    assert_int_equal(flags, COR_PRF_REJIT_BLOCK_INLINING | COR_PRF_REJIT_INLINING_CALLBACKS);
    F.with_inliners++;
    record(count, modules, methods);
    return F.answer;
}

static HRESULT STDMETHODCALLTYPE plain(ICorProfilerInfo15 *This, ULONG count, ModuleID *modules,
                                       mdMethodDef *methods)
{
    (void)This;
    F.plain++;
    record(count, modules, methods);
    return F.answer;
}

/* RequestRevert: counted, with the call it came after (the requests before it). */
static uint32_t g_reverts, g_requests_before_revert;
static ModuleID g_revert_module;
static mdMethodDef g_revert_method;

static HRESULT STDMETHODCALLTYPE revert(ICorProfilerInfo15 *This, ULONG count, ModuleID *modules,
                                        mdMethodDef *methods, HRESULT *status)
{
    (void)This;
    assert_int_equal(count, 1);
    g_reverts++;
    g_requests_before_revert = F.with_inliners + F.plain;
    g_revert_module = modules[0];
    g_revert_method = methods[0];
    status[0] = S_OK;
    return S_OK;
}

/* ---- the world: RejitState, the env, a batch of entries --------------------------------- */

static aip_rejit_state st;
static aip_module_catalog catalog;
static uint32_t epoch = 3; /* the module's load epoch the requests name */
static aip_apply_scratch scratch;
static aip_apply_env env;

typedef struct test_batch {
    uint32_t count;
    aip_rejit_accepted accepted[N];
    uint64_t queued_ns;
    uint32_t fail_at;    /* the entry whose preparation is refused (N: none) */
    uint32_t prepared;   /* preparations run */
    uint32_t flags[N];   /* each entry's patch flags, as its held publish says */
} test_batch;

static void entry(const void *batch, uint32_t i, aip_batch_entry *out)
{
    const test_batch *b = batch;
    out->index = b->accepted[i].index;
    out->generation = b->accepted[i].generation;
    out->owner.change = AIP_OWNER_SET;
    out->owner.owner = OWNER;
    out->owner.added = b->accepted[i].added_owner;
    out->queued_ns = b->queued_ns;
}

/* As aip_apply_generation_prepare ends: the body held back for the batch's one publish, or a
 * refusal with its failing index. */
static alvk_status prepare(const aip_apply_env *e, const void *batch, uint32_t i,
                           const aip_patch *before, aip_batch_step *step)
{
    aip_refusal *why = &step->why;
    (void)e, (void)before;
    test_batch *b = (test_batch *)(uintptr_t)batch;
    b->prepared++;
    if (i == b->fail_at) {
        why->failing = 2;
        return ALVK_E_MEMBER_NOT_FOUND;
    }
    aip_prepared_rejit *p =
        aip_prepared_create(b->accepted[i].generation, k_body, sizeof k_body, NULL, 0);
    assert_non_null(p);
    /* The slot is the runner's to fill in (0 here); nothing is replaced yet. */
    aip_held_publish h = {p, b->accepted[i].generation, MODULE, TOKEN + i, b->flags[i], 0, NULL};
    step->held = h;
    step->due = 1;
    return ALVK_OK;
}

static const aip_batch_kind kind = {entry, prepare, 1};

static int teardown(void **state)
{
    (void)state;
    if (st.chunks != NULL)
        aip_rejit_destroy(&st);
    return 0;
}

static void world(void)
{
    teardown(NULL);
    memset(&F, 0, sizeof F);
    vtbl.RequestReJITWithInliners = with_inliners;
    vtbl.RequestReJIT = plain;
    vtbl.RequestRevert = revert;
    g_reverts = g_requests_before_revert = 0;
    g_revert_module = 0;
    g_revert_method = 0;
    F.info.lpVtbl = &vtbl;
    assert_int_equal(aip_rejit_init(&st, ALVK_MIN_PATCH_CAPACITY), 0);
    epoch = 3;
    memset(&env, 0, sizeof env);
    env.info = &F.info;
    env.rejit = &st;
    env.catalog = &catalog;
    env.scratch = &scratch;
    aip_apply_scratch_claim(&scratch);
}

/* Target 0 with a live patch of OWNER whose generation is in force; targets 1 and 2 new. The
 * batch's generations accepted in RejitState as alvk_generation_submit_batch accepts them. */
static alvk_generation_id accept(test_batch *b, uint32_t fail_at)
{
    memset(b, 0, sizeof *b);
    b->count = N;
    b->fail_at = fail_at;
    aip_rejit_request first = {
        AIP_REQUEST_GENERATION, &k_mvid, MODULE, epoch, TOKEN, 0, 0, OWNER, 0};
    aip_rejit_accepted a;
    assert_int_equal(aip_rejit_accept(&st, &first, &a), ALVK_OK);
    aip_rejit_set_target(&st, a.index, MODULE, epoch);
    aip_request_mark mark;
    memset(&mark, 0, sizeof mark);
    mark.index = a.index;
    mark.id = a.generation;
    aip_prepared_release(aip_rejit_publish(
        &st, a.index, aip_prepared_create(a.generation, k_body, sizeof k_body, NULL, 0)));
    aip_rejit_mark_requested(&st, &mark, 1, aip_monotonic_ns());
    aip_rejit_finish_command(&st, a.index, a.command, ALVK_PATCH_ACTIVE, ALVK_OK,
                             aip_monotonic_ns());
    aip_rejit_request r[N];
    alvk_status statuses[N];
    for (uint32_t i = 0; i < N; ++i) {
        aip_rejit_request g = {AIP_REQUEST_GENERATION, &k_mvid, MODULE, epoch, TOKEN + i, 0, 0,
                               OWNER, i == 0 ? a.generation : 0};
        r[i] = g;
    }
    assert_int_equal(aip_rejit_accept_batch(&st, r, N, b->accepted, statuses), ALVK_OK);
    for (uint32_t i = 1; i < N; ++i) /* the worker sets a new patch's target as it resolves it */
        aip_rejit_set_target(&st, b->accepted[i].index, MODULE, epoch);
    b->queued_ns = aip_monotonic_ns();
    return a.generation;
}

static aip_generation_record record_of(const test_batch *b, uint32_t i)
{
    static aip_generation_record r;
    assert_int_equal(
        aip_rejit_generation_lookup(&st, b->accepted[i].handle, b->accepted[i].generation, &r),
        ALVK_OK);
    return r;
}

static alvk_status command_result(alvk_command_id command)
{
    alvk_status result = ALVK_E_INTERNAL;
    assert_int_equal(aip_rejit_wait_command(&st, command, 1000000, &result), ALVK_OK);
    return result;
}

static void all_prepared_publish_all_with_one_request(void **state)
{
    (void)state;
    world();
    test_batch b;
    accept(&b, N);
    alvk_command_id command = b.accepted[0].command;
    assert_int_equal(aip_batch_run(&env, &kind, &b, N, command), ALVK_OK);
    assert_int_equal(b.prepared, N);
    /* One request, naming every target. */
    assert_int_equal(F.with_inliners, 1);
    assert_int_equal(F.plain, 0);
    assert_int_equal(F.count, N);
    for (uint32_t i = 0; i < N; ++i) {
        assert_int_equal(F.modules[i], MODULE);
        assert_int_equal(F.methods[i], TOKEN + i);
        aip_patch p;
        aip_rejit_copy(&st, b.accepted[i].index, &p);
        assert_int_equal(p.state, ALVK_PATCH_ACTIVE);
        assert_int_equal(p.current_generation, b.accepted[i].generation);
        assert_int_equal(record_of(&b, i).result.state, ALVK_GENERATION_REQUESTED);
        /* What GetReJITParameters will hand the runtime is the batch's body. */
        aip_prepared_rejit *body = aip_rejit_acquire_for(&st, MODULE, TOKEN + i);
        assert_non_null(body);
        assert_int_equal(body->generation, b.accepted[i].generation);
        aip_prepared_release(body);
    }
    assert_int_equal(command_result(command), ALVK_OK);
}

static void one_refusal_publishes_nothing(void **state)
{
    (void)state;
    world();
    test_batch b;
    alvk_generation_id in_force = accept(&b, 1);
    alvk_command_id command = b.accepted[0].command;
    assert_int_equal(aip_batch_run(&env, &kind, &b, N, command), ALVK_E_MEMBER_NOT_FOUND);
    assert_int_equal(b.prepared, 2); /* the first refusal stops the preparations */
    assert_int_equal(F.with_inliners + F.plain, 0);
    for (uint32_t i = 0; i < N; ++i) {
        aip_generation_record r = record_of(&b, i);
        assert_int_equal(r.result.state, ALVK_GENERATION_REJECTED);
        assert_int_equal(r.result.status, i == 1 ? ALVK_E_MEMBER_NOT_FOUND : ALVK_E_BATCH_ABORTED);
        if (i == 1)
            assert_int_equal(r.result.failing_index, 2);
    }
    /* The joined patch keeps its body, generation and owner; the new ones end as refused
     * installs do, their owner taken out. */
    aip_patch joined;
    aip_rejit_copy(&st, b.accepted[0].index, &joined);
    assert_int_equal(joined.state, ALVK_PATCH_ACTIVE);
    assert_int_equal(joined.current_generation, in_force);
    assert_true(aip_rejit_has_owner(&st, b.accepted[0].index, OWNER));
    aip_prepared_rejit *body = aip_rejit_acquire_for(&st, MODULE, TOKEN);
    assert_non_null(body);
    assert_int_equal(body->generation, in_force);
    aip_prepared_release(body);
    for (uint32_t i = 1; i < N; ++i) {
        aip_patch p;
        aip_rejit_copy(&st, b.accepted[i].index, &p);
        assert_int_equal(p.state, ALVK_PATCH_REJECTED);
        assert_int_equal(p.owner_count, 0);
        assert_null(aip_rejit_acquire_for(&st, MODULE, TOKEN + i));
    }
    assert_int_equal(command_result(command), ALVK_E_MEMBER_NOT_FOUND);
}

static void a_refused_request_restores_every_previous_body(void **state)
{
    (void)state;
    world();
    F.answer = E_FAIL;
    test_batch b;
    alvk_generation_id in_force = accept(&b, N);
    alvk_command_id command = b.accepted[0].command;
    assert_int_equal(aip_batch_run(&env, &kind, &b, N, command), ALVK_E_REJIT_FAILED);
    assert_int_equal(F.with_inliners, 1);
    aip_patch joined;
    aip_rejit_copy(&st, b.accepted[0].index, &joined);
    assert_int_equal(joined.current_generation, in_force);
    aip_prepared_rejit *body = aip_rejit_acquire_for(&st, MODULE, TOKEN);
    assert_non_null(body);
    assert_int_equal(body->generation, in_force);
    aip_prepared_release(body);
    for (uint32_t i = 1; i < N; ++i)
        assert_null(aip_rejit_acquire_for(&st, MODULE, TOKEN + i));
    assert_int_equal(command_result(command), ALVK_E_REJIT_FAILED);
}

/* The fallback flag on every patch: one RequestReJIT with the targets and the callers the
 * profiler saw inline them. */
static aip_inliner_map inliners;

static void the_fallback_batch_is_one_plain_request(void **state)
{
    (void)state;
    world();
    memset(&inliners, 0, sizeof inliners);
    assert_int_equal(aip_inliner_map_init(&inliners), 0);
    aip_method_key callee = {MODULE, TOKEN + 1}, caller = {MODULE, 0x06000999u};
    assert_int_equal(aip_inliner_map_add(&inliners, callee, caller), 1);
    env.inliners = &inliners;
    test_batch b;
    accept(&b, N);
    for (uint32_t i = 0; i < N; ++i)
        b.flags[i] = ALVK_INSTALL_INLINER_FALLBACK;
    assert_int_equal(aip_batch_run(&env, &kind, &b, N, b.accepted[0].command), ALVK_OK);
    assert_int_equal(F.plain, 1);
    assert_int_equal(F.with_inliners, 0);
    assert_int_equal(F.count, N + 1);
    assert_int_equal(F.methods[0], TOKEN);
    assert_int_equal(F.methods[1], TOKEN + 1);
    assert_int_equal(F.methods[2], 0x06000999u); /* target 1's caller, after it */
    assert_int_equal(F.methods[3], TOKEN + 2);
}

/* ---- the generation batch's own entries (apply_generation_batch.c) ---------------------- */

/* The loaded method of every target: `static void M()` whose body is `ret`. */
static const uint8_t k_loaded[] = {0x06, 0x2A};      /* tiny, 1 byte of code: ret */
static const uint8_t k_new_body[] = {0x0A, 0x00, 0x2A}; /* tiny, 2 bytes: nop; ret */
static const uint8_t k_void_sig[] = {0x00, 0x00, 0x01};

static IMetaDataImport2 fake_import;
static IMetaDataImport2Vtbl import_vtbl;

static HRESULT STDMETHODCALLTYPE module_metadata(ICorProfilerInfo15 *This, ModuleID module,
                                                 DWORD flags, REFIID riid, IUnknown **out)
{
    (void)This, (void)flags, (void)riid;
    assert_int_equal(module, MODULE);
    *out = (IUnknown *)(void *)&fake_import;
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE il_body(ICorProfilerInfo15 *This, ModuleID module,
                                         mdMethodDef method, LPCBYTE *body, ULONG *length)
{
    (void)This, (void)method;
    assert_int_equal(module, MODULE);
    *body = k_loaded;
    *length = sizeof k_loaded;
    return S_OK;
}

static ULONG STDMETHODCALLTYPE import_release(IMetaDataImport2 *This)
{
    (void)This;
    return 0;
}

static BOOL STDMETHODCALLTYPE valid_token(IMetaDataImport2 *This, mdToken token)
{
    (void)This, (void)token;
    return 1;
}

static HRESULT STDMETHODCALLTYPE method_props(IMetaDataImport2 *This, mdMethodDef method,
                                              mdTypeDef *type, LPWSTR name, ULONG capacity,
                                              ULONG *length, DWORD *attributes,
                                              PCCOR_SIGNATURE *sig, ULONG *sig_length, ULONG *rva,
                                              DWORD *impl)
{
    (void)This, (void)method, (void)name, (void)capacity, (void)length;
    *type = 0x02000002u;
    *attributes = 0x0016; /* public static */
    *sig = k_void_sig;
    *sig_length = sizeof k_void_sig;
    *rva = 0x2050;
    *impl = 0; /* IL, managed */
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE type_props(IMetaDataImport2 *This, mdTypeDef type, LPWSTR name,
                                            ULONG capacity, ULONG *length, DWORD *flags,
                                            mdToken *extends)
{
    (void)This, (void)type, (void)name, (void)capacity;
    *length = 0;
    *flags = 0;
    *extends = 0; /* neither a TypeRef nor a TypeDef: not a value type */
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE generic_params(IMetaDataImport2 *This, HCORENUM *e, mdToken owner,
                                                mdGenericParam *params, ULONG capacity,
                                                ULONG *count)
{
    (void)This, (void)e, (void)owner, (void)params, (void)capacity;
    *count = 0;
    return S_FALSE;
}

static HRESULT STDMETHODCALLTYPE attribute_by_name(IMetaDataImport2 *This, mdToken owner,
                                                   LPCWSTR name, const void **data, ULONG *length)
{
    (void)This, (void)owner, (void)name, (void)data, (void)length;
    return S_FALSE;
}

static aip_emitter emitter;

/* The world above, with a catalogued, allowed module whose methods the fake metadata
 * describes, and an emitter: what aip_apply_generation_prepare resolves a target through. */
static void generation_world(void)
{
    world();
    vtbl.GetModuleMetaData = module_metadata;
    vtbl.GetILFunctionBody = il_body;
    import_vtbl.Release = import_release;
    import_vtbl.IsValidToken = valid_token;
    import_vtbl.GetMethodProps = method_props;
    import_vtbl.GetTypeDefProps = type_props;
    import_vtbl.EnumGenericParams = generic_params;
    import_vtbl.GetCustomAttributeByName = attribute_by_name;
    fake_import.lpVtbl = &import_vtbl;
    memset(&catalog, 0, sizeof catalog);
    assert_int_equal(aip_catalog_init(&catalog), 0);
    assert_int_equal(aip_catalog_add(&catalog, MODULE, &k_mvid, "Game", 1, 0, &epoch), ALVK_OK);
    memset(&emitter, 0, sizeof emitter);
    assert_int_equal(aip_emitter_init(&emitter, &F.info), 0);
    env.emitter = &emitter;
}

/* The batch accept() accepted, staged as alvk_generation_submit_batch stages it: generation i
 * replaces target i's `ret` with `nop; ret`; `wrong_identity` names the entry built against
 * another body (ALVK_E_BODY_IDENTITY_MISMATCH on the worker), N for none. */
static aip_generation_batch *stage(const test_batch *t, alvk_generation_id prior0,
                                   uint32_t wrong_identity)
{
    aip_generation_batch *b = aip_generation_batch_create(N);
    assert_non_null(b);
    b->command = t->accepted[0].command;
    for (uint32_t i = 0; i < N; ++i) {
        alvk_generation g;
        memset(&g, 0, sizeof g);
        g.size = sizeof g;
        g.method_token = TOKEN + i;
        g.module_mvid = k_mvid;
        aip_sha256_digest(k_loaded, sizeof k_loaded, g.expected_body_identity);
        if (i == wrong_identity)
            g.expected_body_identity[0] ^= 1;
        g.prior_generation = i == 0 ? prior0 : 0;
        g.owner = OWNER;
        g.body = k_new_body;
        g.body_size = sizeof k_new_body;
        g.flags = ALVK_INSTALL_UNVERIFIABLE; /* the stack check has its own tests */
        aip_staged_generation *s = aip_generation_stage(&g);
        assert_non_null(s);
        s->index = t->accepted[i].index;
        s->id = t->accepted[i].generation;
        s->added_owner = (uint32_t)t->accepted[i].added_owner;
        s->command = t->accepted[i].command;
        s->queued_ns = t->queued_ns;
        b->entries[i] = s;
    }
    return b;
}

static void staged_generations_publish_all_with_one_request(void **state)
{
    (void)state;
    generation_world();
    test_batch t;
    alvk_generation_id in_force = accept(&t, N);
    aip_generation_batch *b = stage(&t, in_force, N);
    alvk_command_id command = b->command;
    assert_int_equal(aip_apply_generation_batch(&b, &env), ALVK_OK);
    assert_int_equal(F.with_inliners, 1);
    assert_int_equal(F.count, N);
    for (uint32_t i = 0; i < N; ++i) {
        assert_int_equal(record_of(&t, i).result.state, ALVK_GENERATION_REQUESTED);
        aip_prepared_rejit *body = aip_rejit_acquire_for(&st, MODULE, TOKEN + i);
        assert_non_null(body);
        assert_int_equal(body->generation, t.accepted[i].generation);
        aip_prepared_release(body);
    }
    assert_int_equal(command_result(command), ALVK_OK);
}

static void a_refused_staged_generation_publishes_nothing(void **state)
{
    (void)state;
    generation_world();
    test_batch t;
    alvk_generation_id in_force = accept(&t, N);
    /* Entry 0 (the joined target) is prepared, entry 1 refused, entry 2 never prepared. */
    aip_generation_batch *b = stage(&t, in_force, 1);
    alvk_command_id command = b->command;
    assert_int_equal(aip_apply_generation_batch(&b, &env), ALVK_E_BODY_IDENTITY_MISMATCH);
    assert_int_equal(F.with_inliners + F.plain, 0);
    for (uint32_t i = 0; i < N; ++i) {
        aip_generation_record r = record_of(&t, i);
        assert_int_equal(r.result.state, ALVK_GENERATION_REJECTED);
        assert_int_equal(r.result.status,
                         i == 1 ? ALVK_E_BODY_IDENTITY_MISMATCH : ALVK_E_BATCH_ABORTED);
    }
    aip_patch joined;
    aip_rejit_copy(&st, t.accepted[0].index, &joined);
    assert_int_equal(joined.state, ALVK_PATCH_ACTIVE);
    assert_int_equal(joined.current_generation, in_force);
    assert_int_equal(joined.latest_generation, in_force); /* the next chains on it again */
    assert_true(aip_rejit_has_owner(&st, t.accepted[0].index, OWNER));
    aip_prepared_rejit *body = aip_rejit_acquire_for(&st, MODULE, TOKEN);
    assert_non_null(body);
    assert_int_equal(body->generation, in_force);
    aip_prepared_release(body);
    for (uint32_t i = 1; i < N; ++i) {
        aip_patch p;
        aip_rejit_copy(&st, t.accepted[i].index, &p);
        assert_int_equal(p.state, ALVK_PATCH_REJECTED);
        assert_int_equal(p.owner_count, 0);
        assert_null(aip_rejit_acquire_for(&st, MODULE, TOKEN + i));
    }
    assert_int_equal(command_result(command), ALVK_E_BODY_IDENTITY_MISMATCH);
}

static void a_refused_request_of_staged_generations_restores_every_body(void **state)
{
    (void)state;
    generation_world();
    F.answer = E_FAIL;
    test_batch t;
    alvk_generation_id in_force = accept(&t, N);
    aip_generation_batch *b = stage(&t, in_force, N);
    alvk_command_id command = b->command;
    assert_int_equal(aip_apply_generation_batch(&b, &env), ALVK_E_REJIT_FAILED);
    assert_int_equal(F.with_inliners, 1);
    assert_int_equal(F.count, N);
    aip_patch joined;
    aip_rejit_copy(&st, t.accepted[0].index, &joined);
    assert_int_equal(joined.current_generation, in_force);
    aip_prepared_rejit *body = aip_rejit_acquire_for(&st, MODULE, TOKEN);
    assert_non_null(body);
    assert_int_equal(body->generation, in_force);
    aip_prepared_release(body);
    for (uint32_t i = 0; i < N; ++i) {
        aip_generation_record r = record_of(&t, i);
        assert_int_equal(r.result.state, ALVK_GENERATION_REJECTED);
        assert_int_equal(r.result.status, ALVK_E_REJIT_FAILED);
        if (i > 0)
            assert_null(aip_rejit_acquire_for(&st, MODULE, TOKEN + i));
    }
    assert_int_equal(command_result(command), ALVK_E_REJIT_FAILED);
}

/* ---- The last owner's removal: the original back, its own version active -------------- */

/* A live patch of OWNER on TOKEN whose generation is in force, and OWNER's remove command as
 * the worker gets it. */
static aip_patch_command live_patch_and_its_removal(void)
{
    aip_rejit_request first = {AIP_REQUEST_GENERATION, &k_mvid, MODULE, epoch, TOKEN, 0, 0, OWNER, 0};
    aip_rejit_accepted a;
    assert_int_equal(aip_rejit_accept(&st, &first, &a), ALVK_OK);
    aip_rejit_set_target(&st, a.index, MODULE, epoch);
    aip_request_mark mark;
    memset(&mark, 0, sizeof mark);
    mark.index = a.index;
    mark.id = a.generation;
    aip_prepared_release(aip_rejit_publish(
        &st, a.index, aip_prepared_create(a.generation, k_body, sizeof k_body, NULL, 0)));
    aip_rejit_mark_requested(&st, &mark, 1, aip_monotonic_ns());
    aip_rejit_finish_command(&st, a.index, a.command, ALVK_PATCH_ACTIVE, ALVK_OK,
                             aip_monotonic_ns());
    aip_rejit_request leave = {AIP_REQUEST_REMOVE, NULL, 0, 0, 0, 0, a.handle, OWNER, 0};
    aip_rejit_accepted r;
    assert_int_equal(aip_rejit_accept(&st, &leave, &r), ALVK_OK);
    aip_patch_command c;
    memset(&c, 0, sizeof c);
    c.kind = AIP_PATCH_REMOVE;
    c.index = r.index;
    c.owner = OWNER;
    c.token = TOKEN;
    c.command = r.command;
    c.queued_ns = aip_monotonic_ns();
    return c;
}

static void the_last_removal_reverts_the_target_after_requesting_its_inliners(void **state)
{
    (void)state;
    world();
    F.answer = S_OK;
    aip_patch_command c = live_patch_and_its_removal();
    assert_int_equal(aip_apply_patch_command(&c, &env), ALVK_OK);
    /* The inliners re-JIT'd first (the original IL, each inliner its own patch's body)... */
    assert_int_equal(F.with_inliners, 1);
    assert_int_equal(F.count, 1);
    assert_int_equal(F.modules[0], MODULE);
    assert_int_equal(F.methods[0], TOKEN);
    /* ...then the target's original version made active, so they can inline it. */
    assert_int_equal(g_reverts, 1);
    assert_int_equal(g_requests_before_revert, 1);
    assert_int_equal(g_revert_module, MODULE);
    assert_int_equal(g_revert_method, TOKEN);
    aip_patch now;
    aip_rejit_copy(&st, c.index, &now);
    assert_int_equal(now.state, ALVK_PATCH_REMOVED);
}

/* Another method of the module is patched: the target's original native code may hold an
 * inlined copy of it (ReadyToRun code inlines within its module unreported), so the removal
 * re-JITs the original IL (which calls it) and reverts nothing. */
static void a_removal_beside_another_live_patch_of_the_module_reverts_nothing(void **state)
{
    (void)state;
    world();
    F.answer = S_OK;
    aip_rejit_request other = {AIP_REQUEST_GENERATION, &k_mvid, MODULE, epoch, TOKEN + 1, 0, 0, OWNER, 0};
    aip_rejit_accepted o;
    assert_int_equal(aip_rejit_accept(&st, &other, &o), ALVK_OK);
    aip_rejit_set_target(&st, o.index, MODULE, epoch);
    aip_patch_command c = live_patch_and_its_removal();
    assert_int_equal(aip_apply_patch_command(&c, &env), ALVK_OK);
    assert_int_equal(F.with_inliners, 1);
    assert_int_equal(g_reverts, 0);
    aip_patch now;
    aip_rejit_copy(&st, c.index, &now);
    assert_int_equal(now.state, ALVK_PATCH_REMOVED);
}

static void a_refused_removal_reverts_nothing(void **state)
{
    (void)state;
    world();
    F.answer = E_FAIL;
    aip_patch_command c = live_patch_and_its_removal();
    assert_int_equal(aip_apply_patch_command(&c, &env), ALVK_E_REJIT_FAILED);
    assert_int_equal(F.with_inliners, 1);
    assert_int_equal(g_reverts, 0); /* the patch's body still runs: nothing reverted under it */
    aip_patch now;
    aip_rejit_copy(&st, c.index, &now);
    assert_int_equal(now.state, ALVK_PATCH_ACTIVE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(all_prepared_publish_all_with_one_request),
        cmocka_unit_test(one_refusal_publishes_nothing),
        cmocka_unit_test(a_refused_request_restores_every_previous_body),
        cmocka_unit_test(the_fallback_batch_is_one_plain_request),
        cmocka_unit_test(staged_generations_publish_all_with_one_request),
        cmocka_unit_test(a_refused_staged_generation_publishes_nothing),
        cmocka_unit_test(a_refused_request_of_staged_generations_restores_every_body),
        cmocka_unit_test(the_last_removal_reverts_the_target_after_requesting_its_inliners),
        cmocka_unit_test(a_refused_removal_reverts_nothing),
        cmocka_unit_test(a_removal_beside_another_live_patch_of_the_module_reverts_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
