/* Every CIL opcode of ECMA-335 Partition III (6th edition), as one X-macro list:
 *   X(ident, "name", value, operand, stack, type)
 * value is the opcode byte (0x00-0xE0) or 0xFE00 | second byte for the two-byte opcodes;
 * operand is the suffix of an aip_operand_kind (AIP_OPERAND_##operand). Values missing from
 * the list (0x24, 0x77, 0x78, 0xA6-0xB2, 0xBB-0xC1, 0xC4, 0xC5, 0xC7-0xCF, 0xE1-0xFF,
 * 0xFE08, 0xFE10, 0xFE1B, 0xFE1F-0xFEFF) are unused or reserved and never valid. Note that
 * CoreCLR's JIT treats 0xFE19 (no.) as unused; it is listed because ECMA-335 defines it.
 * stack is the suffix of an aip_stack_rule: what the instruction does to the evaluation
 * stack (ECMA-335 III.1.8, the "stack transition" of each instruction in III.3-4); type is
 * the suffix of an alvk_stack_type the rule is about (what LDIND loads, STELEM stores,
 * CONVERT converts to, PUSH pushes), NOTHING when the rule needs none. */
#ifndef AIP_IL_OPCODES_H
#define AIP_IL_OPCODES_H

/* Operand kinds (ECMA names in il_walk.h) and their sizes in bytes: NONE 0; SHORT_VAR,
 * SHORT_I, SHORT_BR 1; VAR 2; SHORT_R, I, BR and the token kinds METHOD, FIELD, TYPE, TOK,
 * STRING (a user-string token), SIG 4; I8, R 8; SWITCH 4 + 4n (a u32 count n, then n i32
 * targets). Branch and switch targets are relative to the start of the next instruction. */
typedef enum aip_operand_kind {
    AIP_OPERAND_NONE = 0,
    AIP_OPERAND_SHORT_VAR,
    AIP_OPERAND_SHORT_I,
    AIP_OPERAND_SHORT_BR,
    AIP_OPERAND_SHORT_R,
    AIP_OPERAND_I,
    AIP_OPERAND_I8,
    AIP_OPERAND_R,
    AIP_OPERAND_VAR,
    AIP_OPERAND_BR,
    AIP_OPERAND_SWITCH,
    AIP_OPERAND_METHOD,
    AIP_OPERAND_FIELD,
    AIP_OPERAND_TYPE,
    AIP_OPERAND_TOK,
    AIP_OPERAND_STRING,
    AIP_OPERAND_SIG,
    AIP_OPERAND_KIND_COUNT
} aip_operand_kind;

/* How an instruction changes the evaluation stack. Operands are listed bottom to top; the
 * type column of the opcode table says which stack type a rule marked (type) is about. */
typedef enum aip_stack_rule {
    AIP_STACK_RULE_NONE = 0,       /* nothing (nop, break, prefixes) */
    AIP_STACK_RULE_PUSH,           /* -> (type) */
    AIP_STACK_RULE_LDARG,          /* -> the argument's type */
    AIP_STACK_RULE_LDARGA,         /* -> & */
    AIP_STACK_RULE_STARG,          /* value -> ; value fits the argument */
    AIP_STACK_RULE_LDLOC,          /* -> the local's type */
    AIP_STACK_RULE_LDLOCA,         /* -> & */
    AIP_STACK_RULE_STLOC,          /* value -> ; value fits the local */
    AIP_STACK_RULE_DUP,            /* v -> v, v */
    AIP_STACK_RULE_POP,            /* v -> */
    AIP_STACK_RULE_JMP,            /* (empty stack) */
    AIP_STACK_RULE_CALL,           /* [this] args -> [return] (call, callvirt) */
    AIP_STACK_RULE_CALLI,          /* [this] args ftn -> [return] */
    AIP_STACK_RULE_NEWOBJ,         /* args -> the new object */
    AIP_STACK_RULE_RET,            /* [return] -> (empty stack after) */
    AIP_STACK_RULE_BRANCH,         /* -> ; to the target */
    AIP_STACK_RULE_BRANCH_TRUTH,   /* value -> (brtrue, brfalse) */
    AIP_STACK_RULE_BRANCH_COMPARE, /* v1 v2 -> (beq, bge, ...) */
    AIP_STACK_RULE_SWITCH,         /* int32 -> */
    AIP_STACK_RULE_LDIND,          /* address -> (type) */
    AIP_STACK_RULE_STIND,          /* address (type) -> */
    AIP_STACK_RULE_ARITHMETIC,     /* v1 v2 -> result (add, sub, mul, div, rem) */
    AIP_STACK_RULE_ARITHMETIC_OVF, /* v1 v2 -> result, integers (add.ovf, ...) */
    AIP_STACK_RULE_INTEGER,        /* v1 v2 -> result, integers (and, or, xor, div.un, rem.un) */
    AIP_STACK_RULE_SHIFT,          /* value amount -> value's type */
    AIP_STACK_RULE_NEGATE,         /* v -> v (numbers) */
    AIP_STACK_RULE_NOT,            /* v -> v (integers) */
    AIP_STACK_RULE_CONVERT,        /* v -> (type) */
    AIP_STACK_RULE_CKFINITE,       /* F -> F */
    AIP_STACK_RULE_COMPARE,        /* v1 v2 -> int32 (ceq, cgt, ...) */
    AIP_STACK_RULE_CPOBJ,          /* dest src -> */
    AIP_STACK_RULE_LDOBJ,          /* address -> the operand type */
    AIP_STACK_RULE_STOBJ,          /* address value -> */
    AIP_STACK_RULE_INITOBJ,        /* address -> */
    AIP_STACK_RULE_CAST,           /* O -> O (castclass, isinst) */
    AIP_STACK_RULE_UNBOX,          /* O -> & */
    AIP_STACK_RULE_UNBOX_ANY,      /* O -> the operand type */
    AIP_STACK_RULE_BOX,            /* value -> O */
    AIP_STACK_RULE_THROW,          /* O -> (empty stack) */
    AIP_STACK_RULE_RETHROW,        /* (empty stack) */
    AIP_STACK_RULE_LDFLD,          /* object -> the field's type */
    AIP_STACK_RULE_LDFLDA,         /* object -> & */
    AIP_STACK_RULE_STFLD,          /* object value -> */
    AIP_STACK_RULE_LDSFLD,         /* -> the field's type */
    AIP_STACK_RULE_LDSFLDA,        /* -> & */
    AIP_STACK_RULE_STSFLD,         /* value -> */
    AIP_STACK_RULE_NEWARR,         /* count -> O */
    AIP_STACK_RULE_LDLEN,          /* O -> native int */
    AIP_STACK_RULE_LDELEMA,        /* array index -> & */
    AIP_STACK_RULE_LDELEM,         /* array index -> (type) */
    AIP_STACK_RULE_LDELEM_TYPE,    /* array index -> the operand type */
    AIP_STACK_RULE_STELEM,         /* array index (type) -> */
    AIP_STACK_RULE_STELEM_TYPE,    /* array index value -> */
    AIP_STACK_RULE_REFANYVAL,      /* typedref -> & */
    AIP_STACK_RULE_MKREFANY,       /* address -> typedref */
    AIP_STACK_RULE_REFANYTYPE,     /* typedref -> RuntimeTypeHandle */
    AIP_STACK_RULE_ENDFINALLY,     /* (empty stack) */
    AIP_STACK_RULE_LEAVE,          /* (empties the stack) -> ; to the target */
    AIP_STACK_RULE_ENDFILTER,      /* int32 -> */
    AIP_STACK_RULE_LDVIRTFTN,      /* O -> native int */
    AIP_STACK_RULE_LOCALLOC,       /* size -> native int */
    AIP_STACK_RULE_BLOCK,          /* address address-or-value size -> (cpblk, initblk) */
    AIP_STACK_RULE_COUNT
} aip_stack_rule;

/* clang-format off */
#define AIP_IL_OPCODES(X) \
    X(NOP, "nop", 0x00, NONE, NONE, NOTHING) \
    X(BREAK, "break", 0x01, NONE, NONE, NOTHING) \
    X(LDARG_0, "ldarg.0", 0x02, NONE, LDARG, NOTHING) \
    X(LDARG_1, "ldarg.1", 0x03, NONE, LDARG, NOTHING) \
    X(LDARG_2, "ldarg.2", 0x04, NONE, LDARG, NOTHING) \
    X(LDARG_3, "ldarg.3", 0x05, NONE, LDARG, NOTHING) \
    X(LDLOC_0, "ldloc.0", 0x06, NONE, LDLOC, NOTHING) \
    X(LDLOC_1, "ldloc.1", 0x07, NONE, LDLOC, NOTHING) \
    X(LDLOC_2, "ldloc.2", 0x08, NONE, LDLOC, NOTHING) \
    X(LDLOC_3, "ldloc.3", 0x09, NONE, LDLOC, NOTHING) \
    X(STLOC_0, "stloc.0", 0x0A, NONE, STLOC, NOTHING) \
    X(STLOC_1, "stloc.1", 0x0B, NONE, STLOC, NOTHING) \
    X(STLOC_2, "stloc.2", 0x0C, NONE, STLOC, NOTHING) \
    X(STLOC_3, "stloc.3", 0x0D, NONE, STLOC, NOTHING) \
    X(LDARG_S, "ldarg.s", 0x0E, SHORT_VAR, LDARG, NOTHING) \
    X(LDARGA_S, "ldarga.s", 0x0F, SHORT_VAR, LDARGA, BYREF) \
    X(STARG_S, "starg.s", 0x10, SHORT_VAR, STARG, NOTHING) \
    X(LDLOC_S, "ldloc.s", 0x11, SHORT_VAR, LDLOC, NOTHING) \
    X(LDLOCA_S, "ldloca.s", 0x12, SHORT_VAR, LDLOCA, BYREF) \
    X(STLOC_S, "stloc.s", 0x13, SHORT_VAR, STLOC, NOTHING) \
    X(LDNULL, "ldnull", 0x14, NONE, PUSH, OBJECT) \
    X(LDC_I4_M1, "ldc.i4.m1", 0x15, NONE, PUSH, INT32) \
    X(LDC_I4_0, "ldc.i4.0", 0x16, NONE, PUSH, INT32) \
    X(LDC_I4_1, "ldc.i4.1", 0x17, NONE, PUSH, INT32) \
    X(LDC_I4_2, "ldc.i4.2", 0x18, NONE, PUSH, INT32) \
    X(LDC_I4_3, "ldc.i4.3", 0x19, NONE, PUSH, INT32) \
    X(LDC_I4_4, "ldc.i4.4", 0x1A, NONE, PUSH, INT32) \
    X(LDC_I4_5, "ldc.i4.5", 0x1B, NONE, PUSH, INT32) \
    X(LDC_I4_6, "ldc.i4.6", 0x1C, NONE, PUSH, INT32) \
    X(LDC_I4_7, "ldc.i4.7", 0x1D, NONE, PUSH, INT32) \
    X(LDC_I4_8, "ldc.i4.8", 0x1E, NONE, PUSH, INT32) \
    X(LDC_I4_S, "ldc.i4.s", 0x1F, SHORT_I, PUSH, INT32) \
    X(LDC_I4, "ldc.i4", 0x20, I, PUSH, INT32) \
    X(LDC_I8, "ldc.i8", 0x21, I8, PUSH, INT64) \
    X(LDC_R4, "ldc.r4", 0x22, SHORT_R, PUSH, FLOAT) \
    X(LDC_R8, "ldc.r8", 0x23, R, PUSH, FLOAT) \
    X(DUP, "dup", 0x25, NONE, DUP, NOTHING) \
    X(POP, "pop", 0x26, NONE, POP, NOTHING) \
    X(JMP, "jmp", 0x27, METHOD, JMP, NOTHING) \
    X(CALL, "call", 0x28, METHOD, CALL, NOTHING) \
    X(CALLI, "calli", 0x29, SIG, CALLI, NOTHING) \
    X(RET, "ret", 0x2A, NONE, RET, NOTHING) \
    X(BR_S, "br.s", 0x2B, SHORT_BR, BRANCH, NOTHING) \
    X(BRFALSE_S, "brfalse.s", 0x2C, SHORT_BR, BRANCH_TRUTH, NOTHING) \
    X(BRTRUE_S, "brtrue.s", 0x2D, SHORT_BR, BRANCH_TRUTH, NOTHING) \
    X(BEQ_S, "beq.s", 0x2E, SHORT_BR, BRANCH_COMPARE, NOTHING) \
    X(BGE_S, "bge.s", 0x2F, SHORT_BR, BRANCH_COMPARE, NOTHING) \
    X(BGT_S, "bgt.s", 0x30, SHORT_BR, BRANCH_COMPARE, NOTHING) \
    X(BLE_S, "ble.s", 0x31, SHORT_BR, BRANCH_COMPARE, NOTHING) \
    X(BLT_S, "blt.s", 0x32, SHORT_BR, BRANCH_COMPARE, NOTHING) \
    X(BNE_UN_S, "bne.un.s", 0x33, SHORT_BR, BRANCH_COMPARE, NOTHING) \
    X(BGE_UN_S, "bge.un.s", 0x34, SHORT_BR, BRANCH_COMPARE, NOTHING) \
    X(BGT_UN_S, "bgt.un.s", 0x35, SHORT_BR, BRANCH_COMPARE, NOTHING) \
    X(BLE_UN_S, "ble.un.s", 0x36, SHORT_BR, BRANCH_COMPARE, NOTHING) \
    X(BLT_UN_S, "blt.un.s", 0x37, SHORT_BR, BRANCH_COMPARE, NOTHING) \
    X(BR, "br", 0x38, BR, BRANCH, NOTHING) \
    X(BRFALSE, "brfalse", 0x39, BR, BRANCH_TRUTH, NOTHING) \
    X(BRTRUE, "brtrue", 0x3A, BR, BRANCH_TRUTH, NOTHING) \
    X(BEQ, "beq", 0x3B, BR, BRANCH_COMPARE, NOTHING) \
    X(BGE, "bge", 0x3C, BR, BRANCH_COMPARE, NOTHING) \
    X(BGT, "bgt", 0x3D, BR, BRANCH_COMPARE, NOTHING) \
    X(BLE, "ble", 0x3E, BR, BRANCH_COMPARE, NOTHING) \
    X(BLT, "blt", 0x3F, BR, BRANCH_COMPARE, NOTHING) \
    X(BNE_UN, "bne.un", 0x40, BR, BRANCH_COMPARE, NOTHING) \
    X(BGE_UN, "bge.un", 0x41, BR, BRANCH_COMPARE, NOTHING) \
    X(BGT_UN, "bgt.un", 0x42, BR, BRANCH_COMPARE, NOTHING) \
    X(BLE_UN, "ble.un", 0x43, BR, BRANCH_COMPARE, NOTHING) \
    X(BLT_UN, "blt.un", 0x44, BR, BRANCH_COMPARE, NOTHING) \
    X(SWITCH, "switch", 0x45, SWITCH, SWITCH, NOTHING) \
    X(LDIND_I1, "ldind.i1", 0x46, NONE, LDIND, INT32) \
    X(LDIND_U1, "ldind.u1", 0x47, NONE, LDIND, INT32) \
    X(LDIND_I2, "ldind.i2", 0x48, NONE, LDIND, INT32) \
    X(LDIND_U2, "ldind.u2", 0x49, NONE, LDIND, INT32) \
    X(LDIND_I4, "ldind.i4", 0x4A, NONE, LDIND, INT32) \
    X(LDIND_U4, "ldind.u4", 0x4B, NONE, LDIND, INT32) \
    X(LDIND_I8, "ldind.i8", 0x4C, NONE, LDIND, INT64) \
    X(LDIND_I, "ldind.i", 0x4D, NONE, LDIND, NATIVE_INT) \
    X(LDIND_R4, "ldind.r4", 0x4E, NONE, LDIND, FLOAT) \
    X(LDIND_R8, "ldind.r8", 0x4F, NONE, LDIND, FLOAT) \
    X(LDIND_REF, "ldind.ref", 0x50, NONE, LDIND, OBJECT) \
    X(STIND_REF, "stind.ref", 0x51, NONE, STIND, OBJECT) \
    X(STIND_I1, "stind.i1", 0x52, NONE, STIND, INT32) \
    X(STIND_I2, "stind.i2", 0x53, NONE, STIND, INT32) \
    X(STIND_I4, "stind.i4", 0x54, NONE, STIND, INT32) \
    X(STIND_I8, "stind.i8", 0x55, NONE, STIND, INT64) \
    X(STIND_R4, "stind.r4", 0x56, NONE, STIND, FLOAT) \
    X(STIND_R8, "stind.r8", 0x57, NONE, STIND, FLOAT) \
    X(ADD, "add", 0x58, NONE, ARITHMETIC, NOTHING) \
    X(SUB, "sub", 0x59, NONE, ARITHMETIC, NOTHING) \
    X(MUL, "mul", 0x5A, NONE, ARITHMETIC, NOTHING) \
    X(DIV, "div", 0x5B, NONE, ARITHMETIC, NOTHING) \
    X(DIV_UN, "div.un", 0x5C, NONE, INTEGER, NOTHING) \
    X(REM, "rem", 0x5D, NONE, ARITHMETIC, NOTHING) \
    X(REM_UN, "rem.un", 0x5E, NONE, INTEGER, NOTHING) \
    X(AND, "and", 0x5F, NONE, INTEGER, NOTHING) \
    X(OR, "or", 0x60, NONE, INTEGER, NOTHING) \
    X(XOR, "xor", 0x61, NONE, INTEGER, NOTHING) \
    X(SHL, "shl", 0x62, NONE, SHIFT, NOTHING) \
    X(SHR, "shr", 0x63, NONE, SHIFT, NOTHING) \
    X(SHR_UN, "shr.un", 0x64, NONE, SHIFT, NOTHING) \
    X(NEG, "neg", 0x65, NONE, NEGATE, NOTHING) \
    X(NOT, "not", 0x66, NONE, NOT, NOTHING) \
    X(CONV_I1, "conv.i1", 0x67, NONE, CONVERT, INT32) \
    X(CONV_I2, "conv.i2", 0x68, NONE, CONVERT, INT32) \
    X(CONV_I4, "conv.i4", 0x69, NONE, CONVERT, INT32) \
    X(CONV_I8, "conv.i8", 0x6A, NONE, CONVERT, INT64) \
    X(CONV_R4, "conv.r4", 0x6B, NONE, CONVERT, FLOAT) \
    X(CONV_R8, "conv.r8", 0x6C, NONE, CONVERT, FLOAT) \
    X(CONV_U4, "conv.u4", 0x6D, NONE, CONVERT, INT32) \
    X(CONV_U8, "conv.u8", 0x6E, NONE, CONVERT, INT64) \
    X(CALLVIRT, "callvirt", 0x6F, METHOD, CALL, NOTHING) \
    X(CPOBJ, "cpobj", 0x70, TYPE, CPOBJ, NOTHING) \
    X(LDOBJ, "ldobj", 0x71, TYPE, LDOBJ, NOTHING) \
    X(LDSTR, "ldstr", 0x72, STRING, PUSH, OBJECT) \
    X(NEWOBJ, "newobj", 0x73, METHOD, NEWOBJ, NOTHING) \
    X(CASTCLASS, "castclass", 0x74, TYPE, CAST, OBJECT) \
    X(ISINST, "isinst", 0x75, TYPE, CAST, OBJECT) \
    X(CONV_R_UN, "conv.r.un", 0x76, NONE, CONVERT, FLOAT) \
    X(UNBOX, "unbox", 0x79, TYPE, UNBOX, BYREF) \
    X(THROW, "throw", 0x7A, NONE, THROW, NOTHING) \
    X(LDFLD, "ldfld", 0x7B, FIELD, LDFLD, NOTHING) \
    X(LDFLDA, "ldflda", 0x7C, FIELD, LDFLDA, BYREF) \
    X(STFLD, "stfld", 0x7D, FIELD, STFLD, NOTHING) \
    X(LDSFLD, "ldsfld", 0x7E, FIELD, LDSFLD, NOTHING) \
    X(LDSFLDA, "ldsflda", 0x7F, FIELD, LDSFLDA, BYREF) \
    X(STSFLD, "stsfld", 0x80, FIELD, STSFLD, NOTHING) \
    X(STOBJ, "stobj", 0x81, TYPE, STOBJ, NOTHING) \
    X(CONV_OVF_I1_UN, "conv.ovf.i1.un", 0x82, NONE, CONVERT, INT32) \
    X(CONV_OVF_I2_UN, "conv.ovf.i2.un", 0x83, NONE, CONVERT, INT32) \
    X(CONV_OVF_I4_UN, "conv.ovf.i4.un", 0x84, NONE, CONVERT, INT32) \
    X(CONV_OVF_I8_UN, "conv.ovf.i8.un", 0x85, NONE, CONVERT, INT64) \
    X(CONV_OVF_U1_UN, "conv.ovf.u1.un", 0x86, NONE, CONVERT, INT32) \
    X(CONV_OVF_U2_UN, "conv.ovf.u2.un", 0x87, NONE, CONVERT, INT32) \
    X(CONV_OVF_U4_UN, "conv.ovf.u4.un", 0x88, NONE, CONVERT, INT32) \
    X(CONV_OVF_U8_UN, "conv.ovf.u8.un", 0x89, NONE, CONVERT, INT64) \
    X(CONV_OVF_I_UN, "conv.ovf.i.un", 0x8A, NONE, CONVERT, NATIVE_INT) \
    X(CONV_OVF_U_UN, "conv.ovf.u.un", 0x8B, NONE, CONVERT, NATIVE_INT) \
    X(BOX, "box", 0x8C, TYPE, BOX, OBJECT) \
    X(NEWARR, "newarr", 0x8D, TYPE, NEWARR, OBJECT) \
    X(LDLEN, "ldlen", 0x8E, NONE, LDLEN, NATIVE_INT) \
    X(LDELEMA, "ldelema", 0x8F, TYPE, LDELEMA, BYREF) \
    X(LDELEM_I1, "ldelem.i1", 0x90, NONE, LDELEM, INT32) \
    X(LDELEM_U1, "ldelem.u1", 0x91, NONE, LDELEM, INT32) \
    X(LDELEM_I2, "ldelem.i2", 0x92, NONE, LDELEM, INT32) \
    X(LDELEM_U2, "ldelem.u2", 0x93, NONE, LDELEM, INT32) \
    X(LDELEM_I4, "ldelem.i4", 0x94, NONE, LDELEM, INT32) \
    X(LDELEM_U4, "ldelem.u4", 0x95, NONE, LDELEM, INT32) \
    X(LDELEM_I8, "ldelem.i8", 0x96, NONE, LDELEM, INT64) \
    X(LDELEM_I, "ldelem.i", 0x97, NONE, LDELEM, NATIVE_INT) \
    X(LDELEM_R4, "ldelem.r4", 0x98, NONE, LDELEM, FLOAT) \
    X(LDELEM_R8, "ldelem.r8", 0x99, NONE, LDELEM, FLOAT) \
    X(LDELEM_REF, "ldelem.ref", 0x9A, NONE, LDELEM, OBJECT) \
    X(STELEM_I, "stelem.i", 0x9B, NONE, STELEM, NATIVE_INT) \
    X(STELEM_I1, "stelem.i1", 0x9C, NONE, STELEM, INT32) \
    X(STELEM_I2, "stelem.i2", 0x9D, NONE, STELEM, INT32) \
    X(STELEM_I4, "stelem.i4", 0x9E, NONE, STELEM, INT32) \
    X(STELEM_I8, "stelem.i8", 0x9F, NONE, STELEM, INT64) \
    X(STELEM_R4, "stelem.r4", 0xA0, NONE, STELEM, FLOAT) \
    X(STELEM_R8, "stelem.r8", 0xA1, NONE, STELEM, FLOAT) \
    X(STELEM_REF, "stelem.ref", 0xA2, NONE, STELEM, OBJECT) \
    X(LDELEM, "ldelem", 0xA3, TYPE, LDELEM_TYPE, NOTHING) \
    X(STELEM, "stelem", 0xA4, TYPE, STELEM_TYPE, NOTHING) \
    X(UNBOX_ANY, "unbox.any", 0xA5, TYPE, UNBOX_ANY, NOTHING) \
    X(CONV_OVF_I1, "conv.ovf.i1", 0xB3, NONE, CONVERT, INT32) \
    X(CONV_OVF_U1, "conv.ovf.u1", 0xB4, NONE, CONVERT, INT32) \
    X(CONV_OVF_I2, "conv.ovf.i2", 0xB5, NONE, CONVERT, INT32) \
    X(CONV_OVF_U2, "conv.ovf.u2", 0xB6, NONE, CONVERT, INT32) \
    X(CONV_OVF_I4, "conv.ovf.i4", 0xB7, NONE, CONVERT, INT32) \
    X(CONV_OVF_U4, "conv.ovf.u4", 0xB8, NONE, CONVERT, INT32) \
    X(CONV_OVF_I8, "conv.ovf.i8", 0xB9, NONE, CONVERT, INT64) \
    X(CONV_OVF_U8, "conv.ovf.u8", 0xBA, NONE, CONVERT, INT64) \
    X(REFANYVAL, "refanyval", 0xC2, TYPE, REFANYVAL, BYREF) \
    X(CKFINITE, "ckfinite", 0xC3, NONE, CKFINITE, FLOAT) \
    X(MKREFANY, "mkrefany", 0xC6, TYPE, MKREFANY, VALUE_TYPE) \
    X(LDTOKEN, "ldtoken", 0xD0, TOK, PUSH, VALUE_TYPE) \
    X(CONV_U2, "conv.u2", 0xD1, NONE, CONVERT, INT32) \
    X(CONV_U1, "conv.u1", 0xD2, NONE, CONVERT, INT32) \
    X(CONV_I, "conv.i", 0xD3, NONE, CONVERT, NATIVE_INT) \
    X(CONV_OVF_I, "conv.ovf.i", 0xD4, NONE, CONVERT, NATIVE_INT) \
    X(CONV_OVF_U, "conv.ovf.u", 0xD5, NONE, CONVERT, NATIVE_INT) \
    X(ADD_OVF, "add.ovf", 0xD6, NONE, ARITHMETIC_OVF, NOTHING) \
    X(ADD_OVF_UN, "add.ovf.un", 0xD7, NONE, ARITHMETIC_OVF, NOTHING) \
    X(MUL_OVF, "mul.ovf", 0xD8, NONE, ARITHMETIC_OVF, NOTHING) \
    X(MUL_OVF_UN, "mul.ovf.un", 0xD9, NONE, ARITHMETIC_OVF, NOTHING) \
    X(SUB_OVF, "sub.ovf", 0xDA, NONE, ARITHMETIC_OVF, NOTHING) \
    X(SUB_OVF_UN, "sub.ovf.un", 0xDB, NONE, ARITHMETIC_OVF, NOTHING) \
    X(ENDFINALLY, "endfinally", 0xDC, NONE, ENDFINALLY, NOTHING) \
    X(LEAVE, "leave", 0xDD, BR, LEAVE, NOTHING) \
    X(LEAVE_S, "leave.s", 0xDE, SHORT_BR, LEAVE, NOTHING) \
    X(STIND_I, "stind.i", 0xDF, NONE, STIND, NATIVE_INT) \
    X(CONV_U, "conv.u", 0xE0, NONE, CONVERT, NATIVE_INT) \
    X(ARGLIST, "arglist", 0xFE00, NONE, PUSH, VALUE_TYPE) \
    X(CEQ, "ceq", 0xFE01, NONE, COMPARE, INT32) \
    X(CGT, "cgt", 0xFE02, NONE, COMPARE, INT32) \
    X(CGT_UN, "cgt.un", 0xFE03, NONE, COMPARE, INT32) \
    X(CLT, "clt", 0xFE04, NONE, COMPARE, INT32) \
    X(CLT_UN, "clt.un", 0xFE05, NONE, COMPARE, INT32) \
    X(LDFTN, "ldftn", 0xFE06, METHOD, PUSH, NATIVE_INT) \
    X(LDVIRTFTN, "ldvirtftn", 0xFE07, METHOD, LDVIRTFTN, NATIVE_INT) \
    X(LDARG, "ldarg", 0xFE09, VAR, LDARG, NOTHING) \
    X(LDARGA, "ldarga", 0xFE0A, VAR, LDARGA, BYREF) \
    X(STARG, "starg", 0xFE0B, VAR, STARG, NOTHING) \
    X(LDLOC, "ldloc", 0xFE0C, VAR, LDLOC, NOTHING) \
    X(LDLOCA, "ldloca", 0xFE0D, VAR, LDLOCA, BYREF) \
    X(STLOC, "stloc", 0xFE0E, VAR, STLOC, NOTHING) \
    X(LOCALLOC, "localloc", 0xFE0F, NONE, LOCALLOC, NATIVE_INT) \
    X(ENDFILTER, "endfilter", 0xFE11, NONE, ENDFILTER, NOTHING) \
    X(UNALIGNED, "unaligned.", 0xFE12, SHORT_I, NONE, NOTHING) \
    X(VOLATILE, "volatile.", 0xFE13, NONE, NONE, NOTHING) \
    X(TAIL, "tail.", 0xFE14, NONE, NONE, NOTHING) \
    X(INITOBJ, "initobj", 0xFE15, TYPE, INITOBJ, NOTHING) \
    X(CONSTRAINED, "constrained.", 0xFE16, TYPE, NONE, NOTHING) \
    X(CPBLK, "cpblk", 0xFE17, NONE, BLOCK, NOTHING) \
    X(INITBLK, "initblk", 0xFE18, NONE, BLOCK, NOTHING) \
    X(NO, "no.", 0xFE19, SHORT_I, NONE, NOTHING) \
    X(RETHROW, "rethrow", 0xFE1A, NONE, RETHROW, NOTHING) \
    X(SIZEOF, "sizeof", 0xFE1C, TYPE, PUSH, INT32) \
    X(REFANYTYPE, "refanytype", 0xFE1D, NONE, REFANYTYPE, VALUE_TYPE) \
    X(READONLY, "readonly.", 0xFE1E, NONE, NONE, NOTHING)
/* clang-format on */

#endif
