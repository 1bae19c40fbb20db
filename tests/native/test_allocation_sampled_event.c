/* The AllocationSampled v0 payload reader: hand-built payloads for 8- and 4-byte pointers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "allocation/allocation_sampled_event.h"

/* A payload as the runtime writes it, little endian, built byte by byte. */
typedef struct payload {
    uint8_t bytes[512];
    size_t size;
} payload;

static void put(payload *p, uint64_t value, unsigned n)
{
    for (unsigned i = 0; i < n; ++i)
        p->bytes[p->size++] = (uint8_t)(value >> (8 * i));
}

/* kind, instance, type id, the name (ASCII widened to UTF-16LE, then its NUL unless
 * `terminate` is 0), address, size, offset. */
static void build(payload *p, unsigned ptr, uint32_t kind, uint16_t instance, uint64_t type_id,
                  const char *name, int terminate, uint64_t address, uint64_t size,
                  uint64_t offset)
{
    p->size = 0;
    put(p, kind, 4);
    put(p, instance, 2);
    put(p, type_id, ptr);
    for (const char *c = name; *c != '\0'; ++c)
        put(p, (uint8_t)*c, 2);
    if (terminate)
        put(p, 0, 2);
    put(p, address, ptr);
    put(p, size, 8);
    put(p, offset, 8);
}

static void expect_name(const aip_allocation_sampled *e, const char *name)
{
    size_t n = strlen(name);
    assert_int_equal(e->type_name_bytes, 2 * n);
    for (size_t i = 0; i < n; ++i) {
        assert_int_equal(e->type_name[2 * i], (uint8_t)name[i]);
        assert_int_equal(e->type_name[2 * i + 1], 0);
    }
}

static void reads_every_field_with_8_byte_pointers(void **state)
{
    (void)state;
    payload p;
    build(&p, 8, 0, 7, 0x00007F1234567890ull, "System.String", 1, 0x00007FAABBCCDDEEull, 56,
          0x0102030405060708ull);
    assert_int_equal(p.size, 4 + 2 + 8 + 28 + 8 + 8 + 8);
    aip_allocation_sampled e;
    memset(&e, 0xA5, sizeof e);
    assert_int_equal(aip_allocation_sampled_parse(p.bytes, p.size, 8, &e), 0);
    assert_int_equal(e.kind, 0);
    assert_int_equal(e.clr_instance, 7);
    assert_true(e.class_id == (uintptr_t)0x00007F1234567890ull);
    assert_ptr_equal(e.type_name, p.bytes + 14);
    expect_name(&e, "System.String");
    assert_true(e.address == (uintptr_t)0x00007FAABBCCDDEEull);
    assert_true(e.object_size == 56);
    assert_true(e.sampled_byte_offset == 0x0102030405060708ull);
}

static void reads_every_field_with_4_byte_pointers(void **state)
{
    (void)state;
    payload p;
    build(&p, 4, 2, 0xBEEF, 0x89ABCDEFu, "Int32[]", 1, 0x12345678u, 0xFFFFFFFFFFull, 99);
    aip_allocation_sampled e;
    assert_int_equal(aip_allocation_sampled_parse(p.bytes, p.size, 4, &e), 0);
    assert_int_equal(e.kind, 2);
    assert_int_equal(e.clr_instance, 0xBEEF);
    assert_true(e.class_id == (uintptr_t)0x89ABCDEFu);
    assert_ptr_equal(e.type_name, p.bytes + 10);
    expect_name(&e, "Int32[]");
    assert_true(e.address == (uintptr_t)0x12345678u);
    assert_true(e.object_size == 0xFFFFFFFFFFull);
    assert_true(e.sampled_byte_offset == 99);
    /* The same bytes read with 8-byte pointers: the type id swallows the name's first two
     * units, the address takes 4 more bytes, so the name (shorter by 4 bytes) leaves the
     * fields 4 bytes short of the payload's end: refused, and the output untouched. */
    aip_allocation_sampled wide;
    memset(&wide, 0xA5, sizeof wide);
    aip_allocation_sampled untouched = wide;
    assert_int_equal(aip_allocation_sampled_parse(p.bytes, p.size, 8, &wide), -1);
    assert_memory_equal(&wide, &untouched, sizeof wide);
}

static void an_empty_name_and_a_kind_past_2_are_kept(void **state)
{
    (void)state;
    payload p;
    build(&p, 8, 9, 0, 1, "", 1, 2, 3, 4);
    aip_allocation_sampled e;
    assert_int_equal(aip_allocation_sampled_parse(p.bytes, p.size, 8, &e), 0);
    assert_int_equal(e.type_name_bytes, 0);
    assert_ptr_equal(e.type_name, p.bytes + 14);
    assert_int_equal(e.kind, 9);
    assert_true(e.address == 2 && e.object_size == 3 && e.sampled_byte_offset == 4);
}

static void an_unaligned_payload_reads_alike(void **state)
{
    (void)state;
    payload p;
    build(&p, 8, 1, 3, 0x1122334455667788ull, "Foo", 1, 0x99AABBCCDDEEFF00ull, 100000, 12345);
    for (size_t shift = 1; shift < 8; ++shift) {
        uint8_t *block = malloc(p.size + shift);
        assert_non_null(block);
        memcpy(block + shift, p.bytes, p.size);
        aip_allocation_sampled e;
        assert_int_equal(aip_allocation_sampled_parse(block + shift, p.size, 8, &e), 0);
        assert_int_equal(e.kind, 1);
        assert_true(e.class_id == (uintptr_t)0x1122334455667788ull);
        assert_ptr_equal(e.type_name, block + shift + 14);
        expect_name(&e, "Foo");
        assert_true(e.address == (uintptr_t)0x99AABBCCDDEEFF00ull);
        assert_true(e.object_size == 100000 && e.sampled_byte_offset == 12345);
        free(block);
    }
}

static void every_truncation_is_refused(void **state)
{
    (void)state;
    static const unsigned ptrs[] = {4, 8};
    for (size_t k = 0; k < 2; ++k) {
        payload p;
        build(&p, ptrs[k], 0, 1, 0xABC, "System.Byte[]", 1, 0xDEF, 1000, 5);
        aip_allocation_sampled e;
        for (size_t n = 0; n < p.size; ++n) {
            /* An exact-size heap copy, so ASan sees any read past it. */
            uint8_t *copy = malloc(n == 0 ? 1 : n);
            assert_non_null(copy);
            memcpy(copy, p.bytes, n);
            memset(&e, 0x5A, sizeof e);
            assert_int_equal(aip_allocation_sampled_parse(copy, n, ptrs[k], &e), -1);
            assert_int_equal(e.kind, 0x5A5A5A5Au); /* untouched on refusal */
            free(copy);
        }
        uint8_t *whole = malloc(p.size);
        assert_non_null(whole);
        memcpy(whole, p.bytes, p.size);
        assert_int_equal(aip_allocation_sampled_parse(whole, p.size, ptrs[k], &e), 0);
        free(whole);
    }
}

static void a_name_without_its_nul_is_refused(void **state)
{
    (void)state;
    payload p;
    /* No terminator, and no zero unit anywhere after the name either. */
    build(&p, 8, 0, 1, 0x0101010101010101ull, "AB", 0, 0x0101010101010101ull,
          0x0101010101010101ull, 0x0101010101010101ull);
    aip_allocation_sampled e;
    assert_int_equal(aip_allocation_sampled_parse(p.bytes, p.size, 8, &e), -1);
    /* A zero byte at an odd offset of the name is not a terminator. */
    payload q;
    q.size = 0;
    put(&q, 0, 4);
    put(&q, 0, 2);
    put(&q, 0x55, 8);
    put(&q, 0x0041, 2); /* 'A' */
    put(&q, 0x4100, 2); /* a unit whose low byte is 0 */
    put(&q, 0, 2);
    put(&q, 0, 8); /* address */
    put(&q, 0, 8); /* size */
    put(&q, 0, 8); /* offset */
    assert_int_equal(aip_allocation_sampled_parse(q.bytes, q.size, 8, &e), 0);
    assert_int_equal(e.type_name_bytes, 4);
    /* The NUL as the payload's last unit: nothing left for the address and sizes. */
    payload r;
    r.size = 0;
    put(&r, 0, 4);
    put(&r, 0, 2);
    put(&r, 0x55, 8);
    put(&r, 0x0041, 2);
    put(&r, 0, 2);
    assert_int_equal(aip_allocation_sampled_parse(r.bytes, r.size, 8, &e), -1);
}

static void trailing_bytes_are_accepted(void **state)
{
    (void)state;
    payload p;
    build(&p, 8, 0, 1, 0xABC, "T", 1, 0xDEF, 24, 17);
    size_t whole = p.size;
    put(&p, 0xFFFFFFFFFFFFFFFFull, 8); /* a later version's field */
    put(&p, 0x77, 3);
    aip_allocation_sampled e;
    assert_int_equal(aip_allocation_sampled_parse(p.bytes, p.size, 8, &e), 0);
    assert_true(e.object_size == 24 && e.sampled_byte_offset == 17);
    assert_true(whole < p.size);
}

static void bad_pointer_sizes_and_null_are_refused(void **state)
{
    (void)state;
    payload p;
    build(&p, 8, 0, 1, 0xABC, "T", 1, 0xDEF, 24, 17);
    aip_allocation_sampled e;
    static const uint32_t bad[] = {0, 1, 2, 3, 5, 6, 7, 16, 0xFFFFFFFFu};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i)
        assert_int_equal(aip_allocation_sampled_parse(p.bytes, p.size, bad[i], &e), -1);
    assert_int_equal(aip_allocation_sampled_parse(NULL, 0, 8, &e), -1);
    assert_int_equal(aip_allocation_sampled_parse(p.bytes, p.size, 8, NULL), -1);
    assert_int_equal(AIP_ALLOCATION_SAMPLED_EVENT_ID, 303);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_every_field_with_8_byte_pointers),
        cmocka_unit_test(reads_every_field_with_4_byte_pointers),
        cmocka_unit_test(an_empty_name_and_a_kind_past_2_are_kept),
        cmocka_unit_test(an_unaligned_payload_reads_alike),
        cmocka_unit_test(every_truncation_is_refused),
        cmocka_unit_test(a_name_without_its_nul_is_refused),
        cmocka_unit_test(trailing_bytes_are_accepted),
        cmocka_unit_test(bad_pointer_sizes_and_null_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
