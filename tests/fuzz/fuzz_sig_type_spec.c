/* Fuzzes aip_sig_parse_type_spec (TypeSpec blob, ECMA-335 II.23.2.14) over the whole
 * input. Checks it against the grammar composed from aip_sig_parse_type (one Type without
 * PINNED that is not VOID, covering the blob): accepted exactly when that parses, with the
 * same Type, which passes fuzz_sig_checks.h; the same bytes after a FIELD byte are a
 * FieldSig exactly when they are a TypeSpec; a refusal leaves the output untouched. */
#include "fuzz_input.h"
#include "fuzz_sig_checks.h"
#include "metadata/signature_blobs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *blob = aip_fuzz_copy(data, size);
    aip_sig_type type, expected;
    memset(&type, 0xA5, sizeof type);
    alvk_status status = aip_sig_parse_type_spec(blob, size, &type);

    size_t at = 0;
    int grammar = aip_sig_parse_type(blob, size, &at, 0, &expected) == ALVK_OK &&
                  expected.element_type != ELEMENT_TYPE_VOID && at == size;
    AIP_FUZZ_CHECK((status == ALVK_OK) == grammar);
    if (status == ALVK_OK) {
        AIP_FUZZ_CHECK(memcmp(&type, &expected, sizeof type) == 0);
        AIP_FUZZ_CHECK(type.offset == 0 && type.length == size);
        aip_fuzz_check_type(blob, size, &type, 0);
    } else {
        AIP_FUZZ_CHECK(aip_fuzz_sig_refusal(status));
        uint8_t untouched[sizeof type];
        memset(untouched, 0xA5, sizeof untouched);
        AIP_FUZZ_CHECK(memcmp(&type, untouched, sizeof type) == 0);
    }

    uint8_t *field = aip_fuzz_alloc(size + 1);
    field[0] = IMAGE_CEE_CS_CALLCONV_FIELD;
    if (size > 0)
        memcpy(field + 1, blob, size);
    aip_sig_type field_type;
    alvk_status field_status = aip_sig_parse_field(field, size + 1, &field_type);
    AIP_FUZZ_CHECK((field_status == ALVK_OK) == (status == ALVK_OK));
    if (status == ALVK_OK)
        AIP_FUZZ_CHECK(field_type.offset == 1 && field_type.length == type.length &&
                       field_type.element_type == type.element_type);
    free(field);
    free(blob);
    return 0;
}
