/*
 * layer_norm (forward and backward) and softmax/log_softmax's backward run a copy of their
 * kernels compiled with the FMA instructions where the CPU has them (norm.c): fma() becomes one
 * instruction instead of a call into libm, and nothing else may change. Each case runs on the
 * device (float32 opmath) and on the bench (float64), with the FMA copies allowed and not
 * (pc_norm_allow_fma), and the results and gradients must have the same bits: the copies round
 * alike and contract nothing else. Rows shorter than a vector, not a multiple of one, long ones
 * in several blocks on the threads, weight and bias or neither, softmax over the last dim and
 * over another. (On a CPU without FMA both runs take the plain copies.)
 */
#include "pc_op_test.h"
#include "pc_test.h"

#include <stdio.h>
#include <string.h>

#include "ops/norm/norm_impl.h"
#include "precheck/ops/exec.h"

static uint32_t rng = 5;

static void tensor_arg(pc_op_call *c, int i, pc_dtype dt, const int64_t *shape, int rank)
{
    pc_tensor t = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_alloc(&t, dt, shape, rank), PC_OK);
    pc_test_fill_varied(&t, &rng);
    pc_test_op_tensor_arg(c, i, t, true);
}

static void assert_same(const pc_tensor *a, const pc_tensor *b, const char *what)
{
    assert_int_equal(a->dtype, b->dtype);
    assert_true(pc_tensor_same_shape(a, b));
    if (memcmp(pc_tensor_data(a), pc_tensor_data(b), pc_tensor_nbytes(a)) != 0)
        fail_msg("%s: the FMA copy computes other bits than the plain one", what);
}

/* The call's forward and backward (gradient dy of the output's shape) in compute mode, with
 * the FMA copies allowed or not. */
static void run(const pc_op_call *c, pc_compute compute, bool fma, const pc_tensor *dy,
                pc_op_result *r, pc_op_grads *g)
{
    pc_norm_allow_fma(fma);
    assert_int_equal(pc_op_forward(c, compute, r), PC_OK);
    assert_int_equal(pc_op_backward(c, compute, dy, g), PC_OK);
    pc_norm_allow_fma(true);
}

static void check(const pc_op_call *c, const char *what)
{
    static const pc_compute modes[] = {PC_COMPUTE_DEVICE, PC_COMPUTE_BENCH};
    for (int m = 0; m < 2; m++) {
        pc_op_result r0 = {0}, r1 = {0};
        pc_op_grads g0 = {0}, g1 = {0};
        pc_norm_allow_fma(false);
        assert_int_equal(pc_op_forward(c, modes[m], &r0), PC_OK);
        pc_norm_allow_fma(true);
        pc_tensor dy = PC_TENSOR_NULL;
        const pc_tensor *y = &r0.tensors[0];
        assert_int_equal(pc_tensor_alloc(&dy, y->dtype, y->shape, y->rank), PC_OK);
        pc_test_fill_varied(&dy, &rng);
        pc_op_result_free(&r0);
        run(c, modes[m], false, &dy, &r0, &g0);
        run(c, modes[m], true, &dy, &r1, &g1);
        char name[96];
        snprintf(name, sizeof name, "%s (%s) forward", what, m ? "bench" : "device");
        assert_same(&r0.tensors[0], &r1.tensors[0], name);
        int seen = 0;
        for (int i = 0; i < PC_SCHEMA_MAX_ARGS; i++) {
            assert_int_equal(g0.grads[i].storage != NULL, g1.grads[i].storage != NULL);
            if (!g0.grads[i].storage)
                continue;
            snprintf(name, sizeof name, "%s (%s) gradient %d", what, m ? "bench" : "device", i);
            assert_same(&g0.grads[i], &g1.grads[i], name);
            seen++;
        }
        assert_true(seen > 0);
        pc_tensor_free(&dy);
        pc_op_result_free(&r0);
        pc_op_result_free(&r1);
        pc_op_grads_free(&g0);
        pc_op_grads_free(&g1);
    }
}

static void layer_norm_case(pc_dtype dt, int64_t rows, int64_t n, bool affine)
{
    pc_op_call c;
    pc_test_op_call(&c, "layer_norm", "Functional.layer_norm.0");
    int64_t shape[2] = {rows, n};
    tensor_arg(&c, 0, dt, shape, 2);
    c.args[1].kind = PC_VALUE_INT_LIST;
    c.args[1].nints = 1;
    c.args[1].ints[0] = n;
    if (affine) {
        tensor_arg(&c, 2, dt, &n, 1);
        tensor_arg(&c, 3, dt, &n, 1);
    }
    c.args[4].kind = PC_VALUE_FLOAT;
    c.args[4].f = 1e-5;
    char what[64];
    snprintf(what, sizeof what, "layer_norm [%lld, %lld]", (long long)rows, (long long)n);
    check(&c, what);
    pc_op_call_free(&c);
}

static void test_layer_norm(void **state)
{
    (void)state;
    static const int64_t ns[] = {1, 3, 8, 13, 64, 300, 512};
    for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
        layer_norm_case(PC_DTYPE_F32, 5, ns[k], true);
        layer_norm_case(PC_DTYPE_F32, 4, ns[k], false);
        layer_norm_case(PC_DTYPE_F64, 3, ns[k], true);
        layer_norm_case(PC_DTYPE_BF16, 3, ns[k], true);
    }
    layer_norm_case(PC_DTYPE_F32, 512, 512, true); /* blocks of rows, on the threads */
}

static void softmax_case(const char *op, pc_dtype dt, const int64_t *shape, int rank, int64_t dim)
{
    pc_op_call c;
    pc_test_op_call(&c, op, "Functional.softmax.0");
    tensor_arg(&c, 0, dt, shape, rank);
    c.args[1].kind = PC_VALUE_INT;
    c.args[1].i = dim;
    char what[64];
    snprintf(what, sizeof what, "%s dim %lld", op, (long long)dim);
    check(&c, what);
    pc_op_call_free(&c);
}

static void test_softmax_backward(void **state)
{
    (void)state;
    static const char *const ops[] = {"softmax", "log_softmax"};
    static const int64_t ns[] = {3, 8, 13, 256};
    for (size_t o = 0; o < 2; o++)
        for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
            int64_t s[3] = {2, 5, ns[k]};
            softmax_case(ops[o], PC_DTYPE_F32, s, 3, -1);
            softmax_case(ops[o], PC_DTYPE_F32, s, 3, 1); /* not the last dim */
            softmax_case(ops[o], PC_DTYPE_F64, s, 3, -1);
            softmax_case(ops[o], PC_DTYPE_F16, s, 3, -1);
        }
    int64_t big[3] = {4, 256, 256};
    softmax_case("softmax", PC_DTYPE_F32, big, 3, -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layer_norm),
        cmocka_unit_test(test_softmax_backward),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
