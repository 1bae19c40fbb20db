/* alvk_status_string, alvk_status_name and the status list's pinned values. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "alvorkit_interception_profiler.h"

static void every_status_has_its_own_name(void **state)
{
    (void)state;
    static const struct {
        alvk_status status;
        const char *name;
    } all[] = {
#define ENTRY(name, value, description) {name, #name ": " description},
        ALVK_STATUS_LIST(ENTRY)
#undef ENTRY
    };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) {
        assert_string_equal(alvk_status_string(all[i].status), all[i].name);
        size_t name_length = strcspn(all[i].name, ":");
        assert_int_equal(strlen(alvk_status_name(all[i].status)), name_length);
        assert_memory_equal(alvk_status_name(all[i].status), all[i].name, name_length);
        for (size_t j = 0; j < i; ++j)
            assert_int_not_equal(all[i].status, all[j].status);
    }
}

static void values_are_pinned(void **state)
{
    (void)state;
    /* Changing any of these breaks every binding in the field. */
    assert_int_equal(ALVK_OK, 0);
    assert_int_equal(ALVK_E_NULL_ARGUMENT, 1);
    assert_int_equal(ALVK_E_STRUCT_SIZE, 2);
    assert_int_equal(ALVK_E_NOT_ATTACHED, 3);
    assert_int_equal(ALVK_E_BUFFER_TOO_SMALL, 4);
    assert_int_equal(ALVK_E_INTERNAL, 99);
    assert_int_equal(ALVK_E_PROFILER_PATH_UNSET, 100);
    assert_int_equal(ALVK_E_PROFILER_PATH_MISMATCH, 101);
    assert_int_equal(ALVK_E_ALLOWLIST_MALFORMED, 102);
    assert_int_equal(ALVK_E_NO_PATCHABLE_MODULES, 103);
    assert_int_equal(ALVK_E_PROFILER_INFO_UNAVAILABLE, 104);
    assert_int_equal(ALVK_E_EVENT_MASK_REFUSED, 105);
    assert_int_equal(ALVK_E_ALLOCATION_FLAG_MALFORMED, 106);
    assert_int_equal(ALVK_E_WORKER_UNAVAILABLE, 200);
    assert_int_equal(ALVK_E_QUEUE_FULL, 201);
    assert_int_equal(ALVK_E_TIMEOUT, 202);
    assert_int_equal(ALVK_E_SIGNATURE_MALFORMED, 300);
    assert_int_equal(ALVK_E_SIGNATURE_UNSUPPORTED, 301);
    assert_int_equal(ALVK_E_METHOD_BODY_MALFORMED, 302);
    assert_int_equal(ALVK_E_GENERIC_TARGET_UNSUPPORTED, 303);
    assert_int_equal(ALVK_E_LIMIT_EXCEEDED, 304);
    static const alvk_status targets[] = {
        ALVK_E_UNKNOWN_MODULE,        ALVK_E_MODULE_NOT_ALLOWED,      ALVK_E_MODULE_UNLOADED,
        ALVK_E_TOKEN_NOT_METHODDEF,   ALVK_E_TOKEN_OUT_OF_RANGE,      ALVK_E_METHOD_HAS_NO_IL,
        ALVK_E_METADATA_FAILED,       ALVK_E_CATALOG_FULL,            ALVK_E_SIGNATURE_HASH_MISMATCH,
        ALVK_E_BODY_IDENTITY_MISMATCH,
    };
    for (int i = 0; i < 10; ++i)
        assert_int_equal(targets[i], 310 + i);
    static const alvk_status patches[] = {
        ALVK_E_UNKNOWN_PATCH,    ALVK_E_NOT_OWNER,        ALVK_E_INVALID_OWNER,
        ALVK_E_INVALID_REPLACEMENT, ALVK_E_INVALID_FLAGS, ALVK_E_PATCH_TABLE_FULL,
        ALVK_E_OWNERS_FULL,      ALVK_E_PATCH_ENDED,      ALVK_E_REJIT_FAILED,
        ALVK_E_METADATA_EMIT_FAILED,
    };
    for (int i = 0; i < 10; ++i)
        assert_int_equal(patches[i], 400 + i);
    assert_int_equal(sizeof(alvk_status), 4);
}

static void unknown_values_are_named_unknown(void **state)
{
    (void)state;
    assert_non_null(strstr(alvk_status_string((alvk_status)12345), "ALVK_E_UNKNOWN_STATUS"));
    assert_non_null(strstr(alvk_status_string((alvk_status)-1), "ALVK_E_UNKNOWN_STATUS"));
    assert_string_equal(alvk_status_name((alvk_status)12345), "ALVK_E_UNKNOWN_STATUS");
    assert_string_equal(alvk_status_name((alvk_status)-1), "ALVK_E_UNKNOWN_STATUS");
}

static void version_number_matches_macros(void **state)
{
    (void)state;
    uint32_t v = alvk_version_number();
    assert_int_equal(v, ALVK_ABI_VERSION);
    assert_int_equal(ALVK_VERSION_MAJOR_OF(v), 3);
    assert_int_equal(ALVK_VERSION_MINOR_OF(v), ALVK_ABI_VERSION_MINOR);
    assert_int_equal(ALVK_VERSION_PATCH_OF(v), ALVK_ABI_VERSION_PATCH);
}

static void status_query_checks_arguments(void **state)
{
    (void)state;
    alvk_runtime_status status;
    memset(&status, 0xAB, sizeof status);
    assert_int_equal(alvk_get_runtime_status(NULL), ALVK_E_NULL_ARGUMENT);
    status.size = offsetof(alvk_runtime_status, metadata_tokens_emitted) - 1; /* below 3.0 */
    assert_int_equal(alvk_get_runtime_status(&status), ALVK_E_STRUCT_SIZE);
    assert_int_equal(status.attached, 0xABABABABu); /* nothing written on refusal */
    /* An ABI 3.0 caller's struct: filled up to its size, nothing written past it. */
    status.size = offsetof(alvk_runtime_status, metadata_tokens_emitted);
    assert_int_equal(alvk_get_runtime_status(&status), ALVK_E_NOT_ATTACHED);
    assert_int_equal(status.attached, 0u);
    assert_int_equal(status.metadata_tokens_emitted, 0xABABABABABABABABull);
    status.size = sizeof status;
    /* No CoreCLR here: this instance was never attached. */
    assert_int_equal(alvk_get_runtime_status(&status), ALVK_E_NOT_ATTACHED);
    assert_int_equal(status.attached, 0);
    assert_int_equal(status.startup_status, ALVK_E_NOT_ATTACHED);
    assert_int_equal(status.worker_alive, 0);
    assert_string_equal(status.allowlist, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_status_has_its_own_name),
        cmocka_unit_test(values_are_pinned),
        cmocka_unit_test(unknown_values_are_named_unknown),
        cmocka_unit_test(version_number_matches_macros),
        cmocka_unit_test(status_query_checks_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
