/* Two method signatures of different modules compared by shape (tokens left aside). */
#include "metadata/signature_shape.h"

#include "coreclr/cor_metadata_defs.h"
#include "metadata/signature.h"
#include "metadata/signature_codec.h"

#include <stddef.h>

typedef struct cursor {
    const uint8_t *blob;
    size_t length;
    size_t at;
} cursor;

static int is_modifier(uint8_t e)
{
    return e == ELEMENT_TYPE_CMOD_REQD || e == ELEMENT_TYPE_CMOD_OPT;
}

/* A type that names a token, or a generic variable: not comparable with another element. */
static int is_open(uint8_t e)
{
    return e == ELEMENT_TYPE_CLASS || e == ELEMENT_TYPE_VALUETYPE ||
           e == ELEMENT_TYPE_GENERICINST || e == ELEMENT_TYPE_VAR || e == ELEMENT_TYPE_MVAR ||
           e == ELEMENT_TYPE_FNPTR;
}

static int read_byte(cursor *c, uint8_t *out)
{
    if (c->at >= c->length)
        return 0;
    *out = c->blob[c->at++];
    return 1;
}

static int read_compressed(cursor *c, uint32_t *out)
{
    return aip_sig_read_compressed(c->blob, c->length, &c->at, out) == ALVK_OK;
}

static int skip_token(cursor *c)
{
    uint32_t token = 0;
    return aip_sig_read_type_token(c->blob, c->length, &c->at, &token) == ALVK_OK;
}

static int type_differs(cursor *a, cursor *b, int depth);

/* An ARRAY's shape after its element type: rank, sizes, lower bounds. */
static int shape_differs(cursor *a, cursor *b)
{
    for (int part = 0; part < 3; ++part) {
        uint32_t x = 0, y = 0;
        if (!read_compressed(a, &x) || !read_compressed(b, &y))
            return 0;
        if (x != y)
            return 1;
        if (part == 0)
            continue; /* the rank */
        for (uint32_t i = 0; i < x; ++i) {
            uint32_t u = 0, v = 0;
            if (!read_compressed(a, &u) || !read_compressed(b, &v))
                return 0;
            if (u != v)
                return 1;
        }
    }
    return 0;
}

/* After the first element (equal, `e`) of both types: whether the rest certainly differs. */
static int rest_differs(uint8_t e, cursor *a, cursor *b, int depth)
{
    uint8_t ka = 0, kb = 0;
    uint32_t na = 0, nb = 0;
    switch (e) {
    case ELEMENT_TYPE_BYREF:
    case ELEMENT_TYPE_PTR:
    case ELEMENT_TYPE_SZARRAY:
    case ELEMENT_TYPE_PINNED:
        return type_differs(a, b, depth + 1);
    case ELEMENT_TYPE_ARRAY:
        return type_differs(a, b, depth + 1) || shape_differs(a, b);
    case ELEMENT_TYPE_GENERICINST:
        if (!read_byte(a, &ka) || !read_byte(b, &kb) || !skip_token(a) || !skip_token(b) ||
            !read_compressed(a, &na) || !read_compressed(b, &nb))
            return 0;
        if (ka != kb || na != nb)
            return 1; /* a class against a struct, or another generic arity */
        for (uint32_t i = 0; i < na; ++i)
            if (type_differs(a, b, depth + 1))
                return 1;
        return 0;
    default:
        return 0; /* a primitive (equal), or a token or variable that is not compared */
    }
}

/* One Type at each cursor (custom modifiers and BYREF included); both cursors end past it. */
static int type_differs(cursor *a, cursor *b, int depth)
{
    size_t a_end = a->at, b_end = b->at;
    aip_sig_type ta, tb;
    if (depth > AIP_SIG_MAX_DEPTH ||
        aip_sig_parse_type(a->blob, a->length, &a_end, 1, &ta) != ALVK_OK ||
        aip_sig_parse_type(b->blob, b->length, &b_end, 1, &tb) != ALVK_OK)
        return 0;
    int differs = 0;
    for (;;) {
        uint8_t ea = 0, eb = 0;
        if (!read_byte(a, &ea) || !read_byte(b, &eb))
            break;
        if (is_modifier(ea) || is_modifier(eb)) {
            differs = ea != eb; /* on one side only, or required against optional */
            if (differs || !skip_token(a) || !skip_token(b))
                break;
            continue;
        }
        if (ea != eb)
            differs = !is_open(ea) && !is_open(eb);
        else
            differs = rest_differs(ea, a, b, depth);
        break;
    }
    a->at = a_end, b->at = b_end; /* wherever the walk stopped, each type ends here */
    return differs;
}

int aip_signature_shapes_differ(const uint8_t *a, size_t a_length, const uint8_t *b,
                                size_t b_length)
{
    if (a == NULL || b == NULL)
        return 0;
    aip_method_sig parsed[2]; /* 6 KiB each: no recursion holds them */
    aip_method_sig *sa = &parsed[0], *sb = &parsed[1];
    int differs = 0;
    if (aip_sig_parse_method(a, a_length, 0, sa) == ALVK_OK &&
        aip_sig_parse_method(b, b_length, 0, sb) == ALVK_OK) {
        differs = sa->calling_convention != sb->calling_convention ||
                  sa->generic_param_count != sb->generic_param_count ||
                  sa->param_count != sb->param_count;
        cursor ca = {a, a_length, sa->ret.offset}, cb = {b, b_length, sb->ret.offset};
        differs = differs || type_differs(&ca, &cb, 0);
        for (uint32_t i = 0; i < sa->param_count && !differs; ++i) {
            ca.at = sa->params[i].offset, cb.at = sb->params[i].offset;
            differs = type_differs(&ca, &cb, 0);
        }
    }
    return differs;
}
