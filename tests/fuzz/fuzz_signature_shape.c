/* Fuzzes aip_signature_shapes_differ (two method signatures of different modules: can they
 * describe one method?) and the walker under it, aip_sig_compare_type (two types, in either
 * scope). The input is a length byte n, then blob a (n bytes, or what is left) and blob b (the
 * rest). Checks: the answer is 0 or 1; symmetric; a blob never differs from itself; 0 when
 * either blob does not parse as a method signature. The walker, over the two blobs read as
 * one Type each from their start, in both scopes: a relation it documents; symmetric; a type
 * is the same as itself; UNKNOWN with the cursors untouched when either does not parse as a
 * Type, else the cursors end where the parser ends each Type. */
#include "fuzz_input.h"
#include "metadata/signature.h"
#include "metadata/signature_compare.h"
#include "metadata/signature_shape.h"

static aip_method_sig parsed;

static int parses(const uint8_t *blob, size_t size)
{
    return aip_sig_parse_method(blob, size, 0, &parsed) == ALVK_OK;
}

/* Where the parser ends one Type at the start of the blob, or 0 when it does not parse. */
static size_t type_end(const uint8_t *blob, size_t size)
{
    size_t at = 0;
    aip_sig_type t;
    return aip_sig_parse_type(blob, size, &at, 1, &t) == ALVK_OK ? at : 0;
}

static void check_walker(const uint8_t *a, size_t a_length, const uint8_t *b, size_t b_length,
                         aip_sig_scope scope)
{
    size_t a_end = type_end(a, a_length), b_end = type_end(b, b_length);
    size_t xa = 0, xb = 0, ya = 0, yb = 0;
    aip_sig_relation ab = aip_sig_compare_type(a, a_length, &xa, b, b_length, &xb, scope);
    aip_sig_relation ba = aip_sig_compare_type(b, b_length, &yb, a, a_length, &ya, scope);
    AIP_FUZZ_CHECK(ab == AIP_SIG_SAME || ab == AIP_SIG_UNKNOWN || ab == AIP_SIG_DIFFERENT);
    AIP_FUZZ_CHECK(ab == ba);
    if (a_end == 0 || b_end == 0) {
        AIP_FUZZ_CHECK(ab == AIP_SIG_UNKNOWN);
        AIP_FUZZ_CHECK(xa == 0 && xb == 0 && ya == 0 && yb == 0);
    } else {
        AIP_FUZZ_CHECK(xa == a_end && xb == b_end && ya == a_end && yb == b_end);
    }
    size_t s = 0, t = 0;
    AIP_FUZZ_CHECK(aip_sig_compare_type(a, a_length, &s, a, a_length, &t, scope) ==
                   (a_end == 0 ? AIP_SIG_UNKNOWN : AIP_SIG_SAME));
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
    check_walker(a, a_length, b, b_length, AIP_SIG_ONE_MODULE);
    check_walker(a, a_length, b, b_length, AIP_SIG_TWO_MODULES);
    free(a);
    free(b);
    return 0;
}
