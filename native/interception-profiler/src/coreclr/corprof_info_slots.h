/* ICorProfilerInfo .. ICorProfilerInfo15 slots (3..114), in corprof.idl order, as one
 * X-macro list. Part of the flat ICorProfilerInfo15 vtable; include corprof_info.h, not this. */
#ifndef AIP_CORECLR_CORPROF_INFO_SLOTS_H
#define AIP_CORECLR_CORPROF_INFO_SLOTS_H

#include "coreclr/corprof_enums.h"   /* the slot parameter types ... */
#include "coreclr/corprof_structs.h" /* ... and the structs and callbacks they point to */

#define AIP_COR_INFO_SLOTS(X) \
    /* ICorProfilerInfo: slots 3..35 */ \
    X(HRESULT, GetClassFromObject, (ICorProfilerInfo15 *This, ObjectID objectId, ClassID *pClassId)) \
    X(HRESULT, GetClassFromToken, (ICorProfilerInfo15 *This, ModuleID moduleId, mdTypeDef typeDef, ClassID *pClassId)) \
    X(HRESULT, GetCodeInfo, (ICorProfilerInfo15 *This, FunctionID functionId, LPCBYTE *pStart, ULONG *pcSize)) \
    X(HRESULT, GetEventMask, (ICorProfilerInfo15 *This, DWORD *pdwEvents)) \
    X(HRESULT, GetFunctionFromIP, (ICorProfilerInfo15 *This, LPCBYTE ip, FunctionID *pFunctionId)) \
    X(HRESULT, GetFunctionFromToken, (ICorProfilerInfo15 *This, ModuleID moduleId, mdToken token, FunctionID *pFunctionId)) \
    X(HRESULT, GetHandleFromThread, (ICorProfilerInfo15 *This, ThreadID threadId, HANDLE *phThread)) \
    X(HRESULT, GetObjectSize, (ICorProfilerInfo15 *This, ObjectID objectId, ULONG *pcSize)) \
    X(HRESULT, IsArrayClass, (ICorProfilerInfo15 *This, ClassID classId, CorElementType *pBaseElemType, ClassID *pBaseClassId, \
                              ULONG *pcRank)) \
    X(HRESULT, GetThreadInfo, (ICorProfilerInfo15 *This, ThreadID threadId, DWORD *pdwWin32ThreadId)) \
    X(HRESULT, GetCurrentThreadID, (ICorProfilerInfo15 *This, ThreadID *pThreadId)) \
    X(HRESULT, GetClassIDInfo, (ICorProfilerInfo15 *This, ClassID classId, ModuleID *pModuleId, mdTypeDef *pTypeDefToken)) \
    X(HRESULT, GetFunctionInfo, (ICorProfilerInfo15 *This, FunctionID functionId, ClassID *pClassId, ModuleID *pModuleId, \
                                 mdToken *pToken)) \
    X(HRESULT, SetEventMask, (ICorProfilerInfo15 *This, DWORD dwEvents)) \
    X(HRESULT, SetEnterLeaveFunctionHooks, (ICorProfilerInfo15 *This, FunctionEnter pFuncEnter, FunctionLeave pFuncLeave, \
                                            FunctionTailcall pFuncTailcall)) \
    X(HRESULT, SetFunctionIDMapper, (ICorProfilerInfo15 *This, FunctionIDMapper pFunc)) \
    X(HRESULT, GetTokenAndMetaDataFromFunction, (ICorProfilerInfo15 *This, FunctionID functionId, REFIID riid, \
                                                 IUnknown **ppImport, mdToken *pToken)) \
    X(HRESULT, GetModuleInfo, (ICorProfilerInfo15 *This, ModuleID moduleId, LPCBYTE *ppBaseLoadAddress, ULONG cchName, \
                               ULONG *pcchName, WCHAR *szName, AssemblyID *pAssemblyId)) \
    X(HRESULT, GetModuleMetaData, (ICorProfilerInfo15 *This, ModuleID moduleId, DWORD dwOpenFlags, REFIID riid, \
                                   IUnknown **ppOut)) \
    X(HRESULT, GetILFunctionBody, (ICorProfilerInfo15 *This, ModuleID moduleId, mdMethodDef methodId, LPCBYTE *ppMethodHeader, \
                                   ULONG *pcbMethodSize)) \
    X(HRESULT, GetILFunctionBodyAllocator, (ICorProfilerInfo15 *This, ModuleID moduleId, IMethodMalloc **ppMalloc)) \
    X(HRESULT, SetILFunctionBody, (ICorProfilerInfo15 *This, ModuleID moduleId, mdMethodDef methodId, \
                                   LPCBYTE pbNewILMethodHeader)) \
    X(HRESULT, GetAppDomainInfo, (ICorProfilerInfo15 *This, AppDomainID appDomainId, ULONG cchName, ULONG *pcchName, \
                                  WCHAR *szName, ProcessID *pProcessId)) \
    X(HRESULT, GetAssemblyInfo, (ICorProfilerInfo15 *This, AssemblyID assemblyId, ULONG cchName, ULONG *pcchName, \
                                 WCHAR *szName, AppDomainID *pAppDomainId, ModuleID *pModuleId)) \
    X(HRESULT, SetFunctionReJIT, (ICorProfilerInfo15 *This, FunctionID functionId)) \
    X(HRESULT, ForceGC, (ICorProfilerInfo15 *This)) \
    X(HRESULT, SetILInstrumentedCodeMap, (ICorProfilerInfo15 *This, FunctionID functionId, BOOL fStartJit, \
                                          ULONG cILMapEntries, COR_IL_MAP *rgILMapEntries)) \
    X(HRESULT, GetInprocInspectionInterface, (ICorProfilerInfo15 *This, IUnknown **ppicd)) \
    X(HRESULT, GetInprocInspectionIThisThread, (ICorProfilerInfo15 *This, IUnknown **ppicd)) \
    X(HRESULT, GetThreadContext, (ICorProfilerInfo15 *This, ThreadID threadId, ContextID *pContextId)) \
    X(HRESULT, BeginInprocDebugging, (ICorProfilerInfo15 *This, BOOL fThisThreadOnly, DWORD *pdwProfilerContext)) \
    X(HRESULT, EndInprocDebugging, (ICorProfilerInfo15 *This, DWORD dwProfilerContext)) \
    X(HRESULT, GetILToNativeMapping, (ICorProfilerInfo15 *This, FunctionID functionId, ULONG32 cMap, ULONG32 *pcMap, \
                                      COR_DEBUG_IL_TO_NATIVE_MAP *map)) \
    /* ICorProfilerInfo2: slots 36..56 */ \
    X(HRESULT, DoStackSnapshot, (ICorProfilerInfo15 *This, ThreadID thread, StackSnapshotCallback callback, ULONG32 infoFlags, \
                                 void *clientData, BYTE *context, ULONG32 contextSize)) \
    X(HRESULT, SetEnterLeaveFunctionHooks2, (ICorProfilerInfo15 *This, FunctionEnter2 pFuncEnter, FunctionLeave2 pFuncLeave, \
                                             FunctionTailcall2 pFuncTailcall)) \
    X(HRESULT, GetFunctionInfo2, (ICorProfilerInfo15 *This, FunctionID funcId, COR_PRF_FRAME_INFO frameInfo, ClassID *pClassId, \
                                  ModuleID *pModuleId, mdToken *pToken, ULONG32 cTypeArgs, ULONG32 *pcTypeArgs, \
                                  ClassID *typeArgs)) \
    X(HRESULT, GetStringLayout, (ICorProfilerInfo15 *This, ULONG *pBufferLengthOffset, ULONG *pStringLengthOffset, \
                                 ULONG *pBufferOffset)) \
    X(HRESULT, GetClassLayout, (ICorProfilerInfo15 *This, ClassID classId, COR_FIELD_OFFSET *rFieldOffset, ULONG cFieldOffset, \
                                ULONG *pcFieldOffset, ULONG *pulClassSize)) \
    X(HRESULT, GetClassIDInfo2, (ICorProfilerInfo15 *This, ClassID classId, ModuleID *pModuleId, mdTypeDef *pTypeDefToken, \
                                 ClassID *pParentClassId, ULONG32 cNumTypeArgs, ULONG32 *pcNumTypeArgs, ClassID *typeArgs)) \
    X(HRESULT, GetCodeInfo2, (ICorProfilerInfo15 *This, FunctionID functionId, ULONG32 cCodeInfos, ULONG32 *pcCodeInfos, \
                              COR_PRF_CODE_INFO *codeInfos)) \
    X(HRESULT, GetClassFromTokenAndTypeArgs, (ICorProfilerInfo15 *This, ModuleID moduleId, mdTypeDef typeDef, \
                                              ULONG32 cTypeArgs, ClassID *typeArgs, ClassID *pClassId)) \
    X(HRESULT, GetFunctionFromTokenAndTypeArgs, (ICorProfilerInfo15 *This, ModuleID moduleId, mdMethodDef funcDef, \
                                                 ClassID classId, ULONG32 cTypeArgs, ClassID *typeArgs, \
                                                 FunctionID *pFunctionId)) \
    X(HRESULT, EnumModuleFrozenObjects, (ICorProfilerInfo15 *This, ModuleID moduleId, ICorProfilerObjectEnum **ppEnum)) \
    X(HRESULT, GetArrayObjectInfo, (ICorProfilerInfo15 *This, ObjectID objectId, ULONG32 cDimensions, \
                                    ULONG32 *pDimensionSizes, int *pDimensionLowerBounds, BYTE **ppData)) \
    X(HRESULT, GetBoxClassLayout, (ICorProfilerInfo15 *This, ClassID classId, ULONG32 *pBufferOffset)) \
    X(HRESULT, GetThreadAppDomain, (ICorProfilerInfo15 *This, ThreadID threadId, AppDomainID *pAppDomainId)) \
    X(HRESULT, GetRVAStaticAddress, (ICorProfilerInfo15 *This, ClassID classId, mdFieldDef fieldToken, void **ppAddress)) \
    X(HRESULT, GetAppDomainStaticAddress, (ICorProfilerInfo15 *This, ClassID classId, mdFieldDef fieldToken, \
                                           AppDomainID appDomainId, void **ppAddress)) \
    X(HRESULT, GetThreadStaticAddress, (ICorProfilerInfo15 *This, ClassID classId, mdFieldDef fieldToken, ThreadID threadId, \
                                        void **ppAddress)) \
    X(HRESULT, GetContextStaticAddress, (ICorProfilerInfo15 *This, ClassID classId, mdFieldDef fieldToken, \
                                         ContextID contextId, void **ppAddress)) \
    X(HRESULT, GetStaticFieldInfo, (ICorProfilerInfo15 *This, ClassID classId, mdFieldDef fieldToken, \
                                    COR_PRF_STATIC_TYPE *pFieldInfo)) \
    X(HRESULT, GetGenerationBounds, (ICorProfilerInfo15 *This, ULONG cObjectRanges, ULONG *pcObjectRanges, \
                                     COR_PRF_GC_GENERATION_RANGE *ranges)) \
    X(HRESULT, GetObjectGeneration, (ICorProfilerInfo15 *This, ObjectID objectId, COR_PRF_GC_GENERATION_RANGE *range)) \
    X(HRESULT, GetNotifiedExceptionClauseInfo, (ICorProfilerInfo15 *This, COR_PRF_EX_CLAUSE_INFO *pinfo)) \
    /* ICorProfilerInfo3: slots 57..70 */ \
    X(HRESULT, EnumJITedFunctions, (ICorProfilerInfo15 *This, ICorProfilerFunctionEnum **ppEnum)) \
    X(HRESULT, RequestProfilerDetach, (ICorProfilerInfo15 *This, DWORD dwExpectedCompletionMilliseconds)) \
    X(HRESULT, SetFunctionIDMapper2, (ICorProfilerInfo15 *This, FunctionIDMapper2 pFunc, void *clientData)) \
    X(HRESULT, GetStringLayout2, (ICorProfilerInfo15 *This, ULONG *pStringLengthOffset, ULONG *pBufferOffset)) \
    X(HRESULT, SetEnterLeaveFunctionHooks3, (ICorProfilerInfo15 *This, FunctionEnter3 pFuncEnter3, FunctionLeave3 pFuncLeave3, \
                                             FunctionTailcall3 pFuncTailcall3)) \
    X(HRESULT, SetEnterLeaveFunctionHooks3WithInfo, (ICorProfilerInfo15 *This, FunctionEnter3WithInfo pFuncEnter3WithInfo, \
                                                     FunctionLeave3WithInfo pFuncLeave3WithInfo, \
                                                     FunctionTailcall3WithInfo pFuncTailcall3WithInfo)) \
    X(HRESULT, GetFunctionEnter3Info, (ICorProfilerInfo15 *This, FunctionID functionId, COR_PRF_ELT_INFO eltInfo, \
                                       COR_PRF_FRAME_INFO *pFrameInfo, ULONG *pcbArgumentInfo, \
                                       COR_PRF_FUNCTION_ARGUMENT_INFO *pArgumentInfo)) \
    X(HRESULT, GetFunctionLeave3Info, (ICorProfilerInfo15 *This, FunctionID functionId, COR_PRF_ELT_INFO eltInfo, \
                                       COR_PRF_FRAME_INFO *pFrameInfo, COR_PRF_FUNCTION_ARGUMENT_RANGE *pRetvalRange)) \
    X(HRESULT, GetFunctionTailcall3Info, (ICorProfilerInfo15 *This, FunctionID functionId, COR_PRF_ELT_INFO eltInfo, \
                                          COR_PRF_FRAME_INFO *pFrameInfo)) \
    X(HRESULT, EnumModules, (ICorProfilerInfo15 *This, ICorProfilerModuleEnum **ppEnum)) \
    X(HRESULT, GetRuntimeInformation, (ICorProfilerInfo15 *This, USHORT *pClrInstanceId, COR_PRF_RUNTIME_TYPE *pRuntimeType, \
                                       USHORT *pMajorVersion, USHORT *pMinorVersion, USHORT *pBuildNumber, \
                                       USHORT *pQFEVersion, ULONG cchVersionString, ULONG *pcchVersionString, \
                                       WCHAR *szVersionString)) \
    X(HRESULT, GetThreadStaticAddress2, (ICorProfilerInfo15 *This, ClassID classId, mdFieldDef fieldToken, \
                                         AppDomainID appDomainId, ThreadID threadId, void **ppAddress)) \
    X(HRESULT, GetAppDomainsContainingModule, (ICorProfilerInfo15 *This, ModuleID moduleId, ULONG32 cAppDomainIds, \
                                               ULONG32 *pcAppDomainIds, AppDomainID *appDomainIds)) \
    X(HRESULT, GetModuleInfo2, (ICorProfilerInfo15 *This, ModuleID moduleId, LPCBYTE *ppBaseLoadAddress, ULONG cchName, \
                                ULONG *pcchName, WCHAR *szName, AssemblyID *pAssemblyId, DWORD *pdwModuleFlags)) \
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
