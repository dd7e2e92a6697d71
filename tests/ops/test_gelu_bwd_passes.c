/*
 * GELU's backward (erf form) runs in passes over a chunk (src/ops/pointwise/unary_kernel.inc,
 * gelu_erf_bwd: erf values, exp values, then the arithmetic vectorised) instead of one loop with
 * every op's cases. The gradient must be, bit for bit, the formula of that case written here
 * element by element (cdf = 0.5 (1 + erf(x / sqrt 2)), pdf = exp(-0.5 x x) / sqrt(2 pi),
 * dx = dy (cdf + x pdf), plus 0, stored as the engine stores a gradient): in float on the device
 * (float32, and bfloat16 rounded once at the end) and in double on the bench, with NaN, infinities,
 * -0.0, values whose exp underflows and a size that ends inside a chunk; and the tanh form, which
 * keeps the general loop, still gives its own formula.
 */
#include "pc_op_test.h"
#include "pc_test.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "precheck/core/convert.h"
#include "precheck/ops/exec.h"

static uint32_t rng = 5;

static pc_tensor make(pc_dtype d, int64_t n, bool specials)
{
    pc_tensor t = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_alloc(&t, d, &n, 1), PC_OK);
    pc_test_fill_varied(&t, &rng);
    if (specials) {
        const double sp[8] = {(double)NAN, HUGE_VAL, -HUGE_VAL, -0.0, 0.0, 40.0, -40.0, 1e-30};
        char *p = pc_tensor_data(&t);
        for (int64_t i = 7; i < n; i += 53)
            pc_element_store(p + (size_t)i * pc_dtype_size(d), d, sp[(i / 53) % 8], 0.0);
    }
    return t;
}

/* The erf form's gradient of one element, as unary_bwd's case writes it. */
static float ref_f(float v, float g)
{
    const float kAlpha = 0.70710678118654752440084436210485f;
    const float kPhi = 0.39894228040143267793994605993438f;
    float cdf = 0.5f * (1.0f + erff(v * kAlpha));
    float pdf = kPhi * expf(-0.5f * v * v);
    return g * (cdf + v * pdf);
}

static double ref_d(double v, double g)
{
    const double kAlpha = 0.70710678118654752440084436210485;
    const double kPhi = 0.39894228040143267793994605993438;
    double cdf = 0.5 * (1.0 + erf(v * kAlpha));
    double pdf = kPhi * exp(-0.5 * v * v);
    return g * (cdf + v * pdf);
}

/* The tanh form's, likewise. */
static double ref_tanh_d(double v, double g)
{
    const double kBeta = 0.79788456080286535587989211986876;
    double x_sq = v * v, x3 = x_sq * v;
    double inner = kBeta * (v + 0.044715 * x3);
    double t = tanh(inner);
    double left = 0.5 * v, right = 1.0 + t;
    double dinner = kBeta * (1.0 + 3.0 * 0.044715 * x_sq);
    return g * (0.5 * right + left * (1.0 - t * t) * dinner);
}

static void check(pc_dtype d, pc_compute compute, bool tanh_form, bool specials)
{
    int64_t n = 3 * 4096 + 1001;
    pc_tensor x = make(d, n, specials), dy = make(d, n, specials);
    pc_op_call c;
    pc_test_op_call(&c, "gelu", "gelu");
    pc_tensor sx = PC_TENSOR_NULL;
    pc_tensor_share(&sx, &x);
    pc_test_op_tensor_arg(&c, 0, sx, true);
    c.args[1].kind = PC_VALUE_STR;
    c.args[1].s = tanh_form ? "tanh" : "none";
    pc_op_grads g;
    memset(&g, 0, sizeof g);
    assert_int_equal(pc_op_backward(&c, compute, &dy, &g), PC_OK);
    const pc_tensor *gx = &g.grads[0];
    assert_int_equal(gx->dtype, d);
    size_t sz = pc_dtype_size(d);
    const char *xp = pc_tensor_data(&x), *dp = pc_tensor_data(&dy), *gp = pc_tensor_data(gx);
    int64_t nan_seen = 0;
    for (int64_t i = 0; i < n; i++) {
        double v, gv;
        pc_element_load(xp + (size_t)i * sz, d, &v, NULL);
        pc_element_load(dp + (size_t)i * sz, d, &gv, NULL);
        double want;
        if (tanh_form)
            want = ref_tanh_d(v, gv);
        else if (compute == PC_COMPUTE_BENCH || d == PC_DTYPE_F64)
            want = ref_d(v, gv);
        else
            want = (double)ref_f((float)v, (float)gv);
        if (tanh_form && compute == PC_COMPUTE_DEVICE)
            continue; /* (the tanh form's float arithmetic is not restated here) */
        /* + 0 (-0 becomes +0) in the compute type, as the engine stores a gradient: on the
         * device after the rounding to the dtype (autograd's), on the bench before the store */
        char wb[8] = {0};
        if (compute == PC_COMPUTE_DEVICE) {
            pc_element_store(wb, d, want, 0.0);
            pc_element_load(wb, d, &want, NULL);
        }
        pc_element_store(wb, d, want + 0.0, 0.0);
        double got;
        pc_element_load(gp + (size_t)i * sz, d, &got, NULL);
        if (isnan(want) && isnan(got)) { /* (a NaN's payload through bfloat16: not compared) */
            nan_seen++;
            if (d == PC_DTYPE_F32)
                assert_memory_equal(gp + (size_t)i * sz, wb, sz);
            continue;
        }
        if (memcmp(gp + (size_t)i * sz, wb, sz) != 0) {
            print_error("gelu backward (%s, %s), element %lld: x %a dy %a: %a, want %a\n",
                        pc_dtype_torch_name(d), compute == PC_COMPUTE_BENCH ? "bench" : "device",
                        (long long)i, v, gv, got, want);
            fail();
        }
    }
    if (specials && !(tanh_form && compute == PC_COMPUTE_DEVICE))
        assert_true(nan_seen > 0);
    pc_op_grads_free(&g);
    pc_op_call_free(&c);
    pc_tensor_free(&x);
    pc_tensor_free(&dy);
}

/* The forward of the erf form (two passes too) against v 0.5 (1 + erf(v / sqrt 2)). */
static void check_forward(pc_dtype d, pc_compute compute)
{
    int64_t n = 2 * 4096 + 777;
    pc_tensor x = make(d, n, true);
    pc_op_call c;
    pc_test_op_call(&c, "gelu", "gelu");
    pc_tensor sx = PC_TENSOR_NULL;
    pc_tensor_share(&sx, &x);
    pc_test_op_tensor_arg(&c, 0, sx, true);
    c.args[1].kind = PC_VALUE_STR;
    c.args[1].s = "none";
    pc_op_result r;
    memset(&r, 0, sizeof r);
    assert_int_equal(pc_op_forward(&c, compute, &r), PC_OK);
    const pc_tensor *y = &r.tensors[0];
    assert_int_equal(y->dtype, d);
    size_t sz = pc_dtype_size(d);
    for (int64_t i = 0; i < n; i++) {
        double v, want;
        pc_element_load((const char *)pc_tensor_data(&x) + (size_t)i * sz, d, &v, NULL);
        if (compute == PC_COMPUTE_BENCH || d == PC_DTYPE_F64) {
            want = v * 0.5 * (1.0 + erf(v * 0.70710678118654752440084436210485));
        } else {
            float vf = (float)v;
            want = (double)(vf * 0.5f * (1.0f + erff(vf * 0.70710678118654752440084436210485f)));
        }
        char wb[8] = {0};
        pc_element_store(wb, d, want, 0.0);
        const char *gp = (const char *)pc_tensor_data(y) + (size_t)i * sz;
        double got;
        pc_element_load(gp, d, &got, NULL);
        if (isnan(want) && isnan(got))
            continue;
        if (memcmp(gp, wb, sz) != 0) {
            print_error("gelu forward (%s, %s), element %lld: x %a: %a, want %a\n",
                        pc_dtype_torch_name(d), compute == PC_COMPUTE_BENCH ? "bench" : "device",
                        (long long)i, v, got, want);
            fail();
        }
    }
    pc_op_result_free(&r);
    pc_op_call_free(&c);
    pc_tensor_free(&x);
}

static void test_forward(void **state)
{
    (void)state;
    const pc_dtype dts[3] = {PC_DTYPE_F32, PC_DTYPE_BF16, PC_DTYPE_F64};
    for (int di = 0; di < 3; di++) {
        check_forward(dts[di], PC_COMPUTE_DEVICE);
        check_forward(dts[di], PC_COMPUTE_BENCH);
    }
}

static void test_erf_form(void **state)
{
    (void)state;
    const pc_dtype dts[2] = {PC_DTYPE_F32, PC_DTYPE_BF16};
    for (int di = 0; di < 2; di++)
        for (int sp = 0; sp < 2; sp++) {
            check(dts[di], PC_COMPUTE_DEVICE, false, sp);
            check(dts[di], PC_COMPUTE_BENCH, false, sp);
        }
    check(PC_DTYPE_F64, PC_COMPUTE_DEVICE, false, true); /* float64: double on both sides */
}

static void test_tanh_form(void **state)
{
    (void)state;
    check(PC_DTYPE_F32, PC_COMPUTE_BENCH, true, true);
    check(PC_DTYPE_F32, PC_COMPUTE_DEVICE, true, true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_erf_form),
        cmocka_unit_test(test_tanh_form),
        cmocka_unit_test(test_forward),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
