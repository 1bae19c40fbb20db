/* The recorded inliners: deduplicated pairs, lookup by callee and by caller (nested inlines
 * too), bounded; a map no pair was added to is not scanned (its pages stay untouched). */
#define _DEFAULT_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rejit/inliner_map.h"

static aip_inliner_map map;

static void pairs_are_recorded_once_and_found_by_callee(void **state)
{
    (void)state;
    memset(&map, 0, sizeof map); /* init requires zeroed storage */
    assert_int_equal(aip_inliner_map_init(&map), 0);
    aip_method_key small = {0x100, 0x06000001}, other = {0x100, 0x06000002};
    aip_method_key a = {0x100, 0x06000010}, b = {0x200, 0x06000020};
    assert_int_equal(aip_inliner_map_add(&map, small, a), 1);
    assert_int_equal(aip_inliner_map_add(&map, small, a), 0);
    assert_int_equal(aip_inliner_map_add(&map, small, b), 1);
    assert_int_equal(aip_inliner_map_add(&map, other, a), 1);
    aip_method_key out[4];
    assert_int_equal(aip_inliner_map_callers(&map, small, out, 4), 2);
    assert_true((out[0].token == a.token && out[1].token == b.token) ||
                (out[0].token == b.token && out[1].token == a.token));
    /* A short buffer still reports how many there are. */
    assert_int_equal(aip_inliner_map_callers(&map, small, out, 1), 2);
    aip_method_key none = {0x300, 0x06000001};
    assert_int_equal(aip_inliner_map_callers(&map, none, out, 4), 0);
    aip_method_key nil = {0, 0x06000001};
    assert_int_equal(aip_inliner_map_add(&map, nil, a), 0);
}

static void a_full_map_counts_drops(void **state)
{
    (void)state;
    memset(&map, 0, sizeof map); /* init requires zeroed storage */
    assert_int_equal(aip_inliner_map_init(&map), 0);
    aip_method_key callee = {0x100, 0x06000001};
    uint32_t added = 0;
    for (uint32_t i = 0; i < AIP_INLINER_MAP_CAPACITY; ++i) {
        aip_method_key caller = {0x500, 0x06000000u + i + 1};
        added += (uint32_t)aip_inliner_map_add(&map, callee, caller);
    }
    assert_int_equal(added, AIP_INLINER_MAP_CAPACITY - AIP_INLINER_MAP_CAPACITY / 4);
    assert_int_equal(map.dropped, AIP_INLINER_MAP_CAPACITY / 4);
    aip_method_key out[1];
    assert_int_equal(aip_inliner_map_callers(&map, callee, out, 1), added);
}

static void an_unloaded_module_leaves_no_pairs(void **state)
{
    (void)state;
    memset(&map, 0, sizeof map); /* init requires zeroed storage */
    assert_int_equal(aip_inliner_map_init(&map), 0);
    aip_method_key small = {0x100, 0x06000001};
    aip_method_key in_plugin = {0x900, 0x06000010}, in_game = {0x100, 0x06000020};
    assert_int_equal(aip_inliner_map_add(&map, small, in_plugin), 1);
    assert_int_equal(aip_inliner_map_add(&map, small, in_game), 1);
    aip_inliner_map_forget_module(&map, 0x900);
    aip_method_key out[4];
    assert_int_equal(aip_inliner_map_callers(&map, small, out, 4), 1);
    assert_int_equal(out[0].module_id, 0x100);
    /* A pair probed past the removed one is still found (and not added twice). */
    assert_int_equal(aip_inliner_map_add(&map, small, in_game), 0);
    aip_inliner_map_forget_module(&map, 0x100);
    assert_int_equal(aip_inliner_map_callers(&map, small, out, 4), 0);
}

static void inlinees_follow_nested_inlines_and_the_count_is_raised_once(void **state)
{
    (void)state;
    memset(&map, 0, sizeof map); /* init requires zeroed storage */
    assert_int_equal(aip_inliner_map_init(&map), 0);
    /* outer inlined middle and leaf; middle inlined small, which inlined tiny, which inlined
     * deepest (a level too deep); other inlined small too. */
    aip_method_key outer = {0x100, 0x06000001}, middle = {0x100, 0x06000002};
    aip_method_key leaf = {0x100, 0x06000003}, small = {0x100, 0x06000004};
    aip_method_key tiny = {0x100, 0x06000005}, deepest = {0x100, 0x06000006};
    aip_method_key other = {0x200, 0x06000007};
    aip_inliner_map_add(&map, middle, outer);
    aip_inliner_map_add(&map, leaf, outer);
    aip_inliner_map_add(&map, small, middle);
    aip_inliner_map_add(&map, tiny, small);
    aip_inliner_map_add(&map, deepest, tiny);
    aip_inliner_map_add(&map, small, other);
    aip_method_key out[8];
    uint64_t counted = 99;
    assert_int_equal(aip_inliner_map_inlinees(&map, outer, out, 8, &counted), 4);
    assert_int_equal(counted, 0);
    uint32_t seen = 0;
    for (uint32_t i = 0; i < 4; ++i)
        seen |= 1u << (out[i].token - 0x06000001);
    assert_int_equal(seen, 0x1E); /* middle, leaf, small, tiny: not deepest, not outer */
    assert_int_equal(aip_inliner_map_inlinees(&map, outer, out, 2, &counted), 2);
    assert_int_equal(aip_inliner_map_inlinees(&map, small, out, 8, &counted), 2);
    assert_int_equal(aip_inliner_map_inlinees(&map, deepest, out, 8, &counted), 0);
    /* Raised from what was read: once; a second compilation that read the same loses. */
    assert_int_equal(aip_inliner_map_raise_counted(&map, outer, 0, 5), 1);
    assert_int_equal(aip_inliner_map_raise_counted(&map, outer, 0, 5), 0);
    aip_inliner_map_inlinees(&map, outer, out, 8, &counted);
    assert_int_equal(counted, 5);
    aip_inliner_map_inlinees(&map, middle, out, 8, &counted);
    assert_int_equal(counted, 0); /* each caller's own */
    /* A pair the JIT reports later still shares the caller's count. */
    aip_method_key late = {0x100, 0x06000008};
    aip_inliner_map_add(&map, late, outer);
    aip_inliner_map_inlinees(&map, outer, out, 8, &counted);
    assert_int_equal(counted, 5);
    assert_int_equal(aip_inliner_map_raise_counted(&map, outer, 5, 7), 1);
    aip_inliner_map_inlinees(&map, outer, out, 8, &counted);
    assert_int_equal(counted, 7);
}

/* Pages of `m`'s slots (the first page, holding its lock and count, aside) that are mapped. */
static size_t slot_pages_mapped(const aip_inliner_map *m, size_t page)
{
    size_t size = sizeof *m, mapped = 0;
#ifdef __linux__
    unsigned char resident[sizeof(aip_inliner_map) / 4096 + 2];
    assert_int_equal(mincore((void *)m, size, resident), 0);
    for (size_t i = 1; i < (size + page - 1) / page; ++i)
        mapped += resident[i] & 1;
#else
    (void)m, (void)page, (void)size;
#endif
    return mapped;
}

static void an_empty_map_is_not_scanned(void **state)
{
    (void)state;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    aip_inliner_map *m = aip_zero_pages(sizeof *m);
    assert_non_null(m);
    assert_int_equal(aip_inliner_map_init(m), 0);
    aip_method_key callee = {0x100, 0x06000001}, caller = {0x100, 0x06000010}, out[2];
    uint64_t counted = 0;
    assert_int_equal(aip_inliner_map_callers(m, callee, out, 2), 0);
    assert_int_equal(aip_inliner_map_inlinees(m, caller, out, 2, &counted), 0);
    aip_inliner_map_forget_module(m, 0x100);
    assert_int_equal(slot_pages_mapped(m, page), 0);
    /* Once a pair is added, it is found. */
    assert_int_equal(aip_inliner_map_add(m, callee, caller), 1);
    assert_int_equal(aip_inliner_map_callers(m, callee, out, 2), 1);
    assert_int_equal(out[0].token, caller.token);
    aip_mutex_destroy(&m->lock);
    assert_int_equal(munmap(m, sizeof *m), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pairs_are_recorded_once_and_found_by_callee),
        cmocka_unit_test(an_empty_map_is_not_scanned),
        cmocka_unit_test(a_full_map_counts_drops),
        cmocka_unit_test(an_unloaded_module_leaves_no_pairs),
        cmocka_unit_test(inlinees_follow_nested_inlines_and_the_count_is_raised_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
