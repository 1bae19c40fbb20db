/* Fuzzes aip_allocation_sampled_parse (the runtime's AllocationSampled v0 payload) and the
 * estimator arithmetic a parsed event feeds (aip_sampled_inclusion, aip_sampled_weight_of,
 * aip_sampled_interval, aip_estimate_interval). Input: byte 0 picks the pointer size (bit 0: 4 or
 * 8; with bit 1 set, byte 0 >> 2 as any pointer size, to be refused unless 4 or 8), bytes 1-4 a
 * sampling mean (little endian); the rest is the payload, in an exact-size heap block. Checks: the
 * result is 0 or -1 and agrees with the harness's own reading of the layout; refused output
 * untouched; an accepted event's name lies inside the input, has an even length, no zero unit and
 * is followed by a zero unit, and every field is the bytes it comes from; the parse is repeatable,
 * unchanged with bytes appended, and the payload cut one byte short of its last field is
 * refused. For the event's size: 0 <= p <= 1, at least 1/mean for a nonzero size (never above 1
 * for size 1), the weights at least one object (and the size, for sizes exact in a double),
 * and the interval holds its estimate and never drops below its floor; for 1..40 such events
 * over an exact part (aip_estimate_interval) the same, at least as wide as the Wald interval
 * (equal from AIP_POISSON_EXACT_BELOW events), and [floor, UINT64_MAX] once saturated. */
#include "fuzz_input.h"

#include "allocation/allocation_sampled_event.h"
#include "allocation/sampled_estimate.h"

static uint64_t rd(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = n; i > 0; --i)
        v = (v << 8) | p[i - 1];
    return v;
}

/* The harness's own reading: the offset past SampledByteOffset, or 0 when refused. */
static size_t reference_end(const uint8_t *b, size_t n, uint32_t ptr, size_t *name_end)
{
    if (ptr != 4 && ptr != 8)
        return 0;
    size_t at = 6 + ptr;
    if (n < at)
        return 0;
    for (;; at += 2) {
        if (at + 2 > n)
            return 0;
        if (b[at] == 0 && b[at + 1] == 0)
            break;
    }
    *name_end = at;
    size_t end = at + 2 + ptr + 16;
    return end <= n ? end : 0;
}

static void check_estimate(uint64_t size, uint32_t mean)
{
    double p = aip_sampled_inclusion(size, mean);
    AIP_FUZZ_CHECK(p >= 0.0 && p <= 1.0);
    if (size == 0) {
        AIP_FUZZ_CHECK(p == 0.0);
        return;
    }
    uint32_t m = mean < 2 ? 2 : mean;
    AIP_FUZZ_CHECK(p >= (1.0 / m) * (1.0 - 1e-12));
    aip_sampled_weight w;
    aip_sampled_weight_of(size, mean, &w);
    AIP_FUZZ_CHECK(w.objects_fx >= (1ull << AIP_ESTIMATE_FRACTION_BITS));
    if (size < (1ull << 53))
        AIP_FUZZ_CHECK(w.bytes >= size);
    uint64_t objects = w.objects_fx >> AIP_ESTIMATE_FRACTION_BITS, low, high;
    aip_sampled_interval(objects, w.var_objects_fx >> AIP_ESTIMATE_VAR_FRACTION_BITS, 0, &low,
                         &high);
    AIP_FUZZ_CHECK(low <= objects && objects <= high);
    uint64_t floor = size & 0xFFFF;
    aip_sampled_interval(w.bytes, w.var_bytes, floor, &low, &high);
    AIP_FUZZ_CHECK(low >= floor && high >= w.bytes);
    if (floor <= w.bytes)
        AIP_FUZZ_CHECK(low <= w.bytes);

    /* 1..40 events of this weight (from the mean's low bits) over the exact part `floor`: the
     * interval holds the estimate, never drops below the floor, is at least as wide as the
     * Wald one, and is [floor, UINT64_MAX] once a figure saturated. */
    uint64_t events = 1 + mean % 40, sampled = 0, variance = 0;
    for (uint64_t i = 0; i < events; ++i) {
        sampled = aip_saturating_add(sampled, w.bytes);
        variance = aip_saturating_add(variance, w.var_bytes);
    }
    uint64_t estimate = aip_saturating_add(floor, sampled), wald_low, wald_high;
    aip_sampled_interval(estimate, variance, floor, &wald_low, &wald_high);
    aip_estimate_interval(floor, sampled, variance, events, &low, &high);
    AIP_FUZZ_CHECK(low >= floor && low <= estimate && estimate <= high);
    if (estimate == UINT64_MAX || variance == UINT64_MAX) {
        AIP_FUZZ_CHECK(low == floor && high == UINT64_MAX);
    } else {
        AIP_FUZZ_CHECK(low <= wald_low && high >= wald_high);
        if (events >= AIP_POISSON_EXACT_BELOW)
            AIP_FUZZ_CHECK(low == wald_low && high == wald_high);
    }
}

/* Field by field (the struct has padding); each name at the same offset of its own input. */
static int same_event(const aip_allocation_sampled *a, const uint8_t *a_input,
                      const aip_allocation_sampled *b, const uint8_t *b_input)
{
    return a->kind == b->kind && a->clr_instance == b->clr_instance && a->class_id == b->class_id &&
           a->type_name - a_input == b->type_name - b_input &&
           a->type_name_bytes == b->type_name_bytes && a->address == b->address &&
           a->object_size == b->object_size && a->sampled_byte_offset == b->sampled_byte_offset;
}

static void check_event(const uint8_t *b, size_t n, uint32_t ptr, const aip_allocation_sampled *e,
                        size_t name_end, size_t end)
{
    size_t name_at = 6 + (size_t)ptr;
    AIP_FUZZ_CHECK(e->type_name == b + name_at);
    AIP_FUZZ_CHECK(e->type_name_bytes % 2 == 0);
    AIP_FUZZ_CHECK(name_at + e->type_name_bytes == name_end && name_end + 2 <= n);
    for (uint32_t i = 0; i < e->type_name_bytes; i += 2)
        AIP_FUZZ_CHECK(e->type_name[i] != 0 || e->type_name[i + 1] != 0);
    AIP_FUZZ_CHECK(b[name_end] == 0 && b[name_end + 1] == 0);
    AIP_FUZZ_CHECK(e->kind == (uint32_t)rd(b, 4));
    AIP_FUZZ_CHECK(e->clr_instance == (uint16_t)rd(b + 4, 2));
    AIP_FUZZ_CHECK(e->class_id == (uintptr_t)rd(b + 6, ptr));
    AIP_FUZZ_CHECK(e->address == (uintptr_t)rd(b + name_end + 2, ptr));
    AIP_FUZZ_CHECK(e->object_size == rd(b + name_end + 2 + ptr, 8));
    AIP_FUZZ_CHECK(e->sampled_byte_offset == rd(b + name_end + 2 + ptr + 8, 8));
    AIP_FUZZ_CHECK(end <= n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    aip_fuzz_reader r = aip_fuzz_reader_of(data, size);
    uint8_t pick = aip_fuzz_u8(&r);
    uint32_t mean = aip_fuzz_u32(&r);
    uint32_t ptr = (pick & 2) ? (uint32_t)(pick >> 2) : ((pick & 1) ? 8u : 4u);
    size_t n = aip_fuzz_left(&r);
    uint8_t *b = aip_fuzz_copy(data + r.at, n);

    aip_allocation_sampled e, again;
    memset(&e, 0xA5, sizeof e);
    int status = aip_allocation_sampled_parse(b, n, ptr, &e);
    AIP_FUZZ_CHECK(status == 0 || status == -1);
    size_t name_end = 0, end = reference_end(b, n, ptr, &name_end);
    AIP_FUZZ_CHECK((status == 0) == (end != 0));
    if (status != 0) {
        aip_allocation_sampled untouched;
        memset(&untouched, 0xA5, sizeof untouched);
        AIP_FUZZ_CHECK(memcmp(&e, &untouched, sizeof e) == 0);
        check_estimate(n, mean); /* the estimator still gets a size to chew on */
        free(b);
        return 0;
    }
    check_event(b, n, ptr, &e, name_end, end);
    AIP_FUZZ_CHECK(aip_allocation_sampled_parse(b, n, ptr, &again) == 0);
    AIP_FUZZ_CHECK(same_event(&e, b, &again, b));

    /* Bytes appended (a later event version) change nothing; one byte short of the last field
     * is refused. */
    uint8_t *longer = aip_fuzz_alloc(n + 9);
    memcpy(longer, b, n);
    memset(longer + n, 0x5C, 9);
    AIP_FUZZ_CHECK(aip_allocation_sampled_parse(longer, n + 9, ptr, &again) == 0);
    AIP_FUZZ_CHECK(same_event(&e, b, &again, longer));
    free(longer);
    uint8_t *shorter = aip_fuzz_copy(b, end - 1);
    AIP_FUZZ_CHECK(aip_allocation_sampled_parse(shorter, end - 1, ptr, &again) == -1);
    free(shorter);

    check_estimate(e.object_size, mean);
    free(b);
    return 0;
}
