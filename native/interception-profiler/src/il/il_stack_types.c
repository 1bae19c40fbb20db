/* Stack typing of an IL body (il_stack_types.h): a forward dataflow over the instruction
 * stream. Block leaders (the entry, branch targets, instructions after a transfer, try and
 * handler starts) keep the stack state that reaches them; a worklist runs each leader's block
 * until the state at every leader stops changing.
 *
 * A stack slot is a SET of what the paths reaching it may have put there: concrete stack
 * types, "a value type the oracle could not classify" (VOI: a struct, an enum or a primitive
 * value type: anything but O or &) and "unknown". Merging is a union, checked pairwise for
 * compatibility; a use is checked against every concrete member (VOI passes when one of its
 * possible types would). So the state at a leader only grows, a use that passes on the final
 * state passed on every earlier one, and which mismatch is found does not depend on the order
 * blocks are run in. Unknown members pass every check: the checker refuses only what it sees. */
#include "il/il_stack_types.h"

#include "coreclr/cor_metadata_defs.h"
#include "metadata/signature_blobs.h"

#include <stdlib.h>
#include <string.h>

/* Slot members: one bit per concrete stack type (bit n-1 for alvk_stack_type n), then VOI
 * and UNK. */
#define S_I4 0x001u
#define S_I8 0x002u
#define S_I 0x004u
#define S_F 0x008u
#define S_O 0x010u
#define S_BR 0x020u
#define S_VT 0x040u
#define S_VOI 0x080u
#define S_UNK 0x100u
#define S_CONCRETE 0x07Fu
#define S_INTS (S_I4 | S_I)
#define S_ADDRESS (S_BR | S_I)
#define S_VOI_MEMBERS (S_I4 | S_I8 | S_I | S_F | S_VT)
#define S_ALL 0x1FFu

typedef struct slot {
    uint16_t mask;
    uint32_t vt; /* with S_VT: the TypeDef token all its value types are, or 0 (any) */
} slot;

/* Instantiation arguments for VAR n / MVAR n. */
#define AIP_STACK_MAX_GENERIC_ARGS 32u
typedef struct generic_args {
    const uint8_t *blob;
    uint32_t length;
    uint32_t count;
    aip_sig_type args[AIP_STACK_MAX_GENERIC_ARGS];
} generic_args;

#define LEADER_TRY_START 0x1u
#define UNVISITED UINT32_MAX
/* Slots all leader states may hold together (8 bytes each), and block runs per leader. */
#define AIP_STACK_ARENA_MAX (1u << 20)
#define AIP_STACK_RUNS_PER_LEADER 64u
/* Nesting of value-type TypeSpecs decoded through the oracle. */
#define AIP_STACK_MAX_SPEC_DEPTH 4u

typedef struct leader {
    uint32_t offset;
    uint32_t depth; /* UNVISITED until a state reaches it */
    uint32_t at;    /* first slot in the arena */
    uint8_t flags;
    uint8_t queued;
} leader;

typedef enum step {
    STEP_NEXT, /* fall through to the next instruction */
    STEP_END,  /* no fall-through (its successors, if any, were merged) */
    STEP_CUT,  /* the stack after it is not known: the path ends unchecked */
    STEP_FAIL  /* a mismatch; out is filled */
} step;

typedef struct checker {
    const aip_stack_body *body;
    const aip_stack_oracle *oracle;
    aip_stack_result *out;
    aip_il_starts starts;
    slot *args;
    uint32_t arg_count;
    uint8_t args_known;
    uint8_t ret_known;
    slot ret;
    slot *locals;
    uint32_t local_count;
    uint8_t locals_known;
    uint32_t *leader_of; /* per code offset: leader index + 1, or 0 */
    leader *leaders;
    uint32_t leader_count;
    uint32_t *work;
    uint32_t work_count;
    slot *arena;
    uint32_t arena_used;
    uint32_t arena_capacity;
    uint64_t runs_left;
    slot stack[AIP_STACK_TYPES_MAX_DEPTH];
    uint32_t depth;
    aip_method_sig sig; /* scratch for the signature of one call */
} checker;

/* ------------------------------------------------------------------------- names */

const char *aip_stack_type_name(alvk_stack_type type)
{
    switch (type) {
    case ALVK_STACK_NOTHING:
        return "nothing";
    case ALVK_STACK_INT32:
        return "int32";
    case ALVK_STACK_INT64:
        return "int64";
    case ALVK_STACK_NATIVE_INT:
        return "native int";
    case ALVK_STACK_FLOAT:
        return "F";
    case ALVK_STACK_OBJECT:
        return "O";
    case ALVK_STACK_BYREF:
        return "&";
    case ALVK_STACK_VALUE_TYPE:
        return "value type";
    default:
        return "?";
    }
}

alvk_stack_type aip_stack_type_of_system_name(const char *name, size_t name_length)
{
    static const struct {
        const char *name;
        alvk_stack_type type;
    } names[] = {
        {"System.Boolean", ALVK_STACK_INT32},
        {"System.Char", ALVK_STACK_INT32},
        {"System.SByte", ALVK_STACK_INT32},
        {"System.Byte", ALVK_STACK_INT32},
        {"System.Int16", ALVK_STACK_INT32},
        {"System.UInt16", ALVK_STACK_INT32},
        {"System.Int32", ALVK_STACK_INT32},
        {"System.UInt32", ALVK_STACK_INT32},
        {"System.Int64", ALVK_STACK_INT64},
        {"System.UInt64", ALVK_STACK_INT64},
        {"System.IntPtr", ALVK_STACK_NATIVE_INT},
        {"System.UIntPtr", ALVK_STACK_NATIVE_INT},
        {"System.Single", ALVK_STACK_FLOAT},
        {"System.Double", ALVK_STACK_FLOAT},
        {"System.String", ALVK_STACK_OBJECT},
        {"System.Object", ALVK_STACK_OBJECT},
        {"System.TypedReference", ALVK_STACK_VALUE_TYPE},
    };
    if (name == NULL)
        return ALVK_STACK_NOTHING;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
        size_t n = strlen(names[i].name);
        if (n == name_length && memcmp(names[i].name, name, n) == 0)
            return names[i].type;
    }
    return ALVK_STACK_NOTHING;
}

alvk_stack_type aip_stack_type_of_primitive(uint8_t element)
{
    switch (element) {
    case ELEMENT_TYPE_BOOLEAN:
    case ELEMENT_TYPE_CHAR:
    case ELEMENT_TYPE_I1:
    case ELEMENT_TYPE_U1:
    case ELEMENT_TYPE_I2:
    case ELEMENT_TYPE_U2:
    case ELEMENT_TYPE_I4:
    case ELEMENT_TYPE_U4:
        return ALVK_STACK_INT32;
    case ELEMENT_TYPE_I8:
    case ELEMENT_TYPE_U8:
        return ALVK_STACK_INT64;
    case ELEMENT_TYPE_I:
    case ELEMENT_TYPE_U:
        return ALVK_STACK_NATIVE_INT;
    case ELEMENT_TYPE_R4:
    case ELEMENT_TYPE_R8:
        return ALVK_STACK_FLOAT;
    case ELEMENT_TYPE_STRING:
    case ELEMENT_TYPE_OBJECT:
        return ALVK_STACK_OBJECT;
    default:
        return ALVK_STACK_NOTHING;
    }
}

/* ------------------------------------------------------------------------- slots */

static slot make(uint16_t mask)
{
    slot s = {mask, 0};
    return s;
}

static uint16_t bit_of(alvk_stack_type type)
{
    return type >= ALVK_STACK_INT32 && type <= ALVK_STACK_VALUE_TYPE
               ? (uint16_t)(1u << ((uint32_t)type - 1u))
               : 0;
}

/* The stack type to report for one member (or the lowest member of a set). */
static alvk_stack_type type_of(uint16_t mask)
{
    for (uint32_t t = ALVK_STACK_INT32; t <= ALVK_STACK_VALUE_TYPE; ++t)
        if (mask & (1u << (t - 1u)))
            return (alvk_stack_type)t;
    if (mask & S_VOI)
        return ALVK_STACK_VALUE_TYPE;
    return mask == 0 ? ALVK_STACK_NOTHING : ALVK_STACK_INT32; /* unknown: "a value" */
}

static uint16_t lowest(uint16_t mask)
{
    return (uint16_t)(mask & (uint16_t)(~mask + 1u));
}

/* A slot for a value a stack type describes (an oracle's answer). */
static slot slot_of_answer(alvk_stack_type type, uint32_t token, int value_type_context)
{
    slot s = make(bit_of(type));
    if (s.mask == 0 || (value_type_context && (s.mask & (S_O | S_BR))))
        return make(value_type_context ? S_VOI : S_UNK);
    if (s.mask == S_BR)
        return make(S_UNK); /* no type is a managed pointer */
    if (s.mask == S_VT && AIP_TYPE_FROM_TOKEN(token) == mdtTypeDef && !AIP_IS_NIL_TOKEN(token))
        s.vt = token;
    return s;
}

/* ------------------------------------------------------------------- reporting */

static step fail(checker *c, uint32_t offset, alvk_stack_type found, alvk_stack_type expected)
{
    aip_il_instruction insn;
    c->out->offset = offset;
    c->out->opcode = aip_il_decode(c->body->code, c->body->code_size, offset, &insn) == ALVK_OK
                         ? insn.opcode
                         : 0;
    c->out->found = found;
    c->out->expected = expected;
    return STEP_FAIL;
}

/* Whether every member of s is accepted: concrete members must be in `accept` (a value type
 * must also be `vt` when both name one); VOI needs one of its possible types accepted;
 * unknown members pass. *found is the first member that is not. */
static int accepts(slot s, uint16_t accept, uint32_t vt, uint16_t *found)
{
    uint16_t bad = (uint16_t)(s.mask & S_CONCRETE & ~accept);
    if (bad != 0) {
        *found = lowest(bad);
        return 0;
    }
    if ((s.mask & S_VT) && vt != 0 && s.vt != 0 && vt != s.vt) {
        *found = S_VT;
        return 0;
    }
    if ((s.mask & S_VOI) && (accept & S_VOI_MEMBERS) == 0) {
        *found = S_VOI;
        return 0;
    }
    return 1;
}

/* What a location (argument, local, field, parameter, return value, array element) of type
 * `loc` accepts (ECMA-335 III.1.6: native int for int32 and &, int32 for native int). */
static uint16_t accept_of(slot loc)
{
    switch (loc.mask) {
    case S_I4:
        return S_I4 | S_I;
    case S_I8:
        return S_I8;
    case S_I:
        return S_I4 | S_I | S_BR;
    case S_F:
        return S_F;
    case S_O:
        return S_O;
    case S_BR:
        return S_BR | S_I;
    case S_VT:
        return S_VT;
    case S_VOI:
        return S_I4 | S_I8 | S_I | S_F | S_BR | S_VT;
    default:
        return S_ALL; /* unknown */
    }
}

/* The top `n` values must exist: needs `expected` (the deepest missing one) otherwise. */
static int need(checker *c, const aip_il_instruction *in, uint32_t n, alvk_stack_type expected,
                step *result)
{
    if (c->depth >= n)
        return 1;
    *result = fail(c, in->offset, ALVK_STACK_NOTHING, expected);
    return 0;
}

/* Checks the value at stack index i (from the bottom) against an accept set. */
static int take(checker *c, const aip_il_instruction *in, uint32_t i, uint16_t accept, uint32_t vt,
                alvk_stack_type expected, step *result)
{
    uint16_t found;
    if (accepts(c->stack[i], accept, vt, &found))
        return 1;
    *result = fail(c, in->offset, type_of(found), expected);
    return 0;
}

/* ... against a location's type. */
static int fits(checker *c, const aip_il_instruction *in, uint32_t i, slot loc, step *result)
{
    if (loc.mask & S_UNK)
        return 1;
    return take(c, in, i, accept_of(loc), loc.mask == S_VT ? loc.vt : 0, type_of(loc.mask), result);
}

static step push(checker *c, slot s)
{
    if (c->depth >= AIP_STACK_TYPES_MAX_DEPTH) {
        c->out->complete = 0;
        return STEP_CUT;
    }
    c->stack[c->depth++] = s;
    return STEP_NEXT;
}

/* ------------------------------------------------------------- signatures */

static int ask_type(const checker *c, uint32_t token, uint32_t operand_offset,
                    aip_stack_type_answer *answer)
{
    memset(answer, 0, sizeof *answer);
    return c->oracle != NULL && c->oracle->type != NULL &&
           c->oracle->type(c->oracle->context, token, operand_offset, answer);
}

static int ask_member(const checker *c, uint32_t token, uint32_t operand_offset,
                      aip_stack_member *member)
{
    memset(member, 0, sizeof *member);
    return c->oracle != NULL && c->oracle->member != NULL &&
           c->oracle->member(c->oracle->context, token, operand_offset, member) &&
           member->signature != NULL && member->signature_length != 0;
}

static slot slot_of_sig_type(checker *c, const uint8_t *blob, size_t length, const aip_sig_type *t,
                             const generic_args *type_args, const generic_args *method_args,
                             uint32_t depth);

/* A TypeSpec blob, as one slot; VAR and MVAR in it are unknown. */
static slot slot_of_spec(checker *c, const uint8_t *spec, uint32_t length, uint32_t depth)
{
    aip_sig_type t;
    if (depth > AIP_STACK_MAX_SPEC_DEPTH || spec == NULL ||
        aip_sig_parse_type_spec(spec, length, &t) != ALVK_OK)
        return make(S_UNK);
    return slot_of_sig_type(c, spec, length, &t, NULL, NULL, depth + 1);
}

/* VALUETYPE <token> in a signature: what the oracle says, else a value type of unknown kind. */
static slot slot_of_value_type(checker *c, uint32_t token, uint32_t depth)
{
    aip_stack_type_answer answer;
    if (!ask_type(c, token, ALVK_RELOCATION_NO_OPERAND, &answer))
        return make(S_VOI);
    if (answer.spec != NULL) {
        slot s = slot_of_spec(c, answer.spec, answer.spec_length, depth);
        return (s.mask & (S_O | S_BR | S_UNK)) ? make(S_VOI) : s;
    }
    return slot_of_answer(answer.stack, token, 1);
}

/* A type operand (box, unbox.any, ldobj, stobj, ldelem, stelem): unknown when not known. */
static slot slot_of_type_operand(checker *c, uint32_t token, uint32_t operand_offset)
{
    aip_stack_type_answer answer;
    if (!ask_type(c, token, operand_offset, &answer))
        return make(S_UNK);
    if (answer.spec != NULL)
        return slot_of_spec(c, answer.spec, answer.spec_length, 0);
    return slot_of_answer(answer.stack, token, 0);
}

static slot generic_arg(checker *c, const generic_args *args, uint32_t n, uint32_t depth)
{
    if (args == NULL || n >= args->count || depth > AIP_STACK_MAX_SPEC_DEPTH)
        return make(S_UNK);
    return slot_of_sig_type(c, args->blob, args->length, &args->args[n], NULL, NULL, depth + 1);
}

static slot slot_of_sig_type(checker *c, const uint8_t *blob, size_t length, const aip_sig_type *t,
                             const generic_args *type_args, const generic_args *method_args,
                             uint32_t depth)
{
    if (t->is_byref)
        return make(S_BR);
    size_t at = t->offset;
    size_t end = (size_t)t->offset + t->length;
    if (end > length)
        return make(S_UNK); /* not a type of this blob */
    uint32_t token, n;
    while (at < end) { /* the prefixes the parser accepted: modifiers, PINNED */
        uint8_t b = blob[at];
        if (b == ELEMENT_TYPE_CMOD_REQD || b == ELEMENT_TYPE_CMOD_OPT) {
            at += 1;
            if (aip_sig_read_type_token(blob, end, &at, &token) != ALVK_OK)
                return make(S_UNK);
        } else if (b == ELEMENT_TYPE_PINNED) {
            at += 1;
        } else {
            break;
        }
    }
    if (at >= end)
        return make(S_UNK);
    uint8_t element = blob[at++];
    alvk_stack_type primitive = aip_stack_type_of_primitive(element);
    if (primitive != ALVK_STACK_NOTHING)
        return make(bit_of(primitive));
    switch (element) {
    case ELEMENT_TYPE_PTR:
    case ELEMENT_TYPE_FNPTR:
        return make(S_I);
    case ELEMENT_TYPE_CLASS:
    case ELEMENT_TYPE_SZARRAY:
    case ELEMENT_TYPE_ARRAY:
        return make(S_O);
    case ELEMENT_TYPE_TYPEDBYREF:
        return make(S_VT);
    case ELEMENT_TYPE_VALUETYPE:
        if (aip_sig_read_type_token(blob, end, &at, &token) != ALVK_OK)
            return make(S_UNK);
        return slot_of_value_type(c, token, depth);
    case ELEMENT_TYPE_GENERICINST: {
        if (at >= end)
            return make(S_UNK);
        uint8_t kind = blob[at++];
        if (kind == ELEMENT_TYPE_CLASS)
            return make(S_O);
        if (aip_sig_read_type_token(blob, end, &at, &token) != ALVK_OK)
            return make(S_UNK);
        /* A generic value type: its definition says struct or enum; no single TypeDef
         * names an instantiation, so its identity is not compared. */
        slot s = slot_of_value_type(c, token, depth);
        s.vt = 0;
        return s;
    }
    case ELEMENT_TYPE_VAR:
    case ELEMENT_TYPE_MVAR:
        if (aip_sig_read_compressed(blob, end, &at, &n) != ALVK_OK)
            return make(S_UNK);
        return generic_arg(c, element == ELEMENT_TYPE_VAR ? type_args : method_args, n, depth);
    default: /* VOID has no value; anything else is not known */
        return make(S_UNK);
    }
}

/* The arguments of a GENERICINST TypeSpec (owner) or a MethodSpec instantiation. */
static void parse_generic_args(const uint8_t *blob, uint32_t length, int method, generic_args *out)
{
    memset(out, 0, sizeof *out);
    if (blob == NULL || length == 0)
        return;
    size_t at = 1;
    uint32_t token, count;
    if (method) {
        if (blob[0] != IMAGE_CEE_CS_CALLCONV_GENERICINST)
            return;
    } else {
        if (blob[0] != ELEMENT_TYPE_GENERICINST || length < 2)
            return;
        at = 2; /* CLASS or VALUETYPE */
        if (aip_sig_read_type_token(blob, length, &at, &token) != ALVK_OK)
            return;
    }
    if (aip_sig_read_compressed(blob, length, &at, &count) != ALVK_OK)
        return;
    if (count > AIP_STACK_MAX_GENERIC_ARGS)
        count = AIP_STACK_MAX_GENERIC_ARGS; /* later ones stay unknown */
    for (uint32_t i = 0; i < count; ++i)
        if (aip_sig_parse_type(blob, length, &at, 0, &out->args[i]) != ALVK_OK)
            return; /* none known unless all parse */
    out->blob = blob;
    out->length = length;
    out->count = count;
}

/* The target's arguments and return type, and the locals. */
static void load_signature(checker *c, const aip_stack_target *target)
{
    if (target->signature == NULL ||
        aip_sig_parse_method(target->signature, target->signature_length, 0, &c->sig) != ALVK_OK)
        return;
    uint32_t receiver = c->sig.has_this && !c->sig.explicit_this;
    c->args = malloc(((size_t)c->sig.param_count + receiver + 1u) * sizeof *c->args);
    if (c->args == NULL)
        return;
    if (receiver)
        c->args[c->arg_count++] = make(target->value_type_receiver ? S_BR : S_O);
    /* The target's own VAR and MVAR are unknown: the body serves every instantiation. */
    for (uint32_t i = 0; i < c->sig.param_count; ++i)
        c->args[c->arg_count++] = slot_of_sig_type(c, target->signature, target->signature_length,
                                                   &c->sig.params[i], NULL, NULL, 0);
    c->args_known = 1;
    if (c->sig.ret.element_type == ELEMENT_TYPE_VOID && !c->sig.ret.is_byref)
        c->ret = make(0);
    else
        c->ret = slot_of_sig_type(c, target->signature, target->signature_length, &c->sig.ret, NULL,
                                  NULL, 0);
    c->ret_known = 1;
}

static void load_locals(checker *c)
{
    uint32_t token = c->body->locals_token;
    if (token == 0) {
        c->locals_known = 1;
        return;
    }
    aip_stack_member m;
    uint32_t count;
    if (!ask_member(c, token, ALVK_RELOCATION_LOCALS_SIGNATURE, &m) ||
        aip_sig_parse_locals(m.signature, m.signature_length, &count) != ALVK_OK)
        return;
    c->locals = malloc((size_t)count * sizeof *c->locals);
    if (c->locals == NULL)
        return;
    size_t at = 1;
    uint32_t ignored;
    aip_sig_read_compressed(m.signature, m.signature_length, &at, &ignored);
    for (uint32_t i = 0; i < count; ++i) {
        aip_sig_type t;
        if (aip_sig_parse_type(m.signature, m.signature_length, &at, 1, &t) != ALVK_OK)
            return; /* parsed once already: cannot happen */
        c->locals[i] = slot_of_sig_type(c, m.signature, m.signature_length, &t, NULL, NULL, 0);
    }
    c->local_count = count;
    c->locals_known = 1;
}

/* ---------------------------------------------------------------- merging */

/* Whether two members may meet at a merge point. */
static int compatible(uint16_t a, uint16_t b)
{
    uint16_t pair = (uint16_t)(a | b);
    if (a == b || (pair & S_UNK))
        return 1;
    if (pair == (S_I4 | S_I) || pair == (S_I | S_BR))
        return 1;
    if (a == S_VOI || b == S_VOI)
        return (pair & S_O) == 0; /* any of its possible types, & through native int */
    return 0;
}

static step merge_into(checker *c, uint32_t index)
{
    leader *l = &c->leaders[index];
    if ((l->flags & LEADER_TRY_START) && c->depth != 0)
        return fail(c, l->offset, type_of(c->stack[c->depth - 1].mask), ALVK_STACK_NOTHING);
    int changed = 0;
    if (l->depth == UNVISITED) {
        if ((uint64_t)c->arena_used + c->depth > AIP_STACK_ARENA_MAX) {
            c->out->complete = 0;
            return STEP_CUT;
        }
        if (c->arena_used + c->depth > c->arena_capacity) {
            uint32_t capacity = c->arena_capacity * 2u + c->depth + 64u;
            if (capacity > AIP_STACK_ARENA_MAX)
                capacity = AIP_STACK_ARENA_MAX;
            slot *grown = realloc(c->arena, (size_t)capacity * sizeof *grown);
            if (grown == NULL) {
                c->out->complete = 0;
                return STEP_CUT;
            }
            c->arena = grown;
            c->arena_capacity = capacity;
        }
        l->at = c->arena_used;
        l->depth = c->depth;
        c->arena_used += c->depth;
        if (c->depth > 0)
            memcpy(c->arena + l->at, c->stack, (size_t)c->depth * sizeof *c->stack);
        changed = 1;
    } else if (l->depth != c->depth) {
        alvk_stack_type found =
            c->depth > l->depth ? type_of(c->stack[c->depth - 1].mask) : ALVK_STACK_NOTHING;
        alvk_stack_type expected =
            l->depth > c->depth ? type_of(c->arena[l->at + l->depth - 1].mask) : ALVK_STACK_NOTHING;
        return fail(c, l->offset, found, expected);
    } else {
        for (uint32_t i = 0; i < c->depth; ++i) {
            slot *e = &c->arena[l->at + i];
            slot in = c->stack[i];
            uint16_t all = (uint16_t)(e->mask | in.mask);
            for (uint16_t x = in.mask; x != 0; x &= (uint16_t)(x - 1u))
                for (uint16_t y = all; y != 0; y &= (uint16_t)(y - 1u))
                    if (!compatible(lowest(x), lowest(y)))
                        return fail(c, l->offset, type_of(lowest(x)), type_of(lowest(y)));
            uint32_t vt = e->vt;
            if ((in.mask & S_VT) && in.vt != 0) {
                if ((e->mask & S_VT) && e->vt != 0 && e->vt != in.vt)
                    return fail(c, l->offset, ALVK_STACK_VALUE_TYPE, ALVK_STACK_VALUE_TYPE);
                vt = in.vt;
            }
            if (all != e->mask || vt != e->vt) {
                e->mask = all;
                e->vt = vt;
                changed = 1;
            }
        }
    }
    if (changed && !l->queued) {
        l->queued = 1;
        c->work[c->work_count++] = index;
    }
    return STEP_NEXT;
}

static step merge_at(checker *c, uint32_t offset)
{
    if (offset >= c->body->code_size || c->leader_of[offset] == 0)
        return STEP_NEXT; /* the walk checked every target: cannot happen */
    return merge_into(c, c->leader_of[offset] - 1u);
}

/* --------------------------------------------------------------- operators */

/* Binary numeric operations (III.1.5): the result member, or 0 when the pair is invalid. */
static uint16_t arithmetic(uint32_t opcode, aip_stack_rule rule, uint16_t a, uint16_t b)
{
    int add = opcode == AIP_CEE_ADD || opcode == AIP_CEE_ADD_OVF_UN;
    int sub = opcode == AIP_CEE_SUB || opcode == AIP_CEE_SUB_OVF_UN;
    if (rule == AIP_STACK_RULE_SHIFT) /* the value's type, shifted by an int32 or native int */
        return ((a & (S_INTS | S_I8)) && (b & S_INTS)) ? a : 0;
    if ((a & S_INTS) && (b & S_INTS))
        return a == S_I4 && b == S_I4 ? S_I4 : S_I;
    if (a == S_I8 && b == S_I8)
        return S_I8;
    if (rule == AIP_STACK_RULE_INTEGER)
        return 0;
    if (rule == AIP_STACK_RULE_ARITHMETIC && a == S_F && b == S_F)
        return S_F;
    if (a == S_BR && (b & S_INTS) && (add || sub))
        return S_BR;
    if ((a & S_INTS) && b == S_BR && add)
        return S_BR;
    if (a == S_BR && b == S_BR && sub)
        return S_I;
    return 0;
}

/* Binary comparisons and compare-and-branch (III.1.5 table 4). */
static uint16_t comparison(uint32_t opcode, aip_stack_rule rule, uint16_t a, uint16_t b)
{
    (void)opcode;
    (void)rule;
    uint16_t pair = (uint16_t)(a | b);
    int ok = ((a & S_INTS) && (b & S_INTS)) || pair == S_I8 || pair == S_F || pair == S_O ||
             pair == S_BR || pair == (S_BR | S_I);
    return ok ? S_I4 : 0;
}

typedef uint16_t (*binary_fn)(uint32_t opcode, aip_stack_rule rule, uint16_t a, uint16_t b);

/* For reports: the stack type the other operand of a valid operand `member` should have. */
static alvk_stack_type partner(uint16_t member)
{
    switch (member) {
    case S_I8:
        return ALVK_STACK_INT64;
    case S_I:
        return ALVK_STACK_NATIVE_INT;
    case S_F:
        return ALVK_STACK_FLOAT;
    case S_O:
        return ALVK_STACK_OBJECT;
    case S_BR:
        return ALVK_STACK_NATIVE_INT;
    default:
        return ALVK_STACK_INT32;
    }
}

/* Whether some concrete operand makes `member` a valid first (second) operand. */
static int operand_ok(binary_fn fn, const aip_il_instruction *in, aip_stack_rule rule,
                      uint16_t member, int first)
{
    uint16_t members = member == S_VOI ? S_VOI_MEMBERS : member;
    for (uint16_t p = members; p != 0; p &= (uint16_t)(p - 1u))
        for (uint16_t q = S_CONCRETE; q != 0; q &= (uint16_t)(q - 1u))
            if (first ? fn(in->opcode, rule, lowest(p), lowest(q))
                      : fn(in->opcode, rule, lowest(q), lowest(p)))
                return 1;
    return 0;
}

/* Every pair of members of the two top values; the union of the results (unknown where a
 * member is). */
static step binary(checker *c, const aip_il_instruction *in, aip_stack_rule rule, binary_fn fn,
                   uint16_t *result)
{
    step r = STEP_NEXT;
    if (!need(c, in, 2, ALVK_STACK_INT32, &r))
        return r;
    slot a = c->stack[c->depth - 2], b = c->stack[c->depth - 1];
    *result = 0;
    for (uint16_t xs = a.mask; xs != 0; xs &= (uint16_t)(xs - 1u)) {
        for (uint16_t ys = b.mask; ys != 0; ys &= (uint16_t)(ys - 1u)) {
            uint16_t x = lowest(xs), y = lowest(ys);
            if ((x | y) & S_UNK) {
                *result |= S_UNK;
                continue;
            }
            uint16_t cx = x == S_VOI ? S_VOI_MEMBERS : x, cy = y == S_VOI ? S_VOI_MEMBERS : y;
            uint16_t got = 0;
            int valid = 0;
            for (uint16_t p = cx; p != 0; p &= (uint16_t)(p - 1u))
                for (uint16_t q = cy; q != 0; q &= (uint16_t)(q - 1u)) {
                    uint16_t v = fn(in->opcode, rule, lowest(p), lowest(q));
                    valid |= v != 0;
                    got |= v;
                }
            if (!valid) { /* blame the operand that is wrong whatever the other one is */
                if (operand_ok(fn, in, rule, x, 1))
                    return fail(c, in->offset, type_of(y), partner(x == S_VOI ? S_I4 : x));
                return fail(c, in->offset, type_of(x),
                            operand_ok(fn, in, rule, y, 0) ? partner(y == S_VOI ? S_I4 : y)
                                                           : ALVK_STACK_INT32);
            }
            *result |= (x == S_VOI || y == S_VOI) ? S_UNK : got;
        }
    }
    return STEP_NEXT;
}

/* ------------------------------------------------------------------- calls */

static uint32_t read32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static slot owner_slot(const aip_stack_member *m)
{
    return slot_of_answer(m->owner, m->owner_token, 0);
}

/* call, callvirt, calli, newobj: arguments (receiver first) against the signature. */
static step call(checker *c, const aip_il_instruction *in, aip_stack_rule rule)
{
    uint32_t token = read32(c->body->code + in->operand_offset);
    aip_stack_member m;
    if (!ask_member(c, token, in->operand_offset, &m) ||
        m.signature[0] == IMAGE_CEE_CS_CALLCONV_FIELD ||
        m.signature[0] == IMAGE_CEE_CS_CALLCONV_LOCAL_SIG ||
        aip_sig_parse_method(m.signature, m.signature_length, 0, &c->sig) != ALVK_OK) {
        c->out->complete = 0;
        return STEP_CUT;
    }
    generic_args type_args, method_args;
    parse_generic_args(m.owner_instantiation, m.owner_instantiation_length, 0, &type_args);
    parse_generic_args(m.method_instantiation, m.method_instantiation_length, 1, &method_args);
    uint32_t receiver = rule != AIP_STACK_RULE_NEWOBJ && c->sig.has_this && !c->sig.explicit_this;
    uint32_t ftn = rule == AIP_STACK_RULE_CALLI;
    uint32_t count = c->sig.param_count + receiver;
    alvk_stack_type this_type =
        m.owner == ALVK_STACK_VALUE_TYPE ? ALVK_STACK_BYREF : ALVK_STACK_OBJECT;
    step r = STEP_NEXT;
    if (c->depth < count + ftn) {
        /* clang-format off */
        alvk_stack_type first =
            receiver ? this_type
            : count > 0
                ? type_of(slot_of_sig_type(c, m.signature, m.signature_length, &c->sig.params[0],
                                           &type_args, &method_args, 0).mask)
                : ALVK_STACK_NATIVE_INT;
        /* clang-format on */
        return fail(c, in->offset, ALVK_STACK_NOTHING, first);
    }
    if (ftn && !take(c, in, c->depth - 1, S_I, 0, ALVK_STACK_NATIVE_INT, &r))
        return r;
    uint32_t base = c->depth - ftn - count;
    if (receiver && !take(c, in, base, S_O | S_BR | S_I, 0, this_type, &r))
        return r;
    for (uint32_t i = 0; i < c->sig.param_count; ++i) {
        slot p = slot_of_sig_type(c, m.signature, m.signature_length, &c->sig.params[i], &type_args,
                                  &method_args, 0);
        if (!fits(c, in, base + receiver + i, p, &r))
            return r;
    }
    c->depth = base;
    if (rule == AIP_STACK_RULE_NEWOBJ)
        return push(c, owner_slot(&m));
    if (c->sig.ret.element_type == ELEMENT_TYPE_VOID && !c->sig.ret.is_byref)
        return STEP_NEXT;
    return push(c, slot_of_sig_type(c, m.signature, m.signature_length, &c->sig.ret, &type_args,
                                    &method_args, 0));
}

/* The type of the field an ldfld/stfld/... names; unknown when the oracle cannot say. */
static slot field_type(checker *c, const aip_il_instruction *in)
{
    uint32_t token = read32(c->body->code + in->operand_offset);
    aip_stack_member m;
    aip_sig_type t;
    if (!ask_member(c, token, in->operand_offset, &m) ||
        m.signature[0] != IMAGE_CEE_CS_CALLCONV_FIELD ||
        aip_sig_parse_field(m.signature, m.signature_length, &t) != ALVK_OK)
        return make(S_UNK);
    generic_args type_args;
    parse_generic_args(m.owner_instantiation, m.owner_instantiation_length, 0, &type_args);
    return slot_of_sig_type(c, m.signature, m.signature_length, &t, &type_args, NULL, 0);
}

static slot type_operand(checker *c, const aip_il_instruction *in)
{
    return slot_of_type_operand(c, read32(c->body->code + in->operand_offset), in->operand_offset);
}

/* ------------------------------------------------------------ instructions */

static uint32_t variable_index(const checker *c, const aip_il_instruction *in)
{
    const uint8_t *operand = c->body->code + in->operand_offset;
    switch (in->operand_kind) {
    case AIP_OPERAND_SHORT_VAR:
        return operand[0];
    case AIP_OPERAND_VAR:
        return (uint32_t)operand[0] | ((uint32_t)operand[1] << 8);
    default:
        break;
    }
    switch (in->opcode) { /* ldarg.0-3, ldloc.0-3, stloc.0-3 */
    case AIP_CEE_LDARG_0:
    case AIP_CEE_LDLOC_0:
    case AIP_CEE_STLOC_0:
        return 0;
    case AIP_CEE_LDARG_1:
    case AIP_CEE_LDLOC_1:
    case AIP_CEE_STLOC_1:
        return 1;
    case AIP_CEE_LDARG_2:
    case AIP_CEE_LDLOC_2:
    case AIP_CEE_STLOC_2:
        return 2;
    default:
        return 3;
    }
}

static uint32_t branch_target(const checker *c, const aip_il_instruction *in, uint32_t i)
{
    const uint8_t *operand = c->body->code + in->operand_offset;
    int32_t displacement = in->operand_kind == AIP_OPERAND_SHORT_BR ? (int8_t)operand[0]
                           : in->operand_kind == AIP_OPERAND_SWITCH
                               ? (int32_t)read32(operand + 4u + 4u * (size_t)i)
                               : (int32_t)read32(operand);
    return (uint32_t)((int64_t)in->next_offset + displacement);
}

static step pop_then(checker *c, uint32_t n, step r)
{
    if (r == STEP_NEXT)
        c->depth -= n;
    return r;
}

/* Location of argument or local `i` of a variable instruction; unknown when not known. */
static slot variable(const checker *c, int argument, uint32_t i)
{
    if (argument)
        return c->args_known && i < c->arg_count ? c->args[i] : make(S_UNK);
    return c->locals_known && i < c->local_count ? c->locals[i] : make(S_UNK);
}

static step ret(checker *c, const aip_il_instruction *in)
{
    step r = STEP_END;
    if (!c->ret_known)
        return STEP_END;
    uint32_t values = c->ret.mask != 0;
    if (values && !need(c, in, 1, type_of(c->ret.mask), &r))
        return r;
    if (values && !fits(c, in, c->depth - 1, c->ret, &r))
        return r;
    if (c->depth > values)
        return fail(c, in->offset, type_of(c->stack[c->depth - values - 1].mask),
                    ALVK_STACK_NOTHING);
    return STEP_END;
}

static step execute(checker *c, const aip_il_instruction *in)
{
    aip_stack_rule rule = AIP_STACK_RULE_NONE;
    alvk_stack_type type = ALVK_STACK_NOTHING;
    aip_il_opcode_stack(in->opcode, &rule, &type);
    slot typed = make(bit_of(type));
    uint32_t top = c->depth - 1u; /* valid once need() passed */
    uint16_t result = 0;
    step r = STEP_NEXT;
    slot s;
    switch (rule) {
    case AIP_STACK_RULE_NONE:
        return STEP_NEXT;
    case AIP_STACK_RULE_PUSH:
    case AIP_STACK_RULE_LDARGA:
    case AIP_STACK_RULE_LDLOCA:
    case AIP_STACK_RULE_LDSFLDA:
        return push(c, typed);
    case AIP_STACK_RULE_LDARG:
    case AIP_STACK_RULE_LDLOC:
        return push(c, variable(c, rule == AIP_STACK_RULE_LDARG, variable_index(c, in)));
    case AIP_STACK_RULE_STARG:
    case AIP_STACK_RULE_STLOC:
        s = variable(c, rule == AIP_STACK_RULE_STARG, variable_index(c, in));
        if (!need(c, in, 1, type_of(s.mask), &r) || !fits(c, in, top, s, &r))
            return r;
        return pop_then(c, 1, STEP_NEXT);
    case AIP_STACK_RULE_DUP:
        if (!need(c, in, 1, ALVK_STACK_INT32, &r))
            return r;
        return push(c, c->stack[top]);
    case AIP_STACK_RULE_POP:
        if (!need(c, in, 1, ALVK_STACK_INT32, &r))
            return r;
        return pop_then(c, 1, STEP_NEXT);
    case AIP_STACK_RULE_JMP:
    case AIP_STACK_RULE_RETHROW:
    case AIP_STACK_RULE_ENDFINALLY:
        return STEP_END;
    case AIP_STACK_RULE_CALL:
    case AIP_STACK_RULE_CALLI:
    case AIP_STACK_RULE_NEWOBJ:
        return call(c, in, rule);
    case AIP_STACK_RULE_RET:
        return ret(c, in);
    case AIP_STACK_RULE_BRANCH:
        r = merge_at(c, branch_target(c, in, 0));
        return r == STEP_NEXT ? STEP_END : r;
    case AIP_STACK_RULE_LEAVE:
        c->depth = 0;
        r = merge_at(c, branch_target(c, in, 0));
        return r == STEP_NEXT ? STEP_END : r;
    case AIP_STACK_RULE_BRANCH_TRUTH:
        if (!need(c, in, 1, ALVK_STACK_INT32, &r) ||
            !take(c, in, top, S_CONCRETE & ~S_VT, 0, ALVK_STACK_INT32, &r))
            return r;
        c->depth -= 1;
        return merge_at(c, branch_target(c, in, 0));
    case AIP_STACK_RULE_BRANCH_COMPARE:
        r = binary(c, in, rule, comparison, &result);
        if (r != STEP_NEXT)
            return r;
        c->depth -= 2;
        return merge_at(c, branch_target(c, in, 0));
    case AIP_STACK_RULE_SWITCH: {
        if (!need(c, in, 1, ALVK_STACK_INT32, &r) ||
            !take(c, in, top, S_INTS, 0, ALVK_STACK_INT32, &r))
            return r;
        c->depth -= 1;
        uint32_t count = read32(c->body->code + in->operand_offset);
        for (uint32_t i = 0; i < count && r == STEP_NEXT; ++i)
            r = merge_at(c, branch_target(c, in, i));
        return r;
    }
    case AIP_STACK_RULE_LDIND:
    case AIP_STACK_RULE_LDOBJ:
        if (!need(c, in, 1, ALVK_STACK_BYREF, &r) ||
            !take(c, in, top, S_ADDRESS, 0, ALVK_STACK_BYREF, &r))
            return r;
        c->depth -= 1;
        return push(c, rule == AIP_STACK_RULE_LDIND ? typed : type_operand(c, in));
    case AIP_STACK_RULE_STIND:
    case AIP_STACK_RULE_STOBJ:
        s = rule == AIP_STACK_RULE_STIND ? typed : type_operand(c, in);
        if (!need(c, in, 2, ALVK_STACK_BYREF, &r) || !fits(c, in, top, s, &r) ||
            !take(c, in, top - 1u, S_ADDRESS, 0, ALVK_STACK_BYREF, &r))
            return r;
        return pop_then(c, 2, STEP_NEXT);
    case AIP_STACK_RULE_ARITHMETIC:
    case AIP_STACK_RULE_ARITHMETIC_OVF:
    case AIP_STACK_RULE_INTEGER:
    case AIP_STACK_RULE_SHIFT:
    case AIP_STACK_RULE_COMPARE:
        r = binary(c, in, rule, rule == AIP_STACK_RULE_COMPARE ? comparison : arithmetic, &result);
        if (r != STEP_NEXT)
            return r;
        c->depth -= 2;
        return push(c, make(result));
    case AIP_STACK_RULE_NEGATE:
    case AIP_STACK_RULE_NOT:
    case AIP_STACK_RULE_CKFINITE: {
        uint16_t allowed = rule == AIP_STACK_RULE_NEGATE ? (S_I4 | S_I8 | S_I | S_F)
                           : rule == AIP_STACK_RULE_NOT  ? (S_I4 | S_I8 | S_I)
                                                         : S_F;
        if (!need(c, in, 1, rule == AIP_STACK_RULE_CKFINITE ? ALVK_STACK_FLOAT : ALVK_STACK_INT32,
                  &r) ||
            !take(c, in, top, allowed, 0,
                  rule == AIP_STACK_RULE_CKFINITE ? ALVK_STACK_FLOAT : ALVK_STACK_INT32, &r))
            return r;
        s = c->stack[top];
        if (s.mask & S_VOI) /* one of its possible types: the result is not known */
            c->stack[top] = make((uint16_t)((s.mask & S_CONCRETE) | S_UNK));
        return STEP_NEXT;
    }
    case AIP_STACK_RULE_CONVERT:
        /* Anything but a struct: conv.u of a pinned byref or string is how C# takes a
         * pointer (unverifiable, correct). */
        if (!need(c, in, 1, ALVK_STACK_INT32, &r) ||
            !take(c, in, top, S_CONCRETE & ~S_VT, 0, ALVK_STACK_INT32, &r))
            return r;
        c->stack[top] = typed;
        return STEP_NEXT;
    case AIP_STACK_RULE_CPOBJ:
        if (!need(c, in, 2, ALVK_STACK_BYREF, &r) ||
            !take(c, in, top - 1u, S_ADDRESS, 0, ALVK_STACK_BYREF, &r) ||
            !take(c, in, top, S_ADDRESS, 0, ALVK_STACK_BYREF, &r))
            return r;
        return pop_then(c, 2, STEP_NEXT);
    case AIP_STACK_RULE_INITOBJ:
        if (!need(c, in, 1, ALVK_STACK_BYREF, &r) ||
            !take(c, in, top, S_ADDRESS, 0, ALVK_STACK_BYREF, &r))
            return r;
        return pop_then(c, 1, STEP_NEXT);
    case AIP_STACK_RULE_CAST:
    case AIP_STACK_RULE_UNBOX:
    case AIP_STACK_RULE_UNBOX_ANY:
    case AIP_STACK_RULE_LDLEN:
    case AIP_STACK_RULE_LDVIRTFTN:
        if (!need(c, in, 1, ALVK_STACK_OBJECT, &r) ||
            !take(c, in, top, S_O, 0, ALVK_STACK_OBJECT, &r))
            return r;
        c->depth -= 1;
        return push(c, rule == AIP_STACK_RULE_UNBOX_ANY ? type_operand(c, in) : typed);
    case AIP_STACK_RULE_BOX:
        s = type_operand(c, in);
        if (!need(c, in, 1, type_of(s.mask), &r) || !fits(c, in, top, s, &r))
            return r;
        c->depth -= 1;
        return push(c, typed);
    case AIP_STACK_RULE_THROW:
        if (!need(c, in, 1, ALVK_STACK_OBJECT, &r) ||
            !take(c, in, top, S_O, 0, ALVK_STACK_OBJECT, &r))
            return r;
        return STEP_END;
    case AIP_STACK_RULE_LDFLD:
    case AIP_STACK_RULE_LDFLDA:
        if (!need(c, in, 1, ALVK_STACK_OBJECT, &r) ||
            !take(c, in, top,
                  (uint16_t)(S_O | S_ADDRESS | (rule == AIP_STACK_RULE_LDFLD ? S_VT : 0)), 0,
                  ALVK_STACK_OBJECT, &r))
            return r;
        c->depth -= 1;
        return push(c, rule == AIP_STACK_RULE_LDFLD ? field_type(c, in) : typed);
    case AIP_STACK_RULE_STFLD:
        s = field_type(c, in);
        if (!need(c, in, 2, ALVK_STACK_OBJECT, &r) || !fits(c, in, top, s, &r) ||
            !take(c, in, top - 1u, S_O | S_ADDRESS, 0, ALVK_STACK_OBJECT, &r))
            return r;
        return pop_then(c, 2, STEP_NEXT);
    case AIP_STACK_RULE_LDSFLD:
        return push(c, field_type(c, in));
    case AIP_STACK_RULE_STSFLD:
        s = field_type(c, in);
        if (!need(c, in, 1, type_of(s.mask), &r) || !fits(c, in, top, s, &r))
            return r;
        return pop_then(c, 1, STEP_NEXT);
    case AIP_STACK_RULE_NEWARR:
    case AIP_STACK_RULE_LOCALLOC:
        if (!need(c, in, 1, ALVK_STACK_INT32, &r) ||
            !take(c, in, top, S_INTS, 0, ALVK_STACK_INT32, &r))
            return r;
        c->stack[top] = typed;
        return STEP_NEXT;
    case AIP_STACK_RULE_LDELEMA:
    case AIP_STACK_RULE_LDELEM:
    case AIP_STACK_RULE_LDELEM_TYPE:
        if (!need(c, in, 2, ALVK_STACK_OBJECT, &r) ||
            !take(c, in, top - 1u, S_O, 0, ALVK_STACK_OBJECT, &r) ||
            !take(c, in, top, S_INTS, 0, ALVK_STACK_INT32, &r))
            return r;
        c->depth -= 2;
        return push(c, rule == AIP_STACK_RULE_LDELEM_TYPE ? type_operand(c, in) : typed);
    case AIP_STACK_RULE_STELEM:
    case AIP_STACK_RULE_STELEM_TYPE:
        s = rule == AIP_STACK_RULE_STELEM ? typed : type_operand(c, in);
        if (!need(c, in, 3, ALVK_STACK_OBJECT, &r) ||
            !take(c, in, top - 2u, S_O, 0, ALVK_STACK_OBJECT, &r) ||
            !take(c, in, top - 1u, S_INTS, 0, ALVK_STACK_INT32, &r) || !fits(c, in, top, s, &r))
            return r;
        return pop_then(c, 3, STEP_NEXT);
    case AIP_STACK_RULE_REFANYVAL:
    case AIP_STACK_RULE_REFANYTYPE:
        if (!need(c, in, 1, ALVK_STACK_VALUE_TYPE, &r) ||
            !take(c, in, top, S_VT, 0, ALVK_STACK_VALUE_TYPE, &r))
            return r;
        c->stack[top] = typed;
        return STEP_NEXT;
    case AIP_STACK_RULE_MKREFANY:
        if (!need(c, in, 1, ALVK_STACK_BYREF, &r) ||
            !take(c, in, top, S_ADDRESS, 0, ALVK_STACK_BYREF, &r))
            return r;
        c->stack[top] = typed;
        return STEP_NEXT;
    case AIP_STACK_RULE_ENDFILTER:
        if (!need(c, in, 1, ALVK_STACK_INT32, &r) ||
            !take(c, in, top, S_I4, 0, ALVK_STACK_INT32, &r))
            return r;
        return STEP_END;
    case AIP_STACK_RULE_BLOCK:
        if (!need(c, in, 3, ALVK_STACK_BYREF, &r) ||
            !take(c, in, top - 2u, S_ADDRESS, 0, ALVK_STACK_BYREF, &r) ||
            !take(c, in, top, S_INTS, 0, ALVK_STACK_INT32, &r))
            return r;
        return pop_then(c, 3, STEP_NEXT);
    default:
        c->out->complete = 0;
        return STEP_CUT;
    }
}

/* ------------------------------------------------------------------ driver */

static int ends_block(aip_stack_rule rule)
{
    switch (rule) {
    case AIP_STACK_RULE_BRANCH:
    case AIP_STACK_RULE_BRANCH_TRUTH:
    case AIP_STACK_RULE_BRANCH_COMPARE:
    case AIP_STACK_RULE_SWITCH:
    case AIP_STACK_RULE_LEAVE:
    case AIP_STACK_RULE_RET:
    case AIP_STACK_RULE_THROW:
    case AIP_STACK_RULE_RETHROW:
    case AIP_STACK_RULE_ENDFINALLY:
    case AIP_STACK_RULE_ENDFILTER:
    case AIP_STACK_RULE_JMP:
        return 1;
    default:
        return 0;
    }
}

static void mark(checker *c, uint32_t offset, uint8_t flags)
{
    if (!aip_il_is_start(&c->starts, c->body->code_size, offset))
        return;
    if (c->leader_of[offset] == 0) {
        c->leaders[c->leader_count].offset = offset;
        c->leaders[c->leader_count].depth = UNVISITED;
        c->leader_of[offset] = ++c->leader_count;
    }
    c->leaders[c->leader_of[offset] - 1u].flags |= flags;
}

/* Leaders: the entry, branch targets and what follows a transfer, try and handler starts. */
static void find_leaders(checker *c)
{
    const aip_stack_body *b = c->body;
    aip_il_instruction in;
    mark(c, 0, 0);
    for (uint32_t offset = 0; offset < b->code_size; offset = in.next_offset) {
        if (aip_il_decode(b->code, b->code_size, offset, &in) != ALVK_OK)
            return; /* walked already: cannot happen */
        aip_stack_rule rule = AIP_STACK_RULE_NONE;
        aip_il_opcode_stack(in.opcode, &rule, NULL);
        if (!ends_block(rule))
            continue;
        uint32_t targets =
            in.operand_kind == AIP_OPERAND_SWITCH ? read32(b->code + in.operand_offset)
            : in.operand_kind == AIP_OPERAND_BR || in.operand_kind == AIP_OPERAND_SHORT_BR ? 1u
                                                                                           : 0u;
        for (uint32_t i = 0; i < targets; ++i)
            mark(c, branch_target(c, &in, i), 0);
        if (in.next_offset < b->code_size)
            mark(c, in.next_offset, 0);
    }
    for (uint32_t i = 0; i < b->clause_count; ++i) {
        const aip_eh_clause *e = &b->clauses[i];
        mark(c, e->try_offset, LEADER_TRY_START);
        mark(c, e->handler_offset, 0);
        if (e->flags & COR_ILEXCEPTION_CLAUSE_FILTER)
            mark(c, e->class_token_or_filter_offset, 0);
    }
}

/* Handlers start with the exception object (catch, filter) or nothing (finally, fault). */
static step seed_handlers(checker *c)
{
    const aip_stack_body *b = c->body;
    step r = STEP_NEXT;
    for (uint32_t i = 0; i < b->clause_count && r == STEP_NEXT; ++i) {
        const aip_eh_clause *e = &b->clauses[i];
        int object =
            (e->flags & (COR_ILEXCEPTION_CLAUSE_FINALLY | COR_ILEXCEPTION_CLAUSE_FAULT)) == 0;
        c->depth = 0;
        if (object)
            c->stack[c->depth++] = make(S_O);
        if (aip_il_is_start(&c->starts, b->code_size, e->handler_offset))
            r = merge_at(c, e->handler_offset);
        if (r == STEP_NEXT && (e->flags & COR_ILEXCEPTION_CLAUSE_FILTER) &&
            aip_il_is_start(&c->starts, b->code_size, e->class_token_or_filter_offset))
            r = merge_at(c, e->class_token_or_filter_offset);
    }
    return r;
}

/* Runs the block of one leader from its state until it transfers control or reaches the
 * next leader. */
static step run_block(checker *c, uint32_t index)
{
    leader *l = &c->leaders[index];
    c->depth = l->depth;
    if (l->depth > 0)
        memcpy(c->stack, c->arena + l->at, (size_t)l->depth * sizeof *c->stack);
    uint32_t offset = l->offset;
    for (;;) {
        aip_il_instruction in;
        if (aip_il_decode(c->body->code, c->body->code_size, offset, &in) != ALVK_OK)
            return STEP_END;
        step r = execute(c, &in);
        if (r != STEP_NEXT)
            return r;
        if (in.next_offset >= c->body->code_size)
            return STEP_END; /* falls off the end: the JIT refuses it; not a type error */
        offset = in.next_offset;
        if (c->leader_of[offset] != 0)
            return merge_at(c, offset);
    }
}

static void release(checker *c)
{
    free(c->args);
    free(c->locals);
    free(c->leader_of);
    free(c->leaders);
    free(c->work);
    free(c->arena);
    free(c);
}

alvk_status aip_il_check_stack_types(const aip_stack_body *body, const aip_stack_target *target,
                                     const aip_stack_oracle *oracle, aip_stack_result *out)
{
    if (out == NULL)
        return ALVK_E_NULL_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (body == NULL || target == NULL || (body->code == NULL && body->code_size != 0) ||
        (body->clauses == NULL && body->clause_count != 0))
        return ALVK_E_NULL_ARGUMENT;
    out->complete = 1;
    checker *c = calloc(1, sizeof *c);
    if (c == NULL) {
        out->complete = 0;
        return ALVK_OK;
    }
    c->body = body;
    c->oracle = oracle;
    c->out = out;
    alvk_status status = aip_il_walk(body->code, body->code_size, &c->starts, NULL, NULL);
    if (status != ALVK_OK || body->code_size == 0) {
        release(c);
        return status;
    }
    size_t n = body->code_size;
    c->leader_of = calloc(n, sizeof *c->leader_of);
    c->leaders = calloc(n, sizeof *c->leaders);
    c->work = calloc(n, sizeof *c->work);
    if (c->leader_of == NULL || c->leaders == NULL || c->work == NULL) {
        release(c);
        out->complete = 0;
        return ALVK_OK;
    }
    load_signature(c, target);
    load_locals(c);
    find_leaders(c);
    c->runs_left = (uint64_t)c->leader_count * AIP_STACK_RUNS_PER_LEADER + 1024u;

    c->depth = 0;
    step r = merge_at(c, 0);
    if (r == STEP_NEXT)
        r = seed_handlers(c);
    while (r != STEP_FAIL && c->work_count > 0) {
        if (c->runs_left-- == 0) {
            out->complete = 0;
            break;
        }
        uint32_t index = c->work[--c->work_count];
        c->leaders[index].queued = 0;
        r = run_block(c, index);
    }
    status = r == STEP_FAIL ? ALVK_E_STACK_TYPE_MISMATCH : ALVK_OK;
    if (status == ALVK_OK)
        out->offset = out->opcode = 0, out->found = out->expected = ALVK_STACK_NOTHING;
    release(c);
    return status;
}
