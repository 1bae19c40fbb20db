/* Fuzzes aip_generation_validate over an alvk_generation built from the input, every
 * buffer an exact-size heap copy so AddressSanitizer reports any read outside it.
 * Input, little-endian:
 *   u8  control: bit 0 size field 4 short; bits 1-4 pass NULL for body, blobs,
 *       relocations, il_map; bit 5 claim 65537 more body bytes than given (must be refused
 *       by the bound before any read); bit 6 relocations in today's layout (11 u32, with
 *       sites_offset and site_count), else in ABI 3.8's (9 u32): those are packed as an ABI
 *       3.8 caller passes them and widened as the entry points do (relocation_widen.h),
 *       or, when their first size field is not 36, read into today's layout without sites
 *   u8  relocation_count   u16 il_map_count   u32 body_size   u32 blobs_size
 *   u32 flags  u32 reserved  u64 owner  u64 module_id  u32 module_epoch  u32 reserved1
 *   u32 original_code_size
 *   then the body, the blob pool, relocation_count x 9 or 11 u32 (alvk_relocation's fields
 *   in order) and il_map_count x 3 u32; sizes and counts shrink to what the input holds.
 * Checks: the status is one the header documents; the shape rules and their order, the
 * body and code steps are recomputed here and must give the same first failure; a failing
 * index names an existing relocation or map entry that indeed breaks the rule the status
 * names; on ALVK_OK every relocation, operand (instructions by an independent walk, catch
 * clauses from the parsed clause list), parent, class reference (ABI 3.3: an earlier
 * TYPE_REF; ABI 3.6: an ASSEMBLY_REF is 8 blob bytes on no operand, with neither name nor
 * parent, and the parent of TYPE_REFs only), every operand site (ABI 3.9: inside the pool, on
 * an operand il_offset could name but the locals, no operand filled twice) and map entry
 * satisfies the rules and out->body
 * is the parsed body, and every blob substitutes (stand-ins and emitted-looking tokens) into
 * a blob that parses as its kind without references, within AIP_SIG_SUBSTITUTED_MAX, and the
 * stack-type check runs over it;
 * validation is repeatable and modifies none of its inputs. */
#include "fuzz_input.h"

#include "coreclr/cor_metadata_defs.h"
#include "generation/generation_stack_check.h"
#include "generation/generation_validate.h"
#include "generation/relocation_blob.h"
#include "generation/relocation_sites.h"
#include "generation/relocation_widen.h"
#include "il/il_walk.h"
#include "metadata/signature_blobs.h"

#define FIXED_BYTES 48
#define CLAIM_EXTRA 65537u

static aip_il_starts starts;

static int documented(alvk_status s)
{
    switch (s) {
    case ALVK_OK:
    case ALVK_E_STRUCT_SIZE:
    case ALVK_E_INVALID_OWNER:
    case ALVK_E_INVALID_FLAGS:
    case ALVK_E_NULL_ARGUMENT:
    case ALVK_E_LIMIT_EXCEEDED:
    case ALVK_E_METHOD_BODY_MALFORMED:
    case ALVK_E_IL_MALFORMED:
    case ALVK_E_RELOCATION_MALFORMED:
    case ALVK_E_SIGNATURE_MALFORMED:
    case ALVK_E_RELOCATION_NOT_OPERAND:
    case ALVK_E_RELOCATION_KIND_MISMATCH:
    case ALVK_E_RELOCATION_OVERLAP:
    case ALVK_E_IL_MAP_INVALID:
        return 1;
    default:
        return 0;
    }
}

/* Steps 1-3 of the header, recomputed: the first failure, or ALVK_OK. */
static alvk_status expected_prefix(const alvk_generation *g, aip_method_body *body)
{
    if (g->size < sizeof *g)
        return ALVK_E_STRUCT_SIZE;
    if (g->owner == 0)
        return ALVK_E_INVALID_OWNER;
    if ((g->flags & ~(uint32_t)(ALVK_INSTALL_INLINER_FALLBACK | ALVK_INSTALL_UNVERIFIABLE)) != 0 ||
        g->reserved != 0 || g->reserved1 != 0 || (g->module_id == 0 && g->module_epoch != 0))
        return ALVK_E_INVALID_FLAGS;
    if (g->body == NULL || (g->blobs == NULL && g->blobs_size > 0) ||
        (g->relocations == NULL && g->relocation_count > 0) ||
        (g->il_map == NULL && g->il_map_count > 0))
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
    alvk_status status = aip_method_body_parse(g->body, g->body_size, body, NULL, 0);
    if (status != ALVK_OK)
        return status;
    if (body->total_size != g->body_size)
        return ALVK_E_METHOD_BODY_MALFORMED;
    if (body->local_var_sig_token != 0 && (body->local_var_sig_token & 0xFF000000u) != mdtSignature)
        return ALVK_E_METHOD_BODY_MALFORMED;
    return aip_il_walk(g->body + body->code_offset, body->code_size, &starts, NULL, NULL);
}

/* Class references seen while parsing a blob: whether each names an earlier TYPE_REF of
 * the generation (the harness's own reading of the rule). */
typedef struct references {
    const alvk_generation *g;
    uint32_t index;
    int all_allowed;
} references;

static alvk_status note_reference(void *context, size_t offset, size_t length, uint32_t row)
{
    references *seen = context;
    (void)offset, (void)length;
    int allowed = row >= 1 && row <= seen->index &&
                  seen->g->relocations[row - 1].kind == ALVK_RELOCATION_TYPE_REF;
    seen->all_allowed &= allowed;
    return ALVK_OK; /* the grammar alone decides the parse */
}

/* The blob of relocation `index` parses as its kind says, references accepted wherever they
 * stand (*refs_ok says whether they all follow the rule); *method = 1 for a method
 * signature. USER_STRING: an even length; ASSEMBLY_REF: a module_id, exactly 8 bytes. */
static int grammar_ok(const alvk_generation *g, uint32_t index, int *method, int *refs_ok)
{
    const alvk_relocation *r = &g->relocations[index];
    *method = 0;
    *refs_ok = 1;
    if (r->kind == ALVK_RELOCATION_USER_STRING)
        return r->blob_length % 2 == 0;
    if (r->kind == ALVK_RELOCATION_ASSEMBLY_REF)
        return r->blob_length == 8;
    if (r->kind == ALVK_RELOCATION_TYPE_REF ||
        (r->kind != ALVK_RELOCATION_STANDALONE_SIG && r->kind != ALVK_RELOCATION_TYPE_SPEC &&
         r->kind != ALVK_RELOCATION_MEMBER_REF && r->kind != ALVK_RELOCATION_METHOD_SPEC))
        return r->blob_length == 0;
    references seen = {g, index, 1};
    aip_sig_hook hook = {note_reference, &seen};
    uint8_t is_method = 0;
    int ok = aip_sig_parse_relocation_blob(r->kind, g->blobs + r->blob_offset, r->blob_length,
                                           &hook, &is_method) == ALVK_OK;
    *method = ok && is_method;
    *refs_ok = seen.all_allowed;
    return ok;
}

/* Parses and follows the rule. */
static int blob_ok(const alvk_generation *g, uint32_t index, int *method)
{
    int refs_ok = 0;
    return grammar_ok(g, index, method, &refs_ok) && refs_ok;
}

/* An accepted relocation's blob with its references substituted, by stand-ins and by
 * tokens of the kind emission writes: within the bound, and a blob of the same kind that the
 * plain parsers (which refuse references) accept with the same method-ness. */
static void check_substitution(const alvk_generation *g, uint32_t index, int method)
{
    const alvk_relocation *r = &g->relocations[index];
    if (r->kind == ALVK_RELOCATION_TYPE_REF)
        return;
    static alvk_relocation_result results[ALVK_MAX_RELOCATIONS];
    memset(results, 0, sizeof results);
    for (uint32_t j = 0; j < index; ++j) /* TypeRef rows of every compressed width */
        results[j].token = mdtTypeRef | (((j * 0x2F35u) % 0xFFFFFEu) + 1u);
    size_t capacity = AIP_SIG_SUBSTITUTED_MAX((size_t)r->blob_length);
    uint8_t *out = aip_fuzz_alloc(capacity + 1);
    for (int emitted = 0; emitted < 2; ++emitted) {
        size_t length = 0;
        AIP_FUZZ_CHECK(aip_relocation_blob_resolve(g, index, emitted ? results : NULL, out,
                                                   capacity, &length) == ALVK_OK);
        AIP_FUZZ_CHECK(length <= capacity);
        if (r->kind == ALVK_RELOCATION_USER_STRING || r->kind == ALVK_RELOCATION_ASSEMBLY_REF) {
            AIP_FUZZ_CHECK(length == r->blob_length &&
                           (length == 0 || memcmp(out, g->blobs + r->blob_offset, length) == 0));
            continue;
        }
        uint8_t plain_method = 0;
        AIP_FUZZ_CHECK(aip_sig_parse_relocation_blob(r->kind, out, length, NULL, &plain_method) ==
                       ALVK_OK);
        AIP_FUZZ_CHECK(plain_method == method);
    }
    free(out);
}

static int inside(uint32_t offset, uint32_t length, uint32_t pool)
{
    return (uint64_t)offset + length <= pool;
}

static int kind_is(const alvk_relocation *r, alvk_relocation_kind a, alvk_relocation_kind b)
{
    return r->kind == a || r->kind == b;
}

/* IL map entry i follows the rules of step 5. */
static int map_entry_ok(const alvk_generation *g, uint32_t i, uint32_t code_size, uint32_t original)
{
    const alvk_il_map_entry *e = &g->il_map[i];
    return e->new_offset <= code_size && e->accurate <= 1 &&
           (original == AIP_ORIGINAL_SIZE_UNKNOWN || e->old_offset <= original) &&
           (i == 0 || e->old_offset > g->il_map[i - 1].old_offset);
}

/* The operand kind of the token operand at code offset `at`, or -1 when none starts there
 * (the walk of the code already succeeded). */
static int token_operand_at(const uint8_t *code, uint32_t code_size, uint32_t at)
{
    aip_il_instruction insn;
    for (uint32_t offset = 0; offset < code_size; offset = insn.next_offset) {
        AIP_FUZZ_CHECK(aip_il_decode(code, code_size, offset, &insn) == ALVK_OK);
        if (insn.operand_offset == at && insn.operand_size > 0)
            return aip_il_operand_is_token(insn.operand_kind) ? (int)insn.operand_kind : -1;
        if (insn.operand_offset > at)
            return -1;
    }
    return -1;
}

/* The operands relocation i fills: il_offset (unless ALVK_RELOCATION_NO_OPERAND), then its
 * sites (inside the pool: checked before this is used). */
static uint32_t operand_count(const alvk_generation *g, uint32_t i)
{
    const alvk_relocation *r = &g->relocations[i];
    return (r->il_offset != ALVK_RELOCATION_NO_OPERAND) + r->site_count;
}

static uint32_t operand_of(const alvk_generation *g, uint32_t i, uint32_t k)
{
    const alvk_relocation *r = &g->relocations[i];
    if (r->il_offset != ALVK_RELOCATION_NO_OPERAND) {
        if (k == 0)
            return r->il_offset;
        --k;
    }
    return aip_relocation_site(g, r, k);
}

/* An accepted relocation's operand `at` (not the locals, not ALVK_RELOCATION_NO_OPERAND): a
 * typed catch clause taking a TYPE_REF or TYPE_SPEC, or a token operand of the code taking
 * this kind. */
static void check_operand(const aip_method_body *body, const aip_eh_clause *clauses,
                          const uint8_t *code, const alvk_relocation *r, uint32_t at, int method)
{
    if (at >= ALVK_RELOCATION_CATCH_TYPE(0) &&
        at < ALVK_RELOCATION_CATCH_TYPE(ALVK_MAX_CATCH_TYPE_CLAUSE)) {
        uint32_t clause = at - ALVK_RELOCATION_CATCH_TYPE(0);
        AIP_FUZZ_CHECK(clause < body->eh_clause_count && clauses[clause].flags == 0);
        AIP_FUZZ_CHECK(kind_is(r, ALVK_RELOCATION_TYPE_REF, ALVK_RELOCATION_TYPE_SPEC));
        return;
    }
    int operand = token_operand_at(code, body->code_size, at);
    AIP_FUZZ_CHECK(operand >= 0);
    switch (operand) {
    case AIP_OPERAND_SIG:
        AIP_FUZZ_CHECK(r->kind == ALVK_RELOCATION_STANDALONE_SIG && method);
        break;
    case AIP_OPERAND_METHOD:
        AIP_FUZZ_CHECK((r->kind == ALVK_RELOCATION_MEMBER_REF && method) ||
                       r->kind == ALVK_RELOCATION_METHOD_SPEC);
        break;
    case AIP_OPERAND_FIELD:
        AIP_FUZZ_CHECK(r->kind == ALVK_RELOCATION_MEMBER_REF && !method);
        break;
    case AIP_OPERAND_TYPE:
        AIP_FUZZ_CHECK(kind_is(r, ALVK_RELOCATION_TYPE_SPEC, ALVK_RELOCATION_TYPE_REF));
        break;
    case AIP_OPERAND_TOK:
        AIP_FUZZ_CHECK(r->kind != ALVK_RELOCATION_STANDALONE_SIG &&
                       r->kind != ALVK_RELOCATION_USER_STRING &&
                       r->kind != ALVK_RELOCATION_ASSEMBLY_REF);
        break;
    default: /* STRING */
        AIP_FUZZ_CHECK(r->kind == ALVK_RELOCATION_USER_STRING);
    }
}

/* Everything a generation that passed must satisfy. */
static void check_accepted(const alvk_generation *g, const aip_generation_check *out,
                           uint32_t original)
{
    aip_method_body body;
    AIP_FUZZ_CHECK(aip_method_body_parse(g->body, g->body_size, &body, NULL, 0) == ALVK_OK);
    AIP_FUZZ_CHECK(memcmp(&body, &out->body, sizeof body) == 0 && out->failing_index == 0);
    aip_eh_clause *clauses = aip_fuzz_alloc(((size_t)body.eh_clause_count + 1) * sizeof *clauses);
    AIP_FUZZ_CHECK(aip_method_body_parse(g->body, g->body_size, &body, clauses,
                                         body.eh_clause_count) == ALVK_OK);
    const uint8_t *code = g->body + body.code_offset;
    int locals_filled = 0;
    uint8_t method_sig[ALVK_MAX_RELOCATIONS];
    for (uint32_t i = 0; i < g->relocation_count; ++i) {
        const alvk_relocation *r = &g->relocations[i];
        AIP_FUZZ_CHECK(r->size == sizeof *r);
        AIP_FUZZ_CHECK(r->kind >= ALVK_RELOCATION_STANDALONE_SIG &&
                       r->kind <= ALVK_RELOCATION_ASSEMBLY_REF);
        AIP_FUZZ_CHECK(inside(r->name_offset, r->name_length, g->blobs_size));
        AIP_FUZZ_CHECK(inside(r->blob_offset, r->blob_length, g->blobs_size));
        int named = kind_is(r, ALVK_RELOCATION_MEMBER_REF, ALVK_RELOCATION_TYPE_REF);
        AIP_FUZZ_CHECK(named == (r->name_length > 0));
        if (named)
            AIP_FUZZ_CHECK(memchr(g->blobs + r->name_offset, 0, r->name_length) == NULL);
        int method = 0;
        AIP_FUZZ_CHECK(blob_ok(g, i, &method));
        method_sig[i] = (uint8_t)method;
        check_substitution(g, i, method);
        int parented = kind_is(r, ALVK_RELOCATION_MEMBER_REF, ALVK_RELOCATION_METHOD_SPEC) ||
                       r->kind == ALVK_RELOCATION_TYPE_REF;
        AIP_FUZZ_CHECK(parented == ((r->parent_token != 0) != (r->parent_relocation != 0)));
        if (!parented)
            AIP_FUZZ_CHECK(r->parent_token == 0 && r->parent_relocation == 0);
        if (r->parent_relocation != 0) {
            AIP_FUZZ_CHECK(r->parent_relocation <= i);
            const alvk_relocation *p = &g->relocations[r->parent_relocation - 1];
            if (r->kind == ALVK_RELOCATION_METHOD_SPEC)
                AIP_FUZZ_CHECK(p->kind == ALVK_RELOCATION_MEMBER_REF &&
                               method_sig[r->parent_relocation - 1]);
            else if (r->kind == ALVK_RELOCATION_TYPE_REF)
                AIP_FUZZ_CHECK(kind_is(p, ALVK_RELOCATION_TYPE_REF, ALVK_RELOCATION_ASSEMBLY_REF));
            else
                AIP_FUZZ_CHECK(kind_is(p, ALVK_RELOCATION_TYPE_SPEC, ALVK_RELOCATION_TYPE_REF));
        }
        if (r->parent_token != 0)
            AIP_FUZZ_CHECK((r->parent_token & 0x00FFFFFFu) != 0);
        if (r->kind == ALVK_RELOCATION_ASSEMBLY_REF) {
            /* Written nowhere; its module_id reads back from the blob. */
            AIP_FUZZ_CHECK(r->il_offset == ALVK_RELOCATION_NO_OPERAND);
            uint64_t id = 0;
            for (int k = 7; k >= 0; --k)
                id = (id << 8) | g->blobs[r->blob_offset + (uint32_t)k];
            AIP_FUZZ_CHECK(aip_relocation_module_id(g, i) == id);
        } else {
            AIP_FUZZ_CHECK(aip_relocation_module_id(g, i) == 0);
        }
        if (r->il_offset == ALVK_RELOCATION_LOCALS_SIGNATURE) {
            AIP_FUZZ_CHECK(body.is_fat && r->kind == ALVK_RELOCATION_STANDALONE_SIG && !method);
            locals_filled = 1;
        } else if (r->il_offset != ALVK_RELOCATION_NO_OPERAND) {
            check_operand(&body, clauses, code, r, r->il_offset, method);
        }
        AIP_FUZZ_CHECK(r->site_count == 0 ||
                       (uint64_t)r->sites_offset + 4ull * r->site_count <= g->blobs_size);
        for (uint32_t j = 0; j < r->site_count; ++j) {
            uint32_t at = aip_relocation_site(g, r, j);
            AIP_FUZZ_CHECK(at != ALVK_RELOCATION_NO_OPERAND &&
                           at != ALVK_RELOCATION_LOCALS_SIGNATURE);
            check_operand(&body, clauses, code, r, at, method);
        }
    }
    /* No operand filled twice: every il_offset and site, all relocations together. */
    for (uint32_t i = 0; i < g->relocation_count; ++i)
        for (uint32_t k = 0; k < operand_count(g, i); ++k) {
            uint32_t at = operand_of(g, i, k);
            for (uint32_t j = 0; j <= i; ++j)
                for (uint32_t l = 0; l < (j == i ? k : operand_count(g, j)); ++l)
                    AIP_FUZZ_CHECK(operand_of(g, j, l) != at);
        }
    free(clauses);
    if (body.local_var_sig_token == mdtSignature)
        AIP_FUZZ_CHECK(locals_filled);
    /* The stack-type check over the accepted generation (its blobs read with stand-ins for
     * class references), as the worker runs it for a static int32() target without module
     * metadata: it faults the body or not, nothing else. */
    static const uint8_t int_of_nothing[] = {0x00, 0x00, 0x08};
    aip_stack_target target = {int_of_nothing, sizeof int_of_nothing, 0};
    aip_stack_result types;
    alvk_status typed = aip_generation_check_stack_types(g, &target, NULL, &types);
    AIP_FUZZ_CHECK(typed == ALVK_OK || typed == ALVK_E_STACK_TYPE_MISMATCH);
    for (uint32_t i = 0; i < g->il_map_count; ++i)
        AIP_FUZZ_CHECK(map_entry_ok(g, i, body.code_size, original));
}

/* A refusal at relocation or map entry out->failing_index: that entry exists and, for the
 * statuses that can be recomputed from it alone, breaks the rule. */
static void check_refused(const alvk_generation *g, alvk_status status,
                          const aip_generation_check *out, uint32_t original)
{
    if (status == ALVK_E_IL_MAP_INVALID) {
        uint32_t i = out->failing_index;
        AIP_FUZZ_CHECK(i < g->il_map_count);
        aip_method_body body;
        AIP_FUZZ_CHECK(aip_method_body_parse(g->body, g->body_size, &body, NULL, 0) == ALVK_OK);
        AIP_FUZZ_CHECK(!map_entry_ok(g, i, body.code_size, original));
        for (uint32_t j = 0; j < i; ++j) /* the earlier ones were fine */
            AIP_FUZZ_CHECK(map_entry_ok(g, j, body.code_size, original));
        return;
    }
    int per_relocation =
        status == ALVK_E_RELOCATION_MALFORMED || status == ALVK_E_SIGNATURE_MALFORMED ||
        status == ALVK_E_RELOCATION_NOT_OPERAND || status == ALVK_E_RELOCATION_KIND_MISMATCH ||
        status == ALVK_E_RELOCATION_OVERLAP;
    if (!per_relocation) {
        AIP_FUZZ_CHECK(out->failing_index == 0);
        return;
    }
    AIP_FUZZ_CHECK(out->failing_index < g->relocation_count);
    const alvk_relocation *r = &g->relocations[out->failing_index];
    int method = 0, refs_ok = 0;
    switch (status) {
    case ALVK_E_SIGNATURE_MALFORMED:
        AIP_FUZZ_CHECK(!grammar_ok(g, out->failing_index, &method, &refs_ok));
        break;
    case ALVK_E_RELOCATION_OVERLAP: {
        /* One of its operands is an earlier operand (its own included). */
        uint32_t i = out->failing_index;
        AIP_FUZZ_CHECK(aip_relocation_sites_inside(g, r));
        int earlier = 0;
        for (uint32_t k = 0; k < operand_count(g, i); ++k)
            for (uint32_t j = 0; j <= i; ++j)
                for (uint32_t l = 0; l < (j == i ? k : operand_count(g, j)); ++l)
                    earlier |= operand_of(g, j, l) == operand_of(g, i, k);
        AIP_FUZZ_CHECK(earlier);
        break;
    }
    case ALVK_E_RELOCATION_NOT_OPERAND:
    case ALVK_E_RELOCATION_KIND_MISMATCH:
        AIP_FUZZ_CHECK((r->il_offset != ALVK_RELOCATION_NO_OPERAND || r->site_count > 0) &&
                       blob_ok(g, out->failing_index, &method));
        break;
    default:
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < FIXED_BYTES)
        return 0;
    aip_fuzz_reader in = aip_fuzz_reader_of(data, size);
    uint8_t control = aip_fuzz_u8(&in);
    uint32_t relocation_count = aip_fuzz_u8(&in);
    uint32_t il_map_count = aip_fuzz_u16(&in);
    uint32_t body_size = aip_fuzz_u32(&in), blobs_size = aip_fuzz_u32(&in);
    alvk_generation *g = aip_fuzz_alloc(sizeof *g);
    memset(g, 0, sizeof *g);
    g->size = (control & 1) ? (uint32_t)sizeof *g - 4 : (uint32_t)sizeof *g;
    g->flags = aip_fuzz_u32(&in);
    g->reserved = aip_fuzz_u32(&in);
    g->owner = aip_fuzz_u64(&in);
    g->module_id = aip_fuzz_u64(&in);
    g->module_epoch = aip_fuzz_u32(&in);
    g->reserved1 = aip_fuzz_u32(&in);
    uint32_t original = aip_fuzz_u32(&in);

    size_t got;
    const uint8_t *p = aip_fuzz_bytes(&in, body_size, &got);
    uint8_t *body = aip_fuzz_copy(p, got);
    g->body_size = (uint32_t)got;
    p = aip_fuzz_bytes(&in, blobs_size, &got);
    uint8_t *blobs = aip_fuzz_copy(p, got);
    g->blobs_size = (uint32_t)got;
    int with_sites = (control & 64) != 0;
    uint32_t record = with_sites ? 44u : 36u;
    if (relocation_count > aip_fuzz_left(&in) / record)
        relocation_count = (uint32_t)(aip_fuzz_left(&in) / record);
    alvk_relocation *relocations = aip_fuzz_alloc(relocation_count * sizeof *relocations);
    memset(relocations, 0, relocation_count * sizeof *relocations);
    for (uint32_t i = 0; i < relocation_count; ++i) {
        alvk_relocation *r = &relocations[i];
        r->size = aip_fuzz_u32(&in);
        r->kind = (alvk_relocation_kind)aip_fuzz_u32(&in);
        r->il_offset = aip_fuzz_u32(&in);
        r->parent_token = aip_fuzz_u32(&in);
        r->parent_relocation = aip_fuzz_u32(&in);
        r->name_offset = aip_fuzz_u32(&in);
        r->name_length = aip_fuzz_u32(&in);
        r->blob_offset = aip_fuzz_u32(&in);
        r->blob_length = aip_fuzz_u32(&in);
        if (with_sites) {
            r->sites_offset = aip_fuzz_u32(&in);
            r->site_count = aip_fuzz_u32(&in);
        }
    }
    /* ABI 3.8's layout: packed as such a caller passes it, and widened as the entry points
     * widen it; when it is not widened (its first size is not 36), today's layout without
     * sites, as read above. */
    alvk_relocation *widened = NULL;
    if (!with_sites && relocation_count > 0 && relocations[0].size == AIP_RELOCATION_SIZE_3_8) {
        uint8_t *packed = aip_fuzz_alloc(relocation_count * AIP_RELOCATION_SIZE_3_8);
        for (uint32_t i = 0; i < relocation_count; ++i)
            memcpy(packed + i * AIP_RELOCATION_SIZE_3_8, &relocations[i], AIP_RELOCATION_SIZE_3_8);
        alvk_generation as_given;
        memset(&as_given, 0, sizeof as_given);
        as_given.relocations = (const alvk_relocation *)(void *)packed;
        as_given.relocation_count = relocation_count;
        AIP_FUZZ_CHECK(aip_relocations_widen(&as_given, &widened) == ALVK_OK);
        AIP_FUZZ_CHECK(widened != NULL && as_given.relocations == widened);
        for (uint32_t i = 0; i < relocation_count; ++i) {
            alvk_relocation expected = relocations[i];
            if (expected.size == AIP_RELOCATION_SIZE_3_8)
                expected.size = sizeof expected;
            AIP_FUZZ_CHECK(memcmp(&widened[i], &expected, sizeof expected) == 0);
        }
        free(packed);
        memcpy(relocations, widened, relocation_count * sizeof *relocations);
        free(widened);
    }
    if (il_map_count > aip_fuzz_left(&in) / 12)
        il_map_count = (uint32_t)(aip_fuzz_left(&in) / 12);
    alvk_il_map_entry *map = aip_fuzz_alloc(il_map_count * sizeof *map);
    for (uint32_t i = 0; i < il_map_count; ++i) {
        map[i].old_offset = aip_fuzz_u32(&in);
        map[i].new_offset = aip_fuzz_u32(&in);
        map[i].accurate = aip_fuzz_u32(&in);
    }
    g->body = (control & 2) ? NULL : body;
    g->blobs = (control & 4) ? NULL : blobs;
    g->relocations = (control & 8) ? NULL : relocations;
    g->relocation_count = relocation_count;
    g->il_map = (control & 16) ? NULL : map;
    g->il_map_count = il_map_count;
    if (control & 32)
        g->body_size += CLAIM_EXTRA; /* a lie the bound must catch before reading */

    /* Snapshots: validation must not write to what it is given. */
    alvk_generation g_before = *g;
    size_t body_bytes = g->body_size - ((control & 32) ? CLAIM_EXTRA : 0);
    size_t relocation_bytes = relocation_count * sizeof *relocations;
    size_t map_bytes = il_map_count * sizeof *map;
    uint8_t *body_before = aip_fuzz_copy(body, body_bytes);
    uint8_t *blobs_before = aip_fuzz_copy(blobs, g->blobs_size);
    uint8_t *relocations_before = aip_fuzz_copy((const uint8_t *)relocations, relocation_bytes);
    uint8_t *map_before = aip_fuzz_copy((const uint8_t *)map, map_bytes);

    aip_generation_check out, again;
    alvk_status status = aip_generation_validate(g, original, &out);
    AIP_FUZZ_CHECK(documented(status));
    AIP_FUZZ_CHECK(aip_generation_validate(g, original, &again) == status);
    AIP_FUZZ_CHECK(memcmp(&out, &again, sizeof out) == 0);

    aip_method_body body_expected;
    alvk_status prefix = expected_prefix(g, &body_expected);
    if (prefix != ALVK_OK) {
        AIP_FUZZ_CHECK(status == prefix && out.failing_index == 0);
    } else if (status == ALVK_OK) {
        check_accepted(g, &out, original);
    } else {
        check_refused(g, status, &out, original);
    }
    if (control & 32)
        AIP_FUZZ_CHECK(status != ALVK_OK);

    AIP_FUZZ_CHECK(memcmp(&g_before, g, sizeof *g) == 0);
    AIP_FUZZ_CHECK(memcmp(body_before, body, body_bytes) == 0);
    AIP_FUZZ_CHECK(memcmp(blobs_before, blobs, g->blobs_size) == 0);
    AIP_FUZZ_CHECK(memcmp(relocations_before, relocations, relocation_bytes) == 0);
    AIP_FUZZ_CHECK(memcmp(map_before, map, map_bytes) == 0);
    free(map_before);
    free(relocations_before);
    free(blobs_before);
    free(body_before);
    free(map);
    free(relocations);
    free(blobs);
    free(body);
    free(g);
    return 0;
}
