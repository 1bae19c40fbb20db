/* Two signature types walked side by side, element by element. */
#include "metadata/signature_compare.h"

#include "coreclr/cor_metadata_defs.h"
#include "metadata/signature_codec.h"

#include <string.h>

typedef struct cursor {
    const uint8_t *blob;
    size_t length;
    size_t at;
} cursor;

static aip_sig_relation worst(aip_sig_relation a, aip_sig_relation b)
{
    return a > b ? a : b;
}

static int is_modifier(uint8_t e)
{
    return e == ELEMENT_TYPE_CMOD_REQD || e == ELEMENT_TYPE_CMOD_OPT;
}

/* A type that names a token, or a generic variable: another element against it is no
 * conclusion (a TypeRef may name System.String, a variable may stand for int). */
static int is_open(uint8_t e)
{
    return e == ELEMENT_TYPE_CLASS || e == ELEMENT_TYPE_VALUETYPE ||
           e == ELEMENT_TYPE_GENERICINST || e == ELEMENT_TYPE_VAR || e == ELEMENT_TYPE_MVAR;
}

static int read_compressed(cursor *c, uint32_t *out)
{
    return aip_sig_read_compressed(c->blob, c->length, &c->at, out) == ALVK_OK;
}

static int read_token(cursor *c, uint32_t *out)
{
    return aip_sig_read_type_token(c->blob, c->length, &c->at, out) == ALVK_OK;
}

/* Two named types' tokens, as far as the scope can tell. */
static aip_sig_relation compare_tokens(uint32_t x, uint32_t y, aip_sig_scope scope)
{
    if (scope == AIP_SIG_TWO_MODULES || x == y)
        return AIP_SIG_SAME;
    if (AIP_TYPE_FROM_TOKEN(x) == mdtTypeDef && AIP_TYPE_FROM_TOKEN(y) == mdtTypeDef)
        return AIP_SIG_DIFFERENT;
    return AIP_SIG_UNKNOWN;
}

/* An ARRAY's shape after its element type: rank, sizes, lower bounds. */
static aip_sig_relation compare_array_shape(cursor *a, cursor *b)
{
    for (int part = 0; part < 3; ++part) {
        uint32_t x = 0, y = 0;
        if (!read_compressed(a, &x) || !read_compressed(b, &y))
            return AIP_SIG_UNKNOWN;
        if (x != y)
            return AIP_SIG_DIFFERENT;
        if (part == 0)
            continue; /* the rank */
        for (uint32_t i = 0; i < x; ++i) {
            uint32_t u = 0, v = 0;
            if (!read_compressed(a, &u) || !read_compressed(b, &v))
                return AIP_SIG_UNKNOWN;
            if (u != v)
                return AIP_SIG_DIFFERENT;
        }
    }
    return AIP_SIG_SAME;
}

static aip_sig_relation compare_type(cursor *a, cursor *b, aip_sig_scope scope, int depth);

/* After the lead element of both types (equal, `e`): the rest of them. */
static aip_sig_relation compare_rest(uint8_t e, cursor *a, cursor *b, aip_sig_scope scope,
                                     int depth)
{
    uint32_t x = 0, y = 0;
    switch (e) {
    case ELEMENT_TYPE_PTR:
    case ELEMENT_TYPE_BYREF:
    case ELEMENT_TYPE_SZARRAY:
    case ELEMENT_TYPE_PINNED:
        return compare_type(a, b, scope, depth + 1);
    case ELEMENT_TYPE_VAR:
    case ELEMENT_TYPE_MVAR:
        if (!read_compressed(a, &x) || !read_compressed(b, &y))
            return AIP_SIG_UNKNOWN;
        return x == y ? AIP_SIG_SAME : AIP_SIG_UNKNOWN;
    case ELEMENT_TYPE_CLASS:
    case ELEMENT_TYPE_VALUETYPE:
        if (!read_token(a, &x) || !read_token(b, &y))
            return AIP_SIG_UNKNOWN;
        return compare_tokens(x, y, scope);
    case ELEMENT_TYPE_GENERICINST: {
        /* CLASS or VALUETYPE, the generic type, the count, the arguments. */
        uint32_t na = 0, nb = 0;
        if (a->at >= a->length || b->at >= b->length)
            return AIP_SIG_UNKNOWN;
        uint8_t ka = a->blob[a->at++], kb = b->blob[b->at++];
        if (!read_token(a, &x) || !read_token(b, &y) || !read_compressed(a, &na) ||
            !read_compressed(b, &nb))
            return AIP_SIG_UNKNOWN;
        aip_sig_relation r = compare_tokens(x, y, scope);
        if (r != AIP_SIG_SAME)
            return r; /* other generic types, or perhaps: what is inside decides nothing */
        if (ka != kb || na != nb)
            return AIP_SIG_DIFFERENT;
        for (uint32_t i = 0; i < na && r != AIP_SIG_DIFFERENT; ++i)
            r = worst(r, compare_type(a, b, scope, depth + 1));
        return r;
    }
    case ELEMENT_TYPE_ARRAY: {
        aip_sig_relation r = compare_type(a, b, scope, depth + 1);
        return r == AIP_SIG_DIFFERENT ? r : worst(r, compare_array_shape(a, b));
    }
    default:
        return AIP_SIG_SAME; /* a primitive: the lead element is the whole type */
    }
}

/* One Type at each cursor; both cursors end past their type when both parse. */
static aip_sig_relation compare_type(cursor *a, cursor *b, aip_sig_scope scope, int depth)
{
    size_t a_end = a->at, b_end = b->at;
    aip_sig_type ta, tb;
    if (depth > AIP_SIG_MAX_DEPTH ||
        aip_sig_parse_type(a->blob, a->length, &a_end, 1, &ta) != ALVK_OK ||
        aip_sig_parse_type(b->blob, b->length, &b_end, 1, &tb) != ALVK_OK)
        return AIP_SIG_UNKNOWN;
    aip_sig_relation r = AIP_SIG_SAME;
    if (ta.length != tb.length || memcmp(a->blob + a->at, b->blob + b->at, ta.length) != 0) {
        for (;;) {
            uint8_t ea = a->blob[a->at], eb = b->blob[b->at];
            if (is_modifier(ea) || is_modifier(eb)) {
                uint32_t x = 0, y = 0;
                if (scope == AIP_SIG_ONE_MODULE) {
                    r = AIP_SIG_UNKNOWN; /* whether modifiers take part is the runtime's call */
                    break;
                }
                if (ea != eb) {
                    r = AIP_SIG_DIFFERENT; /* on one side only, or required against optional */
                    break;
                }
                a->at++, b->at++;
                if (!read_token(a, &x) || !read_token(b, &y) || a->at >= a_end || b->at >= b_end) {
                    r = AIP_SIG_UNKNOWN;
                    break;
                }
                continue;
            }
            if (ea == ELEMENT_TYPE_FNPTR || eb == ELEMENT_TYPE_FNPTR)
                r = AIP_SIG_UNKNOWN; /* function pointers are not compared */
            else if (ea != eb)
                r = is_open(ea) || is_open(eb) ? AIP_SIG_UNKNOWN : AIP_SIG_DIFFERENT;
            else {
                a->at++, b->at++;
                r = compare_rest(ea, a, b, scope, depth);
            }
            break;
        }
    }
    a->at = a_end, b->at = b_end; /* wherever the walk stopped, each type ends here */
    return r;
}

aip_sig_relation aip_sig_compare_type(const uint8_t *a, size_t a_length, size_t *a_at,
                                      const uint8_t *b, size_t b_length, size_t *b_at,
                                      aip_sig_scope scope)
{
    if (a == NULL || b == NULL || a_at == NULL || b_at == NULL)
        return AIP_SIG_UNKNOWN;
    cursor ca = {a, a_length, *a_at}, cb = {b, b_length, *b_at};
    aip_sig_relation r = compare_type(&ca, &cb, scope, 0);
    *a_at = ca.at, *b_at = cb.at;
    return r;
}

aip_sig_relation aip_sig_compare_method_types(const uint8_t *a, size_t a_length,
                                              const aip_method_sig *sa, const uint8_t *b,
                                              size_t b_length, const aip_method_sig *sb,
                                              aip_sig_scope scope)
{
    if (a == NULL || b == NULL || sa == NULL || sb == NULL || sa->param_count != sb->param_count)
        return AIP_SIG_UNKNOWN;
    cursor ca = {a, a_length, sa->ret.offset}, cb = {b, b_length, sb->ret.offset};
    aip_sig_relation r = compare_type(&ca, &cb, scope, 0);
    for (uint32_t i = 0; i < sa->param_count && r != AIP_SIG_DIFFERENT; ++i) {
        ca.at = sa->params[i].offset, cb.at = sb->params[i].offset;
        r = worst(r, compare_type(&ca, &cb, scope, 0));
    }
    return r;
}
