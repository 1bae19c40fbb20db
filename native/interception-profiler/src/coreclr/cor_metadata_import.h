/* IMetaDataImport + IMetaDataImport2 as ONE flat vtable, slots in cor.h order.
 * Obtain it with GetModuleMetaData(..., ofRead, &IID_IMetaDataImport2, ...). */
#ifndef AIP_CORECLR_COR_METADATA_IMPORT_H
#define AIP_CORECLR_COR_METADATA_IMPORT_H

#include "coreclr/cor_metadata_defs.h"

#define AIP_MD_IMPORT_SLOTS(X) \
    /* IMetaDataImport: slots 3..64 */ \
    X(void, CloseEnum, (IMetaDataImport2 *This, HCORENUM hEnum)) \
    X(HRESULT, CountEnum, (IMetaDataImport2 *This, HCORENUM hEnum, ULONG *pulCount)) \
    X(HRESULT, ResetEnum, (IMetaDataImport2 *This, HCORENUM hEnum, ULONG ulPos)) \
    X(HRESULT, EnumTypeDefs, (IMetaDataImport2 *This, HCORENUM *phEnum, mdTypeDef *rTypeDefs, ULONG cMax, ULONG *pcTypeDefs)) \
    X(HRESULT, EnumInterfaceImpls, (IMetaDataImport2 *This, HCORENUM *phEnum, mdTypeDef td, mdInterfaceImpl *rImpls, \
                                    ULONG cMax, ULONG *pcImpls)) \
    X(HRESULT, EnumTypeRefs, (IMetaDataImport2 *This, HCORENUM *phEnum, mdTypeRef *rTypeRefs, ULONG cMax, ULONG *pcTypeRefs)) \
    X(HRESULT, FindTypeDefByName, (IMetaDataImport2 *This, LPCWSTR szTypeDef, mdToken tkEnclosingClass, mdTypeDef *ptd)) \
    X(HRESULT, GetScopeProps, (IMetaDataImport2 *This, LPWSTR szName, ULONG cchName, ULONG *pchName, GUID *pmvid)) \
    X(HRESULT, GetModuleFromScope, (IMetaDataImport2 *This, mdModule *pmd)) \
    X(HRESULT, GetTypeDefProps, (IMetaDataImport2 *This, mdTypeDef td, LPWSTR szTypeDef, ULONG cchTypeDef, \
                                 ULONG *pchTypeDef, DWORD *pdwTypeDefFlags, mdToken *ptkExtends)) \
    X(HRESULT, GetInterfaceImplProps, (IMetaDataImport2 *This, mdInterfaceImpl iiImpl, mdTypeDef *pClass, mdToken *ptkIface)) \
    X(HRESULT, GetTypeRefProps, (IMetaDataImport2 *This, mdTypeRef tr, mdToken *ptkResolutionScope, LPWSTR szName, \
                                 ULONG cchName, ULONG *pchName)) \
    X(HRESULT, ResolveTypeRef, (IMetaDataImport2 *This, mdTypeRef tr, REFIID riid, IUnknown **ppIScope, mdTypeDef *ptd)) \
    X(HRESULT, EnumMembers, (IMetaDataImport2 *This, HCORENUM *phEnum, mdTypeDef cl, mdToken *rMembers, ULONG cMax, \
                             ULONG *pcTokens)) \
    X(HRESULT, EnumMembersWithName, (IMetaDataImport2 *This, HCORENUM *phEnum, mdTypeDef cl, LPCWSTR szName, \
                                     mdToken *rMembers, ULONG cMax, ULONG *pcTokens)) \
    X(HRESULT, EnumMethods, (IMetaDataImport2 *This, HCORENUM *phEnum, mdTypeDef cl, mdMethodDef *rMethods, ULONG cMax, \
                             ULONG *pcTokens)) \
    X(HRESULT, EnumMethodsWithName, (IMetaDataImport2 *This, HCORENUM *phEnum, mdTypeDef cl, LPCWSTR szName, \
                                     mdMethodDef *rMethods, ULONG cMax, ULONG *pcTokens)) \
    X(HRESULT, EnumFields, (IMetaDataImport2 *This, HCORENUM *phEnum, mdTypeDef cl, mdFieldDef *rFields, ULONG cMax, \
                            ULONG *pcTokens)) \
    X(HRESULT, EnumFieldsWithName, (IMetaDataImport2 *This, HCORENUM *phEnum, mdTypeDef cl, LPCWSTR szName, \
                                    mdFieldDef *rFields, ULONG cMax, ULONG *pcTokens)) \
    X(HRESULT, EnumParams, (IMetaDataImport2 *This, HCORENUM *phEnum, mdMethodDef mb, mdParamDef *rParams, ULONG cMax, \
                            ULONG *pcTokens)) \
    X(HRESULT, EnumMemberRefs, (IMetaDataImport2 *This, HCORENUM *phEnum, mdToken tkParent, mdMemberRef *rMemberRefs, \
                                ULONG cMax, ULONG *pcTokens)) \
    X(HRESULT, EnumMethodImpls, (IMetaDataImport2 *This, HCORENUM *phEnum, mdTypeDef td, mdToken *rMethodBody, \
                                 mdToken *rMethodDecl, ULONG cMax, ULONG *pcTokens)) \
    X(HRESULT, EnumPermissionSets, (IMetaDataImport2 *This, HCORENUM *phEnum, mdToken tk, DWORD dwActions, \
                                    mdPermission *rPermission, ULONG cMax, ULONG *pcTokens)) \
    X(HRESULT, FindMember, (IMetaDataImport2 *This, mdTypeDef td, LPCWSTR szName, PCCOR_SIGNATURE pvSigBlob, \
                            ULONG cbSigBlob, mdToken *pmb)) \
    X(HRESULT, FindMethod, (IMetaDataImport2 *This, mdTypeDef td, LPCWSTR szName, PCCOR_SIGNATURE pvSigBlob, \
                            ULONG cbSigBlob, mdMethodDef *pmb)) \
    X(HRESULT, FindField, (IMetaDataImport2 *This, mdTypeDef td, LPCWSTR szName, PCCOR_SIGNATURE pvSigBlob, \
                           ULONG cbSigBlob, mdFieldDef *pmb)) \
    X(HRESULT, FindMemberRef, (IMetaDataImport2 *This, mdTypeRef td, LPCWSTR szName, PCCOR_SIGNATURE pvSigBlob, \
                               ULONG cbSigBlob, mdMemberRef *pmr)) \
    X(HRESULT, GetMethodProps, (IMetaDataImport2 *This, mdMethodDef mb, mdTypeDef *pClass, LPWSTR szMethod, \
                                ULONG cchMethod, ULONG *pchMethod, DWORD *pdwAttr, PCCOR_SIGNATURE *ppvSigBlob, \
                                ULONG *pcbSigBlob, ULONG *pulCodeRVA, DWORD *pdwImplFlags)) \
    X(HRESULT, GetMemberRefProps, (IMetaDataImport2 *This, mdMemberRef mr, mdToken *ptk, LPWSTR szMember, \
                                   ULONG cchMember, ULONG *pchMember, PCCOR_SIGNATURE *ppvSigBlob, ULONG *pbSig)) \
    X(HRESULT, EnumProperties, (IMetaDataImport2 *This, HCORENUM *phEnum, mdTypeDef td, mdProperty *rProperties, \
                                ULONG cMax, ULONG *pcProperties)) \
    X(HRESULT, EnumEvents, (IMetaDataImport2 *This, HCORENUM *phEnum, mdTypeDef td, mdEvent *rEvents, ULONG cMax, \
                            ULONG *pcEvents)) \
    /* szEvent is an output buffer (cor.h spells it LPCWSTR). */ \
    X(HRESULT, GetEventProps, (IMetaDataImport2 *This, mdEvent ev, mdTypeDef *pClass, LPWSTR szEvent, ULONG cchEvent, \
                               ULONG *pchEvent, DWORD *pdwEventFlags, mdToken *ptkEventType, mdMethodDef *pmdAddOn, \
                               mdMethodDef *pmdRemoveOn, mdMethodDef *pmdFire, mdMethodDef *rmdOtherMethod, ULONG cMax, \
                               ULONG *pcOtherMethod)) \
    X(HRESULT, EnumMethodSemantics, (IMetaDataImport2 *This, HCORENUM *phEnum, mdMethodDef mb, mdToken *rEventProp, \
                                     ULONG cMax, ULONG *pcEventProp)) \
    X(HRESULT, GetMethodSemantics, (IMetaDataImport2 *This, mdMethodDef mb, mdToken tkEventProp, DWORD *pdwSemanticsFlags)) \
    X(HRESULT, GetClassLayout, (IMetaDataImport2 *This, mdTypeDef td, DWORD *pdwPackSize, COR_FIELD_OFFSET *rFieldOffset, \
                                ULONG cMax, ULONG *pcFieldOffset, ULONG *pulClassSize)) \
    X(HRESULT, GetFieldMarshal, (IMetaDataImport2 *This, mdToken tk, PCCOR_SIGNATURE *ppvNativeType, ULONG *pcbNativeType)) \
    X(HRESULT, GetRVA, (IMetaDataImport2 *This, mdToken tk, ULONG *pulCodeRVA, DWORD *pdwImplFlags)) \
    X(HRESULT, GetPermissionSetProps, (IMetaDataImport2 *This, mdPermission pm, DWORD *pdwAction, \
                                       const void **ppvPermission, ULONG *pcbPermission)) \
    X(HRESULT, GetSigFromToken, (IMetaDataImport2 *This, mdSignature mdSig, PCCOR_SIGNATURE *ppvSig, ULONG *pcbSig)) \
    X(HRESULT, GetModuleRefProps, (IMetaDataImport2 *This, mdModuleRef mur, LPWSTR szName, ULONG cchName, ULONG *pchName)) \
    X(HRESULT, EnumModuleRefs, (IMetaDataImport2 *This, HCORENUM *phEnum, mdModuleRef *rModuleRefs, ULONG cMax, \
                                ULONG *pcModuleRefs)) \
    X(HRESULT, GetTypeSpecFromToken, (IMetaDataImport2 *This, mdTypeSpec typespec, PCCOR_SIGNATURE *ppvSig, ULONG *pcbSig)) \
    X(HRESULT, GetNameFromToken, (IMetaDataImport2 *This, mdToken tk, MDUTF8CSTR *pszUtf8NamePtr)) \
    X(HRESULT, EnumUnresolvedMethods, (IMetaDataImport2 *This, HCORENUM *phEnum, mdToken *rMethods, ULONG cMax, \
                                       ULONG *pcTokens)) \
    X(HRESULT, GetUserString, (IMetaDataImport2 *This, mdString stk, LPWSTR szString, ULONG cchString, ULONG *pchString)) \
    X(HRESULT, GetPinvokeMap, (IMetaDataImport2 *This, mdToken tk, DWORD *pdwMappingFlags, LPWSTR szImportName, \
                               ULONG cchImportName, ULONG *pchImportName, mdModuleRef *pmrImportDLL)) \
    X(HRESULT, EnumSignatures, (IMetaDataImport2 *This, HCORENUM *phEnum, mdSignature *rSignatures, ULONG cMax, \
                                ULONG *pcSignatures)) \
    X(HRESULT, EnumTypeSpecs, (IMetaDataImport2 *This, HCORENUM *phEnum, mdTypeSpec *rTypeSpecs, ULONG cMax, \
                               ULONG *pcTypeSpecs)) \
    X(HRESULT, EnumUserStrings, (IMetaDataImport2 *This, HCORENUM *phEnum, mdString *rStrings, ULONG cMax, ULONG *pcStrings)) \
    X(HRESULT, GetParamForMethodIndex, (IMetaDataImport2 *This, mdMethodDef md, ULONG ulParamSeq, mdParamDef *ppd)) \
    X(HRESULT, EnumCustomAttributes, (IMetaDataImport2 *This, HCORENUM *phEnum, mdToken tk, mdToken tkType, \
                                      mdCustomAttribute *rCustomAttributes, ULONG cMax, ULONG *pcCustomAttributes)) \
    X(HRESULT, GetCustomAttributeProps, (IMetaDataImport2 *This, mdCustomAttribute cv, mdToken *ptkObj, mdToken *ptkType, \
                                         const void **ppBlob, ULONG *pcbSize)) \
    X(HRESULT, FindTypeRef, (IMetaDataImport2 *This, mdToken tkResolutionScope, LPCWSTR szName, mdTypeRef *ptr)) \
    X(HRESULT, GetMemberProps, (IMetaDataImport2 *This, mdToken mb, mdTypeDef *pClass, LPWSTR szMember, ULONG cchMember, \
                                ULONG *pchMember, DWORD *pdwAttr, PCCOR_SIGNATURE *ppvSigBlob, ULONG *pcbSigBlob, \
                                ULONG *pulCodeRVA, DWORD *pdwImplFlags, DWORD *pdwCPlusTypeFlag, UVCP_CONSTANT *ppValue, \
                                ULONG *pcchValue)) \
    X(HRESULT, GetFieldProps, (IMetaDataImport2 *This, mdFieldDef mb, mdTypeDef *pClass, LPWSTR szField, ULONG cchField, \
                               ULONG *pchField, DWORD *pdwAttr, PCCOR_SIGNATURE *ppvSigBlob, ULONG *pcbSigBlob, \
                               DWORD *pdwCPlusTypeFlag, UVCP_CONSTANT *ppValue, ULONG *pcchValue)) \
    /* szProperty is an output buffer (cor.h spells it LPCWSTR). */ \
    X(HRESULT, GetPropertyProps, (IMetaDataImport2 *This, mdProperty prop, mdTypeDef *pClass, LPWSTR szProperty, \
                                  ULONG cchProperty, ULONG *pchProperty, DWORD *pdwPropFlags, PCCOR_SIGNATURE *ppvSig, \
                                  ULONG *pbSig, DWORD *pdwCPlusTypeFlag, UVCP_CONSTANT *ppDefaultValue, \
                                  ULONG *pcchDefaultValue, mdMethodDef *pmdSetter, mdMethodDef *pmdGetter, \
                                  mdMethodDef *rmdOtherMethod, ULONG cMax, ULONG *pcOtherMethod)) \
    X(HRESULT, GetParamProps, (IMetaDataImport2 *This, mdParamDef tk, mdMethodDef *pmd, ULONG *pulSequence, LPWSTR szName, \
                               ULONG cchName, ULONG *pchName, DWORD *pdwAttr, DWORD *pdwCPlusTypeFlag, \
                               UVCP_CONSTANT *ppValue, ULONG *pcchValue)) \
    X(HRESULT, GetCustomAttributeByName, (IMetaDataImport2 *This, mdToken tkObj, LPCWSTR szName, const void **ppData, \
                                          ULONG *pcbData)) \
    X(BOOL, IsValidToken, (IMetaDataImport2 *This, mdToken tk)) \
    X(HRESULT, GetNestedClassProps, (IMetaDataImport2 *This, mdTypeDef tdNestedClass, mdTypeDef *ptdEnclosingClass)) \
    X(HRESULT, GetNativeCallConvFromSig, (IMetaDataImport2 *This, const void *pvSig, ULONG cbSig, ULONG *pCallConv)) \
    X(HRESULT, IsGlobal, (IMetaDataImport2 *This, mdToken pd, int *pbGlobal)) \
    /* IMetaDataImport2: slots 65..72 */ \
    X(HRESULT, EnumGenericParams, (IMetaDataImport2 *This, HCORENUM *phEnum, mdToken tk, mdGenericParam *rGenericParams, \
                                   ULONG cMax, ULONG *pcGenericParams)) \
    X(HRESULT, GetGenericParamProps, (IMetaDataImport2 *This, mdGenericParam gp, ULONG *pulParamSeq, DWORD *pdwParamFlags, \
                                      mdToken *ptOwner, DWORD *reserved, LPWSTR wzname, ULONG cchName, ULONG *pchName)) \
    X(HRESULT, GetMethodSpecProps, (IMetaDataImport2 *This, mdMethodSpec mi, mdToken *tkParent, PCCOR_SIGNATURE *ppvSigBlob, \
                                    ULONG *pcbSigBlob)) \
    X(HRESULT, EnumGenericParamConstraints, (IMetaDataImport2 *This, HCORENUM *phEnum, mdGenericParam tk, \
                                             mdGenericParamConstraint *rGenericParamConstraints, ULONG cMax, \
                                             ULONG *pcGenericParamConstraints)) \
    X(HRESULT, GetGenericParamConstraintProps, (IMetaDataImport2 *This, mdGenericParamConstraint gpc, \
                                                mdGenericParam *ptGenericParam, mdToken *ptkConstraintType)) \
    X(HRESULT, GetPEKind, (IMetaDataImport2 *This, DWORD *pdwPEKind, DWORD *pdwMachine)) \
    X(HRESULT, GetVersionString, (IMetaDataImport2 *This, LPWSTR pwzBuf, DWORD ccBufSize, DWORD *pccBufSize)) \
    X(HRESULT, EnumMethodSpecs, (IMetaDataImport2 *This, HCORENUM *phEnum, mdToken tk, mdMethodSpec *rMethodSpecs, \
                                 ULONG cMax, ULONG *pcMethodSpecs))

typedef struct IMetaDataImport2Vtbl {
    AIP_COM_IUNKNOWN_SLOTS(IMetaDataImport2)
#define AIP_X_SLOT(ret, name, params) ret (STDMETHODCALLTYPE *name) params;
    AIP_MD_IMPORT_SLOTS(AIP_X_SLOT)
#undef AIP_X_SLOT
} IMetaDataImport2Vtbl;

struct IMetaDataImport2 {
    const IMetaDataImport2Vtbl *lpVtbl;
};

AIP_PIN_SLOT(IMetaDataImport2Vtbl, CloseEnum, 3);
AIP_PIN_SLOT(IMetaDataImport2Vtbl, GetMethodProps, 30);
AIP_PIN_SLOT(IMetaDataImport2Vtbl, GetMemberRefProps, 31);
AIP_PIN_SLOT(IMetaDataImport2Vtbl, GetCustomAttributeByName, 60);
AIP_PIN_SLOT(IMetaDataImport2Vtbl, IsValidToken, 61);
AIP_PIN_SLOT(IMetaDataImport2Vtbl, IsGlobal, 64);          /* last of IMetaDataImport */
AIP_PIN_SLOT(IMetaDataImport2Vtbl, EnumMethodSpecs, 72);   /* last of IMetaDataImport2 */
AIP_PIN_SLOT_COUNT(IMetaDataImport2Vtbl, 73);

#endif
