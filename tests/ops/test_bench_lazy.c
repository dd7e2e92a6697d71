/*
 * The element-wise ops and the matrix products raise on the bench as their kernels read
 * (PC_OP_BENCH_LAZY, issue #31): pc_bench_prepare shares their float16/bfloat16/float32 tensors
 * unconverted, the element-wise engine widens them in its chunk buffers and matmul/mm/bmm/addmm/
 * baddbmm a batch (or an operand) at a time. Every result and gradient must be the one of the
 * eager raise (each input cast whole to the raised dtype first, the incoming gradient too): the
 * same dtype, shape and bits, for mixed dtypes, 0-dim tensors, Python numbers, integer operands,
 * broadcast gradients (summed), the in-place form, tensors of several chunks, every path of the
 * products (dot, matrix-vector, GEMM, batched, folded, broadcast batches) and strided operands.
 * softmax/log_softmax (dim last or not, the dtype= argument), layer_norm (with and without
 * weight and bias, mixed dtypes), dropout/dropout2d (the same masks) and cross_entropy (class
 * indices with an ignored one, probabilities, weights, label smoothing, every reduction) raise
 * as they read too: the same forward and backward bits and dtypes.
 */
#include "pc_op_test.h"
#include "pc_test.h"

#include <stdio.h>
#include <string.h>

#include "ops/kernel.h"
#include "precheck/core/convert.h"
#include "precheck/ops/exec.h"

static uint32_t rng = 31; /* pc_test_fill_varied's generator state */

/* One operand of a case: a tensor of dtype and shape (rank -1: a wrapped Python float). */
typedef struct operand {
    pc_dtype dtype;
    int rank;
    int64_t shape[3];
} operand;

/* clang-format off */
#define T1(d, a)       {d, 1, {a, 0, 0}}
#define T2(d, a, b)    {d, 2, {a, b, 0}}
#define T3(d, a, b, c) {d, 3, {a, b, c}}
#define T0(d)          {d, 0, {0, 0, 0}}
#define NUM            {PC_DTYPE_F64, -1, {0, 0, 0}}
/* clang-format on */

static void set_arg(pc_op_call *c, int i, const operand *o)
{
    pc_tensor t = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_alloc(&t, o->dtype, o->shape, o->rank < 0 ? 0 : o->rank), PC_OK);
    pc_test_fill_varied(&t, &rng);
    pc_test_op_tensor_arg(c, i, t, o->rank >= 0 && pc_dtype_is_float(o->dtype));
    c->args[i].wrapped = o->rank < 0;
}

/* The call of op on the operands (NULL dtype 0 ends them), in form, with the op's other
 * arguments as torch's defaults would give them or as named here. */
static void make_call(pc_op_call *c, const char *op, pc_api_form form, const operand *ops, int n,
                      const char *str)
{
    pc_test_op_call(c, op, op);
    c->form = form;
    for (int i = 0; i < n; i++)
        set_arg(c, i, &ops[i]);
    static const char *const floats[] = {"alpha", "beta", "value"};
    for (size_t k = 0; k < sizeof floats / sizeof *floats; k++) {
        int ia = pc_schema_find_arg(c->op->schema, floats[k]);
        if (ia >= n) {
            c->args[ia].kind = PC_VALUE_FLOAT;
            c->args[ia].f = 0.75;
        }
    }
    int ig = pc_schema_find_arg(c->op->schema, "approximate");
    if (ig >= 0) {
        c->args[ig].kind = PC_VALUE_STR;
        c->args[ig].s = str ? str : "none";
    }
}

static void assert_same(const pc_tensor *a, const pc_tensor *b, const char *what, const char *op)
{
    if (a->dtype != b->dtype)
        fail_msg("%s %s: dtype %d lazily, %d eagerly", op, what, a->dtype, b->dtype);
    assert_true(pc_tensor_same_shape(a, b));
    assert_true(pc_tensor_is_contiguous(a) && pc_tensor_is_contiguous(b));
    if (memcmp(pc_tensor_data(a), pc_tensor_data(b), pc_tensor_nbytes(a)) != 0)
        fail_msg("%s %s: the lazy raise computes other bits than the eager one", op, what);
}

/* The call as the eager raise gives it: every tensor that the prepared call b reads as another
 * dtype cast whole to it, b's lazy raise off. */
static void eager_call(const pc_op_call *c, const pc_op_call *b, pc_op_call *e)
{
    pc_op_call_share(e, c);
    for (int i = 0; i < e->nargs; i++) {
        pc_value *v = &e->args[i];
        if (v->kind != PC_VALUE_TENSOR || v->wrapped)
            continue;
        pc_dtype to = pc_kernel_dtype(b, &b->args[i].tensor);
        if (to != v->tensor.dtype)
            assert_int_equal(pc_tensor_cast(&v->tensor, &v->tensor, to), PC_OK);
    }
    e->lazy_raise = 0;
}

/* Runs c's bench forward and backward lazily and eagerly and asserts the same results; lazy:
 * whether some operand must be left to the kernel's raise. */
static void check(const pc_op_call *c, bool lazy)
{
    const char *op = c->op->name;
    assert_true(c->op->rules & PC_OP_BENCH_LAZY);
    pc_op_call b, e;
    assert_int_equal(pc_bench_prepare(c, PC_BENCH_MSPROBE, &b), PC_OK);
    assert_int_equal(b.lazy_raise != 0, lazy);
    for (int i = 0; i < c->nargs; i++) { /* shared, not converted; or raised ahead when small */
        const pc_tensor *t = &c->args[i].tensor, *bt = &b.args[i].tensor;
        if (c->args[i].kind != PC_VALUE_TENSOR)
            continue;
        pc_dtype to = b.lazy_raise ? (pc_dtype)(b.lazy_raise - 1) : PC_DTYPE_INVALID;
        bool ahead = (c->op->rules & PC_OP_BENCH_RAISE_SMALL) && !c->args[i].wrapped &&
                     to != PC_DTYPE_INVALID && pc_bench_raisable(t->dtype) && t->dtype != to &&
                     (size_t)pc_tensor_numel(t) * pc_dtype_size(to) <= PC_BENCH_SMALL_BYTES;
        if (ahead) {
            assert_int_equal(bt->dtype, to);
            assert_ptr_not_equal(pc_tensor_data(bt), pc_tensor_data(t));
        } else {
            assert_ptr_equal(pc_tensor_data(bt), pc_tensor_data(t));
        }
    }
    eager_call(c, &b, &e);

    pc_op_result rl = {0}, re = {0}, rd = {0};
    assert_int_equal(pc_op_forward(&b, PC_COMPUTE_BENCH, &rl), PC_OK);
    assert_int_equal(pc_op_forward(&e, PC_COMPUTE_BENCH, &re), PC_OK);
    assert_int_equal(rl.count, re.count);
    assert_same(&rl.tensors[0], &re.tensors[0], "forward", op);

    /* the incoming gradient: the device result's dtype and shape (float32 where the device
     * refuses the mixed dtypes that the bench's raise makes one) */
    const pc_tensor *like = &re.tensors[0];
    pc_dtype gd = PC_DTYPE_F32;
    if (pc_op_forward(c, PC_COMPUTE_DEVICE, &rd) == PC_OK) {
        like = &rd.tensors[0];
        gd = like->dtype;
    } else {
        pc_error_clear();
    }
    pc_tensor dy = PC_TENSOR_NULL, gl = PC_TENSOR_NULL, ge = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_alloc(&dy, gd, like->shape, like->rank), PC_OK);
    pc_test_fill_varied(&dy, &rng);
    if (c->op->backward && pc_dtype_is_float(dy.dtype)) {
        assert_int_equal(pc_bench_kernel_grad(c, PC_BENCH_MSPROBE, &dy, &gl), PC_OK);
        assert_int_equal(pc_bench_prepare_grad(c, PC_BENCH_MSPROBE, &dy, &ge), PC_OK);
        pc_op_grads dl = {0}, de = {0};
        assert_int_equal(pc_op_backward(&b, PC_COMPUTE_BENCH, &gl, &dl), PC_OK);
        assert_int_equal(pc_op_backward(&e, PC_COMPUTE_BENCH, &ge, &de), PC_OK);
        int seen = 0;
        for (int i = 0; i < PC_SCHEMA_MAX_ARGS; i++) {
            assert_int_equal(dl.grads[i].storage != NULL, de.grads[i].storage != NULL);
            if (!dl.grads[i].storage)
                continue;
            char what[32];
            snprintf(what, sizeof what, "gradient %d", i);
            assert_same(&dl.grads[i], &de.grads[i], what, op);
            seen++;
        }
        assert_true(seen > 0);
        pc_op_grads_free(&dl);
        pc_op_grads_free(&de);
    }
    pc_tensor_free(&dy);
    pc_tensor_free(&gl);
    pc_tensor_free(&ge);
    pc_op_result_free(&rl);
    pc_op_result_free(&re);
    pc_op_result_free(&rd);
    pc_op_call_free(&b);
    pc_op_call_free(&e);
}

static void run_case(const char *op, pc_api_form form, const operand *ops, int n, const char *str,
                     bool lazy)
{
    pc_op_call c;
    make_call(&c, op, form, ops, n, str);
    check(&c, lazy);
    pc_op_call_free(&c);
}

/* The same with argument i replaced by its transpose of the last two dims (strided). */
static void run_transposed(const char *op, const operand *ops, int n, int i)
{
    pc_op_call c;
    make_call(&c, op, PC_FORM_PLAIN, ops, n, NULL);
    pc_tensor t = PC_TENSOR_NULL;
    pc_tensor *a = &c.args[i].tensor;
    assert_int_equal(pc_tensor_transpose(&t, a, a->rank - 2, a->rank - 1), PC_OK);
    assert_false(pc_tensor_is_contiguous(&t));
    pc_tensor_free(a);
    *a = t;
    check(&c, true);
    pc_op_call_free(&c);
}

#define CASE(op, lazy, ...)                                                                        \
    do {                                                                                           \
        const operand o_[] = {__VA_ARGS__};                                                        \
        run_case(op, PC_FORM_PLAIN, o_, (int)(sizeof o_ / sizeof *o_), NULL, lazy);                \
    } while (0)

static void test_binary(void **state)
{
    (void)state;
    static const char *const ops[] = {"add", "sub", "mul", "div", "pow", "maximum", "atan2"};
    for (size_t k = 0; k < sizeof ops / sizeof *ops; k++) {
        const char *op = ops[k];
        CASE(op, true, T2(PC_DTYPE_F32, 3, 5), T2(PC_DTYPE_F32, 3, 5));
        CASE(op, true, T2(PC_DTYPE_BF16, 3, 5), T1(PC_DTYPE_BF16, 5));   /* -> float32 */
        CASE(op, true, T2(PC_DTYPE_F16, 3, 5), T1(PC_DTYPE_F32, 5));     /* mixed -> float32 */
        CASE(op, true, T2(PC_DTYPE_BF16, 3, 5), T0(PC_DTYPE_F32));       /* 0-dim */
        CASE(op, true, T2(PC_DTYPE_F32, 4, 3), NUM);                     /* Python number */
        CASE(op, true, T1(PC_DTYPE_I64, 5), T2(PC_DTYPE_F16, 3, 5));     /* integer operand */
        CASE(op, true, T2(PC_DTYPE_F64, 2, 5), T1(PC_DTYPE_F32, 5));     /* float64 stays */
        CASE(op, false, T2(PC_DTYPE_F64, 2, 5), T2(PC_DTYPE_F64, 2, 5)); /* nothing to raise */
    }
    /* several chunks, on the threads the engine takes */
    CASE("add", true, T2(PC_DTYPE_F32, 3, 7000), T1(PC_DTYPE_F32, 7000));
    CASE("mul", true, T2(PC_DTYPE_BF16, 2, 9000), T2(PC_DTYPE_BF16, 2, 9000));
    /* the in-place form: the result has the dtype self stands for */
    const operand ip[] = {T2(PC_DTYPE_F32, 3, 5), T1(PC_DTYPE_BF16, 5)};
    run_case("add", PC_FORM_INPLACE, ip, 2, NULL, true);
    run_case("mul", PC_FORM_INPLACE, ip, 2, NULL, true);
}

static void test_unary(void **state)
{
    (void)state;
    static const char *const ops[] = {"gelu", "exp",  "tanh", "sigmoid", "rsqrt", "neg",
                                      "silu", "relu", "erf",  "log",     "sqrt",  "abs"};
    for (size_t k = 0; k < sizeof ops / sizeof *ops; k++) {
        CASE(ops[k], true, T2(PC_DTYPE_F32, 3, 5));
        CASE(ops[k], true, T2(PC_DTYPE_BF16, 2, 4));
        CASE(ops[k], true, T0(PC_DTYPE_F16));
        CASE(ops[k], false, T2(PC_DTYPE_F64, 2, 3));
    }
    CASE("gelu", true, T2(PC_DTYPE_F32, 4, 5000));
    const operand x[] = {T2(PC_DTYPE_BF16, 3, 5)};
    run_case("gelu", PC_FORM_PLAIN, x, 1, "tanh", true);
    run_case("neg", PC_FORM_INPLACE, x, 1, NULL, true);
}

static void test_ternary_and_select(void **state)
{
    (void)state;
    CASE("addcmul", true, T2(PC_DTYPE_F32, 3, 5), T1(PC_DTYPE_BF16, 5), T2(PC_DTYPE_F32, 3, 5));
    CASE("addcdiv", true, T2(PC_DTYPE_BF16, 3, 5), T2(PC_DTYPE_BF16, 3, 5), T0(PC_DTYPE_F32));
    CASE("lerp", true, T2(PC_DTYPE_F32, 3, 5), T2(PC_DTYPE_F32, 3, 5), T1(PC_DTYPE_F32, 5));
    CASE("lerp", true, T2(PC_DTYPE_BF16, 3, 5), T2(PC_DTYPE_BF16, 3, 5), NUM);
    CASE("clamp", true, T2(PC_DTYPE_F32, 3, 5), T1(PC_DTYPE_F32, 5), T0(PC_DTYPE_F32));
    CASE("clamp_min", true, T2(PC_DTYPE_F16, 3, 5), NUM);
    CASE("where", true, T2(PC_DTYPE_BOOL, 3, 5), T2(PC_DTYPE_F32, 3, 5), T1(PC_DTYPE_BF16, 5));
    CASE("where", true, T1(PC_DTYPE_BOOL, 5), T2(PC_DTYPE_BF16, 3, 5), NUM);
    /* masked_fill: self, a mask that broadcasts, the value as a number or a 0-dim tensor */
    CASE("masked_fill", true, T2(PC_DTYPE_F32, 4, 6), T2(PC_DTYPE_BOOL, 1, 6), NUM);
    CASE("masked_fill", true, T2(PC_DTYPE_BF16, 4, 6), T2(PC_DTYPE_BOOL, 4, 6), T0(PC_DTYPE_F32));
    CASE("masked_fill", true, T2(PC_DTYPE_F32, 8, 4096), T2(PC_DTYPE_BOOL, 8, 4096), NUM);
    const operand ip[] = {T2(PC_DTYPE_F32, 3, 5), T2(PC_DTYPE_F32, 3, 5), T1(PC_DTYPE_F32, 5)};
    run_case("addcmul", PC_FORM_INPLACE, ip, 3, NULL, true);
}

static void test_matrix_products(void **state)
{
    (void)state;
    /* batched, every batch: a batch at a time */
    CASE("matmul", true, T3(PC_DTYPE_F32, 2, 4, 5), T3(PC_DTYPE_F32, 2, 5, 3));
    CASE("matmul", true, T3(PC_DTYPE_BF16, 2, 4, 5), T3(PC_DTYPE_F32, 2, 5, 3));
    /* broadcast batches (summed gradients), 2-D x N-D (folded), N-D x 2-D (one GEMM) */
    CASE("matmul", true, T3(PC_DTYPE_F32, 1, 4, 5), T3(PC_DTYPE_F32, 3, 5, 2));
    CASE("matmul", true, T2(PC_DTYPE_F16, 4, 5), T3(PC_DTYPE_F16, 2, 5, 3));
    CASE("matmul", true, T3(PC_DTYPE_F32, 2, 4, 5), T2(PC_DTYPE_F32, 5, 3));
    /* dot, matrix-vector, vector-matrix */
    CASE("matmul", true, T1(PC_DTYPE_F32, 7), T1(PC_DTYPE_F32, 7));
    CASE("matmul", true, T2(PC_DTYPE_BF16, 3, 7), T1(PC_DTYPE_BF16, 7));
    CASE("matmul", true, T1(PC_DTYPE_F32, 4), T3(PC_DTYPE_F32, 2, 4, 3));
    CASE("matmul", false, T2(PC_DTYPE_F64, 3, 4), T2(PC_DTYPE_F64, 4, 2));
    CASE("mm", true, T2(PC_DTYPE_F32, 6, 5), T2(PC_DTYPE_BF16, 5, 4));
    CASE("bmm", true, T3(PC_DTYPE_BF16, 3, 40, 30), T3(PC_DTYPE_BF16, 3, 30, 20));
    CASE("addmm", true, T1(PC_DTYPE_F32, 4), T2(PC_DTYPE_F32, 6, 5), T2(PC_DTYPE_F32, 5, 4));
    CASE("baddbmm", true, T2(PC_DTYPE_F32, 3, 4), T3(PC_DTYPE_F32, 2, 3, 5),
         T3(PC_DTYPE_F32, 2, 5, 4));
    /* a transposed operand, as attention's q @ k^T reads k */
    const operand qk[] = {T3(PC_DTYPE_F32, 2, 6, 4), T3(PC_DTYPE_F32, 2, 6, 4)};
    run_transposed("matmul", qk, 2, 1);
    const operand mm[] = {T2(PC_DTYPE_BF16, 6, 5), T2(PC_DTYPE_BF16, 4, 5)};
    run_transposed("mm", mm, 2, 1);
}

/* A call of op on the operands, for the cases below to set the op's other arguments. */
static void nn_call(pc_op_call *c, const char *op, const operand *ops, int n)
{
    make_call(c, op, PC_FORM_PLAIN, ops, n, NULL);
    c->seed = 1234;
}

static void set_int(pc_op_call *c, int i, int64_t v)
{
    c->args[i].kind = PC_VALUE_INT;
    c->args[i].i = v;
}

static void set_float(pc_op_call *c, int i, double v)
{
    c->args[i].kind = PC_VALUE_FLOAT;
    c->args[i].f = v;
}

static void set_bool(pc_op_call *c, int i, bool v)
{
    c->args[i].kind = PC_VALUE_BOOL;
    c->args[i].b = v;
}

/* softmax or log_softmax of x over dim (dim -9: torch's implicit dim), through dtype dt when it
 * is not PC_DTYPE_INVALID. */
static void softmax_case(const char *op, operand x, int64_t dim, pc_dtype dt, bool lazy)
{
    pc_op_call c;
    nn_call(&c, op, &x, 1);
    if (dim != -9)
        set_int(&c, 1, dim);
    if (dt != PC_DTYPE_INVALID) {
        c.args[2].kind = PC_VALUE_DTYPE;
        c.args[2].dtype = dt;
    }
    check(&c, lazy);
    pc_op_call_free(&c);
}

static void test_softmax(void **state)
{
    (void)state;
    static const char *const ops[] = {"softmax", "log_softmax"};
    for (size_t k = 0; k < 2; k++) {
        const char *op = ops[k];
        softmax_case(op, (operand)T3(PC_DTYPE_F32, 2, 3, 7), -1, PC_DTYPE_INVALID, true);
        softmax_case(op, (operand)T3(PC_DTYPE_BF16, 2, 3, 7), -1, PC_DTYPE_INVALID, true);
        softmax_case(op, (operand)T3(PC_DTYPE_F16, 2, 5, 4), 1, PC_DTYPE_INVALID, true);
        softmax_case(op, (operand)T3(PC_DTYPE_F32, 2, 5, 4), 0, PC_DTYPE_INVALID, true);
        softmax_case(op, (operand)T2(PC_DTYPE_F32, 3, 6), -9, PC_DTYPE_INVALID, true);
        softmax_case(op, (operand)T0(PC_DTYPE_F32), 0, PC_DTYPE_INVALID, true);
        /* the dtype= argument: x read through it */
        softmax_case(op, (operand)T2(PC_DTYPE_F32, 3, 6), -1, PC_DTYPE_F32, true);
        softmax_case(op, (operand)T2(PC_DTYPE_BF16, 3, 6), -1, PC_DTYPE_F16, true);
        softmax_case(op, (operand)T3(PC_DTYPE_BF16, 3, 6, 2), 1, PC_DTYPE_F64, true);
        softmax_case(op, (operand)T2(PC_DTYPE_F64, 3, 6), -1, PC_DTYPE_INVALID, false);
        /* blocks of rows and of columns, on the threads */
        softmax_case(op, (operand)T3(PC_DTYPE_F32, 8, 64, 256), -1, PC_DTYPE_INVALID, true);
        softmax_case(op, (operand)T3(PC_DTYPE_F32, 4, 300, 64), 1, PC_DTYPE_INVALID, true);
    }
}

/* layer_norm over the last dims of x (normalized over k dims), weight and bias as given. */
static void layer_norm_case(const operand *ops, int n, int k, bool lazy)
{
    pc_op_call c;
    nn_call(&c, "layer_norm", ops, 1);
    for (int i = 1; i < n; i++)
        set_arg(&c, i + 1, &ops[i]);
    c.args[1].kind = PC_VALUE_INT_LIST;
    c.args[1].nints = k;
    for (int i = 0; i < k; i++)
        c.args[1].ints[i] = ops[0].shape[ops[0].rank - k + i];
    set_float(&c, 4, 1e-5);
    check(&c, lazy);
    pc_op_call_free(&c);
}

static void test_layer_norm(void **state)
{
    (void)state;
    const operand a[] = {T3(PC_DTYPE_F32, 2, 3, 8), T1(PC_DTYPE_F32, 8), T1(PC_DTYPE_F32, 8)};
    layer_norm_case(a, 3, 1, true);
    const operand b[] = {T3(PC_DTYPE_BF16, 2, 3, 8), T1(PC_DTYPE_BF16, 8), T1(PC_DTYPE_BF16, 8)};
    layer_norm_case(b, 3, 1, true);
    /* mixed: every tensor stands for float32 */
    const operand m[] = {T2(PC_DTYPE_BF16, 4, 6), T1(PC_DTYPE_F32, 6), T1(PC_DTYPE_F32, 6)};
    layer_norm_case(m, 3, 1, true);
    const operand w[] = {T3(PC_DTYPE_F16, 2, 3, 4), T2(PC_DTYPE_F16, 3, 4)}; /* no bias */
    layer_norm_case(w, 2, 2, true);
    const operand x[] = {T2(PC_DTYPE_F32, 5, 7)}; /* neither */
    layer_norm_case(x, 1, 1, true);
    const operand d[] = {T2(PC_DTYPE_F64, 5, 7), T1(PC_DTYPE_F64, 7), T1(PC_DTYPE_F64, 7)};
    layer_norm_case(d, 3, 1, false);
    /* several blocks of rows, on the threads */
    const operand big[] = {T3(PC_DTYPE_F32, 2, 256, 512), T1(PC_DTYPE_F32, 512),
                           T1(PC_DTYPE_F32, 512)};
    layer_norm_case(big, 3, 1, true);
}

static void dropout_case(const char *op, operand x, double p, bool training, bool lazy)
{
    pc_op_call c;
    nn_call(&c, op, &x, 1);
    set_float(&c, 1, p);
    set_bool(&c, 2, training);
    set_bool(&c, 3, false);
    check(&c, lazy);
    pc_op_call_free(&c);
}

static void test_dropout(void **state)
{
    (void)state;
    dropout_case("dropout", (operand)T2(PC_DTYPE_F32, 30, 70), 0.1, true, true);
    dropout_case("dropout", (operand)T2(PC_DTYPE_BF16, 30, 70), 0.5, true, true);
    dropout_case("dropout", (operand)T1(PC_DTYPE_F16, 1000), 1.0, true, true);
    dropout_case("dropout", (operand)T2(PC_DTYPE_F32, 3, 5), 0.1, false, true);
    dropout_case("dropout", (operand)T2(PC_DTYPE_F64, 3, 5), 0.1, true, false);
    dropout_case("dropout2d", (operand)T3(PC_DTYPE_F32, 6, 4, 5), 0.3, true, true);
}

/* cross_entropy of x [N, C(, d)] and targets t: class indices (int64, one of them ignored) or
 * probabilities (a float operand); w: a weight of C, or absent; reduction; label smoothing. */
static void cross_entropy_case(const operand *ops, int n, const char *reduction, double eps,
                               bool lazy)
{
    pc_op_call c;
    nn_call(&c, "cross_entropy", ops, n);
    const operand *x = &ops[0];
    if (ops[1].dtype == PC_DTYPE_I64) { /* indices in range, one -100 */
        pc_tensor *t = &c.args[1].tensor;
        int64_t *k = pc_tensor_data(t);
        for (int64_t i = 0; i < pc_tensor_numel(t); i++)
            k[i] = i == 1 ? -100 : (i * 7 + 3) % x->shape[x->rank == 1 ? 0 : 1];
    }
    set_int(&c, 4, -100);
    c.args[6].kind = PC_VALUE_STR;
    c.args[6].s = reduction;
    set_float(&c, 7, eps);
    check(&c, lazy);
    pc_op_call_free(&c);
}

static void test_cross_entropy(void **state)
{
    (void)state;
    const operand a[] = {T2(PC_DTYPE_F32, 6, 10), T1(PC_DTYPE_I64, 6)};
    cross_entropy_case(a, 2, "mean", 0.0, true);
    cross_entropy_case(a, 2, "sum", 0.1, true);
    cross_entropy_case(a, 2, "none", 0.0, true);
    const operand b[] = {T3(PC_DTYPE_BF16, 3, 5, 4), T2(PC_DTYPE_I64, 3, 4), T1(PC_DTYPE_BF16, 5)};
    cross_entropy_case(b, 3, "mean", 0.2, true);
    /* probabilities: bfloat16 beside float32, both stand for float32 */
    const operand p[] = {T2(PC_DTYPE_F32, 4, 6), T2(PC_DTYPE_BF16, 4, 6)};
    cross_entropy_case(p, 2, "mean", 0.1, true);
    const operand q[] = {T2(PC_DTYPE_F32, 4, 6), T2(PC_DTYPE_F32, 4, 6), T1(PC_DTYPE_F32, 6)};
    cross_entropy_case(q, 3, "none", 0.0, true);
    const operand d[] = {T2(PC_DTYPE_F64, 4, 6), T1(PC_DTYPE_I64, 4)};
    cross_entropy_case(d, 2, "mean", 0.0, false);
    /* a vocabulary-sized row, several blocks on the threads */
    const operand v[] = {T2(PC_DTYPE_F32, 64, 2048), T1(PC_DTYPE_I64, 64)};
    cross_entropy_case(v, 2, "mean", 0.0, true);
}

/* linear: operands whose raised copy is small are raised ahead (the forward and the backward
 * read that one copy), larger ones as the kernel reads them; either way the eager bits. */
static void test_linear(void **state)
{
    (void)state;
    CASE("linear", true, T2(PC_DTYPE_F32, 6, 5), T2(PC_DTYPE_F32, 4, 5), T1(PC_DTYPE_F32, 4));
    CASE("linear", true, T3(PC_DTYPE_BF16, 2, 3, 5), T2(PC_DTYPE_BF16, 4, 5));
    CASE("linear", true, T2(PC_DTYPE_F16, 3, 5), T2(PC_DTYPE_F32, 4, 5), T1(PC_DTYPE_BF16, 4));
    CASE("linear", false, T2(PC_DTYPE_F64, 3, 5), T2(PC_DTYPE_F64, 4, 5));
    /* a weight whose float64 copy is over PC_BENCH_SMALL_BYTES stays lazy, the input is raised */
    CASE("linear", true, T2(PC_DTYPE_F32, 3, 1024), T2(PC_DTYPE_F32, 2100, 1024),
         T1(PC_DTYPE_F32, 2100));
}

/* Every op row that the element-wise engine runs raises as it reads. */
static void test_engine_rows_are_lazy(void **state)
{
    (void)state;
    static const char *const ops[] = {
        "add",     "floor_divide", "eq",    "logical_and", "gelu",  "npu_mish",    "isnan",
        "addcmul", "lerp",         "clamp", "clamp_max",   "where", "masked_fill", "minimum"};
    for (size_t k = 0; k < sizeof ops / sizeof *ops; k++) {
        const pc_op *op = pc_op_find(ops[k]);
        assert_non_null(op);
        if (!(op->rules & PC_OP_BENCH_LAZY))
            fail_msg("%s does not raise as it reads", ops[k]);
    }
    /* outer reads through whole float64 copies: raised ahead */
    assert_false(pc_op_find("outer")->rules & PC_OP_BENCH_LAZY);
    static const char *const mms[] = {"matmul", "mm", "bmm", "addmm", "baddbmm"};
    for (size_t k = 0; k < sizeof mms / sizeof *mms; k++)
        assert_true(pc_op_find(mms[k])->rules & PC_OP_BENCH_LAZY);
    assert_true(pc_op_find("linear")->rules & PC_OP_BENCH_RAISE_SMALL);
    static const char *const nns[] = {"softmax", "log_softmax", "layer_norm",
                                      "dropout", "dropout2d",   "cross_entropy"};
    for (size_t k = 0; k < sizeof nns / sizeof *nns; k++)
        assert_true(pc_op_find(nns[k])->rules & PC_OP_BENCH_LAZY);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_binary),
        cmocka_unit_test(test_unary),
        cmocka_unit_test(test_ternary_and_select),
        cmocka_unit_test(test_matrix_products),
        cmocka_unit_test(test_softmax),
        cmocka_unit_test(test_layer_norm),
        cmocka_unit_test(test_dropout),
        cmocka_unit_test(test_cross_entropy),
        cmocka_unit_test(test_linear),
        cmocka_unit_test(test_engine_rows_are_lazy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
