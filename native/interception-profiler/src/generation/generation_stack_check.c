/* A generation's stack-type check: the relocation-aware oracle over a module oracle. */
#include "generation/generation_stack_check.h"

#include "coreclr/cor_metadata_defs.h"
#include "generation/relocation_blob.h"
#include "generation/relocation_sites.h"

#include <stdlib.h>
#include <string.h>

typedef struct layered {
    const alvk_generation *g;
    const aip_stack_oracle *module;
    /* Each relocation's blob as the checks read it: class references (ABI 3.3) replaced by
     * stand-in tokens, which this oracle answers from the TYPE_REF relocations they name. */
    const uint8_t **blob; /* relocation_count of each, on the heap */
    uint32_t *blob_length;
    aip_site_map sites; /* which relocation fills an operand */
} layered;

/* Fills l->blob: the blob itself when it has no class references (or cannot be resolved,
 * which validation rules out), else its resolved copy in *arena (the caller frees it). */
static void resolve_blobs(layered *l, uint8_t **arena)
{
    const alvk_generation *g = l->g;
    size_t need = 0;
    for (uint32_t i = 0; i < g->relocation_count; ++i) {
        l->blob[i] = g->blobs + g->relocations[i].blob_offset;
        l->blob_length[i] = g->relocations[i].blob_length;
        need += AIP_SIG_SUBSTITUTED_MAX((size_t)g->relocations[i].blob_length);
    }
    *arena = need > 0 ? malloc(need) : NULL;
    if (*arena == NULL)
        return; /* the blobs as they are: their references leave what they touch unknown */
    size_t used = 0;
    for (uint32_t i = 0; i < g->relocation_count; ++i) {
        size_t length = 0;
        if (aip_relocation_blob_resolve(g, i, NULL, *arena + used, need - used, &length) ==
            ALVK_OK) {
            l->blob[i] = *arena + used;
            l->blob_length[i] = (uint32_t)length;
            used += length;
        }
    }
}

alvk_stack_type aip_stack_type_of_type_spec(const uint8_t *spec, uint32_t length)
{
    if (spec == NULL || length == 0)
        return ALVK_STACK_NOTHING;
    switch (spec[0]) {
    case ELEMENT_TYPE_GENERICINST:
        if (length < 2)
            return ALVK_STACK_NOTHING;
        return spec[1] == ELEMENT_TYPE_CLASS       ? ALVK_STACK_OBJECT
               : spec[1] == ELEMENT_TYPE_VALUETYPE ? ALVK_STACK_VALUE_TYPE
                                                   : ALVK_STACK_NOTHING;
    case ELEMENT_TYPE_SZARRAY:
    case ELEMENT_TYPE_ARRAY:
    case ELEMENT_TYPE_STRING:
    case ELEMENT_TYPE_OBJECT:
        return ALVK_STACK_OBJECT;
    default:
        return ALVK_STACK_NOTHING;
    }
}

/* The relocation that fills operand_offset (its il_offset or one of its sites), or NULL. */
static const alvk_relocation *relocation_at(const layered *l, uint32_t operand_offset)
{
    uint32_t i = aip_site_map_find(&l->sites, l->g, operand_offset);
    return i != UINT32_MAX ? &l->g->relocations[i] : NULL;
}

/* A relocation's blob as the checks read it. */
static const uint8_t *blob_of(const layered *l, const alvk_relocation *r, uint32_t *length)
{
    uint32_t i = (uint32_t)(r - l->g->relocations);
    *length = l->blob_length[i];
    return l->blob[i];
}

/* A relocated TypeRef: only the primitive and special types of System are known by name. */
static alvk_stack_type type_ref_stack(const alvk_generation *g, const alvk_relocation *r)
{
    return aip_stack_type_of_system_name((const char *)g->blobs + r->name_offset, r->name_length);
}

/* The TYPE_REF relocation stand-in `row` names, or NULL. */
static const alvk_relocation *stand_in_of(const layered *l, uint32_t row)
{
    if (row > l->g->relocation_count ||
        l->g->relocations[row - 1u].kind != ALVK_RELOCATION_TYPE_REF)
        return NULL;
    return &l->g->relocations[row - 1u];
}

static int module_member(const layered *l, uint32_t token, aip_stack_member *out)
{
    return l->module != NULL && l->module->member != NULL &&
           l->module->member(l->module->context, token, ALVK_RELOCATION_NO_OPERAND, out);
}

/* A type token of the module, or a stand-in for a relocated TypeRef (never the module's). */
static int module_type(const layered *l, uint32_t token, aip_stack_type_answer *out)
{
    uint32_t row = 0;
    if (aip_relocation_stand_in_row(token, &row)) {
        const alvk_relocation *named = stand_in_of(l, row);
        out->stack = named != NULL ? type_ref_stack(l->g, named) : ALVK_STACK_NOTHING;
        return out->stack != ALVK_STACK_NOTHING;
    }
    return l->module != NULL && l->module->type != NULL &&
           l->module->type(l->module->context, token, ALVK_RELOCATION_NO_OPERAND, out);
}

/* The declaring type of a MemberRef relocation, from its parent. */
static void describe_owner(const layered *l, const alvk_relocation *r, aip_stack_member *out)
{
    const alvk_generation *g = l->g;
    if (r->parent_relocation != 0) {
        const alvk_relocation *p = &g->relocations[r->parent_relocation - 1u];
        if (p->kind == ALVK_RELOCATION_TYPE_SPEC) {
            uint32_t length = 0;
            out->owner_instantiation = blob_of(l, p, &length);
            out->owner_instantiation_length = length;
            out->owner = aip_stack_type_of_type_spec(out->owner_instantiation, length);
        } else if (p->kind == ALVK_RELOCATION_TYPE_REF) {
            out->owner = type_ref_stack(g, p);
        }
        return;
    }
    uint32_t parent = r->parent_token;
    aip_stack_type_answer answer;
    aip_stack_member method;
    switch (AIP_TYPE_FROM_TOKEN(parent)) {
    case mdtTypeDef:
    case mdtTypeRef:
    case mdtTypeSpec:
        memset(&answer, 0, sizeof answer);
        if (!module_type(l, parent, &answer))
            return;
        if (answer.spec != NULL) {
            out->owner_instantiation = answer.spec;
            out->owner_instantiation_length = answer.spec_length;
            out->owner = aip_stack_type_of_type_spec(answer.spec, answer.spec_length);
        } else {
            out->owner = answer.stack;
            out->owner_token = AIP_TYPE_FROM_TOKEN(parent) == mdtTypeDef ? parent : 0;
        }
        return;
    case mdtMethodDef: /* a vararg call site of a MethodDef */
        memset(&method, 0, sizeof method);
        if (module_member(l, parent, &method)) {
            out->owner = method.owner;
            out->owner_token = method.owner_token;
        }
        return;
    default:
        return;
    }
}

static int relocated_member(const layered *l, const alvk_relocation *r, aip_stack_member *out)
{
    const alvk_generation *g = l->g;
    uint32_t length = 0;
    const uint8_t *blob = blob_of(l, r, &length);
    switch (r->kind) {
    case ALVK_RELOCATION_STANDALONE_SIG:
        out->signature = blob;
        out->signature_length = length;
        return 1;
    case ALVK_RELOCATION_MEMBER_REF:
        out->signature = blob;
        out->signature_length = length;
        describe_owner(l, r, out);
        return 1;
    case ALVK_RELOCATION_METHOD_SPEC: {
        aip_stack_member parent;
        memset(&parent, 0, sizeof parent);
        if (r->parent_relocation != 0) {
            const alvk_relocation *p = &g->relocations[r->parent_relocation - 1u];
            if (p->kind != ALVK_RELOCATION_MEMBER_REF || !relocated_member(l, p, &parent))
                return 0;
        } else if (!module_member(l, r->parent_token, &parent)) {
            return 0;
        }
        *out = parent;
        out->method_instantiation = blob;
        out->method_instantiation_length = length;
        return 1;
    }
    default:
        return 0;
    }
}

static int member(void *context, uint32_t token, uint32_t operand_offset, aip_stack_member *out)
{
    const layered *l = context;
    const alvk_relocation *r = relocation_at(l, operand_offset);
    if (r != NULL)
        return relocated_member(l, r, out);
    if (operand_offset == ALVK_RELOCATION_LOCALS_SIGNATURE && token == mdtSignature)
        return 0; /* a placeholder nobody fills: validation refuses it */
    return module_member(l, token, out);
}

static int type(void *context, uint32_t token, uint32_t operand_offset, aip_stack_type_answer *out)
{
    const layered *l = context;
    const alvk_relocation *r = relocation_at(l, operand_offset);
    if (r == NULL)
        return module_type(l, token, out);
    if (r->kind == ALVK_RELOCATION_TYPE_SPEC) {
        out->spec = blob_of(l, r, &out->spec_length);
        return 1;
    }
    if (r->kind == ALVK_RELOCATION_TYPE_REF) {
        out->stack = type_ref_stack(l->g, r);
        return out->stack != ALVK_STACK_NOTHING;
    }
    return 0;
}

alvk_status aip_generation_check_stack_types(const alvk_generation *g,
                                             const aip_stack_target *target,
                                             const aip_stack_oracle *module, aip_stack_result *out)
{
    if (out == NULL)
        return ALVK_E_NULL_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (g == NULL || g->body == NULL || target == NULL)
        return ALVK_E_NULL_ARGUMENT;
    if (g->relocation_count > ALVK_MAX_RELOCATIONS)
        return ALVK_E_LIMIT_EXCEEDED; /* not validated */
    aip_method_body parsed;
    alvk_status status = aip_method_body_parse(g->body, g->body_size, &parsed, NULL, 0);
    if (status != ALVK_OK)
        return status;
    aip_eh_clause *clauses = NULL;
    if (parsed.eh_clause_count > 0) {
        clauses = malloc((size_t)parsed.eh_clause_count * sizeof *clauses);
        if (clauses == NULL)
            return ALVK_OK; /* complete stays 0 */
        status =
            aip_method_body_parse(g->body, g->body_size, &parsed, clauses, parsed.eh_clause_count);
        if (status != ALVK_OK) {
            free(clauses);
            return status;
        }
    }
    layered l;
    memset(&l, 0, sizeof l);
    l.g = g;
    l.module = module;
    size_t n = g->relocation_count;
    void *per_relocation = n > 0 ? malloc(n * (sizeof *l.blob + sizeof *l.blob_length)) : NULL;
    if (n > 0 && per_relocation == NULL) {
        free(clauses);
        return ALVK_OK; /* complete stays 0 */
    }
    if (per_relocation != NULL) {
        l.blob = per_relocation;
        l.blob_length = (uint32_t *)(void *)((char *)per_relocation + n * sizeof *l.blob);
    }
    aip_site_map_build(g, &l.sites);
    uint8_t *arena = NULL;
    resolve_blobs(&l, &arena);
    aip_stack_oracle oracle = {&l, member, type};
    aip_stack_body body = {g->body + parsed.code_offset, parsed.code_size, clauses,
                           parsed.eh_clause_count, parsed.local_var_sig_token};
    status = aip_il_check_stack_types(&body, target, &oracle, out);
    free(arena);
    aip_site_map_free(&l.sites);
    free(per_relocation);
    free(clauses);
    return status;
}
