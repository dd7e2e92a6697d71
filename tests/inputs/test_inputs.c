/*
 * Inputs from statistics records (spec run_ut.md §4.5-§4.7): the endpoint rules, NaN and
 * infinite bounds, integer and bool ranges, empty shapes, msprobe's messages, the per-API
 * preprocessing, and the keyed determinism (values depend on seed, API and argument only).
 */
#include "pc_test.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "precheck/core/convert.h"
#include "precheck/inputs/inputs.h"

static const char dump_json[] =
    "{\"task\": \"statistics\", \"level\": \"L1\", \"dump_data_dir\": null, \"data\": {"
    "\"Torch.add.0.forward\": {\"input_args\": ["
    "  {\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [3, 4], "
    "   \"Max\": 5.0, \"Min\": -2.0, \"requires_grad\": true},"
    "  {\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [3, 4], "
    "   \"Max\": 5.0, \"Min\": -2.0, \"requires_grad\": true}], \"input_kwargs\": {}, "
    "  \"output\": []},"
    "\"Torch.add.1.forward\": {\"input_args\": ["
    "  {\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [3, 4], "
    "   \"Max\": 5.0, \"Min\": -2.0, \"requires_grad\": true}], \"input_kwargs\": {}, "
    "  \"output\": []},"
    "\"Functional.cross_entropy.0.forward\": {\"input_args\": ["
    "  {\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [4, 10], "
    "   \"Max\": 1.0, \"Min\": -1.0},"
    "  {\"type\": \"torch.Tensor\", \"dtype\": \"torch.int32\", \"shape\": [4], "
    "   \"Max\": 9, \"Min\": -100}], \"input_kwargs\": {}, \"output\": []},"
    "\"Functional.conv2d.0.forward\": {\"input_args\": ["
    "  {\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [64], "
    "   \"Max\": 1.0, \"Min\": -1.0}], \"input_kwargs\": {}, \"output\": []}"
    "}}";

static pc_dump *parse(void)
{
    pc_dump *d = NULL;
    assert_int_equal(pc_dump_parse(&d, dump_json, sizeof dump_json - 1, "test.json"), PC_OK);
    return d;
}

static const pc_dump_arg *arg_of(const pc_dump_api *api, size_t i)
{
    return &api->forward.input_args.u.list.items[i];
}

static double at(const pc_tensor *t, int64_t i)
{
    double re, im;
    pc_element_load((const char *)pc_tensor_data(t) + (size_t)i * pc_dtype_size(t->dtype), t->dtype,
                    &re, &im);
    return re;
}

static pc_dump_tensor record(pc_dtype dt, const int64_t *shape, int rank, double min, double max)
{
    pc_dump_tensor r = {0};
    r.dtype = dt;
    r.dtype_name = pc_dtype_torch_name(dt);
    r.has_shape = true;
    r.rank = rank;
    r.shape = shape;
    r.min = (pc_dump_value){.kind = PC_DUMP_VALUE_FLOAT, .u.f = min};
    r.max = (pc_dump_value){.kind = PC_DUMP_VALUE_FLOAT, .u.f = max};
    return r;
}

static void test_float_endpoints_and_range(void **state)
{
    (void)state;
    const pc_dtype dts[] = {PC_DTYPE_F16, PC_DTYPE_BF16, PC_DTYPE_F32, PC_DTYPE_F64};
    int64_t shape[] = {40, 25};
    for (size_t k = 0; k < 4; k++) {
        pc_dump_tensor r = record(dts[k], shape, 2, -2.5, 7.25);
        pc_tensor t = PC_TENSOR_NULL;
        assert_int_equal(pc_inputs_random(&r, dts[k], false, 1234, "k", &t), PC_OK);
        assert_int_equal(t.dtype, dts[k]);
        assert_int_equal(pc_tensor_numel(&t), 1000);
        assert_true(at(&t, 0) == -2.5);
        assert_true(at(&t, 999) == 7.25);
        double lo = 1e9, hi = -1e9, sum = 0;
        for (int64_t i = 0; i < 1000; i++) {
            double v = at(&t, i);
            lo = fmin(lo, v);
            hi = fmax(hi, v);
            sum += v;
        }
        assert_true(lo >= -2.5 && hi <= 7.25);
        /* uniform over [-2.5, 7.25): the mean is near 2.375 */
        assert_true(fabs(sum / 1000 - 2.375) < 0.4);
        pc_tensor_free(&t);
    }
}

static void test_nan_and_inf_bounds(void **state)
{
    (void)state;
    int64_t shape[] = {3, 2};
    pc_tensor t = PC_TENSOR_NULL;
    pc_dump_tensor r = record(PC_DTYPE_F32, shape, 2, -1.0, (double)NAN);
    assert_int_equal(pc_inputs_random(&r, PC_DTYPE_F32, false, 1, "a", &t), PC_OK);
    for (int64_t i = 0; i < 6; i++)
        assert_true(isnan(at(&t, i)));
    pc_tensor_free(&t);
    /* Max = +inf: all +inf but the last slice along dim 0, which is Min */
    r = record(PC_DTYPE_BF16, shape, 2, -1.0, HUGE_VAL);
    assert_int_equal(pc_inputs_random(&r, PC_DTYPE_BF16, false, 1, "a", &t), PC_OK);
    for (int64_t i = 0; i < 4; i++)
        assert_true(at(&t, i) == HUGE_VAL);
    assert_true(at(&t, 4) == -1.0 && at(&t, 5) == -1.0);
    pc_tensor_free(&t);
    /* ... which a 0-dim tensor cannot have */
    r = record(PC_DTYPE_F32, NULL, 0, -1.0, HUGE_VAL);
    assert_int_equal(pc_inputs_random(&r, PC_DTYPE_F32, false, 1, "a", &t), PC_ERR_INVALID);
    assert_non_null(strstr(pc_error_message(), "invalid index of a 0-dim tensor"));
    /* Min = -inf: the first element is -inf, the rest finite down to the dtype's lowest */
    int64_t n100[] = {100};
    r = record(PC_DTYPE_F16, n100, 1, -HUGE_VAL, 1.0);
    assert_int_equal(pc_inputs_random(&r, PC_DTYPE_F16, false, 1, "a", &t), PC_OK);
    assert_true(at(&t, 0) == -HUGE_VAL);
    assert_true(at(&t, 99) == 1.0);
    bool big = false;
    for (int64_t i = 1; i < 99; i++) {
        assert_true(isfinite(at(&t, i)) || at(&t, i) == -HUGE_VAL);
        big |= at(&t, i) < -1000;
    }
    assert_true(big);
    pc_tensor_free(&t);
}

static void test_integers_bool_empty(void **state)
{
    (void)state;
    int64_t shape[] = {500};
    pc_tensor t = PC_TENSOR_NULL;
    pc_dump_tensor r = record(PC_DTYPE_I64, shape, 1, 0.0, 63.9);
    assert_int_equal(pc_inputs_random(&r, PC_DTYPE_I64, false, 7, "i", &t), PC_OK);
    bool seen0 = false, seen63 = false;
    for (int64_t i = 0; i < 500; i++) {
        double v = at(&t, i);
        assert_true(v >= 0 && v <= 63 && v == floor(v));
        seen0 |= v == 0 && i > 0 && i < 499;
        seen63 |= v == 63 && i > 0 && i < 499;
    }
    assert_true(at(&t, 0) == 0 && at(&t, 499) == 63);
    assert_true(seen0 && seen63); /* the closed range */
    pc_tensor_free(&t);
    r = record(PC_DTYPE_I32, shape, 1, 5.0, 3.0);
    assert_int_equal(pc_inputs_random(&r, PC_DTYPE_I32, false, 7, "i", &t), PC_ERR_INVALID);
    assert_string_equal(pc_error_message(),
                        "random_ expects 'from' to be less than 'to', but got from=5 >= to=4");
    r = record(PC_DTYPE_I32, shape, 1, (double)NAN, 3.0);
    assert_int_equal(pc_inputs_random(&r, PC_DTYPE_I32, false, 7, "i", &t), PC_ERR_INVALID);
    assert_string_equal(pc_error_message(), "cannot convert float NaN to integer");
    /* bool: False..True random, True..True all true */
    r = record(PC_DTYPE_BOOL, shape, 1, 0, 0);
    r.min = (pc_dump_value){.kind = PC_DUMP_VALUE_BOOL, .u.b = false};
    r.max = (pc_dump_value){.kind = PC_DUMP_VALUE_BOOL, .u.b = true};
    assert_int_equal(pc_inputs_random(&r, PC_DTYPE_BOOL, false, 7, "b", &t), PC_OK);
    int trues = 0;
    for (int64_t i = 0; i < 500; i++)
        trues += at(&t, i) != 0;
    assert_true(trues > 150 && trues < 350);
    pc_tensor_free(&t);
    r.min.u.b = true;
    assert_int_equal(pc_inputs_random(&r, PC_DTYPE_BOOL, false, 7, "b", &t), PC_OK);
    for (int64_t i = 0; i < 500; i++)
        assert_true(at(&t, i) != 0);
    pc_tensor_free(&t);
    /* a zero in the shape: an empty tensor, even with null statistics */
    int64_t empty[] = {0, 3};
    r = record(PC_DTYPE_F32, empty, 2, 0, 0);
    r.min.kind = r.max.kind = PC_DUMP_VALUE_NULL;
    assert_int_equal(pc_inputs_random(&r, PC_DTYPE_F32, false, 7, "e", &t), PC_OK);
    assert_int_equal(pc_tensor_numel(&t), 0);
    assert_int_equal(t.shape[1], 3);
    pc_tensor_free(&t);
    /* null statistics elsewhere: msprobe's message */
    r = record(PC_DTYPE_F32, shape, 1, 0, 1.0);
    r.min.kind = PC_DUMP_VALUE_NULL;
    assert_int_equal(pc_inputs_random(&r, PC_DTYPE_F32, false, 7, "e", &t), PC_ERR_INVALID);
    assert_string_equal(pc_error_message(),
                        "Data info Min: None , Max: 1.0, info type must be int or float.");
}

static void test_keyed_determinism(void **state)
{
    (void)state;
    pc_dump *d = parse();
    pc_inputs in = {0};
    const pc_dump_api *add0 = pc_dump_find(d, "Torch.add.0");
    const pc_dump_api *add1 = pc_dump_find(d, "Torch.add.1");
    assert_non_null(add0);
    assert_non_null(add1);
    pc_tensor a = PC_TENSOR_NULL, b = PC_TENSOR_NULL, c = PC_TENSOR_NULL, e = PC_TENSOR_NULL;
    pc_inputs_begin(&in, d, 1234, add0);
    assert_int_equal(pc_inputs_provide(&in, add0, arg_of(add0, 0), &a), PC_OK);
    assert_int_equal(pc_inputs_provide(&in, add0, arg_of(add0, 1), &b), PC_OK);
    pc_inputs_begin(&in, d, 1234, add1);
    assert_int_equal(pc_inputs_provide(&in, add1, arg_of(add1, 0), &c), PC_OK);
    /* the same record again, in another order: the same values */
    pc_inputs_begin(&in, d, 1234, add0);
    assert_int_equal(pc_inputs_provide(&in, add0, arg_of(add0, 0), &e), PC_OK);
    assert_memory_equal(pc_tensor_data(&a), pc_tensor_data(&e), 48);
    /* other argument, other API: other values (the endpoints aside) */
    assert_memory_not_equal((char *)pc_tensor_data(&a) + 4, (char *)pc_tensor_data(&b) + 4, 40);
    assert_memory_not_equal((char *)pc_tensor_data(&a) + 4, (char *)pc_tensor_data(&c) + 4, 40);
    pc_tensor_free(&e);
    /* another seed: other values */
    pc_inputs_begin(&in, d, 99, add0);
    assert_int_equal(pc_inputs_provide(&in, add0, arg_of(add0, 0), &e), PC_OK);
    assert_memory_not_equal((char *)pc_tensor_data(&a) + 4, (char *)pc_tensor_data(&e) + 4, 40);
    pc_tensor_free(&a);
    pc_tensor_free(&b);
    pc_tensor_free(&c);
    pc_tensor_free(&e);
    pc_dump_free(d);
}

static void test_preprocessing(void **state)
{
    (void)state;
    pc_dump *d = parse();
    pc_inputs in = {0};
    const pc_dump_api *ce = pc_dump_find(d, "Functional.cross_entropy.0");
    pc_inputs_begin(&in, d, 1234, ce);
    pc_tensor t = PC_TENSOR_NULL;
    /* the target: int32 -> int64, Min -100 -> 0 */
    assert_int_equal(pc_inputs_provide(&in, ce, arg_of(ce, 1), &t), PC_OK);
    assert_int_equal(t.dtype, PC_DTYPE_I64);
    assert_true(at(&t, 0) == 0 && at(&t, 3) == 9);
    for (int64_t i = 0; i < 4; i++)
        assert_true(at(&t, i) >= 0 && at(&t, i) <= 9);
    pc_tensor_free(&t);
    /* conv2d: float32 inputs rounded to HF32 (11 explicit mantissa bits) */
    const pc_dump_api *conv = pc_dump_find(d, "Functional.conv2d.0");
    pc_inputs_begin(&in, d, 1234, conv);
    assert_int_equal(pc_inputs_provide(&in, conv, arg_of(conv, 0), &t), PC_OK);
    const uint32_t *bits = pc_tensor_data(&t);
    for (int i = 0; i < 64; i++)
        assert_int_equal(bits[i] & 0xFFFu, 0);
    pc_tensor_free(&t);
    pc_dump_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float_endpoints_and_range),
        cmocka_unit_test(test_nan_and_inf_bounds),
        cmocka_unit_test(test_integers_bool_empty),
        cmocka_unit_test(test_keyed_determinism),
        cmocka_unit_test(test_preprocessing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
