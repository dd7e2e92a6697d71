/*
 * equal, allclose, isclose: comparisons of two whole tensors.
 *
 * torch.equal and Tensor.allclose return a Python bool; precheck returns it as a 0-dim bool
 * tensor (the op table has tensors only), whose schema says "-> bool" so that the runner can
 * tell it from a tensor result. isclose is torch 1.13's formula, each step a tensor operation
 * in the operands' dtype (float opmath on the device, rounded to the dtype; double on the
 * bench):
 *   close = a == b  (| isnan(a) & isnan(b) with equal_nan)
 *   close |= isfinite(|a - b|) & |a - b| <= atol + |rtol * b|   (unless rtol = atol = 0)
 * Integer operands take |a - b| in their own dtype and the tolerance in float32 (rtol * b
 * promotes to the default dtype); bool operands are converted to float32 first, as torch does.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/core/convert.h"
#include "ops/kernel.h"
#include "ops/reduce/reduce_impl.h"

/* (input, other[, rtol, atol, equal_nan]) */
pc_status pc_k_close_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    const pc_tensor *a = pc_call_tensor(call, 0), *b = pc_call_tensor(call, 1);
    int kind = call->op->param;
    pc_status st = pc_reduce_real(call, a);
    if (st == PC_OK)
        st = pc_reduce_real(call, b);
    if (st != PC_OK)
        return st;
    if (kind == PC_RD_EQUAL && (a->rank != b->rank || !pc_tensor_same_shape(a, b))) {
        if ((st = pc_tensor_alloc(&out->tensors[0], PC_DTYPE_BOOL, NULL, 0)) == PC_OK)
            out->count = 1;
        return st;
    }
    double rtol = 0, atol = 0;
    bool equal_nan = false;
    if (kind != PC_RD_EQUAL) {
        if (a->dtype != b->dtype)
            return pc_error_set(PC_ERR_INVALID, "%s: %s did not match %s", call->full_name,
                                pc_torch_type_name(a->dtype), pc_torch_type_name(b->dtype));
        rtol = call->args[2].f;
        atol = call->args[3].f;
        equal_nan = call->args[4].b;
        if (!(rtol >= 0))
            return pc_error_set(PC_ERR_INVALID,
                                "%s: rtol must be greater than or equal to zero, but got %.17g",
                                call->full_name, rtol);
        if (!(atol >= 0))
            return pc_error_set(PC_ERR_INVALID,
                                "%s: atol must be greater than or equal to zero, but got %.17g",
                                call->full_name, atol);
    }
    int64_t shape[PC_TENSOR_MAX_DIMS];
    int rank;
    if ((st = pc_broadcast_shapes(a->shape, a->rank, b->shape, b->rank, shape, &rank)) != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    pc_tensor ea = PC_TENSOR_NULL, eb = PC_TENSOR_NULL, fa = PC_TENSOR_NULL, fb = PC_TENSOR_NULL;
    pc_tensor ia = PC_TENSOR_NULL, ib = PC_TENSOR_NULL;
    st = pc_tensor_expand(&ea, a, shape, rank);
    if (st == PC_OK)
        st = pc_tensor_expand(&eb, b, shape, rank);
    if (st == PC_OK)
        st = pc_tensor_cast(&fa, &ea, PC_DTYPE_F64);
    if (st == PC_OK)
        st = pc_tensor_cast(&fb, &eb, PC_DTYPE_F64);
    bool ints = !pc_dtype_is_float(a->dtype) && !pc_dtype_is_float(b->dtype) &&
                a->dtype != PC_DTYPE_BOOL && b->dtype != PC_DTYPE_BOOL;
    if (st == PC_OK && ints)
        st = pc_tensor_cast(&ia, &ea, PC_DTYPE_I64);
    if (st == PC_OK && ints)
        st = pc_tensor_cast(&ib, &eb, PC_DTYPE_I64);
    pc_tensor r = PC_TENSOR_NULL;
    if (st == PC_OK)
        st = pc_tensor_alloc(&r, PC_DTYPE_BOOL, shape, rank);
    if (st == PC_OK) {
        int64_t n = pc_tensor_numel(&r);
        const double *x = pc_tensor_data(&fa), *y = pc_tensor_data(&fb);
        const int64_t *xi = ints ? pc_tensor_data(&ia) : NULL,
                      *yi = ints ? pc_tensor_data(&ib) : NULL;
        unsigned char *c = pc_tensor_data(&r);
        /* the dtype the tolerance is computed in: bool and integers in float32 */
        pc_dtype d = pc_dtype_is_float(a->dtype) ? a->dtype : PC_DTYPE_F32;
        pc_compute cm = pc_dtype_is_float(a->dtype) ? compute : PC_COMPUTE_DEVICE;
        bool wide = cm == PC_COMPUTE_BENCH || d == PC_DTYPE_F64;
        double rt = wide ? rtol : (double)(float)rtol, at = wide ? atol : (double)(float)atol;
        for (int64_t i = 0; i < n; i++) {
            bool close = ints ? xi[i] == yi[i] : x[i] == y[i];
            if (equal_nan && isnan(x[i]) && isnan(y[i]))
                close = true;
            if (!close && kind != PC_RD_EQUAL && (rtol != 0 || atol != 0)) {
                double allowed =
                    pc_reduce_round(cm, d, fabs(pc_reduce_round(cm, d, rt * y[i])) + at);
                double actual;
                if (ints)
                    actual = (double)(float)(double)llabs((long long)(xi[i] - yi[i]));
                else
                    actual = fabs(pc_reduce_round(cm, d, x[i] - y[i]));
                close = isfinite(actual) && actual <= allowed;
            }
            c[i] = close ? 1 : 0;
        }
        if (kind != PC_RD_ISCLOSE) {
            bool all = true;
            for (int64_t i = 0; i < n && all; i++)
                all = c[i];
            pc_tensor_free(&r);
            st = pc_tensor_alloc(&r, PC_DTYPE_BOOL, NULL, 0);
            if (st == PC_OK)
                *(unsigned char *)pc_tensor_data(&r) = all ? 1 : 0;
        }
    }
    if (st == PC_OK) {
        out->tensors[0] = r;
        out->count = 1;
    } else {
        pc_tensor_free(&r);
    }
    pc_tensor_free(&ea);
    pc_tensor_free(&eb);
    pc_tensor_free(&fa);
    pc_tensor_free(&fb);
    pc_tensor_free(&ia);
    pc_tensor_free(&ib);
    return st;
}
