/* Startup configuration: precedence of the checks and reading them from the process. */
#include "runtime/config.h"
#include "platform/platform.h"

#include <stdio.h>
#include <string.h>

alvk_status aip_allocation_flag_parse(const char *text, uint32_t *profiling)
{
    *profiling = ALVK_ALLOCATION_PROFILING_OFF;
    if (text == NULL || text[0] == '\0' || strcmp(text, "0") == 0)
        return ALVK_OK;
    if (strcmp(text, "1") == 0 || strcmp(text, "exact") == 0) {
        *profiling = ALVK_ALLOCATION_PROFILING_EXACT;
        return ALVK_OK;
    }
    if (strcmp(text, "sampled") == 0) {
        *profiling = ALVK_ALLOCATION_PROFILING_SAMPLED;
        return ALVK_OK;
    }
    return ALVK_E_ALLOCATION_FLAG_MALFORMED;
}

int aip_config_is_inert(alvk_status startup_status)
{
    return startup_status != ALVK_OK && startup_status != ALVK_E_NO_PATCHABLE_MODULES;
}

/* A whole number of 1 to 10 digits within [minimum, maximum], or 0 (nothing else parses). */
static uint32_t bounded_number(const char *text, uint32_t minimum, uint32_t maximum)
{
    uint64_t value = 0;
    size_t digits = 0;
    for (; text[digits] != '\0'; ++digits) {
        if (digits == 10 || text[digits] < '0' || text[digits] > '9')
            return 0;
        value = value * 10u + (uint64_t)(text[digits] - '0');
    }
    return digits > 0 && value >= minimum && value <= maximum ? (uint32_t)value : 0;
}

alvk_status aip_slots_parse(const char *text, uint32_t fallback, uint32_t maximum, uint32_t *out)
{
    if (text == NULL || text[0] == '\0') {
        *out = fallback;
        return ALVK_OK;
    }
    uint32_t value = bounded_number(text, 1, maximum);
    if (value == 0)
        return ALVK_E_ALLOCATION_SIZING_MALFORMED;
    *out = value;
    return ALVK_OK;
}

alvk_status aip_patch_capacity_parse(const char *text, uint32_t *out)
{
    if (text == NULL || text[0] == '\0') {
        *out = ALVK_DEFAULT_PATCH_CAPACITY;
        return ALVK_OK;
    }
    uint32_t value = bounded_number(text, ALVK_MIN_PATCH_CAPACITY, ALVK_MAX_PATCH_CAPACITY);
    if (value == 0)
        return ALVK_E_PATCH_CAPACITY_MALFORMED;
    *out = value;
    return ALVK_OK;
}

/* Both storage sizes, or a sizing error with its message. */
static int sizes_parse(const aip_config_inputs *in, aip_config *out)
{
    static const struct {
        const char *name;
        uint32_t fallback, maximum;
    } sizes[2] = {
        {AIP_ENV_ALLOCATION_TYPES, ALVK_DEFAULT_TYPE_SLOTS, ALVK_MAX_TYPE_SLOTS},
        {AIP_ENV_ALLOCATION_SAMPLES, ALVK_DEFAULT_SAMPLE_SLOTS, ALVK_MAX_SAMPLE_SLOTS},
    };
    const char *texts[2] = {in->allocation_types, in->allocation_samples};
    uint32_t *values[2] = {&out->allocation_type_slots, &out->allocation_sample_slots};
    for (int i = 0; i < 2; ++i) {
        if (aip_slots_parse(texts[i], sizes[i].fallback, sizes[i].maximum, values[i]) != ALVK_OK) {
            out->startup_status = ALVK_E_ALLOCATION_SIZING_MALFORMED;
            snprintf(out->message, sizeof out->message,
                     "%s=\"%.64s\" must be a whole number from 1 to %u (unset: %u)", sizes[i].name,
                     texts[i], (unsigned)sizes[i].maximum, (unsigned)sizes[i].fallback);
            return 0;
        }
    }
    return 1;
}

void aip_config_evaluate(const aip_config_inputs *in, aip_config *out)
{
    memset(out, 0, sizeof *out);
    if (in->profiler_path == NULL || in->profiler_path[0] == '\0') {
        out->startup_status = ALVK_E_PROFILER_PATH_UNSET;
        snprintf(out->message, sizeof out->message,
                 "%s is not set; set it to the absolute path of this library (%s)",
                 AIP_ENV_PROFILER_PATH, in->self_path != NULL ? in->self_path : "unknown");
        return;
    }
    if (!in->profiler_path_is_self) {
        out->startup_status = ALVK_E_PROFILER_PATH_MISMATCH;
        snprintf(out->message, sizeof out->message,
                 "%s=%.4095s does not name the library CoreCLR loaded (%.4095s)",
                 AIP_ENV_PROFILER_PATH, in->profiler_path,
                 in->self_path != NULL ? in->self_path : "unknown");
        return;
    }
    alvk_status flag = aip_allocation_flag_parse(in->allocations, &out->allocation_profiling);
    if (flag != ALVK_OK) {
        out->startup_status = flag;
        snprintf(out->message, sizeof out->message,
                 "%s=\"%.64s\" must be unset, 0, 1, exact or sampled", AIP_ENV_ALLOCATIONS,
                 in->allocations);
        return;
    }
    if (!sizes_parse(in, out)) {
        out->allocation_profiling = 0;
        return;
    }
    if (aip_patch_capacity_parse(in->max_patches, &out->patch_capacity) != ALVK_OK) {
        out->allocation_profiling = 0;
        out->startup_status = ALVK_E_PATCH_CAPACITY_MALFORMED;
        snprintf(out->message, sizeof out->message,
                 "%s=\"%.64s\" must be a whole number from %u to %u (unset: %u)",
                 AIP_ENV_MAX_PATCHES, in->max_patches, (unsigned)ALVK_MIN_PATCH_CAPACITY,
                 (unsigned)ALVK_MAX_PATCH_CAPACITY, (unsigned)ALVK_DEFAULT_PATCH_CAPACITY);
        return;
    }
    out->startup_status =
        aip_allowlist_parse(in->modules, &out->allowlist, out->message, sizeof out->message);
    if (aip_config_is_inert(out->startup_status)) {
        out->allocation_profiling = 0;
        out->patch_capacity = 0;
    }
    /* Allocation capture alone (MODULES unset, allocation profiling on) is a mode the user
     * chose (alvorkit-intercept run --allocations): patch commands stay refused with
     * ALVK_E_NO_PATCHABLE_MODULES, which the status query reports, but nothing is printed on
     * every start. An empty MODULES, or neither feature, still prints why. */
    if (out->startup_status == ALVK_E_NO_PATCHABLE_MODULES && in->modules == NULL &&
        out->allocation_profiling)
        out->message[0] = '\0';
}

void aip_config_load(aip_config *out)
{
    static char modules[ALVK_ALLOWLIST_TEXT_CAPACITY * 2];
    static char allocations[64];
    static char types[64];
    static char samples[64];
    static char max_patches[64];
    static char profiler_path[AIP_PATH_CAPACITY];
    static char self_path[AIP_PATH_CAPACITY];
    aip_config_inputs in;
    memset(&in, 0, sizeof in);
    int n = aip_getenv(AIP_ENV_MODULES, modules, sizeof modules);
    /* A value too long for the buffer cannot be a valid list: report it as malformed. */
    in.modules = n >= 0 ? modules : (n == -2 ? "<longer than 8191 bytes>" : NULL);
    n = aip_getenv(AIP_ENV_ALLOCATIONS, allocations, sizeof allocations);
    in.allocations = n >= 0 ? allocations : (n == -2 ? "<too long>" : NULL);
    n = aip_getenv(AIP_ENV_ALLOCATION_TYPES, types, sizeof types);
    in.allocation_types = n >= 0 ? types : (n == -2 ? "<too long>" : NULL);
    n = aip_getenv(AIP_ENV_ALLOCATION_SAMPLES, samples, sizeof samples);
    in.allocation_samples = n >= 0 ? samples : (n == -2 ? "<too long>" : NULL);
    n = aip_getenv(AIP_ENV_MAX_PATCHES, max_patches, sizeof max_patches);
    in.max_patches = n >= 0 ? max_patches : (n == -2 ? "<too long>" : NULL);
    n = aip_getenv(AIP_ENV_PROFILER_PATH, profiler_path, sizeof profiler_path);
    in.profiler_path = n >= 0 ? profiler_path : (n == -2 ? "<too long>" : NULL);
    in.self_path = aip_self_library_path(self_path, sizeof self_path) == 0 ? self_path : NULL;
    in.profiler_path_is_self = in.profiler_path != NULL && in.self_path != NULL && n >= 0 &&
                               aip_same_file(in.profiler_path, in.self_path);
    aip_config_evaluate(&in, out);
}
