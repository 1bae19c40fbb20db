/* The Horvitz-Thompson estimate of what a window allocated, from the runtime's randomized
 * allocation sampling (dotnet/runtime docs/design/features/RandomizedAllocationSampling.md):
 * every allocated byte starts a sample with probability 1/mean, so an object of s bytes is
 * sampled with p(s) = 1 - (1 - 1/mean)^s. Each sampled object stands for 1/p objects and s/p
 * bytes, with variances (1-p)/p^2 and s^2 (1-p)/p^2. The 95% interval is the estimate
 * -/+ 1.96 sqrt(summed variance) (the normal approximation, a Wald interval), widened below
 * AIP_POISSON_EXACT_BELOW sampled events to the exact Poisson bounds on the event count times
 * the mean weight: with few events the Wald interval under-covers (about 87% at 2 to 5
 * expected events, 93% at 10), and most types of a game frame draw 1 to 5. Pure, no libm.
 *
 * Fixed point and overflow margins (mean = 102400, the runtime's, and objects of at least
 * 12 bytes, the smallest object of a 32-bit process; 24 in a 64-bit one). Per event:
 *   objects_fx     1/p < mean + 1 objects        <= 6.8e9 in 2^-16 units
 *   bytes          s/p < mean + s bytes          <= 1.9e5 for a small-heap object (< 85000 B)
 *   var_objects_fx (1-p)/p^2 < mean^2/s^2        <= 7.3e7 objects^2 = 4.7e9 in 2^-6 units
 *   var_bytes      s^2 (1-p)/p^2 < mean^2        <= 1.05e10 bytes^2
 * so 10^9 events sum to at most 6.8e18, 1.9e14, 4.7e18 and 1.05e19, each below 2^64 = 1.8e19:
 * a window of 10^9 events (10^14 sampled bytes) does not wrap. Past that (or for a larger
 * mean, or 1-byte objects) every sum saturates at UINT64_MAX instead of wrapping, and a
 * saturated variance gives the interval [floor, UINT64_MAX]. */
#ifndef AIP_SAMPLED_ESTIMATE_H
#define AIP_SAMPLED_ESTIMATE_H

#include <stdint.h>

/* objects_fx is in units of 2^-AIP_ESTIMATE_FRACTION_BITS objects. */
#define AIP_ESTIMATE_FRACTION_BITS 16u
/* var_objects_fx is in units of 2^-AIP_ESTIMATE_VAR_FRACTION_BITS objects^2 (fewer bits than
 * the estimate: a variance is never below 1.3 for a small-heap object, and the margin above
 * needs the room; with 16 bits one 24-byte object's variance, 1.8e7 objects^2, would be 1.2e12
 * units and the sum would saturate after 1.5e7 events). */
#define AIP_ESTIMATE_VAR_FRACTION_BITS 6u

/* p(s) = 1 - (1 - 1/mean)^s, accurate to ~1e-15 relative for every s >= 1 (1 - e^x is
 * computed as -expm1(x), without cancellation near 0). mean >= 2 (a smaller mean is read as 2).
 * s == 0 -> 0. */
double aip_sampled_inclusion(uint64_t size, uint32_t mean);

/* What one sampled event of an object of `size` bytes adds to its type's estimate (fixed point
 * where needed so the callback can add it with integer atomics). size == 0: all zeros. */
typedef struct aip_sampled_weight {
    uint64_t objects_fx;     /* 1/p in units of 2^-AIP_ESTIMATE_FRACTION_BITS */
    uint64_t bytes;          /* s/p, rounded (saturating) */
    uint64_t var_objects_fx; /* (1-p)/p^2 in units of 2^-AIP_ESTIMATE_VAR_FRACTION_BITS
                                (saturating) */
    uint64_t var_bytes;      /* s^2 (1-p)/p^2, rounded (saturating) */
} aip_sampled_weight;

void aip_sampled_weight_of(uint64_t size, uint32_t mean, aip_sampled_weight *out);

/* The Wald 95% interval of an estimate from its summed variance (in the estimate's units
 * squared): estimate -/+ 1.96 sqrt(var), rounded to nearest; low clamped at `floor` (the exact
 * part, never below it) and high saturating at UINT64_MAX. A saturated variance (UINT64_MAX)
 * gives [floor, UINT64_MAX]. */
void aip_sampled_interval(uint64_t estimate, uint64_t variance, uint64_t floor, uint64_t *low,
                          uint64_t *high);

/* Below this many sampled events the interval is widened to the exact Poisson bounds. */
#define AIP_POISSON_EXACT_BELOW 30u

/* The exact (Garwood) 95% bounds on a Poisson mean from `events` observed events:
 * L(n) = chi2_0.025(2n) / 2, where P(X >= n | L) = 0.025, and U(n) = chi2_0.975(2n + 2) / 2,
 * where P(X <= n | U) = 0.025. 1 with *lower and *upper set for 1 <= events <
 * AIP_POISSON_EXACT_BELOW (a table: tools/make_poisson_bounds.py), otherwise 0 and untouched. */
int aip_poisson_bounds(uint64_t events, double *lower, double *upper);

/* The 95% interval of exact + sampled, where `sampled` is the Horvitz-Thompson estimate of
 * `events` sampled events with summed variance `variance`: the Wald interval of
 * aip_sampled_interval (floor `exact`), and for 1 <= events < AIP_POISSON_EXACT_BELOW the wider
 * of it and exact + [sampled L(n)/n, sampled U(n)/n] (the Poisson bounds times the mean
 * weight sampled/n), each bound rounded to nearest. The exact part adds no width: low is never
 * below `exact`. No events: [exact, exact] (the sampled part is then 0). A saturated sampled
 * part, sum or variance (UINT64_MAX) gives [exact, UINT64_MAX]. */
void aip_estimate_interval(uint64_t exact, uint64_t sampled, uint64_t variance, uint64_t events,
                           uint64_t *low, uint64_t *high);

/* a + b, UINT64_MAX when it would wrap. */
uint64_t aip_saturating_add(uint64_t a, uint64_t b);

/* The integer square root: the largest r with r * r <= x. */
uint32_t aip_isqrt64(uint64_t x);

#endif
