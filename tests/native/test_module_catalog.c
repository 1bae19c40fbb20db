/* The module table: epochs, lookups by MVID, unloads, and its bound. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "runtime/module_catalog.h"

static aip_module_catalog catalog;

static alvk_mvid mvid_of(uint8_t seed)
{
    alvk_mvid id;
    for (int i = 0; i < 16; ++i)
        id.bytes[i] = (uint8_t)(seed + i);
    return id;
}

static void loads_get_increasing_epochs_and_are_found(void **state)
{
    (void)state;
    assert_int_equal(aip_catalog_init(&catalog), 0);
    alvk_mvid a = mvid_of(1), b = mvid_of(2);
    uint32_t ea = 0, eb = 0;
    assert_int_equal(aip_catalog_add(&catalog, 0x1000, &a, "Game.Logic", 1, &ea), ALVK_OK);
    assert_int_equal(aip_catalog_add(&catalog, 0x2000, &b, "System.Runtime", 0, &eb), ALVK_OK);
    assert_true(eb > ea && ea > 0);
    aip_module_entry e;
    assert_int_equal(aip_catalog_find(&catalog, &a, &e), ALVK_OK);
    assert_int_equal(e.module_id, 0x1000);
    assert_int_equal(e.epoch, ea);
    assert_true(e.allowed);
    assert_string_equal(e.assembly_name, "Game.Logic");
    assert_int_equal(aip_catalog_find(&catalog, &b, &e), ALVK_OK);
    assert_false(e.allowed);
    alvk_mvid unknown = mvid_of(9);
    assert_int_equal(aip_catalog_find(&catalog, &unknown, &e), ALVK_E_UNKNOWN_MODULE);
}

static void unload_ends_the_epoch_and_a_reload_is_a_new_one(void **state)
{
    (void)state;
    assert_int_equal(aip_catalog_init(&catalog), 0);
    alvk_mvid a = mvid_of(1);
    uint32_t first = 0, second = 0;
    assert_int_equal(aip_catalog_add(&catalog, 0x1000, &a, "Plugin", 1, &first), ALVK_OK);
    aip_catalog_unload(&catalog, 0x1000);
    aip_catalog_unload(&catalog, 0x9999); /* unknown: ignored */
    aip_module_entry e;
    assert_int_equal(aip_catalog_find(&catalog, &a, &e), ALVK_E_MODULE_UNLOADED);
    /* The same module loads again, even at the same ModuleID: a new epoch. */
    assert_int_equal(aip_catalog_add(&catalog, 0x1000, &a, "Plugin", 1, &second), ALVK_OK);
    assert_true(second > first);
    assert_int_equal(aip_catalog_find(&catalog, &a, &e), ALVK_OK);
    assert_int_equal(e.epoch, second);
}

static void the_table_is_bounded_and_long_names_are_cut(void **state)
{
    (void)state;
    assert_int_equal(aip_catalog_init(&catalog), 0);
    char long_name[400];
    memset(long_name, 'n', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    for (uint32_t i = 0; i < AIP_CATALOG_MAX_MODULES; ++i) {
        alvk_mvid id = mvid_of((uint8_t)i);
        id.bytes[15] = (uint8_t)(i >> 8);
        assert_int_equal(aip_catalog_add(&catalog, 0x1000 + i, &id, long_name, 1, NULL), ALVK_OK);
    }
    alvk_mvid extra = mvid_of(200);
    extra.bytes[14] = 0xEE;
    assert_int_equal(aip_catalog_add(&catalog, 0x99999, &extra, "Late", 1, NULL),
                     ALVK_E_CATALOG_FULL);
    assert_int_equal(catalog.dropped, 1);
    aip_module_entry e;
    /* The dropped load is reported as such, not as an unknown module. */
    assert_int_equal(aip_catalog_find(&catalog, &extra, &e), ALVK_E_CATALOG_FULL);
    /* Once a module unloads, its entry is reused. */
    aip_catalog_unload(&catalog, 0x1005);
    assert_int_equal(aip_catalog_add(&catalog, 0x99999, &extra, "Late", 1, NULL), ALVK_OK);
    assert_int_equal(aip_catalog_find(&catalog, &extra, &e), ALVK_OK);
    assert_int_equal(e.module_id, 0x99999);
    alvk_mvid first = mvid_of(0);
    first.bytes[15] = 0;
    assert_int_equal(aip_catalog_find(&catalog, &first, &e), ALVK_OK);
    assert_int_equal(strlen(e.assembly_name), AIP_ASSEMBLY_NAME_CAPACITY - 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(loads_get_increasing_epochs_and_are_found),
        cmocka_unit_test(unload_ends_the_epoch_and_a_reload_is_a_new_one),
        cmocka_unit_test(the_table_is_bounded_and_long_names_are_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
