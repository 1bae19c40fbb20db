/* Class references in relocation blobs (relocation_blob.h): the rule, the stand-ins, and
 * the substitution of tokens for them. */
#include "generation/relocation_blob.h"

#include "coreclr/cor_metadata_defs.h"

#include <string.h>

uint32_t aip_relocation_stand_in(uint32_t row)
{
    return mdtTypeRef | (AIP_RELOCATION_STAND_IN_FIRST_RID + row - 1u);
}

int aip_relocation_stand_in_row(uint32_t token, uint32_t *row)
{
    uint32_t rid = AIP_RID_FROM_TOKEN(token);
    if (AIP_TYPE_FROM_TOKEN(token) != mdtTypeRef || rid < AIP_RELOCATION_STAND_IN_FIRST_RID)
        return 0;
    *row = rid - AIP_RELOCATION_STAND_IN_FIRST_RID + 1u;
    return 1;
}

int aip_relocation_reference_allowed(const alvk_generation *g, uint32_t index, uint32_t row)
{
    return row >= 1 && row <= index && index < g->relocation_count &&
           g->relocations[row - 1u].kind == ALVK_RELOCATION_TYPE_REF;
}

uint64_t aip_relocation_module_id(const alvk_generation *g, uint32_t index)
{
    const alvk_relocation *r = &g->relocations[index];
    if (r->kind != ALVK_RELOCATION_ASSEMBLY_REF || r->blob_length != AIP_RELOCATION_MODULE_ID_BYTES)
        return 0;
    uint64_t id = 0;
    for (uint32_t k = AIP_RELOCATION_MODULE_ID_BYTES; k > 0; --k)
        id = (id << 8) | g->blobs[r->blob_offset + k - 1u];
    return id;
}

typedef struct resolver {
    const alvk_generation *g;
    uint32_t index;
    const alvk_relocation_result *results;
} resolver;

static alvk_status row_token(void *context, uint32_t row, uint32_t *token)
{
    const resolver *r = context;
    if (!aip_relocation_reference_allowed(r->g, r->index, row))
        return ALVK_E_RELOCATION_MALFORMED;
    *token = r->results != NULL ? r->results[row - 1u].token : aip_relocation_stand_in(row);
    return ALVK_OK;
}

alvk_status aip_relocation_blob_resolve(const alvk_generation *g, uint32_t index,
                                        const alvk_relocation_result *results, uint8_t *out,
                                        size_t capacity, size_t *out_length)
{
    if (g == NULL || out == NULL || out_length == NULL || index >= g->relocation_count)
        return ALVK_E_NULL_ARGUMENT;
    const alvk_relocation *r = &g->relocations[index];
    const uint8_t *blob = g->blobs + r->blob_offset;
    if (r->kind == ALVK_RELOCATION_TYPE_REF || r->kind == ALVK_RELOCATION_USER_STRING ||
        r->kind == ALVK_RELOCATION_ASSEMBLY_REF) {
        if (r->blob_length > capacity)
            return ALVK_E_BUFFER_TOO_SMALL;
        if (r->blob_length > 0)
            memcpy(out, blob, r->blob_length);
        *out_length = r->blob_length;
        return ALVK_OK;
    }
    resolver context = {g, index, results};
    uint32_t references = 0;
    return aip_sig_substitute(r->kind, blob, r->blob_length, row_token, &context, out, capacity,
                              out_length, &references);
}
