/* The AllocationSampled v0 payload reader. */
#include "allocation/allocation_sampled_event.h"

#include <string.h>

/* Little-endian unsigned of `bytes` (1..8) bytes at p, read byte by byte (any alignment, any
 * host byte order). */
static uint64_t read_le(const uint8_t *p, uint32_t bytes)
{
    uint8_t raw[8];
    memcpy(raw, p, bytes);
    uint64_t value = 0;
    for (uint32_t i = bytes; i > 0; --i)
        value = (value << 8) | raw[i - 1];
    return value;
}

int aip_allocation_sampled_parse(const uint8_t *data, size_t size, uint32_t pointer_size,
                                 aip_allocation_sampled *out)
{
    if (data == NULL || out == NULL)
        return -1;
    if ((pointer_size != 4 && pointer_size != 8) || pointer_size > sizeof(uintptr_t))
        return -1;
    size_t name_at = AIP_ALLOCATION_SAMPLED_HEAD_BYTES + pointer_size;
    if (size < name_at)
        return -1;
    /* The name: 2-byte units up to the first zero unit, which must lie inside the payload. */
    size_t nul = name_at;
    while (nul + 2 <= size && (data[nul] != 0 || data[nul + 1] != 0))
        nul += 2;
    if (nul + 2 > size)
        return -1;
    size_t name_bytes = nul - name_at;
    if (name_bytes > UINT32_MAX)
        return -1;
    size_t tail_at = nul + 2;
    if (size - tail_at < (size_t)pointer_size + 16u)
        return -1;
    aip_allocation_sampled e;
    e.kind = (uint32_t)read_le(data, 4);
    e.clr_instance = (uint16_t)read_le(data + 4, 2);
    e.class_id = (uintptr_t)read_le(data + AIP_ALLOCATION_SAMPLED_HEAD_BYTES, pointer_size);
    e.type_name = data + name_at;
    e.type_name_bytes = (uint32_t)name_bytes;
    e.address = (uintptr_t)read_le(data + tail_at, pointer_size);
    e.object_size = read_le(data + tail_at + pointer_size, 8);
    e.sampled_byte_offset = read_le(data + tail_at + pointer_size + 8, 8);
    *out = e;
    return 0;
}
