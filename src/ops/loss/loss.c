/*
 * The losses: mse_loss, l1_loss, smooth_l1_loss, huber_loss, binary_cross_entropy(_with_logits),
 * kl_div (point-wise, one kernel) and nll_loss, forward and backward.
 *
 * Each follows torch 1.13's CPU computation step by step: where torch's kernel or composite
 * holds an intermediate in the tensor dtype, the device rounds it there (pc_fn_round); the
 * bench keeps every step in double. 'mean' and 'sum' add the rounded per-element losses in
 * double and round once (torch's sum has its own order; docs/ops.md), 'mean' then divides
 * the rounded sum as torch's mean does. nll_loss accumulates as torch's kernel does (a cascade
 * of partial sums in the dtype).
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "ops/kernel.h"
#include "ops/loss/loss_impl.h"

/* Where each point-wise loss keeps its arguments (schema indices; -1: none). */
typedef struct pl_args {
    int w, pw, sa, reduce, red, param;
} pl_args;

static const pl_args pl_args_of[] = {
    [PC_FN_MSE] = {-1, -1, 2, 3, 4, -1},
    [PC_FN_L1] = {-1, -1, 2, 3, 4, -1},
    [PC_FN_SMOOTH_L1] = {-1, -1, 2, 3, 4, 5},
    [PC_FN_HUBER] = {-1, -1, -1, -1, 2, 3},
    [PC_FN_BCE] = {2, -1, 3, 4, 5, -1},
    [PC_FN_BCE_LOGITS] = {2, 6, 3, 4, 5, -1},
    [PC_FN_BCE_LOGITS_ATEN] = {2, 3, -1, -1, 4, -1},
    [PC_FN_KL_DIV] = {-1, -1, 2, 3, 4, 5},
    [PC_FN_KL_DIV_ATEN] = {-1, -1, -1, -1, 2, 3},
};

typedef struct pl_plan {
    int kind;
    const pc_tensor *x, *t, *w, *pw;
    int red;
    double param; /* beta, delta */
    bool log_target;
    pc_dtype od; /* the output's dtype */
    pc_dtype cd; /* the dtype torch computes (and rounds) in */
    int rank;
    int64_t shape[PC_TENSOR_MAX_DIMS];
    int64_t n;
} pl_plan;

static bool pl_bce_family(int kind)
{
    return kind == PC_FN_BCE || kind == PC_FN_BCE_LOGITS || kind == PC_FN_BCE_LOGITS_ATEN;
}

static void shape_text(char *buf, size_t size, const pc_tensor *t)
{
    pc_shape_format(buf, size, t->shape, t->rank);
}

static pc_status pl_plan_make(const pc_op_call *call, pl_plan *p)
{
    memset(p, 0, sizeof *p);
    p->kind = call->op->param;
    const pl_args *a = &pl_args_of[p->kind];
    p->x = pc_call_tensor(call, 0);
    p->t = pc_call_tensor(call, 1);
    p->w = a->w >= 0 ? pc_call_tensor(call, a->w) : NULL;
    p->pw = a->pw >= 0 ? pc_call_tensor(call, a->pw) : NULL;
    bool kl = p->kind == PC_FN_KL_DIV || p->kind == PC_FN_KL_DIV_ATEN;
    pc_status st =
        pc_fn_reduction(call, a->red, a->sa, a->reduce, p->kind == PC_FN_KL_DIV, &p->red);
    if (st != PC_OK)
        return st;
    if (a->param >= 0) {
        if (kl)
            p->log_target = call->args[a->param].b;
        else
            p->param = call->args[a->param].f;
    }
    if (p->kind == PC_FN_SMOOTH_L1 && p->param < 0)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: smooth_l1_loss does not support negative values for beta.",
                            call->full_name);
    if (p->kind == PC_FN_HUBER && !(p->param > 0))
        return pc_error_set(PC_ERR_INVALID,
                            "%s: huber_loss does not support non-positive values for delta.",
                            call->full_name);
    char sx[PC_SHAPE_FORMAT_MAX], stt[PC_SHAPE_FORMAT_MAX];
    shape_text(sx, sizeof sx, p->x);
    shape_text(stt, sizeof stt, p->t);
    if (pl_bce_family(p->kind)) {
        if (!pc_tensor_same_shape(p->x, p->t)) {
            if (p->kind == PC_FN_BCE)
                return pc_error_set(PC_ERR_INVALID,
                                    "%s: Using a target size (torch.Size(%s)) that is different "
                                    "to the input size (torch.Size(%s)) is deprecated. Please "
                                    "ensure they have the same size.",
                                    call->full_name, stt, sx);
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Target size (torch.Size(%s)) must be the same as input size "
                                "(torch.Size(%s))",
                                call->full_name, stt, sx);
        }
        p->rank = p->x->rank;
        memcpy(p->shape, p->x->shape, sizeof p->shape);
    } else {
        st = pc_broadcast_shapes(p->x->shape, p->x->rank, p->t->shape, p->t->rank, p->shape,
                                 &p->rank);
        if (st != PC_OK)
            return pc_error_prefix(st, "%s", call->full_name);
    }
    if (p->kind == PC_FN_BCE) {
        if (p->t->dtype != p->x->dtype)
            return pc_error_set(PC_ERR_INVALID, "%s: Found dtype %s but expected %s",
                                call->full_name, pc_torch_type_name(p->t->dtype),
                                pc_torch_type_name(p->x->dtype));
        p->od = p->x->dtype;
    } else {
        p->od = pc_promote_types(p->x->dtype, p->t->dtype);
        if (p->w)
            p->od = pc_promote_types(p->od, p->w->dtype);
        if (p->pw)
            p->od = pc_promote_types(p->od, p->pw->dtype);
    }
    p->cd = p->od;
    if (p->kind == PC_FN_HUBER) /* its output is allocated like the input */
        p->od = p->x->dtype;
    static const char *const kernel[] = {
        [PC_FN_MSE] = "mse_cpu",
        [PC_FN_L1] = "abs_cpu",
        [PC_FN_SMOOTH_L1] = "smooth_l1_cpu",
        [PC_FN_HUBER] = "huber_cpu",
        [PC_FN_BCE] = "binary_cross_entropy",
        [PC_FN_BCE_LOGITS] = "clamp_min_cpu",
        [PC_FN_BCE_LOGITS_ATEN] = "clamp_min_cpu",
        [PC_FN_KL_DIV] = "xlogy_cpu",
        [PC_FN_KL_DIV_ATEN] = "xlogy_cpu",
    };
    pc_tensor probe = *p->x;
    probe.dtype = p->od;
    if ((st = pc_kernel_need_float(call, &probe, kernel[p->kind])) != PC_OK)
        return st;
    /* torch 1.13's CPU build lacks these bfloat16 kernels (float16 ones too, but precheck
     * computes float16 as the accelerators do) */
    if (p->od == PC_DTYPE_BF16 && (p->kind == PC_FN_MSE || p->kind == PC_FN_BCE))
        return pc_error_set(PC_ERR_INVALID, "%s: \"%s\" not implemented for 'BFloat16'",
                            call->full_name, kernel[p->kind]);
    if (p->w || p->pw) {
        int64_t tmp[PC_TENSOR_MAX_DIMS];
        int tr;
        const pc_tensor *extra[2] = {p->w, p->pw};
        for (int k = 0; k < 2; k++) {
            if (!extra[k])
                continue;
            st = pc_broadcast_shapes(p->shape, p->rank, extra[k]->shape, extra[k]->rank, tmp, &tr);
            bool same = st == PC_OK && tr == p->rank;
            for (int i = 0; same && i < tr; i++)
                same = tmp[i] == p->shape[i];
            if (!same) {
                char se[PC_SHAPE_FORMAT_MAX];
                shape_text(se, sizeof se, extra[k]);
                return pc_error_set(PC_ERR_INVALID,
                                    "%s: the size of %s (torch.Size(%s)) does not broadcast to "
                                    "the input's (torch.Size(%s))",
                                    call->full_name, k == 0 ? "weight" : "pos_weight", se, sx);
            }
        }
    }
    p->n = 1;
    for (int i = 0; i < p->rank; i++)
        p->n *= p->shape[i];
    return PC_OK;
}

typedef struct pl_bufs {
    pc_tensor x, t, w, pw;
} pl_bufs;

static void pl_free(pl_bufs *u)
{
    pc_tensor_free(&u->x);
    pc_tensor_free(&u->t);
    pc_tensor_free(&u->w);
    pc_tensor_free(&u->pw);
}

static pc_status pl_load(const pc_op_call *call, const pl_plan *p, pl_bufs *u)
{
    *u = (pl_bufs){PC_TENSOR_NULL, PC_TENSOR_NULL, PC_TENSOR_NULL, PC_TENSOR_NULL};
    pc_status st = pc_fn_load_f64(call, p->x, p->shape, p->rank, &u->x);
    if (st == PC_OK)
        st = pc_fn_load_f64(call, p->t, p->shape, p->rank, &u->t);
    if (st == PC_OK && p->w)
        st = pc_fn_load_f64(call, p->w, p->shape, p->rank, &u->w);
    if (st == PC_OK && p->pw)
        st = pc_fn_load_f64(call, p->pw, p->shape, p->rank, &u->pw);
    return st;
}

static double sgn(double v)
{
    return v > 0 ? 1.0 : v < 0 ? -1.0 : v; /* NaN stays NaN, +-0 stays */
}

static double log_sigmoid(double x)
{
    /* torch's: min(x, 0) - log1p(exp(-|x|)) */
    return fmin(x, 0.0) - log1p(exp(-fabs(x)));
}

/* log(y) inside torch's xlogy kernel: c10's std::log of a BFloat16 returns a BFloat16, of a
 * Half the float of its float conversion. */
static double xlogy_log(pc_dtype rd, double y)
{
    return rd == PC_DTYPE_F64 ? log(y)
                              : pc_fn_round(rd == PC_DTYPE_BF16 ? rd : PC_DTYPE_F32, log(y));
}

/* The per-element loss of element i, rounded as torch rounds (rd). */
static double pl_elem(const pl_plan *p, pc_dtype rd, double x, double t, const double *w,
                      const double *pw, int64_t i)
{
#define R(v) pc_fn_round(rd, (v))
    double l = 0;
    switch (p->kind) {
    case PC_FN_MSE: {
        double d = R(x - t);
        l = R(d * d);
        break;
    }
    case PC_FN_L1:
        l = fabs(R(x - t));
        break;
    case PC_FN_SMOOTH_L1: {
        double z = fabs(R(x - t)), beta = R(p->param);
        if (p->param == 0)
            l = z;
        else
            l = z < beta ? R(R(R(0.5 * z) * z) / beta) : R(z - R(0.5 * beta));
        break;
    }
    case PC_FN_HUBER: {
        double z = fabs(R(x - t)), delta = R(p->param);
        l = z < delta ? R(R(0.5 * z) * z) : R(delta * R(z - R(0.5 * delta)));
        break;
    }
    case PC_FN_BCE:
        l = R(R(R(t - 1) * fmax(R(log1p(-x)), -100.0)) - R(t * fmax(R(log(x)), -100.0)));
        break;
    case PC_FN_BCE_LOGITS:
    case PC_FN_BCE_LOGITS_ATEN: {
        double m = fmax(-x, 0.0);
        double lse = R(log(R(R(exp(-m)) + R(exp(R(-x - m))))));
        double a = R(R(1 - t) * x);
        if (pw) {
            double lw = R(R(R(pw[i] - 1) * t) + 1);
            l = R(a + R(lw * R(lse + m)));
        } else {
            l = R(R(a + m) + lse);
        }
        break;
    }
    case PC_FN_KL_DIV:
    case PC_FN_KL_DIV_ATEN:
        if (p->log_target) {
            l = R(R(exp(t)) * R(t - x));
        } else {
            double lt = xlogy_log(rd, t);
            double xl = isnan(t) ? t : t == 0 ? 0.0 : R(t * lt);
            l = R(xl - R(t * x));
        }
        break;
    }
    if (w)
        l = R(l * w[i]);
    return l;
#undef R
}

pc_status pc_k_pointwise_loss_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    pl_plan p;
    pc_status st = pl_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    pl_bufs u;
    pc_tensor r = PC_TENSOR_NULL;
    if ((st = pl_load(call, &p, &u)) != PC_OK)
        goto done;
    pc_dtype rd = pc_fn_round_dtype(compute, p.cd);
    const double *x = pc_tensor_data(&u.x), *t = pc_tensor_data(&u.t);
    const double *w = p.w ? pc_tensor_data(&u.w) : NULL, *pw = p.pw ? pc_tensor_data(&u.pw) : NULL;
    if (p.kind == PC_FN_BCE)
        for (int64_t i = 0; i < p.n; i++)
            if (!(x[i] >= 0 && x[i] <= 1)) {
                st = pc_error_set(PC_ERR_INVALID,
                                  "%s: all elements of input should be between 0 and 1",
                                  call->full_name);
                goto done;
            }
    if ((st = pc_tensor_alloc(&r, PC_DTYPE_F64, p.shape, p.rank)) != PC_OK)
        goto done;
    double *l = pc_tensor_data(&r);
    for (int64_t i = 0; i < p.n; i++)
        l[i] = pl_elem(&p, rd, x[i], t[i], w, pw, i);
    if (p.red == PC_FN_RED_NONE) {
        st = pc_kernel_store(call, &r, p.od, p.shape, p.rank, &out->tensors[0]);
    } else {
        double s = pc_fn_torch_sum(rd, l, p.n);
        if (p.red == PC_FN_RED_MEAN)
            s = pc_fn_round(rd, s / (double)p.n);
        else if (p.red == PC_FN_RED_BATCHMEAN && p.x->rank > 0)
            s = pc_fn_round(rd, s / (double)p.x->shape[0]);
        pc_tensor_free(&r);
        if ((st = pc_tensor_alloc(&r, PC_DTYPE_F64, NULL, 0)) != PC_OK)
            goto done;
        *(double *)pc_tensor_data(&r) = s;
        st = pc_kernel_store(call, &r, p.od, NULL, 0, &out->tensors[0]);
    }
    if (st == PC_OK)
        out->count = 1;
done:
    pc_tensor_free(&r);
    pl_free(&u);
    return st;
}

/* The gradients of element i with respect to x (*dx) and t (*dt), given the incoming gradient
 * g of the element's loss (the reduction's share already applied where torch applies it
 * before the loss's own backward: l1, kl_div), and, for the fused backward kernels, the
 * reduction's norm (mse: 2/N, smooth_l1/huber: 1/N, bce: divided by N after). */
static void pl_grad(const pl_plan *p, pc_dtype rd, double x, double t, const double *w,
                    const double *pw, int64_t i, double g, double norm, double *dx, double *dt)
{
#define R(v) pc_fn_round(rd, (v))
    double a = 0, b = 0;
    switch (p->kind) {
    case PC_FN_MSE:
        a = R(R(norm * R(x - t)) * g);
        b = -a;
        break;
    case PC_FN_L1:
        a = R(g * sgn(R(x - t)));
        b = -a;
        break;
    case PC_FN_SMOOTH_L1: {
        double d = R(x - t), beta = R(p->param);
        a = d <= -beta ? -R(norm * g) : d >= beta ? R(norm * g) : R(R(R(norm * d) * g) / beta);
        b = -a;
        break;
    }
    case PC_FN_HUBER: {
        double d = R(x - t), delta = R(p->param);
        a = d <= -delta  ? -R(R(norm * g) * delta)
            : d >= delta ? R(R(norm * g) * delta)
                         : R(R(norm * d) * g);
        b = -a;
        break;
    }
    case PC_FN_BCE:
        a = R(R(g * R(x - t)) / R(fmax(R(R(1 - x) * x), 1e-12)));
        b = R(R(R(log(R(1 - x))) - R(log(x))) * g);
        break;
    case PC_FN_BCE_LOGITS:
    case PC_FN_BCE_LOGITS_ATEN: {
        /* torch's sigmoid: 1 / (1 + exp(-x)) in float steps (half types: in float, rounded once) */
        pc_dtype fd = rd == PC_DTYPE_F64 ? rd : PC_DTYPE_F32;
        double s = R(pc_fn_round(fd, 1 / pc_fn_round(fd, 1 + pc_fn_round(fd, exp(-x)))));
        if (pw) {
            double tt = R(pw[i] * t);
            a = R(R(R(R(R(tt + 1) - t) * s) - tt) * g);
            b = R(R(R(log_sigmoid(-x)) - R(R(log_sigmoid(x)) * pw[i])) * g);
        } else {
            a = R(R(s - t) * g);
            b = R(-x * g);
        }
        break;
    }
    case PC_FN_KL_DIV:
    case PC_FN_KL_DIV_ATEN:
        if (p->log_target) {
            double e = R(exp(t));
            a = -R(g * e);
            b = R(R(g * e) + R(R(g * R(t - x)) * e));
        } else {
            a = -R(g * t);
            double lt = xlogy_log(rd, t);
            double xs = t != 0 ? R(g * lt) : 0.0; /* xlogy's grad of self */
            double xo = R(R(g * t) / t);          /* xlogy's grad of other */
            b = R(R(xs + xo) - R(g * x));
        }
        break;
    }
    if (w) {
        a = R(a * w[i]);
        b = R(b * w[i]);
    }
    if (pl_bce_family(p->kind) && p->red == PC_FN_RED_MEAN) {
        a = R(a / (double)p->n);
        b = R(b / (double)p->n);
    }
    *dx = a;
    *dt = b;
#undef R
}

pc_status pc_k_pointwise_loss_backward(const pc_op_call *call, pc_compute compute,
                                       const pc_tensor *grad_out, pc_op_grads *out)
{
    pl_plan p;
    pc_status st = pl_plan_make(call, &p);
    bool gx = pc_kernel_wants_grad(call, 0), gt = pc_kernel_wants_grad(call, 1);
    if (st != PC_OK || (!gx && !gt))
        return st;
    pl_bufs u;
    pc_tensor g = PC_TENSOR_NULL, dx = PC_TENSOR_NULL, dt = PC_TENSOR_NULL;
    if ((st = pl_load(call, &p, &u)) != PC_OK ||
        (st = pc_tensor_cast(&g, grad_out, PC_DTYPE_F64)) != PC_OK ||
        (st = pc_tensor_alloc(&dx, PC_DTYPE_F64, p.shape, p.rank)) != PC_OK ||
        (st = pc_tensor_alloc(&dt, PC_DTYPE_F64, p.shape, p.rank)) != PC_OK)
        goto done;
    pc_dtype rd = pc_fn_round_dtype(compute, p.cd);
    const double *x = pc_tensor_data(&u.x), *t = pc_tensor_data(&u.t), *gv = pc_tensor_data(&g);
    const double *w = p.w ? pc_tensor_data(&u.w) : NULL, *pw = p.pw ? pc_tensor_data(&u.pw) : NULL;
    double *dxv = pc_tensor_data(&dx), *dtv = pc_tensor_data(&dt);
    double N = (double)p.n, norm = 1;
    bool mean = p.red == PC_FN_RED_MEAN;
    if (p.kind == PC_FN_MSE)
        norm = pc_fn_round(rd, mean ? 2.0 / N : 2.0);
    else if (p.kind == PC_FN_SMOOTH_L1 || p.kind == PC_FN_HUBER)
        norm = pc_fn_round(rd, mean ? 1.0 / N : 1.0);
    /* l1 and kl_div are composites: their reduction's backward runs first */
    double g0 = p.red == PC_FN_RED_NONE ? 0 : gv[0];
    bool composite = p.kind == PC_FN_L1 || p.kind == PC_FN_KL_DIV || p.kind == PC_FN_KL_DIV_ATEN;
    if (composite && mean)
        g0 = pc_fn_round(rd, g0 / N);
    if (composite && p.red == PC_FN_RED_BATCHMEAN && p.x->rank > 0)
        g0 = pc_fn_round(rd, g0 / (double)p.x->shape[0]);
    if (p.kind == PC_FN_SMOOTH_L1 && p.param == 0) { /* torch runs l1_loss's graph */
        p.kind = PC_FN_L1;
        if (mean)
            g0 = pc_fn_round(rd, g0 / N);
    }
    for (int64_t i = 0; i < p.n; i++)
        pl_grad(&p, rd, x[i], t[i], w, pw, i, p.red == PC_FN_RED_NONE ? gv[i] : g0, norm, &dxv[i],
                &dtv[i]);
    if (gx && (st = pc_fn_store_grad(call, &dx, p.x, &out->grads[0])) != PC_OK)
        goto done;
    if (gt)
        st = pc_fn_store_grad(call, &dt, p.t, &out->grads[1]);
done:
    pc_tensor_free(&g);
    pc_tensor_free(&dx);
    pc_tensor_free(&dt);
    pl_free(&u);
    return st;
}

/* ---- nll_loss ---- */

typedef struct nll_plan {
    const pc_tensor *x, *t, *w;
    int64_t N, C, inner; /* x as [N, C, inner] (1-D: N = 1) */
    int64_t ignore;
    int red;
    int orank;
    int64_t osh[PC_TENSOR_MAX_DIMS];
} nll_plan;

static pc_status nll_plan_make(const pc_op_call *call, nll_plan *p)
{
    p->x = pc_call_tensor(call, 0);
    p->t = pc_call_tensor(call, 1);
    p->w = pc_call_tensor(call, 2);
    p->ignore = call->args[4].i;
    pc_status st = pc_fn_reduction(call, 6, 3, 5, false, &p->red);
    if (st != PC_OK)
        return st;
    int rank = p->x->rank;
    if (rank < 1)
        return pc_error_set(PC_ERR_INVALID, "%s: input tensor should be 1D or 2D", call->full_name);
    if (p->t->dtype != PC_DTYPE_I64)
        return pc_error_set(PC_ERR_INVALID, "%s: expected scalar type Long but found %s",
                            call->full_name, pc_torch_type_name(p->t->dtype));
    if (!pc_dtype_is_float(p->x->dtype))
        return pc_error_set(PC_ERR_INVALID, "%s: \"nll_loss_out_frame\" not implemented for '%s'",
                            call->full_name, pc_torch_type_name(p->x->dtype));
    if (p->w && p->w->dtype != p->x->dtype)
        return pc_kernel_same_dtype(call, p->x, p->w);
    int cdim = rank == 1 ? 0 : 1;
    p->C = p->x->shape[cdim];
    p->N = rank == 1 ? 1 : p->x->shape[0];
    p->inner = 1;
    for (int i = 2; i < rank; i++)
        p->inner *= p->x->shape[i];
    if (rank <= 2) {
        int want = rank == 1 ? 0 : 1;
        if (p->t->rank > 1 || (p->t->rank == 1 && p->t->shape[0] != p->N) ||
            (rank == 2 && p->t->rank != want))
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Expected input batch_size (%" PRId64
                                ") to match target batch_size (%" PRId64 ").",
                                call->full_name, p->N, p->t->rank ? p->t->shape[0] : 0);
    } else {
        bool ok = p->t->rank == rank - 1;
        for (int i = 0; ok && i < p->t->rank; i++)
            ok = p->t->shape[i] == p->x->shape[i == 0 ? 0 : i + 1];
        if (!ok)
            return pc_error_set(PC_ERR_INVALID, "%s: Expected target size that matches the input",
                                call->full_name);
    }
    if (p->w && (pc_tensor_numel(p->w) != p->C))
        return pc_error_set(PC_ERR_INVALID,
                            "%s: weight tensor should be defined either for all %" PRId64
                            " classes or no classes but got weight tensor of shape: [%" PRId64 "]",
                            call->full_name, p->C, pc_tensor_numel(p->w));
    p->orank = 0;
    if (p->red == PC_FN_RED_NONE)
        for (int i = 0; i < rank; i++)
            if (i != cdim)
                p->osh[p->orank++] = p->x->shape[i];
    return PC_OK;
}

typedef struct nll_bufs {
    pc_tensor x, w, t;
} nll_bufs;

static void nll_free(nll_bufs *u)
{
    pc_tensor_free(&u->x);
    pc_tensor_free(&u->w);
    pc_tensor_free(&u->t);
}

static pc_status nll_load(const pc_op_call *call, const nll_plan *p, nll_bufs *u)
{
    *u = (nll_bufs){PC_TENSOR_NULL, PC_TENSOR_NULL, PC_TENSOR_NULL};
    pc_status st = pc_kernel_load(call, p->x, PC_DTYPE_F64, &u->x);
    if (st == PC_OK && p->w)
        st = pc_kernel_load(call, p->w, PC_DTYPE_F64, &u->w);
    if (st == PC_OK)
        st = pc_kernel_load(call, p->t, PC_DTYPE_I64, &u->t);
    if (st != PC_OK)
        return st;
    const int64_t *k = pc_tensor_data(&u->t);
    for (int64_t i = 0; i < p->N * p->inner; i++)
        if (k[i] != p->ignore && (k[i] < 0 || k[i] >= p->C))
            return pc_error_set(PC_ERR_INVALID, "%s: Target %" PRId64 " is out of bounds.",
                                call->full_name, k[i]);
    return PC_OK;
}

/* torch's reduction of nll_loss: partial sums in eight levels, level j moved up whenever the
 * low (j + 1) * level_power bits of the element's index are zero, each step rounded to the
 * dtype; returns the loss sum and the weight total (*tw). */
static double nll_sum(const nll_plan *p, pc_dtype rd, const double *x, const double *w,
                      const int64_t *tg, double *tw)
{
    enum { LEVELS = 8 };
    int64_t B = p->N * p->inner, lg = 0;
    while (((int64_t)1 << lg) < B)
        lg++;
    int64_t power = lg / LEVELS > 4 ? lg / LEVELS : 4;
    int64_t mask = ((int64_t)1 << power) - 1;
    double ls[LEVELS] = {0}, ws[LEVELS] = {0};
    int64_t ignored = 0;
    for (int64_t b = 0; b < B; b++) {
        int64_t n = b / p->inner, in = b % p->inner, c = tg[b];
        if (c == p->ignore) {
            ignored++;
            continue;
        }
        double v = x[(n * p->C + c) * p->inner + in];
        if (w) {
            ls[0] = pc_fn_round(rd, ls[0] - pc_fn_round(rd, v * w[c]));
            ws[0] = pc_fn_round(rd, ws[0] + w[c]);
        } else {
            ls[0] = pc_fn_round(rd, ls[0] - v);
        }
        for (int j = 0; j + 1 < LEVELS; j++) {
            if ((b & (mask << (j * power))) != 0)
                break;
            ws[j + 1] = pc_fn_round(rd, ws[j + 1] + ws[j]);
            ls[j + 1] = pc_fn_round(rd, ls[j + 1] + ls[j]);
            ws[j] = ls[j] = 0;
        }
    }
    double s = 0, t = 0;
    for (int j = 0; j < LEVELS; j++) {
        s = pc_fn_round(rd, s + ls[j]);
        t = pc_fn_round(rd, t + ws[j]);
    }
    *tw = w ? t : pc_fn_round(rd, (double)(B - ignored));
    return s;
}

pc_status pc_k_nll_loss_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    nll_plan p;
    pc_status st = nll_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    nll_bufs u;
    pc_tensor r = PC_TENSOR_NULL;
    if ((st = nll_load(call, &p, &u)) != PC_OK)
        goto done;
    pc_dtype rd = pc_fn_round_dtype(compute, p.x->dtype);
    const double *x = pc_tensor_data(&u.x), *w = p.w ? pc_tensor_data(&u.w) : NULL;
    const int64_t *tg = pc_tensor_data(&u.t);
    int64_t B = p.N * p.inner;
    if (p.red == PC_FN_RED_NONE) {
        if ((st = pc_tensor_alloc(&r, PC_DTYPE_F64, p.osh, p.orank)) != PC_OK)
            goto done;
        double *l = pc_tensor_data(&r);
        for (int64_t b = 0; b < B; b++) {
            int64_t n = b / p.inner, in = b % p.inner, c = tg[b];
            l[b] = c == p.ignore
                       ? 0.0
                       : -pc_fn_round(rd, x[(n * p.C + c) * p.inner + in] * (w ? w[c] : 1.0));
        }
    } else {
        double tw, s = nll_sum(&p, rd, x, w, tg, &tw);
        if (p.red == PC_FN_RED_MEAN)
            s = pc_fn_round(rd, s / tw);
        if ((st = pc_tensor_alloc(&r, PC_DTYPE_F64, NULL, 0)) != PC_OK)
            goto done;
        *(double *)pc_tensor_data(&r) = s;
    }
    st = pc_kernel_store(call, &r, p.x->dtype, p.osh, p.orank, &out->tensors[0]);
    if (st == PC_OK)
        out->count = 1;
done:
    pc_tensor_free(&r);
    nll_free(&u);
    return st;
}

pc_status pc_k_nll_loss_backward(const pc_op_call *call, pc_compute compute,
                                 const pc_tensor *grad_out, pc_op_grads *out)
{
    nll_plan p;
    pc_status st = nll_plan_make(call, &p);
    if (st != PC_OK || !pc_kernel_wants_grad(call, 0))
        return st;
    nll_bufs u;
    pc_tensor g = PC_TENSOR_NULL, dx = PC_TENSOR_NULL;
    if ((st = nll_load(call, &p, &u)) != PC_OK ||
        (st = pc_tensor_cast(&g, grad_out, PC_DTYPE_F64)) != PC_OK ||
        (st = pc_tensor_alloc(&dx, PC_DTYPE_F64, p.x->shape, p.x->rank)) != PC_OK)
        goto done;
    pc_dtype rd = pc_fn_round_dtype(compute, p.x->dtype);
    const double *x = pc_tensor_data(&u.x), *w = p.w ? pc_tensor_data(&u.w) : NULL;
    const double *gv = pc_tensor_data(&g);
    const int64_t *tg = pc_tensor_data(&u.t);
    double *d = pc_tensor_data(&dx);
    int64_t B = p.N * p.inner;
    double gs = 0;
    if (p.red != PC_FN_RED_NONE) {
        double tw = 0;
        (void)nll_sum(&p, rd, x, w, tg, &tw);
        gs = -(p.red == PC_FN_RED_MEAN ? pc_fn_round(rd, gv[0] / tw) : gv[0]);
    }
    for (int64_t b = 0; b < B; b++) {
        int64_t n = b / p.inner, in = b % p.inner, c = tg[b];
        if (c == p.ignore)
            continue;
        double v = p.red == PC_FN_RED_NONE ? -pc_fn_round(rd, (w ? w[c] : 1.0) * gv[b])
                                           : (w ? pc_fn_round(rd, w[c] * gs) : gs);
        d[(n * p.C + c) * p.inner + in] = v;
    }
    st = pc_kernel_store(call, &dx, p.x->dtype, p.x->shape, p.x->rank, &out->grads[0]);
done:
    pc_tensor_free(&g);
    pc_tensor_free(&dx);
    nll_free(&u);
    return st;
}
