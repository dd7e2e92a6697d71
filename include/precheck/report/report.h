/*
 * The HTML report of a folder (precheck report DIR): one self-contained page -- inline CSS,
 * SVG and a little script, nothing fetched from anywhere (a Content-Security-Policy of
 * default-src 'none' with the hashes of its own script and style) -- that opens from file://.
 *
 * DIR holds the output of a run_ut run (accuracy_checking_{result,details}_<ts>.csv, and when
 * precheck wrote them precheck_summary_<ts>.json and precheck_run_<ts>.json), of an
 * api_precision_compare run (api_precision_compare_{result,details}_<ts>.csv), or both. When it
 * holds several runs of a kind, the newest is taken (the page says so) unless run names one.
 * The -save_error_data tensors (ut_error_data<ts>/) are looked for in error_data, then where
 * the run record says they went, then in DIR.
 *
 * Every text that comes from a file (API names, messages, cells, paths, the command line) is
 * escaped before it reaches the page: it can neither run script nor break the markup, and
 * bytes that are not UTF-8 are shown as U+FFFD (docs/report.md).
 *
 * Errors: PC_ERR_NOT_FOUND (DIR has no result or details CSV of either command, or no run
 * run), PC_ERR_IO (DIR or the output cannot be read or written), PC_ERR_FORMAT (a CSV that is
 * not one of these commands' CSVs), PC_ERR_NOMEM; each with a message. A damaged JSON file, a
 * tensor file that cannot be read, a CSV row that is short: noted on the page, not an error.
 */
#ifndef PC_REPORT_REPORT_H
#define PC_REPORT_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "precheck/core/status.h"

#define PC_REPORT_TS_LEN 14 /* YYYYmmddHHMMSS */

typedef struct pc_report_options {
    const char *dir;        /* the folder to report on */
    const char *out_path;   /* NULL: <dir>/precheck_report_<ts>.html, <ts> the run's */
    const char *run;        /* NULL, or the <ts> of the run to take */
    const char *error_data; /* NULL, or the ut_error_data<ts> folder (or the folder holding it) */
    const char *generated;  /* the page's "generated" time; NULL: now */
    size_t max_error_apis;  /* APIs given error-data plots, worst first; 0: 24 */
    /* --baseline OLD: a run_ut or api_precision_compare folder (or CSV) of an earlier run of
     * the same dump (report/diff.h); the page gets a section of the changes and a mark on each
     * changed API's row. NULL: none. Runs of different dumps are refused (PC_ERR_INVALID) unless
     * allow_different_dumps. */
    const char *baseline;
    bool allow_different_dumps;
} pc_report_options;

typedef struct pc_report_info {
    char out_path[4200];
    char run_ut_ts[PC_REPORT_TS_LEN + 1];  /* the run_ut run reported, "" none */
    char compare_ts[PC_REPORT_TS_LEN + 1]; /* the api_precision_compare run, "" none */
    size_t run_ut_runs, compare_runs;      /* how many of each the folder holds */
    size_t apis;                           /* rows of the per-API table */
    size_t error_data_apis;                /* APIs with error-data plots */
} pc_report_info;

/* Writes the page (atomically: a temporary file renamed). info may be NULL. */
pc_status pc_report_write(const pc_report_options *opt, pc_report_info *info);

#endif
