/* Profiling API structs, callback function-pointer types and interface forward
 * declarations (corprof.idl), over the enum typedefs of corprof_enums.h; layouts are the runtime's. */
#ifndef AIP_CORECLR_CORPROF_STRUCTS_H
#define AIP_CORECLR_CORPROF_STRUCTS_H

#include "coreclr/corprof_enums.h"

/* ---- interfaces: declared in corprof_callback.h, corprof_info.h, corprof_control.h;
 * the rest stay opaque (we never call them). ---- */
typedef struct ICorProfilerFunctionControl ICorProfilerFunctionControl;
typedef struct IMethodMalloc IMethodMalloc;
typedef struct ICorProfilerObjectEnum ICorProfilerObjectEnum;
typedef struct ICorProfilerFunctionEnum ICorProfilerFunctionEnum;
typedef struct ICorProfilerModuleEnum ICorProfilerModuleEnum;
typedef struct ICorProfilerThreadEnum ICorProfilerThreadEnum;
typedef struct ICorProfilerMethodEnum ICorProfilerMethodEnum;
typedef struct ICorProfilerAssemblyReferenceProvider ICorProfilerAssemblyReferenceProvider;

/* ---- scalar handles ---- */
typedef uintptr_t EVENTPIPE_PROVIDER;
typedef uintptr_t EVENTPIPE_EVENT;
typedef uint64_t EVENTPIPE_SESSION;
typedef void **ObjectHandleID;

/* ---- IL maps ---- */
typedef struct COR_IL_MAP {
    ULONG32 oldOffset; /* offset in the original IL */
    ULONG32 newOffset; /* offset in the instrumented IL */
    BOOL fAccurate;
} COR_IL_MAP;

/* Special ilOffset values in a COR_DEBUG_IL_TO_NATIVE_MAP entry. */
enum CorDebugIlToNativeMappingTypes { NO_MAPPING = -1, PROLOG = -2, EPILOG = -3 };

typedef struct COR_DEBUG_IL_TO_NATIVE_MAP {
    ULONG32 ilOffset;
    ULONG32 nativeStartOffset;
    ULONG32 nativeEndOffset;
} COR_DEBUG_IL_TO_NATIVE_MAP;

/* ---- code, functions, methods ---- */
typedef struct COR_PRF_CODE_INFO {
    UINT_PTR startAddress;
    SIZE_T size;
} COR_PRF_CODE_INFO;

typedef struct COR_PRF_FUNCTION {
    FunctionID functionId;
    ReJITID reJitId;
} COR_PRF_FUNCTION;

typedef struct COR_PRF_METHOD {
    ModuleID moduleId;
    mdMethodDef methodId;
} COR_PRF_METHOD;

typedef struct COR_PRF_FUNCTION_ARGUMENT_RANGE {
    UINT_PTR startAddress;
    ULONG length;
} COR_PRF_FUNCTION_ARGUMENT_RANGE;

typedef struct COR_PRF_FUNCTION_ARGUMENT_INFO {
    ULONG numRanges;
    ULONG totalArgumentSize;
    COR_PRF_FUNCTION_ARGUMENT_RANGE ranges[1]; /* really numRanges entries */
} COR_PRF_FUNCTION_ARGUMENT_INFO;

typedef struct COR_PRF_ASSEMBLY_REFERENCE_INFO {
    void *pbPublicKeyOrToken;
    ULONG cbPublicKeyOrToken;
    LPCWSTR szName;
    ASSEMBLYMETADATA *pMetaData;
    void *pbHashValue;
    ULONG cbHashValue;
    DWORD dwAssemblyRefFlags;
} COR_PRF_ASSEMBLY_REFERENCE_INFO;

/* ---- GC ---- */
typedef struct COR_PRF_GC_GENERATION_RANGE {
    COR_PRF_GC_GENERATION generation;
    ObjectID rangeStart;
    UINT_PTR rangeLength;
    UINT_PTR rangeLengthReserved;
} COR_PRF_GC_GENERATION_RANGE;

typedef struct COR_PRF_NONGC_HEAP_RANGE {
    ObjectID rangeStart;
    UINT_PTR rangeLength;
    UINT_PTR rangeLengthReserved;
} COR_PRF_NONGC_HEAP_RANGE;

typedef struct COR_PRF_EX_CLAUSE_INFO {
    COR_PRF_CLAUSE_TYPE clauseType;
    UINT_PTR programCounter;
    UINT_PTR framePointer;
    UINT_PTR shadowStackPointer;
} COR_PRF_EX_CLAUSE_INFO;

/* ---- EventPipe ---- */
typedef struct COR_PRF_EVENTPIPE_PROVIDER_CONFIG {
    const WCHAR *providerName;
    UINT64 keywords;
    UINT32 loggingLevel;
    const WCHAR *filterData; /* "key=value;key=value" */
} COR_PRF_EVENTPIPE_PROVIDER_CONFIG;

typedef struct COR_PRF_EVENTPIPE_PARAM_DESC {
    UINT32 type;        /* COR_PRF_EVENTPIPE_PARAM_TYPE */
    UINT32 elementType; /* when type is ARRAY */
    const WCHAR *name;
} COR_PRF_EVENTPIPE_PARAM_DESC;

typedef struct COR_PRF_EVENT_DATA {
    UINT64 ptr;
    UINT32 size;
    UINT32 reserved;
} COR_PRF_EVENT_DATA;

typedef struct COR_PRF_FILTER_DATA {
    UINT64 Ptr;
    UINT32 Size;
    UINT32 Type;
} COR_PRF_FILTER_DATA;

/* ---- callback types. All are pointer typedefs (the IDL declares most as function
 * types and takes `T *`; the ABI is the same). ---- */
typedef union FunctionIDOrClientID {
    FunctionID functionID;
    UINT_PTR clientID;
} FunctionIDOrClientID;

typedef UINT_PTR (STDMETHODCALLTYPE *FunctionIDMapper)(FunctionID funcId, BOOL *pbHookFunction);
typedef UINT_PTR (STDMETHODCALLTYPE *FunctionIDMapper2)(FunctionID funcId, void *clientData, BOOL *pbHookFunction);

typedef void (STDMETHODCALLTYPE *FunctionEnter)(FunctionID funcId);
typedef void (STDMETHODCALLTYPE *FunctionLeave)(FunctionID funcId);
typedef void (STDMETHODCALLTYPE *FunctionTailcall)(FunctionID funcId);

typedef void (STDMETHODCALLTYPE *FunctionEnter2)(FunctionID funcId, UINT_PTR clientData, COR_PRF_FRAME_INFO frame,
                                                 COR_PRF_FUNCTION_ARGUMENT_INFO *argInfo);
typedef void (STDMETHODCALLTYPE *FunctionLeave2)(FunctionID funcId, UINT_PTR clientData, COR_PRF_FRAME_INFO frame,
                                                 COR_PRF_FUNCTION_ARGUMENT_RANGE *retvalRange);
typedef void (STDMETHODCALLTYPE *FunctionTailcall2)(FunctionID funcId, UINT_PTR clientData, COR_PRF_FRAME_INFO frame);

typedef void (STDMETHODCALLTYPE *FunctionEnter3)(FunctionIDOrClientID id);
typedef void (STDMETHODCALLTYPE *FunctionLeave3)(FunctionIDOrClientID id);
typedef void (STDMETHODCALLTYPE *FunctionTailcall3)(FunctionIDOrClientID id);
typedef void (STDMETHODCALLTYPE *FunctionEnter3WithInfo)(FunctionIDOrClientID id, COR_PRF_ELT_INFO eltInfo);
typedef void (STDMETHODCALLTYPE *FunctionLeave3WithInfo)(FunctionIDOrClientID id, COR_PRF_ELT_INFO eltInfo);
typedef void (STDMETHODCALLTYPE *FunctionTailcall3WithInfo)(FunctionIDOrClientID id, COR_PRF_ELT_INFO eltInfo);

/* One call per managed frame (funcId != 0) or run of native frames (funcId == 0). */
typedef HRESULT (STDMETHODCALLTYPE *StackSnapshotCallback)(FunctionID funcId, UINT_PTR ip, COR_PRF_FRAME_INFO frameInfo,
                                                           ULONG32 contextSize, BYTE context[], void *clientData);

typedef BOOL (STDMETHODCALLTYPE *ObjectReferenceCallback)(ObjectID root, ObjectID *reference, void *clientData);
typedef BOOL (STDMETHODCALLTYPE *ObjectCallback)(ObjectID object, void *callbackState);

typedef void (STDMETHODCALLTYPE *EventPipeProviderCallback)(const UINT8 *sourceId, UINT32 isEnabled, UINT8 level,
                                                            UINT64 matchAnyKeywords, UINT64 matchAllKeywords,
                                                            COR_PRF_FILTER_DATA *filterData, void *callbackData);

#endif
