/* Interface IDs for the COM interfaces we declare, plus a GUID comparison. */
#ifndef AIP_CORECLR_COR_GUIDS_H
#define AIP_CORECLR_COR_GUIDS_H

#include "coreclr/cor_types.h"

/* COM */
extern const GUID IID_IUnknown;
extern const GUID IID_IClassFactory;

/* Profiler callbacks (implemented by us) */
extern const GUID IID_ICorProfilerCallback;
extern const GUID IID_ICorProfilerCallback2;
extern const GUID IID_ICorProfilerCallback3;
extern const GUID IID_ICorProfilerCallback4;
extern const GUID IID_ICorProfilerCallback5;
extern const GUID IID_ICorProfilerCallback6;
extern const GUID IID_ICorProfilerCallback7;
extern const GUID IID_ICorProfilerCallback8;
extern const GUID IID_ICorProfilerCallback9;
extern const GUID IID_ICorProfilerCallback10;
extern const GUID IID_ICorProfilerCallback11;

/* Profiler info (implemented by the runtime) */
extern const GUID IID_ICorProfilerInfo;
extern const GUID IID_ICorProfilerInfo2;
extern const GUID IID_ICorProfilerInfo3;
extern const GUID IID_ICorProfilerInfo4;
extern const GUID IID_ICorProfilerInfo5;
extern const GUID IID_ICorProfilerInfo6;
extern const GUID IID_ICorProfilerInfo7;
extern const GUID IID_ICorProfilerInfo8;
extern const GUID IID_ICorProfilerInfo9;
extern const GUID IID_ICorProfilerInfo10;
extern const GUID IID_ICorProfilerInfo11;
extern const GUID IID_ICorProfilerInfo12;
extern const GUID IID_ICorProfilerInfo13;
extern const GUID IID_ICorProfilerInfo14;
extern const GUID IID_ICorProfilerInfo15;

/* ReJIT and IL allocation */
extern const GUID IID_ICorProfilerFunctionControl;
extern const GUID IID_IMethodMalloc;

/* Metadata */
extern const GUID IID_IMetaDataImport;
extern const GUID IID_IMetaDataImport2;
extern const GUID IID_IMetaDataEmit;
extern const GUID IID_IMetaDataEmit2;
extern const GUID IID_IMetaDataAssemblyImport;
extern const GUID IID_IMetaDataAssemblyEmit;

/* Nonzero when both GUIDs hold the same 16 bytes. */
int aip_guid_equal(const GUID *a, const GUID *b);

#endif
