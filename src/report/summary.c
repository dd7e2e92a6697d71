/*
 * The end-of-run summary in the log: what was tested, the counts of each verdict for forward
 * and for backward, why APIs were skipped, the APIs to look at first with the metric that
 * decided (its value and the limit it crossed), and where the files are.
 */
#include <stdio.h>
#include <stdlib.h>

#include "precheck/core/log.h"
#include "precheck/report/sink.h"
#include "tally.h"

#define WORST_SHOWN   10
#define SLOWEST_SHOWN 10

typedef struct summary_sink {
    tally t;
} summary_sink;

static pc_status summary_api(void *self, const pc_api_result *res)
{
    return pc_tally_add(&((summary_sink *)self)->t, res);
}

static void counts_line(const char *what, const size_t *c, bool backward)
{
    if (backward)
        pc_log_info("  %-9s pass %zu, Warning %zu, error %zu, SKIP %zu, not compared %zu", what,
                    c[PC_VERDICT_PASS], c[PC_VERDICT_WARNING], c[PC_VERDICT_ERROR],
                    c[PC_VERDICT_SKIP], c[PC_VERDICT_SPACE]);
    else
        pc_log_info("  %-9s pass %zu, Warning %zu, error %zu, SKIP %zu", what, c[PC_VERDICT_PASS],
                    c[PC_VERDICT_WARNING], c[PC_VERDICT_ERROR], c[PC_VERDICT_SKIP]);
}

/* Where a failing API sits in the model: its first frame in the user's code and the module
 * that called it (stack.json, construct.json), when the dump's folder has them. */
static void location_line(const pc_locations *locs, const char *name)
{
    pc_location loc;
    if (!pc_locations_find(locs, name, &loc))
        return;
    const char *module = loc.n_modules ? loc.modules[loc.n_modules - 1] : NULL;
    if (loc.user)
        pc_log_info("        at %s:%ld in %s: %s%s%s%s", loc.user->file, loc.user->line,
                    loc.user->function, loc.user->code, module ? " (module " : "",
                    module ? module : "", module ? ")" : "");
    else if (module)
        pc_log_info("        in module %s", module);
    else
        pc_log_info("        no frame of its stack is in your code (all are torch's, msprobe's or "
                    "Python's)");
}

/* "0.09 ms", "512.30 ms", "6.02 s" */
static const char *duration(char *buf, size_t size, double s)
{
    if (s < 1)
        snprintf(buf, size, "%.2f ms", s * 1000);
    else
        snprintf(buf, size, "%.2f s", s);
    return buf;
}

/* The APIs that took longest, device and bench (the first question on a big dump). */
static void slowest_lines(const tally *t)
{
    size_t slow[SLOWEST_SHOWN];
    size_t k = pc_tally_slowest(t, slow, SLOWEST_SHOWN);
    if (!k)
        return;
    pc_log_info("  slowest APIs (wall time on the device and on the bench):");
    for (size_t i = 0; i < k; i++) {
        const tally_api *a = &t->apis[slow[i]];
        char dev[32], bench[32];
        pc_log_info("    %2zu. %s  device %s, bench %s", i + 1, a->name,
                    duration(dev, sizeof dev, a->device_seconds),
                    duration(bench, sizeof bench, a->bench_seconds));
    }
}

static pc_status summary_finish(void *self, const pc_run_end *e)
{
    const tally *t = &((summary_sink *)self)->t;
    pc_log_info("Summary of this run%s: %zu API(s)%s", e->interrupted ? " (interrupted)" : "", t->n,
                e->done_before ? " (a resumed run: the APIs of the earlier run are not "
                                 "counted here; the CSVs hold all)"
                               : "");
    if (e->device && *e->device)
        pc_log_info("  %s", e->device);
    counts_line("forward:", t->forward, false);
    counts_line("backward:", t->backward, true);
    char line[1024];
    int used = 0;
    for (int r = 0; r < SKIP_REASON_COUNT; r++)
        if (t->reasons[r] && used < (int)sizeof line)
            used += snprintf(line + used, sizeof line - (size_t)used, "%s%s %zu", used ? ", " : "",
                             pc_tally_reason_name((skip_reason)r), t->reasons[r]);
    if (used)
        pc_log_info("  SKIP, by reason: %s", line);
    size_t worst[WORST_SHOWN];
    size_t k = pc_tally_worst(t, worst, WORST_SHOWN);
    if (k)
        pc_log_info("  to look at first:");
    for (size_t i = 0; i < k; i++) {
        const tally_api *a = &t->apis[worst[i]];
        char why[512];
        pc_tally_row_text(&a->worst, why, sizeof why);
        pc_log_info("    %2zu. %s  %s  %s", i + 1, a->name, pc_verdict_text(a->worst.status), why);
        location_line(e->locations, a->name);
    }
    slowest_lines(t);
    if (e->result_csv && *e->result_csv)
        pc_log_info("  CSVs: %s and %s", e->result_csv, e->details_csv);
    if (e->summary_json && *e->summary_json)
        pc_log_info("  summary for programs: %s", e->summary_json);
    if (!k && t->n)
        pc_log_info("  no API has an error or a Warning.");
    return PC_OK;
}

static void summary_free(void *self)
{
    summary_sink *s = self;
    pc_tally_free(&s->t);
    free(s);
}

static const pc_sink_vt summary_vt = {"summary", summary_api, summary_finish, summary_free};

pc_status pc_sink_summary_new(pc_sink *out)
{
    summary_sink *s = calloc(1, sizeof *s);
    if (!s)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    *out = (pc_sink){&summary_vt, s};
    return PC_OK;
}

bool pc_sink_summary_fails(const pc_sink *s, pc_fail_level level)
{
    if (!s || s->vt != &summary_vt || level == PC_FAIL_NEVER)
        return false;
    pc_verdict w = ((const summary_sink *)s->self)->t.worst_verdict;
    return w == PC_VERDICT_ERROR || (level == PC_FAIL_WARNING && w == PC_VERDICT_WARNING);
}
