/* Generation validation: everything about an alvk_generation that can be checked without
 * the runtime, before any metadata is touched. Pure; unit-tested and fuzzed. */
#ifndef AIP_GENERATION_VALIDATE_H
#define AIP_GENERATION_VALIDATE_H

#include "alvorkit_interception_profiler.h"
#include "il/method_body.h"

#include <stdint.h>

/* Pass as original_code_size when the target's original code size is not known yet (the
 * IL map's old offsets are then checked only for order). */
#define AIP_ORIGINAL_SIZE_UNKNOWN UINT32_MAX

typedef struct aip_generation_check {
    uint32_t failing_index; /* relocation or IL map entry the status is about, else 0 */
    aip_method_body body;   /* the parsed body, on ALVK_OK */
} aip_generation_check;

/* Checks, in this order, stopping at the first failure:
 *  1. shape: size field, owner != 0 (ALVK_E_INVALID_OWNER), flags and reserved
 *     (ALVK_E_INVALID_FLAGS), NULL pointers with nonzero counts (ALVK_E_NULL_ARGUMENT), the
 *     bounds ALVK_MAX_*, the relocations' site_count summed against
 *     ALVK_MAX_RELOCATION_SITES included (ALVK_E_LIMIT_EXCEEDED);
 *  2. the body: aip_method_body_parse over exactly body_size bytes (trailing bytes after the
 *     last section are ALVK_E_METHOD_BODY_MALFORMED);
 *  3. the code: an instruction walk (ALVK_E_IL_MALFORMED for unknown opcodes, operands cut by
 *     the end of the code, branch or switch targets that are not instruction starts);
 *  4. each relocation (failing_index = its index): size field, kind, name and blob inside the
 *     pool, parent: exactly one of parent_token / parent_relocation where the kind needs one
 *     (none for STANDALONE_SIG, TYPE_SPEC, USER_STRING and ASSEMBLY_REF), parent_relocation
 *     pointing to an earlier relocation (a TYPE_REF's: a TYPE_REF or an ASSEMBLY_REF; a
 *     MEMBER_REF's: a TYPE_REF or TYPE_SPEC; a METHOD_SPEC's: a method MEMBER_REF); name
 *     present (non-empty) exactly for MEMBER_REF and TYPE_REF; blob present for all but
 *     TYPE_REF and USER_STRING; a USER_STRING blob of even length (0 is ""); an ASSEMBLY_REF
 *     (ABI 3.6) blob of exactly 8 bytes and il_offset ALVK_RELOCATION_NO_OPERAND:
 *     ALVK_E_RELOCATION_MALFORMED. The blob parses as what the kind says (STANDALONE_SIG:
 *     method or local-variable signature; TYPE_SPEC: one type; MEMBER_REF: method or field
 *     signature; METHOD_SPEC: generic instantiation): ALVK_E_SIGNATURE_MALFORMED; a class
 *     reference in it (ABI 3.3, tag 3) that does not name an earlier TYPE_REF relocation
 *     (relocation_blob.h): ALVK_E_RELOCATION_MALFORMED. il_offset (unless
 *     ALVK_RELOCATION_NO_OPERAND) must be the operand offset of a token-taking instruction,
 *     ALVK_RELOCATION_LOCALS_SIGNATURE in a fat body, or ALVK_RELOCATION_CATCH_TYPE(c) of an
 *     existing typed catch clause c: ALVK_E_RELOCATION_NOT_OPERAND; and that operand must
 *     take this kind (InlineSig: STANDALONE_SIG; InlineMethod: MEMBER_REF with a method
 *     signature, METHOD_SPEC; InlineField: MEMBER_REF with a field signature; InlineType:
 *     TYPE_SPEC, TYPE_REF; InlineTok: TYPE_SPEC, TYPE_REF, MEMBER_REF, METHOD_SPEC;
 *     InlineString: USER_STRING; the locals: a STANDALONE_SIG local signature; a catch
 *     clause: TYPE_REF, TYPE_SPEC): ALVK_E_RELOCATION_KIND_MISMATCH; two relocations on one
 *     operand: ALVK_E_RELOCATION_OVERLAP. Then each site (ABI 3.9), in order, as il_offset:
 *     sites outside the pool are ALVK_E_RELOCATION_MALFORMED (checked with the shape), a
 *     site ALVK_RELOCATION_NO_OPERAND or ALVK_RELOCATION_LOCALS_SIGNATURE is
 *     ALVK_E_RELOCATION_NOT_OPERAND, and a site on an operand that an earlier site or
 *     il_offset (of any relocation, this one included) fills is ALVK_E_RELOCATION_OVERLAP;
 *  5. the IL map (failing_index = entry): new_offset <= code size, old_offset <=
 *     original_code_size, entries strictly increasing by old_offset: ALVK_E_IL_MAP_INVALID.
 *
 * Details the list above leaves open, as implemented:
 *  - failing_index is the 0-based array index; the status says which array it indexes.
 *    `out` is cleared first; out->body is set only on ALVK_OK. g or out NULL:
 *    ALVK_E_NULL_ARGUMENT.
 *  - size below sizeof(alvk_generation): ALVK_E_STRUCT_SIZE, and nothing else is read.
 *    flags: only ALVK_INSTALL_INLINER_FALLBACK. body is required (NULL is
 *    ALVK_E_NULL_ARGUMENT whatever body_size).
 *  - the body's LocalVarSigTok is 0 or a non-nil StandAloneSig (0x11) token, else
 *    ALVK_E_METHOD_BODY_MALFORMED. EH clauses are checked as aip_method_body_parse does
 *    (ranges inside the code), not against instruction starts. Empty code is accepted.
 *  - a relocation's size must equal sizeof(alvk_relocation) (it is the array's stride; the
 *    C ABI's entry points widen an ABI 3.8 array first, relocation_widen.h).
 *    Offsets are checked against the pool even when the length is 0.
 *  - parents (ALVK_E_RELOCATION_MALFORMED): parent_token is a non-nil token of a table the
 *    row allows (MEMBER_REF: TypeDef, TypeRef, ModuleRef, MethodDef, TypeSpec; METHOD_SPEC:
 *    MethodDef, MemberRef; TYPE_REF: Module, ModuleRef, AssemblyRef, TypeRef);
 *    parent_relocation names a relocation of a kind that makes such a token (MEMBER_REF:
 *    TYPE_SPEC or TYPE_REF; METHOD_SPEC: MEMBER_REF with a method signature; TYPE_REF:
 *    TYPE_REF).
 *  - a name is well-formed UTF-8 without NUL; a TYPE_REF carries no blob (length 0).
 *  - blobs as metadata/signature_blobs.h parses them (STANDALONE_SIG method signatures are
 *    never generic; MEMBER_REF method signatures are DEFAULT or VARARG); every blob failure,
 *    nesting limits included, is ALVK_E_SIGNATURE_MALFORMED.
 *  - InlineSig takes only a STANDALONE_SIG holding a method signature (not locals);
 *    An overlap is reported at the later relocation. Catch clauses are numbered over every
 *    EH section in order (il/method_body.h's aip_method_body_find_clause).
 *  - IL map entries' accurate is 0 or 1, else ALVK_E_IL_MAP_INVALID.
 */
alvk_status aip_generation_validate(const alvk_generation *g, uint32_t original_code_size,
                                    aip_generation_check *out);

#endif
