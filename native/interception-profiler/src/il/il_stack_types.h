/* Stack typing of an IL method body (ECMA-335 III.1.8): the type of every evaluation-stack
 * slot at every reachable instruction, so a body that hands an instruction a value it cannot
 * take (an int32 returned where the method returns an object reference, an object where a
 * double is expected, too few arguments for a call, different stack depths where two paths
 * meet) is refused before anything reaches the runtime. The JIT does not verify IL: such a
 * body compiles and corrupts the process.
 *
 * Pure: the instruction walk and the opcode table (il_walk.h, il_opcodes.h: each opcode's
 * stack rule), the signature parsers (metadata/), and an ORACLE the caller supplies for the
 * signatures of the tokens the body uses. Where the oracle cannot answer, the checker does
 * not guess and does not refuse: a value of an unknown type passes every check, and a call
 * whose signature is unknown ends the path it is on (the stack after it is not known).
 *
 * What is checked, on the ECMA-335 stack types (int32, int64, native int, F, O, &, value
 * types), per reachable instruction in flow order:
 *  - underflow: an instruction that needs more values than the stack holds;
 *  - operands: arithmetic, comparison, shift, conversion, branch and switch operands
 *    (III.1.5 tables), addresses (&, native int), object references (O), array indices;
 *  - locations: ldarg/starg and ldloc/stloc against the target's signature and the locals
 *    signature, ret against the return type (and an otherwise empty stack), call, callvirt,
 *    newobj and calli arguments (receiver included) against their signatures, fields against
 *    field signatures, box/unbox.any/ldobj/stobj/ldelem/stelem against their type operand;
 *    the implicit conversions of III.1.6 are allowed (native int for int32 and &, int32 for
 *    native int); value types must be the same TypeDef when both sides name one;
 *  - merge points: every path into an instruction brings the same depth and compatible types
 *    (int32 with native int and native int with & merge, as the JIT merges them); a try
 *    block is entered with an empty stack; catch and filter handlers start with [O], finally
 *    and fault handlers with an empty stack.
 * Generic parameters (VAR, MVAR) of the target are unknown types; those of a referenced
 * member are substituted from its TypeSpec parent and MethodSpec instantiation when the
 * oracle supplies them. Object references are not told apart by class (the managed plan
 * builder checks assignability with reflection). */
#ifndef AIP_IL_STACK_TYPES_H
#define AIP_IL_STACK_TYPES_H

#include "alvorkit_interception_profiler.h"
#include "il/il_walk.h"
#include "il/method_body.h"

#include <stddef.h>
#include <stdint.h>

/* Deepest evaluation stack the checker follows; a deeper path is not checked further. */
#define AIP_STACK_TYPES_MAX_DEPTH 1024u

/* A member the body references, as the oracle describes it. */
typedef struct aip_stack_member {
    /* MethodDefSig, MethodRefSig, StandAloneMethodSig, FieldSig, or (for the locals query)
     * LocalVarSig: the blob, without its length prefix. */
    const uint8_t *signature;
    uint32_t signature_length;
    /* A MethodSpec: its instantiation blob (GENERICINST count types), which gives the
     * signature's MVAR n; NULL otherwise or when not known. */
    const uint8_t *method_instantiation;
    uint32_t method_instantiation_length;
    /* The declaring type's TypeSpec blob (GENERICINST ...), which gives the signature's
     * VAR n; NULL when the declaring type is not a generic instantiation or not known. */
    const uint8_t *owner_instantiation;
    uint32_t owner_instantiation_length;
    /* What a value of the declaring type is on the stack (what newobj pushes): OBJECT for a
     * class, VALUE_TYPE for a struct, NATIVE_INT for System.IntPtr, ...; NOTHING: not known.
     * owner_token: its TypeDef token when it is one (a value type's identity), else 0. */
    alvk_stack_type owner;
    uint32_t owner_token;
} aip_stack_member;

/* A type the body or a signature names, as the oracle describes it: either a TypeSpec blob
 * the checker decodes itself, or what a value of the type is on the stack. */
typedef struct aip_stack_type_answer {
    const uint8_t *spec; /* TypeSpec blob, or NULL */
    uint32_t spec_length;
    /* When spec is NULL: OBJECT for a class, the underlying integer type for an enum,
     * INT32/INT64/NATIVE_INT/FLOAT for the primitive value types, VALUE_TYPE for any other
     * struct; NOTHING when not known. */
    alvk_stack_type stack;
} aip_stack_type_answer;

/* What the checker asks about tokens. operand_offset is the code offset of the token
 * operand that holds `token` (so placeholder tokens a relocation fills can be told apart),
 * ALVK_RELOCATION_LOCALS_SIGNATURE for the header's LocalVarSigTok, or
 * ALVK_RELOCATION_NO_OPERAND for a token met inside a signature blob. Each returns 1 and
 * fills *out when it knows the answer, 0 otherwise; blobs must stay valid for the check. */
typedef struct aip_stack_oracle {
    void *context;
    /* MethodDef, MemberRef, MethodSpec (the generic method's signature, with the
     * instantiation), FieldDef, StandAloneSig. */
    int (*member)(void *context, uint32_t token, uint32_t operand_offset, aip_stack_member *out);
    /* TypeDef, TypeRef, TypeSpec. */
    int (*type)(void *context, uint32_t token, uint32_t operand_offset, aip_stack_type_answer *out);
} aip_stack_oracle;

/* The code to check, as aip_method_body_parse found it. */
typedef struct aip_stack_body {
    const uint8_t *code;
    uint32_t code_size;
    const aip_eh_clause *clauses;
    uint32_t clause_count;
    uint32_t locals_token; /* the header's LocalVarSigTok; 0: no locals */
} aip_stack_body;

/* The method the body belongs to. */
typedef struct aip_stack_target {
    const uint8_t *signature; /* its MethodDefSig; when it does not parse, arguments and the
                               * return value are unknown */
    uint32_t signature_length;
    uint32_t value_type_receiver; /* instance method of a value type: `this` is & */
} aip_stack_target;

typedef struct aip_stack_result {
    /* ALVK_E_STACK_TYPE_MISMATCH: the instruction (or the merge point) and its opcode; the
     * type it found on the stack (NOTHING: the stack held too few values) and the type it
     * needs there (NOTHING: no value, as after ret or at a try block's start). An instruction
     * that takes a value of any type and finds none reports INT32 as expected. */
    uint32_t offset;
    uint32_t opcode;
    alvk_stack_type found;
    alvk_stack_type expected;
    /* 1 when every reachable instruction was checked: no unknown call signature cut a path
     * short, and no bound (AIP_STACK_TYPES_MAX_DEPTH, the work bound) was met. */
    uint32_t complete;
} aip_stack_result;

/* Checks body against target. ALVK_OK when no reachable instruction finds a type it cannot
 * take (as far as the oracle's answers reach: see complete); ALVK_E_STACK_TYPE_MISMATCH with
 * *out describing the first mismatch met; the walk's ALVK_E_IL_MALFORMED /
 * ALVK_E_LIMIT_EXCEEDED for code that is not an instruction stream; ALVK_E_NULL_ARGUMENT.
 * oracle may be NULL, or have NULL functions (nothing is known about tokens). EH clauses
 * whose offsets are not instruction starts are ignored (the JIT refuses those bodies).
 * Allocates working memory and frees it; when it cannot, returns ALVK_OK incomplete. */
alvk_status aip_il_check_stack_types(const aip_stack_body *body, const aip_stack_target *target,
                                     const aip_stack_oracle *oracle, aip_stack_result *out);

/* For oracles: the stack type of a value of the named type when it is one of the
 * primitive or special types of System ("System.Int32" -> INT32, "System.IntPtr" ->
 * NATIVE_INT, "System.Double" -> FLOAT, "System.String" -> OBJECT, ...); NOTHING
 * otherwise. name is namespace and name joined by '.', name_length bytes, no NUL needed. */
alvk_stack_type aip_stack_type_of_system_name(const char *name, size_t name_length);

/* The stack type of a value of a primitive element type (ECMA-335 III.1.1.1): BOOLEAN,
 * CHAR and the integers up to 32 bits -> INT32, I8/U8 -> INT64, I/U -> NATIVE_INT, R4/R8 ->
 * FLOAT, STRING/OBJECT -> OBJECT; NOTHING for any other element (the one table of this
 * rule: the checker and the oracles read it). */
alvk_stack_type aip_stack_type_of_primitive(uint8_t element);

/* "int32", "native int", "F", "O", "&", "value type", "nothing". */
const char *aip_stack_type_name(alvk_stack_type type);

#endif
