/* The module table: epochs, lookups by MVID and by copy, unloads, and its bound. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "catalog/module_catalog.h"

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
    memset(&catalog, 0, sizeof catalog); /* init requires zeroed storage */
    assert_int_equal(aip_catalog_init(&catalog), 0);
    alvk_mvid a = mvid_of(1), b = mvid_of(2);
    uint32_t ea = 0, eb = 0;
    assert_int_equal(aip_catalog_add(&catalog, 0x1000, &a, "Game.Logic", 1, 0, &ea), ALVK_OK);
    assert_int_equal(aip_catalog_add(&catalog, 0x2000, &b, "System.Runtime", 0, 0, &eb), ALVK_OK);
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
    memset(&catalog, 0, sizeof catalog); /* init requires zeroed storage */
    assert_int_equal(aip_catalog_init(&catalog), 0);
    alvk_mvid a = mvid_of(1);
    uint32_t first = 0, second = 0;
    assert_int_equal(aip_catalog_add(&catalog, 0x1000, &a, "Plugin", 1, 0, &first), ALVK_OK);
    aip_catalog_unload(&catalog, 0x1000);
    aip_catalog_unload(&catalog, 0x9999); /* unknown: ignored */
    aip_module_entry e;
    assert_int_equal(aip_catalog_find(&catalog, &a, &e), ALVK_E_MODULE_UNLOADED);
    /* The same module loads again, even at the same ModuleID: a new epoch. */
    assert_int_equal(aip_catalog_add(&catalog, 0x1000, &a, "Plugin", 1, 0, &second), ALVK_OK);
    assert_true(second > first);
    assert_int_equal(aip_catalog_find(&catalog, &a, &e), ALVK_OK);
    assert_int_equal(e.epoch, second);
}

static void the_table_is_bounded_and_long_names_are_cut(void **state)
{
    (void)state;
    memset(&catalog, 0, sizeof catalog); /* init requires zeroed storage */
    assert_int_equal(aip_catalog_init(&catalog), 0);
    char long_name[400];
    memset(long_name, 'n', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    for (uint32_t i = 0; i < AIP_CATALOG_MAX_MODULES; ++i) {
        alvk_mvid id = mvid_of((uint8_t)i);
        id.bytes[15] = (uint8_t)(i >> 8);
        assert_int_equal(aip_catalog_add(&catalog, 0x1000 + i, &id, long_name, 1, 0, NULL), ALVK_OK);
    }
    alvk_mvid extra = mvid_of(200);
    extra.bytes[14] = 0xEE;
    assert_int_equal(aip_catalog_add(&catalog, 0x99999, &extra, "Late", 1, 0, NULL),
                     ALVK_E_CATALOG_FULL);
    assert_int_equal(catalog.dropped, 1);
    aip_module_entry e;
    /* The dropped load is reported as such, not as an unknown module. */
    assert_int_equal(aip_catalog_find(&catalog, &extra, &e), ALVK_E_CATALOG_FULL);
    /* Once a module unloads, its entry is reused. */
    aip_catalog_unload(&catalog, 0x1005);
    assert_int_equal(aip_catalog_add(&catalog, 0x99999, &extra, "Late", 1, 0, NULL), ALVK_OK);
    assert_int_equal(aip_catalog_find(&catalog, &extra, &e), ALVK_OK);
    assert_int_equal(e.module_id, 0x99999);
    alvk_mvid first = mvid_of(0);
    first.bytes[15] = 0;
    assert_int_equal(aip_catalog_find(&catalog, &first, &e), ALVK_OK);
    assert_int_equal(strlen(e.assembly_name), AIP_ASSEMBLY_NAME_CAPACITY - 1);
}

/* The plugin pattern: one assembly in the default context and in a plugin's. */
static void copies_of_one_mvid_are_told_apart_by_module_id(void **state)
{
    (void)state;
    memset(&catalog, 0, sizeof catalog); /* init requires zeroed storage */
    assert_int_equal(aip_catalog_init(&catalog), 0);
    alvk_mvid a = mvid_of(1), other = mvid_of(5);
    uint32_t def = 0, plugin = 0;
    assert_int_equal(aip_catalog_add(&catalog, 0x1000, &a, "Game.Logic", 1, 0, &def), ALVK_OK);
    aip_module_entry e;
    assert_int_equal(aip_catalog_find(&catalog, &a, &e), ALVK_OK);
    assert_int_equal(e.module_id, 0x1000);
    assert_int_equal(aip_catalog_add(&catalog, 0x2000, &a, "Game.Logic", 1, 0, &plugin), ALVK_OK);
    /* The MVID alone no longer names one copy. */
    assert_int_equal(aip_catalog_find(&catalog, &a, &e), ALVK_E_MODULE_AMBIGUOUS);
    uintptr_t ids[4] = {0};
    assert_int_equal(aip_catalog_copies(&catalog, &a, ids, 4), 2);
    assert_int_equal(ids[0], 0x1000);
    assert_int_equal(ids[1], 0x2000);
    assert_int_equal(aip_catalog_copies(&catalog, &a, ids, 1), 2); /* counts past capacity */
    assert_int_equal(aip_catalog_copies(&catalog, &other, ids, 4), 0);
    /* Each copy by its ModuleID, with or without its epoch. */
    assert_int_equal(aip_catalog_find_copy(&catalog, 0x1000, def, &e), ALVK_OK);
    assert_int_equal(e.epoch, def);
    assert_int_equal(aip_catalog_find_copy(&catalog, 0x2000, 0, &e), ALVK_OK);
    assert_int_equal(e.epoch, plugin);
    assert_int_equal(aip_catalog_select(&catalog, &a, 0x2000, plugin, &e), ALVK_OK);
    assert_int_equal(e.module_id, 0x2000);
    assert_int_equal(aip_catalog_select(&catalog, NULL, 0x1000, 0, &e), ALVK_OK);
    assert_int_equal(e.module_id, 0x1000);
    /* A copy whose MVID is not the one the caller means; an MVID alone. */
    assert_int_equal(aip_catalog_select(&catalog, &other, 0x2000, plugin, &e),
                     ALVK_E_UNKNOWN_MODULE);
    assert_int_equal(aip_catalog_select(&catalog, &a, 0, 0, &e), ALVK_E_MODULE_AMBIGUOUS);
    /* Unknown ModuleIDs; a stale or foreign epoch of a live one. */
    assert_int_equal(aip_catalog_find_copy(&catalog, 0xBAD0, 0, &e), ALVK_E_UNKNOWN_MODULE);
    assert_int_equal(aip_catalog_find_copy(&catalog, 0, 0, &e), ALVK_E_UNKNOWN_MODULE);
    assert_int_equal(aip_catalog_find_copy(&catalog, 0x1000, plugin, &e), ALVK_E_MODULE_UNLOADED);
    assert_int_equal(aip_catalog_find_copy(&catalog, 0x1000, 999, &e), ALVK_E_MODULE_UNLOADED);
    /* The plugin's copy unloads: the MVID names the default copy again; the plugin's load
     * is over, even once its ModuleID is reused by another load. */
    aip_catalog_unload(&catalog, 0x2000);
    assert_int_equal(aip_catalog_find(&catalog, &a, &e), ALVK_OK);
    assert_int_equal(e.module_id, 0x1000);
    assert_int_equal(aip_catalog_find_copy(&catalog, 0x2000, plugin, &e), ALVK_E_MODULE_UNLOADED);
    assert_int_equal(aip_catalog_find_copy(&catalog, 0x2000, 0, &e), ALVK_E_MODULE_UNLOADED);
    uint32_t reused = 0;
    assert_int_equal(aip_catalog_add(&catalog, 0x2000, &other, "Other", 1, 0, &reused), ALVK_OK);
    assert_int_equal(aip_catalog_find_copy(&catalog, 0x2000, plugin, &e), ALVK_E_MODULE_UNLOADED);
    assert_int_equal(aip_catalog_find_copy(&catalog, 0x2000, reused, &e), ALVK_OK);
    assert_int_equal(aip_catalog_select(&catalog, &a, 0x2000, 0, &e), ALVK_E_UNKNOWN_MODULE);
    assert_int_equal(aip_catalog_copies(&catalog, &a, ids, 4), 1);
}

/* A collectible copy is recorded as such and never hides the patchable copy. */
static void collectible_copies_are_never_patchable_and_do_not_count(void **state)
{
    (void)state;
    memset(&catalog, 0, sizeof catalog); /* init requires zeroed storage */
    assert_int_equal(aip_catalog_init(&catalog), 0);
    alvk_mvid a = mvid_of(1), b = mvid_of(2);
    uint32_t def = 0, collectible = 0, alone = 0;
    assert_int_equal(aip_catalog_add(&catalog, 0x1000, &a, "Game.Logic", 1, 0, &def), ALVK_OK);
    assert_int_equal(aip_catalog_add(&catalog, 0x2000, &a, "Game.Logic", 1, 1, &collectible),
                     ALVK_OK);
    aip_module_entry e;
    assert_int_equal(aip_catalog_find(&catalog, &a, &e), ALVK_OK);
    assert_int_equal(e.module_id, 0x1000);
    assert_int_equal(aip_catalog_patchable(&e), ALVK_OK);
    assert_int_equal(aip_catalog_flags(&e), ALVK_MODULE_ALLOWED);
    assert_true(aip_catalog_module_allowed(&catalog, 0x1000));
    assert_int_equal(aip_catalog_find_copy(&catalog, 0x2000, collectible, &e), ALVK_OK);
    assert_true(e.collectible);
    assert_int_equal(aip_catalog_patchable(&e), ALVK_E_MODULE_COLLECTIBLE);
    assert_int_equal(aip_catalog_flags(&e), ALVK_MODULE_ALLOWED | ALVK_MODULE_COLLECTIBLE);
    assert_false(aip_catalog_module_allowed(&catalog, 0x2000));
    /* Collectible and not allowed: collectible is the reason (no allowlist would help). */
    assert_int_equal(aip_catalog_add(&catalog, 0x3000, &b, "Plugin", 0, 1, &alone), ALVK_OK);
    assert_int_equal(aip_catalog_find(&catalog, &b, &e), ALVK_OK); /* the only copy */
    assert_int_equal(aip_catalog_patchable(&e), ALVK_E_MODULE_COLLECTIBLE);
    assert_int_equal(aip_catalog_flags(&e), ALVK_MODULE_COLLECTIBLE);
    /* Only collectible copies: the newest. */
    uint32_t newer = 0;
    assert_int_equal(aip_catalog_add(&catalog, 0x4000, &b, "Plugin", 0, 1, &newer), ALVK_OK);
    assert_int_equal(aip_catalog_find(&catalog, &b, &e), ALVK_OK);
    assert_int_equal(e.module_id, 0x4000);
    /* Not allowed, not collectible. */
    e.collectible = 0;
    assert_int_equal(aip_catalog_patchable(&e), ALVK_E_MODULE_NOT_ALLOWED);
    e.unloaded = 1;
    assert_int_equal(aip_catalog_flags(&e), ALVK_MODULE_UNLOADED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(loads_get_increasing_epochs_and_are_found),
        cmocka_unit_test(unload_ends_the_epoch_and_a_reload_is_a_new_one),
        cmocka_unit_test(the_table_is_bounded_and_long_names_are_cut),
        cmocka_unit_test(copies_of_one_mvid_are_told_apart_by_module_id),
        cmocka_unit_test(collectible_copies_are_never_patchable_and_do_not_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
