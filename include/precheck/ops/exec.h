/*
 * Running a bound call: forward and backward in one compute mode, and the bench policy that
 * raises the dtypes of the bench inputs (DESIGN "Bench precision policy",
 * docs/msprobe-contract.md#replay).
 *
 * Results are new tensors the caller owns (pc_op_result_free / pc_op_grads_free); the call's
 * tensors are only read (batch_norm in training mode does not write its running statistics),
 * also for the in-place forms (their result is a new tensor with self's
 * dtype, compared as the output). Errors are values: torch's messages prefixed with the API's
 * full name.
 */
#ifndef PC_OPS_EXEC_H
#define PC_OPS_EXEC_H

#include "precheck/ops/call.h"

typedef enum pc_bench_policy {
    /* msprobe: one float dtype among the inputs -> fp16/bf16 raised to fp32, fp32 to fp64;
     * mixed float dtypes -> fp16/bf16/fp32 all to fp32; type_as never raised; conv1d/conv2d
     * keep fp32 inputs (and gradients) at fp32 (HF32 is the inputs' business);
     * fp64, integers and bool untouched. */
    PC_BENCH_MSPROBE = 0,
    PC_BENCH_FP64, /* every fp16/bf16/fp32 input raised to fp64 */
} pc_bench_policy;

/* "msprobe" / "fp64"; PC_ERR_INVALID for other names. */
pc_status pc_bench_policy_from_name(const char *name, pc_bench_policy *out);

/* The dtype the policy raises the call's float inputs to; PC_DTYPE_INVALID when none is
 * raised. */
pc_dtype pc_bench_raise_dtype(const pc_op_call *call, pc_bench_policy policy);

/* float16, bfloat16 and float32: the dtypes a bench policy raises. */
bool pc_bench_raisable(pc_dtype d);

/* *out: a call whose tensors are the call's raised by the policy (others shared). For ops
 * whose kernels raise their inputs as they read them (linear), the tensors are shared as
 * they are and out->lazy_raise names the dtype they stand for. */
pc_status pc_bench_prepare(const pc_op_call *call, pc_bench_policy policy, pc_op_call *out);
/* The incoming gradient raised as run_ut raises it: fp16/bf16 -> fp32, fp32 -> fp64 (msprobe),
 * every float -> fp64 (fp64); type_as keeps it. *out is a new tensor. */
pc_status pc_bench_prepare_grad(const pc_op_call *call, pc_bench_policy policy,
                                const pc_tensor *grad, pc_tensor *out);
/* The incoming gradient as the bench's backward kernel takes it: raised as above, or shared as
 * it is for the ops whose kernels raise as they read (pc_bench_prepare). */
pc_status pc_bench_kernel_grad(const pc_op_call *call, pc_bench_policy policy,
                               const pc_tensor *grad, pc_tensor *out);

pc_status pc_op_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
/* PC_ERR_UNSUPPORTED when the op has no backward. grad_out has the shape of output 0; its
 * dtype is converted to the output's as autograd does. */
pc_status pc_op_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                         pc_op_grads *out);

#endif
