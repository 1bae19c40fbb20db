/* ECMA-335 signature traversal over hand-written blobs: encodings, real shapes, refusals. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "metadata/signature.h"

#define BLOB(...) ((const uint8_t[]){__VA_ARGS__}), sizeof((const uint8_t[]){__VA_ARGS__})
/* Refused even when trailing bytes are allowed (s is the caller's aip_method_sig). */
#define MALFORMED(...) \
    assert_int_equal(parse(BLOB(__VA_ARGS__), 1, &s), ALVK_E_SIGNATURE_MALFORMED)

/* Parses from an exact-size heap copy so ASan sees any read past the end. */
static alvk_status parse(const uint8_t *bytes, size_t n, int allow_trailing, aip_method_sig *out)
{
    uint8_t *copy = malloc(n + (n == 0));
    assert_non_null(copy);
    memcpy(copy, bytes, n);
    alvk_status status = aip_sig_parse_method(copy, n, allow_trailing, out);
    free(copy);
    return status;
}

static void parse_ok(const uint8_t *bytes, size_t n, aip_method_sig *out)
{
    assert_int_equal(parse(bytes, n, 0, out), ALVK_OK);
    assert_int_equal(out->length, n);
    for (size_t len = 0; len < n; ++len) { /* every truncation fails */
        aip_method_sig cut;
        assert_int_not_equal(parse(bytes, len, 1, &cut), ALVK_OK);
    }
}

static void check_type(const aip_sig_type *t, uint32_t offset, uint32_t length, uint8_t element,
                       uint8_t byref, uint8_t mods, uint8_t generic)
{
    const aip_sig_type expected = {offset, length, element, byref, mods, generic};
    assert_memory_equal(t, &expected, sizeof expected);
}

static void encodings_round_trip(void **state)
{
    (void)state;
    static const uint32_t values[] = {0, 0x7F, 0x80, 0x3FFF, 0x4000, 0x1FFFFFFF};
    static const size_t sizes[] = {1, 1, 2, 2, 4, 4};
    static const uint32_t tokens[] = {0x02000001, 0x01000005, 0x1B000010, 0x01FFFFFF};
    uint8_t buf[4];
    size_t offset;
    uint32_t back;
    for (size_t i = 0; i < sizeof values / sizeof values[0]; ++i) {
        assert_int_equal(aip_sig_write_compressed(values[i], buf, sizeof buf), sizes[i]);
        offset = 0;
        assert_int_equal(aip_sig_read_compressed(buf, sizes[i], &offset, &back), ALVK_OK);
        assert_int_equal(back, values[i]);
        assert_int_equal(offset, sizes[i]);
        assert_int_equal(aip_sig_write_compressed(values[i], buf, sizes[i] - 1), 0);
    }
    assert_int_equal(aip_sig_write_compressed(0x4000, buf, 4), 4);
    assert_memory_equal(buf, ((uint8_t[]){0xC0, 0x00, 0x40, 0x00}), 4);
    assert_int_equal(aip_sig_write_compressed(0x20000000, buf, 4), 0);
    offset = 0;
    assert_int_equal(aip_sig_read_compressed((uint8_t[]){0xE0, 0, 0, 0}, 4, &offset, &back),
                     ALVK_E_SIGNATURE_MALFORMED);
    assert_int_equal(aip_sig_read_compressed((uint8_t[]){0x80}, 1, &offset, &back),
                     ALVK_E_SIGNATURE_MALFORMED);
    assert_int_equal(offset, 0);
    for (size_t i = 0; i < sizeof tokens / sizeof tokens[0]; ++i) {
        size_t n = aip_sig_write_type_token(tokens[i], buf, sizeof buf);
        assert_true(n > 0);
        offset = 0;
        assert_int_equal(aip_sig_read_type_token(buf, n, &offset, &back), ALVK_OK);
        assert_int_equal(back, tokens[i]);
        assert_int_equal(offset, n);
    }
    assert_int_equal(aip_sig_write_type_token(0x01000005, buf, 4), 1);
    assert_int_equal(buf[0], 0x15); /* rid 5 << 2 | TypeRef tag 1 */
    assert_int_equal(aip_sig_write_type_token(0x06000001, buf, 4), 0); /* MethodDef */
    assert_int_equal(aip_sig_write_type_token(0x02000000, buf, 4), 0); /* nil TypeDef */
    assert_int_equal(aip_sig_read_type_token((uint8_t[]){0x07}, 1, &offset, &back),
                     ALVK_E_SIGNATURE_MALFORMED); /* tag 3 */
}

static void static_and_instance_shapes(void **state)
{
    (void)state;
    aip_method_sig s;
    parse_ok(BLOB(0x00, 0x02, 0x08, 0x08, 0x08), &s); /* static int Add(int, int) */
    assert_false(s.has_this);
    assert_int_equal(s.param_count, 2);
    assert_int_equal(s.sentinel_index, UINT32_MAX);
    check_type(&s.ret, 2, 1, 0x08, 0, 0, 0);
    check_type(&s.params[1], 4, 1, 0x08, 0, 0, 0);
    /* instance void M(ref int, out string, in Vector3): modreq(InAttribute) & Vector3 */
    parse_ok(BLOB(0x20, 0x03, 0x01, 0x10, 0x08, 0x10, 0x0E, 0x1F, 0x09, 0x10, 0x11, 0x08), &s);
    assert_true(s.has_this);
    assert_int_equal(s.kind, 0);
    check_type(&s.ret, 2, 1, 0x01, 0, 0, 0);
    check_type(&s.params[0], 3, 2, 0x08, 1, 0, 0);
    check_type(&s.params[1], 5, 2, 0x0E, 1, 0, 0);
    check_type(&s.params[2], 7, 5, 0x11, 1, 1, 0);
    /* double M(float, double, long, Vector3, ... four times) */
    parse_ok(BLOB(0x00, 0x10, 0x0D, 0x0C, 0x0D, 0x0A, 0x11, 0x0C, 0x0C, 0x0D, 0x0A, 0x11, 0x0C,
                  0x0C, 0x0D, 0x0A, 0x11, 0x0C, 0x0C, 0x0D, 0x0A, 0x11, 0x0C), &s);
    assert_int_equal(s.param_count, 16);
    static const uint8_t cycle[] = {0x0C, 0x0D, 0x0A, 0x11};
    for (uint32_t i = 0; i < 16; ++i)
        check_type(&s.params[i], 3 + 5 * (i / 4) + i % 4, i % 4 == 3 ? 2 : 1, cycle[i % 4], 0,
                   0, 0);
}

static void generic_composite_and_vararg_shapes(void **state)
{
    (void)state;
    aip_method_sig s;
    parse_ok(BLOB(0x10, 0x01, 0x01, 0x1E, 0x00, 0x1E, 0x00), &s); /* T Id<T>(T) */
    assert_int_equal(s.generic_param_count, 1);
    check_type(&s.ret, 3, 2, 0x1E, 0, 0, 1);
    check_type(&s.params[0], 5, 2, 0x1E, 0, 0, 1);
    /* void M(List<int>, string[], int[,] {sizes 3, 4; lower bounds 2, -1},
     *        delegate*<int, int>, List<T>[]) */
    parse_ok(BLOB(0x00, 0x05, 0x01, 0x15, 0x12, 0x0D, 0x01, 0x08, 0x1D, 0x12, 0x09, 0x14, 0x08,
                  0x02, 0x02, 0x03, 0x04, 0x02, 0x04, 0x7F, 0x1B, 0x00, 0x01, 0x08, 0x08, 0x1D,
                  0x15, 0x12, 0x0D, 0x01, 0x13, 0x00), &s);
    check_type(&s.params[0], 3, 5, 0x15, 0, 0, 0);
    check_type(&s.params[1], 8, 3, 0x1D, 0, 0, 0);
    check_type(&s.params[2], 11, 9, 0x14, 0, 0, 0);
    check_type(&s.params[3], 20, 5, 0x1B, 0, 0, 0);
    check_type(&s.params[4], 25, 7, 0x1D, 0, 0, 1);
    parse_ok(BLOB(0x00, 0x01, 0x01, 0x1B, 0x00, 0x00, 0x1E, 0x00), &s); /* fnptr returning T */
    check_type(&s.params[0], 3, 5, 0x1B, 0, 0, 1);
    parse_ok(BLOB(0x00, 0x01, 0x01, 0x0F, 0x20, 0x09, 0x01), &s); /* void* with modopt */
    check_type(&s.params[0], 3, 4, 0x0F, 0, 0, 0);
    /* void M(int, ..., string, int): a vararg call site */
    parse_ok(BLOB(0x05, 0x03, 0x01, 0x08, 0x41, 0x0E, 0x08), &s);
    assert_int_equal(s.kind, 5);
    assert_int_equal(s.sentinel_index, 1);
    check_type(&s.params[1], 5, 1, 0x0E, 0, 0, 0);
    MALFORMED(0x00, 0x02, 0x01, 0x08, 0x41, 0x0E);       /* SENTINEL, not vararg */
    MALFORMED(0x05, 0x02, 0x01, 0x41, 0x08, 0x41, 0x0E); /* two SENTINELs */
}

static void malformed_inputs_are_refused(void **state)
{
    (void)state;
    aip_method_sig s;
    MALFORMED(0x00, 0x01, 0x01, 0x01);       /* VOID parameter */
    MALFORMED(0x00, 0x01, 0x01, 0x10, 0x01); /* BYREF VOID parameter */
    static const uint8_t bad_kinds[] = {0x06, 0x07, 0x08, 0x0A, 0x0B, 0x0F, 0x40, 0x80};
    for (size_t i = 0; i < sizeof bad_kinds; ++i) {
        uint8_t blob[] = {bad_kinds[i], 0x00, 0x01};
        assert_int_equal(parse(blob, sizeof blob, 0, &s), ALVK_E_SIGNATURE_MALFORMED);
    }
    assert_int_equal(parse(BLOB(0x00, 0x00, 0x01, 0x08), 0, &s), ALVK_E_SIGNATURE_MALFORMED);
    assert_int_equal(parse(BLOB(0x00, 0x00, 0x01, 0x08), 1, &s), ALVK_OK);
    assert_int_equal(s.length, 3);
    static const uint8_t bad_types[] = {0x00, 0x17, 0x1A, 0x21, 0x41, 0x45, 0x50};
    for (size_t i = 0; i < sizeof bad_types; ++i) {
        uint8_t blob[] = {0x00, 0x01, 0x01, bad_types[i], 0x08};
        assert_int_equal(parse(blob, sizeof blob, 1, &s), ALVK_E_SIGNATURE_MALFORMED);
    }
    MALFORMED(0x00, 0x01, 0x01, 0x15, 0x12, 0x0D, 0x00); /* GENERICINST of no arguments */
    MALFORMED(0x00, 0x01, 0x01, 0x15, 0x08, 0x0D, 0x01, 0x08); /* GENERICINST of int */
    MALFORMED(0x00, 0x01, 0x01, 0x12, 0x03);             /* coded token tag 3 */
    MALFORMED(0x00, 0x01, 0x01, 0x12, 0x00);             /* coded token rid 0 */
    MALFORMED(0x10, 0x00, 0x00, 0x01);                   /* generic, 0 type parameters */
    MALFORMED(0x00, 0x00, 0x10, 0x10, 0x08);             /* BYREF BYREF */
    MALFORMED(0x00, 0x01, 0x01, 0x14, 0x08, 0x00, 0x00, 0x00); /* ARRAY rank 0 */
    MALFORMED(0x00, 0x01, 0x01, 0x14, 0x08, 0x01, 0x02, 0x01, 0x01, 0x00); /* 2 sizes, rank 1 */
    const uint8_t pinned[] = {0x45, 0x10, 0x08}; /* local: pinned ref int */
    aip_sig_type t;
    size_t offset = 0;
    assert_int_equal(aip_sig_parse_type(pinned, 3, &offset, 0, &t), ALVK_E_SIGNATURE_MALFORMED);
    assert_int_equal(aip_sig_parse_type(pinned, 3, &offset, 1, &t), ALVK_OK);
    assert_int_equal(offset, 3);
    check_type(&t, 0, 3, 0x08, 1, 0, 0);
    assert_int_equal(aip_sig_parse_type(NULL, 1, &offset, 0, &t), ALVK_E_NULL_ARGUMENT);
    assert_int_equal(aip_sig_parse_method(pinned, 3, 0, NULL), ALVK_E_NULL_ARGUMENT);
}

/* BYREF, TYPEDBYREF and VOID only where II.23.2.10-12 put them. Found by the differential
 * fuzz harnesses (tests/fuzz: fuzz_sig_type against fuzz_sig_reference.h): void[],
 * List<void>, TypedReference[], (ref int)[], int&*, ref void returns were accepted. */
static void byref_typedbyref_and_void_only_where_the_grammar_puts_them(void **state)
{
    (void)state;
    aip_method_sig s;
    MALFORMED(0x00, 0x01, 0x01, 0x1D, 0x01);                   /* void[] */
    MALFORMED(0x00, 0x01, 0x01, 0x14, 0x01, 0x01, 0x00, 0x00); /* void[*] */
    MALFORMED(0x00, 0x01, 0x01, 0x15, 0x12, 0x09, 0x01, 0x01); /* List<void> */
    MALFORMED(0x00, 0x01, 0x01, 0x15, 0x12, 0x09, 0x01, 0x16); /* List<TypedReference> */
    MALFORMED(0x00, 0x01, 0x01, 0x1D, 0x16);                   /* TypedReference[] */
    MALFORMED(0x00, 0x01, 0x01, 0x0F, 0x16);                   /* TypedReference* */
    MALFORMED(0x00, 0x01, 0x01, 0x1D, 0x10, 0x08);             /* (ref int)[] */
    MALFORMED(0x00, 0x01, 0x01, 0x15, 0x11, 0x09, 0x01, 0x10, 0x08); /* S<ref int> */
    MALFORMED(0x00, 0x01, 0x01, 0x0F, 0x10, 0x08);             /* (ref int)* */
    MALFORMED(0x00, 0x01, 0x01, 0x10, 0x16);                   /* ref TypedReference */
    MALFORMED(0x00, 0x00, 0x10, 0x01);                         /* ref void M() */
    MALFORMED(0x00, 0x01, 0x01, 0x1D, 0x1F, 0x05, 0x01);       /* (modreq void)[] */
    /* ... and where it does put them. */
    parse_ok(BLOB(0x00, 0x01, 0x01, 0x0F, 0x01), &s);           /* void* */
    parse_ok(BLOB(0x00, 0x01, 0x01, 0x1D, 0x0F, 0x0F, 0x01), &s); /* void**[] */
    parse_ok(BLOB(0x00, 0x01, 0x16, 0x16), &s);                 /* TypedReference(TypedReference) */
    parse_ok(BLOB(0x00, 0x00, 0x10, 0x08), &s);                 /* ref int M() */
    parse_ok(BLOB(0x00, 0x01, 0x01, 0x1D, 0x1F, 0x05, 0x08), &s); /* (modreq int)[] */
    /* delegate*<ref int, ref int>: a function pointer's parameters are at the top again */
    parse_ok(BLOB(0x00, 0x01, 0x01, 0x1B, 0x00, 0x01, 0x10, 0x08, 0x10, 0x08), &s);
    const uint8_t inner_byref[] = {0x1D, 0x10, 0x08};
    aip_sig_type t;
    size_t offset = 0;
    assert_int_equal(aip_sig_parse_type(inner_byref, sizeof inner_byref, &offset, 1, &t),
                     ALVK_E_SIGNATURE_MALFORMED);
    assert_int_equal(offset, 0);
}

/* IMAGE_CEE_CS_CALLCONV_UNMANAGED (0x09): what C# emits for delegate* unmanaged<...> with
 * the platform's default convention or conventions named by modopts (.NET 5 and later).
 * 36 method and 16 StandAloneSig blobs of the .NET 10 shared framework use it; they were
 * refused (found by the fuzz seed corpus built from real assemblies). */
static void unmanaged_calling_convention(void **state)
{
    (void)state;
    aip_method_sig s;
    /* void M(delegate* unmanaged<int, void>) */
    parse_ok(BLOB(0x00, 0x01, 0x01, 0x1B, 0x09, 0x01, 0x01, 0x08), &s);
    check_type(&s.params[0], 3, 5, 0x1B, 0, 0, 0);
    /* delegate* unmanaged[SuppressGCTransition]<int, nint, nint>: modopt on the return */
    parse_ok(BLOB(0x09, 0x02, 0x20, 0x82, 0x0D, 0x08, 0x18, 0x18), &s);
    assert_int_equal(s.kind, 9);
    assert_int_equal(s.param_count, 2);
    MALFORMED(0x19, 0x00, 0x00, 0x01);       /* generic, no type parameters: still refused */
    MALFORMED(0x49, 0x00, 0x01);             /* EXPLICITTHIS without HASTHIS */
    MALFORMED(0x09, 0x02, 0x01, 0x41, 0x08); /* SENTINEL outside VARARG */
}

static void limits_are_enforced(void **state)
{
    (void)state;
    uint8_t blob[4 + 300];
    aip_method_sig *s = malloc(sizeof *s);
    assert_non_null(s);
    for (int arrays = AIP_SIG_MAX_DEPTH - 1; arrays <= AIP_SIG_MAX_DEPTH; ++arrays) {
        size_t n = 0; /* void M(int[][]...[]) with `arrays` SZARRAYs */
        blob[n++] = 0x00, blob[n++] = 0x01, blob[n++] = 0x01;
        memset(blob + n, 0x1D, (size_t)arrays);
        n += (size_t)arrays;
        blob[n++] = 0x08;
        assert_int_equal(parse(blob, n, 0, s),
                         arrays < AIP_SIG_MAX_DEPTH ? ALVK_OK : ALVK_E_LIMIT_EXCEEDED);
    }
    size_t n = 0; /* function pointers nested past the bound */
    for (int i = 0; i <= AIP_SIG_MAX_DEPTH; ++i)
        blob[n++] = 0x00, blob[n++] = 0x00, blob[n++] = 0x1B;
    blob[n - 1] = 0x01;
    assert_int_equal(parse(blob, n, 0, s), ALVK_E_LIMIT_EXCEEDED);
    for (uint32_t count = 256; count <= 257; ++count) {
        n = 0;
        blob[n++] = 0x00, blob[n++] = (uint8_t)(0x80 | (count >> 8)), blob[n++] = (uint8_t)count;
        blob[n++] = 0x01;
        memset(blob + n, 0x08, count);
        n += count;
        assert_int_equal(parse(blob, n, 0, s), count == 256 ? ALVK_OK : ALVK_E_LIMIT_EXCEEDED);
    }
    free(s);
}

static void random_bytes_never_crash(void **state)
{
    (void)state; /* random blobs over the interesting bytes: only ASan/UBSan can fail this */
    static const uint8_t alphabet[] = {0x00, 0x01, 0x03, 0x05, 0x08, 0x0F, 0x10, 0x11, 0x12, 0x13,
                                       0x14, 0x15, 0x16, 0x1B, 0x1D, 0x1E, 0x1F, 0x20, 0x41, 0x45,
                                       0x80, 0xC0, 0xFF, 0x02};
    uint32_t seed = 12345;
    aip_method_sig *s = malloc(sizeof *s);
    assert_non_null(s);
    for (int round = 0; round < 20000; ++round) {
        uint8_t blob[48];
        size_t n = (seed = seed * 1103515245u + 12345u) >> 16 & 47;
        for (size_t i = 0; i < n; ++i)
            blob[i] = alphabet[((seed = seed * 1103515245u + 12345u) >> 16) % sizeof alphabet];
        if (parse(blob, n, round & 1, s) == ALVK_OK)
            assert_true(s->length <= n && s->param_count <= AIP_SIG_MAX_PARAMS);
    }
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(encodings_round_trip),
        cmocka_unit_test(static_and_instance_shapes),
        cmocka_unit_test(generic_composite_and_vararg_shapes),
        cmocka_unit_test(malformed_inputs_are_refused),
        cmocka_unit_test(byref_typedbyref_and_void_only_where_the_grammar_puts_them),
        cmocka_unit_test(unmanaged_calling_convention),
        cmocka_unit_test(limits_are_enforced),
        cmocka_unit_test(random_bytes_never_crash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
