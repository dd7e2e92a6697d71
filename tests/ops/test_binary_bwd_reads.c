/*
 * The backward of add, sub, mul and true division (src/ops/pointwise/binary.c) gathers only the
 * inputs its gradients read (binary_bwd_reads): add's and sub's none, mul's the other input,
 * division's b for da and both for db. The gradients must be, bit for bit, the formulas written
 * here element by element (float on the device, double on the bench; a gradient stored as dy
 * times the factor, plus 0; a NaN as any NaN), for every combination of wanted gradients (a alone,
 * b alone, both), with -0.0, NaN and infinities among the values and a size that ends inside a
 * chunk.
 */
#include "pc_op_test.h"
#include "pc_test.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "precheck/core/convert.h"
#include "precheck/ops/exec.h"

static uint32_t rng = 77;

static pc_tensor make(const int64_t *shape, int rank)
{
    pc_tensor t = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_F32, shape, rank), PC_OK);
    pc_test_fill_varied(&t, &rng);
    float *p = pc_tensor_data(&t);
    const float sp[5] = {-0.0f, NAN, INFINITY, -INFINITY, 0.0f};
    for (int64_t i = 5; i < pc_tensor_numel(&t); i += 61)
        p[i] = sp[(i / 61) % 5];
    return t;
}

typedef enum which { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OPS } which;

/* alpha, read at run time as the kernel reads it (not folded into the expressions) */
static volatile double alpha = 1.0;

/* The gradients of a and b at one element, in double (the bench) or float (the device). */
static void grads_d(which op, double a, double b, double g, double *ga, double *gb)
{
    switch (op) {
    case OP_ADD:
        *ga = g;
        *gb = alpha * g;
        break;
    case OP_SUB:
        *ga = g;
        *gb = -alpha * g;
        break;
    case OP_MUL:
        *ga = g * b;
        *gb = g * a;
        break;
    default:
        *ga = g / b;
        *gb = -g * a / (b * b);
        break;
    }
    *ga += 0.0;
    *gb += 0.0;
}

static void grads_f(which op, float a, float b, float g, float *ga, float *gb)
{
    switch (op) {
    case OP_ADD:
        *ga = g;
        *gb = (float)alpha * g;
        break;
    case OP_SUB:
        *ga = g;
        *gb = -(float)alpha * g;
        break;
    case OP_MUL:
        *ga = g * b;
        *gb = g * a;
        break;
    default:
        *ga = g / b;
        *gb = -g * a / (b * b);
        break;
    }
    *ga += 0.0f;
    *gb += 0.0f;
}

static void check(which op, bool want_a, bool want_b, pc_compute compute)
{
    static const char *names[OPS] = {"add", "sub", "mul", "div"};
    int64_t shape[2] = {37, 301}; /* 11137 elements: 3 chunks, the last one partial */
    pc_tensor a = make(shape, 2), b = make(shape, 2), dy = make(shape, 2);
    pc_op_call c;
    pc_test_op_call(&c, names[op], names[op]);
    pc_tensor sa = PC_TENSOR_NULL, sb = PC_TENSOR_NULL;
    pc_tensor_share(&sa, &a);
    pc_tensor_share(&sb, &b);
    pc_test_op_tensor_arg(&c, 0, sa, want_a);
    pc_test_op_tensor_arg(&c, 1, sb, want_b);
    int ia = pc_schema_find_arg(c.op->schema, "alpha");
    if (ia >= 0) {
        c.args[ia].kind = PC_VALUE_INT;
        c.args[ia].i = 1;
        c.args[ia].f = 1.0;
    }
    pc_op_grads g;
    memset(&g, 0, sizeof g);
    assert_int_equal(pc_op_backward(&c, compute, &dy, &g), PC_OK);
    assert_int_equal(pc_tensor_is_null(&g.grads[0]), !want_a);
    assert_int_equal(pc_tensor_is_null(&g.grads[1]), !want_b);
    const float *ap = pc_tensor_data(&a), *bp = pc_tensor_data(&b), *dp = pc_tensor_data(&dy);
    for (int64_t i = 0; i < pc_tensor_numel(&a); i++) {
        float want[2];
        if (compute == PC_COMPUTE_BENCH) {
            double wa, wb;
            grads_d(op, (double)ap[i], (double)bp[i], (double)dp[i], &wa, &wb);
            want[0] = (float)wa;
            want[1] = (float)wb;
        } else {
            grads_f(op, ap[i], bp[i], dp[i], &want[0], &want[1]);
        }
        for (int side = 0; side < 2; side++) {
            const pc_tensor *gt = &g.grads[side];
            if (pc_tensor_is_null(gt))
                continue;
            assert_int_equal(gt->dtype, PC_DTYPE_F32);
            float got = ((const float *)pc_tensor_data(gt))[i];
            /* which NaN operand a product of two NaNs keeps is the compiler's choice (the
             * Debug and Release builds differ): a NaN only has to be a NaN */
            bool same = isnan(want[side]) ? isnan(got) : memcmp(&got, &want[side], 4) == 0;
            if (!same) {
                print_error("%s backward (%s), gradient of %c at %lld: %a, want %a\n", names[op],
                            compute == PC_COMPUTE_BENCH ? "bench" : "device", side ? 'b' : 'a',
                            (long long)i, (double)got, (double)want[side]);
                fail();
            }
        }
    }
    pc_op_grads_free(&g);
    pc_op_call_free(&c);
    pc_tensor_free(&a);
    pc_tensor_free(&b);
    pc_tensor_free(&dy);
}

static void test_every_combination(void **state)
{
    (void)state;
    for (int op = 0; op < OPS; op++)
        for (int w = 1; w < 4; w++) {
            check((which)op, w & 1, (w & 2) != 0, PC_COMPUTE_DEVICE);
            check((which)op, w & 1, (w & 2) != 0, PC_COMPUTE_BENCH);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_combination),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
