/* RejitState's owner set: who holds a patch, and which body each owner last put in force. */
#ifndef AIP_REJIT_OWNERS_H
#define AIP_REJIT_OWNERS_H

#include "rejit/owner_decision.h"
#include "rejit/patch_table.h"

/* Lock-held helpers for the other RejitState files. */
int aip_patch_find_owner(const aip_patch *p, uint64_t owner);
void aip_patch_append_owner(aip_patch *p, uint64_t owner);
void aip_patch_drop_owner(aip_patch *p, int at);
/* Drops every owner (their bodies' references too): the patch ended. */
void aip_patch_drop_all_owners(aip_patch *p);
/* owner's body (replacement: its exact-dispatch replacement, or 0 for a generation) is now
 * the one published: the owner keeps a reference to that snapshot (aip_rejit_commit). */
void aip_patch_set_owner_body(aip_patch *p, uint64_t owner, uint64_t replacement);

/* Whether owner holds the patch (lock taken inside). The owner set changes only through the
 * decisions below and aip_rejit_commit. */
int aip_rejit_has_owner(aip_rejit_state *st, uint32_t index, uint64_t owner);

/* The owner decisions (owner_decision.h), made on the live patch under the lock, so the
 * installs accepted meanwhile are seen: *copy is the patch as decided on. A decision that
 * closes the patch (its last owner leaves) marks it closing until its commit
 * (aip_rejit_applied.decided_close), so no install joins a patch on its way out. A removal's
 * successor body comes back as a new reference in *body (NULL: the original). */
void aip_rejit_decide_leave(aip_rejit_state *st, uint32_t index, uint64_t owner,
                            aip_owner_decision *d, aip_patch *copy, aip_prepared_rejit **body);
void aip_rejit_decide_end(aip_rejit_state *st, uint32_t index, alvk_patch_state before,
                          const aip_owner_command *c, alvk_status status, aip_owner_decision *d,
                          aip_patch *copy);

#endif
