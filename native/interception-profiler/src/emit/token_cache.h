/* Tokens emitted for relocations, per loaded module epoch: the same (kind, parent, name,
 * blob) in the same module always gets the same token back, so a replacement generation
 * reuses exactly what its predecessor emitted. Bounded; forgotten when the module unloads.
 * Pure. */
#ifndef AIP_TOKEN_CACHE_H
#define AIP_TOKEN_CACHE_H

#include "platform/platform.h"

#include <stddef.h>
#include <stdint.h>

#define AIP_TOKEN_CACHE_CAPACITY 2048

typedef struct aip_token_key {
    uintptr_t module_id;
    uint32_t kind;
    uint32_t parent;
    uint8_t digest[32]; /* SHA-256 of name, a 0 byte, then blob */
} aip_token_key;

typedef struct aip_token_cache {
    aip_mutex lock;
    uint32_t count;
    uint32_t dropped;
    struct {
        aip_token_key key;
        uint32_t token;
    } entries[AIP_TOKEN_CACHE_CAPACITY];
} aip_token_cache;

/* Requires zeroed storage (the profiler object is zero pages from the OS: writing the zeros
 * again would make the whole cache resident). Returns 0, or -1 when the lock fails. */
int aip_token_cache_init(aip_token_cache *cache);

aip_token_key aip_token_key_make(uintptr_t module_id, uint32_t kind, uint32_t parent,
                                 const uint8_t *name, size_t name_length, const uint8_t *blob,
                                 size_t blob_length);

/* 1 and *token when known. */
int aip_token_cache_find(aip_token_cache *cache, const aip_token_key *key, uint32_t *token);
/* Remembers a token; when full, the entry is counted as dropped (it will be emitted again,
 * and the metadata emitter returns the same token for an identical definition). */
void aip_token_cache_put(aip_token_cache *cache, const aip_token_key *key, uint32_t token);
/* ModuleUnloadStarted: the epoch's tokens are gone. */
void aip_token_cache_forget_module(aip_token_cache *cache, uintptr_t module_id);

#endif
