/* Fuzzes aip_r2r_inline_scope_of (a ReadyToRun CrossModuleInlineInfo section: a NativeHashtable
 * of inlinee streams). Input: byte 0 bit 0 picks the multi-module format; the rest is the
 * section, in an exact-size heap block (ASan sees any read past it). Checks: only the
 * documented answers; repeatable; an answer other than MALFORMED is the same with bytes
 * appended (every read it made lies inside the structure the header declares); NONE only for
 * a table of empty buckets, which both formats read alike; an entry of another module found
 * without the multi-module format is found with it too (the module index only adds). */
#include "fuzz_input.h"

#include "image/readytorun_image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int multi = data[0] & 1;
    size_t n = size - 1;
    uint8_t *b = aip_fuzz_copy(data + 1, n);
    aip_r2r_inline_scope scope = aip_r2r_inline_scope_of(b, n, multi);
    AIP_FUZZ_CHECK(scope <= AIP_R2R_INLINES_MALFORMED);
    AIP_FUZZ_CHECK(aip_r2r_inline_scope_of(b, n, multi) == scope);
    if (scope != AIP_R2R_INLINES_MALFORMED) {
        uint8_t *longer = aip_fuzz_alloc(n + 32);
        memcpy(longer, b, n);
        memset(longer + n, 0x5A, 32);
        AIP_FUZZ_CHECK(aip_r2r_inline_scope_of(longer, n + 32, multi) == scope);
        free(longer);
    }
    aip_r2r_inline_scope single = aip_r2r_inline_scope_of(b, n, 0);
    aip_r2r_inline_scope both = aip_r2r_inline_scope_of(b, n, 1);
    if (single == AIP_R2R_INLINES_NONE || both == AIP_R2R_INLINES_NONE)
        AIP_FUZZ_CHECK(single == both);
    if (single == AIP_R2R_INLINES_OTHER)
        AIP_FUZZ_CHECK(both == AIP_R2R_INLINES_OTHER || both == AIP_R2R_INLINES_MALFORMED);
    free(b);
    return 0;
}
