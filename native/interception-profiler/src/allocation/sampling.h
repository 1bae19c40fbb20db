/* Allocation sampling: geometric distances between samples (each allocated byte is sampled
 * with probability 1/mean, so periodic patterns cannot bias it), drawn from a per-thread
 * xorshift generator without libm; and the preallocated sample storage, reserved with one
 * atomic add, full storage counted as drops. Pure. */
#ifndef AIP_SAMPLING_H
#define AIP_SAMPLING_H

#include "alvorkit_interception_profiler.h"

#include <stdatomic.h>
#include <stdint.h>

typedef struct aip_rng {
    uint64_t state; /* nonzero */
} aip_rng;

void aip_rng_seed(aip_rng *rng, uint64_t seed);
uint64_t aip_rng_next(aip_rng *rng);

/* Natural logarithm of x > 0, to about 1e-9 relative error, without libm. */
double aip_ln(double x);

/* Bytes until the next sample: an exponential draw with the given mean, at least 1. */
int64_t aip_sampling_distance(aip_rng *rng, uint32_t mean);

/* How many samples an allocation of `bytes` takes, given the bytes left until the next one
 * (*remaining, updated): each crossing of a sampling point counts once. */
uint32_t aip_sampling_take(aip_rng *rng, uint32_t mean, int64_t *remaining, uint64_t bytes);

/* A frame as the allocation callback records it (function and IP); the rest is filled in
 * on the worker after the window closes. */
typedef struct aip_raw_frame {
    uintptr_t function_id;
    uintptr_t ip;
    uintptr_t module_id;
    uint32_t token;
    int32_t il_offset;
} aip_raw_frame;

typedef struct aip_raw_sample {
    uintptr_t class_id;
    uint64_t weight_bytes;
    uint32_t frame_count;
    uint32_t reserved;
    uint64_t object_size; /* of the allocation that took the sample */
    aip_raw_frame frames[ALVK_MAX_SAMPLE_FRAMES];
} aip_raw_sample;

typedef struct aip_sample_store {
    uint32_t capacity;
    uint32_t limit; /* this window's max_samples */
    aip_raw_sample *samples;
    _Atomic uint32_t reserved; /* slots handed out this window (at most limit) */
    _Atomic uint64_t dropped;  /* sampling points that found the storage full */
} aip_sample_store;

int aip_sample_store_init(aip_sample_store *store, uint32_t capacity);
void aip_sample_store_free(aip_sample_store *store);
/* Empties the store for a window keeping at most `limit` samples (0: all the capacity). */
void aip_sample_store_reset(aip_sample_store *store, uint32_t limit);
/* A slot for one sample standing for `due` sampling points, or NULL when the window's
 * storage is full (the `due` samples are then counted as dropped). */
aip_raw_sample *aip_sample_store_reserve(aip_sample_store *store, uint32_t due);
/* Samples kept this window. */
uint32_t aip_sample_store_count(const aip_sample_store *store);

#endif
