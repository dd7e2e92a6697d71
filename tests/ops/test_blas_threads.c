/*
 * The ops' BLAS layer (src/ops/blas.h) on products large enough that OpenBLAS would thread
 * them: the results are bit for bit the same on 1, 2 and 4 threads (more threads than this
 * machine's cores still exercise the split), whatever OpenBLAS's own thread count; a float32
 * product is bit for bit one single-threaded sgemm of the whole product (the blocks split rows
 * and columns only, never K) where OpenBLAS's sgemm kernel gives that (sgemm_blocks_exact);
 * calls from inside a parallel region (heads of attention) give the same bits; and linear,
 * matmul, bmm, addmm and conv2d through the op layer, forward and backward, on the device and
 * the bench, do not depend on the thread count.
 */
#include "pc_op_test.h"
#include "pc_test.h"

#include <cblas.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/blas.h"
#include "precheck/core/convert.h"
#include "precheck/ops/exec.h"

static const int THREADS[] = {1, 2, 4};

/*
 * Whether OpenBLAS's sgemm kernel, the one it chose when it was loaded (openblas_get_corename:
 * the CPU's, or the one OPENBLAS_CORETYPE forces), sums every element of a product in the same
 * order whatever block of rows or columns it is handed, so that precheck's blocks are one
 * sgemm's bits. Measured with OpenBLAS 0.3.21 (docs/PORTABILITY.md, "BLAS kernel sets"): yes
 * for SkylakeX and Cooperlake (the AVX-512 kernels), Sandybridge, Nehalem, Core2, Atom,
 * Barcelona and Prescott (aarch64's not measured); no for Haswell and Zen, which share the
 * Haswell sgemm kernel (tiles of 8 x 12 with other code at their edges; 99 of 158 products
 * differed).
 * The thread count does not change the bits on any of them, and that is checked everywhere.
 */
static bool sgemm_blocks_exact(void)
{
    const char *core = openblas_get_corename();
    return !core || (strcmp(core, "Haswell") != 0 && strcmp(core, "Zen") != 0);
}
enum { NTHREADS = sizeof THREADS / sizeof THREADS[0] };

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Values in [-1, 1) of varied magnitude: sums whose order shows in the last bits. */
static double value(void)
{
    double v = (double)(next() >> 11) * 0x1p-53 * 2.0 - 1.0;
    return v * (double)(1u << (next() % 6));
}

static void *filled(pc_dtype cd, size_t n)
{
    size_t es = pc_dtype_size(cd);
    char *p = malloc(n * es + 1);
    assert_non_null(p);
    for (size_t i = 0; i < n; i++) {
        double v = value();
        if (cd == PC_DTYPE_F64)
            memcpy(p + i * es, &v, es);
        else {
            float f = (float)v;
            memcpy(p + i * es, &f, es);
        }
    }
    return p;
}

/* OpenMP and OpenBLAS on n threads, as a worker of --jobs (cores / n) sets them. */
static void set_threads(int n)
{
    omp_set_num_threads(n);
    openblas_set_num_threads(n);
}

typedef struct product {
    int64_t M, N, K;
    bool ta, tb;
    double alpha, beta;
} product;

/* One single-threaded OpenBLAS call of the whole row-major product (column-major form). */
static void one_call(pc_dtype cd, const product *p, const void *A, const void *B, void *C)
{
    int saved = openblas_get_num_threads();
    openblas_set_num_threads(1);
    blasint lda = (blasint)(p->ta ? p->M : p->K), ldb = (blasint)(p->tb ? p->K : p->N);
    enum CBLAS_TRANSPOSE oa = p->ta ? CblasTrans : CblasNoTrans;
    enum CBLAS_TRANSPOSE ob = p->tb ? CblasTrans : CblasNoTrans;
    if (cd == PC_DTYPE_F64)
        cblas_dgemm(CblasColMajor, ob, oa, (blasint)p->N, (blasint)p->M, (blasint)p->K, p->alpha, B,
                    ldb, A, lda, p->beta, C, (blasint)p->N);
    else
        cblas_sgemm(CblasColMajor, ob, oa, (blasint)p->N, (blasint)p->M, (blasint)p->K,
                    (float)p->alpha, B, ldb, A, lda, (float)p->beta, C, (blasint)p->N);
    openblas_set_num_threads(saved);
}

/* The product on 1, 2 and 4 threads: the same bits each time, and (float32, where the kernel
 * gives it) those of one sgemm. Returns the number of blocks it was cut into; counts in
 * *not_one_call the float32 products whose bits are not one sgemm's where that is not checked. */
static int64_t check_product(pc_dtype cd, const product *p, int *not_one_call)
{
    bool whole = cd == PC_DTYPE_F32 && sgemm_blocks_exact();
    size_t es = pc_dtype_size(cd), nc = (size_t)(p->M * p->N);
    void *A = filled(cd, (size_t)(p->M * p->K)), *B = filled(cd, (size_t)(p->K * p->N));
    void *C0 = filled(cd, nc), *want = malloc(nc * es + 1), *got = malloc(nc * es + 1);
    assert_non_null(want);
    assert_non_null(got);
    memcpy(want, C0, nc * es);
    if (cd == PC_DTYPE_F32)
        one_call(cd, p, A, B, want);
    for (int t = 0; t < NTHREADS; t++) {
        set_threads(THREADS[t]);
        memcpy(got, C0, nc * es);
        pc_blas_gemm(cd, p->ta, p->tb, p->M, p->N, p->K, p->alpha, A, p->ta ? p->M : p->K, B,
                     p->tb ? p->K : p->N, p->beta, got, p->N);
        if (!whole && t == 0) {
            if (cd == PC_DTYPE_F32 && memcmp(want, got, nc * es) != 0)
                ++*not_one_call;
            memcpy(want, got, nc * es);
        } else if (memcmp(want, got, nc * es) != 0)
            fail_msg("%s M=%lld N=%lld K=%lld ta=%d tb=%d alpha=%g beta=%g: %d threads differ",
                     cd == PC_DTYPE_F64 ? "dgemm" : "sgemm", (long long)p->M, (long long)p->N,
                     (long long)p->K, p->ta, p->tb, p->alpha, p->beta, THREADS[t]);
    }
    set_threads(1);
    free(A);
    free(B);
    free(C0);
    free(want);
    free(got);
    int64_t pm, pn;
    return pc_blas_gemm_blocks(p->M, p->N, p->K, &pm, &pn);
}

/* Fixed shapes (ragged edges, both dimensions cut, a short K, the 512 x 4096 shape of the
 * LLaMA layer's outputs at a smaller K) and random ones with every transpose, alpha and beta. */
static void check_products(pc_dtype cd)
{
    static const product fixed[] = {
        {512, 1100, 700, false, true, 1.0, 0.0}, {700, 700, 700, false, false, 1.0, 0.0},
        {383, 1501, 257, true, false, 1.0, 0.0}, {100, 100, 900, false, false, 1.0, 1.0},
        {1300, 90, 400, true, true, 0.5, 0.25},  {4000, 3000, 8, false, true, 1.0, 0.0},
        {512, 4096, 64, false, true, 1.0, 0.0},  {1, 30000, 300, false, true, 1.0, 0.0},
    };
    int split = 0, total = 0, not_one_call = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++, total++)
        split += check_product(cd, &fixed[i], &not_one_call) > 1;
    static const double betas[] = {0.0, 1.0, 0.25};
    for (int i = 0; i < 24; i++, total++) {
        product p = {(int64_t)(1 + next() % 900),
                     (int64_t)(1 + next() % 900),
                     (int64_t)(1 + next() % 1200),
                     next() % 2 == 0,
                     next() % 2 == 0,
                     next() % 3 == 0 ? 0.5 : 1.0,
                     betas[next() % 3]};
        split += check_product(cd, &p, &not_one_call) > 1;
    }
    /* most of them were cut into blocks */
    assert_true(split * 2 > total);
    if (cd == PC_DTYPE_F64)
        print_message("dgemm (OpenBLAS kernels %s): %d products, %d cut into blocks, the same "
                      "bits on 1, 2 and 4 threads\n",
                      openblas_get_corename(), total, split);
    else if (sgemm_blocks_exact())
        print_message("sgemm (OpenBLAS kernels %s): %d products, %d cut into blocks, the same "
                      "bits on 1, 2 and 4 threads, and those of one whole sgemm\n",
                      openblas_get_corename(), total, split);
    else
        print_message("sgemm (OpenBLAS kernels %s): %d products, %d cut into blocks, the same "
                      "bits on 1, 2 and 4 threads; one whole sgemm's bits NOT checked (this "
                      "kernel sums an element by the block it is in: %d products differ)\n",
                      openblas_get_corename(), total, split, not_one_call);
}

static void test_sgemm_threads(void **state)
{
    (void)state;
    check_products(PC_DTYPE_F32);
}

static void test_dgemm_threads(void **state)
{
    (void)state;
    check_products(PC_DTYPE_F64);
}

/* The blocks: none for small products; rows of a tall output cut first, columns of a short
 * one; 1, 2 or a multiple of 4 of them where sizes allow; every block 2^22 multiply-adds at
 * least and 64 rows and columns (but a whole dimension). */
static void test_blocks(void **state)
{
    (void)state;
    int64_t pm, pn;
    assert_int_equal(pc_blas_gemm_blocks(200, 200, 200, &pm, &pn), 1);
    assert_int_equal(pc_blas_gemm_blocks(512, 4096, 4096, &pm, &pn), 4); /* forward */
    assert_int_equal(pm, 1);
    assert_int_equal(pc_blas_gemm_blocks(4096, 11008, 512, &pm, &pn), 8); /* weight gradient */
    assert_int_equal(pn, 1);
    assert_int_equal(pc_blas_gemm_blocks(512, 22016, 4096, &pm, &pn), 24);
    assert_int_equal(pc_blas_gemm_blocks(512, 512, 128, &pm, &pn), 4);
    for (int i = 0; i < 4000; i++) {
        int64_t M = (int64_t)(1 + next() % 6000), N = (int64_t)(1 + next() % 6000);
        int64_t K = (int64_t)(1 + next() % (next() % 2 ? 64 : 6000));
        int64_t nb = pc_blas_gemm_blocks(M, N, K, &pm, &pn);
        assert_int_equal(nb, pm * pn);
        if ((double)M * (double)N * (double)K < 8388608.0)
            assert_int_equal(nb, 1);
        if (nb == 1)
            continue;
        int64_t rm = pm == 1 ? M : M / 64 / pm * 64, rn = pn == 1 ? N : N / 64 / pn * 64;
        assert_true((pm == 1 || rm >= 64) && (pn == 1 || rn >= 64));
        assert_true((double)rm * (double)rn * (double)K >= 4194304.0);
    }
}

/* From inside a parallel region (OpenBLAS set to one thread by the caller), every thread's
 * call gives the bits of a call from outside. */
static void test_inside_parallel(void **state)
{
    (void)state;
    product p = {300, 900, 500, false, true, 1.0, 0.0};
    for (int d = 0; d < 2; d++) {
        pc_dtype cd = d ? PC_DTYPE_F64 : PC_DTYPE_F32;
        size_t es = pc_dtype_size(cd), nc = (size_t)(p.M * p.N);
        void *A = filled(cd, (size_t)(p.M * p.K)), *B = filled(cd, (size_t)(p.K * p.N));
        char *want = malloc(nc * es), *got = malloc(4 * nc * es);
        assert_non_null(want);
        assert_non_null(got);
        set_threads(2);
        pc_blas_gemm(cd, false, true, p.M, p.N, p.K, 1.0, A, p.K, B, p.K, 0.0, want, p.N);
        int saved = pc_blas_single_begin();
#pragma omp parallel for num_threads(4)
        for (int t = 0; t < 4; t++)
            pc_blas_gemm(cd, false, true, p.M, p.N, p.K, 1.0, A, p.K, B, p.K, 0.0,
                         got + (size_t)t * nc * es, p.N);
        pc_blas_single_end(saved);
        assert_int_equal(openblas_get_num_threads(), 2);
        for (int t = 0; t < 4; t++)
            assert_memory_equal(want, got + (size_t)t * nc * es, nc * es);
        set_threads(1);
        free(A);
        free(B);
        free(want);
        free(got);
    }
}

/* GEMV and dot of OpenBLAS-threading sizes. */
static void test_gemv_dot_threads(void **state)
{
    (void)state;
    for (int d = 0; d < 2; d++) {
        pc_dtype cd = d ? PC_DTYPE_F64 : PC_DTYPE_F32;
        size_t es = pc_dtype_size(cd);
        int64_t rows = 1500, cols = 1300, n = 300000;
        void *A = filled(cd, (size_t)(rows * cols)), *x = filled(cd, (size_t)n);
        void *y = filled(cd, (size_t)n);
        char want[2][1500 * 8], got[2][1500 * 8];
        double dw = 0;
        for (int t = 0; t < NTHREADS; t++) {
            set_threads(THREADS[t]);
            pc_blas_gemv(cd, false, rows, cols, A, cols, x, got[0]);
            pc_blas_gemv(cd, true, rows, cols, A, cols, x, got[1]);
            double dg = pc_blas_dot(cd, n, x, y);
            if (t == 0) {
                memcpy(want, got, sizeof want);
                dw = dg;
            }
            assert_memory_equal(want[0], got[0], (size_t)rows * es);
            assert_memory_equal(want[1], got[1], (size_t)cols * es);
            pc_assert_same_f64(dw, dg);
        }
        set_threads(1);
        free(A);
        free(x);
        free(y);
    }
}

/* ---- through the op layer ---- */

static pc_tensor make(pc_dtype dtype, const int64_t *shape, int rank)
{
    pc_tensor t = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_alloc(&t, dtype, shape, rank), PC_OK);
    char *p = pc_tensor_data(&t);
    for (int64_t i = 0; i < pc_tensor_numel(&t); i++)
        pc_element_store(p + (size_t)i * pc_dtype_size(dtype), dtype, value(), 0.0);
    return t;
}

static void make_call(pc_op_call *c, const char *op, pc_tensor *ts, int nts)
{
    pc_test_op_call(c, op, op);
    for (int i = 0; i < nts; i++)
        pc_test_op_tensor_arg(c, i, ts[i], true); /* the call owns them */
}

static void assert_same_tensor(const pc_tensor *a, const pc_tensor *b)
{
    assert_int_equal(a->dtype, b->dtype);
    assert_true(pc_tensor_same_shape(a, b));
    assert_memory_equal(pc_tensor_data(a), pc_tensor_data(b), pc_tensor_nbytes(a));
}

/* Forward and backward of the call on 1, 2 and 4 threads, on the device and the bench. */
static void check_op(pc_op_call *c, const int64_t *yshape, int yrank)
{
    for (int k = 0; k < 2; k++) {
        pc_compute compute = k ? PC_COMPUTE_BENCH : PC_COMPUTE_DEVICE;
        pc_op_result r[NTHREADS];
        pc_op_grads g[NTHREADS];
        pc_tensor dy = make(pc_call_tensor(c, 0)->dtype, yshape, yrank);
        for (int t = 0; t < NTHREADS; t++) {
            set_threads(THREADS[t]);
            memset(&r[t], 0, sizeof r[t]);
            memset(&g[t], 0, sizeof g[t]);
            assert_int_equal(pc_op_forward(c, compute, &r[t]), PC_OK);
            assert_int_equal(pc_op_backward(c, compute, &dy, &g[t]), PC_OK);
            assert_same_tensor(&r[0].tensors[0], &r[t].tensors[0]);
            for (int i = 0; i < c->nargs; i++)
                if (!pc_tensor_is_null(&g[0].grads[i]))
                    assert_same_tensor(&g[0].grads[i], &g[t].grads[i]);
        }
        assert_false(pc_tensor_is_null(&g[0].grads[0]));
        for (int t = 0; t < NTHREADS; t++) {
            pc_op_result_free(&r[t]);
            pc_op_grads_free(&g[t]);
        }
        pc_tensor_free(&dy);
    }
    set_threads(1);
    pc_op_call_free(c);
}

static void test_linear_threads(void **state)
{
    (void)state;
    static const pc_dtype dtypes[] = {PC_DTYPE_F32, PC_DTYPE_BF16};
    for (int d = 0; d < 2; d++) {
        int64_t xs[3] = {3, 171, 600}, ws[2] = {1000, 600}, bs[1] = {1000}, ys[3] = {3, 171, 1000};
        pc_tensor ts[3] = {make(dtypes[d], xs, 3), make(dtypes[d], ws, 2), make(dtypes[d], bs, 1)};
        pc_op_call c;
        make_call(&c, "linear", ts, 3);
        check_op(&c, ys, 3);
    }
}

static void test_matmul_threads(void **state)
{
    (void)state;
    /* batched [2, 300, 500] x [2, 500, 700] (per-batch GEMMs), and 2-D x 1-D (GEMV) */
    int64_t as[3] = {2, 300, 500}, bs[3] = {2, 500, 700}, ys[3] = {2, 300, 700};
    pc_tensor ts[2] = {make(PC_DTYPE_F32, as, 3), make(PC_DTYPE_F32, bs, 3)};
    pc_op_call c;
    make_call(&c, "matmul", ts, 2);
    check_op(&c, ys, 3);
    int64_t ms[2] = {1500, 1300}, vs[1] = {1300}, mys[1] = {1500};
    pc_tensor tv[2] = {make(PC_DTYPE_F32, ms, 2), make(PC_DTYPE_F32, vs, 1)};
    make_call(&c, "matmul", tv, 2);
    check_op(&c, mys, 1);
}

static void test_bmm_addmm_threads(void **state)
{
    (void)state;
    int64_t as[3] = {2, 260, 400}, bs[3] = {2, 400, 650}, ys[3] = {2, 260, 650};
    pc_tensor ts[2] = {make(PC_DTYPE_F32, as, 3), make(PC_DTYPE_F32, bs, 3)};
    pc_op_call c;
    make_call(&c, "bmm", ts, 2);
    check_op(&c, ys, 3);
    int64_t is[2] = {260, 650}, m1[2] = {260, 400}, m2[2] = {400, 650};
    pc_tensor ta[3] = {make(PC_DTYPE_F32, is, 2), make(PC_DTYPE_F32, m1, 2),
                       make(PC_DTYPE_F32, m2, 2)};
    make_call(&c, "addmm", ta, 3);
    int ib = pc_schema_find_arg(c.op->schema, "beta"),
        ia = pc_schema_find_arg(c.op->schema, "alpha");
    assert_true(ia > 0 && ib > 0);
    c.args[ia].kind = c.args[ib].kind = PC_VALUE_FLOAT;
    c.args[ia].f = 0.5;
    c.args[ib].f = 1.0;
    check_op(&c, is, 2);
}

static void test_conv2d_threads(void **state)
{
    (void)state;
    /* im2col + GEMM: [2, 64, 29, 29] * [100, 64, 3, 3] -> per image [100, 576] x [576, 729] */
    int64_t xs[4] = {2, 64, 29, 29}, ws[4] = {100, 64, 3, 3}, ys[4] = {2, 100, 27, 27};
    pc_tensor ts[2] = {make(PC_DTYPE_F32, xs, 4), make(PC_DTYPE_F32, ws, 4)};
    pc_op_call c;
    make_call(&c, "conv2d", ts, 2);
    for (int k = 3; k <= 5; k++) { /* stride, padding, dilation */
        c.args[k].kind = PC_VALUE_INT_LIST;
        c.args[k].nints = 2;
        c.args[k].ints[0] = c.args[k].ints[1] = k == 4 ? 0 : 1;
    }
    c.args[6].kind = PC_VALUE_INT;
    c.args[6].i = 1;
    check_op(&c, ys, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blocks),           cmocka_unit_test(test_sgemm_threads),
        cmocka_unit_test(test_dgemm_threads),    cmocka_unit_test(test_inside_parallel),
        cmocka_unit_test(test_gemv_dot_threads), cmocka_unit_test(test_linear_threads),
        cmocka_unit_test(test_matmul_threads),   cmocka_unit_test(test_bmm_addmm_threads),
        cmocka_unit_test(test_conv2d_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
