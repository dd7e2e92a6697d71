/* Private to src/report: what the summary sinks accumulate from a run's results. */
#ifndef PC_REPORT_TALLY_H
#define PC_REPORT_TALLY_H

#include <stdbool.h>
#include <stddef.h>

#include "precheck/compare/compare.h"

enum { TALLY_VERDICTS = PC_VERDICT_SPACE + 1 };

typedef enum skip_reason {
    SKIP_NOT_SUPPORTED,
    SKIP_LISTS,
    SKIP_CRASHED,
    SKIP_TIMEOUT,
    SKIP_MEMORY,
    SKIP_INPUTS,
    SKIP_DEVICE_ERROR,
    SKIP_NO_BACKWARD, /* backward SKIPs: msprobe's or precheck's rules, replay */
    SKIP_REASON_COUNT
} skip_reason;

const char *pc_tally_reason_name(skip_reason r);
/* The kind of a whole-API SKIP, from its message (msprobe's texts and precheck's). */
skip_reason pc_tally_skip_reason(const char *message);

/* Whether a larger value of the metric is better (cosine, the shares within a relative error). */
bool pc_tally_higher_is_better(int metric);
/* error 3, Warning 2, pass 1, SKIP and SPACE 0: the order "worst first" uses. */
int pc_tally_severity(pc_verdict v);
/* How far a row's deciding metric is past its limit (0 within it; NaN and unknown metrics very
 * far), to order rows of the same severity. */
double pc_tally_badness(const pc_row_decision *d, pc_verdict status);

/* The row of an API that a person should look at first. */
typedef struct tally_row {
    bool set;
    bool backward;
    size_t output;
    pc_verdict status;
    pc_row_decision decision;
    char dtype[PC_DTYPE_TEXT_MAX], shape[PC_SHAPE_TEXT_MAX];
    double badness; /* how far past its limit, for ordering */
} tally_row;

typedef struct tally_api {
    char *name;
    pc_verdict forward, backward;
    tally_row worst;
    char *skip_message; /* the forward or backward SKIP's message (cut), or NULL */
    double device_seconds, bench_seconds; /* the API's wall time on each side */
} tally_api;

typedef struct tally {
    size_t forward[TALLY_VERDICTS], backward[TALLY_VERDICTS];
    size_t reasons[SKIP_REASON_COUNT];
    tally_api *apis; /* every API, in dump order */
    size_t n, cap;
    pc_verdict worst_verdict; /* PASS when nothing worse was seen */
} tally;

pc_status pc_tally_add(tally *t, const pc_api_result *res);
void pc_tally_free(tally *t);

/* Indexes of the APIs to look at first (error before Warning before SKIP-free passes, then by
 * how far the deciding metric is past its limit), at most max; returns how many. */
size_t pc_tally_worst(const tally *t, size_t *out, size_t max);

/* Indexes of the slowest APIs (device plus bench seconds, the slowest first, dump order among
 * equals; APIs that took no time are left out), at most max; returns how many. */
size_t pc_tally_slowest(const tally *t, size_t *out, size_t max);

/* Whether the API got an error or a Warning in either direction (its place in the model is
 * then worth saying). */
bool pc_tally_failed(const tally_api *a);

/* "backward output 1: cosine similarity 0.9812, must be > 0.99" and the like. */
void pc_tally_row_text(const tally_row *r, char *buf, size_t size);

#endif
