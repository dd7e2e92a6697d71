/*
 * max_pool2d and adaptive_avg_pool2d, forward and backward, over (N, C, H, W) or (C, H, W).
 * max_pool2d takes the first maximum of each window (NaN wins, padding never does) and routes
 * the gradient to it; adaptive_avg_pool2d averages bin [floor(i H / Oh), ceil((i + 1) H / Oh))
 * as torch's CPU kernel does: the sum in order, then divided by the bin height and then by its
 * width; its float16/bfloat16 gradient adds dy / kh / kw in that dtype (each step rounded).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nn_impl.h"
#include "precheck/core/convert.h"

typedef struct pool_plan {
    const pc_tensor *x;
    int64_t NC, H, W, Ho, Wo;
    int64_t kh, kw, sh, sw, ph, pw, dh, dw;
    int orank;
    int64_t osh[4];
} pool_plan;

static pc_status pool_dims(const pc_op_call *call, pool_plan *p, const char *what)
{
    p->x = pc_call_tensor(call, 0);
    int r = p->x->rank;
    if (r != 3 && r != 4)
        return pc_error_set(PC_ERR_INVALID, "%s: %s: Expected 3D or 4D tensor, but got %dD",
                            call->full_name, what, r);
    p->NC = r == 4 ? p->x->shape[0] * p->x->shape[1] : p->x->shape[0];
    p->H = p->x->shape[r - 2];
    p->W = p->x->shape[r - 1];
    p->orank = r;
    memcpy(p->osh, p->x->shape, sizeof(int64_t) * (size_t)r);
    return pc_nn_need_float(call, p->x, what);
}

/* torch's pooling output size: floor or ceil of the strided span, the last window starting
 * inside the input or the left padding. */
static int64_t pool_out(int64_t in, int64_t k, int64_t pad, int64_t s, int64_t d, bool ceil_mode)
{
    int64_t span = in + 2 * pad - d * (k - 1) - 1;
    int64_t o = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
    if (ceil_mode && (o - 1) * s >= in + pad)
        o--;
    return o;
}

static pc_status maxpool_plan(const pc_op_call *call, pool_plan *p)
{
    pc_status st = pool_dims(call, p, "max_pool2d");
    if (st != PC_OK)
        return st;
    const pc_value *k = &call->args[1], *s = &call->args[2], *pd = &call->args[3],
                   *dl = &call->args[4];
    if (call->args[6].b)
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "%s: max_pool2d with return_indices=True is not supported",
                            call->full_name);
    if (k->nints != 2 || pd->nints != 2 || dl->nints != 2 ||
        (s->kind == PC_VALUE_INT_LIST && s->nints != 0 && s->nints != 2))
        return pc_error_set(PC_ERR_INVALID,
                            "%s: max_pool2d: kernel_size, stride, padding and dilation must have "
                            "one or two values",
                            call->full_name);
    p->kh = k->ints[0];
    p->kw = k->ints[1];
    bool dflt = s->kind != PC_VALUE_INT_LIST || s->nints == 0;
    p->sh = dflt ? p->kh : s->ints[0];
    p->sw = dflt ? p->kw : s->ints[1];
    p->ph = pd->ints[0];
    p->pw = pd->ints[1];
    p->dh = dl->ints[0];
    p->dw = dl->ints[1];
    if (p->kh <= 0 || p->kw <= 0 || p->sh <= 0 || p->sw <= 0 || p->dh <= 0 || p->dw <= 0)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: max_pool2d: kernel size, stride and dilation should be greater "
                            "than zero",
                            call->full_name);
    if (p->ph > p->kh / 2 || p->pw > p->kw / 2) {
        bool h = p->ph > p->kh / 2;
        return pc_error_set(PC_ERR_INVALID,
                            "%s: pad should be at most half of kernel size, but got pad=%" PRId64
                            " and kernel_size=%" PRId64,
                            call->full_name, h ? p->ph : p->pw, h ? p->kh : p->kw);
    }
    bool cm = call->args[5].b;
    p->Ho = pool_out(p->H, p->kh, p->ph, p->sh, p->dh, cm);
    p->Wo = pool_out(p->W, p->kw, p->pw, p->sw, p->dw, cm);
    if (p->Ho <= 0 || p->Wo <= 0)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: Given input size: (%" PRId64 "x%" PRId64 "x%" PRId64
                            "). Calculated output size: (%" PRId64 "x%" PRId64 "x%" PRId64
                            "). Output size is too small",
                            call->full_name, p->x->shape[p->x->rank - 3], p->H, p->W,
                            p->x->shape[p->x->rank - 3], p->Ho, p->Wo);
    p->osh[p->orank - 2] = p->Ho;
    p->osh[p->orank - 1] = p->Wo;
    return PC_OK;
}

/* The flat input index (within its plane) of each output's maximum. */
static void maxpool_argmax(const pool_plan *p, const pc_tensor *x, int64_t *arg)
{
    double v;
    for (int64_t q = 0; q < p->NC; q++)
        for (int64_t oh = 0; oh < p->Ho; oh++)
            for (int64_t ow = 0; ow < p->Wo; ow++) {
                int64_t best = -1;
                double bv = -INFINITY;
                for (int64_t i = 0; i < p->kh; i++) {
                    int64_t h = oh * p->sh - p->ph + i * p->dh;
                    if (h < 0 || h >= p->H)
                        continue;
                    for (int64_t j = 0; j < p->kw; j++) {
                        int64_t w = ow * p->sw - p->pw + j * p->dw;
                        if (w < 0 || w >= p->W)
                            continue;
                        int64_t k = (q * p->H + h) * p->W + w;
                        v = x->dtype == PC_DTYPE_F64
                                ? ((const double *)pc_tensor_data(x))[k]
                                : (double)((const float *)pc_tensor_data(x))[k];
                        if (best < 0 || (!isnan(bv) && (v > bv || isnan(v)))) {
                            best = h * p->W + w;
                            bv = v;
                        }
                    }
                }
                arg[(q * p->Ho + oh) * p->Wo + ow] = best;
            }
}

pc_status pc_k_max_pool2d_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    pool_plan p;
    pc_status st = maxpool_plan(call, &p);
    if (st != PC_OK)
        return st;
    pc_dtype cd = pc_nn_compute_dtype(compute, p.x->dtype);
    pc_tensor x = PC_TENSOR_NULL, y = PC_TENSOR_NULL;
    int64_t no = p.NC * p.Ho * p.Wo;
    int64_t *arg = malloc((size_t)(no + 1) * sizeof *arg);
    if (!arg)
        return pc_nn_nomem(call);
    if ((st = pc_nn_load_ro(call, p.x, cd, &x)) == PC_OK &&
        (st = pc_tensor_alloc(&y, cd, p.osh, p.orank)) == PC_OK) {
        maxpool_argmax(&p, &x, arg);
        size_t es = pc_dtype_size(cd);
        for (int64_t o = 0; o < no; o++) {
            int64_t q = o / (p.Ho * p.Wo);
            memcpy((char *)pc_tensor_data(&y) + (size_t)o * es,
                   (const char *)pc_tensor_data(&x) + (size_t)(q * p.H * p.W + arg[o]) * es, es);
        }
        st = pc_nn_store(call, &y, p.x->dtype, p.osh, p.orank, &out->tensors[0]);
        if (st == PC_OK)
            out->count = 1;
    }
    free(arg);
    pc_tensor_free(&x);
    pc_tensor_free(&y);
    return st;
}

pc_status pc_k_max_pool2d_backward(const pc_op_call *call, pc_compute compute,
                                   const pc_tensor *grad_out, pc_op_grads *out)
{
    pool_plan p;
    pc_status st = maxpool_plan(call, &p);
    if (st != PC_OK || !pc_nn_wants_grad(call, 0))
        return st;
    pc_dtype cd = pc_nn_compute_dtype(compute, p.x->dtype);
    pc_tensor x = PC_TENSOR_NULL, g = PC_TENSOR_NULL, dx = PC_TENSOR_NULL;
    int64_t no = p.NC * p.Ho * p.Wo;
    int64_t *arg = malloc((size_t)(no + 1) * sizeof *arg);
    if (!arg)
        return pc_nn_nomem(call);
    if ((st = pc_nn_load_ro(call, p.x, cd, &x)) == PC_OK &&
        (st = pc_nn_load(call, grad_out, cd, &g)) == PC_OK &&
        (st = pc_tensor_alloc(&dx, cd, p.x->shape, p.x->rank)) == PC_OK) {
        maxpool_argmax(&p, &x, arg);
        for (int64_t o = 0; o < no; o++) {
            int64_t k = (o / (p.Ho * p.Wo)) * p.H * p.W + arg[o];
            if (cd == PC_DTYPE_F64)
                ((double *)pc_tensor_data(&dx))[k] += ((const double *)pc_tensor_data(&g))[o];
            else
                ((float *)pc_tensor_data(&dx))[k] += ((const float *)pc_tensor_data(&g))[o];
        }
        st = pc_nn_store(call, &dx, p.x->dtype, p.x->shape, p.x->rank, &out->grads[0]);
    }
    free(arg);
    pc_tensor_free(&x);
    pc_tensor_free(&g);
    pc_tensor_free(&dx);
    return st;
}

/* ---- adaptive_avg_pool2d ---- */

static pc_status adapt_plan(const pc_op_call *call, pool_plan *p)
{
    pc_status st = pool_dims(call, p, "adaptive_avg_pool2d");
    if (st != PC_OK)
        return st;
    const pc_value *os = &call->args[1];
    if (os->nints != 2 || os->ints[0] < 0 || os->ints[1] < 0)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: adaptive_avg_pool2d: output_size must be 2 non-negative values",
                            call->full_name);
    p->Ho = os->ints[0];
    p->Wo = os->ints[1];
    p->osh[p->orank - 2] = p->Ho;
    p->osh[p->orank - 1] = p->Wo;
    return PC_OK;
}

/* v rounded to float16/bfloat16 d (torch's scalar_t arithmetic) */
static float half_round(float v, pc_dtype d)
{
    return d == PC_DTYPE_BF16 ? pc_bf16_to_f32(pc_f32_to_bf16(v)) : pc_f16_to_f32(pc_f32_to_f16(v));
}

static int64_t bin_start(int64_t i, int64_t out, int64_t in)
{
    return (i * in) / out;
}

static int64_t bin_end(int64_t i, int64_t out, int64_t in)
{
    return ((i + 1) * in + out - 1) / out;
}

pc_status pc_k_adaptive_avg_pool2d_forward(const pc_op_call *call, pc_compute compute,
                                           pc_op_result *out)
{
    pool_plan p;
    pc_status st = adapt_plan(call, &p);
    if (st != PC_OK)
        return st;
    pc_dtype cd = pc_nn_compute_dtype(compute, p.x->dtype);
    bool dbl = cd == PC_DTYPE_F64;
    pc_tensor x = PC_TENSOR_NULL, y = PC_TENSOR_NULL;
    if ((st = pc_nn_load_ro(call, p.x, cd, &x)) == PC_OK &&
        (st = pc_tensor_alloc(&y, cd, p.osh, p.orank)) == PC_OK) {
        for (int64_t q = 0; q < p.NC; q++)
            for (int64_t oh = 0; oh < p.Ho; oh++)
                for (int64_t ow = 0; ow < p.Wo; ow++) {
                    int64_t h0 = bin_start(oh, p.Ho, p.H), h1 = bin_end(oh, p.Ho, p.H);
                    int64_t w0 = bin_start(ow, p.Wo, p.W), w1 = bin_end(ow, p.Wo, p.W);
                    int64_t o = (q * p.Ho + oh) * p.Wo + ow;
                    if (p.Ho == 1 && p.Wo == 1) {
                        /* torch computes a 1x1 output as mean(-1, -2): the sum in double
                         * here, divided once */
                        double s = 0;
                        const char *base = (const char *)pc_tensor_data(&x);
                        for (int64_t k = q * p.H * p.W; k < (q + 1) * p.H * p.W; k++)
                            s += dbl ? ((const double *)(const void *)base)[k]
                                     : (double)((const float *)(const void *)base)[k];
                        s /= (double)(p.H * p.W);
                        if (dbl)
                            ((double *)pc_tensor_data(&y))[o] = s;
                        else
                            ((float *)pc_tensor_data(&y))[o] = (float)s;
                    } else if (dbl) {
                        const double *xv = pc_tensor_data(&x);
                        double s = 0;
                        for (int64_t h = h0; h < h1; h++)
                            for (int64_t w = w0; w < w1; w++)
                                s += xv[(q * p.H + h) * p.W + w];
                        ((double *)pc_tensor_data(&y))[o] =
                            s / (double)(h1 - h0) / (double)(w1 - w0);
                    } else {
                        const float *xv = pc_tensor_data(&x);
                        float s = 0;
                        for (int64_t h = h0; h < h1; h++)
                            for (int64_t w = w0; w < w1; w++)
                                s += xv[(q * p.H + h) * p.W + w];
                        ((float *)pc_tensor_data(&y))[o] = s / (float)(h1 - h0) / (float)(w1 - w0);
                    }
                }
        st = pc_nn_store(call, &y, p.x->dtype, p.osh, p.orank, &out->tensors[0]);
        if (st == PC_OK)
            out->count = 1;
    }
    pc_tensor_free(&x);
    pc_tensor_free(&y);
    return st;
}

pc_status pc_k_adaptive_avg_pool2d_backward(const pc_op_call *call, pc_compute compute,
                                            const pc_tensor *grad_out, pc_op_grads *out)
{
    pool_plan p;
    pc_status st = adapt_plan(call, &p);
    if (st != PC_OK || !pc_nn_wants_grad(call, 0))
        return st;
    pc_dtype cd = pc_nn_compute_dtype(compute, p.x->dtype);
    bool dbl = cd == PC_DTYPE_F64;
    bool half = !dbl && p.x->dtype != PC_DTYPE_F32;
    pc_tensor g = PC_TENSOR_NULL, dx = PC_TENSOR_NULL;
    if ((st = pc_nn_load(call, grad_out, cd, &g)) == PC_OK &&
        (st = pc_tensor_alloc(&dx, cd, p.x->shape, p.x->rank)) == PC_OK) {
        for (int64_t q = 0; q < p.NC; q++)
            for (int64_t oh = 0; oh < p.Ho; oh++)
                for (int64_t ow = 0; ow < p.Wo; ow++) {
                    int64_t h0 = bin_start(oh, p.Ho, p.H), h1 = bin_end(oh, p.Ho, p.H);
                    int64_t w0 = bin_start(ow, p.Wo, p.W), w1 = bin_end(ow, p.Wo, p.W);
                    int64_t o = (q * p.Ho + oh) * p.Wo + ow;
                    bool global = p.Ho == 1 && p.Wo == 1; /* mean's backward: dy / n */
                    for (int64_t h = h0; h < h1; h++)
                        for (int64_t w = w0; w < w1; w++) {
                            int64_t k = (q * p.H + h) * p.W + w;
                            if (global && dbl)
                                ((double *)pc_tensor_data(&dx))[k] =
                                    ((const double *)pc_tensor_data(&g))[o] / (double)(p.H * p.W);
                            else if (global)
                                ((float *)pc_tensor_data(&dx))[k] =
                                    ((const float *)pc_tensor_data(&g))[o] / (float)(p.H * p.W);
                            else if (dbl)
                                ((double *)pc_tensor_data(&dx))[k] +=
                                    ((const double *)pc_tensor_data(&g))[o] / (double)(h1 - h0) /
                                    (double)(w1 - w0);
                            else if (half) /* torch: dy / kh / kw and the sum in scalar_t */
                                ((float *)pc_tensor_data(&dx))[k] = half_round(
                                    ((float *)pc_tensor_data(&dx))[k] +
                                        half_round(
                                            half_round(((const float *)pc_tensor_data(&g))[o] /
                                                           (float)(h1 - h0),
                                                       p.x->dtype) /
                                                (float)(w1 - w0),
                                            p.x->dtype),
                                    p.x->dtype);
                            else
                                ((float *)pc_tensor_data(&dx))[k] +=
                                    ((const float *)pc_tensor_data(&g))[o] / (float)(h1 - h0) /
                                    (float)(w1 - w0);
                        }
                }
        st = pc_nn_store(call, &dx, p.x->dtype, p.x->shape, p.x->rank, &out->grads[0]);
    }
    pc_tensor_free(&g);
    pc_tensor_free(&dx);
    return st;
}
