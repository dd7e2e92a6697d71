/* Private to src/ops: the kernels of the linalg family: the matrix products (linalg/gemm.c),
 * einsum (linalg/einsum.c) and cdist (linalg/cdist.c). */
#ifndef PC_OPS_LINALG_IMPL_H
#define PC_OPS_LINALG_IMPL_H

#include "ops/ops_impl.h"

/* Kernel selectors (op param) of the matrix products that share pc_k_matmul_*. */
enum {
    PC_LINALG_MATMUL = 0,
    PC_LINALG_MM,
    PC_LINALG_BMM,
    PC_LINALG_ADDMM,
    PC_LINALG_BADDBMM,
};

/* ---- GEMM family (gemm.c) ---- */
PC_KERNELS(linear);
PC_KERNELS(matmul);

/* ---- einsum (einsum.c) ---- */
PC_KERNELS(einsum);

/* ---- cdist (cdist.c) ---- */
PC_KERNELS(cdist);

#endif
