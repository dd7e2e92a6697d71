/* Private to src/ops: the kernels of the "sort" group of ops (rows in op_list_sort.h). */
#ifndef PC_OPS_SORT_IMPL_H
#define PC_OPS_SORT_IMPL_H

#include "ops_impl.h"

#endif
