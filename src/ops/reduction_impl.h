/* Private to src/ops: the kernels of the "reduction" group of ops (rows in op_list_reduction.h). */
#ifndef PC_OPS_REDUCTION_IMPL_H
#define PC_OPS_REDUCTION_IMPL_H

#include "ops_impl.h"

#endif
