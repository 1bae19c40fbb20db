/* Field, local-variable, TypeSpec, MethodSpec, MemberRef and StandAloneSig blobs: real
 * shapes, refusals, truncation at every length, trailing bytes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "metadata/signature_blobs.h"

#define BLOB(...) ((const uint8_t[]){__VA_ARGS__}), sizeof((const uint8_t[]){__VA_ARGS__})

/* Uniform wrappers; *aux receives the count or kind (0 for the type parsers). */
typedef alvk_status (*parser)(const uint8_t *blob, size_t length, uint32_t *aux);

static alvk_status field(const uint8_t *b, size_t n, uint32_t *aux)
{
    aip_sig_type t;
    *aux = 0;
    return aip_sig_parse_field(b, n, &t);
}
static alvk_status locals(const uint8_t *b, size_t n, uint32_t *aux)
{
    return aip_sig_parse_locals(b, n, aux);
}
static alvk_status type_spec(const uint8_t *b, size_t n, uint32_t *aux)
{
    aip_sig_type t;
    *aux = 0;
    return aip_sig_parse_type_spec(b, n, &t);
}
static alvk_status method_spec(const uint8_t *b, size_t n, uint32_t *aux)
{
    return aip_sig_parse_method_spec(b, n, aux);
}
static alvk_status member_ref(const uint8_t *b, size_t n, uint32_t *aux)
{
    aip_member_sig_kind k = 0;
    alvk_status s = aip_sig_parse_member_ref(b, n, &k);
    *aux = k;
    return s;
}
static alvk_status standalone(const uint8_t *b, size_t n, uint32_t *aux)
{
    aip_standalone_sig_kind k = 0;
    alvk_status s = aip_sig_parse_standalone(b, n, &k);
    *aux = k;
    return s;
}

/* Parses an exact-size heap copy (ASan sees any overread); optionally with one byte more. */
static alvk_status run(parser p, const uint8_t *bytes, size_t n, size_t extra, uint32_t *aux)
{
    uint8_t *copy = malloc(n + extra + 1);
    assert_non_null(copy);
    memcpy(copy, bytes, n);
    memset(copy + n, 0x08, extra);
    uint32_t ignored;
    alvk_status status = p(copy, n + extra, aux != NULL ? aux : &ignored);
    free(copy);
    return status;
}

/* Parses as expected; every truncation and one trailing byte are refused. */
static void accepts(parser p, const uint8_t *bytes, size_t n, uint32_t expected_aux)
{
    uint32_t aux = 0xDEAD;
    assert_int_equal(run(p, bytes, n, 0, &aux), ALVK_OK);
    assert_int_equal(aux, expected_aux);
    for (size_t cut = 0; cut < n; ++cut)
        assert_int_equal(run(p, bytes, cut, 0, NULL), ALVK_E_SIGNATURE_MALFORMED);
    assert_int_equal(run(p, bytes, n, 1, NULL), ALVK_E_SIGNATURE_MALFORMED);
}

static void refuses(parser p, const uint8_t *bytes, size_t n)
{
    assert_int_equal(run(p, bytes, n, 0, NULL), ALVK_E_SIGNATURE_MALFORMED);
}

static void field_signatures(void **state)
{
    (void)state;
    aip_sig_type t;
    /* modreq(TypeRef 1) int32 */
    static const uint8_t modreq[] = {0x06, 0x1F, 0x05, 0x08};
    accepts(field, modreq, sizeof modreq, 0);
    assert_int_equal(aip_sig_parse_field(modreq, sizeof modreq, &t), ALVK_OK);
    assert_int_equal(t.offset, 1);
    assert_int_equal(t.length, 3);
    assert_int_equal(t.element_type, 0x08);
    assert_true(t.has_modifiers);
    accepts(field, BLOB(0x06, 0x20, 0x09, 0x1F, 0x05, 0x0E), 0); /* modopt modreq string */
    accepts(field, BLOB(0x06, 0x10, 0x08), 0);                   /* ref int (a ref field) */
    accepts(field, BLOB(0x06, 0x0F, 0x01), 0);                   /* void* */
    refuses(field, BLOB(0x06, 0x01));                            /* void */
    refuses(field, BLOB(0x06, 0x10, 0x01));                      /* ref void */
    refuses(field, BLOB(0x06, 0x45, 0x08));                      /* pinned */
    refuses(field, BLOB(0x26, 0x08));                            /* HASTHIS | FIELD */
    refuses(field, BLOB(0x07, 0x01, 0x08));                      /* a locals blob */
    refuses(field, BLOB(0x06, 0x1F, 0x03, 0x08));                /* modreq of tag 3 */
}

static void local_signatures(void **state)
{
    (void)state;
    /* pinned ref int32, typedbyref, ref string, modopt pinned object */
    accepts(locals, BLOB(0x07, 0x04, 0x45, 0x10, 0x08, 0x16, 0x10, 0x0E, 0x20, 0x05, 0x45, 0x1C),
            4);
    accepts(locals, BLOB(0x07, 0x01, 0x1D, 0x05), 1); /* byte[] */
    refuses(locals, BLOB(0x07, 0x00));                 /* no locals */
    refuses(locals, BLOB(0x07, 0x02, 0x08));           /* fewer types than the count */
    refuses(locals, BLOB(0x07, 0x01, 0x01));           /* void */
    refuses(locals, BLOB(0x07, 0x01, 0x10, 0x45, 0x08)); /* BYREF before PINNED */
    refuses(locals, BLOB(0x07, 0x01, 0x45, 0x45, 0x08)); /* PINNED twice */
    refuses(locals, BLOB(0x07, 0xBF, 0xFF, 0x08));     /* count 0x3FFF: runs out */
    refuses(locals, BLOB(0x07, 0xC0, 0x00, 0xFF, 0xFF, 0x08)); /* count 0xFFFF */
    refuses(locals, BLOB(0x06, 0x08));
}

static void type_specs(void **state)
{
    (void)state;
    aip_sig_type t;
    /* GENERICINST CLASS TypeRef 2 <int32, string>; SZARRAY int32; PTR void; VAR 0 */
    static const uint8_t generic[] = {0x15, 0x12, 0x09, 0x02, 0x08, 0x0E};
    accepts(type_spec, generic, sizeof generic, 0);
    assert_int_equal(aip_sig_parse_type_spec(generic, sizeof generic, &t), ALVK_OK);
    assert_int_equal(t.element_type, 0x15);
    assert_int_equal(t.length, sizeof generic);
    accepts(type_spec, BLOB(0x1D, 0x08), 0);
    accepts(type_spec, BLOB(0x15, 0x11, 0x0D, 0x01, 0x1D, 0x13, 0x00), 0); /* VT<!0[]> */
    accepts(type_spec, BLOB(0x14, 0x08, 0x02, 0x00, 0x00), 0);             /* int32[,] */
    accepts(type_spec, BLOB(0x0F, 0x01), 0);
    refuses(type_spec, BLOB(0x15, 0x12, 0x09, 0x00));       /* no arguments */
    refuses(type_spec, BLOB(0x15, 0x12, 0x09, 0x02, 0x08)); /* one argument short */
    refuses(type_spec, BLOB(0x01));
    refuses(type_spec, BLOB(0x45, 0x08));
}

static void method_specs(void **state)
{
    (void)state;
    accepts(method_spec, BLOB(0x0A, 0x02, 0x08, 0x12, 0x09), 2); /* <int32, class TypeRef 2> */
    accepts(method_spec, BLOB(0x0A, 0x01, 0x15, 0x12, 0x09, 0x01, 0x1E, 0x00), 1);
    refuses(method_spec, BLOB(0x0A, 0x00));
    refuses(method_spec, BLOB(0x0A, 0x01, 0x01));
    refuses(method_spec, BLOB(0x0A, 0x03, 0x08, 0x08));
    refuses(method_spec, BLOB(0x2A, 0x01, 0x08));
    refuses(method_spec, BLOB(0x10, 0x01, 0x00, 0x01));
    /* Generic arguments are Types proper (found by the fuzz harness): no ref int, no
     * TypedReference; a pointer is one. */
    refuses(method_spec, BLOB(0x0A, 0x01, 0x10, 0x08));
    refuses(method_spec, BLOB(0x0A, 0x02, 0x08, 0x16));
    accepts(method_spec, BLOB(0x0A, 0x01, 0x0F, 0x01), 1);
}

static void member_refs_and_standalone(void **state)
{
    (void)state;
    accepts(member_ref, BLOB(0x20, 0x01, 0x01, 0x08), AIP_MEMBER_SIG_METHOD);
    accepts(member_ref, BLOB(0x30, 0x01, 0x00, 0x1E, 0x00), AIP_MEMBER_SIG_METHOD); /* !!0 M<T>() */
    accepts(member_ref, BLOB(0x05, 0x02, 0x01, 0x08, 0x41, 0x0E), AIP_MEMBER_SIG_METHOD);
    accepts(member_ref, BLOB(0x06, 0x1F, 0x05, 0x08), AIP_MEMBER_SIG_FIELD);
    accepts(member_ref, BLOB(0x06, 0x0E), AIP_MEMBER_SIG_FIELD);
    refuses(member_ref, BLOB(0x01, 0x00, 0x01)); /* unmanaged cdecl */
    refuses(member_ref, BLOB(0x09, 0x00, 0x01)); /* unmanaged (0x09) */
    refuses(member_ref, BLOB(0x07, 0x01, 0x08)); /* locals */
    refuses(member_ref, BLOB(0x0A, 0x01, 0x08)); /* instantiation */
    refuses(member_ref, BLOB(0x46, 0x08));       /* field with explicit this */

    accepts(standalone, BLOB(0x00, 0x02, 0x08, 0x12, 0x09, 0x10, 0x0E), AIP_STANDALONE_SIG_METHOD);
    accepts(standalone, BLOB(0x02, 0x00, 0x01), AIP_STANDALONE_SIG_METHOD); /* stdcall */
    /* calli through delegate* unmanaged<int, nint, nint> (System.Private.CoreLib's shape) */
    accepts(standalone, BLOB(0x09, 0x02, 0x08, 0x18, 0x18), AIP_STANDALONE_SIG_METHOD);
    /* a local delegate* unmanaged[SuppressGCTransition]<void> (modopt on the return) */
    accepts(standalone, BLOB(0x07, 0x01, 0x1B, 0x09, 0x00, 0x20, 0x09, 0x01),
            AIP_STANDALONE_SIG_LOCALS);
    accepts(standalone, BLOB(0x07, 0x01, 0x08), AIP_STANDALONE_SIG_LOCALS);
    refuses(standalone, BLOB(0x10, 0x01, 0x00, 0x01)); /* generic */
    refuses(standalone, BLOB(0x06, 0x08));
    refuses(standalone, BLOB(0x0A, 0x01, 0x08));
}

static void null_arguments(void **state)
{
    (void)state;
    static const uint8_t b[] = {0x06, 0x08};
    aip_sig_type t;
    uint32_t n;
    aip_member_sig_kind mk;
    assert_int_equal(aip_sig_parse_field(NULL, 2, &t), ALVK_E_NULL_ARGUMENT);
    assert_int_equal(aip_sig_parse_field(b, 2, NULL), ALVK_E_NULL_ARGUMENT);
    assert_int_equal(aip_sig_parse_locals(NULL, 2, &n), ALVK_E_NULL_ARGUMENT);
    assert_int_equal(aip_sig_parse_type_spec(b, 2, NULL), ALVK_E_NULL_ARGUMENT);
    assert_int_equal(aip_sig_parse_method_spec(b, 2, NULL), ALVK_E_NULL_ARGUMENT);
    assert_int_equal(aip_sig_parse_member_ref(NULL, 2, &mk), ALVK_E_NULL_ARGUMENT);
    assert_int_equal(aip_sig_parse_standalone(b, 2, NULL), ALVK_E_NULL_ARGUMENT);
    /* nesting deeper than AIP_SIG_MAX_DEPTH is a limit, not malformation */
    uint8_t deep[2 + AIP_SIG_MAX_DEPTH + 2];
    deep[0] = 0x06;
    memset(deep + 1, 0x1D, AIP_SIG_MAX_DEPTH + 2);
    deep[sizeof deep - 1] = 0x08;
    assert_int_equal(aip_sig_parse_field(deep, sizeof deep, &t), ALVK_E_LIMIT_EXCEEDED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(field_signatures),  cmocka_unit_test(local_signatures),
        cmocka_unit_test(type_specs),        cmocka_unit_test(method_specs),
        cmocka_unit_test(member_refs_and_standalone), cmocka_unit_test(null_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
