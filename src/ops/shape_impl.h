/* Private to src/ops: the kernels of the "shape" group of ops (rows in op_list_shape.h). */
#ifndef PC_OPS_SHAPE_IMPL_H
#define PC_OPS_SHAPE_IMPL_H

#include "ops_impl.h"

#endif
