/* ICorProfilerInfo .. ICorProfilerInfo15 as ONE flat vtable (each version appends
 * to the previous one). The runtime implements it; we call it. A pointer obtained for
 * an older IID may be used as ICorProfilerInfo15 only for that version's slots. */
#ifndef AIP_CORECLR_CORPROF_INFO_H
#define AIP_CORECLR_CORPROF_INFO_H

#include "coreclr/cor_types.h"
#include "coreclr/corprof_enums.h"
#include "coreclr/corprof_structs.h"

/* The newest ICorProfilerInfo in dotnet/runtime v10.0.12. */
#define AIP_COR_INFO_HIGHEST_VERSION 15

typedef struct ICorProfilerInfo15 ICorProfilerInfo15;

#include "coreclr/corprof_info_slots.h" /* AIP_COR_INFO_SLOTS: Info .. Info15 */

typedef struct ICorProfilerInfo15Vtbl {
    AIP_COM_IUNKNOWN_SLOTS(ICorProfilerInfo15)
#define AIP_X_SLOT(ret, name, params) ret (STDMETHODCALLTYPE *name) params;
    AIP_COR_INFO_SLOTS(AIP_X_SLOT)
#undef AIP_X_SLOT
} ICorProfilerInfo15Vtbl;

struct ICorProfilerInfo15 {
    const ICorProfilerInfo15Vtbl *lpVtbl;
};

/* Last slot of each version, counted from QueryInterface = 0. */
AIP_PIN_SLOT(ICorProfilerInfo15Vtbl, GetClassFromObject, 3);
AIP_PIN_SLOT(ICorProfilerInfo15Vtbl, GetILToNativeMapping, 35);                   /* ICorProfilerInfo */
AIP_PIN_SLOT(ICorProfilerInfo15Vtbl, GetNotifiedExceptionClauseInfo, 56);         /* ICorProfilerInfo2 */
AIP_PIN_SLOT(ICorProfilerInfo15Vtbl, GetModuleInfo2, 70);                         /* ICorProfilerInfo3 */
AIP_PIN_SLOT(ICorProfilerInfo15Vtbl, GetObjectSize2, 80);                         /* ICorProfilerInfo4 */
AIP_PIN_SLOT(ICorProfilerInfo15Vtbl, SetEventMask2, 82);                          /* ICorProfilerInfo5 */
AIP_PIN_SLOT(ICorProfilerInfo15Vtbl, EnumNgenModuleMethodsInliningThisMethod, 83); /* ICorProfilerInfo6 */
AIP_PIN_SLOT(ICorProfilerInfo15Vtbl, ReadInMemorySymbols, 86);                    /* ICorProfilerInfo7 */
AIP_PIN_SLOT(ICorProfilerInfo15Vtbl, GetDynamicFunctionInfo, 89);                 /* ICorProfilerInfo8 */
AIP_PIN_SLOT(ICorProfilerInfo15Vtbl, GetCodeInfo4, 92);                           /* ICorProfilerInfo9 */
AIP_PIN_SLOT(ICorProfilerInfo15Vtbl, ResumeRuntime, 98);                          /* ICorProfilerInfo10 */
AIP_PIN_SLOT(ICorProfilerInfo15Vtbl, SetEnvironmentVariable, 100);                /* ICorProfilerInfo11 */
AIP_PIN_SLOT(ICorProfilerInfo15Vtbl, EventPipeWriteEvent, 107);                   /* ICorProfilerInfo12 */
AIP_PIN_SLOT(ICorProfilerInfo15Vtbl, GetObjectIDFromHandle, 110);                 /* ICorProfilerInfo13 */
AIP_PIN_SLOT(ICorProfilerInfo15Vtbl, EventPipeCreateProvider2, 113);              /* ICorProfilerInfo14 */
AIP_PIN_SLOT(ICorProfilerInfo15Vtbl, EnumerateGCHeapObjects, 114);                /* ICorProfilerInfo15 */
AIP_PIN_SLOT_COUNT(ICorProfilerInfo15Vtbl, 115);

/* Slots the profiler calls, pinned individually. */
AIP_PIN_SLOT(ICorProfilerInfo15Vtbl, SetEventMask, 16);
AIP_PIN_SLOT(ICorProfilerInfo15Vtbl, GetModuleInfo, 20);
AIP_PIN_SLOT(ICorProfilerInfo15Vtbl, GetModuleMetaData, 21);
AIP_PIN_SLOT(ICorProfilerInfo15Vtbl, GetILFunctionBody, 22);
AIP_PIN_SLOT(ICorProfilerInfo15Vtbl, GetILFunctionBodyAllocator, 23);
AIP_PIN_SLOT(ICorProfilerInfo15Vtbl, SetILFunctionBody, 24);
AIP_PIN_SLOT(ICorProfilerInfo15Vtbl, GetRuntimeInformation, 67);
AIP_PIN_SLOT(ICorProfilerInfo15Vtbl, InitializeCurrentThread, 72);
AIP_PIN_SLOT(ICorProfilerInfo15Vtbl, RequestReJIT, 73);
AIP_PIN_SLOT(ICorProfilerInfo15Vtbl, RequestRevert, 74);
AIP_PIN_SLOT(ICorProfilerInfo15Vtbl, ApplyMetaData, 84);
AIP_PIN_SLOT(ICorProfilerInfo15Vtbl, RequestReJITWithInliners, 96);
AIP_PIN_SLOT(ICorProfilerInfo15Vtbl, GetObjectGeneration, 55);
AIP_PIN_SLOT(ICorProfilerInfo15Vtbl, EventPipeStartSession, 101);
AIP_PIN_SLOT(ICorProfilerInfo15Vtbl, EventPipeStopSession, 103);
AIP_PIN_SLOT(ICorProfilerInfo15Vtbl, EventPipeGetProviderInfo, 105);

#endif
