/* Fuzzes aip_method_body_parse (ECMA-335 II.25.4: tiny and fat headers, code, EH
 * sections). Input: byte 0 picks the clause array (0: none, k: room for k - 1 clauses, an
 * exact-size heap array); the rest is the body, in an exact-size heap block. Checks: the
 * header fields are the bytes they come from; header, code and sections lie inside the
 * input and AIP_BODY_MAX_BYTES; every clause's ranges lie inside the code; never more
 * clauses than room; the body's own total_size bytes parse to the same body and one byte
 * fewer does not; parsing without a clause array agrees; the code is then walked by
 * aip_il_walk, which must answer OK, IL_MALFORMED or LIMIT_EXCEEDED. */
#include "fuzz_input.h"

#include "coreclr/cor_metadata_defs.h"
#include "il/il_walk.h"
#include "il/method_body.h"

static aip_il_starts starts;

static uint32_t rd16(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8);
}
static uint32_t rd32(const uint8_t *p)
{
    return rd16(p) | (rd16(p + 2) << 16);
}

static void check_header(const uint8_t *b, size_t n, const aip_method_body *body)
{
    AIP_FUZZ_CHECK(body->total_size <= n && body->total_size <= AIP_BODY_MAX_BYTES);
    AIP_FUZZ_CHECK(body->code_offset == body->header_size);
    AIP_FUZZ_CHECK((uint64_t)body->code_offset + body->code_size <= body->total_size);
    if ((b[0] & 3u) == CorILMethod_TinyFormat) {
        AIP_FUZZ_CHECK(!body->is_fat && body->header_size == 1 && body->code_size == b[0] >> 2u);
        AIP_FUZZ_CHECK(body->max_stack == 8 && body->local_var_sig_token == 0 &&
                       !body->init_locals && body->eh_clause_count == 0);
        AIP_FUZZ_CHECK(body->total_size == 1 + body->code_size);
        return;
    }
    AIP_FUZZ_CHECK((b[0] & 3u) == CorILMethod_FatFormat && body->is_fat);
    uint32_t flags = rd16(b) & 0x0FFFu;
    AIP_FUZZ_CHECK(body->header_size == 4u * (rd16(b) >> 12) && body->header_size >= 12);
    AIP_FUZZ_CHECK(body->max_stack == rd16(b + 2) && body->code_size == rd32(b + 4));
    AIP_FUZZ_CHECK(body->local_var_sig_token == rd32(b + 8));
    AIP_FUZZ_CHECK(body->init_locals == ((flags & CorILMethod_InitLocals) != 0));
    uint64_t code_end = (uint64_t)body->header_size + body->code_size;
    if ((flags & CorILMethod_MoreSects) == 0) {
        AIP_FUZZ_CHECK(body->total_size == code_end && body->eh_clause_count == 0);
    } else {
        uint64_t first = (code_end + 3u) & ~(uint64_t)3u;
        AIP_FUZZ_CHECK(body->total_size >= first + 4u);
        AIP_FUZZ_CHECK(body->total_size % 4u == 0);
    }
}

static void check_clause(const aip_eh_clause *c, uint32_t code_size)
{
    AIP_FUZZ_CHECK((uint64_t)c->try_offset + c->try_length <= code_size);
    AIP_FUZZ_CHECK((uint64_t)c->handler_offset + c->handler_length <= code_size);
    if ((c->flags & COR_ILEXCEPTION_CLAUSE_FILTER) != 0)
        AIP_FUZZ_CHECK(c->class_token_or_filter_offset < code_size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint32_t room = data[0] == 0 ? 0 : data[0] - 1u;
    aip_eh_clause *clauses = data[0] == 0 ? NULL : aip_fuzz_alloc(room * sizeof *clauses);
    size_t n = size - 1;
    uint8_t *b = aip_fuzz_copy(data + 1, n);

    aip_method_body body, plain, again;
    alvk_status status = aip_method_body_parse(b, n, &body, clauses, room);
    alvk_status plain_status = aip_method_body_parse(b, n, &plain, NULL, 0);
    if (status != ALVK_OK) {
        AIP_FUZZ_CHECK(status == ALVK_E_METHOD_BODY_MALFORMED || status == ALVK_E_LIMIT_EXCEEDED);
        /* With room for every clause, the only difference can be the clause limit. */
        if (plain_status == ALVK_OK && clauses != NULL)
            AIP_FUZZ_CHECK(status == ALVK_E_LIMIT_EXCEEDED && plain.eh_clause_count > room);
        goto done;
    }
    AIP_FUZZ_CHECK(plain_status == ALVK_OK && memcmp(&plain, &body, sizeof body) == 0);
    check_header(b, n, &body);
    if (clauses != NULL) {
        AIP_FUZZ_CHECK(body.eh_clause_count <= room);
        for (uint32_t i = 0; i < body.eh_clause_count; ++i)
            check_clause(&clauses[i], body.code_size);
    }
    AIP_FUZZ_CHECK(body.eh_clause_count <= AIP_BODY_MAX_EH_CLAUSES);

    /* A body is self-delimiting: exactly its bytes parse alike; one fewer does not. */
    uint8_t *own = aip_fuzz_copy(b, body.total_size);
    AIP_FUZZ_CHECK(aip_method_body_parse(own, body.total_size, &again, NULL, 0) == ALVK_OK);
    AIP_FUZZ_CHECK(memcmp(&again, &body, sizeof body) == 0);
    AIP_FUZZ_CHECK(aip_method_body_parse(own, body.total_size - 1, &again, NULL, 0) != ALVK_OK);
    free(own);

    uint8_t *code = aip_fuzz_copy(b + body.code_offset, body.code_size);
    alvk_status walk = aip_il_walk(code, body.code_size, &starts, NULL, NULL);
    AIP_FUZZ_CHECK(walk == ALVK_OK || walk == ALVK_E_IL_MALFORMED || walk == ALVK_E_LIMIT_EXCEEDED);
    AIP_FUZZ_CHECK((walk == ALVK_E_LIMIT_EXCEEDED) == (body.code_size > AIP_IL_MAX_CODE_BYTES));
    free(code);
done:
    free(b);
    free(clauses);
    return 0;
}
