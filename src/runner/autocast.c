/*
 * The device run's autocast (spec run_ut.md §5.1): msprobe runs the device call inside the
 * accelerator's AMP autocast when the inputs mix float dtypes, or when the recorded output
 * dtype differs from the single input float dtype. What autocast then does to an op follows
 * the accelerators' AMP op lists: GEMM-like ops run in the autocast dtype, a set of
 * precision-sensitive ops in float32, everything else in its input dtypes. Autocast to
 * float32 is not an AMP mode (CUDA disables it with a warning), so it changes nothing.
 */
#include <string.h>

#include "precheck/ops/call.h"
#include "precheck/ops/schema.h"
#include "runner_impl.h"

/* Ops that autocast runs in the lower-precision dtype. */
static const char *const lower_ops[] = {
    "addbmm",
    "addmm",
    "addmv",
    "addr",
    "baddbmm",
    "bmm",
    "chain_matmul",
    "conv1d",
    "conv2d",
    "conv3d",
    "linear",
    "matmul",
    "mm",
    "mv",
    "prelu",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
};

/* Ops that autocast runs in float32. */
static const char *const fp32_ops[] = {
    "acos",
    "asin",
    "cosh",
    "erfinv",
    "exp",
    "expm1",
    "log",
    "log10",
    "log2",
    "log1p",
    "reciprocal",
    "rsqrt",
    "sinh",
    "tan",
    "pow",
    "softplus",
    "layer_norm",
    "group_norm",
    "norm",
    "nll_loss",
    "cross_entropy",
    "cosine_similarity",
    "sum",
    "prod",
    "cumsum",
    "cumprod",
    "softmax",
    "log_softmax",
    "mse_loss",
    "l1_loss",
    "smooth_l1_loss",
    "kl_div",
    "dist",
    "renorm",
    "logsumexp",
    "cdist",
    "pdist",
    "binary_cross_entropy_with_logits",
};

static bool in_list(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, list[i]) == 0)
            return true;
    return false;
}

static bool half_or_float(pc_dtype d)
{
    return d == PC_DTYPE_F16 || d == PC_DTYPE_BF16 || d == PC_DTYPE_F32;
}

pc_dtype pc_autocast_dtype(const pc_op_call *call, const pc_dump_api *api)
{
    unsigned seen = 0;
    for (int i = 0; i < call->nargs; i++) {
        const pc_value *v = &call->args[i];
        if (v->kind == PC_VALUE_TENSOR && !v->wrapped && half_or_float(v->tensor.dtype))
            seen |= 1u << v->tensor.dtype;
        for (int k = 0; v->kind == PC_VALUE_TENSOR_LIST && k < v->tensors.count; k++)
            if (half_or_float(v->tensors.items[k].dtype))
                seen |= 1u << v->tensors.items[k].dtype;
    }
    pc_dtype dtype = PC_DTYPE_INVALID;
    bool on = false;
    if (seen & (seen - 1)) { /* mixed: msprobe takes a non-float32 member (a set's pop) */
        dtype = seen & (1u << PC_DTYPE_F16) ? PC_DTYPE_F16 : PC_DTYPE_BF16;
        on = true;
    } else if (seen) {
        dtype = seen & (1u << PC_DTYPE_F16)    ? PC_DTYPE_F16
                : seen & (1u << PC_DTYPE_BF16) ? PC_DTYPE_BF16
                                               : PC_DTYPE_F32;
    }
    const pc_dump_arg *out = &api->forward.output;
    if (!on && out->kind == PC_DUMP_ARG_LIST && out->u.list.count > 0 &&
        out->u.list.items[0].kind == PC_DUMP_ARG_TENSOR) {
        pc_dtype od = out->u.list.items[0].u.tensor->dtype;
        if (od == PC_DTYPE_F16 || od == PC_DTYPE_BF16 || od == PC_DTYPE_F32 || od == PC_DTYPE_F64) {
            on = od != dtype;
            dtype = od;
        }
    }
    if (!on || (dtype != PC_DTYPE_F16 && dtype != PC_DTYPE_BF16))
        return PC_DTYPE_INVALID;
    return dtype;
}

pc_status pc_autocast_apply(const pc_op_call *call, pc_dtype dtype, pc_op_call *out, bool *changed)
{
    *changed = false;
    const char *name = call->op->name;
    pc_dtype to = PC_DTYPE_INVALID;
    if (in_list(name, lower_ops, sizeof lower_ops / sizeof lower_ops[0]))
        to = dtype;
    else if (in_list(name, fp32_ops, sizeof fp32_ops / sizeof fp32_ops[0]))
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
