/* ICorProfilerInfo4 .. ICorProfilerInfo15 slots (71..114), in corprof.idl order.
 * Part of the flat ICorProfilerInfo15 vtable; include corprof_info.h, not this. */
#ifndef ALVK_CORECLR_CORPROF_INFO_SLOTS_B_H
#define ALVK_CORECLR_CORPROF_INFO_SLOTS_B_H

#include "corprof_enums.h" /* the slot parameter types */

#define ALVK_COR_INFO_SLOTS_B(X) \
    /* ICorProfilerInfo4: slots 71..80 */ \
    X(HRESULT, EnumThreads, (ICorProfilerInfo15 *This, ICorProfilerThreadEnum **ppEnum)) \
    X(HRESULT, InitializeCurrentThread, (ICorProfilerInfo15 *This)) \
    X(HRESULT, RequestReJIT, (ICorProfilerInfo15 *This, ULONG cFunctions, ModuleID *moduleIds, mdMethodDef *methodIds)) \
    X(HRESULT, RequestRevert, (ICorProfilerInfo15 *This, ULONG cFunctions, ModuleID *moduleIds, mdMethodDef *methodIds, \
                               HRESULT *status)) \
    X(HRESULT, GetCodeInfo3, (ICorProfilerInfo15 *This, FunctionID functionId, ReJITID reJitId, ULONG32 cCodeInfos, \
                              ULONG32 *pcCodeInfos, COR_PRF_CODE_INFO *codeInfos)) \
    X(HRESULT, GetFunctionFromIP2, (ICorProfilerInfo15 *This, LPCBYTE ip, FunctionID *pFunctionId, ReJITID *pReJitId)) \
    X(HRESULT, GetReJITIDs, (ICorProfilerInfo15 *This, FunctionID functionId, ULONG cReJitIds, ULONG *pcReJitIds, \
                             ReJITID *reJitIds)) \
    X(HRESULT, GetILToNativeMapping2, (ICorProfilerInfo15 *This, FunctionID functionId, ReJITID reJitId, ULONG32 cMap, \
                                       ULONG32 *pcMap, COR_DEBUG_IL_TO_NATIVE_MAP *map)) \
    X(HRESULT, EnumJITedFunctions2, (ICorProfilerInfo15 *This, ICorProfilerFunctionEnum **ppEnum)) \
    X(HRESULT, GetObjectSize2, (ICorProfilerInfo15 *This, ObjectID objectId, SIZE_T *pcSize)) \
    /* ICorProfilerInfo5: slots 81..82 */ \
    X(HRESULT, GetEventMask2, (ICorProfilerInfo15 *This, DWORD *pdwEventsLow, DWORD *pdwEventsHigh)) \
    X(HRESULT, SetEventMask2, (ICorProfilerInfo15 *This, DWORD dwEventsLow, DWORD dwEventsHigh)) \
    /* ICorProfilerInfo6: slot 83 */ \
    X(HRESULT, EnumNgenModuleMethodsInliningThisMethod, (ICorProfilerInfo15 *This, ModuleID inlinersModuleId, \
                                                         ModuleID inlineeModuleId, mdMethodDef inlineeMethodId, \
                                                         BOOL *incompleteData, ICorProfilerMethodEnum **ppEnum)) \
    /* ICorProfilerInfo7: slots 84..86 */ \
    X(HRESULT, ApplyMetaData, (ICorProfilerInfo15 *This, ModuleID moduleId)) \
    X(HRESULT, GetInMemorySymbolsLength, (ICorProfilerInfo15 *This, ModuleID moduleId, DWORD *pCountSymbolBytes)) \
    X(HRESULT, ReadInMemorySymbols, (ICorProfilerInfo15 *This, ModuleID moduleId, DWORD symbolsReadOffset, BYTE *pSymbolBytes, \
                                     DWORD countSymbolBytes, DWORD *pCountSymbolBytesRead)) \
    /* ICorProfilerInfo8: slots 87..89 */ \
    X(HRESULT, IsFunctionDynamic, (ICorProfilerInfo15 *This, FunctionID functionId, BOOL *isDynamic)) \
    X(HRESULT, GetFunctionFromIP3, (ICorProfilerInfo15 *This, LPCBYTE ip, FunctionID *functionId, ReJITID *pReJitId)) \
    X(HRESULT, GetDynamicFunctionInfo, (ICorProfilerInfo15 *This, FunctionID functionId, ModuleID *moduleId, \
                                        PCCOR_SIGNATURE *ppvSig, ULONG *pbSig, ULONG cchName, ULONG *pcchName, \
                                        WCHAR *wszName)) \
    /* ICorProfilerInfo9: slots 90..92 */ \
    X(HRESULT, GetNativeCodeStartAddresses, (ICorProfilerInfo15 *This, FunctionID functionId, ReJITID reJitId, \
                                             ULONG32 cCodeStartAddresses, ULONG32 *pcCodeStartAddresses, \
                                             UINT_PTR *codeStartAddresses)) \
    X(HRESULT, GetILToNativeMapping3, (ICorProfilerInfo15 *This, UINT_PTR pNativeCodeStartAddress, ULONG32 cMap, \
                                       ULONG32 *pcMap, COR_DEBUG_IL_TO_NATIVE_MAP *map)) \
    X(HRESULT, GetCodeInfo4, (ICorProfilerInfo15 *This, UINT_PTR pNativeCodeStartAddress, ULONG32 cCodeInfos, \
                              ULONG32 *pcCodeInfos, COR_PRF_CODE_INFO *codeInfos)) \
    /* ICorProfilerInfo10: slots 93..98 */ \
    X(HRESULT, EnumerateObjectReferences, (ICorProfilerInfo15 *This, ObjectID objectId, ObjectReferenceCallback callback, \
                                           void *clientData)) \
    X(HRESULT, IsFrozenObject, (ICorProfilerInfo15 *This, ObjectID objectId, BOOL *pbFrozen)) \
    X(HRESULT, GetLOHObjectSizeThreshold, (ICorProfilerInfo15 *This, DWORD *pThreshold)) \
    X(HRESULT, RequestReJITWithInliners, (ICorProfilerInfo15 *This, DWORD dwRejitFlags, ULONG cFunctions, ModuleID *moduleIds, \
                                          mdMethodDef *methodIds)) \
    X(HRESULT, SuspendRuntime, (ICorProfilerInfo15 *This)) \
    X(HRESULT, ResumeRuntime, (ICorProfilerInfo15 *This)) \
    /* ICorProfilerInfo11: slots 99..100 */ \
    X(HRESULT, GetEnvironmentVariable, (ICorProfilerInfo15 *This, const WCHAR *szName, ULONG cchValue, ULONG *pcchValue, \
                                        WCHAR *szValue)) \
    X(HRESULT, SetEnvironmentVariable, (ICorProfilerInfo15 *This, const WCHAR *szName, const WCHAR *szValue)) \
    /* ICorProfilerInfo12: slots 101..107 */ \
    X(HRESULT, EventPipeStartSession, (ICorProfilerInfo15 *This, UINT32 cProviderConfigs, \
                                       COR_PRF_EVENTPIPE_PROVIDER_CONFIG *pProviderConfigs, BOOL requestRundown, \
                                       EVENTPIPE_SESSION *pSession)) \
    X(HRESULT, EventPipeAddProviderToSession, (ICorProfilerInfo15 *This, EVENTPIPE_SESSION session, \
                                               COR_PRF_EVENTPIPE_PROVIDER_CONFIG providerConfig)) \
    X(HRESULT, EventPipeStopSession, (ICorProfilerInfo15 *This, EVENTPIPE_SESSION session)) \
    X(HRESULT, EventPipeCreateProvider, (ICorProfilerInfo15 *This, const WCHAR *providerName, EVENTPIPE_PROVIDER *pProvider)) \
    X(HRESULT, EventPipeGetProviderInfo, (ICorProfilerInfo15 *This, EVENTPIPE_PROVIDER provider, ULONG cchName, \
                                          ULONG *pcchName, WCHAR *providerName)) \
    X(HRESULT, EventPipeDefineEvent, (ICorProfilerInfo15 *This, EVENTPIPE_PROVIDER provider, const WCHAR *eventName, \
                                      UINT32 eventId, UINT64 keywords, UINT32 eventVersion, UINT32 level, UINT8 opcode, \
                                      BOOL needStack, UINT32 cParamDescs, COR_PRF_EVENTPIPE_PARAM_DESC *pParamDescs, \
                                      EVENTPIPE_EVENT *pEvent)) \
    X(HRESULT, EventPipeWriteEvent, (ICorProfilerInfo15 *This, EVENTPIPE_EVENT event, UINT32 cData, COR_PRF_EVENT_DATA *data, \
                                     LPCGUID pActivityId, LPCGUID pRelatedActivityId)) \
    /* ICorProfilerInfo13: slots 108..110 */ \
    X(HRESULT, CreateHandle, (ICorProfilerInfo15 *This, ObjectID object, COR_PRF_HANDLE_TYPE type, ObjectHandleID *pHandle)) \
    X(HRESULT, DestroyHandle, (ICorProfilerInfo15 *This, ObjectHandleID handle)) \
    X(HRESULT, GetObjectIDFromHandle, (ICorProfilerInfo15 *This, ObjectHandleID handle, ObjectID *pObject)) \
    /* ICorProfilerInfo14: slots 111..113 */ \
    X(HRESULT, EnumerateNonGCObjects, (ICorProfilerInfo15 *This, ICorProfilerObjectEnum **ppEnum)) \
    X(HRESULT, GetNonGCHeapBounds, (ICorProfilerInfo15 *This, ULONG cObjectRanges, ULONG *pcObjectRanges, \
                                    COR_PRF_NONGC_HEAP_RANGE *ranges)) \
    X(HRESULT, EventPipeCreateProvider2, (ICorProfilerInfo15 *This, const WCHAR *providerName, \
                                          EventPipeProviderCallback pCallback, EVENTPIPE_PROVIDER *pProvider)) \
    /* ICorProfilerInfo15: slot 114 */ \
    X(HRESULT, EnumerateGCHeapObjects, (ICorProfilerInfo15 *This, ObjectCallback callback, void *callbackState))

#endif
