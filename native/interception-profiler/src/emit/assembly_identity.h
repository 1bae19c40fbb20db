/* An assembly's identity as an AssemblyRef to it carries (name, version, culture, public
 * key), read from the Assembly row of one of its modules' metadata: the one reader, for the
 * direct call's replacement (replacement_read.h) and the ASSEMBLY_REF relocation (ABI 3.6,
 * assembly_ref.h). Runs on the worker. */
#ifndef AIP_ASSEMBLY_IDENTITY_H
#define AIP_ASSEMBLY_IDENTITY_H

#include "alvorkit_interception_profiler.h"
#include "coreclr/cor_metadata.h"

#include <stdint.h>

#define AIP_ASSEMBLY_NAME_UNITS 512 /* UTF-16 units with the terminating 0 */
#define AIP_ASSEMBLY_LOCALE_UNITS 128
#define AIP_ASSEMBLY_KEY_BYTES 2048 /* a public key; a token is 8 */

typedef struct aip_assembly_identity {
    WCHAR name[AIP_ASSEMBLY_NAME_UNITS]; /* 0-terminated */
    WCHAR locale[AIP_ASSEMBLY_LOCALE_UNITS];
    uint16_t version[4]; /* major, minor, build, revision */
    uint32_t public_key_length;
    uint32_t flags; /* afPublicKey when public_key holds a full key */
    uint8_t public_key[AIP_ASSEMBLY_KEY_BYTES];
} aip_assembly_identity;

/* *out: the identity of the assembly whose module `import` reads. ALVK_OK;
 * ALVK_E_METADATA_FAILED with the runtime's HRESULT in *hr; ALVK_E_LIMIT_EXCEEDED when the
 * name (or its absence), culture or key do not fit the bounds above. */
alvk_status aip_assembly_identity_read(IMetaDataImport2 *import, aip_assembly_identity *out,
                                       HRESULT *hr);

#endif
