/*
 * interpolate (and upsample, upsample_nearest, upsample_bilinear), forward and backward, for
 * the modes nearest, nearest-exact, linear, bilinear, trilinear and area (adaptive_avg_pool
 * of the output size, pooling.c) over (N, C, d...) inputs of
 * one to three spatial dimensions, as torch 1.13's CPU kernels compute them:
 *  - the scale of a dimension is the float 1 / scale_factor when one is passed (and not
 *    recomputed), in / out otherwise ((in - 1) / (out - 1) with align_corners);
 *  - nearest: source floor(o * scale) (nearest-exact: floor((o + 0.5) * scale)), clipped;
 *    out == in and out == 2 in exactly;
 *  - linear: the source position in double from the float scale (o * scale, or
 *    (o + 0.5) * scale - 0.5 clipped at 0), its floor and the next index, the float weight
 *    l1 = position - floor and l0 = 1 - l1 (in float); the output nests the dimensions outermost
 * first, each level fma(v0, l0, v1 * l1) in the compute dtype;
 *  - the gradients are added output by output into the input's gradient, linear ones as
 *    fma(l.. (product of the weights), dy, acc).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/conv/conv_impl.h"
#include "ops/kernel.h"
#include "precheck/core/convert.h"

enum { IP_NEAREST, IP_NEAREST_EXACT, IP_LINEAR, IP_AREA };

typedef struct ip_plan {
    const pc_tensor *x;
    int nsp, mode;
    bool align;
    bool bf; /* torch's bfloat16 kernel: every step in bfloat16 (set per compute) */
    int64_t NC, in[3], out[3];
    bool has_scale[3];
    double scale[3]; /* scale_factor per dimension, when passed to the kernel */
    int64_t osh[PC_TENSOR_MAX_DIMS];
} ip_plan;

/* One dimension's sources: for output o, indices i0[o], i1[o] with weights l0[o], l1[o]
 * (nearest: i0 with weight 1). */
typedef struct ip_axis {
    int64_t *i0, *i1;
    double *l0, *l1;
} ip_axis;

static const char *const mode_names[] = {"nearest",  "nearest-exact", "linear",
                                         "bilinear", "trilinear",     "area"};

/* op param: PC_INTERP_* (which API: the defaults differ) */
static pc_status ip_plan_make(const pc_op_call *call, ip_plan *p)
{
    memset(p, 0, sizeof *p);
    int api = call->op->param;
    p->x = pc_call_tensor(call, 0);
    const pc_value *size = &call->args[1], *sf = &call->args[2];
    const char *mode = "nearest";
    bool ac_set = false, ac = false, recompute = false;
    if (api == PC_INTERP_INTERPOLATE || api == PC_INTERP_UPSAMPLE) {
        mode = call->args[3].s;
        ac_set = call->args[4].kind == PC_VALUE_BOOL;
        ac = ac_set && call->args[4].b;
        if (api == PC_INTERP_INTERPOLATE) {
            recompute = call->args[5].kind == PC_VALUE_BOOL && call->args[5].b;
            if (call->args[6].b)
                return pc_error_set(PC_ERR_UNSUPPORTED,
                                    "%s: interpolate with antialias=True is not supported",
                                    call->full_name);
        }
    } else if (api == PC_INTERP_UPSAMPLE_BILINEAR) {
        mode = "bilinear";
        ac_set = ac = true;
    }
    int r = p->x->rank, dim = r - 2;
    int m = -1;
    for (int i = 0; i < 6; i++)
        if (strcmp(mode, mode_names[i]) == 0)
            m = i;
    if (m < 0)
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "%s: interpolate mode '%s' is not supported (nearest, "
                            "nearest-exact, linear, bilinear, trilinear, area are)",
                            call->full_name, mode);
    p->mode = m == 5 ? IP_AREA : m >= 2 ? IP_LINEAR : m;
    if ((m < 2 || m == 5) && ac_set)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: align_corners option can only be set with the interpolating "
                            "modes: linear | bilinear | bicubic | trilinear",
                            call->full_name);
    p->align = ac;
    if (m >= 2 && m <= 4 && dim != m - 1)
        return pc_error_set(PC_ERR_INVALID, "%s: Got %dD input, but %s mode needs %dD input",
                            call->full_name, r, mode, m + 1);
    if (dim < 1 || dim > 3)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                            "%dD) for the modes: nearest | linear | bilinear | bicubic | "
                            "trilinear | area | nearest-exact (got %s)",
                            call->full_name, r, mode);
    pc_status st = pc_kernel_need_float(call, p->x, "upsample");
    if (st != PC_OK)
        return st;
    p->nsp = dim;
    bool has_size = size->kind == PC_VALUE_INT_LIST, has_sf = sf->kind != PC_VALUE_NONE;
    if (has_size && has_sf)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: only one of size or scale_factor should be defined",
                            call->full_name);
    if (!has_size && !has_sf)
        return pc_error_set(PC_ERR_INVALID, "%s: either size or scale_factor should be defined",
                            call->full_name);
    if (has_size && recompute)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: recompute_scale_factor is not meaningful with an explicit size.",
                            call->full_name);
    if (p->mode == IP_AREA) /* torch's area always takes the recomputed size */
        recompute = true;
    p->NC = p->x->shape[0] * p->x->shape[1];
    int64_t in[3] = {1, 1, 1};
    for (int i = 0; i < dim; i++)
        in[3 - dim + i] = p->x->shape[2 + i];
    memcpy(p->in, in, sizeof in);
    for (int i = 0; i < 3; i++)
        p->out[i] = in[i];
    if (has_size) {
        /* a single int binds as int[3] repeated: taken as one size for every dimension */
        bool scalar = size->nints == 3 && dim != 3 && size->ints[0] == size->ints[1] &&
                      size->ints[1] == size->ints[2];
        if (!scalar && size->nints != dim) {
            char a[PC_SHAPE_FORMAT_MAX], b[PC_SHAPE_FORMAT_MAX];
            pc_shape_format(a, sizeof a, p->x->shape + 2, dim);
            pc_shape_format(b, sizeof b, size->ints, size->nints);
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Input and output must have the same number of spatial "
                                "dimensions, but got input with spatial dimensions of %s and "
                                "output size of %s. Please provide input tensor in (N, C, d1, "
                                "d2, ...,dK) format and output size in (o1, o2, ...,oK) format.",
                                call->full_name, a, b);
        }
        for (int i = 0; i < dim; i++)
            p->out[3 - dim + i] = size->ints[scalar ? 0 : i];
    } else {
        double s = sf->f;
        for (int i = 3 - dim; i < 3; i++) {
            p->out[i] = (int64_t)floor((double)in[i] * s);
            p->has_scale[i] = !recompute;
            p->scale[i] = s;
        }
    }
    for (int i = 3 - dim; i < 3; i++)
        if (p->out[i] <= 0 || in[i] <= 0)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Input and output sizes should be greater than 0, but got "
                                "input (%" PRId64 ") and output (%" PRId64 ")",
                                call->full_name, in[i], p->out[i]);
    p->osh[0] = p->x->shape[0];
    p->osh[1] = p->x->shape[1];
    for (int i = 0; i < dim; i++)
        p->osh[2 + i] = p->out[3 - dim + i];
    return PC_OK;
}

static float rbf(float v)
{
    return pc_bf16_to_f32(pc_f32_to_bf16(v));
}

/* torch's compute_scales_value / area_pixel_compute_scale in float (bfloat16: rounded) */
static float ip_scale(const ip_plan *p, int i)
{
    float s;
    if (p->mode == IP_LINEAR && p->align)
        s = p->out[i] > 1 ? (float)(p->in[i] - 1) / (float)(p->out[i] - 1) : 0.0f;
    else if (p->has_scale[i] && p->scale[i] > 0)
        s = (float)(1.0 / p->scale[i]);
    else
        s = (float)p->in[i] / (float)p->out[i];
    return p->bf && p->mode == IP_LINEAR ? rbf(s) : s;
}

/* The sources of dimension i; weights rounded to float unless dbl. */
static void ip_axis_fill(const ip_plan *p, int i, bool dbl, ip_axis *a)
{
    int64_t in = p->in[i], out = p->out[i];
    float sc = ip_scale(p, i);
    for (int64_t o = 0; o < out; o++) {
        if (p->mode != IP_LINEAR) {
            int64_t s;
            if (p->mode == IP_NEAREST && out == in)
                s = o;
            else if (p->mode == IP_NEAREST && out == 2 * in)
                s = o >> 1;
            else {
                float t = p->mode == IP_NEAREST ? (float)o * sc : ((float)o + 0.5f) * sc;
                s = (int64_t)floorf(t);
                if (s > in - 1)
                    s = in - 1;
            }
            a->i0[o] = a->i1[o] = s;
            a->l0[o] = 1.0;
            a->l1[o] = 0.0;
            continue;
        }
        if (out == in) {
            a->i0[o] = a->i1[o] = o;
            a->l0[o] = 1.0;
            a->l1[o] = 0.0;
            continue;
        }
        double real;
        if (dbl) { /* the float64 kernel: everything in double */
            double sd = p->align ? (out > 1 ? (double)(in - 1) / (double)(out - 1) : 0.0)
                        : (p->has_scale[i] && p->scale[i] > 0) ? 1.0 / p->scale[i]
                                                               : (double)in / (double)out;
            real = p->align ? sd * (double)o : fma(sd, (double)o + 0.5, -0.5);
        } else {
            real = p->align ? (double)sc * (double)o : fma((double)sc, (double)o + 0.5, -0.5);
        }
        if (!p->align && real < 0)
            real = 0;
        int64_t i0 = (int64_t)real;
        if (i0 > in - 1)
            i0 = in - 1;
        double l1 = real - (double)i0;
        l1 = l1 < 0 ? 0 : l1 > 1 ? 1 : l1;
        a->i0[o] = i0;
        a->i1[o] = i0 + (i0 < in - 1 ? 1 : 0);
        if (dbl) {
            a->l1[o] = l1;
            a->l0[o] = 1.0 - l1;
        } else if (p->bf) { /* bfloat16 weights */
            a->l1[o] = (double)rbf((float)l1);
            a->l0[o] = (double)rbf(1.0f - (float)a->l1[o]);
        } else {
            a->l1[o] = (double)(float)l1;
            a->l0[o] = (double)(1.0f - (float)l1);
        }
    }
}

static pc_status ip_axes(const ip_plan *p, bool dbl, ip_axis ax[3], void **mem)
{
    int64_t n = p->out[0] + p->out[1] + p->out[2];
    char *m = malloc((size_t)n * (2 * sizeof(int64_t) + 2 * sizeof(double)) + 1);
    if (!m)
        return PC_ERR_NOMEM;
    *mem = m;
    for (int i = 0; i < 3; i++) {
        int64_t k = p->out[i];
        ax[i].i0 = (int64_t *)(void *)m;
        ax[i].i1 = ax[i].i0 + k;
        ax[i].l0 = (double *)(void *)(ax[i].i1 + k);
        ax[i].l1 = ax[i].l0 + k;
        m = (char *)(ax[i].l1 + k);
        ip_axis_fill(p, i, dbl, &ax[i]);
    }
    return PC_OK;
}

/* One level of the linear nesting: fma(v0, l0, v1 l1) in float, or every step in bfloat16. */
static float ip_lerp_f(bool bf, float v0, double l0, float v1, double l1)
{
    if (bf)
        return rbf(rbf(v0 * (float)l0) + rbf(v1 * (float)l1));
    return fmaf(v0, (float)l0, v1 * (float)l1);
}

pc_status pc_k_interp_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    ip_plan p;
    pc_status st = ip_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    if (p.mode == IP_AREA) { /* adaptive_avg_pool of the output size */
        st = pc_pool_adaptive_avg(call, compute, p.x, p.nsp, p.osh + 2, NULL, &out->tensors[0]);
        if (st == PC_OK)
            out->count = 1;
        return st;
    }
    pc_dtype cd = pc_kernel_compute_dtype(compute, p.x->dtype);
    bool dbl = cd == PC_DTYPE_F64;
    p.bf = !dbl && p.x->dtype == PC_DTYPE_BF16;
    ip_axis ax[3];
    void *mem = NULL;
    pc_tensor x = PC_TENSOR_NULL, y = PC_TENSOR_NULL;
    if (ip_axes(&p, dbl, ax, &mem) != PC_OK)
        return pc_kernel_nomem(call);
    if ((st = pc_kernel_load_ro(call, p.x, cd, &x)) != PC_OK ||
        (st = pc_tensor_alloc(&y, cd, p.osh, p.nsp + 2)) != PC_OK)
        goto done;
    const double *xd = pc_tensor_data(&x);
    const float *xf = pc_tensor_data(&x);
    double *yd = pc_tensor_data(&y);
    float *yf = pc_tensor_data(&y);
    int64_t Di = p.in[0], Hi = p.in[1], Wi = p.in[2], Do = p.out[0], Ho = p.out[1], Wo = p.out[2];
    int lead = 3 - p.nsp; /* dimensions of size 1 that the nesting skips */
    for (int64_t q = 0; q < p.NC; q++)
        for (int64_t a = 0; a < Do; a++)
            for (int64_t b = 0; b < Ho; b++)
                for (int64_t c = 0; c < Wo; c++) {
                    int64_t o = ((q * Do + a) * Ho + b) * Wo + c;
                    if (p.mode != IP_LINEAR) {
                        int64_t k = ((q * Di + ax[0].i0[a]) * Hi + ax[1].i0[b]) * Wi + ax[2].i0[c];
                        if (dbl)
                            yd[o] = xd[k];
                        else
                            yf[o] = xf[k];
                        continue;
                    }
                    /* v[z][h] = the row (z, h) interpolated along w; then along h, then z */
                    double rd[2][2], hd[2];
                    float rf[2][2], hf[2];
                    for (int zi = 0; zi < 2; zi++)
                        for (int hi = 0; hi < 2; hi++) {
                            int64_t z = zi ? ax[0].i1[a] : ax[0].i0[a];
                            int64_t h = hi ? ax[1].i1[b] : ax[1].i0[b];
                            int64_t base = ((q * Di + z) * Hi + h) * Wi;
                            int64_t w0 = base + ax[2].i0[c], w1 = base + ax[2].i1[c];
                            if (dbl)
                                rd[zi][hi] = fma(xd[w0], ax[2].l0[c], xd[w1] * ax[2].l1[c]);
                            else
                                rf[zi][hi] =
                                    ip_lerp_f(p.bf, xf[w0], ax[2].l0[c], xf[w1], ax[2].l1[c]);
                        }
                    for (int zi = 0; zi < 2; zi++) {
                        if (lead >= 2) { /* 1-D: no h level */
                            hd[zi] = rd[zi][0];
                            hf[zi] = rf[zi][0];
                        } else if (dbl)
                            hd[zi] = fma(rd[zi][0], ax[1].l0[b], rd[zi][1] * ax[1].l1[b]);
                        else
                            hf[zi] =
                                ip_lerp_f(p.bf, rf[zi][0], ax[1].l0[b], rf[zi][1], ax[1].l1[b]);
                    }
                    if (lead >= 1) {
                        if (dbl)
                            yd[o] = hd[0];
                        else
                            yf[o] = hf[0];
                    } else if (dbl)
                        yd[o] = fma(hd[0], ax[0].l0[a], hd[1] * ax[0].l1[a]);
                    else
                        yf[o] = ip_lerp_f(p.bf, hf[0], ax[0].l0[a], hf[1], ax[0].l1[a]);
                }
    st = pc_kernel_store(call, &y, p.x->dtype, p.osh, p.nsp + 2, &out->tensors[0]);
    if (st == PC_OK)
        out->count = 1;
done:
    free(mem);
    pc_tensor_free(&x);
    pc_tensor_free(&y);
    return st;
}

pc_status pc_k_interp_backward(const pc_op_call *call, pc_compute compute,
                               const pc_tensor *grad_out, pc_op_grads *out)
{
    ip_plan p;
    pc_status st = ip_plan_make(call, &p);
    if (st != PC_OK || !pc_kernel_wants_grad(call, 0))
        return st;
    if (p.mode == IP_AREA)
        return pc_pool_adaptive_avg(call, compute, p.x, p.nsp, p.osh + 2, grad_out, &out->grads[0]);
    pc_dtype cd = pc_kernel_compute_dtype(compute, p.x->dtype);
    bool dbl = cd == PC_DTYPE_F64;
    p.bf = !dbl && p.x->dtype == PC_DTYPE_BF16;
    ip_axis ax[3];
    void *mem = NULL;
    pc_tensor g = PC_TENSOR_NULL, dx = PC_TENSOR_NULL;
    if (ip_axes(&p, dbl, ax, &mem) != PC_OK)
        return pc_kernel_nomem(call);
    if ((st = pc_kernel_load(call, grad_out, cd, &g)) != PC_OK ||
        (st = pc_tensor_alloc(&dx, cd, p.x->shape, p.x->rank)) != PC_OK)
        goto done;
    const double *gd = pc_tensor_data(&g);
    const float *gf = pc_tensor_data(&g);
    double *dd = pc_tensor_data(&dx);
    float *df = pc_tensor_data(&dx);
    int64_t Di = p.in[0], Hi = p.in[1], Wi = p.in[2], Do = p.out[0], Ho = p.out[1], Wo = p.out[2];
    int lead = 3 - p.nsp;
    int nz = lead >= 1 ? 1 : 2, nh = lead >= 2 ? 1 : 2;
    for (int64_t q = 0; q < p.NC; q++)
        for (int64_t a = 0; a < Do; a++)
            for (int64_t b = 0; b < Ho; b++)
                for (int64_t c = 0; c < Wo; c++) {
                    int64_t o = ((q * Do + a) * Ho + b) * Wo + c;
                    if (p.mode != IP_LINEAR) {
                        int64_t k = ((q * Di + ax[0].i0[a]) * Hi + ax[1].i0[b]) * Wi + ax[2].i0[c];
                        if (dbl)
                            dd[k] += gd[o];
                        else
                            df[k] = p.bf ? rbf(df[k] + gf[o]) : df[k] + gf[o];
                        continue;
                    }
                    for (int zi = 0; zi < nz; zi++)
                        for (int hi = 0; hi < nh; hi++)
                            for (int wi = 0; wi < 2; wi++) {
                                int64_t z = zi ? ax[0].i1[a] : ax[0].i0[a];
                                int64_t h = hi ? ax[1].i1[b] : ax[1].i0[b];
                                int64_t w = wi ? ax[2].i1[c] : ax[2].i0[c];
                                int64_t k = ((q * Di + z) * Hi + h) * Wi + w;
                                double lz = zi ? ax[0].l1[a] : ax[0].l0[a];
                                double lh = hi ? ax[1].l1[b] : ax[1].l0[b];
                                double lw = wi ? ax[2].l1[c] : ax[2].l0[c];
                                if (dbl) {
                                    double wt = lead >= 2 ? lw : lead == 1 ? lh * lw : lz * lh * lw;
                                    dd[k] = fma(wt, gd[o], dd[k]);
                                } else {
                                    float wt = lead >= 2   ? (float)lw
                                               : lead == 1 ? (float)lh * (float)lw
                                                           : (float)lz * (float)lh * (float)lw;
                                    if (p.bf) {
                                        wt = lead >= 2 ? (float)lw
                                             : lead == 1
                                                 ? rbf((float)lh * (float)lw)
                                                 : rbf(rbf((float)lz * (float)lh) * (float)lw);
                                        df[k] = rbf(df[k] + rbf(wt * gf[o]));
                                    } else {
                                        df[k] = fmaf(wt, gf[o], df[k]);
                                    }
                                }
                            }
                }
    st = pc_kernel_store(call, &dx, p.x->dtype, p.x->shape, p.x->rank, &out->grads[0]);
done:
    free(mem);
    pc_tensor_free(&g);
    pc_tensor_free(&dx);
    return st;
}
