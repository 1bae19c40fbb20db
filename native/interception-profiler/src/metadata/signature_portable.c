/* Method signatures that name no type. */
#include "metadata/signature_portable.h"

#include "metadata/signature.h"

static int primitive(uint8_t element)
{
    return (element >= 0x01 && element <= 0x0E) /* VOID .. STRING */ || element == 0x16 ||
           element == 0x18 || element == 0x19 || element == 0x1C; /* TYPEDBYREF, I, U, OBJECT */
}

/* A type of the parsed signature: one primitive byte, behind BYREF or not, nothing else. */
static int portable(const aip_sig_type *t)
{
    return !t->has_modifiers && primitive(t->element_type) && t->length == 1u + t->is_byref;
}

int aip_sig_portable_method(const uint8_t *blob, size_t length)
{
    aip_method_sig sig;
    if (blob == NULL || aip_sig_parse_method(blob, length, 0, &sig) != ALVK_OK ||
        sig.length != length || sig.kind != 0 || sig.generic_param_count != 0 ||
        sig.explicit_this || !portable(&sig.ret))
        return 0;
    for (uint32_t i = 0; i < sig.param_count; ++i)
        if (!portable(&sig.params[i]))
            return 0;
    return 1;
}
