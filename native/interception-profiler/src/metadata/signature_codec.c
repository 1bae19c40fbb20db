/* ECMA-335 II.23.2 codecs: compressed unsigned integers (II.23.2) and
 * TypeDefOrRefOrSpecEncoded tokens (II.23.2.8), read and written. Every read is
 * bounds-checked. The one place these encodings live. */
#include "metadata/signature_codec.h"

#include "coreclr/cor_metadata_defs.h"

#define AIP_SIG_MAX_COMPRESSED 0x1FFFFFFFu
#define AIP_SIG_MAX_RID 0x00FFFFFFu

alvk_status aip_sig_read_compressed(const uint8_t *blob, size_t length, size_t *offset,
                                    uint32_t *value)
{
    if (blob == NULL || offset == NULL || value == NULL)
        return ALVK_E_NULL_ARGUMENT;
    size_t at = *offset;
    if (at >= length)
        return ALVK_E_SIGNATURE_MALFORMED;
    uint8_t lead = blob[at];
    size_t available = length - at;
    uint32_t result;
    size_t used;
    if ((lead & 0x80u) == 0) {
        result = lead;
        used = 1;
    } else if ((lead & 0xC0u) == 0x80u) {
        if (available < 2)
            return ALVK_E_SIGNATURE_MALFORMED;
        result = ((uint32_t)(lead & 0x3Fu) << 8) | blob[at + 1];
        used = 2;
    } else if ((lead & 0xE0u) == 0xC0u) {
        if (available < 4)
            return ALVK_E_SIGNATURE_MALFORMED;
        result = ((uint32_t)(lead & 0x1Fu) << 24) | ((uint32_t)blob[at + 1] << 16) |
                 ((uint32_t)blob[at + 2] << 8) | blob[at + 3];
        used = 4;
    } else {
        return ALVK_E_SIGNATURE_MALFORMED;
    }
    *value = result;
    *offset = at + used;
    return ALVK_OK;
}

size_t aip_sig_write_compressed(uint32_t value, uint8_t *out, size_t capacity)
{
    if (out == NULL || value > AIP_SIG_MAX_COMPRESSED)
        return 0;
    if (value <= 0x7Fu) {
        if (capacity < 1)
            return 0;
        out[0] = (uint8_t)value;
        return 1;
    }
    if (value <= 0x3FFFu) {
        if (capacity < 2)
            return 0;
        out[0] = (uint8_t)(0x80u | (value >> 8));
        out[1] = (uint8_t)(value & 0xFFu);
        return 2;
    }
    if (capacity < 4)
        return 0;
    out[0] = (uint8_t)(0xC0u | (value >> 24));
    out[1] = (uint8_t)((value >> 16) & 0xFFu);
    out[2] = (uint8_t)((value >> 8) & 0xFFu);
    out[3] = (uint8_t)(value & 0xFFu);
    return 4;
}

alvk_status aip_sig_read_type_reference(const uint8_t *blob, size_t length, size_t *offset,
                                        uint32_t *token, uint32_t *row)
{
    if (blob == NULL || offset == NULL || token == NULL || row == NULL)
        return ALVK_E_NULL_ARGUMENT;
    size_t at = *offset;
    uint32_t coded;
    alvk_status status = aip_sig_read_compressed(blob, length, &at, &coded);
    if (status != ALVK_OK)
        return status;
    static const uint32_t tables[3] = {mdtTypeDef, mdtTypeRef, mdtTypeSpec};
    uint32_t tag = coded & 0x3u;
    uint32_t rid = coded >> 2;
    if (tag == ALVK_SIGNATURE_RELOCATION_TAG) {
        *token = 0;
        *row = rid;
    } else {
        if (rid == 0 || rid > AIP_SIG_MAX_RID)
            return ALVK_E_SIGNATURE_MALFORMED;
        *token = tables[tag] | rid;
        *row = 0;
    }
    *offset = at;
    return ALVK_OK;
}

alvk_status aip_sig_read_type_token(const uint8_t *blob, size_t length, size_t *offset,
                                    uint32_t *token)
{
    if (blob == NULL || offset == NULL || token == NULL)
        return ALVK_E_NULL_ARGUMENT;
    size_t at = *offset;
    uint32_t row = 0, read = 0;
    alvk_status status = aip_sig_read_type_reference(blob, length, &at, &read, &row);
    if (status != ALVK_OK)
        return status;
    if (read == 0) /* a relocation reference: not a token of any module */
        return ALVK_E_SIGNATURE_MALFORMED;
    *token = read;
    *offset = at;
    return ALVK_OK;
}

size_t aip_sig_write_type_token(uint32_t token, uint8_t *out, size_t capacity)
{
    uint32_t rid = token & AIP_SIG_MAX_RID;
    uint32_t tag;
    switch (token & 0xFF000000u) {
    case mdtTypeDef:
        tag = 0;
        break;
    case mdtTypeRef:
        tag = 1;
        break;
    case mdtTypeSpec:
        tag = 2;
        break;
    default:
        return 0;
    }
    if (rid == 0)
        return 0;
    return aip_sig_write_compressed((rid << 2) | tag, out, capacity);
}
