/* The runtime's AllocationSampled event (Microsoft-Windows-DotNETRuntime event 303, version 0),
 * read from its EventPipe payload: packed, little endian, pointers of the target process's
 * size. Pure: no runtime, no allocation. */
#ifndef AIP_ALLOCATION_SAMPLED_EVENT_H
#define AIP_ALLOCATION_SAMPLED_EVENT_H

#include <stddef.h>
#include <stdint.h>

#define AIP_ALLOCATION_SAMPLED_EVENT_ID 303u

/* AllocationKind values as the runtime writes them. */
#define AIP_ALLOCATION_KIND_SMALL 0u
#define AIP_ALLOCATION_KIND_LARGE 1u
#define AIP_ALLOCATION_KIND_PINNED 2u

typedef struct aip_allocation_sampled {
    uint32_t kind; /* 0 SOH, 1 LOH, 2 POH as written (>2 is kept: the caller decides) */
    uint16_t clr_instance;
    uintptr_t class_id;       /* TypeID */
    const uint8_t *type_name; /* UTF-16LE inside the payload, without its NUL; may be unaligned */
    uint32_t type_name_bytes; /* even */
    uintptr_t address;
    uint64_t object_size;
    uint64_t sampled_byte_offset;
} aip_allocation_sampled;

/* The payload's layout: AllocationKind u32, ClrInstanceID u16, TypeID pointer-sized, TypeName
 * UTF-16 NUL-terminated, Address pointer-sized, ObjectSize u64, SampledByteOffset u64. */
#define AIP_ALLOCATION_SAMPLED_HEAD_BYTES 6u /* kind and instance, before TypeID */

/* 0, or -1 when `data` is not a whole AllocationSampled v0 payload for pointers of pointer_size
 * (4 or 8) bytes: too short, the name without its NUL inside the payload, pointer_size not 4/8
 * (or a pointer wider than this process's uintptr_t: 8 in a 32-bit build), `data` or `out`
 * NULL. The name is read in 2-byte units from its start, so its length is always even.
 * Trailing bytes after SampledByteOffset are allowed (later event versions append fields).
 * Reads every field with memcpy (unaligned). `out` is written only on success. */
int aip_allocation_sampled_parse(const uint8_t *data, size_t size, uint32_t pointer_size,
                                 aip_allocation_sampled *out);

#endif
