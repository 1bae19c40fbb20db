/* Every CIL opcode of ECMA-335 Partition III (6th edition), as one X-macro list:
 *   X(ident, "name", value, operand)
 * value is the opcode byte (0x00-0xE0) or 0xFE00 | second byte for the two-byte opcodes;
 * operand is the suffix of an aip_operand_kind (AIP_OPERAND_##operand). Values missing from
 * the list (0x24, 0x77, 0x78, 0xA6-0xB2, 0xBB-0xC1, 0xC4, 0xC5, 0xC7-0xCF, 0xE1-0xFF,
 * 0xFE08, 0xFE10, 0xFE1B, 0xFE1F-0xFEFF) are unused or reserved and never valid. Note that
 * CoreCLR's JIT treats 0xFE19 (no.) as unused; it is listed because ECMA-335 defines it. */
#ifndef AIP_IL_OPCODES_H
#define AIP_IL_OPCODES_H

/* Operand kinds (ECMA names in il_walk.h) and their sizes in bytes: NONE 0; SHORT_VAR,
 * SHORT_I, SHORT_BR 1; VAR 2; SHORT_R, I, BR and the token kinds METHOD, FIELD, TYPE, TOK,
 * STRING (a user-string token), SIG 4; I8, R 8; SWITCH 4 + 4n (a u32 count n, then n i32
 * targets). Branch and switch targets are relative to the start of the next instruction. */
typedef enum aip_operand_kind {
    AIP_OPERAND_NONE = 0, AIP_OPERAND_SHORT_VAR, AIP_OPERAND_SHORT_I, AIP_OPERAND_SHORT_BR,
    AIP_OPERAND_SHORT_R, AIP_OPERAND_I, AIP_OPERAND_I8, AIP_OPERAND_R, AIP_OPERAND_VAR,
    AIP_OPERAND_BR, AIP_OPERAND_SWITCH, AIP_OPERAND_METHOD, AIP_OPERAND_FIELD,
    AIP_OPERAND_TYPE, AIP_OPERAND_TOK, AIP_OPERAND_STRING, AIP_OPERAND_SIG,
    AIP_OPERAND_KIND_COUNT
} aip_operand_kind;

#define AIP_IL_OPCODES(X) \
    X(NOP, "nop", 0x00, NONE) \
    X(BREAK, "break", 0x01, NONE) \
    X(LDARG_0, "ldarg.0", 0x02, NONE) \
    X(LDARG_1, "ldarg.1", 0x03, NONE) \
    X(LDARG_2, "ldarg.2", 0x04, NONE) \
    X(LDARG_3, "ldarg.3", 0x05, NONE) \
    X(LDLOC_0, "ldloc.0", 0x06, NONE) \
    X(LDLOC_1, "ldloc.1", 0x07, NONE) \
    X(LDLOC_2, "ldloc.2", 0x08, NONE) \
    X(LDLOC_3, "ldloc.3", 0x09, NONE) \
    X(STLOC_0, "stloc.0", 0x0A, NONE) \
    X(STLOC_1, "stloc.1", 0x0B, NONE) \
    X(STLOC_2, "stloc.2", 0x0C, NONE) \
    X(STLOC_3, "stloc.3", 0x0D, NONE) \
    X(LDARG_S, "ldarg.s", 0x0E, SHORT_VAR) \
    X(LDARGA_S, "ldarga.s", 0x0F, SHORT_VAR) \
    X(STARG_S, "starg.s", 0x10, SHORT_VAR) \
    X(LDLOC_S, "ldloc.s", 0x11, SHORT_VAR) \
    X(LDLOCA_S, "ldloca.s", 0x12, SHORT_VAR) \
    X(STLOC_S, "stloc.s", 0x13, SHORT_VAR) \
    X(LDNULL, "ldnull", 0x14, NONE) \
    X(LDC_I4_M1, "ldc.i4.m1", 0x15, NONE) \
    X(LDC_I4_0, "ldc.i4.0", 0x16, NONE) \
    X(LDC_I4_1, "ldc.i4.1", 0x17, NONE) \
    X(LDC_I4_2, "ldc.i4.2", 0x18, NONE) \
    X(LDC_I4_3, "ldc.i4.3", 0x19, NONE) \
    X(LDC_I4_4, "ldc.i4.4", 0x1A, NONE) \
    X(LDC_I4_5, "ldc.i4.5", 0x1B, NONE) \
    X(LDC_I4_6, "ldc.i4.6", 0x1C, NONE) \
    X(LDC_I4_7, "ldc.i4.7", 0x1D, NONE) \
    X(LDC_I4_8, "ldc.i4.8", 0x1E, NONE) \
    X(LDC_I4_S, "ldc.i4.s", 0x1F, SHORT_I) \
    X(LDC_I4, "ldc.i4", 0x20, I) \
    X(LDC_I8, "ldc.i8", 0x21, I8) \
    X(LDC_R4, "ldc.r4", 0x22, SHORT_R) \
    X(LDC_R8, "ldc.r8", 0x23, R) \
    X(DUP, "dup", 0x25, NONE) \
    X(POP, "pop", 0x26, NONE) \
    X(JMP, "jmp", 0x27, METHOD) \
    X(CALL, "call", 0x28, METHOD) \
    X(CALLI, "calli", 0x29, SIG) \
    X(RET, "ret", 0x2A, NONE) \
    X(BR_S, "br.s", 0x2B, SHORT_BR) \
    X(BRFALSE_S, "brfalse.s", 0x2C, SHORT_BR) \
    X(BRTRUE_S, "brtrue.s", 0x2D, SHORT_BR) \
    X(BEQ_S, "beq.s", 0x2E, SHORT_BR) \
    X(BGE_S, "bge.s", 0x2F, SHORT_BR) \
    X(BGT_S, "bgt.s", 0x30, SHORT_BR) \
    X(BLE_S, "ble.s", 0x31, SHORT_BR) \
    X(BLT_S, "blt.s", 0x32, SHORT_BR) \
    X(BNE_UN_S, "bne.un.s", 0x33, SHORT_BR) \
    X(BGE_UN_S, "bge.un.s", 0x34, SHORT_BR) \
    X(BGT_UN_S, "bgt.un.s", 0x35, SHORT_BR) \
    X(BLE_UN_S, "ble.un.s", 0x36, SHORT_BR) \
    X(BLT_UN_S, "blt.un.s", 0x37, SHORT_BR) \
    X(BR, "br", 0x38, BR) \
    X(BRFALSE, "brfalse", 0x39, BR) \
    X(BRTRUE, "brtrue", 0x3A, BR) \
    X(BEQ, "beq", 0x3B, BR) \
    X(BGE, "bge", 0x3C, BR) \
    X(BGT, "bgt", 0x3D, BR) \
    X(BLE, "ble", 0x3E, BR) \
    X(BLT, "blt", 0x3F, BR) \
    X(BNE_UN, "bne.un", 0x40, BR) \
    X(BGE_UN, "bge.un", 0x41, BR) \
    X(BGT_UN, "bgt.un", 0x42, BR) \
    X(BLE_UN, "ble.un", 0x43, BR) \
    X(BLT_UN, "blt.un", 0x44, BR) \
    X(SWITCH, "switch", 0x45, SWITCH) \
    X(LDIND_I1, "ldind.i1", 0x46, NONE) \
    X(LDIND_U1, "ldind.u1", 0x47, NONE) \
    X(LDIND_I2, "ldind.i2", 0x48, NONE) \
    X(LDIND_U2, "ldind.u2", 0x49, NONE) \
    X(LDIND_I4, "ldind.i4", 0x4A, NONE) \
    X(LDIND_U4, "ldind.u4", 0x4B, NONE) \
    X(LDIND_I8, "ldind.i8", 0x4C, NONE) \
    X(LDIND_I, "ldind.i", 0x4D, NONE) \
    X(LDIND_R4, "ldind.r4", 0x4E, NONE) \
    X(LDIND_R8, "ldind.r8", 0x4F, NONE) \
    X(LDIND_REF, "ldind.ref", 0x50, NONE) \
    X(STIND_REF, "stind.ref", 0x51, NONE) \
    X(STIND_I1, "stind.i1", 0x52, NONE) \
    X(STIND_I2, "stind.i2", 0x53, NONE) \
    X(STIND_I4, "stind.i4", 0x54, NONE) \
    X(STIND_I8, "stind.i8", 0x55, NONE) \
    X(STIND_R4, "stind.r4", 0x56, NONE) \
    X(STIND_R8, "stind.r8", 0x57, NONE) \
    X(ADD, "add", 0x58, NONE) \
    X(SUB, "sub", 0x59, NONE) \
    X(MUL, "mul", 0x5A, NONE) \
    X(DIV, "div", 0x5B, NONE) \
    X(DIV_UN, "div.un", 0x5C, NONE) \
    X(REM, "rem", 0x5D, NONE) \
    X(REM_UN, "rem.un", 0x5E, NONE) \
    X(AND, "and", 0x5F, NONE) \
    X(OR, "or", 0x60, NONE) \
    X(XOR, "xor", 0x61, NONE) \
    X(SHL, "shl", 0x62, NONE) \
    X(SHR, "shr", 0x63, NONE) \
    X(SHR_UN, "shr.un", 0x64, NONE) \
    X(NEG, "neg", 0x65, NONE) \
    X(NOT, "not", 0x66, NONE) \
    X(CONV_I1, "conv.i1", 0x67, NONE) \
    X(CONV_I2, "conv.i2", 0x68, NONE) \
    X(CONV_I4, "conv.i4", 0x69, NONE) \
    X(CONV_I8, "conv.i8", 0x6A, NONE) \
    X(CONV_R4, "conv.r4", 0x6B, NONE) \
    X(CONV_R8, "conv.r8", 0x6C, NONE) \
    X(CONV_U4, "conv.u4", 0x6D, NONE) \
    X(CONV_U8, "conv.u8", 0x6E, NONE) \
    X(CALLVIRT, "callvirt", 0x6F, METHOD) \
    X(CPOBJ, "cpobj", 0x70, TYPE) \
    X(LDOBJ, "ldobj", 0x71, TYPE) \
    X(LDSTR, "ldstr", 0x72, STRING) \
    X(NEWOBJ, "newobj", 0x73, METHOD) \
    X(CASTCLASS, "castclass", 0x74, TYPE) \
    X(ISINST, "isinst", 0x75, TYPE) \
    X(CONV_R_UN, "conv.r.un", 0x76, NONE) \
    X(UNBOX, "unbox", 0x79, TYPE) \
    X(THROW, "throw", 0x7A, NONE) \
    X(LDFLD, "ldfld", 0x7B, FIELD) \
    X(LDFLDA, "ldflda", 0x7C, FIELD) \
    X(STFLD, "stfld", 0x7D, FIELD) \
    X(LDSFLD, "ldsfld", 0x7E, FIELD) \
    X(LDSFLDA, "ldsflda", 0x7F, FIELD) \
    X(STSFLD, "stsfld", 0x80, FIELD) \
    X(STOBJ, "stobj", 0x81, TYPE) \
    X(CONV_OVF_I1_UN, "conv.ovf.i1.un", 0x82, NONE) \
    X(CONV_OVF_I2_UN, "conv.ovf.i2.un", 0x83, NONE) \
    X(CONV_OVF_I4_UN, "conv.ovf.i4.un", 0x84, NONE) \
    X(CONV_OVF_I8_UN, "conv.ovf.i8.un", 0x85, NONE) \
    X(CONV_OVF_U1_UN, "conv.ovf.u1.un", 0x86, NONE) \
    X(CONV_OVF_U2_UN, "conv.ovf.u2.un", 0x87, NONE) \
    X(CONV_OVF_U4_UN, "conv.ovf.u4.un", 0x88, NONE) \
    X(CONV_OVF_U8_UN, "conv.ovf.u8.un", 0x89, NONE) \
    X(CONV_OVF_I_UN, "conv.ovf.i.un", 0x8A, NONE) \
    X(CONV_OVF_U_UN, "conv.ovf.u.un", 0x8B, NONE) \
    X(BOX, "box", 0x8C, TYPE) \
    X(NEWARR, "newarr", 0x8D, TYPE) \
    X(LDLEN, "ldlen", 0x8E, NONE) \
    X(LDELEMA, "ldelema", 0x8F, TYPE) \
    X(LDELEM_I1, "ldelem.i1", 0x90, NONE) \
    X(LDELEM_U1, "ldelem.u1", 0x91, NONE) \
    X(LDELEM_I2, "ldelem.i2", 0x92, NONE) \
    X(LDELEM_U2, "ldelem.u2", 0x93, NONE) \
    X(LDELEM_I4, "ldelem.i4", 0x94, NONE) \
    X(LDELEM_U4, "ldelem.u4", 0x95, NONE) \
    X(LDELEM_I8, "ldelem.i8", 0x96, NONE) \
    X(LDELEM_I, "ldelem.i", 0x97, NONE) \
    X(LDELEM_R4, "ldelem.r4", 0x98, NONE) \
    X(LDELEM_R8, "ldelem.r8", 0x99, NONE) \
    X(LDELEM_REF, "ldelem.ref", 0x9A, NONE) \
    X(STELEM_I, "stelem.i", 0x9B, NONE) \
    X(STELEM_I1, "stelem.i1", 0x9C, NONE) \
    X(STELEM_I2, "stelem.i2", 0x9D, NONE) \
    X(STELEM_I4, "stelem.i4", 0x9E, NONE) \
    X(STELEM_I8, "stelem.i8", 0x9F, NONE) \
    X(STELEM_R4, "stelem.r4", 0xA0, NONE) \
    X(STELEM_R8, "stelem.r8", 0xA1, NONE) \
    X(STELEM_REF, "stelem.ref", 0xA2, NONE) \
    X(LDELEM, "ldelem", 0xA3, TYPE) \
    X(STELEM, "stelem", 0xA4, TYPE) \
    X(UNBOX_ANY, "unbox.any", 0xA5, TYPE) \
    X(CONV_OVF_I1, "conv.ovf.i1", 0xB3, NONE) \
    X(CONV_OVF_U1, "conv.ovf.u1", 0xB4, NONE) \
    X(CONV_OVF_I2, "conv.ovf.i2", 0xB5, NONE) \
    X(CONV_OVF_U2, "conv.ovf.u2", 0xB6, NONE) \
    X(CONV_OVF_I4, "conv.ovf.i4", 0xB7, NONE) \
    X(CONV_OVF_U4, "conv.ovf.u4", 0xB8, NONE) \
    X(CONV_OVF_I8, "conv.ovf.i8", 0xB9, NONE) \
    X(CONV_OVF_U8, "conv.ovf.u8", 0xBA, NONE) \
    X(REFANYVAL, "refanyval", 0xC2, TYPE) \
    X(CKFINITE, "ckfinite", 0xC3, NONE) \
    X(MKREFANY, "mkrefany", 0xC6, TYPE) \
    X(LDTOKEN, "ldtoken", 0xD0, TOK) \
    X(CONV_U2, "conv.u2", 0xD1, NONE) \
    X(CONV_U1, "conv.u1", 0xD2, NONE) \
    X(CONV_I, "conv.i", 0xD3, NONE) \
    X(CONV_OVF_I, "conv.ovf.i", 0xD4, NONE) \
    X(CONV_OVF_U, "conv.ovf.u", 0xD5, NONE) \
    X(ADD_OVF, "add.ovf", 0xD6, NONE) \
    X(ADD_OVF_UN, "add.ovf.un", 0xD7, NONE) \
    X(MUL_OVF, "mul.ovf", 0xD8, NONE) \
    X(MUL_OVF_UN, "mul.ovf.un", 0xD9, NONE) \
    X(SUB_OVF, "sub.ovf", 0xDA, NONE) \
    X(SUB_OVF_UN, "sub.ovf.un", 0xDB, NONE) \
    X(ENDFINALLY, "endfinally", 0xDC, NONE) \
    X(LEAVE, "leave", 0xDD, BR) \
    X(LEAVE_S, "leave.s", 0xDE, SHORT_BR) \
    X(STIND_I, "stind.i", 0xDF, NONE) \
    X(CONV_U, "conv.u", 0xE0, NONE) \
    X(ARGLIST, "arglist", 0xFE00, NONE) \
    X(CEQ, "ceq", 0xFE01, NONE) \
    X(CGT, "cgt", 0xFE02, NONE) \
    X(CGT_UN, "cgt.un", 0xFE03, NONE) \
    X(CLT, "clt", 0xFE04, NONE) \
    X(CLT_UN, "clt.un", 0xFE05, NONE) \
    X(LDFTN, "ldftn", 0xFE06, METHOD) \
    X(LDVIRTFTN, "ldvirtftn", 0xFE07, METHOD) \
    X(LDARG, "ldarg", 0xFE09, VAR) \
    X(LDARGA, "ldarga", 0xFE0A, VAR) \
    X(STARG, "starg", 0xFE0B, VAR) \
    X(LDLOC, "ldloc", 0xFE0C, VAR) \
    X(LDLOCA, "ldloca", 0xFE0D, VAR) \
    X(STLOC, "stloc", 0xFE0E, VAR) \
    X(LOCALLOC, "localloc", 0xFE0F, NONE) \
    X(ENDFILTER, "endfilter", 0xFE11, NONE) \
    X(UNALIGNED, "unaligned.", 0xFE12, SHORT_I) \
    X(VOLATILE, "volatile.", 0xFE13, NONE) \
    X(TAIL, "tail.", 0xFE14, NONE) \
    X(INITOBJ, "initobj", 0xFE15, TYPE) \
    X(CONSTRAINED, "constrained.", 0xFE16, TYPE) \
    X(CPBLK, "cpblk", 0xFE17, NONE) \
    X(INITBLK, "initblk", 0xFE18, NONE) \
    X(NO, "no.", 0xFE19, SHORT_I) \
    X(RETHROW, "rethrow", 0xFE1A, NONE) \
    X(SIZEOF, "sizeof", 0xFE1C, TYPE) \
    X(REFANYTYPE, "refanytype", 0xFE1D, NONE) \
    X(READONLY, "readonly.", 0xFE1E, NONE)

#endif
