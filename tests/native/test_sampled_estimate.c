/* The sampled allocation estimator: p(s) against libm, each event's weight against double
 * arithmetic, the interval's corner cases, and a Monte-Carlo check that the estimate through
 * the type table is unbiased and its 95% interval covers the truth about 95% of the time.
 * This test links libm as the reference; the library itself never does. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "alvorkit_interception_profiler.h"
#include "allocation/sampled_estimate.h"
#include "allocation/type_table.h"

static double reference_p(uint64_t s, uint32_t mean)
{
    return -expm1((double)s * log1p(-1.0 / (double)mean));
}

static double reference_keep(uint64_t s, uint32_t mean)
{
    return exp((double)s * log1p(-1.0 / (double)mean));
}

static double relative(double got, double want)
{
    return want == 0.0 ? fabs(got) : fabs(got - want) / fabs(want);
}

static void inclusion_matches_libm(void **state)
{
    (void)state;
    static const uint32_t means[] = {2, 3, 1000, ALVK_RUNTIME_SAMPLING_MEAN_BYTES, 1u << 20, 4294967295u};
    double worst = 0.0;
    for (size_t m = 0; m < sizeof means / sizeof means[0]; ++m) {
        uint32_t mean = means[m];
        /* Every size to 2e5 for the runtime's mean (and 2e4 for the others), then sizes of
         * every magnitude to 1e7 in steps of 997. */
        uint64_t dense = mean == ALVK_RUNTIME_SAMPLING_MEAN_BYTES ? 200000 : 20000;
        for (uint64_t s = 1; s <= 10000000; s += s < dense ? 1 : 997) {
            double e = relative(aip_sampled_inclusion(s, mean), reference_p(s, mean));
            if (e > worst)
                worst = e;
        }
    }
    assert_true(worst < 1e-12);
    /* The exact small cases: one byte is sampled with probability 1/mean, two bytes with
     * 1 - (1 - 1/m)^2 = (2m - 1)/m^2. */
    assert_true(relative(aip_sampled_inclusion(1, ALVK_RUNTIME_SAMPLING_MEAN_BYTES), 1.0 / ALVK_RUNTIME_SAMPLING_MEAN_BYTES) < 1e-15);
    assert_true(relative(aip_sampled_inclusion(2, 4), 7.0 / 16.0) < 1e-15);
    assert_true(aip_sampled_inclusion(0, ALVK_RUNTIME_SAMPLING_MEAN_BYTES) == 0.0);
    /* Huge sizes: certain, never above 1. */
    assert_true(aip_sampled_inclusion(UINT64_MAX, ALVK_RUNTIME_SAMPLING_MEAN_BYTES) == 1.0);
    assert_true(aip_sampled_inclusion(100000000000ull, 2) == 1.0);
    /* A mean below 2 is read as 2. */
    assert_true(aip_sampled_inclusion(3, 0) == aip_sampled_inclusion(3, 2));
}

static void weights_match_double_arithmetic(void **state)
{
    (void)state;
    static const uint64_t sizes[] = {1, 12, 24, 56, 1000, 4096, 50000, 84999, ALVK_RUNTIME_SAMPLING_MEAN_BYTES, 1000000};
    static const uint32_t means[] = {2, 1000, ALVK_RUNTIME_SAMPLING_MEAN_BYTES, 4000000};
    for (size_t m = 0; m < sizeof means / sizeof means[0]; ++m) {
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
            uint64_t s = sizes[i];
            uint32_t mean = means[m];
            double p = reference_p(s, mean), w = 1.0 / p;
            double var = reference_keep(s, mean) * w * w;
            aip_sampled_weight got;
            aip_sampled_weight_of(s, mean, &got);
            double want_fx = w * 65536.0, want_var_fx = var * 64.0;
            /* Rounded to nearest: within half a unit, plus the reference's own error. */
            assert_true(fabs((double)got.objects_fx - want_fx) <= 0.5 + want_fx * 1e-12);
            assert_true(fabs((double)got.bytes - (double)s * w) <= 0.5 + (double)s * w * 1e-12);
            assert_true(fabs((double)got.var_objects_fx - want_var_fx) <=
                        0.5 + want_var_fx * 1e-12);
            assert_true(fabs((double)got.var_bytes - (double)s * s * var) <=
                        0.5 + (double)s * s * var * 1e-12);
        }
    }
    /* The runtime's mean and a 24-byte object: about 4267 objects and 102412 bytes. */
    aip_sampled_weight w24;
    aip_sampled_weight_of(24, ALVK_RUNTIME_SAMPLING_MEAN_BYTES, &w24);
    assert_true(w24.objects_fx >> AIP_ESTIMATE_FRACTION_BITS == 4267);
    assert_true(w24.bytes == 102412);
    /* A size of zero weighs nothing. */
    aip_sampled_weight zero;
    aip_sampled_weight_of(0, ALVK_RUNTIME_SAMPLING_MEAN_BYTES, &zero);
    assert_true(zero.objects_fx == 0 && zero.bytes == 0 && zero.var_objects_fx == 0 &&
                zero.var_bytes == 0);
    /* Saturation: a huge mean's 1-byte object has a variance of objects past 2^64 in fixed
     * point; a size of 2^64 - 1 has s/p past 2^64. */
    aip_sampled_weight huge;
    aip_sampled_weight_of(1, 4294967295u, &huge);
    assert_true(huge.var_objects_fx == UINT64_MAX);
    assert_true(huge.objects_fx != UINT64_MAX);
    aip_sampled_weight_of(UINT64_MAX, ALVK_RUNTIME_SAMPLING_MEAN_BYTES, &huge);
    assert_true(huge.bytes == UINT64_MAX);
    assert_true(huge.objects_fx == 65536 && huge.var_objects_fx == 0 && huge.var_bytes == 0);
}

static void the_margins_hold_for_a_billion_events(void **state)
{
    (void)state;
    /* The header's margins: the heaviest event of each field for the runtime's mean and
     * objects of at least 12 bytes, times 10^9, stays below 2^64. */
    const double billion = 1e9, limit = 18446744073709551615.0;
    aip_sampled_weight w;
    aip_sampled_weight_of(1, ALVK_RUNTIME_SAMPLING_MEAN_BYTES, &w);
    assert_true((double)w.objects_fx * billion < limit);
    aip_sampled_weight_of(12, ALVK_RUNTIME_SAMPLING_MEAN_BYTES, &w);
    assert_true((double)w.var_objects_fx * billion < limit);
    for (uint64_t s = 12; s < 85000; s += 7) {
        aip_sampled_weight_of(s, ALVK_RUNTIME_SAMPLING_MEAN_BYTES, &w);
        assert_true((double)w.var_bytes * billion < limit);
        assert_true((double)w.bytes * billion < limit);
    }
}

static void isqrt_is_the_floor_root(void **state)
{
    (void)state;
    static const uint64_t fixed[] = {0, 1, 2, 3, 4, 15, 16, 17, 99, 100, 0xFFFFFFFEull,
                                     0xFFFFFFFE00000001ull, 0xFFFFFFFE00000000ull, UINT64_MAX};
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < 100000 + sizeof fixed / sizeof fixed[0]; ++i) {
        uint64_t v;
        if (i < sizeof fixed / sizeof fixed[0]) {
            v = fixed[i];
        } else {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            v = x >> (x & 63);
        }
        uint64_t r = aip_isqrt64(v);
        assert_true(r * r <= v);
        if (r < UINT32_MAX)
            assert_true((r + 1) * (r + 1) > v);
    }
    assert_true(aip_isqrt64(UINT64_MAX) == UINT32_MAX);
}

static void interval_cases(void **state)
{
    (void)state;
    uint64_t low, high;
    aip_sampled_interval(100, 0, 0, &low, &high); /* no variance: no width */
    assert_true(low == 100 && high == 100);
    aip_sampled_interval(100, 100, 0, &low, &high); /* 1.96 * 10 = 19.6 -> 20 */
    assert_true(low == 80 && high == 120);
    aip_sampled_interval(100, 1, 0, &low, &high); /* 1.96 -> 2 */
    assert_true(low == 98 && high == 102);
    aip_sampled_interval(100, 2, 0, &low, &high); /* 2.77 -> 3 */
    assert_true(low == 97 && high == 103);
    aip_sampled_interval(10, 10000, 3, &low, &high); /* 196: low clamped at the exact part */
    assert_true(low == 3 && high == 206);
    aip_sampled_interval(10, 10000, 0, &low, &high); /* never negative */
    assert_true(low == 0 && high == 206);
    aip_sampled_interval(UINT64_MAX - 5, 100, 0, &low, &high); /* high saturates */
    assert_true(low == UINT64_MAX - 25 && high == UINT64_MAX);
    aip_sampled_interval(1000, UINT64_MAX, 7, &low, &high); /* a saturated variance */
    assert_true(low == 7 && high == UINT64_MAX);
    aip_sampled_interval(5000000000ull, 1000000000000000000ull, 0, &low, &high);
    assert_true(low == 5000000000ull - 1960000000ull && high == 5000000000ull + 1960000000ull);
    /* Random variances: the half width is 1.96 sqrt(v) rounded. */
    uint64_t x = 0x2545F4914F6CDD1Dull;
    for (int i = 0; i < 100000; ++i) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint64_t v = x >> (x & 63);
        if (v == UINT64_MAX)
            continue;
        aip_sampled_interval(UINT64_MAX / 2, v, 0, &low, &high);
        double half = 1.96 * sqrt((double)v);
        assert_true(fabs((double)(high - UINT64_MAX / 2) - half) <= 0.5 + half * 1e-12);
        assert_true(high - UINT64_MAX / 2 == UINT64_MAX / 2 - low);
    }
}

/* P(X <= n) for X ~ Poisson(mean), summed term by term with libm's exp. */
static double poisson_cdf(uint64_t n, double mean)
{
    double term = exp(-mean), total = term;
    for (uint64_t k = 1; k <= n; ++k) {
        term *= mean / (double)k;
        total += term;
    }
    return total;
}

static void poisson_bounds_are_the_exact_ones(void **state)
{
    (void)state;
    double previous_lower = 0.0, previous_upper = 0.0;
    for (uint64_t n = 1; n < AIP_POISSON_EXACT_BELOW; ++n) {
        double lower = -1.0, upper = -1.0;
        assert_int_equal(aip_poisson_bounds(n, &lower, &upper), 1);
        /* L: P(X >= n | L) = 0.025; U: P(X <= n | U) = 0.025. */
        assert_true(fabs(1.0 - poisson_cdf(n - 1, lower) - 0.025) < 1e-9);
        assert_true(fabs(poisson_cdf(n, upper) - 0.025) < 1e-9);
        assert_true(lower < (double)n && (double)n < upper);
        assert_true(lower > previous_lower && upper > previous_upper);
        previous_lower = lower;
        previous_upper = upper;
    }
    /* No bounds for no events or from AIP_POISSON_EXACT_BELOW on: untouched. */
    double lower = 7.0, upper = 8.0;
    assert_int_equal(aip_poisson_bounds(0, &lower, &upper), 0);
    assert_int_equal(aip_poisson_bounds(AIP_POISSON_EXACT_BELOW, &lower, &upper), 0);
    assert_int_equal(aip_poisson_bounds(UINT64_MAX, &lower, &upper), 0);
    assert_true(lower == 7.0 && upper == 8.0);
}

static void the_interval_widens_below_thirty_events(void **state)
{
    (void)state;
    uint64_t low, high;
    /* One event of weight 1000 (variance 1e6): Wald [0, 2960]; Poisson 1000 x [0.0253, 5.5716]
     * = [25, 5572]: the wider is [0, 5572]. */
    aip_estimate_interval(0, 1000, 1000000, 1, &low, &high);
    assert_true(low == 0 && high == 5572);
    /* The exact part shifts the Poisson bounds and is the floor: Wald [7, 2967], Poisson
     * [32, 5579]. */
    aip_estimate_interval(7, 1000, 1000000, 1, &low, &high);
    assert_true(low == 7 && high == 5579);
    /* 29 events of weight 1000 each (variance 2.9e7): Wald 29000 -/+ 10555 = [18445, 39555];
     * Poisson 1000 x [19.42, 41.65] = [19422, 41649]: low from Wald, high from Poisson. */
    aip_estimate_interval(0, 29000, 29000000, 29, &low, &high);
    assert_true(low == 18445 && high == 41649);
    /* 30 events: Wald alone, 30000 -/+ 10735. */
    aip_estimate_interval(0, 30000, 30000000, 30, &low, &high);
    assert_true(low == 30000 - 10735 && high == 30000 + 10735);
    /* Wald wider on both sides (a huge variance): Wald kept. */
    aip_estimate_interval(0, 29000, 10000000000ull, 29, &low, &high);
    assert_true(low == 0 && high == 29000 + 196000);
    /* Each table entry: the Poisson bounds times the mean weight, rounded. */
    for (uint64_t n = 1; n < AIP_POISSON_EXACT_BELOW; ++n) {
        double lower, upper;
        assert_int_equal(aip_poisson_bounds(n, &lower, &upper), 1);
        uint64_t sampled = n * 4267; /* a 24-byte object's weight, variance 0 */
        aip_estimate_interval(100, sampled, 0, n, &low, &high);
        assert_true(low == 100 + (uint64_t)llround(4267.0 * lower));
        assert_true(high == 100 + (uint64_t)llround(4267.0 * upper));
    }
    /* No events: [exact, exact]. */
    aip_estimate_interval(42, 0, 0, 0, &low, &high);
    assert_true(low == 42 && high == 42);
    /* Saturated: the sampled part, the sum with the exact part, or the variance. */
    aip_estimate_interval(5, UINT64_MAX, 100, 3, &low, &high);
    assert_true(low == 5 && high == UINT64_MAX);
    aip_estimate_interval(UINT64_MAX - 10, 20, 100, 3, &low, &high);
    assert_true(low == UINT64_MAX - 10 && high == UINT64_MAX);
    aip_estimate_interval(5, 1000, UINT64_MAX, 40, &low, &high);
    assert_true(low == 5 && high == UINT64_MAX);
    /* A huge sampled part with few events: the Poisson high saturates instead of wrapping. */
    aip_estimate_interval(0, UINT64_MAX / 2, 0, 1, &low, &high);
    assert_true(high == UINT64_MAX && low > 0 && low < UINT64_MAX / 2 / 10);
}

/* ---- Monte Carlo ---- */

/* splitmix64: the test's own generator, independent of the library's. */
static uint64_t next_random(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double uniform(uint64_t *s)
{
    return (double)(next_random(s) >> 11) * (1.0 / 9007199254740992.0);
}

#define TYPES 3
#define OBJECTS_PER_TYPE_MAX 20000
#define TRIALS 2000

typedef struct population {
    uint32_t count[TYPES];
    uint64_t size[TYPES][OBJECTS_PER_TYPE_MAX];
    double p[TYPES][OBJECTS_PER_TYPE_MAX];
    aip_sampled_weight w[TYPES][OBJECTS_PER_TYPE_MAX];
    uint64_t true_count[TYPES + 1], true_bytes[TYPES + 1];
} population;

static population pop;

/* Three types of mixed sizes between 24 and 50000 bytes: 20000 objects of 24..3000 bytes (about
 * 300 expected samples), 4000 of 1000..12000 (about 250) and 10000 spread over 24..50000
 * (about 2400); the normal approximation needs a few hundred samples. Every type draws far
 * more than AIP_POISSON_EXACT_BELOW events (checked), so these checks measure the Wald interval
 * alone; few_events_are_covered measures the widening. */
static void build_population(void)
{
    uint64_t seed = 20261201;
    static const uint32_t counts[TYPES] = {20000, 4000, 10000};
    static const uint64_t lo[TYPES] = {24, 1000, 24}, hi[TYPES] = {3000, 12000, 50000};
    for (int t = 0; t <= TYPES; ++t)
        pop.true_count[t] = pop.true_bytes[t] = 0;
    for (int t = 0; t < TYPES; ++t) {
        pop.count[t] = counts[t];
        for (uint32_t i = 0; i < counts[t]; ++i) {
            uint64_t s = lo[t] + next_random(&seed) % (hi[t] - lo[t] + 1);
            s &= ~(uint64_t)7; /* object sizes are pointer-aligned */
            if (s < 24)
                s = 24;
            pop.size[t][i] = s;
            pop.p[t][i] = aip_sampled_inclusion(s, ALVK_RUNTIME_SAMPLING_MEAN_BYTES);
            aip_sampled_weight_of(s, ALVK_RUNTIME_SAMPLING_MEAN_BYTES, &pop.w[t][i]);
            pop.true_count[t] += 1;
            pop.true_bytes[t] += s;
        }
        pop.true_count[TYPES] += pop.true_count[t];
        pop.true_bytes[TYPES] += pop.true_bytes[t];
    }
}

static void the_estimate_is_unbiased_and_its_interval_covers(void **state)
{
    (void)state;
    build_population();
    aip_type_table table;
    assert_int_equal(aip_type_table_init(&table, 16), 0);
    /* Per figure (3 types and the total, count and bytes): the sum and square sum of the
     * estimates, and how often the interval held the truth. */
    double sum[TYPES + 1][2] = {{0}}, square[TYPES + 1][2] = {{0}};
    uint32_t covered[TYPES + 1][2] = {{0}};
    uint64_t seed = 42;
    for (int trial = 0; trial < TRIALS; ++trial) {
        aip_type_table_clear(&table);
        for (int t = 0; t < TYPES; ++t)
            for (uint32_t i = 0; i < pop.count[t]; ++i)
                if (uniform(&seed) < pop.p[t][i])
                    aip_type_table_add_sampled(&table, 0x1000 + (uintptr_t)t * 0x40,
                                               &pop.w[t][i]);
        aip_type_estimate e[TYPES + 1];
        for (int t = 0; t < TYPES; ++t) {
            memset(&e[t], 0, sizeof e[t]);
            for (uint32_t slot = 0; slot < table.capacity; ++slot)
                if (atomic_load(&table.slots[slot].class_id) == 0x1000 + (uintptr_t)t * 0x40)
                    aip_type_table_estimate(&table, slot, &e[t]);
            /* (a type that drew no sample has no slot: its estimate is 0 and its interval
             * [0, 0]; with hundreds of expected samples that does not happen here) */
        }
        aip_type_table_total_estimate(&table, &e[TYPES]);
        for (int t = 0; t <= TYPES; ++t) {
            assert_true(e[t].samples >= AIP_POISSON_EXACT_BELOW);
            double value[2] = {(double)e[t].count, (double)e[t].bytes};
            uint64_t truth[2] = {pop.true_count[t], pop.true_bytes[t]};
            uint64_t lo[2] = {e[t].count_low, e[t].bytes_low};
            uint64_t hi[2] = {e[t].count_high, e[t].bytes_high};
            for (int k = 0; k < 2; ++k) {
                sum[t][k] += value[k];
                square[t][k] += value[k] * value[k];
                covered[t][k] += lo[k] <= truth[k] && truth[k] <= hi[k];
            }
        }
    }
    aip_type_table_free(&table);
    for (int t = 0; t <= TYPES; ++t) {
        uint64_t truth[2] = {pop.true_count[t], pop.true_bytes[t]};
        for (int k = 0; k < 2; ++k) {
            double mean = sum[t][k] / TRIALS;
            double sd = sqrt((square[t][k] / TRIALS - mean * mean) * TRIALS / (TRIALS - 1));
            double standard_error = sd / sqrt((double)TRIALS);
            double rate = (double)covered[t][k] / TRIALS;
            print_message("type %d %s: truth %llu mean %.1f (%+.2f SE) sd %.1f coverage %.3f\n",
                          t, k == 0 ? "count" : "bytes", (unsigned long long)truth[k], mean,
                          (mean - (double)truth[k]) / standard_error, sd, rate);
            /* Unbiased: the mean of 2000 estimates within 4 standard errors of the truth. */
            assert_true(fabs(mean - (double)truth[k]) < 4.0 * standard_error);
            /* The spread is real (the check above is not vacuous). */
            assert_true(sd > 0.0);
            /* Coverage: with 2000 trials the observed rate of a 95% interval has a standard
             * deviation of sqrt(0.95 * 0.05 / 2000) = 0.49%, so 93%..97% is +/- 4 of them:
             * a correct interval passes, one 2 points too narrow or too wide fails. That holds
             * for the bytes of every type and the count of the narrow-size type 1. The count
             * of a type whose sizes span 24 bytes to kilobytes (types 0 and 2, and the total)
             * rests on its rare small objects, each standing for thousands: the estimate is
             * skewed and the normal interval covers less, 93.1%..93.4% measured over 20000
             * trials (0.15% standard deviation), so their band starts at 91% (4 standard
             * deviations of a 2000-trial rate below 93.2%). */
            int skewed = k == 0 && t != 1;
            assert_true(rate >= (skewed ? 0.91 : 0.93) && rate <= 0.97);
        }
    }
}

/* A type of one object size, expected to draw 1, 2, 5, 10 or 20 events (most types of a game
 * frame draw 1 to 5): over the trials in which it drew at least one event, the interval of its
 * count and of its bytes holds the truth at least 94% of the time. (A type that drew no event
 * has no row to put an interval on: with 1 expected event that is 37% of the trials, with 2
 * 14%, whatever the interval; counted as misses they cap coverage at 63% and 86% there.)
 * Measured with this seed: 99.9%, 99.9%, 99.5%, 98.3%, 96.8%; with the plain Wald interval
 * 99.9%, 99.9%, 87.5%, 92.7%, 95.1%, which fails at 5 and 10. 20000 trials: a rate's standard
 * deviation is at most 0.2% near 95%. */
#define FEW_TRIALS 20000

static void few_events_are_covered(void **state)
{
    (void)state;
    static const double expected[] = {1.0, 2.0, 5.0, 10.0, 20.0};
    const uint64_t size = 24;
    const uintptr_t class_id = 0x2000;
    double p = reference_p(size, ALVK_RUNTIME_SAMPLING_MEAN_BYTES), log_keep = log1p(-p);
    aip_sampled_weight w;
    aip_sampled_weight_of(size, ALVK_RUNTIME_SAMPLING_MEAN_BYTES, &w);
    aip_type_table table;
    assert_int_equal(aip_type_table_init(&table, 16), 0);
    uint64_t seed = 7;
    for (size_t x = 0; x < sizeof expected / sizeof expected[0]; ++x) {
        uint64_t objects = (uint64_t)llround(expected[x] / p);
        uint64_t truth[2] = {objects, objects * size};
        uint32_t reported = 0, covered[2] = {0, 0};
        uint64_t events_seen = 0;
        for (int trial = 0; trial < FEW_TRIALS; ++trial) {
            aip_type_table_clear(&table);
            /* Each of `objects` objects sampled with probability p: the gaps between sampled
             * objects are geometric, floor(ln u / ln(1 - p)) for u uniform in (0, 1]. */
            uint64_t events = 0;
            for (double at = floor(log(1.0 - uniform(&seed)) / log_keep); at < (double)objects;
                 at += 1.0 + floor(log(1.0 - uniform(&seed)) / log_keep)) {
                aip_type_table_add_sampled(&table, class_id, &w);
                ++events;
            }
            events_seen += events;
            if (events == 0)
                continue;
            ++reported;
            aip_type_estimate e;
            memset(&e, 0xA5, sizeof e);
            for (uint32_t slot = 0; slot < table.capacity; ++slot)
                if (atomic_load(&table.slots[slot].class_id) == class_id)
                    aip_type_table_estimate(&table, slot, &e);
            assert_true(e.samples == events);
            covered[0] += e.count_low <= truth[0] && truth[0] <= e.count_high;
            covered[1] += e.bytes_low <= truth[1] && truth[1] <= e.bytes_high;
        }
        double mean_events = (double)events_seen / FEW_TRIALS;
        print_message("%.0f expected events (%llu objects): mean %.3f events, reported %.3f, "
                      "coverage count %.4f bytes %.4f (of all trials %.4f)\n",
                      expected[x], (unsigned long long)objects, mean_events,
                      (double)reported / FEW_TRIALS, (double)covered[0] / reported,
                      (double)covered[1] / reported, (double)covered[0] / FEW_TRIALS);
        /* The simulation draws what it should (the check below is not vacuous). */
        assert_true(fabs(mean_events - expected[x]) < 5.0 * sqrt(expected[x] / FEW_TRIALS));
        assert_true((double)covered[0] / reported >= 0.94);
        assert_true((double)covered[1] / reported >= 0.94);
    }
    aip_type_table_free(&table);
}

/* Types whose sizes vary (24..3000 and 24..50000 bytes) with 5, 10 or 20 expected events: the
 * count's estimate rests on the rare small objects, each standing for thousands, so it is
 * skewed and no symmetric rule covers it fully; the header promises less there. Measured with
 * this seed over the trials with at least one event (4000 each): the count 92.0%..95.7%, the
 * bytes 96.9%..99.6%; with the plain Wald interval the count 79.9%..89.2% and the bytes
 * 87.8%..94.6%, which fails. The bands: count at least 90%, bytes at least 95% (a rate's
 * standard deviation is at most 0.45% here). */
#define MIXED_TRIALS 4000
#define MIXED_OBJECTS_MAX 2000

static void few_events_of_mixed_sizes_are_mostly_covered(void **state)
{
    (void)state;
    static const uint64_t lo[] = {24, 24}, hi[] = {3000, 50000};
    static const double expected[] = {5.0, 10.0, 20.0};
    static uint64_t size[MIXED_OBJECTS_MAX];
    static double p[MIXED_OBJECTS_MAX];
    static aip_sampled_weight w[MIXED_OBJECTS_MAX];
    const uintptr_t class_id = 0x3000;
    aip_type_table table;
    assert_int_equal(aip_type_table_init(&table, 16), 0);
    uint64_t seed = 11;
    for (size_t r = 0; r < sizeof lo / sizeof lo[0]; ++r) {
        for (size_t x = 0; x < sizeof expected / sizeof expected[0]; ++x) {
            /* Objects of random sizes until they are expected to draw `expected` events. */
            uint32_t objects = 0;
            uint64_t truth[2] = {0, 0};
            for (double sum = 0.0; sum < expected[x]; ++objects) {
                assert_true(objects < MIXED_OBJECTS_MAX);
                uint64_t s = (lo[r] + next_random(&seed) % (hi[r] - lo[r] + 1)) & ~(uint64_t)7;
                size[objects] = s < 24 ? 24 : s;
                p[objects] = reference_p(size[objects], ALVK_RUNTIME_SAMPLING_MEAN_BYTES);
                aip_sampled_weight_of(size[objects], ALVK_RUNTIME_SAMPLING_MEAN_BYTES,
                                      &w[objects]);
                sum += p[objects];
                truth[0] += 1;
                truth[1] += size[objects];
            }
            uint32_t reported = 0, covered[2] = {0, 0};
            for (int trial = 0; trial < MIXED_TRIALS; ++trial) {
                aip_type_table_clear(&table);
                uint64_t events = 0;
                for (uint32_t i = 0; i < objects; ++i)
                    if (uniform(&seed) < p[i]) {
                        aip_type_table_add_sampled(&table, class_id, &w[i]);
                        ++events;
                    }
                if (events == 0)
                    continue;
                ++reported;
                aip_type_estimate e;
                memset(&e, 0xA5, sizeof e);
                for (uint32_t slot = 0; slot < table.capacity; ++slot)
                    if (atomic_load(&table.slots[slot].class_id) == class_id)
                        aip_type_table_estimate(&table, slot, &e);
                assert_true(e.samples == events);
                covered[0] += e.count_low <= truth[0] && truth[0] <= e.count_high;
                covered[1] += e.bytes_low <= truth[1] && truth[1] <= e.bytes_high;
            }
            double count_rate = (double)covered[0] / reported;
            double bytes_rate = (double)covered[1] / reported;
            print_message("sizes %llu..%llu, %.0f expected events (%u objects): coverage count "
                          "%.4f bytes %.4f\n",
                          (unsigned long long)lo[r], (unsigned long long)hi[r], expected[x],
                          objects, count_rate, bytes_rate);
            assert_true(count_rate >= 0.90);
            assert_true(bytes_rate >= 0.95);
        }
    }
    aip_type_table_free(&table);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(inclusion_matches_libm),
        cmocka_unit_test(weights_match_double_arithmetic),
        cmocka_unit_test(the_margins_hold_for_a_billion_events),
        cmocka_unit_test(isqrt_is_the_floor_root),
        cmocka_unit_test(interval_cases),
        cmocka_unit_test(poisson_bounds_are_the_exact_ones),
        cmocka_unit_test(the_interval_widens_below_thirty_events),
        cmocka_unit_test(the_estimate_is_unbiased_and_its_interval_covers),
        cmocka_unit_test(few_events_are_covered),
        cmocka_unit_test(few_events_of_mixed_sizes_are_mostly_covered),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
