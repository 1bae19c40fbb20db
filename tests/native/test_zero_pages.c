/* aip_release_zero_pages: whole zero pages go back to the OS and still read as zero; a page
 * holding any nonzero byte, and the partial pages at either end, are left alone. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform/platform.h"

enum { PAGES = 16, DATA_PAGE = 5 };

static void zero_pages_are_given_back_and_read_as_zero(void **state)
{
    (void)state;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *block = NULL;
    assert_int_equal(posix_memalign((void **)&block, page, PAGES * page), 0);
    memset(block, 0, PAGES * page);
    block[DATA_PAGE * page + 17] = 0x5A;
    size_t released = aip_release_zero_pages(block, PAGES * page);
#if defined(__linux__)
    assert_int_equal(released, (PAGES - 1) * page);
#else
    assert_true(released <= (PAGES - 1) * page);
#endif
    assert_int_equal(block[DATA_PAGE * page + 17], 0x5A); /* the page with data kept it */
    for (size_t i = 0; i < PAGES * page; ++i)
        if (i != DATA_PAGE * page + 17 && block[i] != 0)
            fail_msg("byte %zu reads %u after the release", i, (unsigned)block[i]);
    block[0] = 7; /* a released page can be written again */
    assert_int_equal(block[0], 7);
    /* Only whole pages inside the range: from byte 1 to one byte short of the end, the first
     * and last pages are partial (and page 0 now holds data anyway). */
    block[0] = 0;
    released = aip_release_zero_pages(block + 1, PAGES * page - 2);
#if defined(__linux__)
    assert_int_equal(released, (PAGES - 3) * page);
#endif
    assert_int_equal(aip_release_zero_pages(block, 0), 0);
    free(block);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(zero_pages_are_given_back_and_read_as_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
