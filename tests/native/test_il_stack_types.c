/* Stack typing, bodies it must accept: every body shape the project submits (exact dispatch,
 * the generation proofs' bodies, the managed plans' bodies), branches, loops, locals, EH
 * clauses, generic substitution, enums, and what the oracle does not know. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "il/dispatch.h"
#include "stack_types_fixture.h"

/* Exact dispatch: `ldarg*; ldc.i8; conv.i; calli; ret` for targets of every receiver kind,
 * with the calli signature the emitter builds, answered as the relocation would be. */
static void exact_dispatch_bodies(void **state)
{
    (void)state;
    const struct {
        const uint8_t *sig;
        uint32_t length;
        aip_receiver_kind receiver;
        uint32_t declaring;
    } targets[] = {
        {BLOB(0x00, 0x01, 0x08, 0x08), AIP_RECEIVER_NONE, 0},                  /* int32(int32) */
        {BLOB(0x20, 0x02, 0x01, 0x08, 0x0E), AIP_RECEIVER_CLASS, T_WIDGET},    /* void(int32, string) */
        {BLOB(0x20, 0x02, 0x08, 0x10, 0x0A, 0x0D), AIP_RECEIVER_VALUE_TYPE, T_POINT}, /* int32(ref int64, float64) */
        /* object(Point, Color, Opaque) */
        {BLOB(0x00, 0x03, 0x1C, 0x11, 0x08, 0x11, 0x10, 0x11, 0x25), AIP_RECEIVER_NONE, 0},
        {BLOB(0x00, 0x01, 0x11, 0x08, 0x12, 0x14), AIP_RECEIVER_NONE, 0},      /* Point(Widget) */
        {BLOB(0x00, 0x00, 0x01), AIP_RECEIVER_NONE, 0},                        /* void() */
        {BLOB(0x00, 0x01, 0x0C, 0x1D, 0x08), AIP_RECEIVER_NONE, 0},            /* float32(int32[]) */
        {BLOB(0x20, 0x01, 0x18, 0x0F, 0x01), AIP_RECEIVER_VALUE_TYPE, T_SIZE}, /* nint(void*) */
    };
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; ++i) {
        aip_method_sig parsed;
        assert_int_equal(aip_sig_parse_method(targets[i].sig, targets[i].length, 0, &parsed),
                         ALVK_OK);
        aip_dispatch_target dt = {targets[i].sig, targets[i].length, &parsed, targets[i].receiver,
                                  targets[i].declaring};
        uint8_t calli[AIP_DISPATCH_MAX_SIG_BYTES], body[AIP_DISPATCH_MAX_BODY_BYTES];
        size_t calli_length = 0, body_length = 0;
        uint32_t token_offset = 0;
        assert_int_equal(aip_dispatch_build_calli_signature(&dt, calli, sizeof calli, &calli_length),
                         ALVK_OK);
        assert_int_equal(aip_dispatch_emit_body(&dt, 0x7F0012345678ull, T_CALLI, body, sizeof body,
                                                &body_length, &token_offset),
                         ALVK_OK);
        test_oracle o;
        oracle_init(&o);
        add_member(&o, T_CALLI, token_offset - 12u, calli, (uint32_t)calli_length);
        uint32_t code_size = body[4] | (uint32_t)body[5] << 8;
        body_spec b = {body + 12, code_size, NULL, 0, 0, targets[i].sig, targets[i].length,
                       targets[i].receiver == AIP_RECEIVER_VALUE_TYPE};
        expect_ok(&b, &o, 1);
        assert_true(o.member_queries > 0);
    }
}

/* The generation proofs' calli body: ldarg.0; ldc.i8 <abs>; conv.i; calli cdecl
 * int32(int32); [ldc.i4 1; add]; ret. */
static void unmanaged_calli_body(void **state)
{
    (void)state;
    test_oracle o;
    oracle_init(&o);
    add_member(&o, T_CALLI, 12, BLOB(0x01, 0x01, 0x08, 0x08));
    body_spec b = {BLOB(0x02,                                  /* 0  ldarg.0 */
                        0x21, 1, 2, 3, 4, 5, 6, 0, 0,          /* 1  ldc.i8 */
                        0xD3,                                  /* 10 conv.i */
                        0x29, TOK(T_CALLI),                    /* 11 calli */
                        0x17, 0x58,                            /* 16 ldc.i4.1; add */
                        0x2A),                                 /* 18 ret */
                   NULL, 0, 0, SIG_INT_INT, 0};
    expect_ok(&b, &o, 1);
}

/* FourKinds: Combine(x) = Triple(Echo(new GenBox<int>(Scale(in x)).Value)): a MemberRef
 * with a modreq byref, a constructor and field on a TypeSpec parent (VAR 0 = int32), a
 * MethodSpec (MVAR 0 = int32). */
static void four_kinds_body(void **state)
{
    (void)state;
    test_oracle o;
    oracle_init(&o);
    static const uint8_t box_of_int[] = {0x15, 0x12, 0x14, 0x01, 0x08}; /* GenBox<int32> */
    /* int32 Scale(modreq(InAttribute) int32&) */
    add_member(&o, T_ADD, 3, BLOB(0x00, 0x01, 0x08, 0x1F, 0x05, 0x10, 0x08));
    aip_stack_member *ctor = add_member(&o, T_CTOR, 8, BLOB(0x20, 0x01, 0x01, 0x13, 0x00));
    ctor->owner_instantiation = box_of_int;
    ctor->owner_instantiation_length = sizeof box_of_int;
    ctor->owner = ALVK_STACK_OBJECT;
    aip_stack_member *field = add_member(&o, T_FIELD, 13, BLOB(0x06, 0x13, 0x00));
    field->owner_instantiation = box_of_int;
    field->owner_instantiation_length = sizeof box_of_int;
    field->owner = ALVK_STACK_OBJECT;
    aip_stack_member *echo = add_member(&o, T_ECHO, 18, BLOB(0x10, 0x01, 0x01, 0x1E, 0x00, 0x1E, 0x00));
    echo->method_instantiation = (const uint8_t[]){0x0A, 0x01, 0x08};
    echo->method_instantiation_length = 3;
    add_member(&o, T_METHOD, 23, BLOB(0x00, 0x01, 0x08, 0x08));
    body_spec b = {BLOB(0x0F, 0x00,          /* 0  ldarga.s 0 */
                        0x28, TOK(T_ADD),    /* 2  call Scale */
                        0x73, TOK(T_CTOR),   /* 7  newobj GenBox<int>::.ctor */
                        0x7B, TOK(T_FIELD),  /* 12 ldfld Value */
                        0x28, TOK(T_ECHO),   /* 17 call Echo<int> */
                        0x28, TOK(T_METHOD), /* 22 call Triple */
                        0x2A),               /* 27 ret */
                   NULL, 0, 0, SIG_INT_INT, 0};
    expect_ok(&b, &o, 1);

    /* The same body returning the box itself is refused: VAR 0 was substituted. */
    body_spec wrong = {BLOB(0x0F, 0x00, 0x28, TOK(T_ADD), 0x73, TOK(T_CTOR), 0x2A), NULL, 0, 0,
                       SIG_INT_INT, 0};
    expect_mismatch(&wrong, &o, 12, AIP_CEE_RET, ALVK_STACK_OBJECT, ALVK_STACK_INT32);
}

/* Fields: new GenBox<int>(0); dup; ldarg.0; stfld; ldfld; *3; stsfld; ldsfld; +1; ret. */
static void field_access_body(void **state)
{
    (void)state;
    test_oracle o;
    oracle_init(&o);
    static const uint8_t box_of_int[] = {0x15, 0x12, 0x14, 0x01, 0x08};
    aip_stack_member *m = add_member(&o, T_CTOR, ANY_OPERAND, BLOB(0x20, 0x01, 0x01, 0x13, 0x00));
    m->owner_instantiation = box_of_int, m->owner_instantiation_length = sizeof box_of_int;
    m->owner = ALVK_STACK_OBJECT;
    m = add_member(&o, T_FIELD, ANY_OPERAND, BLOB(0x06, 0x13, 0x00));
    m->owner_instantiation = box_of_int, m->owner_instantiation_length = sizeof box_of_int;
    add_member(&o, T_SFIELD, ANY_OPERAND, BLOB(0x06, 0x08));
    body_spec b = {BLOB(0x16,                 /* 0  ldc.i4.0 */
                        0x73, TOK(T_CTOR),    /* 1  newobj */
                        0x25,                 /* 6  dup */
                        0x02,                 /* 7  ldarg.0 */
                        0x7D, TOK(T_FIELD),   /* 8  stfld */
                        0x7B, TOK(T_FIELD),   /* 13 ldfld */
                        0x19, 0x5A,           /* 18 ldc.i4.3; mul */
                        0x80, TOK(T_SFIELD),  /* 20 stsfld */
                        0x7E, TOK(T_SFIELD),  /* 25 ldsfld */
                        0x7F, TOK(T_SFIELD),  /* 30 ldsflda */
                        0x4A,                 /* 35 ldind.i4 */
                        0x58,                 /* 36 add */
                        0x2A),                /* 37 ret */
                   NULL, 0, 0, SIG_INT_INT, 0};
    expect_ok(&b, &o, 1);
}

/* Mvar: new GenBox<int>(x).Map<string>(Namer) returns string: MVAR 0 of a MethodSpec whose
 * parent is a generic MemberRef on a TypeSpec. */
static void generic_member_ref_body(void **state)
{
    (void)state;
    test_oracle o;
    oracle_init(&o);
    static const uint8_t box_of_int[] = {0x15, 0x12, 0x14, 0x01, 0x08};
    aip_stack_member *m = add_member(&o, T_CTOR, ANY_OPERAND, BLOB(0x20, 0x01, 0x01, 0x13, 0x00));
    m->owner_instantiation = box_of_int, m->owner_instantiation_length = sizeof box_of_int;
    m->owner = ALVK_STACK_OBJECT;
    /* Func<int32, string> static field */
    add_member(&o, T_SFIELD, ANY_OPERAND, BLOB(0x06, 0x15, 0x12, 0x19, 0x02, 0x08, 0x0E));
    /* instance !!0 Map<1>(class Func<!0, !!0>) instantiated <string> */
    m = add_member(&o, T_ECHO, ANY_OPERAND,
                   BLOB(0x30, 0x01, 0x01, 0x1E, 0x00, 0x15, 0x12, 0x19, 0x02, 0x13, 0x00, 0x1E, 0x00));
    m->owner_instantiation = box_of_int, m->owner_instantiation_length = sizeof box_of_int;
    m->method_instantiation = (const uint8_t[]){0x0A, 0x01, 0x0E};
    m->method_instantiation_length = 3;
    m->owner = ALVK_STACK_OBJECT;
    body_spec b = {BLOB(0x02, 0x73, TOK(T_CTOR), 0x7E, TOK(T_SFIELD), 0x6F, TOK(T_ECHO), 0x2A),
                   NULL, 0, 0, SIG_STRING_INT, 0};
    expect_ok(&b, &o, 1);
}

/* Generic targets: Pick<T>(T, T) and GenBox<T>.First(T) become `ldarg.1; ret`. */
static void generic_target_bodies(void **state)
{
    (void)state;
    body_spec pick = {BLOB(0x03, 0x2A), NULL, 0, 0,
                      BLOB(0x10, 0x01, 0x02, 0x1E, 0x00, 0x1E, 0x00, 0x1E, 0x00), 0};
    expect_ok(&pick, NULL, 1);
    body_spec first = {BLOB(0x03, 0x2A), NULL, 0, 0, BLOB(0x20, 0x01, 0x13, 0x00, 0x13, 0x00), 0};
    expect_ok(&first, NULL, 1);
    /* this.Value of ApiBox<T>: ldarg.0; ldfld <MemberRef on ApiBox<!0>>; ret */
    test_oracle o;
    oracle_init(&o);
    aip_stack_member *m = add_member(&o, T_FIELD, ANY_OPERAND, BLOB(0x06, 0x13, 0x00));
    m->owner_instantiation = (const uint8_t[]){0x15, 0x12, 0x14, 0x01, 0x13, 0x00};
    m->owner_instantiation_length = 6;
    body_spec peek = {BLOB(0x02, 0x7B, TOK(T_FIELD), 0x2A), NULL, 0, 0,
                      BLOB(0x20, 0x01, 0x13, 0x00, 0x13, 0x00), 0};
    expect_ok(&peek, &o, 1);
}

/* Locals through the header: ldarg.0; stloc.0; ldloc.0; ldloc.0; add; ret. */
static void locals_body(void **state)
{
    (void)state;
    test_oracle o;
    oracle_init(&o);
    add_member(&o, T_LOCALS, ALVK_RELOCATION_LOCALS_SIGNATURE, BLOB(0x07, 0x01, 0x08));
    body_spec b = {BLOB(0x02, 0x0A, 0x06, 0x06, 0x58, 0x2A), NULL, 0, T_LOCALS, SIG_INT_INT, 0};
    expect_ok(&b, &o, 1);
    /* Pinned, byref, struct, enum and modified locals. */
    add_member(&o, 0x11000003u, ALVK_RELOCATION_LOCALS_SIGNATURE,
               BLOB(0x07, 0x04, 0x45, 0x10, 0x08, 0x11, 0x08, 0x11, 0x10, 0x20, 0x05, 0x0E));
    body_spec many = {BLOB(0x12, 0x01,  /* 0 ldloca.s 1 (Point) */
                           0x0A,        /* 2 stloc.0 (pinned int32&) */
                           0x06,        /* 3 ldloc.0 */
                           0x4A,        /* 4 ldind.i4 */
                           0x0C,        /* 5 stloc.2 (Color: int32) */
                           0x08,        /* 6 ldloc.2 */
                           0x2A),       /* 7 ret */
                      NULL, 0, 0x11000003u, SIG_INT_INT, 0};
    expect_ok(&many, &o, 1);
}

/* A plan's branch and call shapes: x == 0 ? 12345 : abs(x) through a local and calli. */
static void branches_and_calls(void **state)
{
    (void)state;
    test_oracle o;
    oracle_init(&o);
    add_member(&o, T_LOCALS, ALVK_RELOCATION_LOCALS_SIGNATURE, BLOB(0x07, 0x01, 0x08));
    add_member(&o, T_SFIELD, ANY_OPERAND, BLOB(0x06, 0x18)); /* nint AbsPointer */
    add_member(&o, T_CALLI, ANY_OPERAND, BLOB(0x01, 0x01, 0x08, 0x08));
    body_spec b = {BLOB(0x02,                    /* 0  ldarg.0 */
                        0x3A, 6, 0, 0, 0,        /* 1  brtrue +6 -> 12 */
                        0x20, 0x39, 0x30, 0, 0,  /* 6  ldc.i4 12345 */
                        0x2A,                    /* 11 ret */
                        0x02,                    /* 12 ldarg.0 */
                        0x7E, TOK(T_SFIELD),     /* 13 ldsfld */
                        0x29, TOK(T_CALLI),      /* 18 calli */
                        0x0A, 0x06,              /* 23 stloc.0; ldloc.0 */
                        0x2A),                   /* 25 ret */
                   NULL, 0, T_LOCALS, SIG_INT_INT, 0};
    expect_ok(&b, &o, 1);
}

/* A loop whose counter merges with itself; a switch; a conditional value merged from two
 * paths (int32 and native int merge). */
static void loops_switches_and_merges(void **state)
{
    (void)state;
    test_oracle o;
    oracle_init(&o);
    add_member(&o, T_LOCALS, ALVK_RELOCATION_LOCALS_SIGNATURE, BLOB(0x07, 0x01, 0x08));
    body_spec loop = {BLOB(0x16, 0x0A,           /* 0 ldc.i4.0; stloc.0 */
                           0x06, 0x17, 0x58, 0x0A, /* 2 ldloc.0; ldc.i4.1; add; stloc.0 */
                           0x06, 0x02, 0x32, 0xF8, /* 6 ldloc.0; ldarg.0; blt.s -8 -> 2 */
                           0x06,                 /* 10 ldloc.0 */
                           0x45, 2, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, /* 11 switch (25, 26) */
                           0x16,                 /* 24 ldc.i4.0 */
                           0x2A,                 /* 25 ret? no: 25 is the first target */
                           0x2A),
                      NULL, 0, T_LOCALS, SIG_INT_INT, 0};
    /* switch at 11 is 13 bytes: next 24; targets 25 and 26; 24 ldc.i4.0 falls into 25 ret
     * with one value; both targets are reached with an empty stack: a depth mismatch. */
    expect_mismatch(&loop, &o, 25, AIP_CEE_RET, ALVK_STACK_INT32, ALVK_STACK_NOTHING);

    body_spec fixed = {BLOB(0x16, 0x0A, 0x06, 0x17, 0x58, 0x0A, 0x06, 0x02, 0x32, 0xF8,
                            0x06,
                            0x45, 2, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, /* 11 switch (24, 26) */
                            0x16,                 /* 24 ldc.i4.0 */
                            0x2A,                 /* 25 ret */
                            0x17, 0x2A),          /* 26 ldc.i4.1; ret */
                       NULL, 0, T_LOCALS, SIG_INT_INT, 0};
    expect_ok(&fixed, &o, 1);

    /* cond ? (nint)1 : 2 as native int: int32 and native int meet. */
    body_spec merge = {BLOB(0x02, 0x2C, 0x04,  /* 0 ldarg.0; brfalse.s +4 -> 7 */
                            0x17, 0xD3,        /* 3 ldc.i4.1; conv.i */
                            0x2B, 0x01,        /* 5 br.s +1 -> 8 */
                            0x18,              /* 7 ldc.i4.2 */
                            0x69, 0x2A),       /* 8 conv.i4; ret */
                       NULL, 0, 0, SIG_INT_INT, 0};
    expect_ok(&merge, &o, 1);
}

/* try { return 100 / x; } catch (Exception) { return -1; }, a finally, a filter. */
static void exception_clauses(void **state)
{
    (void)state;
    test_oracle o;
    oracle_init(&o);
    add_member(&o, T_LOCALS, ALVK_RELOCATION_LOCALS_SIGNATURE, BLOB(0x07, 0x01, 0x08));
    static const aip_eh_clause catch_clause[] = {{0, 0, 15, 15, 8, T_WIDGET}};
    body_spec b = {BLOB(0x20, 100, 0, 0, 0,     /* 0  ldc.i4 100 */
                        0x02, 0x5B, 0x0A,       /* 5  ldarg.0; div; stloc.0 */
                        0xDD, 10, 0, 0, 0,      /* 8  leave +10 -> 23 */
                        0x00, 0x00,             /* 13 nop nop (still in the try) */
                        0x26, 0x15, 0x0A,       /* 15 pop; ldc.i4.m1; stloc.0 */
                        0xDE, 0x03,             /* 18 leave.s +3 -> 23 */
                        0x00, 0x00, 0x00,       /* 20 nop (handler ends at 23) */
                        0x06, 0x2A),            /* 23 ldloc.0; ret */
                   catch_clause, 1, T_LOCALS, SIG_INT_INT, 0};
    expect_ok(&b, &o, 1);

    /* finally: the handler starts empty and ends with endfinally. */
    static const aip_eh_clause finally_clause[] = {{2, 0, 3, 3, 3, 0}};
    body_spec f = {BLOB(0x00, 0xDE, 0x03,  /* 0 nop; leave.s +3 -> 6 */
                        0x17, 0x26,        /* 3 ldc.i4.1; pop */
                        0xDC,              /* 5 endfinally */
                        0x16, 0x2A),       /* 6 ldc.i4.0; ret */
                   finally_clause, 1, 0, SIG_INT_INT, 0};
    expect_ok(&f, &o, 1);

    /* filter: the filter block starts with [O] and ends with endfilter (int32). */
    static const aip_eh_clause filter_clause[] = {{1, 0, 3, 7, 3, 3}};
    body_spec ft = {BLOB(0x00, 0xDE, 0x07,  /* 0 nop; leave.s +7 -> 10 */
                         0x26, 0x17,        /* 3 filter: pop; ldc.i4.1 */
                         0xFE, 0x11,        /* 5 endfilter */
                         0x26, 0xDE, 0x00,  /* 7 handler: pop; leave.s +0 -> 10 */
                         0x16, 0x2A),       /* 10 ldc.i4.0; ret */
                    filter_clause, 1, 0, SIG_INT_INT, 0};
    expect_ok(&ft, &o, 1);
}

/* TypeOperands: (int)(object)x + new T[3].Length + typeof(List<int>).Name.Length. */
static void type_operands(void **state)
{
    (void)state;
    test_oracle o;
    oracle_init(&o);
    add_spec(&o, T_LIST_INT, BLOB(0x15, 0x12, 0x19, 0x01, 0x08));
    /* class Type GetTypeFromHandle(valuetype RuntimeTypeHandle): an opaque TypeRef */
    add_member(&o, T_METHOD, ANY_OPERAND, BLOB(0x00, 0x01, 0x12, 0x1D, 0x11, 0x25));
    add_member(&o, T_ADD, ANY_OPERAND, BLOB(0x20, 0x00, 0x0E)); /* instance string get_Name() */
    add_member(&o, T_CTOR, ANY_OPERAND, BLOB(0x20, 0x00, 0x08)); /* instance int32 get_Length() */
    body_spec b = {BLOB(0x02,                 /* 0  ldarg.0 */
                        0x8C, TOK(T_INT32),   /* 1  box int32 */
                        0x75, TOK(T_INT32),   /* 6  isinst int32 */
                        0xA5, TOK(T_INT32),   /* 11 unbox.any int32 */
                        0x19,                 /* 16 ldc.i4.3 */
                        0x8D, TOK(T_LIST_INT),/* 17 newarr */
                        0x8E, 0x69, 0x58,     /* 22 ldlen; conv.i4; add */
                        0xD0, TOK(T_LIST_INT),/* 25 ldtoken */
                        0x28, TOK(T_METHOD),  /* 30 call GetTypeFromHandle */
                        0x6F, TOK(T_ADD),     /* 35 callvirt get_Name */
                        0x6F, TOK(T_CTOR),    /* 40 callvirt get_Length */
                        0x58, 0x2A),          /* 45 add; ret */
                   NULL, 0, 0, SIG_INT_INT, 0};
    expect_ok(&b, &o, 1);
}

/* Value types: a struct receiver's fields, enums as their underlying type, the same struct
 * through locals, stobj/ldobj/initobj, a value-type instance call through a byref. */
static void value_types(void **state)
{
    (void)state;
    test_oracle o;
    oracle_init(&o);
    aip_stack_member *x = add_member(&o, T_FIELD, ANY_OPERAND, BLOB(0x06, 0x08)); /* int32 X */
    x->owner = ALVK_STACK_VALUE_TYPE;
    x->owner_token = T_POINT;
    add_member(&o, T_SFIELD, ANY_OPERAND, BLOB(0x06, 0x11, 0x10)); /* static Color */
    add_member(&o, T_LOCALS, ALVK_RELOCATION_LOCALS_SIGNATURE, BLOB(0x07, 0x02, 0x11, 0x08, 0x11, 0x08));
    aip_stack_member *len = add_member(&o, T_METHOD, ANY_OPERAND, BLOB(0x20, 0x00, 0x08));
    len->owner = ALVK_STACK_VALUE_TYPE;
    len->owner_token = T_POINT;
    body_spec b = {BLOB(0x02, 0x7B, TOK(T_FIELD),   /* 0  ldarg.0 (&); ldfld X */
                        0x7E, TOK(T_SFIELD), 0x58,  /* 6  ldsfld Color; add */
                        0x02, 0x71, TOK(T_POINT),   /* 12 ldarg.0; ldobj Point */
                        0x0A,                       /* 18 stloc.0 */
                        0x12, 0x01, 0xFE, 0x15, TOK(T_POINT), /* 19 ldloca.s 1; initobj */
                        0x12, 0x01, 0x06, 0x81, TOK(T_POINT), /* 27 ldloca.s 1; ldloc.0; stobj */
                        0x07, 0x7B, TOK(T_FIELD), 0x58,       /* 35 ldloc.1; ldfld X; add */
                        0x12, 0x00, 0x28, TOK(T_METHOD), 0x58, /* 42 ldloca.s 0; call; add */
                        0x2A),                      /* 50 ret */
                   NULL, 0, T_LOCALS, BLOB(0x20, 0x00, 0x08), 1};
    expect_ok(&b, &o, 1);
}

/* What the oracle does not know is never refused: calls end the path (incomplete), unknown
 * fields and types pass every check, an opaque value type takes an int32 or a struct. */
static void unknowns_are_not_refused(void **state)
{
    (void)state;
    body_spec call = {BLOB(0x02, 0x28, TOK(T_ADD), 0x2A), NULL, 0, 0, SIG_STRING_INT, 0};
    expect_ok(&call, NULL, 0);
    test_oracle o;
    oracle_init(&o);
    expect_ok(&call, &o, 0);
    body_spec field = {BLOB(0x7E, TOK(T_SFIELD), 0x2A), NULL, 0, 0, SIG_DOUBLE_INT, 0};
    expect_ok(&field, &o, 1);
    body_spec locals = {BLOB(0x14, 0x0A, 0x06, 0x2A), NULL, 0, T_LOCALS, SIG_STRING_INT, 0};
    expect_ok(&locals, &o, 1);
    /* An opaque value type: int32 (an enum) and a struct are both possible. */
    add_member(&o, T_SFIELD, ANY_OPERAND, BLOB(0x06, 0x11, 0x25));
    body_spec opaque = {BLOB(0x7E, TOK(T_SFIELD), 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_ok(&opaque, &o, 1);
    body_spec box = {BLOB(0x02, 0x8C, TOK(T_OPAQUE), 0x26, 0x16, 0x2A), NULL, 0, 0, SIG_INT_INT, 0};
    expect_ok(&box, &o, 1);
    /* The target's own signature does not parse: arguments and return are unknown. */
    body_spec unparsed = {BLOB(0x02, 0x2A), NULL, 0, 0, BLOB(0x00, 0x05), 0};
    expect_ok(&unparsed, &o, 1);
    /* An empty body has nothing to check. */
    body_spec empty = {NULL, 0, NULL, 0, 0, SIG_VOID, 0};
    expect_ok(&empty, &o, 1);
}

/* Unverifiable but correct shapes C# compiles: conv.u of a pinned byref, pointer arithmetic
 * through a byref, a native int used as an address, byref minus byref. */
static void unverifiable_but_correct(void **state)
{
    (void)state;
    test_oracle o;
    oracle_init(&o);
    add_member(&o, T_LOCALS, ALVK_RELOCATION_LOCALS_SIGNATURE, BLOB(0x07, 0x01, 0x45, 0x10, 0x08));
    body_spec b = {BLOB(0x0F, 0x00, 0x0A,      /* 0 ldarga.s 0; stloc.0 (pinned int32&) */
                        0x06, 0xE0,            /* 3 ldloc.0; conv.u */
                        0x1A, 0x58,            /* 5 ldc.i4.4; add */
                        0x1A, 0x59,            /* 7 ldc.i4.4; sub */
                        0x4A,                  /* 9 ldind.i4 */
                        0x06, 0x06, 0x59,      /* 10 ldloc.0; ldloc.0; sub (& - &) */
                        0x69, 0x58, 0x2A),     /* 13 conv.i4; add; ret */
                   NULL, 0, T_LOCALS, SIG_INT_INT, 0};
    expect_ok(&b, &o, 1);
}

static void names_and_helpers(void **state)
{
    (void)state;
    assert_int_equal(aip_stack_type_of_system_name("System.Int32", 12), ALVK_STACK_INT32);
    assert_int_equal(aip_stack_type_of_system_name("System.UIntPtr", 14), ALVK_STACK_NATIVE_INT);
    assert_int_equal(aip_stack_type_of_system_name("System.Double", 13), ALVK_STACK_FLOAT);
    assert_int_equal(aip_stack_type_of_system_name("System.String", 13), ALVK_STACK_OBJECT);
    assert_int_equal(aip_stack_type_of_system_name("System.Int3", 11), ALVK_STACK_NOTHING);
    assert_int_equal(aip_stack_type_of_system_name("System.Int32x", 13), ALVK_STACK_NOTHING);
    assert_int_equal(aip_stack_type_of_system_name(NULL, 0), ALVK_STACK_NOTHING);
    /* The primitive element types (II.23.1.16) and what each is on the stack. */
    assert_int_equal(aip_stack_type_of_primitive(0x02), ALVK_STACK_INT32);  /* BOOLEAN */
    assert_int_equal(aip_stack_type_of_primitive(0x03), ALVK_STACK_INT32);  /* CHAR */
    assert_int_equal(aip_stack_type_of_primitive(0x09), ALVK_STACK_INT32);  /* U4 */
    assert_int_equal(aip_stack_type_of_primitive(0x0A), ALVK_STACK_INT64);  /* I8 */
    assert_int_equal(aip_stack_type_of_primitive(0x0B), ALVK_STACK_INT64);  /* U8 */
    assert_int_equal(aip_stack_type_of_primitive(0x0C), ALVK_STACK_FLOAT);  /* R4 */
    assert_int_equal(aip_stack_type_of_primitive(0x0D), ALVK_STACK_FLOAT);  /* R8 */
    assert_int_equal(aip_stack_type_of_primitive(0x0E), ALVK_STACK_OBJECT); /* STRING */
    assert_int_equal(aip_stack_type_of_primitive(0x18), ALVK_STACK_NATIVE_INT); /* I */
    assert_int_equal(aip_stack_type_of_primitive(0x19), ALVK_STACK_NATIVE_INT); /* U */
    assert_int_equal(aip_stack_type_of_primitive(0x1C), ALVK_STACK_OBJECT);     /* OBJECT */
    assert_int_equal(aip_stack_type_of_primitive(0x01), ALVK_STACK_NOTHING);    /* VOID */
    assert_int_equal(aip_stack_type_of_primitive(0x11), ALVK_STACK_NOTHING);    /* VALUETYPE */
    assert_int_equal(aip_stack_type_of_primitive(0x0F), ALVK_STACK_NOTHING);    /* PTR */
    assert_string_equal(aip_stack_type_name(ALVK_STACK_OBJECT), "O");
    assert_string_equal(aip_stack_type_name(ALVK_STACK_NATIVE_INT), "native int");
    assert_string_equal(aip_stack_type_name((alvk_stack_type)99), "?");
    aip_stack_result r;
    body_spec b = {BLOB(0x2A), NULL, 0, 0, SIG_VOID, 0};
    assert_int_equal(aip_il_check_stack_types(NULL, NULL, NULL, &r), ALVK_E_NULL_ARGUMENT);
    assert_int_equal(check_with(&b, NULL, NULL), ALVK_E_NULL_ARGUMENT);
    body_spec bad = {BLOB(0x24), NULL, 0, 0, SIG_VOID, 0};
    assert_int_equal(check_with(&bad, NULL, &r), ALVK_E_IL_MALFORMED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exact_dispatch_bodies),
        cmocka_unit_test(unmanaged_calli_body),
        cmocka_unit_test(four_kinds_body),
        cmocka_unit_test(field_access_body),
        cmocka_unit_test(generic_member_ref_body),
        cmocka_unit_test(generic_target_bodies),
        cmocka_unit_test(locals_body),
        cmocka_unit_test(branches_and_calls),
        cmocka_unit_test(loops_switches_and_merges),
        cmocka_unit_test(exception_clauses),
        cmocka_unit_test(type_operands),
        cmocka_unit_test(value_types),
        cmocka_unit_test(unknowns_are_not_refused),
        cmocka_unit_test(unverifiable_but_correct),
        cmocka_unit_test(names_and_helpers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
