/*
 * cdist(x1, x2, p, compute_mode): the p-norm distance of every row of x1 to every row of x2
 * ([..., r1, c] and [..., r2, c], batch dimensions broadcast), forward and backward, as torch
 * 1.13's CPU computes it:
 *  - p = 2 with more than 25 rows on either side (compute_mode's default; or
 *    'use_mm_for_euclid_dist'): torch's _euclidean_dist, sqrt(clamp_min(x1_ x2_^T, 1e-30)) with
 *    x1_ = [-2 x1, |x1|^2, 1] and x2_ = [x2, 1, |x2|^2] (squared norms summed in torch's order,
 *    one GEMM per batch with torch's operand layout, or bmm's plain loop below 400
 *    multiply-adds); its gradient x1 ratio.sum(-1) - ratio x2 (ratio = dy / dist), x2's alike;
 *  - otherwise the direct kernel: per pair of rows a sequential sum over the columns of
 *    |a - b|^p (p = 0: a count, p = 1, p = 2 squared and rooted, inf: the largest, else pow),
 *    and its gradient summed over the other rows one after the other.
 * Each tensor op of those formulas is rounded to the compute dtype: float32 on the device (the
 * half types too: torch's CPU has no half cdist, the result is rounded once), float64 on the
 * bench and for float64. Gradients over broadcast batch dimensions are summed as torch sums
 * them (pc_kernel_sum_to).
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/blas.h"
#include "ops/kernel.h"
#include "ops/linalg/linalg_impl.h"
#include "ops/reduce/reduce_impl.h"
#include "precheck/core/convert.h"

typedef struct cd_plan {
    const pc_tensor *x1, *x2;
    pc_dtype dt; /* the result's dtype (x1's) */
    bool f32;    /* arithmetic in float32 (else float64) */
    double p;
    bool mm; /* torch's _euclidean_dist */
    int64_t bshape[PC_TENSOR_MAX_DIMS];
    int brank;
    int64_t B, r1, r2, c;
    int64_t oshape[PC_TENSOR_MAX_DIMS];
    int orank;
    double *a, *b; /* x1 and x2 expanded to [B, r, c], as float64 values */
} cd_plan;

static void plan_free(cd_plan *q)
{
    free(q->a);
    free(q->b);
    q->a = q->b = NULL;
}

static double rnd(const cd_plan *q, double v)
{
    return q->f32 ? (double)(float)v : v;
}

static pc_status cd_nomem(const pc_op_call *call)
{
    return pc_error_set(PC_ERR_NOMEM, "%s: out of memory", call->full_name);
}

/* x expanded to [bshape..., r, c] as B * r * c float64 values (malloc'ed into *out). */
static pc_status load_rows(const pc_op_call *call, const cd_plan *q, const pc_tensor *x, int64_t r,
                           double **out)
{
    int64_t shape[PC_TENSOR_MAX_DIMS];
    memcpy(shape, q->bshape, (size_t)q->brank * sizeof *shape);
    shape[q->brank] = r;
    shape[q->brank + 1] = q->c;
    pc_tensor e = PC_TENSOR_NULL;
    pc_status st = pc_fn_load_f64(call, x, shape, q->brank + 2, &e);
    if (st != PC_OK)
        return st;
    int64_t n = q->B * r * q->c;
    *out = malloc((size_t)(n > 0 ? n : 1) * sizeof **out);
    if (!*out) {
        pc_tensor_free(&e);
        return cd_nomem(call);
    }
    if (n > 0)
        memcpy(*out, pc_tensor_data(&e), (size_t)n * sizeof **out);
    pc_tensor_free(&e);
    return PC_OK;
}

static const char *scalar_type_name(pc_dtype d)
{
    switch (d) {
    case PC_DTYPE_F16:
        return "Half";
    case PC_DTYPE_BF16:
        return "BFloat16";
    case PC_DTYPE_F32:
        return "Float";
    case PC_DTYPE_F64:
        return "Double";
    default:
        return pc_torch_type_name(d);
    }
}

/* torch's checks in its order, the path, and the inputs as rows. */
static pc_status plan_make(const pc_op_call *call, pc_compute compute, cd_plan *q)
{
    memset(q, 0, sizeof *q);
    const pc_tensor *x1 = pc_call_tensor(call, 0), *x2 = pc_call_tensor(call, 1);
    q->x1 = x1;
    q->x2 = x2;
    q->p = call->args[2].f;
    const char *cm = call->args[3].s;
    int mode = -1;
    if (strcmp(cm, "use_mm_for_euclid_dist_if_necessary") == 0)
        mode = 0;
    else if (strcmp(cm, "use_mm_for_euclid_dist") == 0)
        mode = 1;
    else if (strcmp(cm, "donot_use_mm_for_euclid_dist") == 0)
        mode = 2;
    else
        return pc_error_set(PC_ERR_INVALID, "%s: %s is not a valid value for compute_mode",
                            call->full_name, cm);
    if (x1->rank < 2)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: cdist only supports at least 2D tensors, X1 got: %dD",
                            call->full_name, x1->rank);
    if (x2->rank < 2)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: cdist only supports at least 2D tensors, X2 got: %dD",
                            call->full_name, x2->rank);
    q->c = x1->shape[x1->rank - 1];
    if (x2->shape[x2->rank - 1] != q->c)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: X1 and X2 must have the same number of columns. X1: %lld X2: %lld",
                            call->full_name, (long long)q->c, (long long)x2->shape[x2->rank - 1]);
    const pc_tensor *xs[2] = {x1, x2};
    for (int i = 0; i < 2; i++) {
        pc_dtype d = xs[i]->dtype;
        if (!pc_dtype_is_float(d) || pc_dtype_is_complex(d))
            return pc_error_set(PC_ERR_INVALID,
                                "%s: cdist only supports floating-point dtypes, X%d got: %s",
                                call->full_name, i + 1, scalar_type_name(d));
        if (d == PC_DTYPE_F8E4M3FN || d == PC_DTYPE_F8E5M2)
            return pc_error_set(PC_ERR_UNSUPPORTED, "%s: cdist of %s is not supported by precheck",
                                call->full_name, pc_dtype_name(d));
    }
    if (!(q->p >= 0))
        return pc_error_set(PC_ERR_INVALID, "%s: cdist only supports non-negative p values",
                            call->full_name);
    pc_status st =
        pc_broadcast_shapes(x1->shape, x1->rank - 2, x2->shape, x2->rank - 2, q->bshape, &q->brank);
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    if (x1->dtype != x2->dtype)
        return pc_error_set(PC_ERR_INVALID, "%s: expected scalar type %s but found %s",
                            call->full_name, scalar_type_name(x1->dtype),
                            scalar_type_name(x2->dtype));
    q->dt = x1->dtype;
    q->f32 = compute == PC_COMPUTE_DEVICE && q->dt != PC_DTYPE_F64;
    q->r1 = x1->shape[x1->rank - 2];
    q->r2 = x2->shape[x2->rank - 2];
    q->B = 1;
    for (int d = 0; d < q->brank; d++)
        q->B *= q->bshape[d];
    memcpy(q->oshape, q->bshape, (size_t)q->brank * sizeof *q->oshape);
    q->oshape[q->brank] = q->r1;
    q->oshape[q->brank + 1] = q->r2;
    q->orank = q->brank + 2;
    bool empty = pc_tensor_numel(x1) == 0 || pc_tensor_numel(x2) == 0;
    q->mm = !empty && q->p == 2 && (mode == 1 || (mode == 0 && (q->r1 > 25 || q->r2 > 25)));
    if ((st = load_rows(call, q, x1, q->r1, &q->a)) != PC_OK)
        return st;
    if ((st = load_rows(call, q, x2, q->r2, &q->b)) != PC_OK) {
        plan_free(q);
        return st;
    }
    return PC_OK;
}

/* ---- products ---- */

/* C[b] = op(A[b]) op(B[b]) for nb batches, in the compute dtype: torch's bmm plain loop (each
 * product and sum rounded, no fused multiply-add) when batched and M N K < 400, else one
 * OpenBLAS GEMM per batch with the operands as laid out (ta: A[b] is stored [K, M]; tb: B[b]
 * is stored [N, K]). */
static pc_status product(const pc_op_call *call, const cd_plan *q, bool batched, int64_t nb,
                         int64_t M, int64_t N, int64_t K, bool ta, const double *A, bool tb,
                         const double *B, double *C)
{
    if (M > INT_MAX || N > INT_MAX || K > INT_MAX)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: matrix dimension beyond the BLAS int range",
                            call->full_name);
    int64_t na = M * K, nbb = K * N, nc = M * N;
    if ((batched && M * N * K < 400) || K == 0) {
        for (int64_t t = 0; t < nb; t++)
            for (int64_t i = 0; i < M; i++)
                for (int64_t j = 0; j < N; j++) {
                    double acc = 0;
                    for (int64_t k = 0; k < K; k++) {
                        double x = ta ? A[t * na + k * M + i] : A[t * na + i * K + k];
                        double y = tb ? B[t * nbb + j * K + k] : B[t * nbb + k * N + j];
                        acc = rnd(q, acc + rnd(q, x * y));
                    }
                    C[t * nc + i * N + j] = acc;
                }
        return PC_OK;
    }
    int64_t lda = ta ? M : K, ldb = tb ? K : N;
    if (!q->f32) {
        for (int64_t t = 0; t < nb; t++)
            pc_blas_gemm(PC_DTYPE_F64, ta, tb, M, N, K, 1.0, A + t * na, lda, B + t * nbb, ldb, 0.0,
                         C + t * nc, N);
        return PC_OK;
    }
    float *fa = malloc((size_t)(na + nbb + nc + 1) * sizeof *fa);
    if (!fa)
        return cd_nomem(call);
    float *fb = fa + na, *fc = fb + nbb;
    for (int64_t t = 0; t < nb; t++) {
        for (int64_t i = 0; i < na; i++)
            fa[i] = (float)A[t * na + i];
        for (int64_t i = 0; i < nbb; i++)
            fb[i] = (float)B[t * nbb + i];
        pc_blas_gemm(PC_DTYPE_F32, ta, tb, M, N, K, 1.0, fa, lda, fb, ldb, 0.0, fc, N);
        for (int64_t i = 0; i < nc; i++)
            C[t * nc + i] = (double)fc[i];
    }
    free(fa);
    return PC_OK;
}

/* Whether torch's matmul in _euclidean_dist is a bmm rather than one mm: with broadcast
 * batches it gets the [B, r, c] expansions (a bmm); with one batch the inputs as they are, and
 * matmul folds x1's leading dimensions into an mm when x2 is 2-D. */
static bool batched(const cd_plan *q)
{
    return q->B > 1 || q->x2->rank > 2;
}

/* The sums over dimension dim (1 or 2) of v, a contiguous [d0, d1, d2], into out (d0 * d2 or
 * d0 * d1 values), added in torch 1.13's CPU order for the compute dtype (the reduction
 * group's pc_reduce_torch_sums; compensated where it does not know the order). */
static pc_status sum_dim(const pc_op_call *call, const cd_plan *q, const double *v, int64_t d0,
                         int64_t d1, int64_t d2, int dim, double *out)
{
    pc_tensor t = PC_TENSOR_NULL, buf = PC_TENSOR_NULL;
    int64_t shape[3] = {d0, d1, d2};
    pc_status st = pc_tensor_alloc_uninit(&t, PC_DTYPE_F64, shape, 3);
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    if (d0 * d1 * d2 > 0)
        memcpy(pc_tensor_data(&t), v, (size_t)(d0 * d1 * d2) * sizeof *v);
    pc_value dv = {.kind = PC_VALUE_INT, .i = dim, .src_pos = -1};
    pc_reduce_plan p;
    st = pc_reduce_plan_make(call, &t, &dv, false, &p);
    if (st == PC_OK)
        st = pc_reduce_load(&p, &t, PC_DTYPE_F64, &buf);
    if (st == PC_OK) {
        const double *b = pc_tensor_data(&buf);
        if (!pc_reduce_torch_sums(&p, q->f32 ? PC_DTYPE_F32 : PC_DTYPE_F64, b, out))
            for (int64_t o = 0; o < p.outer; o++)
                out[o] = pc_reduce_sum(b + o * p.inner, p.inner, 1);
    }
    pc_tensor_free(&t);
    pc_tensor_free(&buf);
    return st;
}

/* The squared norms of the rows of x ([rows, c]): x * x rounded, summed in torch's order;
 * sq holds rows * c values. */
static pc_status row_norms(const pc_op_call *call, const cd_plan *q, const double *x, int64_t rows,
                           double *sq, double *out)
{
    for (int64_t i = 0; i < rows * q->c; i++)
        sq[i] = rnd(q, x[i] * x[i]);
    return sum_dim(call, q, sq, 1, rows, q->c, 2, out);
}

/* torch's _euclidean_dist into y ([B, r1, r2]). */
static pc_status euclid_forward(const pc_op_call *call, const cd_plan *q, double *y)
{
    int64_t K = q->c + 2, n1 = q->B * q->r1, n2 = q->B * q->r2;
    int64_t nmax = n1 > n2 ? n1 : n2;
    double *A = malloc((size_t)(n1 * K + n2 * K + nmax * q->c + 1) * sizeof *A);
    if (!A)
        return cd_nomem(call);
    double *Bm = A + n1 * K, *sq = Bm + n2 * K;
    double *norm1 = malloc((size_t)(n1 + n2 + 1) * sizeof *norm1), *norm2 = norm1 + n1;
    if (!norm1) {
        free(A);
        return cd_nomem(call);
    }
    pc_status st = row_norms(call, q, q->a, n1, sq, norm1);
    if (st == PC_OK)
        st = row_norms(call, q, q->b, n2, sq, norm2);
    if (st != PC_OK) {
        free(A);
        free(norm1);
        return st;
    }
    for (int64_t i = 0; i < n1; i++) {
        for (int64_t k = 0; k < q->c; k++)
            A[i * K + k] = -2 * q->a[i * q->c + k];
        A[i * K + q->c] = norm1[i];
        A[i * K + q->c + 1] = 1;
    }
    for (int64_t j = 0; j < n2; j++) {
        memcpy(Bm + j * K, q->b + j * q->c, (size_t)q->c * sizeof *Bm);
        Bm[j * K + q->c] = 1;
        Bm[j * K + q->c + 1] = norm2[j];
    }
    st = product(call, q, batched(q), q->B, q->r1, q->r2, K, false, A, true, Bm, y);
    double lo = rnd(q, 1e-30);
    for (int64_t i = 0; st == PC_OK && i < q->B * q->r1 * q->r2; i++) {
        double v = y[i] < lo || isnan(y[i]) ? (isnan(y[i]) ? y[i] : lo) : y[i];
        y[i] = q->f32 ? (double)sqrtf((float)v) : sqrt(v);
    }
    free(A);
    free(norm1);
    return st;
}

/* ---- the direct kernel ---- */

static double powp(const cd_plan *q, double x, double p)
{
    return q->f32 ? (double)powf((float)x, (float)p) : pow(x, p);
}

/* fma(a, b, c) rounded once to the compute dtype. */
static double fma_c(const cd_plan *q, double a, double b, double c)
{
    return q->f32 ? (double)fmaf((float)a, (float)b, (float)c) : fma(a, b, c);
}

/*
 * p = 2 sums d * d over the columns; torch 1.13's CPU build (Debian's, measured on random rows
 * of 1 to 67 columns) adds the products of the first columns in blocks of 4 (float32) or 2
 * (float64) as a multiply and an add, and the columns left over with fused multiply-adds.
 */
static void direct_forward(const cd_plan *q, double *y)
{
    double p = rnd(q, q->p);
    int64_t plain = q->f32 ? q->c / 4 * 4 : q->c / 2 * 2;
    for (int64_t t = 0; t < q->B; t++)
        for (int64_t i = 0; i < q->r1; i++)
            for (int64_t j = 0; j < q->r2; j++) {
                const double *u = q->a + (t * q->r1 + i) * q->c;
                const double *v = q->b + (t * q->r2 + j) * q->c;
                double agg = 0;
                for (int64_t k = 0; k < q->c; k++) {
                    double d = fabs(rnd(q, u[k] - v[k]));
                    if (p == 0)
                        agg = rnd(q, agg + (d != 0 ? 1.0 : 0.0));
                    else if (p == 1)
                        agg = rnd(q, agg + d);
                    else if (p == 2)
                        agg = k < plain ? rnd(q, agg + rnd(q, d * d)) : fma_c(q, d, d, agg);
                    else if (isinf(p))
                        agg = agg < d ? d : agg; /* std::max */
                    else
                        agg = rnd(q, agg + powp(q, d, p));
                }
                if (p == 2)
                    agg = q->f32 ? (double)sqrtf((float)agg) : sqrt(agg);
                else if (p != 0 && p != 1 && !isinf(p))
                    agg = q->f32 ? (double)(float)pow(agg, 1.0 / p) : pow(agg, 1.0 / p);
                y[(t * q->r1 + i) * q->r2 + j] = agg;
            }
}

pc_status pc_k_cdist_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    cd_plan q;
    pc_status st = plan_make(call, compute, &q);
    if (st != PC_OK)
        return st;
    int64_t n = q.B * q.r1 * q.r2;
    double *y = calloc((size_t)(n > 0 ? n : 1), sizeof *y);
    if (!y) {
        plan_free(&q);
        return cd_nomem(call);
    }
    if (q.mm)
        st = euclid_forward(call, &q, y);
    else
        direct_forward(&q, y);
    if (st == PC_OK)
        st = pc_shape_store(&out->tensors[0], q.dt, q.oshape, q.orank, y);
    if (st == PC_OK)
        out->count = 1;
    free(y);
    plan_free(&q);
    return st;
}

/* ---- backward ---- */

/* The term of the direct kernel's gradient for one column: diff = a - b of the row whose
 * gradient it is, g the incoming gradient and dist the distance of the pair. */
static double direct_term(const cd_plan *q, double p, double diff, double g, double dist)
{
    double s = diff > 0 ? 1.0 : diff < 0 ? -1.0 : 0.0;
    if (p == 0)
        return 0;
    if (p == 1)
        return rnd(q, s * g);
    if (p == 2)
        return dist == 0 ? 0 : rnd(q, rnd(q, g * diff) / dist);
    if (isinf(p)) {
        double m = rnd(q, fabs(rnd(q, fabs(diff) - dist)));
        m = ceil(m) < 1 ? ceil(m) : 1;
        return rnd(q, rnd(q, g * s) * (1 - m));
    }
    if (p < 2) {
        if (dist == 0 || (diff == 0 && p < 1))
            return 0;
        double t = rnd(q, s * powp(q, fabs(diff), rnd(q, p - 1)));
        return rnd(q, rnd(q, t * g) / powp(q, dist, rnd(q, p - 1)));
    }
    if (dist == 0)
        return 0;
    double t = rnd(q, diff * powp(q, fabs(diff), rnd(q, p - 2)));
    return rnd(q, rnd(q, t * g) / powp(q, dist, rnd(q, p - 1)));
}

/* gx[t, i, k] of the direct kernel for the rows x (nx of them) against the rows o (no): the
 * sum over o's rows, in order, of direct_term; g and dist are [B, nx, no] (first: x is x1) or
 * [B, no, nx]. */
static void direct_grad(const cd_plan *q, const double *x, int64_t nx, const double *o, int64_t no,
                        const double *g, const double *dist, bool first, double *gx)
{
    double p = rnd(q, q->p);
    for (int64_t t = 0; t < q->B; t++)
        for (int64_t i = 0; i < nx; i++)
            for (int64_t k = 0; k < q->c; k++) {
                double acc = 0, xv = x[(t * nx + i) * q->c + k];
                for (int64_t j = 0; j < no; j++) {
                    int64_t e = first ? (t * nx + i) * no + j : (t * no + j) * nx + i;
                    double diff = rnd(q, xv - o[(t * no + j) * q->c + k]);
                    acc = rnd(q, acc + direct_term(q, p, diff, g[e], dist[e]));
                }
                gx[(t * nx + i) * q->c + k] = acc;
            }
}

/* torch's _euclidean_dist_backward: with ratio = dy / dist (0 where dist is 0),
 * g1 = x1 * ratio.sum(-1, keepdim) - ratio x2 and g2 = x2 * ratio.sum(-2)[..., None] -
 * ratio^T x1, each op rounded. */
static pc_status euclid_grads(const pc_op_call *call, const cd_plan *q, const double *ratio,
                              bool want1, bool want2, double *g1, double *g2)
{
    double *s = malloc((size_t)(q->B * (q->r1 + q->r2) + 1) * sizeof *s);
    double *m = malloc((size_t)(q->B * (q->r1 + q->r2) * q->c + 1) * sizeof *m);
    pc_status st = PC_OK;
    if (!s || !m) {
        st = cd_nomem(call);
        goto done;
    }
    if (want1) {
        st = sum_dim(call, q, ratio, 1, q->B * q->r1, q->r2, 2, s);
        if (st == PC_OK)
            st = product(call, q, batched(q), q->B, q->r1, q->c, q->r2, false, ratio, false, q->b,
                         m);
        for (int64_t r = 0; st == PC_OK && r < q->B * q->r1; r++)
            for (int64_t k = 0; k < q->c; k++)
                g1[r * q->c + k] = rnd(q, rnd(q, q->a[r * q->c + k] * s[r]) - m[r * q->c + k]);
    }
    if (want2 && st == PC_OK) {
        st = sum_dim(call, q, ratio, q->B, q->r1, q->r2, 1, s); /* ratio.sum(-2) */
        if (st == PC_OK)
            st =
                product(call, q, batched(q), q->B, q->r2, q->c, q->r1, true, ratio, false, q->a, m);
        for (int64_t r = 0; st == PC_OK && r < q->B * q->r2; r++)
            for (int64_t k = 0; k < q->c; k++)
                g2[r * q->c + k] = rnd(q, rnd(q, q->b[r * q->c + k] * s[r]) - m[r * q->c + k]);
    }
done:
    free(s);
    free(m);
    return st;
}

/* g ([bshape..., r, c] values) summed to x's shape, rounded to x's dtype. */
static pc_status store_grad(const pc_op_call *call, const cd_plan *q, const pc_tensor *x, int64_t r,
                            const double *g, pc_tensor *out)
{
    int64_t shape[PC_TENSOR_MAX_DIMS];
    memcpy(shape, q->bshape, (size_t)q->brank * sizeof *shape);
    shape[q->brank] = r;
    shape[q->brank + 1] = q->c;
    pc_tensor buf = PC_TENSOR_NULL, sum = PC_TENSOR_NULL;
    pc_status st =
        pc_shape_store(&buf, q->f32 ? PC_DTYPE_F32 : PC_DTYPE_F64, shape, q->brank + 2, g);
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    if ((st = pc_kernel_sum_to(call, &buf, x->shape, x->rank, &sum)) == PC_OK)
        st = pc_kernel_store(call, &sum, x->dtype, x->shape, x->rank, out);
    pc_tensor_free(&buf);
    return st;
}

pc_status pc_k_cdist_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                              pc_op_grads *out)
{
    bool want1 = pc_kernel_wants_grad(call, 0), want2 = pc_kernel_wants_grad(call, 1);
    if (!want1 && !want2)
        return PC_OK;
    cd_plan q;
    pc_status st = plan_make(call, compute, &q);
    if (st != PC_OK)
        return st;
    int64_t n = q.B * q.r1 * q.r2;
    double *dist = calloc((size_t)(n > 0 ? n : 1), sizeof *dist);
    double *g = malloc((size_t)(n > 0 ? n : 1) * sizeof *g);
    double *g1 = calloc((size_t)(q.B * q.r1 * q.c + 1), sizeof *g1);
    double *g2 = calloc((size_t)(q.B * q.r2 * q.c + 1), sizeof *g2);
    pc_tensor gt = PC_TENSOR_NULL;
    if (!dist || !g || !g1 || !g2) {
        st = cd_nomem(call);
        goto done;
    }
    if ((st = pc_fn_load_f64(call, grad_out, q.oshape, q.orank, &gt)) != PC_OK)
        goto done;
    if (n > 0)
        memcpy(g, pc_tensor_data(&gt), (size_t)n * sizeof *g);
    if (q.c > 0 && n > 0) {
        /* the forward's result in the dtype, as autograd saved it */
        if (q.mm)
            st = euclid_forward(call, &q, dist);
        else
            direct_forward(&q, dist);
        for (int64_t i = 0; i < n; i++)
            dist[i] = pc_round_to_dtype(dist[i], q.f32 ? q.dt : PC_DTYPE_F64);
        if (st == PC_OK && q.mm) {
            for (int64_t i = 0; i < n; i++) /* ratio, in place of g */
                g[i] = dist[i] == 0 ? 0 : rnd(&q, g[i] / dist[i]);
            st = euclid_grads(call, &q, g, want1, want2, g1, g2);
        } else if (st == PC_OK) {
            if (want1)
                direct_grad(&q, q.a, q.r1, q.b, q.r2, g, dist, true, g1);
            if (want2)
                direct_grad(&q, q.b, q.r2, q.a, q.r1, g, dist, false, g2);
        }
    }
    if (st == PC_OK && want1)
        st = store_grad(call, &q, q.x1, q.r1, g1, &out->grads[0]);
    if (st == PC_OK && want2)
        st = store_grad(call, &q, q.x2, q.r2, g2, &out->grads[1]);
done:
    pc_tensor_free(&gt);
    free(dist);
    free(g);
    free(g1);
    free(g2);
    plan_free(&q);
    return st;
}
