/* PreparedRejit: the immutable IL snapshot a patch hands to the runtime. The worker builds
 * it, RejitState publishes it, and GetReJITParameters only acquires it, copies it out and
 * releases it. Reference-counted; the process-wide totals feed the runtime status. Pure. */
#ifndef AIP_PREPARED_REJIT_H
#define AIP_PREPARED_REJIT_H

#include "alvorkit_interception_profiler.h"

#include <stdatomic.h>
#include <stdint.h>

/* How a body reaches a replacement (ABI 3.4), kept with the body so the telemetry can say it
 * whenever the body comes back into force (another owner left, a rollback). All zero for a
 * generation's body. */
typedef struct aip_dispatch_facts {
    alvk_dispatch_path path;
    alvk_status fallback; /* why not the direct call, when a method was named */
    uint32_t call_token;  /* the direct call's MethodDef or MemberRef */
    uint64_t replacement; /* the entry point (0: none) */
} aip_dispatch_facts;

typedef struct aip_prepared_rejit {
    _Atomic uint32_t refs;
    alvk_generation_id generation;
    uint32_t body_size;
    uint32_t il_map_count;
    const alvk_il_map_entry *il_map; /* points into data, after the body */
    aip_dispatch_facts dispatch;     /* set by the worker before it publishes */
    _Alignas(8) uint8_t data[];      /* the IL method body for SetILFunctionBody, then the map */
} aip_prepared_rejit;

/* A snapshot holding copies of body and map, with one reference; NULL when out of memory. */
aip_prepared_rejit *aip_prepared_create(alvk_generation_id generation, const uint8_t *body,
                                        uint32_t size, const alvk_il_map_entry *il_map,
                                        uint32_t il_map_count);

/* One more reference (NULL: none), returned for chaining. */
aip_prepared_rejit *aip_prepared_retain(aip_prepared_rejit *prepared);

/* Drops one reference (NULL: nothing); the last one frees the snapshot. */
void aip_prepared_release(aip_prepared_rejit *prepared);

/* What every snapshot alive in the process holds (bytes allocated, and how many). */
void aip_prepared_totals(uint64_t *bytes, uint64_t *count);

#endif
