/* Method signatures that name no type: each return and parameter type a primitive (BOOLEAN to
 * STRING, I, U, OBJECT, TYPEDBYREF), alone or behind BYREF, without custom modifiers, and a
 * default or instance calling convention (not generic, not vararg or unmanaged). Such a
 * signature's bytes mean the same in every module, so a MemberRef of another module names a
 * method with that signature when its bytes are equal, and the bytes can be copied into another
 * module's metadata as they are. Pure. */
#ifndef AIP_SIGNATURE_PORTABLE_H
#define AIP_SIGNATURE_PORTABLE_H

#include <stddef.h>
#include <stdint.h>

/* 1 when blob[0 .. length) is exactly one such method signature (nothing after it); 0 when it
 * names a type, has another calling convention, or does not parse. */
int aip_sig_portable_method(const uint8_t *blob, size_t length);

#endif
