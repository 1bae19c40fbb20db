/* Fuzzes the ALVORKIT_INTERCEPTION_MODULES list (aip_allowlist_parse, _format, _allows) and
 * the allocation flag (aip_allocation_flag_parse). Input: byte 0 = message capacity (0: no
 * message buffer), then the text up to the first NUL; bytes after that NUL are a probe
 * assembly name. The harness carries its own reading of config.h's rules (split on ';',
 * trim spaces and tabs, one trailing ';', '*' alone, 1-127 bytes of [A-Za-z0-9._-],
 * unique ignoring ASCII case, at most 32) and checks: the same status and list; a refusal
 * leaves the NONE list and says why; the message always fits its buffer; format gives the
 * names joined by ';' (or "*") and needs exactly that many bytes plus the NUL; parse
 * (format (list)) is the same list; allows() holds for every name in any case and for the
 * probe exactly when it matches a name, or is a name followed by ".alvk-reload-" and 1 to 9
 * digits that do not start with 0 (a hot reload side assembly); the flag is accepted exactly for
 * "", "0" (off), "1", "exact" (exact) and "sampled" (sampled). */
#include "fuzz_input.h"

#include "runtime/config.h"

typedef struct ref_list {
    alvk_status status;
    alvk_allowlist_kind kind;
    uint32_t count;
    const char *name[ALVK_MAX_ALLOWLIST_ENTRIES];
    size_t length[ALVK_MAX_ALLOWLIST_ENTRIES];
} ref_list;

static int ref_blank(char c)
{
    return c == ' ' || c == '\t';
}

static int ref_name_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
}

static char ref_lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
}

static int ref_same(const char *a, size_t an, const char *b, size_t bn)
{
    if (an != bn)
        return 0;
    for (size_t i = 0; i < an; ++i)
        if (ref_lower(a[i]) != ref_lower(b[i]))
            return 0;
    return 1;
}

static void ref_parse(const char *text, ref_list *out)
{
    memset(out, 0, sizeof *out);
    size_t n = strlen(text);
    size_t lead = 0;
    while (lead < n && ref_blank(text[lead]))
        ++lead;
    if (lead == n) {
        out->status = ALVK_E_NO_PATCHABLE_MODULES;
        return;
    }
    /* Entries [start, end) between ';'. */
    size_t entries = 1;
    for (size_t i = 0; i < n; ++i)
        entries += text[i] == ';';
    int star = 0;
    size_t start = 0;
    out->status = ALVK_E_ALLOWLIST_MALFORMED;
    for (size_t e = 0; e < entries; ++e) {
        size_t end = start;
        while (end < n && text[end] != ';')
            ++end;
        size_t a = start, b = end;
        while (a < b && ref_blank(text[a]))
            ++a;
        while (b > a && ref_blank(text[b - 1]))
            --b;
        start = end + 1;
        if (a == b) {
            if (e == entries - 1 && e > 0)
                break; /* the one trailing ';' */
            return;
        }
        if (b - a == 1 && text[a] == '*') {
            if (e > 0)
                return;
            star = 1;
            continue;
        }
        if (star || b - a > ALVK_MAX_MODULE_NAME_LENGTH || out->count == ALVK_MAX_ALLOWLIST_ENTRIES)
            return;
        for (size_t i = a; i < b; ++i)
            if (!ref_name_char(text[i]))
                return;
        for (uint32_t j = 0; j < out->count; ++j)
            if (ref_same(out->name[j], out->length[j], text + a, b - a))
                return;
        out->name[out->count] = text + a;
        out->length[out->count++] = b - a;
    }
    out->status = ALVK_OK;
    out->kind = star ? ALVK_ALLOWLIST_ALL : ALVK_ALLOWLIST_NAMED;
}

static aip_allowlist list, reparsed;
static const aip_allowlist none;

static void check_format(const aip_allowlist *l)
{
    char expected[ALVK_MAX_ALLOWLIST_ENTRIES * (ALVK_MAX_MODULE_NAME_LENGTH + 1) + 2] = "";
    if (l->kind == ALVK_ALLOWLIST_ALL) {
        strcpy(expected, "*");
    } else {
        for (uint32_t i = 0; i < l->count; ++i) {
            if (i > 0)
                strcat(expected, ";");
            strcat(expected, l->names[i]);
        }
    }
    size_t need = strlen(expected) + 1;
    char *buf = aip_fuzz_alloc(need);
    AIP_FUZZ_CHECK(aip_allowlist_format(l, buf, need) == ALVK_OK && strcmp(buf, expected) == 0);
    if (need > 1) {
        AIP_FUZZ_CHECK(aip_allowlist_format(l, buf, need - 1) == ALVK_E_BUFFER_TOO_SMALL);
        AIP_FUZZ_CHECK(buf[0] == '\0');
    }
    if (l->kind != ALVK_ALLOWLIST_NONE) {
        AIP_FUZZ_CHECK(aip_allowlist_format(l, buf, need) == ALVK_OK);
        AIP_FUZZ_CHECK(aip_allowlist_parse(buf, &reparsed, NULL, 0) == ALVK_OK);
        AIP_FUZZ_CHECK(memcmp(&reparsed, l, sizeof reparsed) == 0);
    }
    free(buf);
}

/* The probe's length without a side assembly's suffix, or its whole length. */
static size_t ref_reload_base(const char *probe)
{
    const char *infix = ".alvk-reload-";
    size_t n = strlen(probe), infix_length = strlen(infix);
    for (size_t at = 1; at + infix_length < n; ++at) {
        if (!ref_same(probe + at, infix_length, infix, infix_length))
            continue;
        const char *digits = probe + at + infix_length;
        size_t count = strlen(digits), k = 0;
        while (k < count && digits[k] >= '0' && digits[k] <= '9')
            ++k;
        if (k == count && count >= 1 && count <= 9 && digits[0] != '0')
            return at;
    }
    return n;
}

static void check_allows(const aip_allowlist *l, const char *probe)
{
    int expected = l->kind == ALVK_ALLOWLIST_ALL;
    size_t base = ref_reload_base(probe);
    for (uint32_t i = 0; l->kind == ALVK_ALLOWLIST_NAMED && i < l->count; ++i) {
        char flipped[ALVK_MAX_MODULE_NAME_LENGTH + 1];
        size_t n = strlen(l->names[i]);
        for (size_t k = 0; k <= n; ++k) {
            char c = l->names[i][k];
            flipped[k] = c >= 'a' && c <= 'z'   ? (char)(c - 32)
                         : c >= 'A' && c <= 'Z' ? (char)(c + 32)
                                                : c;
        }
        AIP_FUZZ_CHECK(aip_allowlist_allows(l, l->names[i]) && aip_allowlist_allows(l, flipped));
        expected |=
            ref_same(l->names[i], n, probe, strlen(probe)) || ref_same(l->names[i], n, probe, base);
    }
    AIP_FUZZ_CHECK(aip_allowlist_allows(l, probe) == expected);
    AIP_FUZZ_CHECK(!aip_allowlist_allows(l, NULL));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t cap = data[0];
    char *text = aip_fuzz_string(data + 1, size - 1);
    size_t used = strlen(text) + 1;
    char *probe = aip_fuzz_string(data + 1 + (used < size - 1 ? used : size - 1),
                                  used < size - 1 ? size - 1 - used : 0);
    char *message = cap > 0 ? aip_fuzz_alloc(cap) : NULL;

    ref_list expected;
    ref_parse(text, &expected);
    alvk_status status = aip_allowlist_parse(text, &list, message, cap);
    AIP_FUZZ_CHECK(status == expected.status);
    if (message != NULL) {
        AIP_FUZZ_CHECK(memchr(message, 0, cap) != NULL);
        AIP_FUZZ_CHECK((message[0] == '\0') == (status == ALVK_OK || cap == 1));
    }
    if (status != ALVK_OK) {
        AIP_FUZZ_CHECK(memcmp(&list, &none, sizeof list) == 0);
    } else {
        AIP_FUZZ_CHECK(list.kind == expected.kind);
        AIP_FUZZ_CHECK(list.count == (expected.kind == ALVK_ALLOWLIST_ALL ? 0 : expected.count));
        for (uint32_t i = 0; i < list.count; ++i)
            AIP_FUZZ_CHECK(strlen(list.names[i]) == expected.length[i] &&
                           memcmp(list.names[i], expected.name[i], expected.length[i]) == 0);
    }
    check_format(&list);
    check_allows(&list, probe);

    uint32_t enabled = 7;
    alvk_status flag = aip_allocation_flag_parse(text, &enabled);
    int off = strcmp(text, "") == 0 || strcmp(text, "0") == 0;
    int exact = strcmp(text, "1") == 0 || strcmp(text, "exact") == 0;
    int sampled = strcmp(text, "sampled") == 0;
    AIP_FUZZ_CHECK(flag == (off || exact || sampled ? ALVK_OK : ALVK_E_ALLOCATION_FLAG_MALFORMED));
    AIP_FUZZ_CHECK(enabled == (exact     ? (uint32_t)ALVK_ALLOCATION_PROFILING_EXACT
                               : sampled ? (uint32_t)ALVK_ALLOCATION_PROFILING_SAMPLED
                                         : (uint32_t)ALVK_ALLOCATION_PROFILING_OFF));
    free(message);
    free(probe);
    free(text);
    return 0;
}
