/* Allocation accounting storage: the lock-free type table (exact and sampled parts) and the
 * sampling arithmetic. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "alvorkit_interception_profiler.h"
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

/* The slot of class_id, or -1. */
static int slot_of(uintptr_t class_id)
{
    for (uint32_t i = 0; i < table.capacity; ++i)
        if (atomic_load(&table.slots[i].class_id) == class_id)
            return (int)i;
    return -1;
}

static const aip_sampled_weight sampled_unit = {3u << AIP_ESTIMATE_FRACTION_BITS, 300,
                                                2u << AIP_ESTIMATE_VAR_FRACTION_BITS, 20000};

static void sampled_adder(void *arg)
{
    (void)arg;
    for (int i = 0; i < 50000; ++i)
        aip_type_table_add_sampled(&table, 0x40 + (uintptr_t)(i % 5) * 0x40, &sampled_unit);
}

static void concurrent_sampled_adds_sum_exactly(void **state)
{
    (void)state;
    assert_int_equal(aip_type_table_init(&table, 64), 0);
    aip_thread threads[3];
    for (int i = 0; i < 3; ++i)
        assert_int_equal(aip_thread_start(&threads[i], sampled_adder, NULL), 0);
    for (int i = 0; i < 3; ++i)
        aip_thread_join(&threads[i]);
    assert_int_equal(aip_type_table_used(&table), 5);
    for (uintptr_t c = 0; c < 5; ++c) {
        int at = slot_of(0x40 + c * 0x40);
        assert_true(at >= 0);
        aip_type_slot *slot = &table.slots[at];
        assert_int_equal(atomic_load(&slot->samples), 30000); /* 3 threads x 10000 */
        assert_true(atomic_load(&slot->objects_fx) == 90000ull << AIP_ESTIMATE_FRACTION_BITS);
        assert_true(atomic_load(&slot->est_bytes) == 9000000);
        assert_true(atomic_load(&slot->var_objects_fx) ==
                    60000ull << AIP_ESTIMATE_VAR_FRACTION_BITS);
        assert_true(atomic_load(&slot->var_bytes) == 600000000);
        assert_int_equal(atomic_load(&slot->count), 0); /* the exact part is apart */
        aip_type_estimate e;
        aip_type_table_estimate(&table, (uint32_t)at, &e);
        assert_true(e.count == 90000 && e.bytes == 9000000 && e.samples == 30000);
        assert_true(e.exact_count == 0 && e.exact_bytes == 0);
        /* sqrt(60000) = 244.9, times 1.96 = 480.1; sqrt(6e8) = 24494.9 -> 48010 */
        assert_true(e.count_low == 90000 - 480 && e.count_high == 90000 + 480);
        assert_true(e.bytes_low == 9000000 - 48010 && e.bytes_high == 9000000 + 48010);
    }
    aip_type_estimate total;
    aip_type_table_total_estimate(&table, &total);
    assert_true(total.samples == 150000 && total.count == 450000 && total.bytes == 45000000);
    assert_true(total.exact_count == 0);
    assert_int_equal(atomic_load(&table.overflow_sampled.samples), 0);
    aip_type_table_free(&table);
}

static void exact_and_sampled_parts_add_up(void **state)
{
    (void)state;
    assert_int_equal(aip_type_table_init(&table, 16), 0);
    /* Two large objects counted exactly, one sampled event of the same type. */
    aip_type_table_add(&table, 0x500, 100000);
    aip_type_table_add(&table, 0x500, 200000);
    aip_sampled_weight w;
    aip_sampled_weight_of(24, ALVK_RUNTIME_SAMPLING_MEAN_BYTES, &w);
    aip_type_table_add_sampled(&table, 0x500, &w);
    aip_type_table_add(&table, 0x600, 64); /* an exact-only type */
    aip_type_estimate e;
    aip_type_table_estimate(&table, (uint32_t)slot_of(0x500), &e);
    uint64_t objects = (w.objects_fx + (1u << (AIP_ESTIMATE_FRACTION_BITS - 1))) >>
                       AIP_ESTIMATE_FRACTION_BITS;
    assert_true(e.exact_count == 2 && e.exact_bytes == 300000 && e.samples == 1);
    assert_true(e.count == 2 + objects && e.bytes == 300000 + w.bytes);
    assert_true(e.count_low >= 2 && e.count_low < e.count && e.count_high > e.count);
    assert_true(e.bytes_low == 300000); /* one event: 1.96 sd is past the estimate */
    aip_type_table_estimate(&table, (uint32_t)slot_of(0x600), &e);
    assert_true(e.count == 1 && e.count_low == 1 && e.count_high == 1);
    assert_true(e.bytes == 64 && e.bytes_low == 64 && e.bytes_high == 64);
    assert_true(e.exact_count == 1 && e.samples == 0);
    aip_type_estimate total;
    aip_type_table_total_estimate(&table, &total);
    assert_true(total.exact_count == 3 && total.exact_bytes == 300064);
    assert_true(total.count == 3 + objects && total.bytes == 300064 + w.bytes);
    assert_true(total.samples == 1);
    aip_type_table_free(&table);
}

static void an_empty_slot_estimates_zero(void **state)
{
    (void)state;
    assert_int_equal(aip_type_table_init(&table, 16), 0);
    aip_type_table_add_sampled(&table, 0x700, &sampled_unit);
    int used = slot_of(0x700);
    aip_type_estimate e;
    for (uint32_t i = 0; i <= table.capacity; ++i) { /* the index past the end included */
        if ((int)i == used)
            continue;
        memset(&e, 0xA5, sizeof e);
        aip_type_table_estimate(&table, i, &e);
        assert_true(e.count == 0 && e.bytes == 0 && e.count_low == 0 && e.count_high == 0);
        assert_true(e.bytes_low == 0 && e.bytes_high == 0 && e.samples == 0);
        assert_true(e.exact_count == 0 && e.exact_bytes == 0);
    }
    aip_type_table_clear(&table);
    aip_type_table_total_estimate(&table, &e);
    assert_true(e.count == 0 && e.count_high == 0 && e.samples == 0 && e.bytes_high == 0);
    aip_type_table_free(&table);
}

static void a_full_table_estimates_overflow(void **state)
{
    (void)state;
    assert_int_equal(aip_type_table_init(&table, 16), 0);
    for (uintptr_t c = 1; c <= 20; ++c)
        aip_type_table_add_sampled(&table, c * 16, &sampled_unit);
    assert_int_equal(aip_type_table_used(&table), 12);
    const aip_sampled_sums *o = &table.overflow_sampled;
    assert_int_equal(atomic_load(&o->samples), 8);
    assert_true(atomic_load(&o->objects_fx) == 24ull << AIP_ESTIMATE_FRACTION_BITS);
    assert_true(atomic_load(&o->est_bytes) == 2400);
    assert_true(atomic_load(&o->var_bytes) == 160000);
    assert_int_equal(atomic_load(&table.overflow_objects), 0); /* the exact overflow is apart */
    aip_type_estimate total;
    aip_type_table_total_estimate(&table, &total);
    assert_true(total.samples == 20 && total.count == 60 && total.bytes == 6000);
    /* 20 events, fewer than AIP_POISSON_EXACT_BELOW: var = 20 * 20000 = 400000 bytes^2 gives
     * Wald 6000 -/+ 1.96 * 632.46 = [4760, 7240]; the mean weight 300 times the Poisson bounds
     * [12.2165, 30.8884] gives [3665, 9267], the wider. */
    assert_true(total.bytes_low == 3665 && total.bytes_high == 9267);
    uint64_t objects = 99, bytes = 99;
    aip_type_table_overflow_estimate(&table, &objects, &bytes);
    assert_true(objects == 24 && bytes == 2400); /* 8 events of 3 objects and 300 bytes */
    /* Exact objects of new types overflow too and add to the sampled part. */
    aip_type_table_add(&table, 0x9000, 1000);
    aip_type_table_add(&table, 0x9010, 500);
    aip_type_table_overflow_estimate(&table, &objects, &bytes);
    assert_true(objects == 26 && bytes == 3900);
    aip_type_table_free(&table);
}

static void the_overflow_estimate_rounds_like_a_slot(void **state)
{
    (void)state;
    assert_int_equal(aip_type_table_init(&table, 16), 0);
    uint64_t objects = 99, bytes = 99;
    aip_type_table_overflow_estimate(&table, &objects, &bytes);
    assert_true(objects == 0 && bytes == 0);
    aip_sampled_weight w;
    aip_sampled_weight_of(24, ALVK_RUNTIME_SAMPLING_MEAN_BYTES, &w);
    for (uintptr_t c = 1; c <= 12; ++c) /* fills the table (three quarters of 16) */
        aip_type_table_add_sampled(&table, c * 16, &w);
    aip_type_table_overflow_estimate(&table, &objects, &bytes);
    assert_true(objects == 0 && bytes == 0); /* nothing overflowed yet */
    for (uintptr_t c = 13; c <= 15; ++c)
        aip_type_table_add_sampled(&table, c * 16, &w);
    aip_type_table_add(&table, 0x9000, 100000);
    aip_type_table_overflow_estimate(&table, &objects, &bytes);
    uint64_t rounded = (3 * w.objects_fx + (1u << (AIP_ESTIMATE_FRACTION_BITS - 1))) >>
                       AIP_ESTIMATE_FRACTION_BITS;
    assert_true(objects == 1 + rounded && bytes == 100000 + 3 * w.bytes);
    /* The same three events in one slot give the same converted figure. */
    aip_type_table_clear(&table);
    for (int i = 0; i < 3; ++i)
        aip_type_table_add_sampled(&table, 0x40, &w);
    aip_type_estimate e;
    aip_type_table_estimate(&table, (uint32_t)slot_of(0x40), &e);
    assert_true(e.count == rounded && e.bytes == 3 * w.bytes);
    aip_type_table_free(&table);
}

static void sums_saturate_instead_of_wrapping(void **state)
{
    (void)state;
    assert_int_equal(aip_type_table_init(&table, 16), 0);
    const aip_sampled_weight heavy = {UINT64_MAX / 3, UINT64_MAX / 3, UINT64_MAX / 3, 1};
    for (int i = 0; i < 5; ++i)
        aip_type_table_add_sampled(&table, 0x800, &heavy);
    aip_type_estimate e;
    aip_type_table_estimate(&table, (uint32_t)slot_of(0x800), &e);
    assert_true(e.samples == 5);
    assert_true(e.count == UINT64_MAX && e.bytes == UINT64_MAX);
    assert_true(e.count_high == UINT64_MAX && e.count_low == 0); /* saturated variance */
    /* The bytes' variance (5) did not saturate, their estimate did: no narrow interval around
     * a figure that is only a bound. */
    assert_true(e.bytes_high == UINT64_MAX && e.bytes_low == 0);
    assert_true(atomic_load(&table.slots[slot_of(0x800)].var_bytes) == 5);
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
    const uint32_t mean = ALVK_RUNTIME_SAMPLING_MEAN_BYTES;
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
        cmocka_unit_test(concurrent_sampled_adds_sum_exactly),
        cmocka_unit_test(exact_and_sampled_parts_add_up),
        cmocka_unit_test(an_empty_slot_estimates_zero),
        cmocka_unit_test(a_full_table_estimates_overflow),
        cmocka_unit_test(the_overflow_estimate_rounds_like_a_slot),
        cmocka_unit_test(sums_saturate_instead_of_wrapping),
        cmocka_unit_test(ln_is_accurate),
        cmocka_unit_test(distances_have_the_requested_mean),
        cmocka_unit_test(the_store_drops_when_full),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
