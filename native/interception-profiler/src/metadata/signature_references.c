/* Relocation references in a blob replaced by tokens (signature_references.h): the blob is
 * parsed with a hook that copies what lies before each reference and writes the token's
 * coded index in its place. */
#include "metadata/signature_references.h"

#include "metadata/signature_blobs.h"

#include <string.h>

typedef struct substitution {
    const uint8_t *blob;
    uint8_t *out;
    size_t capacity;
    size_t written;
    size_t copied; /* blob[0 .. copied) is in out */
    uint32_t references;
    aip_sig_row_token row_token;
    void *context;
} substitution;

static alvk_status copy_to(substitution *s, size_t end)
{
    size_t n = end - s->copied;
    if (n > s->capacity - s->written)
        return ALVK_E_BUFFER_TOO_SMALL;
    if (n > 0)
        memcpy(s->out + s->written, s->blob + s->copied, n);
    s->written += n;
    s->copied = end;
    return ALVK_OK;
}

static alvk_status replace(void *context, size_t offset, size_t length, uint32_t row)
{
    substitution *s = context;
    uint32_t token = 0;
    alvk_status status = s->row_token(s->context, row, &token);
    if (status != ALVK_OK)
        return status;
    status = copy_to(s, offset);
    if (status != ALVK_OK)
        return status;
    uint8_t coded[4];
    size_t n = aip_sig_write_type_token(token, coded, sizeof coded);
    if (n == 0)
        return ALVK_E_RELOCATION_MALFORMED; /* not a TypeDef, TypeRef or TypeSpec */
    if (n > s->capacity - s->written)
        return ALVK_E_BUFFER_TOO_SMALL;
    memcpy(s->out + s->written, coded, n);
    s->written += n;
    s->copied = offset + length;
    s->references++;
    return ALVK_OK;
}

alvk_status aip_sig_substitute(alvk_relocation_kind kind, const uint8_t *blob, size_t length,
                               aip_sig_row_token row_token, void *context, uint8_t *out,
                               size_t capacity, size_t *out_length, uint32_t *references)
{
    if (blob == NULL || row_token == NULL || out == NULL || out_length == NULL ||
        references == NULL)
        return ALVK_E_NULL_ARGUMENT;
    substitution s = {blob, out, capacity, 0, 0, 0, row_token, context};
    aip_sig_hook hook = {replace, &s};
    uint8_t method_sig = 0;
    alvk_status status = aip_sig_parse_relocation_blob(kind, blob, length, &hook, &method_sig);
    if (status == ALVK_OK)
        status = copy_to(&s, length);
    if (status != ALVK_OK)
        return status;
    *out_length = s.written;
    *references = s.references;
    return ALVK_OK;
}
