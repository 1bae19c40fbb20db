/* ABI 3.8 relocation arrays in today's layout (relocation_widen.h). */
#include "generation/relocation_widen.h"

#include <stdlib.h>
#include <string.h>

alvk_status aip_relocations_widen(alvk_generation *g, alvk_relocation **owned)
{
    *owned = NULL;
    if (g->relocations == NULL || g->relocation_count == 0 ||
        g->relocation_count > ALVK_MAX_RELOCATIONS)
        return ALVK_OK;
    const unsigned char *in = (const unsigned char *)g->relocations;
    uint32_t stride = 0;
    memcpy(&stride, in, sizeof stride);
    if (stride != AIP_RELOCATION_SIZE_3_8)
        return ALVK_OK;
    alvk_relocation *wide = calloc(g->relocation_count, sizeof *wide);
    if (wide == NULL)
        return ALVK_E_INTERNAL;
    for (uint32_t i = 0; i < g->relocation_count; ++i) {
        memcpy(&wide[i], in + (size_t)i * stride, stride);
        if (wide[i].size == stride)
            wide[i].size = sizeof wide[i];
    }
    g->relocations = wide;
    *owned = wide;
    return ALVK_OK;
}
