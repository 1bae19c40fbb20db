/* A module's assembly metadata for the native tests: IMetaDataAssemblyImport (the module's own
 * Assembly row and two AssemblyRefs: System.Runtime and `second_ref`) and IMetaDataAssemblyEmit
 * (DefineAssemblyRef, recorded). One object per test world; each method finds it from its
 * interface pointer (`This`), as a COM object in C does. Include after cmocka.h. */
#ifndef AIP_TEST_FAKE_ASSEMBLY_METADATA_H
#define AIP_TEST_FAKE_ASSEMBLY_METADATA_H

#include "coreclr/cor_metadata.h"

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

#endif
