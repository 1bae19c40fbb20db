/* An assembly's identity, read from its Assembly row. */
#include "emit/assembly_identity.h"

#include "coreclr/cor_guids.h"

#include <string.h>

alvk_status aip_assembly_identity_read(IMetaDataImport2 *import, aip_assembly_identity *a,
                                       HRESULT *hr)
{
    void *unknown = NULL;
    *hr = import->lpVtbl->QueryInterface(import, &IID_IMetaDataAssemblyImport, &unknown);
    if (FAILED(*hr))
        return ALVK_E_METADATA_FAILED;
    IMetaDataAssemblyImport *assembly = unknown;
    mdAssembly token = 0;
    const void *key = NULL;
    ULONG key_length = 0, hash = 0, name_length = 0;
    DWORD flags = 0;
    ASSEMBLYMETADATA md;
    memset(&md, 0, sizeof md);
    md.szLocale = a->locale;
    md.cbLocale = AIP_ASSEMBLY_LOCALE_UNITS;
    *hr = assembly->lpVtbl->GetAssemblyFromScope(assembly, &token);
    if (SUCCEEDED(*hr))
        *hr =
            assembly->lpVtbl->GetAssemblyProps(assembly, token, &key, &key_length, &hash, a->name,
                                               AIP_ASSEMBLY_NAME_UNITS, &name_length, &md, &flags);
    assembly->lpVtbl->Release(assembly);
    if (FAILED(*hr))
        return ALVK_E_METADATA_FAILED;
    if (name_length <= 1 || name_length > AIP_ASSEMBLY_NAME_UNITS ||
        md.cbLocale > AIP_ASSEMBLY_LOCALE_UNITS || key_length > AIP_ASSEMBLY_KEY_BYTES)
        return ALVK_E_LIMIT_EXCEEDED;
    a->name[name_length - 1] = 0;
    if (md.cbLocale == 0)
        a->locale[0] = 0;
    else
        a->locale[md.cbLocale - 1] = 0;
    a->version[0] = md.usMajorVersion;
    a->version[1] = md.usMinorVersion;
    a->version[2] = md.usBuildNumber;
    a->version[3] = md.usRevisionNumber;
    a->public_key_length = key_length;
    if (key_length > 0)
        memcpy(a->public_key, key, key_length);
    a->flags = key_length > 0 ? afPublicKey : 0;
    return ALVK_OK;
}
