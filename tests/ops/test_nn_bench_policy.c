/*
 * The bench policy for convolutions (run_ut.md §5.1): under msprobe's policy conv2d's float32
 * inputs and incoming gradient stay float32 (the runner rounds them to HF32 for both sides),
 * float16/bfloat16 are still raised to float32, and the fp64 policy raises everything; other
 * ops raise float32 to float64 as before.
 */
#include "pc_test.h"

#include <string.h>

#include "precheck/ops/exec.h"

static void make_call(pc_op_call *c, const char *op, pc_dtype dx, pc_dtype dw)
{
    memset(c, 0, sizeof *c);
    c->op = pc_op_find(op);
    assert_non_null(c->op);
    c->full_name = "Functional.x.0";
    c->nargs = c->op->schema->nargs;
    for (int i = 0; i < c->nargs; i++) {
        c->args[i].src_pos = -1;
        c->args[i].tensor = PC_TENSOR_NULL;
    }
    int64_t s[4] = {1, 1, 3, 3};
    pc_dtype dts[2] = {dx, dw};
    for (int i = 0; i < 2; i++) {
        c->args[i].kind = PC_VALUE_TENSOR;
        c->args[i].src_pos = i;
        assert_int_equal(pc_tensor_alloc(&c->args[i].tensor, dts[i], s, 4), PC_OK);
    }
}

static void check(const char *op, pc_dtype dx, pc_dtype dw, pc_bench_policy policy, pc_dtype want_x,
                  pc_dtype want_w, pc_dtype want_grad)
{
    pc_op_call c, b;
    make_call(&c, op, dx, dw);
    assert_int_equal(pc_bench_prepare(&c, policy, &b), PC_OK);
    assert_int_equal(b.args[0].tensor.dtype, want_x);
    assert_int_equal(b.args[1].tensor.dtype, want_w);
    pc_tensor g = PC_TENSOR_NULL;
    assert_int_equal(pc_bench_prepare_grad(&c, policy, &c.args[0].tensor, &g), PC_OK);
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
    check("linear", PC_DTYPE_F32, PC_DTYPE_F32, PC_BENCH_MSPROBE, PC_DTYPE_F64, PC_DTYPE_F64,
          PC_DTYPE_F64);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv_keeps_f32),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
