/* Startup configuration: the environment variables the profiler reads, parsed and checked
 * without touching the runtime, so every rule here is unit-tested on its own. */
#ifndef AIP_CONFIG_H
#define AIP_CONFIG_H

#include "alvorkit_interception_profiler.h"
#include "catalog/allowlist.h"

#include <stddef.h>

#define AIP_ENV_PROFILER_PATH "ALVORKIT_INTERCEPTION_PROFILER_PATH"
#define AIP_ENV_ALLOCATIONS "ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING"
#define AIP_ENV_ALLOCATION_TYPES "ALVORKIT_INTERCEPTION_ALLOCATION_TYPES"
#define AIP_ENV_ALLOCATION_SAMPLES "ALVORKIT_INTERCEPTION_ALLOCATION_SAMPLES"
#define AIP_ENV_MAX_PATCHES "ALVORKIT_INTERCEPTION_MAX_PATCHES"
#define AIP_PATH_CAPACITY 4096
#define AIP_MESSAGE_CAPACITY 8448 /* two full paths and a sentence */

/* Parses ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING into an alvk_allocation_profiling: unset,
 * "" or "0" is off, "1" or "exact" is exact, "sampled" is sampled, anything else is
 * ALVK_E_ALLOCATION_FLAG_MALFORMED (*profiling off). */
alvk_status aip_allocation_flag_parse(const char *text, uint32_t *profiling);

/* Parses a storage size (ALVORKIT_INTERCEPTION_ALLOCATION_TYPES, _SAMPLES): unset or "" is
 * `fallback`; otherwise 1 to 10 decimal digits whose value is 1..maximum, nothing else (no
 * sign, space or suffix). ALVK_E_ALLOCATION_SIZING_MALFORMED otherwise, *out untouched. */
alvk_status aip_slots_parse(const char *text, uint32_t fallback, uint32_t maximum, uint32_t *out);

/* Parses ALVORKIT_INTERCEPTION_MAX_PATCHES: unset or "" is ALVK_DEFAULT_PATCH_CAPACITY;
 * otherwise 1 to 10 decimal digits whose value is ALVK_MIN_PATCH_CAPACITY..
 * ALVK_MAX_PATCH_CAPACITY, nothing else. ALVK_E_PATCH_CAPACITY_MALFORMED otherwise, *out
 * untouched. */
alvk_status aip_patch_capacity_parse(const char *text, uint32_t *out);

/* The raw inputs, as read from the process. */
typedef struct aip_config_inputs {
    const char *modules;            /* NULL when unset */
    const char *allocations;        /* NULL when unset */
    const char *allocation_types;   /* NULL when unset */
    const char *allocation_samples; /* NULL when unset */
    const char *max_patches;        /* NULL when unset */
    const char *profiler_path;      /* NULL when unset */
    const char *self_path;          /* this library's resolved path, or NULL if unknown */
    int profiler_path_is_self;      /* 1 when profiler_path names the file at self_path */
} aip_config_inputs;

typedef struct aip_config {
    aip_allowlist allowlist;
    uint32_t allocation_profiling;    /* an alvk_allocation_profiling */
    uint32_t allocation_type_slots;   /* per-type count table, fixed at startup */
    uint32_t allocation_sample_slots; /* sample storage, fixed at startup */
    uint32_t patch_capacity;          /* the patch table's bound (0 when inert) */
    /* ALVK_OK, a configuration error that makes the profiler inert (path unset or
     * mismatched, malformed allowlist, malformed allocation flag or sizes, malformed patch
     * bound), or
     * ALVK_E_NO_PATCHABLE_MODULES, which only refuses patch commands. */
    alvk_status startup_status;
    char message[AIP_MESSAGE_CAPACITY]; /* why, for stderr; empty when ALVK_OK */
} aip_config;

/* 1 when `status` leaves the profiler inert: no event mask, no worker, no commands. */
int aip_config_is_inert(alvk_status startup_status);

void aip_config_evaluate(const aip_config_inputs *in, aip_config *out);

/* Reads the environment and this library's path, then evaluates. */
void aip_config_load(aip_config *out);

#endif
