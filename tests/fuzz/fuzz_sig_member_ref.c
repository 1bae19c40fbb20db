/* Fuzzes aip_sig_parse_member_ref (a MemberRef's signature, ECMA-335 II.22.25) over the
 * whole input. Checks: FIELD exactly when aip_sig_parse_field accepts the blob; METHOD
 * exactly when aip_sig_parse_method accepts all of it with a DEFAULT or VARARG
 * convention (the signature then passes fuzz_sig_checks.h); refused otherwise, with the
 * kind untouched. */
#include "fuzz_input.h"
#include "fuzz_sig_checks.h"
#include "metadata/signature_blobs.h"

static aip_method_sig method;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *blob = aip_fuzz_copy(data, size);
    aip_member_sig_kind kind = (aip_member_sig_kind)0x5A;
    alvk_status status = aip_sig_parse_member_ref(blob, size, &kind);

    aip_sig_type field;
    int is_field = aip_sig_parse_field(blob, size, &field) == ALVK_OK;
    int is_method = aip_sig_parse_method(blob, size, 0, &method) == ALVK_OK &&
                    (method.kind == IMAGE_CEE_CS_CALLCONV_DEFAULT ||
                     method.kind == IMAGE_CEE_CS_CALLCONV_VARARG);
    AIP_FUZZ_CHECK(!(is_field && is_method));
    if (is_field) {
        AIP_FUZZ_CHECK(status == ALVK_OK && kind == AIP_MEMBER_SIG_FIELD);
    } else if (is_method) {
        AIP_FUZZ_CHECK(status == ALVK_OK && kind == AIP_MEMBER_SIG_METHOD);
        aip_fuzz_check_method(blob, size, &method);
    } else {
        AIP_FUZZ_CHECK(aip_fuzz_sig_refusal(status));
        AIP_FUZZ_CHECK(kind == (aip_member_sig_kind)0x5A);
    }
    free(blob);
    return 0;
}
