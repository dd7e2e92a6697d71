/*
 * npu_fusion_attention's atten_mask (spec run_ut.md §4.2): with sparse_mode 2, 3 or 4 and no
 * data file, the input is msprobe's fixed "compressed" mask, a 2048 x 2048 bool tensor true
 * strictly above the diagonal, whatever the record's shape; other modes generate the record
 * normally; a list or null sparse_mode is msprobe's error. The op then expands the compressed
 * mask to the sparse mode's own mask: with it, the causal attention over 512 positions (eight
 * row blocks of the op's blockwise kernel) equals a plain float64 attention written here, in
 * the forward and the backward.
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

#define S 512
#define D 8

#define TENSOR(dt, shape)                                                                          \
    "{\"type\": \"torch.Tensor\", \"dtype\": \"torch." dt "\", \"shape\": " shape ", "             \
    "\"Max\": 1.0, \"Min\": -1.0, \"requires_grad\": true}"
#define QKV TENSOR("float32", "[1, 512, 1, 8]")
#define MASK(shape)                                                                                \
    "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.bool\", \"shape\": " shape ", "               \
    "\"Max\": true, \"Min\": false, \"requires_grad\": false}"
#define FA(n, kwargs)                                                                              \
    "\"NPU.npu_fusion_attention." #n ".forward\": {\"input_args\": [" QKV ", " QKV ", " QKV "], "  \
    "\"input_kwargs\": {\"head_num\": {\"type\": \"int\", \"value\": 1}, \"input_layout\": "       \
    "{\"type\": \"str\", \"value\": \"BSND\"}, " kwargs "}, \"output\": []}"

#define SPARSE(v)  "\"sparse_mode\": {\"type\": \"int\", \"value\": " #v "}"
#define ATTEN(shp) "\"atten_mask\": " MASK(shp)

/* .0-.1: sparse modes 2 and 3 (the mask after or before sparse_mode); .2: mode 1; .3: no
 * sparse_mode (0); .4: a list as sparse_mode; .5: mode 2 without a mask */
/* clang-format off */
static const char dump_json[] =
    "{\"task\": \"statistics\", \"level\": \"L1\", \"dump_data_dir\": null, \"data\": {"
    FA(0, ATTEN("[8, 8]") ", " SPARSE(2)) ","
    FA(1, SPARSE(3) ", " ATTEN("[4, 4]")) ","
    FA(2, ATTEN("[3, 5]") ", " SPARSE(1)) ","
    FA(3, ATTEN("[3, 5]")) ","
    FA(4, ATTEN("[3, 5]") ", \"sparse_mode\": [{\"type\": \"int\", \"value\": 2}]") ","
    FA(5, SPARSE(2)) ","
    "\"Torch.add.0.forward\": {\"input_args\": [" MASK("[3, 5]") "], \"input_kwargs\": {}, "
    "\"output\": []}}}";
/* clang-format on */

static pc_dump *parse(void)
{
    pc_dump *d = NULL;
    assert_int_equal(pc_dump_parse(&d, dump_json, sizeof dump_json - 1, "test.json"), PC_OK);
    return d;
}

static const pc_dump_arg *kwarg(const pc_dump_api *api, const char *key)
{
    for (size_t i = 0; i < api->forward.kwarg_count; i++)
        if (strcmp(api->forward.kwargs[i].key, key) == 0)
            return &api->forward.kwargs[i].value;
    fail_msg("no kwarg %s", key);
    return NULL;
}

static pc_status provide(const pc_dump *d, const char *name, const char *key, pc_tensor *out)
{
    const pc_dump_api *api = pc_dump_find(d, name);
    assert_non_null(api);
    pc_inputs ctx = {0};
    pc_inputs_begin(&ctx, d, PC_INPUTS_DEFAULT_SEED, api);
    return pc_inputs_provide(&ctx, api, kwarg(api, key), out);
}

static void assert_compressed(const pc_tensor *t)
{
    assert_int_equal(t->dtype, PC_DTYPE_BOOL);
    assert_int_equal(t->rank, 2);
    assert_int_equal(t->shape[0], 2048);
    assert_int_equal(t->shape[1], 2048);
    const unsigned char *m = pc_tensor_data(t);
    for (int64_t i = 0; i < 2048; i++)
        for (int64_t j = 0; j < 2048; j++)
            if ((m[i * 2048 + j] != 0) != (j > i))
                fail_msg("mask[%lld][%lld] = %d", (long long)i, (long long)j, m[i * 2048 + j]);
}

static void test_sparse_modes_get_the_compressed_mask(void **state)
{
    (void)state;
    pc_dump *d = parse();
    const char *names[] = {"NPU.npu_fusion_attention.0", "NPU.npu_fusion_attention.1"};
    for (int k = 0; k < 2; k++) {
        pc_tensor t = PC_TENSOR_NULL;
        assert_int_equal(provide(d, names[k], "atten_mask", &t), PC_OK);
        assert_compressed(&t);
        pc_tensor_free(&t);
    }
    pc_dump_free(d);
}

static void test_other_modes_generate_the_record(void **state)
{
    (void)state;
    pc_dump *d = parse();
    const char *names[] = {"NPU.npu_fusion_attention.2", "NPU.npu_fusion_attention.3"};
    for (int k = 0; k < 2; k++) { /* sparse_mode 1, and none (0) */
        pc_tensor t = PC_TENSOR_NULL;
        assert_int_equal(provide(d, names[k], "atten_mask", &t), PC_OK);
        assert_int_equal(t.dtype, PC_DTYPE_BOOL);
        assert_int_equal(t.rank, 2);
        assert_int_equal(t.shape[0], 3);
        assert_int_equal(t.shape[1], 5);
        pc_tensor_free(&t);
    }
    /* another API's bool tensor, and the query of a sparse-mode call: untouched */
    const pc_dump_api *add = pc_dump_find(d, "Torch.add.0");
    pc_inputs ctx = {0};
    pc_inputs_begin(&ctx, d, PC_INPUTS_DEFAULT_SEED, add);
    pc_tensor t = PC_TENSOR_NULL;
    assert_int_equal(pc_inputs_provide(&ctx, add, &add->forward.input_args.u.list.items[0], &t),
                     PC_OK);
    assert_int_equal(t.shape[0], 3);
    pc_tensor_free(&t);
    const pc_dump_api *fa = pc_dump_find(d, "NPU.npu_fusion_attention.0");
    pc_inputs_begin(&ctx, d, PC_INPUTS_DEFAULT_SEED, fa);
    assert_int_equal(pc_inputs_provide(&ctx, fa, &fa->forward.input_args.u.list.items[0], &t),
                     PC_OK);
    assert_int_equal(t.dtype, PC_DTYPE_F32);
    assert_int_equal(t.rank, 4);
    pc_tensor_free(&t);
    pc_dump_free(d);
}

static void test_sparse_mode_of_a_wrong_type(void **state)
{
    (void)state;
    pc_dump *d = parse();
    pc_tensor t = PC_TENSOR_NULL;
    assert_int_equal(provide(d, "NPU.npu_fusion_attention.4", "atten_mask", &t), PC_ERR_INVALID);
    assert_string_equal(pc_error_message(),
                        "The sparse_mode value is not int or dict, but <class 'list'>");
    pc_dump_free(d);
}

/* ---- the op with the compressed mask against a plain causal attention ---- */

static double at(const pc_tensor *t, int64_t i)
{
    int64_t idx[4] = {0, i / D, 0, i % D}; /* [1, S, 1, D] */
    return pc_tensor_get(t, idx);
}

static double rel_err(const pc_tensor *got, const double *want)
{
    double md = 0, ma = 0;
    for (int64_t i = 0; i < S * D; i++) {
        md = fmax(md, fabs(at(got, i) - want[i]));
        ma = fmax(ma, fabs(want[i]));
    }
    return md / ma;
}

static void test_causal_attention_with_the_compressed_mask(void **state)
{
    (void)state;
    pc_dump *d = parse();
    const pc_api_name *nm = pc_api_lookup("NPU", "npu_fusion_attention");
    assert_non_null(nm);
    pc_op_call calls[2], bench[2];
    pc_op_result r[2] = {{0}, {0}};
    /* .0 gets the compressed mask; .5 has no mask: sparse mode 2 makes the same one */
    const char *names[2] = {"NPU.npu_fusion_attention.0", "NPU.npu_fusion_attention.5"};
    for (int c = 0; c < 2; c++) {
        const pc_dump_api *api = pc_dump_find(d, names[c]);
        pc_inputs ctx = {0};
        pc_inputs_begin(&ctx, d, PC_INPUTS_DEFAULT_SEED, api);
        assert_int_equal(pc_op_bind(api, nm, pc_inputs_provide, &ctx, &calls[c]), PC_OK);
        assert_int_equal(pc_bench_prepare(&calls[c], PC_BENCH_FP64, &bench[c]), PC_OK);
        assert_int_equal(pc_op_forward(&bench[c], PC_COMPUTE_BENCH, &r[c]), PC_OK);
        assert_int_equal(r[c].count, 3);
    }
    /* the same inputs (keyed by the API's name): both APIs' queries differ, so compare each
     * against its own reference */
    double *q = malloc(sizeof(double) * S * D * 8);
    assert_non_null(q);
    double *k = q + S * D, *v = k + S * D, *go = v + S * D, *o = go + S * D, *dq = o + S * D,
           *dk = dq + S * D, *dv = dk + S * D;
    for (int c = 0; c < 2; c++) {
        for (int64_t i = 0; i < S * D; i++) {
            q[i] = at(pc_call_tensor(&bench[c], 0), i);
            k[i] = at(pc_call_tensor(&bench[c], 1), i);
            v[i] = at(pc_call_tensor(&bench[c], 2), i);
            go[i] = sin(0.37 * (double)i) * 0.5;
        }
        pc_tensor g = PC_TENSOR_NULL;
        int64_t shape[4] = {1, S, 1, D};
        assert_int_equal(pc_tensor_alloc(&g, PC_DTYPE_F64, shape, 4), PC_OK);
        memcpy(pc_tensor_data(&g), go, sizeof(double) * S * D);
        pc_op_grads gr = {0};
        assert_int_equal(pc_op_backward(&bench[c], PC_COMPUTE_BENCH, &g, &gr), PC_OK);
        pc_test_causal_attention(S, D, q, k, v, go, o, dq, dk, dv);
        assert_true(rel_err(&r[c].tensors[0], o) < 1e-13);
        assert_true(rel_err(&gr.grads[0], dq) < 1e-12);
        assert_true(rel_err(&gr.grads[1], dk) < 1e-12);
        assert_true(rel_err(&gr.grads[2], dv) < 1e-12);
        /* the device (float32 opmath) is close too */
        pc_op_result rd = {0};
        pc_op_grads gd = {0};
        pc_tensor g32 = PC_TENSOR_NULL;
        assert_int_equal(pc_op_forward(&calls[c], PC_COMPUTE_DEVICE, &rd), PC_OK);
        assert_int_equal(rd.tensors[0].dtype, PC_DTYPE_F32);
        assert_true(rel_err(&rd.tensors[0], o) < 1e-5);
        assert_int_equal(pc_tensor_cast(&g32, &g, PC_DTYPE_F32), PC_OK);
        assert_int_equal(pc_op_backward(&calls[c], PC_COMPUTE_DEVICE, &g32, &gd), PC_OK);
        assert_true(rel_err(&gd.grads[0], dq) < 1e-5);
        assert_true(rel_err(&gd.grads[1], dk) < 1e-5);
        assert_true(rel_err(&gd.grads[2], dv) < 1e-5);
        pc_op_grads_free(&gd);
        pc_tensor_free(&g32);
        pc_op_result_free(&rd);
        pc_op_grads_free(&gr);
        pc_tensor_free(&g);
    }
    free(q);
    for (int c = 0; c < 2; c++) {
        pc_op_result_free(&r[c]);
        pc_op_call_free(&bench[c]);
        pc_op_call_free(&calls[c]);
    }
    pc_dump_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sparse_modes_get_the_compressed_mask),
        cmocka_unit_test(test_other_modes_generate_the_record),
        cmocka_unit_test(test_sparse_mode_of_a_wrong_type),
        cmocka_unit_test(test_causal_attention_with_the_compressed_mask),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
