/* ICorProfilerFunctionControl (handed to GetReJITParameters) and IMethodMalloc
 * (from GetILFunctionBodyAllocator). Both are implemented by the runtime. */
#ifndef AIP_CORECLR_CORPROF_CONTROL_H
#define AIP_CORECLR_CORPROF_CONTROL_H

#include "coreclr/cor_types.h"
#include "coreclr/corprof_structs.h" /* typedefs ICorProfilerFunctionControl and IMethodMalloc */

#define AIP_COR_FUNCTION_CONTROL_SLOTS(X) \
    X(HRESULT, SetCodegenFlags, (ICorProfilerFunctionControl *This, DWORD flags)) \
    X(HRESULT, SetILFunctionBody, (ICorProfilerFunctionControl *This, ULONG cbNewILMethodHeader, \
                                   LPCBYTE pbNewILMethodHeader)) \
    X(HRESULT, SetILInstrumentedCodeMap, (ICorProfilerFunctionControl *This, ULONG cILMapEntries, \
                                          COR_IL_MAP *rgILMapEntries))

typedef struct ICorProfilerFunctionControlVtbl {
    AIP_COM_IUNKNOWN_SLOTS(ICorProfilerFunctionControl)
#define AIP_X_SLOT(ret, name, params) ret (STDMETHODCALLTYPE *name) params;
    AIP_COR_FUNCTION_CONTROL_SLOTS(AIP_X_SLOT)
#undef AIP_X_SLOT
} ICorProfilerFunctionControlVtbl;

struct ICorProfilerFunctionControl {
    const ICorProfilerFunctionControlVtbl *lpVtbl;
};

AIP_PIN_SLOT(ICorProfilerFunctionControlVtbl, SetCodegenFlags, 3);
AIP_PIN_SLOT(ICorProfilerFunctionControlVtbl, SetILFunctionBody, 4);
AIP_PIN_SLOT(ICorProfilerFunctionControlVtbl, SetILInstrumentedCodeMap, 5);
AIP_PIN_SLOT_COUNT(ICorProfilerFunctionControlVtbl, 6);

/* Memory from Alloc is never freed by the caller. */
#define AIP_COR_METHOD_MALLOC_SLOTS(X) \
    X(PVOID, Alloc, (IMethodMalloc *This, ULONG cb))

typedef struct IMethodMallocVtbl {
    AIP_COM_IUNKNOWN_SLOTS(IMethodMalloc)
#define AIP_X_SLOT(ret, name, params) ret (STDMETHODCALLTYPE *name) params;
    AIP_COR_METHOD_MALLOC_SLOTS(AIP_X_SLOT)
#undef AIP_X_SLOT
} IMethodMallocVtbl;

struct IMethodMalloc {
    const IMethodMallocVtbl *lpVtbl;
};

AIP_PIN_SLOT(IMethodMallocVtbl, Alloc, 3);
AIP_PIN_SLOT_COUNT(IMethodMallocVtbl, 4);

#endif
