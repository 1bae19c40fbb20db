/* Two signature types compared element by element (ECMA-335 II.23.2.12): the one walker of
 * the signature format over a pair of blobs. The cross-module shape check
 * (metadata/signature_shape.c) and the member check's comparison of a MemberRef with a
 * candidate definition (catalog/member_check.c) both ask it; they differ only in what two
 * tokens and two custom modifiers can be told to be. Pure. */
#ifndef AIP_SIGNATURE_COMPARE_H
#define AIP_SIGNATURE_COMPARE_H

#include "metadata/signature.h"

#include <stddef.h>
#include <stdint.h>

/* Where the two blobs come from, which decides what their tokens and modifiers can tell. */
typedef enum aip_sig_scope {
    /* One module, one token space: equal tokens are one type, two distinct TypeDefs two types,
     * anything else involving a TypeRef or TypeSpec cannot be told. A custom modifier (on
     * either side) leaves the type undecided: whether it takes part is the runtime's call. */
    AIP_SIG_ONE_MODULE = 0,
    /* Two modules: tokens are never compared and are taken to name the same types (the
     * question is whether the signatures can match at all when they do). Custom modifiers
     * are compared by place, kind (required or optional) and count, their tokens not. */
    AIP_SIG_TWO_MODULES = 1
} aip_sig_scope;

/* How two types (or two signatures) relate. Ordered: the worst of several is the largest. */
typedef enum aip_sig_relation {
    AIP_SIG_SAME = 0,     /* the same bytes, or equal as far as the scope can tell */
    AIP_SIG_UNKNOWN = 1,  /* may or may not be the same: tokens or variables would decide */
    AIP_SIG_DIFFERENT = 2 /* certainly different whatever the tokens resolve to */
} aip_sig_relation;

/* One Type at a[*a_at] and one at b[*b_at]. Certain differences: another primitive, BYREF,
 * pointer or array on one side only, an array of another rank, sizes or lower bounds, two
 * instantiations of one generic type (as far as the scope can tell) with another arity,
 * class against struct, or a certainly different argument, and (per scope) tokens or
 * modifiers as above. A named type or a generic variable against anything else, two
 * variables of other numbers, and function pointers are UNKNOWN. When both types parse,
 * *a_at and *b_at end past them; otherwise the result is UNKNOWN and they are unchanged. */
aip_sig_relation aip_sig_compare_type(const uint8_t *a, size_t a_length, size_t *a_at,
                                      const uint8_t *b, size_t b_length, size_t *b_at,
                                      aip_sig_scope scope);

/* The return types and the parameters, pairwise, of two parsed method signatures with the
 * same parameter count (a and b are the blobs sa and sb were parsed from): the worst
 * relation, stopping at the first DIFFERENT. The calling conventions, generic arities and
 * parameter counts are the caller's to compare (the callers' rules for them differ). */
aip_sig_relation aip_sig_compare_method_types(const uint8_t *a, size_t a_length,
                                              const aip_method_sig *sa, const uint8_t *b,
                                              size_t b_length, const aip_method_sig *sb,
                                              aip_sig_scope scope);

#endif
