/* Metadata constants (corhdr.h) and forward declarations shared by the metadata
 * interface headers. Names follow the runtime's, without a prefix. */
#ifndef AIP_CORECLR_COR_METADATA_DEFS_H
#define AIP_CORECLR_COR_METADATA_DEFS_H

#include "coreclr/cor_types.h"

/* ---- interfaces: declared in cor_metadata_{import,emit,assembly}.h, or opaque ---- */
typedef struct IMetaDataImport2 IMetaDataImport2;
typedef struct IMetaDataEmit2 IMetaDataEmit2;
typedef struct IMetaDataAssemblyImport IMetaDataAssemblyImport;
typedef struct IMetaDataAssemblyEmit IMetaDataAssemblyEmit;
typedef struct IMetaDataImport IMetaDataImport; /* base-only views: opaque, cast from the *2 types */
typedef struct IMetaDataEmit IMetaDataEmit;
typedef struct IStream IStream;
typedef struct IMapToken IMapToken;
typedef struct COR_SECATTR COR_SECATTR;

/* ---- tokens: table in the top byte, row id in the low 24 bits ---- */
typedef enum CorTokenType {
    mdtModule = 0x00000000,
    mdtTypeRef = 0x01000000,
    mdtTypeDef = 0x02000000,
    mdtFieldDef = 0x04000000,
    mdtMethodDef = 0x06000000,
    mdtParamDef = 0x08000000,
    mdtInterfaceImpl = 0x09000000,
    mdtMemberRef = 0x0a000000,
    mdtCustomAttribute = 0x0c000000,
    mdtPermission = 0x0e000000,
    mdtSignature = 0x11000000,
    mdtEvent = 0x14000000,
    mdtProperty = 0x17000000,
    mdtMethodImpl = 0x19000000,
    mdtModuleRef = 0x1a000000,
    mdtTypeSpec = 0x1b000000,
    mdtAssembly = 0x20000000,
    mdtAssemblyRef = 0x23000000,
    mdtFile = 0x26000000,
    mdtExportedType = 0x27000000,
    mdtManifestResource = 0x28000000,
    mdtGenericParam = 0x2a000000,
    mdtMethodSpec = 0x2b000000,
    mdtGenericParamConstraint = 0x2c000000,
    mdtString = 0x70000000,
    mdtName = 0x71000000,
    mdtBaseType = 0x72000000
} CorTokenType;

#define AIP_TYPE_FROM_TOKEN(tk) ((uint32_t)(tk) & 0xff000000u)
#define AIP_RID_FROM_TOKEN(tk) ((uint32_t)(tk) & 0x00ffffffu)
#define AIP_TOKEN_FROM_RID(rid, type) ((uint32_t)(rid) | (uint32_t)(type))
#define AIP_IS_NIL_TOKEN(tk) (AIP_RID_FROM_TOKEN(tk) == 0)
#define mdTokenNil ((mdToken)0)

/* ---- signature element types (CorElementType) ---- */
enum {
    ELEMENT_TYPE_END = 0x00,
    ELEMENT_TYPE_VOID = 0x01,
    ELEMENT_TYPE_BOOLEAN = 0x02,
    ELEMENT_TYPE_CHAR = 0x03,
    ELEMENT_TYPE_I1 = 0x04,
    ELEMENT_TYPE_U1 = 0x05,
    ELEMENT_TYPE_I2 = 0x06,
    ELEMENT_TYPE_U2 = 0x07,
    ELEMENT_TYPE_I4 = 0x08,
    ELEMENT_TYPE_U4 = 0x09,
    ELEMENT_TYPE_I8 = 0x0a,
    ELEMENT_TYPE_U8 = 0x0b,
    ELEMENT_TYPE_R4 = 0x0c,
    ELEMENT_TYPE_R8 = 0x0d,
    ELEMENT_TYPE_STRING = 0x0e,
    ELEMENT_TYPE_PTR = 0x0f,
    ELEMENT_TYPE_BYREF = 0x10,
    ELEMENT_TYPE_VALUETYPE = 0x11,
    ELEMENT_TYPE_CLASS = 0x12,
    ELEMENT_TYPE_VAR = 0x13,
    ELEMENT_TYPE_ARRAY = 0x14,
    ELEMENT_TYPE_GENERICINST = 0x15,
    ELEMENT_TYPE_TYPEDBYREF = 0x16,
    ELEMENT_TYPE_I = 0x18,
    ELEMENT_TYPE_U = 0x19,
    ELEMENT_TYPE_FNPTR = 0x1b,
    ELEMENT_TYPE_OBJECT = 0x1c,
    ELEMENT_TYPE_SZARRAY = 0x1d,
    ELEMENT_TYPE_MVAR = 0x1e,
    ELEMENT_TYPE_CMOD_REQD = 0x1f,
    ELEMENT_TYPE_CMOD_OPT = 0x20,
    ELEMENT_TYPE_INTERNAL = 0x21,
    ELEMENT_TYPE_MAX = 0x22,
    ELEMENT_TYPE_MODIFIER = 0x40,
    ELEMENT_TYPE_SENTINEL = 0x41,
    ELEMENT_TYPE_PINNED = 0x45
};

/* ---- signature calling conventions (first byte of a signature) ---- */
typedef enum CorCallingConvention {
    IMAGE_CEE_CS_CALLCONV_DEFAULT = 0x0,
    IMAGE_CEE_CS_CALLCONV_C = 0x1,
    IMAGE_CEE_CS_CALLCONV_STDCALL = 0x2,
    IMAGE_CEE_CS_CALLCONV_THISCALL = 0x3,
    IMAGE_CEE_CS_CALLCONV_FASTCALL = 0x4,
    IMAGE_CEE_CS_CALLCONV_VARARG = 0x5,
    IMAGE_CEE_CS_CALLCONV_FIELD = 0x6,
    IMAGE_CEE_CS_CALLCONV_LOCAL_SIG = 0x7,
    IMAGE_CEE_CS_CALLCONV_PROPERTY = 0x8,
    IMAGE_CEE_CS_CALLCONV_UNMANAGED = 0x9,
    IMAGE_CEE_CS_CALLCONV_GENERICINST = 0xa,
    IMAGE_CEE_CS_CALLCONV_NATIVEVARARG = 0xb,
    IMAGE_CEE_CS_CALLCONV_MAX = 0xc,
    IMAGE_CEE_CS_CALLCONV_MASK = 0x0f,
    IMAGE_CEE_CS_CALLCONV_GENERIC = 0x10,
    IMAGE_CEE_CS_CALLCONV_HASTHIS = 0x20,
    IMAGE_CEE_CS_CALLCONV_EXPLICITTHIS = 0x40
} CorCallingConvention;

/* ---- MethodDef attributes ---- */
typedef enum CorMethodAttr {
    mdMemberAccessMask = 0x0007,
    mdPrivateScope = 0x0000,
    mdPrivate = 0x0001,
    mdFamANDAssem = 0x0002,
    mdAssem = 0x0003,
    mdFamily = 0x0004,
    mdFamORAssem = 0x0005,
    mdPublic = 0x0006,
    mdUnmanagedExport = 0x0008,
    mdStatic = 0x0010,
    mdFinal = 0x0020,
    mdVirtual = 0x0040,
    mdHideBySig = 0x0080,
    mdVtableLayoutMask = 0x0100,
    mdReuseSlot = 0x0000,
    mdNewSlot = 0x0100,
    mdCheckAccessOnOverride = 0x0200,
    mdAbstract = 0x0400,
    mdSpecialName = 0x0800,
    mdRTSpecialName = 0x1000,
    mdPinvokeImpl = 0x2000,
    mdHasSecurity = 0x4000,
    mdRequireSecObject = 0x8000,
    mdReservedMask = 0xd000
} CorMethodAttr;

/* ---- TypeDef attributes: visibility (ECMA-335 II.23.1.15) ---- */
typedef enum CorTypeAttr {
    tdVisibilityMask = 0x00000007,
    tdNotPublic = 0x00000000,
    tdPublic = 0x00000001,
    tdNestedPublic = 0x00000002,
    tdNestedPrivate = 0x00000003,
    tdNestedFamily = 0x00000004,
    tdNestedAssembly = 0x00000005,
    tdNestedFamANDAssem = 0x00000006,
    tdNestedFamORAssem = 0x00000007,
    tdInterface = 0x00000020
} CorTypeAttr;

/* ---- Assembly and AssemblyRef flags (ECMA-335 II.23.1.2) ---- */
typedef enum CorAssemblyFlags {
    afPublicKey = 0x0001,
    afRetargetable = 0x0100,
    afContentType_Mask = 0x0E00
} CorAssemblyFlags;

/* ---- MethodImpl attributes ---- */
typedef enum CorMethodImpl {
    miCodeTypeMask = 0x0003,
    miIL = 0x0000,
    miNative = 0x0001,
    miOPTIL = 0x0002,
    miRuntime = 0x0003,
    miManagedMask = 0x0004,
    miUnmanaged = 0x0004,
    miManaged = 0x0000,
    miNoInlining = 0x0008,
    miForwardRef = 0x0010,
    miSynchronized = 0x0020,
    miNoOptimization = 0x0040,
    miPreserveSig = 0x0080,
    miAggressiveInlining = 0x0100,
    miAggressiveOptimization = 0x0200,
    miInternalCall = 0x1000,
    miMaxMethodImplVal = 0xffff
} CorMethodImpl;

/* ---- IL method bodies: header flags, extra sections, EH clause flags ---- */
typedef enum CorILMethodFlags {
    CorILMethod_SmallFormat = 0x0000,
    CorILMethod_TinyFormat = 0x0002, /* even code size */
    CorILMethod_FatFormat = 0x0003,
    CorILMethod_TinyFormat1 = 0x0006, /* odd code size */
    CorILMethod_FormatShift = 3,
    CorILMethod_FormatMask = 0x0007,
    CorILMethod_MoreSects = 0x0008,
    CorILMethod_InitLocals = 0x0010,
    CorILMethod_CompressedIL = 0x0040
} CorILMethodFlags;

typedef enum CorILMethodSect {
    CorILMethod_Sect_Reserved = 0,
    CorILMethod_Sect_EHTable = 1,
    CorILMethod_Sect_OptILTable = 2,
    CorILMethod_Sect_KindMask = 0x3F,
    CorILMethod_Sect_FatFormat = 0x40,
    CorILMethod_Sect_MoreSects = 0x80
} CorILMethodSect;

typedef enum CorExceptionFlag {
    COR_ILEXCEPTION_CLAUSE_NONE = 0x0000, /* typed catch */
    COR_ILEXCEPTION_CLAUSE_OFFSETLEN = 0x0000,
    COR_ILEXCEPTION_CLAUSE_DEPRECATED = 0x0000,
    COR_ILEXCEPTION_CLAUSE_FILTER = 0x0001,
    COR_ILEXCEPTION_CLAUSE_FINALLY = 0x0002,
    COR_ILEXCEPTION_CLAUSE_FAULT = 0x0004,
    COR_ILEXCEPTION_CLAUSE_DUPLICATED = 0x0008
} CorExceptionFlag;

/* ---- scope open flags (GetModuleMetaData dwOpenFlags: ofRead or ofWrite) ---- */
typedef enum CorOpenFlags {
    ofRead = 0x00000000,
    ofWrite = 0x00000001,
    ofReadWriteMask = 0x00000001,
    ofCopyMemory = 0x00000002,
    ofReadOnly = 0x00000010,
    ofTakeOwnership = 0x00000020,
    ofNoTypeLib = 0x00000080,
    ofNoTransform = 0x00001000
} CorOpenFlags;

/* ---- GetSaveSize accuracy (CorSaveSize) ---- */
enum { cssAccurate = 0x0000, cssQuick = 0x0001, cssDiscardTransientCAs = 0x0002 };

#endif
