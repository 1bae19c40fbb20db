/* Fuzzes the ECMA-335 II.23.2 integer codecs: aip_sig_read_compressed and
 * aip_sig_read_type_token at every offset of the input, and their writers. Checks each
 * read against the encoding rules (lead byte pattern -> 1, 2 or 4 bytes, value bound,
 * refusal exactly for a 111xxxxx lead or too few bytes, offset untouched on refusal); a
 * value read, written back, takes the shortest form and reads back equal; a shortest-form
 * input is rewritten byte for byte; a token read maps tag 0/1/2 to TypeDef/TypeRef/TypeSpec
 * with a RID in [1, 0xFFFFFF] and writes back to the same token; the writers refuse what cannot be
 * encoded and a capacity one byte short. */
#include "fuzz_input.h"
#include "fuzz_sig_checks.h"

static size_t shortest(uint32_t value)
{
    return value <= 0x7Fu ? 1 : value <= 0x3FFFu ? 2 : 4;
}

static void check_write(uint32_t value)
{
    uint8_t out[4];
    size_t written = aip_sig_write_compressed(value, out, sizeof out);
    if (value > 0x1FFFFFFFu) {
        AIP_FUZZ_CHECK(written == 0);
        return;
    }
    AIP_FUZZ_CHECK(written == shortest(value));
    AIP_FUZZ_CHECK(aip_sig_write_compressed(value, out, written - 1) == 0);
    uint8_t *exact = aip_fuzz_copy(out, written);
    size_t at = 0;
    uint32_t back = 0;
    AIP_FUZZ_CHECK(aip_sig_read_compressed(exact, written, &at, &back) == ALVK_OK);
    AIP_FUZZ_CHECK(at == written && back == value);
    free(exact);
}

static void check_token_write(uint32_t token)
{
    uint8_t out[4];
    size_t written = aip_sig_write_type_token(token, out, sizeof out);
    uint32_t table = token & 0xFF000000u, rid = token & 0x00FFFFFFu;
    int encodable =
        (table == mdtTypeDef || table == mdtTypeRef || table == mdtTypeSpec) && rid != 0;
    AIP_FUZZ_CHECK((written != 0) == encodable);
    if (!encodable)
        return;
    size_t at = 0;
    uint32_t back = 0;
    AIP_FUZZ_CHECK(aip_sig_read_type_token(out, written, &at, &back) == ALVK_OK);
    AIP_FUZZ_CHECK(at == written && back == token);
}

static void check_read_at(const uint8_t *blob, size_t n, size_t offset)
{
    uint8_t lead = blob[offset];
    size_t need = (lead & 0x80u) == 0       ? 1
                  : (lead & 0xC0u) == 0x80u ? 2
                  : (lead & 0xE0u) == 0xC0u ? 4
                                            : 0;
    size_t at = offset;
    uint32_t value = 0xA5A5A5A5u;
    alvk_status status = aip_sig_read_compressed(blob, n, &at, &value);
    if (need == 0 || n - offset < need) {
        AIP_FUZZ_CHECK(status == ALVK_E_SIGNATURE_MALFORMED);
        AIP_FUZZ_CHECK(at == offset && value == 0xA5A5A5A5u);
        return;
    }
    AIP_FUZZ_CHECK(status == ALVK_OK && at == offset + need && value <= 0x1FFFFFFFu);
    uint32_t expected = need == 1   ? lead
                        : need == 2 ? ((uint32_t)(lead & 0x3Fu) << 8) | blob[offset + 1]
                                    : ((uint32_t)(lead & 0x1Fu) << 24) |
                                          ((uint32_t)blob[offset + 1] << 16) |
                                          ((uint32_t)blob[offset + 2] << 8) | blob[offset + 3];
    AIP_FUZZ_CHECK(value == expected);
    check_write(value);
    if (shortest(value) == need) {
        uint8_t out[4];
        AIP_FUZZ_CHECK(aip_sig_write_compressed(value, out, sizeof out) == need);
        AIP_FUZZ_CHECK(memcmp(out, blob + offset, need) == 0);
    }

    size_t token_at = offset;
    uint32_t token = 0xA5A5A5A5u;
    status = aip_sig_read_type_token(blob, n, &token_at, &token);
    uint32_t tag = value & 3u, rid = value >> 2;
    if (tag == 3 || rid == 0 || rid > 0x00FFFFFFu) {
        AIP_FUZZ_CHECK(status == ALVK_E_SIGNATURE_MALFORMED);
        AIP_FUZZ_CHECK(token_at == offset && token == 0xA5A5A5A5u);
        return;
    }
    static const uint32_t tables[3] = {mdtTypeDef, mdtTypeRef, mdtTypeSpec};
    AIP_FUZZ_CHECK(status == ALVK_OK && token_at == offset + need);
    AIP_FUZZ_CHECK(token == (tables[tag] | rid));
    check_token_write(token);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *blob = aip_fuzz_copy(data, size);
    for (size_t offset = 0; offset < size; ++offset)
        check_read_at(blob, size, offset);
    size_t at = size;
    uint32_t value = 0;
    AIP_FUZZ_CHECK(aip_sig_read_compressed(blob, size, &at, &value) == ALVK_E_SIGNATURE_MALFORMED);
    /* Arbitrary values and tokens from the input, four bytes at a time. */
    aip_fuzz_reader r = aip_fuzz_reader_of(blob, size);
    while (aip_fuzz_left(&r) >= 4) {
        uint32_t word = aip_fuzz_u32(&r);
        check_write(word);
        check_token_write(word);
    }
    free(blob);
    return 0;
}
