/* Two method signatures of different modules compared by shape (tokens left aside). */
#include "metadata/signature_shape.h"

#include "metadata/signature.h"
#include "metadata/signature_compare.h"

#include <stddef.h>

int aip_signature_shapes_differ(const uint8_t *a, size_t a_length, const uint8_t *b,
                                size_t b_length)
{
    if (a == NULL || b == NULL)
        return 0;
    aip_method_sig parsed[2]; /* 6 KiB each: no recursion holds them */
    aip_method_sig *sa = &parsed[0], *sb = &parsed[1];
    if (aip_sig_parse_method(a, a_length, 0, sa) != ALVK_OK ||
        aip_sig_parse_method(b, b_length, 0, sb) != ALVK_OK)
        return 0;
    if (sa->calling_convention != sb->calling_convention ||
        sa->generic_param_count != sb->generic_param_count || sa->param_count != sb->param_count)
        return 1;
    return aip_sig_compare_method_types(a, a_length, sa, b, b_length, sb, AIP_SIG_TWO_MODULES) ==
           AIP_SIG_DIFFERENT;
}
