/*
 * dropout's random masks (the golden test covers only its deterministic cases): the share of
 * zeros is p, survivors are scaled by 1 / (1 - p), the same call gives the same mask, the
 * device and the bench draw different masks, another seed another mask, the backward uses
 * the forward's mask, and dropout2d zeroes whole channel planes.
 */
#include "pc_op_test.h"
#include "pc_test.h"

#include <math.h>
#include <string.h>

#include "precheck/backends/backend.h"
#include "precheck/ops/exec.h"

static void make_call(pc_op_call *c, const char *op, const pc_tensor *x, double p)
{
    pc_test_op_call(c, op, "Functional.dropout.0");
    c->seed = 1234;
    pc_tensor shared = PC_TENSOR_NULL;
    pc_tensor_share(&shared, x);
    pc_test_op_tensor_arg(c, 0, shared, true);
    c->args[1].kind = PC_VALUE_FLOAT;
    c->args[1].f = p;
    c->args[2].kind = PC_VALUE_BOOL;
    c->args[2].b = true;
    c->args[3].kind = PC_VALUE_BOOL;
}

static pc_tensor ones(pc_dtype dt, const int64_t *shape, int rank)
{
    pc_tensor t = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_alloc(&t, dt, shape, rank), PC_OK);
    pc_tensor_fill(&t, 1.0);
    return t;
}

static int64_t zeros_of(const pc_tensor *t)
{
    int64_t z = 0;
    const float *v = pc_tensor_data(t);
    for (int64_t i = 0; i < pc_tensor_numel(t); i++)
        z += v[i] == 0.0f;
    return z;
}

static void test_dropout_masks(void **state)
{
    (void)state;
    int64_t n = 200000;
    pc_tensor x = ones(PC_DTYPE_F32, &n, 1);
    pc_op_call c;
    make_call(&c, "dropout", &x, 0.3);
    pc_op_result a = {0}, b = {0}, bench = {0};
    assert_int_equal(pc_op_forward(&c, PC_COMPUTE_DEVICE, &a), PC_OK);
    assert_int_equal(pc_op_forward(&c, PC_COMPUTE_DEVICE, &b), PC_OK);
    assert_int_equal(pc_op_forward(&c, PC_COMPUTE_BENCH, &bench), PC_OK);
    assert_int_equal(a.tensors[0].dtype, PC_DTYPE_F32);
    double share = (double)zeros_of(&a.tensors[0]) / (double)n;
    assert_true(fabs(share - 0.3) < 0.01);
    const float *va = pc_tensor_data(&a.tensors[0]), *vb = pc_tensor_data(&b.tensors[0]);
    const float *vc = pc_tensor_data(&bench.tensors[0]);
    int64_t differ = 0;
    for (int64_t i = 0; i < n; i++) {
        assert_true(va[i] == 0.0f || va[i] == 1.0f / 0.7f);
        assert_true(va[i] == vb[i]); /* the same call: the same mask */
        differ += (va[i] == 0.0f) != (vc[i] == 0.0f);
    }
    assert_true(differ > n / 10); /* device and bench draw their own masks */
    double bshare = (double)zeros_of(&bench.tensors[0]) / (double)n;
    assert_true(fabs(bshare - 0.3) < 0.01);

    /* another seed, another mask */
    pc_op_result d = {0};
    c.seed = 99;
    assert_int_equal(pc_op_forward(&c, PC_COMPUTE_DEVICE, &d), PC_OK);
    assert_memory_not_equal(pc_tensor_data(&d.tensors[0]), va, (size_t)n * sizeof(float));
    c.seed = 1234;

    /* the backward zeroes and scales where the forward did */
    pc_tensor g = ones(PC_DTYPE_F32, &n, 1);
    pc_op_grads gr = {0};
    assert_int_equal(pc_op_backward(&c, PC_COMPUTE_DEVICE, &g, &gr), PC_OK);
    assert_memory_equal(pc_tensor_data(&gr.grads[0]), va, (size_t)n * sizeof(float));

    pc_op_grads_free(&gr);
    pc_tensor_free(&g);
    pc_op_result_free(&a);
    pc_op_result_free(&b);
    pc_op_result_free(&bench);
    pc_op_result_free(&d);
    pc_op_call_free(&c);
    pc_tensor_free(&x);
}

static void test_dropout2d_planes(void **state)
{
    (void)state;
    int64_t shape[4] = {4, 50, 3, 5};
    pc_tensor x = ones(PC_DTYPE_F32, shape, 4);
    pc_op_call c;
    make_call(&c, "dropout2d", &x, 0.5);
    pc_op_result r = {0};
    assert_int_equal(pc_op_forward(&c, PC_COMPUTE_DEVICE, &r), PC_OK);
    const float *v = pc_tensor_data(&r.tensors[0]);
    int planes_zero = 0;
    for (int p = 0; p < 200; p++) {
        for (int i = 1; i < 15; i++)
            assert_true(v[p * 15 + i] == v[p * 15]); /* a plane is kept or dropped whole */
        planes_zero += v[p * 15] == 0.0f;
    }
    assert_true(planes_zero > 60 && planes_zero < 140);
    pc_op_result_free(&r);
    pc_op_call_free(&c);
    pc_tensor_free(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dropout_masks),
        cmocka_unit_test(test_dropout2d_planes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
