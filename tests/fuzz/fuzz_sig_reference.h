/* An independent reading of the ECMA-335 II.23.2 signature grammar, written from the
 * standard for the signature harnesses to compare aip_sig_parse_type and
 * aip_sig_parse_method against (status and bytes consumed). It shares no code with
 * metadata/; it keeps the library's documented bounds (AIP_SIG_MAX_DEPTH and
 * AIP_SIG_MAX_PARAMS: LIMIT_EXCEEDED; array rank 1..32) and its outer contract (a Type at
 * the top of a blob may be VOID, TYPEDBYREF, BYREF, or PINNED where allowed: the callers
 * decide), and is otherwise the standard's:
 *   - Type positions inside a Type (SZARRAY and ARRAY elements, generic arguments) take a
 *     Type: custom modifiers, then no BYREF, PINNED, TYPEDBYREF or VOID;
 *   - PTR takes custom modifiers, then a Type or VOID;
 *   - BYREF is followed by a Type (not VOID, not TYPEDBYREF);
 *   - FNPTR takes a method signature, whose return type and parameters are top-level. */
#ifndef AIP_FUZZ_SIG_REFERENCE_H
#define AIP_FUZZ_SIG_REFERENCE_H

#include "alvorkit_interception_profiler.h"

#include <stddef.h>
#include <stdint.h>

#define REF_MAX_DEPTH 32u   /* AIP_SIG_MAX_DEPTH */
#define REF_MAX_PARAMS 256u /* AIP_SIG_MAX_PARAMS */
#define REF_MAX_RANK 32u

typedef enum ref_position { REF_TOP, REF_INNER, REF_POINTEE } ref_position;

typedef struct ref_reader {
    const uint8_t *b;
    size_t n;
    size_t at;
} ref_reader;

static inline alvk_status ref_uint(ref_reader *r, uint32_t *value)
{
    if (r->at >= r->n)
        return ALVK_E_SIGNATURE_MALFORMED;
    uint8_t lead = r->b[r->at];
    size_t bytes = lead < 0x80 ? 1 : lead < 0xC0 ? 2 : lead < 0xE0 ? 4 : 0;
    if (bytes == 0 || r->n - r->at < bytes)
        return ALVK_E_SIGNATURE_MALFORMED;
    uint32_t v = bytes == 1 ? lead : bytes == 2 ? (lead & 0x3Fu) : (lead & 0x1Fu);
    for (size_t i = 1; i < bytes; ++i)
        v = (v << 8) | r->b[r->at + i];
    r->at += bytes;
    *value = v;
    return ALVK_OK;
}

/* TypeDefOrRefOrSpecEncoded: tag 0-2, RID 1..0xFFFFFF. */
static inline alvk_status ref_type_token(ref_reader *r)
{
    uint32_t coded;
    alvk_status s = ref_uint(r, &coded);
    if (s != ALVK_OK)
        return s;
    return (coded & 3u) == 3u || (coded >> 2) == 0 || (coded >> 2) > 0xFFFFFFu
               ? ALVK_E_SIGNATURE_MALFORMED
               : ALVK_OK;
}

static alvk_status ref_method_at(ref_reader *r, uint32_t depth);

static inline alvk_status ref_type_at(ref_reader *r, ref_position position, int allow_pinned,
                                      uint32_t depth)
{
    if (depth > REF_MAX_DEPTH)
        return ALVK_E_LIMIT_EXCEEDED;
    int pinned = 0, byref = 0;
    alvk_status s;
    for (;;) {
        if (r->at >= r->n)
            return ALVK_E_SIGNATURE_MALFORMED;
        uint8_t b = r->b[r->at];
        if (b == 0x1F || b == 0x20) { /* CMOD_REQD, CMOD_OPT */
            r->at++;
            if ((s = ref_type_token(r)) != ALVK_OK)
                return s;
        } else if (b == 0x45 && position == REF_TOP && allow_pinned && !pinned && !byref) {
            pinned = 1;
            r->at++;
        } else if (b == 0x10 && position == REF_TOP && !byref) {
            byref = 1;
            r->at++;
        } else {
            break;
        }
    }
    uint8_t e = r->b[r->at++];
    uint32_t value;
    switch (e) {
    case 0x01: /* VOID */
        return (position == REF_TOP && !byref) || position == REF_POINTEE
                   ? ALVK_OK
                   : ALVK_E_SIGNATURE_MALFORMED;
    case 0x16: /* TYPEDBYREF */
        return position == REF_TOP && !byref ? ALVK_OK : ALVK_E_SIGNATURE_MALFORMED;
    case 0x02:
    case 0x03:
    case 0x04:
    case 0x05:
    case 0x06:
    case 0x07:
    case 0x08:
    case 0x09:
    case 0x0A:
    case 0x0B:
    case 0x0C:
    case 0x0D:
    case 0x0E:
    case 0x18:
    case 0x19:
    case 0x1C:
        return ALVK_OK;
    case 0x11:
    case 0x12: /* VALUETYPE, CLASS */
        return ref_type_token(r);
    case 0x0F: /* PTR */
        return ref_type_at(r, REF_POINTEE, 0, depth + 1);
    case 0x1D: /* SZARRAY */
        return ref_type_at(r, REF_INNER, 0, depth + 1);
    case 0x14: { /* ARRAY Type Rank NumSizes Size* NumLoBounds LoBound* */
        if ((s = ref_type_at(r, REF_INNER, 0, depth + 1)) != ALVK_OK)
            return s;
        uint32_t rank;
        if ((s = ref_uint(r, &rank)) != ALVK_OK)
            return s;
        if (rank == 0 || rank > REF_MAX_RANK)
            return ALVK_E_SIGNATURE_MALFORMED;
        for (int list = 0; list < 2; ++list) {
            uint32_t count;
            if ((s = ref_uint(r, &count)) != ALVK_OK)
                return s;
            if (count > rank)
                return ALVK_E_SIGNATURE_MALFORMED;
            for (uint32_t i = 0; i < count; ++i)
                if ((s = ref_uint(r, &value)) != ALVK_OK)
                    return s;
        }
        return ALVK_OK;
    }
    case 0x15: { /* GENERICINST (CLASS | VALUETYPE) TypeDefOrRefOrSpecEncoded Count Type+ */
        if (r->at >= r->n || (r->b[r->at] != 0x11 && r->b[r->at] != 0x12))
            return ALVK_E_SIGNATURE_MALFORMED;
        r->at++;
        if ((s = ref_type_token(r)) != ALVK_OK)
            return s;
        uint32_t count;
        if ((s = ref_uint(r, &count)) != ALVK_OK)
            return s;
        if (count == 0)
            return ALVK_E_SIGNATURE_MALFORMED;
        if (count > REF_MAX_PARAMS)
            return ALVK_E_LIMIT_EXCEEDED;
        for (uint32_t i = 0; i < count; ++i)
            if ((s = ref_type_at(r, REF_INNER, 0, depth + 1)) != ALVK_OK)
                return s;
        return ALVK_OK;
    }
    case 0x13:
    case 0x1E: /* VAR, MVAR */
        return ref_uint(r, &value);
    case 0x1B: /* FNPTR */
        return ref_method_at(r, depth + 1);
    default:
        return ALVK_E_SIGNATURE_MALFORMED;
    }
}

/* MethodDefSig / MethodRefSig / StandAloneMethodSig: conventions DEFAULT, C, STDCALL,
 * THISCALL, FASTCALL, VARARG, and UNMANAGED (0x09; not in the 6th edition, emitted by C#
 * for delegate* unmanaged since .NET 5); EXPLICITTHIS only with HASTHIS; GENERIC with a
 * count >= 1; RetType; Params, one SENTINEL before some parameter of a VARARG signature. */
static alvk_status ref_method_at(ref_reader *r, uint32_t depth)
{
    if (depth > REF_MAX_DEPTH)
        return ALVK_E_LIMIT_EXCEEDED;
    if (r->at >= r->n)
        return ALVK_E_SIGNATURE_MALFORMED;
    uint8_t cc = r->b[r->at++];
    uint8_t kind = cc & 0x0F;
    if ((kind > 5 && kind != 9) || (cc & 0x80) || ((cc & 0x40) && !(cc & 0x20)))
        return ALVK_E_SIGNATURE_MALFORMED;
    alvk_status s;
    uint32_t count;
    if (cc & 0x10) {
        if ((s = ref_uint(r, &count)) != ALVK_OK)
            return s;
        if (count == 0)
            return ALVK_E_SIGNATURE_MALFORMED;
    }
    if ((s = ref_uint(r, &count)) != ALVK_OK)
        return s;
    if (count > REF_MAX_PARAMS)
        return ALVK_E_LIMIT_EXCEEDED;
    if ((s = ref_type_at(r, REF_TOP, 0, depth)) != ALVK_OK)
        return s;
    int sentinel = 0;
    for (uint32_t i = 0; i < count; ++i) {
        if (r->at >= r->n)
            return ALVK_E_SIGNATURE_MALFORMED;
        if (r->b[r->at] == 0x41) { /* SENTINEL */
            if (kind != 5 || sentinel)
                return ALVK_E_SIGNATURE_MALFORMED;
            sentinel = 1;
            r->at++;
        }
        size_t start = r->at;
        if ((s = ref_type_at(r, REF_TOP, 0, depth)) != ALVK_OK)
            return s;
        /* A parameter is never VOID (after its modifiers). */
        size_t k = start;
        while (r->b[k] == 0x1F || r->b[k] == 0x20) {
            ref_reader skip = {r->b, r->n, k + 1};
            (void)ref_type_token(&skip);
            k = skip.at;
        }
        if (r->b[k] == 0x01)
            return ALVK_E_SIGNATURE_MALFORMED;
    }
    return ALVK_OK;
}

/* One Type at *at (the library's top-level contract); *at advances only on ALVK_OK. */
static inline alvk_status ref_parse_type(const uint8_t *b, size_t n, size_t *at, int allow_pinned)
{
    ref_reader r = {b, n, *at};
    alvk_status s = ref_type_at(&r, REF_TOP, allow_pinned, 1);
    if (s == ALVK_OK)
        *at = r.at;
    return s;
}

/* A method signature at b[0]; *length receives the bytes it takes on ALVK_OK. */
static inline alvk_status ref_parse_method(const uint8_t *b, size_t n, size_t *length)
{
    ref_reader r = {b, n, 0};
    alvk_status s = ref_method_at(&r, 1);
    if (s == ALVK_OK)
        *length = r.at;
    return s;
}

#endif
