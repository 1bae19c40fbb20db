/* Geometric sampling distances and the sample storage. */
#include "allocation/sampling.h"

#include <stdlib.h>
#include <string.h>

void aip_rng_seed(aip_rng *rng, uint64_t seed)
{
    /* splitmix64 so that nearby seeds give unrelated streams */
    uint64_t z = seed + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    rng->state = z != 0 ? z : 0x2545F4914F6CDD1Dull;
}

uint64_t aip_rng_next(aip_rng *rng)
{
    uint64_t x = rng->state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng->state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

double aip_ln(double x)
{
    /* x = m * 2^e with m in [1, 2); ln m = 2 atanh((m - 1) / (m + 1)). */
    int e = 0;
    while (x >= 2.0) {
        x *= 0.5;
        ++e;
    }
    while (x < 1.0) {
        x *= 2.0;
        --e;
    }
    double t = (x - 1.0) / (x + 1.0), t2 = t * t, term = t, sum = 0.0;
    for (int k = 1; k <= 25; k += 2) {
        sum += term / k;
        term *= t2;
    }
    return 2.0 * sum + e * 0.69314718055994530942;
}

int64_t aip_sampling_distance(aip_rng *rng, uint32_t mean)
{
    /* U in (0, 1]: never 0, so ln is finite. */
    double u = (double)((aip_rng_next(rng) >> 11) + 1) * (1.0 / 9007199254740992.0);
    double d = -aip_ln(u) * (double)mean;
    return d < 1.0 ? 1 : (int64_t)d;
}

uint32_t aip_sampling_take(aip_rng *rng, uint32_t mean, int64_t *remaining, uint64_t bytes)
{
    uint32_t taken = 0;
    if (bytes >= (uint64_t)mean * 64u) {
        /* A huge object spans many sampling points: count them in closed form (the law of
         * large numbers makes the loop's answer bytes / mean anyway), so the callback never
         * loops per point while the GC waits. */
        uint64_t points = bytes / mean;
        *remaining = aip_sampling_distance(rng, mean);
        return points > UINT32_MAX ? UINT32_MAX : (uint32_t)points;
    }
    *remaining -= (int64_t)bytes;
    while (*remaining <= 0) {
        ++taken;
        *remaining += aip_sampling_distance(rng, mean);
    }
    return taken;
}

int aip_sample_store_init(aip_sample_store *store, uint32_t capacity)
{
    memset(store, 0, sizeof *store);
    store->samples = calloc(capacity, sizeof *store->samples);
    if (store->samples == NULL)
        return -1;
    store->capacity = capacity;
    store->limit = capacity;
    return 0;
}

void aip_sample_store_free(aip_sample_store *store)
{
    free(store->samples);
    store->samples = NULL;
    store->capacity = 0;
}

void aip_sample_store_reset(aip_sample_store *store, uint32_t limit)
{
    store->limit = limit == 0 || limit > store->capacity ? store->capacity : limit;
    atomic_store(&store->reserved, 0);
    atomic_store(&store->dropped, 0);
}

aip_raw_sample *aip_sample_store_reserve(aip_sample_store *store, uint32_t due)
{
    /* A compare-and-swap loop, so the counter stops at the limit and cannot wrap. */
    uint32_t at = atomic_load_explicit(&store->reserved, memory_order_relaxed);
    do {
        if (at >= store->limit) {
            atomic_fetch_add_explicit(&store->dropped, due, memory_order_relaxed);
            return NULL;
        }
    } while (!atomic_compare_exchange_weak_explicit(&store->reserved, &at, at + 1,
                                                    memory_order_relaxed, memory_order_relaxed));
    return &store->samples[at];
}

uint32_t aip_sample_store_count(const aip_sample_store *store)
{
    uint32_t n = atomic_load(&((aip_sample_store *)store)->reserved);
    return n < store->limit ? n : store->limit;
}
