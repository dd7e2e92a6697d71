/* Private to src/ops: the kernels of the nn family: embedding, dropout and leaky_relu
 * (nn/nn_misc.c), scaled_dot_product_attention (nn/sdpa.c). */
#ifndef PC_OPS_NN_IMPL_H
#define PC_OPS_NN_IMPL_H

#include <stdbool.h>

#include "ops/kernel.h"
#include "ops/ops_impl.h"

/* ---- embedding, dropout, leaky_relu (nn_misc.c) ---- */
PC_KERNELS(embedding);
/* param 1: dropout (one draw per element), 2: dropout2d (one per channel plane) */
PC_KERNELS(dropout);
PC_KERNELS(leaky_relu);

/* ---- scaled_dot_product_attention (sdpa.c) ---- */
PC_KERNELS(sdpa);

#endif
