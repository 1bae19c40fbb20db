/* RejitState's side of a batch install: check all, then accept all or none. */
#include "rejit/rejit_batch.h"

#include "rejit/batch_abort.h"
#include "rejit/patch_slots.h"
#include "rejit/rejit_generations.h"
#include "rejit/rejit_owners.h"

#include <stdlib.h>
#include <string.h>

/* 1 when requests a and b name one target. */
static int same_target(const aip_rejit_request *a, const aip_rejit_request *b)
{
    return a->token == b->token && a->copy_id == b->copy_id &&
           (a->copy_id != 0 ? a->copy_epoch == b->copy_epoch
                            : memcmp(a->mvid, b->mvid, sizeof *a->mvid) == 0);
}

static uint32_t target_hash(const aip_rejit_request *r)
{
    uint64_t h = (uint64_t)r->copy_id * 0x9E3779B97F4A7C15ull ^ r->token * 0xC2B2AE3D27D4EB4Full;
    if (r->copy_id == 0)
        for (size_t i = 0; i < sizeof r->mvid->bytes; ++i)
            h = (h ^ r->mvid->bytes[i]) * 0x100000001B3ull;
    h ^= h >> 29;
    return (uint32_t)h;
}

/* Marks every request that names the target of an earlier one (seen: 2 * count entries,
 * zeroed, request index + 1 each). */
static void mark_duplicates(const aip_rejit_request *requests, uint32_t count, uint32_t *seen,
                            uint32_t mask, alvk_status *statuses)
{
    for (uint32_t i = 0; i < count; ++i) {
        uint32_t at = target_hash(&requests[i]) & mask;
        for (; seen[at] != 0; at = (at + 1) & mask)
            if (same_target(&requests[seen[at] - 1], &requests[i]))
                break;
        if (seen[at] != 0)
            statuses[i] = ALVK_E_DUPLICATE_TARGET;
        else
            seen[at] = i + 1;
    }
}

/* The check pass, lock held: each request's own status; nothing changes. The batch is one
 * ReJIT request, so every patch must take one ALVK_INSTALL_INLINER_FALLBACK flag (a join
 * takes its patch's): the first that differs from the first request's is
 * ALVK_E_INVALID_FLAGS. A generation (ABI 3.6) must chain on its target's latest generation
 * (0 without a live patch): ALVK_E_STALE_GENERATION otherwise, as aip_rejit_accept decides. */
static void check_all(aip_rejit_state *st, const aip_rejit_request *requests, uint32_t count,
                      alvk_status *statuses)
{
    uint32_t available = aip_slots_available(st), needed = 0;
    int flag_seen = 0, flag_invalid = 0;
    uint32_t fallback = 0;
    for (uint32_t i = 0; i < count; ++i) {
        const aip_rejit_request *r = &requests[i];
        int found = r->copy_id != 0 ? aip_rejit_joinable_locked(st, r->mvid, r->copy_id,
                                                                r->copy_epoch, r->token)
                                    : -1;
        const aip_patch *p = found >= 0 ? aip_patch_at(st, (uint32_t)found) : NULL;
        uint32_t flag = (p != NULL ? p->telemetry.flags : r->flags) & ALVK_INSTALL_INLINER_FALLBACK;
        if (!flag_seen) {
            flag_seen = 1;
            fallback = flag;
        } else if (flag != fallback && !flag_invalid && statuses[i] == ALVK_OK) {
            flag_invalid = 1;
            statuses[i] = ALVK_E_INVALID_FLAGS;
        }
        if (statuses[i] != ALVK_OK)
            continue;
        if (r->kind == AIP_REQUEST_GENERATION && r->prior != (p != NULL ? p->latest_generation : 0))
            statuses[i] = ALVK_E_STALE_GENERATION;
        else if (p != NULL) {
            if (aip_patch_find_owner(p, r->owner) < 0 && p->owner_count == ALVK_MAX_PATCH_OWNERS)
                statuses[i] = ALVK_E_OWNERS_FULL;
        } else if (++needed > available) {
            statuses[i] = ALVK_E_PATCH_TABLE_FULL;
        }
    }
}

alvk_status aip_rejit_accept_batch(aip_rejit_state *st, const aip_rejit_request *requests,
                                   uint32_t count, aip_rejit_accepted *accepted,
                                   alvk_status *statuses)
{
    uint32_t size = 16;
    while (size < 2 * count)
        size *= 2;
    uint32_t *seen = calloc(size, sizeof *seen);
    memset(accepted, 0, count * sizeof *accepted);
    if (seen == NULL)
        return aip_batch_refuse(statuses, count, count, ALVK_E_INTERNAL);
    for (uint32_t i = 0; i < count; ++i)
        statuses[i] = ALVK_OK;
    mark_duplicates(requests, count, seen, size - 1, statuses);
    free(seen);
    aip_mutex_lock(&st->lock);
    check_all(st, requests, count, statuses);
    alvk_status status = aip_batch_abort(statuses, count);
    int checked = status == ALVK_OK;
    /* Every patch first (only memory can fail here: a chunk of the table, its index), then
     * every generation: a refusal has opened none, so it consumes no generation ID and
     * evicts no patch's history. */
    uint32_t done = 0;
    for (; status == ALVK_OK && done < count; ++done) {
        const aip_rejit_request *r = &requests[done];
        aip_rejit_accepted *out = &accepted[done];
        status =
            aip_rejit_install_locked(st, r->mvid, r->copy_id, r->copy_epoch, r->token, r->owner,
                                     r->flags, r->kind == AIP_REQUEST_GENERATION ? &r->prior : NULL,
                                     &out->index, &out->handle, &out->added_owner);
    }
    if (status != ALVK_OK && checked) {
        /* Taken back in reverse (done - 1 is the refused one). */
        for (uint32_t i = done - 1; i-- > 0;)
            aip_rejit_cancel_locked(st, accepted[i].index,
                                    accepted[i].added_owner ? requests[i].owner : 0);
        memset(accepted, 0, count * sizeof *accepted);
        /* Memory ran out: every status says so; else the refused one's. */
        aip_batch_refuse(statuses, count, status == ALVK_E_INTERNAL ? count : done - 1, status);
    } else if (status == ALVK_OK) {
        /* Checked against each patch's latest above: opening cannot fail. */
        for (uint32_t i = 0; i < count; ++i)
            aip_patch_open_generation(st, aip_patch_at(st, accepted[i].index),
                                      requests[i].kind == AIP_REQUEST_GENERATION, requests[i].prior,
                                      &accepted[i].generation);
        alvk_command_id command = aip_rejit_issue_locked(st);
        for (uint32_t i = 0; i < count; ++i)
            accepted[i].command = command;
    }
    aip_mutex_unlock(&st->lock);
    return status;
}
