/* Test support for the op kernels' tests: a call of an op of the table, built by hand. */
#ifndef PC_OP_TEST_H
#define PC_OP_TEST_H

#include <stdbool.h>
#include <stdint.h>

#include "precheck/core/tensor.h"
#include "precheck/ops/call.h"

/* A call of the op named op (fails the test when the table has none), plain form, under
 * full_name (borrowed: it must outlive the call), every argument absent (pc_op_call_init). */
void pc_test_op_call(pc_op_call *c, const char *op, const char *full_name);

/* Argument i of c becomes the tensor t, taken over by the call (pc_op_call_free frees it), as
 * the dump's positional argument i. */
void pc_test_op_tensor_arg(pc_op_call *c, int i, pc_tensor t, bool requires_grad);

/* Fills t with values of varied magnitude and sign and some zeros (small integers for an integer
 * dtype, 0 or 1 for bool), drawn from the generator state *rng: the same values for the same
 * state on every machine. */
void pc_test_fill_varied(pc_tensor *t, uint32_t *rng);

/* The float64 reference of a causal attention of one head (scale 1/sqrt(dim)): q, k, v and the
 * output's gradient go [seq, dim], row-major; writes the output o and the gradients dq, dk, dv
 * (all [seq, dim]). */
void pc_test_causal_attention(int64_t seq, int64_t dim, const double *q, const double *k,
                              const double *v, const double *go, double *o, double *dq, double *dk,
                              double *dv);

#endif
