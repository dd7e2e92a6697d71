/* Private to src/ops: the kernels of the "indexing" group of ops (rows in op_list_indexing.h). */
#ifndef PC_OPS_INDEXING_IMPL_H
#define PC_OPS_INDEXING_IMPL_H

#include "ops_impl.h"

#endif
