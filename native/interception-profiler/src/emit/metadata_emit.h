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

#endif
