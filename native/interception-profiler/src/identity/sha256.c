/* SHA-256 (FIPS 180-4). Portable: bytes are assembled into words explicitly, so the result
 * does not depend on the host's byte order, and no intrinsics are used. */
#include "identity/sha256.h"

#include <string.h>

static const uint32_t aip_sha256_k[64] = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u,
    0xab1c5ed5u, 0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu,
    0x9bdc06a7u, 0xc19bf174u, 0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu,
    0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau, 0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u,
    0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u, 0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu,
    0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u, 0xa2bfe8a1u, 0xa81a664bu,
    0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u, 0x19a4c116u,
    0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
    0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u,
    0xc67178f2u,
};

static uint32_t aip_rotr(uint32_t value, unsigned bits)
{
    return (value >> bits) | (value << (32u - bits));
}

static uint32_t aip_load_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static void aip_store_be32(uint8_t *p, uint32_t value)
{
    p[0] = (uint8_t)(value >> 24);
    p[1] = (uint8_t)(value >> 16);
    p[2] = (uint8_t)(value >> 8);
    p[3] = (uint8_t)value;
}

static void aip_sha256_compress(uint32_t state[8], const uint8_t block[64])
{
    uint32_t w[64];
    for (unsigned t = 0; t < 16; ++t) {
        w[t] = aip_load_be32(block + 4u * t);
    }
    for (unsigned t = 16; t < 64; ++t) {
        uint32_t s0 = aip_rotr(w[t - 15], 7) ^ aip_rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = aip_rotr(w[t - 2], 17) ^ aip_rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }

    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
    for (unsigned t = 0; t < 64; ++t) {
        uint32_t big_s1 = aip_rotr(e, 6) ^ aip_rotr(e, 11) ^ aip_rotr(e, 25);
        uint32_t ch = (e & f) ^ (~e & g);
        uint32_t t1 = h + big_s1 + ch + aip_sha256_k[t] + w[t];
        uint32_t big_s0 = aip_rotr(a, 2) ^ aip_rotr(a, 13) ^ aip_rotr(a, 22);
        uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
        uint32_t t2 = big_s0 + maj;
        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
    state[4] += e;
    state[5] += f;
    state[6] += g;
    state[7] += h;
}

void aip_sha256_init(struct aip_sha256 *ctx)
{
    static const uint32_t initial[8] = {
        0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
        0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u,
    };
    memcpy(ctx->state, initial, sizeof initial);
    ctx->total_bytes = 0;
    memset(ctx->block, 0, sizeof ctx->block);
    ctx->block_used = 0;
}

void aip_sha256_update(struct aip_sha256 *ctx, const void *data, size_t length)
{
    const uint8_t *in = (const uint8_t *)data;
    if (length == 0) {
        return;
    }
    ctx->total_bytes += (uint64_t)length;

    if (ctx->block_used > 0) {
        size_t room = 64u - ctx->block_used;
        size_t take = length < room ? length : room;
        memcpy(ctx->block + ctx->block_used, in, take);
        ctx->block_used += (uint32_t)take;
        in += take;
        length -= take;
        if (ctx->block_used < 64u) {
            return;
        }
        aip_sha256_compress(ctx->state, ctx->block);
        ctx->block_used = 0;
    }
    while (length >= 64u) {
        aip_sha256_compress(ctx->state, in);
        in += 64;
        length -= 64u;
    }
    if (length > 0) {
        memcpy(ctx->block, in, length);
        ctx->block_used = (uint32_t)length;
    }
}

void aip_sha256_final(struct aip_sha256 *ctx, uint8_t digest[AIP_SHA256_DIGEST_SIZE])
{
    uint64_t bit_length = ctx->total_bytes * 8u;
    uint32_t used = ctx->block_used;

    ctx->block[used++] = 0x80u;
    if (used > 56u) {
        memset(ctx->block + used, 0, 64u - used);
        aip_sha256_compress(ctx->state, ctx->block);
        used = 0;
    }
    memset(ctx->block + used, 0, 56u - used);
    for (unsigned i = 0; i < 8; ++i) {
        ctx->block[63u - i] = (uint8_t)(bit_length >> (8u * i));
    }
    aip_sha256_compress(ctx->state, ctx->block);

    for (unsigned i = 0; i < 8; ++i) {
        aip_store_be32(digest + 4u * i, ctx->state[i]);
    }
    /* Leave no message-derived state behind; the context must be re-initialized to reuse. */
    memset(ctx, 0, sizeof *ctx);
}

void aip_sha256_digest(const void *data, size_t length, uint8_t digest[AIP_SHA256_DIGEST_SIZE])
{
    struct aip_sha256 ctx;
    aip_sha256_init(&ctx);
    aip_sha256_update(&ctx, data, length);
    aip_sha256_final(&ctx, digest);
}
