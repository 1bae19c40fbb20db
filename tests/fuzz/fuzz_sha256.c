/* Fuzzes the SHA-256 of identity/sha256.h against OpenSSL's (libcrypto is linked into this
 * harness only, never into the library). Input: byte 0 = number of split points (low 4
 * bits), then that many u16 split positions; the rest is the message. Checks: the one-call
 * digest equals OpenSSL's; so does an incremental hash fed in the pieces between the
 * (sorted, possibly repeated, so zero-length) split points, each piece an exact-size heap
 * copy; a context initialized again after final hashes a second message (the first half)
 * correctly. */
#include "fuzz_input.h"

#include "identity/sha256.h"

#include <openssl/evp.h>

static void reference(const uint8_t *message, size_t n, uint8_t digest[32])
{
    unsigned int length = 0;
    AIP_FUZZ_CHECK(EVP_Digest(message, n, digest, &length, EVP_sha256(), NULL) == 1);
    AIP_FUZZ_CHECK(length == 32);
}

static int by_value(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    aip_fuzz_reader r = aip_fuzz_reader_of(data, size);
    unsigned splits = aip_fuzz_u8(&r) & 15u;
    uint16_t raw[15];
    for (unsigned i = 0; i < splits; ++i)
        raw[i] = aip_fuzz_u16(&r);
    size_t n = aip_fuzz_left(&r);
    uint8_t *message = aip_fuzz_copy(data + r.at, n);

    uint8_t expected[32], digest[32];
    reference(message, n, expected);
    aip_sha256_digest(message, n, digest);
    AIP_FUZZ_CHECK(memcmp(digest, expected, 32) == 0);

    size_t cut[16];
    for (unsigned i = 0; i < splits; ++i)
        cut[i] = n == 0 ? 0 : raw[i] % (n + 1);
    qsort(cut, splits, sizeof cut[0], by_value);
    cut[splits] = n;
    aip_sha256 ctx;
    aip_sha256_init(&ctx);
    size_t from = 0;
    for (unsigned i = 0; i <= splits; ++i) {
        uint8_t *piece = aip_fuzz_copy(message + from, cut[i] - from);
        aip_sha256_update(&ctx, piece, cut[i] - from);
        free(piece);
        from = cut[i];
    }
    aip_sha256_final(&ctx, digest);
    AIP_FUZZ_CHECK(memcmp(digest, expected, 32) == 0);

    aip_sha256_init(&ctx);
    aip_sha256_update(&ctx, message, n / 2);
    aip_sha256_final(&ctx, digest);
    reference(message, n / 2, expected);
    AIP_FUZZ_CHECK(memcmp(digest, expected, 32) == 0);
    free(message);
    return 0;
}
