/* The sampled allocation estimator's arithmetic, without libm. */
#include "allocation/sampled_estimate.h"

/* 2^64 as a double: every double at or above it does not fit a uint64_t. */
#define AIP_TWO_POW_64 18446744073709551616.0

/* ln(1 + x) for -0.5 <= x < 0, to a few ulps: 2 atanh(x / (2 + x)), |t| <= 1/3, summed until
 * the terms stop mattering. */
static double log1p_small(double x)
{
    double t = x / (2.0 + x), t2 = t * t, term = t, sum = 0.0;
    for (int k = 1; k < 200; k += 2) {
        double add = term / k;
        double next = sum + add;
        if (next == sum)
            break;
        sum = next;
        term *= t2;
    }
    return 2.0 * sum;
}

/* e^x - 1 for -1 < x < 0.35 by its Taylor series: for x < 0 the terms alternate and shrink and
 * the sum is at least |x|/2 in size, for x > 0 they are all positive; either way the result
 * keeps its relative precision (no 1 - e^x cancellation). */
static double expm1_small(double x)
{
    double term = x, sum = 0.0;
    for (int k = 2; k < 60; ++k) {
        double next = sum + term;
        if (next == sum)
            break;
        sum = next;
        term *= x / k;
    }
    return sum;
}

/* e^x for x <= -1: x = k ln 2 + r with |r| <= ln 2 / 2 (ln 2 in two parts, Cody and Waite, so
 * k ln 2 loses nothing for the k that matter), e^r = 1 + expm1(r), times 2^k. */
static double exp_negative(double x)
{
    if (x < -745.2)
        return 0.0; /* below the smallest subnormal */
    static const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    int k = (int)(x / 0.69314718055994530942 - 0.5); /* truncation: the nearest k, k < 0 */
    double r = (x - k * ln2_hi) - k * ln2_lo;
    double e = 1.0 + expm1_small(r);
    for (; k < 0; ++k)
        e *= 0.5; /* exact until the result is subnormal, where p is 1 anyway */
    return e;
}

/* p = 1 - q^s and its complement q^s, each to full relative precision. */
static void inclusion_pair(uint64_t size, uint32_t mean, double *p, double *keep)
{
    if (mean < 2)
        mean = 2;
    double y = (double)size * log1p_small(-1.0 / (double)mean); /* s ln q <= 0 */
    if (y > -1.0) {
        double m = expm1_small(y); /* q^s - 1, in (-0.64, 0] */
        *p = -m;
        *keep = 1.0 + m;
    } else {
        double e = exp_negative(y); /* q^s <= 1/e: 1 - q^s does not cancel */
        *p = 1.0 - e;
        *keep = e;
    }
}

double aip_sampled_inclusion(uint64_t size, uint32_t mean)
{
    if (size == 0)
        return 0.0;
    double p, keep;
    inclusion_pair(size, mean, &p, &keep);
    return p;
}

/* x >= 0 rounded to the nearest uint64_t, UINT64_MAX when it does not fit. */
static uint64_t round_saturating(double x)
{
    if (!(x >= 0.0))
        return 0; /* NaN or negative: cannot happen for the values here */
    double r = x + 0.5;
    if (r >= AIP_TWO_POW_64)
        return UINT64_MAX;
    return (uint64_t)r;
}

void aip_sampled_weight_of(uint64_t size, uint32_t mean, aip_sampled_weight *out)
{
    out->objects_fx = out->bytes = out->var_objects_fx = out->var_bytes = 0;
    if (size == 0)
        return;
    double p, keep;
    inclusion_pair(size, mean, &p, &keep);
    double w = 1.0 / p;        /* objects one event stands for */
    double var = keep * w * w; /* (1 - p) / p^2 */
    double s = (double)size;
    out->objects_fx = round_saturating(w * (double)(1u << AIP_ESTIMATE_FRACTION_BITS));
    out->bytes = round_saturating(s * w);
    out->var_objects_fx = round_saturating(var * (double)(1u << AIP_ESTIMATE_VAR_FRACTION_BITS));
    out->var_bytes = round_saturating(s * s * var);
}

uint64_t aip_saturating_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

uint32_t aip_isqrt64(uint64_t x)
{
    /* Bit by bit, from the highest power of four: exact, no floating point. */
    uint64_t result = 0, bit = (uint64_t)1 << 62;
    while (bit > x)
        bit >>= 2;
    while (bit != 0) {
        if (x >= result + bit) {
            x -= result + bit;
            result = (result >> 1) + bit;
        } else {
            result >>= 1;
        }
        bit >>= 2;
    }
    return (uint32_t)result;
}

void aip_sampled_interval(uint64_t estimate, uint64_t variance, uint64_t floor, uint64_t *low,
                          uint64_t *high)
{
    if (variance == UINT64_MAX) {
        *low = floor;
        *high = UINT64_MAX;
        return;
    }
    /* sqrt(v) in double: Newton's iteration from the integer root plus a half (within 0.5 of
     * it, so six steps reach full precision even for v = 1). */
    double root = 0.0;
    if (variance != 0) {
        double v = (double)variance;
        root = (double)aip_isqrt64(variance) + 0.5;
        for (int i = 0; i < 6; ++i)
            root = 0.5 * (root + v / root);
    }
    uint64_t half = round_saturating(1.96 * root);
    uint64_t down = estimate > half ? estimate - half : 0;
    *low = down > floor ? down : floor;
    *high = aip_saturating_add(estimate, half);
}

/* L(n) and U(n) for n = 1..AIP_POISSON_EXACT_BELOW - 1, printed by tools/make_poisson_bounds.py
 * (bisection on the Poisson CDF in 60-digit decimal arithmetic, no chi-square function). */
static const double poisson_bounds[AIP_POISSON_EXACT_BELOW - 1][2] = {
    {0.025317807984289876, 5.5716433909388989}, /* 1 */
    {0.2422092785439649, 7.2246876677239609},   /* 2 */
    {0.61867212289560125, 8.7672730697423269},  /* 3 */
    {1.0898653736263249, 10.241588675403698},   /* 4 */
    {1.6234863901184204, 11.668332079322669},   /* 5 */
    {2.2018942534908508, 13.059474022518685},   /* 6 */
    {2.8143630515198659, 14.42267536170238},    /* 7 */
    {3.4538321767485014, 15.763189220193315},   /* 8 */
    {4.115373097378332, 17.08480345141917},     /* 9 */
    {4.7953886961324335, 18.390356042017778},   /* 10 */
    {5.4911603672368381, 19.682038513301958},   /* 11 */
    {6.2005751087222167, 20.961585048176957},   /* 12 */
    {6.9219524910038022, 22.230395918158877},   /* 13 */
    {7.6539302763005983, 23.489621121835579},   /* 14 */
    {8.3953861327833117, 24.740218871485844},   /* 15 */
    {9.145382453641524, 25.982997597560953},    /* 16 */
    {9.9031264696072867, 27.21864681590661},    /* 17 */
    {10.667940780399526, 28.44776026752799},    /* 18 */
    {11.439241164366731, 29.670853571585599},   /* 19 */
    {12.216519585403944, 30.888377902674598},   /* 20 */
    {12.999330984076186, 32.10073073494339},    /* 21 */
    {13.787282872229611, 33.308264387125242},   /* 22 */
    {14.58002703704468, 34.511292894833041},    /* 23 */
    {15.377252854686462, 35.710097593753204},   /* 24 */
    {16.178681847829328, 36.904931697530373},   /* 25 */
    {16.98406321559634, 38.096024083125023},    /* 26 */
    {17.793170131764775, 39.283582445162097},   /* 27 */
    {18.605796655857528, 40.467795943268193},   /* 28 */
    {19.421755137547937, 41.648837438586597},   /* 29 */
};

int aip_poisson_bounds(uint64_t events, double *lower, double *upper)
{
    if (events == 0 || events >= AIP_POISSON_EXACT_BELOW)
        return 0;
    *lower = poisson_bounds[events - 1][0];
    *upper = poisson_bounds[events - 1][1];
    return 1;
}

void aip_estimate_interval(uint64_t exact, uint64_t sampled, uint64_t variance, uint64_t events,
                           uint64_t *low, uint64_t *high)
{
    uint64_t estimate = aip_saturating_add(exact, sampled);
    if (sampled == UINT64_MAX || estimate == UINT64_MAX) {
        *low = exact;
        *high = UINT64_MAX;
        return;
    }
    aip_sampled_interval(estimate, variance, exact, low, high);
    double lower, upper;
    if (!aip_poisson_bounds(events, &lower, &upper))
        return;
    double mean_weight = (double)sampled / (double)events;
    uint64_t poisson_low = aip_saturating_add(exact, round_saturating(mean_weight * lower));
    uint64_t poisson_high = aip_saturating_add(exact, round_saturating(mean_weight * upper));
    if (poisson_low < *low)
        *low = poisson_low;
    if (poisson_high > *high)
        *high = poisson_high;
}
