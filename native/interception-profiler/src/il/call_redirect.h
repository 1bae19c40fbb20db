/* Redirecting the call sites of one method in a method's code: every `call <from>` and every
 * `callvirt <from>` made a `call <to>` in place (callvirt and call are one byte each). Both
 * operands are 4-byte tokens, so no offset, branch target or exception clause moves. Meant for a
 * known inliner of a hooked target, whose calls go to a carrier of the woven body that has no ReJIT
 * version and so may be inlined (docs/Benchmarks.md, "Hooks on inlined targets"). A
 * `constrained. T callvirt <from>` keeps its call, and so does every other call of `from` in that
 * code: `constrained. T call` is invalid IL, and taking the prefix away is equivalent only when T
 * is a value type that declares `from` (not so for a reference type, whose managed pointer the
 * prefix dereferences). Pure. */
#ifndef AIP_IL_CALL_REDIRECT_H
#define AIP_IL_CALL_REDIRECT_H

#include "alvorkit_interception_profiler.h"
#include "il/il_walk.h"

#include <stdint.h>

typedef struct aip_call_redirect_counts {
    uint32_t redirected;    /* `call <from>` and `callvirt <from>` rewritten */
    uint32_t virtual_calls; /* of those, `callvirt`: made `call`, which keeps their meaning only
                             * for a `from` that is not virtual or is final and a `to` that
                             * checks the receiver for null itself (emit/carrier.h) */
    uint32_t constrained;   /* calls of `from` behind a `constrained.` prefix (other prefixes
                             * between them included): when any, nothing is rewritten */
} aip_call_redirect_counts;

/* Walks code[0 .. code_size) as aip_il_walk does (*starts is its scratch); when the whole code
 * walks and no call of `from` is `constrained.`-prefixed, rewrites every `call` and `callvirt`
 * whose operand is `from` to `call <to>`; fills *counts either way. Any other use of `from`
 * (ldftn, ldvirtftn, newobj, jmp) and any operand that merely holds the same bytes stays. On
 * failure (the walk's statuses; ALVK_E_NULL_ARGUMENT) the code is unchanged. */
alvk_status aip_il_redirect_calls(uint8_t *code, uint32_t code_size, uint32_t from, uint32_t to,
                                  aip_il_starts *starts, aip_call_redirect_counts *counts);

/* One redirect: calls of `from` made calls of `to`. */
typedef struct aip_call_route {
    uint32_t from;
    uint32_t to;
} aip_call_route;

/* A whole IL method body (header, code, exception sections) at body[0 .. size) with every
 * route applied to its code, in place; *totals: each route's counts summed (a route with a
 * constrained call rewrites nothing and counts them in `constrained`). The header is parsed as
 * aip_method_body_parse does (ALVK_E_METHOD_BODY_MALFORMED); then each route as
 * aip_il_redirect_calls, whose failures leave the code unchanged by that route and later
 * ones. */
alvk_status aip_il_redirect_body(uint8_t *body, uint32_t size, const aip_call_route *routes,
                                 uint32_t count, aip_il_starts *starts,
                                 aip_call_redirect_counts *totals);

#define AIP_IL_FIND_CALLS_MAX 32 /* methods one search looks for: one bit each */

/* Which of froms[0 .. count) a whole IL method body at body[0 .. size) calls in a way
 * aip_il_redirect_body would rewrite: bit i of *found set when some `call` or `callvirt` has
 * froms[i] as its operand and no call of froms[i] in the code is `constrained.`-prefixed (such
 * code keeps its calls). Reads only. ALVK_E_LIMIT_EXCEEDED when count > AIP_IL_FIND_CALLS_MAX;
 * the header's and the walk's statuses (*found 0); ALVK_E_NULL_ARGUMENT. */
alvk_status aip_il_find_calls(const uint8_t *body, uint32_t size, const uint32_t *froms,
                              uint32_t count, aip_il_starts *starts, uint32_t *found);

#endif
