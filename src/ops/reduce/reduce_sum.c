/*
 * Reductions: sum, mean, amax/amin, max/min, argmax/argmin, forward and backward; and
 * torch.norm's str p ('fro', 'nuc') in front of the reduction group's norm.
 *
 * Every reduction reads its input once, permuted so that the kept dimensions come first and
 * the reduced ones last: each output element then reduces one contiguous run of the buffer.
 * float32 and float64 sums of a contiguous input whose reduced dimensions form one block add in
 * torch 1.13's CPU order (the reduction group's pc_reduce_torch_sums; the bench's in float64's
 * order), every step rounded as torch rounds it; other sums (float16/bfloat16, reduced
 * dimensions in several blocks, strided inputs) are taken in double with Neumaier's
 * compensation and rounded once to the output dtype (within an ULP of torch's where the terms
 * do not cancel); integer sums are exact in int64 and wrap like torch's. mean is torch 1.13's CPU
 * formula: the sum rounded to the output dtype, then divided by the count (in float opmath on
 * the device). The extremes are exact in every compute type: values are compared, never
 * computed; NaN wins, and the first index among ties is the one reported, as torch's CPU does.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/core/convert.h"
#include "ops/kernel.h"
#include "ops/reduce/reduce_impl.h"

/* Plans are the reduction group's (pc_reduce_plan, reduce_impl.h): kept dimensions first. */

/* x's values in the plan's order, contiguous, as dtype (float64 or int64: exact for every
 * real dtype). */
static pc_status red_load(const pc_reduce_plan *p, pc_dtype as, pc_tensor *buf)
{
    return pc_reduce_load(p, p->x, as, buf);
}

/* Offsets into the output (keepdim layout) of every element of x, in x's row-major order. */
static int64_t *red_out_offsets(const pc_reduce_plan *p)
{
    int64_t keep[PC_TENSOR_MAX_DIMS], str[PC_TENSOR_MAX_DIMS];
    for (int d = 0; d < p->x->rank; d++)
        keep[d] = p->reduced[d] ? 1 : p->x->shape[d];
    pc_shape_contiguous_strides(keep, p->x->rank, str);
    for (int d = 0; d < p->x->rank; d++)
        if (p->reduced[d])
            str[d] = 0;
    return pc_shape_offsets(p->x->shape, str, p->x->rank, 0, pc_tensor_numel(p->x));
}

/* A division in the device's opmath (float for the half types and float32), rounded to d. */
static double div_round(pc_compute compute, pc_dtype d, double a, double b)
{
    if (compute == PC_COMPUTE_BENCH || d == PC_DTYPE_F64)
        return pc_round_to_dtype(a / b, d);
    return pc_round_to_dtype((double)((float)a / (float)b), d);
}

static pc_status no_complex(const pc_op_call *call, const pc_tensor *x)
{
    if (pc_dtype_is_complex(x->dtype) || x->dtype == PC_DTYPE_F8E4M3FN ||
        x->dtype == PC_DTYPE_F8E5M2)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: %s of %s is not supported by precheck",
                            call->full_name, call->op->name, pc_dtype_torch_name(x->dtype));
    return PC_OK;
}

/* ---- sum, mean ---- */

static pc_status reduce_dtype(const pc_op_call *call, const pc_tensor *x, pc_dtype *od)
{
    pc_status st = no_complex(call, x);
    if (st != PC_OK)
        return st;
    const pc_value *dt = &call->args[3];
    bool given = dt->kind == PC_VALUE_DTYPE;
    if (call->op->param == PC_REDUCE_SUM) {
        *od = given ? dt->dtype : (pc_dtype_is_float(x->dtype) ? x->dtype : PC_DTYPE_I64);
    } else {
        *od = given ? dt->dtype : x->dtype;
        if (!pc_dtype_is_float(*od))
            return pc_error_set(PC_ERR_INVALID,
                                "%s: mean(): could not infer output dtype. %s dtype must be "
                                "either a floating point or complex dtype. Got: %s",
                                call->full_name, given ? "Optional" : "Input",
                                pc_torch_type_name(*od));
    }
    if (pc_dtype_is_complex(*od) || *od == PC_DTYPE_F8E4M3FN || *od == PC_DTYPE_F8E5M2)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: %s to %s is not supported by precheck",
                            call->full_name, call->op->name, pc_dtype_torch_name(*od));
    return PC_OK;
}

static double sum_compensated(const double *v, int64_t n)
{
    double s = 0.0, c = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double t = s + v[i];
        if (fabs(s) >= fabs(v[i]))
            c += (s - t) + v[i];
        else
            c += (v[i] - t) + s;
        s = t;
    }
    return isfinite(s) ? s + c : s;
}

/* y[o]: the sums of the slots of v (plan order) in dtype d: torch's order where
 * pc_reduce_torch_sums knows it (the bench sums in float64), else compensated; not rounded. */
static void slot_sums(const pc_reduce_plan *p, pc_compute compute, pc_dtype d, const double *v,
                      double *y)
{
    if (pc_reduce_torch_sums(p, compute == PC_COMPUTE_BENCH ? PC_DTYPE_F64 : d, v, y))
        return;
    for (int64_t o = 0; o < p->outer; o++)
        y[o] = sum_compensated(v + o * p->inner, p->inner);
}

pc_status pc_k_reduce_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    pc_dtype od;
    pc_reduce_plan p;
    pc_status st = reduce_dtype(call, x, &od);
    if (st == PC_OK)
        st = pc_reduce_plan_make(call, x, &call->args[1], call->args[2].b, &p);
    if (st != PC_OK)
        return st;
    bool mean = call->op->param == PC_REDUCE_MEAN;
    pc_tensor buf = PC_TENSOR_NULL;
    if (!pc_dtype_is_float(od)) { /* exact, wrapping like torch's int64 */
        pc_tensor cast = PC_TENSOR_NULL;
        if ((st = pc_tensor_cast(&cast, x, od)) == PC_OK) {
            pc_reduce_plan q = p;
            q.x = &cast;
            st = red_load(&q, PC_DTYPE_I64, &buf);
        }
        pc_tensor_free(&cast);
        if (st == PC_OK)
            st = pc_tensor_alloc(&out->tensors[0], PC_DTYPE_I64, p.out_shape, p.out_rank);
        if (st == PC_OK) {
            const int64_t *v = pc_tensor_data(&buf);
            int64_t *y = pc_tensor_data(&out->tensors[0]);
            for (int64_t o = 0; o < p.outer; o++) {
                uint64_t s = 0;
                for (int64_t k = 0; k < p.inner; k++)
                    s += (uint64_t)v[o * p.inner + k];
                y[o] = (int64_t)s;
            }
            if (od != PC_DTYPE_I64) {
                st = pc_tensor_cast(&out->tensors[0], &out->tensors[0], od);
            }
        }
        pc_tensor_free(&buf);
        if (st == PC_OK)
            out->count = 1;
        return st;
    }
    if ((st = red_load(&p, PC_DTYPE_F64, &buf)) != PC_OK)
        return st;
    double *v = pc_tensor_data(&buf);
    /* torch casts the input to dtype= first */
    if (od != x->dtype)
        for (int64_t i = 0; i < p.outer * p.inner; i++)
            v[i] = pc_round_to_dtype(v[i], od);
    double *y = malloc((size_t)(p.outer > 0 ? p.outer : 1) * sizeof *y);
    if (!y) {
        pc_tensor_free(&buf);
        return pc_error_set(PC_ERR_NOMEM, "%s: out of memory", call->full_name);
    }
    slot_sums(&p, compute, od, v, y);
    for (int64_t o = 0; o < p.outer; o++) {
        double s = y[o];
        if (!mean)
            y[o] = pc_round_to_dtype(s, od);
        else if (compute == PC_COMPUTE_BENCH)
            y[o] = pc_round_to_dtype(s / (double)p.inner, od);
        else
            y[o] = div_round(compute, od, pc_round_to_dtype(s, od), (double)p.inner);
    }
    st = pc_shape_store(&out->tensors[0], od, p.out_shape, p.out_rank, y);
    free(y);
    pc_tensor_free(&buf);
    if (st == PC_OK)
        out->count = 1;
    return st;
}

pc_status pc_k_reduce_backward(const pc_op_call *call, pc_compute compute,
                               const pc_tensor *grad_out, pc_op_grads *out)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    pc_dtype od;
    pc_reduce_plan p;
    pc_status st = reduce_dtype(call, x, &od);
    if (st == PC_OK)
        st = pc_reduce_plan_make(call, x, &call->args[1], call->args[2].b, &p);
    if (st != PC_OK || !pc_shape_wants_grad(call, 0) || !pc_dtype_is_float(od))
        return st;
    if (pc_tensor_numel(grad_out) != p.outer)
        return pc_error_set(PC_ERR_INVALID, "%s: the gradient has %lld elements, the output %lld",
                            call->full_name, (long long)pc_tensor_numel(grad_out),
                            (long long)p.outer);
    pc_tensor g = PC_TENSOR_NULL;
    if ((st = pc_tensor_cast(&g, grad_out, PC_DTYPE_F64)) != PC_OK)
        return st;
    int64_t xn = pc_tensor_numel(x);
    double *gx = malloc((size_t)(xn > 0 ? xn : 1) * sizeof *gx);
    double *go = pc_tensor_data(&g);
    int64_t *offs = red_out_offsets(&p);
    if (!gx || !offs) {
        st = pc_error_set(PC_ERR_NOMEM, "%s: out of memory", call->full_name);
    } else {
        /* the gradient in the output's dtype; mean divides it there by the count */
        for (int64_t o = 0; o < p.outer; o++) {
            go[o] = pc_round_to_dtype(go[o], od);
            if (call->op->param == PC_REDUCE_MEAN)
                go[o] = div_round(compute, od, go[o], (double)p.inner);
        }
        for (int64_t i = 0; i < xn; i++)
            gx[i] = go[offs[i]];
        st = pc_shape_store(&out->grads[0], x->dtype, x->shape, x->rank, gx);
    }
    free(gx);
    free(offs);
    pc_tensor_free(&g);
    return st;
}

/* ---- extremes ---- */

/* Index of the maximum (or minimum) of v[0..n): NaN wins, the first among ties. */
static int64_t extreme_f64(const double *v, int64_t n, bool max)
{
    int64_t best = 0;
    if (isnan(v[0]))
        return 0;
    for (int64_t k = 1; k < n; k++) {
        if (isnan(v[k]))
            return k;
        if (max ? v[k] > v[best] : v[k] < v[best])
            best = k;
    }
    return best;
}

static int64_t extreme_i64(const int64_t *v, int64_t n, bool max)
{
    int64_t best = 0;
    for (int64_t k = 1; k < n; k++)
        if (max ? v[k] > v[best] : v[k] < v[best])
            best = k;
    return best;
}

static pc_status empty_dim_check(const pc_op_call *call, const pc_reduce_plan *p, const char *name)
{
    for (int d = 0; d < p->x->rank; d++)
        if (p->reduced[d] && p->x->shape[d] == 0)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: %s(): Expected reduction dim %d to have non-zero size.",
                                call->full_name, name, d);
    return PC_OK;
}

/* For every output slot: the index (in the reduced run) of its extreme. values (may be NULL)
 * gets the tensor of the extremes in x's dtype. */
static pc_status extremes(const pc_op_call *call, const pc_reduce_plan *p, bool max, int64_t *index,
                          pc_tensor *values)
{
    const pc_tensor *x = p->x;
    bool fl = pc_dtype_is_float(x->dtype);
    pc_tensor buf = PC_TENSOR_NULL;
    pc_status st = red_load(p, fl ? PC_DTYPE_F64 : PC_DTYPE_I64, &buf);
    if (st != PC_OK)
        return st;
    for (int64_t o = 0; o < p->outer; o++)
        index[o] =
            fl ? extreme_f64((const double *)pc_tensor_data(&buf) + o * p->inner, p->inner, max)
               : extreme_i64((const int64_t *)pc_tensor_data(&buf) + o * p->inner, p->inner, max);
    if (values) {
        pc_tensor v = PC_TENSOR_NULL;
        st = pc_tensor_alloc(&v, buf.dtype, p->out_shape, p->out_rank);
        if (st == PC_OK) {
            char *dst = pc_tensor_data(&v);
            const char *src = pc_tensor_data(&buf);
            for (int64_t o = 0; o < p->outer; o++)
                memcpy(dst + o * 8, src + (o * p->inner + index[o]) * 8, 8);
            st = pc_tensor_cast(values, &v, x->dtype); /* exact: the values are x's */
        }
        pc_tensor_free(&v);
    }
    pc_tensor_free(&buf);
    (void)call;
    return st;
}

/* dy split evenly among the elements equal to their slot's extreme (all the NaNs when it is
 * NaN, for max/min; none for amax/amin, as torch's == has it), in the output's dtype. */
static pc_status extreme_grad(const pc_op_call *call, pc_compute compute, const pc_reduce_plan *p,
                              const pc_tensor *values, bool nan_ties, const pc_tensor *grad_out,
                              pc_op_grads *out)
{
    const pc_tensor *x = p->x;
    int64_t xn = pc_tensor_numel(x);
    if (pc_tensor_numel(grad_out) != p->outer)
        return pc_error_set(PC_ERR_INVALID, "%s: the gradient has %lld elements, the output %lld",
                            call->full_name, (long long)pc_tensor_numel(grad_out),
                            (long long)p->outer);
    pc_tensor xv = PC_TENSOR_NULL, vv = PC_TENSOR_NULL, g = PC_TENSOR_NULL;
    pc_status st = pc_tensor_cast(&xv, x, PC_DTYPE_F64);
    if (st == PC_OK)
        st = pc_tensor_cast(&vv, values, PC_DTYPE_F64);
    if (st == PC_OK)
        st = pc_tensor_cast(&g, grad_out, PC_DTYPE_F64);
    int64_t *offs = st == PC_OK ? red_out_offsets(p) : NULL;
    int64_t *count = calloc((size_t)(p->outer > 0 ? p->outer : 1), sizeof *count);
    double *gx = calloc((size_t)(xn > 0 ? xn : 1), sizeof *gx);
    if (st == PC_OK && (!offs || !count || !gx))
        st = pc_error_set(PC_ERR_NOMEM, "%s: out of memory", call->full_name);
    if (st == PC_OK) {
        const double *xs = pc_tensor_data(&xv), *vs = pc_tensor_data(&vv);
        double *gs = pc_tensor_data(&g);
        for (int64_t i = 0; i < xn; i++) {
            double m = vs[offs[i]];
            if (xs[i] == m || (nan_ties && isnan(m) && isnan(xs[i])))
                count[offs[i]]++;
        }
        for (int64_t o = 0; o < p->outer; o++)
            gs[o] =
                div_round(compute, x->dtype, pc_round_to_dtype(gs[o], x->dtype), (double)count[o]);
        for (int64_t i = 0; i < xn; i++) {
            double m = vs[offs[i]];
            if (xs[i] == m || (nan_ties && isnan(m) && isnan(xs[i])))
                gx[i] = gs[offs[i]];
        }
        st = pc_shape_store(&out->grads[0], x->dtype, x->shape, x->rank, gx);
    }
    free(offs);
    free(count);
    free(gx);
    pc_tensor_free(&xv);
    pc_tensor_free(&vv);
    pc_tensor_free(&g);
    return st;
}

/* max/min: (input, dim=None, keepdim=False). */
pc_status pc_k_extreme_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    const pc_tensor *x = pc_call_tensor(call, 0);
    bool max = call->op->param == PC_EXTREME_MAX;
    const pc_value *dim = &call->args[1];
    pc_status st = no_complex(call, x);
    if (st != PC_OK)
        return st;
    bool all = dim->kind == PC_VALUE_NONE;
    if (all && pc_tensor_numel(x) == 0)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: %s(): Expected reduction dim to be specified for input.numel() "
                            "== 0. Specify the reduction dim with the 'dim' argument.",
                            call->full_name, call->op->name);
    pc_reduce_plan p;
    if ((st = pc_reduce_plan_make(call, x, dim, all ? false : call->args[2].b, &p)) != PC_OK ||
        (st = empty_dim_check(call, &p, call->op->name)) != PC_OK)
        return st;
    int64_t *index = malloc((size_t)(p.outer > 0 ? p.outer : 1) * sizeof *index);
    if (!index)
        return pc_error_set(PC_ERR_NOMEM, "%s: out of memory", call->full_name);
    st = extremes(call, &p, max, index, &out->tensors[0]);
    if (st == PC_OK && !all) {
        st = pc_tensor_alloc(&out->tensors[1], PC_DTYPE_I64, p.out_shape, p.out_rank);
        if (st == PC_OK)
            memcpy(pc_tensor_data(&out->tensors[1]), index, (size_t)p.outer * sizeof *index);
    }
    free(index);
    if (st == PC_OK)
        out->count = all ? 1 : 2;
    return st;
}

pc_status pc_k_extreme_backward(const pc_op_call *call, pc_compute compute,
                                const pc_tensor *grad_out, pc_op_grads *out)
{
    if (call->args[1].kind != PC_VALUE_NONE)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: Multiple backward is not supported.",
                            call->full_name);
    const pc_tensor *x = pc_call_tensor(call, 0);
    if (!pc_shape_wants_grad(call, 0))
        return PC_OK;
    pc_op_result r = {0};
    pc_status st = pc_k_extreme_forward(call, compute, &r);
    pc_reduce_plan p;
    if (st == PC_OK)
        st = pc_reduce_plan_make(call, x, &call->args[1], false, &p);
    if (st == PC_OK)
        st = extreme_grad(call, compute, &p, &r.tensors[0], true, grad_out, out);
    pc_op_result_free(&r);
    return st;
}

/* amax/amin: (input, dim=[], keepdim=False). */
static pc_status amax_plan(const pc_op_call *call, pc_reduce_plan *p)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    pc_status st = no_complex(call, x);
    if (st == PC_OK)
        st = pc_reduce_plan_make(call, x, &call->args[1], call->args[2].b, p);
    if (st == PC_OK)
        st = empty_dim_check(call, p, call->op->name);
    return st;
}

pc_status pc_k_amax_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    pc_reduce_plan p;
    pc_status st = amax_plan(call, &p);
    if (st != PC_OK)
        return st;
    int64_t *index = malloc((size_t)(p.outer > 0 ? p.outer : 1) * sizeof *index);
    if (!index)
        return pc_error_set(PC_ERR_NOMEM, "%s: out of memory", call->full_name);
    st = extremes(call, &p, call->op->param == PC_EXTREME_MAX, index, &out->tensors[0]);
    free(index);
    if (st == PC_OK)
        out->count = 1;
    return st;
}

pc_status pc_k_amax_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                             pc_op_grads *out)
{
    pc_reduce_plan p;
    pc_status st = amax_plan(call, &p);
    if (st != PC_OK || !pc_shape_wants_grad(call, 0))
        return st;
    pc_op_result r = {0};
    st = pc_k_amax_forward(call, compute, &r);
    if (st == PC_OK)
        st = extreme_grad(call, compute, &p, &r.tensors[0], false, grad_out, out);
    pc_op_result_free(&r);
    return st;
}

/* argmax/argmin: (input, dim=None, keepdim=False). */
pc_status pc_k_argmax_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    const pc_tensor *x = pc_call_tensor(call, 0);
    bool max = call->op->param == PC_EXTREME_MAX;
    pc_status st = no_complex(call, x);
    if (st != PC_OK)
        return st;
    if (x->dtype == PC_DTYPE_BOOL)
        return pc_error_set(PC_ERR_INVALID, "%s: \"%s_cpu\" not implemented for 'Bool'",
                            call->full_name, call->op->name);
    const pc_value *dim = &call->args[1];
    if (dim->kind == PC_VALUE_NONE && pc_tensor_numel(x) == 0)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: %s(): Expected reduction dim to be specified for input.numel() "
                            "== 0.",
                            call->full_name, call->op->name);
    pc_reduce_plan p;
    if ((st = pc_reduce_plan_make(call, x, dim, call->args[2].b, &p)) != PC_OK ||
        (st = empty_dim_check(call, &p, call->op->name)) != PC_OK)
        return st;
    if ((st = pc_tensor_alloc(&out->tensors[0], PC_DTYPE_I64, p.out_shape, p.out_rank)) != PC_OK)
        return st;
    st = extremes(call, &p, max, pc_tensor_data(&out->tensors[0]), NULL);
    if (st != PC_OK) {
        pc_tensor_free(&out->tensors[0]);
        return st;
    }
    out->count = 1;
    return PC_OK;
}

/* ---- norm with a str p (torch.norm's Python layer) ---- */

/*
 * norm(input, p='fro', dim=None, keepdim=False, *, dtype=None): torch 1.13's torch.norm turns
 * p='fro' into frobenius_norm(input, dim) (dtype= is refused first), which is norm(input, 2, dim)
 * for no dim or one and sqrt(sum(input * input, dim)) for two; 'nuc' is the nuclear norm (an
 * SVD), which precheck does not have. *ndims: -1 when p is a number (the reduction group's
 * kernels run the call as it is), else the number of dims (0 for None).
 */
static pc_status norm_str_kind(const pc_op_call *call, int *ndims)
{
    const pc_value *pv = &call->args[1], *dim = &call->args[2];
    *ndims = -1;
    if (pv->kind != PC_VALUE_STR)
        return PC_OK;
    bool has_dtype = call->args[4].kind == PC_VALUE_DTYPE;
    if (strcmp(pv->s, "fro") == 0) {
        if (has_dtype)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: dtype argument is not supported in frobenius norm",
                                call->full_name);
        *ndims = dim->kind == PC_VALUE_INT ? 1 : dim->kind == PC_VALUE_INT_LIST ? dim->nints : 0;
        if (*ndims > 2)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Expected at most 2 dimensions, but got %d dimensions instead.",
                                call->full_name, *ndims);
        return PC_OK;
    }
    if (strcmp(pv->s, "nuc") == 0) {
        if (has_dtype)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: dtype argument is not supported in nuclear norm",
                                call->full_name);
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "%s: norm with p='nuc' (the nuclear norm, a sum of singular values) "
                            "is not supported by precheck",
                            call->full_name);
    }
    return pc_error_set(PC_ERR_INVALID,
                        "%s: only valid string values are 'fro' and 'nuc', found %s",
                        call->full_name, pv->s);
}

/* A borrowed copy of call with p = 2 (it owns nothing: never freed as a call); NULL when out of
 * memory. */
static pc_op_call *norm2_call(const pc_op_call *call)
{
    pc_op_call *c = malloc(sizeof *c);
    if (!c)
        return NULL;
    *c = *call;
    c->args[1] =
        (pc_value){.kind = PC_VALUE_INT, .i = 2, .f = 2.0, .src_pos = call->args[1].src_pos};
    return c;
}

/* The plan of frobenius_norm over two dims, with torch's checks in its order. */
static pc_status fro2_plan(const pc_op_call *call, pc_reduce_plan *p)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    const pc_value *dim = &call->args[2];
    pc_status st = pc_reduce_real(call, x);
    if (st != PC_OK)
        return st;
    int d0, d1;
    if ((st = pc_shape_wrap_dim(call, dim->ints[0], x->rank, &d0)) != PC_OK ||
        (st = pc_shape_wrap_dim(call, dim->ints[1], x->rank, &d1)) != PC_OK)
        return st;
    if (d0 == d1)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: Expected dims to be different, got [%lld, %lld] "
                            "instead",
                            call->full_name, (long long)dim->ints[0], (long long)dim->ints[1]);
    /* torch squares and sums an integer tensor, then fails an internal assert on the result */
    if (!pc_dtype_is_float(x->dtype))
        return pc_error_set(PC_ERR_INVALID,
                            "%s: frobenius_norm over two dims of a %s tensor: torch 1.13 fails "
                            "(result.scalar_type() == toRealValueType(self.scalar_type()) "
                            "INTERNAL ASSERT FAILED)",
                            call->full_name, pc_torch_type_name(x->dtype));
    return pc_reduce_plan_make(call, x, dim, call->args[3].b, p);
}

/* sqrt(sum(x * x, dims)) of every slot, each op rounded to x's dtype d as torch's (in float
 * opmath for the half types); *buf keeps x's values (plan order). */
static pc_status fro2_values(const pc_op_call *call, pc_compute compute, const pc_reduce_plan *p,
                             pc_tensor *buf, double *y)
{
    pc_dtype d = p->x->dtype;
    pc_status st = pc_reduce_load(p, p->x, PC_DTYPE_F64, buf);
    if (st != PC_OK)
        return st;
    int64_t n = p->outer * p->inner;
    double *sq = malloc((size_t)(n > 0 ? n : 1) * sizeof *sq);
    if (!sq)
        return pc_reduce_nomem(call);
    const double *v = pc_tensor_data(buf);
    for (int64_t i = 0; i < n; i++)
        sq[i] = pc_reduce_round(compute, d, v[i] * v[i]);
    slot_sums(p, compute, d, sq, y);
    for (int64_t o = 0; o < p->outer; o++)
        y[o] = pc_reduce_round(compute, d, sqrt(pc_reduce_round(compute, d, y[o])));
    free(sq);
    return PC_OK;
}

pc_status pc_k_norm_str_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    int nd;
    pc_status st = norm_str_kind(call, &nd);
    if (st != PC_OK)
        return st;
    if (nd < 0)
        return pc_k_norm_forward(call, compute, out);
    if (nd < 2) {
        pc_op_call *c = norm2_call(call);
        st = c ? pc_k_norm_forward(c, compute, out) : pc_reduce_nomem(call);
        free(c);
        return st;
    }
    pc_reduce_plan p;
    if ((st = fro2_plan(call, &p)) != PC_OK)
        return st;
    double *y = malloc((size_t)(p.outer > 0 ? p.outer : 1) * sizeof *y);
    pc_tensor buf = PC_TENSOR_NULL;
    st = y ? fro2_values(call, compute, &p, &buf, y) : pc_reduce_nomem(call);
    if (st == PC_OK)
        st = pc_shape_store(&out->tensors[0], p.x->dtype, p.out_shape, p.out_rank, y);
    if (st == PC_OK)
        out->count = 1;
    free(y);
    pc_tensor_free(&buf);
    return st;
}

/* Over two dims, torch's autograd through sqrt, sum and x * x: t = dy / (2 y), then x's
 * gradient t x from each factor of the product, added (2 t x); each op rounded to x's dtype. */
pc_status pc_k_norm_str_backward(const pc_op_call *call, pc_compute compute,
                                 const pc_tensor *grad_out, pc_op_grads *out)
{
    int nd;
    pc_status st = norm_str_kind(call, &nd);
    if (st != PC_OK)
        return st;
    if (nd < 0)
        return pc_k_norm_backward(call, compute, grad_out, out);
    if (nd < 2) {
        pc_op_call *c = norm2_call(call);
        st = c ? pc_k_norm_backward(c, compute, grad_out, out) : pc_reduce_nomem(call);
        free(c);
        return st;
    }
    pc_reduce_plan p;
    if ((st = fro2_plan(call, &p)) != PC_OK || !pc_shape_wants_grad(call, 0))
        return st;
    pc_dtype d = p.x->dtype;
    double *y = malloc((size_t)(p.outer > 0 ? p.outer : 1) * sizeof *y);
    pc_tensor buf = PC_TENSOR_NULL, g = PC_TENSOR_NULL;
    st = y ? fro2_values(call, compute, &p, &buf, y) : pc_reduce_nomem(call);
    if (st == PC_OK)
        st = pc_reduce_grad_load(call, &p, grad_out, &g);
    if (st == PC_OK) {
        double *v = pc_tensor_data(&buf);
        const double *gy = pc_tensor_data(&g);
        for (int64_t o = 0; o < p.outer; o++) {
            double t =
                pc_reduce_round(compute, d, pc_reduce_round(compute, d, gy[o]) / (2.0 * y[o]));
            for (int64_t k = 0; k < p.inner; k++) {
                double *e = &v[o * p.inner + k];
                *e = 2.0 * pc_reduce_round(compute, d, t * *e);
            }
        }
        st = pc_reduce_unload(call, &p, v, d, &out->grads[0]);
    }
    free(y);
    pc_tensor_free(&buf);
    pc_tensor_free(&g);
    return st;
}
