/*
 * npu_fusion_attention with several heads and enough scores that the kernel works on heads in
 * parallel (one thread a head, single-threaded BLAS: src/ops/npu/npu_attention.c): four heads of
 * 1040 causal positions, forward and backward on the float64 bench, each head against a plain
 * float64 causal attention written here, and the device (float32) close to it.
 */
#include "pc_op_test.h"
#include "pc_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/inputs/bind.h"
#include "precheck/inputs/inputs.h"
#include "precheck/ops/call.h"
#include "precheck/ops/exec.h"

#define S 1040 /* 4 heads x 1040^2 scores: above the kernel's parallel-heads threshold (2^22) */
#define N 4
#define D 8

#define QKV                                                                                        \
    "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [1, 1040, 4, 8], "      \
    "\"Max\": 1.0, \"Min\": -1.0, \"requires_grad\": true}"

static const char dump_json[] =
    "{\"task\": \"statistics\", \"level\": \"L1\", \"dump_data_dir\": null, \"data\": {"
    "\"NPU.npu_fusion_attention.0.forward\": {\"input_args\": [" QKV ", " QKV ", " QKV "], "
    "\"input_kwargs\": {\"head_num\": {\"type\": \"int\", \"value\": 4}, \"input_layout\": "
    "{\"type\": \"str\", \"value\": \"BSND\"}, \"sparse_mode\": {\"type\": \"int\", \"value\": "
    "2}}, "
    "\"output\": []}}}";

/* Element (s, n, d) of a [1, S, N, D] tensor. */
static double at(const pc_tensor *t, int64_t s, int64_t n, int64_t d)
{
    int64_t idx[4] = {0, s, n, d};
    return pc_tensor_get(t, idx);
}

/* max |got - want| / max |want| over head n */
static double rel_err(const pc_tensor *got, int64_t n, const double *want)
{
    double md = 0, ma = 0;
    for (int64_t s = 0; s < S; s++)
        for (int d = 0; d < D; d++) {
            md = fmax(md, fabs(at(got, s, n, d) - want[s * D + d]));
            ma = fmax(ma, fabs(want[s * D + d]));
        }
    return md / ma;
}

static void test_heads_in_parallel(void **state)
{
    (void)state;
    pc_dump *dump = NULL;
    assert_int_equal(pc_dump_parse(&dump, dump_json, sizeof dump_json - 1, "t.json"), PC_OK);
    const pc_api_name *nm = pc_api_lookup("NPU", "npu_fusion_attention");
    const pc_dump_api *api = pc_dump_find(dump, "NPU.npu_fusion_attention.0");
    assert_non_null(nm);
    assert_non_null(api);
    pc_inputs ctx = {0};
    pc_inputs_begin(&ctx, dump, PC_INPUTS_DEFAULT_SEED, api);
    pc_op_call call, bench;
    assert_int_equal(pc_op_bind(api, nm, pc_inputs_provide, &ctx, &call), PC_OK);
    assert_int_equal(pc_bench_prepare(&call, PC_BENCH_FP64, &bench), PC_OK);
    int64_t shape[4] = {1, S, N, D};
    pc_tensor g = PC_TENSOR_NULL, g32 = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_alloc(&g, PC_DTYPE_F64, shape, 4), PC_OK);
    double *gv = pc_tensor_data(&g);
    for (int64_t i = 0; i < S * N * D; i++)
        gv[i] = sin(0.37 * (double)i) * 0.5;
    assert_int_equal(pc_tensor_cast(&g32, &g, PC_DTYPE_F32), PC_OK);
    pc_op_result r = {0}, rd = {0};
    pc_op_grads gr = {0}, gd = {0};
    assert_int_equal(pc_op_forward(&bench, PC_COMPUTE_BENCH, &r), PC_OK);
    assert_int_equal(pc_op_backward(&bench, PC_COMPUTE_BENCH, &g, &gr), PC_OK);
    assert_int_equal(pc_op_forward(&call, PC_COMPUTE_DEVICE, &rd), PC_OK);
    assert_int_equal(pc_op_backward(&call, PC_COMPUTE_DEVICE, &g32, &gd), PC_OK);
    double *buf = malloc(sizeof(double) * S * D * 8);
    assert_non_null(buf);
    double *q = buf, *k = q + S * D, *v = k + S * D, *go = v + S * D, *o = go + S * D,
           *dq = o + S * D, *dk = dq + S * D, *dv = dk + S * D;
    for (int64_t n = 0; n < N; n++) {
        for (int64_t s = 0; s < S; s++)
            for (int d = 0; d < D; d++) {
                q[s * D + d] = at(pc_call_tensor(&bench, 0), s, n, d);
                k[s * D + d] = at(pc_call_tensor(&bench, 1), s, n, d);
                v[s * D + d] = at(pc_call_tensor(&bench, 2), s, n, d);
                go[s * D + d] = at(&g, s, n, d);
            }
        pc_test_causal_attention(S, D, q, k, v, go, o, dq, dk, dv);
        assert_true(rel_err(&r.tensors[0], n, o) < 1e-13);
        assert_true(rel_err(&gr.grads[0], n, dq) < 1e-12);
        assert_true(rel_err(&gr.grads[1], n, dk) < 1e-12);
        assert_true(rel_err(&gr.grads[2], n, dv) < 1e-12);
        assert_true(rel_err(&rd.tensors[0], n, o) < 1e-5);
        assert_true(rel_err(&gd.grads[0], n, dq) < 1e-5);
        assert_true(rel_err(&gd.grads[1], n, dk) < 1e-5);
        assert_true(rel_err(&gd.grads[2], n, dv) < 1e-5);
    }
    free(buf);
    pc_op_grads_free(&gd);
    pc_op_grads_free(&gr);
    pc_op_result_free(&rd);
    pc_op_result_free(&r);
    pc_tensor_free(&g32);
    pc_tensor_free(&g);
    pc_op_call_free(&bench);
    pc_op_call_free(&call);
    pc_dump_free(dump);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heads_in_parallel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
