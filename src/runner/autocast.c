/*
 * msprobe's device autocast rule (docs/msprobe-contract.md#replay): msprobe runs the device call
 * inside the accelerator's AMP autocast when the inputs mix float dtypes, or when the recorded
 * output dtype differs from the single input float dtype. Autocast to float32 is not an AMP mode
 * (CUDA disables it with a warning), so it is no autocast here. How a device honours the
 * decision is the backend's business (the reference device emulates it by casts,
 * backends/cpu_autocast.c; the torch backend enters torch's own autocast).
 */
#include "precheck/ops/call.h"
#include "runner_impl.h"

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
