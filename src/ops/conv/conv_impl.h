/* Private to src/ops: the kernels of the "conv" group of ops (rows in conv/conv.def). */
#ifndef PC_OPS_CONV_IMPL_H
#define PC_OPS_CONV_IMPL_H

#include <stdbool.h>

#include "ops/ops_impl.h"

/* ---- convolutions (conv.c); op param: spatial dimensions (1-3) | PC_CONV_TRANSPOSED ---- */
enum { PC_CONV_TRANSPOSED = 4 };
/* C [M, N] = A [M, K] x B [K, N] (B^T: B [N, K] when tb) in float32, each output one FMA chain
 * over K in order: oneDNN's direct convolution order. OpenBLAS's sgemm
 * is such a chain for large products only; small ones (below 1e6 multiply-adds) run here. */
void pc_conv_gemm_chain(bool tb, int64_t M, int64_t N, int64_t K, const float *A, int64_t lda,
                        const float *B, int64_t ldb, float *C, int64_t ldc);
PC_KERNELS(convnd);

/* ---- pools (pooling.c); op param: spatial dimensions (1-3) | kind << 4, kind a pc_pool_kind,
 * | PC_POOL_WITH_INDICES for the forms that always return (values, indices) ---- */
enum { PC_POOL_MAX = 0, PC_POOL_AVG, PC_POOL_ADAPTIVE_MAX, PC_POOL_ADAPTIVE_AVG };
enum { PC_POOL_WITH_INDICES = 8 };
#define PC_POOL_PARAM(kind, nsp) (((kind) << 4) | (nsp))
PC_KERNELS(poolnd);
/* adaptive_avg_pool{nsp}d of x (N, C, d...) to out_size (nsp values) into *result: the output
 * (grad_out NULL) or the gradient of x for grad_out; call is for messages (interpolate's
 * 'area' mode). */
pc_status pc_pool_adaptive_avg(const pc_op_call *call, pc_compute compute, const pc_tensor *x,
                               int nsp, const int64_t *out_size, const pc_tensor *grad_out,
                               pc_tensor *result);

/* ---- interpolate (interp.c); op param: which API (their defaults differ) ---- */
enum {
    PC_INTERP_INTERPOLATE = 0,
    PC_INTERP_UPSAMPLE,
    PC_INTERP_UPSAMPLE_NEAREST,
    PC_INTERP_UPSAMPLE_BILINEAR,
};
PC_KERNELS(interp);

/* ---- unfold / fold (fold.c); op param: 0 unfold (im2col), 1 fold (col2im) ---- */
PC_KERNELS(fold);

#endif
