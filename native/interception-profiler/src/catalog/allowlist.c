/* ALVORKIT_INTERCEPTION_MODULES parsing and matching. */
#include "catalog/allowlist.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void set_message(char *message, size_t cap, const char *format, ...)
{
    if (message == NULL || cap == 0)
        return;
    va_list args;
    va_start(args, format);
    vsnprintf(message, cap, format, args);
    va_end(args);
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static int is_name_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
}

static char ascii_lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

static int names_equal(const char *a, const char *b)
{
    for (; *a != '\0' && *b != '\0'; ++a, ++b)
        if (ascii_lower(*a) != ascii_lower(*b))
            return 0;
    return *a == *b;
}

static alvk_status malformed(aip_allowlist *out, char *message, size_t cap, const char *why,
                             uint32_t index, const char *entry, size_t entry_len)
{
    memset(out, 0, sizeof *out);
    set_message(message, cap, "%s is malformed: entry %u \"%.*s\" %s", AIP_ENV_MODULES,
                (unsigned)index + 1u, (int)(entry_len > 64 ? 64 : entry_len), entry, why);
    return ALVK_E_ALLOWLIST_MALFORMED;
}

alvk_status aip_allowlist_parse(const char *text, aip_allowlist *out, char *message,
                                size_t message_cap)
{
    memset(out, 0, sizeof *out);
    set_message(message, message_cap, "%s", "");
    const char *p = text;
    while (p != NULL && is_blank(*p))
        ++p;
    if (p == NULL || *p == '\0') {
        set_message(message, message_cap, "%s is %s: patch commands are refused", AIP_ENV_MODULES,
                    text == NULL ? "unset" : "empty");
        return ALVK_E_NO_PATCHABLE_MODULES;
    }
    aip_allowlist list;
    memset(&list, 0, sizeof list);
    list.kind = ALVK_ALLOWLIST_NAMED;
    int saw_star = 0;
    uint32_t index = 0;
    for (const char *cursor = text;; ++index) {
        const char *end = strchr(cursor, ';');
        size_t raw_len = end != NULL ? (size_t)(end - cursor) : strlen(cursor);
        const char *start = cursor;
        size_t len = raw_len;
        while (len > 0 && is_blank(*start)) {
            ++start;
            --len;
        }
        while (len > 0 && is_blank(start[len - 1]))
            --len;
        int last = end == NULL;
        if (len == 0) {
            if (last && index > 0)
                break; /* one trailing ';' */
            return malformed(out, message, message_cap, "is empty", index, start, 0);
        }
        if (len == 1 && start[0] == '*') {
            saw_star = 1;
        } else {
            if (len > ALVK_MAX_MODULE_NAME_LENGTH)
                return malformed(out, message, message_cap, "is longer than 127 bytes", index,
                                 start, len);
            for (size_t i = 0; i < len; ++i)
                if (!is_name_char(start[i]))
                    return malformed(out, message, message_cap,
                                     "has a character outside [A-Za-z0-9._-]; give assembly "
                                     "simple names, not paths",
                                     index, start, len);
            if (list.count == ALVK_MAX_ALLOWLIST_ENTRIES)
                return malformed(out, message, message_cap, "exceeds the limit of 32 names", index,
                                 start, len);
            memcpy(list.names[list.count], start, len);
            list.names[list.count][len] = '\0';
            for (uint32_t j = 0; j < list.count; ++j)
                if (names_equal(list.names[j], list.names[list.count]))
                    return malformed(out, message, message_cap, "is listed twice", index, start,
                                     len);
            ++list.count;
        }
        if (saw_star && list.count > 0)
            return malformed(out, message, message_cap, "mixes '*' with names", index, start, len);
        if (saw_star && index > 0)
            return malformed(out, message, message_cap, "repeats '*'", index, start, len);
        if (last)
            break;
        cursor = end + 1;
    }
    if (saw_star) {
        list.kind = ALVK_ALLOWLIST_ALL;
        list.count = 0;
    }
    *out = list;
    return ALVK_OK;
}

/* The length of `name` without a hot reload side assembly's suffix (".alvk-reload-" and 1 to 9
 * decimal digits, the first not 0), or 0 when it has none. */
static size_t without_reload_suffix(const char *name)
{
    static const char infix[] = ALVK_RELOAD_ASSEMBLY_INFIX;
    size_t length = strlen(name), digits = 0;
    while (digits < length && name[length - 1 - digits] >= '0' && name[length - 1 - digits] <= '9')
        ++digits;
    if (digits == 0 || digits > 9 || name[length - digits] == '0')
        return 0;
    size_t infix_length = sizeof infix - 1;
    if (length < digits + infix_length + 1)
        return 0;
    size_t base = length - digits - infix_length;
    for (size_t i = 0; i < infix_length; ++i)
        if (ascii_lower(name[base + i]) != infix[i])
            return 0;
    return base;
}

static int names_equal_n(const char *entry, const char *name, size_t name_length)
{
    size_t i = 0;
    for (; i < name_length && entry[i] != '\0'; ++i)
        if (ascii_lower(entry[i]) != ascii_lower(name[i]))
            return 0;
    return i == name_length && entry[i] == '\0';
}

int aip_allowlist_allows(const aip_allowlist *list, const char *assembly_name)
{
    if (list == NULL || assembly_name == NULL)
        return 0;
    if (list->kind == ALVK_ALLOWLIST_ALL)
        return 1;
    if (list->kind != ALVK_ALLOWLIST_NAMED)
        return 0;
    size_t base = without_reload_suffix(assembly_name);
    for (uint32_t i = 0; i < list->count; ++i)
        if (names_equal(list->names[i], assembly_name) ||
            (base > 0 && names_equal_n(list->names[i], assembly_name, base)))
            return 1;
    return 0;
}

alvk_status aip_allowlist_format(const aip_allowlist *list, char *buf, size_t cap)
{
    if (list == NULL || buf == NULL || cap == 0)
        return ALVK_E_NULL_ARGUMENT;
    buf[0] = '\0';
    if (list->kind == ALVK_ALLOWLIST_ALL) {
        if (cap < 2)
            return ALVK_E_BUFFER_TOO_SMALL;
        memcpy(buf, "*", 2);
        return ALVK_OK;
    }
    size_t used = 0;
    for (uint32_t i = 0; list->kind == ALVK_ALLOWLIST_NAMED && i < list->count; ++i) {
        size_t len = strlen(list->names[i]);
        size_t need = len + (i > 0 ? 1u : 0u);
        if (used + need + 1 > cap) {
            buf[0] = '\0';
            return ALVK_E_BUFFER_TOO_SMALL;
        }
        if (i > 0)
            buf[used++] = ';';
        memcpy(buf + used, list->names[i], len);
        used += len;
        buf[used] = '\0';
    }
    return ALVK_OK;
}
