/* RejitState's owner set: who holds a patch, and whose replacement is in force. */
#include "rejit/rejit_owners.h"

int aip_patch_find_owner(const aip_patch *p, uint64_t owner)
{
    for (uint32_t i = 0; i < p->owner_count; ++i)
        if (p->owners[i] == owner)
            return (int)i;
    return -1;
}

void aip_patch_append_owner(aip_patch *p, uint64_t owner)
{
    p->owner_bodies[p->owner_count] = NULL;
    p->owner_replacements[p->owner_count] = 0;
    p->owner_order[p->owner_count] = 0;
    p->owners[p->owner_count++] = owner;
}

void aip_patch_drop_owner(aip_patch *p, int at)
{
    uint32_t last = --p->owner_count;
    aip_prepared_release(p->owner_bodies[at]);
    p->owner_bodies[at] = p->owner_bodies[last];
    p->owner_bodies[last] = NULL;
    p->owners[at] = p->owners[last];
    p->owner_replacements[at] = p->owner_replacements[last];
    p->owner_order[at] = p->owner_order[last];
}

void aip_patch_drop_all_owners(aip_patch *p)
{
    while (p->owner_count > 0)
        aip_patch_drop_owner(p, (int)p->owner_count - 1);
}

int aip_rejit_has_owner(aip_rejit_state *st, uint32_t index, uint64_t owner)
{
    aip_mutex_lock(&st->lock);
    int has = aip_patch_find_owner(aip_patch_at(st, index), owner) >= 0;
    aip_mutex_unlock(&st->lock);
    return has;
}

void aip_patch_set_owner_body(aip_patch *p, uint64_t owner, uint64_t replacement)
{
    int at = aip_patch_find_owner(p, owner);
    if (at >= 0) {
        aip_prepared_release(p->owner_bodies[at]);
        p->owner_bodies[at] = aip_prepared_retain(p->prepared);
        p->owner_replacements[at] = replacement;
        p->owner_order[at] = ++p->owner_clock;
    }
}

void aip_rejit_decide_leave(aip_rejit_state *st, uint32_t index, uint64_t owner,
                            aip_owner_decision *d, aip_patch *copy, aip_prepared_rejit **body)
{
    aip_mutex_lock(&st->lock);
    aip_patch *p = aip_patch_at(st, index);
    aip_owner_decide_leave(p, owner, d);
    *body =
        d->publish && d->successor >= 0 ? aip_prepared_retain(p->owner_bodies[d->successor]) : NULL;
    if (d->closes)
        p->closing = 1;
    *copy = *p;
    aip_mutex_unlock(&st->lock);
}

void aip_rejit_decide_end(aip_rejit_state *st, uint32_t index, alvk_patch_state before,
                          const aip_owner_command *c, alvk_status status, aip_owner_decision *d,
                          aip_patch *copy)
{
    aip_mutex_lock(&st->lock);
    aip_patch *p = aip_patch_at(st, index);
    aip_owner_decide_end(p, before, c, status, d);
    if (d->closes)
        p->closing = 1;
    *copy = *p;
    aip_mutex_unlock(&st->lock);
}
