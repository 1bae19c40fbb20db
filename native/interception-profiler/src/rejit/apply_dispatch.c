/* The exact-dispatch body of an install or replace, prepared as a generation. */
#include "rejit/apply_dispatch.h"

#include "emit/assembly_ref.h"
#include "metadata/signature_shape.h"
#include "rejit/rejit_owners.h"
#include "rejit/rejit_state.h"

#include <string.h>

/* Exact dispatch needs one function pointer per target: generic targets (whose IL serves
 * every instantiation) are refused on install and on replace alike. */
static alvk_status check_dispatch_target(const aip_method_target *t, const aip_patch_command *c)
{
    if (c->kind == AIP_PATCH_INSTALL &&
        memcmp(t->description.signature_hash, c->signature_hash, 32) != 0)
        return ALVK_E_SIGNATURE_HASH_MISMATCH;
    if (c->kind == AIP_PATCH_INSTALL &&
        memcmp(t->description.body_identity, c->body_identity, 32) != 0)
        return ALVK_E_BODY_IDENTITY_MISMATCH;
    if (t->description.flags & (ALVK_METHOD_GENERIC | ALVK_METHOD_DECLARING_TYPE_GENERIC))
        return ALVK_E_GENERIC_TARGET_UNSUPPORTED;
    return ALVK_OK;
}

/* The body a dispatch generation carries, and what it is made of. */
typedef struct dispatch_body {
    uint8_t body[AIP_DISPATCH_MAX_BODY_BYTES];
    alvk_relocation relocations[AIP_REPLACEMENT_MAX_NESTING + 1];
    alvk_generation g;
} dispatch_body;

static void generation_of(dispatch_body *d, size_t body_length, const uint8_t *blobs,
                          size_t blobs_size, uint32_t relocation_count)
{
    memset(&d->g, 0, sizeof d->g);
    d->g.size = sizeof d->g;
    d->g.body = d->body;
    d->g.body_size = (uint32_t)body_length;
    d->g.blobs = blobs;
    d->g.blobs_size = (uint32_t)blobs_size;
    d->g.relocations = d->relocations;
    d->g.relocation_count = relocation_count;
}

static alvk_relocation relocation(alvk_relocation_kind kind, uint32_t il_offset,
                                  uint32_t parent_token, uint32_t parent_relocation,
                                  aip_name_span name, uint32_t blob_offset, uint32_t blob_length)
{
    alvk_relocation r = {.size = sizeof r,
                         .kind = kind,
                         .il_offset = il_offset,
                         .parent_token = parent_token,
                         .parent_relocation = parent_relocation,
                         .name_offset = name.offset,
                         .name_length = name.length,
                         .blob_offset = blob_offset,
                         .blob_length = blob_length};
    return r;
}

/* The calli body: one StandAloneSig relocation for its signature. */
static alvk_status build_calli(const aip_dispatch_target *dt, uint64_t replacement,
                               const uint8_t *calli_sig, size_t sig_length, dispatch_body *d)
{
    size_t body_length = 0;
    uint32_t token_offset = 0;
    /* a placeholder token: the relocation writes the real one */
    alvk_status status = aip_dispatch_emit_body(dt, replacement, 0x11000001u, d->body,
                                                sizeof d->body, &body_length, &token_offset);
    if (status != ALVK_OK)
        return status;
    aip_name_span none = {0, 0};
    d->relocations[0] =
        relocation(ALVK_RELOCATION_STANDALONE_SIG, token_offset - AIP_FAT_HEADER_BYTES, 0, 0, none,
                   0, (uint32_t)sig_length);
    generation_of(d, body_length, calli_sig, sig_length, 1);
    return ALVK_OK;
}

/* The direct-call body for the replacement method the command names, in the target's module:
 * its MethodDef when it is the same module, else a MemberRef (the calli signature's) under
 * the TypeRef chain under the AssemblyRef, as relocations. ALVK_OK, or why not (the
 * fallback's reason, with *hr). */
static alvk_status build_direct(const aip_apply_env *env, const aip_patch_command *c,
                                const aip_method_target *target, const aip_dispatch_target *dt,
                                const uint8_t *calli_sig, size_t sig_length, dispatch_body *d,
                                HRESULT *hr)
{
    aip_apply_scratch *x = aip_apply_scratch_of(env);
    aip_module_entry module;
    alvk_status status = aip_assembly_ref_module(env->catalog, c->replacement_module, &module);
    if (status != ALVK_OK)
        return status;
    int same = module.module_id == target->module_id;
    aip_replacement_name *r = &x->replacement;
    status = aip_replacement_read(env->info, module.module_id, c->replacement_token, same, r, hr);
    if (status != ALVK_OK)
        return status;
    size_t body_length = 0;
    uint32_t token_offset = 0;
    if (same) {
        status = aip_dispatch_emit_call_body(dt, c->replacement_token, d->body, sizeof d->body,
                                             &body_length, &token_offset);
        if (status == ALVK_OK)
            generation_of(d, body_length, NULL, 0, 0);
        return status;
    }
    /* The MemberRef carries the calli signature; the runtime binds it only to a method whose
     * signature matches, custom modifiers included. */
    if (aip_signature_shapes_differ(calli_sig, sig_length, r->signature, r->signature_length))
        return ALVK_E_REPLACEMENT_UNSUPPORTED;
    uint32_t assembly_ref = 0;
    status =
        aip_emit_assembly_ref(env->emitter, target->module_id, &r->assembly, &assembly_ref, hr);
    if (status != ALVK_OK)
        return status;
    /* A placeholder MemberRef: its relocation writes the real one. */
    status = aip_dispatch_emit_call_body(dt, 0x0A000001u, d->body, sizeof d->body, &body_length,
                                         &token_offset);
    if (status != ALVK_OK)
        return status;
    memcpy(x->direct_blobs, r->names, r->names_length);
    memcpy(x->direct_blobs + r->names_length, calli_sig, sig_length);
    for (uint32_t i = 0; i < r->type_count; ++i)
        d->relocations[i] = relocation(ALVK_RELOCATION_TYPE_REF, ALVK_RELOCATION_NO_OPERAND,
                                       i == 0 ? assembly_ref : 0, i, r->types[i], 0, 0);
    d->relocations[r->type_count] =
        relocation(ALVK_RELOCATION_MEMBER_REF, token_offset - AIP_FAT_HEADER_BYTES, 0,
                   r->type_count, r->method, r->names_length, (uint32_t)sig_length);
    generation_of(d, body_length, x->direct_blobs, r->names_length + sig_length, r->type_count + 1);
    return ALVK_OK;
}

/* The direct-call body of command `c` prepared into *prepared (its call token in
 * *call_token), or why not: the fallback's reason, with the record's refusal cleared (the
 * calli body is what the record judges then). */
static alvk_status prepare_direct(const aip_apply_env *env, const aip_patch_command *c,
                                  const aip_method_target *target, const aip_dispatch_target *dt,
                                  const uint8_t *calli_sig, size_t sig_length, dispatch_body *d,
                                  HRESULT *hr, aip_refusal *why, aip_prepared_rejit **prepared,
                                  uint32_t *call_token)
{
    alvk_status status = build_direct(env, c, target, dt, calli_sig, sig_length, d, hr);
    if (status == ALVK_OK)
        status = aip_apply_prepare_body(env, c->index, c->generation, &d->g, AIP_FAT_HEADER_BYTES,
                                        target, hr, why, prepared);
    if (status != ALVK_OK) {
        memset(why, 0, sizeof *why);
        return status;
    }
    *call_token = d->g.relocation_count == 0
                      ? c->replacement_token
                      : aip_apply_scratch_of(env)->results[d->g.relocation_count - 1].token;
    return ALVK_OK;
}

alvk_status aip_apply_dispatch_prepare(const aip_apply_env *env, const aip_patch_command *c,
                                       const aip_patch *p, aip_refusal *why, aip_rejit_applied *a,
                                       aip_held_publish *held)
{
    if (c->kind == AIP_PATCH_REPLACE &&
        (p->state != ALVK_PATCH_ACTIVE || !aip_rejit_has_owner(env->rejit, c->index, c->owner)))
        return ALVK_E_NOT_OWNER;
    aip_method_target target;
    alvk_status status = aip_apply_resolve_target(
        env, p, c->kind == AIP_PATCH_INSTALL ? c->token : p->token, c->resolve_status, &target);
    if (status == ALVK_OK)
        status = check_dispatch_target(&target, c);
    if (status != ALVK_OK)
        return status;
    if (p->module_id == 0)
        aip_rejit_set_target(env->rejit, c->index, target.module_id,
                             target.description.module_epoch);
    aip_patch now = *p;
    now.module_id = target.module_id;
    /* The target's signature, as resolve parsed it into the scratch. */
    uint32_t flags = target.description.flags;
    aip_dispatch_target dt = {
        target.signature, target.signature_length, &aip_apply_scratch_of(env)->target_sig,
        (flags & ALVK_METHOD_HAS_THIS) == 0              ? AIP_RECEIVER_NONE
        : (flags & ALVK_METHOD_VALUE_TYPE_RECEIVER) != 0 ? AIP_RECEIVER_VALUE_TYPE
                                                         : AIP_RECEIVER_CLASS,
        target.description.declaring_type};
    uint8_t calli_sig[AIP_DISPATCH_MAX_SIG_BYTES];
    size_t sig_length = 0;
    status = aip_dispatch_build_calli_signature(&dt, calli_sig, sizeof calli_sig, &sig_length);
    if (status != ALVK_OK)
        return status;
    dispatch_body d;
    HRESULT metadata_hr = S_OK;
    aip_prepared_rejit *prepared = NULL;
    uint32_t call_token = 0, calli_token = p->telemetry.calli_signature_token;
    alvk_status fallback = c->replacement_module == 0
                               ? ALVK_OK
                               : prepare_direct(env, c, &target, &dt, calli_sig, sig_length, &d,
                                                &metadata_hr, why, &prepared, &call_token);
    alvk_dispatch_path path = c->replacement_module != 0 && fallback == ALVK_OK
                                  ? ALVK_DISPATCH_DIRECT_CALL
                                  : ALVK_DISPATCH_CALLI;
    if (path == ALVK_DISPATCH_CALLI) {
        HRESULT direct_hr = metadata_hr; /* why the direct call failed, if it did */
        status = build_calli(&dt, c->replacement, calli_sig, sig_length, &d);
        if (status == ALVK_OK)
            status =
                aip_apply_prepare_body(env, c->index, c->generation, &d.g, AIP_FAT_HEADER_BYTES,
                                       &target, &metadata_hr, why, &prepared);
        if (status != ALVK_OK)
            return status;
        calli_token = aip_apply_scratch_of(env)->results[0].token;
        if (SUCCEEDED(metadata_hr))
            metadata_hr = direct_hr;
    }
    aip_dispatch_facts facts = {path, fallback, call_token, c->replacement};
    prepared->dispatch = facts;
    aip_held_publish h = {prepared, c->generation, now.module_id, now.token, now.telemetry.flags,
                          c->index, NULL};
    *held = h;
    a->owner_replacement = c->replacement;
    aip_rejit_applied_dispatch(a, p, &facts);
    a->calli_token = calli_token; /* this command's */
    a->metadata_hresult = metadata_hr;
    return ALVK_OK;
}
