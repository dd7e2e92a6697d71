/* Private to src/ops: the kernels of the factory family: arange, full, zeros, ones, eye and the
 * *_like fills (factory/factory.c), linspace and logspace (factory/linspace.c). No gradients. */
#ifndef PC_OPS_FACTORY_IMPL_H
#define PC_OPS_FACTORY_IMPL_H

#include "ops/ops_impl.h"

/* The fills (op param of pc_k_fill_forward). */
enum {
    PC_FILL_FULL,
    PC_FILL_FULL_LIKE,
    PC_FILL_ONES_LIKE,
    PC_FILL_ZEROS_LIKE,
    PC_FILL_ZEROS,
    PC_FILL_ONES,
    PC_FILL_EYE
};

PC_KERNEL_FORWARD(arange);
PC_KERNEL_FORWARD(fill);

/* linspace, logspace (linspace.c): torch's CPU kernels' arithmetic, on both sides */
PC_KERNEL_FORWARD(linspace);
PC_KERNEL_FORWARD(logspace);

#endif
