/* Generation validation (generation_validate.h): shape, body, code, relocations, IL map, in
 * that order, stopping at the first failure. Nothing is allocated; the instruction-start
 * bitmap (8 KiB) and the relocation scope (about 20 KiB) live on the caller's stack. */
#include "generation/generation_validate.h"

#include "coreclr/cor_metadata_defs.h"
#include "generation/relocation_validate.h"
#include "il/il_walk.h"

#include <string.h>

#define AIP_GENERATION_KNOWN_FLAGS \
    ((uint32_t)ALVK_INSTALL_INLINER_FALLBACK | (uint32_t)ALVK_INSTALL_UNVERIFIABLE)

static alvk_status check_shape(const alvk_generation *g)
{
    if (g->size < sizeof(alvk_generation))
        return ALVK_E_STRUCT_SIZE;
    if (g->owner == 0)
        return ALVK_E_INVALID_OWNER;
    if ((g->flags & ~AIP_GENERATION_KNOWN_FLAGS) != 0 || g->reserved != 0 || g->reserved1 != 0 ||
        (g->module_id == 0 && g->module_epoch != 0))
        return ALVK_E_INVALID_FLAGS;
    if (g->body == NULL || (g->blobs == NULL && g->blobs_size != 0) ||
        (g->relocations == NULL && g->relocation_count != 0) ||
        (g->il_map == NULL && g->il_map_count != 0))
        return ALVK_E_NULL_ARGUMENT;
    if (g->body_size > ALVK_MAX_GENERATION_BODY_BYTES ||
        g->blobs_size > ALVK_MAX_GENERATION_BLOB_BYTES ||
        g->relocation_count > ALVK_MAX_RELOCATIONS || g->il_map_count > ALVK_MAX_IL_MAP_ENTRIES)
        return ALVK_E_LIMIT_EXCEEDED;
    uint64_t sites = 0;
    for (uint32_t i = 0; i < g->relocation_count; ++i)
        sites += g->relocations[i].site_count;
    if (sites > ALVK_MAX_RELOCATION_SITES)
        return ALVK_E_LIMIT_EXCEEDED;
    return ALVK_OK;
}

/* The body fills body_size exactly; its locals token, if any, is a StandAloneSig. */
static alvk_status check_body(const alvk_generation *g, aip_method_body *body)
{
    alvk_status status = aip_method_body_parse(g->body, g->body_size, body, NULL, 0);
    if (status != ALVK_OK)
        return status;
    if (body->total_size != g->body_size)
        return ALVK_E_METHOD_BODY_MALFORMED;
    /* 0, a StandAloneSig, or the nil StandAloneSig as a placeholder that a
     * ALVK_RELOCATION_LOCALS_SIGNATURE relocation must fill (checked after the relocations). */
    uint32_t locals = body->local_var_sig_token;
    if (locals != 0 && AIP_TYPE_FROM_TOKEN(locals) != mdtSignature)
        return ALVK_E_METHOD_BODY_MALFORMED;
    return ALVK_OK;
}

static alvk_status check_il_map(const alvk_generation *g, uint32_t code_size,
                                uint32_t original_code_size, uint32_t *failing_index)
{
    for (uint32_t i = 0; i < g->il_map_count; ++i) {
        const alvk_il_map_entry *e = &g->il_map[i];
        int bad = e->new_offset > code_size || e->accurate > 1u ||
                  (original_code_size != AIP_ORIGINAL_SIZE_UNKNOWN &&
                   e->old_offset > original_code_size) ||
                  (i > 0 && e->old_offset <= g->il_map[i - 1].old_offset);
        if (bad) {
            *failing_index = i;
            return ALVK_E_IL_MAP_INVALID;
        }
    }
    return ALVK_OK;
}

alvk_status aip_generation_validate(const alvk_generation *g, uint32_t original_code_size,
                                    aip_generation_check *out)
{
    if (out == NULL)
        return ALVK_E_NULL_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (g == NULL)
        return ALVK_E_NULL_ARGUMENT;
    alvk_status status = check_shape(g);
    if (status != ALVK_OK)
        return status;

    aip_method_body body;
    status = check_body(g, &body);
    if (status != ALVK_OK)
        return status;

    aip_relocation_scope scope;
    memset(&scope, 0, sizeof scope);
    aip_il_starts starts;
    scope.generation = g;
    scope.code = g->body + body.code_offset;
    scope.code_size = body.code_size;
    scope.starts = &starts;
    scope.fat_header = body.is_fat;
    status = aip_il_walk(scope.code, scope.code_size, &starts, NULL, NULL);
    if (status != ALVK_OK)
        return status;

    for (uint32_t i = 0; i < g->relocation_count; ++i) {
        status = aip_generation_check_relocation(&scope, i);
        if (status != ALVK_OK) {
            out->failing_index = i;
            return status;
        }
    }

    int locals_relocated = 0;
    for (uint32_t i = 0; i < g->relocation_count; ++i)
        locals_relocated |= g->relocations[i].il_offset == ALVK_RELOCATION_LOCALS_SIGNATURE;
    if (body.local_var_sig_token == mdtSignature && !locals_relocated)
        return ALVK_E_METHOD_BODY_MALFORMED; /* a nil placeholder nobody fills */

    uint32_t failing_index = 0;
    status = check_il_map(g, body.code_size, original_code_size, &failing_index);
    if (status != ALVK_OK) {
        out->failing_index = failing_index;
        return status;
    }
    out->body = body;
    return ALVK_OK;
}
