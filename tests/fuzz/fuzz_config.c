/* Fuzzes aip_config_evaluate, the startup decision over the profiler's environment (read
 * elsewhere; nothing here touches the real environment). Input: byte 0 = bits 0-3 pass
 * NULL (unset) for modules, allocations, profiler path, self path; bit 4 says the
 * profiler path names this library; bits 5-6 pass NULL for the two storage sizes, bit 7 for
 * the patch bound; then those seven strings, separated by NUL bytes.
 * Checks the precedence config.h documents: path unset or empty, then a path naming
 * another file, then a malformed allocation flag, then a storage size that is not 1 to 10
 * decimal digits within its bounds (read here independently), then a patch bound that is not
 * (256..1,048,576, default 65,536), then the module list exactly as
 * aip_allowlist_parse reads it; the allocation flag as aip_allocation_flag_parse reads it,
 * forced off when inert; aip_config_is_inert agrees; the message is NUL-terminated inside
 * its buffer, empty exactly on ALVK_OK and in allocation capture alone (modules unset,
 * allocation profiling on: a mode the user chose, not a mistake worth a line). */
#include "fuzz_input.h"

#include "runtime/config.h"

static aip_config config;
static aip_allowlist expected_list;
static const aip_allowlist none;

/* The storage-size rule, read independently of config.c: unset or "" is the default; else
 * only decimal digits, at most 10 of them, value 1..maximum. */
static int bounded_ok(const char *text, uint32_t fallback, uint32_t minimum, uint32_t maximum,
                      uint32_t *value)
{
    if (text == NULL || text[0] == '\0') {
        *value = fallback;
        return 1;
    }
    size_t n = strlen(text);
    if (n > 10)
        return 0;
    unsigned long long v = 0;
    for (size_t i = 0; i < n; ++i) {
        if (text[i] < '0' || text[i] > '9')
            return 0;
        v = v * 10 + (unsigned)(text[i] - '0');
    }
    *value = (uint32_t)v;
    return v >= minimum && v <= maximum;
}

static int size_ok(const char *text, uint32_t fallback, uint32_t maximum, uint32_t *value)
{
    return bounded_ok(text, fallback, 1, maximum, value);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t control = data[0];
    char *field[7];
    size_t at = 1;
    for (int i = 0; i < 7; ++i) {
        field[i] = aip_fuzz_string(data + at, size - at);
        at += strlen(field[i]) + 1;
        if (at > size)
            at = size;
    }
    aip_config_inputs in;
    memset(&in, 0, sizeof in);
    in.modules = (control & 1) ? NULL : field[0];
    in.allocations = (control & 2) ? NULL : field[1];
    in.profiler_path = (control & 4) ? NULL : field[2];
    in.self_path = (control & 8) ? NULL : field[3];
    in.profiler_path_is_self = (control & 16) != 0;
    in.allocation_types = (control & 32) ? NULL : field[4];
    in.allocation_samples = (control & 64) ? NULL : field[5];
    in.max_patches = (control & 128) ? NULL : field[6];

    memset(&config, 0xA5, sizeof config);
    aip_config_evaluate(&in, &config);
    alvk_status status = config.startup_status;
    AIP_FUZZ_CHECK(memchr(config.message, 0, sizeof config.message) != NULL);
    int allocations_alone =
        status == ALVK_E_NO_PATCHABLE_MODULES && in.modules == NULL && config.allocation_profiling;
    AIP_FUZZ_CHECK((config.message[0] == '\0') == (status == ALVK_OK || allocations_alone));
    AIP_FUZZ_CHECK(aip_config_is_inert(status) ==
                   (status != ALVK_OK && status != ALVK_E_NO_PATCHABLE_MODULES));
    if (aip_config_is_inert(status))
        AIP_FUZZ_CHECK(config.allocation_profiling == 0);

    uint32_t flag = 0, types = 0, samples = 0, patches = 0;
    alvk_status flag_status = aip_allocation_flag_parse(in.allocations, &flag);
    if (in.profiler_path == NULL || in.profiler_path[0] == '\0') {
        AIP_FUZZ_CHECK(status == ALVK_E_PROFILER_PATH_UNSET);
    } else if (!in.profiler_path_is_self) {
        AIP_FUZZ_CHECK(status == ALVK_E_PROFILER_PATH_MISMATCH);
    } else if (flag_status != ALVK_OK) {
        AIP_FUZZ_CHECK(status == ALVK_E_ALLOCATION_FLAG_MALFORMED);
    } else if (!size_ok(in.allocation_types, ALVK_DEFAULT_TYPE_SLOTS, ALVK_MAX_TYPE_SLOTS,
                        &types) ||
               !size_ok(in.allocation_samples, ALVK_DEFAULT_SAMPLE_SLOTS, ALVK_MAX_SAMPLE_SLOTS,
                        &samples)) {
        AIP_FUZZ_CHECK(status == ALVK_E_ALLOCATION_SIZING_MALFORMED);
    } else if (!bounded_ok(in.max_patches, ALVK_DEFAULT_PATCH_CAPACITY, ALVK_MIN_PATCH_CAPACITY,
                           ALVK_MAX_PATCH_CAPACITY, &patches)) {
        AIP_FUZZ_CHECK(status == ALVK_E_PATCH_CAPACITY_MALFORMED);
        AIP_FUZZ_CHECK(config.patch_capacity == 0);
    } else {
        AIP_FUZZ_CHECK(config.allocation_type_slots == types);
        AIP_FUZZ_CHECK(config.allocation_sample_slots == samples);
        alvk_status list_status = aip_allowlist_parse(in.modules, &expected_list, NULL, 0);
        AIP_FUZZ_CHECK(status == list_status);
        AIP_FUZZ_CHECK(memcmp(&config.allowlist, &expected_list, sizeof expected_list) == 0);
        AIP_FUZZ_CHECK(config.allocation_profiling == (aip_config_is_inert(status) ? 0 : flag));
        AIP_FUZZ_CHECK(config.patch_capacity == (aip_config_is_inert(status) ? 0 : patches));
        goto done;
    }
    AIP_FUZZ_CHECK(memcmp(&config.allowlist, &none, sizeof none) == 0);
    AIP_FUZZ_CHECK(config.allocation_profiling == 0);
done:
    for (int i = 0; i < 7; ++i)
        free(field[i]);
    return 0;
}
