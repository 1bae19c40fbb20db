/* Base types, HRESULTs and the two COM interfaces every profiler needs, in plain C.
 * Self-contained on purpose: nothing here includes <windows.h>. Sizes follow the
 * Windows LLP64 model on every platform (DWORD/ULONG/LONG are 32 bits). */
#ifndef AIP_CORECLR_COR_TYPES_H
#define AIP_CORECLR_COR_TYPES_H

#include "coreclr/cor_hresults.h" /* HRESULT and its values */

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#  define STDMETHODCALLTYPE __stdcall
#else
#  define STDMETHODCALLTYPE
#endif

/* ---- scalar types ---- */
typedef int32_t BOOL;
typedef int32_t LONG;
typedef uint8_t BYTE;
typedef uint8_t UINT8;
typedef uint16_t USHORT;
typedef uint32_t ULONG;
typedef uint32_t ULONG32;
typedef uint32_t DWORD;
typedef uint32_t UINT;
typedef uint32_t UINT32;
typedef uint64_t ULONG64;
typedef uint64_t UINT64;
typedef uintptr_t UINT_PTR;
typedef uintptr_t ULONG_PTR;
typedef size_t SIZE_T;
typedef void *PVOID;
typedef void *LPVOID;
typedef const void *LPCVOID;
typedef void *HANDLE;
typedef const BYTE *LPCBYTE;
typedef BYTE *LPBYTE;

/* UTF-16 code unit. In C, char16_t is uint_least16_t, so both branches agree. */
#if defined(_WIN32)
typedef wchar_t WCHAR;
#elif defined(__APPLE__)
typedef uint_least16_t WCHAR; /* older Apple SDKs ship no <uchar.h> */
#else
#  include <uchar.h>
typedef char16_t WCHAR;
#endif
typedef const WCHAR *LPCWSTR;
typedef WCHAR *LPWSTR;

/* ---- metadata scalars ---- */
typedef uint8_t COR_SIGNATURE;
typedef const uint8_t *PCCOR_SIGNATURE;
typedef uint8_t *PCOR_SIGNATURE;
typedef void *HCORENUM;
typedef const void *UVCP_CONSTANT;
typedef const char *MDUTF8CSTR;
typedef uint32_t CorElementType; /* an enum in corhdr; always 4 bytes */
typedef uint32_t CorSaveSize;    /* likewise */

typedef uint32_t mdToken;
typedef uint32_t mdModule;
typedef uint32_t mdTypeRef;
typedef uint32_t mdTypeDef;
typedef uint32_t mdFieldDef;
typedef uint32_t mdMethodDef;
typedef uint32_t mdParamDef;
typedef uint32_t mdInterfaceImpl;
typedef uint32_t mdMemberRef;
typedef uint32_t mdCustomAttribute;
typedef uint32_t mdPermission;
typedef uint32_t mdSignature;
typedef uint32_t mdEvent;
typedef uint32_t mdProperty;
typedef uint32_t mdModuleRef;
typedef uint32_t mdTypeSpec;
typedef uint32_t mdAssembly;
typedef uint32_t mdAssemblyRef;
typedef uint32_t mdFile;
typedef uint32_t mdExportedType;
typedef uint32_t mdManifestResource;
typedef uint32_t mdGenericParam;
typedef uint32_t mdMethodSpec;
typedef uint32_t mdGenericParamConstraint;
typedef uint32_t mdString;

/* ---- profiler IDs: opaque pointer-sized handles ---- */
typedef uintptr_t ProcessID;
typedef uintptr_t AssemblyID;
typedef uintptr_t AppDomainID;
typedef uintptr_t ModuleID;
typedef uintptr_t ClassID;
typedef uintptr_t ThreadID;
typedef uintptr_t ContextID;
typedef uintptr_t FunctionID;
typedef uintptr_t ObjectID;
typedef uintptr_t GCHandleID;
typedef uintptr_t ReJITID;
typedef uintptr_t COR_PRF_ELT_INFO;
typedef uintptr_t COR_PRF_FRAME_INFO;

/* ---- GUIDs ---- */
typedef struct GUID {
    uint32_t Data1;
    uint16_t Data2;
    uint16_t Data3;
    uint8_t Data4[8];
} GUID;
typedef GUID IID;
typedef GUID CLSID;
typedef const GUID *REFIID;
typedef const GUID *REFCLSID;
typedef const GUID *REFGUID;
typedef const GUID *LPCGUID;

/* Field layout entry, shared by the profiler and metadata APIs. */
typedef struct COR_FIELD_OFFSET {
    mdFieldDef ridOfField;
    ULONG ulOffset; /* from the ObjectID */
} COR_FIELD_OFFSET;

/* ---- assembly identity (cor.h) ---- */
typedef struct OSINFO {
    DWORD dwOSPlatformId;
    DWORD dwOSMajorVersion;
    DWORD dwOSMinorVersion;
} OSINFO;

typedef struct ASSEMBLYMETADATA {
    USHORT usMajorVersion;
    USHORT usMinorVersion;
    USHORT usBuildNumber;
    USHORT usRevisionNumber;
    LPWSTR szLocale;
    ULONG cbLocale;     /* in: buffer size in WCHARs; out: actual */
    DWORD *rProcessor;
    ULONG ulProcessor;
    OSINFO *rOS;
    ULONG ulOS;
} ASSEMBLYMETADATA;

/* ---- COM plumbing ---- */

/* The three IUnknown slots, for the head of every vtable below. */
#define AIP_COM_IUNKNOWN_SLOTS(Iface) \
    HRESULT (STDMETHODCALLTYPE *QueryInterface)(Iface *This, REFIID riid, void **ppvObject); \
    ULONG (STDMETHODCALLTYPE *AddRef)(Iface *This); \
    ULONG (STDMETHODCALLTYPE *Release)(Iface *This);

/* Fails the build unless `member` is vtable slot `index` (0 = QueryInterface). */
#define AIP_PIN_SLOT(Vtbl, member, index) \
    _Static_assert(offsetof(Vtbl, member) == (index) * sizeof(void *), #Vtbl "." #member " must be slot " #index)

/* Fails the build unless the vtable has exactly `count` slots. */
#define AIP_PIN_SLOT_COUNT(Vtbl, count) \
    _Static_assert(sizeof(Vtbl) == (count) * sizeof(void *), #Vtbl " must have " #count " slots")

typedef struct IUnknown IUnknown;
typedef struct IUnknownVtbl {
    AIP_COM_IUNKNOWN_SLOTS(IUnknown)
} IUnknownVtbl;
struct IUnknown {
    const IUnknownVtbl *lpVtbl;
};

typedef struct IClassFactory IClassFactory;
typedef struct IClassFactoryVtbl {
    AIP_COM_IUNKNOWN_SLOTS(IClassFactory)
    HRESULT (STDMETHODCALLTYPE *CreateInstance)(IClassFactory *This, IUnknown *pUnkOuter, REFIID riid, void **ppv);
    HRESULT (STDMETHODCALLTYPE *LockServer)(IClassFactory *This, BOOL fLock);
} IClassFactoryVtbl;
struct IClassFactory {
    const IClassFactoryVtbl *lpVtbl;
};

AIP_PIN_SLOT(IUnknownVtbl, Release, 2);
AIP_PIN_SLOT(IClassFactoryVtbl, LockServer, 4);
AIP_PIN_SLOT_COUNT(IClassFactoryVtbl, 5);

#endif
