/* Fuzzes aip_sig_parse_type (one Type, ECMA-335 II.23.2.12) at an offset inside a blob.
 * Input: byte 0 = bit 0 allow_pinned, bits 1-7 the start offset (modulo the blob's length
 * + 1); the rest is the blob. Checks: on success the offset advances by exactly the
 * reported length, which stays inside the blob, and the Type passes fuzz_sig_checks.h; on
 * refusal the offset is unchanged; the status and the bytes consumed are those of the
 * independent grammar of fuzz_sig_reference.h; allowing PINNED never refuses what is
 * accepted without it, and changes nothing else; no strict prefix of an accepted Type
 * parses. */
#include "fuzz_input.h"
#include "fuzz_sig_checks.h"
#include "fuzz_sig_reference.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int allow_pinned = data[0] & 1;
    size_t n = size - 1;
    size_t start = (size_t)(data[0] >> 1) % (n + 1);
    uint8_t *blob = aip_fuzz_copy(data + 1, n);

    size_t at = start;
    aip_sig_type type;
    alvk_status status = aip_sig_parse_type(blob, n, &at, allow_pinned, &type);
    size_t ref_at = start;
    AIP_FUZZ_CHECK(status == ref_parse_type(blob, n, &ref_at, allow_pinned));
    AIP_FUZZ_CHECK(ref_at == at);
    if (status != ALVK_OK) {
        AIP_FUZZ_CHECK(aip_fuzz_sig_refusal(status));
        AIP_FUZZ_CHECK(at == start);
        free(blob);
        return 0;
    }
    AIP_FUZZ_CHECK(type.offset == start && at == start + type.length && at <= n);
    aip_fuzz_check_type(blob, n, &type, allow_pinned);

    /* Allowing PINNED: a superset that reads the same bytes the same way. */
    size_t at_other = start;
    aip_sig_type other;
    alvk_status pinned_status = aip_sig_parse_type(blob, n, &at_other, 1, &other);
    AIP_FUZZ_CHECK(pinned_status == ALVK_OK);
    if (!allow_pinned)
        AIP_FUZZ_CHECK(at_other == at && memcmp(&other, &type, sizeof type) == 0);

    /* A strict prefix of the Type never parses. */
    size_t cut = type.length - 1;
    uint8_t *prefix = aip_fuzz_copy(blob + start, cut);
    size_t prefix_at = 0;
    AIP_FUZZ_CHECK(aip_sig_parse_type(prefix, cut, &prefix_at, allow_pinned, &other) != ALVK_OK);
    AIP_FUZZ_CHECK(prefix_at == 0);
    free(prefix);
    free(blob);
    return 0;
}
