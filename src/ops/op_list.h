/*
 * The op definitions: every op row and every API name, one definition file per family
 * (ops/<family>/<family>.def), included here in a fixed order. Included by op_table.c only,
 * which defines the macros a pass reads before each inclusion (the others expand to nothing;
 * all four are undefined after it):
 *   X(id, schema, exact, forward, backward, param, scalar_args, rules)   one op
 *   U(id, callee)                     op id is made of op callee (pc_op_call_of)
 *   D(id, kinds)                      the API names of op id made from its schema name x
 *   N(api_type, api_name, id, form)   one API name of op id, written out
 * D's kinds is an or of FUNCTIONAL (Functional.x), FUNCTIONAL_ (Functional.x_), NPU (NPU.x),
 * TORCH (Torch.x), TENSOR (Tensor.x), TENSOR_ (Tensor.x_) and TORCH_ (Torch.x_): the names come
 * in that order, in place for the x_ kinds, plain for the others. N writes the rest: aliases
 * (Torch.fix, Tensor.__add__), reflected and in-place dunders, other forms (Tensor.where).
 * exact: the result is an input's value or a cast of it, with no rounding of the op's own
 * (casts, neg, abs, relu, max/min, clamp, where, masked_fill). Which comparison standard
 * applies is not the op's business: msprobe picks it by API name (compare/standard.h).
 * scalar_args: bit i lets schema argument i (a Tensor) be a Python number. rules: what is done
 * differently for the op, by the bench or replay (PC_OP_BENCH_LAZY ..., op.h). form:
 * PC_FORM_PLAIN, PC_FORM_SWAPPED (reflected dunders: the first two positional arguments exchanged)
 * or PC_FORM_INPLACE (add_, __iadd__).
 *
 * Adding an op is three files: its X row and its D and N rows in its family's .def, its kernels
 * in that family's folder (declared with PC_KERNELS in <family>/<family>_impl.h), and its golden
 * case in tests/golden/ (docs/ops.md, "Adding an op").
 *
 * The order is load-bearing: the API names are looked up first match first, overloads are
 * tried in row order (pc_api_lookup_next), and `precheck ops` lists them in this order (a D row's
 * names where the row stands, which is why a family whose names interleave has two:
 * D(ADD, TORCH | TENSOR), its dunders, D(ADD, TENSOR_)). Every row stands in the definition file
 * of the family whose folder holds its kernels, but for two, and two orders hold across files:
 *   Torch.where            the element-wise where (pointwise.def) before where(condition)
 *                          (index.def): pointwise.def is included before index.def;
 *   Torch.max, Tensor.max  the reduction before max(input, other), and min likewise: the
 *                          element-wise max(input, other) and min(input, other) run pointwise's
 *                          kernels but stand in reduce.def, after the reductions (in
 *                          pointwise.def, included first, they would be found first).
 * No other API name has two rows. The files come in the order of docs/ops.md's families; that
 * order changed once, when the rows the first groups of ops had left in another family's file
 * moved beside their kernels (issue 19): every lookup stayed the same, the `precheck ops`
 * listing changed its order.
 */
#ifndef X
#define X(id, schema, exact, forward, backward, param, scalar_args, rules)
#endif
#ifndef U
#define U(id, callee)
#endif
#ifndef D
#define D(id, kinds)
#endif
#ifndef N
#define N(api_type, api_name, id, form)
#endif
/* clang-format off */
#include "ops/pointwise/pointwise.def"
#include "ops/reduce/reduce.def"
#include "ops/shape/shape.def"
#include "ops/factory/factory.def"
#include "ops/index/index.def"
#include "ops/linalg/linalg.def"
#include "ops/norm/norm.def"
#include "ops/loss/loss.def"
#include "ops/conv/conv.def"
#include "ops/nn/nn.def"
#include "ops/sort/sort.def"
#include "ops/npu/npu.def"
/* clang-format on */
#undef X
#undef U
#undef D
#undef N
