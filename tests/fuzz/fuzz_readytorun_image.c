/* Fuzzes aip_pe_extent and aip_readytorun_parse (PE/COFF headers, the CLI header's
 * ManagedNativeHeader, the READYTORUN_HEADER and its sections). Input: byte 0 bit 0 picks the
 * layout (0 mapped, 1 flat); the rest is the image, in an exact-size heap block. Checks: only
 * the documented results; the header walk from 16 readable bytes converges in at most four
 * steps, each asking for more than it had, and never reads past what it was given; the parse
 * is repeatable; a ReadyToRun answer is a CLI answer with at most AIP_R2R_MAX_SECTIONS
 * sections, its "may inline other modules" exactly the documented flags, sections and section
 * 119's scope, and its version and flags the bytes they come from; an OK answer stays the same with
 * bytes appended (the range only bounds reads). */
#include "fuzz_input.h"

#include "image/readytorun_image.h"

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static void check_extent(const uint8_t *b, size_t n, aip_image_layout layout)
{
    size_t readable = n < 16 ? n : 16, needed = 0;
    uint32_t extent = 0;
    aip_image_result r = AIP_IMAGE_NEED_MORE;
    int steps = 0;
    while (r == AIP_IMAGE_NEED_MORE && readable <= n) {
        uint8_t *head = aip_fuzz_copy(b, readable);
        r = aip_pe_extent(head, readable, layout, &needed, &extent);
        free(head);
        AIP_FUZZ_CHECK(r == AIP_IMAGE_OK || r == AIP_IMAGE_NEED_MORE || r == AIP_IMAGE_MALFORMED);
        if (r == AIP_IMAGE_NEED_MORE)
            AIP_FUZZ_CHECK(needed > readable);
        if (r == AIP_IMAGE_OK)
            AIP_FUZZ_CHECK(needed <= readable && extent >= needed);
        readable = needed;
        ++steps;
        AIP_FUZZ_CHECK(steps <= 4);
    }
}

static void check_info(const uint8_t *b, size_t n, aip_image_layout layout,
                       const aip_readytorun_info *info)
{
    if (!info->is_readytorun) {
        AIP_FUZZ_CHECK(info->section_count == 0 && info->flags == 0 &&
                       !info->may_inline_other_modules);
        return;
    }
    AIP_FUZZ_CHECK(info->is_cli && info->section_count <= AIP_R2R_MAX_SECTIONS);
    int other = info->inline_scope == AIP_R2R_INLINES_OTHER ||
                info->inline_scope == AIP_R2R_INLINES_MALFORMED;
    int bubble = (info->flags & AIP_R2R_FLAG_MULTIMODULE_VERSION_BUBBLE) != 0;
    int expected =
        (info->flags & (AIP_R2R_FLAG_COMPONENT | AIP_R2R_FLAG_UNRELATED_R2R_CODE)) != 0 ||
        info->has_component_assemblies || info->has_owner_composite ||
        (info->cross_module_inline_bytes != 0 ? other : bubble);
    AIP_FUZZ_CHECK(info->inline_scope <= AIP_R2R_INLINES_MALFORMED);
    if (info->cross_module_inline_bytes == 0)
        AIP_FUZZ_CHECK(info->inline_scope == AIP_R2R_INLINES_NONE);
    AIP_FUZZ_CHECK(info->may_inline_other_modules == expected);
    /* The header's bytes are somewhere in the input: find the signature followed by them. */
    int found = 0;
    for (size_t at = 0; !found && at + 16 <= n; ++at)
        found = rd32(b + at) == AIP_R2R_SIGNATURE &&
                (uint32_t)(b[at + 4] | (b[at + 5] << 8)) == info->major_version &&
                (uint32_t)(b[at + 6] | (b[at + 7] << 8)) == info->minor_version &&
                rd32(b + at + 8) == info->flags && rd32(b + at + 12) == info->section_count;
    AIP_FUZZ_CHECK(found);
    (void)layout;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    aip_image_layout layout = (data[0] & 1u) != 0 ? AIP_IMAGE_FLAT : AIP_IMAGE_MAPPED;
    size_t n = size - 1;
    uint8_t *b = aip_fuzz_copy(data + 1, n);
    check_extent(b, n, layout);

    aip_readytorun_info info, again, longer;
    aip_image_result r = aip_readytorun_parse(b, n, layout, &info);
    AIP_FUZZ_CHECK(r == AIP_IMAGE_OK || r == AIP_IMAGE_MALFORMED);
    AIP_FUZZ_CHECK(aip_readytorun_parse(b, n, layout, &again) == r);
    AIP_FUZZ_CHECK(memcmp(&info, &again, sizeof info) == 0);
    if (r == AIP_IMAGE_OK) {
        check_info(b, n, layout, &info);
        uint8_t *extended = aip_fuzz_alloc(n + 64);
        memcpy(extended, b, n);
        memset(extended + n, 0xA5, 64);
        AIP_FUZZ_CHECK(aip_readytorun_parse(extended, n + 64, layout, &longer) == AIP_IMAGE_OK);
        AIP_FUZZ_CHECK(memcmp(&info, &longer, sizeof info) == 0);
        free(extended);
    } else {
        AIP_FUZZ_CHECK(!info.is_readytorun);
    }
    free(b);
    return 0;
}
