/* The set of modules whose precompiled code is refused: add, hold, remove, duplicates, the
 * capacity bound, and the "any" check the cache-search callback pays. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "catalog/precompiled_refusals.h"

static aip_precompiled_refusals set;

static void empty_set_holds_nothing(void **state)
{
    (void)state;
    memset(&set, 0, sizeof set);
    assert_false(aip_refusals_any(&set));
    assert_false(aip_refusals_hold(&set, 0x1000));
    assert_false(aip_refusals_hold(&set, 0));
    assert_false(aip_refusals_add(&set, 0)); /* ModuleID 0 is never a module */
    assert_false(aip_refusals_any(&set));
}

static void added_modules_are_held_until_removed(void **state)
{
    (void)state;
    memset(&set, 0, sizeof set);
    assert_true(aip_refusals_add(&set, 0x1000));
    assert_true(aip_refusals_add(&set, 0x2000));
    assert_true(aip_refusals_add(&set, 0x1000)); /* already held: not twice */
    assert_int_equal(atomic_load(&set.held), 2);
    assert_true(aip_refusals_any(&set));
    assert_true(aip_refusals_hold(&set, 0x1000));
    assert_true(aip_refusals_hold(&set, 0x2000));
    assert_false(aip_refusals_hold(&set, 0x3000));
    aip_refusals_remove(&set, 0x1000);
    aip_refusals_remove(&set, 0x3000); /* not held: nothing */
    assert_false(aip_refusals_hold(&set, 0x1000));
    assert_true(aip_refusals_hold(&set, 0x2000));
    assert_int_equal(atomic_load(&set.held), 1);
    aip_refusals_remove(&set, 0x2000);
    assert_false(aip_refusals_any(&set));
}

static void the_capacity_is_a_bound_and_slots_are_reused(void **state)
{
    (void)state;
    memset(&set, 0, sizeof set);
    for (uintptr_t i = 1; i <= AIP_PRECOMPILED_REFUSAL_CAPACITY; ++i)
        assert_true(aip_refusals_add(&set, i * 16));
    assert_false(aip_refusals_add(&set, 0xFFFF0)); /* full */
    assert_false(aip_refusals_hold(&set, 0xFFFF0));
    aip_refusals_remove(&set, 16 * 7);
    assert_true(aip_refusals_add(&set, 0xFFFF0)); /* the freed slot */
    assert_true(aip_refusals_hold(&set, 0xFFFF0));
    assert_int_equal(atomic_load(&set.held), AIP_PRECOMPILED_REFUSAL_CAPACITY);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(empty_set_holds_nothing),
        cmocka_unit_test(added_modules_are_held_until_removed),
        cmocka_unit_test(the_capacity_is_a_bound_and_slots_are_reused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
