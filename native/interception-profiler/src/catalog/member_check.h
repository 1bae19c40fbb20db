/* The worker's member check: before a generation is published, every MemberRef it relocated
 * is looked up the way the runtime binds it (its parent resolved to a TypeDef in some loaded
 * module, then the member searched by name, kind and signature on that type and up its base
 * types). A generation is refused only when the whole chain resolved and nothing matched;
 * anything the check cannot follow is "unknown" and the generation proceeds. */
#ifndef AIP_MEMBER_CHECK_H
#define AIP_MEMBER_CHECK_H

#include "alvorkit_interception_profiler.h"
#include "catalog/module_catalog.h"
#include "coreclr/corprof_info.h"

#include <stddef.h>
#include <stdint.h>

/* How a MemberRef's signature compares with a candidate definition's. */
typedef enum aip_member_match {
    AIP_MEMBER_DIFFERENT = 0, /* certainly not the member the reference names */
    AIP_MEMBER_MATCHES = 1,   /* the same signature, byte for byte */
    AIP_MEMBER_MAYBE = 2      /* cannot be told apart without resolving tokens: not a refusal */
} aip_member_match;

/* Pure. `ref` is a MemberRef signature (a MethodRefSig, or a FieldSig when it starts with
 * FIELD 0x06), `def` a MethodDef's or FieldDef's signature. With `same_scope` both come
 * from one module (one token space): they are compared element by element, and only
 * differences that hold whatever the tokens resolve to are DIFFERENT (another primitive or
 * shape, two distinct TypeDefs, another calling convention, generic arity or parameter
 * count); a difference that involves a TypeRef, a TypeSpec, a generic variable (the runtime
 * may substitute it), a custom modifier or a function pointer is MAYBE (the types are walked by
 * metadata/signature_compare.c, AIP_SIG_ONE_MODULE). Without `same_scope` only
 * the kind (method or field) and the parameter count are compared. A VARARG reference, or a blob
 * that does not parse, is never DIFFERENT. */
aip_member_match aip_member_sig_compare(const uint8_t *ref, size_t ref_length, const uint8_t *def,
                                        size_t def_length, int same_scope);

/* What the check concluded about one MemberRef. */
typedef enum aip_member_verdict {
    AIP_MEMBER_FOUND = 0,   /* a member matched (or may match) */
    AIP_MEMBER_MISSING = 1, /* the chain resolved completely and nothing matched */
    AIP_MEMBER_UNKNOWN = 2  /* something could not be resolved: no conclusion */
} aip_member_verdict;

/* Checks every MEMBER_REF result (results[i].kind, results[i].token: tokens of `module`) of a
 * generation. ALVK_OK when none is certainly missing; ALVK_E_MEMBER_NOT_FOUND with *failing =
 * the first missing one's index, and *missing_hresult = COR_E_MISSINGFIELD or
 * COR_E_MISSINGMETHOD (what the caller would have seen). Worker thread only. */
alvk_status aip_member_check(ICorProfilerInfo15 *info, aip_module_catalog *catalog, ModuleID module,
                             const alvk_relocation_result *results, uint32_t count,
                             uint32_t *failing, int32_t *missing_hresult);

#endif
