/*
 * scaled_dot_product_attention (torch 2.x's Functional.scaled_dot_product_attention), forward
 * and backward, from its documented math:
 *   A = softmax(Q K^T * scale + bias) ; out = A V
 * scale = 1 / sqrt(E) unless given; bias: -inf above the diagonal for is_causal (the top-left
 * aligned lower triangle of [L, S] takes part), -inf where a bool attn_mask is False, a float
 * attn_mask added. dropout_p > 0 is random and refused.
 *
 * The work goes one batch (broadcast batch dims of Q, K, V and the mask) and one block of query
 * rows at a time: a block holds about PC_KERNEL_BLOCK scores (one row at least), so no [L, S]
 * matrix per head, let alone [B, H, L, S], is ever held, in either compute dtype. The backward
 * recomputes the block's probabilities. Each step follows the reference's tensor ops as torch
 * computes them: the products are torch's bmm (its plain loop below 400 multiply-adds per
 * matrix, else one GEMM with the operands' transposes as torch's strides give them), the
 * scaling and the bias each rounded to the dtype, softmax and its backward the nn group's
 * kernels (norm_kernel.inc); dK and dV accumulate over the row blocks (the same sums as one
 * GEMM over all rows while the rows fit one block).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tgmath.h>

#include "ops/blas.h"
#include "ops/kernel.h"
#include "ops/nn/nn_impl.h"
#include "precheck/core/convert.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#define PC_TWIN_TEMPLATE "ops/norm/norm_kernel.inc"
#include "ops/kernel_twins.h"
#pragma GCC diagnostic pop

#define SDPA_NAIVE_LIMIT 400 /* torch's bmm: the plain loop below this many multiply-adds */

typedef struct sdpa_plan {
    const pc_tensor *q, *k, *v, *mask;
    bool causal, mask_bool;
    double scale;
    int brank;
    int64_t bsh[PC_TENSOR_MAX_DIMS]; /* broadcast batch shape */
    int64_t nb, L, S, E, Ev;
    pc_tensor qx, kx, vx, mx; /* views expanded to [batch..., rows, cols] */
} sdpa_plan;

static void sdpa_plan_free(sdpa_plan *p)
{
    pc_tensor_free(&p->qx);
    pc_tensor_free(&p->kx);
    pc_tensor_free(&p->vx);
    pc_tensor_free(&p->mx);
}

static pc_status sdpa_expand(const pc_op_call *call, const sdpa_plan *p, const pc_tensor *t,
                             int64_t rows, int64_t cols, pc_tensor *out)
{
    int64_t sh[PC_TENSOR_MAX_DIMS];
    memcpy(sh, p->bsh, sizeof(int64_t) * (size_t)p->brank);
    sh[p->brank] = rows;
    sh[p->brank + 1] = cols;
    pc_status st = pc_tensor_expand(out, t, sh, p->brank + 2);
    return st == PC_OK ? st : pc_error_prefix(st, "%s", call->full_name);
}

static pc_status sdpa_plan_make(const pc_op_call *call, sdpa_plan *p)
{
    memset(p, 0, sizeof *p);
    p->qx = p->kx = p->vx = p->mx = PC_TENSOR_NULL;
    p->q = pc_call_tensor(call, 0);
    p->k = pc_call_tensor(call, 1);
    p->v = pc_call_tensor(call, 2);
    p->mask = pc_call_tensor(call, 3);
    double dropout = call->args[4].f;
    p->causal = call->args[5].b;
    if (dropout > 0)
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "%s: scaled_dot_product_attention with dropout_p=%g draws a random "
                            "mask; precheck runs it only with dropout_p=0",
                            call->full_name, dropout);
    if (p->causal && p->mask)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: _scaled_dot_product_attention: Explicit attn_mask should not be "
                            "set when is_causal=True",
                            call->full_name);
    if (p->q->rank < 2 || p->k->rank < 2 || p->v->rank < 2)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: scaled_dot_product_attention: query, key and value need at "
                            "least 2 dimensions",
                            call->full_name);
    pc_status st = pc_kernel_need_float(call, p->q, "scaled_dot_product_attention");
    if (st != PC_OK || (st = pc_kernel_same_dtype(call, p->q, p->k)) != PC_OK ||
        (st = pc_kernel_same_dtype(call, p->q, p->v)) != PC_OK)
        return st;
    int qr = p->q->rank, kr = p->k->rank, vr = p->v->rank;
    p->L = p->q->shape[qr - 2];
    p->E = p->q->shape[qr - 1];
    p->S = p->k->shape[kr - 2];
    p->Ev = p->v->shape[vr - 1];
    if (p->k->shape[kr - 1] != p->E || p->v->shape[vr - 2] != p->S)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: scaled_dot_product_attention: key must be [..., S, E] and value "
                            "[..., S, Ev] for query [..., L, E]",
                            call->full_name);
    p->scale = call->args[6].kind == PC_VALUE_NONE ? 1.0 / sqrt((double)p->E) : call->args[6].f;
    /* batch dims: broadcast of Q's, K's, V's (and the mask's) leading dims */
    int64_t b[PC_TENSOR_MAX_DIMS];
    int br;
    st = pc_broadcast_shapes(p->q->shape, qr - 2, p->k->shape, kr - 2, b, &br);
    if (st == PC_OK)
        st = pc_broadcast_shapes(b, br, p->v->shape, vr - 2, p->bsh, &p->brank);
    if (st == PC_OK && p->mask) {
        if (p->mask->dtype == PC_DTYPE_BOOL) {
            p->mask_bool = true;
        } else if (p->mask->dtype != p->q->dtype) {
            if (!pc_dtype_is_float(p->mask->dtype))
                return pc_error_set(PC_ERR_INVALID,
                                    "%s: Expected attn_mask dtype to be bool or float or to match "
                                    "query dtype",
                                    call->full_name);
        }
        int mr = p->mask->rank;
        int64_t ls[2] = {p->L, p->S}, tmp[2];
        int tr;
        st = pc_broadcast_shapes(p->mask->shape + (mr >= 2 ? mr - 2 : 0), mr >= 2 ? 2 : mr, ls, 2,
                                 tmp, &tr);
        if (st == PC_OK && (tmp[0] != p->L || tmp[1] != p->S))
            st = pc_error_set(PC_ERR_INVALID, "attn_mask does not broadcast to [L, S]");
        if (st == PC_OK && mr > 2) {
            memcpy(b, p->bsh, sizeof b);
            br = p->brank;
            st = pc_broadcast_shapes(b, br, p->mask->shape, mr - 2, p->bsh, &p->brank);
        }
    }
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    if (p->brank + 2 > PC_TENSOR_MAX_DIMS)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: too many dimensions", call->full_name);
    p->nb = 1;
    for (int i = 0; i < p->brank; i++)
        p->nb *= p->bsh[i];
    if ((st = sdpa_expand(call, p, p->q, p->L, p->E, &p->qx)) != PC_OK ||
        (st = sdpa_expand(call, p, p->k, p->S, p->E, &p->kx)) != PC_OK ||
        (st = sdpa_expand(call, p, p->v, p->S, p->Ev, &p->vx)) != PC_OK ||
        (p->mask && (st = sdpa_expand(call, p, p->mask, p->L, p->S, &p->mx)) != PC_OK))
        return st;
    return PC_OK;
}

/* C[M,N] (= or += when acc) op(A) op(B), row-major, in cd: torch's bmm for a product of
 * `macs` multiply-adds per matrix: its plain loop (acc += a b, each step rounded, no fused
 * multiply-add) below SDPA_NAIVE_LIMIT, else one GEMM. A is [M,K] (ta: stored [K,M]), B is
 * [K,N] (tb: stored [N,K]), both contiguous. */
static void sdpa_mm(pc_dtype cd, int64_t macs, bool ta, bool tb, int64_t M, int64_t N, int64_t K,
                    const void *A, const void *B, void *C, bool acc)
{
    if (M == 0 || N == 0)
        return;
    int64_t sai = ta ? 1 : K, sak = ta ? M : 1, sbk = tb ? 1 : N, sbj = tb ? K : 1;
    if (macs < SDPA_NAIVE_LIMIT || K == 0) {
        if (cd == PC_DTYPE_F64) {
            const double *a = A, *b = B;
            double *c = C;
            for (int64_t i = 0; i < M; i++)
                for (int64_t j = 0; j < N; j++) {
                    double s = acc ? c[i * N + j] : 0.0;
                    for (int64_t k = 0; k < K; k++) {
                        double t = a[i * sai + k * sak] * b[k * sbk + j * sbj];
                        s += t;
                    }
                    c[i * N + j] = s;
                }
        } else {
            const float *a = A, *b = B;
            float *c = C;
            for (int64_t i = 0; i < M; i++)
                for (int64_t j = 0; j < N; j++) {
                    float s = acc ? c[i * N + j] : 0.0f;
                    for (int64_t k = 0; k < K; k++) {
                        float t = a[i * sai + k * sak] * b[k * sbk + j * sbj];
                        s += t;
                    }
                    c[i * N + j] = s;
                }
        }
        return;
    }
    pc_blas_gemm(cd, ta, tb, M, N, K, 1.0, A, ta ? M : K, B, tb ? K : N, acc ? 1.0 : 0.0, C, N);
}

/* v[i] = R(v[i] op s) for the compute buffer v: the scaling (mul) in the dtype. */
static void sdpa_scale(pc_dtype cd, pc_dtype rd, void *v, int64_t n, double s)
{
    if (cd == PC_DTYPE_F64) {
        double *x = v;
        for (int64_t i = 0; i < n; i++)
            x[i] = pc_fn_round(rd, x[i] * s);
    } else {
        float *x = v, sf = (float)s;
        for (int64_t i = 0; i < n; i++)
            x[i] = (float)pc_fn_round(rd, (double)(x[i] * sf));
    }
}

typedef struct sdpa_ws {
    void *kb, *vb;       /* one batch of K [S, E] and V [S, Ev] */
    void *qb, *sb, *pb;  /* a block: Q rows, scores, probabilities */
    void *mb, *gb, *dpb; /* mask rows, dO rows, dP */
    void *ob;            /* output (or dQ) rows */
    int64_t rows;        /* rows per block */
} sdpa_ws;

static void sdpa_ws_free(sdpa_ws *w)
{
    free(w->kb);
    free(w->vb);
    free(w->qb);
    free(w->sb);
    free(w->pb);
    free(w->mb);
    free(w->gb);
    free(w->dpb);
    free(w->ob);
}

static pc_status sdpa_ws_make(const pc_op_call *call, const sdpa_plan *p, pc_dtype cd, sdpa_ws *w)
{
    memset(w, 0, sizeof *w);
    size_t es = pc_dtype_size(cd);
    int64_t wide = p->S > p->E ? p->S : p->E;
    if (p->Ev > wide)
        wide = p->Ev;
    w->rows = PC_KERNEL_BLOCK / (wide > 0 ? wide : 1);
    if (w->rows < 1)
        w->rows = 1;
    if (w->rows > p->L)
        w->rows = p->L > 0 ? p->L : 1;
    size_t blk = (size_t)(w->rows * (p->S + 1)) * es;
    w->kb = malloc((size_t)(p->S * p->E + 1) * es);
    w->vb = malloc((size_t)(p->S * p->Ev + 1) * es);
    w->qb = malloc((size_t)(w->rows * p->E + 1) * es);
    w->sb = malloc(blk);
    w->pb = malloc(blk);
    w->mb = malloc(blk);
    w->dpb = malloc(blk);
    w->gb = malloc((size_t)(w->rows * p->Ev + 1) * es);
    w->ob = malloc((size_t)(w->rows * (p->Ev > p->E ? p->Ev : p->E) + 1) * es);
    if (!w->kb || !w->vb || !w->qb || !w->sb || !w->pb || !w->mb || !w->dpb || !w->gb || !w->ob)
        return pc_kernel_nomem(call);
    return PC_OK;
}

/* The probabilities of query rows r0 .. r0 + n - 1 of batch b into w->pb (and the scores'
 * softmax input into w->sb): S = Q K^T (rounded), * scale (rounded), + bias (rounded),
 * softmax, rounded to the dtype on the device. */
static void sdpa_probs(const sdpa_plan *p, pc_dtype cd, pc_dtype rd, sdpa_ws *w, int64_t b,
                       int64_t r0, int64_t n)
{
    bool dbl = cd == PC_DTYPE_F64;
    int64_t S = p->S;
    pc_kernel_read(&p->qx, (b * p->L + r0) * p->E, n * p->E, cd, w->qb);
    sdpa_mm(cd, p->L * S * p->E, false, true, n, S, p->E, w->qb, w->kb, w->sb, false);
    pc_kernel_round_n(w->sb, cd, n * S, rd);
    sdpa_scale(cd, rd, w->sb, n * S, p->scale);
    if (p->mask)
        pc_kernel_read(&p->mx, (b * p->L + r0) * S, n * S, cd, w->mb);
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < S; j++) {
            int64_t k = i * S + j;
            double bias = 0;
            if (p->causal && j > r0 + i)
                bias = -HUGE_VAL;
            if (p->mask) {
                double m = dbl ? ((double *)w->mb)[k] : (double)((float *)w->mb)[k];
                bias = p->mask_bool ? (m != 0 ? 0.0 : -HUGE_VAL) : pc_fn_round(rd, m);
            }
            if (bias == 0)
                continue;
            if (dbl)
                ((double *)w->sb)[k] = pc_fn_round(rd, ((double *)w->sb)[k] + bias);
            else
                ((float *)w->sb)[k] =
                    (float)pc_fn_round(rd, (double)(((float *)w->sb)[k] + (float)bias));
        }
    if (dbl)
        softmax_fwd_d(false, true, w->sb, w->pb, n, S, 1);
    else
        softmax_fwd_f(false, true, w->sb, w->pb, n, S, 1);
    pc_kernel_round_n(w->pb, cd, n * S, rd);
}

static void sdpa_load_kv(const sdpa_plan *p, pc_dtype cd, sdpa_ws *w, int64_t b)
{
    pc_kernel_read(&p->kx, b * p->S * p->E, p->S * p->E, cd, w->kb);
    pc_kernel_read(&p->vx, b * p->S * p->Ev, p->S * p->Ev, cd, w->vb);
}

static void sdpa_out_shape(const sdpa_plan *p, int64_t cols, int64_t *sh, int *rank)
{
    memcpy(sh, p->bsh, sizeof(int64_t) * (size_t)p->brank);
    sh[p->brank] = p->L;
    sh[p->brank + 1] = cols;
    *rank = p->brank + 2;
}

pc_status pc_k_sdpa_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    sdpa_plan p;
    pc_status st = sdpa_plan_make(call, &p);
    sdpa_ws w;
    memset(&w, 0, sizeof w);
    pc_tensor y = PC_TENSOR_NULL;
    if (st != PC_OK)
        goto done;
    pc_dtype cd = pc_kernel_compute_dtype(compute, p.q->dtype);
    pc_dtype rd = pc_fn_round_dtype(compute, p.q->dtype);
    int64_t osh[PC_TENSOR_MAX_DIMS];
    int orank;
    sdpa_out_shape(&p, p.Ev, osh, &orank);
    if ((st = sdpa_ws_make(call, &p, cd, &w)) != PC_OK ||
        (st = pc_tensor_alloc(&y, p.q->dtype, osh, orank)) != PC_OK)
        goto done;
    for (int64_t b = 0; b < p.nb; b++) {
        sdpa_load_kv(&p, cd, &w, b);
        for (int64_t r0 = 0; r0 < p.L; r0 += w.rows) {
            int64_t n = p.L - r0 < w.rows ? p.L - r0 : w.rows;
            sdpa_probs(&p, cd, rd, &w, b, r0, n);
            sdpa_mm(cd, p.L * p.S * p.Ev, false, false, n, p.Ev, p.S, w.pb, w.vb, w.ob, false);
            pc_kernel_write(&y, (b * p.L + r0) * p.Ev, n * p.Ev, w.ob, cd);
        }
    }
    out->tensors[0] = y;
    y = PC_TENSOR_NULL;
    out->count = 1;
done:
    pc_tensor_free(&y);
    sdpa_ws_free(&w);
    sdpa_plan_free(&p);
    return st;
}

/* Adds the compute buffer g (the gradient of the expanded view, [batch..., rows, cols]) into
 * acc (compute dtype, t's shape): the sum over t's broadcast dims, in batch order. */
static void sdpa_accumulate(pc_dtype cd, const sdpa_plan *p, const pc_tensor *t, int64_t b,
                            const void *g, int64_t rows0, int64_t nrows, int64_t cols, void *acc)
{
    /* the offset of batch b's slice in t's contiguous layout */
    int64_t idx[PC_TENSOR_MAX_DIMS], rem = b, off = 0, mul = 1;
    for (int i = p->brank - 1; i >= 0; i--) {
        idx[i] = rem % p->bsh[i];
        rem /= p->bsh[i];
    }
    int tr = t->rank;
    int64_t trows = t->shape[tr - 2], tcols = t->shape[tr - 1];
    mul = trows * tcols;
    for (int i = tr - 3, j = p->brank - 1; i >= 0; i--, j--) {
        int64_t ti = t->shape[i] == 1 ? 0 : idx[j];
        off += ti * mul;
        mul *= t->shape[i];
    }
    for (int64_t r = 0; r < nrows; r++)
        for (int64_t c = 0; c < cols; c++) {
            int64_t tr_ = trows == 1 ? 0 : rows0 + r, tc = tcols == 1 ? 0 : c;
            int64_t k = off + tr_ * tcols + tc;
            if (cd == PC_DTYPE_F64)
                ((double *)acc)[k] += ((const double *)g)[r * cols + c];
            else
                ((float *)acc)[k] += ((const float *)g)[r * cols + c];
        }
}

pc_status pc_k_sdpa_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                             pc_op_grads *out)
{
    sdpa_plan p;
    pc_status st = sdpa_plan_make(call, &p);
    sdpa_ws w;
    memset(&w, 0, sizeof w);
    pc_tensor dq = PC_TENSOR_NULL, dk = PC_TENSOR_NULL, dv = PC_TENSOR_NULL, dm = PC_TENSOR_NULL;
    pc_tensor g = PC_TENSOR_NULL;
    void *dkt = NULL, *dvb = NULL;
    if (st != PC_OK)
        goto done;
    bool gq = pc_kernel_wants_grad(call, 0), gk = pc_kernel_wants_grad(call, 1),
         gv = pc_kernel_wants_grad(call, 2),
         gm = p.mask && !p.mask_bool && pc_kernel_wants_grad(call, 3);
    if (!gq && !gk && !gv && !gm)
        goto done;
    pc_dtype cd = pc_kernel_compute_dtype(compute, p.q->dtype);
    pc_dtype rd = pc_fn_round_dtype(compute, p.q->dtype);
    size_t es = pc_dtype_size(cd);
    bool dbl = cd == PC_DTYPE_F64;
    if ((st = sdpa_ws_make(call, &p, cd, &w)) != PC_OK ||
        (st = pc_tensor_contiguous(&g, grad_out)) != PC_OK ||
        (st = pc_tensor_alloc(&dq, p.q->dtype, p.q->shape, p.q->rank)) != PC_OK ||
        (st = pc_tensor_alloc(&dk, cd, p.k->shape, p.k->rank)) != PC_OK ||
        (st = pc_tensor_alloc(&dv, cd, p.v->shape, p.v->rank)) != PC_OK ||
        (gm && (st = pc_tensor_alloc(&dm, cd, p.mask->shape, p.mask->rank)) != PC_OK))
        goto done;
    dkt = malloc((size_t)(p.S * p.E + 1) * es);
    dvb = malloc((size_t)(p.S * p.Ev + 1) * es);
    if (!dkt || !dvb) {
        st = pc_kernel_nomem(call);
        goto done;
    }
    bool q_bcast = pc_tensor_numel(p.q) != p.nb * p.L * p.E;
    for (int64_t b = 0; b < p.nb; b++) {
        sdpa_load_kv(&p, cd, &w, b);
        memset(dkt, 0, (size_t)(p.S * p.E) * es);
        memset(dvb, 0, (size_t)(p.S * p.Ev) * es);
        for (int64_t r0 = 0; r0 < p.L; r0 += w.rows) {
            int64_t n = p.L - r0 < w.rows ? p.L - r0 : w.rows, S = p.S;
            bool first = r0 == 0;
            sdpa_probs(&p, cd, rd, &w, b, r0, n);
            pc_kernel_read(&g, (b * p.L + r0) * p.Ev, n * p.Ev, cd, w.gb);
            /* dV = P^T dO (P^T: a transposed view in torch) */
            sdpa_mm(cd, p.L * S * p.Ev, true, false, S, p.Ev, n, w.pb, w.gb, dvb, !first);
            /* dP = dO V^T, rounded; dS = P (dP - sum(dP P)) (torch's softmax backward) */
            sdpa_mm(cd, p.L * S * p.Ev, false, true, n, S, p.Ev, w.gb, w.vb, w.dpb, false);
            pc_kernel_round_n(w.dpb, cd, n * S, rd);
            if (dbl)
                softmax_bwd_d(false, true, w.pb, w.dpb, w.sb, n, S, 1);
            else
                softmax_bwd_f(false, true, w.pb, w.dpb, w.sb, n, S, 1);
            pc_kernel_round_n(w.sb, cd, n * S, rd);
            if (gm)
                sdpa_accumulate(cd, &p, p.mask, b, w.sb, r0, n, S, pc_tensor_data(&dm));
            /* through the scaling: dS' = dS * scale, rounded */
            sdpa_scale(cd, rd, w.sb, n * S, p.scale);
            /* dQ = dS' K; dK^T = Q^T dS' (torch forms the gradient of K^T) */
            sdpa_mm(cd, p.L * S * p.E, false, false, n, p.E, S, w.sb, w.kb, w.ob, false);
            if (!q_bcast) {
                pc_kernel_round_n(w.ob, cd, n * p.E, rd);
                pc_kernel_write(&dq, (b * p.L + r0) * p.E, n * p.E, w.ob, cd);
            }
            sdpa_mm(cd, p.L * S * p.E, true, false, p.E, S, n, w.qb, w.sb, dkt, !first);
        }
        /* this batch's dK (transposed back) and dV, rounded to the dtype as torch's bmm
         * results are, then summed over K's / V's broadcast batch dims */
        pc_kernel_round_n(dkt, cd, p.S * p.E, rd);
        pc_kernel_round_n(dvb, cd, p.S * p.Ev, rd);
        for (int64_t s = 0; s < p.S; s++)
            for (int64_t e = 0; e < p.E; e++) {
                /* w.kb is free now: hold dK [S, E] there */
                if (dbl)
                    ((double *)w.kb)[s * p.E + e] = ((double *)dkt)[e * p.S + s];
                else
                    ((float *)w.kb)[s * p.E + e] = ((float *)dkt)[e * p.S + s];
            }
        sdpa_accumulate(cd, &p, p.k, b, w.kb, 0, p.S, p.E, pc_tensor_data(&dk));
        sdpa_accumulate(cd, &p, p.v, b, dvb, 0, p.S, p.Ev, pc_tensor_data(&dv));
    }
    if (q_bcast && gq) { /* Q broadcast over batch dims: not produced (rare) */
        st = pc_error_set(PC_ERR_UNSUPPORTED,
                          "%s: the query gradient of a query broadcast over batch dimensions is "
                          "not supported by precheck",
                          call->full_name);
        goto done;
    }
    if (gq) {
        out->grads[0] = dq;
        dq = PC_TENSOR_NULL;
    }
    if (gk && (st = pc_kernel_store(call, &dk, p.k->dtype, p.k->shape, p.k->rank,
                                    &out->grads[1])) != PC_OK)
        goto done;
    if (gv && (st = pc_kernel_store(call, &dv, p.v->dtype, p.v->shape, p.v->rank,
                                    &out->grads[2])) != PC_OK)
        goto done;
    if (gm)
        st = pc_kernel_store(call, &dm, p.mask->dtype, p.mask->shape, p.mask->rank, &out->grads[3]);
done:
    free(dkt);
    free(dvb);
    pc_tensor_free(&g);
    pc_tensor_free(&dq);
    pc_tensor_free(&dk);
    pc_tensor_free(&dv);
    pc_tensor_free(&dm);
    sdpa_ws_free(&w);
    sdpa_plan_free(&p);
    return st;
}
