/* Private to src/ops: the kernels of the "conv" group of ops (rows in op_list_conv.h). */
#ifndef PC_OPS_CONV_IMPL_H
#define PC_OPS_CONV_IMPL_H

#include "ops_impl.h"

#endif
