/* The dtype traits table: names, look-ups, formats and msprobe's thresholds (spec compare.md
 * §4-§6.3), and that the format fields agree with the conversions. */
#include "pc_test.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "precheck/core/convert.h"
#include "precheck/core/dtype.h"

static void test_names_round_trip(void **state)
{
    (void)state;
    for (int i = 0; i < PC_DTYPE_COUNT; i++) {
        const pc_dtype_traits *t = pc_dtype_traits_of((pc_dtype)i);
        assert_int_equal(pc_dtype_from_torch_name(t->torch_name), i);
        assert_int_equal(pc_dtype_from_storage_name(t->storage_name), i);
        assert_string_equal(t->torch_name + 6, t->name);
        assert_string_equal(pc_dtype_name((pc_dtype)i), t->name);
        if (t->numpy_name)
            assert_int_equal(pc_dtype_from_numpy_name(t->numpy_name), i);
        char with_prefix[64];
        strcpy(with_prefix, "torch.");
        strcat(with_prefix, t->storage_name);
        assert_int_equal(pc_dtype_from_storage_name(with_prefix), i);
    }
}

static void test_lookups(void **state)
{
    (void)state;
    assert_int_equal(pc_dtype_from_torch_name("torch.bfloat16"), PC_DTYPE_BF16);
    assert_int_equal(pc_dtype_from_torch_name("torch.half"), PC_DTYPE_F16);
    assert_int_equal(pc_dtype_from_torch_name("torch.float"), PC_DTYPE_F32);
    assert_int_equal(pc_dtype_from_torch_name("torch.long"), PC_DTYPE_I64);
    assert_int_equal(pc_dtype_from_torch_name("torch.float8_e4m3fn"), PC_DTYPE_F8E4M3FN);
    assert_int_equal(pc_dtype_from_torch_name("float16"), PC_DTYPE_INVALID);
    assert_int_equal(pc_dtype_from_torch_name("torch.quint8"), PC_DTYPE_INVALID);
    assert_int_equal(pc_dtype_from_torch_name(NULL), PC_DTYPE_INVALID);
    assert_int_equal(pc_dtype_from_storage_name("HalfStorage"), PC_DTYPE_F16);
    assert_int_equal(pc_dtype_from_storage_name("BFloat16Storage"), PC_DTYPE_BF16);
    assert_int_equal(pc_dtype_from_storage_name("ByteStorage"), PC_DTYPE_U8);
    assert_int_equal(pc_dtype_from_storage_name("CharStorage"), PC_DTYPE_I8);
    assert_int_equal(pc_dtype_from_storage_name("LongStorage"), PC_DTYPE_I64);
    assert_int_equal(pc_dtype_from_storage_name("UntypedStorage"), PC_DTYPE_INVALID);
    assert_int_equal(pc_dtype_from_numpy_name("bool"), PC_DTYPE_BOOL);
    assert_int_equal(pc_dtype_from_numpy_name("bfloat16"), PC_DTYPE_INVALID);
    assert_string_equal(pc_dtype_name(PC_DTYPE_INVALID), "invalid");
    assert_string_equal(pc_dtype_torch_name(PC_DTYPE_COUNT), "invalid");
}

static void test_sizes_and_kinds(void **state)
{
    (void)state;
    static const size_t sizes[PC_DTYPE_COUNT] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8, 8, 16, 1, 1};
    for (int i = 0; i < PC_DTYPE_COUNT; i++)
        assert_int_equal(pc_dtype_size((pc_dtype)i), sizes[i]);
    assert_true(pc_dtype_is_float(PC_DTYPE_BF16) && pc_dtype_is_float(PC_DTYPE_F8E5M2));
    assert_false(pc_dtype_is_float(PC_DTYPE_C64));
    assert_true(pc_dtype_is_complex(PC_DTYPE_C128));
    assert_true(pc_dtype_is_integral(PC_DTYPE_BOOL) && pc_dtype_is_integral(PC_DTYPE_U8));
    assert_false(pc_dtype_is_integral(PC_DTYPE_F16));
    assert_false(pc_dtype_is_float(PC_DTYPE_INVALID));
    assert_int_equal(pc_dtype_traits_of(PC_DTYPE_C64)->component, PC_DTYPE_F32);
    assert_int_equal(pc_dtype_traits_of(PC_DTYPE_C128)->component, PC_DTYPE_F64);
    assert_int_equal(pc_dtype_traits_of(PC_DTYPE_I32)->component, PC_DTYPE_I32);
}

/* eps, the largest finite value and the smallest normal agree with the bit formats. */
static void test_float_formats(void **state)
{
    (void)state;
    for (int i = 0; i < PC_DTYPE_COUNT; i++) {
        const pc_dtype_traits *t = pc_dtype_traits_of((pc_dtype)i);
        if (t->kind != PC_KIND_FLOAT && t->kind != PC_KIND_COMPLEX)
            continue;
        assert_true(t->eps == ldexp(1.0, -t->mantissa_bits));
        assert_true(t->lowest == -t->max_finite);
        assert_int_equal(8 * t->size / (t->kind == PC_KIND_COMPLEX ? 2 : 1),
                         1 + t->exponent_bits + t->mantissa_bits);
        assert_int_equal(t->min_normal_exp, 2 - (1 << (t->exponent_bits - 1)));
    }
    assert_true((double)pc_f16_to_f32(0x7bff) == pc_dtype_traits_of(PC_DTYPE_F16)->max_finite);
    assert_true((double)pc_bf16_to_f32(0x7f7f) == pc_dtype_traits_of(PC_DTYPE_BF16)->max_finite);
    assert_true((double)pc_f8e4m3fn_to_f32(0x7e) ==
                pc_dtype_traits_of(PC_DTYPE_F8E4M3FN)->max_finite);
    assert_true((double)pc_f8e5m2_to_f32(0x7b) == pc_dtype_traits_of(PC_DTYPE_F8E5M2)->max_finite);
    assert_true((double)FLT_MAX == pc_dtype_traits_of(PC_DTYPE_F32)->max_finite);
    assert_false(pc_dtype_traits_of(PC_DTYPE_F8E4M3FN)->has_inf);
    assert_true(pc_dtype_traits_of(PC_DTYPE_F8E5M2)->has_inf);
    /* the bf16 inf/nan clip limit in msprobe is the bf16 maximum */
    assert_true(pc_dtype_traits_of(PC_DTYPE_BF16)->max_finite == 3.3895313892515355e+38);
}

/* spec compare.md §6.3, column by column */
static void test_msprobe_thresholds(void **state)
{
    (void)state;
    const pc_msprobe_thresholds *h = pc_dtype_traits_of(PC_DTYPE_F16)->thresholds;
    const pc_msprobe_thresholds *b = pc_dtype_traits_of(PC_DTYPE_BF16)->thresholds;
    const pc_msprobe_thresholds *f = pc_dtype_traits_of(PC_DTYPE_F32)->thresholds;
    const pc_msprobe_thresholds *o = pc_dtype_traits_of(PC_DTYPE_F64)->thresholds;
    assert_true(h->small_value == 0.0009765625 && b->small_value == 0.0009765625);
    assert_true(f->small_value == 9.5367431640625e-07 && o->small_value == f->small_value);
    assert_true(h->small_value_atol_abs == 1.52587890625e-05);
    assert_true(b->small_value_atol_abs == 1e-16);
    assert_true(f->small_value_atol_abs == 9.313225746154785e-10);
    assert_true(h->small_value_atol_bench == 1e-16 && b->small_value_atol_bench == 1e-16);
    assert_true(f->small_value_atol_bench == 9.313225746154785e-10);
    assert_true(h->rtol == 0x1p-10 && b->rtol == 0.00390625 && f->rtol == 0x1p-20);
    assert_true(h->accum_small_value == 1 && o->accum_small_value == 1);
    assert_true(h->accum_bound == 0.00390625 && b->accum_bound == 0.0078125);
    assert_true(f->accum_bound == 0.00048828125 && o->accum_bound == 0.00048828125);
    assert_true(h->has_ulp && h->ulp_min_exp == -14 && h->ulp_mantissa_bits == 10);
    assert_true(b->has_ulp && b->ulp_min_exp == -126 && b->ulp_mantissa_bits == 7);
    assert_true(f->has_ulp && f->ulp_min_exp == -126 && f->ulp_mantissa_bits == 23);
    assert_false(o->has_ulp);
    assert_true(h->ulp_elem_threshold == 1 && b->ulp_elem_threshold == 1);
    assert_true(f->ulp_elem_threshold == 32);
    assert_true(h->min_error == 0.00048828125 && b->min_error == 0.00390625);
    assert_true(f->min_error == 6.103515625e-05 && o->min_error == 6.103515625e-05);
    assert_true(h->accum_eb_threshold == 9.5367431640625e-07);
    assert_true(b->accum_eb_threshold == 0.0078125 && f->accum_eb_threshold == 6.103515625e-05);
    assert_true(b->bench_eps_override == 0.00390625 && h->bench_eps_override == 0);
    /* every dtype has a row, integers included ("other") */
    for (int i = 0; i < PC_DTYPE_COUNT; i++)
        assert_non_null(pc_dtype_traits_of((pc_dtype)i)->thresholds);
    assert_ptr_equal(pc_dtype_traits_of(PC_DTYPE_I64)->thresholds, o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_round_trip),   cmocka_unit_test(test_lookups),
        cmocka_unit_test(test_sizes_and_kinds),    cmocka_unit_test(test_float_formats),
        cmocka_unit_test(test_msprobe_thresholds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
