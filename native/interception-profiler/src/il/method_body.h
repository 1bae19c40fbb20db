/* IL method bodies (ECMA-335 II.25.4): tiny and fat headers, code, and the extra data
 * sections (exception-handling clauses, small and fat). Pure parsing over bounded input. */
#ifndef AIP_METHOD_BODY_H
#define AIP_METHOD_BODY_H

#include "alvorkit_interception_profiler.h"

#include <stddef.h>
#include <stdint.h>

/* Bounds, in the header later: a body and its clause count. */
#define AIP_BODY_MAX_BYTES (1u << 20)
#define AIP_BODY_MAX_EH_CLAUSES 1024

/* The fat header (II.25.4.3): 12 bytes, so its size field (in dwords) is at least 3;
 * LocalVarSigTok is its last 4 bytes, at byte 8. */
#define AIP_FAT_HEADER_BYTES 12u

typedef struct aip_eh_clause {
    uint32_t flags; /* COR_ILEXCEPTION_CLAUSE_* */
    uint32_t try_offset;
    uint32_t try_length;
    uint32_t handler_offset;
    uint32_t handler_length;
    uint32_t class_token_or_filter_offset;
} aip_eh_clause;

typedef struct aip_method_body {
    uint8_t is_fat;
    uint8_t init_locals;
    uint16_t max_stack;   /* 8 for tiny bodies */
    uint32_t header_size; /* 1 (tiny) or 4 * size field (fat, normally 12) */
    uint32_t code_offset; /* == header_size */
    uint32_t code_size;
    uint32_t local_var_sig_token; /* 0 or a StandAloneSig token */
    uint32_t eh_clause_count;     /* clauses in all sections */
    /* Bytes from the first header byte to the end of the last extra section: what the
     * loaded-body identity hashes. Includes the padding that aligns sections to 4 bytes. */
    uint32_t total_size;
} aip_method_body;

/* Parses the body at bytes[0 .. available). Clauses are written to clauses (up to
 * clause_capacity; more gives ALVK_E_LIMIT_EXCEEDED); clauses may be NULL when
 * clause_capacity is 0 and the caller only needs the sizes (then any count is accepted up
 * to AIP_BODY_MAX_EH_CLAUSES). Returns ALVK_E_METHOD_BODY_MALFORMED for: an unknown header
 * format, a fat size field below 3, code or sections running past `available`, an
 * unknown section kind, a section with a size that is not header + n * clause size, a clause
 * whose try or handler range falls outside the code. */
alvk_status aip_method_body_parse(const uint8_t *bytes, size_t available, aip_method_body *out,
                                  aip_eh_clause *clauses, uint32_t clause_capacity);

/* A fat header (AIP_FAT_HEADER_BYTES) into out: max_stack, code_size, the locals' StandAloneSig
 * token (0: none), CorILMethod_InitLocals when init_locals, no extra sections. */
void aip_method_body_write_fat_header(uint8_t *out, uint16_t max_stack, uint32_t code_size,
                                      uint32_t local_var_sig_token, int init_locals);

/* EH clause `index` (0-based, over every section in order) of the body at bytes[0 ..
 * available): 1 with *clause and *class_token_offset, the offset from bytes[0] of the
 * clause's 4-byte ClassToken field (byte 20 of a fat clause, byte 8 of a small one; a
 * filter's FilterOffset in the same place); 0 when the body does not parse as
 * aip_method_body_parse parses it or has no such clause. */
int aip_method_body_find_clause(const uint8_t *bytes, size_t available, uint32_t index,
                                aip_eh_clause *clause, uint32_t *class_token_offset);

#endif
