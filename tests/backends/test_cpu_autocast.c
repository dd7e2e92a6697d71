/*
 * The reference device's autocast (backends/cpu_autocast.c) follows each op's AMP class, a
 * column of its row (PC_OP_AMP_LOWER, PC_OP_AMP_FP32): under bfloat16 autocast a GEMM-like op
 * (linear) of float32 tensors computes and returns bfloat16, a precision-sensitive one (exp,
 * softmax) of bfloat16 tensors returns float32, any other op (add, relu) keeps its dtypes; and
 * without autocast every op keeps its dtypes. The classes are those of torch's AMP lists.
 */
#include "pc_test.h"

#include <stdbool.h>
#include <string.h>

#include "precheck/backends/backend.h"
#include "precheck/core/tensor.h"
#include "precheck/ops/call.h"
#include "precheck/ops/op.h"
#include "precheck/ops/schema.h"

static pc_backend cpu;

static int setup(void **state)
{
    (void)state;
    return pc_backend_open(&cpu, pc_backend_find("cpu"), NULL, NULL) == PC_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    pc_backend_close(&cpu);
    return 0;
}

static void tensor_arg(pc_op_call *c, int i, pc_dtype dtype, int64_t rows, int64_t cols)
{
    int64_t shape[2] = {rows, cols};
    pc_value *v = &c->args[i];
    v->kind = PC_VALUE_TENSOR;
    assert_int_equal(pc_tensor_alloc(&v->tensor, dtype, shape, 2), PC_OK);
}

/* The dtype of op's first output for its tensor arguments of the given dtypes (NULL-ended),
 * under autocast to `autocast` (PC_DTYPE_INVALID: none). */
static pc_dtype result_dtype(const char *name, pc_dtype autocast, const pc_dtype *dtypes)
{
    const pc_op *op = pc_op_find(name);
    assert_non_null(op);
    pc_op_call c;
    pc_op_call_init(&c, op, PC_FORM_PLAIN, name);
    int t = 0;
    for (int i = 0; i < c.nargs && dtypes[t] != PC_DTYPE_INVALID; i++)
        if (op->schema->args[i].type == PC_ARG_TENSOR && !op->schema->args[i].is_list &&
            !op->schema->args[i].optional)
            tensor_arg(&c, i, dtypes[t++], 2, 2);
    if (strcmp(name, "softmax") == 0) { /* dim=-1 */
        c.args[1].kind = PC_VALUE_INT;
        c.args[1].i = -1;
    }
    c.autocast = autocast == PC_DTYPE_INVALID ? 0 : 1 + (int)autocast;
    pc_op_result r = {0};
    if (pc_backend_forward(&cpu, &c, &r) != PC_OK)
        fail_msg("%s: %s", name, pc_error_message());
    pc_dtype d = r.tensors[0].dtype;
    pc_op_result_free(&r);
    pc_op_call_free(&c);
    return d;
}

#define DT(...) ((const pc_dtype[]){__VA_ARGS__, PC_DTYPE_INVALID})

static void test_amp_classes_are_op_rows(void **state)
{
    (void)state;
    assert_true(pc_op_find("linear")->rules & PC_OP_AMP_LOWER);
    assert_true(pc_op_find("conv2d")->rules & PC_OP_AMP_LOWER);
    assert_true(pc_op_find("exp")->rules & PC_OP_AMP_FP32);
    assert_true(pc_op_find("softmax")->rules & PC_OP_AMP_FP32);
    assert_true(pc_op_find("cross_entropy")->rules & PC_OP_AMP_FP32);
    assert_false(pc_op_find("add")->rules & (PC_OP_AMP_LOWER | PC_OP_AMP_FP32));
    assert_false(pc_op_find("relu")->rules & (PC_OP_AMP_LOWER | PC_OP_AMP_FP32));
}

static void test_autocast_follows_the_class(void **state)
{
    (void)state;
    const pc_dtype bf16 = PC_DTYPE_BF16, f32 = PC_DTYPE_F32, none = PC_DTYPE_INVALID;
    /* lower precision: linear of float32 runs in bfloat16 */
    assert_int_equal(result_dtype("linear", bf16, DT(f32, f32)), bf16);
    assert_int_equal(result_dtype("linear", none, DT(f32, f32)), f32);
    /* float32: exp and softmax of bfloat16 run in float32 */
    assert_int_equal(result_dtype("exp", bf16, DT(bf16)), f32);
    assert_int_equal(result_dtype("exp", none, DT(bf16)), bf16);
    assert_int_equal(result_dtype("softmax", bf16, DT(bf16)), f32);
    /* neither: add and relu keep their dtypes (add promotes as always) */
    assert_int_equal(result_dtype("relu", bf16, DT(bf16)), bf16);
    assert_int_equal(result_dtype("add", bf16, DT(bf16, bf16)), bf16);
    assert_int_equal(result_dtype("add", bf16, DT(bf16, f32)), f32);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_amp_classes_are_op_rows),
        cmocka_unit_test(test_autocast_follows_the_class),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
