/* The allowlist: which assemblies may be patched (ALVORKIT_INTERCEPTION_MODULES), parsed and
 * matched without touching the runtime. Pure. */
#ifndef AIP_ALLOWLIST_H
#define AIP_ALLOWLIST_H

#include "alvorkit_interception_profiler.h"

#include <stddef.h>

#define AIP_ENV_MODULES "ALVORKIT_INTERCEPTION_MODULES"

typedef struct aip_allowlist {
    alvk_allowlist_kind kind;
    uint32_t count;
    char names[ALVK_MAX_ALLOWLIST_ENTRIES][ALVK_MAX_MODULE_NAME_LENGTH + 1];
} aip_allowlist;

/* Parses ALVORKIT_INTERCEPTION_MODULES (NULL when unset). Rules: entries are separated by
 * ';' and trimmed of spaces and tabs; one trailing ';' is allowed; '*' must stand alone;
 * a name is 1..ALVK_MAX_MODULE_NAME_LENGTH bytes of [A-Za-z0-9._-]; names are unique
 * (ASCII case-insensitive, as assembly names are); at most ALVK_MAX_ALLOWLIST_ENTRIES.
 * Returns ALVK_OK, ALVK_E_NO_PATCHABLE_MODULES (unset or blank) or ALVK_E_ALLOWLIST_MALFORMED
 * with a reason in `message`. On any failure `out` is the NONE list. */
alvk_status aip_allowlist_parse(const char *text, aip_allowlist *out, char *message,
                                size_t message_cap);

/* 1 when `assembly_name` may be patched under `list`: it is a name of the list (ASCII case
 * ignored), or a hot reload side assembly of one (the name, ALVK_RELOAD_ASSEMBLY_INFIX, then
 * 1 to 9 decimal digits not starting with 0). */
int aip_allowlist_allows(const aip_allowlist *list, const char *assembly_name);

/* Writes the normalized list ("A;B" or "*" or "") into buf. Returns ALVK_OK or
 * ALVK_E_BUFFER_TOO_SMALL (buf then holds an empty string). */
alvk_status aip_allowlist_format(const aip_allowlist *list, char *buf, size_t cap);

#endif
