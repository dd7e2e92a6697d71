/* Private to src/ops: the kernels of the "npu" group of ops (rows in op_list_npu.h). */
#ifndef PC_OPS_NPU_IMPL_H
#define PC_OPS_NPU_IMPL_H

#include "ops_impl.h"

#endif
