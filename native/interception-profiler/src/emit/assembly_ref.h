/* The direct-call path's AssemblyRef (ABI 3.4): the target's module's reference to the
 * replacement's assembly, found (an AssemblyRef of the module with the same name) or defined
 * through IMetaDataAssemblyEmit, and cached per module epoch in the emitter's token cache
 * beside the relocations' tokens. The TypeRefs and the MemberRef that follow it are
 * relocations of the dispatch generation (relocation_emit.h), so they are emitted, cached,
 * recorded and member-checked as every generation's. Runs on the worker. */
#ifndef AIP_ASSEMBLY_REF_H
#define AIP_ASSEMBLY_REF_H

#include "emit/relocation_emit.h"
#include "emit/replacement_read.h"

/* The token cache's kind for AssemblyRefs: the table's, never a relocation kind. */
#define AIP_TOKEN_KIND_ASSEMBLY_REF 0x23000000u

/* *token: an AssemblyRef of `module` naming `assembly`. A module's existing AssemblyRef with
 * the same name (compared without regard to ASCII case, as the binder does) is reused;
 * otherwise one is defined with the assembly's version, culture and public key (its
 * metadata is applied with the generation's, by aip_emit_generation, since its TypeRefs are
 * new). ALVK_E_METADATA_EMIT_FAILED with the HRESULT in *hr when the module's metadata
 * cannot be opened or the definition fails. */
alvk_status aip_emit_assembly_ref(aip_emitter *e, ModuleID module,
                                  const aip_assembly_identity *assembly, uint32_t *token,
                                  HRESULT *hr);

#endif
