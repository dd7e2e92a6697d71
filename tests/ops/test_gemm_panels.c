/*
 * The bench's linear in panels (src/ops/linalg/gemm.c, a weight or result above 64 MB in double):
 * forward, the three gradients, with and without a bias, against a plain double reference
 * computed here, each rounded once to float32: every value within 1 ULP of float32.
 */
#include "pc_op_test.h"
#include "pc_test.h"

#include <math.h>
#include <string.h>

#include "precheck/ops/exec.h"

enum { M = 6, K = 1024, N = 8300 }; /* the weight in double: 68 MB */

static float val(uint64_t i, uint64_t salt)
{
    uint64_t z = (i + 1) * 0x9e3779b97f4a7c15ULL ^ salt;
    z = (z ^ (z >> 31)) * 0xbf58476d1ce4e5b9ULL;
    return (float)((double)(z >> 40) / (double)(1 << 24) - 0.5);
}

static void fill(pc_tensor *t, uint64_t salt)
{
    float *p = pc_tensor_data(t);
    for (int64_t i = 0; i < pc_tensor_numel(t); i++)
        p[i] = val((uint64_t)i, salt);
}

static void make_call(pc_op_call *c, bool bias)
{
    pc_test_op_call(c, "linear", "Functional.linear.0");
    int64_t xs[3] = {2, M / 2, K}, ws[2] = {N, K}, bs[1] = {N};
    const int64_t *shapes[3] = {xs, ws, bs};
    int ranks[3] = {3, 2, 1};
    for (int i = 0; i < (bias ? 3 : 2); i++) {
        pc_tensor t = PC_TENSOR_NULL;
        assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_F32, shapes[i], ranks[i]), PC_OK);
        fill(&t, (uint64_t)i + 1);
        pc_test_op_tensor_arg(c, i, t, true);
    }
}

static int ulp_off(float got, double want)
{
    float w = (float)want;
    if (got == w)
        return 0;
    return fabsf(got - w) <= fabsf(nextafterf(w, INFINITY) - w) ? 1 : 2;
}

static void check(bool bias)
{
    pc_op_call c;
    make_call(&c, bias);
    const float *x = pc_tensor_data(&c.args[0].tensor), *w = pc_tensor_data(&c.args[1].tensor);
    const float *b = bias ? pc_tensor_data(&c.args[2].tensor) : NULL;
    pc_op_result r = {0};
    assert_int_equal(pc_op_forward(&c, PC_COMPUTE_BENCH, &r), PC_OK);
    assert_int_equal(r.count, 1);
    assert_int_equal(r.tensors[0].rank, 3);
    assert_int_equal(r.tensors[0].shape[2], N);
    const float *y = pc_tensor_data(&r.tensors[0]);
    int worst = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = b ? (double)b[j] : 0;
            for (int k = 0; k < K; k++)
                s += (double)x[i * K + k] * (double)w[j * K + k];
            int u = ulp_off(y[i * N + j], s);
            worst = u > worst ? u : worst;
        }
    assert_true(worst <= 1);

    pc_tensor g = PC_TENSOR_NULL;
    int64_t gs[3] = {2, M / 2, N};
    assert_int_equal(pc_tensor_alloc(&g, PC_DTYPE_F32, gs, 3), PC_OK);
    fill(&g, 99);
    const float *gv = pc_tensor_data(&g);
    pc_op_grads gr = {0};
    assert_int_equal(pc_op_backward(&c, PC_COMPUTE_BENCH, &g, &gr), PC_OK);
    const float *dx = pc_tensor_data(&gr.grads[0]), *dw = pc_tensor_data(&gr.grads[1]);
    assert_int_equal(gr.grads[0].shape[2], K);
    assert_int_equal(gr.grads[1].shape[0], N);
    worst = 0;
    for (int i = 0; i < M; i++)
        for (int k = 0; k < K; k++) {
            double s = 0;
            for (int j = 0; j < N; j++)
                s += (double)gv[i * N + j] * (double)w[j * K + k];
            int u = ulp_off(dx[i * K + k], s);
            worst = u > worst ? u : worst;
        }
    for (int j = 0; j < N; j++)
        for (int k = 0; k < K; k++) {
            double s = 0;
            for (int i = 0; i < M; i++)
                s += (double)gv[i * N + j] * (double)x[i * K + k];
            int u = ulp_off(dw[j * K + k], s);
            worst = u > worst ? u : worst;
        }
    if (bias) {
        const float *db = pc_tensor_data(&gr.grads[2]);
        assert_int_equal(gr.grads[2].rank, 1);
        for (int j = 0; j < N; j++) {
            double s = 0;
            for (int i = 0; i < M; i++)
                s += (double)gv[i * N + j];
            int u = ulp_off(db[j], s);
            worst = u > worst ? u : worst;
        }
    } else {
        assert_true(pc_tensor_is_null(&gr.grads[2]));
    }
    assert_true(worst <= 1);
    pc_op_grads_free(&gr);
    pc_tensor_free(&g);
    pc_op_result_free(&r);
    pc_op_call_free(&c);
}

static void test_panels_bias(void **state)
{
    (void)state;
    check(true);
}

static void test_panels_no_bias(void **state)
{
    (void)state;
    check(false);
}

/* The bench raising its float32 operands as it reads them (lazy_raise: float64 results, the
 * weight gradient computed in the gradient itself) gives the float64 values that, rounded to
 * float32, are the float32 results of the same panels (written through a panel buffer). */
static void test_panels_lazy_float64(void **state)
{
    (void)state;
    pc_op_call c, lazy;
    make_call(&c, true);
    make_call(&lazy, true);
    lazy.lazy_raise = (int)PC_DTYPE_F64 + 1;
    pc_tensor g = PC_TENSOR_NULL;
    int64_t gs[3] = {2, M / 2, N};
    assert_int_equal(pc_tensor_alloc(&g, PC_DTYPE_F32, gs, 3), PC_OK);
    fill(&g, 99);
    pc_op_result r = {0}, rl = {0};
    pc_op_grads gr = {0}, gl = {0};
    assert_int_equal(pc_op_forward(&c, PC_COMPUTE_BENCH, &r), PC_OK);
    assert_int_equal(pc_op_forward(&lazy, PC_COMPUTE_BENCH, &rl), PC_OK);
    assert_int_equal(pc_op_backward(&c, PC_COMPUTE_BENCH, &g, &gr), PC_OK);
    assert_int_equal(pc_op_backward(&lazy, PC_COMPUTE_BENCH, &g, &gl), PC_OK);
    const pc_tensor *f32[4] = {&r.tensors[0], &gr.grads[0], &gr.grads[1], &gr.grads[2]};
    const pc_tensor *f64[4] = {&rl.tensors[0], &gl.grads[0], &gl.grads[1], &gl.grads[2]};
    for (int t = 0; t < 4; t++) {
        assert_int_equal(f32[t]->dtype, PC_DTYPE_F32);
        assert_int_equal(f64[t]->dtype, PC_DTYPE_F64);
        int64_t n = pc_tensor_numel(f32[t]);
        assert_int_equal(pc_tensor_numel(f64[t]), n);
        const float *a = pc_tensor_data(f32[t]);
        const double *b = pc_tensor_data(f64[t]);
        for (int64_t i = 0; i < n; i++) {
            float rb = (float)b[i];
            assert_memory_equal(&a[i], &rb, sizeof rb);
        }
    }
    pc_op_grads_free(&gr);
    pc_op_grads_free(&gl);
    pc_op_result_free(&r);
    pc_op_result_free(&rl);
    pc_tensor_free(&g);
    pc_op_call_free(&c);
    pc_op_call_free(&lazy);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_panels_bias),
        cmocka_unit_test(test_panels_no_bias),
        cmocka_unit_test(test_panels_lazy_float64),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
