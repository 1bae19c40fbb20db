/* Allocation accounting storage: the lock-free type table and the sampling arithmetic. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "allocation/sampling.h"
#include "allocation/type_table.h"
#include "platform/platform.h"

static aip_type_table table;

static void counts_are_exact_per_type(void **state)
{
    (void)state;
    assert_int_equal(aip_type_table_init(&table, 100), 0);
    assert_int_equal(table.capacity, 128);
    for (int i = 0; i < 1000; ++i)
        aip_type_table_add(&table, 0x1000 + (uintptr_t)(i % 10) * 8, 24);
    assert_int_equal(aip_type_table_used(&table), 10);
    assert_int_equal(atomic_load(&table.total_objects), 1000);
    assert_int_equal(atomic_load(&table.total_bytes), 24000);
    for (uint32_t i = 0; i < table.capacity; ++i)
        if (atomic_load(&table.slots[i].class_id) != 0)
            assert_int_equal(atomic_load(&table.slots[i].count), 100);
    aip_type_table_clear(&table);
    assert_int_equal(aip_type_table_used(&table), 0);
    assert_int_equal(atomic_load(&table.total_objects), 0);
    aip_type_table_free(&table);
}

static void a_full_table_counts_overflow(void **state)
{
    (void)state;
    assert_int_equal(aip_type_table_init(&table, 16), 0);
    for (uintptr_t c = 1; c <= 20; ++c)
        aip_type_table_add(&table, c * 16, 10);
    assert_int_equal(aip_type_table_used(&table), 12); /* three quarters of 16 */
    assert_int_equal(atomic_load(&table.overflow_objects), 8);
    assert_int_equal(atomic_load(&table.overflow_bytes), 80);
    assert_int_equal(atomic_load(&table.total_objects), 20);
    aip_type_table_free(&table);
}

static void adder(void *arg)
{
    (void)arg;
    for (int i = 0; i < 100000; ++i)
        aip_type_table_add(&table, 0x40 + (uintptr_t)(i % 7) * 0x40, 1);
}

static void concurrent_adds_lose_nothing(void **state)
{
    (void)state;
    assert_int_equal(aip_type_table_init(&table, 64), 0);
    aip_thread threads[4];
    for (int i = 0; i < 4; ++i)
        assert_int_equal(aip_thread_start(&threads[i], adder, NULL), 0);
    for (int i = 0; i < 4; ++i)
        aip_thread_join(&threads[i]);
    uint64_t sum = 0;
    for (uint32_t i = 0; i < table.capacity; ++i)
        sum += atomic_load(&table.slots[i].count);
    assert_int_equal(aip_type_table_used(&table), 7);
    assert_int_equal(sum, 400000);
    assert_int_equal(atomic_load(&table.overflow_objects), 0);
    aip_type_table_free(&table);
}

static void ln_is_accurate(void **state)
{
    (void)state;
    static const struct { double x, ln; } cases[] = {
        {1.0, 0.0}, {2.718281828459045, 1.0}, {0.5, -0.6931471805599453},
        {1e-12, -27.631021115928547}, {123456.0, 11.723640096265401}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        double d = aip_ln(cases[i].x) - cases[i].ln;
        assert_true(d < 1e-9 && d > -1e-9);
    }
}

static void distances_have_the_requested_mean(void **state)
{
    (void)state;
    aip_rng rng;
    aip_rng_seed(&rng, 42);
    const uint32_t mean = 102400;
    double sum = 0;
    const int n = 200000;
    for (int i = 0; i < n; ++i)
        sum += (double)aip_sampling_distance(&rng, mean);
    double ratio = sum / n / mean;
    assert_true(ratio > 0.98 && ratio < 1.02);
    /* Samples taken per byte converge on 1/mean, whatever the allocation size. */
    int64_t remaining = aip_sampling_distance(&rng, 1000);
    uint64_t taken = 0;
    for (int i = 0; i < 1000000; ++i)
        taken += aip_sampling_take(&rng, 1000, &remaining, 24);
    assert_true(taken > 23500 && taken < 24500); /* 24,000,000 bytes / 1000 */
    remaining = 10;
    assert_true(aip_sampling_take(&rng, 1000, &remaining, 50000) >= 30); /* a huge object */
}

static void the_store_drops_when_full(void **state)
{
    (void)state;
    aip_sample_store store;
    assert_int_equal(aip_sample_store_init(&store, 8), 0);
    aip_sample_store_reset(&store, 3);
    for (int i = 0; i < 3; ++i)
        assert_non_null(aip_sample_store_reserve(&store, 1));
    assert_null(aip_sample_store_reserve(&store, 1));
    assert_null(aip_sample_store_reserve(&store, 4)); /* one allocation due four samples */
    assert_int_equal(aip_sample_store_count(&store), 3);
    assert_int_equal(atomic_load(&store.dropped), 5);
    assert_int_equal(atomic_load(&store.reserved), 3); /* stops at the limit: cannot wrap */
    aip_sample_store_reset(&store, 0);
    assert_int_equal(store.limit, 8);
    assert_int_equal(aip_sample_store_count(&store), 0);
    aip_sample_store_free(&store);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counts_are_exact_per_type),
        cmocka_unit_test(a_full_table_counts_overflow),
        cmocka_unit_test(concurrent_adds_lose_nothing),
        cmocka_unit_test(ln_is_accurate),
        cmocka_unit_test(distances_have_the_requested_mean),
        cmocka_unit_test(the_store_drops_when_full),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
