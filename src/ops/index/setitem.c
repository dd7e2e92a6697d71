/*
 * Tensor.__setitem__ (x[index] = value), forward and backward. The result is the modified copy
 * of x: torch's __setitem__ returns None (msprobe dumps its output as null), so the modified
 * self is the only thing a replay can compare.
 *
 * Where the value goes is what x[index] reads: getitem.c's plan (Tensor.__getitem__) run on a
 * tensor of x's shape holding the offsets 0, 1, 2, ... gives, per element of x[index], the
 * offset it reads, i.e. the element that the assignment writes. The index is read as torch
 * reads it, without msprobe's special cases of a lone tensor (those are __getitem__'s,
 * docs/msprobe-contract.md#replay). The value (a tensor, or a number converted to x's dtype) loses
 * its leading size-1 dims and broadcasts to the shape of x[index]; the writes go in that shape's
 * row-major order, so with repeated indices the last one wins (torch's serial CPU index_put_).
 * torch's two paths keep their own rules and messages: basic indexing (ints, slices, None,
 * ellipsis) copies into a view and converts a value tensor of another dtype; advanced indexing
 * (tensors, bools) is index_put_, which wants the value tensor in x's dtype.
 *
 * Backward (torch's): x's gradient is the incoming one with the written places zeroed; the
 * value's is the incoming gradient read at the written places, summed over the broadcast.
 *
 * index_put(x, indices, values, accumulate) is the same assignment through index_put_: the
 * indices are a tuple of tensors (torch 1.13's Python binding refuses None in it), the values
 * keep their shape, and with accumulate=True they add up in order (x's gradient is then the
 * incoming one).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/index/index_impl.h"
#include "ops/kernel.h"
#include "precheck/core/convert.h"

/* Whether torch takes the index_put_ path: a tensor index (other than a 0-dim integer one,
 * which selects) or a Python bool. */
static bool advanced_index(const pc_value *v)
{
    for (int k = 0; k < v->index.count; k++) {
        const pc_index_item *it = &v->index.items[k];
        if (it->kind == PC_INDEX_BOOL)
            return true;
        if (it->kind != PC_INDEX_TENSOR)
            continue;
        const pc_tensor *t = &v->tensors.items[it->i];
        if (t->rank > 0 || t->dtype == PC_DTYPE_BOOL || t->dtype == PC_DTYPE_U8)
            return true;
    }
    return false;
}

/* x[False] = value: torch returns at once, whatever the value. */
static bool assigns_nothing(const pc_value *v)
{
    return !v->index.lone_tensor && v->index.count == 1 &&
           v->index.items[0].kind == PC_INDEX_BOOL && v->index.items[0].i == 0;
}

/* *offs: for each element of x[index] (its shape in *offs), the offset into x written there.
 * put: index_put's indices (tensors only: torch 1.13's Python binding refuses None). */
static pc_status setitem_offsets(const pc_op_call *call, pc_compute compute, bool put,
                                 pc_tensor *offs)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    const pc_value *iv0 = &call->args[1];
    for (int k = 0; k < iv0->index.count; k++) {
        const pc_index_item *it = &iv0->index.items[k];
        if (put && it->kind == PC_INDEX_NONE) /* torch 1.13's binding of Tensor?[] */
            return pc_error_set(PC_ERR_INVALID,
                                "%s: expected Tensor as element %d in argument %d, but got "
                                "NoneType",
                                call->full_name, k, strncmp(call->full_name, "Tensor.", 7) ? 1 : 0);
        if (it->kind != PC_INDEX_TENSOR)
            continue;
        /* torch 1.13's CPU index_put_ takes int64, uint8 and bool indices; a 0-dim integer
         * tensor of __setitem__ selects, as an int */
        const pc_tensor *t = &iv0->tensors.items[it->i];
        bool selects = !put && t->rank == 0 && pc_dtype_is_integral(t->dtype);
        if (!selects && t->dtype != PC_DTYPE_I64 && t->dtype != PC_DTYPE_U8 &&
            t->dtype != PC_DTYPE_BOOL)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: tensors used as indices must be long, byte or bool tensors",
                                call->full_name);
    }
    pc_tensor ids = PC_TENSOR_NULL;
    pc_status st = pc_tensor_alloc(&ids, PC_DTYPE_I64, x->shape, x->rank);
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    int64_t *iv = pc_tensor_data(&ids);
    for (int64_t i = 0, n = pc_tensor_numel(&ids); i < n; i++)
        iv[i] = i;
    pc_op_call *c = malloc(sizeof *c);
    if (!c) {
        pc_tensor_free(&ids);
        return pc_idx_nomem(call);
    }
    /* a borrowed copy of the call (it owns nothing: never freed as a call) */
    *c = *call;
    c->args[0].tensor = ids;
    c->args[0].wrapped = false;
    c->args[1].index.lone_tensor = false;

    pc_op_result r = {0};
    st = pc_k_index_forward(c, compute, &r);
    free(c);
    pc_tensor_free(&ids);
    if (st != PC_OK) {
        pc_op_result_free(&r);
        return st;
    }
    *offs = r.tensors[0];
    return PC_OK;
}

/* The value's shape without its leading size-1 dims (torch's slicePrefix1sSize). */
static int strip_ones(const pc_tensor *v, int64_t *shape)
{
    int first = 0;
    while (first < v->rank && v->shape[first] == 1)
        first++;
    memcpy(shape, v->shape + first, sizeof(int64_t) * (size_t)(v->rank - first));
    return v->rank - first;
}

static pc_status broadcast_check(const pc_op_call *call, bool advanced, const int64_t *vs, int vr,
                                 const pc_tensor *target)
{
    char a[PC_SHAPE_FORMAT_MAX], b[PC_SHAPE_FORMAT_MAX];
    pc_shape_format(a, sizeof a, vs, vr);
    pc_shape_format(b, sizeof b, target->shape, target->rank);
    bool ok = vr <= target->rank;
    int bad = -1;
    for (int k = 1; ok && k <= vr; k++)
        if (vs[vr - k] != 1 && vs[vr - k] != target->shape[target->rank - k]) {
            ok = false;
            bad = target->rank - k;
        }
    if (ok)
        return PC_OK;
    if (advanced)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: shape mismatch: value tensor of shape %s cannot be broadcast to "
                            "indexing result of shape %s",
                            call->full_name, a, b);
    if (bad < 0)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: expand(torch.%sTensor{%s}, size=%s): the number of sizes provided "
                            "(%d) must be greater or equal to the number of dimensions in the "
                            "tensor (%d)",
                            call->full_name, pc_torch_type_name(pc_call_tensor(call, 0)->dtype), a,
                            b, target->rank, vr);
    return pc_error_set(PC_ERR_INVALID,
                        "%s: The expanded size of the tensor (%lld) must match the existing size "
                        "(%lld) at non-singleton dimension %d.  Target sizes: %s.  Tensor sizes: "
                        "%s",
                        call->full_name, (long long)target->shape[bad],
                        (long long)vs[vr - (target->rank - bad)], bad, b, a);
}

/* put: index_put (indices, values, accumulate) rather than __setitem__ (index, value) */
static pc_status put_forward(const pc_op_call *call, pc_compute compute, bool put,
                             pc_op_result *out)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    const pc_value *val = &call->args[2];
    bool accumulate = put && call->args[3].kind == PC_VALUE_BOOL && call->args[3].b;
    pc_tensor y = PC_TENSOR_NULL, offs = PC_TENSOR_NULL, vc = PC_TENSOR_NULL, ve = PC_TENSOR_NULL,
              vx = PC_TENSOR_NULL;
    pc_status st = pc_tensor_cast(&y, x, x->dtype);
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    if (!put && assigns_nothing(&call->args[1])) {
        out->tensors[0] = y;
        out->count = 1;
        return PC_OK;
    }
    bool advanced = put || advanced_index(&call->args[1]);
    if ((st = setitem_offsets(call, compute, put, &offs)) != PC_OK)
        goto done;
    if (advanced && !val->wrapped && val->tensor.dtype != x->dtype) {
        st = pc_error_set(PC_ERR_INVALID,
                          "%s: Index put requires the source and destination dtypes match, got "
                          "%s for the destination and %s for the source.",
                          call->full_name, pc_torch_type_name(x->dtype),
                          pc_torch_type_name(val->tensor.dtype));
        goto done;
    }
    int64_t vs[PC_TENSOR_MAX_DIMS];
    int vr = put ? val->tensor.rank : strip_ones(&val->tensor, vs);
    if (put)
        memcpy(vs, val->tensor.shape, sizeof(int64_t) * (size_t)vr);
    if ((st = broadcast_check(call, advanced, vs, vr, &offs)) != PC_OK)
        goto done;
    if ((st = pc_tensor_cast(&vc, &val->tensor, x->dtype)) != PC_OK ||
        (st = pc_tensor_reshape(&vc, &vc, vs, vr)) != PC_OK ||
        (st = pc_tensor_expand(&ve, &vc, offs.shape, offs.rank)) != PC_OK ||
        (st = pc_tensor_contiguous(&vx, &ve)) != PC_OK) {
        st = pc_error_prefix(st, "%s", call->full_name);
        goto done;
    }
    size_t sz = pc_dtype_size(x->dtype);
    const int64_t *o = pc_tensor_data(&offs);
    int64_t n = pc_tensor_numel(&offs);
    if (accumulate) {
        /* index_put_ with accumulate: the values added in order (serial on CPU), each sum
         * stored in the dtype on the device */
        pc_idx_acc acc = {0};
        pc_tensor av = PC_TENSOR_NULL;
        st = pc_idx_acc_init(&acc, call, compute, x->dtype, x, pc_tensor_numel(x));
        if (st == PC_OK)
            st = pc_idx_acc_values(&acc, call, &vx, &av);
        if (st == PC_OK) {
            for (int64_t i = 0; i < n; i++)
                pc_idx_acc_add(&acc, o[i], &av, i);
            pc_tensor_free(&y);
            st = pc_idx_acc_store(&acc, call, x->shape, x->rank, &y);
        }
        pc_idx_acc_free(&acc);
        pc_tensor_free(&av);
        if (st != PC_OK)
            goto done;
    } else {
        const char *src = pc_tensor_data(&vx);
        char *dst = pc_tensor_data(&y);
        for (int64_t i = 0; i < n; i++)
            memcpy(dst + (size_t)o[i] * sz, src + (size_t)i * sz, sz);
    }
    out->tensors[0] = y;
    out->count = 1;
    y = PC_TENSOR_NULL;
done:
    pc_tensor_free(&y);
    pc_tensor_free(&offs);
    pc_tensor_free(&vc);
    pc_tensor_free(&ve);
    pc_tensor_free(&vx);
    return st;
}

pc_status pc_k_setitem_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    return put_forward(call, compute, false, out);
}

pc_status pc_k_index_put_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    return put_forward(call, compute, true, out);
}

static pc_status put_backward(const pc_op_call *call, pc_compute compute, bool put,
                              const pc_tensor *grad_out, pc_op_grads *out)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    const pc_value *val = &call->args[2];
    bool accumulate = put && call->args[3].kind == PC_VALUE_BOOL && call->args[3].b;
    bool want_x = pc_shape_wants_grad(call, 0), want_v = pc_shape_wants_grad(call, 2);
    if (!want_x && !want_v)
        return PC_OK;
    pc_tensor g = PC_TENSOR_NULL, offs = PC_TENSOR_NULL, buf = PC_TENSOR_NULL;
    pc_status st = pc_idx_grad(call, grad_out, x->dtype, &g);
    if (st != PC_OK)
        return st;
    bool nothing = !put && assigns_nothing(&call->args[1]);
    if (!nothing && (st = setitem_offsets(call, compute, put, &offs)) != PC_OK)
        goto done;
    int64_t n = nothing ? 0 : pc_tensor_numel(&offs);
    const int64_t *o = nothing ? NULL : pc_tensor_data(&offs);
    double *gv = pc_tensor_data(&g);
    if (want_v && !nothing) {
        const pc_tensor *v = &val->tensor;
        int64_t vs[PC_TENSOR_MAX_DIMS];
        int vr = put ? v->rank : strip_ones(v, vs);
        if (put)
            memcpy(vs, v->shape, sizeof(int64_t) * (size_t)vr);
        pc_tensor r = PC_TENSOR_NULL;
        if ((st = pc_tensor_alloc(&buf, PC_DTYPE_F64, offs.shape, offs.rank)) != PC_OK) {
            st = pc_error_prefix(st, "%s", call->full_name);
            goto done;
        }
        double *bv = pc_tensor_data(&buf);
        for (int64_t i = 0; i < n; i++)
            bv[i] = pc_round_to_dtype(gv[o[i]], v->dtype);
        st = pc_idx_sum_to(call, compute, &buf, vs, vr, v->dtype, &r);
        if (st == PC_OK && (st = pc_tensor_reshape(&r, &r, v->shape, v->rank)) != PC_OK)
            st = pc_error_prefix(st, "%s", call->full_name);
        if (st != PC_OK) {
            pc_tensor_free(&r);
            goto done;
        }
        out->grads[2] = r;
    }
    if (want_x) {
        for (int64_t i = 0; !accumulate && i < n; i++)
            gv[o[i]] = 0;
        st = pc_idx_store(call, x->dtype, x->shape, x->rank, gv, &out->grads[0]);
    }
done:
    pc_tensor_free(&g);
    pc_tensor_free(&offs);
    pc_tensor_free(&buf);
    return st;
}

pc_status pc_k_setitem_backward(const pc_op_call *call, pc_compute compute,
                                const pc_tensor *grad_out, pc_op_grads *out)
{
    return put_backward(call, compute, false, grad_out, out);
}

pc_status pc_k_index_put_backward(const pc_op_call *call, pc_compute compute,
                                  const pc_tensor *grad_out, pc_op_grads *out)
{
    return put_backward(call, compute, true, grad_out, out);
}
