/* Fuzzes aip_sig_parse_locals (LocalVarSig, ECMA-335 II.23.2.6) over the whole input.
 * Checks it against the grammar composed from aip_sig_parse_type (LOCAL_SIG, a count in
 * [1, 0xFFFE], that many Types that may be PINNED and are not VOID, then nothing):
 * accepted exactly when that parses, with the same count, never more locals than bytes;
 * aip_sig_parse_standalone agrees and says LOCALS; a refusal leaves the count untouched. */
#include "fuzz_input.h"
#include "fuzz_sig_checks.h"
#include "metadata/signature_blobs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *blob = aip_fuzz_copy(data, size);
    uint32_t count = 0xA5A5A5A5u;
    alvk_status status = aip_sig_parse_locals(blob, size, &count);

    size_t at = 1;
    uint32_t expected = 0;
    int grammar = size > 0 && blob[0] == IMAGE_CEE_CS_CALLCONV_LOCAL_SIG &&
                  aip_fuzz_ref_type_list(blob, size, &at, 1, AIP_SIG_MIN_LOCALS, AIP_SIG_MAX_LOCALS,
                                         &expected) == ALVK_OK &&
                  at == size;
    AIP_FUZZ_CHECK((status == ALVK_OK) == grammar);

    aip_standalone_sig_kind kind = (aip_standalone_sig_kind)0;
    alvk_status standalone = aip_sig_parse_standalone(blob, size, &kind);
    if (status == ALVK_OK) {
        AIP_FUZZ_CHECK(count == expected && count >= 1 && count <= size - 2);
        AIP_FUZZ_CHECK(standalone == ALVK_OK && kind == AIP_STANDALONE_SIG_LOCALS);
    } else {
        AIP_FUZZ_CHECK(aip_fuzz_sig_refusal(status));
        AIP_FUZZ_CHECK(count == 0xA5A5A5A5u);
        AIP_FUZZ_CHECK(standalone != ALVK_OK || kind != AIP_STANDALONE_SIG_LOCALS);
    }
    free(blob);
    return 0;
}
