/* ECMA-335 II.23.2 encodings shared by every signature reader and writer: compressed
 * unsigned integers and TypeDefOrRefOrSpecEncoded tokens. Pure functions. */
#ifndef AIP_SIGNATURE_CODEC_H
#define AIP_SIGNATURE_CODEC_H

#include "alvorkit_interception_profiler.h"

#include <stddef.h>
#include <stdint.h>

/* ECMA-335 II.23.2 compressed unsigned integer. Returns ALVK_OK and advances *offset, or
 * ALVK_E_SIGNATURE_MALFORMED when the bytes run out or the lead byte is invalid. */
alvk_status aip_sig_read_compressed(const uint8_t *blob, size_t length, size_t *offset,
                                    uint32_t *value);

/* Writes value compressed into out (capacity bytes). Returns bytes written (1, 2 or 4), or
 * 0 when value > 0x1FFFFFFF or it does not fit. */
size_t aip_sig_write_compressed(uint32_t value, uint8_t *out, size_t capacity);

/* TypeDefOrRefOrSpecEncoded (II.23.2.8): a coded token into a full metadata token. */
alvk_status aip_sig_read_type_token(const uint8_t *blob, size_t length, size_t *offset,
                                    uint32_t *token);
/* ABI 3.3, the one statement of what tag ALVK_SIGNATURE_RELOCATION_TAG (3) means: a coded
 * index with that tag names relocation `row` (1-based, the value shifted right by 2) of the
 * same generation. Reads one TypeDefOrRefOrSpecEncoded at *offset: a token (*token set,
 * *row = 0) or a relocation reference (*token = 0, *row = the row, possibly 0, which no
 * relocation has). A rid of 0 or above 0xFFFFFF for the other tags is
 * ALVK_E_SIGNATURE_MALFORMED. Readers of module metadata use aip_sig_read_type_token, which
 * refuses tag 3: only relocation blobs may carry it. */
alvk_status aip_sig_read_type_reference(const uint8_t *blob, size_t length, size_t *offset,
                                        uint32_t *token, uint32_t *row);
/* The reverse; 0 when the token is not a TypeDef, TypeRef or TypeSpec or does not fit. */
size_t aip_sig_write_type_token(uint32_t token, uint8_t *out, size_t capacity);

#endif
