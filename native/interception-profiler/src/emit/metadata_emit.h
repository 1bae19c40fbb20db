/* Emitting one relocation's token into a loaded module through IMetaDataEmit2. */
#ifndef AIP_METADATA_EMIT_H
#define AIP_METADATA_EMIT_H

#include "alvorkit_interception_profiler.h"
#include "coreclr/cor_metadata.h"

#include <stddef.h>

/* Emits (or finds, as the emitter deduplicates) the token for kind/parent/name/blob. The
 * name is UTF-8; invalid UTF-8 or a name over 1023 UTF-16 units is
 * ALVK_E_RELOCATION_MALFORMED. A failing emitter call is ALVK_E_METADATA_EMIT_FAILED with
 * its HRESULT in *hr. */
alvk_status aip_emit_relocation(IMetaDataEmit2 *emit, alvk_relocation_kind kind, uint32_t parent,
                                const uint8_t *name, size_t name_length, const uint8_t *blob,
                                size_t blob_length, uint32_t *token, HRESULT *hr);

/* A USER_STRING relocation (ABI 3.3): DefineUserString with the string whose UTF-16LE code
 * units are utf16le[0 .. length), which must be 2-byte aligned and is decoded in place (the
 * caller's scratch copy). An odd length is ALVK_E_RELOCATION_MALFORMED; a failing call
 * ALVK_E_METADATA_EMIT_FAILED with *hr. */
alvk_status aip_emit_user_string(IMetaDataEmit2 *emit, uint8_t *utf16le, size_t length,
                                 uint32_t *token, HRESULT *hr);

#endif
