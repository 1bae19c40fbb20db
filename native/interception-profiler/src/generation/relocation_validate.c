/* One relocation of a generation: shape, parent, name and blob, the blob's signature, the
 * operand it fills and the instruction's token kind, overlap with earlier relocations. */
#include "generation/relocation_validate.h"

#include "generation/relocation_parent.h"
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
    if (r->kind == ALVK_RELOCATION_STANDALONE_SIG || r->kind == ALVK_RELOCATION_TYPE_SPEC)
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
        default: /* TYPE_REF: an enclosing type */
            return pk == ALVK_RELOCATION_TYPE_REF;
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
    if (kind < ALVK_RELOCATION_STANDALONE_SIG || kind > ALVK_RELOCATION_TYPE_REF)
        return ALVK_E_RELOCATION_MALFORMED;
    if (!inside_pool(r->name_offset, r->name_length, g->blobs_size) ||
        !inside_pool(r->blob_offset, r->blob_length, g->blobs_size))
        return ALVK_E_RELOCATION_MALFORMED;
    if (!parent_ok(scope, r, index))
        return ALVK_E_RELOCATION_MALFORMED;
    int named = r->kind == ALVK_RELOCATION_MEMBER_REF || r->kind == ALVK_RELOCATION_TYPE_REF;
    if (named != (r->name_length != 0))
        return ALVK_E_RELOCATION_MALFORMED;
    if (named && !aip_utf8_valid(g->blobs + r->name_offset, r->name_length))
        return ALVK_E_RELOCATION_MALFORMED;
    int has_blob = r->kind != ALVK_RELOCATION_TYPE_REF;
    if (has_blob != (r->blob_length != 0))
        return ALVK_E_RELOCATION_MALFORMED;
    return ALVK_OK;
}

/* The blob as the kind says; *method_sig = 1 for a method signature. Every failure,
 * nesting limits included, is ALVK_E_SIGNATURE_MALFORMED. */
static alvk_status check_blob(const alvk_generation *g, const alvk_relocation *r,
                              uint8_t *method_sig)
{
    *method_sig = 0;
    if (r->kind == ALVK_RELOCATION_TYPE_REF)
        return ALVK_OK;
    const uint8_t *blob = g->blobs + r->blob_offset;
    size_t length = r->blob_length;
    alvk_status status;
    aip_sig_type type;
    uint32_t count;
    switch (r->kind) {
    case ALVK_RELOCATION_STANDALONE_SIG: {
        aip_standalone_sig_kind kind = AIP_STANDALONE_SIG_LOCALS;
        status = aip_sig_parse_standalone(blob, length, &kind);
        *method_sig = status == ALVK_OK && kind == AIP_STANDALONE_SIG_METHOD;
        break;
    }
    case ALVK_RELOCATION_TYPE_SPEC:
        status = aip_sig_parse_type_spec(blob, length, &type);
        break;
    case ALVK_RELOCATION_MEMBER_REF: {
        aip_member_sig_kind kind = AIP_MEMBER_SIG_FIELD;
        status = aip_sig_parse_member_ref(blob, length, &kind);
        *method_sig = status == ALVK_OK && kind == AIP_MEMBER_SIG_METHOD;
        break;
    }
    default: /* METHOD_SPEC */
        status = aip_sig_parse_method_spec(blob, length, &count);
        break;
    }
    return status == ALVK_OK ? ALVK_OK : ALVK_E_SIGNATURE_MALFORMED;
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
        return kind != ALVK_RELOCATION_STANDALONE_SIG;
    default: /* STRING: a user-string token, which no relocation makes */
        return 0;
    }
}

alvk_status aip_generation_check_relocation(aip_relocation_scope *scope, uint32_t index)
{
    const alvk_relocation *all = scope->generation->relocations;
    const alvk_relocation *r = &all[index];
    alvk_status status = check_shape(scope, r, index);
    if (status != ALVK_OK)
        return status;
    status = check_blob(scope->generation, r, &scope->method_sig[index]);
    if (status != ALVK_OK)
        return status;
    if (r->il_offset == ALVK_RELOCATION_NO_OPERAND)
        return ALVK_OK;
    if (r->il_offset == ALVK_RELOCATION_LOCALS_SIGNATURE) {
        /* The fat header's locals token: a local variable signature, once. */
        if (!scope->fat_header)
            return ALVK_E_RELOCATION_NOT_OPERAND;
        if (r->kind != ALVK_RELOCATION_STANDALONE_SIG || scope->method_sig[index])
            return ALVK_E_RELOCATION_KIND_MISMATCH;
        for (uint32_t j = 0; j < index; ++j)
            if (all[j].il_offset == r->il_offset)
                return ALVK_E_RELOCATION_OVERLAP;
        return ALVK_OK;
    }
    aip_il_instruction insn;
    if (!aip_il_find_operand(scope->code, scope->code_size, scope->starts, r->il_offset, &insn) ||
        !aip_il_operand_is_token(insn.operand_kind))
        return ALVK_E_RELOCATION_NOT_OPERAND;
    if (!kind_fits(insn.operand_kind, r->kind, scope->method_sig[index]))
        return ALVK_E_RELOCATION_KIND_MISMATCH;
    for (uint32_t j = 0; j < index; ++j) {
        if (all[j].il_offset == r->il_offset)
            return ALVK_E_RELOCATION_OVERLAP;
    }
    return ALVK_OK;
}
