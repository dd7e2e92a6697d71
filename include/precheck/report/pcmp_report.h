/*
 * The end-of-run summary of api_precision_compare (in the log) and its summary.json (kind
 * "api_precision_compare", docs/summary-json.md), read from the CSVs the run wrote and its two
 * inputs, streaming (memory holds the failed rows only).
 */
#ifndef PC_REPORT_PCMP_REPORT_H
#define PC_REPORT_PCMP_REPORT_H

#include <stdbool.h>

#include "precheck/report/sink.h"

typedef struct pc_pcmp_report_in {
    const char *result_csv, *details_csv; /* what api_precision_compare wrote */
    const char *npu_csv, *gpu_csv;        /* its inputs (NULL: no NPU/GPU figures) */
    const char *json_path;                /* NULL: no summary.json */
    const char *command;                  /* for summary.json; may be NULL */
    const char *started; /* "YYYY-mm-dd HH:MM:SS" local, for summary.json; may be NULL */
    double seconds;      /* how long the comparison took, for summary.json; < 0: unknown */
} pc_pcmp_report_in;

/* Logs the summary and writes summary.json; *fails: an API's verdict is at or above fail_on.
 * An unwritable summary.json is a warning; an unreadable output CSV an error. */
pc_status pc_pcmp_report(const pc_pcmp_report_in *in, pc_fail_level fail_on, bool *fails);

#endif
