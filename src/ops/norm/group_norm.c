/*
 * group_norm, instance_norm and glu, forward and backward.
 *
 * group_norm works one (image, group) at a time in scratch of the compute dtype, with the
 * arithmetic of torch's GroupNormKernelImpl (RowwiseMoments from the nn group's
 * norm_kernel.inc, fused multiply-adds). instance_norm is what torch makes of it: batch_norm
 * over the input seen as [1, N C, ...] with the weight, bias and running statistics repeated
 * N times, so it runs the nn group's batch_norm kernels on that call; the weight and bias
 * gradients sum the N copies. glu follows torch's kernels step by step.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tgmath.h>

#include "ops/kernel.h"
#include "ops/norm/norm_impl.h"

/* group_norm's kernels over norm.c's softmax/layer_norm template (of which only the moments
 * and the reductions are used here), for float and double. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#define PC_TWIN_TEMPLATE "ops/norm/group_norm_kernel.inc"
#include "ops/kernel_twins.h"
#pragma GCC diagnostic pop

/* ---- group_norm ---- */

typedef struct gn_plan {
    const pc_tensor *x, *w, *b;
    int64_t N, C, S, G, D;
    double eps;
} gn_plan;

static pc_status gn_plan_make(const pc_op_call *call, gn_plan *p)
{
    p->x = pc_call_tensor(call, 0);
    p->G = call->args[1].i;
    p->w = pc_call_tensor(call, 2);
    p->b = pc_call_tensor(call, 3);
    p->eps = call->args[4].f;
    char sx[PC_SHAPE_FORMAT_MAX];
    pc_shape_format(sx, sizeof sx, p->x->shape, p->x->rank);
    if (p->x->rank < 2) { /* torch reads input.shape[1]: its "Dimension out of range" */
        (void)pc_kernel_dim(call, 1, p->x->rank);
        return PC_ERR_INVALID;
    }
    pc_status st = pc_kernel_need_float(call, p->x, "GroupNormKernelImpl");
    if (st != PC_OK)
        return st;
    p->N = p->x->shape[0];
    p->C = p->x->shape[1];
    p->S = 1;
    for (int i = 2; i < p->x->rank; i++)
        p->S *= p->x->shape[i];
    if (p->G <= 0 || p->C % p->G != 0)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: Expected number of channels in input to be divisible by "
                            "num_groups, but got input of shape %s and num_groups=%" PRId64,
                            call->full_name, sx, p->G);
    p->D = p->C / p->G;
    const pc_tensor *wb[2] = {p->w, p->b};
    for (int k = 0; k < 2; k++) {
        if (!wb[k])
            continue;
        if (wb[k]->rank != 1 || wb[k]->shape[0] != p->C) {
            char sw[PC_SHAPE_FORMAT_MAX];
            pc_shape_format(sw, sizeof sw, wb[k]->shape, wb[k]->rank);
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Expected %s to be a vector of size equal to the number of "
                                "channels in input, but got %s of shape %s and input of shape %s",
                                call->full_name, k ? "bias" : "weight", k ? "bias" : "weight", sw,
                                sx);
        }
        if ((st = pc_kernel_same_dtype(call, p->x, wb[k])) != PC_OK)
            return st;
    }
    return PC_OK;
}

typedef struct gn_bufs {
    pc_tensor w, b;
    void *xs, *ys, *gs; /* one (n, g) of x, y (or dx), dy */
    void *mean, *rstd;  /* per (n, g), compute dtype */
} gn_bufs;

static void gn_free(gn_bufs *u)
{
    pc_tensor_free(&u->w);
    pc_tensor_free(&u->b);
    free(u->xs);
    free(u->ys);
    free(u->gs);
    free(u->mean);
    free(u->rstd);
}

static pc_status gn_load(const pc_op_call *call, const gn_plan *p, pc_dtype cd, gn_bufs *u)
{
    *u = (gn_bufs){PC_TENSOR_NULL, PC_TENSOR_NULL, NULL, NULL, NULL, NULL, NULL};
    size_t es = pc_dtype_size(cd), row = (size_t)(p->D * p->S + 1) * es;
    u->xs = malloc(row);
    u->ys = malloc(row);
    u->gs = malloc(row + (size_t)(2 * p->D + 2) * es); /* dy, then ds and db */
    u->mean = malloc((size_t)(p->N * p->G + 1) * es);
    u->rstd = malloc((size_t)(p->N * p->G + 1) * es);
    if (!u->xs || !u->ys || !u->gs || !u->mean || !u->rstd)
        return pc_kernel_nomem(call);
    pc_status st = PC_OK;
    if (p->w)
        st = pc_kernel_load(call, p->w, cd, &u->w);
    if (st == PC_OK && p->b)
        st = pc_kernel_load(call, p->b, cd, &u->b);
    return st;
}

/* Runs the forward of every (n, g); writes y into out when out is not NULL (the backward
 * only wants the statistics). */
static void gn_forward_all(const gn_plan *p, pc_dtype cd, gn_bufs *u, pc_tensor *out)
{
    bool dbl = cd == PC_DTYPE_F64;
    int64_t L = p->D * p->S;
    for (int64_t n = 0; n < p->N; n++)
        for (int64_t g = 0; g < p->G; g++) {
            int64_t i = n * p->G + g, c0 = g * p->D;
            pc_kernel_read(p->x, i * L, L, cd, u->xs);
            if (dbl) {
                const double *w = p->w ? (const double *)pc_tensor_data(&u->w) + c0 : NULL;
                const double *b = p->b ? (const double *)pc_tensor_data(&u->b) + c0 : NULL;
                gn_fwd_d(u->xs, w, b, p->D, p->S, p->eps, u->ys, (double *)u->mean + i,
                         (double *)u->rstd + i);
            } else {
                const float *w = p->w ? (const float *)pc_tensor_data(&u->w) + c0 : NULL;
                const float *b = p->b ? (const float *)pc_tensor_data(&u->b) + c0 : NULL;
                gn_fwd_f(u->xs, w, b, p->D, p->S, (float)p->eps, u->ys, (float *)u->mean + i,
                         (float *)u->rstd + i);
            }
            if (out)
                pc_kernel_write(out, i * L, L, u->ys, cd);
        }
}

pc_status pc_k_group_norm_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    gn_plan p;
    pc_status st = gn_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    pc_dtype cd = pc_kernel_compute_dtype(compute, p.x->dtype);
    gn_bufs u;
    pc_tensor y = PC_TENSOR_NULL;
    if ((st = gn_load(call, &p, cd, &u)) != PC_OK ||
        (st = pc_tensor_alloc(&y, p.x->dtype, p.x->shape, p.x->rank)) != PC_OK)
        goto done;
    gn_forward_all(&p, cd, &u, &y);
    out->tensors[0] = y;
    y = PC_TENSOR_NULL;
    out->count = 1;
done:
    pc_tensor_free(&y);
    gn_free(&u);
    return st;
}

pc_status pc_k_group_norm_backward(const pc_op_call *call, pc_compute compute,
                                   const pc_tensor *grad_out, pc_op_grads *out)
{
    gn_plan p;
    pc_status st = gn_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    bool gx = pc_kernel_wants_grad(call, 0), gw = p.w && pc_kernel_wants_grad(call, 2),
         gb = p.b && pc_kernel_wants_grad(call, 3);
    if (!gx && !gw && !gb)
        return PC_OK;
    pc_dtype cd = pc_kernel_compute_dtype(compute, p.x->dtype);
    bool dbl = cd == PC_DTYPE_F64;
    gn_bufs u;
    pc_tensor dx = PC_TENSOR_NULL, dw = PC_TENSOR_NULL, db = PC_TENSOR_NULL;
    if ((st = gn_load(call, &p, cd, &u)) != PC_OK ||
        (gx && (st = pc_tensor_alloc(&dx, p.x->dtype, p.x->shape, p.x->rank)) != PC_OK) ||
        (st = pc_tensor_alloc(&dw, cd, &p.C, 1)) != PC_OK ||
        (st = pc_tensor_alloc(&db, cd, &p.C, 1)) != PC_OK)
        goto done;
    gn_forward_all(&p, cd, &u, NULL);
    int64_t L = p.D * p.S;
    size_t es = pc_dtype_size(cd);
    for (int64_t n = 0; n < p.N; n++)
        for (int64_t g = 0; g < p.G; g++) {
            int64_t i = n * p.G + g, c0 = g * p.D;
            pc_kernel_read(p.x, i * L, L, cd, u.xs);
            pc_kernel_read(grad_out, i * L, L, cd, u.gs);
            char *ds = (char *)u.gs + (size_t)L * es, *dbs = ds + (size_t)p.D * es;
            if (dbl) {
                const double *w = p.w ? (const double *)pc_tensor_data(&u.w) + c0 : NULL;
                gn_bwd_d(u.xs, u.gs, w, p.D, p.S, ((double *)u.mean)[i], ((double *)u.rstd)[i],
                         gx ? u.ys : NULL, (double *)pc_tensor_data(&dw) + c0,
                         (double *)pc_tensor_data(&db) + c0, (double *)(void *)ds,
                         (double *)(void *)dbs);
            } else {
                const float *w = p.w ? (const float *)pc_tensor_data(&u.w) + c0 : NULL;
                gn_bwd_f(u.xs, u.gs, w, p.D, p.S, ((float *)u.mean)[i], ((float *)u.rstd)[i],
                         gx ? u.ys : NULL, (float *)pc_tensor_data(&dw) + c0,
                         (float *)pc_tensor_data(&db) + c0, (float *)(void *)ds,
                         (float *)(void *)dbs);
            }
            if (gx)
                pc_kernel_write(&dx, i * L, L, u.ys, cd);
        }
    if (gx) {
        out->grads[0] = dx;
        dx = PC_TENSOR_NULL;
    }
    if (gw && (st = pc_kernel_store(call, &dw, p.w->dtype, p.w->shape, 1, &out->grads[2])) != PC_OK)
        goto done;
    if (gb)
        st = pc_kernel_store(call, &db, p.b->dtype, p.b->shape, 1, &out->grads[3]);
done:
    pc_tensor_free(&dx);
    pc_tensor_free(&dw);
    pc_tensor_free(&db);
    gn_free(&u);
    return st;
}

/* ---- instance_norm: batch_norm over [1, N C, ...] ---- */

typedef struct in_plan {
    int x, rm, rv, w, b, use_stats, momentum, eps; /* schema indices */
} in_plan;

static const in_plan in_plans[] = {
    [PC_FN_INSTANCE_NORM_F] = {0, 1, 2, 3, 4, 5, 6, 7},
    [PC_FN_INSTANCE_NORM_ATEN] = {0, 3, 4, 1, 2, 5, 6, 7},
};

/* *out: t ([C]) repeated n times ([n C]), contiguous in t's dtype. */
static pc_status repeat_vec(const pc_op_call *call, const pc_tensor *t, int64_t n, pc_tensor *out)
{
    int64_t sh[2] = {n, t->shape[0]}, flat = n * t->shape[0];
    pc_tensor v = PC_TENSOR_NULL, r = PC_TENSOR_NULL;
    pc_status st = pc_tensor_expand(&v, t, sh, 2);
    if (st == PC_OK)
        st = pc_tensor_contiguous(&r, &v);
    if (st == PC_OK)
        st = pc_tensor_reshape(out, &r, &flat, 1);
    pc_tensor_free(&v);
    pc_tensor_free(&r);
    return st == PC_OK ? st : pc_error_prefix(st, "%s", call->full_name);
}

static void bn_call_free(pc_op_call *bn)
{
    for (int i = 0; i < bn->nargs; i++)
        pc_tensor_free(&bn->args[i].tensor);
}

/* The batch_norm call torch makes of an instance_norm call. */
static pc_status in_bn_call(const pc_op_call *call, pc_op_call *bn)
{
    const in_plan *ip = &in_plans[call->op->param];
    pc_status st = pc_op_call_of(call, "batch_norm", bn);
    if (st != PC_OK)
        return st;
    const pc_tensor *x = pc_call_tensor(call, ip->x);
    bool use_stats = call->args[ip->use_stats].b;
    const pc_tensor *rm = pc_call_tensor(call, ip->rm), *rv = pc_call_tensor(call, ip->rv);
    if (!use_stats && (!rm || !rv))
        return pc_error_set(PC_ERR_INVALID,
                            "%s: Expected running_mean and running_var to be defined when "
                            "use_input_stats is false",
                            call->full_name);
    if (x->rank < 2)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: Expected 2D (unbatched) or 3D (batched) input to instance_norm, "
                            "but got input of size: %d",
                            call->full_name, x->rank);
    int64_t N = x->shape[0], C = x->shape[1], S = 1;
    for (int i = 2; i < x->rank; i++)
        S *= x->shape[i];
    if (use_stats && S == 1) {
        char sx[PC_SHAPE_FORMAT_MAX];
        pc_shape_format(sx, sizeof sx, x->shape, x->rank);
        return pc_error_set(PC_ERR_INVALID,
                            "%s: Expected more than 1 spatial element when training, got input "
                            "size torch.Size(%s)",
                            call->full_name, sx);
    }
    int64_t sh[PC_TENSOR_MAX_DIMS];
    sh[0] = 1;
    sh[1] = N * C;
    for (int i = 2; i < x->rank; i++)
        sh[i] = x->shape[i];
    pc_tensor xc = PC_TENSOR_NULL;
    st = pc_tensor_contiguous(&xc, x);
    if (st == PC_OK)
        st = pc_tensor_reshape(&bn->args[0].tensor, &xc, sh, x->rank);
    pc_tensor_free(&xc);
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    bn->args[0].kind = PC_VALUE_TENSOR;
    bn->args[0].requires_grad = call->args[ip->x].requires_grad;
    bn->args[0].src_pos = 0;
    const int from[4] = {ip->rm, ip->rv, ip->w, ip->b}, to[4] = {1, 2, 3, 4};
    for (int k = 0; k < 4; k++) {
        const pc_tensor *t = pc_call_tensor(call, from[k]);
        if (!t)
            continue;
        if (t->rank != 1 || t->shape[0] != C) {
            char st_[PC_SHAPE_FORMAT_MAX];
            pc_shape_format(st_, sizeof st_, t->shape, t->rank);
            return pc_error_set(PC_ERR_INVALID,
                                "%s: running_mean should contain %" PRId64 " elements not %" PRId64,
                                call->full_name, N * C, N * pc_tensor_numel(t));
        }
        if ((st = repeat_vec(call, t, N, &bn->args[to[k]].tensor)) != PC_OK)
            return st;
        bn->args[to[k]].kind = PC_VALUE_TENSOR;
        bn->args[to[k]].requires_grad = call->args[from[k]].requires_grad;
        bn->args[to[k]].src_pos = to[k];
    }
    bn->args[5].kind = PC_VALUE_BOOL;
    bn->args[5].b = use_stats;
    bn->args[5].i = use_stats;
    bn->args[6].kind = PC_VALUE_FLOAT;
    bn->args[6].f = call->args[ip->momentum].f;
    bn->args[7].kind = PC_VALUE_FLOAT;
    bn->args[7].f = call->args[ip->eps].f;
    return PC_OK;
}

pc_status pc_k_instance_norm_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    pc_op_call bn;
    pc_status st = in_bn_call(call, &bn);
    pc_op_result r = {0};
    if (st == PC_OK)
        st = pc_k_batch_norm_forward(&bn, compute, &r);
    if (st == PC_OK) {
        const pc_tensor *x = pc_call_tensor(call, in_plans[call->op->param].x);
        st = pc_tensor_reshape(&out->tensors[0], &r.tensors[0], x->shape, x->rank);
        if (st == PC_OK)
            out->count = 1;
        else
            pc_error_prefix(st, "%s", call->full_name);
    }
    pc_op_result_free(&r);
    bn_call_free(&bn);
    return st;
}

/* The gradient g ([N C]) of a repeated vector, summed over the N copies into *out ([C], the
 * dtype of like). */
static pc_status unrepeat_grad(const pc_op_call *call, pc_compute compute, const pc_tensor *g,
                               int64_t N, const pc_tensor *like, pc_tensor *out)
{
    pc_dtype cd = pc_kernel_compute_dtype(compute, like->dtype);
    int64_t C = like->shape[0], sh[2] = {N, C};
    pc_tensor b = PC_TENSOR_NULL, s = PC_TENSOR_NULL;
    pc_status st = pc_kernel_load(call, g, cd, &b);
    if (st == PC_OK)
        st = pc_tensor_reshape(&b, &b, sh, 2);
    if (st == PC_OK)
        st = pc_kernel_sum_to(call, &b, &C, 1, &s);
    pc_tensor_free(&b);
    if (st == PC_OK)
        st = pc_kernel_store(call, &s, like->dtype, like->shape, 1, out);
    pc_tensor_free(&s);
    return st;
}

pc_status pc_k_instance_norm_backward(const pc_op_call *call, pc_compute compute,
                                      const pc_tensor *grad_out, pc_op_grads *out)
{
    const in_plan *ip = &in_plans[call->op->param];
    pc_op_call bn;
    pc_op_grads g = {0};
    pc_tensor gr = PC_TENSOR_NULL;
    pc_status st = in_bn_call(call, &bn);
    if (st == PC_OK) {
        pc_tensor gc = PC_TENSOR_NULL;
        st = pc_tensor_contiguous(&gc, grad_out);
        if (st == PC_OK)
            st = pc_tensor_reshape(&gr, &gc, bn.args[0].tensor.shape, bn.args[0].tensor.rank);
        pc_tensor_free(&gc);
    }
    if (st == PC_OK)
        st = pc_k_batch_norm_backward(&bn, compute, &gr, &g);
    const pc_tensor *x = pc_call_tensor(call, ip->x);
    if (st == PC_OK && !pc_tensor_is_null(&g.grads[0]) && pc_kernel_wants_grad(call, ip->x))
        st = pc_tensor_reshape(&out->grads[ip->x], &g.grads[0], x->shape, x->rank);
    const int which[2] = {ip->w, ip->b};
    for (int k = 0; k < 2 && st == PC_OK; k++) {
        const pc_tensor *t = pc_call_tensor(call, which[k]);
        if (t && !pc_tensor_is_null(&g.grads[3 + k]) && pc_kernel_wants_grad(call, which[k]))
            st = unrepeat_grad(call, compute, &g.grads[3 + k], x->shape[0], t,
                               &out->grads[which[k]]);
    }
    pc_tensor_free(&gr);
    pc_op_grads_free(&g);
    bn_call_free(&bn);
    return st;
}

/* ---- glu ---- */

typedef struct glu_plan {
    const pc_tensor *x;
    int64_t outer, half, inner;
    int rank;
    int64_t osh[PC_TENSOR_MAX_DIMS];
} glu_plan;

static pc_status glu_plan_make(const pc_op_call *call, glu_plan *p)
{
    p->x = pc_call_tensor(call, 0);
    if (p->x->rank == 0)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: glu does not support scalars because halving "
                            "size must be even",
                            call->full_name);
    int d = pc_kernel_dim(call, call->args[1].i, p->x->rank);
    if (d < 0)
        return PC_ERR_INVALID;
    pc_status st = pc_kernel_need_float(call, p->x, "glu_cpu");
    if (st != PC_OK)
        return st;
    int64_t n = p->x->shape[d];
    if (n % 2 != 0)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: Halving dimension must be even, but dimension %d is size %" PRId64,
                            call->full_name, d, n);
    p->half = n / 2;
    p->outer = p->inner = 1;
    for (int i = 0; i < d; i++)
        p->outer *= p->x->shape[i];
    for (int i = d + 1; i < p->x->rank; i++)
        p->inner *= p->x->shape[i];
    p->rank = p->x->rank;
    memcpy(p->osh, p->x->shape, sizeof p->osh);
    p->osh[d] = p->half;
    return PC_OK;
}

/* torch's sigmoid in its dtype: 1 / (1 + exp(-b)) in float steps, rounded to the dtype. */
static double glu_sigmoid(pc_dtype rd, double b)
{
    pc_dtype fd = rd == PC_DTYPE_F64 ? rd : PC_DTYPE_F32;
    double s = pc_fn_round(fd, 1 / pc_fn_round(fd, 1 + pc_fn_round(fd, exp(-b))));
    return pc_fn_round(rd, s);
}

pc_status pc_k_glu_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    glu_plan p;
    pc_status st = glu_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    pc_tensor x = PC_TENSOR_NULL, y = PC_TENSOR_NULL;
    if ((st = pc_kernel_load(call, p.x, PC_DTYPE_F64, &x)) != PC_OK ||
        (st = pc_tensor_alloc(&y, PC_DTYPE_F64, p.osh, p.rank)) != PC_OK)
        goto done;
    pc_dtype rd = pc_fn_round_dtype(compute, p.x->dtype);
    pc_dtype fd = rd == PC_DTYPE_F64 ? rd : PC_DTYPE_F32;
    const double *xv = pc_tensor_data(&x);
    double *yv = pc_tensor_data(&y);
    for (int64_t o = 0; o < p.outer; o++)
        for (int64_t h = 0; h < p.half; h++)
            for (int64_t in = 0; in < p.inner; in++) {
                double a = xv[(o * 2 * p.half + h) * p.inner + in];
                double b = xv[(o * 2 * p.half + p.half + h) * p.inner + in];
                /* a * (1 / (1 + exp(-b))) in float steps (bfloat16: in float, rounded once) */
                double e = pc_fn_round(fd, exp(-b));
                double s = pc_fn_round(fd, 1 / pc_fn_round(fd, 1 + e));
                yv[(o * p.half + h) * p.inner + in] = pc_fn_round(rd, pc_fn_round(fd, a * s));
            }
    st = pc_kernel_store(call, &y, p.x->dtype, p.osh, p.rank, &out->tensors[0]);
    if (st == PC_OK)
        out->count = 1;
done:
    pc_tensor_free(&x);
    pc_tensor_free(&y);
    return st;
}

pc_status pc_k_glu_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                            pc_op_grads *out)
{
    glu_plan p;
    pc_status st = glu_plan_make(call, &p);
    if (st != PC_OK || !pc_kernel_wants_grad(call, 0))
        return st;
    pc_tensor x = PC_TENSOR_NULL, g = PC_TENSOR_NULL, dx = PC_TENSOR_NULL;
    if ((st = pc_kernel_load(call, p.x, PC_DTYPE_F64, &x)) != PC_OK ||
        (st = pc_kernel_load(call, grad_out, PC_DTYPE_F64, &g)) != PC_OK ||
        (st = pc_tensor_alloc(&dx, PC_DTYPE_F64, p.x->shape, p.x->rank)) != PC_OK)
        goto done;
    pc_dtype rd = pc_fn_round_dtype(compute, p.x->dtype);
    const double *xv = pc_tensor_data(&x), *gv = pc_tensor_data(&g);
    double *d = pc_tensor_data(&dx);
    for (int64_t o = 0; o < p.outer; o++)
        for (int64_t h = 0; h < p.half; h++)
            for (int64_t in = 0; in < p.inner; in++) {
                int64_t ka = (o * 2 * p.half + h) * p.inner + in;
                int64_t kb = (o * 2 * p.half + p.half + h) * p.inner + in;
                double dy = gv[(o * p.half + h) * p.inner + in];
                /* torch: s = sigmoid(b); db = (1 - s) s a dy; da = s dy */
                double s = glu_sigmoid(rd, xv[kb]);
                d[kb] = pc_fn_round(
                    rd, pc_fn_round(rd, pc_fn_round(rd, pc_fn_round(rd, 1 - s) * s) * xv[ka]) * dy);
                d[ka] = pc_fn_round(rd, s * dy);
            }
    st = pc_kernel_store(call, &dx, p.x->dtype, p.x->shape, p.x->rank, &out->grads[0]);
done:
    pc_tensor_free(&x);
    pc_tensor_free(&g);
    pc_tensor_free(&dx);
    return st;
}
