/* Fuzzes aip_sig_parse_method_spec (MethodSpec instantiation, ECMA-335 II.23.2.15) over
 * the whole input. Checks it against the grammar composed from aip_sig_parse_type
 * (GENERICINST, a count >= 1, that many Types without PINNED that are not VOID, then
 * nothing): accepted exactly when that parses, with the same count, never more arguments
 * than bytes; a refusal leaves the count untouched. */
#include "fuzz_input.h"
#include "fuzz_sig_checks.h"
#include "metadata/signature_blobs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *blob = aip_fuzz_copy(data, size);
    uint32_t count = 0xA5A5A5A5u;
    alvk_status status = aip_sig_parse_method_spec(blob, size, &count);

    size_t at = 1;
    uint32_t expected = 0;
    int grammar = size > 0 && blob[0] == IMAGE_CEE_CS_CALLCONV_GENERICINST &&
                  aip_fuzz_ref_type_list(blob, size, &at, 0, 1, UINT32_MAX, &expected) == ALVK_OK &&
                  at == size;
    AIP_FUZZ_CHECK((status == ALVK_OK) == grammar);
    if (status == ALVK_OK) {
        AIP_FUZZ_CHECK(count == expected && count >= 1 && count <= size - 2);
    } else {
        AIP_FUZZ_CHECK(aip_fuzz_sig_refusal(status));
        AIP_FUZZ_CHECK(count == 0xA5A5A5A5u);
    }
    free(blob);
    return 0;
}
