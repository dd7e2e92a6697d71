/* The metric vectors of compare.md §11.1, §11.2 and §11.5 (values of msprobe's own unit tests
 * and of running its code), through pc_metrics_compute: values, and the Python type of each
 * cell (float64, numpy float32 / float16, or int 0), which decides how the CSV prints it. */
#include "pc_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/compare/metrics.h"
#include "precheck/core/convert.h"

#define F16  PC_DTYPE_F16
#define BF16 PC_DTYPE_BF16
#define F32  PC_DTYPE_F32
#define F64  PC_DTYPE_F64

#define VALUES(...) ((const double[]){__VA_ARGS__})
#define COUNT(...)  (sizeof((const double[]){__VA_ARGS__}) / sizeof(double))

typedef struct run_args {
    pc_dtype bench_dtype, device_dtype, output;
    pc_standard standard;
    bool zero_dim;
} run_args;

#define ARGS(b, d, out, std)  ((run_args){(b), (d), (out), (std), false})
#define ARGS0(b, d, out, std) ((run_args){(b), (d), (out), (std), true})

/* Metrics of bench/device given as decimal literals, each rounded once to its array's dtype
 * (bf16 device arrays are passed as bfloat16, as msprobe reads them). The reference and the
 * fast kernels must agree; the cosine is taken in reference-BLAS order so that every digit is
 * numpy's. */
static pc_metrics_result run(run_args a, const double *bench, const double *device, size_t n)
{
    void *b = calloc(n, 8), *d = calloc(n, 8);
    for (size_t i = 0; i < n; i++) {
        pc_element_store((char *)b + i * pc_dtype_size(a.bench_dtype), a.bench_dtype, bench[i], 0);
        pc_element_store((char *)d + i * pc_dtype_size(a.device_dtype), a.device_dtype, device[i],
                         0);
    }
    pc_metrics_input in = {
        .bench = b,
        .bench_dtype = a.bench_dtype,
        .device = d,
        .device_dtype = a.device_dtype,
        .n = (int64_t)n,
        .output_dtype = a.output,
        .zero_dim = a.zero_dim,
        .standard = a.standard,
        .threads = 1,
        .cosine_blas_order = true,
    };
    pc_metrics_result r, ref;
    assert_int_equal(pc_metrics_compute(&in, &r), PC_OK);
    assert_int_equal(pc_metrics_compute_reference(&in, &ref), PC_OK);
    for (int i = 0; i < PC_METRIC_COUNT; i++) {
        assert_int_equal(r.cells[i].kind, ref.cells[i].kind);
        char x[64], y[64];
        pc_csv_format_cell(x, sizeof x, &r.cells[i], 17);
        pc_csv_format_cell(y, sizeof y, &ref.cells[i], 17);
        assert_string_equal(x, y);
    }
    free(b);
    free(d);
    return r;
}

#define RUN(args, bench, device) run(args, bench, device, sizeof(bench) / sizeof(double))

static void assert_f64_cell(pc_csv_cell c, double want)
{
    if (c.kind != PC_CSV_F64 || !pc_test_same_f64(c.v.f64, want)) {
        print_error("cell kind %d value %.17g, want float64 %.17g\n", c.kind,
                    c.kind == PC_CSV_F64   ? c.v.f64
                    : c.kind == PC_CSV_F32 ? (double)c.v.f32
                                           : (double)NAN,
                    want);
        fail();
    }
}

static void assert_int0_cell(pc_csv_cell c)
{
    assert_int_equal(c.kind, PC_CSV_INT);
    assert_int_equal(c.v.i64, 0);
}

/* The cell's CSV text (precision 14) */
static void assert_cell_text(pc_csv_cell c, pc_csv_kind kind, const char *text)
{
    char buf[PC_CSV_NUMBER_MAX];
    pc_csv_format_cell(buf, sizeof buf, &c, 14);
    if (c.kind != kind || strcmp(buf, text) != 0) {
        print_error("cell kind %d text %s, want kind %d text %s\n", c.kind, buf, kind, text);
        fail();
    }
}

/* ---- §11.1: algorithm.py's unit tests ---- */

static const double b111[] = {1, 1, 9}, d111[] = {5, 2, 1};

static void algorithm_benchmark_metrics(void **state)
{
    pc_metrics_result r = RUN(ARGS(F16, F16, F16, PC_STANDARD_BENCHMARK), b111, d111);
    assert_f64_cell(r.cells[PC_METRIC_RMSE], 5.196325627787292);
    assert_f64_cell(r.cells[PC_METRIC_EB], 1.0 / 3);
    assert_cell_text(r.cells[PC_METRIC_MAX_REL_ERR], PC_CSV_F16, "3.996");
    assert_cell_text(r.cells[PC_METRIC_MEAN_REL_ERR], PC_CSV_F16, "1.961");
    assert_int0_cell(r.cells[PC_METRIC_SMALL_VALUE_ERR_RATIO]);
    /* max abs error: (8.0, not < 0.001), float16 */
    assert_cell_text(r.max_abs_err, PC_CSV_F16, "8.0");
    assert_true(r.max_abs_err_value == 8.0);
}

static void algorithm_absolute_metrics(void **state)
{
    pc_metrics_result r = RUN(ARGS(F16, F16, F16, PC_STANDARD_ABSOLUTE), b111, d111);
    assert_int0_cell(r.cells[PC_METRIC_INF_NAN_ERR_RATIO]); /* no inf/nan: int 0 */
    assert_f64_cell(r.cells[PC_METRIC_REL_ERR_RATIO], 1.0); /* check_norm_value */
    assert_int0_cell(r.cells[PC_METRIC_ABS_ERR_RATIO]);     /* no small values */
}

static void algorithm_ulp(void **state)
{
    pc_metrics_result r = RUN(ARGS(F16, F16, F16, PC_STANDARD_ULP), b111, d111);
    /* [4096, 1024, 1024] in float32 */
    assert_cell_text(r.cells[PC_METRIC_ULP_ERR_MAX], PC_CSV_F32, "4096.0");
    assert_cell_text(r.cells[PC_METRIC_ULP_ERR_MEAN], PC_CSV_F32, "2048.0");
    assert_f64_cell(r.cells[PC_METRIC_ULP_ERR_PROPORTION], 1.0);
    r = RUN(ARGS(F32, F32, F32, PC_STANDARD_ULP), b111, d111);
    /* [33554432, 8388608, 8388608] in float64 */
    assert_f64_cell(r.cells[PC_METRIC_ULP_ERR_MAX], 33554432.0);
    assert_f64_cell(r.cells[PC_METRIC_ULP_ERR_MEAN], (33554432.0 + 2 * 8388608.0) / 3);
    /* ULP proportion: fp32 ulp [31, 33, 31] -> 1/3; fp16 ulp [0, 2, 0] -> 1/3 */
    r = RUN(ARGS(F64, F32, F32, PC_STANDARD_ULP), VALUES(1, 1, 1),
            VALUES(1 + 31 * 0x1p-23, 1 + 33 * 0x1p-23, 1 + 31 * 0x1p-23));
    assert_f64_cell(r.cells[PC_METRIC_ULP_ERR_PROPORTION], 1.0 / 3);
    assert_f64_cell(r.cells[PC_METRIC_ULP_ERR_MAX], 33.0);
    r = RUN(ARGS(F32, F16, F16, PC_STANDARD_ULP), VALUES(1, 1, 1), VALUES(1, 1 + 2 * 0x1p-10, 1));
    assert_f64_cell(r.cells[PC_METRIC_ULP_ERR_PROPORTION], 1.0 / 3);
    assert_cell_text(r.cells[PC_METRIC_ULP_ERR_MAX], PC_CSV_F32, "2.0");
}

static void algorithm_cosine(void **state)
{
    run_args a = ARGS(F64, F64, F64, PC_STANDARD_COUNT);
    pc_metrics_result r = RUN(a, VALUES(1, 2, 3), VALUES(1, 2, 3));
    assert_f64_cell(r.cosine, 1.0);
    assert_true(r.cosine_pass);
    assert_string_equal(r.cosine_message, "");
    r = RUN(a, VALUES(1), VALUES(1));
    assert_int_equal(r.cosine.kind, PC_CSV_SPACE);
    assert_true(r.cosine_pass);
    assert_string_equal(r.cosine_message, "All the data in device dump data is scalar. Please "
                                          "refer to other compare algorithms.");
    r = RUN(a, VALUES(0, 0, 0), VALUES(0, 0, 0));
    assert_int_equal(r.cosine.kind, PC_CSV_SPACE);
    assert_true(r.cosine_pass);
    assert_string_equal(r.cosine_message, "All the data in device and bench outputs are zero.");
    r = RUN(a, VALUES(0, 1, 0), VALUES(0, 0, 0));
    assert_false(r.cosine_pass);
    assert_string_equal(r.cosine_message, "All the data is zero in device dump data.");
    r = RUN(a, VALUES(0, 0, 0), VALUES(0, 1, 0));
    assert_false(r.cosine_pass);
    assert_string_equal(r.cosine_message, "All the data is zero in bench dump data.");
    r = RUN(a, VALUES(1, 2, (double)NAN), VALUES(1, 2, 3));
    assert_true(r.cosine.kind == PC_CSV_F64 && isnan(r.cosine.v.f64));
    assert_false(r.cosine_pass);
    assert_string_equal(r.cosine_message,
                        "Dump data has NaN when comparing with Cosine Similarity.");
    r = RUN(a, VALUES(1, 2, 3), VALUES(3, 2, 1));
    assert_f64_cell(r.cosine, 0.7142857142857143);
    assert_false(r.cosine_pass);
    r = RUN(a, VALUES(1, -1), VALUES(-1, 1));
    assert_f64_cell(r.cosine, -0.9999999999999998);
    /* an inf anywhere: NaN */
    r = RUN(a, VALUES(1, HUGE_VAL), VALUES(1, 2));
    assert_true(isnan(r.cosine.v.f64));
}

static void algorithm_ratios(void **state)
{
    run_args a = ARGS(F64, F64, F64, PC_STANDARD_COUNT);
    pc_metrics_result r = RUN(a, VALUES(1, 2, 3), VALUES(1, 2, 3));
    assert_true(r.rel_err_ratio[1] == 1.0 && r.rel_err_ratio[2] == 1.0);
    /* thousandth ratio of relative errors [0.0005, 0.002, 0.003, 0.0008] -> 0.5 */
    r = RUN(a, VALUES(1, 1, 1, 1), VALUES(1.0005, 1.002, 1.003, 1.0008));
    assert_true(r.rel_err_ratio[1] == 0.5);
    r = RUN(a, VALUES(1, 1, 1), VALUES(1.0001, 1.0005, 1.0008));
    assert_true(r.rel_err_ratio[1] == 1.0);
    r = RUN(a, VALUES(1, 1, 1), VALUES(1.002, 1.003, 1.005));
    assert_true(r.rel_err_ratio[1] == 0.0);
    /* the float32 hundredth threshold is fl32(0.01) < 0.01: an error of exactly fl32(0.01)
     * is not "< 0.01" (compare.md §1 N2) */
    r = RUN(ARGS(F32, F32, F32, PC_STANDARD_COUNT), VALUES(1.953125, 1), VALUES(1.9726562, 1));
    float rel = (1.9726562f - 1.953125f) / (1.953125f + 0x1p-23f);
    assert_true(rel == 0.01f); /* the data was chosen to hit fl32(0.01) exactly */
    assert_true(r.rel_err_ratio[0] == 0.5);
}

static void algorithm_binary(void **state)
{
    run_args a = ARGS(F32, F16, F16, PC_STANDARD_BINARY);
    pc_metrics_result r = RUN(a, VALUES(0, 1.5, 0, 2.2), VALUES(0, 1.5, 0, 2.2));
    assert_f64_cell(r.cells[PC_METRIC_ERROR_RATE], 0.25); /* fl16(2.2) != fl32(2.2) */
    r = RUN(a, VALUES(1, (double)NAN), VALUES(1, (double)NAN));
    assert_f64_cell(r.cells[PC_METRIC_ERROR_RATE], 0.5); /* NaN != NaN */
}

/* ---- §11.2: the standards' unit tests ---- */

static void standard_absolute_fp32(void **state)
{
    pc_metrics_result r =
        RUN(ARGS(F64, F64, F32, PC_STANDARD_ABSOLUTE), VALUES(1, 2, 3, HUGE_VAL, (double)NAN),
            VALUES(1.1, 1.9, 3.1, HUGE_VAL, 1.0));
    assert_f64_cell(r.cells[PC_METRIC_INF_NAN_ERR_RATIO], 0.5);
    assert_f64_cell(r.cells[PC_METRIC_REL_ERR_RATIO], 1.0);
    assert_int0_cell(r.cells[PC_METRIC_ABS_ERR_RATIO]);
}

static void standard_benchmark_fp32(void **state)
{
    pc_metrics_result r =
        RUN(ARGS(F64, F64, F32, PC_STANDARD_BENCHMARK), VALUES(1, 2, 3, HUGE_VAL, (double)NAN),
            VALUES(1.1, 2.1, 3.1, HUGE_VAL, (double)NAN));
    assert_int0_cell(r.cells[PC_METRIC_SMALL_VALUE_ERR_RATIO]);
    assert_f64_cell(r.cells[PC_METRIC_MAX_REL_ERR], 0.10000000000000006);
    assert_f64_cell(r.cells[PC_METRIC_MEAN_REL_ERR], 0.06111111111111115);
    assert_f64_cell(r.cells[PC_METRIC_RMSE], 0.1000013333799976);
    assert_f64_cell(r.cells[PC_METRIC_EB], 0.6);
}

static void standard_config(void **state)
{
    const pc_msprobe_thresholds *f16 = pc_dtype_traits_of(F16)->thresholds;
    const pc_msprobe_thresholds *bf16 = pc_dtype_traits_of(BF16)->thresholds;
    const pc_msprobe_thresholds *f32 = pc_dtype_traits_of(F32)->thresholds;
    const pc_msprobe_thresholds *i32 = pc_dtype_traits_of(PC_DTYPE_I32)->thresholds;
    assert_true(f16->small_value == 0x1p-10 && bf16->small_value == 0x1p-10);
    assert_true(f32->small_value == 0x1p-20 && i32->small_value == 0x1p-20);
    assert_true(f16->accum_small_value == 1 && f32->accum_small_value == 1);
    assert_true(f16->small_value_atol_abs == 0x1p-16 && bf16->small_value_atol_abs == 1e-16);
    assert_true(f32->small_value_atol_abs == 0x1p-30 && i32->small_value_atol_abs == 0x1p-30);
    assert_true(f16->small_value_atol_bench == 1e-16 && bf16->small_value_atol_bench == 1e-16);
    assert_true(f32->small_value_atol_bench == 0x1p-30);
    assert_true(f16->rtol == 0x1p-10 && bf16->rtol == 0x1p-8 && f32->rtol == 0x1p-20 &&
                i32->rtol == 0x1p-20);
}

static void standard_selection(void **state)
{
    assert_int_equal(pc_standard_select("abs", "torch.int8", "torch.float32"), PC_STANDARD_BINARY);
    assert_int_equal(pc_standard_select("mul", "torch.float32", "torch.float32"),
                     PC_STANDARD_ABSOLUTE);
    assert_int_equal(pc_standard_select("matmul", "torch.float32", "torch.float32"),
                     PC_STANDARD_ULP);
    assert_int_equal(pc_standard_select("conv2d", "torch.float32", "torch.float32"),
                     PC_STANDARD_THOUSANDTH);
    assert_int_equal(pc_standard_select("npu_fusion_attention", "torch.float32", "torch.float32"),
                     PC_STANDARD_BENCHMARK);
    assert_int_equal(pc_standard_select("unknown_api", "torch.float32", "torch.float32"),
                     PC_STANDARD_BENCHMARK);
    assert_int_equal(pc_standard_select("test_api", "torch.float16", "torch.float32"),
                     PC_STANDARD_ACCUMULATIVE);
    /* fp8 output first, then fp8 inputs, then non-float dtypes, then the lists */
    assert_int_equal(pc_standard_select("mul", "torch.float8_e5m2", "torch.float8_e4m3fn"),
                     PC_STANDARD_ULP);
    assert_int_equal(pc_standard_select("matmul", "torch.float16", "torch.float8_e4m3fn"),
                     PC_STANDARD_ABSOLUTE);
    assert_int_equal(pc_standard_select("matmul", "<class 'int'>", "torch.float32"),
                     PC_STANDARD_BINARY);
    assert_int_equal(pc_standard_select("matmul", "torch_npu.HiFloat8Tensor", NULL),
                     PC_STANDARD_ULP);
    assert_int_equal(pc_standard_select("add", "torch.complex64", "torch.float32"),
                     PC_STANDARD_ABSOLUTE);
    assert_int_equal(pc_standard_select_dtype("linalg.inv", F16, false), PC_STANDARD_BENCHMARK);
    assert_int_equal(pc_standard_select_dtype("__matmul__", BF16, false), PC_STANDARD_ULP);
    assert_int_equal(pc_standard_select_dtype("__matmul__", BF16, true), PC_STANDARD_ABSOLUTE);
    /* the table: 30 + 62 + 17 + 2 + 1 names, each found under its own standard */
    size_t counts[PC_STANDARD_COUNT] = {0};
    for (size_t i = 0; i < pc_standard_api_count(); i++) {
        const pc_standard_api *e = pc_standard_api_at(i);
        counts[e->standard]++;
        assert_int_equal(pc_standard_of_api(e->api_name), e->standard);
    }
    assert_null(pc_standard_api_at(pc_standard_api_count()));
    assert_int_equal(counts[PC_STANDARD_ABSOLUTE], 30);
    assert_int_equal(counts[PC_STANDARD_BINARY], 62);
    assert_int_equal(counts[PC_STANDARD_ULP], 17);
    assert_int_equal(counts[PC_STANDARD_THOUSANDTH], 2);
    assert_int_equal(counts[PC_STANDARD_ACCUMULATIVE], 1);
    assert_string_equal(pc_standard_algorithm_name(PC_STANDARD_BENCHMARK), "标杆比对法");
    assert_string_equal(pc_standard_algorithm_name(PC_STANDARD_ULP), "ULP误差比对法");
    assert_string_equal(pc_standard_name(PC_STANDARD_THOUSANDTH), "thousandth");
}

/* ---- §11.5: direct metric vectors ---- */

static void ulp_vectors(void **state)
{
    /* D = fp16, including 1023.99994 whose float32 log2 rounds up to 10 */
    pc_metrics_result r =
        RUN(ARGS(F32, F16, F16, PC_STANDARD_ULP), VALUES(1.0, 0.1, 1e-6, 0.0, 1023.99994, -3.0),
            VALUES(1.0009766, 0.1, 1e-6, 0.0, 1024.0, -3.0));
    assert_cell_text(r.cells[PC_METRIC_ULP_ERR_MAX], PC_CSV_F32, "1.0");
    assert_cell_text(r.cells[PC_METRIC_ULP_ERR_MEAN], PC_CSV_F32, "0.27047825");
    assert_f64_cell(r.cells[PC_METRIC_ULP_ERR_PROPORTION], 0.0);
    /* D = fp32 */
    r = RUN(ARGS(F64, F32, F32, PC_STANDARD_ULP), VALUES(1.0, 1e-40, 3.0, 0.0),
            VALUES(1.0000001, 1e-40, 3.0000002, 1e-45));
    assert_f64_cell(r.cells[PC_METRIC_ULP_ERR_MAX], 1.0);
    assert_f64_cell(r.cells[PC_METRIC_ULP_ERR_MEAN], 0.5961588244972518);
    assert_f64_cell(r.cells[PC_METRIC_ULP_ERR_PROPORTION], 0.0);
    /* D = bf16 */
    r = RUN(ARGS(F32, BF16, BF16, PC_STANDARD_ULP), VALUES(1.0, 3.01, 0.5),
            VALUES(1.0078125, 3.015625, 0.5));
    assert_cell_text(r.cells[PC_METRIC_ULP_ERR_MAX], PC_CSV_F32, "1.0");
    assert_cell_text(r.cells[PC_METRIC_ULP_ERR_MEAN], PC_CSV_F32, "0.45333353");
    assert_f64_cell(r.cells[PC_METRIC_ULP_ERR_PROPORTION], 0.0);
    /* a bench inf: NaN max and mean */
    r = RUN(ARGS(F32, F16, F16, PC_STANDARD_ULP), VALUES(HUGE_VAL, 1.0), VALUES(HUGE_VAL, 1.0));
    assert_cell_text(r.cells[PC_METRIC_ULP_ERR_MAX], PC_CSV_F32, "nan");
    assert_cell_text(r.cells[PC_METRIC_ULP_ERR_MEAN], PC_CSV_F32, "nan");
    assert_f64_cell(r.cells[PC_METRIC_ULP_ERR_PROPORTION], 0.0);
    /* bf16 bench values below 2^-120: the float32 scale overflows to inf */
    r = RUN(ARGS(F32, BF16, BF16, PC_STANDARD_ULP), VALUES(1e-37, 1.0), VALUES(9.991702e-38, 1.0));
    assert_cell_text(r.cells[PC_METRIC_ULP_ERR_MAX], PC_CSV_F32, "inf");
    r = RUN(ARGS(F32, BF16, BF16, PC_STANDARD_ULP), VALUES(1e-37, 1.0), VALUES(1e-37, 1.0));
    /* 1e-37 is not a bfloat16: the difference is not 0, so inf again */
    assert_cell_text(r.cells[PC_METRIC_ULP_ERR_MAX], PC_CSV_F32, "inf");
    r = RUN(ARGS(F32, BF16, BF16, PC_STANDARD_ULP), VALUES(0x1p-125, 1.0), VALUES(0x1p-125, 1.0));
    /* an exact match below 2^-120: 0 * inf is NaN */
    assert_cell_text(r.cells[PC_METRIC_ULP_ERR_MAX], PC_CSV_F32, "nan");
}

static void ulp_fp8_formula(void **state)
{
    /* x = [1.0, 0.3, 300.0, 1e-5, 0.0], h = [1.125, 0.3125, 320.0, 1.5e-5, 0.0] ->
     * [1.0, 0.4, 0.15625, 0.584962501, -978.0]: max 1.0, proportion (> 1) 0 */
    pc_metrics_result r =
        RUN(ARGS(F64, F64, PC_DTYPE_F8E4M3FN, PC_STANDARD_ULP), VALUES(1.0, 0.3, 300.0, 1e-5, 0.0),
            VALUES(1.125, 0.3125, 320.0, 1.5e-5, 0.0));
    assert_f64_cell(r.cells[PC_METRIC_ULP_ERR_MAX], 1.0);
    double mean = r.cells[PC_METRIC_ULP_ERR_MEAN].v.f64;
    assert_true(fabs(mean - (1.0 + 0.4 + 0.15625 + 0.584962501 - 978.0) / 5) < 1e-8);
    assert_f64_cell(r.cells[PC_METRIC_ULP_ERR_PROPORTION], 0.0);
}

static const double mix_b[] = {0.5,   -1.25, 3.0e-4,   2.0,     0.0,
                               100.0, 1e-8,  HUGE_VAL, 70000.0, (double)NAN};
static const double mix_d[] = {0.5005, -1.25, 3.1e-4,   2.0,      0.0,
                               100.1,  0.0,   HUGE_VAL, HUGE_VAL, 1.0};

static void mixed_fp16(void **state)
{
    pc_metrics_result r = RUN(ARGS(F32, F16, F16, PC_STANDARD_BENCHMARK), mix_b, mix_d);
    assert_f64_cell(r.cells[PC_METRIC_SMALL_VALUE_ERR_RATIO], 0.6666666666666666);
    assert_cell_text(r.cells[PC_METRIC_MAX_REL_ERR], PC_CSV_F32, "0.00125");
    assert_cell_text(r.cells[PC_METRIC_MEAN_REL_ERR], PC_CSV_F32, "0.00055664056");
    assert_f64_cell(r.cells[PC_METRIC_RMSE], 0.0625009465380109);
    assert_f64_cell(r.cells[PC_METRIC_EB], 0.3);
    r = RUN(ARGS(F32, F16, F16, PC_STANDARD_ABSOLUTE), mix_b, mix_d);
    assert_f64_cell(r.cells[PC_METRIC_INF_NAN_ERR_RATIO], 0.3333333333333333);
    assert_f64_cell(r.cells[PC_METRIC_REL_ERR_RATIO], 0.25);
    assert_f64_cell(r.cells[PC_METRIC_ABS_ERR_RATIO], 0.0);
    r = RUN(ARGS(F32, F16, F16, PC_STANDARD_ACCUMULATIVE), mix_b, mix_d);
    assert_f64_cell(r.cells[PC_METRIC_INF_NAN_ERR_RATIO], 0.3333333333333333);
    assert_f64_cell(r.cells[PC_METRIC_REL_ERR_RATIO], 0.0);
    assert_f64_cell(r.cells[PC_METRIC_ABS_ERR_RATIO], 0.0);
    assert_f64_cell(r.cells[PC_METRIC_EB], 0.3);
}

static void mixed_fp32(void **state)
{
    const double b[] = {1.0, -2.0, 1e-7, 0.0, 5.0, -HUGE_VAL};
    const double d[] = {1.0000002, -2.0, 2e-7, 1e-9, 4.9999, HUGE_VAL};
    pc_metrics_result r = RUN(ARGS(F64, F32, F32, PC_STANDARD_BENCHMARK), b, d);
    assert_f64_cell(r.cells[PC_METRIC_SMALL_VALUE_ERR_RATIO], 1.0);
    assert_f64_cell(r.cells[PC_METRIC_MAX_REL_ERR], 2.002716064453125e-05);
    assert_f64_cell(r.cells[PC_METRIC_MEAN_REL_ERR], 6.7551930745442706e-06);
    assert_f64_cell(r.cells[PC_METRIC_RMSE], 5.781407862624592e-05);
    assert_f64_cell(r.cells[PC_METRIC_EB], 0.5);
    r = RUN(ARGS(F64, F32, F32, PC_STANDARD_ABSOLUTE), b, d);
    assert_f64_cell(r.cells[PC_METRIC_INF_NAN_ERR_RATIO], 1.0);
    assert_f64_cell(r.cells[PC_METRIC_REL_ERR_RATIO], 0.3333333333333333);
    assert_f64_cell(r.cells[PC_METRIC_ABS_ERR_RATIO], 1.0);
    r = RUN(ARGS(F64, F32, F32, PC_STANDARD_ACCUMULATIVE), b, d);
    assert_f64_cell(r.cells[PC_METRIC_INF_NAN_ERR_RATIO], 1.0);
    assert_f64_cell(r.cells[PC_METRIC_REL_ERR_RATIO], 0.0);
    assert_f64_cell(r.cells[PC_METRIC_ABS_ERR_RATIO], 0.0);
    assert_f64_cell(r.cells[PC_METRIC_EB], 0.5);
}

static void mixed_bf16(void **state)
{
    const double b[] = {1.0, 3.14159, -0.001, 200.5, 1e-4, (double)NAN};
    const double d[] = {1.0, 3.140625, -0.00099945068, 200.0, 0.00029945374, (double)NAN};
    pc_metrics_result r = RUN(ARGS(F32, BF16, BF16, PC_STANDARD_BENCHMARK), b, d);
    assert_f64_cell(r.cells[PC_METRIC_SMALL_VALUE_ERR_RATIO], 1.0);
    assert_cell_text(r.cells[PC_METRIC_MAX_REL_ERR], PC_CSV_F32, "0.002493717");
    assert_cell_text(r.cells[PC_METRIC_MEAN_REL_ERR], PC_CSV_F32, "0.0007281287");
    assert_f64_cell(r.cells[PC_METRIC_RMSE], 0.25000567030239634);
    assert_f64_cell(r.cells[PC_METRIC_EB], 0.0);
    r = RUN(ARGS(F32, BF16, BF16, PC_STANDARD_ABSOLUTE), b, d);
    assert_f64_cell(r.cells[PC_METRIC_INF_NAN_ERR_RATIO], 0.0); /* NaN/NaN passes */
    assert_f64_cell(r.cells[PC_METRIC_REL_ERR_RATIO], 0.0);
    assert_f64_cell(r.cells[PC_METRIC_ABS_ERR_RATIO], 1.0);
}

static void inf_nan_checks(void **state)
{
    pc_metrics_result r = RUN(ARGS(F32, F16, F16, PC_STANDARD_ABSOLUTE),
                              VALUES(HUGE_VAL, HUGE_VAL, 70000, (double)NAN, -HUGE_VAL, 5.0),
                              VALUES(-HUGE_VAL, 1.0, HUGE_VAL, (double)NAN, -65504, HUGE_VAL));
    assert_f64_cell(r.cells[PC_METRIC_INF_NAN_ERR_RATIO], 0.3333333333333333);
    r = RUN(ARGS(F32, BF16, BF16, PC_STANDARD_ABSOLUTE), VALUES(3.0e38, 1.0),
            VALUES(HUGE_VAL, 1.0));
    assert_f64_cell(r.cells[PC_METRIC_INF_NAN_ERR_RATIO], 1.0);
}

static void zero_dim(void **state)
{
    run_args a = ARGS0(F32, F16, F16, PC_STANDARD_BENCHMARK);
    pc_metrics_result r = RUN(a, VALUES(2.0), VALUES(2.002));
    assert_int0_cell(r.cells[PC_METRIC_SMALL_VALUE_ERR_RATIO]);
    assert_f64_cell(r.cells[PC_METRIC_MAX_REL_ERR], 0.0009765625); /* float64 for 0-d */
    assert_f64_cell(r.cells[PC_METRIC_MEAN_REL_ERR], 0.0009765625);
    assert_f64_cell(r.cells[PC_METRIC_RMSE], 0.0019531250097646483);
    assert_f64_cell(r.cells[PC_METRIC_EB], 1.0);
    assert_int_equal(r.cosine.kind, PC_CSV_SPACE);
    a.standard = PC_STANDARD_ABSOLUTE;
    r = RUN(a, VALUES(2.0), VALUES(2.002));
    assert_int0_cell(r.cells[PC_METRIC_INF_NAN_ERR_RATIO]);
    assert_f64_cell(r.cells[PC_METRIC_REL_ERR_RATIO], 0.0);
    assert_int0_cell(r.cells[PC_METRIC_ABS_ERR_RATIO]);
    a.standard = PC_STANDARD_ULP;
    r = RUN(a, VALUES(2.0), VALUES(2.002));
    assert_cell_text(r.cells[PC_METRIC_ULP_ERR_MAX], PC_CSV_F32, "1.0");
    assert_cell_text(r.cells[PC_METRIC_ULP_ERR_MEAN], PC_CSV_F32, "1.0");
    assert_f64_cell(r.cells[PC_METRIC_ULP_ERR_PROPORTION], 0.0);
    /* the same data as a 1-element 1-D array: same numbers, max/mean rel of kind float32 */
    a = ARGS(F32, F16, F16, PC_STANDARD_BENCHMARK);
    r = RUN(a, VALUES(2.0), VALUES(2.002));
    assert_cell_text(r.cells[PC_METRIC_MAX_REL_ERR], PC_CSV_F32, "0.0009765625");
    assert_cell_text(r.cells[PC_METRIC_MEAN_REL_ERR], PC_CSV_F32, "0.0009765625");
    assert_f64_cell(r.cells[PC_METRIC_RMSE], 0.0019531250097646483);
    /* 0-d bfloat16: |b| + 2^-8 is a float64, so the relative error is compared in float64 */
    a = ARGS0(F32, BF16, BF16, PC_STANDARD_BENCHMARK);
    r = RUN(a, VALUES(1.0), VALUES(1.0078125));
    assert_f64_cell(r.cells[PC_METRIC_MAX_REL_ERR], 0.0078125 / (1 + 0x1p-8));
}

/* ---- hand-made edge cases ---- */

static void edge_cases(void **state)
{
    /* exact equality, all standards */
    run_args a = ARGS(F32, F16, F16, PC_STANDARD_BENCHMARK);
    pc_metrics_result r = RUN(a, VALUES(0.5, 1, 2), VALUES(0.5, 1, 2));
    assert_f64_cell(r.cells[PC_METRIC_RMSE], 0.0);
    assert_cell_text(r.cells[PC_METRIC_MAX_REL_ERR], PC_CSV_F32, "0.0");
    assert_true(r.max_abs_err_value == 0);
    /* all small values: max/mean rel are int 0, small ratio counts them */
    r = RUN(a, VALUES(1e-5, 2e-5), VALUES(1e-5, 3e-5));
    assert_int0_cell(r.cells[PC_METRIC_MAX_REL_ERR]);
    assert_int0_cell(r.cells[PC_METRIC_MEAN_REL_ERR]);
    assert_f64_cell(r.cells[PC_METRIC_SMALL_VALUE_ERR_RATIO], 1.0);
    /* NaN on both sides only */
    r = RUN(a, VALUES((double)NAN, (double)NAN), VALUES((double)NAN, (double)NAN));
    assert_int0_cell(r.cells[PC_METRIC_MAX_REL_ERR]);
    assert_true(isnan(r.max_abs_err_value));
    assert_cell_text(r.max_abs_err, PC_CSV_F32, "nan");
    /* denormal benches: a float32 subnormal against float16 (exponent clamped to -14; numpy
     * gives ulp [1.6777126e-33, 0]) */
    r = RUN(ARGS(F32, F16, F16, PC_STANDARD_ULP), VALUES(1e-40, 0x1p-24), VALUES(0, 0x1p-24));
    assert_cell_text(r.cells[PC_METRIC_ULP_ERR_MAX], PC_CSV_F32, "1.6777126e-33");
    assert_cell_text(r.cells[PC_METRIC_ULP_ERR_MEAN], PC_CSV_F32, "8.388563e-34");
    /* float16 device overflow: a bench of 70000 is not finite as float16 */
    r = RUN(ARGS(F32, F16, F16, PC_STANDARD_ABSOLUTE), VALUES(70000, 1), VALUES(65504, 1));
    assert_f64_cell(r.cells[PC_METRIC_INF_NAN_ERR_RATIO], 0.0);
    /* one element: the cosine is SPACE */
    r = RUN(ARGS(F64, F32, F32, PC_STANDARD_BENCHMARK), VALUES(3), VALUES(3.5));
    assert_int_equal(r.cosine.kind, PC_CSV_SPACE);
}

static void bad_input(void **state)
{
    float x = 1;
    pc_metrics_input in = {.bench = &x,
                           .bench_dtype = PC_DTYPE_BF16,
                           .device = &x,
                           .device_dtype = F32,
                           .n = 1,
                           .output_dtype = F32,
                           .standard = PC_STANDARD_BENCHMARK};
    pc_metrics_result r;
    assert_int_equal(pc_metrics_compute(&in, &r), PC_ERR_INVALID);
    in.bench_dtype = F32;
    in.n = 0;
    assert_int_equal(pc_metrics_compute(&in, &r), PC_ERR_INVALID);
    in.n = 1;
    in.output_dtype = PC_DTYPE_I32;
    assert_int_equal(pc_metrics_compute(&in, &r), PC_ERR_INVALID);
    in.output_dtype = F64;
    in.standard = PC_STANDARD_ULP;
    assert_int_equal(pc_metrics_compute(&in, &r), PC_ERR_INVALID);
    assert_string_equal(pc_metric_column(PC_METRIC_ULP_ERR_PROPORTION), "ULP误差大于阈值占比");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(algorithm_benchmark_metrics),
        cmocka_unit_test(algorithm_absolute_metrics),
        cmocka_unit_test(algorithm_ulp),
        cmocka_unit_test(algorithm_cosine),
        cmocka_unit_test(algorithm_ratios),
        cmocka_unit_test(algorithm_binary),
        cmocka_unit_test(standard_absolute_fp32),
        cmocka_unit_test(standard_benchmark_fp32),
        cmocka_unit_test(standard_config),
        cmocka_unit_test(standard_selection),
        cmocka_unit_test(ulp_vectors),
        cmocka_unit_test(ulp_fp8_formula),
        cmocka_unit_test(mixed_fp16),
        cmocka_unit_test(mixed_fp32),
        cmocka_unit_test(mixed_bf16),
        cmocka_unit_test(inf_nan_checks),
        cmocka_unit_test(zero_dim),
        cmocka_unit_test(edge_cases),
        cmocka_unit_test(bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
