/* Method signatures that name no type (metadata/signature_portable.c): the ones whose bytes a
 * MemberRef of another module can be matched with, and copied into it, as they are. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "metadata/signature_portable.h"

#define BLOB(...) ((const uint8_t[]){__VA_ARGS__}), sizeof((const uint8_t[]){__VA_ARGS__})

/* From an exact-size heap copy so ASan sees any read past its end. */
static int portable(const uint8_t *blob, size_t length)
{
    uint8_t *copy = malloc(length > 0 ? length : 1);
    assert_non_null(copy);
    if (length > 0)
        memcpy(copy, blob, length);
    int result = aip_sig_portable_method(copy, length);
    free(copy);
    return result;
}

static void primitives_alone_or_by_ref_are_portable(void **state)
{
    (void)state;
    assert_true(portable(BLOB(0x00, 0x01, 0x08, 0x08)));             /* static int(int) */
    assert_true(portable(BLOB(0x20, 0x00, 0x0C)));                   /* instance float() */
    assert_true(portable(BLOB(0x00, 0x00, 0x01)));                   /* static void() */
    assert_true(portable(BLOB(0x00, 0x02, 0x0E, 0x1C, 0x10, 0x18))); /* string(object, ref nint) */
    assert_true(portable(BLOB(0x20, 0x01, 0x02, 0x19)));             /* instance bool(nuint) */
}

static void a_named_type_anywhere_is_not_portable(void **state)
{
    (void)state;
    /* CLASS TypeRef row 1 (coded 0x05), VALUETYPE TypeDef row 3 (0x0C). */
    assert_false(portable(BLOB(0x00, 0x01, 0x08, 0x12, 0x05)));       /* a class parameter */
    assert_false(portable(BLOB(0x00, 0x00, 0x11, 0x0C)));             /* a struct returned */
    assert_false(portable(BLOB(0x00, 0x01, 0x08, 0x10, 0x11, 0x0C))); /* ref struct */
    assert_false(portable(BLOB(0x00, 0x01, 0x08, 0x1D, 0x08)));       /* int[]: an SZARRAY */
    assert_false(portable(BLOB(0x00, 0x01, 0x08, 0x0F, 0x08)));       /* int*: a pointer */
    assert_false(portable(BLOB(0x00, 0x01, 0x08, 0x13, 0x00)));       /* a type variable */
    /* modreq(TypeRef row 2) int: the modifier names a type. */
    assert_false(portable(BLOB(0x00, 0x01, 0x08, 0x1F, 0x09, 0x08)));
}

static void other_calling_conventions_are_not_portable(void **state)
{
    (void)state;
    assert_false(portable(BLOB(0x10, 0x01, 0x00, 0x08))); /* generic, one parameter: T M<T>() */
    assert_false(portable(BLOB(0x05, 0x00, 0x08)));       /* vararg */
    assert_false(portable(BLOB(0x60, 0x00, 0x08)));       /* explicit this */
}

static void what_does_not_parse_exactly_is_not_portable(void **state)
{
    (void)state;
    assert_false(portable(BLOB(0x00, 0x01, 0x08)));             /* a parameter missing */
    assert_false(portable(BLOB(0x00, 0x01, 0x08, 0x08, 0x08))); /* a byte after it */
    assert_false(aip_sig_portable_method(NULL, 4));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(primitives_alone_or_by_ref_are_portable),
        cmocka_unit_test(a_named_type_anywhere_is_not_portable),
        cmocka_unit_test(other_calling_conventions_are_not_portable),
        cmocka_unit_test(what_does_not_parse_exactly_is_not_portable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
