/*
 * The pools of the conv group over one to three spatial dimensions (the missing leading ones
 * of size 1, as torch views the 1-D pools as 2-D ones): max_pool1d/3d (and the
 * *_with_indices forms), avg_pool1d/2d/3d, adaptive_avg_pool1d/3d, adaptive_max_pool1d/2d.
 *
 * As torch's CPU kernels: a max takes the first maximum of its window (NaN wins, padding never
 * does), its index the flat position in the input plane; an average sums its window in order
 * in the compute dtype and divides once (by the window clipped to the padded input, the
 * window inside the input, or divisor_override); an adaptive bin covers
 * [floor(i In / Out), ceil((i + 1) In / Out)) and divides by each bin extent in turn. The
 * gradients are added output by output in the input dtype, as torch's scalar_t kernels do: on
 * the device a float16/bfloat16 gradient is rounded after every addition.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/conv/conv_impl.h"
#include "ops/kernel.h"
#include "precheck/core/convert.h"

typedef struct pnd_plan {
    const pc_tensor *x;
    int kind, nsp;
    bool indices; /* a second output: the argmax positions */
    int64_t NC, in[3], out[3], k[3], s[3], p[3], d[3];
    bool ceil_mode, count_include_pad;
    int64_t divisor; /* 0: none */
    int orank;
    int64_t osh[PC_TENSOR_MAX_DIMS];
} pnd_plan;

static int64_t prod3(const int64_t *v)
{
    return v[0] * v[1] * v[2];
}

static const char *const kind_names[] = {"max_pool", "avg_pool", "adaptive_max_pool",
                                         "adaptive_avg_pool"};

/* an int[] argument: nsp values or one repeated; NONE/empty -> dflt (NULL: required) */
static pc_status pnd_ints(const pc_op_call *call, const pc_value *a, int nsp, const int64_t *dflt,
                          int64_t lead, const char *what, int64_t *dst)
{
    bool none = a->kind != PC_VALUE_INT_LIST || a->nints == 0;
    if (none && dflt) {
        memcpy(dst, dflt, sizeof(int64_t) * 3);
        return PC_OK;
    }
    if (none || (a->nints != nsp && a->nints != 1))
        return pc_error_set(PC_ERR_INVALID,
                            "%s: %s must either be a single int, or a tuple of %d ints",
                            call->full_name, what, nsp);
    for (int i = 0; i < 3; i++) {
        int j = i - (3 - nsp);
        dst[i] = j < 0 ? lead : a->ints[a->nints == 1 ? 0 : j];
    }
    return PC_OK;
}

static int64_t pool_out(int64_t in, int64_t k, int64_t pad, int64_t s, int64_t d, bool ceil_mode)
{
    int64_t span = in + 2 * pad - d * (k - 1) - 1;
    int64_t o = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
    if (ceil_mode && (o - 1) * s >= in + pad)
        o--;
    return o;
}

static pc_status pnd_plan_make(const pc_op_call *call, pnd_plan *p)
{
    memset(p, 0, sizeof *p);
    int prm = call->op->param;
    p->kind = (prm >> 4) & 3;
    p->nsp = prm & 3;
    p->x = pc_call_tensor(call, 0);
    int nsp = p->nsp, r = p->x->rank;
    char name[48];
    snprintf(name, sizeof name, "%s%dd", kind_names[p->kind], nsp);
    /* integer averages: torch sums in int64 and divides truncating */
    pc_status st = p->kind == PC_POOL_AVG && p->x->dtype != PC_DTYPE_BOOL
                       ? PC_OK
                       : pc_kernel_need_float(call, p->x, name);
    if (st != PC_OK)
        return st;
    if (r != nsp + 1 && r != nsp + 2)
        return pc_error_set(PC_ERR_INVALID, "%s: %s: Expected %dD or %dD tensor, but got %dD",
                            call->full_name, name, nsp + 1, nsp + 2, r);
    p->NC = 1;
    for (int i = 0; i < r - nsp; i++)
        p->NC *= p->x->shape[i];
    for (int i = 0; i < 3; i++) {
        int j = i - (3 - nsp);
        p->in[i] = j < 0 ? 1 : p->x->shape[r - nsp + j];
        p->k[i] = p->s[i] = p->d[i] = 1;
    }
    if (p->kind >= PC_POOL_ADAPTIVE_MAX) {
        if ((st = pnd_ints(call, &call->args[1], nsp, NULL, 1, "output_size", p->out)) != PC_OK)
            return st;
        for (int i = 0; i < 3; i++)
            if (p->out[i] < 0)
                return pc_error_set(PC_ERR_INVALID,
                                    "%s: %s: elements of output_size must be "
                                    "greater than or equal to 0",
                                    call->full_name, name);
        p->indices =
            p->kind == PC_POOL_ADAPTIVE_MAX && ((prm & PC_POOL_WITH_INDICES) || call->args[2].b);
    } else {
        int64_t zero[3] = {0, 0, 0};
        if ((st = pnd_ints(call, &call->args[1], nsp, NULL, 1, "kernel_size", p->k)) != PC_OK ||
            (st = pnd_ints(call, &call->args[2], nsp, p->k, 1, "stride", p->s)) != PC_OK ||
            (st = pnd_ints(call, &call->args[3], nsp, zero, 0, "padding", p->p)) != PC_OK)
            return st;
        if (p->kind == PC_POOL_MAX) {
            if ((st = pnd_ints(call, &call->args[4], nsp, NULL, 1, "dilation", p->d)) != PC_OK)
                return st;
            p->ceil_mode = call->args[5].b;
            p->indices = (prm & PC_POOL_WITH_INDICES) || call->args[6].b;
        } else {
            p->ceil_mode = call->args[4].b;
            p->count_include_pad = call->args[5].b;
            if (call->nargs > 6 && call->args[6].kind == PC_VALUE_INT) {
                p->divisor = call->args[6].i;
                if (p->divisor == 0)
                    return pc_error_set(PC_ERR_INVALID, "%s: divisor must be not zero",
                                        call->full_name);
            }
        }
        for (int i = 0; i < 3; i++) {
            if (p->k[i] <= 0)
                return pc_error_set(PC_ERR_INVALID,
                                    "%s: kernel size should be greater than zero, but got kH: "
                                    "%" PRId64 " kW: %" PRId64,
                                    call->full_name, p->k[1], p->k[2]);
            if (p->s[i] <= 0)
                return pc_error_set(PC_ERR_INVALID,
                                    "%s: stride should be greater than zero, but got dH: %" PRId64
                                    " dW: %" PRId64,
                                    call->full_name, p->s[1], p->s[2]);
            if (p->d[i] <= 0)
                return pc_error_set(PC_ERR_INVALID, "%s: dilation should be greater than zero",
                                    call->full_name);
            if ((p->p[i] < 0 || p->p[i] > p->k[i] / 2) && p->kind == PC_POOL_MAX && nsp == 1)
                return pc_error_set(PC_ERR_INVALID,
                                    "%s: max_pool1d() padding should be at most half of kernel "
                                    "size, but got padding=%" PRId64 " and kernel_size=%" PRId64,
                                    call->full_name, p->p[i], p->k[i]);
            if (p->p[i] < 0 || p->p[i] > p->k[i] / 2)
                return pc_error_set(PC_ERR_INVALID,
                                    "%s: pad should be at most half of kernel size, but got "
                                    "pad=%" PRId64 " and kernel_size=%" PRId64,
                                    call->full_name, p->p[i], p->k[i]);
        }
        for (int i = 0; i < 3; i++) {
            p->out[i] = pool_out(p->in[i], p->k[i], p->p[i], p->s[i], p->d[i], p->ceil_mode);
            if (p->out[i] <= 0)
                return pc_error_set(PC_ERR_INVALID,
                                    "%s: Given input size is too small: calculated output size "
                                    "%" PRId64 " at dimension %d",
                                    call->full_name, p->out[i], i);
        }
    }
    p->orank = r;
    memcpy(p->osh, p->x->shape, sizeof(int64_t) * (size_t)r);
    for (int j = 0; j < nsp; j++)
        p->osh[r - nsp + j] = p->out[3 - nsp + j];
    return PC_OK;
}

static int64_t bin_start(int64_t i, int64_t out, int64_t in)
{
    return (i * in) / out;
}

static int64_t bin_end(int64_t i, int64_t out, int64_t in)
{
    return ((i + 1) * in + out - 1) / out;
}

/* The window of output position o along dimension i: input positions lo, lo + step, ... < hi
 * (clipped to the input); *div: the extent an average divides by. */
static void pnd_window(const pnd_plan *p, int i, int64_t o, int64_t *lo, int64_t *hi, int64_t *step,
                       int64_t *ext)
{
    if (p->kind >= PC_POOL_ADAPTIVE_MAX) {
        *lo = bin_start(o, p->out[i], p->in[i]);
        *hi = bin_end(o, p->out[i], p->in[i]);
        *step = 1;
        *ext = *hi - *lo;
        return;
    }
    int64_t a = o * p->s[i] - p->p[i];
    if (p->kind == PC_POOL_MAX) {
        /* the first position >= 0 of a, a + d, ... (k of them), and the end */
        int64_t first = 0;
        while (first < p->k[i] && a + first * p->d[i] < 0)
            first++;
        int64_t last = p->k[i];
        while (last > first && a + (last - 1) * p->d[i] >= p->in[i])
            last--;
        *lo = a + first * p->d[i];
        *hi = last > first ? a + (last - 1) * p->d[i] + 1 : *lo;
        *step = p->d[i];
        *ext = 0;
        return;
    }
    int64_t b = a + p->k[i];
    if (b > p->in[i] + p->p[i])
        b = p->in[i] + p->p[i];
    int64_t full = b - a;
    if (a < 0)
        a = 0;
    if (b > p->in[i])
        b = p->in[i];
    *lo = a;
    *hi = b;
    *step = 1;
    *ext = p->count_include_pad ? full : b - a;
}

/* A value of compute dtype cd rounded to dtype d as torch's scalar_t arithmetic would (device,
 * half types only). */
static double pnd_round(double v, bool half_steps, pc_dtype d)
{
    if (!half_steps)
        return v;
    if (d == PC_DTYPE_BF16)
        return (double)pc_bf16_to_f32(pc_f32_to_bf16((float)v));
    return (double)pc_f16_to_f32(pc_f32_to_f16((float)v));
}

/* torch's adaptive average to an output of 1 (of the 2-D view: adaptive_avg_pool1d, and
 * adaptive_avg_pool3d) is a mean: the sum in double here, divided once */
static bool pnd_is_mean(const pnd_plan *p)
{
    return p->kind == PC_POOL_ADAPTIVE_AVG && p->out[0] == 1 && p->out[1] == 1 && p->out[2] == 1;
}

/* avg_pool of an integer tensor: int64 sums, C's truncating division */
static pc_status pnd_int_avg(const pc_op_call *call, const pnd_plan *p, pc_op_result *out)
{
    pc_tensor x = PC_TENSOR_NULL, y = PC_TENSOR_NULL;
    pc_status st;
    if ((st = pc_kernel_load(call, p->x, PC_DTYPE_I64, &x)) != PC_OK ||
        (st = pc_tensor_alloc(&y, PC_DTYPE_I64, p->osh, p->orank)) != PC_OK)
        goto done;
    const int64_t *xv = pc_tensor_data(&x);
    int64_t *yv = pc_tensor_data(&y);
    int64_t HWi = prod3(p->in), HWo = prod3(p->out);
    for (int64_t q = 0; q < p->NC; q++)
        for (int64_t o = 0; o < HWo; o++) {
            int64_t oi[3] = {o / (p->out[1] * p->out[2]), o / p->out[2] % p->out[1], o % p->out[2]};
            int64_t lo[3], hi[3], stp[3], ext[3], s = 0;
            for (int i = 0; i < 3; i++)
                pnd_window(p, i, oi[i], &lo[i], &hi[i], &stp[i], &ext[i]);
            for (int64_t a = lo[0]; a < hi[0]; a++)
                for (int64_t b = lo[1]; b < hi[1]; b++)
                    for (int64_t c = lo[2]; c < hi[2]; c++)
                        s += xv[q * HWi + (a * p->in[1] + b) * p->in[2] + c];
            int64_t dv = p->divisor ? p->divisor : ext[0] * ext[1] * ext[2];
            yv[q * HWo + o] = s / dv;
        }
    st = pc_kernel_store(call, &y, p->x->dtype, p->osh, p->orank, &out->tensors[0]);
    if (st == PC_OK)
        out->count = 1;
done:
    pc_tensor_free(&x);
    pc_tensor_free(&y);
    return st;
}

static pc_status pnd_forward(const pc_op_call *call, pc_compute compute, const pnd_plan *pp,
                             pc_op_result *out)
{
    pnd_plan p = *pp;
    pc_status st;
    pc_dtype cd = pc_kernel_compute_dtype(compute, p.x->dtype);
    bool dbl = cd == PC_DTYPE_F64;
    pc_tensor x = PC_TENSOR_NULL, y = PC_TENSOR_NULL, ix = PC_TENSOR_NULL;
    if ((st = pc_kernel_load_ro(call, p.x, cd, &x)) != PC_OK ||
        (st = pc_tensor_alloc(&y, cd, p.osh, p.orank)) != PC_OK ||
        (p.indices && (st = pc_tensor_alloc(&ix, PC_DTYPE_I64, p.osh, p.orank)) != PC_OK))
        goto done;
    const double *xd = pc_tensor_data(&x);
    const float *xf = pc_tensor_data(&x);
    double *yd = pc_tensor_data(&y);
    float *yf = pc_tensor_data(&y);
    int64_t *iv = p.indices ? pc_tensor_data(&ix) : NULL;
    int64_t HWi = prod3(p.in), HWo = prod3(p.out);
    bool is_max = p.kind == PC_POOL_MAX || p.kind == PC_POOL_ADAPTIVE_MAX;
    /* torch's 2-D adaptive average to a 1x1 output is mean(-1, -2) (adaptive_avg_pool1d to 1) */
    bool mean = pnd_is_mean(&p);
    /* torch's adaptive_avg_pool3d sums and divides in scalar_t: float16 rounds every step */
    bool half3 = p.kind == PC_POOL_ADAPTIVE_AVG && p.nsp == 3 && !dbl && p.x->dtype != PC_DTYPE_F32;
    for (int64_t q = 0; q < p.NC; q++)
        for (int64_t o = 0; o < HWo; o++) {
            int64_t oi[3] = {o / (p.out[1] * p.out[2]), o / p.out[2] % p.out[1], o % p.out[2]};
            int64_t lo[3], hi[3], stp[3], ext[3];
            for (int i = 0; i < 3; i++)
                pnd_window(&p, i, oi[i], &lo[i], &hi[i], &stp[i], &ext[i]);
            const int64_t base = q * HWi;
            int64_t best = -1;
            double bv = -HUGE_VAL, sd = 0;
            float sf = 0;
            for (int64_t a = lo[0]; a < hi[0]; a += stp[0])
                for (int64_t b = lo[1]; b < hi[1]; b += stp[1])
                    for (int64_t c = lo[2]; c < hi[2]; c += stp[2]) {
                        int64_t k = (a * p.in[1] + b) * p.in[2] + c;
                        double v = dbl ? xd[base + k] : (double)xf[base + k];
                        if (is_max) {
                            if (best < 0 || (!isnan(bv) && (v > bv || isnan(v)))) {
                                best = k;
                                bv = v;
                            }
                        } else if (dbl || mean) {
                            sd += v;
                        } else {
                            sf = (float)pnd_round((double)(sf + (float)v), half3, p.x->dtype);
                        }
                    }
            double r;
            if (is_max) {
                r = best < 0 ? -HUGE_VAL : bv;
                if (iv)
                    iv[q * HWo + o] = best < 0 ? 0 : best;
            } else if (mean) {
                r = sd / (double)HWi;
            } else if (p.kind == PC_POOL_ADAPTIVE_AVG) {
                r = dbl ? sd : (double)sf;
                for (int i = 0; i < 3; i++)
                    r = dbl ? r / (double)ext[i]
                            : pnd_round((double)((float)r / (float)ext[i]), half3, p.x->dtype);
            } else {
                int64_t dv = p.divisor ? p.divisor : ext[0] * ext[1] * ext[2];
                r = dbl ? sd / (double)dv : (double)(sf / (float)dv);
            }
            if (dbl)
                yd[q * HWo + o] = r;
            else
                yf[q * HWo + o] = (float)r;
        }
    st = pc_kernel_store(call, &y, p.x->dtype, p.osh, p.orank, &out->tensors[0]);
    if (st == PC_OK) {
        out->count = 1;
        if (p.indices) {
            out->tensors[1] = ix;
            ix = PC_TENSOR_NULL;
            out->count = 2;
        }
    }
done:
    pc_tensor_free(&x);
    pc_tensor_free(&y);
    pc_tensor_free(&ix);
    return st;
}

static pc_status pnd_backward(const pc_op_call *call, pc_compute compute, const pnd_plan *pp,
                              const pc_tensor *grad_out, pc_tensor *gx)
{
    pnd_plan p = *pp;
    pc_status st;
    pc_dtype cd = pc_kernel_compute_dtype(compute, p.x->dtype);
    bool dbl = cd == PC_DTYPE_F64;
    bool half = !dbl && p.x->dtype != PC_DTYPE_F32; /* torch's scalar_t steps */
    pc_tensor x = PC_TENSOR_NULL, g = PC_TENSOR_NULL, dx = PC_TENSOR_NULL;
    bool is_max = p.kind == PC_POOL_MAX || p.kind == PC_POOL_ADAPTIVE_MAX;
    if ((is_max && (st = pc_kernel_load_ro(call, p.x, cd, &x)) != PC_OK) ||
        (st = pc_kernel_load(call, grad_out, cd, &g)) != PC_OK ||
        (st = pc_tensor_alloc(&dx, cd, p.x->shape, p.x->rank)) != PC_OK)
        goto done;
    const double *xd = is_max ? pc_tensor_data(&x) : NULL;
    const float *xf = is_max ? pc_tensor_data(&x) : NULL;
    const double *gd = pc_tensor_data(&g);
    const float *gf = pc_tensor_data(&g);
    double *dd = pc_tensor_data(&dx);
    float *df = pc_tensor_data(&dx);
    int64_t HWi = prod3(p.in), HWo = prod3(p.out);
    bool mean = pnd_is_mean(&p);
    bool half3 = half && p.kind == PC_POOL_ADAPTIVE_AVG; /* dy / kd / kh / kw in scalar_t */
    for (int64_t q = 0; q < p.NC; q++)
        for (int64_t o = 0; o < HWo; o++) {
            int64_t oi[3] = {o / (p.out[1] * p.out[2]), o / p.out[2] % p.out[1], o % p.out[2]};
            int64_t lo[3], hi[3], stp[3], ext[3];
            for (int i = 0; i < 3; i++)
                pnd_window(&p, i, oi[i], &lo[i], &hi[i], &stp[i], &ext[i]);
            const int64_t base = q * HWi;
            double gv = dbl ? gd[q * HWo + o] : (double)gf[q * HWo + o];
            if (is_max) {
                int64_t best = -1;
                double bv = -HUGE_VAL;
                for (int64_t a = lo[0]; a < hi[0]; a += stp[0])
                    for (int64_t b = lo[1]; b < hi[1]; b += stp[1])
                        for (int64_t c = lo[2]; c < hi[2]; c += stp[2]) {
                            int64_t k = (a * p.in[1] + b) * p.in[2] + c;
                            double v = dbl ? xd[base + k] : (double)xf[base + k];
                            if (best < 0 || (!isnan(bv) && (v > bv || isnan(v)))) {
                                best = k;
                                bv = v;
                            }
                        }
                if (best < 0)
                    continue;
                if (dbl)
                    dd[base + best] += gv;
                else
                    df[base + best] =
                        (float)pnd_round((double)(df[base + best] + (float)gv), half, p.x->dtype);
                continue;
            }
            double delta;
            if (mean) { /* mean's backward: dy / n, written */
                delta = dbl ? gv / (double)HWi : (double)((float)gv / (float)HWi);
            } else if (p.kind == PC_POOL_ADAPTIVE_AVG) {
                delta = gv;
                for (int i = 0; i < 3; i++)
                    delta =
                        dbl ? delta / (double)ext[i]
                            : pnd_round((double)((float)delta / (float)ext[i]), half3, p.x->dtype);
            } else {
                int64_t dv = p.divisor ? p.divisor : ext[0] * ext[1] * ext[2];
                delta = dbl ? gv / (double)dv : (double)((float)gv / (float)dv);
            }
            delta = pnd_round(delta, half, p.x->dtype);
            for (int64_t a = lo[0]; a < hi[0]; a++)
                for (int64_t b = lo[1]; b < hi[1]; b++)
                    for (int64_t c = lo[2]; c < hi[2]; c++) {
                        int64_t k = base + (a * p.in[1] + b) * p.in[2] + c;
                        if (dbl)
                            dd[k] += delta;
                        else if (mean)
                            df[k] = (float)delta;
                        else
                            df[k] =
                                (float)pnd_round((double)(df[k] + (float)delta), half, p.x->dtype);
                    }
        }
    st = pc_kernel_store(call, &dx, p.x->dtype, p.x->shape, p.x->rank, gx);
done:
    pc_tensor_free(&x);
    pc_tensor_free(&g);
    pc_tensor_free(&dx);
    return st;
}

pc_status pc_k_poolnd_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    pnd_plan p;
    pc_status st = pnd_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    if (!pc_dtype_is_float(p.x->dtype))
        return pnd_int_avg(call, &p, out);
    return pnd_forward(call, compute, &p, out);
}

pc_status pc_k_poolnd_backward(const pc_op_call *call, pc_compute compute,
                               const pc_tensor *grad_out, pc_op_grads *out)
{
    pnd_plan p;
    pc_status st = pnd_plan_make(call, &p);
    if (st != PC_OK || !pc_kernel_wants_grad(call, 0))
        return st;
    return pnd_backward(call, compute, &p, grad_out, &out->grads[0]);
}

pc_status pc_pool_adaptive_avg(const pc_op_call *call, pc_compute compute, const pc_tensor *x,
                               int nsp, const int64_t *out_size, const pc_tensor *grad_out,
                               pc_tensor *result)
{
    pnd_plan p;
    memset(&p, 0, sizeof p);
    p.x = x;
    p.kind = PC_POOL_ADAPTIVE_AVG;
    p.nsp = nsp;
    int r = x->rank;
    p.NC = 1;
    for (int i = 0; i < r - nsp; i++)
        p.NC *= x->shape[i];
    for (int i = 0; i < 3; i++) {
        int j = i - (3 - nsp);
        p.in[i] = j < 0 ? 1 : x->shape[r - nsp + j];
        p.out[i] = j < 0 ? 1 : out_size[j];
        p.k[i] = p.s[i] = p.d[i] = 1;
    }
    p.orank = r;
    memcpy(p.osh, x->shape, sizeof(int64_t) * (size_t)r);
    for (int j = 0; j < nsp; j++)
        p.osh[r - nsp + j] = out_size[j];
    if (grad_out)
        return pnd_backward(call, compute, &p, grad_out, result);
    pc_op_result res = {0};
    pc_status st = pnd_forward(call, compute, &p, &res);
    if (st == PC_OK)
        *result = res.tensors[0];
    return st;
}
