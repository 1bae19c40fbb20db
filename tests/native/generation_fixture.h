/* A valid generation for the generation-validation tests, and a validate() that runs
 * aip_generation_validate over exact-size heap copies so ASan sees any overread. Include
 * after cmocka.h. */
#ifndef AIP_TEST_GENERATION_FIXTURE_H
#define AIP_TEST_GENERATION_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "generation/generation_validate.h"

/* Code offsets of the token operands (the code starts after the 12-byte fat header). */
enum {
    OP_CALL = 2,       /* call <R1 MEMBER_REF Add> */
    OP_CALLI = 8,      /* calli <R2 STANDALONE_SIG> */
    OP_CALL_SPEC = 13, /* call <R4 METHOD_SPEC> */
    OP_BOX = 18,       /* box <R5 TYPE_REF> */
    OP_LDSFLD = 23,    /* ldsfld <R6 MEMBER_REF field Count> */
    OP_LDTOKEN = 28,   /* ldtoken <R7 TYPE_SPEC int32[]> */
    FIXTURE_CODE_SIZE = 34,
    FIXTURE_BODY_SIZE = 64,
    FIXTURE_RELOCATIONS = 8,
    FIXTURE_MAP = 3,
    FIXTURE_ORIGINAL_SIZE = 20
};

typedef struct fixture {
    uint8_t body[FIXTURE_BODY_SIZE + 8]; /* room for trailing-byte tests */
    uint8_t blobs[256];
    alvk_relocation relocs[FIXTURE_RELOCATIONS];
    alvk_il_map_entry map[FIXTURE_MAP];
    alvk_generation g;
} fixture;

static inline void fixture_put32(uint8_t *p, uint32_t v)
{
    for (int k = 0; k < 4; ++k)
        p[k] = (uint8_t)(v >> (8 * k));
}

/* Appends bytes to the pool; returns their offset. */
static inline uint32_t fixture_add(fixture *f, const void *bytes, uint32_t n)
{
    uint32_t at = f->g.blobs_size;
    memcpy(f->blobs + at, bytes, n);
    f->g.blobs_size += n;
    return at;
}

static inline alvk_relocation *fixture_reloc(fixture *f, uint32_t i, alvk_relocation_kind kind,
                                             uint32_t il_offset, const void *blob,
                                             uint32_t blob_length)
{
    alvk_relocation *r = &f->relocs[i];
    memset(r, 0, sizeof *r);
    r->size = sizeof *r;
    r->kind = kind;
    r->il_offset = il_offset;
    if (blob_length != 0) {
        r->blob_offset = fixture_add(f, blob, blob_length);
        r->blob_length = blob_length;
    }
    return r;
}

static inline void fixture_name(fixture *f, alvk_relocation *r, const char *name)
{
    r->name_length = (uint32_t)strlen(name);
    r->name_offset = fixture_add(f, name, r->name_length);
}

static inline void fixture_init(fixture *f)
{
    static const uint8_t code[FIXTURE_CODE_SIZE] = {
        0x02,                   /* 0  ldarg.0 */
        0x28, 0, 0, 0, 0,       /* 1  call <R1> */
        0x17,                   /* 6  ldc.i4.1 */
        0x29, 0, 0, 0, 0,       /* 7  calli <R2> */
        0x28, 0, 0, 0, 0,       /* 12 call <R4> */
        0x8C, 0, 0, 0, 0,       /* 17 box <R5> */
        0x7E, 0, 0, 0, 0,       /* 22 ldsfld <R6> */
        0xD0, 0, 0, 0, 0,       /* 27 ldtoken <R7> */
        0x26,                   /* 32 pop */
        0x2A};                  /* 33 ret */
    memset(f, 0, sizeof *f);
    /* fat header: MoreSects | InitLocals, 3 dwords, max stack 8, locals StandAloneSig 1 */
    fixture_put32(f->body, 0x3003u | 0x8u | 0x10u | (8u << 16));
    fixture_put32(f->body + 4, FIXTURE_CODE_SIZE);
    fixture_put32(f->body + 8, 0x11000001u);
    memcpy(f->body + 12, code, sizeof code);
    /* code ends at 46; padding to 48; a small EH section with one finally clause:
     * try [0, 12), handler [12, 34) */
    f->body[48] = 0x01;
    f->body[49] = 16;
    static const uint8_t clause[12] = {0x02, 0, 0, 0, 12, 12, 0, 22, 0, 0, 0, 0};
    memcpy(f->body + 52, clause, sizeof clause);

    static const uint8_t list_of_int[] = {0x15, 0x12, 0x09, 0x01, 0x08}; /* List<int32> */
    static const uint8_t add_sig[] = {0x20, 0x01, 0x01, 0x08};          /* void(int32) */
    static const uint8_t calli_sig[] = {0x00, 0x01, 0x08, 0x08};        /* int32(int32) */
    static const uint8_t map_sig[] = {0x10, 0x01, 0x01, 0x1E, 0x00, 0x1E, 0x00}; /* !!0<T>(!!0) */
    static const uint8_t spec_sig[] = {0x0A, 0x01, 0x0E};               /* <string> */
    static const uint8_t count_sig[] = {0x06, 0x08};                    /* int32 field */
    static const uint8_t int_array[] = {0x1D, 0x08};                    /* int32[] */
    alvk_relocation *r;
    fixture_reloc(f, 0, ALVK_RELOCATION_TYPE_SPEC, ALVK_RELOCATION_NO_OPERAND, list_of_int,
                  sizeof list_of_int);
    r = fixture_reloc(f, 1, ALVK_RELOCATION_MEMBER_REF, OP_CALL, add_sig, sizeof add_sig);
    r->parent_relocation = 1;
    fixture_name(f, r, "Add");
    fixture_reloc(f, 2, ALVK_RELOCATION_STANDALONE_SIG, OP_CALLI, calli_sig, sizeof calli_sig);
    r = fixture_reloc(f, 3, ALVK_RELOCATION_MEMBER_REF, ALVK_RELOCATION_NO_OPERAND, map_sig,
                      sizeof map_sig);
    r->parent_token = 0x01000005u;
    fixture_name(f, r, "Map");
    r = fixture_reloc(f, 4, ALVK_RELOCATION_METHOD_SPEC, OP_CALL_SPEC, spec_sig, sizeof spec_sig);
    r->parent_relocation = 4;
    r = fixture_reloc(f, 5, ALVK_RELOCATION_TYPE_REF, OP_BOX, NULL, 0);
    r->parent_token = 0x23000001u;
    fixture_name(f, r, "System.Numerics.Vector2");
    r = fixture_reloc(f, 6, ALVK_RELOCATION_MEMBER_REF, OP_LDSFLD, count_sig, sizeof count_sig);
    r->parent_relocation = 6;
    fixture_name(f, r, "Count");
    fixture_reloc(f, 7, ALVK_RELOCATION_TYPE_SPEC, OP_LDTOKEN, int_array, sizeof int_array);

    static const alvk_il_map_entry map[FIXTURE_MAP] = {{0, 0, 1}, {5, 12, 1}, {10, 33, 0}};
    memcpy(f->map, map, sizeof map);

    f->g.size = sizeof f->g;
    f->g.method_token = 0x06000002u;
    f->g.owner = 7;
    f->g.body = f->body;
    f->g.blobs = f->blobs;
    f->g.relocations = f->relocs;
    f->g.il_map = f->map;
    f->g.body_size = FIXTURE_BODY_SIZE;
    f->g.relocation_count = FIXTURE_RELOCATIONS;
    f->g.il_map_count = FIXTURE_MAP;
    f->g.flags = ALVK_INSTALL_INLINER_FALLBACK;
}

/* Copies an array to an exact-size heap block when it fits the fixture's storage. */
static inline const void *fixture_copy(const void *p, size_t count, size_t element,
                                       size_t capacity, void **owned)
{
    *owned = NULL;
    if (p == NULL || count > capacity)
        return p;
    *owned = malloc(count * element + 1);
    assert_non_null(*owned);
    memcpy(*owned, p, count * element);
    return *owned;
}

static inline alvk_status validate(const fixture *f, uint32_t original,
                                   aip_generation_check *check)
{
    alvk_generation g = f->g;
    void *owned[4];
    g.body = fixture_copy(f->g.body, g.body_size, 1, sizeof f->body, &owned[0]);
    g.blobs = fixture_copy(f->g.blobs, g.blobs_size, 1, sizeof f->blobs, &owned[1]);
    g.relocations = fixture_copy(f->g.relocations, g.relocation_count, sizeof(alvk_relocation),
                                 FIXTURE_RELOCATIONS, &owned[2]);
    g.il_map = fixture_copy(f->g.il_map, g.il_map_count, sizeof(alvk_il_map_entry), FIXTURE_MAP,
                            &owned[3]);
    alvk_status status = aip_generation_validate(&g, original, check);
    for (int i = 0; i < 4; ++i)
        free(owned[i]);
    return status;
}

#endif
