/* The stack-type check of a generation (il/il_stack_types.h) before anything reaches the
 * runtime: the body as submitted, its EH clauses and locals, the target's signature, and an
 * oracle that answers the body's tokens from the generation's own relocations (a relocated
 * operand holds only a placeholder: its MemberRef, StandAloneSig, MethodSpec, TypeSpec or
 * TypeRef is described by the relocation's blob, name and parent) and every other token from
 * the module's metadata, through a module oracle the caller supplies. Pure. */
#ifndef AIP_GENERATION_STACK_CHECK_H
#define AIP_GENERATION_STACK_CHECK_H

#include "alvorkit_interception_profiler.h"
#include "il/il_stack_types.h"

/* Checks generation g (already validated by aip_generation_validate) for `target`. module
 * answers tokens of the target's module (its operand_offset argument is always
 * ALVK_RELOCATION_NO_OPERAND); it may be NULL. Returns as aip_il_check_stack_types;
 * ALVK_E_METHOD_BODY_MALFORMED when the body does not parse; ALVK_OK incomplete when working
 * memory cannot be had. */
alvk_status aip_generation_check_stack_types(const alvk_generation *g,
                                             const aip_stack_target *target,
                                             const aip_stack_oracle *module, aip_stack_result *out);

/* For module oracles: what a value of a type is on the stack, from its TypeSpec blob's
 * leading bytes (GENERICINST CLASS, arrays: OBJECT; GENERICINST VALUETYPE: VALUE_TYPE);
 * NOTHING when they do not say. */
alvk_stack_type aip_stack_type_of_type_spec(const uint8_t *spec, uint32_t length);

#endif
