/* ABI 3.3: a relocation's blob as the profiler checks and defines it. Class references in it
 * (metadata/signature_references.h) must name an EARLIER TYPE_REF relocation of the same
 * generation (the one statement of that rule, for validation, the stack-type check and
 * emission); they are replaced by that relocation's emitted token, or, before anything is
 * emitted, by a stand-in token. Pure. */
#ifndef AIP_RELOCATION_BLOB_H
#define AIP_RELOCATION_BLOB_H

#include "alvorkit_interception_profiler.h"
#include "metadata/signature_references.h"

#include <stddef.h>
#include <stdint.h>

/* ABI 3.6: an ASSEMBLY_REF relocation's blob, the little-endian module_id it names. */
#define AIP_RELOCATION_MODULE_ID_BYTES 8u

/* Room for any relocation blob with its references replaced. */
#define AIP_RELOCATION_BLOB_MAX AIP_SIG_SUBSTITUTED_MAX(ALVK_MAX_GENERATION_BLOB_BYTES)

/* Stand-ins: TypeRef rows at the very top of the table (0xFFF000 + row - 1, one per possible
 * relocation), which a module would need over sixteen million TypeRefs to reach. They live
 * only inside the checks that run before emission and never reach the runtime. */
#define AIP_RELOCATION_STAND_IN_FIRST_RID (0x01000000u - ALVK_MAX_RELOCATIONS)

/* The stand-in for relocation `row` (1-based, <= ALVK_MAX_RELOCATIONS). */
uint32_t aip_relocation_stand_in(uint32_t row);
/* 1 and *row when token is a stand-in. */
int aip_relocation_stand_in_row(uint32_t token, uint32_t *row);

/* 1 when a reference inside relocation `index`'s blob may name relocation `row`: 1 <= row <=
 * index (an earlier relocation, 1-based) and that relocation is a TYPE_REF. */
int aip_relocation_reference_allowed(const alvk_generation *g, uint32_t index, uint32_t row);

/* The module_id an ASSEMBLY_REF relocation's blob names (its 8 bytes, little-endian); 0 for
 * any other relocation, or a blob of another length. */
uint64_t aip_relocation_module_id(const alvk_generation *g, uint32_t index);

/* Relocation `index`'s blob (inside g's pool) into out[0 .. capacity) with its references
 * replaced: by results[row - 1].token (the relocations emitted before it) or, with results
 * NULL, by stand-ins. A reference the rule above refuses is ALVK_E_RELOCATION_MALFORMED;
 * otherwise as aip_sig_substitute. TYPE_REF, USER_STRING and ASSEMBLY_REF blobs are copied
 * unchanged.
 * capacity >= AIP_SIG_SUBSTITUTED_MAX(blob_length) always suffices. */
alvk_status aip_relocation_blob_resolve(const alvk_generation *g, uint32_t index,
                                        const alvk_relocation_result *results, uint8_t *out,
                                        size_t capacity, size_t *out_length);

#endif
