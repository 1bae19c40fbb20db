/* Fuzzes aip_sig_parse_method (MethodDefSig, MethodRefSig, StandAloneMethodSig, ECMA-335
 * II.23.2.1-3) over the whole input, with and without trailing bytes allowed. Checks: the
 * reported signature tiles its length (fuzz_sig_checks.h); the two modes agree; the
 * signature's own bytes, copied out, parse to the identical result; no strict prefix of it
 * parses (a signature is self-delimiting); refusals are MALFORMED or LIMIT_EXCEEDED; the
 * status and length are those of the independent grammar of fuzz_sig_reference.h. And
 * aip_sig_portable_method: 1 only for a blob that parses exactly, not generic, whose every type
 * is one or two bytes (a primitive, or BYREF and one). */
#include "fuzz_input.h"
#include "fuzz_sig_checks.h"
#include "fuzz_sig_reference.h"
#include "metadata/signature_portable.h"

static aip_method_sig with_trailing, exact, alone;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *blob = aip_fuzz_copy(data, size);
    alvk_status loose = aip_sig_parse_method(blob, size, 1, &with_trailing);
    alvk_status strict = aip_sig_parse_method(blob, size, 0, &exact);
    int portable = aip_sig_portable_method(blob, size);
    AIP_FUZZ_CHECK(portable == 0 || portable == 1);
    if (portable) {
        AIP_FUZZ_CHECK(strict == ALVK_OK && exact.generic_param_count == 0);
        AIP_FUZZ_CHECK(exact.ret.length <= 2);
        for (uint32_t i = 0; i < exact.param_count; ++i)
            AIP_FUZZ_CHECK(exact.params[i].length <= 2 && !exact.params[i].has_modifiers);
    }
    size_t ref_length = 0;
    AIP_FUZZ_CHECK(loose == ref_parse_method(blob, size, &ref_length));
    AIP_FUZZ_CHECK(loose != ALVK_OK || ref_length == with_trailing.length);
    if (loose != ALVK_OK) {
        AIP_FUZZ_CHECK(aip_fuzz_sig_refusal(loose));
        AIP_FUZZ_CHECK(strict == loose);
        free(blob);
        return 0;
    }
    aip_fuzz_check_method(blob, size, &with_trailing);
    if (with_trailing.length == size) {
        AIP_FUZZ_CHECK(strict == ALVK_OK);
        AIP_FUZZ_CHECK(memcmp(&exact, &with_trailing, sizeof exact) == 0);
    } else {
        AIP_FUZZ_CHECK(strict == ALVK_E_SIGNATURE_MALFORMED);
    }

    uint8_t *own = aip_fuzz_copy(blob, with_trailing.length);
    AIP_FUZZ_CHECK(aip_sig_parse_method(own, with_trailing.length, 0, &alone) == ALVK_OK);
    AIP_FUZZ_CHECK(memcmp(&alone, &with_trailing, sizeof alone) == 0);
    free(own);

    /* Prefixes: the last byte missing, and a prefix chosen by the input's last byte. */
    size_t cuts[2] = {with_trailing.length - 1, blob[size - 1] % with_trailing.length};
    for (int i = 0; i < 2; ++i) {
        uint8_t *prefix = aip_fuzz_copy(blob, cuts[i]);
        alvk_status status = aip_sig_parse_method(prefix, cuts[i], 1, &alone);
        AIP_FUZZ_CHECK(aip_fuzz_sig_refusal(status));
        free(prefix);
    }
    free(blob);
    return 0;
}
