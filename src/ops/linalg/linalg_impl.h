/* Private to src/ops: the kernels of the linalg family: the matrix products (linalg/gemm.c),
 * einsum (linalg/einsum.c) and cdist (linalg/cdist.c). */
#ifndef PC_OPS_LINALG_IMPL_H
#define PC_OPS_LINALG_IMPL_H

#include "ops/ops_impl.h"

/* Kernel selectors (op param) of the matrix products that share pc_k_matmul_*. */
enum {
    PC_NN_MATMUL = 0,
    PC_NN_MM,
    PC_NN_BMM,
    PC_NN_ADDMM,
    PC_NN_BADDBMM,
};

/* ---- GEMM family (gemm.c) ---- */
pc_status pc_k_linear_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_linear_backward(const pc_op_call *call, pc_compute compute,
                               const pc_tensor *grad_out, pc_op_grads *out);
pc_status pc_k_matmul_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_matmul_backward(const pc_op_call *call, pc_compute compute,
                               const pc_tensor *grad_out, pc_op_grads *out);

/* ---- einsum (einsum.c) ---- */
pc_status pc_k_einsum_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_einsum_backward(const pc_op_call *call, pc_compute compute,
                               const pc_tensor *grad_out, pc_op_grads *out);

/* ---- cdist (cdist.c) ---- */
pc_status pc_k_cdist_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_cdist_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                              pc_op_grads *out);

#endif
