/* The CoreCLR COM declarations: slot indices of the methods we call or implement,
 * struct sizes, IIDs and HRESULTs, checked against values counted in corprof.idl and
 * cor.h (v10.0.12). The headers also pin these at compile time; this repeats the
 * important ones at run time so a failure names the slot. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "coreclr/cor_guids.h"
#include "coreclr/cor_metadata.h"
#include "coreclr/corprof_callback.h"
#include "coreclr/corprof_control.h"
#include "coreclr/corprof_info.h"

#define SLOT(Vtbl, member) (offsetof(Vtbl, member) / sizeof(void *))
#define SLOTS(Vtbl) (sizeof(Vtbl) / sizeof(void *))

static void info_slots(void **state)
{
    (void)state;
    assert_int_equal(SLOT(ICorProfilerInfo15Vtbl, QueryInterface), 0);
    assert_int_equal(SLOT(ICorProfilerInfo15Vtbl, Release), 2);
    assert_int_equal(SLOT(ICorProfilerInfo15Vtbl, GetClassFromObject), 3);
    assert_int_equal(SLOT(ICorProfilerInfo15Vtbl, SetEventMask), 16);
    assert_int_equal(SLOT(ICorProfilerInfo15Vtbl, GetModuleInfo), 20);
    assert_int_equal(SLOT(ICorProfilerInfo15Vtbl, GetModuleMetaData), 21);
    assert_int_equal(SLOT(ICorProfilerInfo15Vtbl, GetILFunctionBody), 22);
    assert_int_equal(SLOT(ICorProfilerInfo15Vtbl, GetILFunctionBodyAllocator), 23);
    assert_int_equal(SLOT(ICorProfilerInfo15Vtbl, SetILFunctionBody), 24);
    /* The five E_NOTIMPL stubs the shipped runtime has at 27, 30, 31, 33, 34. */
    assert_int_equal(SLOT(ICorProfilerInfo15Vtbl, SetFunctionReJIT), 27);
    assert_int_equal(SLOT(ICorProfilerInfo15Vtbl, GetInprocInspectionInterface), 30);
    assert_int_equal(SLOT(ICorProfilerInfo15Vtbl, GetInprocInspectionIThisThread), 31);
    assert_int_equal(SLOT(ICorProfilerInfo15Vtbl, BeginInprocDebugging), 33);
    assert_int_equal(SLOT(ICorProfilerInfo15Vtbl, EndInprocDebugging), 34);
    assert_int_equal(SLOT(ICorProfilerInfo15Vtbl, GetILToNativeMapping), 35);
    assert_int_equal(SLOT(ICorProfilerInfo15Vtbl, DoStackSnapshot), 36);
    assert_int_equal(SLOT(ICorProfilerInfo15Vtbl, GetRuntimeInformation), 67);
    assert_int_equal(SLOT(ICorProfilerInfo15Vtbl, GetModuleInfo2), 70);
    assert_int_equal(SLOT(ICorProfilerInfo15Vtbl, InitializeCurrentThread), 72);
    assert_int_equal(SLOT(ICorProfilerInfo15Vtbl, RequestReJIT), 73);
    assert_int_equal(SLOT(ICorProfilerInfo15Vtbl, RequestRevert), 74);
    assert_int_equal(SLOT(ICorProfilerInfo15Vtbl, GetObjectSize2), 80);
    assert_int_equal(SLOT(ICorProfilerInfo15Vtbl, SetEventMask2), 82);
    assert_int_equal(SLOT(ICorProfilerInfo15Vtbl, ApplyMetaData), 84);
    assert_int_equal(SLOT(ICorProfilerInfo15Vtbl, RequestReJITWithInliners), 96);
    assert_int_equal(SLOT(ICorProfilerInfo15Vtbl, SetEnvironmentVariable), 100);
    assert_int_equal(SLOT(ICorProfilerInfo15Vtbl, EventPipeWriteEvent), 107);
    assert_int_equal(SLOT(ICorProfilerInfo15Vtbl, EnumerateGCHeapObjects), 114);
    assert_int_equal(SLOTS(ICorProfilerInfo15Vtbl), 115);
    assert_int_equal(AIP_COR_INFO_HIGHEST_VERSION, 15);
}

static void callback_slots(void **state)
{
    (void)state;
    assert_int_equal(SLOT(ICorProfilerCallback11Vtbl, Initialize), 3);
    assert_int_equal(SLOT(ICorProfilerCallback11Vtbl, Shutdown), 4);
    assert_int_equal(SLOT(ICorProfilerCallback11Vtbl, ModuleLoadFinished), 14);
    assert_int_equal(SLOT(ICorProfilerCallback11Vtbl, JITCompilationStarted), 23);
    assert_int_equal(SLOT(ICorProfilerCallback11Vtbl, JITInlining), 28);
    assert_int_equal(SLOT(ICorProfilerCallback11Vtbl, ObjectAllocated), 50);
    assert_int_equal(SLOT(ICorProfilerCallback11Vtbl, ExceptionCLRCatcherExecute), 71);
    assert_int_equal(SLOT(ICorProfilerCallback11Vtbl, HandleDestroyed), 79);
    assert_int_equal(SLOT(ICorProfilerCallback11Vtbl, InitializeForAttach), 80);
    assert_int_equal(SLOT(ICorProfilerCallback11Vtbl, ReJITCompilationStarted), 83);
    assert_int_equal(SLOT(ICorProfilerCallback11Vtbl, GetReJITParameters), 84);
    assert_int_equal(SLOT(ICorProfilerCallback11Vtbl, ReJITCompilationFinished), 85);
    assert_int_equal(SLOT(ICorProfilerCallback11Vtbl, ReJITError), 86);
    assert_int_equal(SLOT(ICorProfilerCallback11Vtbl, DynamicMethodJITCompilationStarted), 92);
    assert_int_equal(SLOT(ICorProfilerCallback11Vtbl, LoadAsNotificationOnly), 97);
    assert_int_equal(SLOTS(ICorProfilerCallback11Vtbl), 98);
}

static void control_and_metadata_slots(void **state)
{
    (void)state;
    assert_int_equal(SLOT(ICorProfilerFunctionControlVtbl, SetCodegenFlags), 3);
    assert_int_equal(SLOT(ICorProfilerFunctionControlVtbl, SetILFunctionBody), 4);
    assert_int_equal(SLOTS(ICorProfilerFunctionControlVtbl), 6);
    assert_int_equal(SLOT(IMethodMallocVtbl, Alloc), 3);
    assert_int_equal(SLOTS(IMethodMallocVtbl), 4);

    assert_int_equal(SLOT(IMetaDataImport2Vtbl, CloseEnum), 3);
    assert_int_equal(SLOT(IMetaDataImport2Vtbl, EnumMethods), 18);
    assert_int_equal(SLOT(IMetaDataImport2Vtbl, GetMethodProps), 30);
    assert_int_equal(SLOT(IMetaDataImport2Vtbl, GetMemberRefProps), 31);
    assert_int_equal(SLOT(IMetaDataImport2Vtbl, GetSigFromToken), 41);
    assert_int_equal(SLOT(IMetaDataImport2Vtbl, IsGlobal), 64);
    assert_int_equal(SLOT(IMetaDataImport2Vtbl, EnumMethodSpecs), 72);
    assert_int_equal(SLOTS(IMetaDataImport2Vtbl), 73);

    assert_int_equal(SLOT(IMetaDataEmit2Vtbl, DefineMethod), 10);
    assert_int_equal(SLOT(IMetaDataEmit2Vtbl, DefineTypeRefByName), 12);
    assert_int_equal(SLOT(IMetaDataEmit2Vtbl, DefineMemberRef), 14);
    assert_int_equal(SLOT(IMetaDataEmit2Vtbl, GetTokenFromSig), 23);
    assert_int_equal(SLOT(IMetaDataEmit2Vtbl, DefineUserString), 28);
    assert_int_equal(SLOT(IMetaDataEmit2Vtbl, MergeEnd), 51);
    assert_int_equal(SLOT(IMetaDataEmit2Vtbl, DefineMethodSpec), 52);
    assert_int_equal(SLOTS(IMetaDataEmit2Vtbl), 60);

    assert_int_equal(SLOT(IMetaDataAssemblyImportVtbl, GetAssemblyRefProps), 4);
    assert_int_equal(SLOT(IMetaDataAssemblyImportVtbl, CloseEnum), 15);
    assert_int_equal(SLOTS(IMetaDataAssemblyImportVtbl), 17);
    assert_int_equal(SLOT(IMetaDataAssemblyEmitVtbl, DefineAssemblyRef), 4);
    assert_int_equal(SLOTS(IMetaDataAssemblyEmitVtbl), 13);
}

static void struct_layouts(void **state)
{
    (void)state;
    assert_int_equal(sizeof(GUID), 16);
    assert_int_equal(sizeof(COR_IL_MAP), 12);
    assert_int_equal(sizeof(COR_DEBUG_IL_TO_NATIVE_MAP), 12);
    assert_int_equal(sizeof(COR_FIELD_OFFSET), 8);
    assert_int_equal(sizeof(WCHAR), 2);
    assert_int_equal(sizeof(HRESULT), 4);
    assert_int_equal(sizeof(BOOL), 4);
    assert_int_equal(sizeof(FunctionID), sizeof(void *));
    assert_int_equal(sizeof(COR_PRF_CODE_INFO), 2 * sizeof(void *));
    assert_int_equal(sizeof(COR_PRF_FUNCTION), 2 * sizeof(void *));
    assert_int_equal(sizeof(FunctionIDOrClientID), sizeof(void *));
    assert_int_equal(offsetof(COR_PRF_EX_CLAUSE_INFO, programCounter), sizeof(void *));
    assert_int_equal(offsetof(COR_PRF_GC_GENERATION_RANGE, rangeStart), sizeof(void *));
    if (sizeof(void *) == 8) {
        assert_int_equal(sizeof(COR_PRF_EVENTPIPE_PROVIDER_CONFIG), 32);
        assert_int_equal(sizeof(ASSEMBLYMETADATA), 56);
        assert_int_equal(sizeof(COR_PRF_ASSEMBLY_REFERENCE_INFO), 48);
    }
}

static void iid_values(void **state)
{
    (void)state;
    static const struct {
        const GUID *iid;
        uint32_t data1;
    } expected[] = {
        {&IID_IUnknown, 0x00000000u},               {&IID_IClassFactory, 0x00000001u},
        {&IID_ICorProfilerCallback, 0x176FBED1u},   {&IID_ICorProfilerCallback2, 0x8A8CC829u},
        {&IID_ICorProfilerCallback3, 0x4FD2ED52u},  {&IID_ICorProfilerCallback4, 0x7B63B2E3u},
        {&IID_ICorProfilerCallback5, 0x8DFBA405u},  {&IID_ICorProfilerCallback6, 0xFC13DF4Bu},
        {&IID_ICorProfilerCallback7, 0xF76A2DBAu},  {&IID_ICorProfilerCallback8, 0x5BED9B15u},
        {&IID_ICorProfilerCallback9, 0x27583EC3u},  {&IID_ICorProfilerCallback10, 0xCEC5B60Eu},
        {&IID_ICorProfilerCallback11, 0x42350846u}, {&IID_ICorProfilerInfo, 0x28B5557Du},
        {&IID_ICorProfilerInfo2, 0xCC0935CDu},      {&IID_ICorProfilerInfo3, 0xB555ED4Fu},
        {&IID_ICorProfilerInfo4, 0x0D8FDCAAu},      {&IID_ICorProfilerInfo5, 0x07602928u},
        {&IID_ICorProfilerInfo6, 0xF30A070Du},      {&IID_ICorProfilerInfo7, 0x9AEECC0Du},
        {&IID_ICorProfilerInfo8, 0xC5AC80A6u},      {&IID_ICorProfilerInfo9, 0x008170DBu},
        {&IID_ICorProfilerInfo10, 0x2F1B5152u},     {&IID_ICorProfilerInfo11, 0x06398876u},
        {&IID_ICorProfilerInfo12, 0x27B24CCDu},     {&IID_ICorProfilerInfo13, 0x6E6C7EE2u},
        {&IID_ICorProfilerInfo14, 0xF460E352u},     {&IID_ICorProfilerInfo15, 0xB446462Du},
        {&IID_ICorProfilerFunctionControl, 0xF0963021u}, {&IID_IMethodMalloc, 0xA0EFB28Bu},
        {&IID_IMetaDataImport, 0x7DAC8207u},        {&IID_IMetaDataImport2, 0xFCE5EFA0u},
        {&IID_IMetaDataEmit, 0xBA3FEE4Cu},          {&IID_IMetaDataEmit2, 0xF5DD9950u},
        {&IID_IMetaDataAssemblyImport, 0xEE62470Bu}, {&IID_IMetaDataAssemblyEmit, 0x211EF15Bu},
    };
    const size_t n = sizeof expected / sizeof expected[0];
    for (size_t i = 0; i < n; ++i) {
        assert_int_equal(expected[i].iid->Data1, expected[i].data1);
        for (size_t j = 0; j < i; ++j)
            assert_false(aip_guid_equal(expected[i].iid, expected[j].iid));
    }
    /* Every byte of two of them: {176FBED1-A55C-4796-98CA-A9DA0EF883E7} and IUnknown. */
    static const uint8_t cb_tail[8] = {0x98, 0xCA, 0xA9, 0xDA, 0x0E, 0xF8, 0x83, 0xE7};
    assert_int_equal(IID_ICorProfilerCallback.Data2, 0xA55C);
    assert_int_equal(IID_ICorProfilerCallback.Data3, 0x4796);
    assert_memory_equal(IID_ICorProfilerCallback.Data4, cb_tail, 8);
    static const uint8_t unk_tail[8] = {0xC0, 0, 0, 0, 0, 0, 0, 0x46};
    assert_memory_equal(IID_IUnknown.Data4, unk_tail, 8);
    GUID copy = IID_ICorProfilerInfo15;
    assert_true(aip_guid_equal(&copy, &IID_ICorProfilerInfo15));
    copy.Data4[7] ^= 1;
    assert_false(aip_guid_equal(&copy, &IID_ICorProfilerInfo15));
}

static void constants(void **state)
{
    (void)state;
    assert_true(SUCCEEDED(S_FALSE));
    assert_true(FAILED(E_FAIL));
    assert_int_equal((uint32_t)E_NOINTERFACE, 0x80004002u);
    assert_int_equal((uint32_t)CORPROF_E_UNSUPPORTED_CALL_SEQUENCE, 0x80131363u);
    assert_int_equal((uint32_t)CORPROF_E_PROFILER_DETACHING, 0x80131367u);
    assert_int_equal(COR_PRF_MONITOR_ALL, 0x0107FFFFu);
    assert_int_equal(COR_PRF_ENABLE_REJIT, 0x00040000u);
    assert_int_equal(COR_PRF_HIGH_MONITOR_IMMUTABLE, 0x8u);
    assert_int_equal(AIP_TYPE_FROM_TOKEN(0x06000012u), mdtMethodDef);
    assert_int_equal(AIP_RID_FROM_TOKEN(0x06000012u), 0x12);
    assert_int_equal(AIP_TOKEN_FROM_RID(5, mdtTypeRef), 0x01000005u);
    assert_int_equal(CorILMethod_FatFormat & CorILMethod_FormatMask, CorILMethod_FatFormat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(info_slots),
        cmocka_unit_test(callback_slots),
        cmocka_unit_test(control_and_metadata_slots),
        cmocka_unit_test(struct_layouts),
        cmocka_unit_test(iid_values),
        cmocka_unit_test(constants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
