/* Private to src/ops: the op ids, the kernel families and helpers shared by the kernels. */
#ifndef PC_OPS_IMPL_H
#define PC_OPS_IMPL_H

#include "precheck/ops/call.h"
#include "precheck/ops/exec.h"
#include "precheck/ops/promote.h"

/* Unary element-wise functions (op param of the unary family). */
typedef enum pc_unary {
    PC_UNARY_NEG,
    PC_UNARY_ABS,
    PC_UNARY_EXP,
    PC_UNARY_LOG,
    PC_UNARY_SQRT,
    PC_UNARY_RSQRT,
    PC_UNARY_SQUARE,
    PC_UNARY_RECIPROCAL,
    PC_UNARY_SIGMOID,
    PC_UNARY_TANH,
    PC_UNARY_RELU,
    PC_UNARY_SILU,
    PC_UNARY_GELU, /* approximate from the call: 'none' or 'tanh' */
    PC_UNARY_SIN,
    PC_UNARY_COS,
    PC_UNARY_ERF,
    PC_UNARY_COUNT
} pc_unary;

/* Binary element-wise functions (op param of the binary family). */
typedef enum pc_binary {
    PC_BINARY_ADD,
    PC_BINARY_SUB,
    PC_BINARY_RSUB,
    PC_BINARY_MUL,
    PC_BINARY_DIV, /* rounding_mode from the call */
    PC_BINARY_POW,
    PC_BINARY_MAXIMUM,
    PC_BINARY_MINIMUM,
    PC_BINARY_COUNT
} pc_binary;

/* Clamp variants (op param). */
enum { PC_CLAMP_BOTH, PC_CLAMP_MIN, PC_CLAMP_MAX };
/* Cast targets beyond dtypes (op param of the cast family; otherwise a pc_dtype). */
enum { PC_CAST_TO_ARG = -2, PC_CAST_TYPE_AS = -3 };

pc_status pc_k_unary_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_unary_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                              pc_op_grads *out);
pc_status pc_k_binary_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_binary_backward(const pc_op_call *call, pc_compute compute,
                               const pc_tensor *grad_out, pc_op_grads *out);
pc_status pc_k_clamp_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_clamp_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                              pc_op_grads *out);
pc_status pc_k_where_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_where_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                              pc_op_grads *out);
pc_status pc_k_masked_fill_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_masked_fill_backward(const pc_op_call *call, pc_compute compute,
                                    const pc_tensor *grad_out, pc_op_grads *out);
pc_status pc_k_cast_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_cast_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                             pc_op_grads *out);

/* torch's short type name in "not implemented for 'Half'" messages. */
const char *pc_torch_type_name(pc_dtype dtype);

#endif
