/* IL method body parsing (ECMA-335 II.25.4). Every read is checked against `available`
 * before it happens; offsets are computed in 64 bits so no sum can wrap. */
#include "il/method_body.h"

#include "coreclr/cor_metadata_defs.h"

#include <string.h>

#define AIP_TINY_HEADER_SIZE 1u
#define AIP_TINY_MAX_STACK 8u
#define AIP_SECT_HEADER_SIZE 4u
#define AIP_SMALL_CLAUSE_SIZE 12u
#define AIP_FAT_CLAUSE_SIZE 24u

typedef struct aip_body_reader {
    const uint8_t *bytes;
    uint64_t limit;   /* min(available, AIP_BODY_MAX_BYTES) */
    int limit_is_max; /* the limit came from AIP_BODY_MAX_BYTES, not `available` */
    aip_eh_clause *clauses;
    uint32_t clause_limit; /* how many clauses may be stored / counted */
    uint32_t clause_count;
    uint32_t wanted;             /* the clause to locate, or UINT32_MAX */
    uint64_t wanted_class_token; /* its ClassToken's offset from bytes[0], once read */
    aip_eh_clause wanted_clause;
} aip_body_reader;

static uint16_t aip_rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t aip_rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static uint64_t aip_align4(uint64_t offset)
{
    return (offset + 3u) & ~(uint64_t)3u;
}

/* A range [offset, end) that does not fit: past the buffer is malformed; past the ABI bound
 * while still inside the buffer is a limit. */
static alvk_status aip_range_status(const aip_body_reader *reader, uint64_t end)
{
    if (end <= reader->limit) {
        return ALVK_OK;
    }
    return reader->limit_is_max ? ALVK_E_LIMIT_EXCEEDED : ALVK_E_METHOD_BODY_MALFORMED;
}

static int aip_range_inside_code(uint32_t offset, uint32_t length, uint32_t code_size)
{
    return (uint64_t)offset + (uint64_t)length <= (uint64_t)code_size;
}

/* The ClassToken (or FilterOffset) field: 4 bytes in both formats (II.25.4.6). */
#define AIP_FAT_CLASS_TOKEN_AT 20u
#define AIP_SMALL_CLASS_TOKEN_AT 8u

static alvk_status aip_read_clause(aip_body_reader *reader, const uint8_t *p, int fat,
                                   uint32_t code_size)
{
    aip_eh_clause clause;
    if (fat) {
        clause.flags = aip_rd32(p);
        clause.try_offset = aip_rd32(p + 4);
        clause.try_length = aip_rd32(p + 8);
        clause.handler_offset = aip_rd32(p + 12);
        clause.handler_length = aip_rd32(p + 16);
        clause.class_token_or_filter_offset = aip_rd32(p + 20);
    } else {
        clause.flags = aip_rd16(p);
        clause.try_offset = aip_rd16(p + 2);
        clause.try_length = p[4];
        clause.handler_offset = aip_rd16(p + 5);
        clause.handler_length = p[7];
        clause.class_token_or_filter_offset = aip_rd32(p + 8);
    }
    if (!aip_range_inside_code(clause.try_offset, clause.try_length, code_size) ||
        !aip_range_inside_code(clause.handler_offset, clause.handler_length, code_size)) {
        return ALVK_E_METHOD_BODY_MALFORMED;
    }
    if ((clause.flags & COR_ILEXCEPTION_CLAUSE_FILTER) != 0 &&
        clause.class_token_or_filter_offset >= code_size) {
        return ALVK_E_METHOD_BODY_MALFORMED;
    }
    if (reader->clauses != NULL) {
        reader->clauses[reader->clause_count] = clause;
    }
    if (reader->clause_count == reader->wanted) {
        reader->wanted_clause = clause;
        reader->wanted_class_token = (uint64_t)(p - reader->bytes) +
                                     (fat ? AIP_FAT_CLASS_TOKEN_AT : AIP_SMALL_CLASS_TOKEN_AT);
    }
    reader->clause_count++;
    return ALVK_OK;
}

/* Parses the chain of extra sections starting at the 4-aligned `offset`; on success *end is
 * the end of the last section. */
static alvk_status aip_read_sections(aip_body_reader *reader, uint64_t offset, uint32_t code_size,
                                     uint64_t *end)
{
    for (;;) {
        offset = aip_align4(offset);
        alvk_status status = aip_range_status(reader, offset + AIP_SECT_HEADER_SIZE);
        if (status != ALVK_OK) {
            return status;
        }
        const uint8_t *header = reader->bytes + offset;
        uint8_t kind = header[0];
        if ((kind & CorILMethod_Sect_KindMask) != CorILMethod_Sect_EHTable) {
            return ALVK_E_METHOD_BODY_MALFORMED;
        }
        int fat = (kind & CorILMethod_Sect_FatFormat) != 0;
        uint32_t data_size =
            fat ? ((uint32_t)header[1] | ((uint32_t)header[2] << 8) | ((uint32_t)header[3] << 16))
                : (uint32_t)header[1];
        uint32_t clause_size = fat ? AIP_FAT_CLAUSE_SIZE : AIP_SMALL_CLAUSE_SIZE;
        if (data_size < AIP_SECT_HEADER_SIZE ||
            (data_size - AIP_SECT_HEADER_SIZE) % clause_size != 0) {
            return ALVK_E_METHOD_BODY_MALFORMED;
        }
        uint64_t section_end = offset + data_size;
        status = aip_range_status(reader, section_end);
        if (status != ALVK_OK) {
            return status;
        }
        uint32_t count = (data_size - AIP_SECT_HEADER_SIZE) / clause_size;
        if ((uint64_t)reader->clause_count + count > reader->clause_limit) {
            return ALVK_E_LIMIT_EXCEEDED;
        }
        const uint8_t *p = header + AIP_SECT_HEADER_SIZE;
        for (uint32_t i = 0; i < count; ++i, p += clause_size) {
            status = aip_read_clause(reader, p, fat, code_size);
            if (status != ALVK_OK) {
                return status;
            }
        }
        if ((kind & CorILMethod_Sect_MoreSects) == 0) {
            *end = section_end;
            return ALVK_OK;
        }
        offset = section_end;
    }
}

static alvk_status aip_parse_fat(aip_body_reader *reader, aip_method_body *body)
{
    alvk_status status = aip_range_status(reader, AIP_FAT_HEADER_BYTES);
    if (status != ALVK_OK) {
        return status;
    }
    const uint8_t *p = reader->bytes;
    uint16_t flags_and_size = aip_rd16(p);
    uint32_t flags = flags_and_size & 0x0FFFu;
    uint32_t size_dwords = (uint32_t)flags_and_size >> 12;
    if (size_dwords < AIP_FAT_HEADER_BYTES / 4u) {
        return ALVK_E_METHOD_BODY_MALFORMED;
    }
    body->is_fat = 1;
    body->init_locals = (flags & CorILMethod_InitLocals) != 0;
    body->max_stack = aip_rd16(p + 2);
    body->code_size = aip_rd32(p + 4);
    body->local_var_sig_token = aip_rd32(p + 8);
    body->header_size = 4u * size_dwords;
    body->code_offset = body->header_size;

    uint64_t code_end = (uint64_t)body->header_size + body->code_size;
    status = aip_range_status(reader, code_end);
    if (status != ALVK_OK) {
        return status;
    }
    uint64_t end = code_end;
    if ((flags & CorILMethod_MoreSects) != 0) {
        status = aip_read_sections(reader, code_end, body->code_size, &end);
        if (status != ALVK_OK) {
            return status;
        }
    }
    body->eh_clause_count = reader->clause_count;
    body->total_size = (uint32_t)end; /* end <= AIP_BODY_MAX_BYTES */
    return ALVK_OK;
}

static alvk_status parse_body(const uint8_t *bytes, size_t available, aip_method_body *out,
                              aip_eh_clause *clauses, uint32_t clause_capacity,
                              aip_body_reader *located)
{
    if (out == NULL) {
        return ALVK_E_NULL_ARGUMENT;
    }
    memset(out, 0, sizeof *out);
    if (bytes == NULL || (clauses == NULL && clause_capacity != 0)) {
        return ALVK_E_NULL_ARGUMENT;
    }

    aip_body_reader reader;
    reader.bytes = bytes;
    reader.limit_is_max = (uint64_t)available > AIP_BODY_MAX_BYTES;
    reader.limit = reader.limit_is_max ? AIP_BODY_MAX_BYTES : (uint64_t)available;
    reader.clauses = clauses;
    reader.clause_limit = AIP_BODY_MAX_EH_CLAUSES;
    if (clauses != NULL && clause_capacity < reader.clause_limit) {
        reader.clause_limit = clause_capacity;
    }
    reader.clause_count = 0;
    reader.wanted = located != NULL ? located->wanted : UINT32_MAX;
    reader.wanted_class_token = 0;
    memset(&reader.wanted_clause, 0, sizeof reader.wanted_clause);

    aip_method_body body;
    memset(&body, 0, sizeof body);
    alvk_status status;
    if (available == 0) {
        status = ALVK_E_METHOD_BODY_MALFORMED;
    } else if ((bytes[0] & 0x3u) == (CorILMethod_TinyFormat & 0x3u)) {
        body.max_stack = AIP_TINY_MAX_STACK;
        body.header_size = AIP_TINY_HEADER_SIZE;
        body.code_offset = AIP_TINY_HEADER_SIZE;
        body.code_size = (uint32_t)bytes[0] >> 2;
        body.total_size = body.header_size + body.code_size;
        status = aip_range_status(&reader, body.total_size);
    } else if ((bytes[0] & 0x3u) == CorILMethod_FatFormat) {
        status = aip_parse_fat(&reader, &body);
    } else {
        status = ALVK_E_METHOD_BODY_MALFORMED;
    }

    if (status != ALVK_OK) {
        if (clauses != NULL && reader.clause_count > 0) {
            memset(clauses, 0, (size_t)reader.clause_count * sizeof *clauses);
        }
        return status;
    }
    *out = body;
    if (located != NULL)
        *located = reader;
    return ALVK_OK;
}

alvk_status aip_method_body_parse(const uint8_t *bytes, size_t available, aip_method_body *out,
                                  aip_eh_clause *clauses, uint32_t clause_capacity)
{
    return parse_body(bytes, available, out, clauses, clause_capacity, NULL);
}

int aip_method_body_find_clause(const uint8_t *bytes, size_t available, uint32_t index,
                                aip_eh_clause *clause, uint32_t *class_token_offset)
{
    if (clause == NULL || class_token_offset == NULL)
        return 0;
    aip_method_body body;
    aip_body_reader located;
    memset(&located, 0, sizeof located);
    located.wanted = index;
    if (index == UINT32_MAX || parse_body(bytes, available, &body, NULL, 0, &located) != ALVK_OK ||
        index >= body.eh_clause_count)
        return 0;
    *clause = located.wanted_clause;
    *class_token_offset = (uint32_t)located.wanted_class_token; /* inside the body's bytes */
    return 1;
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int k = 0; k < 4; ++k)
        p[k] = (uint8_t)(v >> (8 * k));
}

void aip_method_body_write_fat_header(uint8_t *out, uint16_t max_stack, uint32_t code_size,
                                      uint32_t local_var_sig_token, int init_locals)
{
    uint16_t flags = (uint16_t)(CorILMethod_FatFormat | (init_locals ? CorILMethod_InitLocals : 0) |
                                ((AIP_FAT_HEADER_BYTES / 4u) << 12));
    out[0] = (uint8_t)flags;
    out[1] = (uint8_t)(flags >> 8);
    out[2] = (uint8_t)max_stack;
    out[3] = (uint8_t)(max_stack >> 8);
    put32(out + 4, code_size);
    put32(out + 8, local_var_sig_token);
}
