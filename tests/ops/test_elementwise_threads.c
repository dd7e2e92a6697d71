/*
 * The chunked element-wise loops (src/ops/pointwise/elementwise.c) on tensors of many chunks: the
 * results do not depend on the number of OpenMP threads, gradients of broadcast inputs are the
 * sums in index order (checked against a serial sum), and strided or offset inputs give what
 * their contiguous copies give.
 */
#include "pc_op_test.h"
#include "pc_test.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/core/convert.h"
#include "precheck/ops/exec.h"

static uint32_t rng = 2024; /* pc_test_fill_varied's generator state */

static pc_tensor make(pc_dtype dtype, const int64_t *shape, int rank)
{
    pc_tensor t = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_alloc(&t, dtype, shape, rank), PC_OK);
    pc_test_fill_varied(&t, &rng);
    return t;
}

/* A call of op with tensor arguments (shared, requiring grad) and alpha = 1 where it has one. */
static void make_call(pc_op_call *c, const char *op, const pc_tensor *const *ts, int nts)
{
    pc_test_op_call(c, op, op);
    for (int i = 0; i < nts; i++) {
        pc_tensor shared = PC_TENSOR_NULL;
        pc_tensor_share(&shared, ts[i]);
        pc_test_op_tensor_arg(c, i, shared, pc_dtype_is_float(ts[i]->dtype));
    }
    int ia = pc_schema_find_arg(c->op->schema, "alpha");
    if (ia >= 0) {
        c->args[ia].kind = PC_VALUE_INT;
        c->args[ia].i = 1;
        c->args[ia].f = 1.0;
    }
}

static void assert_same_tensor(const pc_tensor *a, const pc_tensor *b)
{
    assert_int_equal(a->dtype, b->dtype);
    assert_true(pc_tensor_same_shape(a, b));
    assert_true(pc_tensor_is_contiguous(a) && pc_tensor_is_contiguous(b));
    assert_memory_equal(pc_tensor_data(a), pc_tensor_data(b), pc_tensor_nbytes(a));
}

/* Forward and backward of the call with the given thread count. */
static void run(const pc_op_call *c, pc_compute compute, const pc_tensor *dy, int threads,
                pc_op_result *r, pc_op_grads *g)
{
    omp_set_num_threads(threads);
    memset(r, 0, sizeof *r);
    memset(g, 0, sizeof *g);
    assert_int_equal(pc_op_forward(c, compute, r), PC_OK);
    assert_int_equal(pc_op_backward(c, compute, dy, g), PC_OK);
}

/* Runs the call on 1 and on 2 threads and asserts the same bits everywhere. */
static void check_threads(const pc_op_call *c, pc_compute compute, const pc_tensor *dy)
{
    pc_op_result r1, r2;
    pc_op_grads g1, g2;
    run(c, compute, dy, 1, &r1, &g1);
    run(c, compute, dy, 2, &r2, &g2);
    assert_int_equal(r1.count, r2.count);
    assert_same_tensor(&r1.tensors[0], &r2.tensors[0]);
    int ngrads = 0;
    for (int i = 0; i < PC_SCHEMA_MAX_ARGS; i++) {
        assert_int_equal(pc_tensor_is_null(&g1.grads[i]), pc_tensor_is_null(&g2.grads[i]));
        if (!pc_tensor_is_null(&g1.grads[i])) {
            assert_same_tensor(&g1.grads[i], &g2.grads[i]);
            ngrads++;
        }
    }
    assert_true(ngrads > 0);
    pc_op_result_free(&r1);
    pc_op_result_free(&r2);
    pc_op_grads_free(&g1);
    pc_op_grads_free(&g2);
}

/* [600, 1] + [1, 1000]: both gradients are sums over a broadcast dimension, over 600000
 * elements (147 chunks, several blocks of the summing loop). */
static void test_broadcast_grad_threads(void **state)
{
    (void)state;
    const pc_dtype dtypes[] = {PC_DTYPE_F32, PC_DTYPE_BF16, PC_DTYPE_F16, PC_DTYPE_F64};
    for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++) {
        int64_t sa[2] = {600, 1}, sb[2] = {1, 1000}, so[2] = {600, 1000};
        pc_tensor a = make(dtypes[d], sa, 2), b = make(dtypes[d], sb, 2),
                  dy = make(dtypes[d], so, 2);
        const pc_tensor *ts[2] = {&a, &b};
        const char *ops[] = {"add", "mul", "div", "maximum"};
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
            pc_op_call c;
            make_call(&c, ops[o], ts, 2);
            check_threads(&c, PC_COMPUTE_DEVICE, &dy);
            check_threads(&c, PC_COMPUTE_BENCH, &dy);
            pc_op_call_free(&c);
        }
        pc_tensor_free(&a);
        pc_tensor_free(&b);
        pc_tensor_free(&dy);
    }
}

/* The gradient of b in a + b ([600, 1] + [1, 1000], float32) is, per column, the sum of dy in
 * double in row order, rounded once to float32; with any thread count. */
static void test_broadcast_grad_is_ordered_sum(void **state)
{
    (void)state;
    int64_t sa[2] = {600, 1}, sb[2] = {1, 1000}, so[2] = {600, 1000};
    pc_tensor a = make(PC_DTYPE_F32, sa, 2), b = make(PC_DTYPE_F32, sb, 2),
              dy = make(PC_DTYPE_F32, so, 2);
    const pc_tensor *ts[2] = {&a, &b};
    pc_op_call c;
    make_call(&c, "add", ts, 2);
    const float *g = pc_tensor_data(&dy);
    for (int threads = 1; threads <= 2; threads++) {
        pc_op_result r;
        pc_op_grads gr;
        run(&c, PC_COMPUTE_DEVICE, &dy, threads, &r, &gr);
        const float *gb = pc_tensor_data(&gr.grads[1]), *ga = pc_tensor_data(&gr.grads[0]);
        for (int64_t j = 0; j < 1000; j++) {
            double acc = 0.0;
            for (int64_t i = 0; i < 600; i++)
                acc += (double)g[i * 1000 + j];
            float want = (float)acc;
            assert_memory_equal(&gb[j], &want, sizeof want);
        }
        for (int64_t i = 0; i < 600; i++) {
            double acc = 0.0;
            for (int64_t j = 0; j < 1000; j++)
                acc += (double)g[i * 1000 + j];
            float want = (float)acc;
            assert_memory_equal(&ga[i], &want, sizeof want);
        }
        pc_op_result_free(&r);
        pc_op_grads_free(&gr);
    }
    pc_op_call_free(&c);
    pc_tensor_free(&a);
    pc_tensor_free(&b);
    pc_tensor_free(&dy);
}

/* A 0-dim tensor's gradient (all 300000 elements summed into one) and masked_fill's value. */
static void test_full_reduction_threads(void **state)
{
    (void)state;
    int64_t sx[2] = {300, 1000};
    pc_tensor x = make(PC_DTYPE_BF16, sx, 2), s = make(PC_DTYPE_F32, NULL, 0),
              dy = make(PC_DTYPE_BF16, sx, 2);
    const pc_tensor *ts[2] = {&x, &s};
    pc_op_call c;
    make_call(&c, "mul", ts, 2);
    check_threads(&c, PC_COMPUTE_DEVICE, &dy);
    check_threads(&c, PC_COMPUTE_BENCH, &dy);
    pc_op_call_free(&c);

    pc_tensor m = PC_TENSOR_NULL, v = make(PC_DTYPE_BF16, NULL, 0);
    assert_int_equal(pc_tensor_alloc(&m, PC_DTYPE_BOOL, sx, 2), PC_OK);
    uint8_t *mp = pc_tensor_data(&m);
    for (int64_t i = 0; i < pc_tensor_numel(&m); i++)
        mp[i] = (i * 7) % 3 == 0;
    const pc_tensor *tm[3] = {&x, &m, &v};
    make_call(&c, "masked_fill", tm, 3);
    check_threads(&c, PC_COMPUTE_DEVICE, &dy);
    check_threads(&c, PC_COMPUTE_BENCH, &dy);
    pc_op_call_free(&c);
    pc_tensor_free(&m);
    pc_tensor_free(&v);
    pc_tensor_free(&x);
    pc_tensor_free(&s);
    pc_tensor_free(&dy);
}

/* Element-wise results with 1 and 2 threads, and a transposed (strided) or offset view against
 * its contiguous copy, over sizes that end inside a chunk. */
static void test_views_and_threads(void **state)
{
    (void)state;
    int64_t st[2] = {333, 517}, so[2] = {517, 333};
    pc_tensor base = make(PC_DTYPE_BF16, st, 2), t = PC_TENSOR_NULL, tc = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_transpose(&t, &base, 0, 1), PC_OK);
    assert_int_equal(pc_tensor_contiguous(&tc, &t), PC_OK);
    pc_tensor dy = make(PC_DTYPE_BF16, so, 2), y = make(PC_DTYPE_BF16, so, 2);
    const char *ops[] = {"exp", "silu", "add", "pow"};
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
        bool binary = o >= 2;
        const pc_tensor *tv[2] = {&t, &y}, *tcv[2] = {&tc, &y};
        pc_op_call cv, cc;
        make_call(&cv, ops[o], tv, binary ? 2 : 1);
        make_call(&cc, ops[o], tcv, binary ? 2 : 1);
        check_threads(&cv, PC_COMPUTE_DEVICE, &dy);
        for (int m = 0; m < 2; m++) {
            pc_op_result rv, rc;
            pc_op_grads gv, gc;
            run(&cv, (pc_compute)m, &dy, 2, &rv, &gv);
            run(&cc, (pc_compute)m, &dy, 1, &rc, &gc);
            assert_same_tensor(&rv.tensors[0], &rc.tensors[0]);
            assert_same_tensor(&gv.grads[0], &gc.grads[0]);
            pc_op_result_free(&rv);
            pc_op_result_free(&rc);
            pc_op_grads_free(&gv);
            pc_op_grads_free(&gc);
        }
        pc_op_call_free(&cv);
        pc_op_call_free(&cc);
    }
    /* an offset view: elements 5.. of a longer vector */
    int64_t n = 70001, shape1 = 70000;
    pc_tensor long_v = make(PC_DTYPE_F32, &n, 1), off = PC_TENSOR_NULL, offc = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_view(&off, &long_v, &shape1, NULL, 1, 1), PC_OK);
    assert_int_equal(pc_tensor_contiguous(&offc, &off), PC_OK);
    pc_tensor dy1 = make(PC_DTYPE_F32, &shape1, 1);
    const pc_tensor *to[1] = {&off}, *toc[1] = {&offc};
    pc_op_call co, coc;
    make_call(&co, "sigmoid", to, 1);
    make_call(&coc, "sigmoid", toc, 1);
    pc_op_result ro, roc;
    pc_op_grads go, goc;
    run(&co, PC_COMPUTE_DEVICE, &dy1, 2, &ro, &go);
    run(&coc, PC_COMPUTE_DEVICE, &dy1, 1, &roc, &goc);
    assert_same_tensor(&ro.tensors[0], &roc.tensors[0]);
    assert_same_tensor(&go.grads[0], &goc.grads[0]);
    pc_op_result_free(&ro);
    pc_op_result_free(&roc);
    pc_op_grads_free(&go);
    pc_op_grads_free(&goc);
    pc_op_call_free(&co);
    pc_op_call_free(&coc);
    pc_tensor_free(&long_v);
    pc_tensor_free(&off);
    pc_tensor_free(&offc);
    pc_tensor_free(&dy1);
    pc_tensor_free(&base);
    pc_tensor_free(&t);
    pc_tensor_free(&tc);
    pc_tensor_free(&dy);
    pc_tensor_free(&y);
}

/* An integer error in a late chunk still fails the call, with torch's message. */
static void test_integer_error_late_chunk(void **state)
{
    (void)state;
    int64_t n = 50000;
    pc_tensor a = make(PC_DTYPE_I64, &n, 1), b = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_alloc(&b, PC_DTYPE_I64, &n, 1), PC_OK);
    int64_t *bp = pc_tensor_data(&b);
    for (int64_t i = 0; i < n; i++)
        bp[i] = i == 45000 ? 0 : 3;
    const pc_tensor *ts[2] = {&a, &b};
    pc_op_call c;
    make_call(&c, "div", ts, 2);
    c.args[2].kind = PC_VALUE_STR;
    c.args[2].s = "floor";
    for (int threads = 1; threads <= 2; threads++) {
        omp_set_num_threads(threads);
        pc_op_result r = {0};
        assert_int_equal(pc_op_forward(&c, PC_COMPUTE_DEVICE, &r), PC_ERR_INVALID);
        assert_non_null(strstr(pc_error_message(), "ZeroDivisionError"));
        assert_int_equal(r.count, 0);
    }
    pc_op_call_free(&c);
    pc_tensor_free(&a);
    pc_tensor_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_broadcast_grad_threads),
        cmocka_unit_test(test_broadcast_grad_is_ordered_sum),
        cmocka_unit_test(test_full_reduction_threads),
        cmocka_unit_test(test_views_and_threads),
        cmocka_unit_test(test_integer_error_late_chunk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
