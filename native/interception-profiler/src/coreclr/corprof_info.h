/* ICorProfilerInfo .. ICorProfilerInfo15 as ONE flat vtable (each version appends
 * to the previous one). The runtime implements it; we call it. A pointer obtained for
 * an older IID may be used as ICorProfilerInfo15 only for that version's slots. */
#ifndef ALVK_CORECLR_CORPROF_INFO_H
#define ALVK_CORECLR_CORPROF_INFO_H

#include "cor_types.h"
#include "corprof_enums.h"
#include "corprof_structs.h"

/* The newest ICorProfilerInfo in dotnet/runtime v10.0.12. */
#define ALVK_COR_INFO_HIGHEST_VERSION 15

typedef struct ICorProfilerInfo15 ICorProfilerInfo15;

#include "corprof_info_slots.h" /* ALVK_COR_INFO_SLOTS: Info .. Info15 */

typedef struct ICorProfilerInfo15Vtbl {
    ALVK_COM_IUNKNOWN_SLOTS(ICorProfilerInfo15)
#define ALVK_X_SLOT(ret, name, params) ret (STDMETHODCALLTYPE *name) params;
    ALVK_COR_INFO_SLOTS(ALVK_X_SLOT)
#undef ALVK_X_SLOT
} ICorProfilerInfo15Vtbl;

struct ICorProfilerInfo15 {
    const ICorProfilerInfo15Vtbl *lpVtbl;
};

/* Last slot of each version, counted from QueryInterface = 0. */
ALVK_PIN_SLOT(ICorProfilerInfo15Vtbl, GetClassFromObject, 3);
ALVK_PIN_SLOT(ICorProfilerInfo15Vtbl, GetILToNativeMapping, 35);                   /* ICorProfilerInfo */
ALVK_PIN_SLOT(ICorProfilerInfo15Vtbl, GetNotifiedExceptionClauseInfo, 56);         /* ICorProfilerInfo2 */
ALVK_PIN_SLOT(ICorProfilerInfo15Vtbl, GetModuleInfo2, 70);                         /* ICorProfilerInfo3 */
ALVK_PIN_SLOT(ICorProfilerInfo15Vtbl, GetObjectSize2, 80);                         /* ICorProfilerInfo4 */
ALVK_PIN_SLOT(ICorProfilerInfo15Vtbl, SetEventMask2, 82);                          /* ICorProfilerInfo5 */
ALVK_PIN_SLOT(ICorProfilerInfo15Vtbl, EnumNgenModuleMethodsInliningThisMethod, 83); /* ICorProfilerInfo6 */
ALVK_PIN_SLOT(ICorProfilerInfo15Vtbl, ReadInMemorySymbols, 86);                    /* ICorProfilerInfo7 */
ALVK_PIN_SLOT(ICorProfilerInfo15Vtbl, GetDynamicFunctionInfo, 89);                 /* ICorProfilerInfo8 */
ALVK_PIN_SLOT(ICorProfilerInfo15Vtbl, GetCodeInfo4, 92);                           /* ICorProfilerInfo9 */
ALVK_PIN_SLOT(ICorProfilerInfo15Vtbl, ResumeRuntime, 98);                          /* ICorProfilerInfo10 */
ALVK_PIN_SLOT(ICorProfilerInfo15Vtbl, SetEnvironmentVariable, 100);                /* ICorProfilerInfo11 */
ALVK_PIN_SLOT(ICorProfilerInfo15Vtbl, EventPipeWriteEvent, 107);                   /* ICorProfilerInfo12 */
ALVK_PIN_SLOT(ICorProfilerInfo15Vtbl, GetObjectIDFromHandle, 110);                 /* ICorProfilerInfo13 */
ALVK_PIN_SLOT(ICorProfilerInfo15Vtbl, EventPipeCreateProvider2, 113);              /* ICorProfilerInfo14 */
ALVK_PIN_SLOT(ICorProfilerInfo15Vtbl, EnumerateGCHeapObjects, 114);                /* ICorProfilerInfo15 */
ALVK_PIN_SLOT_COUNT(ICorProfilerInfo15Vtbl, 115);

/* Slots the profiler calls, pinned individually. */
ALVK_PIN_SLOT(ICorProfilerInfo15Vtbl, SetEventMask, 16);
ALVK_PIN_SLOT(ICorProfilerInfo15Vtbl, GetModuleInfo, 20);
ALVK_PIN_SLOT(ICorProfilerInfo15Vtbl, GetModuleMetaData, 21);
ALVK_PIN_SLOT(ICorProfilerInfo15Vtbl, GetILFunctionBody, 22);
ALVK_PIN_SLOT(ICorProfilerInfo15Vtbl, GetILFunctionBodyAllocator, 23);
ALVK_PIN_SLOT(ICorProfilerInfo15Vtbl, SetILFunctionBody, 24);
ALVK_PIN_SLOT(ICorProfilerInfo15Vtbl, GetRuntimeInformation, 67);
ALVK_PIN_SLOT(ICorProfilerInfo15Vtbl, InitializeCurrentThread, 72);
ALVK_PIN_SLOT(ICorProfilerInfo15Vtbl, RequestReJIT, 73);
ALVK_PIN_SLOT(ICorProfilerInfo15Vtbl, RequestRevert, 74);
ALVK_PIN_SLOT(ICorProfilerInfo15Vtbl, ApplyMetaData, 84);
ALVK_PIN_SLOT(ICorProfilerInfo15Vtbl, RequestReJITWithInliners, 96);

#endif
