/* Whether two method signatures of different modules can describe the same method, as far as
 * can be told without resolving their tokens (ECMA-335 II.23.2). The direct-call path asks it
 * before it names a replacement by a MemberRef: the runtime binds that reference only to a
 * method whose signature matches it, custom modifiers included. Pure. */
#ifndef AIP_SIGNATURE_SHAPE_H
#define AIP_SIGNATURE_SHAPE_H

#include <stddef.h>
#include <stdint.h>

/* 1 when `a` and `b` (MethodDefSig or MethodRefSig blobs, each of its own module) certainly
 * differ: another calling convention, generic arity or parameter count, or, in the return or
 * a parameter at the same place, BYREF on one side only, a custom modifier on one side only
 * (or required on one and optional on the other, or more of them on one), another primitive,
 * or another array shape. Type tokens are never compared (they belong to different modules),
 * nor a named type against a primitive (the runtime may resolve one to the other), nor
 * function pointers. 0 otherwise, and when either blob does not parse. */
int aip_signature_shapes_differ(const uint8_t *a, size_t a_length, const uint8_t *b,
                                size_t b_length);

#endif
