/*
 * masked_select and masked_scatter (forward and backward), nonzero and argwhere (forward).
 *
 * The masked ops broadcast self and the mask together (the in-place masked_scatter_ broadcasts
 * the mask to self) and walk the broadcast shape in row-major order: masked_select takes the
 * selected elements in that order, masked_scatter fills them from the source's first elements.
 * Gradients are torch's: masked_select's is the gradient scattered back into zeros (summed
 * over the broadcast dims of self); masked_scatter's is the gradient with the selected places
 * zeroed for self and the selected gradient values (zero-padded to the source's size) for the
 * source. msprobe runs no backward of masked_select (docs/msprobe-contract.md#replay).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/index/index_impl.h"
#include "ops/kernel.h"
#include "precheck/core/convert.h"

/* The broadcast mask and self as contiguous copies, the mask as bytes 0/1. */
typedef struct mask_plan {
    const pc_tensor *x, *mask;
    int rank;
    int64_t shape[PC_TENSOR_MAX_DIMS];
    int64_t n, count; /* elements of the broadcast shape, selected ones */
    pc_tensor m;      /* bool, broadcast, contiguous */
} mask_plan;

static void mask_plan_free(mask_plan *p)
{
    pc_tensor_free(&p->m);
}

static pc_status mask_plan_make(const pc_op_call *call, const char *name, bool inplace,
                                mask_plan *p)
{
    memset(p, 0, sizeof *p);
    p->m = PC_TENSOR_NULL;
    p->x = pc_call_tensor(call, 0);
    p->mask = pc_call_tensor(call, 1);
    if (p->mask->dtype != PC_DTYPE_BOOL && p->mask->dtype != PC_DTYPE_U8) {
        if (strcmp(name, "masked_select") == 0)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: masked_select: expected BoolTensor or ByteTensor for mask",
                                call->full_name);
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "%s: %s with a mask of dtype %s is not supported by precheck (torch "
                            "takes bool or uint8 masks)",
                            call->full_name, name, pc_torch_type_name(p->mask->dtype));
    }
    /* torch broadcasts (mask, self): its message names the mask "a" */
    pc_status st = pc_broadcast_shapes(p->mask->shape, p->mask->rank, p->x->shape, p->x->rank,
                                       p->shape, &p->rank);
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    if (inplace) {
        bool same = p->rank == p->x->rank;
        for (int d = 0; same && d < p->rank; d++)
            same = p->shape[d] == p->x->shape[d];
        if (!same) {
            char a[PC_SHAPE_FORMAT_MAX], b[PC_SHAPE_FORMAT_MAX];
            pc_shape_format(a, sizeof a, p->x->shape, p->x->rank);
            pc_shape_format(b, sizeof b, p->mask->shape, p->mask->rank);
            return pc_error_set(PC_ERR_INVALID,
                                "%s: %s_: the mask of shape %s does not broadcast to self's "
                                "shape %s",
                                call->full_name, name, b, a);
        }
    }
    pc_tensor v = PC_TENSOR_NULL;
    if ((st = pc_tensor_expand(&v, p->mask, p->shape, p->rank)) == PC_OK)
        st = pc_tensor_cast(&p->m, &v, PC_DTYPE_BOOL);
    pc_tensor_free(&v);
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    p->n = pc_tensor_numel(&p->m);
    const uint8_t *mv = pc_tensor_data(&p->m);
    for (int64_t i = 0; i < p->n; i++)
        p->count += mv[i] != 0;
    return PC_OK;
}

/* self broadcast to the plan's shape, contiguous */
static pc_status expand_self(const pc_op_call *call, const mask_plan *p, pc_tensor *out)
{
    pc_tensor v = PC_TENSOR_NULL;
    pc_status st = pc_tensor_expand(&v, p->x, p->shape, p->rank);
    if (st == PC_OK)
        st = pc_tensor_cast(out, &v, p->x->dtype);
    pc_tensor_free(&v);
    return st == PC_OK ? st : pc_error_prefix(st, "%s", call->full_name);
}

pc_status pc_k_masked_select_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    mask_plan p;
    pc_status st = mask_plan_make(call, "masked_select", false, &p);
    if (st != PC_OK)
        return st;
    pc_tensor xc = PC_TENSOR_NULL, y = PC_TENSOR_NULL;
    if ((st = expand_self(call, &p, &xc)) == PC_OK &&
        (st = pc_tensor_alloc(&y, p.x->dtype, &p.count, 1)) == PC_OK) {
        size_t sz = pc_dtype_size(p.x->dtype);
        const uint8_t *mv = pc_tensor_data(&p.m);
        const char *src = pc_tensor_data(&xc);
        char *dst = pc_tensor_data(&y);
        for (int64_t i = 0, w = 0; i < p.n; i++)
            if (mv[i])
                memcpy(dst + (size_t)(w++) * sz, src + (size_t)i * sz, sz);
        out->tensors[0] = y;
        out->count = 1;
    }
    pc_tensor_free(&xc);
    mask_plan_free(&p);
    return st;
}

pc_status pc_k_masked_select_backward(const pc_op_call *call, pc_compute compute,
                                      const pc_tensor *grad_out, pc_op_grads *out)
{
    mask_plan p;
    pc_status st = mask_plan_make(call, "masked_select", false, &p);
    if (st != PC_OK || !pc_shape_wants_grad(call, 0)) {
        mask_plan_free(&p);
        return st;
    }
    pc_tensor g = PC_TENSOR_NULL, buf = PC_TENSOR_NULL;
    if ((st = pc_idx_grad(call, grad_out, p.x->dtype, &g)) == PC_OK &&
        (st = pc_tensor_alloc(&buf, PC_DTYPE_F64, p.shape, p.rank)) == PC_OK) {
        const uint8_t *mv = pc_tensor_data(&p.m);
        const double *gv = pc_tensor_data(&g);
        double *bv = pc_tensor_data(&buf);
        for (int64_t i = 0, r = 0; i < p.n; i++)
            if (mv[i])
                bv[i] = gv[r++];
        st = pc_idx_sum_to(call, compute, &buf, p.x->shape, p.x->rank, p.x->dtype, &out->grads[0]);
    }
    pc_tensor_free(&g);
    pc_tensor_free(&buf);
    mask_plan_free(&p);
    return st;
}

static pc_status scatter_plan_make(const pc_op_call *call, mask_plan *p)
{
    pc_status st = mask_plan_make(call, "masked_scatter", call->form == PC_FORM_INPLACE, p);
    if (st != PC_OK)
        return st;
    const pc_tensor *src = pc_call_tensor(call, 2);
    if (src->dtype != p->x->dtype)
        st = pc_error_set(PC_ERR_INVALID,
                          "%s: masked_scatter: expected self and source to have same dtypes but "
                          "got%s and %s",
                          call->full_name, pc_torch_type_name(p->x->dtype),
                          pc_torch_type_name(src->dtype));
    else if (pc_tensor_numel(src) < p->count)
        st = pc_error_set(PC_ERR_INVALID,
                          "%s: Number of elements of source < number of ones in "
                          "mask",
                          call->full_name);
    if (st != PC_OK)
        mask_plan_free(p);
    return st;
}

pc_status pc_k_masked_scatter_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    mask_plan p;
    pc_status st = scatter_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    pc_tensor y = PC_TENSOR_NULL, sc = PC_TENSOR_NULL;
    if ((st = expand_self(call, &p, &y)) == PC_OK &&
        (st = pc_tensor_contiguous(&sc, pc_call_tensor(call, 2))) == PC_OK) {
        size_t sz = pc_dtype_size(p.x->dtype);
        const uint8_t *mv = pc_tensor_data(&p.m);
        const char *src = pc_tensor_data(&sc);
        char *dst = pc_tensor_data(&y);
        for (int64_t i = 0, r = 0; i < p.n; i++)
            if (mv[i])
                memcpy(dst + (size_t)i * sz, src + (size_t)(r++) * sz, sz);
        out->tensors[0] = y;
        out->count = 1;
        y = PC_TENSOR_NULL;
    }
    pc_tensor_free(&y);
    pc_tensor_free(&sc);
    mask_plan_free(&p);
    return st;
}

pc_status pc_k_masked_scatter_backward(const pc_op_call *call, pc_compute compute,
                                       const pc_tensor *grad_out, pc_op_grads *out)
{
    mask_plan p;
    pc_status st = scatter_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    const pc_tensor *src = pc_call_tensor(call, 2);
    pc_tensor g = PC_TENSOR_NULL;
    st = pc_idx_grad(call, grad_out, p.x->dtype, &g);
    double *gv = st == PC_OK ? pc_tensor_data(&g) : NULL;
    const uint8_t *mv = pc_tensor_data(&p.m);
    if (st == PC_OK && pc_shape_wants_grad(call, 2)) {
        int64_t ns = pc_tensor_numel(src);
        double *v = calloc((size_t)(ns > 0 ? ns : 1), sizeof *v);
        if (!v) {
            st = pc_idx_nomem(call);
        } else {
            for (int64_t i = 0, r = 0; i < p.n; i++)
                if (mv[i])
                    v[r++] = gv[i];
            st = pc_idx_store(call, src->dtype, src->shape, src->rank, v, &out->grads[2]);
            free(v);
        }
    }
    if (st == PC_OK && pc_shape_wants_grad(call, 0)) {
        for (int64_t i = 0; i < p.n; i++)
            if (mv[i])
                gv[i] = 0;
        st = pc_idx_sum_to(call, compute, &g, p.x->shape, p.x->rank, p.x->dtype, &out->grads[0]);
    }
    pc_tensor_free(&g);
    mask_plan_free(&p);
    return st;
}

/* ---- nonzero, argwhere ---- */

static bool element_nonzero(const char *p, pc_dtype dtype)
{
    if (pc_dtype_is_float(dtype) || pc_dtype_is_complex(dtype)) {
        double re = 0, im = 0;
        pc_element_load(p, dtype, &re, &im);
        return re != 0 || im != 0 || re != re;
    }
    return pc_element_load_i64(p, dtype) != 0;
}

pc_status pc_k_nonzero_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    const pc_tensor *x = pc_call_tensor(call, 0);
    bool tuple = call->op->param == PC_IDX_WHERE_COND ||
                 (call->op->param == PC_IDX_NONZERO && call->args[1].kind == PC_VALUE_BOOL &&
                  call->args[1].b);
    pc_tensor xc = PC_TENSOR_NULL;
    pc_status st = pc_tensor_contiguous(&xc, x);
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    int64_t n = pc_tensor_numel(&xc), count = 0;
    size_t sz = pc_dtype_size(x->dtype);
    const char *xv = pc_tensor_data(&xc);
    for (int64_t i = 0; i < n; i++)
        count += element_nonzero(xv + (size_t)i * sz, x->dtype);
    int r = x->rank;
    int nout = tuple ? (r > 0 ? r : 1) : 1;
    if (nout > PC_OP_MAX_OUTPUTS) {
        pc_tensor_free(&xc);
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: too many outputs", call->full_name);
    }
    for (int k = 0; k < nout && st == PC_OK; k++) {
        int64_t shape2[2] = {count, r};
        st = tuple ? pc_tensor_alloc(&out->tensors[k], PC_DTYPE_I64, &count, 1)
                   : pc_tensor_alloc(&out->tensors[k], PC_DTYPE_I64, shape2, 2);
        if (st == PC_OK)
            out->count = k + 1;
    }
    if (st == PC_OK) {
        /* coordinates of the nonzero elements in row-major order (0-dim: none, or with
         * as_tuple one zero per element) */
        int64_t idx[PC_TENSOR_MAX_DIMS] = {0}, w = 0;
        for (int64_t i = 0; i < n; i++) {
            if (element_nonzero(xv + (size_t)i * sz, x->dtype)) {
                for (int d = 0; d < r; d++) {
                    int64_t *dst = tuple ? (int64_t *)pc_tensor_data(&out->tensors[d]) + w
                                         : (int64_t *)pc_tensor_data(&out->tensors[0]) + w * r + d;
                    *dst = idx[d];
                }
                w++;
            }
            for (int d = r - 1; d >= 0; d--) {
                if (++idx[d] < x->shape[d])
                    break;
                idx[d] = 0;
            }
        }
    } else {
        st = pc_error_prefix(st, "%s", call->full_name);
    }
    pc_tensor_free(&xc);
    return st;
}
