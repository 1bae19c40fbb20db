/* Internal to RejitState's files: owner bookkeeping on a patch (lock held by the caller). */
#ifndef AIP_REJIT_INTERNAL_H
#define AIP_REJIT_INTERNAL_H

#include "rejit/rejit_state.h"

int aip_patch_find_owner(const aip_patch *p, uint64_t owner);
void aip_patch_append_owner(aip_patch *p, uint64_t owner);
void aip_patch_drop_owner(aip_patch *p, int at);
/* Drops every owner (their bodies' references too): the patch ended. */
void aip_patch_drop_all_owners(aip_patch *p);

#endif
