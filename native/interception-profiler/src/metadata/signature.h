/* Signature traversal (ECMA-335 II.23.2): method signatures and the types inside them,
 * parsed in place over a bounded blob. Pure functions; no runtime needed. */
#ifndef AIP_SIGNATURE_H
#define AIP_SIGNATURE_H

#include "alvorkit_interception_profiler.h"
#include "metadata/signature_codec.h"

#include <stddef.h>
#include <stdint.h>

/* Bounds: parameters per signature and nesting depth of a type (generic arguments,
 * function pointers, arrays, modifiers). Deeper or longer input is ALVK_E_LIMIT_EXCEEDED. */
#define AIP_SIG_MAX_PARAMS 256
#define AIP_SIG_MAX_DEPTH 32

/* One type inside a signature: the exact bytes [offset, offset + length) of the blob,
 * custom modifiers and BYREF included, plus what the dispatch emitter needs to know. */
typedef struct aip_sig_type {
    uint32_t offset;
    uint32_t length;
    uint8_t element_type;          /* first element type after custom modifiers and BYREF */
    uint8_t is_byref;              /* ELEMENT_TYPE_BYREF (after modifiers) */
    uint8_t has_modifiers;         /* CMOD_REQD / CMOD_OPT before the type */
    uint8_t uses_generic_variable; /* VAR or MVAR anywhere inside */
} aip_sig_type;

typedef struct aip_method_sig {
    uint8_t calling_convention; /* the whole first byte */
    uint8_t has_this;           /* 0x20 */
    uint8_t explicit_this;      /* 0x40 */
    uint8_t kind;               /* low nibble: 0 default, 5 vararg, 1-4 unmanaged, 9 unmanaged
                                 * with the platform's or modopt-named conventions (what C#
                                 * emits for delegate* unmanaged<...>, .NET 5 and later) */
    uint32_t generic_param_count;
    uint32_t param_count;
    uint32_t sentinel_index; /* index of the first vararg parameter, or UINT32_MAX */
    uint32_t length;         /* bytes the signature occupies in the blob */
    aip_sig_type ret;
    aip_sig_type params[AIP_SIG_MAX_PARAMS];
} aip_method_sig;

/* ABI 3.3: class references inside relocation blobs. A parser given a hook passes every
 * TypeDefOrRefOrSpecEncoded whose tag is ALVK_SIGNATURE_RELOCATION_TAG (a relocation
 * reference, signature_codec.h) to it, in blob order: where the coded index stands
 * (blob[offset .. offset + length)) and the row it names. The hook returns ALVK_OK to accept
 * it or the status the parse fails with. Without a hook tag 3 is ALVK_E_SIGNATURE_MALFORMED,
 * as in module metadata. */
typedef struct aip_sig_hook {
    alvk_status (*reference)(void *context, size_t offset, size_t length, uint32_t row);
    void *context;
} aip_sig_hook;

/* Parses one Type (II.23.2.12), including custom modifiers, BYREF, TYPEDBYREF, VOID, and
 * PINNED when allow_pinned is set (local signatures). Advances *offset past it. Where the
 * grammar has no place for them they are ALVK_E_SIGNATURE_MALFORMED: BYREF VOID, BYREF
 * TYPEDBYREF, and BYREF, TYPEDBYREF or VOID inside another type (an array element, a
 * generic argument, a pointer's target; VOID* excepted). */
alvk_status aip_sig_parse_type(const uint8_t *blob, size_t length, size_t *offset, int allow_pinned,
                               aip_sig_type *out);

/* aip_sig_parse_type with relocation references passed to `hook` (NULL: refused). */
alvk_status aip_sig_parse_type_hooked(const uint8_t *blob, size_t length, size_t *offset,
                                      int allow_pinned, const aip_sig_hook *hook,
                                      aip_sig_type *out);

/* Parses a MethodDefSig or MethodRefSig (II.23.2.1-2) that starts at blob[0]. Trailing
 * bytes after the signature are ALVK_E_SIGNATURE_MALFORMED unless allow_trailing is set. */
alvk_status aip_sig_parse_method(const uint8_t *blob, size_t length, int allow_trailing,
                                 aip_method_sig *out);

/* aip_sig_parse_method with relocation references passed to `hook` (NULL: refused). */
alvk_status aip_sig_parse_method_hooked(const uint8_t *blob, size_t length, int allow_trailing,
                                        const aip_sig_hook *hook, aip_method_sig *out);

#endif
