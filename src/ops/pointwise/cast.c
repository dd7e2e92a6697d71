/*
 * The casts (Tensor.float, .to(dtype), type_as, ...), forward and backward.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tgmath.h>

#include "ops/kernel.h"
#include "ops/pointwise/elementwise.h"
#include "ops/pointwise/pointwise_impl.h"
#include "precheck/core/convert.h"

/* ---- casts ---- */

static pc_dtype cast_target(const pc_op_call *call)
{
    int param = call->op->param;
    if (param == PC_CAST_TO_ARG)
        return call->args[1].dtype;
    if (param == PC_CAST_TYPE_AS)
        return call->args[1].tensor.dtype;
    return (pc_dtype)param;
}

/* A cast to the dtype a tensor already has is the tensor itself, as in torch (x.float() of a
 * float32 x is x; autograd's cast back is a no-op too): the same values without a copy. The
 * result is contiguous either way (a strided source is copied). */
static pc_status cast_or_share(pc_tensor *out, const pc_tensor *src, pc_dtype dtype)
{
    if (src->dtype == dtype)
        return pc_tensor_contiguous(out, src);
    return pc_tensor_cast(out, src, dtype);
}

pc_status pc_k_cast_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    pc_status st = cast_or_share(&out->tensors[0], pc_call_tensor(call, 0), cast_target(call));
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    out->count = 1;
    return PC_OK;
}

pc_status pc_k_cast_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                             pc_op_grads *out)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    pc_dtype target = cast_target(call);
    if (!pc_ew_wants_grad(call, 0) || !pc_dtype_is_float(target))
        return PC_OK;
    /* autograd holds the gradient in the output's dtype, then casts it back */
    pc_tensor g = PC_TENSOR_NULL;
    pc_status st = cast_or_share(&g, grad_out, target);
    if (st == PC_OK)
        st = cast_or_share(&out->grads[0], &g, x->dtype);
    pc_tensor_free(&g);
    return st;
}
