/* The abort rule of every batch (installs and generations, from the export's argument checks
 * to the worker's publish): a batch runs whole or not at all, so when one request fails, the
 * batch fails with the first failure (in request order) and every request that did not fail
 * on its own is ALVK_E_BATCH_ABORTED. Pure: statuses only. */
#ifndef AIP_BATCH_ABORT_H
#define AIP_BATCH_ABORT_H

#include "alvorkit_interception_profiler.h"

#include <stdint.h>

/* statuses[] holds each request's own result: when any failed, every one that passed becomes
 * ALVK_E_BATCH_ABORTED and the first failure is returned; else ALVK_OK, nothing changed. */
alvk_status aip_batch_abort(alvk_status *statuses, uint32_t count);

/* Request `at` failed with `status` (at == count: every request has `status`, a failure of
 * the batch as a whole): the statuses the abort rule gives, and `status` returned. */
alvk_status aip_batch_refuse(alvk_status *statuses, uint32_t count, uint32_t at,
                             alvk_status status);

#endif
