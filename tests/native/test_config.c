/* Startup configuration precedence and the event mask derived from it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "coreclr/corprof_enums.h"
#include "runtime/config.h"
#include "runtime/event_mask.h"

static aip_config_inputs good_inputs(void)
{
    aip_config_inputs in;
    memset(&in, 0, sizeof in);
    in.modules = "Game";
    in.profiler_path = "/opt/game/libalvorkit_interception_profiler.so";
    in.self_path = "/opt/game/libalvorkit_interception_profiler.so";
    in.profiler_path_is_self = 1;
    return in;
}

static void good_configuration_enables_patching(void **state)
{
    (void)state;
    aip_config_inputs in = good_inputs();
    aip_config config;
    aip_config_evaluate(&in, &config);
    assert_int_equal(config.startup_status, ALVK_OK);
    assert_false(aip_config_is_inert(config.startup_status));
    aip_event_mask mask = aip_event_mask_for(&config);
    /* ReadyToRun code stays enabled (no COR_PRF_DISABLE_ALL_NGEN_IMAGES); cache searches let
     * the profiler refuse the code of images that may inline an allowlisted module. */
    assert_int_equal(mask.low, COR_PRF_MONITOR_MODULE_LOADS | COR_PRF_ENABLE_REJIT |
                                   COR_PRF_MONITOR_JIT_COMPILATION |
                                   COR_PRF_MONITOR_CACHE_SEARCHES);
    assert_int_equal(mask.high, 0);
}

static void allocations_add_their_bits(void **state)
{
    (void)state;
    aip_config_inputs in = good_inputs();
    in.allocations = "1";
    aip_config config;
    aip_config_evaluate(&in, &config);
    assert_int_equal(config.allocation_profiling, 1);
    aip_event_mask mask = aip_event_mask_for(&config);
    assert_true(mask.low & COR_PRF_ENABLE_OBJECT_ALLOCATED);
    assert_true(mask.low & COR_PRF_ENABLE_STACK_SNAPSHOT);
    /* The callback itself is switched on per capture window, not at startup. */
    assert_false(mask.low & COR_PRF_MONITOR_OBJECT_ALLOCATED);
    assert_false(mask.high & COR_PRF_HIGH_MONITOR_EVENT_PIPE);
    in.allocations = "exact";
    aip_config_evaluate(&in, &config);
    assert_int_equal(config.allocation_profiling, ALVK_ALLOCATION_PROFILING_EXACT);
    assert_int_equal(aip_event_mask_for(&config).low, mask.low);
    assert_int_equal(aip_event_mask_for(&config).high, mask.high);
}

static void sampled_profiling_keeps_the_fast_allocation_path(void **state)
{
    (void)state;
    aip_config_inputs in = good_inputs();
    in.allocations = "sampled";
    aip_config config;
    aip_config_evaluate(&in, &config);
    assert_int_equal(config.startup_status, ALVK_OK);
    assert_int_equal(config.allocation_profiling, ALVK_ALLOCATION_PROFILING_SAMPLED);
    aip_event_mask mask = aip_event_mask_for(&config);
    /* Never the immutable allocation bit (it selects the slow allocation helpers for the life
     * of the process); nothing of allocation profiling at startup: the stack walks' bit and
     * EventPipe come with the first window, the large and pinned objects only while one is
     * open. The mask of the same process without allocation profiling. */
    assert_false(mask.low & COR_PRF_ENABLE_OBJECT_ALLOCATED);
    assert_false(mask.low & COR_PRF_MONITOR_OBJECT_ALLOCATED);
    assert_false(mask.low & COR_PRF_ENABLE_STACK_SNAPSHOT);
    assert_int_equal(mask.high, 0);
    in.allocations = NULL;
    aip_config plain;
    aip_config_evaluate(&in, &plain);
    assert_int_equal(aip_event_mask_for(&plain).low, mask.low);
    assert_int_equal(aip_event_mask_for(&plain).high, mask.high);
}

static void no_modules_keeps_profiler_but_drops_rejit(void **state)
{
    (void)state;
    aip_config_inputs in = good_inputs();
    in.modules = NULL;
    in.allocations = "1";
    aip_config config;
    aip_config_evaluate(&in, &config);
    assert_int_equal(config.startup_status, ALVK_E_NO_PATCHABLE_MODULES);
    assert_false(aip_config_is_inert(config.startup_status));
    aip_event_mask mask = aip_event_mask_for(&config);
    assert_int_equal(mask.low & (COR_PRF_ENABLE_REJIT | COR_PRF_DISABLE_ALL_NGEN_IMAGES |
                                 COR_PRF_MONITOR_CACHE_SEARCHES),
                     0);
    assert_true(mask.low & COR_PRF_ENABLE_OBJECT_ALLOCATED);
    /* Allocation capture alone is a chosen mode: no line on every start. */
    assert_string_equal(config.message, "");
}

static void missing_or_empty_modules_say_why_unless_allocations_alone(void **state)
{
    (void)state;
    aip_config_inputs in = good_inputs();
    aip_config config;
    in.modules = NULL; /* neither feature */
    aip_config_evaluate(&in, &config);
    assert_int_equal(config.startup_status, ALVK_E_NO_PATCHABLE_MODULES);
    assert_string_not_equal(config.message, "");
    in.modules = ""; /* set, but empty: a mistake worth a line even with allocations */
    in.allocations = "1";
    aip_config_evaluate(&in, &config);
    assert_int_equal(config.startup_status, ALVK_E_NO_PATCHABLE_MODULES);
    assert_string_not_equal(config.message, "");
    in.modules = NULL;
    in.allocations = "0"; /* allocations off: patching was the point, so say why it is off */
    aip_config_evaluate(&in, &config);
    assert_string_not_equal(config.message, "");
}

static void path_errors_come_first_and_make_it_inert(void **state)
{
    (void)state;
    aip_config_inputs in = good_inputs();
    in.modules = "bad/name";
    in.profiler_path = NULL;
    aip_config config;
    aip_config_evaluate(&in, &config);
    assert_int_equal(config.startup_status, ALVK_E_PROFILER_PATH_UNSET);
    assert_non_null(strstr(config.message, "ALVORKIT_INTERCEPTION_PROFILER_PATH is not set"));

    in.profiler_path = "/tmp/copy.so";
    in.profiler_path_is_self = 0;
    aip_config_evaluate(&in, &config);
    assert_int_equal(config.startup_status, ALVK_E_PROFILER_PATH_MISMATCH);
    assert_non_null(strstr(config.message, "/tmp/copy.so"));
    assert_true(aip_config_is_inert(config.startup_status));
    aip_event_mask mask = aip_event_mask_for(&config);
    assert_int_equal(mask.low, 0);
    assert_int_equal(mask.high, 0);
}

static void malformed_inputs_make_it_inert(void **state)
{
    (void)state;
    aip_config_inputs in = good_inputs();
    in.modules = "A;;B";
    in.allocations = "1";
    aip_config config;
    aip_config_evaluate(&in, &config);
    assert_int_equal(config.startup_status, ALVK_E_ALLOWLIST_MALFORMED);
    assert_int_equal(config.allocation_profiling, 0);
    assert_int_equal(aip_event_mask_for(&config).low, 0);

    const char *bad[] = {"on", "Sampled", "EXACT", "2", "sampled ", " exact", "exactly"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        in = good_inputs();
        in.allocations = bad[i];
        aip_config_evaluate(&in, &config);
        assert_int_equal(config.startup_status, ALVK_E_ALLOCATION_FLAG_MALFORMED);
        assert_int_equal(config.allocation_profiling, 0);
        assert_int_equal(aip_event_mask_for(&config).low, 0);
        assert_int_equal(aip_event_mask_for(&config).high, 0);
        assert_non_null(strstr(config.message, "exact or sampled"));
    }
}

static void allocation_sizes_are_checked_like_every_setting(void **state)
{
    (void)state;
    aip_config config;
    aip_config_inputs in = good_inputs();
    in.allocations = "1";
    aip_config_evaluate(&in, &config);
    assert_int_equal(config.allocation_type_slots, ALVK_DEFAULT_TYPE_SLOTS);
    assert_int_equal(config.allocation_sample_slots, ALVK_DEFAULT_SAMPLE_SLOTS);
    in.allocation_types = "1";
    in.allocation_samples = "262144";
    aip_config_evaluate(&in, &config);
    assert_int_equal(config.startup_status, ALVK_OK);
    assert_int_equal(config.allocation_type_slots, 1);
    assert_int_equal(config.allocation_sample_slots, ALVK_MAX_SAMPLE_SLOTS);

    static const char *const bad[] = {"abc", "0", "-1", "+5", " 5", "5 ", "12k", "1048577",
                                      "99999999999", "4294967296", "0x10"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        in = good_inputs();
        in.allocations = "1";
        in.allocation_types = bad[i];
        aip_config_evaluate(&in, &config);
        assert_int_equal(config.startup_status, ALVK_E_ALLOCATION_SIZING_MALFORMED);
        assert_true(aip_config_is_inert(config.startup_status));
        assert_int_equal(config.allocation_profiling, 0);
        assert_non_null(strstr(config.message, "ALVORKIT_INTERCEPTION_ALLOCATION_TYPES"));
        assert_int_equal(aip_event_mask_for(&config).low, 0);
    }
    in = good_inputs();
    in.allocation_samples = "262145"; /* one past its maximum; checked with allocations off too */
    aip_config_evaluate(&in, &config);
    assert_int_equal(config.startup_status, ALVK_E_ALLOCATION_SIZING_MALFORMED);
    assert_non_null(strstr(config.message, "ALVORKIT_INTERCEPTION_ALLOCATION_SAMPLES"));

    uint32_t v = 7;
    assert_int_equal(aip_slots_parse("", 3, 10, &v), ALVK_OK);
    assert_int_equal(v, 3);
    assert_int_equal(aip_slots_parse("10", 3, 10, &v), ALVK_OK);
    assert_int_equal(v, 10);
    assert_int_equal(aip_slots_parse("11", 3, 10, &v), ALVK_E_ALLOCATION_SIZING_MALFORMED);
    assert_int_equal(v, 10);
}

static void the_patch_bound_is_checked_like_every_setting(void **state)
{
    (void)state;
    aip_config config;
    aip_config_inputs in = good_inputs();
    aip_config_evaluate(&in, &config);
    assert_int_equal(config.startup_status, ALVK_OK);
    assert_int_equal(config.patch_capacity, ALVK_DEFAULT_PATCH_CAPACITY);
    in.max_patches = "";
    aip_config_evaluate(&in, &config);
    assert_int_equal(config.patch_capacity, ALVK_DEFAULT_PATCH_CAPACITY);
    static const struct {
        const char *text;
        uint32_t value;
    } good[] = {{"256", ALVK_MIN_PATCH_CAPACITY}, {"300", 300}, {"1048576", ALVK_MAX_PATCH_CAPACITY}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; ++i) {
        in.max_patches = good[i].text;
        aip_config_evaluate(&in, &config);
        assert_int_equal(config.startup_status, ALVK_OK);
        assert_int_equal(config.patch_capacity, good[i].value);
    }
    static const char *const bad[] = {"abc", "0",       "255",         "-300",       "+300", " 300",
                                      "300 ", "1k",     "1048577",     "99999999999", "0x200",
                                      "4294967552"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        in = good_inputs();
        in.allocations = "1";
        in.max_patches = bad[i];
        aip_config_evaluate(&in, &config);
        assert_int_equal(config.startup_status, ALVK_E_PATCH_CAPACITY_MALFORMED);
        assert_true(aip_config_is_inert(config.startup_status));
        assert_int_equal(config.patch_capacity, 0);
        assert_int_equal(config.allocation_profiling, 0);
        assert_non_null(strstr(config.message, "ALVORKIT_INTERCEPTION_MAX_PATCHES"));
        assert_int_equal(aip_event_mask_for(&config).low, 0);
    }
    uint32_t v = 7;
    assert_int_equal(aip_patch_capacity_parse("257", &v), ALVK_OK);
    assert_int_equal(v, 257);
    assert_int_equal(aip_patch_capacity_parse("12", &v), ALVK_E_PATCH_CAPACITY_MALFORMED);
    assert_int_equal(v, 257); /* untouched on refusal */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(good_configuration_enables_patching),
        cmocka_unit_test(allocations_add_their_bits),
        cmocka_unit_test(sampled_profiling_keeps_the_fast_allocation_path),
        cmocka_unit_test(no_modules_keeps_profiler_but_drops_rejit),
        cmocka_unit_test(missing_or_empty_modules_say_why_unless_allocations_alone),
        cmocka_unit_test(path_errors_come_first_and_make_it_inert),
        cmocka_unit_test(malformed_inputs_make_it_inert),
        cmocka_unit_test(allocation_sizes_are_checked_like_every_setting),
        cmocka_unit_test(the_patch_bound_is_checked_like_every_setting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
