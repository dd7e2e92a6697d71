/*
 * cumsum and cumprod (and their in-place forms), forward and backward.
 *
 * torch 1.13's CPU scan (cpu_cum_base_kernel) walks the dimension in order with an accumulator
 * of at::acc_type<T, false>: double for float32 and float64, float for float16 and bfloat16,
 * int64 for the integers, and rounds every partial result to the output dtype. The device does
 * exactly that, so it gives torch's bits; the bench accumulates in double. Integers and bool
 * give int64 (wrapping as torch's) unless dtype= says otherwise; dtype= casts the input first.
 *
 * Backward (derivatives.yaml): dy is cast to the input's dtype; cumsum's gradient is the
 * reversed cumulative sum of dy (the same scan, from the end); cumprod's is, without a zero in
 * the input, reversed_cumsum(y * dy) / x (each a tensor operation in the dtype), and with
 * zeros the exact per-slot formula (before the first zero of a slot the same sums, at the first
 * zero the sum over the following elements up to the second zero of dy_j times the product of
 * the others, after it 0), in double, rounded once.
 */
#include <math.h>
#include <stdlib.h>

#include "precheck/core/convert.h"
#include "ops/kernel.h"
#include "ops/reduce/reduce_impl.h"

/* (input, dim, *, dtype): the plan puts dim last; od is the output dtype. */
static pc_status scan_setup(const pc_op_call *call, pc_reduce_plan *p, pc_dtype *od)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    pc_status st = pc_reduce_real(call, x);
    if (st != PC_OK)
        return st;
    *od = call->args[2].kind == PC_VALUE_DTYPE ? call->args[2].dtype
          : pc_dtype_is_float(x->dtype)        ? x->dtype
                                               : PC_DTYPE_I64;
    if (pc_dtype_is_complex(*od) || *od == PC_DTYPE_F8E4M3FN || *od == PC_DTYPE_F8E5M2)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: %s to %s is not supported by precheck",
                            call->full_name, call->op->name, pc_dtype_torch_name(*od));
    return pc_reduce_plan_make(call, x, &call->args[1], true, p);
}

/* One scan of n values in place: partial sums (or products) in the accumulator type of dtype d
 * on the device (float for the half types, double otherwise), each result rounded to d; the
 * bench keeps double. reverse: from the end. */
static void scan_row(pc_compute compute, pc_dtype d, bool prod, bool reverse, double *v, int64_t n)
{
    bool f32_acc = compute == PC_COMPUTE_DEVICE && (d == PC_DTYPE_F16 || d == PC_DTYPE_BF16);
    double acc = prod ? 1.0 : 0.0;
    for (int64_t j = 0; j < n; j++) {
        double *e = &v[reverse ? n - 1 - j : j];
        acc = prod ? acc * *e : acc + *e;
        if (f32_acc)
            acc = (double)(float)acc;
        *e = pc_round_to_dtype(acc, d);
    }
}

pc_status pc_k_scan_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    pc_reduce_plan p;
    pc_dtype od;
    pc_status st = scan_setup(call, &p, &od);
    if (st != PC_OK)
        return st;
    bool prod = call->op->param == PC_RD_CUMPROD;
    pc_dtype store = call->form == PC_FORM_INPLACE ? p.x->dtype : od;
    if (!pc_dtype_is_float(od)) {
        pc_tensor cast = PC_TENSOR_NULL, buf = PC_TENSOR_NULL, res = PC_TENSOR_NULL;
        st = pc_tensor_cast(&cast, p.x, od);
        if (st == PC_OK)
            st = pc_reduce_load(&p, &cast, PC_DTYPE_I64, &buf);
        if (st == PC_OK) {
            /* exact int64 scans, wrapping as torch's */
            int64_t *v = pc_tensor_data(&buf);
            for (int64_t o = 0; o < p.outer; o++) {
                uint64_t acc = prod ? 1u : 0u;
                for (int64_t k = 0; k < p.inner; k++) {
                    int64_t *e = &v[o * p.inner + k];
                    acc = prod ? acc * (uint64_t)*e : acc + (uint64_t)*e;
                    *e = (int64_t)acc;
                }
            }
            /* back to x's layout through a permuted view of the int64 buffer */
            int inv[PC_TENSOR_MAX_DIMS];
            for (int k = 0; k < p.x->rank; k++)
                inv[p.perm[k]] = k;
            pc_tensor pv = PC_TENSOR_NULL;
            st = pc_tensor_permute(&pv, &buf, p.x->rank ? inv : NULL);
            if (st == PC_OK)
                st = pc_tensor_cast(&res, &pv, store);
            pc_tensor_free(&pv);
            if (st == PC_OK && !pc_tensor_is_contiguous(&res))
                st = pc_tensor_contiguous(&out->tensors[0], &res);
            else if (st == PC_OK) {
                out->tensors[0] = res;
                res = PC_TENSOR_NULL;
            }
        }
        pc_tensor_free(&cast);
        pc_tensor_free(&buf);
        pc_tensor_free(&res);
        if (st == PC_OK)
            out->count = 1;
        return st;
    }
    pc_tensor buf = PC_TENSOR_NULL;
    if ((st = pc_reduce_load(&p, p.x, PC_DTYPE_F64, &buf)) != PC_OK)
        return st;
    double *v = pc_tensor_data(&buf);
    if (od != p.x->dtype)
        for (int64_t i = 0; i < p.outer * p.inner; i++)
            v[i] = pc_round_to_dtype(v[i], od);
    for (int64_t o = 0; o < p.outer; o++)
        scan_row(compute, od, prod, false, v + o * p.inner, p.inner);
    st = pc_reduce_unload(call, &p, v, store, &out->tensors[0]);
    pc_tensor_free(&buf);
    if (st == PC_OK)
        out->count = 1;
    return st;
}

/* cumprod's gradient of one slot with zeros, exactly (x, y = cumprod(x), dy -> g over x). */
static void cumprod_grad_zeros(const double *x, const double *dy, double *g, int64_t n)
{
    int64_t z = 0;
    while (z < n && x[z] != 0.0)
        z++;
    /* before the first zero: sum_{j=k}^{z-1} dy_j y_j / x_k (y the prefix products, nonzero
     * there) */
    double pre = 1.0, s = 0.0;
    for (int64_t k = 0; k < z; k++) {
        pre *= x[k];
        g[k] = dy[k] * pre;
    }
    for (int64_t k = z - 1; k >= 0; k--) {
        s += g[k];
        g[k] = s / x[k];
    }
    if (z == n)
        return;
    /* at the first zero: sum_{j>=z} dy_j prod_{i<=j, i!=z} x_i (0 from the next zero on) */
    s = 0.0;
    for (int64_t j = z; j < n; j++) {
        if (j > z)
            pre *= x[j];
        s += dy[j] * pre;
    }
    g[z] = s;
    for (int64_t k = z + 1; k < n; k++)
        g[k] = 0.0;
}

pc_status pc_k_scan_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                             pc_op_grads *out)
{
    pc_reduce_plan p;
    pc_dtype od;
    pc_status st = scan_setup(call, &p, &od);
    if (st != PC_OK || !pc_shape_wants_grad(call, 0) || !pc_dtype_is_float(od))
        return st;
    pc_dtype d = p.x->dtype;
    bool prod = call->op->param == PC_RD_CUMPROD;
    int64_t n = p.outer * p.inner;
    pc_tensor g = PC_TENSOR_NULL, xb = PC_TENSOR_NULL;
    st = pc_reduce_load(&p, grad_out, PC_DTYPE_F64, &g);
    if (st == PC_OK && pc_tensor_numel(&g) != n)
        st = pc_error_set(PC_ERR_INVALID, "%s: the gradient has %lld elements, the input %lld",
                          call->full_name, (long long)pc_tensor_numel(&g), (long long)n);
    if (st == PC_OK && prod)
        st = pc_reduce_load(&p, p.x, PC_DTYPE_F64, &xb);
    if (st != PC_OK) {
        pc_tensor_free(&g);
        return st;
    }
    double *gy = pc_tensor_data(&g);
    for (int64_t i = 0; i < n; i++)
        gy[i] = pc_round_to_dtype(gy[i], d);
    /* torch: a single element (or a dimension of 1) passes dy through */
    if (!prod || n <= 1 || p.inner == 1) {
        if (n > 1 && p.inner > 1)
            for (int64_t o = 0; o < p.outer; o++)
                scan_row(compute, d, false, true, gy + o * p.inner, p.inner);
        st = pc_reduce_unload(call, &p, gy, d, &out->grads[0]);
        pc_tensor_free(&g);
        pc_tensor_free(&xb);
        return st;
    }
    double *x = pc_tensor_data(&xb);
    double *y = malloc((size_t)n * sizeof *y);
    if (!y) {
        pc_tensor_free(&g);
        pc_tensor_free(&xb);
        return pc_reduce_nomem(call);
    }
    /* the forward's y in od (x cast to od first), as autograd saved it */
    for (int64_t i = 0; i < n; i++)
        y[i] = od == d ? x[i] : pc_round_to_dtype(x[i], od);
    for (int64_t o = 0; o < p.outer; o++)
        scan_row(compute, od, true, false, y + o * p.inner, p.inner);
    bool zero = false;
    for (int64_t i = 0; i < n && !zero; i++)
        zero = x[i] == 0.0;
    if (!zero) {
        for (int64_t i = 0; i < n; i++)
            y[i] = pc_reduce_round(compute, d, y[i] * gy[i]);
        for (int64_t o = 0; o < p.outer; o++)
            scan_row(compute, d, false, true, y + o * p.inner, p.inner);
        for (int64_t i = 0; i < n; i++)
            y[i] = y[i] / x[i];
    } else {
        for (int64_t o = 0; o < p.outer; o++)
            cumprod_grad_zeros(x + o * p.inner, gy + o * p.inner, y + o * p.inner, p.inner);
    }
    st = pc_reduce_unload(call, &p, y, d, &out->grads[0]);
    free(y);
    pc_tensor_free(&g);
    pc_tensor_free(&xb);
    return st;
}
