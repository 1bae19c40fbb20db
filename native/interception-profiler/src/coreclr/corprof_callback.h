/* ICorProfilerCallback .. ICorProfilerCallback11 as ONE flat vtable, slots in
 * corprof.idl order (each version appends to the previous one). We implement it;
 * CoreCLR calls it. Every parameter is named so AIP_COR_CALLBACK_SLOTS can also
 * generate function definitions. */
#ifndef AIP_CORECLR_CORPROF_CALLBACK_H
#define AIP_CORECLR_CORPROF_CALLBACK_H

#include "coreclr/cor_types.h"
#include "coreclr/corprof_enums.h"
#include "coreclr/corprof_structs.h"

typedef struct ICorProfilerCallback11 ICorProfilerCallback11;

#define AIP_COR_CALLBACK_SLOTS(X) \
    /* ICorProfilerCallback: slots 3..71 */ \
    X(HRESULT, Initialize, (ICorProfilerCallback11 *This, IUnknown *pICorProfilerInfoUnk)) \
    X(HRESULT, Shutdown, (ICorProfilerCallback11 *This)) \
    X(HRESULT, AppDomainCreationStarted, (ICorProfilerCallback11 *This, AppDomainID appDomainId)) \
    X(HRESULT, AppDomainCreationFinished, (ICorProfilerCallback11 *This, AppDomainID appDomainId, HRESULT hrStatus)) \
    X(HRESULT, AppDomainShutdownStarted, (ICorProfilerCallback11 *This, AppDomainID appDomainId)) \
    X(HRESULT, AppDomainShutdownFinished, (ICorProfilerCallback11 *This, AppDomainID appDomainId, HRESULT hrStatus)) \
    X(HRESULT, AssemblyLoadStarted, (ICorProfilerCallback11 *This, AssemblyID assemblyId)) \
    X(HRESULT, AssemblyLoadFinished, (ICorProfilerCallback11 *This, AssemblyID assemblyId, HRESULT hrStatus)) \
    X(HRESULT, AssemblyUnloadStarted, (ICorProfilerCallback11 *This, AssemblyID assemblyId)) \
    X(HRESULT, AssemblyUnloadFinished, (ICorProfilerCallback11 *This, AssemblyID assemblyId, HRESULT hrStatus)) \
    X(HRESULT, ModuleLoadStarted, (ICorProfilerCallback11 *This, ModuleID moduleId)) \
    X(HRESULT, ModuleLoadFinished, (ICorProfilerCallback11 *This, ModuleID moduleId, HRESULT hrStatus)) \
    X(HRESULT, ModuleUnloadStarted, (ICorProfilerCallback11 *This, ModuleID moduleId)) \
    X(HRESULT, ModuleUnloadFinished, (ICorProfilerCallback11 *This, ModuleID moduleId, HRESULT hrStatus)) \
    X(HRESULT, ModuleAttachedToAssembly, (ICorProfilerCallback11 *This, ModuleID moduleId, AssemblyID assemblyId)) \
    X(HRESULT, ClassLoadStarted, (ICorProfilerCallback11 *This, ClassID classId)) \
    X(HRESULT, ClassLoadFinished, (ICorProfilerCallback11 *This, ClassID classId, HRESULT hrStatus)) \
    X(HRESULT, ClassUnloadStarted, (ICorProfilerCallback11 *This, ClassID classId)) \
    X(HRESULT, ClassUnloadFinished, (ICorProfilerCallback11 *This, ClassID classId, HRESULT hrStatus)) \
    X(HRESULT, FunctionUnloadStarted, (ICorProfilerCallback11 *This, FunctionID functionId)) \
    X(HRESULT, JITCompilationStarted, (ICorProfilerCallback11 *This, FunctionID functionId, BOOL fIsSafeToBlock)) \
    X(HRESULT, JITCompilationFinished, (ICorProfilerCallback11 *This, FunctionID functionId, HRESULT hrStatus, BOOL fIsSafeToBlock)) \
    X(HRESULT, JITCachedFunctionSearchStarted, (ICorProfilerCallback11 *This, FunctionID functionId, BOOL *pbUseCachedFunction)) \
    X(HRESULT, JITCachedFunctionSearchFinished, (ICorProfilerCallback11 *This, FunctionID functionId, COR_PRF_JIT_CACHE result)) \
    X(HRESULT, JITFunctionPitched, (ICorProfilerCallback11 *This, FunctionID functionId)) \
    X(HRESULT, JITInlining, (ICorProfilerCallback11 *This, FunctionID callerId, FunctionID calleeId, BOOL *pfShouldInline)) \
    X(HRESULT, ThreadCreated, (ICorProfilerCallback11 *This, ThreadID threadId)) \
    X(HRESULT, ThreadDestroyed, (ICorProfilerCallback11 *This, ThreadID threadId)) \
    X(HRESULT, ThreadAssignedToOSThread, (ICorProfilerCallback11 *This, ThreadID managedThreadId, DWORD osThreadId)) \
    X(HRESULT, RemotingClientInvocationStarted, (ICorProfilerCallback11 *This)) \
    X(HRESULT, RemotingClientSendingMessage, (ICorProfilerCallback11 *This, GUID *pCookie, BOOL fIsAsync)) \
    X(HRESULT, RemotingClientReceivingReply, (ICorProfilerCallback11 *This, GUID *pCookie, BOOL fIsAsync)) \
    X(HRESULT, RemotingClientInvocationFinished, (ICorProfilerCallback11 *This)) \
    X(HRESULT, RemotingServerReceivingMessage, (ICorProfilerCallback11 *This, GUID *pCookie, BOOL fIsAsync)) \
    X(HRESULT, RemotingServerInvocationStarted, (ICorProfilerCallback11 *This)) \
    X(HRESULT, RemotingServerInvocationReturned, (ICorProfilerCallback11 *This)) \
    X(HRESULT, RemotingServerSendingReply, (ICorProfilerCallback11 *This, GUID *pCookie, BOOL fIsAsync)) \
    X(HRESULT, UnmanagedToManagedTransition, (ICorProfilerCallback11 *This, FunctionID functionId, COR_PRF_TRANSITION_REASON reason)) \
    X(HRESULT, ManagedToUnmanagedTransition, (ICorProfilerCallback11 *This, FunctionID functionId, COR_PRF_TRANSITION_REASON reason)) \
    X(HRESULT, RuntimeSuspendStarted, (ICorProfilerCallback11 *This, COR_PRF_SUSPEND_REASON suspendReason)) \
    X(HRESULT, RuntimeSuspendFinished, (ICorProfilerCallback11 *This)) \
    X(HRESULT, RuntimeSuspendAborted, (ICorProfilerCallback11 *This)) \
    X(HRESULT, RuntimeResumeStarted, (ICorProfilerCallback11 *This)) \
    X(HRESULT, RuntimeResumeFinished, (ICorProfilerCallback11 *This)) \
    X(HRESULT, RuntimeThreadSuspended, (ICorProfilerCallback11 *This, ThreadID threadId)) \
    X(HRESULT, RuntimeThreadResumed, (ICorProfilerCallback11 *This, ThreadID threadId)) \
    X(HRESULT, MovedReferences, (ICorProfilerCallback11 *This, ULONG cRanges, ObjectID *oldStarts, ObjectID *newStarts, \
                                 ULONG *lengths)) \
    X(HRESULT, ObjectAllocated, (ICorProfilerCallback11 *This, ObjectID objectId, ClassID classId)) \
    X(HRESULT, ObjectsAllocatedByClass, (ICorProfilerCallback11 *This, ULONG cClassCount, ClassID *classIds, ULONG *cObjects)) \
    X(HRESULT, ObjectReferences, (ICorProfilerCallback11 *This, ObjectID objectId, ClassID classId, ULONG cObjectRefs, \
                                  ObjectID *objectRefIds)) \
    X(HRESULT, RootReferences, (ICorProfilerCallback11 *This, ULONG cRootRefs, ObjectID *rootRefIds)) \
    X(HRESULT, ExceptionThrown, (ICorProfilerCallback11 *This, ObjectID thrownObjectId)) \
    X(HRESULT, ExceptionSearchFunctionEnter, (ICorProfilerCallback11 *This, FunctionID functionId)) \
    X(HRESULT, ExceptionSearchFunctionLeave, (ICorProfilerCallback11 *This)) \
    X(HRESULT, ExceptionSearchFilterEnter, (ICorProfilerCallback11 *This, FunctionID functionId)) \
    X(HRESULT, ExceptionSearchFilterLeave, (ICorProfilerCallback11 *This)) \
    X(HRESULT, ExceptionSearchCatcherFound, (ICorProfilerCallback11 *This, FunctionID functionId)) \
    X(HRESULT, ExceptionOSHandlerEnter, (ICorProfilerCallback11 *This, UINT_PTR reserved)) \
    X(HRESULT, ExceptionOSHandlerLeave, (ICorProfilerCallback11 *This, UINT_PTR reserved)) \
    X(HRESULT, ExceptionUnwindFunctionEnter, (ICorProfilerCallback11 *This, FunctionID functionId)) \
    X(HRESULT, ExceptionUnwindFunctionLeave, (ICorProfilerCallback11 *This)) \
    X(HRESULT, ExceptionUnwindFinallyEnter, (ICorProfilerCallback11 *This, FunctionID functionId)) \
    X(HRESULT, ExceptionUnwindFinallyLeave, (ICorProfilerCallback11 *This)) \
    X(HRESULT, ExceptionCatcherEnter, (ICorProfilerCallback11 *This, FunctionID functionId, ObjectID objectId)) \
    X(HRESULT, ExceptionCatcherLeave, (ICorProfilerCallback11 *This)) \
    X(HRESULT, COMClassicVTableCreated, (ICorProfilerCallback11 *This, ClassID wrappedClassId, REFGUID implementedIID, \
                                         void *pVTable, ULONG cSlots)) \
    X(HRESULT, COMClassicVTableDestroyed, (ICorProfilerCallback11 *This, ClassID wrappedClassId, REFGUID implementedIID, \
                                           void *pVTable)) \
    X(HRESULT, ExceptionCLRCatcherFound, (ICorProfilerCallback11 *This)) \
    X(HRESULT, ExceptionCLRCatcherExecute, (ICorProfilerCallback11 *This)) \
    /* ICorProfilerCallback2: slots 72..79 */ \
    X(HRESULT, ThreadNameChanged, (ICorProfilerCallback11 *This, ThreadID threadId, ULONG cchName, WCHAR *name)) \
    X(HRESULT, GarbageCollectionStarted, (ICorProfilerCallback11 *This, int cGenerations, BOOL *generationCollected, \
                                          COR_PRF_GC_REASON reason)) \
    X(HRESULT, SurvivingReferences, (ICorProfilerCallback11 *This, ULONG cRanges, ObjectID *starts, ULONG *lengths)) \
    X(HRESULT, GarbageCollectionFinished, (ICorProfilerCallback11 *This)) \
    X(HRESULT, FinalizeableObjectQueued, (ICorProfilerCallback11 *This, DWORD finalizerFlags, ObjectID objectId)) \
    X(HRESULT, RootReferences2, (ICorProfilerCallback11 *This, ULONG cRootRefs, ObjectID *rootRefIds, \
                                 COR_PRF_GC_ROOT_KIND *rootKinds, COR_PRF_GC_ROOT_FLAGS *rootFlags, UINT_PTR *rootIds)) \
    X(HRESULT, HandleCreated, (ICorProfilerCallback11 *This, GCHandleID handleId, ObjectID initialObjectId)) \
    X(HRESULT, HandleDestroyed, (ICorProfilerCallback11 *This, GCHandleID handleId)) \
    /* ICorProfilerCallback3: slots 80..82 */ \
    X(HRESULT, InitializeForAttach, (ICorProfilerCallback11 *This, IUnknown *pCorProfilerInfoUnk, void *pvClientData, \
                                     UINT cbClientData)) \
    X(HRESULT, ProfilerAttachComplete, (ICorProfilerCallback11 *This)) \
    X(HRESULT, ProfilerDetachSucceeded, (ICorProfilerCallback11 *This)) \
    /* ICorProfilerCallback4: slots 83..88 */ \
    X(HRESULT, ReJITCompilationStarted, (ICorProfilerCallback11 *This, FunctionID functionId, ReJITID rejitId, BOOL fIsSafeToBlock)) \
    X(HRESULT, GetReJITParameters, (ICorProfilerCallback11 *This, ModuleID moduleId, mdMethodDef methodId, \
                                    ICorProfilerFunctionControl *pFunctionControl)) \
    X(HRESULT, ReJITCompilationFinished, (ICorProfilerCallback11 *This, FunctionID functionId, ReJITID rejitId, HRESULT hrStatus, \
                                          BOOL fIsSafeToBlock)) \
    X(HRESULT, ReJITError, (ICorProfilerCallback11 *This, ModuleID moduleId, mdMethodDef methodId, FunctionID functionId, \
                            HRESULT hrStatus)) \
    X(HRESULT, MovedReferences2, (ICorProfilerCallback11 *This, ULONG cRanges, ObjectID *oldStarts, ObjectID *newStarts, \
                                  SIZE_T *lengths)) \
    X(HRESULT, SurvivingReferences2, (ICorProfilerCallback11 *This, ULONG cRanges, ObjectID *starts, SIZE_T *lengths)) \
    /* ICorProfilerCallback5: slot 89 */ \
    X(HRESULT, ConditionalWeakTableElementReferences, (ICorProfilerCallback11 *This, ULONG cRootRefs, ObjectID *keyRefIds, \
                                                       ObjectID *valueRefIds, GCHandleID *rootIds)) \
    /* ICorProfilerCallback6: slot 90 */ \
    X(HRESULT, GetAssemblyReferences, (ICorProfilerCallback11 *This, const WCHAR *wszAssemblyPath, \
                                       ICorProfilerAssemblyReferenceProvider *pAsmRefProvider)) \
    /* ICorProfilerCallback7: slot 91 */ \
    X(HRESULT, ModuleInMemorySymbolsUpdated, (ICorProfilerCallback11 *This, ModuleID moduleId)) \
    /* ICorProfilerCallback8: slots 92..93 */ \
    X(HRESULT, DynamicMethodJITCompilationStarted, (ICorProfilerCallback11 *This, FunctionID functionId, BOOL fIsSafeToBlock, \
                                                    LPCBYTE pILHeader, ULONG cbILHeader)) \
    X(HRESULT, DynamicMethodJITCompilationFinished, (ICorProfilerCallback11 *This, FunctionID functionId, HRESULT hrStatus, \
                                                     BOOL fIsSafeToBlock)) \
    /* ICorProfilerCallback9: slot 94 */ \
    X(HRESULT, DynamicMethodUnloaded, (ICorProfilerCallback11 *This, FunctionID functionId)) \
    /* ICorProfilerCallback10: slots 95..96 */ \
    X(HRESULT, EventPipeEventDelivered, (ICorProfilerCallback11 *This, EVENTPIPE_PROVIDER provider, DWORD eventId, \
                                         DWORD eventVersion, ULONG cbMetadataBlob, LPCBYTE metadataBlob, ULONG cbEventData, \
                                         LPCBYTE eventData, LPCGUID pActivityId, LPCGUID pRelatedActivityId, \
                                         ThreadID eventThread, ULONG numStackFrames, UINT_PTR *stackFrames)) \
    X(HRESULT, EventPipeProviderCreated, (ICorProfilerCallback11 *This, EVENTPIPE_PROVIDER provider)) \
    /* ICorProfilerCallback11: slot 97 */ \
    X(HRESULT, LoadAsNotificationOnly, (ICorProfilerCallback11 *This, BOOL *pbNotificationOnly))

typedef struct ICorProfilerCallback11Vtbl {
    AIP_COM_IUNKNOWN_SLOTS(ICorProfilerCallback11)
#define AIP_X_SLOT(ret, name, params) ret (STDMETHODCALLTYPE *name) params;
    AIP_COR_CALLBACK_SLOTS(AIP_X_SLOT)
#undef AIP_X_SLOT
} ICorProfilerCallback11Vtbl;

struct ICorProfilerCallback11 {
    const ICorProfilerCallback11Vtbl *lpVtbl;
};

/* Last slot of each version, counted from QueryInterface = 0. */
AIP_PIN_SLOT(ICorProfilerCallback11Vtbl, Initialize, 3);
AIP_PIN_SLOT(ICorProfilerCallback11Vtbl, ExceptionCLRCatcherExecute, 71);  /* ICorProfilerCallback */
AIP_PIN_SLOT(ICorProfilerCallback11Vtbl, HandleDestroyed, 79);             /* ICorProfilerCallback2 */
AIP_PIN_SLOT(ICorProfilerCallback11Vtbl, ProfilerDetachSucceeded, 82);     /* ICorProfilerCallback3 */
AIP_PIN_SLOT(ICorProfilerCallback11Vtbl, SurvivingReferences2, 88);        /* ICorProfilerCallback4 */
AIP_PIN_SLOT(ICorProfilerCallback11Vtbl, ConditionalWeakTableElementReferences, 89); /* ICorProfilerCallback5 */
AIP_PIN_SLOT(ICorProfilerCallback11Vtbl, GetAssemblyReferences, 90);       /* ICorProfilerCallback6 */
AIP_PIN_SLOT(ICorProfilerCallback11Vtbl, ModuleInMemorySymbolsUpdated, 91); /* ICorProfilerCallback7 */
AIP_PIN_SLOT(ICorProfilerCallback11Vtbl, DynamicMethodJITCompilationFinished, 93); /* ICorProfilerCallback8 */
AIP_PIN_SLOT(ICorProfilerCallback11Vtbl, DynamicMethodUnloaded, 94);       /* ICorProfilerCallback9 */
AIP_PIN_SLOT(ICorProfilerCallback11Vtbl, EventPipeProviderCreated, 96);    /* ICorProfilerCallback10 */
AIP_PIN_SLOT(ICorProfilerCallback11Vtbl, LoadAsNotificationOnly, 97);      /* ICorProfilerCallback11 */
AIP_PIN_SLOT_COUNT(ICorProfilerCallback11Vtbl, 98);

/* A few slots the profiler relies on, pinned individually. */
AIP_PIN_SLOT(ICorProfilerCallback11Vtbl, ModuleLoadFinished, 14);
AIP_PIN_SLOT(ICorProfilerCallback11Vtbl, JITCompilationStarted, 23);
AIP_PIN_SLOT(ICorProfilerCallback11Vtbl, JITInlining, 28);
AIP_PIN_SLOT(ICorProfilerCallback11Vtbl, ObjectAllocated, 50);
AIP_PIN_SLOT(ICorProfilerCallback11Vtbl, InitializeForAttach, 80);
AIP_PIN_SLOT(ICorProfilerCallback11Vtbl, GetReJITParameters, 84);
AIP_PIN_SLOT(ICorProfilerCallback11Vtbl, ReJITError, 86);
AIP_PIN_SLOT(ICorProfilerCallback11Vtbl, EventPipeEventDelivered, 95);

#endif
