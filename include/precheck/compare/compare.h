/*
 * run_ut's comparison of one API's outputs (docs/msprobe-contract.md#comparison): the
 * output structure rules (tensors, Python scalars, None, tuples/lists, dicts), the tensor
 * pre-processing (bfloat16 to float32, shape and dtype checks, integer outputs judged by error
 * rate), the metrics of pc_metrics_compute, the legacy status cascade with msprobe's messages,
 * the dropout rule, and the rows of the details and result CSVs, text for text.
 *
 * OWNERSHIP: pc_cmp_value trees are the caller's and are only read during the call. A
 * pc_api_result owns its rows and name; pc_api_result_free releases them. Functions writing a
 * pc_api_result first free what it held, so one result can be reused API after API; initialise
 * it with PC_API_RESULT_INIT.
 *
 * Errors: what msprobe turns into an exception (a name it cannot split, a bench list longer
 * than the device list, a bfloat16 bench numpy cannot hold, ...) is not an error here: the API
 * becomes a SKIP record carrying msprobe's message, and the call returns PC_OK. Only allocation
 * failures return PC_ERR_NOMEM (the result is then empty).
 */
#ifndef PC_COMPARE_COMPARE_H
#define PC_COMPARE_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "precheck/compare/metrics.h"
#include "precheck/core/tensor.h"
#include "precheck/io/csv.h"

/* ---- output values, as Python had them ---- */

typedef enum pc_cmp_kind {
    PC_CMP_NONE = 0, /* None */
    PC_CMP_TENSOR,
    PC_CMP_BOOL,
    PC_CMP_INT,
    PC_CMP_FLOAT,
    PC_CMP_STR,
    PC_CMP_LIST,
    PC_CMP_TUPLE, /* tuple, torch.Size, torch.return_types.* */
    PC_CMP_DICT,
    PC_CMP_OTHER, /* any other object: type_repr names it, e.g. "<class 'torch.dtype'>" */
} pc_cmp_kind;

typedef struct pc_cmp_value {
    pc_cmp_kind kind;
    const pc_tensor *tensor;          /* PC_CMP_TENSOR */
    int64_t i;                        /* PC_CMP_BOOL (0/1), PC_CMP_INT */
    double f;                         /* PC_CMP_FLOAT */
    const char *s;                    /* PC_CMP_STR */
    const struct pc_cmp_value *items; /* PC_CMP_LIST / TUPLE: elements; PC_CMP_DICT: values */
    size_t count;                     /* of items (and keys) */
    const char *const *keys;          /* PC_CMP_DICT: the keys as text */
    const char *type_repr;            /* PC_CMP_OTHER */
} pc_cmp_value;

pc_cmp_value pc_cmp_none(void);
pc_cmp_value pc_cmp_tensor(const pc_tensor *t);
pc_cmp_value pc_cmp_bool(bool b);
pc_cmp_value pc_cmp_int(int64_t i);
pc_cmp_value pc_cmp_float(double f);
pc_cmp_value pc_cmp_str(const char *s);
pc_cmp_value pc_cmp_list(const pc_cmp_value *items, size_t count);
pc_cmp_value pc_cmp_tuple(const pc_cmp_value *items, size_t count);

/* ---- rows ---- */

typedef enum pc_verdict {
    PC_VERDICT_PASS = 0, /* "pass" */
    PC_VERDICT_WARNING,  /* "Warning" */
    PC_VERDICT_ERROR,    /* "error" */
    PC_VERDICT_SKIP,     /* "SKIP" */
    PC_VERDICT_SPACE,    /* " ": no backward */
} pc_verdict;

const char *pc_verdict_text(pc_verdict v);

#define PC_DTYPE_TEXT_MAX 64
#define PC_SHAPE_TEXT_MAX (PC_SHAPE_FORMAT_MAX + 4)
#define PC_MESSAGE_MAX    2048 /* longer messages are cut */

/* What settled a row's status, for people (the end-of-run summary, summary.json, the report;
 * never written to the CSVs): the metric of msprobe's status rule that decided, its value and
 * the limit it was held against; metric -1 when no metric decided (a shape or dtype mismatch,
 * None against a tensor, a SKIP: the row's message says why). */
typedef struct pc_row_decision {
    int metric;   /* a pc_metric, or -1 */
    double value; /* the metric's value */
    double limit; /* the rule's limit: cosine > 0.99, max abs error < 0.001, share of relative
                     errors within 1% / 0.1% / 0.01% above 0.99 / 0.999 / 0.9999, error rate 0 */
} pc_row_decision;

/* One details row without its name. Empty texts are written as SPACE. */
typedef struct pc_detail_row {
    char bench_dtype[PC_DTYPE_TEXT_MAX]; /* "torch.float32", "<class 'int'>" */
    char device_dtype[PC_DTYPE_TEXT_MAX];
    char shape[PC_SHAPE_TEXT_MAX];        /* "(2, 3)", "(7,)", "()" */
    pc_csv_cell metrics[PC_METRIC_COUNT]; /* SPACE where not reached */
    pc_verdict status;
    char message[PC_MESSAGE_MAX];
    pc_row_decision decision;
} pc_detail_row;

typedef struct pc_compare_options {
    int threads; /* for the metrics; 0: OpenMP's default */
    /* Some input of the API was fp8 / HiFloat8: float32 device outputs are
     * cast to float16 before the comparison and the absolute-threshold standard is used. */
    bool inputs_fp8;
    /* The cosine in reference BLAS's summation order (pc_metrics_input.cosine_blas_order). */
    bool cosine_blas_order;
} pc_compare_options;

/* msprobe's _compare_core for one bench/device item. api_name is the basic name ("matmul")
 * that picks the standard. PC_ERR_UNSUPPORTED (with msprobe's exception text as the message)
 * where msprobe raises; PC_ERR_NOMEM. */
pc_status pc_compare_item(pc_detail_row *row, const char *api_name, const pc_cmp_value *bench,
                          const pc_cmp_value *device, const pc_compare_options *opt);

/* msprobe's dropout rule on two tensors: with N >= 100 elements, pass iff the counts of zeros
 * differ by less than 10% of N; below 100 elements always pass. */
pc_verdict pc_compare_dropout(const pc_tensor *bench, const pc_tensor *device);

/* The per-direction status of a list of row statuses, as msprobe's user guide states it: error
 * if any is error, else Warning if any is Warning, else pass (SKIP rows count as pass). msprobe's
 * code differs: there the last error or Warning wins (see docs/COMPATIBILITY.md). */
pc_verdict pc_verdict_aggregate(const pc_verdict *items, size_t n);

/* ---- one API ---- */

typedef struct pc_api_outputs {
    const pc_cmp_value *bench_output; /* the forward outputs */
    const pc_cmp_value *device_output;
    const pc_cmp_value *bench_grads; /* lists of input gradients; NULL / None / empty: none */
    const pc_cmp_value *device_grads;
    const char *backward_message; /* NULL or "": none */
} pc_api_outputs;

typedef struct pc_api_result {
    char *full_name;         /* "Torch.matmul.0" */
    pc_verdict forward;      /* pass, Warning, error, or SKIP for a skipped API */
    pc_verdict backward;     /* the same, or SPACE */
    pc_detail_row *fwd_rows; /* written as <full_name>.forward.output.<i> */
    size_t n_fwd;
    pc_detail_row *bwd_rows; /* <full_name>.backward.output.<i> */
    size_t n_bwd;
    char *owned_text; /* texts of unpacked TEXT cells (a chain), freed with the result */
    /* -save_error_data: the .pt files this API was to save, how many of them could not be
     * saved, and the first one's error (malloc'd, freed with the result; NULL when none) */
    uint32_t error_data_files, error_data_unsaved;
    char *error_data_error;
    /* wall-clock seconds of the API's forward and backward on the device and on the bench (0
     * when they did not run: a SKIP decided before, a bench result from the bench cache counts
     * its load); never in the CSVs, only in the summary JSON, the report and the log */
    double device_seconds, bench_seconds;
} pc_api_result;

#define PC_API_RESULT_INIT ((pc_api_result){0})

/* msprobe's compare_output for one API (full name "Torch.matmul.0"). */
pc_status pc_compare_api(pc_api_result *res, const char *full_api_name,
                         const pc_api_outputs *outputs, const pc_compare_options *opt);

/* A SKIP record for a whole API: forward and backward SKIP, one forward row with message. */
pc_status pc_api_result_skip(pc_api_result *res, const char *full_api_name, const char *message);

void pc_api_result_free(pc_api_result *res);

/* The result as bytes appended to out (a worker's message to the parent), and back: *res is
 * freed first and filled; PC_ERR_FORMAT for bytes that are not a whole packed result. */
pc_status pc_api_result_pack(const pc_api_result *res, pc_csv_buffer *out);
pc_status pc_api_result_unpack(const char *data, size_t size, pc_api_result *res);

/* ---- CSV text ---- */

#define PC_DETAILS_COLUMNS 23
#define PC_RESULT_COLUMNS  4

/* The header fields, exactly: "API Name", "Bench Dtype", ..., "Status", "Message" and
 * "API name", "Forward Test Success", "Backward Test Success", "Message". */
const char *pc_details_column(size_t i);
const char *pc_result_column(size_t i);
pc_status pc_details_header_append(pc_csv_buffer *buf);
pc_status pc_result_header_append(pc_csv_buffer *buf);

/* The 23 cells of a details row named name (cells borrow row's and name's text). */
void pc_detail_row_cells(const pc_detail_row *row, const char *name,
                         pc_csv_cell cells[PC_DETAILS_COLUMNS]);

/* Appends the API's details rows (forward, then backward) to details and its result row (3
 * fields, or 4 with the SKIP message) to result; either buffer may be NULL. precision is the
 * decimals of float64 cells (config.yaml's precision, 14 by default). */
pc_status pc_api_result_append_csv(const pc_api_result *res, pc_csv_buffer *details,
                                   pc_csv_buffer *result, int precision);

#endif
