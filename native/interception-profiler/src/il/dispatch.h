/* Exact-dispatch emission: the IL body that replaces a target so it hands its real
 * receiver, every argument (ref/out/in locations as they are) and its exact return value to
 * a replacement, either by calling the replacement's function pointer with calli, or by
 * calling the replacement's MethodDef or MemberRef directly (the direct path: the JIT may
 * inline it). No boxing, no per-return-type helper: the calli signature, which is also the
 * direct call's MemberRef signature, is built from the target's own signature. */
#ifndef AIP_DISPATCH_H
#define AIP_DISPATCH_H

#include "alvorkit_interception_profiler.h"
#include "metadata/signature.h"

#include <stddef.h>
#include <stdint.h>

typedef enum aip_receiver_kind {
    AIP_RECEIVER_NONE = 0,       /* static target */
    AIP_RECEIVER_CLASS = 1,      /* instance method of a reference type: passes `this` */
    AIP_RECEIVER_VALUE_TYPE = 2, /* instance method of a value type: passes `ref this` */
} aip_receiver_kind;

typedef struct aip_dispatch_target {
    const uint8_t *signature; /* the target's MethodDefSig blob */
    size_t signature_length;
    const aip_method_sig *parsed; /* aip_sig_parse_method of that blob */
    aip_receiver_kind receiver;
    uint32_t declaring_type; /* TypeDef token of the receiver's type (instance targets) */
} aip_dispatch_target;

/* Largest blobs/bodies the emitter produces. */
#define AIP_DISPATCH_MAX_SIG_BYTES 4096
#define AIP_DISPATCH_MAX_BODY_BYTES 2048

/* The calli signature: DEFAULT calling convention, the receiver (if any) as the first
 * parameter (CLASS <type> or BYREF VALUETYPE <type>), then the target's return type and
 * parameters byte for byte. Returns ALVK_OK and the length in *written;
 * ALVK_E_GENERIC_TARGET_UNSUPPORTED for generic methods or VAR/MVAR anywhere;
 * ALVK_E_SIGNATURE_UNSUPPORTED for varargs, explicit this or an unmanaged convention;
 * ALVK_E_BUFFER_TOO_SMALL when capacity is short. */
alvk_status aip_dispatch_build_calli_signature(const aip_dispatch_target *target, uint8_t *out,
                                               size_t capacity, size_t *written);

/* The replacement body, a fat header with no locals:
 *   ldarg 0 .. ldarg n-1 (shortest forms), ldc.i8 <replacement>, conv.i,
 *   calli <calli_sig_token>, ret
 * where n counts the receiver. max_stack = n + 1. The 4 token bytes sit at
 * *token_offset from the start of the body so a later generation can relocate them. */
alvk_status aip_dispatch_emit_body(const aip_dispatch_target *target, uint64_t replacement,
                                   uint32_t calli_sig_token, uint8_t *out, size_t capacity,
                                   size_t *written, uint32_t *token_offset);

/* The direct-call body, a fat header with no locals:
 *   ldarg 0 .. ldarg n-1 (shortest forms), call <method_token>, ret
 * where method_token is a MethodDef or MemberRef (else ALVK_E_SIGNATURE_UNSUPPORTED) whose
 * signature is the calli signature's. max_stack = max(n, 1). The 4 token bytes sit at
 * *token_offset from the start of the body. Same refusals as aip_dispatch_emit_body. */
alvk_status aip_dispatch_emit_call_body(const aip_dispatch_target *target, uint32_t method_token,
                                        uint8_t *out, size_t capacity, size_t *written,
                                        uint32_t *token_offset);

#endif
