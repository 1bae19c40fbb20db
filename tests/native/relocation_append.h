/* Appends a relocation to a generation under construction in a test: its name (when not NULL)
 * then its blob go at the end of the blob pool, the relocation after the generation's others.
 * The caller's arrays must have room. */
#ifndef AIP_TEST_RELOCATION_APPEND_H
#define AIP_TEST_RELOCATION_APPEND_H

#include "alvorkit_interception_profiler.h"

#include <string.h>

static inline alvk_relocation *relocation_append(alvk_generation *g, alvk_relocation *relocs,
                                                 uint8_t *blobs, alvk_relocation_kind kind,
                                                 uint32_t il_offset, const void *blob,
                                                 uint32_t blob_length, const char *name)
{
    alvk_relocation *r = &relocs[g->relocation_count++];
    memset(r, 0, sizeof *r);
    r->size = sizeof *r;
    r->kind = kind;
    r->il_offset = il_offset;
    if (name != NULL) {
        r->name_offset = g->blobs_size;
        r->name_length = (uint32_t)strlen(name);
        memcpy(blobs + g->blobs_size, name, r->name_length);
        g->blobs_size += r->name_length;
    }
    r->blob_offset = g->blobs_size;
    r->blob_length = blob_length;
    if (blob_length > 0)
        memcpy(blobs + g->blobs_size, blob, blob_length);
    g->blobs_size += blob_length;
    return r;
}

#endif
