/*
 * The matrix products: linear, matmul, mm, bmm, addmm, baddbmm, forward and backward.
 *
 * The products go to OpenBLAS: sgemm for the device's float32 opmath (float16/bfloat16
 * inputs are widened to float32, the result is rounded once to the dtype), dgemm for the bench
 * and float64. Which routine runs follows torch's CPU dispatch, because each one sums in its
 * own order and the device must stay within an ULP of torch: a 1-D x 1-D matmul is a dot
 * (?dot), 2-D x 1-D a matrix-vector product (?gemv), N-D x 2-D folds the batch into the rows
 * of one GEMM, and bmm/baddbmm run torch's plain loop (products summed one by one, no fused
 * multiply-add) when a batch is smaller than 400 multiply-adds, one GEMM per batch otherwise.
 * The gradients are the same products on the gradient (dA = dY B^T, dB = A^T dY), summed over
 * broadcast batch dimensions in index order. Every call goes through blas.h: OpenBLAS on one
 * thread, a large product cut into blocks of its output that threads share, so that the bits
 * do not depend on the number of threads (a float32 block is what one sgemm computes).
 *
 * Memory: the batched paths convert and compute one batch at a time (scratch of one batch's
 * matrices; the gradients too unless batches must be summed); a single GEMM holds its operands
 * and result in the compute dtype whole (panels of one GEMM would not give OpenBLAS's bits
 * for every shape), freeing the operands before the result is stored. Except on the bench, whose
 * bits nobody has to match: a linear whose weight or result in double would pass
 * PANEL_BYTES runs in panels of the weight's rows (linear_bench_panels), so a vocabulary-sized
 * head does not hold its weight, result and gradients in double whole.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ops/blas.h"
#include "ops/kernel.h"
#include "ops/linalg/linalg_impl.h"

/* torch's threshold (m * n * k) below which bmm/baddbmm use the plain loop. */
#define NAIVE_BMM_LIMIT 400

static bool fits_blas(int64_t v)
{
    return v >= 0 && v <= INT_MAX;
}

static pc_status too_large(const pc_op_call *call)
{
    return pc_error_set(PC_ERR_UNSUPPORTED, "%s: matrix dimension beyond the BLAS int range",
                        call->full_name);
}

/* torch's small-batch loop: acc starts at beta c[b,i,j] (0 without an addend or when beta is
 * 0, so that NaN there does not propagate), then acc += alpha (a[b,i,k] b[b,k,j]) for k in
 * order, each operation rounded (no fused multiply-add: the build is ISO C, no contraction).
 * Strides in elements. */
#define NAIVE_BMM(T, NAME)                                                                         \
    static void NAME(int64_t nb, int64_t n, int64_t p, int64_t m, const T *a, int64_t sab,         \
                     int64_t sai, int64_t sak, const T *b, int64_t sbb, int64_t sbk, int64_t sbj,  \
                     T *c, bool add, T alpha, T beta)                                              \
    {                                                                                              \
        for (int64_t q = 0; q < nb; q++)                                                           \
            for (int64_t i = 0; i < n; i++)                                                        \
                for (int64_t j = 0; j < p; j++) {                                                  \
                    T *r = &c[(q * n + i) * p + j];                                                \
                    T acc = (add && beta != 0) ? *r * beta : 0;                                    \
                    for (int64_t k = 0; k < m; k++) {                                              \
                        T prod = a[q * sab + i * sai + k * sak] * b[q * sbb + k * sbk + j * sbj];  \
                        T term = add ? alpha * prod : prod;                                        \
                        acc += term;                                                               \
                    }                                                                              \
                    *r = acc;                                                                      \
                }                                                                                  \
    }
NAIVE_BMM(float, naive_bmm_f)
NAIVE_BMM(double, naive_bmm_d)
#undef NAIVE_BMM

/* Batched C[q] (= or +=) op(A[q]) op(B[q]) over nb batches of contiguous matrices; A[q] is
 * [n,m] (ta: stored [m,n]), B[q] is [m,p] (tb: stored [p,m]), C[q] is [n,p] and holds the
 * addend when add. torch's bmm: the plain loop for small batches, one GEMM per batch else. */
static void bmm_run(pc_dtype cd, int64_t nb, int64_t n, int64_t p, int64_t m, const void *A,
                    bool ta, const void *B, bool tb, void *C, bool add, double alpha, double beta)
{
    int64_t sai = ta ? 1 : m, sak = ta ? n : 1, sbk = tb ? 1 : p, sbj = tb ? m : 1;
    if (m * n * p < NAIVE_BMM_LIMIT) {
        if (cd == PC_DTYPE_F64)
            naive_bmm_d(nb, n, p, m, A, n * m, sai, sak, B, m * p, sbk, sbj, C, add, alpha, beta);
        else
            naive_bmm_f(nb, n, p, m, A, n * m, sai, sak, B, m * p, sbk, sbj, C, add, (float)alpha,
                        (float)beta);
        return;
    }
    size_t es = pc_dtype_size(cd);
    for (int64_t q = 0; q < nb; q++)
        pc_blas_gemm(cd, ta, tb, n, p, m, add ? alpha : 1.0,
                     (const char *)A + (size_t)(q * n * m) * es, ta ? n : m,
                     (const char *)B + (size_t)(q * m * p) * es, tb ? m : p, add ? beta : 0.0,
                     (char *)C + (size_t)(q * n * p) * es, p);
}

static pc_status alloc_buf(const pc_op_call *call, pc_dtype cd, const int64_t *shape, int rank,
                           pc_tensor *out)
{
    pc_status st = pc_tensor_alloc(out, cd, shape, rank);
    return st == PC_OK ? st : pc_error_prefix(st, "%s", call->full_name);
}

/* The same without zeroing, for a buffer that a GEMM with beta 0 (which never reads C) or a
 * copy writes whole before it is read. */
static pc_status alloc_out(const pc_op_call *call, pc_dtype cd, const int64_t *shape, int rank,
                           pc_tensor *out)
{
    pc_status st = pc_tensor_alloc_uninit(out, cd, shape, rank);
    return st == PC_OK ? st : pc_error_prefix(st, "%s", call->full_name);
}

static pc_status shapes_error(const pc_op_call *call, int64_t a0, int64_t a1, int64_t b0,
                              int64_t b1)
{
    return pc_error_set(PC_ERR_INVALID,
                        "%s: mat1 and mat2 shapes cannot be multiplied (%" PRId64 "x%" PRId64
                        " and %" PRId64 "x%" PRId64 ")",
                        call->full_name, a0, a1, b0, b1);
}

/* buf *= s in place (torch's maybe_multiply: nothing when s is 1). */
static void scale_buf(pc_tensor *buf, double s)
{
    if (s == 1.0)
        return;
    int64_t n = pc_tensor_numel(buf);
    if (buf->dtype == PC_DTYPE_F64) {
        double *x = pc_tensor_data(buf);
        for (int64_t i = 0; i < n; i++)
            x[i] *= s;
    } else {
        float *x = pc_tensor_data(buf), fs = (float)s;
        for (int64_t i = 0; i < n; i++)
            x[i] *= fs;
    }
}

/* c = beta c + alpha p (beta 0: c ignored), each product and the sum rounded. */
static void axpby(pc_tensor *c, double beta, const pc_tensor *p, double alpha)
{
    int64_t n = pc_tensor_numel(c);
    if (c->dtype == PC_DTYPE_F64) {
        double *x = pc_tensor_data(c);
        const double *y = pc_tensor_data(p);
        for (int64_t i = 0; i < n; i++) {
            double t = alpha == 1.0 ? y[i] : alpha * y[i];
            x[i] = beta == 0 ? t : (beta == 1.0 ? x[i] : beta * x[i]) + t;
        }
    } else {
        float *x = pc_tensor_data(c), fa = (float)alpha, fb = (float)beta;
        const float *y = pc_tensor_data(p);
        for (int64_t i = 0; i < n; i++) {
            float t = fa == 1.0f ? y[i] : fa * y[i];
            float s = fb == 1.0f ? x[i] : fb * x[i];
            x[i] = fb == 0 ? t : s + t;
        }
    }
}

static pc_dtype compute_of(pc_compute compute, pc_dtype d)
{
    return pc_dtype_is_float(d) ? pc_kernel_compute_dtype(compute, d) : PC_DTYPE_F64;
}

/* A finished gradient: rounded to the dtype of the tensor between two ops on the device,
 * stored in the dtype t stands for in call (pc_kernel_dtype) and in t's shape. */
static pc_status store_grad(const pc_op_call *call, pc_tensor *buf, const pc_tensor *t,
                            pc_tensor *out)
{
    return pc_kernel_store(call, buf, pc_kernel_dtype(call, t), t->shape, t->rank, out);
}

/* ---- linear ---- */

/* Above this many bytes of double weight or result, the bench's linear works in panels. */
#define PANEL_BYTES ((int64_t)64 << 20)

typedef struct linear_plan {
    const pc_tensor *x, *w, *b;
    pc_dtype xd, wd; /* the dtypes x and w stand for (the bench may raise them as it reads) */
    int64_t M, K, N;
    int orank;
    int64_t oshape[PC_TENSOR_MAX_DIMS];
} linear_plan;

static pc_status linear_plan_make(const pc_op_call *call, linear_plan *p)
{
    p->x = pc_call_tensor(call, 0);
    p->w = pc_call_tensor(call, 1);
    p->b = pc_call_tensor(call, 2);
    pc_status st;
    p->xd = pc_kernel_dtype(call, p->x);
    p->wd = pc_kernel_dtype(call, p->w);
    if ((st = pc_kernel_same_dtype(call, p->x, p->w)) != PC_OK ||
        (st = pc_kernel_same_dtype(call, p->x, p->b)) != PC_OK)
        return st;
    if (p->x->rank == 0 || p->w->rank != 2)
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "%s: linear needs an input of at least 1 dimension and a 2-D weight",
                            call->full_name);
    p->K = p->x->shape[p->x->rank - 1];
    p->N = p->w->shape[0];
    p->M = 1;
    for (int i = 0; i + 1 < p->x->rank; i++)
        p->M *= p->x->shape[i];
    if (p->w->shape[1] != p->K)
        return shapes_error(call, p->M, p->K, p->w->shape[1], p->w->shape[0]);
    if (p->b &&
        (p->b->rank > 1 || (p->b->rank == 1 && p->b->shape[0] != p->N && p->b->shape[0] != 1)))
        return pc_error_set(PC_ERR_INVALID, "%s: bias of linear must have %" PRId64 " elements",
                            call->full_name, p->N);
    if (!fits_blas(p->M) || !fits_blas(p->N) || !fits_blas(p->K))
        return too_large(call);
    p->orank = p->x->rank;
    memcpy(p->oshape, p->x->shape, sizeof p->oshape);
    p->oshape[p->orank - 1] = p->N;
    return PC_OK;
}

static bool use_panels(const linear_plan *p, pc_compute compute, pc_dtype cd)
{
    return compute == PC_COMPUTE_BENCH && cd == PC_DTYPE_F64 && pc_dtype_is_float(p->xd) &&
           p->N > 1 && (!p->b || (p->b->rank == 1 && p->b->shape[0] == p->N)) &&
           (p->N * p->K * 8 > PANEL_BYTES || p->M * p->N * 8 > PANEL_BYTES);
}

/* Rows per panel of the weight: the panel of W (rows x K) and of the result or the gradient
 * (M x rows) in double each within PANEL_BYTES / 2, 64 rows at least. */
static int64_t panel_rows(const linear_plan *p)
{
    int64_t cap = PANEL_BYTES / 2 / 8, rows = p->N;
    if (p->K > 0 && rows > cap / p->K)
        rows = cap / p->K;
    if (p->M > 0 && rows > cap / p->M)
        rows = cap / p->M;
    return rows < 64 ? 64 : rows;
}

/* Columns n0 .. n0 + nb - 1 of the rows of t (any shape whose last dimension is N) into dst
 * (M x nb doubles). */
static void read_columns(const pc_tensor *t, int64_t M, int64_t N, int64_t n0, int64_t nb,
                         double *dst)
{
    for (int64_t i = 0; i < M; i++)
        pc_kernel_read(t, i * N + n0, nb, PC_DTYPE_F64, dst + i * nb);
}

/* The bench's linear in panels of the weight's rows: forward (y, when y is not NULL) or backward
 * (dx, dw, db where wanted, from g). x is loaded whole in double; per panel, that panel of W
 * (and of g) is. */
static pc_status linear_bench_panels(const pc_op_call *call, const linear_plan *p,
                                     const pc_tensor *g, pc_tensor *y, pc_tensor *dx, pc_tensor *dw,
                                     pc_tensor *db)
{
    const pc_dtype cd = PC_DTYPE_F64;
    int64_t rows = panel_rows(p);
    pc_tensor x = PC_TENSOR_NULL, wp = PC_TENSOR_NULL, cp = PC_TENSOR_NULL, acc = PC_TENSOR_NULL,
              dwp = PC_TENSOR_NULL, bias = PC_TENSOR_NULL;
    int64_t ws[2] = {rows, p->K}, cs[2] = {p->M, rows}, xs[2] = {p->M, p->K};
    pc_status st = PC_OK;
    bool need_x = y || dw, need_w = y || dx;
    if ((need_x && (st = pc_kernel_load_ro(call, p->x, cd, &x)) != PC_OK) ||
        (need_w && (st = alloc_out(call, cd, ws, 2, &wp)) != PC_OK) ||
        (st = alloc_out(call, cd, cs, 2, &cp)) != PC_OK ||
        (dx && (st = alloc_buf(call, cd, xs, 2, &acc)) != PC_OK) ||
        (dw && (st = alloc_out(call, cd, ws, 2, &dwp)) != PC_OK))
        goto done;
    if (y && p->b) {
        int64_t bs[1] = {p->N};
        if ((st = pc_kernel_load_expand(call, p->b, bs, 1, cd, &bias)) != PC_OK)
            goto done;
    }
    if (db) {
        int64_t bs[1] = {p->N};
        if ((st = alloc_buf(call, cd, bs, 1, &bias)) != PC_OK)
            goto done;
    }
    for (int64_t n0 = 0; n0 < p->N; n0 += rows) {
        int64_t nb = p->N - n0 < rows ? p->N - n0 : rows;
        const double *W = pc_tensor_data(&wp);
        double *C = pc_tensor_data(&cp);
        if (need_w) /* in place where the weight is float64 already */
            W = pc_kernel_read_ro(p->w, n0 * p->K, nb * p->K, cd, pc_tensor_data(&wp));
        if (y) {
            pc_blas_gemm(cd, false, true, p->M, nb, p->K, 1.0, pc_tensor_data(&x), p->K, W, p->K,
                         0.0, C, nb);
            const double *b = p->b ? (const double *)pc_tensor_data(&bias) + n0 : NULL;
            for (int64_t i = 0; i < p->M; i++) {
                if (b)
                    for (int64_t j = 0; j < nb; j++)
                        C[i * nb + j] += b[j];
                pc_kernel_write(y, i * p->N + n0, nb, C + i * nb, cd);
            }
            continue;
        }
        read_columns(g, p->M, p->N, n0, nb, C); /* this panel of the gradient */
        if (dx)                                 /* dx += g[:, panel] W[panel, :] */
            pc_blas_gemm(cd, false, false, p->M, p->K, nb, 1.0, C, nb, W, p->K, n0 ? 1.0 : 0.0,
                         pc_tensor_data(&acc), p->K);
        if (dw) { /* dw[panel, :] = g[:, panel]^T x */
            pc_blas_gemm(cd, true, false, nb, p->K, p->M, 1.0, C, nb, pc_tensor_data(&x), p->K, 0.0,
                         pc_tensor_data(&dwp), p->K);
            pc_kernel_write(dw, n0 * p->K, nb * p->K, pc_tensor_data(&dwp), cd);
        }
        if (db) {
            double *b = (double *)pc_tensor_data(&bias) + n0;
            for (int64_t j = 0; j < nb; j++)
                b[j] = 0;
            for (int64_t i = 0; i < p->M; i++)
                for (int64_t j = 0; j < nb; j++)
                    b[j] += C[i * nb + j];
        }
    }
    if (dx) {
        pc_tensor_free(&x);
        pc_tensor_free(&wp);
        pc_tensor_free(&cp);
        st = store_grad(call, &acc, p->x, dx);
        if (st != PC_OK)
            goto done;
    }
    if (db) {
        st = store_grad(call, &bias, p->b, db);
        if (st != PC_OK)
            goto done;
    }
done:
    pc_tensor_free(&x);
    pc_tensor_free(&wp);
    pc_tensor_free(&cp);
    pc_tensor_free(&acc);
    pc_tensor_free(&dwp);
    pc_tensor_free(&bias);
    return st;
}

pc_status pc_k_linear_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    linear_plan p;
    pc_status st = linear_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    pc_dtype cd = compute_of(compute, p.xd);
    if (use_panels(&p, compute, cd)) {
        /* written whole, a panel of columns at a time */
        st = pc_tensor_alloc_uninit(&out->tensors[0], p.xd, p.oshape, p.orank);
        if (st == PC_OK)
            st = linear_bench_panels(call, &p, NULL, &out->tensors[0], NULL, NULL, NULL);
        if (st != PC_OK)
            pc_tensor_free(&out->tensors[0]);
        else
            out->count = 1;
        return st;
    }
    pc_tensor x = PC_TENSOR_NULL, w = PC_TENSOR_NULL, c = PC_TENSOR_NULL, b = PC_TENSOR_NULL;
    int64_t cshape[2] = {p.M, p.N};
    /* torch adds the bias through the GEMM's beta for 2-D and 3-D inputs, after it else */
    bool fused = p.b && (p.x->rank == 2 || p.x->rank == 3);
    /* the bias (at most 1-D: linear_plan_make) is loaded as one row and repeated per row */
    if ((st = pc_kernel_load_ro(call, p.x, cd, &x)) != PC_OK ||
        (st = pc_kernel_load_ro(call, p.w, cd, &w)) != PC_OK)
        goto done;
    if (p.b)
        st = pc_kernel_load_expand(call, p.b, cshape + 1, 1, cd, &b);
    if (st == PC_OK)
        st = alloc_out(call, cd, cshape, 2, &c); /* the bias rows or beta 0 */
    if (st != PC_OK)
        goto done;
    size_t es = pc_dtype_size(cd);
    if (fused)
        for (int64_t i = 0; i < p.M; i++)
            memcpy((char *)pc_tensor_data(&c) + (size_t)(i * p.N) * es, pc_tensor_data(&b),
                   (size_t)p.N * es);
    pc_blas_gemm(cd, false, true, p.M, p.N, p.K, 1.0, pc_tensor_data(&x), p.K, pc_tensor_data(&w),
                 p.K, fused ? 1.0 : 0.0, pc_tensor_data(&c), p.N);
    /* the operands are done with: freed before the result is stored */
    pc_tensor_free(&x);
    pc_tensor_free(&w);
    if (p.b && !fused) {
        for (int64_t o = 0; o < p.M * p.N; o += p.N) {
            if (cd == PC_DTYPE_F64) {
                double *cv = (double *)pc_tensor_data(&c) + o;
                const double *bv = pc_tensor_data(&b);
                for (int64_t i = 0; i < p.N; i++)
                    cv[i] += bv[i];
            } else {
                float *cv = (float *)pc_tensor_data(&c) + o;
                const float *bv = pc_tensor_data(&b);
                for (int64_t i = 0; i < p.N; i++)
                    cv[i] += bv[i];
            }
        }
    }
    pc_tensor_free(&b);
    st = pc_kernel_store(call, &c, p.xd, p.oshape, p.orank, &out->tensors[0]);
    if (st == PC_OK)
        out->count = 1;
done:
    pc_tensor_free(&x);
    pc_tensor_free(&w);
    pc_tensor_free(&c);
    pc_tensor_free(&b);
    return st;
}

pc_status pc_k_linear_backward(const pc_op_call *call, pc_compute compute,
                               const pc_tensor *grad_out, pc_op_grads *out)
{
    linear_plan p;
    pc_status st = linear_plan_make(call, &p);
    if (st != PC_OK || !pc_dtype_is_float(p.xd))
        return st;
    pc_dtype cd = compute_of(compute, p.xd);
    if (use_panels(&p, compute, cd)) {
        bool gx = pc_kernel_wants_grad(call, 0), gw = pc_kernel_wants_grad(call, 1),
             gb = p.b && pc_kernel_wants_grad(call, 2);
        if (gw && (st = pc_tensor_alloc_uninit(&out->grads[1], p.wd, p.w->shape, p.w->rank)) !=
                      PC_OK) /* written whole, a panel of rows at a time */
            return st;
        st = linear_bench_panels(call, &p, grad_out, NULL, gx ? &out->grads[0] : NULL,
                                 gw ? &out->grads[1] : NULL, gb ? &out->grads[2] : NULL);
        return st;
    }
    pc_tensor g = PC_TENSOR_NULL, x = PC_TENSOR_NULL, w = PC_TENSOR_NULL, r = PC_TENSOR_NULL;
    int64_t gshape[2] = {p.M, p.N};
    /* g is only read (a contiguous gradient of the compute dtype is not copied) */
    if ((st = pc_kernel_load_ro(call, grad_out, cd, &g)) != PC_OK ||
        (st = pc_tensor_reshape(&g, &g, gshape, 2)) != PC_OK)
        goto done;
    if (pc_kernel_wants_grad(call, 0)) {
        int64_t s[2] = {p.M, p.K};
        if ((st = pc_kernel_load_ro(call, p.w, cd, &w)) != PC_OK ||
            (st = alloc_out(call, cd, s, 2, &r)) != PC_OK)
            goto done;
        pc_blas_gemm(cd, false, false, p.M, p.K, p.N, 1.0, pc_tensor_data(&g), p.N,
                     pc_tensor_data(&w), p.K, 0.0, pc_tensor_data(&r), p.K);
        pc_tensor_free(&w); /* before the result is stored */
        if ((st = store_grad(call, &r, p.x, &out->grads[0])) != PC_OK)
            goto done;
    }
    if (pc_kernel_wants_grad(call, 1)) {
        int64_t s[2] = {p.N, p.K};
        if ((st = pc_kernel_load_ro(call, p.x, cd, &x)) != PC_OK ||
            (st = alloc_out(call, cd, s, 2, &r)) != PC_OK)
            goto done;
        pc_blas_gemm(cd, true, false, p.N, p.K, p.M, 1.0, pc_tensor_data(&g), p.N,
                     pc_tensor_data(&x), p.K, 0.0, pc_tensor_data(&r), p.K);
        pc_tensor_free(&x);
        if ((st = store_grad(call, &r, p.w, &out->grads[1])) != PC_OK)
            goto done;
    }
    if (p.b && pc_kernel_wants_grad(call, 2)) {
        if ((st = pc_kernel_sum_to(call, &g, p.b->shape, p.b->rank, &r)) != PC_OK ||
            (st = store_grad(call, &r, p.b, &out->grads[2])) != PC_OK)
            goto done;
    }
done:
    pc_tensor_free(&g);
    pc_tensor_free(&x);
    pc_tensor_free(&w);
    pc_tensor_free(&r);
    return st;
}

/* ---- matmul, mm, bmm, addmm, baddbmm ---- */

typedef enum mm_path { MM_DOT, MM_MV, MM_GEMM, MM_BATCHED } mm_path;

typedef struct mm_plan {
    int kind;
    mm_path path;
    const pc_tensor *a, *b, *in; /* in: the addend of addmm/baddbmm */
    pc_dtype ad; /* the dtype a (and b) stand for: the bench may raise them as it reads */
    double alpha, beta;
    int64_t nb, n, m, p;
    /* batched: a and b as 3-D-able shapes with their batch dims (1-D operands get the 1) and
     * the broadcast batch shape */
    int64_t ash[PC_TENSOR_MAX_DIMS], bsh[PC_TENSOR_MAX_DIMS];
    int arank, brank;
    int64_t eash[PC_TENSOR_MAX_DIMS], ebsh[PC_TENSOR_MAX_DIMS];
    int erank;
    int64_t osh[PC_TENSOR_MAX_DIMS];
    int orank;
} mm_plan;

static pc_status mm_plan_batched(const pc_op_call *call, mm_plan *q)
{
    const pc_tensor *a = q->a, *b = q->b;
    q->arank = a->rank == 1 ? 2 : a->rank;
    q->brank = b->rank == 1 ? 2 : b->rank;
    if (a->rank == 1) {
        q->ash[0] = 1;
        q->ash[1] = a->shape[0];
    } else {
        memcpy(q->ash, a->shape, sizeof q->ash);
    }
    if (b->rank == 1) {
        q->bsh[0] = b->shape[0];
        q->bsh[1] = 1;
    } else {
        memcpy(q->bsh, b->shape, sizeof q->bsh);
    }
    q->n = q->ash[q->arank - 2];
    q->m = q->ash[q->arank - 1];
    q->p = q->bsh[q->brank - 1];
    int br;
    int64_t batch[PC_TENSOR_MAX_DIMS];
    pc_status st = pc_broadcast_shapes(q->ash, q->arank - 2, q->bsh, q->brank - 2, batch, &br);
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    if (q->bsh[q->brank - 2] != q->m)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: Expected size for first two dimensions of batch2 tensor to be: "
                            "[%" PRId64 ", %" PRId64 "] but got: [%" PRId64 ", %" PRId64 "].",
                            call->full_name, q->arank > 2 ? q->ash[0] : 1, q->m,
                            q->brank > 2 ? q->bsh[0] : 1, q->bsh[q->brank - 2]);
    q->erank = br + 2;
    q->nb = 1;
    for (int i = 0; i < br; i++) {
        q->eash[i] = q->ebsh[i] = q->osh[i] = batch[i];
        q->nb *= batch[i];
    }
    q->eash[br] = q->n;
    q->eash[br + 1] = q->m;
    q->ebsh[br] = q->m;
    q->ebsh[br + 1] = q->p;
    q->orank = br;
    if (a->rank > 1)
        q->osh[q->orank++] = q->n;
    if (b->rank > 1)
        q->osh[q->orank++] = q->p;
    return PC_OK;
}

static pc_status mm_plan_make(const pc_op_call *call, mm_plan *q)
{
    memset(q, 0, sizeof *q);
    q->kind = call->op->param;
    bool addend = q->kind == PC_LINALG_ADDMM || q->kind == PC_LINALG_BADDBMM;
    q->in = addend ? pc_call_tensor(call, 0) : NULL;
    q->a = pc_call_tensor(call, addend ? 1 : 0);
    q->b = pc_call_tensor(call, addend ? 2 : 1);
    q->beta = addend ? call->args[3].f : 1.0;
    q->alpha = addend ? call->args[4].f : 1.0;
    pc_status st = pc_kernel_same_dtype(call, q->a, q->b);
    if (st != PC_OK)
        return st;
    q->ad = pc_kernel_dtype(call, q->a);
    if (pc_dtype_is_complex(q->ad) || q->ad == PC_DTYPE_BOOL)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: %s of %s tensors is not supported",
                            call->full_name, call->op->name, pc_dtype_name(q->ad));
    int ra = q->a->rank, rb = q->b->rank;
    switch (q->kind) {
    case PC_LINALG_MM:
    case PC_LINALG_ADDMM:
        if (ra != 2)
            return pc_error_set(PC_ERR_INVALID, "%s: self must be a matrix", call->full_name);
        if (rb != 2)
            return pc_error_set(PC_ERR_INVALID, "%s: mat2 must be a matrix", call->full_name);
        break;
    case PC_LINALG_BMM:
    case PC_LINALG_BADDBMM:
        if (ra != 3)
            return pc_error_set(PC_ERR_INVALID, "%s: batch1 must be a 3D tensor", call->full_name);
        if (rb != 3)
            return pc_error_set(PC_ERR_INVALID, "%s: batch2 must be a 3D tensor", call->full_name);
        if (q->b->shape[0] != q->a->shape[0] || q->b->shape[1] != q->a->shape[2])
            return pc_error_set(
                PC_ERR_INVALID,
                "%s: Expected size for first two dimensions of batch2 tensor to "
                "be: [%" PRId64 ", %" PRId64 "] but got: [%" PRId64 ", %" PRId64 "].",
                call->full_name, q->a->shape[0], q->a->shape[2], q->b->shape[0], q->b->shape[1]);
        break;
    default:
        if (ra == 0 || rb == 0)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: both arguments to matmul need to be at least 1D, but they "
                                "are %dD and %dD",
                                call->full_name, ra, rb);
        break;
    }
    if (q->kind == PC_LINALG_BMM || q->kind == PC_LINALG_BADDBMM || (ra >= 3 && rb >= 3) ||
        (ra <= 2 && rb >= 3)) {
        q->path = MM_BATCHED;
        if ((st = mm_plan_batched(call, q)) != PC_OK)
            return st;
    } else if (ra == 1 && rb == 1) {
        q->path = MM_DOT;
        q->n = q->p = 1;
        q->m = q->a->shape[0];
        if (q->b->shape[0] != q->m)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: inconsistent tensor size, expected tensor [%" PRId64
                                "] and src [%" PRId64
                                "] to have the same number of elements, but got %" PRId64
                                " and %" PRId64 " elements respectively",
                                call->full_name, q->m, q->b->shape[0], q->m, q->b->shape[0]);
        q->orank = 0;
    } else if (ra >= 2 && rb == 1) {
        /* a matrix-vector product, N-D x 1-D with the batch folded into the rows */
        q->path = MM_MV;
        q->m = q->a->shape[ra - 1];
        q->n = 1;
        for (int i = 0; i + 1 < ra; i++)
            q->n *= q->a->shape[i];
        q->p = 1;
        if (q->b->shape[0] != q->m)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: size mismatch, got input (%" PRId64 "), mat (%" PRId64
                                "x%" PRId64 "), vec (%" PRId64 ")",
                                call->full_name, q->n, q->n, q->m, q->b->shape[0]);
        q->orank = ra - 1;
        memcpy(q->osh, q->a->shape, sizeof(int64_t) * (size_t)(ra - 1));
    } else {
        /* 2-D (or 1-D as one row) x 2-D, and N-D x 1-D/2-D with the batch folded into rows */
        q->path = MM_GEMM;
        q->m = q->a->shape[ra - 1];
        q->n = 1;
        for (int i = 0; i + 1 < ra; i++)
            q->n *= q->a->shape[i];
        q->p = rb == 2 ? q->b->shape[1] : 1;
        if (q->b->shape[0] != q->m)
            return shapes_error(call, q->n, q->m, q->b->shape[0], rb == 2 ? q->b->shape[1] : 1);
        q->orank = 0;
        for (int i = 0; i + 1 < ra; i++)
            q->osh[q->orank++] = q->a->shape[i];
        if (rb == 2)
            q->osh[q->orank++] = q->p;
    }
    if (!fits_blas(q->n) || !fits_blas(q->m) || !fits_blas(q->p))
        return too_large(call);
    if (q->in) {
        /* the addend broadcasts to the result */
        int64_t rs[3] = {q->nb, q->n, q->p};
        const int64_t *want = q->kind == PC_LINALG_ADDMM ? rs + 1 : rs;
        int wr = q->kind == PC_LINALG_ADDMM ? 2 : 3;
        int64_t tmp[PC_TENSOR_MAX_DIMS];
        int r;
        if (pc_broadcast_shapes(q->in->shape, q->in->rank, want, wr, tmp, &r) != PC_OK || r != wr ||
            memcmp(tmp, want, sizeof(int64_t) * (size_t)wr) != 0) {
            char a[PC_SHAPE_FORMAT_MAX], b[PC_SHAPE_FORMAT_MAX];
            pc_shape_format(a, sizeof a, q->in->shape, q->in->rank);
            pc_shape_format(b, sizeof b, want, wr);
            return pc_error_set(PC_ERR_INVALID,
                                "%s: The expanded size of the tensor %s must match the result %s",
                                call->full_name, a, b);
        }
    }
    return PC_OK;
}

/* The result dims [nb, n, p] (or [n, p]) of the GEMM-shaped paths. */
static int mm_cshape(const mm_plan *q, int64_t *s)
{
    if (q->path == MM_BATCHED) {
        s[0] = q->nb;
        s[1] = q->n;
        s[2] = q->p;
        return 3;
    }
    s[0] = q->n;
    s[1] = q->p;
    return 2;
}

/* Loads a and b in their compute shapes: batched ones expanded to [nb, n, m] / [nb, m, p]. */
static pc_status mm_load(const pc_op_call *call, const mm_plan *q, pc_dtype cd, pc_tensor *a,
                         pc_tensor *b)
{
    pc_status st;
    if (q->path != MM_BATCHED) {
        if ((st = pc_kernel_load_ro(call, q->a, cd, a)) != PC_OK)
            return st;
        return pc_kernel_load_ro(call, q->b, cd, b);
    }
    pc_tensor va = PC_TENSOR_NULL, vb = PC_TENSOR_NULL;
    st = pc_tensor_reshape(&va, q->a, q->ash, q->arank);
    if (st != PC_OK && (st = pc_tensor_contiguous(&va, q->a)) == PC_OK)
        st = pc_tensor_reshape(&va, &va, q->ash, q->arank);
    if (st == PC_OK)
        st = pc_kernel_load_expand(call, &va, q->eash, q->erank, cd, a);
    if (st == PC_OK) {
        st = pc_tensor_reshape(&vb, q->b, q->bsh, q->brank);
        if (st != PC_OK && (st = pc_tensor_contiguous(&vb, q->b)) == PC_OK)
            st = pc_tensor_reshape(&vb, &vb, q->bsh, q->brank);
        if (st == PC_OK)
            st = pc_kernel_load_expand(call, &vb, q->ebsh, q->erank, cd, b);
    }
    pc_tensor_free(&va);
    pc_tensor_free(&vb);
    return st == PC_OK ? st : pc_error_prefix(st, "%s", call->full_name);
}

/* y[b, j] = sum_k B[b, k, j] a[k] for nb batches: a matrix-vector product on B^T
 * (contiguous). */
static pc_status fold_mv(const pc_op_call *call, const mm_plan *q, int64_t nb, pc_dtype cd,
                         const void *A, const void *B, void *C)
{
    size_t es = pc_dtype_size(cd);
    char *bt = malloc((size_t)(q->m * q->p + 1) * es);
    if (!bt)
        return pc_kernel_nomem(call);
    for (int64_t b = 0; b < nb; b++) {
        const char *src = (const char *)B + (size_t)(b * q->m * q->p) * es;
        for (int64_t k = 0; k < q->m; k++)
            for (int64_t j = 0; j < q->p; j++)
                memcpy(bt + (size_t)(j * q->m + k) * es, src + (size_t)(k * q->p + j) * es, es);
        void *y = (char *)C + (size_t)(b * q->p) * es;
        pc_blas_gemv(cd, false, q->p, q->m, bt, q->m, A, y);
    }
    free(bt);
    return PC_OK;
}

/* ---- the batched paths, a batch at a time ----
 * Per batch the operands are read (converted) into scratch, the product runs as the same BLAS
 * call (or plain loop) the whole-tensor path makes for that batch, and the result is stored
 * straight into the output: scratch of one batch's three matrices instead of every batch in
 * the compute dtype. */

/* The batch of an operand (batch dims sh[0 .. rank - 3], right-aligned to the broadcast
 * batch, size-1 dims broadcast) that broadcast batch k reads. */
static int64_t mm_batch_of(const mm_plan *q, const int64_t *sh, int rank, int64_t k)
{
    int br = q->erank - 2, nbd = rank - 2;
    int64_t idx = 0, stride = 1;
    for (int d = br - 1; d >= 0; d--) {
        int64_t i = k % q->eash[d];
        k /= q->eash[d];
        int od = d - (br - nbd);
        if (od >= 0) {
            if (sh[od] != 1)
                idx += i * stride;
            stride *= sh[od];
        }
    }
    return idx;
}

/* The number of batches of an operand's own batch dims. */
static int64_t mm_operand_batches(const int64_t *sh, int rank)
{
    int64_t nb = 1;
    for (int d = 0; d + 2 < rank; d++)
        nb *= sh[d];
    return nb;
}

typedef struct mm_scratch {
    char *a, *b, *c;
} mm_scratch;

static pc_status mm_scratch_make(const pc_op_call *call, size_t es, int64_t na, int64_t nb,
                                 int64_t nc, mm_scratch *s)
{
    s->a = malloc((size_t)(na + nb + nc + 3) * es);
    if (!s->a)
        return pc_kernel_nomem(call);
    s->b = s->a + (size_t)(na + 1) * es;
    s->c = s->b + (size_t)(nb + 1) * es;
    return PC_OK;
}

static pc_status mm_forward_batched(const pc_op_call *call, const mm_plan *q, pc_dtype cd,
                                    pc_tensor *out)
{
    int64_t na = q->n * q->m, nbm = q->m * q->p, nc = q->n * q->p;
    size_t es = pc_dtype_size(cd);
    bool add = q->in && q->beta != 0;
    int64_t cs[3] = {q->nb, q->n, q->p};
    pc_tensor in = PC_TENSOR_NULL;
    mm_scratch s = {NULL, NULL, NULL};
    /* (every batch is written whole below) */
    pc_status st = pc_tensor_alloc_uninit(out, q->ad, q->osh, q->orank);
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    if ((st = mm_scratch_make(call, es, na, nbm, nc, &s)) != PC_OK)
        goto fail;
    if (add && (st = pc_tensor_expand(&in, q->in, cs, 3)) != PC_OK) {
        st = pc_error_prefix(st, "%s", call->full_name);
        goto fail;
    }
    for (int64_t k = 0; k < q->nb; k++) {
        /* operands read where they lie already, the result computed where it goes, when the
         * dtypes allow (pc_kernel_read_ro, pc_kernel_write_at: the same values) */
        const void *A =
            pc_kernel_read_ro(q->a, mm_batch_of(q, q->ash, q->arank, k) * na, na, cd, s.a);
        const void *B =
            pc_kernel_read_ro(q->b, mm_batch_of(q, q->bsh, q->brank, k) * nbm, nbm, cd, s.b);
        void *C = pc_kernel_write_at(out, k * nc, cd, s.c);
        if (add)
            pc_kernel_read(&in, k * nc, nc, cd, C);
        else
            memset(C, 0, (size_t)nc * es);
        if (q->kind == PC_LINALG_MATMUL && q->a->rank == 1) {
            /* torch folds a 1-D x N-D matmul into a matrix-vector product of B^T */
            if ((st = fold_mv(call, q, 1, cd, A, B, C)) != PC_OK)
                goto fail;
        } else if (q->kind == PC_LINALG_MATMUL && q->a->rank == 2) {
            /* torch folds a 2-D x N-D matmul into one GEMM: per batch, the same sums */
            pc_blas_gemm(cd, false, false, q->n, q->p, q->m, 1.0, A, q->m, B, q->p, 0.0, C, q->p);
        } else {
            bmm_run(cd, 1, q->n, q->p, q->m, A, false, B, false, C, q->in != NULL, q->alpha,
                    q->beta);
        }
        if (C == s.c)
            pc_kernel_write(out, k * nc, nc, s.c, cd);
    }
    free(s.a);
    pc_tensor_free(&in);
    return PC_OK;
fail:
    free(s.a);
    pc_tensor_free(&in);
    pc_tensor_free(out);
    return st;
}

/* buf (n values of dtype cd) times alpha: rounded to t's dtype first on the device (the
 * product is a tensor between two ops); torch's maybe_multiply: nothing when alpha is 1. */
static void mm_scale_n(void *buf, pc_dtype cd, int64_t n, double alpha, pc_compute compute,
                       pc_dtype td)
{
    if (alpha == 1.0)
        return;
    if (compute == PC_COMPUTE_DEVICE)
        pc_kernel_round_n(buf, cd, n, td);
    if (cd == PC_DTYPE_F64) {
        double *x = buf;
        for (int64_t i = 0; i < n; i++)
            x[i] *= alpha;
    } else {
        float *x = buf, fs = (float)alpha;
        for (int64_t i = 0; i < n; i++)
            x[i] *= fs;
    }
}

/* dA (which 0) or dB (which 1) of a batched product whose operand has every batch of the
 * broadcast (nothing to sum), a batch at a time into *out (the operand's dtype and shape). */
static pc_status mm_grad_batched(const pc_op_call *call, const mm_plan *q, pc_compute compute,
                                 pc_dtype cd, const pc_tensor *grad_out, int which, pc_tensor *out)
{
    const pc_tensor *t = which == 0 ? q->a : q->b;
    pc_dtype td = pc_kernel_dtype(call, t);
    int64_t na = q->n * q->m, nbm = q->m * q->p, ng = q->n * q->p;
    int64_t nr = which == 0 ? na : nbm, no = which == 0 ? nbm : na;
    size_t es = pc_dtype_size(cd);
    mm_scratch s = {NULL, NULL,
                    NULL}; /* s.a: the other operand, s.b: the gradient, s.c: the result */
    /* (every batch is written whole below) */
    pc_status st = pc_tensor_alloc_uninit(out, td, t->shape, t->rank);
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    if ((st = mm_scratch_make(call, es, no, ng, nr, &s)) != PC_OK) {
        pc_tensor_free(out);
        return st;
    }
    for (int64_t k = 0; k < q->nb; k++) { /* (as mm_forward_batched: in place where it can) */
        const void *G = pc_kernel_read_ro(grad_out, k * ng, ng, cd, s.b), *O;
        void *C = pc_kernel_write_at(out, k * nr, cd, s.c);
        if (which == 0) {
            O = pc_kernel_read_ro(q->b, mm_batch_of(q, q->bsh, q->brank, k) * nbm, nbm, cd, s.a);
            bmm_run(cd, 1, q->n, q->m, q->p, G, false, O, true, C, false, 1.0, 0.0);
        } else {
            O = pc_kernel_read_ro(q->a, mm_batch_of(q, q->ash, q->arank, k) * na, na, cd, s.a);
            if (q->kind == PC_LINALG_MATMUL && q->a->rank <= 2)
                pc_blas_gemm(cd, true, false, q->m, q->p, q->n, 1.0, O, q->m, G, q->p, 0.0, C,
                             q->p);
            else
                bmm_run(cd, 1, q->m, q->p, q->n, O, true, G, false, C, false, 1.0, 0.0);
        }
        mm_scale_n(C, cd, nr, q->alpha, compute, td);
        if (C == s.c)
            pc_kernel_write(out, k * nr, nr, s.c, cd);
    }
    free(s.a);
    return PC_OK;
}

pc_status pc_k_matmul_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    mm_plan q;
    pc_status st = mm_plan_make(call, &q);
    if (st != PC_OK)
        return st;
    pc_dtype cd = compute_of(compute, q.ad);
    if (q.path == MM_BATCHED) {
        if ((st = mm_forward_batched(call, &q, cd, &out->tensors[0])) == PC_OK)
            out->count = 1;
        return st;
    }
    pc_tensor a = PC_TENSOR_NULL, b = PC_TENSOR_NULL, c = PC_TENSOR_NULL, prod = PC_TENSOR_NULL;
    if ((st = mm_load(call, &q, cd, &a, &b)) != PC_OK)
        goto done;
    int64_t cs[3];
    int cr = mm_cshape(&q, cs);
    bool add = q.in && q.beta != 0;
    if (add)
        st = pc_kernel_load_expand(call, q.in, cs, cr, cd, &c);
    else
        st = alloc_buf(call, cd, cs, cr, &c);
    if (st != PC_OK)
        goto done;
    void *C = pc_tensor_data(&c);
    const void *A = pc_tensor_data(&a), *B = pc_tensor_data(&b);
    switch (q.path) {
    case MM_DOT:
        if (cd == PC_DTYPE_F64)
            *(double *)C = pc_blas_dot(cd, q.m, A, B);
        else
            *(float *)C = (float)pc_blas_dot(cd, q.m, A, B);
        break;
    case MM_MV:
        pc_blas_gemv(cd, false, q.n, q.m, A, q.m, B, C);
        break;
    case MM_GEMM:
        if (!q.in) {
            pc_blas_gemm(cd, false, false, q.n, q.p, q.m, 1.0, A, q.m, B, q.p, 0.0, C, q.p);
        } else if ((st = alloc_buf(call, cd, cs, cr, &prod)) == PC_OK) {
            /* torch's addmm equals the product and then beta in + alpha P */
            pc_blas_gemm(cd, false, false, q.n, q.p, q.m, 1.0, A, q.m, B, q.p, 0.0,
                         pc_tensor_data(&prod), q.p);
            axpby(&c, add ? q.beta : 0.0, &prod, q.alpha);
        }
        break;
    case MM_BATCHED: /* mm_forward_batched */
        break;
    }
    /* the operands are done with: freed before the result is stored */
    pc_tensor_free(&a);
    pc_tensor_free(&b);
    pc_tensor_free(&prod);
    if (st == PC_OK)
        st = pc_kernel_store(call, &c, q.ad, q.osh, q.orank, &out->tensors[0]);
    if (st == PC_OK)
        out->count = 1;
done:
    pc_tensor_free(&a);
    pc_tensor_free(&b);
    pc_tensor_free(&c);
    pc_tensor_free(&prod);
    return st;
}

/* The gradient buffer r (the broadcast compute shape of operand t, whose own shape with its
 * batch dims is sh/rank) to t: alpha applied, batch dims summed, t's dtype and shape. */
static pc_status mm_finish_grad(const pc_op_call *call, const mm_plan *q, pc_compute compute,
                                pc_tensor *r, const int64_t *esh, const int64_t *sh, int rank,
                                double alpha, const pc_tensor *t, pc_tensor *out)
{
    pc_status st = PC_OK;
    if (alpha != 1.0) {
        if (compute == PC_COMPUTE_DEVICE)
            pc_kernel_round(r, pc_kernel_dtype(call, t));
        scale_buf(r, alpha);
    }
    if (q->path == MM_BATCHED) {
        pc_tensor s = PC_TENSOR_NULL;
        if ((st = pc_tensor_reshape(r, r, esh, q->erank)) == PC_OK &&
            (st = pc_kernel_sum_to(call, r, sh, rank, &s)) == PC_OK) {
            pc_tensor_free(r);
            *r = s;
        }
    }
    if (st == PC_OK)
        return store_grad(call, r, t, out);
    pc_tensor_free(r);
    return st;
}

/* dA of a 2-D x N-D matmul as torch's fold computes it: one GEMM whose sums run over the
 * batch and the columns together, R[n, m] (broadcast buffer [nb, n, m]: the sum lands in
 * batch 0, the others are zero). */
static pc_status fold_grad_a(const pc_op_call *call, const mm_plan *q, pc_dtype cd, const void *G,
                             const void *B, void *R)
{
    size_t es = pc_dtype_size(cd);
    int64_t kk = q->nb * q->p;
    char *gc = malloc((size_t)(q->n * kk + 1) * es);
    char *bc = malloc((size_t)(q->m * kk + 1) * es);
    if (!gc || !bc) {
        free(gc);
        free(bc);
        return pc_kernel_nomem(call);
    }
    for (int64_t b = 0; b < q->nb; b++)
        for (int64_t j = 0; j < q->p; j++) {
            for (int64_t i = 0; i < q->n; i++)
                memcpy(gc + (size_t)(i * kk + b * q->p + j) * es,
                       (const char *)G + (size_t)((b * q->n + i) * q->p + j) * es, es);
            for (int64_t k = 0; k < q->m; k++)
                memcpy(bc + (size_t)(k * kk + b * q->p + j) * es,
                       (const char *)B + (size_t)((b * q->m + k) * q->p + j) * es, es);
        }
    memset(R, 0, (size_t)(q->nb * q->n * q->m) * es);
    pc_blas_gemm(cd, false, true, q->n, q->m, kk, 1.0, gc, kk, bc, kk, 0.0, R, q->m);
    free(gc);
    free(bc);
    return PC_OK;
}

pc_status pc_k_matmul_backward(const pc_op_call *call, pc_compute compute,
                               const pc_tensor *grad_out, pc_op_grads *out)
{
    mm_plan q;
    pc_status st = mm_plan_make(call, &q);
    if (st != PC_OK || !pc_dtype_is_float(q.ad))
        return st;
    int ia = q.in ? 1 : 0, ib = ia + 1;
    bool ga = pc_kernel_wants_grad(call, ia), gb = pc_kernel_wants_grad(call, ib);
    bool gi = q.in && pc_kernel_wants_grad(call, 0);
    if (!ga && !gb && !gi)
        return PC_OK;
    pc_dtype cd = compute_of(compute, q.ad);
    if (q.path == MM_BATCHED) {
        /* a batch at a time where the operand has every batch (nothing to sum over them) and
         * the product is not the folded 2-D x N-D one */
        if (ga && (q.kind != PC_LINALG_MATMUL || q.a->rank != 2) &&
            mm_operand_batches(q.ash, q.arank) == q.nb) {
            if ((st = mm_grad_batched(call, &q, compute, cd, grad_out, 0, &out->grads[ia])) !=
                PC_OK)
                return st;
            ga = false;
        }
        if (gb && mm_operand_batches(q.bsh, q.brank) == q.nb) {
            if ((st = mm_grad_batched(call, &q, compute, cd, grad_out, 1, &out->grads[ib])) !=
                PC_OK)
                return st;
            gb = false;
        }
        if (!ga && !gb && !gi)
            return PC_OK;
    }
    pc_tensor a = PC_TENSOR_NULL, b = PC_TENSOR_NULL, g = PC_TENSOR_NULL, r = PC_TENSOR_NULL;
    int64_t cs[3];
    int cr = mm_cshape(&q, cs);
    if ((st = mm_load(call, &q, cd, &a, &b)) != PC_OK ||
        (st = pc_kernel_load(call, grad_out, cd, &g)) != PC_OK)
        goto done;
    if (q.path != MM_DOT && (st = pc_tensor_reshape(&g, &g, cs, cr)) != PC_OK)
        goto done;
    const void *A = pc_tensor_data(&a), *B = pc_tensor_data(&b), *G = pc_tensor_data(&g);
    bool dbl = cd == PC_DTYPE_F64;
    if (ga) {
        int64_t s3[3] = {q.nb, q.n, q.m};
        if (q.path == MM_BATCHED)
            st = alloc_buf(call, cd, s3, 3, &r);
        else if (q.path == MM_GEMM)
            st = alloc_buf(call, cd, s3 + 1, 2, &r);
        else
            st = alloc_buf(call, cd, q.a->shape, q.a->rank, &r);
        if (st != PC_OK)
            goto done;
        void *R = pc_tensor_data(&r);
        switch (q.path) {
        case MM_DOT:
            for (int64_t i = 0; i < q.m; i++)
                if (dbl)
                    ((double *)R)[i] = ((const double *)G)[0] * ((const double *)B)[i];
                else
                    ((float *)R)[i] = ((const float *)G)[0] * ((const float *)B)[i];
            break;
        case MM_MV:
            for (int64_t i = 0; i < q.n; i++)
                for (int64_t j = 0; j < q.m; j++)
                    if (dbl)
                        ((double *)R)[i * q.m + j] =
                            ((const double *)G)[i] * ((const double *)B)[j];
                    else
                        ((float *)R)[i * q.m + j] = ((const float *)G)[i] * ((const float *)B)[j];
            break;
        case MM_GEMM:
            pc_blas_gemm(cd, false, true, q.n, q.m, q.p, 1.0, G, q.p, B, q.p, 0.0, R, q.m);
            break;
        case MM_BATCHED:
            if (q.kind == PC_LINALG_MATMUL && q.a->rank == 2) {
                st = fold_grad_a(call, &q, cd, G, B, R);
                if (st != PC_OK)
                    goto done;
            } else {
                bmm_run(cd, q.nb, q.n, q.m, q.p, G, false, B, true, R, false, 1.0, 0.0);
            }
            break;
        }
        if ((st = mm_finish_grad(call, &q, compute, &r, q.eash, q.ash, q.arank, q.alpha, q.a,
                                 &out->grads[ia])) != PC_OK)
            goto done;
    }
    if (gb) {
        int64_t s3[3] = {q.nb, q.m, q.p};
        if (q.path == MM_BATCHED)
            st = alloc_buf(call, cd, s3, 3, &r);
        else if (q.path == MM_GEMM)
            st = alloc_buf(call, cd, s3 + 1, 2, &r);
        else
            st = alloc_buf(call, cd, q.b->shape, q.b->rank, &r);
        if (st != PC_OK)
            goto done;
        void *R = pc_tensor_data(&r);
        switch (q.path) {
        case MM_DOT:
            for (int64_t i = 0; i < q.m; i++)
                if (dbl)
                    ((double *)R)[i] = ((const double *)G)[0] * ((const double *)A)[i];
                else
                    ((float *)R)[i] = ((const float *)G)[0] * ((const float *)A)[i];
            break;
        case MM_MV:
            pc_blas_gemv(cd, true, q.n, q.m, A, q.m, G, R);
            break;
        case MM_GEMM:
            pc_blas_gemm(cd, true, false, q.m, q.p, q.n, 1.0, A, q.m, G, q.p, 0.0, R, q.p);
            break;
        case MM_BATCHED:
            if (q.kind == PC_LINALG_MATMUL && q.a->rank <= 2) {
                size_t es = pc_dtype_size(cd);
                for (int64_t k = 0; k < q.nb; k++)
                    pc_blas_gemm(cd, true, false, q.m, q.p, q.n, 1.0,
                                 (const char *)A + (size_t)(k * q.n * q.m) * es, q.m,
                                 (const char *)G + (size_t)(k * q.n * q.p) * es, q.p, 0.0,
                                 (char *)R + (size_t)(k * q.m * q.p) * es, q.p);
            } else {
                bmm_run(cd, q.nb, q.m, q.p, q.n, A, true, G, false, R, false, 1.0, 0.0);
            }
            break;
        }
        if ((st = mm_finish_grad(call, &q, compute, &r, q.ebsh, q.bsh, q.brank, q.alpha, q.b,
                                 &out->grads[ib])) != PC_OK)
            goto done;
    }
    if (gi) {
        /* d input = beta * dy summed to the input's shape */
        if ((st = pc_tensor_cast(&r, &g, cd)) != PC_OK)
            goto done;
        if (q.beta != 1.0) {
            scale_buf(&r, q.beta);
            if (compute == PC_COMPUTE_DEVICE)
                pc_kernel_round(&r, q.ad);
        }
        pc_tensor s = PC_TENSOR_NULL;
        st = pc_kernel_sum_to(call, &r, q.in->shape, q.in->rank, &s);
        pc_tensor_free(&r);
        if (st == PC_OK)
            st = store_grad(call, &s, q.in, &out->grads[0]);
    }
done:
    pc_tensor_free(&a);
    pc_tensor_free(&b);
    pc_tensor_free(&g);
    pc_tensor_free(&r);
    return st;
}
