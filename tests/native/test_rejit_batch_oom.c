/* aip_rejit_accept_batch when memory runs out half way (malloc wrapped at link time: the
 * table's next chunk cannot be allocated): everything accepted so far is taken back, and a
 * patch the batch joined keeps its owners and its latest generation. Linux only (ld --wrap). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "rejit/rejit_batch.h"
#include "rejit/rejit_generations.h"
#include "rejit/rejit_owners.h"

void *__real_malloc(size_t size);
void *__wrap_malloc(size_t size);

static int g_fail_malloc;

void *__wrap_malloc(size_t size)
{
    return g_fail_malloc ? NULL : __real_malloc(size);
}

static aip_rejit_state st;
static const alvk_mvid k_mvid = {{7, 3, 2, 1, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}};
/* The joined patch, then new patches filling the first chunk, then one that needs the next. */
enum { TOKEN = 0x06000400, MODULE = 0x7300, COUNT = AIP_PATCH_CHUNK_SLOTS + 1 };

static aip_rejit_request requests[COUNT];
static aip_rejit_accepted accepted[COUNT];
static alvk_status statuses[COUNT];

static void out_of_memory_takes_the_whole_batch_back(void **state)
{
    (void)state;
    assert_int_equal(aip_rejit_init(&st, 1024), 0);
    uint32_t index = 0;
    alvk_patch_handle h = 0;
    int added = 0;
    assert_int_equal(
        aip_rejit_begin_install(&st, &k_mvid, MODULE, 3, TOKEN, 0xA1, 0, &index, &h, &added),
        ALVK_OK);
    aip_rejit_set_target(&st, index, MODULE, 3);
    aip_rejit_finish_command(&st, index, 0, ALVK_PATCH_ACTIVE, ALVK_OK, aip_monotonic_ns());
    const aip_patch *joined = aip_patch_at(&st, index);
    alvk_generation_id latest = joined->latest_generation;
    uint32_t capacity = 0, allocated = 0, live = 0;
    aip_rejit_counts(&st, &capacity, &allocated, &live);
    alvk_command_id last = st.last_command;
    for (uint32_t i = 0; i < COUNT; ++i) {
        aip_rejit_request r = {AIP_REQUEST_INSTALL, &k_mvid, MODULE, 3, TOKEN + i, 0, 0, 0xB1, 0};
        requests[i] = r;
    }
    g_fail_malloc = 1;
    alvk_status status = aip_rejit_accept_batch(&st, requests, COUNT, accepted, statuses);
    g_fail_malloc = 0;
    assert_int_equal(status, ALVK_E_PATCH_TABLE_FULL);
    for (uint32_t i = 0; i < COUNT; ++i)
        assert_int_equal(statuses[i],
                         i == COUNT - 1 ? ALVK_E_PATCH_TABLE_FULL : ALVK_E_BATCH_ABORTED);
    uint32_t live_after = 0;
    aip_rejit_counts(&st, &capacity, &allocated, &live_after);
    assert_int_equal(live_after, live);
    assert_int_equal(st.last_command, last);
    assert_false(aip_rejit_has_owner(&st, index, 0xB1));
    assert_true(aip_rejit_has_owner(&st, index, 0xA1));
    assert_int_equal(joined->pending, 0);
    /* The generation the batch opened on the joined patch is refused history, not latest. */
    assert_int_equal(joined->latest_generation, latest);
    alvk_generation_id next = 0;
    assert_int_equal(aip_rejit_begin_generation(&st, index, 1, latest, &next), ALVK_OK);
    aip_rejit_destroy(&st);
}

/* The same for a batch of generations (ABI 3.6): the joined patch chained on its latest
 * generation keeps it, the new patches are taken back. */
static void out_of_memory_takes_a_generation_batch_back(void **state)
{
    (void)state;
    assert_int_equal(aip_rejit_init(&st, 1024), 0);
    aip_rejit_request first = {AIP_REQUEST_GENERATION, &k_mvid, MODULE, 3, TOKEN, 0, 0, 0xA1, 0};
    aip_rejit_accepted a;
    assert_int_equal(aip_rejit_accept(&st, &first, &a), ALVK_OK);
    aip_rejit_set_target(&st, a.index, MODULE, 3);
    aip_request_mark mark;
    memset(&mark, 0, sizeof mark);
    mark.index = a.index;
    mark.id = a.generation;
    aip_rejit_mark_requested(&st, &mark, 1, aip_monotonic_ns()); /* its body is current */
    aip_rejit_finish_command(&st, a.index, a.command, ALVK_PATCH_ACTIVE, ALVK_OK,
                             aip_monotonic_ns());
    const aip_patch *joined = aip_patch_at(&st, a.index);
    alvk_generation_id latest = joined->latest_generation;
    assert_int_equal(latest, a.generation);
    uint32_t capacity = 0, allocated = 0, live = 0;
    aip_rejit_counts(&st, &capacity, &allocated, &live);
    alvk_command_id last = st.last_command;
    for (uint32_t i = 0; i < COUNT; ++i) {
        aip_rejit_request r = {
            AIP_REQUEST_GENERATION, &k_mvid, MODULE, 3, TOKEN + i, 0, 0, 0xA1, i == 0 ? latest : 0};
        requests[i] = r;
    }
    g_fail_malloc = 1;
    alvk_status status = aip_rejit_accept_batch(&st, requests, COUNT, accepted, statuses);
    g_fail_malloc = 0;
    assert_int_equal(status, ALVK_E_PATCH_TABLE_FULL);
    for (uint32_t i = 0; i < COUNT; ++i)
        assert_int_equal(statuses[i],
                         i == COUNT - 1 ? ALVK_E_PATCH_TABLE_FULL : ALVK_E_BATCH_ABORTED);
    uint32_t live_after = 0;
    aip_rejit_counts(&st, &capacity, &allocated, &live_after);
    assert_int_equal(live_after, live);
    assert_int_equal(st.last_command, last);
    assert_true(aip_rejit_has_owner(&st, a.index, 0xA1));
    assert_int_equal(joined->pending, 0);
    assert_int_equal(joined->latest_generation, latest);
    alvk_generation_id next = 0;
    assert_int_equal(aip_rejit_begin_generation(&st, a.index, 1, latest, &next), ALVK_OK);
    aip_rejit_destroy(&st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(out_of_memory_takes_the_whole_batch_back),
        cmocka_unit_test(out_of_memory_takes_a_generation_batch_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
