/* ALVORKIT_INTERCEPTION_MODULES and the allocation flag. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "runtime/config.h"

static alvk_status parse(const char *text, aip_allowlist *list, char *message)
{
    return aip_allowlist_parse(text, list, message, AIP_MESSAGE_CAPACITY);
}

static void named_list_is_normalized(void **state)
{
    (void)state;
    aip_allowlist list;
    char message[AIP_MESSAGE_CAPACITY];
    char text[ALVK_ALLOWLIST_TEXT_CAPACITY];
    assert_int_equal(parse(" Game.Logic ; Game-Core;My_Mod2;", &list, message), ALVK_OK);
    assert_int_equal(list.kind, ALVK_ALLOWLIST_NAMED);
    assert_int_equal(list.count, 3);
    assert_int_equal(aip_allowlist_format(&list, text, sizeof text), ALVK_OK);
    assert_string_equal(text, "Game.Logic;Game-Core;My_Mod2");
    assert_string_equal(message, "");
}

static void lookups_are_case_insensitive_and_exact(void **state)
{
    (void)state;
    aip_allowlist list;
    char message[AIP_MESSAGE_CAPACITY];
    assert_int_equal(parse("Game.Logic", &list, message), ALVK_OK);
    assert_true(aip_allowlist_allows(&list, "game.logic"));
    assert_false(aip_allowlist_allows(&list, "Game.Logic2"));
    assert_false(aip_allowlist_allows(&list, "Game"));
    assert_false(aip_allowlist_allows(&list, NULL));
}

static void reload_side_assemblies_go_with_their_assembly(void **state)
{
    (void)state;
    aip_allowlist list;
    char message[AIP_MESSAGE_CAPACITY];
    assert_int_equal(parse("Game.Logic;Mod", &list, message), ALVK_OK);
    assert_true(aip_allowlist_allows(&list, "Game.Logic.alvk-reload-1"));
    assert_true(aip_allowlist_allows(&list, "game.logic.ALVK-RELOAD-123456789"));
    assert_true(aip_allowlist_allows(&list, "Mod.alvk-reload-40"));
    assert_false(aip_allowlist_allows(&list, "Game.alvk-reload-1"));       /* not a name of the list */
    assert_false(aip_allowlist_allows(&list, "Game.Logic.alvk-reload-"));  /* no number */
    assert_false(aip_allowlist_allows(&list, "Game.Logic.alvk-reload-01")); /* a leading zero */
    assert_false(aip_allowlist_allows(&list, "Game.Logic.alvk-reload-1234567890")); /* 10 digits */
    assert_false(aip_allowlist_allows(&list, "Game.Logic.alvk-reload-1x"));
    assert_false(aip_allowlist_allows(&list, "Game.Logic.alvk-reload-1.alvk-reload-2"));
    assert_false(aip_allowlist_allows(&list, ".alvk-reload-1"));
    assert_false(aip_allowlist_allows(&list, "Game.Logicalvk-reload-1"));
}

static void star_allows_everything(void **state)
{
    (void)state;
    aip_allowlist list;
    char message[AIP_MESSAGE_CAPACITY];
    char text[8];
    assert_int_equal(parse("*", &list, message), ALVK_OK);
    assert_int_equal(list.kind, ALVK_ALLOWLIST_ALL);
    assert_int_equal(list.count, 0);
    assert_true(aip_allowlist_allows(&list, "System.Private.CoreLib"));
    assert_int_equal(aip_allowlist_format(&list, text, sizeof text), ALVK_OK);
    assert_string_equal(text, "*");
}

static void unset_and_blank_refuse_patching(void **state)
{
    (void)state;
    aip_allowlist list;
    char message[AIP_MESSAGE_CAPACITY];
    assert_int_equal(parse(NULL, &list, message), ALVK_E_NO_PATCHABLE_MODULES);
    assert_non_null(strstr(message, "unset"));
    assert_int_equal(parse("  \t", &list, message), ALVK_E_NO_PATCHABLE_MODULES);
    assert_non_null(strstr(message, "empty"));
    assert_int_equal(list.kind, ALVK_ALLOWLIST_NONE);
    assert_false(aip_allowlist_allows(&list, "Anything"));
}

static void malformed_lists_are_refused_whole(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *reason;
    } cases[] = {
        {"A;;B", "is empty"},
        {";A", "is empty"},
        {"A;B;;", "is empty"},
        {"/games/Game.dll", "character outside"},
        {"Game Logic", "character outside"},
        {"A,B", "character outside"},
        {"*;A", "mixes"},
        {"A;*", "mixes"},
        {"*;*", "repeats"},
        {"Game;game", "listed twice"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        aip_allowlist list;
        char message[AIP_MESSAGE_CAPACITY];
        assert_int_equal(parse(cases[i].text, &list, message), ALVK_E_ALLOWLIST_MALFORMED);
        assert_non_null(strstr(message, cases[i].reason));
        assert_int_equal(list.kind, ALVK_ALLOWLIST_NONE);
        assert_int_equal(list.count, 0);
    }
}

static void limits_are_enforced(void **state)
{
    (void)state;
    aip_allowlist list;
    char message[AIP_MESSAGE_CAPACITY];
    char name[ALVK_MAX_MODULE_NAME_LENGTH + 2];
    memset(name, 'a', sizeof name - 1);
    name[ALVK_MAX_MODULE_NAME_LENGTH] = '\0';
    assert_int_equal(parse(name, &list, message), ALVK_OK);
    name[ALVK_MAX_MODULE_NAME_LENGTH] = 'a';
    name[ALVK_MAX_MODULE_NAME_LENGTH + 1] = '\0';
    assert_int_equal(parse(name, &list, message), ALVK_E_ALLOWLIST_MALFORMED);

    char many[ALVK_MAX_ALLOWLIST_ENTRIES * 8 + 16] = "";
    for (int i = 0; i < ALVK_MAX_ALLOWLIST_ENTRIES; ++i)
        snprintf(many + strlen(many), sizeof many - strlen(many), "M%d;", i);
    assert_int_equal(parse(many, &list, message), ALVK_OK);
    assert_int_equal(list.count, ALVK_MAX_ALLOWLIST_ENTRIES);
    strcat(many, "Extra");
    assert_int_equal(parse(many, &list, message), ALVK_E_ALLOWLIST_MALFORMED);
    assert_non_null(strstr(message, "limit of 32"));
}

static void format_reports_small_buffers(void **state)
{
    (void)state;
    aip_allowlist list;
    char message[AIP_MESSAGE_CAPACITY];
    char text[6];
    assert_int_equal(parse("Alpha;Beta", &list, message), ALVK_OK);
    assert_int_equal(aip_allowlist_format(&list, text, sizeof text), ALVK_E_BUFFER_TOO_SMALL);
    assert_string_equal(text, "");
}

static void allocation_flag(void **state)
{
    (void)state;
    uint32_t on = 7;
    assert_int_equal(aip_allocation_flag_parse(NULL, &on), ALVK_OK);
    assert_int_equal(on, 0);
    assert_int_equal(aip_allocation_flag_parse("0", &on), ALVK_OK);
    assert_int_equal(on, 0);
    assert_int_equal(aip_allocation_flag_parse("1", &on), ALVK_OK);
    assert_int_equal(on, 1);
    assert_int_equal(aip_allocation_flag_parse("yes", &on), ALVK_E_ALLOCATION_FLAG_MALFORMED);
    assert_int_equal(on, 0);
    assert_int_equal(aip_allocation_flag_parse("10", &on), ALVK_E_ALLOCATION_FLAG_MALFORMED);
    assert_int_equal(aip_allocation_flag_parse("exact", &on), ALVK_OK);
    assert_int_equal(on, ALVK_ALLOCATION_PROFILING_EXACT);
    assert_int_equal(aip_allocation_flag_parse("sampled", &on), ALVK_OK);
    assert_int_equal(on, ALVK_ALLOCATION_PROFILING_SAMPLED);
    assert_int_equal(aip_allocation_flag_parse("", &on), ALVK_OK);
    assert_int_equal(on, 0);
    on = 7;
    assert_int_equal(aip_allocation_flag_parse("sample", &on), ALVK_E_ALLOCATION_FLAG_MALFORMED);
    assert_int_equal(on, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(named_list_is_normalized),
        cmocka_unit_test(lookups_are_case_insensitive_and_exact),
        cmocka_unit_test(reload_side_assemblies_go_with_their_assembly),
        cmocka_unit_test(star_allows_everything),
        cmocka_unit_test(unset_and_blank_refuse_patching),
        cmocka_unit_test(malformed_lists_are_refused_whole),
        cmocka_unit_test(limits_are_enforced),
        cmocka_unit_test(format_reports_small_buffers),
        cmocka_unit_test(allocation_flag),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
