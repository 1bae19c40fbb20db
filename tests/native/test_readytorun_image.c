/* The ReadyToRun header parser: IL-only, ReadyToRun and cross-module images, mapped and flat,
 * the header walk step by step, each documented malformation, truncations and bit flips read
 * inside exact-size heap copies (ASan sees any read past the range). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "readytorun_fixture.h"

static uint8_t image[FIX_MAPPED_BYTES];

/* Parses a heap copy of exactly `length` bytes. */
static aip_image_result parse(const uint8_t *b, size_t length, aip_image_layout layout,
                              aip_readytorun_info *out)
{
    uint8_t *copy = malloc(length != 0 ? length : 1);
    assert_non_null(copy);
    memcpy(copy, b, length);
    aip_image_result result = aip_readytorun_parse(copy, length, layout, out);
    free(copy);
    return result;
}

static const uint32_t PLAIN[] = {102, 103, 114};
static const uint32_t CROSS[] = {102, 103, 119};
static const uint32_t COMPOSITE_COMPONENT[] = {116};

static void il_only_and_native_images_are_not_readytorun(void **state)
{
    (void)state;
    aip_readytorun_info info;
    for (int layout = 0; layout < 2; ++layout) {
        size_t n = fix_build(image, (aip_image_layout)layout, 0, 0, 0, NULL, 0);
        assert_int_equal(parse(image, n, (aip_image_layout)layout, &info), AIP_IMAGE_OK);
        assert_true(info.is_cli);
        assert_false(info.is_readytorun);
        assert_false(info.may_inline_other_modules);
    }
    /* Another native header (not 'RTR'): a CLI image, not ReadyToRun. */
    size_t n = fix_build(image, AIP_IMAGE_MAPPED, FIX_R2R_RVA, 0x12345678u, 0x40, CROSS, 3);
    assert_int_equal(parse(image, n, AIP_IMAGE_MAPPED, &info), AIP_IMAGE_OK);
    assert_true(info.is_cli);
    assert_false(info.is_readytorun);
    /* Fewer than 15 data directories: no CLI header at all. */
    n = fix_build(image, AIP_IMAGE_MAPPED, 0, 0, 0, NULL, 0);
    fix_put(image, FIX_OPTIONAL + 108, 14, 4);
    assert_int_equal(parse(image, n, AIP_IMAGE_MAPPED, &info), AIP_IMAGE_OK);
    assert_false(info.is_cli);
}

static void readytorun_headers_mapped_and_flat_agree(void **state)
{
    (void)state;
    aip_readytorun_info mapped, flat;
    size_t n = fix_build(image, AIP_IMAGE_MAPPED, FIX_R2R_RVA, AIP_R2R_SIGNATURE, 0x1, PLAIN, 3);
    assert_int_equal(parse(image, n, AIP_IMAGE_MAPPED, &mapped), AIP_IMAGE_OK);
    n = fix_build(image, AIP_IMAGE_FLAT, FIX_R2R_RVA, AIP_R2R_SIGNATURE, 0x1, PLAIN, 3);
    assert_int_equal(parse(image, n, AIP_IMAGE_FLAT, &flat), AIP_IMAGE_OK);
    assert_memory_equal(&mapped, &flat, sizeof mapped);
    assert_true(mapped.is_cli && mapped.is_readytorun);
    assert_int_equal(mapped.major_version, 16);
    assert_int_equal(mapped.minor_version, 0);
    assert_int_equal(mapped.flags, 0x1);
    assert_int_equal(mapped.section_count, 3);
    assert_true(mapped.has_inlining_info2);
    assert_int_equal(mapped.cross_module_inline_bytes, 0);
    /* Inlining inside its own assembly only: the runtime tracks it. */
    assert_false(mapped.may_inline_other_modules);
}

/* Section 119 of real crossgen2 images (.NET 10.0.12, multi-module format): the proof's
 * CrossEarly built without and with --opt-cross-module, its Targets (Target inlined into two
 * methods of its own), and AlvorKit.Interception.Native (four local inlinees). The framework's
 * images record only local inlinees too. */
static const uint8_t CROSS_EARLY_PLAIN[] = {0x00, 0x02, 0x02};
static const uint8_t CROSS_EARLY_OPT[] = {0x00, 0x02, 0x04, 0x23, 0x02, 0x06, 0x02, 0x06, 0x00};
/* CrossEarly compiled with --inputbubble and the target's assembly as a bubble reference: Target
 * is recorded as a method of module 4 of its version bubble. */
static const uint8_t CROSS_EARLY_BUBBLE[] = {0x00, 0x02, 0x04, 0x23, 0x02,
                                             0x08, 0x08, 0x08, 0x06, 0x00};
static const uint8_t TARGETS[] = {0x00, 0x02, 0x04, 0x23, 0x02, 0x08, 0x08, 0x00, 0x08, 0x04};
static const uint8_t NATIVE[] = {0x00, 0x02, 0x0a, 0x0c, 0x0e, 0x5a, 0x12, 0x66, 0x16, 0xb9,
                                 0x1a, 0x06, 0xe8, 0x00, 0x84, 0x06, 0xf0, 0x00, 0x84, 0x06,
                                 0xf8, 0x00, 0x84, 0x06, 0x01, 0x02, 0x00, 0x84};

static aip_r2r_inline_scope scope_of(const uint8_t *bytes, size_t n, int multi_module)
{
    uint8_t *copy = malloc(n != 0 ? n : 1);
    assert_non_null(copy);
    memcpy(copy, bytes, n);
    aip_r2r_inline_scope scope = aip_r2r_inline_scope_of(copy, n, multi_module);
    free(copy);
    return scope;
}

static void inline_info_of_real_images(void **state)
{
    (void)state;
    assert_int_equal(scope_of(CROSS_EARLY_PLAIN, sizeof CROSS_EARLY_PLAIN, 1),
                     AIP_R2R_INLINES_NONE);
    assert_int_equal(scope_of(CROSS_EARLY_OPT, sizeof CROSS_EARLY_OPT, 1), AIP_R2R_INLINES_OTHER);
    assert_int_equal(scope_of(CROSS_EARLY_BUBBLE, sizeof CROSS_EARLY_BUBBLE, 1),
                     AIP_R2R_INLINES_OTHER);
    assert_int_equal(scope_of(TARGETS, sizeof TARGETS, 1), AIP_R2R_INLINES_LOCAL);
    assert_int_equal(scope_of(NATIVE, sizeof NATIVE, 1), AIP_R2R_INLINES_LOCAL);
    /* Every prefix that cuts the bucket table, an entry's offset or a value the scope reads
     * (count, inlinee, module) is refused; the last entry's inliner (byte 27) is not read. */
    for (size_t n = 0; n < 27; ++n)
        assert_int_equal(scope_of(NATIVE, n, 1), AIP_R2R_INLINES_MALFORMED);
    assert_int_equal(scope_of(NATIVE, 27, 1), AIP_R2R_INLINES_LOCAL);
}

static void inline_info_entries_and_encodings(void **state)
{
    (void)state;
    /* A local inlinee of module 3 of the version bubble: another module (multi-module format
     * only; without it the 3 is an inliner). */
    const uint8_t module3[] = {0x00, 0x02, 0x04, 0x23, 0x02, 0x06, 0x08, 0x06, 0x02};
    assert_int_equal(scope_of(module3, sizeof module3, 1), AIP_R2R_INLINES_OTHER);
    assert_int_equal(scope_of(module3, sizeof module3, 0), AIP_R2R_INLINES_LOCAL);
    /* An inlinee with inliners in other modules (flag 0x2). */
    const uint8_t inliners[] = {0x00, 0x02, 0x04, 0x23, 0x02, 0x04, 0x0C, 0x02};
    assert_int_equal(scope_of(inliners, sizeof inliners, 0), AIP_R2R_INLINES_OTHER);
    /* Two buckets of 2-byte offsets (header 0b101: shift 1, width code 1); the entry is in
     * the second bucket, its offset encoded on two bytes (0x01 | value << 2), its inlinee
     * index on two bytes. */
    const uint8_t wide[] = {0x05, 0x06, 0x00, 0x06, 0x00, 0x09, 0x00, 0x77,
                            0x0D, 0x00, 0xFF, 0x04, 0x01, 0x04, 0x00};
    assert_int_equal(scope_of(wide, sizeof wide, 1), AIP_R2R_INLINES_LOCAL);
    /* Refusals: entry index width code 3; a bucket table past the end; a bucket that ends
     * before it starts; an entry offset outside the section; an entry of count 0; a value
     * with an invalid length code. */
    const uint8_t width3[] = {0x03, 0x02, 0x02};
    const uint8_t table_cut[] = {0x04, 0x03, 0x03};
    const uint8_t backwards[] = {0x00, 0x05, 0x02};
    const uint8_t outside[] = {0x00, 0x02, 0x04, 0x23, 0x7E};
    const uint8_t empty_stream[] = {0x00, 0x02, 0x04, 0x23, 0x02, 0x00};
    const uint8_t bad_length[] = {0x00, 0x02, 0x04, 0x23, 0x02, 0x1F, 0x00, 0x00, 0x00, 0x00};
    assert_int_equal(scope_of(width3, sizeof width3, 1), AIP_R2R_INLINES_MALFORMED);
    assert_int_equal(scope_of(table_cut, sizeof table_cut, 1), AIP_R2R_INLINES_MALFORMED);
    assert_int_equal(scope_of(backwards, sizeof backwards, 1), AIP_R2R_INLINES_MALFORMED);
    assert_int_equal(scope_of(outside, sizeof outside, 1), AIP_R2R_INLINES_MALFORMED);
    assert_int_equal(scope_of(empty_stream, sizeof empty_stream, 1), AIP_R2R_INLINES_MALFORMED);
    assert_int_equal(scope_of(bad_length, sizeof bad_length, 1), AIP_R2R_INLINES_MALFORMED);
    assert_int_equal(aip_r2r_inline_scope_of(NULL, 0, 1), AIP_R2R_INLINES_MALFORMED);
}

static void cross_module_images_are_told_apart(void **state)
{
    (void)state;
    aip_readytorun_info info;
    /* The flags of every .NET 10 crossgen2 image (0x4B: a multi-module version bubble) with an
     * inline section: what the section says decides. */
    struct {
        const uint8_t *bytes;
        uint32_t n;
        uint8_t scope;
        uint8_t may_inline;
    } cases[] = {
        {CROSS_EARLY_PLAIN, sizeof CROSS_EARLY_PLAIN, AIP_R2R_INLINES_NONE, 0},
        {TARGETS, sizeof TARGETS, AIP_R2R_INLINES_LOCAL, 0},
        {CROSS_EARLY_OPT, sizeof CROSS_EARLY_OPT, AIP_R2R_INLINES_OTHER, 1},
        {NATIVE, 8, AIP_R2R_INLINES_MALFORMED, 1}, /* cut: unreadable counts as "other" */
    };
    for (int layout = 0; layout < 2; ++layout) {
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
            size_t n = fix_build(image, (aip_image_layout)layout, FIX_R2R_RVA, AIP_R2R_SIGNATURE,
                                 0x4B, CROSS, 3);
            fix_section_bytes(image, (aip_image_layout)layout, 2, cases[i].bytes, cases[i].n);
            assert_int_equal(parse(image, n, (aip_image_layout)layout, &info), AIP_IMAGE_OK);
            assert_int_equal(info.cross_module_inline_bytes, cases[i].n);
            assert_int_equal(info.inline_scope, cases[i].scope);
            assert_int_equal(info.may_inline_other_modules, cases[i].may_inline);
        }
    }
    /* A section 119 that does not lie inside the image: the image is malformed. */
    size_t n = fix_build(image, AIP_IMAGE_MAPPED, FIX_R2R_RVA, AIP_R2R_SIGNATURE, 0x4B, CROSS, 3);
    fix_put(image, FIX_R2R_RVA + 16 + 12 * 2 + 4, 0x2FF8, 4);
    assert_int_equal(parse(image, n, AIP_IMAGE_MAPPED, &info), AIP_IMAGE_MALFORMED);
    /* A multi-module bubble without section 119: cannot tell, so it may. */
    n = fix_build(image, AIP_IMAGE_MAPPED, FIX_R2R_RVA, AIP_R2R_SIGNATURE, 0x4B, PLAIN, 3);
    assert_int_equal(parse(image, n, AIP_IMAGE_MAPPED, &info), AIP_IMAGE_OK);
    assert_true(info.may_inline_other_modules);
    const uint32_t flags[] = {AIP_R2R_FLAG_COMPONENT, AIP_R2R_FLAG_MULTIMODULE_VERSION_BUBBLE,
                              AIP_R2R_FLAG_UNRELATED_R2R_CODE};
    for (size_t i = 0; i < 3; ++i) {
        n = fix_build(image, AIP_IMAGE_FLAT, FIX_R2R_RVA, AIP_R2R_SIGNATURE, flags[i], PLAIN, 3);
        assert_int_equal(parse(image, n, AIP_IMAGE_FLAT, &info), AIP_IMAGE_OK);
        assert_int_equal(info.flags, flags[i]);
        assert_true(info.may_inline_other_modules);
    }
    n = fix_build(image, AIP_IMAGE_MAPPED, FIX_R2R_RVA, AIP_R2R_SIGNATURE, 0, COMPOSITE_COMPONENT,
                  1);
    assert_int_equal(parse(image, n, AIP_IMAGE_MAPPED, &info), AIP_IMAGE_OK);
    assert_true(info.has_owner_composite && info.may_inline_other_modules);
}

static void the_extent_is_learned_step_by_step(void **state)
{
    (void)state;
    for (int layout = 0; layout < 2; ++layout) {
        size_t n = fix_build(image, (aip_image_layout)layout, FIX_R2R_RVA, AIP_R2R_SIGNATURE, 0,
                             PLAIN, 3);
        size_t readable = 16, needed = 0;
        uint32_t extent = 0;
        int steps = 0;
        aip_image_result r = AIP_IMAGE_NEED_MORE;
        while (r == AIP_IMAGE_NEED_MORE && steps < 8) {
            uint8_t *copy = malloc(readable);
            assert_non_null(copy);
            memcpy(copy, image, readable);
            r = aip_pe_extent(copy, readable, (aip_image_layout)layout, &needed, &extent);
            free(copy);
            if (r == AIP_IMAGE_NEED_MORE)
                assert_true(needed > readable);
            readable = needed;
            ++steps;
        }
        assert_int_equal(r, AIP_IMAGE_OK);
        assert_int_equal(steps, 4); /* 16 -> DOS header -> COFF -> section table */
        assert_int_equal(needed, FIX_SECTIONS + 40);
        assert_int_equal(extent, layout == AIP_IMAGE_MAPPED ? FIX_MAPPED_BYTES : FIX_FLAT_BYTES);
        assert_int_equal(extent, n);
    }
}

static void malformed_images_are_refused(void **state)
{
    (void)state;
    aip_readytorun_info info;
    size_t needed = 0;
    uint32_t extent = 0;
    assert_int_equal(aip_pe_extent(NULL, 0, AIP_IMAGE_MAPPED, &needed, &extent),
                     AIP_IMAGE_MALFORMED);
    struct {
        size_t at;
        uint32_t value;
        int width;
    } cases[] = {
        {0, 'X', 1},                           /* not MZ */
        {0x3C, 0x10, 4},                       /* e_lfanew inside the DOS header */
        {0x3C, 0x7FFFFFF0u, 4},                /* e_lfanew far beyond */
        {FIX_LFANEW, 'Q', 1},                  /* not PE */
        {FIX_LFANEW + 6, 97, 2},               /* too many sections */
        {FIX_OPTIONAL, 0x30B, 2},              /* unknown optional header magic */
        {FIX_OPTIONAL + 108, 31, 4},           /* directories beyond the optional header */
        {FIX_OPTIONAL + 112 + 14 * 8, 0x2FD0, 4}, /* CLI header past the end */
        {FIX_OPTIONAL + 112 + 14 * 8 + 4, 8, 4},  /* CLI header too short */
        {FIX_CLI_RVA + 64, 0x2FF8, 4},            /* ReadyToRun header past the end */
        {FIX_R2R_RVA + 12, 257, 4},               /* too many ReadyToRun sections */
        {FIX_R2R_RVA + 12, 255, 4},               /* sections past the end */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        size_t n = fix_build(image, AIP_IMAGE_MAPPED, FIX_R2R_RVA, AIP_R2R_SIGNATURE, 0, PLAIN, 3);
        fix_put(image, cases[i].at, cases[i].value, cases[i].width);
        if (i == 11) /* the range ends just after the 3 declared sections' room */
            n = FIX_R2R_RVA + 16 + 12 * 3;
        if (parse(image, n, AIP_IMAGE_MAPPED, &info) != AIP_IMAGE_MALFORMED)
            fail_msg("case %zu was not refused", i);
    }
    /* Mapped: SizeOfImage inside the headers. */
    fix_build(image, AIP_IMAGE_MAPPED, FIX_R2R_RVA, AIP_R2R_SIGNATURE, 0, PLAIN, 3);
    fix_put(image, FIX_OPTIONAL + 56, 0x100, 4);
    assert_int_equal(aip_pe_extent(image, FIX_MAPPED_BYTES, AIP_IMAGE_MAPPED, &needed, &extent),
                     AIP_IMAGE_MALFORMED);
    /* Flat: an RVA outside every section's raw data. */
    size_t n = fix_build(image, AIP_IMAGE_FLAT, FIX_R2R_RVA, AIP_R2R_SIGNATURE, 0, PLAIN, 3);
    fix_put(image, fix_at(AIP_IMAGE_FLAT, FIX_CLI_RVA) + 64, 0x4000, 4);
    assert_int_equal(parse(image, n, AIP_IMAGE_FLAT, &info), AIP_IMAGE_MALFORMED);
}

static void truncations_and_bit_flips_stay_in_bounds(void **state)
{
    (void)state;
    aip_readytorun_info info, whole;
    size_t n = fix_build(image, AIP_IMAGE_FLAT, FIX_R2R_RVA, AIP_R2R_SIGNATURE, 0x40, CROSS, 3);
    assert_int_equal(parse(image, n, AIP_IMAGE_FLAT, &whole), AIP_IMAGE_OK);
    /* Every truncation inside the headers, the ReadyToRun header or section 119 (the third
     * section, 16 bytes) is refused; beyond them the answer is the whole image's. */
    size_t r2r_end = fix_at(AIP_IMAGE_FLAT, 0x1800 + 0x20) + 0x10;
    for (size_t length = 0; length < n; length += (length < r2r_end + 16 ? 1 : 97)) {
        aip_image_result r = parse(image, length, AIP_IMAGE_FLAT, &info);
        if (length < r2r_end) {
            assert_int_equal(r, AIP_IMAGE_MALFORMED);
        } else {
            assert_int_equal(r, AIP_IMAGE_OK);
            assert_memory_equal(&info, &whole, sizeof info);
        }
    }
    /* Bit flips in the headers, the CLI header and the ReadyToRun header. */
    const size_t ranges[][2] = {{0, FIX_SECTIONS + 40},
                                {fix_at(AIP_IMAGE_FLAT, FIX_CLI_RVA), 72},
                                {fix_at(AIP_IMAGE_FLAT, FIX_R2R_RVA), 16 + 36}};
    for (size_t r = 0; r < 3; ++r) {
        size_t start = r == 0 ? 0 : ranges[r][0], end = r == 0 ? ranges[0][1] : start + ranges[r][1];
        for (size_t bit = start * 8; bit < end * 8; ++bit) {
            fix_build(image, AIP_IMAGE_FLAT, FIX_R2R_RVA, AIP_R2R_SIGNATURE, 0x40, CROSS, 3);
            image[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            if (parse(image, n, AIP_IMAGE_FLAT, &info) == AIP_IMAGE_OK)
                assert_true(info.section_count <= AIP_R2R_MAX_SECTIONS);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(il_only_and_native_images_are_not_readytorun),
        cmocka_unit_test(readytorun_headers_mapped_and_flat_agree),
        cmocka_unit_test(inline_info_of_real_images),
        cmocka_unit_test(inline_info_entries_and_encodings),
        cmocka_unit_test(cross_module_images_are_told_apart),
        cmocka_unit_test(the_extent_is_learned_step_by_step),
        cmocka_unit_test(malformed_images_are_refused),
        cmocka_unit_test(truncations_and_bit_flips_stay_in_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
