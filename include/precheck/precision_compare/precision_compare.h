/*
 * api_precision_compare (docs/msprobe-contract.md#precision-compare): judges the NPU's run_ut
 * errors against the GPU's, row by row with the precision standard of each API, from two
 * accuracy_checking_details CSVs, and writes api_precision_compare_details_<ts>.csv (28 columns,
 * one row per NPU row) and api_precision_compare_result_<ts>.csv (one row per API: forward and
 * backward verdicts).
 *
 * Two levels:
 *   - pc_pcmp_judge_row(): the verdict of one NPU row against its GPU row, from the cells as
 *     text (pure function; for tests and for other front ends);
 *   - pc_pcmp_run(): the whole command on two files.
 *
 * Where precheck does what msprobe documents rather than what its code does (grouping of an
 * API's rows that are not consecutive, the all-numeric-column quirk, a missing Shape column,
 * outputs on failure) see docs/precision_compare.md and docs/COMPATIBILITY.md.
 */
#ifndef PC_PRECISION_COMPARE_H
#define PC_PRECISION_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "precheck/core/status.h"
#include "precheck/io/csv.h"

/* The run_ut details columns api_precision_compare reads, in this order. */
typedef enum pc_pcmp_col {
    PC_PCMP_COL_API_NAME = 0,
    PC_PCMP_COL_DEVICE_DTYPE,
    PC_PCMP_COL_SMALL_VALUE, /* 小值域错误占比 */
    PC_PCMP_COL_RMSE,        /* 均方根误差 */
    PC_PCMP_COL_MAX_REL,     /* 相对误差最大值 */
    PC_PCMP_COL_MEAN_REL,    /* 相对误差平均值 */
    PC_PCMP_COL_EB,          /* 误差均衡性 */
    PC_PCMP_COL_BINARY,      /* 二进制一致错误率 */
    PC_PCMP_COL_INF_NAN,     /* inf/nan错误率 */
    PC_PCMP_COL_REL_ERR,     /* 相对误差错误率 */
    PC_PCMP_COL_ABS_ERR,     /* 绝对误差错误率 */
    PC_PCMP_COL_ULP_MEAN,    /* ULP误差平均值 */
    PC_PCMP_COL_ULP_PROP,    /* ULP误差大于阈值占比 */
    PC_PCMP_COL_THOUSANDTH,  /* 双千指标 */
    PC_PCMP_COL_REQUIRED_COUNT,
    PC_PCMP_COL_SHAPE = PC_PCMP_COL_REQUIRED_COUNT, /* read, not required */
    PC_PCMP_COL_MESSAGE,                            /* read, not required */
    PC_PCMP_COL_COUNT
} pc_pcmp_col;

/* The column's header text, e.g. "小值域错误占比". */
const char *pc_pcmp_col_name(pc_pcmp_col col);

/* One input row: the cells as read (after CSV unquoting); NULL means the column is absent. */
typedef struct pc_pcmp_row {
    const char *cell[PC_PCMP_COL_COUNT];
} pc_pcmp_row;

/* The 28 output columns of the details CSV. */
enum { PC_PCMP_DETAILS_COLUMNS = 28 };
const char *const *pc_pcmp_details_header(void);
const char *const *pc_pcmp_result_header(void); /* 4 columns */

/* A row verdict. Statuses are the words "pass", "error", "SKIP". */
typedef struct pc_pcmp_verdict {
    const char *status; /* 比对结果 */
    bool raised;        /* SKIP because a cell was not a number (msprobe's exception path) */
    pc_csv_cell cells[PC_PCMP_DETAILS_COLUMNS]; /* the details row, API Name first */
    char message[1024];                         /* backing store for the Message cell */
} pc_pcmp_verdict;

/*
 * The verdict of an NPU row against its GPU row (gpu is read only by the benchmark and ULP
 * rules). The cells of *out borrow npu's strings and out's own buffers, so
 * both must outlive the use of out->cells. A cell that must be a number and is not (blank, or
 * not Python float() syntax) makes the row SKIP with msprobe's message, e.g. "ERROR: Input data
 * is an empty string". Never fails.
 */
void pc_pcmp_judge_row(const pc_pcmp_row *npu, const pc_pcmp_row *gpu, pc_pcmp_verdict *out);

/* Python float() on a cell after pandas' NA handling: "" and pandas' NA words give NaN,
 * surrounding whitespace is ignored, whitespace only is PC_ERR_INVALID ("ERROR: Input data is
 * an empty string"), anything else that is not a Python float literal PC_ERR_INVALID too. */
pc_status pc_pcmp_parse_float(const char *text, double *out);

/* msprobe's aggregation of an API's statuses in one direction, over a list of statuses,
 * incrementally: start from PC_PCMP_AGG_INIT, add each. */
typedef unsigned pc_pcmp_agg;
#define PC_PCMP_AGG_INIT 0u
pc_pcmp_agg pc_pcmp_agg_add(pc_pcmp_agg agg, const char *status);
/* " " for an empty list, else "SKIP", "error", "Warning" or "pass". Static storage. */
const char *pc_pcmp_agg_result(pc_pcmp_agg agg);

typedef struct pc_pcmp_options {
    const char *npu_path;  /* -npu */
    const char *gpu_path;  /* -gpu */
    const char *out_dir;   /* -o; NULL means "./" */
    const char *timestamp; /* YYYYmmddHHMMSS for the file names; NULL means now (local time) */
    /* --allow-different-dumps: CSVs whose API names mostly differ are judged (with a WARNING)
     * instead of refused; pass the same to pc_pcmp_check_pair */
    bool allow_different_dumps;
} pc_pcmp_options;

/*
 * Whether npu_csv and gpu_csv are a pair to judge: api_precision_compare calls it before
 * pc_pcmp_run (which itself judges any two files, as the tests use it). The run record
 * beside a details CSV (accuracy_checking_details_<ts>.csv: precheck_run_<ts>.json in the same
 * folder, written by run_ut and by merge) says which dump, seed, settings and device the run
 * had. Refused (PC_ERR_INVALID, the message naming what differs and what to do): the same file
 * twice (the same path or the same inode), two copies of one run (the same record), and, unless
 * allow_different, runs of different inputs (the dump's content or the seed differ). WARNINGs:
 * runs of different inputs when allow_different; other settings that change rows or figures
 * (bench, lists, filter, shard, precision); the sides swapped (-npu run on torch:cuda, -gpu on
 * torch:npu). A side without a readable record (msprobe's CSVs) gives one WARNING that the pair
 * could not be verified, and PC_OK: the API names are then the only check (pc_pcmp_run).
 */
pc_status pc_pcmp_check_pair(const char *npu_csv, const char *gpu_csv, bool allow_different);

/* What two run_ut runs are checked for. */
typedef enum pc_pcmp_pair_use {
    PC_PCMP_PAIR_JUDGE, /* api_precision_compare: pc_pcmp_check_pair's rules */
    /* precheck diff OLD NEW: the same rule on different inputs (refused unless allow_different,
     * the message naming OLD and NEW) and the same WARNINGs on settings, but the same file or
     * run twice is accepted (nothing changed) and the devices may be anything */
    PC_PCMP_PAIR_DIFF,
} pc_pcmp_pair_use;

/* pc_pcmp_check_pair for a use; first_csv is -npu or OLD, second_csv -gpu or NEW. */
pc_status pc_pcmp_check_runs(const char *first_csv, const char *second_csv, pc_pcmp_pair_use use,
                             bool allow_different);

typedef struct pc_pcmp_summary {
    size_t npu_rows;       /* data rows read from the NPU CSV */
    size_t gpu_rows;       /* data rows read from the GPU CSV */
    size_t details_rows;   /* rows written to the details CSV */
    size_t result_rows;    /* rows written to the result CSV */
    size_t unmatched_rows; /* NPU rows without a GPU row of the same name (skipped) */
    /* true: both CSVs list the same row names in the same order and every API's rows are
     * consecutive (run_ut output of one dump on both sides), and the run streamed both files
     * in step with memory bounded by a few rows; false: the GPU CSV was indexed first */
    bool streamed;
    char details_path[4200];
    char result_path[4200];
} pc_pcmp_summary;

/*
 * Runs api_precision_compare. It first streams both CSVs in step (the common case: the two
 * sides ran the same dump); at the first row where they do not follow each other (another row
 * order, an NPU row without a GPU row, an API whose rows are not consecutive, GPU rows left
 * over) it starts again with the GPU CSV indexed by name. Both ways give the same bytes.
 * Result rows come in msprobe's order: an API's row where its first run of rows ends; the row
 * of an invalid name or of a row that could not be judged at once, ahead of the API still open.
 * Both outputs are written under temporary names and renamed into
 * place only when the whole analysis succeeded; on failure neither output exists. NPU rows
 * without a GPU match are logged as WARNINGs (the first ones by name, then a count) and skipped,
 * as msprobe does. Errors (message set): the path checks' statuses, PC_ERR_FORMAT for a CSV that
 * is not a run_ut details CSV (missing columns, empty file) or a row name that would be a CSV
 * formula, PC_ERR_INVALID for an NPU row whose name has several GPU rows, PC_ERR_IO, PC_ERR_NOMEM.
 * summary may be NULL.
 */
pc_status pc_pcmp_run(const pc_pcmp_options *opt, pc_pcmp_summary *summary);

#endif
