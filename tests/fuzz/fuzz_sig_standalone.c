/* Fuzzes aip_sig_parse_standalone (a StandAloneSig's blob, ECMA-335 II.22.36) over the
 * whole input. Checks: LOCALS exactly when aip_sig_parse_locals accepts the blob; METHOD
 * exactly when aip_sig_parse_method accepts all of it and it is not GENERIC (the
 * signature then passes fuzz_sig_checks.h); refused otherwise, with the kind untouched.
 * Property signatures (PROPERTY is no method convention) seed it and must be refused. */
#include "fuzz_input.h"
#include "fuzz_sig_checks.h"
#include "metadata/signature_blobs.h"

static aip_method_sig method;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *blob = aip_fuzz_copy(data, size);
    aip_standalone_sig_kind kind = (aip_standalone_sig_kind)0x5A;
    alvk_status status = aip_sig_parse_standalone(blob, size, &kind);

    uint32_t count;
    int is_locals = aip_sig_parse_locals(blob, size, &count) == ALVK_OK;
    int is_method = aip_sig_parse_method(blob, size, 0, &method) == ALVK_OK &&
                    (method.calling_convention & IMAGE_CEE_CS_CALLCONV_GENERIC) == 0;
    AIP_FUZZ_CHECK(!(is_locals && is_method));
    if (is_locals) {
        AIP_FUZZ_CHECK(status == ALVK_OK && kind == AIP_STANDALONE_SIG_LOCALS);
    } else if (is_method) {
        AIP_FUZZ_CHECK(status == ALVK_OK && kind == AIP_STANDALONE_SIG_METHOD);
        aip_fuzz_check_method(blob, size, &method);
    } else {
        AIP_FUZZ_CHECK(aip_fuzz_sig_refusal(status));
        AIP_FUZZ_CHECK(kind == (aip_standalone_sig_kind)0x5A);
    }
    if (size > 0 && (blob[0] & IMAGE_CEE_CS_CALLCONV_MASK) == IMAGE_CEE_CS_CALLCONV_PROPERTY)
        AIP_FUZZ_CHECK(status != ALVK_OK);
    free(blob);
    return 0;
}
