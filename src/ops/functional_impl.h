/* Private to src/ops: the kernels of the "functional" group of ops (rows in op_list_functional.h).
 */
#ifndef PC_OPS_FUNCTIONAL_IMPL_H
#define PC_OPS_FUNCTIONAL_IMPL_H

#include "ops_impl.h"

#endif
