/* One relocation of a generation: shape, parent, name and blob, the blob's signature and its
 * class references, the operand it fills (an instruction's, the locals', a catch clause's)
 * and every site, and the token kind they take, overlap with earlier operands. */
#include "generation/relocation_validate.h"

#include "coreclr/cor_metadata_defs.h"
#include "generation/relocation_blob.h"
#include "generation/relocation_parent.h"
#include "generation/relocation_sites.h"
#include "il/method_body.h"
#include "metadata/signature_blobs.h"
#include "text/utf.h"

static int inside_pool(uint32_t offset, uint32_t length, uint32_t pool_size)
{
    return (uint64_t)offset + (uint64_t)length <= (uint64_t)pool_size;
}

/* Exactly one of parent_token / parent_relocation for the kinds with a parent, of a table
 * (or relocation kind) the parent's metadata row can be; none for the others. */
static int parent_ok(const aip_relocation_scope *scope, const alvk_relocation *r, uint32_t index)
{
    if (r->kind == ALVK_RELOCATION_STANDALONE_SIG || r->kind == ALVK_RELOCATION_TYPE_SPEC ||
        r->kind == ALVK_RELOCATION_USER_STRING || r->kind == ALVK_RELOCATION_ASSEMBLY_REF)
        return r->parent_token == 0 && r->parent_relocation == 0;
    if ((r->parent_token == 0) == (r->parent_relocation == 0))
        return 0;
    if (r->parent_relocation != 0) {
        if (r->parent_relocation > index) /* 1-based: must name an earlier relocation */
            return 0;
        uint32_t p = r->parent_relocation - 1;
        alvk_relocation_kind pk = scope->generation->relocations[p].kind;
        switch (r->kind) {
        case ALVK_RELOCATION_MEMBER_REF:
            return pk == ALVK_RELOCATION_TYPE_SPEC || pk == ALVK_RELOCATION_TYPE_REF;
        case ALVK_RELOCATION_METHOD_SPEC:
            return pk == ALVK_RELOCATION_MEMBER_REF && scope->method_sig[p];
        default: /* TYPE_REF: an enclosing type, or (ABI 3.6) the assembly as its scope */
            return pk == ALVK_RELOCATION_TYPE_REF || pk == ALVK_RELOCATION_ASSEMBLY_REF;
        }
    }
    return aip_relocation_parent_allowed(r->kind, r->parent_token);
}

static alvk_status check_shape(const aip_relocation_scope *scope, const alvk_relocation *r,
                               uint32_t index)
{
    const alvk_generation *g = scope->generation;
    if (r->size != sizeof(alvk_relocation))
        return ALVK_E_RELOCATION_MALFORMED;
    uint32_t kind = (uint32_t)r->kind; /* any 32-bit value may arrive over the ABI */
    if (kind < ALVK_RELOCATION_STANDALONE_SIG || kind > ALVK_RELOCATION_ASSEMBLY_REF)
        return ALVK_E_RELOCATION_MALFORMED;
    if (!inside_pool(r->name_offset, r->name_length, g->blobs_size) ||
        !inside_pool(r->blob_offset, r->blob_length, g->blobs_size) ||
        !aip_relocation_sites_inside(g, r))
        return ALVK_E_RELOCATION_MALFORMED;
    if (!parent_ok(scope, r, index))
        return ALVK_E_RELOCATION_MALFORMED;
    int named = r->kind == ALVK_RELOCATION_MEMBER_REF || r->kind == ALVK_RELOCATION_TYPE_REF;
    if (named != (r->name_length != 0))
        return ALVK_E_RELOCATION_MALFORMED;
    if (named && !aip_utf8_valid(g->blobs + r->name_offset, r->name_length))
        return ALVK_E_RELOCATION_MALFORMED;
    if (r->kind == ALVK_RELOCATION_USER_STRING) /* UTF-16 code units; "" is empty */
        return r->blob_length % 2u == 0 ? ALVK_OK : ALVK_E_RELOCATION_MALFORMED;
    if (r->kind == ALVK_RELOCATION_ASSEMBLY_REF) /* a module_id, written nowhere in the body */
        return r->blob_length == AIP_RELOCATION_MODULE_ID_BYTES &&
                       r->il_offset == ALVK_RELOCATION_NO_OPERAND
                   ? ALVK_OK
                   : ALVK_E_RELOCATION_MALFORMED;
    int has_blob = r->kind != ALVK_RELOCATION_TYPE_REF;
    if (has_blob != (r->blob_length != 0))
        return ALVK_E_RELOCATION_MALFORMED;
    return ALVK_OK;
}

/* A class reference inside relocation `index`'s blob: relocation_blob.h's rule. */
typedef struct reference_check {
    const alvk_generation *g;
    uint32_t index;
} reference_check;

static alvk_status check_reference(void *context, size_t offset, size_t length, uint32_t row)
{
    const reference_check *c = context;
    (void)offset, (void)length;
    return aip_relocation_reference_allowed(c->g, c->index, row) ? ALVK_OK
                                                                 : ALVK_E_RELOCATION_MALFORMED;
}

/* The blob as the kind says, class references included; *method_sig = 1 for a method
 * signature. A reference the rule refuses is ALVK_E_RELOCATION_MALFORMED; every other
 * failure, nesting limits included, is ALVK_E_SIGNATURE_MALFORMED. */
static alvk_status check_blob(const alvk_generation *g, uint32_t index, uint8_t *method_sig)
{
    const alvk_relocation *r = &g->relocations[index];
    *method_sig = 0;
    if (r->kind == ALVK_RELOCATION_TYPE_REF || r->kind == ALVK_RELOCATION_USER_STRING ||
        r->kind == ALVK_RELOCATION_ASSEMBLY_REF)
        return ALVK_OK;
    reference_check context = {g, index};
    aip_sig_hook hook = {check_reference, &context};
    alvk_status status = aip_sig_parse_relocation_blob(r->kind, g->blobs + r->blob_offset,
                                                       r->blob_length, &hook, method_sig);
    if (status == ALVK_OK || status == ALVK_E_RELOCATION_MALFORMED)
        return status;
    return ALVK_E_SIGNATURE_MALFORMED;
}

/* Whether an instruction with this operand kind takes a token of this relocation. */
static int kind_fits(aip_operand_kind operand, alvk_relocation_kind kind, int method_sig)
{
    switch (operand) {
    case AIP_OPERAND_SIG:
        return kind == ALVK_RELOCATION_STANDALONE_SIG && method_sig;
    case AIP_OPERAND_METHOD:
        return (kind == ALVK_RELOCATION_MEMBER_REF && method_sig) ||
               kind == ALVK_RELOCATION_METHOD_SPEC;
    case AIP_OPERAND_FIELD:
        return kind == ALVK_RELOCATION_MEMBER_REF && !method_sig;
    case AIP_OPERAND_TYPE:
        return kind == ALVK_RELOCATION_TYPE_SPEC || kind == ALVK_RELOCATION_TYPE_REF;
    case AIP_OPERAND_TOK:
        return kind != ALVK_RELOCATION_STANDALONE_SIG && kind != ALVK_RELOCATION_USER_STRING &&
               kind != ALVK_RELOCATION_ASSEMBLY_REF;
    case AIP_OPERAND_STRING:
        return kind == ALVK_RELOCATION_USER_STRING;
    default:
        return 0;
    }
}

/* Claims one bit of a filled-operand bitmap: an overlap when an earlier operand has it. */
static alvk_status claim(uint8_t *bits, uint32_t at)
{
    uint8_t mask = (uint8_t)(1u << (at % 8u));
    if (bits[at / 8u] & mask)
        return ALVK_E_RELOCATION_OVERLAP;
    bits[at / 8u] |= mask;
    return ALVK_OK;
}

/* ALVK_RELOCATION_CATCH_TYPE(clause): the class token of a typed catch clause. */
static alvk_status check_catch_type(const aip_relocation_scope *scope, const alvk_relocation *r,
                                    uint32_t at)
{
    const alvk_generation *g = scope->generation;
    uint32_t clause = at - ALVK_RELOCATION_CATCH_TYPE(0);
    aip_eh_clause found;
    uint32_t class_token = 0;
    if (!aip_method_body_find_clause(g->body, g->body_size, clause, &found, &class_token) ||
        found.flags != COR_ILEXCEPTION_CLAUSE_NONE)
        return ALVK_E_RELOCATION_NOT_OPERAND;
    if (r->kind != ALVK_RELOCATION_TYPE_REF && r->kind != ALVK_RELOCATION_TYPE_SPEC)
        return ALVK_E_RELOCATION_KIND_MISMATCH;
    return ALVK_OK;
}

static int is_catch_type(uint32_t il_offset)
{
    return il_offset >= ALVK_RELOCATION_CATCH_TYPE(0) &&
           il_offset < ALVK_RELOCATION_CATCH_TYPE(ALVK_MAX_CATCH_TYPE_CLAUSE);
}

/* One operand relocation `index` fills: il_offset (not ALVK_RELOCATION_NO_OPERAND) or, with
 * is_site, one of its sites (which may not be the locals). */
static alvk_status check_operand(aip_relocation_scope *scope, const alvk_relocation *r,
                                 uint32_t index, uint32_t at, int is_site)
{
    if (at == ALVK_RELOCATION_NO_OPERAND || (is_site && at == ALVK_RELOCATION_LOCALS_SIGNATURE))
        return ALVK_E_RELOCATION_NOT_OPERAND;
    if (at == ALVK_RELOCATION_LOCALS_SIGNATURE) {
        /* The fat header's locals token: a local variable signature, once. */
        if (!scope->fat_header)
            return ALVK_E_RELOCATION_NOT_OPERAND;
        if (r->kind != ALVK_RELOCATION_STANDALONE_SIG || scope->method_sig[index])
            return ALVK_E_RELOCATION_KIND_MISMATCH;
        return claim(&scope->locals_filled, 0);
    }
    if (is_catch_type(at)) {
        alvk_status status = check_catch_type(scope, r, at);
        return status != ALVK_OK ? status
                                 : claim(scope->catch_filled, at - ALVK_RELOCATION_CATCH_TYPE(0));
    }
    aip_il_instruction insn;
    if (!aip_il_find_operand(scope->code, scope->code_size, scope->starts, at, &insn) ||
        !aip_il_operand_is_token(insn.operand_kind))
        return ALVK_E_RELOCATION_NOT_OPERAND;
    if (!kind_fits(insn.operand_kind, r->kind, scope->method_sig[index]))
        return ALVK_E_RELOCATION_KIND_MISMATCH;
    return claim(scope->code_filled, at);
}

alvk_status aip_generation_check_relocation(aip_relocation_scope *scope, uint32_t index)
{
    const alvk_generation *g = scope->generation;
    const alvk_relocation *r = &g->relocations[index];
    alvk_status status = check_shape(scope, r, index);
    if (status != ALVK_OK)
        return status;
    status = check_blob(g, index, &scope->method_sig[index]);
    if (status != ALVK_OK)
        return status;
    if (r->il_offset != ALVK_RELOCATION_NO_OPERAND &&
        (status = check_operand(scope, r, index, r->il_offset, 0)) != ALVK_OK)
        return status;
    for (uint32_t j = 0; j < r->site_count && status == ALVK_OK; ++j)
        status = check_operand(scope, r, index, aip_relocation_site(g, r, j), 1);
    return status;
}
