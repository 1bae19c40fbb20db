/* A module's metadata for the native tests. Its assembly part: IMetaDataAssemblyImport (the
 * module's own Assembly row and two AssemblyRefs: System.Runtime and `second_ref`) and
 * IMetaDataAssemblyEmit (DefineAssemblyRef, recorded). Its module part (fake_module): the
 * runtime's GetModuleMetaData, IL body allocator, SetILFunctionBody and ApplyMetaData over one
 * module, whose IMetaDataImport2 reads a table of TypeDefs, TypeRefs and MethodDefs and whose
 * IMetaDataEmit2 adds nested types and methods to it (so a later lookup finds them). One object
 * per test world; each method finds it from its interface pointer (`This`), as a COM object in
 * C does. Include after cmocka.h. */
#ifndef AIP_TEST_FAKE_ASSEMBLY_METADATA_H
#define AIP_TEST_FAKE_ASSEMBLY_METADATA_H

#include "coreclr/cor_metadata.h"
#include "coreclr/corprof_control.h"
#include "coreclr/corprof_info.h"

#include <stdint.h>

#define FAKE_SYSTEM_RUNTIME_REF 0x23000001u
#define FAKE_SECOND_REF 0x23000002u
#define FAKE_FIRST_DEFINED_REF 0x23000011u /* DefineAssemblyRef's first token */

typedef struct fake_assemblies {
    IMetaDataAssemblyImport import; /* what the emit interface's QueryInterface gives */
    IMetaDataAssemblyEmit emit;
    /* The module's own Assembly row. */
    const char *name;
    const uint8_t *public_key; /* NULL: none */
    ULONG public_key_length;
    const char *locale; /* NULL: neutral */
    DWORD flags;
    ULONG name_units;    /* the length GetAssemblyProps reports, or 0: the name's own */
    HRESULT identity_hr; /* GetAssemblyFromScope's */
    const char *second_ref; /* the second AssemblyRef's name */
    /* DefineAssemblyRef: refused with define_hr when it is a failure, else recorded. */
    HRESULT define_hr;
    uint32_t defines;
    WCHAR defined_name[64];
    ASSEMBLYMETADATA defined_md; /* its szLocale is NULL: the locale is in defined_locale */
    WCHAR defined_locale[16];
    uint8_t defined_key[16];
    ULONG defined_key_length;
    DWORD defined_flags;
} fake_assemblies;

/* Version 1.2.3.4, hash algorithm 0x8004, and `name` and `second_ref` as given. */
void fake_assemblies_init(fake_assemblies *f, const char *name, const char *second_ref);

/* `in` (ASCII) as UTF-16 into out[capacity], terminated; *length (if not NULL) counts the
 * terminating 0, as the runtime counts. */
void fake_widen(const char *in, WCHAR *out, ULONG capacity, ULONG *length);

/* ---- the module part ------------------------------------------------------------------------ */

#define FAKE_MODULE_ROWS 16
#define FAKE_FIRST_DEFINED_TYPE 0x02000101u   /* DefineNestedType's first token */
#define FAKE_FIRST_DEFINED_METHOD 0x06000101u /* DefineMethod's first token */

typedef struct fake_type_def {
    mdTypeDef token;
    char name[64];
    DWORD flags;
    mdToken base;
    mdTypeDef encloser; /* 0: not nested */
    ULONG generic_params;
} fake_type_def;

typedef struct fake_type_ref {
    mdTypeRef token;
    char name[64];
} fake_type_ref;

typedef struct fake_method_def {
    mdMethodDef token;
    mdTypeDef owner;
    char name[64];
    DWORD flags;
    DWORD impl_flags;
    uint8_t sig[64];
    ULONG sig_size;
    ULONG generic_params;
    uint8_t *body; /* SetILFunctionBody's, in allocator memory; NULL: none set */
} fake_method_def;

typedef struct fake_module {
    ICorProfilerInfo15 info;
    IMetaDataEmit2 emit;
    IMetaDataImport2 import;
    IMethodMalloc allocator;
    fake_assemblies assemblies; /* what the import's QueryInterface gives for the assembly's */
    fake_type_def types[FAKE_MODULE_ROWS];
    uint32_t type_count;
    fake_type_ref refs[FAKE_MODULE_ROWS];
    uint32_t ref_count;
    fake_method_def methods[FAKE_MODULE_ROWS];
    uint32_t method_count;
    uint32_t defined_types, defined_methods, applies, metadata_opens;
    HRESULT metadata_hr; /* GetModuleMetaData's when a failure */
    void *allocations[FAKE_MODULE_ROWS]; /* the allocator's, freed by fake_module_free */
    uint32_t allocation_count;
} fake_module;

void fake_module_init(fake_module *m);
void fake_module_free(fake_module *m);

void fake_module_type_def(fake_module *m, mdTypeDef token, const char *name, DWORD flags,
                          mdToken base, mdTypeDef encloser);
void fake_module_type_ref(fake_module *m, mdTypeRef token, const char *name);
/* Its row, to adjust (generic_params); the signature is copied. */
fake_method_def *fake_module_method_def(fake_module *m, mdMethodDef token, mdTypeDef owner,
                                        const char *name, DWORD flags, const uint8_t *sig,
                                        ULONG sig_size);

/* The row of a TypeDef or MethodDef token, or NULL. */
fake_type_def *fake_module_find_type(fake_module *m, mdTypeDef token);
fake_method_def *fake_module_find_method(fake_module *m, mdMethodDef token);

#endif
