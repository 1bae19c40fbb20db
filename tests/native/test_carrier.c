/* Carriers (emit/carrier.c) against the shared fake module: an instance target's carrier is a
 * static `Carry` of a nested type of the target's type whose signature takes the receiver first
 * (`class Widget`, or `ref valuetype Point` for a struct), as the dispatch's calli signature
 * passes it, and whose body is a fat header, then (for a class) the receiver's null check
 * `ldarg.0; brtrue.s +2; ldnull; throw`, then the target's code; the same body finds its
 * carrier again (the token cache, then the type's name); a final virtual (an implicit interface
 * implementation, of a class or of a struct) is carried as a non-virtual instance method is; an
 * overridable virtual or generic target and an instance body with exception clauses are refused
 * before any metadata is written; a carrier is public when its declaring type is publicly
 * visible (so another module may call it), assembly otherwise. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "emit/carrier.h"
#include "il/dispatch.h"
#include "il/method_body.h"
#include "metadata/signature.h"

#include "fake_assembly_metadata.h"

#define MODULE 0x4000u
#define OBJECT_REF 0x01000001u
#define VALUE_TYPE_REF 0x01000002u
#define WIDGET 0x02000002u /* a class */
#define POINT 0x02000003u  /* a struct */
#define BAG 0x02000004u    /* a generic class: Bag<T> */
#define WIDGET_ADD 0x06000001u
#define POINT_ADD 0x06000002u
#define WIDGET_VIRTUAL 0x06000003u
#define BAG_ADD 0x06000004u
#define WIDGET_STATIC 0x06000005u
#define WIDGET_FINAL 0x06000006u /* virtual final newslot: an implicit interface implementation */
#define POINT_FINAL 0x06000007u
#define WIDGET_ABSTRACT 0x06000008u
#define HIDDEN 0x02000005u /* a class not public (tdNotPublic) */
#define HIDDEN_STATIC 0x06000009u
#define OUTER 0x02000006u  /* a public class, and in it */
#define INNER 0x02000007u  /* a nested private class */
#define INNER_STATIC 0x0600000Au

/* int32 Add(int32): an instance method (HASTHIS) and its static twin. */
static const uint8_t instance_sig[] = {0x20, 0x01, 0x08, 0x08};
static const uint8_t static_sig[] = {0x00, 0x01, 0x08, 0x08};

/* Tiny body: ldarg.1; ldc.i4.1; add; ret (arg 1 is the int32 in both the target and its
 * carrier: the receiver is arg 0 in both). */
static const uint8_t tiny_body[] = {(4u << 2) | 0x2u, 0x03, 0x17, 0x58, 0x2A};
static const uint8_t tiny_code[] = {0x03, 0x17, 0x58, 0x2A};

/* A fat body with a try/finally: nop; leave.s +1 | endfinally | ret, clause try [0, 3),
 * finally [3, 4), in a small EH section. */
static const uint8_t handler_body[] = {
    0x1B, 0x30, 0x08, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* fat, MoreSects */
    0x00, 0xDE, 0x01, 0xDC, 0x2A,                                           /* code */
    0x00, 0x00, 0x00,                                                       /* to 4 bytes */
    0x01, 0x10, 0x00, 0x00, /* small EH table, 16 bytes */
    0x02, 0x00, 0x00, 0x00, 0x03, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, /* finally */
};

static const uint8_t null_check[] = {0x02, 0x2D, 0x02, 0x14, 0x7A};

typedef struct world {
    fake_module m;
    aip_emitter e;
} world;

static int setup(void **state)
{
    world *w = calloc(1, sizeof *w);
    assert_non_null(w);
    fake_module_init(&w->m);
    fake_module_type_ref(&w->m, OBJECT_REF, "System.Object");
    fake_module_type_ref(&w->m, VALUE_TYPE_REF, "System.ValueType");
    fake_module_type_def(&w->m, WIDGET, "Widget", 0x00100001u, OBJECT_REF, 0);
    fake_module_type_def(&w->m, POINT, "Point", 0x00100109u, VALUE_TYPE_REF, 0);
    fake_module_type_def(&w->m, BAG, "Bag`1", 0x00100001u, OBJECT_REF, 0);
    w->m.types[w->m.type_count - 1].generic_params = 1;
    fake_module_type_def(&w->m, HIDDEN, "Hidden", 0x00100000u, OBJECT_REF, 0);
    fake_module_type_def(&w->m, OUTER, "Outer", 0x00100001u, OBJECT_REF, 0);
    fake_module_type_def(&w->m, INNER, "Inner", 0x00100003u /* tdNestedPrivate */, OBJECT_REF,
                         OUTER);
    fake_module_method_def(&w->m, HIDDEN_STATIC, HIDDEN, "Inc", mdPublic | mdHideBySig | mdStatic,
                           static_sig, sizeof static_sig);
    fake_module_method_def(&w->m, INNER_STATIC, INNER, "Inc", mdPublic | mdHideBySig | mdStatic,
                           static_sig, sizeof static_sig);
    fake_module_method_def(&w->m, WIDGET_ADD, WIDGET, "Add", mdPublic | mdHideBySig, instance_sig,
                           sizeof instance_sig);
    fake_module_method_def(&w->m, POINT_ADD, POINT, "Add", mdPublic | mdHideBySig, instance_sig,
                           sizeof instance_sig);
    fake_module_method_def(&w->m, WIDGET_VIRTUAL, WIDGET, "Twice",
                           mdPublic | mdHideBySig | mdVirtual | mdNewSlot, instance_sig,
                           sizeof instance_sig);
    fake_module_method_def(&w->m, BAG_ADD, BAG, "Add", mdPublic | mdHideBySig, instance_sig,
                           sizeof instance_sig);
    fake_module_method_def(&w->m, WIDGET_STATIC, WIDGET, "Inc", mdPublic | mdHideBySig | mdStatic,
                           static_sig, sizeof static_sig);
    fake_module_method_def(&w->m, WIDGET_FINAL, WIDGET, "Damage",
                           mdPublic | mdHideBySig | mdVirtual | mdFinal | mdNewSlot, instance_sig,
                           sizeof instance_sig);
    fake_module_method_def(&w->m, POINT_FINAL, POINT, "Damage",
                           mdPublic | mdHideBySig | mdVirtual | mdFinal | mdNewSlot, instance_sig,
                           sizeof instance_sig);
    fake_module_method_def(&w->m, WIDGET_ABSTRACT, WIDGET, "Hit",
                           mdPublic | mdHideBySig | mdVirtual | mdAbstract | mdNewSlot, instance_sig,
                           sizeof instance_sig);
    w->e.info = &w->m.info;
    assert_int_equal(aip_token_cache_init(&w->e.tokens), 0);
    *state = w;
    return 0;
}

static int teardown(void **state)
{
    world *w = *state;
    fake_module_free(&w->m);
    free(w);
    return 0;
}

static aip_carrier_outcome carrier_for(world *w, uint32_t target, const uint8_t *body,
                                       uint32_t size, uint32_t *carrier, int *defined)
{
    HRESULT hr = E_UNEXPECTED;
    *carrier = 0;
    *defined = -1;
    aip_carrier_outcome outcome =
        aip_carrier_for(&w->e, MODULE, target, body, size, carrier, defined, &hr);
    if (outcome != AIP_CARRIER_FAILED)
        assert_int_equal(hr, S_OK);
    return outcome;
}

/* The signature aip_dispatch_build_calli_signature builds for target (owner klass). */
static size_t calli_signature(aip_receiver_kind receiver, uint32_t klass, uint8_t *out,
                              size_t capacity)
{
    aip_method_sig parsed;
    assert_int_equal(aip_sig_parse_method(instance_sig, sizeof instance_sig, 0, &parsed), ALVK_OK);
    aip_dispatch_target dt = {instance_sig, sizeof instance_sig, &parsed, receiver, klass};
    size_t written = 0;
    assert_int_equal(aip_dispatch_build_calli_signature(&dt, out, capacity, &written), ALVK_OK);
    return written;
}

/* The carrier's nested type and method as the fake recorded them: public when `visible` (its
 * declaring type is publicly visible, so other modules may call it), else assembly. */
static const fake_method_def *check_visible(world *w, uint32_t carrier, uint32_t klass,
                                            int visible)
{
    const fake_method_def *method = fake_module_find_method(&w->m, carrier);
    assert_non_null(method);
    assert_string_equal(method->name, "Carry");
    assert_int_equal(method->flags, (visible ? mdPublic : mdAssem) | mdStatic | mdHideBySig);
    assert_int_equal(method->impl_flags, 0x0100u); /* miIL | miAggressiveInlining */
    const fake_type_def *type = fake_module_find_type(&w->m, method->owner);
    assert_non_null(type);
    assert_int_equal(type->encloser, klass);
    assert_int_equal(type->base, OBJECT_REF);
    assert_int_equal(type->flags, (visible ? tdNestedPublic : tdNestedAssembly) | 0x80u |
                                      0x100u); /* abstract, sealed */
    assert_memory_equal(type->name, "AlvkCarrier_", 12);
    assert_int_equal(strlen(type->name), 12 + 16);
    assert_non_null(method->body);
    return method;
}

/* Widget and Point are public: so are their carriers. */
static const fake_method_def *check_defined(world *w, uint32_t carrier, uint32_t klass)
{
    return check_visible(w, carrier, klass, 1);
}

/* An instance carrier of the tiny body, defined for klass: the calli signature of that receiver,
 * then (for a class) the receiver's null check, then the target's code. */
static void check_instance_carrier(world *w, uint32_t carrier, aip_receiver_kind receiver,
                                   uint32_t klass)
{
    const fake_method_def *method = check_defined(w, carrier, klass);
    uint8_t calli[64];
    size_t calli_size = calli_signature(receiver, klass, calli, sizeof calli);
    assert_int_equal(method->sig_size, calli_size);
    assert_memory_equal(method->sig, calli, calli_size);
    size_t check = 0;
    if (receiver == AIP_RECEIVER_CLASS) {
        check = sizeof null_check;
        assert_memory_equal(method->body + AIP_FAT_HEADER_BYTES, null_check, check);
    }
    assert_memory_equal(method->body + AIP_FAT_HEADER_BYTES + check, tiny_code, sizeof tiny_code);
}

static void a_type_not_publicly_visible_gets_an_assembly_carrier(void **state)
{
    world *w = *state;
    uint32_t carrier = 0;
    int defined = 0;
    assert_int_equal(
        carrier_for(w, HIDDEN_STATIC, tiny_body, sizeof tiny_body, &carrier, &defined),
        AIP_CARRIER_DEFINED);
    check_visible(w, carrier, HIDDEN, 0);
    /* A private type nested in a public one: not visible from another module either. */
    assert_int_equal(carrier_for(w, INNER_STATIC, tiny_body, sizeof tiny_body, &carrier, &defined),
                     AIP_CARRIER_DEFINED);
    check_visible(w, carrier, INNER, 0);
}

static void class_carrier_takes_the_receiver_first_and_checks_it_for_null(void **state)
{
    world *w = *state;
    uint32_t carrier = 0;
    int defined = 0;
    assert_int_equal(carrier_for(w, WIDGET_ADD, tiny_body, sizeof tiny_body, &carrier, &defined),
                     AIP_CARRIER_DEFINED);
    assert_int_equal(defined, 1);
    assert_int_equal(carrier, FAKE_FIRST_DEFINED_METHOD);
    assert_int_equal(w->m.applies, 1);
    const fake_method_def *method = check_defined(w, carrier, WIDGET);

    /* DEFAULT (static), 2 parameters, returns int32: class Widget (TypeDef row 2), int32. */
    static const uint8_t expected_sig[] = {0x00, 0x02, 0x08, 0x12, (2u << 2) | 0u, 0x08};
    assert_int_equal(method->sig_size, sizeof expected_sig);
    assert_memory_equal(method->sig, expected_sig, sizeof expected_sig);
    uint8_t calli[64];
    size_t calli_size = calli_signature(AIP_RECEIVER_CLASS, WIDGET, calli, sizeof calli);
    assert_int_equal(method->sig_size, calli_size);
    assert_memory_equal(method->sig, calli, calli_size);

    /* Fat header: flags 0x3003 (fat, 3 dwords), max stack 8 (the tiny body's), code size
     * 5 + 4, no locals; then the null check, then the code. */
    static const uint8_t expected_header[] = {0x03, 0x30, 0x08, 0x00, 0x09, 0x00,
                                              0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    assert_memory_equal(method->body, expected_header, sizeof expected_header);
    uint8_t written[AIP_FAT_HEADER_BYTES];
    aip_method_body_write_fat_header(written, 8, sizeof null_check + sizeof tiny_code, 0, 0);
    assert_memory_equal(method->body, written, sizeof written);
    assert_memory_equal(method->body + AIP_FAT_HEADER_BYTES, null_check, sizeof null_check);
    assert_memory_equal(method->body + AIP_FAT_HEADER_BYTES + sizeof null_check, tiny_code,
                        sizeof tiny_code);
    aip_method_body parsed;
    assert_int_equal(aip_method_body_parse(method->body,
                                           AIP_FAT_HEADER_BYTES + sizeof null_check +
                                               sizeof tiny_code,
                                           &parsed, NULL, 0),
                     ALVK_OK);
    assert_int_equal(parsed.code_size, sizeof null_check + sizeof tiny_code);
    assert_int_equal(parsed.eh_clause_count, 0);
}

static void struct_carrier_takes_the_receiver_by_ref_without_a_check(void **state)
{
    world *w = *state;
    uint32_t carrier = 0;
    int defined = 0;
    assert_int_equal(carrier_for(w, POINT_ADD, tiny_body, sizeof tiny_body, &carrier, &defined),
                     AIP_CARRIER_DEFINED);
    assert_int_equal(defined, 1);
    const fake_method_def *method = check_defined(w, carrier, POINT);

    /* DEFAULT, 2 parameters, returns int32: ref valuetype Point (TypeDef row 3), int32. */
    static const uint8_t expected_sig[] = {0x00, 0x02, 0x08, 0x10, 0x11, (3u << 2) | 0u, 0x08};
    assert_int_equal(method->sig_size, sizeof expected_sig);
    assert_memory_equal(method->sig, expected_sig, sizeof expected_sig);
    uint8_t calli[64];
    size_t calli_size = calli_signature(AIP_RECEIVER_VALUE_TYPE, POINT, calli, sizeof calli);
    assert_int_equal(method->sig_size, calli_size);
    assert_memory_equal(method->sig, calli, calli_size);

    static const uint8_t expected_header[] = {0x03, 0x30, 0x08, 0x00, 0x04, 0x00,
                                              0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    assert_memory_equal(method->body, expected_header, sizeof expected_header);
    assert_memory_equal(method->body + AIP_FAT_HEADER_BYTES, tiny_code, sizeof tiny_code);
}

static void the_same_body_finds_its_carrier_again(void **state)
{
    world *w = *state;
    uint32_t first = 0, again = 0;
    int defined = 0;
    assert_int_equal(carrier_for(w, WIDGET_ADD, tiny_body, sizeof tiny_body, &first, &defined),
                     AIP_CARRIER_DEFINED);
    assert_int_equal(defined, 1);
    /* The token cache. */
    assert_int_equal(carrier_for(w, WIDGET_ADD, tiny_body, sizeof tiny_body, &again, &defined),
                     AIP_CARRIER_DEFINED);
    assert_int_equal(defined, 0);
    assert_int_equal(again, first);
    assert_int_equal(atomic_load(&w->e.tokens_reused), 1);
    /* The cache forgot the module: the type's name and the method's signature. */
    aip_token_cache_forget_module(&w->e.tokens, MODULE);
    again = 0;
    assert_int_equal(carrier_for(w, WIDGET_ADD, tiny_body, sizeof tiny_body, &again, &defined),
                     AIP_CARRIER_DEFINED);
    assert_int_equal(defined, 0);
    assert_int_equal(again, first);
    assert_int_equal(w->m.defined_types, 1);
    assert_int_equal(w->m.defined_methods, 1);
    assert_int_equal(w->m.applies, 1);
    /* Another body: another carrier. */
    static const uint8_t other[] = {(4u << 2) | 0x2u, 0x03, 0x18, 0x58, 0x2A};
    assert_int_equal(carrier_for(w, WIDGET_ADD, other, sizeof other, &again, &defined),
                     AIP_CARRIER_DEFINED);
    assert_int_equal(defined, 1);
    assert_int_not_equal(again, first);
    assert_int_equal(w->m.defined_types, 2);
}

static void static_carrier_keeps_the_signature_and_the_body(void **state)
{
    world *w = *state;
    uint32_t carrier = 0;
    int defined = 0;
    assert_int_equal(
        carrier_for(w, WIDGET_STATIC, tiny_body, sizeof tiny_body, &carrier, &defined),
        AIP_CARRIER_DEFINED);
    const fake_method_def *method = check_defined(w, carrier, WIDGET);
    assert_int_equal(method->sig_size, sizeof static_sig);
    assert_memory_equal(method->sig, static_sig, sizeof static_sig);
    assert_memory_equal(method->body, tiny_body, sizeof tiny_body);
}

static void nothing_defined(const world *w)
{
    assert_int_equal(w->m.defined_types, 0);
    assert_int_equal(w->m.defined_methods, 0);
    assert_int_equal(w->m.applies, 0);
}

static void virtual_target_is_refused(void **state)
{
    world *w = *state;
    uint32_t carrier = 0;
    int defined = 0;
    assert_int_equal(
        carrier_for(w, WIDGET_VIRTUAL, tiny_body, sizeof tiny_body, &carrier, &defined),
        AIP_CARRIER_VIRTUAL);
    assert_int_equal(defined, 0);
    nothing_defined(w);
}

/* A final virtual's slot cannot be overridden: its carrier is the non-virtual method's, the
 * class's with the receiver's null check, the struct's by ref. */
static void final_virtual_target_is_carried(void **state)
{
    world *w = *state;
    uint32_t carrier = 0;
    int defined = 0;
    assert_int_equal(carrier_for(w, WIDGET_FINAL, tiny_body, sizeof tiny_body, &carrier, &defined),
                     AIP_CARRIER_DEFINED);
    assert_int_equal(defined, 1);
    check_instance_carrier(w, carrier, AIP_RECEIVER_CLASS, WIDGET);

    assert_int_equal(carrier_for(w, POINT_FINAL, tiny_body, sizeof tiny_body, &carrier, &defined),
                     AIP_CARRIER_DEFINED);
    assert_int_equal(defined, 1);
    check_instance_carrier(w, carrier, AIP_RECEIVER_VALUE_TYPE, POINT);
    assert_int_equal(w->m.defined_methods, 2);
}

static void abstract_target_is_refused(void **state)
{
    world *w = *state;
    uint32_t carrier = 0;
    int defined = 0;
    assert_int_equal(
        carrier_for(w, WIDGET_ABSTRACT, tiny_body, sizeof tiny_body, &carrier, &defined),
        AIP_CARRIER_VIRTUAL);
    nothing_defined(w);
}

/* The decision alone, flag by flag. */
static void decision_follows_the_flags(void **state)
{
    (void)state;
    const uint32_t base = mdPublic | mdHideBySig;
    const uint32_t final_virtual = base | mdVirtual | mdFinal | mdNewSlot;
    assert_int_equal(aip_carrier_decide(0, final_virtual, AIP_RECEIVER_CLASS), AIP_CARRIER_DEFINED);
    assert_int_equal(aip_carrier_decide(0, final_virtual, AIP_RECEIVER_VALUE_TYPE),
                     AIP_CARRIER_DEFINED);
    /* sealed override: final, not newslot. */
    assert_int_equal(aip_carrier_decide(0, base | mdVirtual | mdFinal, AIP_RECEIVER_CLASS),
                     AIP_CARRIER_DEFINED);
    assert_int_equal(aip_carrier_decide(0, base, AIP_RECEIVER_CLASS), AIP_CARRIER_DEFINED);
    assert_int_equal(aip_carrier_decide(0, base | mdStatic, AIP_RECEIVER_NONE),
                     AIP_CARRIER_DEFINED);
    /* Overridable: virtual without final, or abstract (final or not). */
    assert_int_equal(aip_carrier_decide(0, base | mdVirtual | mdNewSlot, AIP_RECEIVER_CLASS),
                     AIP_CARRIER_VIRTUAL);
    assert_int_equal(aip_carrier_decide(0, base | mdVirtual, AIP_RECEIVER_VALUE_TYPE),
                     AIP_CARRIER_VIRTUAL);
    assert_int_equal(
        aip_carrier_decide(0, final_virtual | mdAbstract, AIP_RECEIVER_CLASS),
        AIP_CARRIER_VIRTUAL);
    assert_int_equal(aip_carrier_decide(0, base | mdVirtual | mdAbstract, AIP_RECEIVER_CLASS),
                     AIP_CARRIER_VIRTUAL);
    /* mdFinal alone on a non-virtual method changes nothing. */
    assert_int_equal(aip_carrier_decide(0, base | mdFinal, AIP_RECEIVER_CLASS),
                     AIP_CARRIER_DEFINED);
    /* Generic or unreadable first, whatever the flags; no receiver for an instance method. */
    assert_int_equal(aip_carrier_decide(1, final_virtual, AIP_RECEIVER_CLASS),
                     AIP_CARRIER_GENERIC);
    assert_int_equal(aip_carrier_decide(1, base | mdVirtual, AIP_RECEIVER_CLASS),
                     AIP_CARRIER_GENERIC);
    assert_int_equal(aip_carrier_decide(-1, final_virtual, AIP_RECEIVER_CLASS),
                     AIP_CARRIER_FAILED);
    assert_int_equal(aip_carrier_decide(0, final_virtual, AIP_RECEIVER_NONE), AIP_CARRIER_FAILED);
    assert_int_equal(aip_carrier_decide(0, base, AIP_RECEIVER_NONE), AIP_CARRIER_FAILED);
}

static void generic_target_is_refused(void **state)
{
    world *w = *state;
    uint32_t carrier = 0;
    int defined = 0;
    assert_int_equal(carrier_for(w, BAG_ADD, tiny_body, sizeof tiny_body, &carrier, &defined),
                     AIP_CARRIER_GENERIC);
    nothing_defined(w);
    assert_int_equal(aip_carrier_method_generic(&w->e, MODULE, BAG_ADD), 1);
    assert_int_equal(aip_carrier_method_generic(&w->e, MODULE, WIDGET_ADD), 0);
    assert_int_equal(aip_carrier_method_generic(&w->e, MODULE, 0x06000077u), -1);
}

static void instance_body_with_exception_clauses_is_refused(void **state)
{
    world *w = *state;
    aip_method_body parsed;
    assert_int_equal(aip_method_body_parse(handler_body, sizeof handler_body, &parsed, NULL, 0),
                     ALVK_OK);
    assert_int_equal(parsed.eh_clause_count, 1);
    uint32_t carrier = 0;
    int defined = 0;
    assert_int_equal(
        carrier_for(w, WIDGET_ADD, handler_body, sizeof handler_body, &carrier, &defined),
        AIP_CARRIER_HANDLERS);
    assert_int_equal(carrier_for(w, POINT_ADD, handler_body, sizeof handler_body, &carrier,
                                 &defined),
                     AIP_CARRIER_HANDLERS);
    nothing_defined(w);
}

static void unreadable_metadata_fails(void **state)
{
    world *w = *state;
    w->m.metadata_hr = E_FAIL;
    uint32_t carrier = 0;
    int defined = 0;
    HRESULT hr = S_OK;
    assert_int_equal(aip_carrier_for(&w->e, MODULE, WIDGET_ADD, tiny_body, sizeof tiny_body,
                                     &carrier, &defined, &hr),
                     AIP_CARRIER_FAILED);
    assert_int_equal(hr, E_FAIL);
    w->m.metadata_hr = S_OK;
    assert_int_equal(aip_carrier_for(&w->e, MODULE, 0x06000077u, tiny_body, sizeof tiny_body,
                                     &carrier, &defined, &hr),
                     AIP_CARRIER_FAILED);
    nothing_defined(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            class_carrier_takes_the_receiver_first_and_checks_it_for_null, setup, teardown),
        cmocka_unit_test_setup_teardown(struct_carrier_takes_the_receiver_by_ref_without_a_check,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(the_same_body_finds_its_carrier_again, setup, teardown),
        cmocka_unit_test_setup_teardown(static_carrier_keeps_the_signature_and_the_body, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(virtual_target_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(final_virtual_target_is_carried, setup, teardown),
        cmocka_unit_test_setup_teardown(abstract_target_is_refused, setup, teardown),
        cmocka_unit_test(decision_follows_the_flags),
        cmocka_unit_test_setup_teardown(a_type_not_publicly_visible_gets_an_assembly_carrier, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(generic_target_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(instance_body_with_exception_clauses_is_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(unreadable_metadata_fails, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
