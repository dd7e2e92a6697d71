/* Forward/backward dispatch through the op table, and the bench policy
 * (docs/msprobe-contract.md#replay). */
#include <string.h>

#include "ops/ops_impl.h"

pc_status pc_bench_policy_from_name(const char *name, pc_bench_policy *out)
{
    if (name && strcmp(name, "msprobe") == 0)
        *out = PC_BENCH_MSPROBE;
    else if (name && strcmp(name, "fp64") == 0)
        *out = PC_BENCH_FP64;
    else
        return pc_error_set(PC_ERR_INVALID, "unknown bench policy '%s' (msprobe, fp64)",
                            name ? name : "");
    return PC_OK;
}

bool pc_bench_raisable(pc_dtype d)
{
    return d == PC_DTYPE_F16 || d == PC_DTYPE_BF16 || d == PC_DTYPE_F32;
}

/* The bench-raise class of the call's op (its row's rules, precheck/ops/op.h). */
static bool raises_lazily(const pc_op_call *call)
{
    return call->op->rules & PC_OP_BENCH_LAZY;
}

/* Whether its small tensors are raised ahead all the same (PC_OP_BENCH_RAISE_SMALL). */
static bool raises_small(const pc_op_call *call)
{
    return call->op->rules & PC_OP_BENCH_RAISE_SMALL;
}

static bool never_raised(const pc_op_call *call)
{
    return call->op->rules & PC_OP_BENCH_NEVER;
}

static bool keeps_f32(const pc_op_call *call, pc_bench_policy policy)
{
    return policy == PC_BENCH_MSPROBE && (call->op->rules & PC_OP_BENCH_KEEP_F32);
}

pc_dtype pc_bench_raise_dtype(const pc_op_call *call, pc_bench_policy policy)
{
    if (never_raised(call))
        return PC_DTYPE_INVALID;
    unsigned seen = 0;
    for (int i = 0; i < call->nargs; i++) {
        const pc_value *v = &call->args[i];
        if (v->kind == PC_VALUE_TENSOR && !v->wrapped && pc_bench_raisable(v->tensor.dtype))
            seen |= 1u << v->tensor.dtype;
        for (int k = 0; v->kind == PC_VALUE_TENSOR_LIST && k < v->tensors.count; k++)
            if (pc_bench_raisable(v->tensors.items[k].dtype))
                seen |= 1u << v->tensors.items[k].dtype;
    }
    if (keeps_f32(call, policy) && seen == 1u << PC_DTYPE_F32)
        return PC_DTYPE_INVALID;
    if (!seen)
        return PC_DTYPE_INVALID;
    if (policy == PC_BENCH_FP64)
        return PC_DTYPE_F64;
    if (seen & (seen - 1))
        return PC_DTYPE_F32; /* mixed float dtypes */
    return seen == 1u << PC_DTYPE_F32 ? PC_DTYPE_F64 : PC_DTYPE_F32;
}

static pc_status raise_tensor(pc_tensor *t, pc_dtype to, bool keep_f32)
{
    if (to == PC_DTYPE_INVALID || !pc_bench_raisable(t->dtype) || t->dtype == to ||
        (keep_f32 && t->dtype == PC_DTYPE_F32))
        return PC_OK;
    return pc_tensor_cast(t, t, to);
}

/* Whether a lazily raising call's tensor t is raised ahead all the same: a small one of an op
 * with PC_OP_BENCH_RAISE_SMALL. */
static bool raised_ahead(const pc_op_call *call, const pc_tensor *t, pc_dtype to)
{
    return raises_small(call) && to != PC_DTYPE_INVALID &&
           (size_t)pc_tensor_numel(t) <= PC_BENCH_SMALL_BYTES / pc_dtype_size(to);
}

pc_status pc_bench_prepare(const pc_op_call *call, pc_bench_policy policy, pc_op_call *out)
{
    pc_dtype to = pc_bench_raise_dtype(call, policy);
    pc_op_call b;
    pc_op_call_share(&b, call);
    /* a lazy call's kernels raise as they read (but its small tensors with RAISE_SMALL);
     * otherwise every tensor is raised here */
    bool lazy = raises_lazily(call), keep = !lazy && keeps_f32(call, policy);
    if (lazy)
        b.lazy_raise = to == PC_DTYPE_INVALID ? 0 : (int)to + 1;
    pc_status st = PC_OK;
    for (int i = 0; i < b.nargs && st == PC_OK; i++) {
        pc_value *v = &b.args[i];
        if (v->kind == PC_VALUE_TENSOR && !v->wrapped &&
            (!lazy || raised_ahead(call, &v->tensor, to)))
            st = raise_tensor(&v->tensor, to, keep);
        for (int k = 0;
             !lazy && v->kind == PC_VALUE_TENSOR_LIST && k < v->tensors.count && st == PC_OK; k++)
            st = raise_tensor(&v->tensors.items[k], to, keep);
    }
    if (st != PC_OK) {
        pc_op_call_free(&b);
        return st;
    }
    *out = b;
    return PC_OK;
}

pc_status pc_bench_prepare_grad(const pc_op_call *call, pc_bench_policy policy,
                                const pc_tensor *grad, pc_tensor *out)
{
    pc_dtype to = PC_DTYPE_INVALID;
    if (!never_raised(call) && pc_bench_raisable(grad->dtype) &&
        !(keeps_f32(call, policy) && grad->dtype == PC_DTYPE_F32))
        to = policy == PC_BENCH_FP64 || grad->dtype == PC_DTYPE_F32 ? PC_DTYPE_F64 : PC_DTYPE_F32;
    return pc_tensor_cast(out, grad, to == PC_DTYPE_INVALID ? grad->dtype : to);
}

pc_status pc_bench_kernel_grad(const pc_op_call *call, pc_bench_policy policy,
                               const pc_tensor *grad, pc_tensor *out)
{
    if (raises_lazily(call)) {
        pc_tensor_share(out, grad);
        return PC_OK;
    }
    return pc_bench_prepare_grad(call, policy, grad, out);
}

pc_status pc_op_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    pc_op_result r = {0};
    pc_status st = call->op->forward(call, compute, &r);
    if (st != PC_OK) {
        pc_op_result_free(&r);
        return st;
    }
    *out = r;
    return PC_OK;
}

pc_status pc_op_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                         pc_op_grads *out)
{
    if (!call->op->backward)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: %s has no backward in precheck",
                            call->full_name, call->op->name);
    pc_op_grads g = {0};
    pc_status st = call->op->backward(call, compute, grad_out, &g);
    if (st != PC_OK) {
        pc_op_grads_free(&g);
        return st;
    }
    *out = g;
    return PC_OK;
}
