/* Resolving what a capture window recorded, after it closed: type names, method names,
 * frames to module MVID, method token and IL offset (through the native code version that
 * contains the IP). Called on the reading thread; no callback is running. */
#ifndef AIP_ALLOCATION_RESOLVE_H
#define AIP_ALLOCATION_RESOLVE_H

#include "allocation/capture_state.h"

#include <stddef.h>

void aip_allocation_type_name(ICorProfilerInfo15 *info, ClassID cls, char *out, size_t cap);
alvk_status aip_allocation_method_name(ICorProfilerInfo15 *info, FunctionID function,
                                       ModuleID *module, uint32_t *token, char *out, size_t cap);

/* The window's resolution, run in the worker slot reserved before it closed; it ends the
 * closing phase. */
alvk_status aip_allocation_resolve(aip_allocation_state *a, uint32_t slot);

/* One pass over the window's results into the caller's array: elements `stride` bytes apart
 * (the exported call checked it: at least the ABI 3.0 size), each filled as far as the
 * stride reaches, its size field left as the caller set it. */
alvk_status aip_allocation_read_types(aip_allocation_state *a, uint32_t first, void *out,
                                      size_t stride, uint32_t capacity, uint32_t *written);
alvk_status aip_allocation_read_samples(aip_allocation_state *a, uint32_t first, void *out,
                                        size_t stride, uint32_t capacity, uint32_t *written);
alvk_status aip_allocation_describe_function(aip_allocation_state *a, uint64_t function_id,
                                             alvk_method_info *out);

#endif
