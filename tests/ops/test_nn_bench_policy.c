/*
 * The bench policy for convolutions (run_ut.md §5.1): under msprobe's policy conv2d's float32
 * inputs and incoming gradient stay float32 (the runner rounds them to HF32 for both sides),
 * float16/bfloat16 are still raised to float32, and the fp64 policy raises everything; other
 * ops raise float32 to float64 as before. linear raises as its kernel reads: its tensors are
 * shared unconverted and stand for the raised dtype (pc_kernel_dtype), its incoming gradient too;
 * those whose raised copy is small are raised ahead (PC_OP_BENCH_RAISE_SMALL).
 */
#include "pc_op_test.h"
#include "pc_test.h"

#include <string.h>

#include "ops/kernel.h"
#include "precheck/ops/exec.h"

/* x and w of [1, 1, 3, 3], or (big) of [1, 1, 1025, 4096]: a float32 copy of over 16 MB, more
 * than linear raises ahead (PC_BENCH_SMALL_BYTES). */
static void make_call_of(pc_op_call *c, const char *op, pc_dtype dx, pc_dtype dw, bool big)
{
    pc_test_op_call(c, op, "Functional.x.0");
    int64_t s[4] = {1, 1, 3, 3}, sb[4] = {1, 1, 1025, 4096};
    pc_dtype dts[2] = {dx, dw};
    for (int i = 0; i < 2; i++) {
        pc_tensor t = PC_TENSOR_NULL;
        assert_int_equal(pc_tensor_alloc(&t, dts[i], big ? sb : s, 4), PC_OK);
        pc_test_op_tensor_arg(c, i, t, false);
    }
}

static void make_call(pc_op_call *c, const char *op, pc_dtype dx, pc_dtype dw)
{
    make_call_of(c, op, dx, dw, false);
}

static void check(const char *op, pc_dtype dx, pc_dtype dw, pc_bench_policy policy, pc_dtype want_x,
                  pc_dtype want_w, pc_dtype want_grad)
{
    pc_op_call c, b;
    make_call(&c, op, dx, dw);
    assert_int_equal(pc_bench_prepare(&c, policy, &b), PC_OK);
    assert_int_equal(pc_kernel_dtype(&b, &b.args[0].tensor), want_x);
    assert_int_equal(pc_kernel_dtype(&b, &b.args[1].tensor), want_w);
    pc_tensor g = PC_TENSOR_NULL;
    assert_int_equal(pc_bench_prepare_grad(&c, policy, &c.args[0].tensor, &g), PC_OK);
    assert_int_equal(g.dtype, want_grad);
    pc_tensor_free(&g);
    /* what the kernel is given: the raised gradient, or the same one where the kernel raises */
    assert_int_equal(pc_bench_kernel_grad(&c, policy, &c.args[0].tensor, &g), PC_OK);
    if (b.lazy_raise)
        assert_ptr_equal(pc_tensor_data(&g), pc_tensor_data(&c.args[0].tensor));
    else
        assert_int_equal(g.dtype, want_grad);
    pc_tensor_free(&g);
    pc_op_call_free(&b);
    pc_op_call_free(&c);
}

static void test_conv_keeps_f32(void **state)
{
    (void)state;
    check("conv2d", PC_DTYPE_F32, PC_DTYPE_F32, PC_BENCH_MSPROBE, PC_DTYPE_F32, PC_DTYPE_F32,
          PC_DTYPE_F32);
    pc_op_call c;
    make_call(&c, "conv2d", PC_DTYPE_F32, PC_DTYPE_F32);
    assert_int_equal(pc_bench_raise_dtype(&c, PC_BENCH_MSPROBE), PC_DTYPE_INVALID);
    assert_int_equal(pc_bench_raise_dtype(&c, PC_BENCH_FP64), PC_DTYPE_F64);
    pc_op_call_free(&c);
    /* float16 / bfloat16 still raised; mixed: fp16 -> fp32, fp32 stays */
    check("conv2d", PC_DTYPE_F16, PC_DTYPE_F16, PC_BENCH_MSPROBE, PC_DTYPE_F32, PC_DTYPE_F32,
          PC_DTYPE_F32);
    check("conv2d", PC_DTYPE_BF16, PC_DTYPE_F32, PC_BENCH_MSPROBE, PC_DTYPE_F32, PC_DTYPE_F32,
          PC_DTYPE_F32);
    /* the fp64 policy raises every float */
    check("conv2d", PC_DTYPE_F32, PC_DTYPE_F32, PC_BENCH_FP64, PC_DTYPE_F64, PC_DTYPE_F64,
          PC_DTYPE_F64);
    /* other ops: float32 -> float64 */
    check("mm", PC_DTYPE_F32, PC_DTYPE_F32, PC_BENCH_MSPROBE, PC_DTYPE_F64, PC_DTYPE_F64,
          PC_DTYPE_F64);
    check("linear", PC_DTYPE_F32, PC_DTYPE_F32, PC_BENCH_MSPROBE, PC_DTYPE_F64, PC_DTYPE_F64,
          PC_DTYPE_F64);
}

/* linear's large tensors are not copied: the prepared call shares them, and says what they
 * stand for; mixed float dtypes stand for float32 as a whole raise would make them. Small ones
 * (a raised copy of at most PC_BENCH_SMALL_BYTES) are raised ahead: the forward and the
 * backward read that one copy. */
static void test_linear_raises_as_it_reads(void **state)
{
    (void)state;
    pc_op_call c, b;
    make_call_of(&c, "linear", PC_DTYPE_BF16, PC_DTYPE_F32, true);
    assert_int_equal(pc_bench_prepare(&c, PC_BENCH_MSPROBE, &b), PC_OK);
    assert_int_equal(b.lazy_raise, (int)PC_DTYPE_F32 + 1);
    for (int i = 0; i < 2; i++) {
        assert_ptr_equal(pc_tensor_data(&b.args[i].tensor), pc_tensor_data(&c.args[i].tensor));
        assert_int_equal(b.args[i].tensor.dtype, c.args[i].tensor.dtype);
        assert_int_equal(pc_kernel_dtype(&b, &b.args[i].tensor), PC_DTYPE_F32);
    }
    assert_int_equal(pc_kernel_dtype(&c, &c.args[0].tensor), PC_DTYPE_BF16); /* not prepared */
    pc_op_call_free(&b);
    pc_op_call_free(&c);
    /* small: the bfloat16 input raised to a float32 copy, the float32 weight shared as it is */
    make_call(&c, "linear", PC_DTYPE_BF16, PC_DTYPE_F32);
    assert_int_equal(pc_bench_prepare(&c, PC_BENCH_MSPROBE, &b), PC_OK);
    assert_int_equal(b.lazy_raise, (int)PC_DTYPE_F32 + 1);
    assert_int_equal(b.args[0].tensor.dtype, PC_DTYPE_F32);
    assert_ptr_not_equal(pc_tensor_data(&b.args[0].tensor), pc_tensor_data(&c.args[0].tensor));
    assert_ptr_equal(pc_tensor_data(&b.args[1].tensor), pc_tensor_data(&c.args[1].tensor));
    for (int i = 0; i < 2; i++)
        assert_int_equal(pc_kernel_dtype(&b, &b.args[i].tensor), PC_DTYPE_F32);
    pc_op_call_free(&b);
    pc_op_call_free(&c);
    /* float64 inputs: nothing to raise */
    make_call(&c, "linear", PC_DTYPE_F64, PC_DTYPE_F64);
    assert_int_equal(pc_bench_prepare(&c, PC_BENCH_MSPROBE, &b), PC_OK);
    assert_int_equal(b.lazy_raise, 0);
    pc_op_call_free(&b);
    pc_op_call_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv_keeps_f32),
        cmocka_unit_test(test_linear_raises_as_it_reads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
