/* Fuzzes aip_config_evaluate, the startup decision over the profiler's environment (read
 * elsewhere; nothing here touches the real environment). Input: byte 0 = bits 0-3 pass
 * NULL (unset) for modules, allocations, profiler path, self path; bit 4 says the
 * profiler path names this library; then those four strings, separated by NUL bytes.
 * Checks the precedence config.h documents: path unset or empty, then a path naming
 * another file, then a malformed allocation flag, then the module list exactly as
 * aip_allowlist_parse reads it; the allocation flag as aip_allocation_flag_parse reads it,
 * forced off when inert; aip_config_is_inert agrees; the message is NUL-terminated inside
 * its buffer, empty exactly on ALVK_OK. */
#include "fuzz_input.h"

#include "runtime/config.h"

static aip_config config;
static aip_allowlist expected_list;
static const aip_allowlist none;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t control = data[0];
    char *field[4];
    size_t at = 1;
    for (int i = 0; i < 4; ++i) {
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

    memset(&config, 0xA5, sizeof config);
    aip_config_evaluate(&in, &config);
    alvk_status status = config.startup_status;
    AIP_FUZZ_CHECK(memchr(config.message, 0, sizeof config.message) != NULL);
    AIP_FUZZ_CHECK((config.message[0] == '\0') == (status == ALVK_OK));
    AIP_FUZZ_CHECK(aip_config_is_inert(status) ==
                   (status != ALVK_OK && status != ALVK_E_NO_PATCHABLE_MODULES));
    if (aip_config_is_inert(status))
        AIP_FUZZ_CHECK(config.allocation_profiling == 0);

    uint32_t flag = 0;
    alvk_status flag_status = aip_allocation_flag_parse(in.allocations, &flag);
    if (in.profiler_path == NULL || in.profiler_path[0] == '\0') {
        AIP_FUZZ_CHECK(status == ALVK_E_PROFILER_PATH_UNSET);
    } else if (!in.profiler_path_is_self) {
        AIP_FUZZ_CHECK(status == ALVK_E_PROFILER_PATH_MISMATCH);
    } else if (flag_status != ALVK_OK) {
        AIP_FUZZ_CHECK(status == ALVK_E_ALLOCATION_FLAG_MALFORMED);
    } else {
        alvk_status list_status = aip_allowlist_parse(in.modules, &expected_list, NULL, 0);
        AIP_FUZZ_CHECK(status == list_status);
        AIP_FUZZ_CHECK(memcmp(&config.allowlist, &expected_list, sizeof expected_list) == 0);
        AIP_FUZZ_CHECK(config.allocation_profiling == (aip_config_is_inert(status) ? 0 : flag));
        goto done;
    }
    AIP_FUZZ_CHECK(memcmp(&config.allowlist, &none, sizeof none) == 0);
    AIP_FUZZ_CHECK(config.allocation_profiling == 0);
done:
    for (int i = 0; i < 4; ++i)
        free(field[i]);
    return 0;
}
