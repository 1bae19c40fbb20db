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
/* set_owner_body's work, lock held. */
void aip_patch_set_owner_body(aip_patch *p, uint64_t owner, uint64_t replacement);

/* Reads and direct edits of the owner set (lock taken inside). The worker only reads
 * (has_owner); it changes the set through the decisions below and aip_rejit_commit. The
 * direct edits set up and check RejitState in its unit tests. */
int aip_rejit_has_owner(aip_rejit_state *st, uint32_t index, uint64_t owner);
alvk_status aip_rejit_add_owner(aip_rejit_state *st, uint32_t index, uint64_t owner);
/* An owner's body (its exact-dispatch replacement, or 0 for a generation) is now the one
 * published: the owner keeps a reference to that snapshot. */
void aip_rejit_set_owner_body(aip_rejit_state *st, uint32_t index, uint64_t owner,
                              uint64_t replacement);
/* The body a departure should leave in force: the most recently set body of the remaining
 * owners (a new reference, with its replacement), or NULL for the original. */
aip_prepared_rejit *aip_rejit_successor_body(aip_rejit_state *st, uint32_t index,
                                             uint64_t *replacement);
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
/* Returns the owners left after removing, or -1 when owner did not hold the patch. When none
 * are left the patch is closing: installs no longer join it, commands get PATCH_ENDED, until
 * an owner is added (which reopens it). */
int aip_rejit_remove_owner(aip_rejit_state *st, uint32_t index, uint64_t owner);

#endif
