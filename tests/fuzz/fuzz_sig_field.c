/* Fuzzes aip_sig_parse_field (FieldSig, ECMA-335 II.23.2.4) over the whole input. Checks
 * it against the grammar composed from aip_sig_parse_type (FIELD, then one Type without
 * PINNED that is not VOID, then nothing): accepted exactly when that parses, with the same
 * Type, which passes fuzz_sig_checks.h; aip_sig_parse_member_ref agrees and says FIELD;
 * a refusal leaves the output untouched. */
#include "fuzz_input.h"
#include "fuzz_sig_checks.h"
#include "metadata/signature_blobs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *blob = aip_fuzz_copy(data, size);
    aip_sig_type type, expected;
    memset(&type, 0xA5, sizeof type);
    alvk_status status = aip_sig_parse_field(blob, size, &type);

    size_t at = 1;
    int grammar = size > 0 && blob[0] == IMAGE_CEE_CS_CALLCONV_FIELD &&
                  aip_sig_parse_type(blob, size, &at, 0, &expected) == ALVK_OK &&
                  expected.element_type != ELEMENT_TYPE_VOID && at == size;
    AIP_FUZZ_CHECK((status == ALVK_OK) == grammar);

    aip_member_sig_kind kind = (aip_member_sig_kind)0;
    alvk_status member = aip_sig_parse_member_ref(blob, size, &kind);
    if (status == ALVK_OK) {
        AIP_FUZZ_CHECK(memcmp(&type, &expected, sizeof type) == 0);
        AIP_FUZZ_CHECK(type.offset == 1 && type.offset + type.length == size);
        aip_fuzz_check_type(blob, size, &type, 0);
        AIP_FUZZ_CHECK(member == ALVK_OK && kind == AIP_MEMBER_SIG_FIELD);
    } else {
        AIP_FUZZ_CHECK(aip_fuzz_sig_refusal(status));
        uint8_t untouched[sizeof type];
        memset(untouched, 0xA5, sizeof untouched);
        AIP_FUZZ_CHECK(memcmp(&type, untouched, sizeof type) == 0);
        AIP_FUZZ_CHECK(member != ALVK_OK || kind != AIP_MEMBER_SIG_FIELD);
    }
    free(blob);
    return 0;
}
