/* IMetaDataEmit + IMetaDataEmit2 as ONE flat vtable, slots in cor.h order.
 * Obtain it with GetModuleMetaData(..., ofRead | ofWrite, &IID_IMetaDataEmit2, ...). */
#ifndef AIP_CORECLR_COR_METADATA_EMIT_H
#define AIP_CORECLR_COR_METADATA_EMIT_H

#include "coreclr/cor_metadata_defs.h"

#define AIP_MD_EMIT_SLOTS(X) \
    /* IMetaDataEmit: slots 3..51 */ \
    X(HRESULT, SetModuleProps, (IMetaDataEmit2 *This, LPCWSTR szName)) \
    X(HRESULT, Save, (IMetaDataEmit2 *This, LPCWSTR szFile, DWORD dwSaveFlags)) \
    X(HRESULT, SaveToStream, (IMetaDataEmit2 *This, IStream *pIStream, DWORD dwSaveFlags)) \
    X(HRESULT, GetSaveSize, (IMetaDataEmit2 *This, CorSaveSize fSave, DWORD *pdwSaveSize)) \
    X(HRESULT, DefineTypeDef, (IMetaDataEmit2 *This, LPCWSTR szTypeDef, DWORD dwTypeDefFlags, mdToken tkExtends, \
                               mdToken *rtkImplements, mdTypeDef *ptd)) \
    X(HRESULT, DefineNestedType, (IMetaDataEmit2 *This, LPCWSTR szTypeDef, DWORD dwTypeDefFlags, mdToken tkExtends, \
                                  mdToken *rtkImplements, mdTypeDef tdEncloser, mdTypeDef *ptd)) \
    X(HRESULT, SetHandler, (IMetaDataEmit2 *This, IUnknown *pUnk)) \
    X(HRESULT, DefineMethod, (IMetaDataEmit2 *This, mdTypeDef td, LPCWSTR szName, DWORD dwMethodFlags, \
                              PCCOR_SIGNATURE pvSigBlob, ULONG cbSigBlob, ULONG ulCodeRVA, DWORD dwImplFlags, \
                              mdMethodDef *pmd)) \
    X(HRESULT, DefineMethodImpl, (IMetaDataEmit2 *This, mdTypeDef td, mdToken tkBody, mdToken tkDecl)) \
    X(HRESULT, DefineTypeRefByName, (IMetaDataEmit2 *This, mdToken tkResolutionScope, LPCWSTR szName, mdTypeRef *ptr)) \
    X(HRESULT, DefineImportType, (IMetaDataEmit2 *This, IMetaDataAssemblyImport *pAssemImport, const void *pbHashValue, \
                                  ULONG cbHashValue, IMetaDataImport *pImport, mdTypeDef tdImport, \
                                  IMetaDataAssemblyEmit *pAssemEmit, mdTypeRef *ptr)) \
    X(HRESULT, DefineMemberRef, (IMetaDataEmit2 *This, mdToken tkImport, LPCWSTR szName, PCCOR_SIGNATURE pvSigBlob, \
                                 ULONG cbSigBlob, mdMemberRef *pmr)) \
    X(HRESULT, DefineImportMember, (IMetaDataEmit2 *This, IMetaDataAssemblyImport *pAssemImport, const void *pbHashValue, \
                                    ULONG cbHashValue, IMetaDataImport *pImport, mdToken mbMember, \
                                    IMetaDataAssemblyEmit *pAssemEmit, mdToken tkParent, mdMemberRef *pmr)) \
    X(HRESULT, DefineEvent, (IMetaDataEmit2 *This, mdTypeDef td, LPCWSTR szEvent, DWORD dwEventFlags, mdToken tkEventType, \
                             mdMethodDef mdAddOn, mdMethodDef mdRemoveOn, mdMethodDef mdFire, mdMethodDef *rmdOtherMethods, \
                             mdEvent *pmdEvent)) \
    X(HRESULT, SetClassLayout, (IMetaDataEmit2 *This, mdTypeDef td, DWORD dwPackSize, COR_FIELD_OFFSET *rFieldOffsets, \
                                ULONG ulClassSize)) \
    X(HRESULT, DeleteClassLayout, (IMetaDataEmit2 *This, mdTypeDef td)) \
    X(HRESULT, SetFieldMarshal, (IMetaDataEmit2 *This, mdToken tk, PCCOR_SIGNATURE pvNativeType, ULONG cbNativeType)) \
    X(HRESULT, DeleteFieldMarshal, (IMetaDataEmit2 *This, mdToken tk)) \
    X(HRESULT, DefinePermissionSet, (IMetaDataEmit2 *This, mdToken tk, DWORD dwAction, const void *pvPermission, \
                                     ULONG cbPermission, mdPermission *ppm)) \
    X(HRESULT, SetRVA, (IMetaDataEmit2 *This, mdMethodDef md, ULONG ulRVA)) \
    X(HRESULT, GetTokenFromSig, (IMetaDataEmit2 *This, PCCOR_SIGNATURE pvSig, ULONG cbSig, mdSignature *pmsig)) \
    X(HRESULT, DefineModuleRef, (IMetaDataEmit2 *This, LPCWSTR szName, mdModuleRef *pmur)) \
    X(HRESULT, SetParent, (IMetaDataEmit2 *This, mdMemberRef mr, mdToken tk)) \
    X(HRESULT, GetTokenFromTypeSpec, (IMetaDataEmit2 *This, PCCOR_SIGNATURE pvSig, ULONG cbSig, mdTypeSpec *ptypespec)) \
    X(HRESULT, SaveToMemory, (IMetaDataEmit2 *This, void *pbData, ULONG cbData)) \
    X(HRESULT, DefineUserString, (IMetaDataEmit2 *This, LPCWSTR szString, ULONG cchString, mdString *pstk)) \
    X(HRESULT, DeleteToken, (IMetaDataEmit2 *This, mdToken tkObj)) \
    X(HRESULT, SetMethodProps, (IMetaDataEmit2 *This, mdMethodDef md, DWORD dwMethodFlags, ULONG ulCodeRVA, \
                                DWORD dwImplFlags)) \
    X(HRESULT, SetTypeDefProps, (IMetaDataEmit2 *This, mdTypeDef td, DWORD dwTypeDefFlags, mdToken tkExtends, \
                                 mdToken *rtkImplements)) \
    X(HRESULT, SetEventProps, (IMetaDataEmit2 *This, mdEvent ev, DWORD dwEventFlags, mdToken tkEventType, \
                               mdMethodDef mdAddOn, mdMethodDef mdRemoveOn, mdMethodDef mdFire, \
                               mdMethodDef *rmdOtherMethods)) \
    X(HRESULT, SetPermissionSetProps, (IMetaDataEmit2 *This, mdToken tk, DWORD dwAction, const void *pvPermission, \
                                       ULONG cbPermission, mdPermission *ppm)) \
    X(HRESULT, DefinePinvokeMap, (IMetaDataEmit2 *This, mdToken tk, DWORD dwMappingFlags, LPCWSTR szImportName, \
                                  mdModuleRef mrImportDLL)) \
    X(HRESULT, SetPinvokeMap, (IMetaDataEmit2 *This, mdToken tk, DWORD dwMappingFlags, LPCWSTR szImportName, \
                               mdModuleRef mrImportDLL)) \
    X(HRESULT, DeletePinvokeMap, (IMetaDataEmit2 *This, mdToken tk)) \
    X(HRESULT, DefineCustomAttribute, (IMetaDataEmit2 *This, mdToken tkOwner, mdToken tkCtor, const void *pCustomAttribute, \
                                       ULONG cbCustomAttribute, mdCustomAttribute *pcv)) \
    X(HRESULT, SetCustomAttributeValue, (IMetaDataEmit2 *This, mdCustomAttribute pcv, const void *pCustomAttribute, \
                                         ULONG cbCustomAttribute)) \
    X(HRESULT, DefineField, (IMetaDataEmit2 *This, mdTypeDef td, LPCWSTR szName, DWORD dwFieldFlags, \
                             PCCOR_SIGNATURE pvSigBlob, ULONG cbSigBlob, DWORD dwCPlusTypeFlag, const void *pValue, \
                             ULONG cchValue, mdFieldDef *pmd)) \
    X(HRESULT, DefineProperty, (IMetaDataEmit2 *This, mdTypeDef td, LPCWSTR szProperty, DWORD dwPropFlags, \
                                PCCOR_SIGNATURE pvSig, ULONG cbSig, DWORD dwCPlusTypeFlag, const void *pValue, \
                                ULONG cchValue, mdMethodDef mdSetter, mdMethodDef mdGetter, mdMethodDef *rmdOtherMethods, \
                                mdProperty *pmdProp)) \
    X(HRESULT, DefineParam, (IMetaDataEmit2 *This, mdMethodDef md, ULONG ulParamSeq, LPCWSTR szName, DWORD dwParamFlags, \
                             DWORD dwCPlusTypeFlag, const void *pValue, ULONG cchValue, mdParamDef *ppd)) \
    X(HRESULT, SetFieldProps, (IMetaDataEmit2 *This, mdFieldDef fd, DWORD dwFieldFlags, DWORD dwCPlusTypeFlag, \
                               const void *pValue, ULONG cchValue)) \
    X(HRESULT, SetPropertyProps, (IMetaDataEmit2 *This, mdProperty pr, DWORD dwPropFlags, DWORD dwCPlusTypeFlag, \
                                  const void *pValue, ULONG cchValue, mdMethodDef mdSetter, mdMethodDef mdGetter, \
                                  mdMethodDef *rmdOtherMethods)) \
    X(HRESULT, SetParamProps, (IMetaDataEmit2 *This, mdParamDef pd, LPCWSTR szName, DWORD dwParamFlags, \
                               DWORD dwCPlusTypeFlag, const void *pValue, ULONG cchValue)) \
    X(HRESULT, DefineSecurityAttributeSet, (IMetaDataEmit2 *This, mdToken tkObj, COR_SECATTR *rSecAttrs, ULONG cSecAttrs, \
                                            ULONG *pulErrorAttr)) \
    X(HRESULT, ApplyEditAndContinue, (IMetaDataEmit2 *This, IUnknown *pImport)) \
    X(HRESULT, TranslateSigWithScope, (IMetaDataEmit2 *This, IMetaDataAssemblyImport *pAssemImport, \
                                       const void *pbHashValue, ULONG cbHashValue, IMetaDataImport *import, \
                                       PCCOR_SIGNATURE pbSigBlob, ULONG cbSigBlob, IMetaDataAssemblyEmit *pAssemEmit, \
                                       IMetaDataEmit *emit, PCOR_SIGNATURE pvTranslatedSig, ULONG cbTranslatedSigMax, \
                                       ULONG *pcbTranslatedSig)) \
    X(HRESULT, SetMethodImplFlags, (IMetaDataEmit2 *This, mdMethodDef md, DWORD dwImplFlags)) \
    X(HRESULT, SetFieldRVA, (IMetaDataEmit2 *This, mdFieldDef fd, ULONG ulRVA)) \
    X(HRESULT, Merge, (IMetaDataEmit2 *This, IMetaDataImport *pImport, IMapToken *pHostMapToken, IUnknown *pHandler)) \
    X(HRESULT, MergeEnd, (IMetaDataEmit2 *This)) \
    /* IMetaDataEmit2: slots 52..59 */ \
    X(HRESULT, DefineMethodSpec, (IMetaDataEmit2 *This, mdToken tkParent, PCCOR_SIGNATURE pvSigBlob, ULONG cbSigBlob, \
                                  mdMethodSpec *pmi)) \
    X(HRESULT, GetDeltaSaveSize, (IMetaDataEmit2 *This, CorSaveSize fSave, DWORD *pdwSaveSize)) \
    X(HRESULT, SaveDelta, (IMetaDataEmit2 *This, LPCWSTR szFile, DWORD dwSaveFlags)) \
    X(HRESULT, SaveDeltaToStream, (IMetaDataEmit2 *This, IStream *pIStream, DWORD dwSaveFlags)) \
    X(HRESULT, SaveDeltaToMemory, (IMetaDataEmit2 *This, void *pbData, ULONG cbData)) \
    X(HRESULT, DefineGenericParam, (IMetaDataEmit2 *This, mdToken tk, ULONG ulParamSeq, DWORD dwParamFlags, LPCWSTR szname, \
                                    DWORD reserved, mdToken *rtkConstraints, mdGenericParam *pgp)) \
    X(HRESULT, SetGenericParamProps, (IMetaDataEmit2 *This, mdGenericParam gp, DWORD dwParamFlags, LPCWSTR szName, \
                                      DWORD reserved, mdToken *rtkConstraints)) \
    X(HRESULT, ResetENCLog, (IMetaDataEmit2 *This))

typedef struct IMetaDataEmit2Vtbl {
    AIP_COM_IUNKNOWN_SLOTS(IMetaDataEmit2)
#define AIP_X_SLOT(ret, name, params) ret (STDMETHODCALLTYPE *name) params;
    AIP_MD_EMIT_SLOTS(AIP_X_SLOT)
#undef AIP_X_SLOT
} IMetaDataEmit2Vtbl;

struct IMetaDataEmit2 {
    const IMetaDataEmit2Vtbl *lpVtbl;
};

AIP_PIN_SLOT(IMetaDataEmit2Vtbl, SetModuleProps, 3);
AIP_PIN_SLOT(IMetaDataEmit2Vtbl, DefineMethod, 10);
AIP_PIN_SLOT(IMetaDataEmit2Vtbl, DefineTypeRefByName, 12);
AIP_PIN_SLOT(IMetaDataEmit2Vtbl, DefineMemberRef, 14);
AIP_PIN_SLOT(IMetaDataEmit2Vtbl, GetTokenFromSig, 23);
AIP_PIN_SLOT(IMetaDataEmit2Vtbl, DefineUserString, 28);
AIP_PIN_SLOT(IMetaDataEmit2Vtbl, DefineCustomAttribute, 37);
AIP_PIN_SLOT(IMetaDataEmit2Vtbl, MergeEnd, 51);         /* last of IMetaDataEmit */
AIP_PIN_SLOT(IMetaDataEmit2Vtbl, DefineMethodSpec, 52);
AIP_PIN_SLOT(IMetaDataEmit2Vtbl, ResetENCLog, 59);      /* last of IMetaDataEmit2 */
AIP_PIN_SLOT_COUNT(IMetaDataEmit2Vtbl, 60);

#endif
