/*
 * dropout reads its input and applies its mask a block of units at a time (nn_misc.c): every
 * element must still be what the mask's definition gives, whatever block it falls in. Unit u
 * (an element; for dropout2d a channel plane) is kept when pc_rng_uniform(u, float64) of the
 * stream keyed "<full name>/dropout/<device|bench>" is >= p, and then scaled by 1 / (1 - p) in
 * the compute dtype, else multiplied by 0. Checked bit for bit on the device (float32) and the
 * bench (float64; the float32 input widened as it is read), for sizes below, at and across the
 * block, a transposed (strided) input, bfloat16, p = 1, and the backward (the same mask on the
 * incoming gradient).
 */
#include "pc_op_test.h"
#include "pc_test.h"

#include <stdio.h>
#include <string.h>

#include "precheck/core/convert.h"
#include "precheck/core/rng.h"
#include "precheck/ops/exec.h"

#define NAME "Functional.dropout.3"

static uint32_t rng = 11;

/* The expected value of element i (flat, row-major) of x's values xv (in the compute dtype's
 * double) with unit size unit. */
static double expect(const pc_rng_stream *s, double p, int64_t unit, int64_t i, double xv, bool dbl)
{
    bool keep = p < 1 && pc_rng_uniform(s, (uint64_t)(i / unit), PC_DTYPE_F64) >= p;
    if (dbl)
        return xv * (keep ? 1.0 / (1.0 - p) : 0.0);
    float f = (float)xv * (keep ? 1.0f / (float)(1.0 - p) : 0.0f);
    return (double)f;
}

/* Checks y (dtype od) = x's mask applied, x read flat in row-major order. */
static void check_masked(const pc_tensor *x, const pc_tensor *y, pc_compute compute, double p,
                         int64_t unit, const char *what)
{
    pc_rng_stream s;
    char key[128];
    snprintf(key, sizeof key, "%s/dropout/%s", NAME,
             compute == PC_COMPUTE_BENCH ? "bench" : "device");
    pc_rng_stream_init(&s, 1234, key);
    bool dbl = compute == PC_COMPUTE_BENCH;
    pc_tensor xc = PC_TENSOR_NULL, yd = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_cast(&xc, x, dbl ? PC_DTYPE_F64 : PC_DTYPE_F32), PC_OK);
    assert_int_equal(pc_tensor_cast(&yd, y, PC_DTYPE_F64), PC_OK);
    int64_t n = pc_tensor_numel(x);
    for (int64_t i = 0; i < n; i++) {
        double xv = dbl ? ((const double *)pc_tensor_data(&xc))[i]
                        : (double)((const float *)pc_tensor_data(&xc))[i];
        double want = expect(&s, p, unit, i, xv, dbl);
        if (y->dtype == PC_DTYPE_F32) { /* the result rounded to its dtype */
            want = (double)(float)want;
        } else if (y->dtype == PC_DTYPE_BF16) {
            uint16_t h;
            float f = (float)want;
            pc_convert_f32_to_bf16(&h, &f, 1);
            pc_convert_bf16_to_f32(&f, &h, 1);
            want = (double)f;
        }
        double got = ((const double *)pc_tensor_data(&yd))[i];
        if (memcmp(&want, &got, sizeof want) != 0)
            fail_msg("%s: element %lld is %.17g, the mask gives %.17g", what, (long long)i, got,
                     want);
    }
    pc_tensor_free(&xc);
    pc_tensor_free(&yd);
}

static void run_case(const char *op, pc_dtype dt, const int64_t *shape, int rank, double p,
                     bool transposed, int64_t unit)
{
    pc_op_call c;
    pc_test_op_call(&c, op, NAME);
    c.seed = 1234;
    pc_tensor x = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_alloc(&x, dt, shape, rank), PC_OK);
    pc_test_fill_varied(&x, &rng);
    if (transposed) {
        pc_tensor t = PC_TENSOR_NULL;
        assert_int_equal(pc_tensor_transpose(&t, &x, rank - 2, rank - 1), PC_OK);
        pc_tensor_free(&x);
        x = t;
    }
    pc_test_op_tensor_arg(&c, 0, x, true);
    c.args[1].kind = PC_VALUE_FLOAT;
    c.args[1].f = p;
    c.args[2].kind = PC_VALUE_BOOL;
    c.args[2].b = true;
    c.args[3].kind = PC_VALUE_BOOL;
    const pc_tensor *xa = &c.args[0].tensor;
    char what[96];
    /* the device, and the bench as run_ut prepares it (float32 left to the kernel's read) */
    pc_op_call b;
    assert_int_equal(pc_bench_prepare(&c, PC_BENCH_MSPROBE, &b), PC_OK);
    for (int m = 0; m < 2; m++) {
        pc_compute compute = m ? PC_COMPUTE_BENCH : PC_COMPUTE_DEVICE;
        const pc_op_call *k = m ? &b : &c;
        pc_op_result r = {0};
        assert_int_equal(pc_op_forward(k, compute, &r), PC_OK);
        snprintf(what, sizeof what, "%s %s %lld elements%s, p %g, forward", op,
                 m ? "bench" : "device", (long long)pc_tensor_numel(xa),
                 transposed ? " (transposed)" : "", p);
        check_masked(xa, &r.tensors[0], compute, p, unit, what);
        /* the backward: the same mask on the incoming gradient */
        pc_tensor g = PC_TENSOR_NULL;
        assert_int_equal(pc_tensor_alloc(&g, xa->dtype, xa->shape, xa->rank), PC_OK);
        pc_test_fill_varied(&g, &rng);
        pc_op_grads gr = {0};
        assert_int_equal(pc_op_backward(k, compute, &g, &gr), PC_OK);
        snprintf(what, sizeof what, "%s %s backward", op, m ? "bench" : "device");
        check_masked(&g, &gr.grads[0], compute, p, unit, what);
        pc_op_grads_free(&gr);
        pc_tensor_free(&g);
        pc_op_result_free(&r);
    }
    pc_op_call_free(&b);
    pc_op_call_free(&c);
}

static void test_dropout_blocks(void **state)
{
    (void)state;
    static const int64_t ns[] = {1, 255, 256, 1023, 1024, 1025, 3000, 70000};
    for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
        run_case("dropout", PC_DTYPE_F32, &ns[k], 1, 0.1, false, 1);
        run_case("dropout", PC_DTYPE_F32, &ns[k], 1, 0.5, false, 1);
    }
    int64_t s2[2] = {37, 90};
    run_case("dropout", PC_DTYPE_F32, s2, 2, 0.3, true, 1); /* strided */
    run_case("dropout", PC_DTYPE_BF16, s2, 2, 0.3, false, 1);
    run_case("dropout", PC_DTYPE_F32, s2, 2, 1.0, false, 1);
    /* dropout2d: a draw per channel plane; planes across blocks */
    int64_t s4[4] = {3, 700, 2, 3};
    run_case("dropout2d", PC_DTYPE_F32, s4, 4, 0.4, false, 6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dropout_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
