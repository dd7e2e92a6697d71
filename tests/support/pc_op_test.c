#include "pc_op_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pc_test.h"
#include "precheck/core/convert.h"
#include "precheck/ops/op.h"

void pc_test_op_call(pc_op_call *c, const char *op, const char *full_name)
{
    const pc_op *found = pc_op_find(op);
    if (!found)
        fail_msg("the op table has no %s", op);
    pc_op_call_init(c, found, PC_FORM_PLAIN, full_name);
}

void pc_test_op_tensor_arg(pc_op_call *c, int i, pc_tensor t, bool requires_grad)
{
    assert_true(i >= 0 && i < c->nargs);
    c->args[i].kind = PC_VALUE_TENSOR;
    c->args[i].src_pos = i;
    c->args[i].requires_grad = requires_grad;
    c->args[i].tensor = t;
}

void pc_test_causal_attention(int64_t S, int64_t D, const double *q, const double *k,
                              const double *v, const double *go, double *o, double *dq, double *dk,
                              double *dv)
{
    double scale = 1.0 / sqrt((double)D);
    double *p = malloc(sizeof(double) * (size_t)S), *dp = malloc(sizeof(double) * (size_t)S);
    assert_non_null(p);
    assert_non_null(dp);
    memset(dk, 0, sizeof(double) * (size_t)(S * D));
    memset(dv, 0, sizeof(double) * (size_t)(S * D));
    for (int64_t i = 0; i < S; i++) {
        double m = -HUGE_VAL, l = 0;
        for (int64_t j = 0; j <= i; j++) {
            double s = 0;
            for (int64_t d = 0; d < D; d++)
                s += q[i * D + d] * k[j * D + d];
            p[j] = s * scale;
            m = p[j] > m ? p[j] : m;
        }
        for (int64_t j = 0; j <= i; j++) {
            p[j] = exp(p[j] - m);
            l += p[j];
        }
        double pdp = 0;
        for (int64_t d = 0; d < D; d++)
            o[i * D + d] = 0, dq[i * D + d] = 0;
        for (int64_t j = 0; j <= i; j++) {
            p[j] /= l;
            dp[j] = 0;
            for (int64_t d = 0; d < D; d++) {
                o[i * D + d] += p[j] * v[j * D + d];
                dp[j] += go[i * D + d] * v[j * D + d];
            }
            pdp += p[j] * dp[j];
        }
        for (int64_t j = 0; j <= i; j++) {
            double ds = p[j] * (dp[j] - pdp) * scale;
            for (int64_t d = 0; d < D; d++) {
                dq[i * D + d] += ds * k[j * D + d];
                dk[j * D + d] += ds * q[i * D + d];
                dv[j * D + d] += p[j] * go[i * D + d];
            }
        }
    }
    free(p);
    free(dp);
}

void pc_test_fill_varied(pc_tensor *t, uint32_t *rng)
{
    char *p = pc_tensor_data(t);
    size_t sz = pc_dtype_size(t->dtype);
    for (int64_t i = 0; i < pc_tensor_numel(t); i++) {
        *rng = *rng * 1664525u + 1013904223u;
        uint32_t r = *rng;
        double v = ((double)(r >> 8) * 0x1p-24 - 0.5) * (double)(1u << (r % 7));
        if (r % 13 == 0)
            v = 0.0;
        if (t->dtype == PC_DTYPE_BOOL)
            v = (r >> 9) & 1;
        else if (!pc_dtype_is_float(t->dtype))
            v = (double)((int)(r >> 20) % 7 - 3);
        pc_element_store(p + (size_t)i * sz, t->dtype, v, 0.0);
    }
}
