/*
 * msprobe's CSV formats, in one place (docs/msprobe-contract.md#formats): the headers of
 * run_ut's result and details CSVs and of api_precision_compare's two CSVs, the names of details
 * rows (written "Functional.softmax.0.forward.output.0", and parsed back), and the splitter of a
 * whole CSV file into records that resume and merge copy as bytes. Every reader and writer of
 * those files (runner/ resume, merge and the run's identity, compare/'s rows, precision_compare/,
 * report/) takes the column names and row-name rules from here.
 *
 * Versions: every msprobe from 1.0 to 8.3.3 writes these headers and these row names (1.0's
 * "API Name, Bench Dtype, ..." details header has the same 23 columns); precheck reads columns
 * by name, so a CSV with columns in another order or with extra ones (msprobe's own test
 * inputs) reads the same.
 *
 * The generic CSV layer is io/csv.h (cells, quoting, formula defusing) and io/csv_read.h
 * (streaming reader); this module is msprobe's use of it.
 *
 * OWNERSHIP: headers and column names are static strings. pc_csv_file_read and
 * pc_csv_records_split give malloc'ed memory the caller frees (free, pc_csv_records_free).
 * Errors: PC_ERR_IO with the path and the system's reason, PC_ERR_NOMEM.
 */
#ifndef PC_IO_MSPROBE_CSV_H
#define PC_IO_MSPROBE_CSV_H

#include <stdbool.h>
#include <stddef.h>

#include "precheck/core/status.h"

/* ---- headers ---- */

typedef enum pc_mcsv_kind {
    PC_MCSV_RESULT = 0,   /* accuracy_checking_result_<ts>.csv (run_ut) */
    PC_MCSV_DETAILS,      /* accuracy_checking_details_<ts>.csv (run_ut) */
    PC_MCSV_PCMP_RESULT,  /* api_precision_compare_result_<ts>.csv */
    PC_MCSV_PCMP_DETAILS, /* api_precision_compare_details_<ts>.csv */
    PC_MCSV_KIND_COUNT
} pc_mcsv_kind;

#define PC_MCSV_RESULT_COLUMNS       4
#define PC_MCSV_DETAILS_COLUMNS      23
#define PC_MCSV_PCMP_RESULT_COLUMNS  4
#define PC_MCSV_PCMP_DETAILS_COLUMNS 28

/* The columns of run_ut's details CSV, in order (the header's text in the comments). */
typedef enum pc_mcsv_details_col {
    PC_MCSV_DET_API_NAME = 0,   /* API Name */
    PC_MCSV_DET_BENCH_DTYPE,    /* Bench Dtype */
    PC_MCSV_DET_DEVICE_DTYPE,   /* DEVICE Dtype */
    PC_MCSV_DET_SHAPE,          /* Shape */
    PC_MCSV_DET_COSINE,         /* 余弦相似度: the first of the 17 metric columns */
    PC_MCSV_DET_MAX_ABS_ERR,    /* 最大绝对误差 */
    PC_MCSV_DET_HUNDREDTH,      /* 双百指标 */
    PC_MCSV_DET_THOUSANDTH,     /* 双千指标 */
    PC_MCSV_DET_TEN_THOUSANDTH, /* 双万指标 */
    PC_MCSV_DET_BINARY,         /* 二进制一致错误率 */
    PC_MCSV_DET_EB,             /* 误差均衡性 */
    PC_MCSV_DET_RMSE,           /* 均方根误差 */
    PC_MCSV_DET_SMALL_VALUE,    /* 小值域错误占比 */
    PC_MCSV_DET_MAX_REL,        /* 相对误差最大值 */
    PC_MCSV_DET_MEAN_REL,       /* 相对误差平均值 */
    PC_MCSV_DET_INF_NAN,        /* inf/nan错误率 */
    PC_MCSV_DET_REL_ERR,        /* 相对误差错误率 */
    PC_MCSV_DET_ABS_ERR,        /* 绝对误差错误率 */
    PC_MCSV_DET_ULP_MAX,        /* ULP误差最大值 */
    PC_MCSV_DET_ULP_MEAN,       /* ULP误差平均值 */
    PC_MCSV_DET_ULP_PROP,       /* ULP误差大于阈值占比 */
    PC_MCSV_DET_STATUS,         /* Status */
    PC_MCSV_DET_MESSAGE,        /* Message */
} pc_mcsv_details_col;

/* The columns of both result CSVs (run_ut's first is "API name", api_precision_compare's
 * "API Name"). */
typedef enum pc_mcsv_result_col {
    PC_MCSV_RES_API_NAME = 0,
    PC_MCSV_RES_FORWARD,  /* Forward Test Success */
    PC_MCSV_RES_BACKWARD, /* Backward Test Success */
    PC_MCSV_RES_MESSAGE,  /* Message */
} pc_mcsv_result_col;

/* The columns of api_precision_compare's details CSV that are read back by name. */
#define PC_MCSV_PCMP_DET_RESULT    25 /* 比对结果 */
#define PC_MCSV_PCMP_DET_ALGORITHM 26 /* 比对算法 */

/* The header of kind, exactly as msprobe writes it; *count (when not NULL) its columns. An
 * unknown kind gives NULL and 0. */
const char *const *pc_mcsv_header(pc_mcsv_kind kind, size_t *count);

/* Column i of kind's header, or NULL when out of range. */
const char *pc_mcsv_column(pc_mcsv_kind kind, size_t i);

/* The file name's stem: "accuracy_checking_result", ..., "api_precision_compare_details". */
const char *pc_mcsv_kind_stem(pc_mcsv_kind kind);

/* The first header field of run_ut's result CSV ("API name") and of every other kind ("API
 * Name"): the one difference by which the two run_ut CSVs are told apart. */
#define PC_MCSV_RESULT_FIRST  "API name"
#define PC_MCSV_DETAILS_FIRST "API Name"

/* ---- details row names ---- */

/* "<api>.<forward|backward>.output.<output>", as snprintf: at most size bytes (NUL-terminated
 * when size > 0); returns the length of the whole name. api is the full API name
 * ("Functional.softmax.0"). */
int pc_mcsv_row_name(char *dst, size_t size, const char *api, bool backward, size_t output);

/* A details row name read back. */
typedef struct pc_mcsv_row {
    size_t api_len; /* bytes of the API's full name at the start; the whole length when the
                     * name does not end in ".forward.output.<digits>" or
                     * ".backward.output.<digits>" */
    bool backward;  /* the suffix is ".backward.output." */
    bool has_output;
    size_t output; /* the digits, when has_output (saturates at SIZE_MAX) */
} pc_mcsv_row;

/* Splits the len bytes at name (no NUL needed): the API is everything before the suffix, so
 * API names with any number of dots ("Torch.linalg.norm.0") read back whole. Returns
 * has_output. */
bool pc_mcsv_row_parse(const char *name, size_t len, pc_mcsv_row *out);

/* The split api_precision_compare makes of a row name (msprobe's, by dot count): six parts
 * Type.api.idx.dir.x.y, or seven Type.pre.api.idx.dir.x.y with a two-part api ("linalg.norm");
 * any other count is an invalid name. */
typedef struct pc_mcsv_pcmp_name {
    bool valid;            /* 6 or 7 dot-separated parts */
    char api[256];         /* the basic API name ("matmul", "pre.api"); "" when invalid */
    size_t full_len;       /* bytes of "Type.api.idx" at the start of the name */
    const char *direction; /* "forward" / "backward" (not NUL-terminated), inside the name */
    size_t direction_len;
} pc_mcsv_pcmp_name;

/* False (and a zeroed *out) when name is invalid. */
bool pc_mcsv_pcmp_name_parse(const char *name, pc_mcsv_pcmp_name *out);

/* ---- whole files split into records (resume, merge) ---- */

typedef struct pc_csv_record {
    size_t start, end; /* bytes [start, end) including the line ending */
    char *first;       /* the first field, unquoted (malloc'ed) */
    size_t first_len;
    size_t fields; /* how many fields the record has */
    bool crlf;     /* it ends in CRLF (else in LF or a lone CR) */
} pc_csv_record;

/* The whole file at path, malloc'ed, in *data (*n bytes). */
pc_status pc_csv_file_read(const char *path, char **data, size_t *n);

/* Splits data into records ending outside quotes in CRLF (what run_ut and msprobe write), LF or
 * a lone CR (the same file after dos2unix, pandas or a spreadsheet: msprobe reads those too);
 * a quoted field may hold commas, doubled quotes, CR and LF. *complete_end: the end of the last
 * complete record (a partial tail is not a record, nor is a last record ending in a CR at the
 * very end of the data, which may be a cut CRLF). Skips the BOM. */
pc_status pc_csv_records_split(const char *data, size_t n, pc_csv_record **out, size_t *count,
                               size_t *complete_end);
void pc_csv_records_free(pc_csv_record *r, size_t n);

#endif
