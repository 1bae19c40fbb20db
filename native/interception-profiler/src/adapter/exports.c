/* The exported C ABI: argument checks here, behaviour in ProfilerRuntime, on the profiler
 * object CoreCLR initialized (NULL before: every call then answers as "not attached"). */
#include "alvorkit_interception_profiler.h"

#include "adapter/interception_profiler.h"
#include "allocation/allocation_capture.h"
#include "allocation/allocation_resolve.h"
#include "generation/generation_validate.h"
#include "generation/relocation_widen.h"
#include "rejit/batch_abort.h"
#include "runtime/profiler_runtime.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ABI 3.1 appended fields to some structs: their ABI 3.0 size is the minimum accepted. An
 * input shorter than today's struct is read into a zeroed copy; an output is built whole and
 * copied back only as far as the caller's size reaches. */
#define AIP_MIN_RUNTIME_STATUS offsetof(alvk_runtime_status, metadata_tokens_emitted)
#define AIP_MIN_METHOD_DESCRIPTION offsetof(alvk_method_description, module_id)
#define AIP_MIN_INSTALL_REQUEST offsetof(alvk_install_request, module_id)
#define AIP_MIN_TELEMETRY offsetof(alvk_patch_telemetry, module_id)
#define AIP_MIN_GENERATION offsetof(alvk_generation, module_id)
#define AIP_MIN_GENERATION_RESULT offsetof(alvk_generation_result, type_error_offset)
/* ABI 3.5 appended to the capture structs: their ABI 3.0 sizes. */
#define AIP_MIN_CAPTURE_OPTIONS offsetof(alvk_capture_options, stack_every)
#define AIP_MIN_CAPTURE_SUMMARY offsetof(alvk_capture_summary, source)
#define AIP_MIN_TYPE_COUNT offsetof(alvk_type_count, count_low)
#define AIP_MIN_SAMPLE offsetof(alvk_sample, object_size)
/* Every struct the ABI sizes starts with its size (copy_in, check_stride read it there). */
_Static_assert(offsetof(alvk_install_request, size) == 0, "size first");
_Static_assert(offsetof(alvk_generation, size) == 0, "size first");

/* alvk_last_command: the command this thread queued with its latest queuing call (errno's
 * pattern: per thread, so concurrent callers each read their own). */
static _Thread_local alvk_command_id t_last_command;

/* Copies what the caller's struct can hold of `full` (size fields first, both). */
static void copy_out(void *out, const void *full, size_t full_size)
{
    uint32_t size = *(const uint32_t *)out;
    size_t n = size < full_size ? size : full_size;
    memcpy((char *)out + sizeof(uint32_t), (const char *)full + sizeof(uint32_t),
           n - sizeof(uint32_t));
}

/* A zero-extended copy of an input struct the caller sized `size` (>= its minimum). `in`
 * need not be aligned (a batch's stride): its size is copied out. */
static void copy_in(void *full, size_t full_size, const void *in)
{
    uint32_t size = 0;
    memcpy(&size, in, sizeof size);
    size_t n = size < full_size ? size : full_size;
    memset(full, 0, full_size);
    memcpy(full, in, n);
    *(uint32_t *)full = (uint32_t)full_size;
}

ALVK_API uint32_t ALVK_CALL alvk_version_number(void)
{
    return ALVK_ABI_VERSION;
}

ALVK_API alvk_status ALVK_CALL alvk_get_runtime_status(alvk_runtime_status *out)
{
    if (out == 0)
        return ALVK_E_NULL_ARGUMENT;
    if (out->size < AIP_MIN_RUNTIME_STATUS)
        return ALVK_E_STRUCT_SIZE;
    alvk_runtime_status full;
    memset(&full, 0, sizeof full);
    full.size = sizeof full;
    alvk_status status = aip_runtime_get_status(aip_attached_profiler(), &full);
    copy_out(out, &full, sizeof full);
    return status;
}

ALVK_API alvk_status ALVK_CALL alvk_describe_method(const alvk_mvid *mvid, uint32_t method_token,
                                                    alvk_method_description *out)
{
    if (mvid == 0 || out == 0)
        return ALVK_E_NULL_ARGUMENT;
    if (out->size < AIP_MIN_METHOD_DESCRIPTION)
        return ALVK_E_STRUCT_SIZE;
    alvk_method_description full;
    memset(&full, 0, sizeof full);
    full.size = sizeof full;
    alvk_status status =
        aip_runtime_describe_method(aip_attached_profiler(), mvid, 0, 0, method_token, &full);
    if (status == ALVK_OK)
        copy_out(out, &full, sizeof full);
    return status;
}

ALVK_API alvk_status ALVK_CALL alvk_describe_module_method(uint64_t module_id,
                                                           uint32_t module_epoch,
                                                           uint32_t method_token,
                                                           alvk_method_description *out)
{
    if (out == 0)
        return ALVK_E_NULL_ARGUMENT;
    if (out->size < AIP_MIN_METHOD_DESCRIPTION)
        return ALVK_E_STRUCT_SIZE;
    if (module_id == 0)
        return ALVK_E_UNKNOWN_MODULE;
    alvk_method_description full;
    memset(&full, 0, sizeof full);
    full.size = sizeof full;
    alvk_status status = aip_runtime_describe_method(aip_attached_profiler(), 0, module_id,
                                                     module_epoch, method_token, &full);
    if (status == ALVK_OK)
        copy_out(out, &full, sizeof full);
    return status;
}

ALVK_API alvk_status ALVK_CALL alvk_module_identify(const alvk_mvid *mvid, uint32_t method_token,
                                                    uint64_t method_handle, alvk_module_info *out)
{
    if (mvid == 0 || out == 0)
        return ALVK_E_NULL_ARGUMENT;
    if (out->size < sizeof(alvk_module_info))
        return ALVK_E_STRUCT_SIZE;
    return aip_runtime_module_identify(aip_attached_profiler(), mvid, method_token, method_handle,
                                       out);
}

ALVK_API alvk_status ALVK_CALL alvk_patch_install(const alvk_install_request *request,
                                                  alvk_patch_handle *handle)
{
    t_last_command = 0;
    if (request == 0 || handle == 0)
        return ALVK_E_NULL_ARGUMENT;
    if (request->size < AIP_MIN_INSTALL_REQUEST)
        return ALVK_E_STRUCT_SIZE;
    alvk_install_request full;
    copy_in(&full, sizeof full, request);
    t_last_command = 0;
    return aip_runtime_patch_install(aip_attached_profiler(), &full, handle, &t_last_command);
}

ALVK_API alvk_status ALVK_CALL alvk_patch_replace(alvk_patch_handle handle, uint64_t owner,
                                                  uint64_t replacement)
{
    t_last_command = 0;
    return aip_runtime_patch_replace(aip_attached_profiler(), handle, owner, replacement,
                                     &t_last_command);
}

ALVK_API alvk_status ALVK_CALL alvk_patch_remove(alvk_patch_handle handle, uint64_t owner)
{
    t_last_command = 0;
    return aip_runtime_patch_remove(aip_attached_profiler(), handle, owner, &t_last_command);
}

ALVK_API alvk_command_id ALVK_CALL alvk_last_command(void)
{
    return t_last_command;
}

ALVK_API alvk_status ALVK_CALL alvk_command_wait(alvk_command_id command, uint32_t timeout_ms,
                                                 alvk_status *command_status)
{
    if (command_status == 0)
        return ALVK_E_NULL_ARGUMENT;
    return aip_runtime_command_wait(aip_attached_profiler(), command, timeout_ms, command_status);
}

ALVK_API alvk_status ALVK_CALL alvk_patch_wait(alvk_patch_handle handle, uint32_t timeout_ms)
{
    return aip_runtime_patch_wait(aip_attached_profiler(), handle, timeout_ms);
}

ALVK_API alvk_status ALVK_CALL alvk_patch_get_telemetry(alvk_patch_handle handle,
                                                        alvk_patch_telemetry *out)
{
    if (out == 0)
        return ALVK_E_NULL_ARGUMENT;
    if (out->size < AIP_MIN_TELEMETRY)
        return ALVK_E_STRUCT_SIZE;
    alvk_patch_telemetry full;
    memset(&full, 0, sizeof full);
    full.size = sizeof full;
    alvk_status status = aip_runtime_patch_telemetry(aip_attached_profiler(), handle, &full);
    if (status == ALVK_OK)
        copy_out(out, &full, sizeof full);
    return status;
}

ALVK_API alvk_status ALVK_CALL alvk_generation_submit(const alvk_generation *generation,
                                                      alvk_patch_handle *handle,
                                                      alvk_generation_id *id)
{
    t_last_command = 0;
    if (generation == 0 || handle == 0 || id == 0)
        return ALVK_E_NULL_ARGUMENT;
    if (generation->size < AIP_MIN_GENERATION)
        return ALVK_E_STRUCT_SIZE;
    alvk_generation full;
    copy_in(&full, sizeof full, generation);
    alvk_relocation *wide = NULL;
    alvk_status status = aip_relocations_widen(&full, &wide);
    if (status == ALVK_OK)
        status = aip_runtime_generation_submit(aip_attached_profiler(), &full, handle, id,
                                               &t_last_command);
    free(wide);
    return status;
}

ALVK_API alvk_status ALVK_CALL alvk_generation_get_result(alvk_patch_handle handle,
                                                          alvk_generation_id id,
                                                          alvk_generation_result *out,
                                                          alvk_relocation_result *relocations,
                                                          uint32_t capacity)
{
    if (out == 0 || (relocations == 0 && capacity > 0))
        return ALVK_E_NULL_ARGUMENT;
    if (out->size < AIP_MIN_GENERATION_RESULT)
        return ALVK_E_STRUCT_SIZE;
    for (uint32_t i = 0; i < capacity; ++i)
        if (relocations[i].size < sizeof(alvk_relocation_result))
            return ALVK_E_STRUCT_SIZE;
    alvk_generation_result full;
    memset(&full, 0, sizeof full);
    full.size = sizeof full;
    alvk_status status = aip_runtime_generation_result(aip_attached_profiler(), handle, id, &full,
                                                       relocations, capacity);
    if (status == ALVK_OK)
        copy_out(out, &full, sizeof full);
    return status;
}

ALVK_API alvk_status ALVK_CALL alvk_generation_validate(const alvk_generation *generation,
                                                        uint32_t *failing_index)
{
    if (generation == 0 || failing_index == 0)
        return ALVK_E_NULL_ARGUMENT;
    if (generation->size < AIP_MIN_GENERATION)
        return ALVK_E_STRUCT_SIZE;
    alvk_generation full;
    copy_in(&full, sizeof full, generation);
    alvk_relocation *wide = NULL;
    aip_generation_check check;
    memset(&check, 0, sizeof check);
    alvk_status status = aip_relocations_widen(&full, &wide);
    if (status == ALVK_OK)
        status = aip_generation_validate(&full, AIP_ORIGINAL_SIZE_UNKNOWN, &check);
    free(wide);
    *failing_index = status == ALVK_OK ? 0 : check.failing_index;
    return status;
}

ALVK_API alvk_status ALVK_CALL alvk_capture_begin(const alvk_capture_options *options)
{
    if (options == 0)
        return ALVK_E_NULL_ARGUMENT;
    if (options->size < AIP_MIN_CAPTURE_OPTIONS)
        return ALVK_E_STRUCT_SIZE;
    alvk_capture_options full;
    copy_in(&full, sizeof full, options);
    return aip_allocation_begin(aip_runtime_allocations(aip_attached_profiler()), &full);
}

ALVK_API alvk_status ALVK_CALL alvk_capture_end(alvk_capture_summary *summary)
{
    if (summary == 0)
        return ALVK_E_NULL_ARGUMENT;
    if (summary->size < AIP_MIN_CAPTURE_SUMMARY)
        return ALVK_E_STRUCT_SIZE;
    alvk_capture_summary full;
    memset(&full, 0, sizeof full); /* size 0 until the window closed and filled it */
    alvk_status status =
        aip_allocation_end(aip_runtime_allocations(aip_attached_profiler()), &full);
    if (full.size != 0)
        copy_out(summary, &full, sizeof full);
    return status;
}

/* An array whose elements all carry one size of at least `minimum` (their ABI 3.0 size),
 * which is also the stride (it need not keep them aligned: each size is copied out, not read
 * in place); *stride receives it. ALVK_E_STRUCT_SIZE with *at the first element that breaks
 * the rule, else ALVK_OK. Every array of structs the ABI takes (outputs and batches) is
 * checked here. */
static alvk_status check_stride(const void *array, uint32_t count, size_t minimum, uint32_t *stride,
                                uint32_t *at)
{
    *stride = 0;
    *at = 0;
    if (count == 0)
        return ALVK_OK;
    memcpy(stride, array, sizeof *stride);
    if (*stride < minimum)
        return ALVK_E_STRUCT_SIZE;
    for (uint32_t i = 1; i < count; ++i) {
        uint32_t size = 0;
        memcpy(&size, (const char *)array + (size_t)i * *stride, sizeof size);
        if (size != *stride) {
            *at = i;
            return ALVK_E_STRUCT_SIZE;
        }
    }
    return ALVK_OK;
}

/* An output array and its written count present, then its stride as above. */
static alvk_status check_output(const void *out, uint32_t capacity, size_t minimum,
                                uint32_t *written, uint32_t *stride)
{
    if ((out == 0 && capacity > 0) || written == 0)
        return ALVK_E_NULL_ARGUMENT;
    uint32_t at = 0;
    return check_stride(out, capacity, minimum, stride, &at);
}

ALVK_API alvk_status ALVK_CALL alvk_capture_read_types(uint32_t first, alvk_type_count *out,
                                                       uint32_t capacity, uint32_t *written)
{
    uint32_t stride = 0;
    alvk_status status = check_output(out, capacity, AIP_MIN_TYPE_COUNT, written, &stride);
    if (status != ALVK_OK)
        return status;
    return aip_allocation_read_types(aip_runtime_allocations(aip_attached_profiler()), first, out,
                                     stride, capacity, written);
}

ALVK_API alvk_status ALVK_CALL alvk_capture_read_samples(uint32_t first, alvk_sample *out,
                                                         uint32_t capacity, uint32_t *written)
{
    uint32_t stride = 0;
    alvk_status status = check_output(out, capacity, AIP_MIN_SAMPLE, written, &stride);
    if (status != ALVK_OK)
        return status;
    return aip_allocation_read_samples(aip_runtime_allocations(aip_attached_profiler()), first, out,
                                       stride, capacity, written);
}

ALVK_API alvk_status ALVK_CALL alvk_capture_describe_function(uint64_t function_id,
                                                              alvk_method_info *out)
{
    if (out == 0)
        return ALVK_E_NULL_ARGUMENT;
    if (out->size < sizeof(alvk_method_info))
        return ALVK_E_STRUCT_SIZE;
    return aip_allocation_describe_function(aip_runtime_allocations(aip_attached_profiler()),
                                            function_id, out);
}

ALVK_API alvk_status ALVK_CALL alvk_capture_get_state(alvk_capture_state *out)
{
    if (out == 0)
        return ALVK_E_NULL_ARGUMENT;
    if (out->size < sizeof(alvk_capture_state))
        return ALVK_E_STRUCT_SIZE;
    alvk_capture_state full;
    alvk_status status =
        aip_allocation_get_state(aip_runtime_allocations(aip_attached_profiler()), &full);
    copy_out(out, &full, sizeof full);
    return status;
}

ALVK_API alvk_status ALVK_CALL alvk_patch_replace_with(alvk_patch_handle handle, uint64_t owner,
                                                       const alvk_replacement *replacement)
{
    t_last_command = 0;
    if (replacement == 0)
        return ALVK_E_NULL_ARGUMENT;
    if (replacement->size < sizeof(alvk_replacement))
        return ALVK_E_STRUCT_SIZE;
    return aip_runtime_patch_replace_with(aip_attached_profiler(), handle, owner, replacement,
                                          &t_last_command);
}

/* A batch refused before it reaches the runtime: no handles; request `at` has `status`, the
 * others ALVK_E_BATCH_ABORTED (at == count: every request has `status`). */
static alvk_status refuse_batch(alvk_patch_handle *handles, alvk_status *statuses, uint32_t count,
                                uint32_t at, alvk_status status)
{
    for (uint32_t k = 0; k < count; ++k)
        handles[k] = 0;
    return aip_batch_refuse(statuses, count, at, status);
}

ALVK_API alvk_status ALVK_CALL alvk_patch_install_batch(const alvk_install_request *requests,
                                                        uint32_t count, alvk_patch_handle *handles,
                                                        alvk_status *statuses)
{
    t_last_command = 0;
    if (requests == 0 || handles == 0 || statuses == 0)
        return ALVK_E_NULL_ARGUMENT;
    if (count == 0 || count > ALVK_MAX_BATCH_REQUESTS)
        return ALVK_E_LIMIT_EXCEEDED;
    /* Every request as long as the first (the stride), else that one is refused, none queued. */
    uint32_t stride = 0, at = 0;
    if (check_stride(requests, count, AIP_MIN_INSTALL_REQUEST, &stride, &at) != ALVK_OK)
        return refuse_batch(handles, statuses, count, at, ALVK_E_STRUCT_SIZE);
    alvk_install_request *full = malloc((size_t)count * sizeof *full);
    if (full == 0)
        return refuse_batch(handles, statuses, count, count, ALVK_E_INTERNAL);
    for (uint32_t i = 0; i < count; ++i)
        copy_in(&full[i], sizeof full[i], (const char *)requests + (size_t)i * stride);
    alvk_status status = aip_runtime_patch_install_batch(aip_attached_profiler(), full, count,
                                                         handles, statuses, &t_last_command);
    free(full);
    return status;
}

/* A generation batch refused before it reaches the runtime: no handles or IDs; generation
 * `at` has `status`, the others ALVK_E_BATCH_ABORTED (at == count: every one has `status`). */
static alvk_status refuse_generations(alvk_patch_handle *handles, alvk_generation_id *ids,
                                      alvk_status *statuses, uint32_t count, uint32_t at,
                                      alvk_status status)
{
    for (uint32_t k = 0; k < count; ++k)
        ids[k] = 0;
    return refuse_batch(handles, statuses, count, at, status);
}

ALVK_API alvk_status ALVK_CALL alvk_generation_submit_batch(const alvk_generation *generations,
                                                            uint32_t count,
                                                            alvk_patch_handle *handles,
                                                            alvk_generation_id *ids,
                                                            alvk_status *statuses)
{
    t_last_command = 0;
    if (generations == 0 || handles == 0 || ids == 0 || statuses == 0)
        return ALVK_E_NULL_ARGUMENT;
    if (count == 0 || count > ALVK_MAX_BATCH_REQUESTS)
        return ALVK_E_LIMIT_EXCEEDED;
    /* Every generation as long as the first (the stride), else that one is refused, none
     * queued. */
    uint32_t stride = 0, at = 0;
    if (check_stride(generations, count, AIP_MIN_GENERATION, &stride, &at) != ALVK_OK)
        return refuse_generations(handles, ids, statuses, count, at, ALVK_E_STRUCT_SIZE);
    alvk_generation *full = malloc((size_t)count * sizeof *full);
    alvk_relocation **wide = calloc(count, sizeof *wide);
    alvk_status status = ALVK_OK;
    uint32_t failing = count; /* the generation whose relocations could not be widened */
    for (uint32_t i = 0; full != 0 && wide != 0 && i < count && status == ALVK_OK; ++i) {
        copy_in(&full[i], sizeof full[i], (const char *)generations + (size_t)i * stride);
        status = aip_relocations_widen(&full[i], &wide[i]);
        if (status != ALVK_OK)
            failing = i;
    }
    if (full == 0 || wide == 0)
        status = refuse_generations(handles, ids, statuses, count, count, ALVK_E_INTERNAL);
    else if (status != ALVK_OK)
        status = refuse_generations(handles, ids, statuses, count, failing, status);
    else
        status = aip_runtime_generation_submit_batch(aip_attached_profiler(), full, count, handles,
                                                     ids, statuses, &t_last_command);
    for (uint32_t i = 0; wide != 0 && i < count; ++i)
        free(wide[i]);
    free(wide);
    free(full);
    return status;
}
