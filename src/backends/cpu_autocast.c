/*
 * The reference device's autocast: an emulation, by casts, of what the accelerators' AMP
 * autocast does to an op when msprobe runs the device call under it (call->autocast, decided
 * by the runner from msprobe's rule, docs/msprobe-contract.md#replay). It follows the AMP op lists,
 * which the op rows carry (PC_OP_AMP_LOWER, PC_OP_AMP_FP32 in ops/op.h): GEMM-like ops run in the
 * autocast dtype, a set of precision-sensitive ops in float32, everything else in its input
 * dtypes. A real device (the torch backend) uses torch's own autocast instead.
 */
#include "backends_impl.h"
#include "precheck/ops/call.h"
#include "precheck/ops/schema.h"

static bool half_or_float(pc_dtype d)
{
    return d == PC_DTYPE_F16 || d == PC_DTYPE_BF16 || d == PC_DTYPE_F32;
}

pc_status pc_cpu_autocast(const pc_op_call *call, pc_op_call *out, bool *changed)
{
    *changed = false;
    if (!call->autocast)
        return PC_OK;
    pc_dtype dtype = (pc_dtype)(call->autocast - 1);
    /* the op's AMP class: its row's rules (ops/op.h) */
    pc_dtype to = PC_DTYPE_INVALID;
    if (call->op->rules & PC_OP_AMP_LOWER)
        to = dtype;
    else if (call->op->rules & PC_OP_AMP_FP32)
        to = PC_DTYPE_F32;
    if (to == PC_DTYPE_INVALID)
        return PC_OK;
    pc_op_call c;
    pc_op_call_share(&c, call);
    pc_status st = PC_OK;
    for (int i = 0; i < c.nargs && st == PC_OK; i++) {
        pc_value *v = &c.args[i];
        if (v->kind == PC_VALUE_TENSOR && !v->wrapped && half_or_float(v->tensor.dtype) &&
            v->tensor.dtype != to)
            st = pc_tensor_cast(&v->tensor, &v->tensor, to);
        for (int k = 0; v->kind == PC_VALUE_TENSOR_LIST && k < v->tensors.count && st == PC_OK; k++)
            if (half_or_float(v->tensors.items[k].dtype) && v->tensors.items[k].dtype != to)
                st = pc_tensor_cast(&v->tensors.items[k], &v->tensors.items[k], to);
    }
    if (st != PC_OK) {
        pc_op_call_free(&c);
        return st;
    }
    *out = c;
    *changed = true;
    return PC_OK;
}

pc_status pc_cpu_autocast_grads(const pc_op_call *call, pc_op_grads *g)
{
    /* autograd hands the gradients of autocast copies back in the inputs' dtypes */
    pc_status st = PC_OK;
    for (int i = 0; st == PC_OK && i < call->nargs; i++)
        if (call->args[i].kind == PC_VALUE_TENSOR && !pc_tensor_is_null(&g->grads[i]) &&
            g->grads[i].dtype != call->args[i].tensor.dtype)
            st = pc_tensor_cast(&g->grads[i], &g->grads[i], call->args[i].tensor.dtype);
    return st;
}
