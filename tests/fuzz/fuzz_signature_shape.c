/* Fuzzes aip_signature_shapes_differ (two method signatures of different modules: can they
 * describe one method?). The input is a length byte n, then blob a (n bytes, or what is
 * left) and blob b (the rest). Checks: the answer is 0 or 1; symmetric; a blob never
 * differs from itself; 0 when either blob does not parse as a method signature. */
#include "fuzz_input.h"
#include "metadata/signature.h"
#include "metadata/signature_shape.h"

static aip_method_sig parsed;

static int parses(const uint8_t *blob, size_t size)
{
    return aip_sig_parse_method(blob, size, 0, &parsed) == ALVK_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t a_length = data[0] < size - 1 ? data[0] : size - 1;
    uint8_t *a = aip_fuzz_copy(data + 1, a_length);
    size_t b_length = size - 1 - a_length;
    uint8_t *b = aip_fuzz_copy(data + 1 + a_length, b_length);

    int ab = aip_signature_shapes_differ(a, a_length, b, b_length);
    int ba = aip_signature_shapes_differ(b, b_length, a, a_length);
    AIP_FUZZ_CHECK(ab == 0 || ab == 1);
    AIP_FUZZ_CHECK(ab == ba);
    AIP_FUZZ_CHECK(aip_signature_shapes_differ(a, a_length, a, a_length) == 0);
    AIP_FUZZ_CHECK(aip_signature_shapes_differ(b, b_length, b, b_length) == 0);
    if (!parses(a, a_length) || !parses(b, b_length))
        AIP_FUZZ_CHECK(ab == 0);
    free(a);
    free(b);
    return 0;
}
