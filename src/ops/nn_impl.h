/* Private to src/ops: the kernels of the "nn" group of ops (rows in op_list_nn.h). */
#ifndef PC_OPS_NN_IMPL_H
#define PC_OPS_NN_IMPL_H

#include "ops_impl.h"

#endif
