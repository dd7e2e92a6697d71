/* run_ut's output comparison (compare.md §3, §7, §8; run_ut.md §6-§7): compare.py's unit-test
 * vectors of §11.3, the output structure rules, the status cascade, the per-API flow and the
 * result rows. */
#include "compare_test_support.h"

#define F16  PC_DTYPE_F16
#define BF16 PC_DTYPE_BF16
#define F32  PC_DTYPE_F32
#define F64  PC_DTYPE_F64

static pc_compare_options opts = {.threads = 1};

static void item(pc_detail_row *row, const char *api, pc_cmp_value b, pc_cmp_value d)
{
    assert_int_equal(pc_compare_item(row, api, &b, &d, &opts), PC_OK);
}

static const char *cell_text(const pc_detail_row *row, pc_metric m, char *buf, size_t size)
{
    pc_csv_format_cell(buf, size, &row->metrics[m], 14);
    return buf;
}

#define CELL(row, m) cell_text((row), (m), (char[64]){0}, 64)

/* ---- items ---- */

static void builtins_none_and_types(void **state)
{
    pc_detail_row row;
    item(&row, "api", pc_cmp_int(1), pc_cmp_str("str"));
    assert_int_equal(row.status, PC_VERDICT_ERROR);
    assert_string_equal(row.message, "bench and npu output type is different.");
    item(&row, "api", pc_cmp_int(1), pc_cmp_int(1));
    assert_int_equal(row.status, PC_VERDICT_PASS);
    assert_string_equal(CELL(&row, PC_METRIC_ERROR_RATE), "0");
    assert_string_equal(row.message, "");
    assert_string_equal(row.bench_dtype, "<class 'int'>");
    assert_string_equal(row.device_dtype, "<class 'int'>");
    assert_string_equal(row.shape, "");
    item(&row, "api", pc_cmp_int(1), pc_cmp_int(2));
    assert_int_equal(row.status, PC_VERDICT_ERROR);
    assert_string_equal(CELL(&row, PC_METRIC_ERROR_RATE), " ");
    /* bool is an int: bench True vs device 1 passes, bench 1 vs device True does not */
    item(&row, "api", pc_cmp_bool(true), pc_cmp_int(1));
    assert_int_equal(row.status, PC_VERDICT_PASS);
    assert_string_equal(row.bench_dtype, "<class 'bool'>");
    item(&row, "api", pc_cmp_int(1), pc_cmp_bool(true));
    assert_int_equal(row.status, PC_VERDICT_ERROR);
    item(&row, "api", pc_cmp_float((double)NAN), pc_cmp_float((double)NAN)); /* NaN != NaN */
    assert_int_equal(row.status, PC_VERDICT_ERROR);
    item(&row, "api", pc_cmp_float(1.5), pc_cmp_float(1.5));
    assert_int_equal(row.status, PC_VERDICT_PASS);
    assert_string_equal(row.bench_dtype, "<class 'float'>");
    item(&row, "api", pc_cmp_none(), pc_cmp_none());
    assert_int_equal(row.status, PC_VERDICT_SKIP);
    assert_string_equal(row.message, "Bench output is None, skip this test.");
    assert_string_equal(row.bench_dtype, "");

    pc_tensor t = make_tensor(F32, VALUES(1, 2));
    item(&row, "api", pc_cmp_none(), pc_cmp_tensor(&t));
    assert_int_equal(row.status, PC_VERDICT_ERROR);
    assert_string_equal(row.message, "bench and npu output type is different.");
    item(&row, "api", pc_cmp_tensor(&t), pc_cmp_none());
    assert_int_equal(row.status, PC_VERDICT_ERROR);
    pc_tensor_free(&t);
}

static void dicts_lists_and_others(void **state)
{
    pc_detail_row row;
    const char *k12[] = {"key1", "key2"}, *k13[] = {"key1", "key3"}, *k21[] = {"key2", "key1"};
    pc_cmp_value vals[2] = {pc_cmp_int(1), pc_cmp_int(2)};
    pc_cmp_value a = {.kind = PC_CMP_DICT, .items = vals, .count = 2, .keys = k12};
    pc_cmp_value b = {.kind = PC_CMP_DICT, .items = vals, .count = 2, .keys = k21};
    pc_cmp_value c = {.kind = PC_CMP_DICT, .items = vals, .count = 2, .keys = k13};
    item(&row, "api", a, b);
    assert_int_equal(row.status, PC_VERDICT_ERROR);
    assert_string_equal(row.message, "Unexpected output type in compare_core: <class 'list'>");
    item(&row, "api", a, c);
    assert_string_equal(row.message, "bench and npu output dict keys are different.");
    item(&row, "api", pc_cmp_list(vals, 2), pc_cmp_list(vals, 2));
    assert_string_equal(row.message, "Unexpected output type in compare_core: <class 'list'>");
    item(&row, "api", pc_cmp_tuple(vals, 2), pc_cmp_tuple(vals, 2));
    assert_string_equal(row.message, "Unexpected output type in compare_core: <class 'tuple'>");
    pc_cmp_value other = {.kind = PC_CMP_OTHER, .type_repr = "<class 'torch.dtype'>"};
    item(&row, "api", other, other);
    assert_int_equal(row.status, PC_VERDICT_ERROR);
    assert_string_equal(row.message,
                        "Unexpected output type in compare_core: <class 'torch.dtype'>");
}

static void tensor_preprocessing(void **state)
{
    pc_detail_row row;
    /* integer tensors: error rate only */
    pc_tensor i1 = make_tensor(PC_DTYPE_I64, VALUES(1, 2, 3)),
              i2 = make_tensor(PC_DTYPE_I64, VALUES(1, 2, 4));
    item(&row, "api", pc_cmp_tensor(&i1), pc_cmp_tensor(&i1));
    assert_int_equal(row.status, PC_VERDICT_PASS);
    assert_string_equal(
        row.message,
        "Compare algorithm is not supported for int64 data. Only judged by Error Rate.\n");
    assert_string_equal(CELL(&row, PC_METRIC_ERROR_RATE), "0.00000000000000");
    item(&row, "api", pc_cmp_tensor(&i1), pc_cmp_tensor(&i2));
    assert_int_equal(row.status, PC_VERDICT_ERROR);
    assert_string_equal(CELL(&row, PC_METRIC_ERROR_RATE), "0.33333333333333");
    /* bool: [T,F,T,F] vs [T,F,F,F] -> 0.25 */
    pc_tensor t1 = make_tensor(PC_DTYPE_BOOL, VALUES(1, 0, 1, 0)),
              t2 = make_tensor(PC_DTYPE_BOOL, VALUES(1, 0, 0, 0));
    item(&row, "api", pc_cmp_tensor(&t1), pc_cmp_tensor(&t2));
    assert_int_equal(row.status, PC_VERDICT_ERROR);
    assert_string_equal(CELL(&row, PC_METRIC_ERROR_RATE), "0.25000000000000");
    assert_string_equal(row.bench_dtype, "torch.bool");
    /* int32 vs int64 are comparable; int8 is not */
    pc_tensor i3 = make_tensor(PC_DTYPE_I32, VALUES(1, 2, 3)),
              i8 = make_tensor(PC_DTYPE_I8, VALUES(1, 2, 3));
    item(&row, "api", pc_cmp_tensor(&i3), pc_cmp_tensor(&i1));
    assert_int_equal(row.status, PC_VERDICT_PASS);
    item(&row, "api", pc_cmp_tensor(&i8), pc_cmp_tensor(&i8));
    assert_int_equal(row.status, PC_VERDICT_ERROR);
    assert_string_equal(row.message,
                        "Bench out dtype is int8 but npu output dtype is int8, cannot compare.");
    pc_tensor f = make_tensor(F32, VALUES(1, 2, 3));
    item(&row, "api", pc_cmp_tensor(&f), pc_cmp_tensor(&i1));
    assert_string_equal(
        row.message, "Bench out dtype is float32 but npu output dtype is int64, cannot compare.");
    /* shapes */
    pc_tensor g = make_tensor(F32, VALUES(1, 2));
    item(&row, "api", pc_cmp_tensor(&f), pc_cmp_tensor(&g));
    assert_int_equal(row.status, PC_VERDICT_ERROR);
    assert_string_equal(row.message,
                        "The shape of benchtorch.Size([3]) and nputorch.Size([2]) not equal.");
    assert_string_equal(row.shape, "(2,)");
    assert_string_equal(CELL(&row, PC_METRIC_COSINE), " ");
    /* empty */
    pc_tensor e1 = PC_TENSOR_NULL, e2 = PC_TENSOR_NULL;
    int64_t zero = 0, shape03[2] = {0, 3};
    assert_int_equal(pc_tensor_alloc(&e1, F32, &zero, 1), PC_OK);
    assert_int_equal(pc_tensor_alloc(&e2, F16, shape03, 2), PC_OK);
    item(&row, "api", pc_cmp_tensor(&e1), pc_cmp_tensor(&e1));
    assert_string_equal(row.message, "There is not bench calculation result.");
    assert_string_equal(row.shape, "(0,)");
    pc_tensor e3 = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_alloc(&e3, F32, shape03, 2), PC_OK);
    item(&row, "api", pc_cmp_tensor(&e3), pc_cmp_tensor(&e2));
    assert_string_equal(row.shape, "(0, 3)");
    assert_string_equal(row.message, "There is not bench calculation result.");
    /* a bfloat16 bench with a non-bfloat16 device cannot become a numpy array */
    pc_tensor h = make_tensor(BF16, VALUES(1, 2, 3));
    pc_cmp_value hb = pc_cmp_tensor(&h), fd = pc_cmp_tensor(&f);
    assert_int_equal(pc_compare_item(&row, "api", &hb, &fd, &opts), PC_ERR_UNSUPPORTED);
    assert_string_equal(pc_error_message(), "Got unsupported ScalarType BFloat16");
    /* float64 outputs: no new standard */
    pc_tensor d1 = make_tensor(F64, VALUES(0.1, 0.2));
    item(&row, "sin", pc_cmp_tensor(&d1), pc_cmp_tensor(&d1));
    assert_string_equal(row.message,
                        "The data type torch.float64 is not supported for new precision "
                        "standard.\nMax abs error is less than 0.001, consider as pass, "
                        "skip other check and set to SPACE.\n");
    /* a non-contiguous view compares like its contiguous copy */
    pc_tensor m = PC_TENSOR_NULL, mt = PC_TENSOR_NULL;
    int64_t sh[2] = {2, 3};
    assert_int_equal(pc_tensor_alloc(&m, F32, sh, 2), PC_OK);
    for (int64_t k = 0; k < 6; k++) {
        int64_t idx[2] = {k / 3, k % 3};
        pc_tensor_set(&m, idx, (double)k + 0.5);
    }
    assert_int_equal(pc_tensor_transpose(&mt, &m, 0, 1), PC_OK);
    pc_tensor mc = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_contiguous(&mc, &mt), PC_OK);
    item(&row, "api", pc_cmp_tensor(&mt), pc_cmp_tensor(&mc));
    assert_int_equal(row.status, PC_VERDICT_PASS);
    assert_string_equal(row.shape, "(3, 2)");
    pc_tensor *all[] = {&i1, &i2, &t1, &t2, &i3, &i8, &f, &g, &e1, &e2, &e3, &h, &d1, &m, &mt, &mc};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        pc_tensor_free(all[k]);
}

/* _compare_float_tensor's status cases, bench and device in the same dtype (§11.3) */
static void float_status_cases(void **state)
{
    pc_detail_row row;
    pc_tensor b = make_tensor(F16, VALUES(1, 2, 3)), d = make_tensor(F16, VALUES(1.1, 2.1, 3.1));
    item(&row, "__matmul__", pc_cmp_tensor(&b), pc_cmp_tensor(&d));
    assert_int_equal(row.status, PC_VERDICT_ERROR);
    assert_true(fabs(row.metrics[PC_METRIC_COSINE].v.f64 - 0.9998603424452616) < 3e-16);
    assert_string_equal(CELL(&row, PC_METRIC_MAX_ABS_ERR), "0.0996");
    assert_string_equal(CELL(&row, PC_METRIC_REL_ERR_HUNDREDTH), "0.00000000000000");
    assert_string_equal(CELL(&row, PC_METRIC_ULP_ERR_MAX), "102.0");
    assert_string_equal(CELL(&row, PC_METRIC_ULP_ERR_MEAN), "68.0");
    assert_string_equal(CELL(&row, PC_METRIC_ULP_ERR_PROPORTION), "1.00000000000000");
    assert_string_equal(row.message,
                        "\nRelative error is greater than 0.01, consider as error, skip "
                        "other check and set to SPACE.\n");
    pc_tensor_free(&d);
    d = make_tensor(F16, VALUES(1.0001, 2.0001, 3.0001));
    item(&row, "__matmul__", pc_cmp_tensor(&b), pc_cmp_tensor(&d));
    assert_int_equal(row.status, PC_VERDICT_PASS);
    assert_string_equal(CELL(&row, PC_METRIC_MAX_ABS_ERR), "0.0");
    assert_string_equal(CELL(&row, PC_METRIC_ULP_ERR_MAX), "0.0");
    pc_tensor_free(&d);
    d = make_tensor(F16, VALUES(1.01, 2.01, 3.01));
    item(&row, "__matmul__", pc_cmp_tensor(&b), pc_cmp_tensor(&d));
    assert_int_equal(row.status, PC_VERDICT_WARNING);
    assert_true(fabs(row.metrics[PC_METRIC_COSINE].v.f64 - 0.999998552439794) < 3e-16);
    assert_string_equal(CELL(&row, PC_METRIC_MAX_ABS_ERR), "0.009766");
    assert_string_equal(CELL(&row, PC_METRIC_REL_ERR_HUNDREDTH), "1.00000000000000");
    assert_string_equal(CELL(&row, PC_METRIC_REL_ERR_THOUSANDTH), "0.00000000000000");
    assert_string_equal(CELL(&row, PC_METRIC_ULP_ERR_MAX), "10.0");
    assert_string_equal(CELL(&row, PC_METRIC_ULP_ERR_MEAN), "6.6666665");
    pc_tensor_free(&b);
    pc_tensor_free(&d);

    b = make_tensor(F32, VALUES(1, 2, 3));
    d = make_tensor(F32, VALUES(1.01, 2.01, 3.01));
    item(&row, "__matmul__", pc_cmp_tensor(&b), pc_cmp_tensor(&d));
    assert_int_equal(row.status, PC_VERDICT_ERROR);
    assert_true(fabs(row.metrics[PC_METRIC_COSINE].v.f64 - 0.999998482429765) < 3e-16);
    assert_string_equal(CELL(&row, PC_METRIC_MAX_ABS_ERR), "0.00999999");
    assert_string_equal(CELL(&row, PC_METRIC_REL_ERR_THOUSANDTH), "0.00000000000000");
    assert_string_equal(CELL(&row, PC_METRIC_REL_ERR_TEN_THOUSANDTH), "0.00000000000000");
    assert_string_equal(CELL(&row, PC_METRIC_ULP_ERR_MAX), "83886.00000000000000");
    assert_string_equal(CELL(&row, PC_METRIC_ULP_ERR_MEAN), "55924.00000000000000");
    assert_string_equal(row.message,
                        "\nRelative error is greater than 0.001, consider as error, skip "
                        "other check and set to SPACE.\n");
    item(&row, "__matmul__", pc_cmp_tensor(&b), pc_cmp_tensor(&b));
    assert_int_equal(row.status, PC_VERDICT_PASS);
    item(&row, "mul", pc_cmp_tensor(&b), pc_cmp_tensor(&b));
    assert_int_equal(row.status, PC_VERDICT_PASS);
    assert_string_equal(CELL(&row, PC_METRIC_INF_NAN_ERR_RATIO), "0");
    assert_string_equal(CELL(&row, PC_METRIC_REL_ERR_RATIO), "0.00000000000000");
    assert_string_equal(CELL(&row, PC_METRIC_ABS_ERR_RATIO), "0");
    item(&row, "conv2d", pc_cmp_tensor(&b), pc_cmp_tensor(&b));
    assert_int_equal(row.status, PC_VERDICT_PASS);
    assert_string_equal(CELL(&row, PC_METRIC_REL_ERR_THOUSANDTH), "1.00000000000000");
    pc_tensor h = make_tensor(F16, VALUES(1, 2, 3));
    item(&row, "abs", pc_cmp_tensor(&h), pc_cmp_tensor(&b));
    assert_int_equal(row.status, PC_VERDICT_PASS);
    assert_string_equal(CELL(&row, PC_METRIC_ERROR_RATE), "0.00000000000000");
    pc_tensor_free(&h);
    pc_tensor_free(&b);
    pc_tensor_free(&d);

    /* fp32 ten-thousandth warning, and the pass message of fp32 */
    b = make_tensor(F64, VALUES(1, 2, 3, 4, 5, 6, 7, 8, 9, 10));
    d = make_tensor(F32, VALUES(1.0005, 2, 3, 4, 5, 6, 7, 8, 9, 10));
    item(&row, "api", pc_cmp_tensor(&b), pc_cmp_tensor(&d));
    assert_int_equal(row.status, PC_VERDICT_PASS); /* max abs 0.0005 < 0.001 */
    pc_tensor_free(&d);
    double dv[10000], bv[10000];
    for (int i = 0; i < 10000; i++) {
        bv[i] = 10 + i;
        dv[i] = i < 5 ? (10 + i) * 1.0005 : 10 + i;
    }
    pc_tensor_free(&b);
    b = make_tensor(F64, bv, 10000);
    d = make_tensor(F32, dv, 10000);
    item(&row, "api", pc_cmp_tensor(&b), pc_cmp_tensor(&d));
    assert_int_equal(row.status, PC_VERDICT_WARNING); /* 5 of 10000 above 0.0001 */
    assert_string_equal(CELL(&row, PC_METRIC_REL_ERR_TEN_THOUSANDTH), "0.99950000000000");
    for (int i = 0; i < 10000; i++) {
        bv[i] = 1000 + i;
        dv[i] = i < 5 ? (1000 + i) * 1.00005 : 1000 + i;
    }
    pc_tensor_free(&b);
    pc_tensor_free(&d);
    b = make_tensor(F64, bv, 10000);
    d = make_tensor(F32, dv, 10000);
    item(&row, "api", pc_cmp_tensor(&b), pc_cmp_tensor(&d));
    assert_int_equal(row.status, PC_VERDICT_PASS);
    assert_string_equal(row.message, "\nRelative error is less than 0.0001, consider as pass.\n");
    pc_tensor_free(&b);
    pc_tensor_free(&d);
}

static void fp8_outputs(void **state)
{
    /* fp8 outputs: decoded to float32, ULP standard with the fp8 formula, legacy pass */
    pc_detail_row row;
    pc_tensor b = make_tensor(F32, VALUES(1.0, 0.3, 300.0, 1e-5)),
              d = make_tensor(PC_DTYPE_F8E4M3FN, VALUES(1.125, 0.3125, 320.0, 0.0));
    item(&row, "api", pc_cmp_tensor(&b), pc_cmp_tensor(&d));
    assert_string_equal(row.device_dtype, "torch.float8_e4m3fn");
    assert_int_equal(row.status, PC_VERDICT_PASS);
    assert_int_equal(row.metrics[PC_METRIC_ULP_ERR_MAX].kind, PC_CSV_F64);
    assert_string_equal(CELL(&row, PC_METRIC_REL_ERR_THOUSANDTH), "0.00000000000000");
    pc_tensor_free(&b);
    pc_tensor_free(&d);
    /* inputs_fp8: a float32 device output is compared as float16, with the absolute standard */
    b = make_tensor(F32, VALUES(1.0, 2.0));
    d = make_tensor(F32, VALUES(1.0, 2.0));
    pc_compare_options o = {.threads = 1, .inputs_fp8 = true};
    pc_cmp_value vb = pc_cmp_tensor(&b), vd = pc_cmp_tensor(&d);
    assert_int_equal(pc_compare_item(&row, "matmul", &vb, &vd, &o), PC_OK);
    assert_string_equal(row.device_dtype, "torch.float16");
    assert_string_equal(CELL(&row, PC_METRIC_REL_ERR_RATIO), "0.00000000000000");
    pc_tensor_free(&b);
    pc_tensor_free(&d);
}

static void dropout_rule(void **state)
{
    double v[120], ones[120], w[100], x[100];
    for (int i = 0; i < 120; i++) {
        v[i] = (0x34 >> (i % 6)) & 1 ? 1 : 0; /* [0,0,1,1,0,1] repeated */
        v[i] = (double)((int[]){0, 0, 1, 1, 0, 1})[i % 6];
        ones[i] = 1;
    }
    for (int i = 0; i < 100; i++) {
        w[i] = i < 99 ? (double)((int[]){0, 0, 1})[i % 3] : 0;
        x[i] = i < 99 ? (double)((int[]){0, 1, 1})[i % 3] : 0;
    }
    pc_tensor a = make_tensor(F32, v, 120), o = make_tensor(F32, ones, 120);
    pc_tensor s = make_tensor(F32, VALUES(0, 1, 0)), p = make_tensor(F32, w, 100),
              q = make_tensor(F32, x, 100);
    assert_int_equal(pc_compare_dropout(&a, &a), PC_VERDICT_PASS);
    assert_int_equal(pc_compare_dropout(&a, &o), PC_VERDICT_ERROR);
    assert_int_equal(pc_compare_dropout(&s, &s), PC_VERDICT_PASS);
    assert_int_equal(pc_compare_dropout(&p, &q), PC_VERDICT_ERROR); /* |67 - 34| / 100 */

    /* as an API: the status in the result row; msprobe writes no details row, precheck one for
     * an error, with what the rule saw (docs/COMPATIBILITY.md), and still none for a pass */
    char *det, *res;
    api_csv("Functional.dropout.0", &a, &o, &det, &res);
    assert_string_equal(det,
                        "Functional.dropout.0.forward.output.0,torch.float32,torch.float32,"
                        "\"(120,)\", , , , , , , , , , , , , , , , , ,error,\"dropout rule: 60 "
                        "of 120 elements are zero on the bench (50.0%), 0 on the device "
                        "(0.0%); the fractions must differ by less than 10%.\"\r\n");
    assert_string_equal(res, "Functional.dropout.0,error, \r\n");
    free(det);
    free(res);
    api_csv("Functional.dropout.0", &a, &a, &det, &res);
    assert_string_equal(det, "");
    assert_string_equal(res, "Functional.dropout.0,pass, \r\n");
    free(det);
    free(res);
    pc_tensor *all[] = {&a, &o, &s, &p, &q};
    for (size_t k = 0; k < 5; k++)
        pc_tensor_free(all[k]);
}

/* ---- the wrapper and the API ---- */

static void list_outputs(void **state)
{
    double vals[10000];
    for (int i = 0; i < 10000; i++)
        vals[i] = 1 + 3 * fabs(sin(i)); /* no small values: the small-value ratio is int 0 */
    pc_tensor x = make_tensor(F32, vals, 10000);
    int64_t shape[2] = {100, 100};
    assert_int_equal(pc_tensor_reshape(&x, &x, shape, 2), PC_OK);
    pc_cmp_value one = pc_cmp_tensor(&x);
    pc_cmp_value two[2] = {one, one};
    pc_cmp_value lb = pc_cmp_list(two, 2), ld = pc_cmp_list(two, 2);
    pc_api_outputs outs = {.bench_output = &lb, .device_output = &ld};
    pc_api_result res = PC_API_RESULT_INIT;
    assert_int_equal(pc_compare_api(&res, "Torch.api.0", &outs, &opts), PC_OK);
    assert_int_equal(res.n_fwd, 2);
    assert_int_equal(res.forward, PC_VERDICT_PASS);
    assert_int_equal(res.backward, PC_VERDICT_SPACE);
    pc_csv_buffer det = PC_CSV_BUFFER_INIT, sum = PC_CSV_BUFFER_INIT;
    assert_int_equal(pc_api_result_append_csv(&res, &det, &sum, 14), PC_OK);
    const char *want = ",torch.float32,torch.float32,\"(100, 100)\",1.00000000000000,0.0, , , , ,"
                       "0.00000000000000,0.00000000000000,0,0.0,0.0, , , , , , ,pass,\"\nMax abs "
                       "error is less than 0.001, consider as pass, skip other check and set to "
                       "SPACE.\n\"\r\n";
    char expect[2048];
    snprintf(expect, sizeof expect, "Torch.api.0.forward.output.0%sTorch.api.0.forward.output.1%s",
             want, want);
    assert_text(det.data, expect);
    assert_text(sum.data, "Torch.api.0,pass, \r\n");

    /* a device list longer than the bench list is cut; a shorter one makes the API a SKIP */
    pc_cmp_value lone = pc_cmp_list(two, 1);
    outs.bench_output = &lone;
    assert_int_equal(pc_compare_api(&res, "Torch.api.0", &outs, &opts), PC_OK);
    assert_int_equal(res.n_fwd, 1);
    outs.bench_output = &lb;
    outs.device_output = &lone;
    assert_int_equal(pc_compare_api(&res, "Torch.api.0", &outs, &opts), PC_OK);
    assert_int_equal(res.forward, PC_VERDICT_SKIP);
    pc_csv_buffer_clear(&det);
    pc_csv_buffer_clear(&sum);
    assert_int_equal(pc_api_result_append_csv(&res, &det, &sum, 14), PC_OK);
    assert_text(sum.data, "Torch.api.0,SKIP,SKIP,list index out of range\r\n");
    assert_text(det.data, "Torch.api.0.forward.output.0, , , , , , , , , , , , , , , , , , , , "
                          ",SKIP,list index out of range\r\n");
    pc_csv_buffer_free(&det);
    pc_csv_buffer_free(&sum);
    pc_api_result_free(&res);
    pc_tensor_free(&x);
}

static void aggregation_any_error_then_any_warning(void **state)
{
    pc_verdict a[] = {PC_VERDICT_ERROR, PC_VERDICT_WARNING};
    pc_verdict b[] = {PC_VERDICT_WARNING, PC_VERDICT_ERROR};
    pc_verdict c[] = {PC_VERDICT_SKIP, PC_VERDICT_SKIP};
    pc_verdict d[] = {PC_VERDICT_ERROR, PC_VERDICT_PASS, PC_VERDICT_SKIP};
    pc_verdict e[] = {PC_VERDICT_PASS, PC_VERDICT_WARNING, PC_VERDICT_SKIP};
    /* the documented rule; msprobe's code would give Warning here (last non-pass wins) */
    assert_int_equal(pc_verdict_aggregate(a, 2), PC_VERDICT_ERROR);
    assert_int_equal(pc_verdict_aggregate(e, 3), PC_VERDICT_WARNING);
    assert_int_equal(pc_verdict_aggregate(b, 2), PC_VERDICT_ERROR);
    assert_int_equal(pc_verdict_aggregate(c, 2), PC_VERDICT_PASS);
    assert_int_equal(pc_verdict_aggregate(d, 3), PC_VERDICT_ERROR);
    assert_int_equal(pc_verdict_aggregate(NULL, 0), PC_VERDICT_PASS);
    assert_string_equal(pc_verdict_text(PC_VERDICT_WARNING), "Warning");
    assert_string_equal(pc_verdict_text(PC_VERDICT_SPACE), " ");
}

static void backward_rows_and_messages(void **state)
{
    pc_tensor b = make_tensor(F32, VALUES(1, 2, 3)), d = make_tensor(F16, VALUES(1, 2, 3.1));
    pc_cmp_value out_b = pc_cmp_tensor(&b), out_d = pc_cmp_tensor(&d);
    pc_cmp_value gb[2] = {pc_cmp_none(), pc_cmp_tensor(&b)},
                 gd[2] = {pc_cmp_none(), pc_cmp_tensor(&d)};
    pc_cmp_value grads_b = pc_cmp_list(gb, 2), grads_d = pc_cmp_list(gd, 2);
    pc_api_outputs outs = {&out_b, &out_d, &grads_b, &grads_d, NULL};
    pc_api_result res = PC_API_RESULT_INIT;
    assert_int_equal(pc_compare_api(&res, "Functional.api.0", &outs, &opts), PC_OK);
    assert_int_equal(res.n_fwd, 1);
    assert_int_equal(res.n_bwd, 2);
    assert_int_equal(res.bwd_rows[0].status, PC_VERDICT_SKIP);
    /* SKIP rows do not change the direction's status */
    assert_int_equal(res.backward, res.bwd_rows[1].status);
    pc_csv_buffer det = PC_CSV_BUFFER_INIT, sum = PC_CSV_BUFFER_INIT;
    assert_int_equal(pc_api_result_append_csv(&res, &det, &sum, 14), PC_OK);
    assert_non_null(strstr(det.data, "\r\nFunctional.api.0.backward.output.0, , , , , , , , , , , "
                                     ", , , , , , , , , ,SKIP,\"Bench output is None, skip this "
                                     "test.\"\r\nFunctional.api.0.backward.output.1,"));
    char want_sum[128];
    snprintf(want_sum, sizeof want_sum, "Functional.api.0,%s,%s\r\n", pc_verdict_text(res.forward),
             pc_verdict_text(res.backward));
    assert_text(sum.data, want_sum);

    /* a backward message replaces the rows with one SKIP row; the result row gets it too */
    outs.backward_message = "Multiple backward is not supported.";
    assert_int_equal(pc_compare_api(&res, "Functional.api.0", &outs, &opts), PC_OK);
    assert_int_equal(res.backward, PC_VERDICT_SKIP);
    assert_int_equal(res.n_bwd, 1);
    pc_csv_buffer_clear(&det);
    pc_csv_buffer_clear(&sum);
    assert_int_equal(pc_api_result_append_csv(&res, &det, &sum, 14), PC_OK);
    snprintf(want_sum, sizeof want_sum,
             "Functional.api.0,%s,SKIP,Multiple backward is not supported.\r\n",
             pc_verdict_text(res.forward));
    assert_text(sum.data, want_sum);
    assert_non_null(strstr(det.data,
                           "\r\nFunctional.api.0.backward.output.0, , , , , , , , , , , "
                           ", , , , , , , , , ,SKIP,Multiple backward is not supported.\r\n"));

    /* no grads: backward SPACE, no rows */
    outs.backward_message = NULL;
    pc_cmp_value empty = pc_cmp_list(NULL, 0);
    outs.bench_grads = &empty;
    assert_int_equal(pc_compare_api(&res, "Functional.api.0", &outs, &opts), PC_OK);
    assert_int_equal(res.backward, PC_VERDICT_SPACE);
    assert_int_equal(res.n_bwd, 0);

    /* a name msprobe cannot split */
    assert_int_equal(pc_compare_api(&res, "Functional.api", &outs, &opts), PC_OK);
    pc_csv_buffer_clear(&det);
    pc_csv_buffer_clear(&sum);
    assert_int_equal(pc_api_result_append_csv(&res, &det, &sum, 14), PC_OK);
    assert_text(sum.data,
                "Functional.api,SKIP,SKIP,API name Functional.api has not been adapted.\r\n");
    /* four parts: Type.pre.name.idx picks "pre.name" (linalg.inv is in no list: benchmark) */
    assert_int_equal(pc_compare_api(&res, "Torch.linalg.inv.0", &outs, &opts), PC_OK);
    assert_int_equal(res.n_fwd, 1);
    assert_int_equal(res.fwd_rows[0].metrics[PC_METRIC_RMSE].kind, PC_CSV_F64);
    /* an exception recorded by the runner */
    assert_int_equal(
        pc_api_result_skip(&res, "Distributed.all_reduce.0",
                           "API Distributed.all_reduce.0 not support for run ut. SKIP."),
        PC_OK);
    pc_csv_buffer_clear(&det);
    pc_csv_buffer_clear(&sum);
    assert_int_equal(pc_api_result_append_csv(&res, &det, &sum, 14), PC_OK);
    assert_text(sum.data, "Distributed.all_reduce.0,SKIP,SKIP,API Distributed.all_reduce.0 not "
                          "support for run ut. SKIP.\r\n");
    pc_csv_buffer_free(&det);
    pc_csv_buffer_free(&sum);
    pc_api_result_free(&res);
    pc_tensor_free(&b);
    pc_tensor_free(&d);
}

static void api_status_of_mixed_rows(void **state)
{
    pc_tensor b = make_tensor(F16, VALUES(1, 2, 3)), d = make_tensor(F16, VALUES(1.01, 2.01, 3.01));
    pc_cmp_value bi[2] = {pc_cmp_int(1), pc_cmp_tensor(&b)},
                 di[2] = {pc_cmp_int(2), pc_cmp_tensor(&d)};
    pc_cmp_value lb = pc_cmp_tuple(bi, 2), ld = pc_cmp_tuple(di, 2);
    pc_api_outputs outs = {.bench_output = &lb, .device_output = &ld};
    pc_api_result res = PC_API_RESULT_INIT;
    assert_int_equal(pc_compare_api(&res, "Torch.matmul.0", &outs, &opts), PC_OK);
    assert_int_equal(res.n_fwd, 2);
    assert_int_equal(res.fwd_rows[0].status, PC_VERDICT_ERROR);
    assert_int_equal(res.fwd_rows[1].status, PC_VERDICT_WARNING);
    assert_int_equal(res.forward, PC_VERDICT_ERROR); /* msprobe's code: Warning */
    pc_api_result_free(&res);
    pc_tensor_free(&b);
    pc_tensor_free(&d);
}

static void headers(void **state)
{
    pc_csv_buffer buf = PC_CSV_BUFFER_INIT;
    assert_int_equal(pc_details_header_append(&buf), PC_OK);
    assert_int_equal(pc_result_header_append(&buf), PC_OK);
    assert_text(buf.data,
                "API Name,Bench Dtype,DEVICE Dtype,Shape,余弦相似度,最大绝对误差,双百指标,双千指标,"
                "双万指标,二进制一致错误率,误差均衡性,均方根误差,小值域错误占比,相对误差最大值,"
                "相对误差平均值,inf/nan错误率,相对误差错误率,绝对误差错误率,ULP误差最大值,"
                "ULP误差平均值,ULP误差大于阈值占比,Status,Message\r\n"
                "API name,Forward Test Success,Backward Test Success,Message\r\n");
    for (int m = 0; m < PC_METRIC_COUNT; m++)
        assert_string_equal(pc_details_column(4 + (size_t)m), pc_metric_column((pc_metric)m));
    assert_null(pc_details_column(PC_DETAILS_COLUMNS));
    pc_csv_buffer_free(&buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(builtins_none_and_types),
        cmocka_unit_test(dicts_lists_and_others),
        cmocka_unit_test(tensor_preprocessing),
        cmocka_unit_test(float_status_cases),
        cmocka_unit_test(fp8_outputs),
        cmocka_unit_test(dropout_rule),
        cmocka_unit_test(list_outputs),
        cmocka_unit_test(aggregation_any_error_then_any_warning),
        cmocka_unit_test(backward_rows_and_messages),
        cmocka_unit_test(api_status_of_mixed_rows),
        cmocka_unit_test(headers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
