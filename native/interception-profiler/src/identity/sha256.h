/* SHA-256 (FIPS 180-4), used for signature hashes and loaded-body identities. */
#ifndef AIP_SHA256_H
#define AIP_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define AIP_SHA256_DIGEST_SIZE 32

typedef struct aip_sha256 {
    uint32_t state[8];
    uint64_t total_bytes;
    uint8_t block[64];
    uint32_t block_used;
} aip_sha256;

void aip_sha256_init(aip_sha256 *ctx);
void aip_sha256_update(aip_sha256 *ctx, const void *data, size_t length);
void aip_sha256_final(aip_sha256 *ctx, uint8_t digest[AIP_SHA256_DIGEST_SIZE]);
/* One call: digest of data[0 .. length). */
void aip_sha256_digest(const void *data, size_t length, uint8_t digest[AIP_SHA256_DIGEST_SIZE]);

#endif
