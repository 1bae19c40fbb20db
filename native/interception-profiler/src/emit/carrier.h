/* Carriers: for a hooked (or replaced) target the JIT inlined, a method of the target's module
 * that carries the target's current body and has no ReJIT version, so the target's known
 * inliners may call it instead and the JIT may inline it (the runtime never inlines a method
 * with an active ReJIT version). Defined in a nested type of the target's declaring type
 * (tdAbstract | tdSealed, extending the module's System.Object reference; tdNestedPublic when
 * the declaring type is publicly visible, so callers in other modules may call it too:
 * emit/carrier_ref.h; else tdNestedAssembly),
 * one type per distinct body, so the body keeps the target's access to its type's private
 * members and a new type is loaded with its one method: `Carry`, mdStatic | mdHideBySig
 * (mdPublic or mdAssem, as its type), miAggressiveInlining, the target's signature, the body set
 * with SetILFunctionBody before ApplyMetaData. The same body in the same module epoch finds its
 * carrier again (the emitter's token cache, then the type's name, which is the body's digest);
 * metadata rows are never removed, so a module holds one carrier per distinct body applied.
 * An instance target's carrier is static too, its receiver the first parameter (`klass`, or
 * `ref klass` for a struct), and a class's carrier checks the receiver for null first, as the
 * callers' `callvirt` did (the runtime does not find a method added to a type already loaded:
 * MissingMethodException, so the carrier cannot be an instance method of the target's type).
 * Non-generic targets that no class can override: static, non-virtual instance, or virtual and
 * final (C#'s implicit interface implementations and `sealed override`s), whose slot no class
 * can override, so a call or callvirt of its own token reaches it alone (a `new` slot in a
 * subclass is another method). Worker thread. */
#ifndef AIP_CARRIER_H
#define AIP_CARRIER_H

#include "alvorkit_interception_profiler.h"
#include "emit/emitter.h"
#include "il/dispatch.h"

#include <stdint.h>

typedef enum aip_carrier_outcome {
    AIP_CARRIER_DEFINED = 0, /* *carrier is the carrier's MethodDef */
    AIP_CARRIER_GENERIC,     /* a generic method, or a method of a generic type */
    AIP_CARRIER_VIRTUAL,     /* a virtual method that may be overridden (not final, or
                              * abstract): a call through the target may reach another */
    AIP_CARRIER_HANDLERS,    /* an instance target's body with exception clauses (the receiver
                              * check would move every clause) */
    AIP_CARRIER_FAILED,      /* a metadata call failed (*hr), or no System.Object reference */
} aip_carrier_outcome;

/* Whether a target may have a carrier, from what aip_carrier_method_generic says of it
 * (`generic`: 1, 0 or -1), its CorMethodAttr flags and the receiver its declaring type gives an
 * instance method (NONE when that type's kind could not be told): GENERIC; VIRTUAL for a
 * virtual that is not final, or abstract; DEFINED for a static method and for an instance one
 * (final virtual included) with a receiver; FAILED when unreadable or no receiver. Pure. */
aip_carrier_outcome aip_carrier_decide(int generic, uint32_t attr, aip_receiver_kind receiver);

/* The carrier of `body` (a whole IL method body, size bytes, whose tokens are the module's)
 * for target in module: found or defined. *defined: 1 when this call defined it. */
aip_carrier_outcome aip_carrier_for(aip_emitter *e, ModuleID module, uint32_t target,
                                    const uint8_t *body, uint32_t size, uint32_t *carrier,
                                    int *defined, HRESULT *hr);

/* 1 when method (a MethodDef of module) is generic or declared in a generic type; 0 when not;
 * -1 when its metadata could not be read. */
int aip_carrier_method_generic(aip_emitter *e, ModuleID module, uint32_t method);

/* method's implementation flags (CorMethodImpl) in *impl: 0, or -1 when its metadata could not
 * be read. */
int aip_carrier_method_impl(aip_emitter *e, ModuleID module, uint32_t method, uint32_t *impl);

#endif
