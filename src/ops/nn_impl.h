/* Private to src/ops: the kernels of the "nn" group of ops (rows in op_list_nn.h) and the
 * helpers they share (nn_common.c). */
#ifndef PC_OPS_NN_IMPL_H
#define PC_OPS_NN_IMPL_H

#include <stdbool.h>

#include "ops_impl.h"

/* Kernel selectors (op param) of the nn rows that share kernels. */
enum {
    PC_NN_SOFTMAX = 0,
    PC_NN_LOG_SOFTMAX,
};
enum {
    PC_NN_MATMUL = 0,
    PC_NN_MM,
    PC_NN_BMM,
    PC_NN_ADDMM,
    PC_NN_BADDBMM,
};

/* ---- helpers (nn_common.c) ---- */

/* The compute dtype of a float tensor of dtype d: float64 on the bench and for float64,
 * float32 (the device's opmath) otherwise. */
pc_dtype pc_nn_compute_dtype(pc_compute compute, pc_dtype d);
/* *out: a new contiguous copy of t in dtype cd (values converted exactly or rounded RNE). */
pc_status pc_nn_load(const pc_op_call *call, const pc_tensor *t, pc_dtype cd, pc_tensor *out);
/* The same, or t itself (a second owner, NOT to be written) when it already is a contiguous
 * tensor of dtype cd. */
pc_status pc_nn_load_ro(const pc_op_call *call, const pc_tensor *t, pc_dtype cd, pc_tensor *out);
/* The same for t broadcast to shape (the broadcast materialised). */
pc_status pc_nn_load_expand(const pc_op_call *call, const pc_tensor *t, const int64_t *shape,
                            int rank, pc_dtype cd, pc_tensor *out);
/* *out: buf (consumed: freed on every path) converted to dtype od with shape/rank. */
pc_status pc_nn_store(const pc_op_call *call, pc_tensor *buf, pc_dtype od, const int64_t *shape,
                      int rank, pc_tensor *out);
/* Scratch of the kernels that work a block at a time: a block holds about PC_NN_BLOCK elements
 * (whole rows: one row at least), so a call needs O(block) memory beyond its outputs. */
#define PC_NN_BLOCK 32768
/* Elements start .. start + count - 1 of t (any strides), in row-major index order, converted
 * to dtype cd (float32/float64: exactly or RNE, as pc_tensor_cast does) into dst. */
void pc_nn_read(const pc_tensor *t, int64_t start, int64_t count, pc_dtype cd, void *dst);
/* The same through dtype via (t -> via -> cd, each step as pc_tensor_cast rounds: torch's
 * cast before an op); stage holds count elements of via. via may be t's dtype. */
void pc_nn_read_via(const pc_tensor *t, int64_t start, int64_t count, pc_dtype via, void *stage,
                    pc_dtype cd, void *dst);
/* count values of dtype cd at src into elements start .. of the contiguous tensor out,
 * converted (RNE) to out's dtype. */
void pc_nn_write(pc_tensor *out, int64_t start, int64_t count, const void *src, pc_dtype cd);
/* pc_nn_round on n values of dtype cd at buf. */
void pc_nn_round_n(void *buf, pc_dtype cd, int64_t n, pc_dtype d);
/* Rounds every value of the compute buffer buf to dtype d (float16/bfloat16/float32 held in a
 * wider buffer), as a tensor of dtype d between two of torch's ops would be. */
void pc_nn_round(pc_tensor *buf, pc_dtype d);
/* buf (a contiguous compute buffer of shape bshape) summed in its dtype over the dimensions that
 * are broadcast from shape (rank) into bshape; *out is a new compute buffer of shape. */
pc_status pc_nn_sum_to(const pc_op_call *call, const pc_tensor *buf, const int64_t *shape, int rank,
                       pc_tensor *out);
/* Whether schema argument i is a float tensor that requires grad. */
bool pc_nn_wants_grad(const pc_op_call *call, int i);
/* PC_ERR_INVALID "<name>: expected scalar type Float but found Half" unless b has the dtype a
 * has (b NULL: no check); both as they stand in call (pc_nn_dtype). */
pc_status pc_nn_same_dtype(const pc_op_call *call, const pc_tensor *a, const pc_tensor *b);
/* The dtype tensor argument t stands for in call: its own, or the bench's raised dtype when
 * pc_bench_prepare left the raising to the kernel (call->lazy_raise; only ops that read
 * their inputs through pc_nn_read/pc_nn_load with the compute dtype get such calls). */
pc_dtype pc_nn_dtype(const pc_op_call *call, const pc_tensor *t);
/* PC_ERR_INVALID "<name>: "<kernel>" not implemented for 'Long'" for non-float t. */
pc_status pc_nn_need_float(const pc_op_call *call, const pc_tensor *t, const char *kernel);
pc_status pc_nn_nomem(const pc_op_call *call);
/* Dimension d of a rank-r tensor normalised (negative counts from the end); -1 when out of
 * range (with torch's message set). */
int pc_nn_dim(const pc_op_call *call, int64_t d, int rank);

/* ---- GEMM family (gemm.c) ---- */
pc_status pc_k_linear_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_linear_backward(const pc_op_call *call, pc_compute compute,
                               const pc_tensor *grad_out, pc_op_grads *out);
pc_status pc_k_matmul_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_matmul_backward(const pc_op_call *call, pc_compute compute,
                               const pc_tensor *grad_out, pc_op_grads *out);

/* ---- softmax, layer_norm, batch_norm, cross_entropy (norm.c) ---- */
pc_status pc_k_softmax_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_softmax_backward(const pc_op_call *call, pc_compute compute,
                                const pc_tensor *grad_out, pc_op_grads *out);
pc_status pc_k_layer_norm_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_layer_norm_backward(const pc_op_call *call, pc_compute compute,
                                   const pc_tensor *grad_out, pc_op_grads *out);
pc_status pc_k_batch_norm_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_batch_norm_backward(const pc_op_call *call, pc_compute compute,
                                   const pc_tensor *grad_out, pc_op_grads *out);
pc_status pc_k_cross_entropy_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_cross_entropy_backward(const pc_op_call *call, pc_compute compute,
                                      const pc_tensor *grad_out, pc_op_grads *out);
/* ---- embedding, dropout, leaky_relu (misc_nn.c) ---- */
pc_status pc_k_embedding_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_embedding_backward(const pc_op_call *call, pc_compute compute,
                                  const pc_tensor *grad_out, pc_op_grads *out);
/* param 1: dropout (one draw per element), 2: dropout2d (one per channel plane) */
pc_status pc_k_dropout_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_dropout_backward(const pc_op_call *call, pc_compute compute,
                                const pc_tensor *grad_out, pc_op_grads *out);
pc_status pc_k_leaky_relu_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_leaky_relu_backward(const pc_op_call *call, pc_compute compute,
                                   const pc_tensor *grad_out, pc_op_grads *out);

#endif
