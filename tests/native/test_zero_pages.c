/* aip_zero_pages: page-aligned memory that reads as zero and can be written, and on Linux
 * holds no page until one is written (what lets an inert profiler skip its tables);
 * aip_zero_pages_map: the pages of a range mapped for reading, those outside it left alone. */
#define _DEFAULT_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "platform/platform.h"

enum { PAGES = 16, WRITTEN_PAGE = 5 };

static void zero_pages_read_as_zero_and_are_backed_when_written(void **state)
{
    (void)state;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char *p = aip_zero_pages(PAGES * page);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % page, 0);
    for (size_t i = 0; i < PAGES * page; ++i)
        if (p[i] != 0)
            fail_msg("byte %zu is %u", i, p[i]);
    p[WRITTEN_PAGE * page + 7] = 0x5A;
    assert_int_equal(p[WRITTEN_PAGE * page + 7], 0x5A);
#ifdef __linux__
    /* Read, not written: the shared zero page at most; written: resident. */
    unsigned char resident[PAGES];
    assert_int_equal(mincore(p, PAGES * page, resident), 0);
    assert_true(resident[WRITTEN_PAGE] & 1);
#endif
    assert_int_equal(munmap(p, PAGES * page), 0);
}

static void zero_pages_map_maps_each_page_of_the_range_and_no_other(void **state)
{
    (void)state;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char *p = aip_zero_pages(PAGES * page);
    assert_non_null(p);
    /* From the middle of page 2 to the middle of page 9: pages 2 to 9. */
    aip_zero_pages_map(p + 2 * page + 100, 7 * page);
    aip_zero_pages_map(NULL, page); /* nothing to map */
    aip_zero_pages_map(p + 12 * page, 0);
#ifdef __linux__
    unsigned char resident[PAGES];
    assert_int_equal(mincore(p, PAGES * page, resident), 0);
    for (int i = 0; i < PAGES; ++i)
        if ((resident[i] & 1) != (i >= 2 && i <= 9))
            fail_msg("page %d is %s", i, (resident[i] & 1) ? "mapped" : "not mapped");
#endif
    for (size_t i = 0; i < PAGES * page; ++i)
        if (p[i] != 0)
            fail_msg("byte %zu is %u", i, p[i]);
    assert_int_equal(munmap(p, PAGES * page), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(zero_pages_read_as_zero_and_are_backed_when_written),
        cmocka_unit_test(zero_pages_map_maps_each_page_of_the_range_and_no_other),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
