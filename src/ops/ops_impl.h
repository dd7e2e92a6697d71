/* Private to src/ops: what the machinery and every kernel share: the call, its results and the
 * kernel signature (precheck/ops/call.h, exec.h), promotion. */
#ifndef PC_OPS_IMPL_H
#define PC_OPS_IMPL_H

#include "precheck/ops/call.h"
#include "precheck/ops/exec.h"
#include "precheck/ops/promote.h"

#endif
