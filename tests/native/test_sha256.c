/* SHA-256: FIPS 180-4 / NIST vectors, streaming in uneven chunks, split points and the
 * padding edges around one block. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "identity/sha256.h"

static void hex_to_bytes(const char *hex, uint8_t out[AIP_SHA256_DIGEST_SIZE])
{
    assert_int_equal(strlen(hex), 2 * AIP_SHA256_DIGEST_SIZE);
    for (size_t i = 0; i < AIP_SHA256_DIGEST_SIZE; ++i) {
        unsigned value = 0;
        for (size_t j = 0; j < 2; ++j) {
            char c = hex[2 * i + j];
            unsigned nibble = (c >= '0' && c <= '9') ? (unsigned)(c - '0')
                                                     : (unsigned)(c - 'a' + 10);
            value = (value << 4) | nibble;
        }
        out[i] = (uint8_t)value;
    }
}

static void assert_digest(const uint8_t digest[AIP_SHA256_DIGEST_SIZE], const char *hex)
{
    uint8_t expected[AIP_SHA256_DIGEST_SIZE];
    hex_to_bytes(hex, expected);
    assert_memory_equal(digest, expected, AIP_SHA256_DIGEST_SIZE);
}

static void assert_text_digest(const char *text, const char *hex)
{
    uint8_t digest[AIP_SHA256_DIGEST_SIZE];
    aip_sha256_digest(text, strlen(text), digest);
    assert_digest(digest, hex);
}

static void empty_message(void **state)
{
    (void)state;
    assert_text_digest("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");

    struct aip_sha256 ctx;
    uint8_t digest[AIP_SHA256_DIGEST_SIZE];
    aip_sha256_init(&ctx);
    aip_sha256_update(&ctx, NULL, 0);
    aip_sha256_final(&ctx, digest);
    assert_digest(digest, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void abc(void **state)
{
    (void)state;
    assert_text_digest("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void two_block_message(void **state)
{
    (void)state;
    assert_text_digest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void million_a_in_uneven_chunks(void **state)
{
    (void)state;
    static uint8_t chunk[1000];
    memset(chunk, 'a', sizeof chunk);
    struct aip_sha256 ctx;
    aip_sha256_init(&ctx);
    size_t remaining = 1000000;
    size_t step = 1;
    while (remaining > 0) {
        size_t take = step < remaining ? step : remaining;
        aip_sha256_update(&ctx, chunk, take);
        remaining -= take;
        step = (step * 7 + 3) % sizeof chunk + 1; /* 1 .. 1000, irregular */
    }
    uint8_t digest[AIP_SHA256_DIGEST_SIZE];
    aip_sha256_final(&ctx, digest);
    assert_digest(digest, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void every_split_point_gives_the_same_digest(void **state)
{
    (void)state;
    uint8_t buffer[1000];
    uint32_t x = 0x12345678u;
    for (size_t i = 0; i < sizeof buffer; ++i) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        buffer[i] = (uint8_t)(x >> 11);
    }
    uint8_t whole[AIP_SHA256_DIGEST_SIZE];
    aip_sha256_digest(buffer, sizeof buffer, whole);

    for (size_t split = 0; split <= sizeof buffer; ++split) {
        struct aip_sha256 ctx;
        uint8_t digest[AIP_SHA256_DIGEST_SIZE];
        aip_sha256_init(&ctx);
        aip_sha256_update(&ctx, buffer, split);
        aip_sha256_update(&ctx, buffer + split, sizeof buffer - split);
        aip_sha256_final(&ctx, digest);
        assert_memory_equal(digest, whole, sizeof whole);
    }
}

/* Message i-th byte = 'a' + i % 26; digests from `sha256sum` on the same bytes. */
static void padding_edges(void **state)
{
    (void)state;
    static const struct {
        size_t length;
        const char *hex;
    } cases[] = {
        {55, "595615dbe4f0f407ae397d08b4c2cb870cb9b0e11937416f950c5160acf9c005"},
        {56, "784f623b787495078e93ff28a25b581df0584055a7e71d8cd90c454716b92f51"},
        {63, "5ca3e1ef5207490eac01a795e5cc94d59582a5118bf9534665c8668d87aa647c"},
        {64, "2fcd5a0d60e4c941381fcc4e00a4bf8be422c3ddfafb93c809e8d1e2bfffae8e"},
        {65, "1b3cd1877ab2f2f19f7be001722554f336cb799df0329de0bb4c118dc6abc06d"},
    };
    uint8_t message[65];
    for (size_t i = 0; i < sizeof message; ++i) {
        message[i] = (uint8_t)('a' + i % 26);
    }
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        uint8_t digest[AIP_SHA256_DIGEST_SIZE];
        aip_sha256_digest(message, cases[c].length, digest);
        assert_digest(digest, cases[c].hex);

        /* Byte at a time reaches the same padding path through the buffered block. */
        struct aip_sha256 ctx;
        aip_sha256_init(&ctx);
        for (size_t i = 0; i < cases[c].length; ++i) {
            aip_sha256_update(&ctx, message + i, 1);
        }
        aip_sha256_final(&ctx, digest);
        assert_digest(digest, cases[c].hex);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(empty_message),
        cmocka_unit_test(abc),
        cmocka_unit_test(two_block_message),
        cmocka_unit_test(million_a_in_uneven_chunks),
        cmocka_unit_test(every_split_point_gives_the_same_digest),
        cmocka_unit_test(padding_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
