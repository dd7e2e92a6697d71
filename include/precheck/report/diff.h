/*
 * What changed between two runs of one dump (precheck diff OLD NEW, docs/diff.md), and the
 * JUnit XML of a run (--junit FILE on run_ut, api_precision_compare and diff).
 *
 * OLD and NEW are each an output folder of run_ut or of api_precision_compare (the newest run
 * of that command in it), or one CSV of a run (its result or details CSV: that run). Both must
 * be runs of the same command. Each API of either run is put in one class (pc_diff_change), and
 * every metric of a details row present in both runs whose value moved by more than the factor
 * is listed: a metric is compared as its distance from a perfect result (1 - value for the
 * cosine, the shares within a relative error and 双千指标; |value| otherwise), a distance below
 * PC_DIFF_FLOOR counting as PC_DIFF_FLOOR; a number against NaN or inf moved (factor inf), NaN
 * against NaN did not; a cell that is no number on either side is not compared.
 *
 * OWNERSHIP: a pc_report_diff owns everything it holds; pc_report_diff_free releases it. The
 * options' strings are copied.
 *
 * Errors (with a message a user can act on): PC_ERR_NOT_FOUND (a folder without a run of
 * either command, a CSV that is not there), PC_ERR_INVALID (runs of different commands, runs of
 * different dumps without allow_different_dumps: pc_pcmp_check_runs's rule), PC_ERR_FORMAT (a
 * file that is not one of these commands' CSVs), PC_ERR_IO, PC_ERR_NOMEM.
 */
#ifndef PC_REPORT_DIFF_H
#define PC_REPORT_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "precheck/core/status.h"

/* The class of an API. An API "fails" when its forward or backward verdict is error. */
typedef enum pc_diff_change {
    PC_DIFF_NEW_ERROR, /* fails in NEW, did not in OLD */
    PC_DIFF_FIXED,     /* failed in OLD, does not in NEW */
    PC_DIFF_STILL,     /* fails in both */
    PC_DIFF_VERDICT,   /* fails in neither, but a verdict changed (pass -> Warning, -> SKIP) */
    PC_DIFF_ONLY_OLD,  /* in OLD only */
    PC_DIFF_ONLY_NEW,  /* in NEW only */
    PC_DIFF_SAME,      /* the same verdicts (its metrics may still have moved) */
    PC_DIFF_CHANGE_COUNT
} pc_diff_change;

/* "new_error", "fixed", "still_failing", "verdict_changed", "only_old", "only_new", "same":
 * the JSON's words. */
const char *pc_report_diff_change_key(pc_diff_change c);

/* What --fail-on can name (bits). */
enum {
    PC_DIFF_FAIL_NEW_ERROR = 1u << 0,   /* an API newly failing */
    PC_DIFF_FAIL_NEW_WARNING = 1u << 1, /* an API newly failing or newly Warning */
    PC_DIFF_FAIL_MOVED = 1u << 2,       /* a metric moved for the worse beyond the factor */
    PC_DIFF_FAIL_MISSING = 1u << 3,     /* an API of OLD missing from NEW */
    PC_DIFF_FAIL_ANY = 1u << 4,         /* any change at all, fixes and moves for the better too */
};

/* Parses a --fail-on list ("new-error,moved"); false for an unknown word. */
bool pc_report_diff_parse_fail_on(const char *text, unsigned *bits);

#define PC_DIFF_DEFAULT_FACTOR 10.0
/* Distances from a perfect result below this count as it (see pc_report_diff_moved_rule). */
#define PC_DIFF_FLOOR 1e-9

typedef struct pc_diff_options {
    const char *old_path, *new_path; /* folders or CSVs */
    const char *new_run;             /* NULL, or the time stamp of NEW's run (report --run) */
    double factor;                   /* > 1; 0: PC_DIFF_DEFAULT_FACTOR */
    bool allow_different_dumps;
} pc_diff_options;

typedef struct pc_report_diff pc_report_diff;

/* Reads both runs and compares them. *out is NULL on failure. WARNINGs are logged for a run
 * without its precheck record (msprobe's), for a folder holding several runs (the newest is
 * taken), and for runs that differ in settings. */
pc_status pc_report_diff_load(const pc_diff_options *opt, pc_report_diff **out);
void pc_report_diff_free(pc_report_diff *d);

/* How many APIs are in class c; how many APIs and rows have a metric that moved. */
size_t pc_report_diff_count(const pc_report_diff *d, pc_diff_change c);
size_t pc_report_diff_moved_apis(const pc_report_diff *d);
size_t pc_report_diff_moved_rows(const pc_report_diff *d);

/* Whether the diff holds a change the --fail-on bits name. */
bool pc_report_diff_fails(const pc_report_diff *d, unsigned fail_on);

/* The text for people: the two runs, the counts, then each class's APIs (at most max_lines
 * lines per list; 0: all). */
void pc_report_diff_print(const pc_report_diff *d, FILE *out, size_t max_lines);

/* The JSON (docs/diff.md), written through io/file_out.h (an existing file is replaced). */
pc_status pc_report_diff_write_json(const pc_report_diff *d, const char *path, unsigned fail_on);

/* The JUnit XML of the diff: one testcase per API of NEW or OLD; a failure where the API has a
 * change fail_on names (newly failing always), skipped for an API missing from NEW. */
pc_status pc_report_diff_write_junit(const pc_report_diff *d, const char *path, unsigned fail_on);

/*
 * The JUnit XML of one run, from the CSV a run_ut or api_precision_compare run wrote (its result
 * or details CSV: the run's folder and time stamp are taken from the name). One testcase per
 * API, grouped in a testsuite per API type (Functional, Torch, Tensor, NPU, ...), classname
 * "<command>.<type>.<op>" and name the API's full name: error -> <failure> with the deciding
 * metric, its value and limit; SKIP -> <skipped> with the reason; Warning -> a failure when
 * warning_fails (run_ut --fail-on warning), else a pass with the Warning in <system-out>. The
 * file is written through io/file_out.h; an existing file is replaced.
 */
pc_status pc_report_junit_write(const char *run_csv, const char *path, bool warning_fails);

#endif
