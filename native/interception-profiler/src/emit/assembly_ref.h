/* The AssemblyRefs a generation needs: the target's module's reference to another assembly,
 * found (an AssemblyRef of the module with the same name) or defined through
 * IMetaDataAssemblyEmit, and cached per module epoch in the emitter's token cache beside the
 * relocations' tokens. Two users: the direct-call path (ABI 3.4: the replacement's assembly)
 * and the ASSEMBLY_REF relocation (ABI 3.6: the assembly of a module named by its
 * module_id). The TypeRefs and MemberRefs under it are relocations (relocation_emit.h), so
 * they are emitted, cached, recorded and member-checked as every generation's. Runs on the
 * worker. */
#ifndef AIP_ASSEMBLY_REF_H
#define AIP_ASSEMBLY_REF_H

#include "catalog/module_catalog.h"
#include "emit/assembly_identity.h"
#include "emit/emitter.h"

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

/* How aip_emit_module_assembly_ref got its token. */
typedef struct aip_assembly_ref_outcome {
    uint32_t token;
    uint8_t reused;  /* from the cache: an earlier generation of this module epoch */
    uint8_t defined; /* defined now (its metadata still to apply) */
} aip_assembly_ref_outcome;

/* ABI 3.6, the ASSEMBLY_REF relocation: the AssemblyRef of `module` to the assembly of the
 * catalogued module `assembly_module` (a module_id of alvk_module_identify), its identity
 * read from that module's metadata (assembly_identity.h), then as aip_emit_assembly_ref.
 * As aip_catalog_find_copy says for a module_id no live load has (ALVK_E_UNKNOWN_MODULE,
 * ALVK_E_MODULE_UNLOADED; catalog NULL: ALVK_E_UNKNOWN_MODULE); ALVK_E_MODULE_COLLECTIBLE
 * (a non-collectible module cannot reference it); ALVK_E_METADATA_EMIT_FAILED with the
 * HRESULT in *hr when the identity cannot be read (or exceeds its bounds: *hr S_OK) or the
 * definition fails. */
alvk_status aip_emit_module_assembly_ref(aip_emitter *e, aip_module_catalog *catalog,
                                         ModuleID module, uint64_t assembly_module,
                                         aip_assembly_ref_outcome *out, HRESULT *hr);

#endif
