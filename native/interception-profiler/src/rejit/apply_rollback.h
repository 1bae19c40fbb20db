/* Rollbacks: a patch whose body failed to compile goes back to its last body that compiled
 * (or the original). Each is run by the command runner (apply_batch.h) as a batch of one
 * that ends no command: it prepares no body, it takes the one RejitState kept, the runner
 * publishes it and commits the request and the body's dispatch telemetry. Runs on the worker
 * thread only. */
#ifndef AIP_APPLY_ROLLBACK_H
#define AIP_APPLY_ROLLBACK_H

#include "rejit/apply_publish.h"

/* Every rollback due, served (after every command: a rollback whose own queue slot was
 * refused is not lost); ALVK_OK, or the last refusal. */
alvk_status aip_apply_rollbacks_once(const aip_apply_env *env);

/* The worker queue's rollback command (runtime/command_queue.h; `context` the
 * const aip_apply_env * the worker was started with, payload unused). */
alvk_status aip_apply_rollbacks(void *payload, void *context);

#endif
