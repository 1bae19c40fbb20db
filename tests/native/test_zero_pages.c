/* aip_zero_pages: page-aligned memory that reads as zero and can be written, and on Linux
 * holds no page until one is written (what lets an inert profiler skip its tables). */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(zero_pages_read_as_zero_and_are_backed_when_written),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
