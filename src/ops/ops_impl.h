/* Private to src/ops: what the machinery and every kernel share: the call, its results and the
 * kernel signature (precheck/ops/call.h, exec.h), promotion. */
#ifndef PC_OPS_IMPL_H
#define PC_OPS_IMPL_H

#include "precheck/ops/call.h"
#include "precheck/ops/exec.h"
#include "precheck/ops/promote.h"

/* The kernels of an op row, declared with the op table's signatures (pc_op_forward_fn,
 * pc_op_backward_fn): PC_KERNELS(embedding) declares pc_k_embedding_forward and
 * pc_k_embedding_backward; PC_KERNEL_FORWARD(arange) a forward alone (an op without a
 * gradient). Their definitions in the family's .c files spell the signatures out. */
#define PC_KERNEL_FORWARD(name)                                                                    \
    pc_status pc_k_##name##_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
#define PC_KERNEL_BACKWARD(name)                                                                   \
    pc_status pc_k_##name##_backward(const pc_op_call *call, pc_compute compute,                   \
                                     const pc_tensor *grad_out, pc_op_grads *out)
#define PC_KERNELS(name)                                                                           \
    PC_KERNEL_FORWARD(name);                                                                       \
    PC_KERNEL_BACKWARD(name)

#endif
