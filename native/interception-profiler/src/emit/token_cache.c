/* The per-module-epoch token cache: a small table searched linearly (emission is rare). */
#include "emit/token_cache.h"

#include "identity/sha256.h"

#include <string.h>

int aip_token_cache_init(aip_token_cache *cache)
{
    return aip_mutex_init(&cache->lock);
}

aip_token_key aip_token_key_make(uintptr_t module_id, uint32_t kind, uint32_t parent,
                                 const uint8_t *name, size_t name_length, const uint8_t *blob,
                                 size_t blob_length)
{
    aip_token_key key;
    memset(&key, 0, sizeof key);
    key.module_id = module_id;
    key.kind = kind;
    key.parent = parent;
    aip_sha256 ctx;
    static const uint8_t separator = 0;
    aip_sha256_init(&ctx);
    if (name_length > 0)
        aip_sha256_update(&ctx, name, name_length);
    aip_sha256_update(&ctx, &separator, 1);
    if (blob_length > 0)
        aip_sha256_update(&ctx, blob, blob_length);
    aip_sha256_final(&ctx, key.digest);
    return key;
}

static int same_key(const aip_token_key *a, const aip_token_key *b)
{
    return a->module_id == b->module_id && a->kind == b->kind && a->parent == b->parent &&
           memcmp(a->digest, b->digest, sizeof a->digest) == 0;
}

int aip_token_cache_find(aip_token_cache *cache, const aip_token_key *key, uint32_t *token)
{
    int found = 0;
    aip_mutex_lock(&cache->lock);
    for (uint32_t i = 0; i < cache->count && !found; ++i) {
        if (same_key(&cache->entries[i].key, key)) {
            *token = cache->entries[i].token;
            found = 1;
        }
    }
    aip_mutex_unlock(&cache->lock);
    return found;
}

void aip_token_cache_put(aip_token_cache *cache, const aip_token_key *key, uint32_t token)
{
    aip_mutex_lock(&cache->lock);
    if (cache->count == AIP_TOKEN_CACHE_CAPACITY) {
        cache->dropped++;
    } else {
        cache->entries[cache->count].key = *key;
        cache->entries[cache->count].token = token;
        cache->count++;
    }
    aip_mutex_unlock(&cache->lock);
}

void aip_token_cache_forget_module(aip_token_cache *cache, uintptr_t module_id)
{
    aip_mutex_lock(&cache->lock);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < cache->count; ++i)
        if (cache->entries[i].key.module_id != module_id)
            cache->entries[kept++] = cache->entries[i];
    cache->count = kept;
    aip_mutex_unlock(&cache->lock);
}
