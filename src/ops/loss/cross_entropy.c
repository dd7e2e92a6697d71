/*
 * cross_entropy, forward and backward: log_softmax over the class dimension, then nll_loss,
 * in one kernel (the log-probabilities never exist as a whole tensor). The log_softmax is
 * the norm family's kernel (norm/norm_kernel.inc, instantiated here as nn/sdpa.c does), so
 * its bits are softmax's own.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tgmath.h>

#include "ops/kernel.h"
#include "ops/loss/loss_impl.h"
#include "precheck/core/convert.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#define PC_TWIN_TEMPLATE "ops/norm/norm_kernel.inc"
#include "ops/kernel_twins.h"
#pragma GCC diagnostic pop

/* Both passes work a block of whole batch slices [C, inner] of x at a time (about PC_KERNEL_BLOCK
 * elements, one slice at least) in per-thread scratch, threads over blocks: the
 * log-probabilities never exist as a whole tensor. Every slice's arithmetic is the one the
 * whole-tensor computation does (the same kernels on the same values, each batch element's sums
 * in class order), and the sums across the batch run afterwards in batch order, so neither the
 * blocks nor the threads change a bit. */

typedef struct ce_plan {
    const pc_tensor *x, *t, *w;
    pc_dtype xd;         /* the dtype x stands for (pc_kernel_dtype: the bench's raise) */
    bool probs;          /* float targets: class probabilities */
    int64_t N, C, inner; /* x as [N, C, inner] */
    int64_t ignore;
    int red; /* PC_FN_RED_NONE, _MEAN or _SUM */
    double eps;
    int orank;
    int64_t osh[PC_TENSOR_MAX_DIMS];
} ce_plan;

static pc_status ce_plan_make(const pc_op_call *call, ce_plan *p)
{
    p->x = pc_call_tensor(call, 0);
    p->t = pc_call_tensor(call, 1);
    p->w = pc_call_tensor(call, 2);
    p->xd = pc_kernel_dtype(call, p->x);
    p->ignore = call->args[4].i;
    p->eps = call->args[7].f;
    /* reduction, or the legacy size_average / reduce flags */
    pc_status st = pc_fn_reduction(call, 6, 3, 5, false, &p->red);
    if (st != PC_OK ||
        (st = pc_kernel_need_float(call, p->x, "log_softmax_lastdim_kernel_impl")) != PC_OK ||
        (st = pc_kernel_same_dtype(call, p->x, p->w)) != PC_OK)
        return st;
    if (p->eps < 0 || p->eps > 1)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: label_smoothing must be between 0.0 and 1.0. Got: %g",
                            call->full_name, p->eps);
    int rank = p->x->rank;
    if (rank == 0)
        return pc_error_set(PC_ERR_INVALID, "%s: input tensor should be 1D or more",
                            call->full_name);
    p->probs = pc_dtype_is_float(p->t->dtype);
    int cdim = rank == 1 ? 0 : 1;
    p->C = p->x->shape[cdim];
    p->N = rank == 1 ? 1 : p->x->shape[0];
    p->inner = 1;
    for (int i = 2; i < rank; i++)
        p->inner *= p->x->shape[i];
    if (p->w && (p->w->rank != 1 || p->w->shape[0] != p->C))
        return pc_error_set(PC_ERR_INVALID,
                            "%s: weight tensor should be defined either for all %" PRId64
                            " classes or no classes but got weight tensor of shape: [%" PRId64 "]",
                            call->full_name, p->C, p->w->rank ? p->w->shape[0] : 0);
    if (p->probs) {
        if (!pc_tensor_same_shape(p->x, p->t))
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Expected input and target to have the same shape",
                                call->full_name);
        if ((st = pc_kernel_same_dtype(call, p->x, p->t)) != PC_OK)
            return st;
    } else {
        if (p->t->dtype != PC_DTYPE_I64 && p->t->dtype != PC_DTYPE_I32)
            return pc_error_set(PC_ERR_INVALID, "%s: expected scalar type Long but found %s",
                                call->full_name, pc_torch_type_name(p->t->dtype));
        bool ok = p->t->rank == (rank == 1 ? 0 : rank - 1);
        for (int i = 0; ok && i < p->t->rank; i++)
            ok = p->t->shape[i] == p->x->shape[i == 0 ? 0 : i + 1];
        if (!ok)
            return pc_error_set(PC_ERR_INVALID, "%s: Expected target size that matches the input",
                                call->full_name);
    }
    /* the 'none' result has the shape of the batch (input without its class dimension) */
    p->orank = 0;
    if (p->red == PC_FN_RED_NONE)
        for (int i = 0; i < rank; i++)
            if (i != cdim)
                p->osh[p->orank++] = p->x->shape[i];
    return PC_OK;
}

/* The small operands: the weights (compute dtype) and the class targets (int64, checked). */
typedef struct ce_bufs {
    pc_tensor w, t;
} ce_bufs;

static void ce_free(ce_bufs *u)
{
    pc_tensor_free(&u->w);
    pc_tensor_free(&u->t);
}

static pc_status ce_load(const pc_op_call *call, const ce_plan *p, pc_dtype cd, ce_bufs *u)
{
    *u = (ce_bufs){PC_TENSOR_NULL, PC_TENSOR_NULL};
    pc_status st = PC_OK;
    if (p->w)
        st = pc_kernel_load(call, p->w, cd, &u->w);
    if (st == PC_OK && !p->probs)
        st = pc_tensor_cast(&u->t, p->t, PC_DTYPE_I64);
    if (st == PC_OK && !p->probs) {
        const int64_t *k = pc_tensor_data(&u->t);
        for (int64_t i = 0; i < p->N * p->inner; i++)
            if (k[i] != p->ignore && (k[i] < 0 || k[i] >= p->C))
                st = pc_error_set(PC_ERR_INVALID, "%s: Target %" PRId64 " is out of bounds.",
                                  call->full_name, k[i]);
    }
    return st;
}

/* The blocks: rows_per batch slices of slab = C inner elements each. */
typedef struct ce_blocks {
    int64_t slab, rows_per, count;
} ce_blocks;

static ce_blocks ce_blocks_make(const ce_plan *p)
{
    ce_blocks b;
    b.slab = p->C * p->inner;
    b.rows_per = b.slab > 0 && b.slab < PC_KERNEL_BLOCK ? PC_KERNEL_BLOCK / b.slab : 1;
    b.count = (p->N + b.rows_per - 1) / b.rows_per;
    return b;
}

/* Per-thread scratch: x, its log-probabilities, the probability targets, the gradient of the
 * log-probabilities and that of the targets, each a block in the compute dtype. */
typedef struct ce_scratch {
    void *xs, *lp, *ts, *gs, *dts;
    char *mem;
} ce_scratch;

static bool ce_scratch_alloc(ce_scratch *s, const ce_blocks *b, pc_dtype cd)
{
    size_t bytes = (size_t)(b->rows_per * b->slab) * pc_dtype_size(cd) + 64;
    char *m = s->mem = malloc(bytes * 5);
    if (!m)
        return false;
    s->xs = m;
    s->lp = m + bytes;
    s->ts = m + 2 * bytes;
    s->gs = m + 3 * bytes;
    s->dts = m + 4 * bytes;
    return true;
}

/* The log-probabilities of the slices n0 .. n0 + nn - 1 into s->lp (and the probability
 * targets into s->ts): x read in the compute dtype, log_softmax over the classes, rounded to
 * x's dtype on the device (they are a tensor between the two ops). */
static void ce_logp_block(const ce_plan *p, const ce_blocks *b, pc_compute compute, pc_dtype cd,
                          int64_t n0, int64_t nn, ce_scratch *s)
{
    int64_t at = n0 * b->slab, len = nn * b->slab;
    const void *xs = s->xs;
    if (p->x->dtype == cd && pc_tensor_is_contiguous(p->x)) /* the values themselves */
        xs = (const char *)pc_tensor_data(p->x) + (size_t)at * pc_dtype_size(cd);
    else
        pc_kernel_read(p->x, at, len, cd, s->xs);
    if (cd == PC_DTYPE_F64)
        softmax_fwd_d(true, p->inner == 1, xs, s->lp, nn, p->C, p->inner);
    else
        softmax_fwd_f(true, p->inner == 1, xs, s->lp, nn, p->C, p->inner);
    if (compute == PC_COMPUTE_DEVICE)
        pc_kernel_round_n(s->lp, cd, len, p->xd);
    if (p->probs)
        pc_kernel_read(p->t, at, len, cd, s->ts);
}

/* The scales of the gradient of the log-probabilities. */
typedef struct ce_scales {
    const double *gv; /* the incoming gradient, in double */
    double wsum, counted;
} ce_scales;

/* What a pass's blocks need: the plan and its operands; the forward's outputs (nll, sm: per
 * batch element) or the backward's (sc, the scales; dx and dt, NULL when not wanted). */
typedef struct ce_job {
    const ce_plan *p;
    const ce_blocks *b;
    pc_compute compute;
    pc_dtype cd;
    const ce_bufs *u;
    double *nll, *sm;
    const ce_scales *sc;
    pc_tensor *dx, *dt;
} ce_job;

/* Each block's log-probabilities (ce_logp_block), then work on them, threads over the blocks
 * (for more than 32768 elements), each thread with its scratch. False when a thread's scratch
 * could not be had (its blocks were not done). */
static bool ce_for_blocks(const ce_job *j,
                          void (*work)(const ce_job *j, int64_t n0, int64_t nn, ce_scratch *s))
{
    const ce_plan *p = j->p;
    const ce_blocks *b = j->b;
    bool failed = false;
#pragma omp parallel if (pc_tensor_numel(p->x) > 32768 && b->count > 1)
    {
        ce_scratch s;
        if (!ce_scratch_alloc(&s, b, j->cd)) {
#pragma omp atomic write
            failed = true;
        }
#pragma omp for schedule(static)
        for (int64_t k = 0; k < b->count; k++) {
            if (!s.mem)
                continue;
            int64_t n0 = k * b->rows_per, nn = p->N - n0 < b->rows_per ? p->N - n0 : b->rows_per;
            ce_logp_block(p, b, j->compute, j->cd, n0, nn, &s);
            work(j, n0, nn, &s);
        }
        free(s.mem);
    }
    return !failed;
}

/* A compute-dtype value at index i of a block buffer, in double. */
#define CE_AT(buf, i) (dbl ? ((const double *)(buf))[i] : (double)((const float *)(buf))[i])

/* The loss in double from compute-dtype values: per batch element b of the block its nll part
 * nll[b] and its smoothing part sm[b] (the sums over the classes in class order). Device values
 * follow the compute dtype's rounding through the ops' boundaries only. */
static void ce_loss_block(const ce_job *j, int64_t n0, int64_t nn, ce_scratch *s)
{
    const ce_plan *p = j->p;
    const ce_blocks *b = j->b;
    const ce_bufs *u = j->u;
    bool dbl = j->cd == PC_DTYPE_F64;
    double *nll_out = j->nll, *sm_out = j->sm;
    const void *lp = s->lp, *wv = p->w ? pc_tensor_data(&u->w) : NULL;
    const int64_t *tk = p->probs ? NULL : pc_tensor_data(&u->t);
    double C = (double)p->C;
    for (int64_t n = n0; n < n0 + nn; n++)
        for (int64_t in = 0; in < p->inner; in++) {
            int64_t bi = n * p->inner + in, base = (n - n0) * b->slab + in;
            double nll = 0, sm = 0;
            if (p->probs) {
                for (int64_t c = 0; c < p->C; c++) {
                    int64_t k = base + c * p->inner;
                    double t = CE_AT(s->ts, k) * (1 - p->eps) + p->eps / C;
                    nll -= CE_AT(lp, k) * t * (wv ? CE_AT(wv, c) : 1.0);
                }
            } else if (tk[bi] != p->ignore) {
                int64_t t = tk[bi];
                double wt = wv ? CE_AT(wv, t) : 1.0;
                nll = -wt * CE_AT(lp, base + t * p->inner);
                if (p->eps > 0)
                    for (int64_t c = 0; c < p->C; c++)
                        sm -= CE_AT(lp, base + c * p->inner) * (wv ? CE_AT(wv, c) : 1.0);
            }
            nll_out[bi] = nll;
            sm_out[bi] = sm;
        }
}

pc_status pc_k_cross_entropy_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    ce_plan p;
    pc_status st = ce_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    pc_dtype cd = pc_kernel_compute_dtype(compute, p.xd);
    bool dbl = cd == PC_DTYPE_F64;
    ce_bufs u;
    pc_tensor r = PC_TENSOR_NULL;
    double *sm = NULL;
    int64_t B = p.N * p.inner;
    if ((st = ce_load(call, &p, cd, &u)) != PC_OK)
        goto done;
    int64_t one = B;
    if ((st = pc_tensor_alloc(&r, PC_DTYPE_F64, &one, 1)) != PC_OK)
        goto done;
    double *l = pc_tensor_data(&r);
    sm = malloc((size_t)B * sizeof *sm + 1);
    if (!sm) {
        st = pc_kernel_nomem(call);
        goto done;
    }
    ce_blocks b = ce_blocks_make(&p);
    ce_job job = {.p = &p, .b = &b, .compute = compute, .cd = cd, .u = &u, .nll = l, .sm = sm};
    if (!ce_for_blocks(&job, ce_loss_block)) { /* l holds the nll parts */
        st = pc_kernel_nomem(call);
        goto done;
    }
    /* the batch's sums, in batch order */
    const void *wv = p.w ? pc_tensor_data(&u.w) : NULL;
    const int64_t *tk = p.probs ? NULL : pc_tensor_data(&u.t);
    double wsum = 0, nll_total = 0, sm_total = 0, C = (double)p.C;
    int64_t counted = 0;
    for (int64_t i = 0; i < B; i++) {
        double nll = l[i];
        if (p.probs) {
            nll_total += nll;
            continue;
        }
        if (tk[i] != p.ignore) {
            wsum += wv ? CE_AT(wv, tk[i]) : 1.0;
            counted++;
        }
        l[i] = (1 - p.eps) * nll + sm[i] * (p.eps / C);
        nll_total += nll;
        sm_total += sm[i];
    }
    if (p.red != PC_FN_RED_NONE) {
        double v;
        if (p.probs)
            v = p.red == PC_FN_RED_MEAN ? nll_total / (double)B : nll_total;
        else if (p.red == PC_FN_RED_SUM)
            v = (1 - p.eps) * nll_total + sm_total * (p.eps / C);
        else
            v = (1 - p.eps) * (nll_total / wsum) +
                (p.w ? sm_total / wsum : sm_total / (double)counted) * (p.eps / C);
        pc_tensor_free(&r);
        if ((st = pc_tensor_alloc(&r, PC_DTYPE_F64, NULL, 0)) != PC_OK)
            goto done;
        *(double *)pc_tensor_data(&r) = v;
    }
    st = pc_kernel_store(call, &r, p.xd, p.osh, p.orank, &out->tensors[0]);
    if (st == PC_OK)
        out->count = 1;
done:
    free(sm);
    pc_tensor_free(&r);
    ce_free(&u);
    return st;
}

/* Element k of a compute-dtype block buffer set to the double v (rounded RNE to float). */
static inline void ce_put(void *buf, bool dbl, int64_t k, double v)
{
    if (dbl)
        ((double *)buf)[k] = v;
    else
        ((float *)buf)[k] = (float)v;
}

/* The gradient of the log-probabilities of a block into s->gs (compute dtype, rounded to x's
 * dtype on the device), and with dts that of the probability targets into s->dts. The factors
 * that depend on the batch element only are computed once per element, by the same
 * expressions (the same values). */
static void ce_glp_block(const ce_plan *p, const ce_blocks *b, pc_compute compute, bool dbl,
                         const ce_bufs *u, const ce_scales *sc, bool dts, int64_t n0, int64_t nn,
                         ce_scratch *s)
{
    const void *lp = s->lp, *wv = p->w ? pc_tensor_data(&u->w) : NULL;
    const int64_t *tk = p->probs ? NULL : pc_tensor_data(&u->t);
    double C = (double)p->C, B = (double)(p->N * p->inner);
    for (int64_t n = n0; n < n0 + nn; n++)
        for (int64_t in = 0; in < p->inner; in++) {
            int64_t bi = n * p->inner + in, base = (n - n0) * b->slab + in;
            double dy = p->red == PC_FN_RED_NONE ? sc->gv[bi] : sc->gv[0];
            if (p->probs) {
                double sv = p->red == PC_FN_RED_MEAN ? dy / B : dy;
                for (int64_t c = 0; c < p->C; c++) {
                    int64_t k = base + c * p->inner;
                    double wc = wv ? CE_AT(wv, c) : 1.0;
                    double t = CE_AT(s->ts, k) * (1 - p->eps) + p->eps / C;
                    ce_put(s->gs, dbl, k, -sv * t * wc);
                    if (dts)
                        ce_put(s->dts, dbl, k, -sv * CE_AT(lp, k) * wc * (1 - p->eps));
                }
                continue;
            }
            int64_t t = tk[bi];
            if (t == p->ignore) {
                for (int64_t c = 0; c < p->C; c++)
                    ce_put(s->gs, dbl, base + c * p->inner, 0.0);
                continue;
            }
            double nll_s =
                p->red == PC_FN_RED_MEAN ? dy * (1 - p->eps) / sc->wsum : dy * (1 - p->eps);
            double sm_s = dy * (p->eps / C);
            if (p->red == PC_FN_RED_MEAN)
                sm_s /= p->w ? sc->wsum : sc->counted;
            for (int64_t c = 0; c < p->C; c++) {
                double wc = wv ? CE_AT(wv, c) : 1.0;
                ce_put(s->gs, dbl, base + c * p->inner, -sm_s * wc);
            }
            /* the target's class: d = -sm_s wc, then d += -nll_s wc */
            double wt = wv ? CE_AT(wv, t) : 1.0, d = -sm_s * wt;
            d += -nll_s * wt;
            ce_put(s->gs, dbl, base + t * p->inner, d);
        }
    if (compute == PC_COMPUTE_DEVICE)
        pc_kernel_round_n(s->gs, dbl ? PC_DTYPE_F64 : PC_DTYPE_F32, nn * b->slab, p->xd);
}

/* A block of the backward: the gradients of its log-probabilities (ce_glp_block), that of the
 * probability targets into dt, and log_softmax's backward into dx. */
static void ce_grad_block(const ce_job *j, int64_t n0, int64_t nn, ce_scratch *s)
{
    const ce_plan *p = j->p;
    pc_dtype cd = j->cd;
    bool dbl = cd == PC_DTYPE_F64;
    int64_t at = n0 * j->b->slab, len = nn * j->b->slab;
    ce_glp_block(p, j->b, j->compute, dbl, j->u, j->sc, j->dt != NULL, n0, nn, s);
    if (j->dt)
        pc_kernel_write(j->dt, at, len, s->dts, cd);
    if (!j->dx)
        return;
    /* log_softmax's backward: straight into dx when it has the compute dtype, else in place in
     * gs and converted */
    bool direct = j->dx->dtype == cd;
    void *to = direct ? (char *)pc_tensor_data(j->dx) + (size_t)at * pc_dtype_size(cd) : s->gs;
    if (dbl)
        softmax_bwd_d(true, p->inner == 1, s->lp, s->gs, to, nn, p->C, p->inner);
    else
        softmax_bwd_f(true, p->inner == 1, s->lp, s->gs, to, nn, p->C, p->inner);
    if (!direct)
        pc_kernel_write(j->dx, at, len, s->gs, cd);
}

pc_status pc_k_cross_entropy_backward(const pc_op_call *call, pc_compute compute,
                                      const pc_tensor *grad_out, pc_op_grads *out)
{
    ce_plan p;
    pc_status st = ce_plan_make(call, &p);
    bool gx = pc_kernel_wants_grad(call, 0), gt = p.probs && pc_kernel_wants_grad(call, 1);
    if (st != PC_OK || (!gx && !gt))
        return st;
    pc_dtype cd = pc_kernel_compute_dtype(compute, p.xd);
    bool dbl = cd == PC_DTYPE_F64;
    ce_bufs u;
    pc_tensor g = PC_TENSOR_NULL, dt = PC_TENSOR_NULL, dx = PC_TENSOR_NULL;
    int64_t B = p.N * p.inner;
    if ((st = ce_load(call, &p, cd, &u)) != PC_OK ||
        (st = pc_tensor_cast(&g, grad_out, PC_DTYPE_F64)) != PC_OK ||
        /* (dx: every block of slices is written whole) */
        (gx && (st = pc_tensor_alloc_uninit(&dx, p.xd, p.x->shape, p.x->rank)) != PC_OK) ||
        (gt &&
         (st = pc_tensor_alloc(&dt, pc_kernel_dtype(call, p.t), p.t->shape, p.t->rank)) != PC_OK))
        goto done;
    ce_scales sc = {pc_tensor_data(&g), 0, 0};
    const void *wv = p.w ? pc_tensor_data(&u.w) : NULL;
    if (!p.probs && p.red == PC_FN_RED_MEAN)
        for (int64_t i = 0; i < B; i++) {
            int64_t t = ((const int64_t *)pc_tensor_data(&u.t))[i];
            if (t != p.ignore) {
                sc.wsum += wv ? CE_AT(wv, t) : 1.0;
                sc.counted++;
            }
        }
    ce_blocks b = ce_blocks_make(&p);
    ce_job job = {.p = &p,
                  .b = &b,
                  .compute = compute,
                  .cd = cd,
                  .u = &u,
                  .sc = &sc,
                  .dx = gx ? &dx : NULL,
                  .dt = gt ? &dt : NULL};
    if (!ce_for_blocks(&job, ce_grad_block)) {
        st = pc_kernel_nomem(call);
        goto done;
    }
    if (gx) {
        out->grads[0] = dx;
        dx = PC_TENSOR_NULL;
    }
    if (gt) {
        out->grads[1] = dt;
        dt = PC_TENSOR_NULL;
    }
done:
    pc_tensor_free(&g);
    pc_tensor_free(&dt);
    pc_tensor_free(&dx);
    ce_free(&u);
    return st;
}
#undef CE_AT
