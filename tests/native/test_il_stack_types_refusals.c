/* Stack typing, bodies it must refuse: each kind of mismatch, with the offset, opcode and the
 * types found and expected. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "stack_types_fixture.h"

/* The defect's two bodies: an int32 returned where an object reference is, an object
 * reference returned where a double is. */
static void wrong_return_types(void **state)
{
    (void)state;
    body_spec int_for_string = {BLOB(0x02, 0x2A), NULL, 0, 0, SIG_STRING_INT, 0};
    expect_mismatch(&int_for_string, NULL, 1, AIP_CEE_RET, ALVK_STACK_INT32, ALVK_STACK_OBJECT);
    body_spec object_for_double = {BLOB(0x14, 0x2A), NULL, 0, 0, SIG_DOUBLE_INT, 0};
    expect_mismatch(&object_for_double, NULL, 1, AIP_CEE_RET, ALVK_STACK_OBJECT, ALVK_STACK_FLOAT);
    body_spec int64_for_int = {BLOB(0x16, 0x6A, 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&int64_for_int, NULL, 2, AIP_CEE_RET, ALVK_STACK_INT64, ALVK_STACK_INT32);
    /* A string field returned as a double; an int32 returned from a struct-returning method. */
    test_oracle o;
    oracle_init(&o);
    add_member(&o, T_SFIELD, ANY_OPERAND, BLOB(0x06, 0x0E));
    body_spec field = {BLOB(0x7E, TOK(T_SFIELD), 0x2A), NULL, 0, 0, SIG_DOUBLE_INT, 0};
    expect_mismatch(&field, &o, 5, AIP_CEE_RET, ALVK_STACK_OBJECT, ALVK_STACK_FLOAT);
    body_spec int_for_struct = {BLOB(0x02, 0x2A), NULL, 0, 0, BLOB(0x00, 0x01, 0x11, 0x08, 0x08), 0};
    expect_mismatch(&int_for_struct, &o, 1, AIP_CEE_RET, ALVK_STACK_INT32, ALVK_STACK_VALUE_TYPE);
    /* The enum Color is an int32, but an object is not. */
    body_spec object_for_enum = {BLOB(0x14, 0x2A), NULL, 0, 0, BLOB(0x00, 0x00, 0x11, 0x10), 0};
    expect_mismatch(&object_for_enum, &o, 1, AIP_CEE_RET, ALVK_STACK_OBJECT, ALVK_STACK_INT32);
    /* Even an opaque value type is not an object reference. */
    body_spec object_for_opaque = {BLOB(0x14, 0x2A), NULL, 0, 0, BLOB(0x00, 0x00, 0x11, 0x25), 0};
    expect_mismatch(&object_for_opaque, &o, 1, AIP_CEE_RET, ALVK_STACK_OBJECT,
                    ALVK_STACK_VALUE_TYPE);
}

/* ret with nothing to return, with something left over, with a value from a void method. */
static void return_stack_shape(void **state)
{
    (void)state;
    body_spec empty = {BLOB(0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&empty, NULL, 0, AIP_CEE_RET, ALVK_STACK_NOTHING, ALVK_STACK_INT32);
    body_spec extra = {BLOB(0x14, 0x02, 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&extra, NULL, 2, AIP_CEE_RET, ALVK_STACK_OBJECT, ALVK_STACK_NOTHING);
    body_spec void_value = {BLOB(0x17, 0x2A), NULL, 0, 0, SIG_VOID, 0};
    expect_mismatch(&void_value, NULL, 1, AIP_CEE_RET, ALVK_STACK_INT32, ALVK_STACK_NOTHING);
}

/* Stack underflow: pop, add, a call with too few arguments, dup, stloc. */
static void underflow(void **state)
{
    (void)state;
    body_spec pop = {BLOB(0x26, 0x16, 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&pop, NULL, 0, AIP_CEE_POP, ALVK_STACK_NOTHING, ALVK_STACK_INT32);
    body_spec add = {BLOB(0x02, 0x58, 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&add, NULL, 1, AIP_CEE_ADD, ALVK_STACK_NOTHING, ALVK_STACK_INT32);
    test_oracle o;
    oracle_init(&o);
    add_member(&o, T_METHOD, ANY_OPERAND, BLOB(0x00, 0x02, 0x08, 0x08, 0x0E)); /* int32(int32, string) */
    body_spec call = {BLOB(0x02, 0x28, TOK(T_METHOD), 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&call, &o, 1, AIP_CEE_CALL, ALVK_STACK_NOTHING, ALVK_STACK_INT32);
    add_member(&o, T_ADD, ANY_OPERAND, BLOB(0x20, 0x00, 0x08)); /* instance int32() */
    body_spec receiver = {BLOB(0x6F, TOK(T_ADD), 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&receiver, &o, 0, AIP_CEE_CALLVIRT, ALVK_STACK_NOTHING, ALVK_STACK_OBJECT);
    body_spec dup = {BLOB(0x25, 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&dup, NULL, 0, AIP_CEE_DUP, ALVK_STACK_NOTHING, ALVK_STACK_INT32);
    add_member(&o, T_LOCALS, ALVK_RELOCATION_LOCALS_SIGNATURE, BLOB(0x07, 0x01, 0x0E));
    body_spec stloc = {BLOB(0x0A, 0x16, 0x2A), NULL, 0, T_LOCALS, SIG_INT_INT, 0};
    expect_mismatch(&stloc, &o, 0, AIP_CEE_STLOC_0, ALVK_STACK_NOTHING, ALVK_STACK_OBJECT);
}

/* Arguments of the wrong type: to a call, a receiver, a newobj, a calli and its pointer. */
static void wrong_arguments(void **state)
{
    (void)state;
    test_oracle o;
    oracle_init(&o);
    add_member(&o, T_METHOD, ANY_OPERAND, BLOB(0x00, 0x02, 0x08, 0x08, 0x0E)); /* int32(int32, string) */
    body_spec swapped = {BLOB(0x14, 0x02, 0x28, TOK(T_METHOD), 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&swapped, &o, 2, AIP_CEE_CALL, ALVK_STACK_OBJECT, ALVK_STACK_INT32);
    body_spec second = {BLOB(0x02, 0x02, 0x28, TOK(T_METHOD), 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&second, &o, 2, AIP_CEE_CALL, ALVK_STACK_INT32, ALVK_STACK_OBJECT);
    aip_stack_member *m = add_member(&o, T_ADD, ANY_OPERAND, BLOB(0x20, 0x00, 0x08));
    m->owner = ALVK_STACK_OBJECT;
    body_spec receiver = {BLOB(0x02, 0x6F, TOK(T_ADD), 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&receiver, &o, 1, AIP_CEE_CALLVIRT, ALVK_STACK_INT32, ALVK_STACK_OBJECT);
    m = add_member(&o, T_CTOR, ANY_OPERAND, BLOB(0x20, 0x01, 0x01, 0x0D)); /* .ctor(float64) */
    m->owner = ALVK_STACK_OBJECT;
    body_spec ctor = {BLOB(0x02, 0x73, TOK(T_CTOR), 0x26, 0x16, 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&ctor, &o, 1, AIP_CEE_NEWOBJ, ALVK_STACK_INT32, ALVK_STACK_FLOAT);
    add_member(&o, T_CALLI, ANY_OPERAND, BLOB(0x00, 0x01, 0x08, 0x08));
    body_spec pointer = {BLOB(0x02, 0x16, 0x29, TOK(T_CALLI), 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&pointer, &o, 2, AIP_CEE_CALLI, ALVK_STACK_INT32, ALVK_STACK_NATIVE_INT);
    body_spec calli_arg = {BLOB(0x14, 0x16, 0xD3, 0x29, TOK(T_CALLI), 0x2A), NULL, 0, 0,
                           SIG_INT_INT, 0};
    expect_mismatch(&calli_arg, &o, 3, AIP_CEE_CALLI, ALVK_STACK_OBJECT, ALVK_STACK_INT32);
    /* A struct argument of another struct type. */
    add_member(&o, T_LOCALS, ALVK_RELOCATION_LOCALS_SIGNATURE, BLOB(0x07, 0x02, 0x11, 0x08, 0x11, 0x0C));
    add_member(&o, 0x06000002u, ANY_OPERAND, BLOB(0x00, 0x01, 0x08, 0x11, 0x08)); /* int32(Point) */
    body_spec other_struct = {BLOB(0x07, 0x28, TOK(0x06000002u), 0x2A), NULL, 0, T_LOCALS,
                              SIG_INT_INT, 0};
    expect_mismatch(&other_struct, &o, 1, AIP_CEE_CALL, ALVK_STACK_VALUE_TYPE,
                    ALVK_STACK_VALUE_TYPE);
}

/* Locations: starg, stloc, stfld, stsfld, stelem, box, stind, stobj of the wrong type. */
static void wrong_stores(void **state)
{
    (void)state;
    test_oracle o;
    oracle_init(&o);
    body_spec starg = {BLOB(0x14, 0x10, 0x00, 0x02, 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&starg, &o, 1, AIP_CEE_STARG_S, ALVK_STACK_OBJECT, ALVK_STACK_INT32);
    add_member(&o, T_LOCALS, ALVK_RELOCATION_LOCALS_SIGNATURE, BLOB(0x07, 0x02, 0x0E, 0x0D));
    body_spec stloc = {BLOB(0x02, 0x0A, 0x16, 0x2A), NULL, 0, T_LOCALS, SIG_INT_INT, 0};
    expect_mismatch(&stloc, &o, 1, AIP_CEE_STLOC_0, ALVK_STACK_INT32, ALVK_STACK_OBJECT);
    body_spec stloc_s = {BLOB(0x14, 0x13, 0x01, 0x16, 0x2A), NULL, 0, T_LOCALS, SIG_INT_INT, 0};
    expect_mismatch(&stloc_s, &o, 1, AIP_CEE_STLOC_S, ALVK_STACK_OBJECT, ALVK_STACK_FLOAT);
    aip_stack_member *f = add_member(&o, T_FIELD, ANY_OPERAND, BLOB(0x06, 0x0E)); /* string */
    f->owner = ALVK_STACK_OBJECT;
    body_spec stfld = {BLOB(0x14, 0x02, 0x7D, TOK(T_FIELD), 0x16, 0x2A), NULL, 0, 0,
                       SIG_INT_INT, 0};
    expect_mismatch(&stfld, &o, 2, AIP_CEE_STFLD, ALVK_STACK_INT32, ALVK_STACK_OBJECT);
    body_spec stfld_object = {BLOB(0x02, 0x14, 0x7D, TOK(T_FIELD), 0x16, 0x2A), NULL, 0, 0,
                              SIG_INT_INT, 0};
    expect_mismatch(&stfld_object, &o, 2, AIP_CEE_STFLD, ALVK_STACK_INT32, ALVK_STACK_OBJECT);
    add_member(&o, T_SFIELD, ANY_OPERAND, BLOB(0x06, 0x0A)); /* int64 */
    body_spec stsfld = {BLOB(0x02, 0x80, TOK(T_SFIELD), 0x16, 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&stsfld, &o, 1, AIP_CEE_STSFLD, ALVK_STACK_INT32, ALVK_STACK_INT64);
    body_spec stelem = {BLOB(0x14, 0x16, 0x14, 0x9E, 0x16, 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&stelem, &o, 3, AIP_CEE_STELEM_I4, ALVK_STACK_OBJECT, ALVK_STACK_INT32);
    body_spec stelem_array = {BLOB(0x02, 0x16, 0x16, 0x9E, 0x16, 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&stelem_array, &o, 3, AIP_CEE_STELEM_I4, ALVK_STACK_INT32, ALVK_STACK_OBJECT);
    body_spec box = {BLOB(0x14, 0x8C, TOK(T_INT32), 0x26, 0x16, 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&box, &o, 1, AIP_CEE_BOX, ALVK_STACK_OBJECT, ALVK_STACK_INT32);
    body_spec box_class = {BLOB(0x02, 0x8C, TOK(T_WIDGET), 0x26, 0x16, 0x2A), NULL, 0, 0,
                           SIG_INT_INT, 0};
    expect_mismatch(&box_class, &o, 1, AIP_CEE_BOX, ALVK_STACK_INT32, ALVK_STACK_OBJECT);
    body_spec stind = {BLOB(0x0F, 0x00, 0x14, 0x54, 0x16, 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&stind, &o, 3, AIP_CEE_STIND_I4, ALVK_STACK_OBJECT, ALVK_STACK_INT32);
    body_spec stobj = {BLOB(0x0F, 0x00, 0x02, 0x81, TOK(T_POINT), 0x16, 0x2A), NULL, 0, 0,
                       SIG_INT_INT, 0};
    expect_mismatch(&stobj, &o, 3, AIP_CEE_STOBJ, ALVK_STACK_INT32, ALVK_STACK_VALUE_TYPE);
}

/* Operands: arithmetic across stack types, comparisons, shifts, conversions of structs,
 * addresses, object references, indices, branch conditions and switch values. */
static void wrong_operands(void **state)
{
    (void)state;
    test_oracle o;
    oracle_init(&o);
    body_spec int_plus_float = {BLOB(0x02, 0x22, 0, 0, 0x80, 0x3F, 0x58, 0x2A), NULL, 0, 0,
                                SIG_INT_INT, 0};
    expect_mismatch(&int_plus_float, &o, 6, AIP_CEE_ADD, ALVK_STACK_FLOAT, ALVK_STACK_INT32);
    body_spec int_plus_long = {BLOB(0x02, 0x16, 0x6A, 0x58, 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&int_plus_long, &o, 3, AIP_CEE_ADD, ALVK_STACK_INT64, ALVK_STACK_INT32);
    body_spec object_times_int = {BLOB(0x14, 0x02, 0x5A, 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&object_times_int, &o, 2, AIP_CEE_MUL, ALVK_STACK_OBJECT, ALVK_STACK_INT32);
    body_spec float_and = {BLOB(0x22, 0, 0, 0x80, 0x3F, 0x22, 0, 0, 0x80, 0x3F, 0x5F, 0x69, 0x2A),
                           NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&float_and, &o, 10, AIP_CEE_AND, ALVK_STACK_FLOAT, ALVK_STACK_INT32);
    body_spec byref_times = {BLOB(0x0F, 0x00, 0x17, 0x5A, 0x4A, 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&byref_times, &o, 3, AIP_CEE_MUL, ALVK_STACK_BYREF, ALVK_STACK_INT32);
    body_spec compare = {BLOB(0x14, 0x02, 0xFE, 0x01, 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&compare, &o, 2, AIP_CEE_CEQ, ALVK_STACK_INT32, ALVK_STACK_OBJECT);
    body_spec branch = {BLOB(0x02, 0x14, 0x3B, 0, 0, 0, 0, 0x16, 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&branch, &o, 2, AIP_CEE_BEQ, ALVK_STACK_OBJECT, ALVK_STACK_INT32);
    body_spec shift = {BLOB(0x02, 0x16, 0x6A, 0x62, 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&shift, &o, 3, AIP_CEE_SHL, ALVK_STACK_INT64, ALVK_STACK_INT32);
    body_spec negate = {BLOB(0x14, 0x65, 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&negate, &o, 1, AIP_CEE_NEG, ALVK_STACK_OBJECT, ALVK_STACK_INT32);
    body_spec convert = {BLOB(0x02, 0x71, TOK(T_POINT), 0x69, 0x2A), NULL, 0, 0,
                         BLOB(0x20, 0x00, 0x08), 1};
    expect_mismatch(&convert, &o, 6, AIP_CEE_CONV_I4, ALVK_STACK_VALUE_TYPE, ALVK_STACK_INT32);
    body_spec ldind = {BLOB(0x14, 0x4A, 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&ldind, &o, 1, AIP_CEE_LDIND_I4, ALVK_STACK_OBJECT, ALVK_STACK_BYREF);
    body_spec ldlen = {BLOB(0x02, 0x8E, 0x69, 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&ldlen, &o, 1, AIP_CEE_LDLEN, ALVK_STACK_INT32, ALVK_STACK_OBJECT);
    body_spec index = {BLOB(0x14, 0x14, 0x94, 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&index, &o, 2, AIP_CEE_LDELEM_I4, ALVK_STACK_OBJECT, ALVK_STACK_INT32);
    body_spec throw_int = {BLOB(0x02, 0x7A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&throw_int, &o, 1, AIP_CEE_THROW, ALVK_STACK_INT32, ALVK_STACK_OBJECT);
    body_spec brtrue_struct = {BLOB(0x02, 0x71, TOK(T_POINT), 0x2D, 0x00, 0x16, 0x2A), NULL, 0, 0,
                               BLOB(0x20, 0x00, 0x08), 1};
    expect_mismatch(&brtrue_struct, &o, 6, AIP_CEE_BRTRUE_S, ALVK_STACK_VALUE_TYPE,
                    ALVK_STACK_INT32);
    body_spec switch_float = {BLOB(0x22, 0, 0, 0, 0, 0x45, 0, 0, 0, 0, 0x16, 0x2A), NULL, 0, 0,
                              SIG_INT_INT, 0};
    expect_mismatch(&switch_float, &o, 5, AIP_CEE_SWITCH, ALVK_STACK_FLOAT, ALVK_STACK_INT32);
    body_spec unbox = {BLOB(0x02, 0xA5, TOK(T_INT32), 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&unbox, &o, 1, AIP_CEE_UNBOX_ANY, ALVK_STACK_INT32, ALVK_STACK_OBJECT);
    aip_stack_member *f = add_member(&o, T_FIELD, ANY_OPERAND, BLOB(0x06, 0x08));
    f->owner = ALVK_STACK_OBJECT;
    body_spec ldfld = {BLOB(0x02, 0x7B, TOK(T_FIELD), 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&ldfld, &o, 1, AIP_CEE_LDFLD, ALVK_STACK_INT32, ALVK_STACK_OBJECT);
}

/* Merge points: different depths, incompatible types, two structs, a try block entered with
 * a value, a catch handler's exception object used as an int32. */
static void merge_points(void **state)
{
    (void)state;
    test_oracle o;
    oracle_init(&o);
    /* ldarg.0; brtrue.s L; ldc.i4.1; L: ldc.i4.2; ret: L is reached with 0 and 1 values. */
    body_spec depth = {BLOB(0x02, 0x2D, 0x01, 0x17, 0x18, 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&depth, &o, 4, AIP_CEE_LDC_I4_2, ALVK_STACK_INT32, ALVK_STACK_NOTHING);
    /* cond ? null : 1, then pop: O and int32 meet. */
    body_spec types = {BLOB(0x02, 0x2C, 0x03, 0x14, 0x2B, 0x01, 0x17, 0x26, 0x16, 0x2A), NULL, 0,
                       0, SIG_INT_INT, 0};
    expect_mismatch(&types, &o, 7, AIP_CEE_POP, ALVK_STACK_INT32, ALVK_STACK_OBJECT);
    /* cond ? 1.0 : 1L */
    body_spec numbers = {BLOB(0x02, 0x2C, 0x07, 0x22, 0, 0, 0x80, 0x3F, 0x2B, 0x02, 0x16, 0x6A,
                              0x26, 0x16, 0x2A),
                         NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&numbers, &o, 12, AIP_CEE_POP, ALVK_STACK_INT64, ALVK_STACK_FLOAT);
    /* Point and Size meet. */
    add_member(&o, T_LOCALS, ALVK_RELOCATION_LOCALS_SIGNATURE, BLOB(0x07, 0x02, 0x11, 0x08, 0x11, 0x0C));
    body_spec structs = {BLOB(0x02, 0x2C, 0x03, 0x06, 0x2B, 0x01, 0x07, 0x26, 0x16, 0x2A), NULL, 0,
                         T_LOCALS, SIG_INT_INT, 0};
    expect_mismatch(&structs, &o, 7, AIP_CEE_POP, ALVK_STACK_VALUE_TYPE, ALVK_STACK_VALUE_TYPE);
    /* A try block (at 1) entered with an int32 on the stack. */
    static const aip_eh_clause finally_clause[] = {{2, 1, 3, 4, 1, 0}};
    body_spec try_entry = {BLOB(0x16, 0x00, 0xDE, 0x01, 0xDC, 0x2A), finally_clause, 1, 0,
                           SIG_INT_INT, 0};
    expect_mismatch(&try_entry, &o, 1, AIP_CEE_NOP, ALVK_STACK_INT32, ALVK_STACK_NOTHING);
    /* catch { return the exception object as an int32 } */
    static const aip_eh_clause catch_clause[] = {{0, 0, 3, 3, 1, T_WIDGET}};
    body_spec handler = {BLOB(0x00, 0xDE, 0x01, 0x2A, 0x16, 0x2A), catch_clause, 1, 0,
                         SIG_INT_INT, 0};
    expect_mismatch(&handler, &o, 3, AIP_CEE_RET, ALVK_STACK_OBJECT, ALVK_STACK_INT32);
    /* leave empties the stack: the target sees nothing to return. */
    body_spec leave = {BLOB(0x16, 0xDE, 0x00, 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_mismatch(&leave, &o, 3, AIP_CEE_RET, ALVK_STACK_NOTHING, ALVK_STACK_INT32);
}

/* A mismatch in a loop body is found on the path round the loop too; a struct of the wrong
 * identity is refused where its TypeDef is known. */
static void loop_and_identity(void **state)
{
    (void)state;
    test_oracle o;
    oracle_init(&o);
    add_member(&o, T_LOCALS, ALVK_RELOCATION_LOCALS_SIGNATURE, BLOB(0x07, 0x02, 0x08, 0x0E));
    /* 0 ldc.i4.0; stloc.0; 2: ldloc.1; stloc.0 (string into int32); br.s -4 */
    body_spec loop = {BLOB(0x16, 0x0A, 0x07, 0x0A, 0x2B, 0xFC), NULL, 0, T_LOCALS, SIG_INT_INT, 0};
    expect_mismatch(&loop, &o, 3, AIP_CEE_STLOC_0, ALVK_STACK_OBJECT, ALVK_STACK_INT32);
    add_member(&o, 0x11000004u, ALVK_RELOCATION_LOCALS_SIGNATURE,
               BLOB(0x07, 0x02, 0x11, 0x08, 0x11, 0x0C));
    body_spec identity = {BLOB(0x06, 0x0B, 0x16, 0x2A), NULL, 0, 0x11000004u, SIG_INT_INT, 0};
    expect_mismatch(&identity, &o, 1, AIP_CEE_STLOC_1, ALVK_STACK_VALUE_TYPE, ALVK_STACK_VALUE_TYPE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(wrong_return_types),
        cmocka_unit_test(return_stack_shape),
        cmocka_unit_test(underflow),
        cmocka_unit_test(wrong_arguments),
        cmocka_unit_test(wrong_stores),
        cmocka_unit_test(wrong_operands),
        cmocka_unit_test(merge_points),
        cmocka_unit_test(loop_and_identity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
