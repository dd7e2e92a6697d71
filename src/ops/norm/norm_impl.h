/* Private to src/ops: the kernels of the norm family: softmax, log_softmax, layer_norm and
 * batch_norm (norm/norm.c), group_norm, instance_norm and glu (norm/group_norm.c). */
#ifndef PC_OPS_NORM_IMPL_H
#define PC_OPS_NORM_IMPL_H

#include "ops/ops_impl.h"

/* Kernel selectors (op param) of softmax and log_softmax. */
enum {
    PC_NORM_SOFTMAX = 0,
    PC_NORM_LOG_SOFTMAX,
};
/* instance_norm's two argument orders (group_norm.c). */
enum { PC_FN_INSTANCE_NORM_F = 0, PC_FN_INSTANCE_NORM_ATEN };

/* ---- softmax, layer_norm, batch_norm (norm.c) ---- */
PC_KERNELS(softmax);
PC_KERNELS(layer_norm);
PC_KERNELS(batch_norm);
/* Whether layer_norm and softmax's backward may run their copies compiled with the FMA
 * instructions where the CPU has them (norm.c; the default, and the same results): false runs
 * the plain copies, for the tests that compare the two. Set it while no kernel runs. */
void pc_norm_allow_fma(bool allow);

/* ---- group_norm, instance_norm, glu (group_norm.c) ---- */
PC_KERNELS(group_norm);
PC_KERNELS(instance_norm);
PC_KERNELS(glu);

#endif
