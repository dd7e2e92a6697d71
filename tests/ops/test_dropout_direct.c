/*
 * dropout reads a contiguous float32 input and scales it in one pass (src/ops/nn/nn_misc.c,
 * drop_scale_ff/_fd: the device's float32 and the bench's float64 from a float32 input); any
 * other input is read into the result first and scaled there (pc_kernel_read, then
 * drop_scale_f/_d). The one-pass path must give the bits of the other: dropout of a contiguous
 * tensor (the one pass) against dropout of a transposed view of the same values (strided: read
 * first), forward and backward, on the device and the bench, with NaN, infinities and -0.0 among
 * the values, over several mask blocks and a partial last one; a bfloat16 input (read first in
 * both layouts) the same way. The masks are the same draws (the same call name and seed).
 */
#include "pc_op_test.h"
#include "pc_test.h"

#include <math.h>
#include <string.h>

#include "precheck/core/convert.h"
#include "precheck/ops/exec.h"

static uint32_t rng = 11;

static pc_op_call make_call(const pc_tensor *x)
{
    pc_op_call c;
    pc_test_op_call(&c, "dropout", "Functional.dropout.0");
    pc_tensor sx = PC_TENSOR_NULL;
    pc_tensor_share(&sx, x);
    pc_test_op_tensor_arg(&c, 0, sx, true);
    c.args[1].kind = PC_VALUE_FLOAT;
    c.args[1].f = 0.1;
    c.args[2].kind = PC_VALUE_BOOL;
    c.args[2].b = true;
    c.args[3].kind = PC_VALUE_BOOL;
    c.args[3].b = false;
    return c;
}

static void assert_same(const pc_tensor *a, const pc_tensor *b)
{
    assert_int_equal(a->dtype, b->dtype);
    assert_true(pc_tensor_same_shape(a, b));
    pc_tensor ca = PC_TENSOR_NULL, cb = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_contiguous(&ca, a), PC_OK);
    assert_int_equal(pc_tensor_contiguous(&cb, b), PC_OK);
    assert_memory_equal(pc_tensor_data(&ca), pc_tensor_data(&cb), pc_tensor_nbytes(&ca));
    pc_tensor_free(&ca);
    pc_tensor_free(&cb);
}

/* dropout of x [R, C] laid out contiguous and as the transpose of a [C, R] tensor. */
static void check(pc_dtype d, pc_compute compute)
{
    int64_t R = 45, C = 101; /* 4545 elements: 4 mask blocks of 1024 and a partial one */
    int64_t tshape[2] = {C, R}, shape[2] = {R, C};
    pc_tensor base = PC_TENSOR_NULL, xt = PC_TENSOR_NULL, xc = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_alloc(&base, d, tshape, 2), PC_OK);
    pc_test_fill_varied(&base, &rng);
    const double sp[5] = {(double)NAN, HUGE_VAL, -HUGE_VAL, -0.0, 0.0};
    char *bp = pc_tensor_data(&base);
    for (int64_t i = 2; i < R * C; i += 37)
        pc_element_store(bp + (size_t)i * pc_dtype_size(d), d, sp[(i / 37) % 5], 0.0);
    assert_int_equal(pc_tensor_transpose(&xt, &base, 0, 1), PC_OK);
    assert_false(pc_tensor_is_contiguous(&xt));
    assert_int_equal(pc_tensor_cast(&xc, &xt, d), PC_OK);
    pc_tensor dy = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_alloc(&dy, d, shape, 2), PC_OK);
    pc_test_fill_varied(&dy, &rng);
    pc_tensor dyt = PC_TENSOR_NULL, dybase = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_transpose(&dybase, &dy, 0, 1), PC_OK);
    assert_int_equal(pc_tensor_contiguous(&dyt, &dybase), PC_OK); /* [C, R] contiguous */
    pc_tensor_free(&dybase);
    assert_int_equal(pc_tensor_transpose(&dybase, &dyt, 0, 1), PC_OK); /* dy's values, strided */

    pc_op_call cc = make_call(&xc), ct = make_call(&xt);
    pc_op_result rc, rt;
    pc_op_grads gc, gt;
    memset(&rc, 0, sizeof rc);
    memset(&rt, 0, sizeof rt);
    memset(&gc, 0, sizeof gc);
    memset(&gt, 0, sizeof gt);
    assert_int_equal(pc_op_forward(&cc, compute, &rc), PC_OK);
    assert_int_equal(pc_op_forward(&ct, compute, &rt), PC_OK);
    assert_same(&rc.tensors[0], &rt.tensors[0]);
    /* not vacuous: some elements dropped, some kept and scaled */
    const pc_tensor *y = &rc.tensors[0];
    int64_t zeros = 0, scaled = 0;
    for (int64_t i = 0; i < R * C; i++) {
        double yv, xv;
        pc_element_load((const char *)pc_tensor_data(y) + (size_t)i * pc_dtype_size(d), d, &yv,
                        NULL);
        pc_element_load((const char *)pc_tensor_data(&xc) + (size_t)i * pc_dtype_size(d), d, &xv,
                        NULL);
        zeros += yv == 0 && isfinite(xv) && xv != 0;
        scaled += yv != 0 && isfinite(yv) && yv != xv;
    }
    assert_true(zeros > 0 && scaled > 0);
    /* backward: the contiguous gradient (one pass) against the strided one */
    assert_int_equal(pc_op_backward(&cc, compute, &dy, &gc), PC_OK);
    assert_int_equal(pc_op_backward(&ct, compute, &dybase, &gt), PC_OK);
    assert_same(&gc.grads[0], &gt.grads[0]);

    pc_op_result_free(&rc);
    pc_op_result_free(&rt);
    pc_op_grads_free(&gc);
    pc_op_grads_free(&gt);
    pc_op_call_free(&cc);
    pc_op_call_free(&ct);
    pc_tensor_free(&base);
    pc_tensor_free(&xt);
    pc_tensor_free(&xc);
    pc_tensor_free(&dy);
    pc_tensor_free(&dyt);
    pc_tensor_free(&dybase);
}

static void test_one_pass_is_read_then_scale(void **state)
{
    (void)state;
    check(PC_DTYPE_F32, PC_COMPUTE_DEVICE);
    check(PC_DTYPE_F32, PC_COMPUTE_BENCH);
    check(PC_DTYPE_BF16, PC_COMPUTE_DEVICE);
    check(PC_DTYPE_BF16, PC_COMPUTE_BENCH);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_pass_is_read_then_scale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
