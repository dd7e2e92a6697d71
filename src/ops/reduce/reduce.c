/*
 * Reductions of the "reduction" group: nansum, prod, var/std (and var_mean/std_mean),
 * logsumexp, norm, normalize, all/any, forward and backward, and the group's helpers.
 *
 * Like reduce_sum.c (sum, mean), every reduction reads its input once, permuted so that the kept
 * dimensions come first and the reduced ones last, converted to float64 (exact for every real
 * dtype): each output slot reduces one contiguous run. Sums are Neumaier-compensated in double
 * and rounded once to the output dtype, on the device and on the bench alike (torch's float32
 * CPU reductions sum in vectorised lanes in float32: a few ULP from the correctly rounded value
 * where terms cancel; the gaps are pinned in tests/ops/op_gaps_reduction.inc). var/std: torch's
 * CPU accumulates Welford's moments in double for every float dtype, which the two-pass double
 * computation here matches to the last bit of the output in practice.
 *
 * Gradients follow torch 1.13's autograd formulas (derivatives.yaml / FunctionsManual.cpp). On
 * the device each tensor operation of the formula is rounded to the dtype autograd holds it in
 * (pc_reduce_round), so that the last bit matches torch's; on the bench everything stays in double
 * and is rounded once.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/core/convert.h"
#include "ops/kernel.h"
#include "ops/reduce/reduce_impl.h"

/* ---- helpers ---- */

pc_status pc_reduce_nomem(const pc_op_call *call)
{
    return pc_error_set(PC_ERR_NOMEM, "%s: out of memory", call->full_name);
}

pc_status pc_reduce_real(const pc_op_call *call, const pc_tensor *t)
{
    if (pc_dtype_is_complex(t->dtype) || t->dtype == PC_DTYPE_F8E4M3FN ||
        t->dtype == PC_DTYPE_F8E5M2)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: %s of %s is not supported by precheck",
                            call->full_name, call->op->name, pc_dtype_torch_name(t->dtype));
    return PC_OK;
}

pc_status pc_reduce_plan_make(const pc_op_call *call, const pc_tensor *x, const pc_value *dims,
                              bool keepdim, pc_reduce_plan *p)
{
    memset(p, 0, sizeof *p);
    p->x = x;
    int r = x->rank;
    if (dims->kind == PC_VALUE_INT) {
        int d;
        pc_status st = pc_shape_wrap_dim(call, dims->i, r, &d);
        if (st != PC_OK)
            return st;
        if (r > 0)
            p->reduced[d] = true;
    } else if (dims->kind == PC_VALUE_INT_LIST && dims->nints > 0) {
        for (int i = 0; i < dims->nints; i++) {
            int d;
            pc_status st = pc_shape_wrap_dim(call, dims->ints[i], r, &d);
            if (st != PC_OK)
                return st;
            if (r > 0 && p->reduced[d])
                return pc_error_set(PC_ERR_INVALID,
                                    "%s: dim %d appears multiple times in the list of dims",
                                    call->full_name, d);
            if (r > 0)
                p->reduced[d] = true;
        }
    } else {
        for (int d = 0; d < r; d++)
            p->reduced[d] = true;
    }
    int k = 0;
    p->outer = p->inner = 1;
    for (int d = 0; d < r; d++) {
        if (!p->reduced[d]) {
            p->perm[k++] = d;
            p->outer *= x->shape[d];
        } else {
            p->inner *= x->shape[d];
        }
        if (!p->reduced[d] || keepdim)
            p->out_shape[p->out_rank++] = p->reduced[d] ? 1 : x->shape[d];
    }
    for (int d = 0; d < r; d++)
        if (p->reduced[d])
            p->perm[k++] = d;
    return PC_OK;
}

pc_status pc_reduce_load(const pc_reduce_plan *p, const pc_tensor *t, pc_dtype as, pc_tensor *buf)
{
    pc_tensor pv = PC_TENSOR_NULL;
    pc_status st = pc_tensor_permute(&pv, t, t->rank ? p->perm : NULL);
    if (st == PC_OK)
        st = pc_tensor_cast(buf, &pv, as);
    pc_tensor_free(&pv);
    if (st == PC_OK && !pc_tensor_is_contiguous(buf)) {
        pc_tensor c = PC_TENSOR_NULL;
        st = pc_tensor_contiguous(&c, buf);
        pc_tensor_free(buf);
        *buf = c;
    }
    return st;
}

pc_status pc_reduce_unload(const pc_op_call *call, const pc_reduce_plan *p, const double *v,
                           pc_dtype d, pc_tensor *out)
{
    const pc_tensor *x = p->x;
    int r = x->rank;
    int64_t pshape[PC_TENSOR_MAX_DIMS] = {0}, ps[PC_TENSOR_MAX_DIMS] = {0};
    int64_t xs[PC_TENSOR_MAX_DIMS] = {0};
    for (int k = 0; k < r; k++)
        pshape[k] = x->shape[p->perm[k]];
    pc_shape_contiguous_strides(pshape, r, ps);
    for (int k = 0; k < r; k++)
        xs[p->perm[k]] = ps[k];
    int64_t n = pc_tensor_numel(x);
    int64_t *offs = pc_shape_offsets(x->shape, xs, r, 0, n);
    double *gx = malloc((size_t)(n > 0 ? n : 1) * sizeof *gx);
    pc_status st = PC_OK;
    if (!offs || !gx) {
        st = pc_reduce_nomem(call);
    } else {
        for (int64_t i = 0; i < n; i++)
            gx[i] = v[offs[i]];
        st = pc_shape_store(out, d, x->shape, r, gx);
    }
    free(offs);
    free(gx);
    return st;
}

pc_status pc_reduce_grad_load(const pc_op_call *call, const pc_reduce_plan *p,
                              const pc_tensor *grad_out, pc_tensor *buf)
{
    if (pc_tensor_numel(grad_out) != p->outer)
        return pc_error_set(PC_ERR_INVALID, "%s: the gradient has %lld elements, the output %lld",
                            call->full_name, (long long)pc_tensor_numel(grad_out),
                            (long long)p->outer);
    pc_status st = pc_tensor_cast(buf, grad_out, PC_DTYPE_F64);
    if (st == PC_OK && !pc_tensor_is_contiguous(buf)) {
        pc_tensor c = PC_TENSOR_NULL;
        st = pc_tensor_contiguous(&c, buf);
        pc_tensor_free(buf);
        *buf = c;
    }
    return st;
}

double pc_reduce_round(pc_compute compute, pc_dtype d, double v)
{
    if (compute == PC_COMPUTE_BENCH || d == PC_DTYPE_F64 || !pc_dtype_is_float(d))
        return v;
    double f = (double)(float)v;
    return d == PC_DTYPE_F32 ? f : pc_round_to_dtype(f, d);
}

double pc_reduce_sum(const double *v, int64_t n, int64_t step)
{
    double s = 0.0, c = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double a = v[i * step], t = s + a;
        if (fabs(s) >= fabs(a))
            c += (s - t) + a;
        else
            c += (a - t) + s;
        s = t;
    }
    return isfinite(s) ? s + c : s;
}

/*
 * torch 1.13's CPU sum order (SumKernel.cpp's cascade_sum, AVX2 build: vectors of 8 floats or
 * 4 doubles; float32 accumulates in float32), checked against torch on thousands of random
 * rows: a "cascade" adds a sequence into four levels of accumulators, moving level j - 1 into
 * level j every 2^(j lp) elements (lp = max(4, ceil(log2 n) / 4)); torch's row_sum runs four
 * interleaved cascades (elements i = 4 g + k into cascade k), adds the leftover elements to the
 * first and then the other three to it.
 */
#define RD_ADD(f32, a, b) ((f32) ? (double)(float)((a) + (b)) : (a) + (b))

static double cascade(const double *x, int64_t n, int64_t step, bool f32)
{
    int lp = 0;
    while (((int64_t)1 << lp) < n)
        lp++;
    lp = lp / 4 > 4 ? lp / 4 : 4;
    int64_t lstep = (int64_t)1 << lp, mask = lstep - 1, i = 0;
    double acc[4] = {0, 0, 0, 0};
    while (i + lstep <= n) {
        for (int64_t j = 0; j < lstep; j++, i++)
            acc[0] = RD_ADD(f32, acc[0], x[i * step]);
        for (int j = 1; j < 4; j++) {
            acc[j] = RD_ADD(f32, acc[j], acc[j - 1]);
            acc[j - 1] = 0.0;
            if ((i & (mask << (j * lp))) != 0)
                break;
        }
    }
    for (; i < n; i++)
        acc[0] = RD_ADD(f32, acc[0], x[i * step]);
    for (int j = 1; j < 4; j++)
        acc[0] = RD_ADD(f32, acc[0], acc[j]);
    return acc[0];
}

static double row_sum(const double *x, int64_t n, int64_t step, bool f32)
{
    int64_t groups = n / 4;
    double ps[4];
    for (int k = 0; k < 4; k++)
        ps[k] = cascade(x + k * step, groups, 4 * step, f32);
    for (int64_t i = groups * 4; i < n; i++)
        ps[0] = RD_ADD(f32, ps[0], x[i * step]);
    for (int k = 1; k < 4; k++)
        ps[0] = RD_ADD(f32, ps[0], ps[k]);
    return ps[0];
}

/* A contiguous inner reduction of n elements: vector lanes (each a row_sum over the vectors),
 * then the leftover elements in order, then the lanes in order. */
static double inner_sum(const double *x, int64_t n, bool f32)
{
    int64_t w = f32 ? 8 : 4;
    if (n < w)
        return row_sum(x, n, 1, f32);
    int64_t nv = n / w;
    double fin = 0.0;
    for (int64_t k = nv * w; k < n; k++)
        fin = RD_ADD(f32, fin, x[k]);
    for (int64_t l = 0; l < w; l++)
        fin = RD_ADD(f32, fin, row_sum(x + l, nv, w, f32));
    return fin;
}

/* How torch's iterator sums x's slots in dtype t: -1 unknown (not float32/float64, x not
 * contiguous, or the reduced dimensions in several blocks), 0 an inner reduction, else an
 * outer one, with *cols the size of the trailing block of kept dimensions (size 1 dropped). */
static int sum_kind(const pc_reduce_plan *p, pc_dtype t, int64_t *cols)
{
    const pc_tensor *x = p->x;
    if ((t != PC_DTYPE_F32 && t != PC_DTYPE_F64) || !pc_tensor_is_contiguous(x))
        return -1;
    int phase = 0; /* 0: leading kept, 1: reduced block, 2: trailing kept */
    *cols = 1;
    for (int d = 0; d < x->rank; d++) {
        if (x->shape[d] == 1)
            continue;
        if (p->reduced[d]) {
            if (phase == 2)
                return -1;
            phase = 1;
        } else if (phase >= 1) {
            phase = 2;
            *cols *= x->shape[d];
        }
    }
    return phase == 2 ? 1 : 0;
}

/* The sum of slot o (its p->inner values at row), in torch's order for kind (sum_kind). */
static double slot_sum(const pc_reduce_plan *p, pc_dtype t, int kind, int64_t cols, int64_t o,
                       const double *row)
{
    if (kind < 0)
        return pc_reduce_sum(row, p->inner, 1);
    bool f32 = t == PC_DTYPE_F32;
    if (kind == 0)
        return inner_sum(row, p->inner, f32);
    /* an outer reduction: column j of the trailing kept block cascades its elements one by one
     * (torch's multi_row_sum over 4 columns or 4 vectors of them) or runs a row_sum (the
     * columns left over) */
    int64_t w = f32 ? 8 : 4, j = o % cols;
    bool seq = cols >= w ? j < cols / (4 * w) * (4 * w) : j < cols / 4 * 4;
    return seq ? cascade(row, p->inner, 1, f32) : row_sum(row, p->inner, 1, f32);
}

bool pc_reduce_torch_sums(const pc_reduce_plan *p, pc_dtype t, const double *v, double *y)
{
    int64_t cols = 1;
    int kind = sum_kind(p, t, &cols);
    if (kind < 0)
        return false;
    for (int64_t o = 0; o < p->outer; o++)
        y[o] = slot_sum(p, t, kind, cols, o, v + o * p->inner);
    return true;
}

/* The dtype torch sums in: the bench's double, or the device's dtype. */
static pc_dtype sum_dtype(pc_compute compute, pc_dtype d)
{
    return compute == PC_COMPUTE_BENCH ? PC_DTYPE_F64 : d;
}

/* The dtype= argument at index i, or fallback. */
static pc_dtype dtype_arg(const pc_op_call *call, int i, pc_dtype fallback)
{
    return call->args[i].kind == PC_VALUE_DTYPE ? call->args[i].dtype : fallback;
}

static double sgn(double v)
{
    return v > 0 ? 1.0 : v < 0 ? -1.0 : v; /* +-0 and NaN stay */
}

/* The values of x in the plan's order as float64, each first rounded to dtype od when x is
 * cast to it (torch's dtype= casts the input before reducing). */
static pc_status load_as(const pc_reduce_plan *p, pc_dtype od, pc_tensor *buf)
{
    pc_status st = pc_reduce_load(p, p->x, PC_DTYPE_F64, buf);
    if (st != PC_OK || od == p->x->dtype || od == PC_DTYPE_F64)
        return st;
    double *v = pc_tensor_data(buf);
    for (int64_t i = 0; i < p->outer * p->inner; i++)
        v[i] = pc_round_to_dtype(v[i], od);
    return PC_OK;
}

/* An integer reduction (sum or product) exact in int64, wrapping like torch's, into od. */
static pc_status int_reduce(const pc_op_call *call, const pc_reduce_plan *p, pc_dtype od, bool prod,
                            pc_op_result *out)
{
    pc_tensor cast = PC_TENSOR_NULL, buf = PC_TENSOR_NULL;
    pc_status st = pc_tensor_cast(&cast, p->x, od);
    if (st == PC_OK)
        st = pc_reduce_load(p, &cast, PC_DTYPE_I64, &buf);
    if (st == PC_OK)
        st = pc_tensor_alloc(&out->tensors[0], PC_DTYPE_I64, p->out_shape, p->out_rank);
    if (st == PC_OK) {
        const int64_t *v = pc_tensor_data(&buf);
        int64_t *y = pc_tensor_data(&out->tensors[0]);
        for (int64_t o = 0; o < p->outer; o++) {
            uint64_t s = prod ? 1u : 0u;
            for (int64_t k = 0; k < p->inner; k++)
                s = prod ? s * (uint64_t)v[o * p->inner + k] : s + (uint64_t)v[o * p->inner + k];
            y[o] = (int64_t)s;
        }
        if (od != PC_DTYPE_I64)
            st = pc_tensor_cast(&out->tensors[0], &out->tensors[0], od);
    }
    pc_tensor_free(&cast);
    pc_tensor_free(&buf);
    if (st == PC_OK)
        out->count = 1;
    (void)call;
    return st;
}

/* ---- nansum ---- */

/* The plan and result dtype of nansum and prod (input, dim, keepdim, *, dtype): the dtype
 * argument, else a float input's own dtype or int64; keepdim as the caller reads it. */
static pc_status sumlike_setup(const pc_op_call *call, const char *what, bool keepdim,
                               pc_reduce_plan *p, pc_dtype *od)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    pc_status st = pc_reduce_real(call, x);
    if (st != PC_OK)
        return st;
    *od = dtype_arg(call, 3, pc_dtype_is_float(x->dtype) ? x->dtype : PC_DTYPE_I64);
    if (pc_dtype_is_complex(*od) || *od == PC_DTYPE_F8E4M3FN || *od == PC_DTYPE_F8E5M2)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: %s to %s is not supported by precheck",
                            call->full_name, what, pc_dtype_torch_name(*od));
    return pc_reduce_plan_make(call, x, &call->args[1], keepdim, p);
}

/* nansum(input, dim, keepdim, *, dtype) */
static pc_status nansum_setup(const pc_op_call *call, pc_reduce_plan *p, pc_dtype *od)
{
    return sumlike_setup(call, "nansum", call->args[2].b, p, od);
}

pc_status pc_k_nansum_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    pc_reduce_plan p;
    pc_dtype od;
    pc_status st = nansum_setup(call, &p, &od);
    if (st != PC_OK)
        return st;
    if (!pc_dtype_is_float(od))
        return int_reduce(call, &p, od, false, out);
    pc_tensor buf = PC_TENSOR_NULL;
    if ((st = load_as(&p, od, &buf)) != PC_OK)
        return st;
    double *v = pc_tensor_data(&buf);
    double *y = malloc((size_t)(p.outer > 0 ? p.outer : 1) * sizeof *y);
    if (!y) {
        pc_tensor_free(&buf);
        return pc_reduce_nomem(call);
    }
    int64_t n = p.outer * p.inner;
    for (int64_t i = 0; i < n; i++)
        if (isnan(v[i]))
            v[i] = 0.0;
    if (!pc_reduce_torch_sums(&p, sum_dtype(compute, od), v, y))
        for (int64_t o = 0; o < p.outer; o++)
            y[o] = pc_reduce_sum(v + o * p.inner, p.inner, 1);
    st = pc_shape_store(&out->tensors[0], od, p.out_shape, p.out_rank, y);
    free(y);
    pc_tensor_free(&buf);
    if (st == PC_OK)
        out->count = 1;
    return st;
}

pc_status pc_k_nansum_backward(const pc_op_call *call, pc_compute compute,
                               const pc_tensor *grad_out, pc_op_grads *out)
{
    (void)compute;
    pc_reduce_plan p;
    pc_dtype od;
    pc_status st = nansum_setup(call, &p, &od);
    if (st != PC_OK || !pc_shape_wants_grad(call, 0) || !pc_dtype_is_float(od))
        return st;
    pc_tensor g = PC_TENSOR_NULL, buf = PC_TENSOR_NULL;
    if ((st = pc_reduce_grad_load(call, &p, grad_out, &g)) == PC_OK)
        st = load_as(&p, od, &buf);
    if (st == PC_OK) {
        const double *gy = pc_tensor_data(&g);
        double *v = pc_tensor_data(&buf);
        for (int64_t o = 0; o < p.outer; o++)
            for (int64_t k = 0; k < p.inner; k++) {
                double *e = &v[o * p.inner + k];
                *e = isnan(*e) ? 0.0 : pc_round_to_dtype(gy[o], od);
            }
        st = pc_reduce_unload(call, &p, v, p.x->dtype, &out->grads[0]);
    }
    pc_tensor_free(&g);
    pc_tensor_free(&buf);
    return st;
}

/* ---- prod ---- */

/* prod(input, dim=None, keepdim, *, dtype): no dim means all of them, keepdim ignored */
static pc_status prod_setup(const pc_op_call *call, pc_reduce_plan *p, pc_dtype *od)
{
    bool all = call->args[1].kind == PC_VALUE_NONE;
    return sumlike_setup(call, "prod", all ? false : call->args[2].b, p, od);
}

pc_status pc_k_prod_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    pc_reduce_plan p;
    pc_dtype od;
    pc_status st = prod_setup(call, &p, &od);
    if (st != PC_OK)
        return st;
    if (!pc_dtype_is_float(od))
        return int_reduce(call, &p, od, true, out);
    pc_tensor buf = PC_TENSOR_NULL;
    if ((st = load_as(&p, od, &buf)) != PC_OK)
        return st;
    const double *v = pc_tensor_data(&buf);
    double *y = malloc((size_t)(p.outer > 0 ? p.outer : 1) * sizeof *y);
    if (!y) {
        pc_tensor_free(&buf);
        return pc_reduce_nomem(call);
    }
    for (int64_t o = 0; o < p.outer; o++) {
        double s = 1.0;
        for (int64_t k = 0; k < p.inner; k++)
            s *= v[o * p.inner + k];
        y[o] = s;
    }
    st = pc_shape_store(&out->tensors[0], od, p.out_shape, p.out_rank, y);
    free(y);
    pc_tensor_free(&buf);
    if (st == PC_OK)
        out->count = 1;
    return st;
}

/*
 * torch's prod_backward: without a zero anywhere in the input, dy * (result / x) (two tensor
 * operations in the output's dtype); otherwise, per slot, dy times the product of the other
 * elements (exclusive prefix and suffix products), which is what its prod_safe_zeros_backward
 * computes.
 */
pc_status pc_k_prod_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                             pc_op_grads *out)
{
    pc_reduce_plan p;
    pc_dtype od;
    pc_status st = prod_setup(call, &p, &od);
    if (st != PC_OK || !pc_shape_wants_grad(call, 0) || !pc_dtype_is_float(od))
        return st;
    if (p.x->rank == 0) { /* torch returns dy itself */
        pc_tensor g = PC_TENSOR_NULL;
        if ((st = pc_reduce_grad_load(call, &p, grad_out, &g)) == PC_OK) {
            double v = pc_round_to_dtype(*(const double *)pc_tensor_data(&g), od);
            st = pc_shape_store(&out->grads[0], p.x->dtype, NULL, 0, &v);
        }
        pc_tensor_free(&g);
        return st;
    }
    pc_op_result r = {0};
    pc_tensor g = PC_TENSOR_NULL, buf = PC_TENSOR_NULL, res = PC_TENSOR_NULL;
    st = pc_k_prod_forward(call, compute, &r);
    if (st == PC_OK)
        st = pc_tensor_cast(&res, &r.tensors[0], PC_DTYPE_F64);
    if (st == PC_OK)
        st = pc_reduce_grad_load(call, &p, grad_out, &g);
    if (st == PC_OK)
        st = load_as(&p, od, &buf);
    double *scratch = NULL;
    if (st == PC_OK && !(scratch = malloc((size_t)(p.inner > 0 ? p.inner : 1) * sizeof *scratch)))
        st = pc_reduce_nomem(call);
    if (st == PC_OK) {
        const double *gy = pc_tensor_data(&g), *y = pc_tensor_data(&res);
        double *v = pc_tensor_data(&buf);
        int64_t n = p.outer * p.inner;
        bool zero = false;
        for (int64_t i = 0; i < n && !zero; i++)
            zero = v[i] == 0.0;
        for (int64_t o = 0; o < p.outer; o++) {
            double dy = pc_round_to_dtype(gy[o], od), *row = v + o * p.inner;
            if (!zero) {
                for (int64_t k = 0; k < p.inner; k++) {
                    double q = pc_reduce_round(compute, od, y[o] / row[k]);
                    row[k] = dy * q;
                }
                continue;
            }
            double pre = 1.0;
            for (int64_t k = 0; k < p.inner; k++) {
                scratch[k] = pre;
                pre *= row[k];
            }
            double suf = 1.0;
            for (int64_t k = p.inner - 1; k >= 0; k--) {
                double xk = row[k];
                row[k] = dy * (scratch[k] * suf);
                suf *= xk;
            }
        }
        st = pc_reduce_unload(call, &p, v, p.x->dtype, &out->grads[0]);
    }
    free(scratch);
    pc_op_result_free(&r);
    pc_tensor_free(&g);
    pc_tensor_free(&buf);
    pc_tensor_free(&res);
    return st;
}

/* ---- var, std, var_mean, std_mean ---- */

/* (input, dim=None, unbiased=True, keepdim=False, *, correction=None) */
static pc_status var_setup(const pc_op_call *call, pc_reduce_plan *p, int64_t *correction)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    pc_status st = pc_reduce_real(call, x);
    if (st != PC_OK)
        return st;
    if (!pc_dtype_is_float(x->dtype))
        return pc_error_set(PC_ERR_INVALID, "%s: %s only support floating point and complex dtypes",
                            call->full_name,
                            call->op->param == PC_RD_VAR_MEAN   ? "var_mean"
                            : call->op->param == PC_RD_STD_MEAN ? "std_mean"
                                                                : "std and var");
    *correction = call->args[4].kind == PC_VALUE_INT ? call->args[4].i : call->args[2].b ? 1 : 0;
    return pc_reduce_plan_make(call, x, &call->args[1], call->args[3].b, p);
}

/*
 * Mean and variance of every slot as torch 1.13's CPU computes them: Welford's update in double
 * in index order (WelfordOps: delta = x - mean, mean += delta / n, m2 += delta * (x - mean),
 * the last a fused multiply-add in torch's build), var = m2 / max(N - correction, 0); for a
 * full reduction of float32/float64 by var/std (not the _mean forms) its std_var_all_cpu:
 * two passes, the mean being torch's mean op (the sum rounded to the dtype, divided by N) and
 * the squared deviations added in double. Both the device and the bench.
 */
static pc_status var_moments(const pc_op_call *call, const pc_reduce_plan *p, int64_t correction,
                             pc_tensor *buf, double *mean, double *var)
{
    pc_status st = pc_reduce_load(p, p->x, PC_DTYPE_F64, buf);
    if (st != PC_OK)
        return st;
    pc_dtype d = p->x->dtype;
    int kind = call->op->param;
    bool two_pass = p->outer == 1 && (d == PC_DTYPE_F32 || d == PC_DTYPE_F64) &&
                    (kind == PC_RD_VAR || kind == PC_RD_STD);
    const double *v = pc_tensor_data(buf);
    int64_t cols = 1;
    int kind_sum = sum_kind(p, d, &cols);
    double dof = (double)(p->inner > correction ? p->inner - correction : 0);
    for (int64_t o = 0; o < p->outer; o++) {
        const double *row = v + o * p->inner;
        if (p->inner == 0) {
            mean[o] = var[o] = (double)NAN;
            continue;
        }
        if (two_pass) {
            double s = pc_round_to_dtype(slot_sum(p, d, kind_sum, cols, o, row), d);
            double m = pc_round_to_dtype(s / (double)p->inner, d), m2 = 0.0;
            for (int64_t k = 0; k < p->inner; k++)
                m2 = fma(row[k] - m, row[k] - m, m2);
            mean[o] = m;
            var[o] = m2 / dof;
            continue;
        }
        double m = 0.0, m2 = 0.0;
        for (int64_t k = 0; k < p->inner; k++) {
            double delta = row[k] - m;
            m = m + delta / (double)(k + 1);
            m2 = fma(delta, row[k] - m, m2);
        }
        mean[o] = m;
        var[o] = m2 / dof;
    }
    return PC_OK;
}

pc_status pc_k_var_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    pc_reduce_plan p;
    int64_t corr;
    pc_status st = var_setup(call, &p, &corr);
    if (st != PC_OK)
        return st;
    int kind = call->op->param;
    bool root = kind == PC_RD_STD || kind == PC_RD_STD_MEAN;
    size_t n = (size_t)(p.outer > 0 ? p.outer : 1);
    double *mean = malloc(n * sizeof *mean), *var = malloc(n * sizeof *var);
    pc_tensor buf = PC_TENSOR_NULL;
    st = mean && var ? var_moments(call, &p, corr, &buf, mean, var) : pc_reduce_nomem(call);
    if (st == PC_OK) {
        if (root)
            for (int64_t o = 0; o < p.outer; o++)
                var[o] = sqrt(var[o]);
        st = pc_shape_store(&out->tensors[0], p.x->dtype, p.out_shape, p.out_rank, var);
    }
    if (st == PC_OK && (kind == PC_RD_VAR_MEAN || kind == PC_RD_STD_MEAN))
        st = pc_shape_store(&out->tensors[1], p.x->dtype, p.out_shape, p.out_rank, mean);
    if (st == PC_OK)
        out->count = kind == PC_RD_VAR || kind == PC_RD_STD ? 1 : 2;
    free(mean);
    free(var);
    pc_tensor_free(&buf);
    return st;
}

/*
 * torch's var_backward: (2 / (N - correction)) * dy * (x - x.mean(dim, keepdim=True)); std's
 * first turns dy into dy / (2 std), 0 where std is 0. The mean there is torch's mean op: the
 * sum rounded to the dtype, divided by N.
 */
pc_status pc_k_var_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                            pc_op_grads *out)
{
    pc_reduce_plan p;
    int64_t corr;
    pc_status st = var_setup(call, &p, &corr);
    if (st != PC_OK || !pc_shape_wants_grad(call, 0))
        return st;
    pc_dtype d = p.x->dtype;
    bool root = call->op->param == PC_RD_STD;
    size_t n = (size_t)(p.outer > 0 ? p.outer : 1);
    double *mean = malloc(n * sizeof *mean), *var = malloc(n * sizeof *var);
    pc_tensor buf = PC_TENSOR_NULL, g = PC_TENSOR_NULL;
    st = mean && var ? var_moments(call, &p, corr, &buf, mean, var) : pc_reduce_nomem(call);
    if (st == PC_OK)
        st = pc_reduce_grad_load(call, &p, grad_out, &g);
    if (st == PC_OK) {
        double *v = pc_tensor_data(&buf);
        const double *gy = pc_tensor_data(&g);
        int64_t cols = 1;
        pc_dtype sd = sum_dtype(compute, d);
        int kind = sum_kind(&p, sd, &cols);
        double scale = 2.0 / (double)(p.inner - corr);
        double scale_d = pc_reduce_round(compute, PC_DTYPE_F32, scale);
        if (compute == PC_COMPUTE_BENCH || d == PC_DTYPE_F64)
            scale_d = scale;
        for (int64_t o = 0; o < p.outer; o++) {
            double dy = pc_round_to_dtype(gy[o], d);
            if (root) {
                double s = pc_round_to_dtype(sqrt(var[o]), d);
                dy = s == 0.0 ? 0.0 : pc_reduce_round(compute, d, dy / (s * 2.0));
            }
            double sum = slot_sum(&p, sd, kind, cols, o, v + o * p.inner);
            double m =
                pc_reduce_round(compute, d, pc_reduce_round(compute, d, sum) / (double)p.inner);
            double a = pc_reduce_round(compute, d, scale_d * dy);
            for (int64_t k = 0; k < p.inner; k++) {
                double *e = &v[o * p.inner + k];
                *e = a * pc_reduce_round(compute, d, *e - m);
            }
        }
        st = pc_reduce_unload(call, &p, v, d, &out->grads[0]);
    }
    free(mean);
    free(var);
    pc_tensor_free(&buf);
    pc_tensor_free(&g);
    return st;
}

/* ---- logsumexp ---- */

/* (input, dim, keepdim): integers and bool are reduced as float32 (torch's default dtype). */
static pc_status lse_setup(const pc_op_call *call, pc_reduce_plan *p, pc_dtype *od)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    pc_status st = pc_reduce_real(call, x);
    if (st != PC_OK)
        return st;
    *od = pc_dtype_is_float(x->dtype) ? x->dtype : PC_DTYPE_F32;
    return pc_reduce_plan_make(call, x, &call->args[1], call->args[2].b, p);
}

/* torch's chain: m = amax (0 where infinite), r = log(sum(exp(x - m))) + m, each tensor op
 * rounded as pc_reduce_round does (the sum compensated, then rounded). */
static double lse_slot(pc_compute compute, pc_dtype d, const pc_reduce_plan *p, int kind,
                       int64_t cols, int64_t o, const double *row, int64_t n, double *scratch)
{
    if (n == 0)
        return -HUGE_VAL;
    double m = row[0];
    for (int64_t k = 0; k < n; k++)
        if (isnan(row[k]) || row[k] > m)
            m = row[k];
    if (isinf(m))
        m = 0.0;
    for (int64_t k = 0; k < n; k++)
        scratch[k] = pc_reduce_round(compute, d, exp(pc_reduce_round(compute, d, row[k] - m)));
    double s =
        pc_reduce_round(compute, d, slot_sum(p, sum_dtype(compute, d), kind, cols, o, scratch));
    return pc_reduce_round(compute, d, log(s)) + m;
}

static pc_status lse_values(const pc_op_call *call, pc_compute compute, const pc_reduce_plan *p,
                            pc_dtype od, pc_tensor *buf, double *y)
{
    pc_status st = load_as(p, od, buf);
    if (st != PC_OK)
        return st;
    double *scratch = malloc((size_t)(p->inner > 0 ? p->inner : 1) * sizeof *scratch);
    if (!scratch)
        return pc_reduce_nomem(call);
    const double *v = pc_tensor_data(buf);
    int64_t cols = 1;
    int kind = sum_kind(p, sum_dtype(compute, od), &cols);
    for (int64_t o = 0; o < p->outer; o++)
        y[o] = lse_slot(compute, od, p, kind, cols, o, v + o * p->inner, p->inner, scratch);
    free(scratch);
    return PC_OK;
}

pc_status pc_k_logsumexp_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    pc_reduce_plan p;
    pc_dtype od;
    pc_status st = lse_setup(call, &p, &od);
    if (st != PC_OK)
        return st;
    double *y = malloc((size_t)(p.outer > 0 ? p.outer : 1) * sizeof *y);
    pc_tensor buf = PC_TENSOR_NULL;
    st = y ? lse_values(call, compute, &p, od, &buf, y) : pc_reduce_nomem(call);
    if (st == PC_OK)
        st = pc_shape_store(&out->tensors[0], od, p.out_shape, p.out_rank, y);
    if (st == PC_OK)
        out->count = 1;
    free(y);
    pc_tensor_free(&buf);
    return st;
}

/* torch's logsumexp_backward: dy * exp(x - result). */
pc_status pc_k_logsumexp_backward(const pc_op_call *call, pc_compute compute,
                                  const pc_tensor *grad_out, pc_op_grads *out)
{
    pc_reduce_plan p;
    pc_dtype od;
    pc_status st = lse_setup(call, &p, &od);
    if (st != PC_OK || !pc_shape_wants_grad(call, 0))
        return st;
    double *y = malloc((size_t)(p.outer > 0 ? p.outer : 1) * sizeof *y);
    pc_tensor buf = PC_TENSOR_NULL, g = PC_TENSOR_NULL;
    st = y ? lse_values(call, compute, &p, od, &buf, y) : pc_reduce_nomem(call);
    if (st == PC_OK)
        st = pc_reduce_grad_load(call, &p, grad_out, &g);
    if (st == PC_OK) {
        double *v = pc_tensor_data(&buf);
        const double *gy = pc_tensor_data(&g);
        for (int64_t o = 0; o < p.outer; o++) {
            double r = pc_round_to_dtype(y[o], od), dy = pc_round_to_dtype(gy[o], od);
            for (int64_t k = 0; k < p.inner; k++) {
                double *e = &v[o * p.inner + k];
                double ex = pc_reduce_round(compute, od, exp(pc_reduce_round(compute, od, *e - r)));
                *e = dy * ex;
            }
        }
        st = pc_reduce_unload(call, &p, v, p.x->dtype, &out->grads[0]);
    }
    free(y);
    pc_tensor_free(&buf);
    pc_tensor_free(&g);
    return st;
}

/* ---- norm, normalize ---- */

static pc_status norm_need_float(const pc_op_call *call, const pc_tensor *x)
{
    pc_status st = pc_reduce_real(call, x);
    if (st == PC_OK && !pc_dtype_is_float(x->dtype))
        st = pc_error_set(PC_ERR_INVALID,
                          "%s: norm(): input dtype should be either floating point or complex. "
                          "Got %s instead.",
                          call->full_name, pc_torch_type_name(x->dtype));
    return st;
}

/* The p-norm of n values (step apart), in double. seq: as torch's float64 kernel (NormOps in
 * binary_kernel_reduce): the terms added one by one in index order, |x|^2 as a fused
 * multiply-add; otherwise the terms summed compensated (torch's float32 kernel adds vector
 * lanes, within an ULP of that). */
static double pnorm(const double *v, int64_t n, int64_t step, double pp, bool seq, double *scratch)
{
    if (pp == 0.0) {
        double c = 0.0;
        for (int64_t k = 0; k < n; k++)
            c += v[k * step] != 0.0;
        return c;
    }
    if (isinf(pp)) {
        double m = pp > 0 ? 0.0 : HUGE_VAL;
        if (n == 0)
            return m;
        for (int64_t k = 0; k < n; k++) {
            double a = fabs(v[k * step]);
            if (isnan(a))
                return a;
            if (pp > 0 ? a > m : a < m)
                m = a;
        }
        return m;
    }
    double s = 0.0;
    if (seq) {
        for (int64_t k = 0; k < n; k++) {
            double a = fabs(v[k * step]);
            s = pp == 1.0 ? s + a : pp == 2.0 ? fma(a, a, s) : s + pow(a, pp);
        }
    } else {
        for (int64_t k = 0; k < n; k++) {
            double a = fabs(v[k * step]);
            scratch[k] = pp == 1.0 ? a : pp == 2.0 ? a * a : pow(a, pp);
        }
        s = pc_reduce_sum(scratch, n, 1);
    }
    return pp == 1.0 ? s : pp == 2.0 ? sqrt(s) : pow(s, 1.0 / pp);
}

/*
 * torch's norm_backward for one slot: the gradient of x (n values, step apart) given the
 * slot's norm nv (in the dtype d) and its incoming gradient dy; written over v. Each tensor
 * operation is rounded as pc_reduce_round does.
 */
static void pnorm_grad(pc_compute compute, pc_dtype d, double *v, int64_t n, int64_t step,
                       double pp, double nv, double dy)
{
#define R(e) pc_reduce_round(compute, d, (e))
    if (pp == 1.0) {
        for (int64_t k = 0; k < n; k++)
            v[k * step] = sgn(v[k * step]) * dy;
    } else if (pp == 2.0) {
        for (int64_t k = 0; k < n; k++)
            v[k * step] = nv == 0.0 ? dy * 0.0 : dy * R(v[k * step] / nv);
    } else if (isinf(pp)) {
        double count = 0.0;
        for (int64_t k = 0; k < n; k++) {
            double a = fabs(v[k * step]);
            count += a == nv || isnan(a);
        }
        double t = R(dy / count);
        for (int64_t k = 0; k < n; k++) {
            double a = fabs(v[k * step]);
            bool m = a == nv || isnan(a);
            v[k * step] = sgn(v[k * step]) * (m ? t : 0.0);
        }
    } else if (pp < 1.0) {
        double sc = R(pow(nv, 1.0 - pp));
        for (int64_t k = 0; k < n; k++) {
            double x = v[k * step];
            double s = x == 0.0 ? 0.0 : sgn(x) * R(pow(fabs(x), pp - 1.0));
            v[k * step] = R(R(s * dy) * sc);
        }
    } else {
        double sc = nv == 0.0 ? 0.0 : R(dy / R(pow(nv, pp - 1.0)));
        for (int64_t k = 0; k < n; k++) {
            double x = v[k * step];
            double s =
                pp < 2.0 ? sgn(x) * R(pow(fabs(x), pp - 1.0)) : R(x * R(pow(fabs(x), pp - 2.0)));
            v[k * step] = s * sc;
        }
    }
#undef R
}

/* norm(input, p=2, dim=None, keepdim=False, *, dtype=None) */
static pc_status norm_setup(const pc_op_call *call, pc_reduce_plan *p, pc_dtype *od, double *pp)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    pc_status st = norm_need_float(call, x);
    if (st != PC_OK)
        return st;
    *od = dtype_arg(call, 4, x->dtype);
    if (!pc_dtype_is_float(*od) || *od == PC_DTYPE_F8E4M3FN || *od == PC_DTYPE_F8E5M2)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: norm to %s is not supported by precheck",
                            call->full_name, pc_dtype_torch_name(*od));
    *pp = call->args[1].kind == PC_VALUE_NONE ? 2.0 : call->args[1].f;
    return pc_reduce_plan_make(call, x, &call->args[2], call->args[3].b, p);
}

static pc_status norm_values(const pc_op_call *call, pc_compute compute, const pc_reduce_plan *p,
                             pc_dtype od, double pp, pc_tensor *buf, double *y)
{
    pc_status st = load_as(p, od, buf);
    if (st != PC_OK)
        return st;
    double *scratch = malloc((size_t)(p->inner > 0 ? p->inner : 1) * sizeof *scratch);
    if (!scratch)
        return pc_reduce_nomem(call);
    const double *v = pc_tensor_data(buf);
    for (int64_t o = 0; o < p->outer; o++)
        y[o] = pnorm(v + o * p->inner, p->inner, 1, pp, sum_dtype(compute, od) == PC_DTYPE_F64,
                     scratch);
    free(scratch);
    return PC_OK;
}

pc_status pc_k_norm_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    pc_reduce_plan p;
    pc_dtype od;
    double pp;
    pc_status st = norm_setup(call, &p, &od, &pp);
    if (st != PC_OK)
        return st;
    double *y = malloc((size_t)(p.outer > 0 ? p.outer : 1) * sizeof *y);
    pc_tensor buf = PC_TENSOR_NULL;
    st = y ? norm_values(call, compute, &p, od, pp, &buf, y) : pc_reduce_nomem(call);
    if (st == PC_OK)
        st = pc_shape_store(&out->tensors[0], od, p.out_shape, p.out_rank, y);
    if (st == PC_OK)
        out->count = 1;
    free(y);
    pc_tensor_free(&buf);
    return st;
}

pc_status pc_k_norm_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                             pc_op_grads *out)
{
    pc_reduce_plan p;
    pc_dtype od;
    double pp;
    pc_status st = norm_setup(call, &p, &od, &pp);
    /* p = 0: torch's norm_backward returns an undefined gradient (x.grad stays None) */
    if (st != PC_OK || !pc_shape_wants_grad(call, 0) || pp == 0.0)
        return st;
    double *y = malloc((size_t)(p.outer > 0 ? p.outer : 1) * sizeof *y);
    pc_tensor buf = PC_TENSOR_NULL, g = PC_TENSOR_NULL;
    st = y ? norm_values(call, compute, &p, od, pp, &buf, y) : pc_reduce_nomem(call);
    if (st == PC_OK)
        st = pc_reduce_grad_load(call, &p, grad_out, &g);
    if (st == PC_OK) {
        double *v = pc_tensor_data(&buf);
        const double *gy = pc_tensor_data(&g);
        for (int64_t o = 0; o < p.outer; o++)
            pnorm_grad(compute, od, v + o * p.inner, p.inner, 1, pp, pc_round_to_dtype(y[o], od),
                       pc_round_to_dtype(gy[o], od));
        st = pc_reduce_unload(call, &p, v, p.x->dtype, &out->grads[0]);
    }
    free(y);
    pc_tensor_free(&buf);
    pc_tensor_free(&g);
    return st;
}

/* normalize(input, p=2.0, dim=1, eps=1e-12, out=None): x / max(||x||_p, eps) along dim. */
static pc_status normalize_setup(const pc_op_call *call, pc_reduce_plan *p)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    pc_status st = norm_need_float(call, x);
    if (st != PC_OK)
        return st;
    if (pc_call_tensor(call, 4))
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: normalize with out= is not supported",
                            call->full_name);
    pc_value dim = {0};
    dim.kind = PC_VALUE_INT;
    dim.i = call->args[2].i;
    return pc_reduce_plan_make(call, x, &dim, true, p);
}

/* The denominator max(norm, eps) of every slot, in x's dtype as torch's ops round it. */
static pc_status normalize_denoms(const pc_op_call *call, pc_compute compute,
                                  const pc_reduce_plan *p, pc_tensor *buf, double *nrm, double *den)
{
    pc_dtype d = p->x->dtype;
    double pp = call->args[1].f, eps = call->args[3].f;
    pc_status st = norm_values(call, compute, p, d, pp, buf, nrm);
    if (st != PC_OK)
        return st;
    for (int64_t o = 0; o < p->outer; o++) {
        double n = pc_reduce_round(compute, d, nrm[o]);
        nrm[o] = n;
        den[o] = n < eps ? pc_reduce_round(compute, d, eps) : n;
    }
    return PC_OK;
}

pc_status pc_k_normalize_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    pc_reduce_plan p;
    pc_status st = normalize_setup(call, &p);
    if (st != PC_OK)
        return st;
    size_t n = (size_t)(p.outer > 0 ? p.outer : 1);
    double *nrm = malloc(n * sizeof *nrm), *den = malloc(n * sizeof *den);
    pc_tensor buf = PC_TENSOR_NULL;
    st = nrm && den ? normalize_denoms(call, compute, &p, &buf, nrm, den) : pc_reduce_nomem(call);
    if (st == PC_OK) {
        double *v = pc_tensor_data(&buf);
        for (int64_t o = 0; o < p.outer; o++)
            for (int64_t k = 0; k < p.inner; k++)
                v[o * p.inner + k] /= den[o];
        st = pc_reduce_unload(call, &p, v, p.x->dtype, &out->tensors[0]);
    }
    if (st == PC_OK)
        out->count = 1;
    free(nrm);
    free(den);
    pc_tensor_free(&buf);
    return st;
}

/*
 * The chain torch's autograd runs through input / norm(...).clamp_min(eps).expand_as(input),
 * each tensor operation rounded as pc_reduce_round does: the numerator's dy / d; the
 * denominator's -dy * ((x / d) / d) summed over the slot (compensated, rounded), passed by
 * clamp_min where norm >= eps, then norm's backward; the two added.
 */
pc_status pc_k_normalize_backward(const pc_op_call *call, pc_compute compute,
                                  const pc_tensor *grad_out, pc_op_grads *out)
{
    pc_reduce_plan p;
    pc_status st = normalize_setup(call, &p);
    if (st != PC_OK || !pc_shape_wants_grad(call, 0))
        return st;
    pc_dtype dt = p.x->dtype;
    int64_t xn = pc_tensor_numel(p.x);
    size_t n = (size_t)(p.outer > 0 ? p.outer : 1);
    double *nrm = malloc(n * sizeof *nrm), *den = malloc(n * sizeof *den);
    double *gn = malloc((size_t)(p.inner > 0 ? p.inner : 1) * sizeof *gn);
    pc_tensor buf = PC_TENSOR_NULL, g = PC_TENSOR_NULL;
    st = nrm && den && gn ? normalize_denoms(call, compute, &p, &buf, nrm, den)
                          : pc_reduce_nomem(call);
    if (st == PC_OK)
        st = pc_reduce_load(&p, grad_out, PC_DTYPE_F64, &g);
    if (st == PC_OK && pc_tensor_numel(&g) != xn)
        st = pc_error_set(PC_ERR_INVALID, "%s: the gradient has %lld elements, the input %lld",
                          call->full_name, (long long)pc_tensor_numel(&g), (long long)xn);
    if (st == PC_OK) {
#define R(e) pc_reduce_round(compute, dt, (e))
        double pp = call->args[1].f, eps = call->args[3].f;
        double *v = pc_tensor_data(&buf), *gy = pc_tensor_data(&g);
        int64_t cols = 1;
        int kind = sum_kind(&p, sum_dtype(compute, dt), &cols);
        for (int64_t i = 0; i < xn; i++)
            gy[i] = pc_round_to_dtype(gy[i], dt);
        for (int64_t o = 0; o < p.outer; o++) {
            double *row = v + o * p.inner, *dy = gy + o * p.inner, d = den[o];
            for (int64_t k = 0; k < p.inner; k++)
                gn[k] = R(-dy[k] * R(R(row[k] / d) / d));
            double gd = R(slot_sum(&p, sum_dtype(compute, dt), kind, cols, o, gn));
            if (!(nrm[o] >= eps))
                gd = 0.0;
            for (int64_t k = 0; k < p.inner; k++)
                gn[k] = row[k];
            pnorm_grad(compute, dt, gn, p.inner, 1, pp, nrm[o], gd);
            for (int64_t k = 0; k < p.inner; k++)
                row[k] = R(dy[k] / d) + R(gn[k]);
        }
#undef R
        st = pc_reduce_unload(call, &p, v, dt, &out->grads[0]);
    }
    free(nrm);
    free(den);
    free(gn);
    pc_tensor_free(&buf);
    pc_tensor_free(&g);
    return st;
}

/* ---- all, any ---- */

/* all/any(input, dim=None, keepdim=False): bool, uint8 for a uint8 input (torch 1.13). */
pc_status pc_k_all_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    const pc_tensor *x = pc_call_tensor(call, 0);
    pc_status st = pc_reduce_real(call, x);
    pc_reduce_plan p;
    bool whole = call->args[1].kind == PC_VALUE_NONE;
    if (st == PC_OK)
        st = pc_reduce_plan_make(call, x, &call->args[1], whole ? false : call->args[2].b, &p);
    if (st != PC_OK)
        return st;
    pc_tensor buf = PC_TENSOR_NULL;
    if ((st = pc_reduce_load(&p, x, PC_DTYPE_F64, &buf)) != PC_OK)
        return st;
    double *y = malloc((size_t)(p.outer > 0 ? p.outer : 1) * sizeof *y);
    if (!y) {
        pc_tensor_free(&buf);
        return pc_reduce_nomem(call);
    }
    bool all = call->op->param == PC_RD_ALL;
    const double *v = pc_tensor_data(&buf);
    for (int64_t o = 0; o < p.outer; o++) {
        bool r = all;
        for (int64_t k = 0; k < p.inner && r == all; k++)
            r = v[o * p.inner + k] != 0.0;
        y[o] = r ? 1.0 : 0.0;
    }
    st = pc_shape_store(&out->tensors[0], x->dtype == PC_DTYPE_U8 ? PC_DTYPE_U8 : PC_DTYPE_BOOL,
                        p.out_shape, p.out_rank, y);
    free(y);
    pc_tensor_free(&buf);
    if (st == PC_OK)
        out->count = 1;
    return st;
}

/* ---- _foreach_norm ---- */

/* _foreach_norm(tensors, ord=2): torch.linalg.vector_norm of every tensor of the list, each a
 * 0-dim tensor of its dtype. */
pc_status pc_k_foreach_norm_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    const pc_value *list = &call->args[0];
    double pp = call->args[1].f;
    for (int i = 0; i < list->tensors.count; i++) {
        const pc_tensor *t = &list->tensors.items[i];
        pc_status st = pc_reduce_real(call, t);
        if (st != PC_OK)
            return st;
        if (!pc_dtype_is_float(t->dtype))
            return pc_error_set(PC_ERR_INVALID,
                                "%s: linalg.vector_norm: Expected a floating point or complex "
                                "tensor as input. Got %s",
                                call->full_name, pc_torch_type_name(t->dtype));
    }
    for (int i = 0; i < list->tensors.count; i++) {
        const pc_tensor *t = &list->tensors.items[i];
        pc_tensor buf = PC_TENSOR_NULL;
        pc_status st = pc_tensor_cast(&buf, t, PC_DTYPE_F64);
        if (st == PC_OK && !pc_tensor_is_contiguous(&buf)) {
            pc_tensor c = PC_TENSOR_NULL;
            st = pc_tensor_contiguous(&c, &buf);
            pc_tensor_free(&buf);
            buf = c;
        }
        int64_t n = pc_tensor_numel(t);
        double *scratch = st == PC_OK ? malloc((size_t)(n > 0 ? n : 1) * sizeof *scratch) : NULL;
        if (st == PC_OK && !scratch)
            st = pc_reduce_nomem(call);
        if (st == PC_OK) {
            double v = pnorm(pc_tensor_data(&buf), n, 1, pp,
                             sum_dtype(compute, t->dtype) == PC_DTYPE_F64, scratch);
            st = pc_shape_store(&out->tensors[i], t->dtype, NULL, 0, &v);
        }
        free(scratch);
        pc_tensor_free(&buf);
        if (st != PC_OK) {
            for (int k = 0; k < i; k++)
                pc_tensor_free(&out->tensors[k]);
            return st;
        }
    }
    out->count = list->tensors.count;
    return PC_OK;
}
