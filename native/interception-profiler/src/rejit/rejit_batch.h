/* RejitState's side of a batch install (alvk_patch_install_batch): every request checked
 * against the table and against the others at once, then all accepted in one transition
 * under one command ID, or none. Pure: no runtime calls. */
#ifndef AIP_REJIT_BATCH_H
#define AIP_REJIT_BATCH_H

#include "rejit/rejit_state.h"

/* Accepts `count` install or generation requests (kind AIP_REQUEST_INSTALL or, ABI 3.6,
 * AIP_REQUEST_GENERATION; 1..ALVK_MAX_BATCH_REQUESTS) as one command. Each is checked as
 * aip_rejit_accept checks it (a join's owner set not full, a slot for a new patch: every new
 * patch of the batch must find one; a generation's prior: its target's latest generation,
 * else ALVK_E_STALE_GENERATION), and no two may
 * name one target (the same module copy, epoch and token; for requests whose module did not
 * resolve, the same MVID and token): ALVK_E_DUPLICATE_TARGET for the later one. The batch is
 * one ReJIT request, so all its patches take one ALVK_INSTALL_INLINER_FALLBACK flag (a join,
 * its patch's): ALVK_E_INVALID_FLAGS for the first that differs from the first. On any
 * failure nothing changed: statuses[i] is each request's own failure or
 * ALVK_E_BATCH_ABORTED, and the first failure (in request order) is returned. Else every
 * request is accepted (statuses[i] ALVK_OK, accepted[i] its patch, generation and owner
 * flag), all with one command ID. ALVK_E_INTERNAL (nothing changed, every status
 * ALVK_E_INTERNAL) when memory ran out. */
alvk_status aip_rejit_accept_batch(aip_rejit_state *st, const aip_rejit_request *requests,
                                   uint32_t count, aip_rejit_accepted *accepted,
                                   alvk_status *statuses);

#endif
