/* IMetaDataAssemblyImport and IMetaDataAssemblyEmit, slots in cor.h order. Both are
 * QueryInterface'd from the module's IMetaDataImport2 / IMetaDataEmit2. */
#ifndef AIP_CORECLR_COR_METADATA_ASSEMBLY_H
#define AIP_CORECLR_COR_METADATA_ASSEMBLY_H

#include "coreclr/cor_metadata_defs.h"

#define AIP_MD_ASSEMBLY_IMPORT_SLOTS(X) \
    X(HRESULT, GetAssemblyProps, (IMetaDataAssemblyImport *This, mdAssembly mda, const void **ppbPublicKey, \
                                  ULONG *pcbPublicKey, ULONG *pulHashAlgId, LPWSTR szName, ULONG cchName, ULONG *pchName, \
                                  ASSEMBLYMETADATA *pMetaData, DWORD *pdwAssemblyFlags)) \
    X(HRESULT, GetAssemblyRefProps, (IMetaDataAssemblyImport *This, mdAssemblyRef mdar, const void **ppbPublicKeyOrToken, \
                                     ULONG *pcbPublicKeyOrToken, LPWSTR szName, ULONG cchName, ULONG *pchName, \
                                     ASSEMBLYMETADATA *pMetaData, const void **ppbHashValue, ULONG *pcbHashValue, \
                                     DWORD *pdwAssemblyRefFlags)) \
    X(HRESULT, GetFileProps, (IMetaDataAssemblyImport *This, mdFile mdf, LPWSTR szName, ULONG cchName, ULONG *pchName, \
                              const void **ppbHashValue, ULONG *pcbHashValue, DWORD *pdwFileFlags)) \
    X(HRESULT, GetExportedTypeProps, (IMetaDataAssemblyImport *This, mdExportedType mdct, LPWSTR szName, ULONG cchName, \
                                      ULONG *pchName, mdToken *ptkImplementation, mdTypeDef *ptkTypeDef, \
                                      DWORD *pdwExportedTypeFlags)) \
    X(HRESULT, GetManifestResourceProps, (IMetaDataAssemblyImport *This, mdManifestResource mdmr, LPWSTR szName, \
                                          ULONG cchName, ULONG *pchName, mdToken *ptkImplementation, DWORD *pdwOffset, \
                                          DWORD *pdwResourceFlags)) \
    X(HRESULT, EnumAssemblyRefs, (IMetaDataAssemblyImport *This, HCORENUM *phEnum, mdAssemblyRef *rAssemblyRefs, ULONG cMax, \
                                  ULONG *pcTokens)) \
    X(HRESULT, EnumFiles, (IMetaDataAssemblyImport *This, HCORENUM *phEnum, mdFile *rFiles, ULONG cMax, ULONG *pcTokens)) \
    X(HRESULT, EnumExportedTypes, (IMetaDataAssemblyImport *This, HCORENUM *phEnum, mdExportedType *rExportedTypes, \
                                   ULONG cMax, ULONG *pcTokens)) \
    X(HRESULT, EnumManifestResources, (IMetaDataAssemblyImport *This, HCORENUM *phEnum, \
                                       mdManifestResource *rManifestResources, ULONG cMax, ULONG *pcTokens)) \
    X(HRESULT, GetAssemblyFromScope, (IMetaDataAssemblyImport *This, mdAssembly *ptkAssembly)) \
    X(HRESULT, FindExportedTypeByName, (IMetaDataAssemblyImport *This, LPCWSTR szName, mdToken mdtExportedTypeScope, \
                                        mdExportedType *ptkExportedType)) \
    X(HRESULT, FindManifestResourceByName, (IMetaDataAssemblyImport *This, LPCWSTR szName, \
                                            mdManifestResource *ptkManifestResource)) \
    X(void, CloseEnum, (IMetaDataAssemblyImport *This, HCORENUM hEnum)) \
    X(HRESULT, FindAssembliesByName, (IMetaDataAssemblyImport *This, LPCWSTR szAppBase, LPCWSTR szPrivateBin, \
                                      LPCWSTR szAssemblyName, IUnknown **ppIUnk, ULONG cMax, ULONG *pcAssemblies))

typedef struct IMetaDataAssemblyImportVtbl {
    AIP_COM_IUNKNOWN_SLOTS(IMetaDataAssemblyImport)
#define AIP_X_SLOT(ret, name, params) ret (STDMETHODCALLTYPE *name) params;
    AIP_MD_ASSEMBLY_IMPORT_SLOTS(AIP_X_SLOT)
#undef AIP_X_SLOT
} IMetaDataAssemblyImportVtbl;

struct IMetaDataAssemblyImport {
    const IMetaDataAssemblyImportVtbl *lpVtbl;
};

AIP_PIN_SLOT(IMetaDataAssemblyImportVtbl, GetAssemblyProps, 3);
AIP_PIN_SLOT(IMetaDataAssemblyImportVtbl, EnumAssemblyRefs, 8);
AIP_PIN_SLOT(IMetaDataAssemblyImportVtbl, CloseEnum, 15);
AIP_PIN_SLOT(IMetaDataAssemblyImportVtbl, FindAssembliesByName, 16); /* last */
AIP_PIN_SLOT_COUNT(IMetaDataAssemblyImportVtbl, 17);

#define AIP_MD_ASSEMBLY_EMIT_SLOTS(X) \
    X(HRESULT, DefineAssembly, (IMetaDataAssemblyEmit *This, const void *pbPublicKey, ULONG cbPublicKey, ULONG ulHashAlgId, \
                                LPCWSTR szName, const ASSEMBLYMETADATA *pMetaData, DWORD dwAssemblyFlags, mdAssembly *pma)) \
    X(HRESULT, DefineAssemblyRef, (IMetaDataAssemblyEmit *This, const void *pbPublicKeyOrToken, ULONG cbPublicKeyOrToken, \
                                   LPCWSTR szName, const ASSEMBLYMETADATA *pMetaData, const void *pbHashValue, \
                                   ULONG cbHashValue, DWORD dwAssemblyRefFlags, mdAssemblyRef *pmdar)) \
    X(HRESULT, DefineFile, (IMetaDataAssemblyEmit *This, LPCWSTR szName, const void *pbHashValue, ULONG cbHashValue, \
                            DWORD dwFileFlags, mdFile *pmdf)) \
    X(HRESULT, DefineExportedType, (IMetaDataAssemblyEmit *This, LPCWSTR szName, mdToken tkImplementation, \
                                    mdTypeDef tkTypeDef, DWORD dwExportedTypeFlags, mdExportedType *pmdct)) \
    X(HRESULT, DefineManifestResource, (IMetaDataAssemblyEmit *This, LPCWSTR szName, mdToken tkImplementation, \
                                        DWORD dwOffset, DWORD dwResourceFlags, mdManifestResource *pmdmr)) \
    X(HRESULT, SetAssemblyProps, (IMetaDataAssemblyEmit *This, mdAssembly pma, const void *pbPublicKey, ULONG cbPublicKey, \
                                  ULONG ulHashAlgId, LPCWSTR szName, const ASSEMBLYMETADATA *pMetaData, \
                                  DWORD dwAssemblyFlags)) \
    X(HRESULT, SetAssemblyRefProps, (IMetaDataAssemblyEmit *This, mdAssemblyRef ar, const void *pbPublicKeyOrToken, \
                                     ULONG cbPublicKeyOrToken, LPCWSTR szName, const ASSEMBLYMETADATA *pMetaData, \
                                     const void *pbHashValue, ULONG cbHashValue, DWORD dwAssemblyRefFlags)) \
    X(HRESULT, SetFileProps, (IMetaDataAssemblyEmit *This, mdFile file, const void *pbHashValue, ULONG cbHashValue, \
                              DWORD dwFileFlags)) \
    X(HRESULT, SetExportedTypeProps, (IMetaDataAssemblyEmit *This, mdExportedType ct, mdToken tkImplementation, \
                                      mdTypeDef tkTypeDef, DWORD dwExportedTypeFlags)) \
    X(HRESULT, SetManifestResourceProps, (IMetaDataAssemblyEmit *This, mdManifestResource mr, mdToken tkImplementation, \
                                          DWORD dwOffset, DWORD dwResourceFlags))

typedef struct IMetaDataAssemblyEmitVtbl {
    AIP_COM_IUNKNOWN_SLOTS(IMetaDataAssemblyEmit)
#define AIP_X_SLOT(ret, name, params) ret (STDMETHODCALLTYPE *name) params;
    AIP_MD_ASSEMBLY_EMIT_SLOTS(AIP_X_SLOT)
#undef AIP_X_SLOT
} IMetaDataAssemblyEmitVtbl;

struct IMetaDataAssemblyEmit {
    const IMetaDataAssemblyEmitVtbl *lpVtbl;
};

AIP_PIN_SLOT(IMetaDataAssemblyEmitVtbl, DefineAssembly, 3);
AIP_PIN_SLOT(IMetaDataAssemblyEmitVtbl, DefineAssemblyRef, 4);
AIP_PIN_SLOT(IMetaDataAssemblyEmitVtbl, SetManifestResourceProps, 12); /* last */
AIP_PIN_SLOT_COUNT(IMetaDataAssemblyEmitVtbl, 13);

#endif
