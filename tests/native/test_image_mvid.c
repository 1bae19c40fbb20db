/* The module's MVID read from the image's own metadata (aip_image_mvid): the metadata root, its
 * #~ or #- and #GUID streams, the Module row's Mvid index; narrow and wide heap indexes, the
 * extra-data word of #- streams, mapped and flat layouts; every documented malformation; and
 * every truncation read inside an exact-size heap copy (ASan sees any read past the range). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "readytorun_fixture.h"

#define MD_RVA 0x1400u
#define MD_STREAM_TABLES 0x40u /* offsets from the metadata root */
#define MD_STREAM_GUIDS 0x80u
#define MD_BYTES 0xA0u

static uint8_t image[FIX_MAPPED_BYTES];

/* The GUID heap's two entries; the Module row names the second. */
static const uint8_t GUID1[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
static const uint8_t GUID2[16] = {0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE,
                                  0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF};

typedef struct md_shape {
    uint8_t heaps;       /* HeapSizes */
    int uncompressed;    /* "#-" instead of "#~" */
    uint32_t guid_index; /* the Module row's Mvid */
} md_shape;

/* An IL-only image (the fixture) with a metadata root at MD_RVA: two streams, a #~ (or #-)
 * with the Module and TypeDef tables present, and a #GUID heap of two GUIDs. */
static size_t build(aip_image_layout layout, md_shape shape)
{
    size_t n = fix_build(image, layout, 0, 0, 0, NULL, 0);
    size_t cli = fix_at(layout, FIX_CLI_RVA);
    fix_put(image, cli + 8, MD_RVA, 4);
    fix_put(image, cli + 12, MD_BYTES, 4);
    size_t md = fix_at(layout, MD_RVA);
    uint8_t *root = image + md;
    fix_put(root, 0, 0x424A5342u, 4); /* BSJB */
    fix_put(root, 4, 1, 2);
    fix_put(root, 6, 1, 2);
    fix_put(root, 12, 12, 4);
    memcpy(root + 16, "v4.0.30319\0\0", 12);
    fix_put(root, 30, 2, 2); /* streams */
    fix_put(root, 32, MD_STREAM_TABLES, 4);
    fix_put(root, 36, MD_STREAM_GUIDS - MD_STREAM_TABLES, 4);
    memcpy(root + 40, shape.uncompressed ? "#-\0\0" : "#~\0\0", 4);
    fix_put(root, 44, MD_STREAM_GUIDS, 4);
    fix_put(root, 48, 32, 4);
    memcpy(root + 52, "#GUID\0\0\0", 8);
    uint8_t *t = root + MD_STREAM_TABLES;
    fix_put(t, 4, 2, 1);
    t[6] = shape.heaps;
    fix_put(t, 8, 0x5, 4); /* Module and TypeDef */
    fix_put(t, 24, 1, 4);  /* Module rows */
    fix_put(t, 28, 3, 4);  /* TypeDef rows */
    size_t row = 32 + ((shape.heaps & 0x40u) != 0 ? 4u : 0u);
    size_t string_width = (shape.heaps & 0x01u) != 0 ? 4u : 2u;
    size_t guid_width = (shape.heaps & 0x02u) != 0 ? 4u : 2u;
    fix_put(t, row, 0, 2);
    fix_put(t, row + 2, 1, (int)string_width);
    fix_put(t, row + 2 + string_width, shape.guid_index, (int)guid_width);
    memcpy(root + MD_STREAM_GUIDS, GUID1, 16);
    memcpy(root + MD_STREAM_GUIDS + 16, GUID2, 16);
    return n;
}

/* Reads a heap copy of exactly `length` bytes. */
static aip_image_result read_mvid(size_t length, aip_image_layout layout, uint8_t mvid[16])
{
    uint8_t *copy = malloc(length != 0 ? length : 1);
    assert_non_null(copy);
    memcpy(copy, image, length);
    aip_image_result result = aip_image_mvid(copy, length, layout, mvid);
    free(copy);
    return result;
}

static void the_module_rows_mvid_is_read_in_both_layouts(void **state)
{
    (void)state;
    const uint8_t shapes[] = {0x00, 0x01, 0x02, 0x03, 0x07};
    for (int layout = 0; layout < 2; ++layout) {
        for (size_t s = 0; s < sizeof shapes; ++s) {
            size_t n = build((aip_image_layout)layout, (md_shape){shapes[s], 0, 2});
            uint8_t mvid[16];
            assert_int_equal(read_mvid(n, (aip_image_layout)layout, mvid), AIP_IMAGE_OK);
            assert_memory_equal(mvid, GUID2, 16);
            build((aip_image_layout)layout, (md_shape){shapes[s], 0, 1});
            assert_int_equal(read_mvid(n, (aip_image_layout)layout, mvid), AIP_IMAGE_OK);
            assert_memory_equal(mvid, GUID1, 16);
        }
    }
}

static void an_uncompressed_stream_and_its_extra_data_word_are_read(void **state)
{
    (void)state;
    uint8_t mvid[16];
    size_t n = build(AIP_IMAGE_MAPPED, (md_shape){0x40, 1, 2});
    assert_int_equal(read_mvid(n, AIP_IMAGE_MAPPED, mvid), AIP_IMAGE_OK);
    assert_memory_equal(mvid, GUID2, 16);
    /* Without the flag the word is taken for the row: the index read is 0, refused. */
    size_t md = fix_at(AIP_IMAGE_MAPPED, MD_RVA);
    image[md + MD_STREAM_TABLES + 6] = 0;
    assert_int_equal(read_mvid(n, AIP_IMAGE_MAPPED, mvid), AIP_IMAGE_MALFORMED);
}

static void malformed_metadata_is_refused(void **state)
{
    (void)state;
    uint8_t mvid[16];
    size_t md = fix_at(AIP_IMAGE_MAPPED, MD_RVA);
    size_t cli = fix_at(AIP_IMAGE_MAPPED, FIX_CLI_RVA);
    md_shape plain = {0, 0, 2};
    size_t n = build(AIP_IMAGE_MAPPED, plain);
    assert_int_equal(read_mvid(n, AIP_IMAGE_MAPPED, mvid), AIP_IMAGE_OK);

    build(AIP_IMAGE_MAPPED, (md_shape){0, 0, 3}); /* past the GUID heap */
    assert_int_equal(read_mvid(n, AIP_IMAGE_MAPPED, mvid), AIP_IMAGE_MALFORMED);
    build(AIP_IMAGE_MAPPED, (md_shape){0, 0, 0}); /* no MVID */
    assert_int_equal(read_mvid(n, AIP_IMAGE_MAPPED, mvid), AIP_IMAGE_MALFORMED);

    build(AIP_IMAGE_MAPPED, plain);
    fix_put(image, cli + 8, 0, 4); /* no metadata directory */
    assert_int_equal(read_mvid(n, AIP_IMAGE_MAPPED, mvid), AIP_IMAGE_MALFORMED);
    build(AIP_IMAGE_MAPPED, plain);
    fix_put(image, cli + 12, 0x10000, 4); /* a directory beyond the image */
    assert_int_equal(read_mvid(n, AIP_IMAGE_MAPPED, mvid), AIP_IMAGE_MALFORMED);
    build(AIP_IMAGE_MAPPED, plain);
    image[md] = 'X'; /* not a metadata root */
    assert_int_equal(read_mvid(n, AIP_IMAGE_MAPPED, mvid), AIP_IMAGE_MALFORMED);
    build(AIP_IMAGE_MAPPED, plain);
    fix_put(image, md + 12, 0x1000, 4); /* a version string longer than the root */
    assert_int_equal(read_mvid(n, AIP_IMAGE_MAPPED, mvid), AIP_IMAGE_MALFORMED);
    build(AIP_IMAGE_MAPPED, plain);
    fix_put(image, md + 48, MD_BYTES, 4); /* the GUID heap beyond the root */
    assert_int_equal(read_mvid(n, AIP_IMAGE_MAPPED, mvid), AIP_IMAGE_MALFORMED);
    build(AIP_IMAGE_MAPPED, plain);
    memcpy(image + md + 52, "#Blob\0\0\0", 8); /* no #GUID stream */
    assert_int_equal(read_mvid(n, AIP_IMAGE_MAPPED, mvid), AIP_IMAGE_MALFORMED);
    build(AIP_IMAGE_MAPPED, plain);
    memset(image + md + 52, 'G', MD_BYTES - 52); /* a stream name never terminated */
    assert_int_equal(read_mvid(n, AIP_IMAGE_MAPPED, mvid), AIP_IMAGE_MALFORMED);
    build(AIP_IMAGE_MAPPED, plain);
    fix_put(image, md + MD_STREAM_TABLES + 8, 0x4, 4); /* no Module table */
    assert_int_equal(read_mvid(n, AIP_IMAGE_MAPPED, mvid), AIP_IMAGE_MALFORMED);
    build(AIP_IMAGE_MAPPED, plain);
    fix_put(image, md + MD_STREAM_TABLES + 24, 0, 4); /* a Module table of no rows */
    assert_int_equal(read_mvid(n, AIP_IMAGE_MAPPED, mvid), AIP_IMAGE_MALFORMED);
    build(AIP_IMAGE_MAPPED, plain);
    fix_put(image, md + MD_STREAM_TABLES + 8, 0xFFFFFFFFu, 4); /* row counts past the stream */
    fix_put(image, md + MD_STREAM_TABLES + 12, 0xFFFFFFFFu, 4);
    assert_int_equal(read_mvid(n, AIP_IMAGE_MAPPED, mvid), AIP_IMAGE_MALFORMED);
}

static void truncations_stay_in_bounds(void **state)
{
    (void)state;
    for (int layout = 0; layout < 2; ++layout) {
        size_t n = build((aip_image_layout)layout, (md_shape){0x03, 0, 2});
        size_t end = fix_at((aip_image_layout)layout, MD_RVA) + MD_BYTES;
        uint8_t mvid[16];
        for (size_t length = 0; length < end; ++length)
            assert_int_equal(read_mvid(length, (aip_image_layout)layout, mvid),
                             AIP_IMAGE_MALFORMED);
        assert_int_equal(read_mvid(n, (aip_image_layout)layout, mvid), AIP_IMAGE_OK);
    }
}

int main(void)
{
    (void)fix_section_bytes; /* the fixture's ReadyToRun sections are not used here */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_module_rows_mvid_is_read_in_both_layouts),
        cmocka_unit_test(an_uncompressed_stream_and_its_extra_data_word_are_read),
        cmocka_unit_test(malformed_metadata_is_refused),
        cmocka_unit_test(truncations_stay_in_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
