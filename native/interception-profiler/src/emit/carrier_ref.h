/* A carrier (emit/carrier.h) named from another module: a caller in module B that inlined a
 * target of module A calls the target through B's MemberRef of it (its parent B's TypeRef of
 * the target's declaring type, resolved through B's AssemblyRef of A). To call the target's
 * carrier instead, B gets a TypeRef of the carrier's type (nested: its resolution scope is that
 * TypeRef of the declaring type) and a MemberRef `Carry` under it, with the carrier's signature
 * in B's tokens, defined through IMetaDataEmit and applied with ApplyMetaData; the runtime finds
 * the type added to A by name, and the JIT may inline the carrier into B's caller. The runtime
 * checks access as for any call: the carrier must be public, in a publicly visible type chain
 * (else MethodAccessException), so only a target whose declaring type is publicly visible (and
 * then its carrier public too) is carried across modules. Signatures: a target's that names no
 * type (metadata/signature_portable.h), whose bytes mean the same in A and in B; an instance
 * target's carrier takes the receiver first, named by B's TypeRef. B's tokens are cached per
 * (B, A, target) and (B, A, carrier) in the emitter's token cache. Worker thread. */
#ifndef AIP_CARRIER_REF_H
#define AIP_CARRIER_REF_H

#include "coreclr/cor_metadata.h"
#include "coreclr/corprof_info.h"
#include "emit/emitter.h"

#include <stdint.h>

typedef enum aip_carrier_ref_outcome {
    AIP_CARRIER_REF_OK = 0,       /* the tokens are set */
    AIP_CARRIER_REF_NOT_PUBLIC,   /* the target's declaring type is not publicly visible */
    AIP_CARRIER_REF_SIGNATURE,    /* the target's signature names a type */
    AIP_CARRIER_REF_NO_REFERENCE, /* B has no TypeRef of the declaring type or no MemberRef of
                                   * the target with its name and signature */
    AIP_CARRIER_REF_FAILED,       /* metadata could not be read, emitted or applied */
} aip_carrier_ref_outcome;

/* 1 when klass (a TypeDef of im's module) and each type enclosing it are publicly visible
 * (tdPublic at the top, tdNestedPublic below): then its carriers are public too. */
int aip_carrier_ref_visible(IMetaDataImport2 *im, mdTypeDef klass);

/* *target_ref: module `caller_module`'s MemberRef of `target` (a MethodDef of `module`): its
 * parent B's TypeRef of the target's declaring type (scoped by an AssemblyRef named as the
 * target's assembly, or by the TypeRef of its encloser), its name and signature bytes the
 * target's. Reads only (cached). */
aip_carrier_ref_outcome aip_carrier_ref_target(aip_emitter *e, ModuleID module, uint32_t target,
                                               ModuleID caller_module, uint32_t *target_ref);

/* As aip_carrier_ref_target, and *carrier_ref: caller_module's MemberRef of `carrier` (the
 * target's carrier, a MethodDef of `module`), defined when new (its metadata applied). */
aip_carrier_ref_outcome aip_carrier_ref_for(aip_emitter *e, ModuleID module, uint32_t target,
                                            uint32_t carrier, ModuleID caller_module,
                                            uint32_t *target_ref, uint32_t *carrier_ref);

#endif
