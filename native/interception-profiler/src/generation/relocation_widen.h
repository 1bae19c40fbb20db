/* Relocation arrays from callers built against ABI 3.8, whose alvk_relocation ends before
 * sites_offset: read with their own stride into today's layout (no sites), so validation,
 * staging and emission see one layout. Pure. */
#ifndef AIP_RELOCATION_WIDEN_H
#define AIP_RELOCATION_WIDEN_H

#include "alvorkit_interception_profiler.h"

#include <stddef.h>

/* sizeof(alvk_relocation) in ABI 3.8. */
#define AIP_RELOCATION_SIZE_3_8 offsetof(alvk_relocation, sites_offset)

/* When g->relocations holds 1..ALVK_MAX_RELOCATIONS relocations and the first one's size is
 * AIP_RELOCATION_SIZE_3_8 (the stride of the whole array), *owned receives a heap copy in
 * today's layout (sizes set to sizeof(alvk_relocation), no sites; an element whose size
 * differs from the stride keeps it, so validation refuses that one) and g->relocations
 * points to it. Anything else is left as it is, *owned NULL, for validation to judge.
 * ALVK_E_INTERNAL when out of memory. The caller frees *owned once g is no longer read. */
alvk_status aip_relocations_widen(alvk_generation *g, alvk_relocation **owned);

#endif
