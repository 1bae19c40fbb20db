/* ABI 3.3: a relocation blob with its class references (TypeDefOrRefOrSpecEncoded with tag
 * ALVK_SIGNATURE_RELOCATION_TAG, signature_codec.h) replaced by tokens. The blob is parsed as
 * its relocation kind says (signature_blobs.h) so that only real coded indices are
 * rewritten; each replacement is re-encoded, so lengths can change. Pure. */
#ifndef AIP_SIGNATURE_REFERENCES_H
#define AIP_SIGNATURE_REFERENCES_H

#include "alvorkit_interception_profiler.h"

#include <stddef.h>
#include <stdint.h>

/* The most a blob of `length` bytes can become: every reference takes at least two bytes
 * (its element or modifier byte and a 1-byte coded index) and becomes at most 1 + 4. */
#define AIP_SIG_SUBSTITUTED_MAX(length) ((length) + 3u * ((length) / 2u))

/* The token for relocation `row` (1-based, as the reference names it; may be 0), or the
 * status the substitution fails with. */
typedef alvk_status (*aip_sig_row_token)(void *context, uint32_t row, uint32_t *token);

/* Copies blob[0 .. length), a relocation blob of `kind` (STANDALONE_SIG, TYPE_SPEC,
 * MEMBER_REF, METHOD_SPEC), into out[0 .. capacity) with every reference replaced by the
 * coded index of the token row_token gives (a TypeDef, TypeRef or TypeSpec; anything else
 * is ALVK_E_RELOCATION_MALFORMED). ALVK_OK with *out_length and *references (how many were
 * replaced); otherwise the parse's status (ALVK_E_SIGNATURE_MALFORMED,
 * ALVK_E_LIMIT_EXCEEDED), row_token's, or ALVK_E_BUFFER_TOO_SMALL when out cannot hold the
 * result (never with capacity >= AIP_SIG_SUBSTITUTED_MAX(length)). The other kinds have no
 * signature: ALVK_E_SIGNATURE_MALFORMED. */
alvk_status aip_sig_substitute(alvk_relocation_kind kind, const uint8_t *blob, size_t length,
                               aip_sig_row_token row_token, void *context, uint8_t *out,
                               size_t capacity, size_t *out_length, uint32_t *references);

#endif
