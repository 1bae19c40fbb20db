/* The signature blobs other than method signatures (ECMA-335 II.23.2): field, local
 * variable, TypeSpec and MethodSpec blobs, and the blob kinds a MemberRef or a
 * StandAloneSig may carry. Built on aip_sig_parse_type / aip_sig_parse_method; pure.
 *
 * Every parser reads blob[0 .. length) only, refuses trailing bytes after the signature,
 * and returns ALVK_E_SIGNATURE_MALFORMED for anything that does not parse (truncation
 * included), ALVK_E_LIMIT_EXCEEDED when the nesting or parameter bounds of signature.h are
 * exceeded, ALVK_E_NULL_ARGUMENT for NULL pointers. A top-level VOID (bare or BYREF) is
 * refused wherever a value type is expected (fields, locals, TypeSpecs, generic
 * arguments); VOID under PTR is fine. Outputs are written only on ALVK_OK. */
#ifndef AIP_SIGNATURE_BLOBS_H
#define AIP_SIGNATURE_BLOBS_H

#include "alvorkit_interception_profiler.h"
#include "metadata/signature.h"

#include <stddef.h>
#include <stdint.h>

/* LocalVarSig count bounds (II.23.2.6). */
#define AIP_SIG_MIN_LOCALS 1u
#define AIP_SIG_MAX_LOCALS 0xFFFEu

/* FieldSig (II.23.2.4): FIELD (0x06), custom modifiers, one Type (BYREF allowed: ref
 * fields; PINNED not). *type describes the field's type (offsets within the blob). */
alvk_status aip_sig_parse_field(const uint8_t *blob, size_t length, aip_sig_type *type);

/* LocalVarSig (II.23.2.6): LOCAL_SIG (0x07), a count in [1, 0xFFFE], then that many
 * types, each of which may carry custom modifiers, PINNED, BYREF, or be TYPEDBYREF.
 * *count receives the number of locals. */
alvk_status aip_sig_parse_locals(const uint8_t *blob, size_t length, uint32_t *count);

/* TypeSpec blob (II.23.2.14): exactly one Type (no PINNED), nothing after it. */
alvk_status aip_sig_parse_type_spec(const uint8_t *blob, size_t length, aip_sig_type *type);

/* MethodSpec instantiation (II.23.2.15): GENERICINST (0x0A), a count >= 1, that many types
 * (no PINNED, BYREF or TYPEDBYREF). *count receives the number of generic arguments. */
alvk_status aip_sig_parse_method_spec(const uint8_t *blob, size_t length, uint32_t *count);

typedef enum aip_member_sig_kind {
    AIP_MEMBER_SIG_METHOD = 1, /* a MethodRefSig */
    AIP_MEMBER_SIG_FIELD = 2   /* a FieldSig */
} aip_member_sig_kind;

/* A MemberRef's signature (II.22.25): a FieldSig when the first byte is FIELD (0x06),
 * otherwise a MethodRefSig (II.23.2.2: DEFAULT or VARARG, optionally GENERIC, HASTHIS,
 * EXPLICITTHIS; unmanaged conventions are refused). Parsed in full; *kind says which. */
alvk_status aip_sig_parse_member_ref(const uint8_t *blob, size_t length, aip_member_sig_kind *kind);

typedef enum aip_standalone_sig_kind {
    AIP_STANDALONE_SIG_METHOD = 1, /* StandAloneMethodSig (calli) */
    AIP_STANDALONE_SIG_LOCALS = 2  /* LocalVarSig */
} aip_standalone_sig_kind;

/* A StandAloneSig's blob (II.22.36): a LocalVarSig when the first byte is LOCAL_SIG
 * (0x07), otherwise a StandAloneMethodSig (II.23.2.3: any of DEFAULT, VARARG, the
 * unmanaged C, STDCALL, THISCALL, FASTCALL conventions and UNMANAGED (0x09, what C# emits
 * for delegate* unmanaged); never GENERIC). */
alvk_status aip_sig_parse_standalone(const uint8_t *blob, size_t length,
                                     aip_standalone_sig_kind *kind);

/* The blob of a relocation of `kind` (STANDALONE_SIG, TYPE_SPEC, MEMBER_REF, METHOD_SPEC),
 * parsed as the functions above parse it, with relocation references (tag 3) passed to
 * `hook` (NULL: refused). *method_sig = 1 for a method signature (a StandAloneMethodSig or
 * a MemberRef's MethodRefSig), else 0. Any other kind is ALVK_E_SIGNATURE_MALFORMED. */
alvk_status aip_sig_parse_relocation_blob(alvk_relocation_kind kind, const uint8_t *blob,
                                          size_t length, const aip_sig_hook *hook,
                                          uint8_t *method_sig);

#endif
