/* Private to src/ops: the kernels of the loss family: the point-wise losses and nll_loss
 * (loss/loss.c), cross_entropy (loss/cross_entropy.c: log_softmax and nll_loss in one kernel). */
#ifndef PC_OPS_LOSS_IMPL_H
#define PC_OPS_LOSS_IMPL_H

#include <stdbool.h>

#include "ops/kernel.h"
#include "ops/ops_impl.h"

/* Kernel selectors (op param) of the point-wise losses (loss.c). */
enum {
    PC_FN_MSE = 0,
    PC_FN_L1,
    PC_FN_SMOOTH_L1,
    PC_FN_HUBER,
    PC_FN_BCE,
    PC_FN_BCE_LOGITS,      /* Functional.binary_cross_entropy_with_logits */
    PC_FN_BCE_LOGITS_ATEN, /* Torch.binary_cross_entropy_with_logits: reduction an int */
    PC_FN_KL_DIV,          /* Functional.kl_div */
    PC_FN_KL_DIV_ATEN,     /* Torch.kl_div: reduction an int */
};

/* ---- losses (loss.c) ---- */
PC_KERNELS(pointwise_loss);
PC_KERNELS(nll_loss);

/* ---- cross_entropy (cross_entropy.c) ---- */
PC_KERNELS(cross_entropy);

#endif
