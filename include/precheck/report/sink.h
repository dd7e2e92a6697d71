/*
 * Result sinks: where a run's structured results go (DESIGN.md, report/). The runner hands
 * every finished API's pc_api_result to each sink in dump order, then tells them the run is
 * over; a new output format is one more sink and no change in the runner. Built in:
 *   - the msprobe CSVs (pc_sink_csv_open): the details and result rows, byte for byte msprobe's,
 *     appended API by API (details rows first: a result row marks an API complete);
 *   - the end-of-run summary in the log (pc_sink_summary_new): counts, SKIP reasons, the worst
 *     APIs with the metric that failed, its value and the limit;
 *   - summary.json (pc_sink_json_new): the same for programs, in a versioned schema
 *     (docs/summary-json.md), beside the CSVs.
 *
 * OWNERSHIP: a sink is created by its constructor and freed with pc_sink_free; results passed
 * to api() are borrowed for the call.
 */
#ifndef PC_REPORT_SINK_H
#define PC_REPORT_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "precheck/compare/compare.h"
#include "precheck/runner/location.h"

/* What a sink learns when the run ends. */
typedef struct pc_run_end {
    const char *command; /* fields may be NULL or "" when unknown */
    const char *device;  /* the backend's "device under test: ..." line */
    const char *dump;
    const char *result_csv, *details_csv, *summary_json;
    const char *identity_json; /* the run's record (precheck_run_<ts>.json) */
    const char *started;       /* local time, "2026-12-03 08:04:23" */
    double seconds;
    size_t total;       /* APIs this run was to run */
    size_t done;        /* of them, finished */
    size_t done_before; /* APIs a resumed CSV already held (not among this run's results) */
    bool interrupted;
    /* -save_error_data (error_data_dir NULL: not asked): the .pt files of this run's failing
     * APIs, how many could not be saved, and the first one's error (NULL when none) */
    const char *error_data_dir;
    size_t error_data_files, error_data_unsaved;
    const char *error_data_error;
    /* the dump's stack.json and construct.json (runner/location.h): where each failing API sits
     * in the model; NULL or an empty table: not known */
    const pc_locations *locations;
} pc_run_end;

typedef struct pc_sink_vt {
    const char *name;
    /* One API's result, in dump order. Non-PC_OK stops the run (the message says why). */
    pc_status (*api)(void *self, const pc_api_result *res);
    /* The run is over (also when interrupted or failed: end->interrupted, done < total). */
    pc_status (*finish)(void *self, const pc_run_end *end);
    void (*free)(void *self);
} pc_sink_vt;

typedef struct pc_sink {
    const pc_sink_vt *vt;
    void *self;
} pc_sink;

pc_status pc_sink_api(pc_sink *s, const pc_api_result *res);
pc_status pc_sink_finish(pc_sink *s, const pc_run_end *end);
void pc_sink_free(pc_sink *s); /* NULL and a freed sink are fine */

/* The CSV sink: appends to result_path and details_path (which exist, with their headers),
 * keeping both open; precision: config.yaml's decimals for float64 cells. */
pc_status pc_sink_csv_open(pc_sink *out, const char *result_path, const char *details_path,
                           int precision);

/* The summary in the log (INFO lines, msprobe's log format), at finish. */
pc_status pc_sink_summary_new(pc_sink *out);

/* summary.json at path, written at finish as io/file_out.h writes (atomically, never through a
 * link). An existing file at path fails the finish ("already exists"), unless replace (a resumed
 * run rewrites its own summary). */
pc_status pc_sink_json_new(pc_sink *out, const char *path, bool replace);

/* --fail-on: the worst verdict among the results a sink saw, for an exit code. */
typedef enum pc_fail_level {
    PC_FAIL_NEVER = 0,
    PC_FAIL_ERROR,   /* any forward or backward "error" */
    PC_FAIL_WARNING, /* any "error" or "Warning" */
} pc_fail_level;

/* Whether the summary sink s (pc_sink_summary_new) saw a verdict at or above level. */
bool pc_sink_summary_fails(const pc_sink *s, pc_fail_level level);

#endif
