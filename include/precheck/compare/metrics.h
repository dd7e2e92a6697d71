/*
 * The metrics of one bench/device pair of float arrays, as msprobe's run_ut computes them with
 * numpy 1.x (docs/metrics.md): cosine similarity, max absolute error, the dual
 * ratios, and the columns of one precision standard, all in one fused pass over the data.
 *
 * Numbers are numpy's, not just close to them: every intermediate is rounded to the numpy type
 * msprobe had for it (float32 stays float32), constants compared against arrays are first
 * rounded to the array's type, means use numpy's pairwise summation in 8192-element blocks, and
 * each result cell carries the Python type msprobe had (PC_CSV_F64, PC_CSV_F32, PC_CSV_F16 or
 * PC_CSV_INT 0), which decides how the CSV prints it. The cosine is the one exception: msprobe
 * takes it from BLAS, whose summation order depends on the BLAS numpy was built with; here the
 * dot products are summed in double in a fixed order, so the last printed digit can differ
 * (or, with cosine_blas_order, in reference BLAS's order).
 *
 * Work is split into fixed chunks of PC_METRICS_CHUNK elements spread over OpenMP threads and
 * merged in index order: the result does not depend on the number of threads.
 *
 * The arrays are borrowed for the call. Nothing is kept. Errors: PC_ERR_INVALID for a dtype
 * combination outside the list below, PC_ERR_NOMEM.
 */
#ifndef PC_COMPARE_METRICS_H
#define PC_COMPARE_METRICS_H

#include <stdbool.h>
#include <stdint.h>

#include "precheck/compare/standard.h"
#include "precheck/core/dtype.h"
#include "precheck/core/status.h"
#include "precheck/io/csv.h"

/* The 17 metric columns of the details CSV, in the CSV's order. */
typedef enum pc_metric {
    PC_METRIC_COSINE = 0,             /* 余弦相似度 */
    PC_METRIC_MAX_ABS_ERR,            /* 最大绝对误差 */
    PC_METRIC_REL_ERR_HUNDREDTH,      /* 双百指标 */
    PC_METRIC_REL_ERR_THOUSANDTH,     /* 双千指标 */
    PC_METRIC_REL_ERR_TEN_THOUSANDTH, /* 双万指标 */
    PC_METRIC_ERROR_RATE,             /* 二进制一致错误率 */
    PC_METRIC_EB,                     /* 误差均衡性 */
    PC_METRIC_RMSE,                   /* 均方根误差 */
    PC_METRIC_SMALL_VALUE_ERR_RATIO,  /* 小值域错误占比 */
    PC_METRIC_MAX_REL_ERR,            /* 相对误差最大值 */
    PC_METRIC_MEAN_REL_ERR,           /* 相对误差平均值 */
    PC_METRIC_INF_NAN_ERR_RATIO,      /* inf/nan错误率 */
    PC_METRIC_REL_ERR_RATIO,          /* 相对误差错误率 */
    PC_METRIC_ABS_ERR_RATIO,          /* 绝对误差错误率 */
    PC_METRIC_ULP_ERR_MAX,            /* ULP误差最大值 */
    PC_METRIC_ULP_ERR_MEAN,           /* ULP误差平均值 */
    PC_METRIC_ULP_ERR_PROPORTION,     /* ULP误差大于阈值占比 */
    PC_METRIC_COUNT
} pc_metric;

/* The column header of a metric, e.g. "余弦相似度". */
const char *pc_metric_column(pc_metric m);
/* Its English name, e.g. "cosine similarity". */
const char *pc_metric_name(pc_metric m);

/* Elements per chunk: numpy's reduction block, so that block sums fall on chunk bounds. */
#define PC_METRICS_CHUNK 8192

typedef struct pc_metrics_input {
    /* The bench array as numpy held it: PC_DTYPE_F16, F32 or F64. */
    const void *bench;
    pc_dtype bench_dtype;
    /* The device array: F16, F32 or F64 as numpy held it, or BF16, read as the float32 array
     * msprobe converts bfloat16 outputs to. fp8 outputs are passed decoded to F32, with
     * output_dtype saying what they were. */
    const void *device;
    pc_dtype device_dtype;
    int64_t n; /* elements of each, >= 1 */
    /* The torch dtype of the device output (before any conversion): picks eps, thresholds,
     * the ULP parameters and the dual-ratio rules. */
    pc_dtype output_dtype;
    /* The output is a 0-d tensor: numpy then works on scalars, whose value-based promotion
     * turns some intermediates into float64. */
    bool zero_dim;
    /* The standard whose columns are filled. PC_STANDARD_COUNT: none (float64 outputs). */
    pc_standard standard;
    int threads; /* OpenMP threads; 0: OpenMP's default; 1: this thread only */
    /* Sum the cosine's dot products the way numpy linked with the reference (netlib) BLAS
     * does (scaled by the maxima, left to right), which gives that numpy's bits at the price
     * of a second, single-threaded pass. false: the fused pass's fixed-order sums. */
    bool cosine_blas_order;
} pc_metrics_input;

typedef struct pc_metrics_result {
    /* The standard's columns (and only those: the others are PC_CSV_SPACE). */
    pc_csv_cell cells[PC_METRIC_COUNT];
    /* The legacy rule's inputs; the status cascade decides which of them reach the row. */
    pc_csv_cell cosine;         /* F64, or SPACE (one element, or all zero) */
    bool cosine_pass;           /* cos > 0.99, or the SPACE cases that pass */
    const char *cosine_message; /* static text, "" when none */
    pc_csv_cell max_abs_err;    /* in the type of |device - bench| */
    double max_abs_err_value;   /* the same as a double, for "< 0.001" */
    double rel_err_ratio[3];    /* share of relative errors below 1%, 0.1%, 0.01% */
} pc_metrics_result;

pc_status pc_metrics_compute(const pc_metrics_input *in, pc_metrics_result *out);

/*
 * The portable element-by-element reference of pc_metrics_compute, for every dtype
 * combination (chunked and threaded the same way, 10-50x slower). pc_metrics_compute uses it
 * for the combinations its fast kernels do not cover (0-d outputs, float16 benches, fp8
 * outputs); tests use it as the oracle that the fast kernels must match bit for bit.
 */
pc_status pc_metrics_compute_reference(const pc_metrics_input *in, pc_metrics_result *out);

/* Whether pc_metrics_compute has a fast kernel for this input (else it runs the reference). */
bool pc_metrics_has_fast_kernel(const pc_metrics_input *in);

#endif
