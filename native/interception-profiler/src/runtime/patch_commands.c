/* The exported patch and generation commands: argument checks, RejitState bookkeeping, and
 * queuing to the worker, where the command runner (rejit/apply_batch.c) runs them. Nothing
 * here calls the runtime. */
#include "runtime/profiler_runtime.h"

#include "coreclr/cor_metadata_defs.h"
#include "generation/generation_validate.h"
#include "rejit/apply_commands.h"
#include "rejit/apply_generation_batch.h"
#include "rejit/apply_generation.h"
#include "rejit/apply_discovered.h"
#include "rejit/apply_rollback.h"
#include "rejit/batch_abort.h"
#include "rejit/rejit_batch.h"
#include "rejit/rejit_events.h"
#include "rejit/rejit_generations.h"
#include "rejit/rejit_state.h"
#include "runtime/profiler.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(aip_patch_command) <= AIP_COMMAND_PAYLOAD_BYTES, "fits a queue slot");

void aip_runtime_resolve_copy(aip_profiler *rt, const alvk_mvid *mvid, uint64_t module_id,
                              uint32_t module_epoch, uint64_t *copy_id, uint32_t *copy_epoch,
                              alvk_status *status)
{
    aip_module_entry module;
    *copy_id = 0;
    *copy_epoch = 0;
    *status =
        (uintptr_t)module_id != module_id
            ? ALVK_E_UNKNOWN_MODULE
            : aip_catalog_select(&rt->catalog, mvid, (uintptr_t)module_id, module_epoch, &module);
    if (*status == ALVK_OK) {
        *copy_id = module.module_id;
        *copy_epoch = module.epoch;
    }
}

/* The replacement named as a method (ABI 3.4): both its module copy and its MethodDef token,
 * or neither. Whether the module is loaded is the worker's to find (it falls back to calli
 * and says why). */
static alvk_status check_replacement_method(uint64_t module_id, uint32_t token)
{
    if ((module_id == 0) != (token == 0) || (uintptr_t)module_id != module_id)
        return ALVK_E_INVALID_FLAGS;
    if (token != 0 && (AIP_TYPE_FROM_TOKEN(token) != mdtMethodDef || AIP_IS_NIL_TOKEN(token)))
        return ALVK_E_TOKEN_NOT_METHODDEF;
    return ALVK_OK;
}

/* A replacement named as the target itself (the same loaded copy and token) would call itself
 * on every call until the stack overflows: refused before anything is queued. A calli-only
 * replacement (no method named) cannot be told from its entry point here; the managed API
 * refuses it by method. */
static alvk_status check_not_target(uint64_t replacement_module, uint32_t replacement_token,
                                    uintptr_t target_copy, uint32_t target_token)
{
    return replacement_token != 0 && replacement_token == target_token && target_copy != 0 &&
                   replacement_module == (uint64_t)target_copy
               ? ALVK_E_REPLACEMENT_IS_TARGET
               : ALVK_OK;
}

/* Accepts a command into RejitState (one transition) and queues it into the slot reserved
 * for it, which cannot refuse it any more; gives the slot back on refusal. */
static alvk_status accept(aip_profiler *rt, uint32_t slot, const aip_rejit_request *request,
                          aip_rejit_accepted *accepted)
{
    alvk_status status = aip_rejit_accept(&rt->rejit, request, accepted);
    if (status != ALVK_OK)
        aip_queue_release(&rt->worker.queue, slot);
    return status;
}

/* The checks an install makes before anything else (alvk_patch_install, and each request of
 * a batch). */
static alvk_status check_install(const alvk_install_request *request)
{
    if (request->owner == 0)
        return ALVK_E_INVALID_OWNER;
    if (request->replacement == 0)
        return ALVK_E_INVALID_REPLACEMENT;
    if ((request->flags & ~(uint32_t)ALVK_INSTALL_INLINER_FALLBACK) != 0 ||
        request->reserved != 0 || request->reserved1 != 0 || request->reserved2 != 0 ||
        (request->module_id == 0 && request->module_epoch != 0))
        return ALVK_E_INVALID_FLAGS;
    return check_replacement_method(request->replacement_module_id, request->replacement_token);
}

/* An install's command and its RejitState request (pointing into `request`), with the module
 * copy it names resolved. */
static void install_command(aip_profiler *rt, const alvk_install_request *request,
                            aip_patch_command *c, aip_rejit_request *r)
{
    memset(c, 0, sizeof *c);
    c->kind = AIP_PATCH_INSTALL;
    c->owner = request->owner;
    c->replacement = request->replacement;
    c->replacement_module = request->replacement_module_id;
    c->replacement_token = request->replacement_token;
    c->token = request->method_token;
    memcpy(c->signature_hash, request->signature_hash, sizeof c->signature_hash);
    memcpy(c->body_identity, request->body_identity, sizeof c->body_identity);
    aip_rejit_request install = {
        AIP_REQUEST_INSTALL, &request->module_mvid, 0, 0, c->token, request->flags, 0, c->owner, 0};
    *r = install;
    uint64_t copy_id = 0;
    aip_runtime_resolve_copy(rt, &request->module_mvid, request->module_id, request->module_epoch,
                             &copy_id, &r->copy_epoch, &c->resolve_status);
    r->copy_id = (uintptr_t)copy_id;
}

/* One reserved queue slot and every request accepted in RejitState under one command, or
 * neither: the slot is released and statuses[] says why. */
static alvk_status reserve_and_accept(aip_profiler *rt, const aip_rejit_request *r, uint32_t count,
                                      aip_rejit_accepted *accepted, alvk_status *statuses,
                                      uint32_t *slot)
{
    alvk_status status = aip_queue_reserve(&rt->worker.queue, slot);
    if (status != ALVK_OK)
        return aip_batch_refuse(statuses, count, count, status);
    status = aip_rejit_accept_batch(&rt->rejit, r, count, accepted, statuses);
    if (status != ALVK_OK)
        aip_queue_release(&rt->worker.queue, *slot);
    return status;
}

/* The batch's queuing, its arrays allocated: accepted in RejitState under one command into
 * one reserved queue slot, or refused with nothing changed. */
static alvk_status queue_batch(aip_profiler *rt, const alvk_install_request *requests,
                               uint32_t count, aip_patch_batch *b, aip_rejit_request *r,
                               aip_rejit_accepted *accepted, alvk_patch_handle *handles,
                               alvk_status *statuses, alvk_command_id *command)
{
    for (uint32_t i = 0; i < count; ++i) {
        install_command(rt, &requests[i], &b->entries[i], &r[i]);
        statuses[i] =
            check_not_target(b->entries[i].replacement_module, b->entries[i].replacement_token,
                             r[i].copy_id, b->entries[i].token);
    }
    alvk_status first = aip_batch_abort(statuses, count);
    if (first != ALVK_OK)
        return first;
    uint32_t slot = 0;
    alvk_status status = reserve_and_accept(rt, r, count, accepted, statuses, &slot);
    if (status != ALVK_OK)
        return status;
    uint64_t queued_ns = aip_monotonic_ns();
    for (uint32_t i = 0; i < count; ++i) {
        aip_patch_command *c = &b->entries[i];
        c->index = accepted[i].index;
        c->added_owner = (uint32_t)accepted[i].added_owner;
        c->generation = accepted[i].generation;
        c->command = accepted[i].command;
        c->queued_ns = queued_ns;
        handles[i] = accepted[i].handle;
    }
    b->command = accepted[0].command;
    *command = b->command;
    /* The worker owns b once it is committed (it frees it). */
    aip_queue_commit(&rt->worker.queue, slot, aip_apply_batch, aip_discard_batch, &b, sizeof b,
                     NULL);
    return ALVK_OK;
}

alvk_status aip_runtime_patch_install_batch(aip_profiler *rt, const alvk_install_request *requests,
                                            uint32_t count, alvk_patch_handle *handles,
                                            alvk_status *statuses, alvk_command_id *command)
{
    for (uint32_t i = 0; i < count; ++i) {
        handles[i] = 0;
        statuses[i] = check_install(&requests[i]);
    }
    alvk_status first = aip_batch_abort(statuses, count);
    if (first != ALVK_OK)
        return first;
    alvk_status status = aip_runtime_commands_available(rt);
    if (status != ALVK_OK)
        return aip_batch_refuse(statuses, count, count, status);
    aip_patch_batch *b = aip_patch_batch_create(count);
    aip_rejit_request *r = malloc(count * sizeof *r);
    aip_rejit_accepted *accepted = malloc(count * sizeof *accepted);
    status = b != NULL && r != NULL && accepted != NULL
                 ? queue_batch(rt, requests, count, b, r, accepted, handles, statuses, command)
                 : aip_batch_refuse(statuses, count, count, ALVK_E_INTERNAL);
    if (status != ALVK_OK)
        free(b);
    free(r);
    free(accepted);
    return status;
}

/* alvk_patch_install: a batch of one, whose status is its one request's. */
alvk_status aip_runtime_patch_install(aip_profiler *rt, const alvk_install_request *request,
                                      alvk_patch_handle *handle, alvk_command_id *command)
{
    alvk_status own = ALVK_OK;
    return aip_runtime_patch_install_batch(rt, request, 1, handle, &own, command);
}

static alvk_status command(aip_profiler *rt, alvk_patch_handle handle, uint64_t owner,
                           const alvk_replacement *replacement, aip_patch_command_kind kind,
                           alvk_command_id *issued)
{
    if (owner == 0)
        return ALVK_E_INVALID_OWNER;
    alvk_status status = aip_runtime_commands_available(rt);
    if (status != ALVK_OK)
        return status;
    aip_patch_command c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.owner = owner;
    c.replacement = replacement->entry_point;
    c.replacement_module = replacement->module_id;
    c.replacement_token = replacement->method_token;
    aip_rejit_request r = {kind == AIP_PATCH_REPLACE ? AIP_REQUEST_REPLACE : AIP_REQUEST_REMOVE,
                           NULL,
                           0,
                           0,
                           0,
                           0,
                           handle,
                           owner,
                           0};
    uint32_t slot = 0;
    aip_rejit_accepted a;
    if ((status = aip_queue_reserve(&rt->worker.queue, &slot)) != ALVK_OK ||
        (status = accept(rt, slot, &r, &a)) != ALVK_OK)
        return status;
    c.index = a.index;
    c.generation = a.generation;
    c.command = a.command;
    c.queued_ns = aip_monotonic_ns();
    aip_queue_commit(&rt->worker.queue, slot, aip_apply_patch_command, aip_discard_patch_command,
                     &c, sizeof c, NULL);
    *issued = c.command;
    return ALVK_OK;
}

alvk_status aip_runtime_patch_replace(aip_profiler *rt, alvk_patch_handle handle, uint64_t owner,
                                      uint64_t replacement, alvk_command_id *issued)
{
    alvk_replacement r = {sizeof r, 0, replacement, 0};
    return aip_runtime_patch_replace_with(rt, handle, owner, &r, issued);
}

alvk_status aip_runtime_patch_replace_with(aip_profiler *rt, alvk_patch_handle handle,
                                           uint64_t owner, const alvk_replacement *replacement,
                                           alvk_command_id *issued)
{
    alvk_status status =
        check_replacement_method(replacement->module_id, replacement->method_token);
    if (status != ALVK_OK)
        return status;
    if (replacement->entry_point == 0)
        return ALVK_E_INVALID_REPLACEMENT;
    alvk_patch_telemetry target;
    memset(&target, 0, sizeof target);
    target.size = sizeof target;
    if (replacement->method_token != 0 &&
        aip_rejit_telemetry(&rt->rejit, handle, &target) == ALVK_OK &&
        (status = check_not_target(replacement->module_id, replacement->method_token,
                                   (uintptr_t)target.module_id, target.method_token)) != ALVK_OK)
        return status;
    return command(rt, handle, owner, replacement, AIP_PATCH_REPLACE, issued);
}

alvk_status aip_runtime_patch_remove(aip_profiler *rt, alvk_patch_handle handle, uint64_t owner,
                                     alvk_command_id *issued)
{
    alvk_replacement none = {sizeof none, 0, 0, 0};
    return command(rt, handle, owner, &none, AIP_PATCH_REMOVE, issued);
}

alvk_status aip_runtime_command_wait(aip_profiler *rt, alvk_command_id command, uint32_t timeout_ms,
                                     alvk_status *result)
{
    if (!aip_profiler_attached(rt))
        return ALVK_E_NOT_ATTACHED;
    return aip_rejit_wait_command(&rt->rejit, command, (uint64_t)timeout_ms * 1000000u, result);
}

alvk_status aip_runtime_patch_wait(aip_profiler *rt, alvk_patch_handle handle, uint32_t timeout_ms)
{
    if (!aip_profiler_attached(rt))
        return ALVK_E_NOT_ATTACHED;
    return aip_rejit_wait(&rt->rejit, handle, (uint64_t)timeout_ms * 1000000u);
}

alvk_status aip_runtime_patch_telemetry(aip_profiler *rt, alvk_patch_handle handle,
                                        alvk_patch_telemetry *out)
{
    if (!aip_profiler_attached(rt))
        return ALVK_E_NOT_ATTACHED;
    return aip_rejit_telemetry(&rt->rejit, handle, out);
}

/* Generation i staged into b with its RejitState request in *r, its module copy resolved;
 * ALVK_OK, or (as alvk_generation_submit) the copy's status when it does not resolve and the
 * generation chains on a prior one; ALVK_E_INTERNAL when out of memory. */
static alvk_status stage_generation(aip_profiler *rt, const alvk_generation *g,
                                    aip_generation_batch *b, uint32_t i, aip_rejit_request *r)
{
    aip_staged_generation *s = aip_generation_stage(g);
    if (s == NULL)
        return ALVK_E_INTERNAL;
    b->entries[i] = s;
    aip_rejit_request request = {AIP_REQUEST_GENERATION, &s->g.module_mvid, 0, 0,
                                 g->method_token,        g->flags,          0, g->owner,
                                 g->prior_generation};
    *r = request;
    uint64_t copy_id = 0;
    aip_runtime_resolve_copy(rt, &g->module_mvid, g->module_id, g->module_epoch, &copy_id,
                             &r->copy_epoch, &s->resolve_status);
    r->copy_id = (uintptr_t)copy_id;
    return s->resolve_status != ALVK_OK && g->prior_generation != 0 ? s->resolve_status : ALVK_OK;
}

/* The batch's queuing, its arrays allocated: every generation staged, then all accepted in
 * RejitState under one command into one reserved queue slot, or refused with nothing
 * changed (b is then the caller's to free). */
static alvk_status queue_generation_batch(aip_profiler *rt, const alvk_generation *generations,
                                          uint32_t count, aip_generation_batch *b,
                                          aip_rejit_request *r, aip_rejit_accepted *accepted,
                                          alvk_patch_handle *handles, alvk_generation_id *ids,
                                          alvk_status *statuses, alvk_command_id *command)
{
    for (uint32_t i = 0; i < count; ++i) {
        statuses[i] = stage_generation(rt, &generations[i], b, i, &r[i]);
        if (statuses[i] == ALVK_E_INTERNAL)
            return aip_batch_refuse(statuses, count, count, ALVK_E_INTERNAL);
    }
    alvk_status first = aip_batch_abort(statuses, count);
    if (first != ALVK_OK)
        return first;
    uint32_t slot = 0;
    alvk_status status = reserve_and_accept(rt, r, count, accepted, statuses, &slot);
    if (status != ALVK_OK)
        return status;
    uint64_t queued_ns = aip_monotonic_ns();
    for (uint32_t i = 0; i < count; ++i) {
        aip_staged_generation *s = b->entries[i];
        s->index = accepted[i].index;
        s->added_owner = (uint32_t)accepted[i].added_owner;
        s->id = accepted[i].generation;
        s->command = accepted[i].command;
        s->queued_ns = queued_ns;
        handles[i] = accepted[i].handle;
        ids[i] = accepted[i].generation;
    }
    b->command = accepted[0].command;
    *command = b->command;
    /* The worker owns b once it is committed (it frees it). */
    aip_queue_commit(&rt->worker.queue, slot, aip_apply_generation_batch,
                     aip_discard_generation_batch, &b, sizeof b, NULL);
    return ALVK_OK;
}

alvk_status aip_runtime_generation_submit_batch(aip_profiler *rt,
                                                const alvk_generation *generations, uint32_t count,
                                                alvk_patch_handle *handles, alvk_generation_id *ids,
                                                alvk_status *statuses, alvk_command_id *command)
{
    for (uint32_t i = 0; i < count; ++i) {
        handles[i] = 0;
        ids[i] = 0;
        aip_generation_check check;
        statuses[i] = aip_generation_validate(&generations[i], AIP_ORIGINAL_SIZE_UNKNOWN, &check);
    }
    alvk_status first = aip_batch_abort(statuses, count);
    if (first != ALVK_OK)
        return first;
    alvk_status status = aip_runtime_commands_available(rt);
    if (status != ALVK_OK)
        return aip_batch_refuse(statuses, count, count, status);
    aip_generation_batch *b = aip_generation_batch_create(count);
    aip_rejit_request *r = malloc(count * sizeof *r);
    aip_rejit_accepted *accepted = malloc(count * sizeof *accepted);
    status = b != NULL && r != NULL && accepted != NULL
                 ? queue_generation_batch(rt, generations, count, b, r, accepted, handles, ids,
                                          statuses, command)
                 : aip_batch_refuse(statuses, count, count, ALVK_E_INTERNAL);
    if (status != ALVK_OK)
        aip_generation_batch_free(b);
    free(r);
    free(accepted);
    return status;
}

/* alvk_generation_submit: a batch of one, whose status is its one generation's. */
alvk_status aip_runtime_generation_submit(aip_profiler *rt, const alvk_generation *g,
                                          alvk_patch_handle *handle, alvk_generation_id *id,
                                          alvk_command_id *command)
{
    alvk_status own = ALVK_OK;
    return aip_runtime_generation_submit_batch(rt, g, 1, handle, id, &own, command);
}

alvk_status aip_runtime_generation_result(aip_profiler *rt, alvk_patch_handle handle,
                                          alvk_generation_id id, alvk_generation_result *out,
                                          alvk_relocation_result *relocations, uint32_t capacity)
{
    if (!aip_profiler_attached(rt))
        return ALVK_E_NOT_ATTACHED;
    return aip_rejit_generation_result(&rt->rejit, handle, id, out, relocations, capacity);
}

void aip_runtime_queue_discovery(aip_profiler *rt)
{
    if (!atomic_load(&rt->worker.started) ||
        aip_queue_submit(&rt->worker.queue, aip_apply_discovered, NULL, 0, NULL) != ALVK_OK)
        aip_inbox_drain_done(&rt->discovered);
}

/* The patch carries a rollback-due flag, so if the queue refuses this command (full), the
 * next command of any kind serves the rollback when it finishes. */
void aip_runtime_queue_rollback(aip_profiler *rt, uint32_t index)
{
    if (!atomic_load(&rt->worker.started))
        return; /* no patch was applied: nothing to roll back */
    aip_queue_submit(&rt->worker.queue, aip_apply_rollbacks, &index, sizeof index, NULL);
}
