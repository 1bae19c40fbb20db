/* The exact-dispatch commands as batches of the command runner. */
#include "rejit/apply_commands.h"

#include "rejit/apply_batch.h"
#include "rejit/apply_dispatch.h"
#include "rejit/apply_removal.h"
#include "rejit/apply_rollback.h"

#include <stdlib.h>
#include <string.h>

aip_patch_batch *aip_patch_batch_create(uint32_t count)
{
    aip_patch_batch *b = malloc(sizeof *b + (size_t)count * sizeof b->entries[0]);
    if (b != NULL) {
        memset(b, 0, sizeof *b);
        b->count = count;
    }
    return b;
}

/* `batch` is the commands' array (a batch's entries, or a single command). */
static void command_entry(const void *batch, uint32_t i, aip_batch_entry *out)
{
    const aip_patch_command *c = &((const aip_patch_command *)batch)[i];
    memset(out, 0, sizeof *out);
    out->index = c->index;
    out->generation = c->generation;
    out->owner.change = c->kind == AIP_PATCH_REMOVE ? AIP_OWNER_LEAVE : AIP_OWNER_SET;
    out->owner.owner = c->owner;
    out->owner.added = c->added_owner != 0;
    out->queued_ns = c->queued_ns;
}

static alvk_status command_prepare(const aip_apply_env *env, const void *batch, uint32_t i,
                                   const aip_patch *before, aip_batch_step *step)
{
    const aip_patch_command *c = &((const aip_patch_command *)batch)[i];
    if (c->kind == AIP_PATCH_REMOVE)
        return aip_apply_removal_prepare(env, c, step);
    alvk_status status =
        aip_apply_dispatch_prepare(env, c, before, &step->why, &step->a, &step->held);
    step->due = status == ALVK_OK;
    return status;
}

static const aip_batch_kind commands = {command_entry, command_prepare, 1};

alvk_status aip_apply_batch(void *payload, void *context)
{
    aip_patch_batch *b = *(aip_patch_batch **)payload;
    alvk_status status = aip_batch_run(context, &commands, b->entries, b->count, b->command);
    free(b);
    aip_apply_rollbacks_once(context); /* any rollback whose own command was refused */
    return status;
}

void aip_discard_batch(void *payload, void *context)
{
    aip_patch_batch *b = *(aip_patch_batch **)payload;
    aip_batch_discard(context, &commands, b->entries, b->count, b->command);
    free(b);
}

alvk_status aip_apply_patch_command(void *payload, void *context)
{
    const aip_patch_command *c = payload;
    alvk_status status = aip_batch_run(context, &commands, c, 1, c->command);
    aip_apply_rollbacks_once(context); /* any rollback whose own command was refused */
    return status;
}

void aip_discard_patch_command(void *payload, void *context)
{
    const aip_patch_command *c = payload;
    aip_batch_discard(context, &commands, c, 1, c->command);
}
