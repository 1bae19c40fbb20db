/* The worker's side of submitted generations: the command runner over staged generations. */
#include "rejit/apply_generation_batch.h"

#include "rejit/apply_batch.h"
#include "rejit/apply_rollback.h"

#include <stdlib.h>
#include <string.h>

aip_generation_batch *aip_generation_batch_create(uint32_t count)
{
    aip_generation_batch *b = malloc(sizeof *b + (size_t)count * sizeof b->entries[0]);
    if (b != NULL) {
        memset(b, 0, sizeof *b + (size_t)count * sizeof b->entries[0]);
        b->count = count;
    }
    return b;
}

void aip_generation_batch_free(aip_generation_batch *b)
{
    if (b == NULL)
        return;
    for (uint32_t i = 0; i < b->count; ++i)
        free(b->entries[i]);
    free(b);
}

/* `batch` is the staged generations' array (a batch's entries, or a single one's pointer). */
static aip_staged_generation *staged(const void *batch, uint32_t i)
{
    return ((aip_staged_generation *const *)batch)[i];
}

static void generation_entry(const void *batch, uint32_t i, aip_batch_entry *out)
{
    const aip_staged_generation *s = staged(batch, i);
    memset(out, 0, sizeof *out);
    out->index = s->index;
    out->generation = s->id;
    out->owner.change = AIP_OWNER_SET;
    out->owner.owner = s->g.owner;
    out->owner.added = s->added_owner != 0;
    out->queued_ns = s->queued_ns;
}

static alvk_status generation_prepare(const aip_apply_env *env, const void *batch, uint32_t i,
                                      const aip_patch *before, aip_batch_step *step)
{
    alvk_status status = aip_apply_generation_prepare(env, staged(batch, i), before, &step->why,
                                                      &step->a, &step->held);
    step->due = status == ALVK_OK;
    return status;
}

static const aip_batch_kind generations = {generation_entry, generation_prepare, 1};

alvk_status aip_apply_generation_batch(void *payload, void *context)
{
    aip_generation_batch *b = *(aip_generation_batch **)payload;
    alvk_status status = aip_batch_run(context, &generations, b->entries, b->count, b->command);
    aip_generation_batch_free(b);
    aip_apply_rollbacks_once(context); /* any rollback whose own command was refused */
    return status;
}

void aip_discard_generation_batch(void *payload, void *context)
{
    aip_generation_batch *b = *(aip_generation_batch **)payload;
    aip_batch_discard(context, &generations, b->entries, b->count, b->command);
    aip_generation_batch_free(b);
}
