/*
 * softmax, log_softmax and layer_norm, forward and backward.
 *
 * The kernels (norm_kernel.inc) follow torch's CPU arithmetic where it decides the last bit:
 * softmax is exp(x - max) times the reciprocal of the sum, the sum of a contiguous row in the
 * lane order of torch's AVX2 vectors; layer_norm takes its mean and variance from the same
 * vectorised Welford scheme as torch's RowwiseMoments. The backward recomputes what it needs
 * (the output rounded to its dtype on the device, as autograd keeps it).
 *
 * softmax, log_softmax and layer_norm work a block of whole rows at a time (PC_KERNEL_BLOCK)
 * in scratch of the compute dtype and round each block straight into the output:
 * a call's memory beyond its output does not grow with the tensor. The arithmetic of every row
 * is the whole-tensor kernel's, so the blocks change no bit.
 *
 * On x86-64 CPUs with FMA, layer_norm (forward and backward) and softmax's backward run a copy
 * of their kernels compiled for it (norm_fma): their fma() calls become single instructions
 * instead of calls into libm (two to four per element), with the same results (a fused
 * multiply-add rounds once either way), and no other operation is contracted into one
 * (GCC never fuses a*b+c in ISO C mode; clang would, hence FP_CONTRACT OFF).
 */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif
#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <tgmath.h>

#include "ops/kernel.h"
#include "ops/norm/norm_impl.h"
#include "precheck/core/convert.h"

#define PC_TWIN_TEMPLATE "ops/norm/norm_kernel.inc"
#include "ops/kernel_twins.h"

#if defined(__x86_64__) && defined(__GNUC__)
/* The kernels again, *_f_fma and *_d_fma, with the FMA instructions (see the top); only some
 * of them are called. */
#define PC_NORM_FMA 1
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("fma")
#endif
#define PC_TWIN_TEMPLATE "ops/norm/norm_kernel.inc"
#define PC_TWIN_FMA
#include "ops/kernel_twins.h"
#undef PC_TWIN_FMA
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#pragma GCC diagnostic pop

static atomic_bool fma_allowed = true;

/* Whether the kernels run their FMA copies: allowed, and this CPU has FMA. */
static bool norm_fma(void)
{
    return atomic_load_explicit(&fma_allowed, memory_order_relaxed) &&
           __builtin_cpu_supports("fma");
}

void pc_norm_allow_fma(bool allow)
{
    atomic_store_explicit(&fma_allowed, allow, memory_order_relaxed);
}
#else
#define PC_NORM_FMA 0

void pc_norm_allow_fma(bool allow)
{
    (void)allow;
}
#endif

/* ---- softmax, log_softmax ---- */

typedef struct sm_plan {
    bool logsm;
    const pc_tensor *x;
    pc_dtype xd; /* the dtype x stands for (pc_kernel_dtype: the bench's raise) */
    pc_dtype od; /* the dtype= argument, else xd */
    int64_t outer, n, inner;
} sm_plan;

static pc_status sm_plan_make(const pc_op_call *call, sm_plan *p)
{
    p->logsm = call->op->param == PC_NORM_LOG_SOFTMAX;
    p->x = pc_call_tensor(call, 0);
    const pc_value *dimv = &call->args[1], *dtv = &call->args[2];
    p->xd = pc_kernel_dtype(call, p->x);
    p->od = dtv->kind == PC_VALUE_DTYPE ? dtv->dtype : p->xd;
    pc_status st = pc_kernel_need_float(
        call, p->x, p->logsm ? "log_softmax_lastdim_kernel_impl" : "softmax_lastdim_kernel_impl");
    if (st == PC_OK && !pc_dtype_is_float(p->od))
        st = pc_error_set(PC_ERR_INVALID, "%s: \"softmax\" not implemented for '%s'",
                          call->full_name, pc_torch_type_name(p->od));
    if (st != PC_OK)
        return st;
    int rank = p->x->rank;
    int64_t d;
    if (dimv->kind == PC_VALUE_INT)
        d = dimv->i;
    else /* torch's implicit dim (with a deprecation warning) */
        d = (rank == 0 || rank == 1 || rank == 3) ? 0 : 1;
    int dim = pc_kernel_dim(call, d, rank);
    if (dim < 0)
        return PC_ERR_INVALID;
    p->outer = p->inner = 1;
    p->n = rank ? p->x->shape[dim] : 1;
    for (int i = 0; i < dim && i < rank; i++)
        p->outer *= p->x->shape[i];
    for (int i = dim + 1; i < rank; i++)
        p->inner *= p->x->shape[i];
    return PC_OK;
}

/* The blocks of a softmax: whole rows of n. With its dim last (inner 1) a block is a run of
 * rows; otherwise a block is a run of columns of one outer slice [n, inner], gathered into an
 * [n, cols] buffer. Either way about PC_KERNEL_BLOCK elements, one row at least. */
typedef struct sm_blocks {
    int64_t rows_per, cols_per, per_outer, count;
} sm_blocks;

static sm_blocks sm_blocks_make(const sm_plan *p)
{
    sm_blocks b;
    int64_t fit = p->n > 0 && p->n < PC_KERNEL_BLOCK ? PC_KERNEL_BLOCK / p->n : 1;
    if (p->inner == 1) {
        b.rows_per = fit;
        b.cols_per = 1;
        b.per_outer = 1;
        b.count = (p->outer + fit - 1) / fit;
    } else {
        b.rows_per = 1;
        b.cols_per = fit < p->inner ? fit : p->inner;
        b.per_outer = (p->inner + b.cols_per - 1) / b.cols_per;
        b.count = p->outer * b.per_outer;
    }
    return b;
}

/* Block k: outer rows o0 .. o0 + *no - 1, columns c0 .. c0 + *nc - 1. */
static void sm_block_at(const sm_plan *p, const sm_blocks *b, int64_t k, int64_t *o0, int64_t *no,
                        int64_t *c0, int64_t *nc)
{
    if (p->inner == 1) {
        *o0 = k * b->rows_per;
        *no = p->outer - *o0 < b->rows_per ? p->outer - *o0 : b->rows_per;
        *c0 = 0;
        *nc = 1;
        return;
    }
    *o0 = k / b->per_outer;
    *no = 1;
    *c0 = k % b->per_outer * b->cols_per;
    *nc = p->inner - *c0 < b->cols_per ? p->inner - *c0 : b->cols_per;
}

/* Reads block (o0, no, c0, nc) of t into dst [no, n, nc] in dtype cd, through dtype via. */
static void sm_block_read(const sm_plan *p, const pc_tensor *t, int64_t o0, int64_t no, int64_t c0,
                          int64_t nc, pc_dtype via, void *stage, pc_dtype cd, void *dst)
{
    size_t es = pc_dtype_size(cd);
    if (nc == p->inner) {
        pc_kernel_read_via(t, o0 * p->n * p->inner, no * p->n * p->inner, via, stage, cd, dst);
        return;
    }
    for (int64_t i = 0; i < p->n; i++)
        pc_kernel_read_via(t, (o0 * p->n + i) * p->inner + c0, nc, via, stage, cd,
                           (char *)dst + (size_t)(i * nc) * es);
}

/* Writes the block src [no, n, nc] (dtype cd) into out (contiguous, x's shape), through dtype
 * via when it is not out's. */
static void sm_block_write(const sm_plan *p, pc_tensor *out, int64_t o0, int64_t no, int64_t c0,
                           int64_t nc, const void *src, pc_dtype cd, pc_dtype via, void *stage)
{
    size_t es = pc_dtype_size(cd);
    int64_t rows = nc == p->inner ? 1 : p->n, len = nc == p->inner ? no * p->n * p->inner : nc;
    for (int64_t i = 0; i < rows; i++) {
        int64_t at = nc == p->inner ? o0 * p->n * p->inner : (o0 * p->n + i) * p->inner + c0;
        const void *from = (const char *)src + (size_t)(i * len) * es;
        if (via != out->dtype) {
            pc_convert_buffer(stage, via, from, cd, (size_t)len);
            pc_kernel_write(out, at, len, stage, via);
        } else {
            pc_kernel_write(out, at, len, from, cd);
        }
    }
}

static void sm_fwd(pc_dtype cd, bool logsm, bool lanes, const void *x, void *y, int64_t outer,
                   int64_t n, int64_t inner)
{
    if (cd == PC_DTYPE_F64)
        softmax_fwd_d(logsm, lanes, x, y, outer, n, inner);
    else
        softmax_fwd_f(logsm, lanes, x, y, outer, n, inner);
}

static void sm_bwd(pc_dtype cd, bool logsm, bool lanes, const void *y, const void *dy, void *dx,
                   int64_t outer, int64_t n, int64_t inner)
{
#if PC_NORM_FMA
    if (norm_fma()) {
        if (cd == PC_DTYPE_F64)
            softmax_bwd_d_fma(logsm, lanes, y, dy, dx, outer, n, inner);
        else
            softmax_bwd_f_fma(logsm, lanes, y, dy, dx, outer, n, inner);
        return;
    }
#endif
    if (cd == PC_DTYPE_F64)
        softmax_bwd_d(logsm, lanes, y, dy, dx, outer, n, inner);
    else
        softmax_bwd_f(logsm, lanes, y, dy, dx, outer, n, inner);
}

/* softmax (forward) or its gradient (grad_out given) of the call, a block at a time in
 * per-thread scratch (blocks are independent: threads change no result); *out has x's shape
 * and dtype od (forward) or xd (gradient). x is read through od (torch casts before the op;
 * reading a float32 x that stands for float64 straight into the compute dtype is the same
 * exact widening as the bench's raise); on the device the recomputed output and the gradient are
 * rounded to od, as autograd keeps them, and the gradient is stored through od. */
static pc_status sm_run(const pc_op_call *call, const sm_plan *p, pc_compute compute,
                        const pc_tensor *grad_out, pc_tensor *out)
{
    bool bwd = grad_out != NULL, lanes = p->inner == 1;
    pc_dtype cd = pc_kernel_compute_dtype(compute, p->od);
    /* (every block writes its rows whole) */
    pc_status st = pc_tensor_alloc_uninit(out, bwd ? p->xd : p->od, p->x->shape, p->x->rank);
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    if (pc_tensor_numel(p->x) == 0)
        return PC_OK;
    sm_blocks b = sm_blocks_make(p);
    int64_t cap = b.rows_per * p->n * b.cols_per;
    size_t es = pc_dtype_size(cd), bytes = (size_t)cap * es;
    bool failed = false;
#pragma omp parallel if (pc_tensor_numel(p->x) > 32768 && b.count > 1)
    {
        /* x, y, dy and a staging buffer for the casts through od */
        char *buf = malloc(bytes * 3 + (size_t)cap * 8);
        if (!buf) {
#pragma omp atomic write
            failed = true;
        }
#pragma omp for schedule(static)
        for (int64_t k = 0; k < b.count; k++) {
            if (!buf)
                continue;
            char *xs = buf, *ys = buf + bytes, *gs = buf + 2 * bytes, *stage = buf + 3 * bytes;
            int64_t o0, no, c0, nc;
            sm_block_at(p, &b, k, &o0, &no, &c0, &nc);
            int64_t len = no * p->n * nc, at = o0 * p->n * p->inner;
            /* a block of whole rows read in place, and written where it goes, where the
             * dtypes allow (no cast through od): the same values */
            bool rows = nc == p->inner, x_as_is = rows && p->od == p->xd;
            const void *X = xs;
            if (x_as_is)
                X = pc_kernel_read_ro(p->x, at, len, cd, xs);
            else
                sm_block_read(p, p->x, o0, no, c0, nc, p->od, stage, cd, xs);
            if (!bwd) {
                void *Y = rows ? pc_kernel_write_at(out, at, cd, ys) : ys;
                sm_fwd(cd, p->logsm, lanes, X, Y, no, p->n, nc);
                if (Y == ys)
                    sm_block_write(p, out, o0, no, c0, nc, ys, cd, out->dtype, stage);
                continue;
            }
            sm_fwd(cd, p->logsm, lanes, X, ys, no, p->n, nc);
            const void *G = gs;
            void *D = gs;
            if (compute == PC_COMPUTE_DEVICE) {
                sm_block_read(p, grad_out, o0, no, c0, nc, grad_out->dtype, stage, cd, gs);
                pc_kernel_round_n(ys, cd, len, p->od);
                pc_kernel_round_n(gs, cd, len, p->od);
            } else if (rows) {
                G = pc_kernel_read_ro(grad_out, at, len, cd, gs);
                if (p->od == out->dtype)
                    D = pc_kernel_write_at(out, at, cd, gs);
            } else {
                sm_block_read(p, grad_out, o0, no, c0, nc, grad_out->dtype, stage, cd, gs);
            }
            sm_bwd(cd, p->logsm, lanes, ys, G, D, no, p->n, nc);
            if (D == gs)
                sm_block_write(p, out, o0, no, c0, nc, gs, cd, p->od, stage);
        }
        free(buf);
    }
    if (failed) {
        pc_tensor_free(out);
        return pc_kernel_nomem(call);
    }
    return PC_OK;
}

pc_status pc_k_softmax_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    sm_plan p;
    pc_status st = sm_plan_make(call, &p);
    if (st == PC_OK && (st = sm_run(call, &p, compute, NULL, &out->tensors[0])) == PC_OK)
        out->count = 1;
    return st;
}

pc_status pc_k_softmax_backward(const pc_op_call *call, pc_compute compute,
                                const pc_tensor *grad_out, pc_op_grads *out)
{
    sm_plan p;
    pc_status st = sm_plan_make(call, &p);
    if (st != PC_OK || !pc_kernel_wants_grad(call, 0))
        return st;
    return sm_run(call, &p, compute, grad_out, &out->grads[0]);
}

/* ---- layer_norm ---- */

typedef struct ln_plan {
    const pc_tensor *x, *w, *b;
    pc_dtype xd; /* the dtype x stands for (pc_kernel_dtype: the bench's raise) */
    int64_t rows, n;
    double eps;
} ln_plan;

static pc_status ln_plan_make(const pc_op_call *call, ln_plan *p)
{
    p->x = pc_call_tensor(call, 0);
    p->w = pc_call_tensor(call, 2);
    p->b = pc_call_tensor(call, 3);
    p->xd = pc_kernel_dtype(call, p->x);
    p->eps = call->args[4].f;
    const pc_value *ns = &call->args[1];
    pc_status st = pc_kernel_need_float(call, p->x, "LayerNormKernelImpl");
    if (st != PC_OK)
        return st;
    int k = ns->nints, rank = p->x->rank;
    bool ok = k >= 1 && k <= rank;
    for (int i = 0; ok && i < k; i++)
        ok = ns->ints[i] == p->x->shape[rank - k + i];
    if (!ok) {
        char a[PC_SHAPE_FORMAT_MAX], b[PC_SHAPE_FORMAT_MAX];
        pc_shape_format(a, sizeof a, ns->ints, k);
        pc_shape_format(b, sizeof b, p->x->shape, rank);
        return pc_error_set(PC_ERR_INVALID,
                            "%s: Given normalized_shape=%s, expected input with shape [*, %.*s], "
                            "but got input of size%s",
                            call->full_name, a, (int)strlen(a) - 2, a + 1, b);
    }
    p->n = 1;
    for (int i = 0; i < k; i++)
        p->n *= ns->ints[i];
    p->rows = 1;
    for (int i = 0; i < rank - k; i++)
        p->rows *= p->x->shape[i];
    if ((p->w && pc_tensor_numel(p->w) != p->n) || (p->b && pc_tensor_numel(p->b) != p->n))
        return pc_error_set(PC_ERR_INVALID, "%s: weight and bias must have %" PRId64 " elements",
                            call->full_name, p->n);
    if ((st = pc_kernel_same_dtype(call, p->x, p->w)) != PC_OK)
        return st;
    return pc_kernel_same_dtype(call, p->x, p->b);
}

/* layer_norm a block of rows at a time (about PC_KERNEL_BLOCK elements, one row at least): the
 * rows' values in the compute dtype, the weight and bias whole ([n]). */
static int64_t ln_rows_per_block(const ln_plan *p)
{
    return p->n > 0 && p->n < PC_KERNEL_BLOCK ? PC_KERNEL_BLOCK / p->n : 1;
}

static void ln_fwd(pc_dtype cd, const void *x, const void *w, const void *b, void *y, int64_t rows,
                   int64_t n, double eps, void *mean, void *rstd)
{
#if PC_NORM_FMA
    if (norm_fma()) {
        if (cd == PC_DTYPE_F64)
            layer_norm_fwd_d_fma(x, w, b, y, rows, n, eps, mean, rstd);
        else
            layer_norm_fwd_f_fma(x, w, b, y, rows, n, (float)eps, mean, rstd);
        return;
    }
#endif
    if (cd == PC_DTYPE_F64)
        layer_norm_fwd_d(x, w, b, y, rows, n, eps, mean, rstd);
    else
        layer_norm_fwd_f(x, w, b, y, rows, n, (float)eps, mean, rstd);
}

/* layer_norm_bwd of the compute dtype cd (see ln_fwd). */
static void ln_bwd(pc_dtype cd, const void *x, const void *w, const void *dy, const void *mean,
                   const void *rstd, int64_t rows, int64_t n, void *dx, void *dw, void *db)
{
#if PC_NORM_FMA
    if (norm_fma()) {
        if (cd == PC_DTYPE_F64)
            layer_norm_bwd_d_fma(x, w, dy, mean, rstd, rows, n, dx, dw, db);
        else
            layer_norm_bwd_f_fma(x, w, dy, mean, rstd, rows, n, dx, dw, db);
        return;
    }
#endif
    if (cd == PC_DTYPE_F64)
        layer_norm_bwd_d(x, w, dy, mean, rstd, rows, n, dx, dw, db);
    else
        layer_norm_bwd_f(x, w, dy, mean, rstd, rows, n, dx, dw, db);
}

typedef struct ln_params {
    pc_tensor w, b; /* in the compute dtype; null when absent */
} ln_params;

static pc_status ln_params_load(const pc_op_call *call, const ln_plan *p, pc_dtype cd, ln_params *u)
{
    u->w = u->b = PC_TENSOR_NULL;
    pc_status st = PC_OK;
    if (p->w)
        st = pc_kernel_load_ro(call, p->w, cd, &u->w);
    if (st == PC_OK && p->b)
        st = pc_kernel_load_ro(call, p->b, cd, &u->b);
    return st;
}

static void ln_params_free(ln_params *u)
{
    pc_tensor_free(&u->w);
    pc_tensor_free(&u->b);
}

pc_status pc_k_layer_norm_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    ln_plan p;
    pc_status st = ln_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    pc_dtype cd = pc_kernel_compute_dtype(compute, p.xd);
    ln_params u;
    pc_tensor *y = &out->tensors[0];
    if ((st = ln_params_load(call, &p, cd, &u)) != PC_OK ||
        (st = pc_tensor_alloc_uninit(y, p.xd, p.x->shape, p.x->rank)) != PC_OK) {
        ln_params_free(&u);
        return st;
    }
    int64_t per = ln_rows_per_block(&p), nblocks = (p.rows + per - 1) / per;
    size_t es = pc_dtype_size(cd), bytes = (size_t)(per * p.n + 1) * es;
    const void *w = p.w ? pc_tensor_data(&u.w) : NULL, *b = p.b ? pc_tensor_data(&u.b) : NULL;
    bool failed = false;
    /* rows are independent: threads over blocks change no result */
#pragma omp parallel if (p.rows * p.n > 32768 && nblocks > 1)
    {
        char *buf = malloc(bytes * 2 + (size_t)(per + 1) * es * 2);
        if (!buf) {
#pragma omp atomic write
            failed = true;
        }
#pragma omp for schedule(static)
        for (int64_t k = 0; k < nblocks; k++) {
            if (!buf)
                continue;
            char *xs = buf, *ys = buf + bytes, *mean = ys + bytes;
            char *rstd = mean + (size_t)(per + 1) * es;
            int64_t r0 = k * per, nr = p.rows - r0 < per ? p.rows - r0 : per;
            /* in place where the dtypes allow (the same values) */
            const void *X = pc_kernel_read_ro(p.x, r0 * p.n, nr * p.n, cd, xs);
            void *Y = pc_kernel_write_at(y, r0 * p.n, cd, ys);
            ln_fwd(cd, X, w, b, Y, nr, p.n, p.eps, mean, rstd);
            if (Y == ys)
                pc_kernel_write(y, r0 * p.n, nr * p.n, ys, cd);
        }
        free(buf);
    }
    ln_params_free(&u);
    if (failed) {
        pc_tensor_free(y);
        return pc_kernel_nomem(call);
    }
    out->count = 1;
    return PC_OK;
}

pc_status pc_k_layer_norm_backward(const pc_op_call *call, pc_compute compute,
                                   const pc_tensor *grad_out, pc_op_grads *out)
{
    ln_plan p;
    pc_status st = ln_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    bool gx = pc_kernel_wants_grad(call, 0), gw = p.w && pc_kernel_wants_grad(call, 2),
         gb = p.b && pc_kernel_wants_grad(call, 3);
    if (!gx && !gw && !gb)
        return PC_OK;
    pc_dtype cd = pc_kernel_compute_dtype(compute, p.xd);
    ln_params u;
    pc_tensor dw = PC_TENSOR_NULL, db = PC_TENSOR_NULL;
    int64_t per = ln_rows_per_block(&p);
    size_t es = pc_dtype_size(cd), bytes = (size_t)(per * p.n + 1) * es;
    char *buf = NULL;
    if ((st = ln_params_load(call, &p, cd, &u)) != PC_OK ||
        (gw && (st = pc_tensor_alloc(&dw, cd, &p.n, 1)) != PC_OK) ||
        (gb && (st = pc_tensor_alloc(&db, cd, &p.n, 1)) != PC_OK) ||
        (gx && (st = pc_tensor_alloc_uninit(&out->grads[0], p.xd, p.x->shape, p.x->rank)) !=
                   PC_OK)) /* (every block of rows is written whole) */
        goto done;
    if (!(buf = malloc(bytes * 3 + (size_t)(per + 1) * es * 2))) {
        st = pc_kernel_nomem(call);
        goto done;
    }
    const void *w = p.w ? pc_tensor_data(&u.w) : NULL, *b = p.b ? pc_tensor_data(&u.b) : NULL;
    void *dwp = gw ? pc_tensor_data(&dw) : NULL, *dbp = gb ? pc_tensor_data(&db) : NULL;
    char *xs = buf, *gs = buf + bytes, *ys = gs + bytes, *mean = ys + bytes;
    char *rstd = mean + (size_t)(per + 1) * es;
    /* in row order: dw and db sum over the rows */
    for (int64_t r0 = 0; r0 < p.rows; r0 += per) {
        int64_t nr = p.rows - r0 < per ? p.rows - r0 : per, len = nr * p.n;
        /* x, and on the bench (nothing rounded) the gradient, read in place where the dtypes
         * allow; y and then dx computed where dx goes */
        const void *X = pc_kernel_read_ro(p.x, r0 * p.n, len, cd, xs), *G = gs;
        if (compute == PC_COMPUTE_DEVICE) {
            pc_kernel_read(grad_out, r0 * p.n, len, cd, gs);
            pc_kernel_round_n(gs, cd, len, p.xd);
        } else {
            G = pc_kernel_read_ro(grad_out, r0 * p.n, len, cd, gs);
        }
        void *Y = gx ? pc_kernel_write_at(&out->grads[0], r0 * p.n, cd, ys) : ys;
        ln_fwd(cd, X, w, b, Y, nr, p.n, p.eps, mean, rstd); /* the statistics */
        void *dx = gx ? Y : NULL;                           /* dx overwrites y */
        ln_bwd(cd, X, w, G, mean, rstd, nr, p.n, dx, dwp, dbp);
        if (gx && Y == ys)
            pc_kernel_write(&out->grads[0], r0 * p.n, len, ys, cd);
    }
    if (gw && (st = pc_kernel_store(call, &dw, pc_kernel_dtype(call, p.w), p.w->shape, p.w->rank,
                                    &out->grads[2])) != PC_OK)
        goto done;
    if (gb)
        st = pc_kernel_store(call, &db, pc_kernel_dtype(call, p.b), p.b->shape, p.b->rank,
                             &out->grads[3]);
done:
    free(buf);
    pc_tensor_free(&dw);
    pc_tensor_free(&db);
    ln_params_free(&u);
    return st;
}

/* ---- batch_norm ---- */

typedef struct bn_plan {
    const pc_tensor *x, *rm, *rv, *w, *b;
    bool training;
    double momentum, eps;
    int64_t N, C, S; /* x as [N, C, S] */
} bn_plan;

static pc_status bn_plan_make(const pc_op_call *call, bn_plan *p)
{
    p->x = pc_call_tensor(call, 0);
    p->rm = pc_call_tensor(call, 1);
    p->rv = pc_call_tensor(call, 2);
    p->w = pc_call_tensor(call, 3);
    p->b = pc_call_tensor(call, 4);
    p->training = call->args[5].b;
    p->momentum = call->args[6].f;
    p->eps = call->args[7].f;
    pc_status st = pc_kernel_need_float(call, p->x, "batch_norm");
    if (st != PC_OK)
        return st;
    if (p->x->rank < 2)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: Expected 2D or more input to batch_norm, got %dD input",
                            call->full_name, p->x->rank);
    p->N = p->x->shape[0];
    p->C = p->x->shape[1];
    p->S = 1;
    for (int i = 2; i < p->x->rank; i++)
        p->S *= p->x->shape[i];
    const pc_tensor *ps[4] = {p->rm, p->rv, p->w, p->b};
    for (int i = 0; i < 4; i++)
        if (ps[i] && pc_tensor_numel(ps[i]) != p->C)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: running_mean, running_var, weight and bias must have %" PRId64
                                " elements",
                                call->full_name, p->C);
    if (!p->training && (!p->rm || !p->rv))
        return pc_error_set(PC_ERR_INVALID,
                            "%s: running_mean and running_var must be defined in evaluation mode",
                            call->full_name);
    if (p->training && p->N * p->S <= 1) {
        char sh[PC_SHAPE_FORMAT_MAX];
        pc_shape_format(sh, sizeof sh, p->x->shape, p->x->rank);
        return pc_error_set(PC_ERR_INVALID,
                            "%s: Expected more than 1 value per channel when training, got input "
                            "size torch.Size(%s)",
                            call->full_name, sh);
    }
    return PC_OK;
}

/* Per channel: the mean and 1 / sqrt(var + eps) the output uses, in the compute dtype, as
 * torch's CPU kernel forms them (sums in double; the batch variance biased). */
static void bn_stats(const bn_plan *p, bool dbl, const void *x, const pc_tensor *rm,
                     const pc_tensor *rv, double *mean, double *invstd, double *var_sum)
{
    for (int64_t c = 0; c < p->C; c++) {
        if (!p->training) {
            /* evaluation: the running statistics (1-D tensors of C) */
            double m = pc_tensor_get(rm, &c), v = pc_tensor_get(rv, &c);
            mean[c] = dbl ? m : (double)(float)m;
            invstd[c] = 1.0 / sqrt(v + p->eps);
            if (!dbl)
                invstd[c] = (double)(float)invstd[c];
            continue;
        }
        double s = 0;
        for (int64_t n = 0; n < p->N; n++)
            for (int64_t i = 0; i < p->S; i++) {
                int64_t k = (n * p->C + c) * p->S + i;
                s += dbl ? ((const double *)x)[k] : (double)((const float *)x)[k];
            }
        double cnt = (double)(p->N * p->S);
        double m = s / cnt;
        if (!dbl)
            m = (double)(float)m;
        double vs = 0;
        for (int64_t n = 0; n < p->N; n++) {
            for (int64_t i = 0; i < p->S; i++) {
                int64_t k = (n * p->C + c) * p->S + i;
                if (dbl) {
                    double d = ((const double *)x)[k] - m;
                    vs += d * d;
                } else {
                    float d = ((const float *)x)[k] - (float)m;
                    vs += (double)(d * d);
                }
            }
        }
        if (!dbl)
            vs = (double)(float)vs;
        mean[c] = m;
        var_sum[c] = vs;
        invstd[c] = 1.0 / sqrt(vs / cnt + p->eps);
        if (!dbl)
            invstd[c] = (double)(float)invstd[c];
    }
}

typedef struct bn_bufs {
    pc_tensor x, w, b;
    double *mean, *invstd, *var_sum;
} bn_bufs;

static void bn_free(bn_bufs *u)
{
    pc_tensor_free(&u->x);
    pc_tensor_free(&u->w);
    pc_tensor_free(&u->b);
    free(u->mean);
    free(u->invstd);
    free(u->var_sum);
}

static pc_status bn_load(const pc_op_call *call, const bn_plan *p, pc_dtype cd, bn_bufs *u)
{
    *u = (bn_bufs){PC_TENSOR_NULL, PC_TENSOR_NULL, PC_TENSOR_NULL, NULL, NULL, NULL};
    u->mean = calloc((size_t)p->C + 1, sizeof(double));
    u->invstd = calloc((size_t)p->C + 1, sizeof(double));
    u->var_sum = calloc((size_t)p->C + 1, sizeof(double));
    if (!u->mean || !u->invstd || !u->var_sum)
        return pc_kernel_nomem(call);
    pc_status st;
    if ((st = pc_kernel_load_ro(call, p->x, cd, &u->x)) != PC_OK ||
        (p->w && (st = pc_kernel_load_ro(call, p->w, cd, &u->w)) != PC_OK) ||
        (p->b && (st = pc_kernel_load_ro(call, p->b, cd, &u->b)) != PC_OK))
        return st;
    bn_stats(p, cd == PC_DTYPE_F64, pc_tensor_data(&u->x), p->rm, p->rv, u->mean, u->invstd,
             u->var_sum);
    return PC_OK;
}

static double bn_param(const pc_tensor *t, bool dbl, int64_t c, double dflt)
{
    if (pc_tensor_is_null(t))
        return dflt;
    return dbl ? ((const double *)pc_tensor_data(t))[c]
               : (double)((const float *)pc_tensor_data(t))[c];
}

pc_status pc_k_batch_norm_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    bn_plan p;
    pc_status st = bn_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    pc_dtype cd = pc_kernel_compute_dtype(compute, p.x->dtype);
    bool dbl = cd == PC_DTYPE_F64;
    bn_bufs u;
    pc_tensor y = PC_TENSOR_NULL;
    if ((st = bn_load(call, &p, cd, &u)) != PC_OK ||
        (st = pc_tensor_alloc(&y, cd, p.x->shape, p.x->rank)) != PC_OK)
        goto done;
    for (int64_t c = 0; c < p.C; c++) {
        /* y = x alpha + beta with alpha = invstd w, beta = b - mean alpha (torch's order) */
        double w = bn_param(&u.w, dbl, c, 1.0), b = bn_param(&u.b, dbl, c, 0.0);
        for (int64_t n = 0; n < p.N; n++)
            for (int64_t i = 0; i < p.S; i++) {
                int64_t k = (n * p.C + c) * p.S + i;
                if (dbl) {
                    double alpha = u.invstd[c] * w, beta = fma(-u.mean[c], alpha, b);
                    ((double *)pc_tensor_data(&y))[k] =
                        fma(((const double *)pc_tensor_data(&u.x))[k], alpha, beta);
                } else {
                    float alpha = (float)u.invstd[c] * (float)w;
                    float beta = fmaf(-(float)u.mean[c], alpha, (float)b);
                    ((float *)pc_tensor_data(&y))[k] =
                        fmaf(((const float *)pc_tensor_data(&u.x))[k], alpha, beta);
                }
            }
    }
    /* Training mode's update of running_mean / running_var is not written: a call's inputs are
     * only read (they may be a mapped tensor file, and -save_error_data saves them as given),
     * and run_ut compares the output alone. */
    st = pc_kernel_store(call, &y, p.x->dtype, p.x->shape, p.x->rank, &out->tensors[0]);
    if (st == PC_OK)
        out->count = 1;
done:
    pc_tensor_free(&y);
    bn_free(&u);
    return st;
}

pc_status pc_k_batch_norm_backward(const pc_op_call *call, pc_compute compute,
                                   const pc_tensor *grad_out, pc_op_grads *out)
{
    bn_plan p;
    pc_status st = bn_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    bool gx = pc_kernel_wants_grad(call, 0), gw = p.w && pc_kernel_wants_grad(call, 3),
         gb = p.b && pc_kernel_wants_grad(call, 4);
    if (!gx && !gw && !gb)
        return PC_OK;
    pc_dtype cd = pc_kernel_compute_dtype(compute, p.x->dtype);
    bool dbl = cd == PC_DTYPE_F64;
    bn_bufs u;
    pc_tensor g = PC_TENSOR_NULL, dx = PC_TENSOR_NULL, dw = PC_TENSOR_NULL, db = PC_TENSOR_NULL;
    if ((st = bn_load(call, &p, cd, &u)) != PC_OK ||
        (st = pc_kernel_load(call, grad_out, cd, &g)) != PC_OK ||
        (st = pc_tensor_alloc(&dx, cd, p.x->shape, p.x->rank)) != PC_OK ||
        (st = pc_tensor_alloc(&dw, cd, &p.C, 1)) != PC_OK ||
        (st = pc_tensor_alloc(&db, cd, &p.C, 1)) != PC_OK)
        goto done;
    if (compute == PC_COMPUTE_DEVICE)
        pc_kernel_round(&g, p.x->dtype);
#define BN_AT(t, k)                                                                                \
    (dbl ? ((const double *)pc_tensor_data(t))[k] : (double)((const float *)pc_tensor_data(t))[k])
    size_t es = pc_dtype_size(cd);
    char *xmb = malloc((size_t)(p.S + 1) * es);
    if (!xmb) {
        st = pc_kernel_nomem(call);
        goto done;
    }
    for (int64_t c = 0; c < p.C; c++) {
        /* per image, torch's vectorised reductions (lanes, fused multiply-adds), summed over
         * the images in double */
        double sum = 0, dotp = 0, m = u.mean[c], is = u.invstd[c];
        for (int64_t n = 0; n < p.N; n++) {
            int64_t k0 = (n * p.C + c) * p.S;
            if (dbl) {
                const double *xv = (const double *)pc_tensor_data(&u.x) + k0;
                const double *gv = (const double *)pc_tensor_data(&g) + k0;
                for (int64_t i = 0; i < p.S; i++)
                    ((double *)(void *)xmb)[i] = xv[i] - m;
                dotp += row_dot_d((const double *)(void *)xmb, gv, NULL, p.S);
                sum += row_sum_d(gv, p.S, 1);
            } else {
                const float *xv = (const float *)pc_tensor_data(&u.x) + k0;
                const float *gv = (const float *)pc_tensor_data(&g) + k0;
                for (int64_t i = 0; i < p.S; i++)
                    ((float *)(void *)xmb)[i] = xv[i] - (float)m;
                dotp += (double)row_dot_f((const float *)(void *)xmb, gv, NULL, p.S);
                sum += (double)row_sum_f(gv, p.S, 1);
            }
        }
        double w = bn_param(&u.w, dbl, c, 1.0), cnt = (double)(p.N * p.S);
        double kk = dotp * is * is / cnt, gm = sum / cnt;
        for (int64_t n = 0; n < p.N; n++)
            for (int64_t i = 0; i < p.S; i++) {
                int64_t k = (n * p.C + c) * p.S + i;
                double dy = BN_AT(&g, k), v;
                if (p.training) {
                    double xm = BN_AT(&u.x, k) - m;
                    v = (dy - gm - xm * kk) * (is * w);
                } else {
                    v = dy * (is * w);
                }
                if (dbl)
                    ((double *)pc_tensor_data(&dx))[k] = v;
                else
                    ((float *)pc_tensor_data(&dx))[k] = (float)v;
            }
        if (dbl) {
            ((double *)pc_tensor_data(&dw))[c] = dotp * is;
            ((double *)pc_tensor_data(&db))[c] = sum;
        } else {
            ((float *)pc_tensor_data(&dw))[c] = (float)(dotp * is);
            ((float *)pc_tensor_data(&db))[c] = (float)sum;
        }
    }
#undef BN_AT
    free(xmb);
    if (gx && (st = pc_kernel_store(call, &dx, p.x->dtype, p.x->shape, p.x->rank,
                                    &out->grads[0])) != PC_OK)
        goto done;
    if (gw && (st = pc_kernel_store(call, &dw, p.w->dtype, p.w->shape, p.w->rank,
                                    &out->grads[3])) != PC_OK)
        goto done;
    if (gb)
        st = pc_kernel_store(call, &db, p.b->dtype, p.b->shape, p.b->rank, &out->grads[4]);
done:
    pc_tensor_free(&g);
    pc_tensor_free(&dx);
    pc_tensor_free(&dw);
    pc_tensor_free(&db);
    bn_free(&u);
    return st;
}
