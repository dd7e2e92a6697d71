/*
 * Private to src/report: the HTML report's model of a folder and the pieces that draw it.
 *   report_find.c  finds the runs in the folder, the one to show, and its error data;
 *   report_load.c  reads their CSVs and JSON into a rep_model; report_extra.c what the
 *                  summaries add to the CSVs (times, places in the model, "rule, not device");
 *   html_out.c     the page buffer and THE escaping rule (every outside text goes through it);
 *   html_plot.c    inline SVG: stacked count bars, histograms on log bins, scatter plots;
 *   error_data.c   the -save_error_data tensors of the worst APIs, as plots;
 *   html_table.c   the per-API table; html_metrics.c the metric plots; html_coverage.c what ran
 *                  and what was skipped; html_where.c the times, places and "rule, not
 *                  device" parts;
 *   html.c         the page itself: its head, overview, order of sections (pc_report_write).
 *
 * OWNERSHIP: every string of a rep_model lives in its arena and dies with pc_rep_model_free.
 */
#ifndef PC_REPORT_REPORT_IMPL_H
#define PC_REPORT_REPORT_IMPL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "precheck/compare/compare.h"
#include "precheck/core/arena.h"
#include "precheck/core/hashmap.h"
#include "precheck/core/strbuf.h"
#include "precheck/precision_compare/precision_compare.h"
#include "precheck/report/report.h"

/* ---- the page buffer and escaping (html_out.c) ---- */

/* The page is built in core's pc_strbuf (PC_STRBUF_INIT); out of memory sticks in it and the page
 * is refused at the end. */
typedef pc_strbuf html_buf;

/* Markup of the program itself: string literals only, never text read from a file. */
void pc_hb_raw(html_buf *b, const char *markup);
/* Markup with numbers (printf); %s only for the program's own literals. */
void pc_hb_fmt(html_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * Text from outside (a dump, a CSV, a JSON file, a path, the command line): valid in element
 * content and inside a quoted attribute value. & < > " ' become character references; bytes
 * that are not UTF-8 (bad sequences, overlong forms, surrogates), control characters other
 * than tab and line feed, and the bidirectional overrides become U+FFFD. NULL writes nothing.
 */
void pc_hb_text(html_buf *b, const char *text);
void pc_hb_textn(html_buf *b, const char *text, size_t len);
/* pc_hb_text of at most max bytes of text (cut on a character boundary), with "..." when cut. */
void pc_hb_text_cut(html_buf *b, const char *text, size_t max);

/* The page's style sheet and script (html_assets.c). */
extern const char pc_report_css[];
extern const char pc_report_js[];

/* ---- the model ---- */

/* A verdict cell: msprobe's words, and what else a cell can hold. */
typedef enum rep_verdict {
    RV_PASS = PC_VERDICT_PASS,
    RV_WARNING = PC_VERDICT_WARNING,
    RV_ERROR = PC_VERDICT_ERROR,
    RV_SKIP = PC_VERDICT_SKIP,
    RV_SPACE = PC_VERDICT_SPACE, /* " ": no backward compared */
    RV_NONE,                     /* the API is not in that file */
    RV_OTHER,                    /* some other text */
    RV_COUNT
} rep_verdict;

rep_verdict pc_rep_verdict_of(const char *cell);
/* "pass", "Warning", "error", "SKIP", "not compared", "-", "other". */
const char *pc_rep_verdict_word(rep_verdict v);
/* A token for class names and filters: "pass", "warning", "error", "skip", "none", "absent",
 * "other". */
const char *pc_rep_verdict_token(rep_verdict v);
int pc_rep_verdict_severity(rep_verdict v); /* error 3, Warning 2, pass 1, other 0 */

/* One row of run_ut's details CSV. */
typedef struct rep_row {
    const char *name; /* the whole API Name cell */
    bool backward;
    int output; /* -1 when the name has no ".forward.output.<i>" / ".backward.output.<i>" */
    const char *bench_dtype, *dtype, *shape, *status_text, *message;
    rep_verdict status;
    const char *cell[PC_METRIC_COUNT]; /* as written; "" when the column is missing */
    pc_row_decision decision;          /* msprobe's rule, read back from the cells */
    double badness;
} rep_row;

/* One row of api_precision_compare's details CSV. */
typedef struct rep_crow {
    const char *name;
    bool backward;
    int output;
    const char *cell[PC_PCMP_DETAILS_COLUMNS]; /* as written; "" when the column is missing */
    rep_verdict status;                        /* 比对结果 */
    /* from the compare's summary JSON (report_extra.c): "rule, not device" (the NPU and GPU
     * rows are identical, msprobe's rule fails them anyway), and the failed checks with both
     * sides' figures ("绝对误差错误率 1 (NPU 1, GPU 1); ..."), NULL unknown */
    bool rule;
    const char *sides;
} rep_crow;

/* The details columns of api_precision_compare the report uses. */
enum {
    CC_NAME = 0,
    CC_SMALL_RATIO = 1, /* 小值域错误比值, its 判定结果 at +1; the same for the next four */
    CC_RMSE_RATIO = 3,
    CC_MAX_REL_RATIO = 5,
    CC_MEAN_REL_RATIO = 7,
    CC_EB_RATIO = 9,
    CC_INF_NAN = 11,
    CC_REL_ERR = 13,
    CC_ABS_ERR = 15,
    CC_BINARY = 17,
    CC_ULP_MEAN = 19,
    CC_ULP_PROP = 20,
    CC_ULP_PROP_RATIO = 21,
    CC_ULP_STATUS = 22,
    CC_THOUSANDTH = 23,
    CC_THOUSANDTH_STATUS = 24,
    CC_RESULT = 25,
    CC_ALGORITHM = 26,
    CC_MESSAGE = 27,
};

typedef struct rep_api {
    const char *name; /* "Torch.matmul.0" */
    const char *type; /* its first segment: "Torch", "Tensor", "Functional", "NPU", ... */
    size_t order;     /* where it first appears: result CSV, then details, then compare */
    /* run_ut */
    rep_verdict fwd, bwd;            /* RV_NONE: not in the result CSV */
    const char *fwd_text, *bwd_text; /* the cells as written */
    const char *message;             /* the result CSV's Message cell ("" none) */
    rep_row *rows;
    size_t n_rows, cap_rows;
    long worst; /* index into rows of the row to look at first, -1 none */
    /* api_precision_compare */
    rep_verdict cfwd, cbwd;
    const char *cfwd_text, *cbwd_text;
    const char *cmessage;
    rep_crow *crows;
    size_t n_crows, cap_crows;
    long cworst;
    /* from the run_ut summary JSON (report_extra.c): the API's wall times (has_times), and
     * for a failing API where it sits in the model (NULL unknown): its first frame in the
     * user's code ("file:line in function: code"), its calling modules ("A > B"), its stack */
    bool has_times;
    double device_seconds, bench_seconds;
    const char *where, *module_path, *stack;
    /* its api_precision_compare rows in error are all "rule, not device" */
    bool crule_only;
    /* report --baseline: the API's change since the baseline (diff.c), NULL: none */
    const char *mark_word, *mark_token, *mark_title;
    /* the per-API table's order */
    int severity;
    double badness;
} rep_api;

typedef struct rep_setting {
    const char *key, *value;
    bool decides; /* the record's "identity" (decides the rows) or "about" */
} rep_setting;

/* What the run_ut run's JSON files say (all optional). */
typedef struct rep_run_info {
    bool has_summary, has_record;
    const char *summary_problem, *record_problem; /* why a file could not be read, or NULL */
    const char *device, *dump, *command, *started, *error_data;
    double seconds; /* < 0 unknown */
    bool interrupted;
    long planned, done, earlier; /* -1 unknown */
    rep_setting settings[48];
    size_t n_settings;
    /* a merged folder: the shards' runs (their summaries, beside the records merged_from
     * names) */
    struct {
        const char *command, *started;
        double seconds; /* < 0 unknown */
    } shards[16];
    size_t n_shards;
} rep_run_info;

/* What the api_precision_compare run's summary says (all optional). */
typedef struct rep_compare_info {
    bool has_summary;
    const char *summary_problem; /* why no summary of this run could be read, or NULL */
    const char *command, *started, *npu_csv, *gpu_csv;
    double seconds; /* < 0 unknown */
} rep_compare_info;

typedef struct rep_model {
    pc_arena arena; /* 64 KiB chunks */
    const char *dir;
    /* what the folder holds */
    char run_ut_ts[PC_REPORT_TS_LEN + 1], compare_ts[PC_REPORT_TS_LEN + 1];
    size_t run_ut_runs, compare_runs;
    const char *result_csv, *details_csv, *summary_json, *record_json; /* paths, or NULL */
    const char *cresult_csv, *cdetails_csv, *csummary_json;
    /* the summaries that may be each run's (report_find.c: its stamp, the newest suffix first;
     * report_load.c takes the first whose "kind" and CSV are the run's into summary_json and
     * csummary_json) */
    const char *summary_try[8], *csummary_try[16];
    /* summary_json and csummary_json parsed (report_load.c), kept for what they add once the
     * CSVs' APIs are known (report_extra.c), then freed; NULL when not read */
    struct pc_json_doc *summary_doc, *csummary_doc;
    size_t n_summary_try, n_csummary_try;
    const char *error_dir;            /* the ut_error_data<ts> folder found, or NULL */
    double run_ut_seconds_from_files; /* the last write after the start, -1 unknown */
    double compare_seconds_from_files;
    rep_run_info info;
    rep_compare_info cinfo;
    /* the APIs */
    rep_api *apis;
    size_t n_apis, cap_apis;
    pc_strmap index; /* name -> index into apis; keys are the apis' names (in the arena) */
    /* counts from the result CSVs: [direction][verdict], direction 0 forward, 1 backward */
    size_t counts[2][RV_COUNT], ccounts[2][RV_COUNT];
    size_t n_rows, n_crows;
    /* things a reader of the page should know (text, escaped when written) */
    const char *notes[32];
    size_t n_notes;
} rep_model;

/* report_find.c: the runs of opt->dir and the one of each command to show (m's time stamps,
 * paths and counts of runs; notes); PC_ERR_NOT_FOUND when there is none or no --run TS.
 * Run_ut's link rule applies to what it reads: DIR itself a soft link is PC_ERR_INVALID
 * ("The file path <DIR> is a soft link."); a file or folder inside DIR with one of the names it
 * reads that is a soft link (or not a regular file or folder) is skipped, with a WARNING
 * naming it and a note on the page. */
pc_status pc_rep_find_runs(rep_model *m, const pc_report_options *opt);
/* Where the run's ut_error_data<ts> folder is (m->error_dir, NULL when nowhere); the same rule:
 * --error-data a soft link is PC_ERR_INVALID, a candidate folder that is one is skipped. */
pc_status pc_rep_find_error_data(rep_model *m, const pc_report_options *opt);

/* Finds the runs in opt->dir and reads them. PC_ERR_NOT_FOUND when there is nothing to
 * report on. The model is valid (and must be freed) whatever the status. */
pc_status pc_rep_model_load(rep_model *m, const pc_report_options *opt);
void pc_rep_model_free(rep_model *m);
/* The API named name, or NULL. */
rep_api *pc_rep_api_find(const rep_model *m, const char *name);
/* report_extra.c: what the two summary JSONs add to the CSVs (times, places in the model,
 * "rule, not device"), into the model's APIs and rows, from summary_doc and csummary_doc, which
 * it then frees; a summary that could not be read adds nothing (its note is report_load.c's). */
void pc_rep_read_extras(rep_model *m);

/* Adds a note for the page (formatted; copied). */
void pc_rep_note(rep_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The cell as a number: Python float() syntax plus "nan"/"inf"; false for blanks and text. */
bool pc_rep_number(const char *cell, double *out);

/* ---- the page's parts (html_table.c, html_metrics.c, html_coverage.c) ---- */

/* The distinct values of a column, for a filter's choices (at most 64, in first-seen order;
 * borrowed strings). */
typedef struct rep_choice {
    const char *v[64];
    size_t n;
} rep_choice;
void pc_rep_choice_add(rep_choice *c, const char *v);

/* A verdict as a coloured word (text: the cell as written, shown for RV_OTHER). */
void pc_html_badge(html_buf *b, rep_verdict v, const char *text);
/* The sections, order: indexes into m->apis, worst first. */
void pc_html_api_table(html_buf *b, const rep_model *m, const size_t *order);
void pc_html_metrics_section(html_buf *b, const rep_model *m);
void pc_html_coverage_section(html_buf *b, const rep_model *m);
/* html_where.c: in an API's expanded row, its times, its place in the model (the whole stack
 * on a further click) and its "rule, not device" rows with both sides' figures; */
void pc_html_api_extras(html_buf *b, const rep_api *a);
/* the mark of a "rule, not device" compare row in the table; */
void pc_html_crow_mark(html_buf *b, const rep_crow *r);
/* the section of the slowest APIs (nothing when the summary had no times). */
void pc_html_time_section(html_buf *b, const rep_model *m);

/* ---- SVG (html_plot.c) ---- */

typedef struct plot_segment {
    const char *label; /* the program's own word */
    const char *css;   /* a class: "pass", "warning", "error", "skip", "none" */
    size_t count;
} plot_segment;

/* A horizontal bar of segments proportional to their counts, with a legend of the counts;
 * id_prefix names each count's element (id_prefix-<css>) for programs reading the page. */
void pc_plot_stacked_bar(html_buf *b, const char *title, const plot_segment *segs, size_t n,
                         const char *id_prefix);

/* A distribution across APIs of one metric, on log bins, with its limits drawn. */
typedef struct plot_metric {
    const char *title;     /* "Cosine similarity" */
    const char *column;    /* msprobe's column, "余弦相似度" */
    bool higher_is_better; /* plotted as 1 - value (shares, cosine) */
    double limits[3];      /* the limit lines (value units), NAN unused */
    const char *limit_labels[3];
    const char *note; /* a line under the plot, or NULL */
} plot_metric;

/* values[i] of API labels[i] (text from files: escaped), limit[i] the limit that applies to it
 * (NAN: none); a value beyond its limit is drawn in the error colour. */
void pc_plot_metric_histogram(html_buf *b, const plot_metric *spec, const double *values,
                              const double *limit, const char *const *labels, size_t n);

/* Per-element errors of one output: a histogram of log10 |device - bench| and |error| against
 * |bench| on a sample. */
typedef struct plot_errors {
    size_t n, zeros, nonfinite;
    size_t bins[80]; /* log10 |error| from PLOT_ERR_LO in steps of 1/PLOT_ERR_PER_DECADE */
    size_t n_sample;
    float *bench_abs, *err_abs; /* the sample */
    double rtol[2];             /* the relative limits drawn in the scatter (NAN unused) */
    double atol;                /* the absolute limit drawn (NAN unused) */
} plot_errors;
#define PLOT_ERR_LO         (-16)
#define PLOT_ERR_PER_DECADE 4

void pc_plot_error_histogram(html_buf *b, const plot_errors *e);
void pc_plot_error_scatter(html_buf *b, const plot_errors *e);

/* ---- the error data (error_data.c) ---- */

/* The error-data section: for the worst APIs (order: indexes into m->apis, worst first) whose
 * failing outputs have both tensors in m->error_dir, the plots and what the files hold.
 * Returns how many APIs got plots. */
size_t pc_rep_error_data_section(html_buf *b, const rep_model *m, const size_t *order,
                                 size_t max_apis);

/* ---- report --baseline (diff.c) ---- */

struct pc_report_diff;
/* Marks m's APIs (mark_word/token/title, in m's arena) with their change in d, whose NEW is
 * the run m shows. PC_ERR_NOMEM only. */
pc_status pc_rep_diff_mark(const struct pc_report_diff *d, rep_model *m);
/* The section "Changes since the baseline": the two runs, the counts, each class's APIs, the
 * metrics that moved most. */
void pc_rep_diff_section(html_buf *b, const struct pc_report_diff *d);

/* ---- JUnit XML (junit.c) ---- */

typedef enum rep_junit_outcome { RJ_PASSED, RJ_FAILURE, RJ_SKIPPED } rep_junit_outcome;

/* One <testcase>; the strings are borrowed (an arena's). */
typedef struct rep_junit_case {
    const char *suite, *classname, *name;
    rep_junit_outcome outcome;
    const char *type;    /* the failure's type ("error"), NULL: "error" */
    const char *message; /* the failure's or skip's message */
    const char *body;    /* the failure's text, NULL: the message */
    const char *out;     /* <system-out>, or NULL */
    double seconds;      /* the API's wall time (device and bench); 0: unknown */
} rep_junit_case;

/* Writes cases (grouped in one <testsuite> per suite, in the order of their first case) to path
 * through io/file_out.h, replacing an existing file. title names the <testsuites>; seconds < 0
 * unknown; timestamp ISO 8601 or NULL. */
pc_status pc_rep_junit_write(const char *path, const char *title, const rep_junit_case *cases,
                             size_t n, double seconds, const char *timestamp);
/* c's suite "<command>.<type>", classname "<command>.<type>.<op>" and name (api, borrowed). */
void pc_rep_junit_names(pc_arena *a, const char *command, const char *api, rep_junit_case *c);
/* The case of one API of a run_ut (compare false) or api_precision_compare run. */
void pc_rep_junit_api(pc_arena *a, const rep_api *api, bool compare, bool warning_fails,
                      rep_junit_case *c);
/* A run's time stamp YYYYmmddHHMMSS as ISO 8601 ("" when it is not one). */
void pc_rep_junit_timestamp(const char *ts, char out[32]);

#endif
