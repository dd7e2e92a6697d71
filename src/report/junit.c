/*
 * JUnit XML (--junit FILE): the format Jenkins' JUnit plug-in and GitLab's test reports read.
 * The structure: <testsuites> with the totals, one <testsuite> per group (the API type), one
 * <testcase classname= name= time=> per API holding at most one of <failure message= type=>,
 * <skipped message=>, and a <system-out>. Every text from a file goes through the report's one
 * escaping rule (html_out.c: & < > " ' as references, bytes that are not UTF-8 and control
 * characters XML 1.0 cannot hold as U+FFFD), valid in XML content and attributes alike.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/io/file_out.h"
#include "precheck/report/diff.h"
#include "report_impl.h"
#include "tally.h"

static void attr(html_buf *b, const char *name, const char *text)
{
    pc_hb_fmt(b, " %s=\"", name);
    pc_hb_text(b, text);
    pc_hb_raw(b, "\"");
}

static size_t count_of(const rep_junit_case *cases, size_t n, const char *suite, int outcome)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += (!suite || strcmp(cases[i].suite, suite) == 0) &&
             (outcome < 0 || (int)cases[i].outcome == outcome);
    return k;
}

pc_status pc_rep_junit_write(const char *path, const char *title, const rep_junit_case *cases,
                             size_t n, double seconds, const char *timestamp)
{
    html_buf b = {0};
    if (!(seconds >= 0))
        seconds = 0;
    pc_hb_raw(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites");
    attr(&b, "name", title);
    pc_hb_fmt(&b, " tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" time=\"%.3f\">\n",
              n, count_of(cases, n, NULL, RJ_FAILURE), count_of(cases, n, NULL, RJ_SKIPPED),
              seconds);
    /* the suites in the order of their first case */
    for (size_t i = 0; i < n; i++)
        if (!cases[i].suite || !cases[i].classname || !cases[i].message)
            b.err = PC_STRBUF_NOMEM; /* an arena copy failed */
    for (size_t i = 0; i < n && !pc_strbuf_error(&b); i++) {
        const char *suite = cases[i].suite;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(cases[j].suite, suite) == 0;
        if (seen)
            continue;
        pc_hb_raw(&b, "  <testsuite");
        attr(&b, "name", suite);
        double suite_seconds = 0;
        for (size_t j = i; j < n; j++)
            if (strcmp(cases[j].suite, suite) == 0 && cases[j].seconds > 0)
                suite_seconds += cases[j].seconds;
        pc_hb_fmt(&b, " tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" time=\"%.3f\"",
                  count_of(cases, n, suite, -1), count_of(cases, n, suite, RJ_FAILURE),
                  count_of(cases, n, suite, RJ_SKIPPED), suite_seconds);
        if (timestamp && timestamp[0])
            attr(&b, "timestamp", timestamp);
        pc_hb_raw(&b, ">\n");
        for (size_t j = i; j < n; j++) {
            const rep_junit_case *c = &cases[j];
            if (strcmp(c->suite, suite) != 0)
                continue;
            pc_hb_raw(&b, "    <testcase");
            attr(&b, "classname", c->classname);
            attr(&b, "name", c->name);
            pc_hb_fmt(&b, " time=\"%.3f\"", c->seconds > 0 ? c->seconds : 0.0);
            if (c->outcome == RJ_PASSED && !c->out) {
                pc_hb_raw(&b, "/>\n");
                continue;
            }
            pc_hb_raw(&b, ">\n");
            if (c->outcome == RJ_FAILURE) {
                pc_hb_raw(&b, "      <failure");
                attr(&b, "message", c->message);
                attr(&b, "type", c->type ? c->type : "error");
                pc_hb_raw(&b, ">");
                pc_hb_text(&b, c->body ? c->body : c->message);
                pc_hb_raw(&b, "</failure>\n");
            } else if (c->outcome == RJ_SKIPPED) {
                pc_hb_raw(&b, "      <skipped");
                attr(&b, "message", c->message);
                pc_hb_raw(&b, "/>\n");
            }
            if (c->out) {
                pc_hb_raw(&b, "      <system-out>");
                pc_hb_text(&b, c->out);
                pc_hb_raw(&b, "</system-out>\n");
            }
            pc_hb_raw(&b, "    </testcase>\n");
        }
        pc_hb_raw(&b, "  </testsuite>\n");
    }
    pc_hb_raw(&b, "</testsuites>\n");
    pc_status st = pc_strbuf_error(&b)
                       ? pc_error_set(PC_ERR_NOMEM, "%s: out of memory", path)
                       : pc_file_write_whole(path, b.data, b.len, PC_FILE_OUT_REPLACE, NULL);
    pc_strbuf_reset(&b);
    if (st != PC_OK)
        return pc_error_prefix(st, "--junit %s", path);
    return PC_OK;
}

/* "Functional.layer_norm.0" -> suite "run_ut.Functional", classname "run_ut.Functional.
 * layer_norm": Jenkins shows package run_ut.Functional, class layer_norm, test the full name. */
void pc_rep_junit_names(pc_arena *a, const char *command, const char *api, rep_junit_case *c)
{
    char buf[1024];
    const char *dot = strchr(api, '.');
    snprintf(buf, sizeof buf, "%s.%.*s", command, dot ? (int)(dot - api) : (int)strlen(api), api);
    c->suite = pc_arena_strdup(a, buf);
    const char *op = dot ? dot + 1 : api;
    const char *last = strrchr(op, '.');
    size_t op_len = last && last > op ? (size_t)(last - op) : strlen(op);
    snprintf(buf, sizeof buf, "%s.%.*s", c->suite ? c->suite : command, (int)op_len, op);
    c->classname = pc_arena_strdup(a, buf);
    c->name = api;
}

/* The row's deciding metric against its limit (tally.c's words), for run_ut. */
static void run_ut_row_text(const rep_row *r, char *buf, size_t size)
{
    tally_row t = {.set = true,
                   .backward = r->backward,
                   .output = r->output < 0 ? 0 : (size_t)r->output,
                   .status = (pc_verdict)r->status,
                   .decision = r->decision};
    snprintf(t.dtype, sizeof t.dtype, "%s", r->dtype ? r->dtype : "");
    snprintf(t.shape, sizeof t.shape, "%s", r->shape ? r->shape : "");
    pc_tally_row_text(&t, buf, size);
    if (r->decision.metric < 0 && r->message && r->message[0]) {
        size_t n = strlen(buf);
        snprintf(buf + n, size - n, " (%s)", r->message);
    }
}

/* The first line of a text, cut to fit. */
static void first_line(char *buf, size_t size, const char *text)
{
    size_t n = strcspn(text ? text : "", "\r\n");
    snprintf(buf, size, "%.*s", (int)(n < size ? n : size - 1), text ? text : "");
}

void pc_rep_junit_api(pc_arena *a, const rep_api *api, bool compare, bool warning_fails,
                      rep_junit_case *c)
{
    char msg[2048] = "", body[8192] = "";
    rep_verdict f = compare ? api->cfwd : api->fwd, k = compare ? api->cbwd : api->bwd;
    pc_rep_junit_names(a, compare ? "api_precision_compare" : "run_ut", api->name, c);
    c->outcome = RJ_PASSED;
    /* run_ut's per-API wall time, from its summary (api_precision_compare's rows have none) */
    c->seconds = !compare && api->has_times ? api->device_seconds + api->bench_seconds : 0;
    c->type = f == RV_ERROR || k == RV_ERROR ? "error" : "Warning";
    bool error = f == RV_ERROR || k == RV_ERROR;
    bool warning = f == RV_WARNING || k == RV_WARNING;
    bool skip = f == RV_SKIP || k == RV_SKIP;
    /* the rows that did not pass, worst first, as the body; the worst one as the message */
    size_t used = 0;
    if (!compare) {
        if (api->worst >= 0)
            run_ut_row_text(&api->rows[api->worst], msg, sizeof msg);
        for (size_t i = 0; i < api->n_rows && used < sizeof body; i++) {
            const rep_row *r = &api->rows[i];
            if (r->status != RV_ERROR && r->status != RV_WARNING)
                continue;
            char line[1024];
            run_ut_row_text(r, line, sizeof line);
            used += (size_t)snprintf(body + used, sizeof body - used, "%s %s: %s\n",
                                     pc_rep_verdict_word(r->status), r->name, line);
        }
    } else {
        if (api->cworst >= 0) {
            const rep_crow *r = &api->crows[api->cworst];
            char line[1024];
            first_line(line, sizeof line, r->cell[CC_MESSAGE]);
            snprintf(msg, sizeof msg, "%s (%s): %s", r->name, r->cell[CC_ALGORITHM], line);
        }
        for (size_t i = 0; i < api->n_crows && used < sizeof body; i++) {
            const rep_crow *r = &api->crows[i];
            if (r->status != RV_ERROR)
                continue;
            used += (size_t)snprintf(body + used, sizeof body - used, "%s (%s): %s\n", r->name,
                                     r->cell[CC_ALGORITHM], r->cell[CC_MESSAGE]);
        }
    }
    const char *reason = compare ? api->cmessage : api->message;
    if (error || (warning && warning_fails)) {
        c->outcome = RJ_FAILURE;
        if (!msg[0])
            snprintf(msg, sizeof msg, "%s", reason && reason[0] ? reason : "error");
    } else if (skip) {
        c->outcome = RJ_SKIPPED;
        if (reason && reason[0])
            snprintf(msg, sizeof msg, "%s", reason);
        else if (!compare && api->worst >= 0 && api->rows[api->worst].message)
            snprintf(msg, sizeof msg, "%s", api->rows[api->worst].message);
        if (!msg[0])
            snprintf(msg, sizeof msg, "SKIP");
    } else if (warning) {
        char out[2100];
        snprintf(out, sizeof out, "Warning: %s", msg);
        c->out = pc_arena_strdup(a, out);
    }
    c->message = pc_arena_strdup(a, msg);
    c->body = body[0] ? pc_arena_strdup(a, body) : NULL;
}

/* "20261205033357" -> "2026-12-05T03:33:57" (ISO 8601, as JUnit's timestamp). */
void pc_rep_junit_timestamp(const char *ts, char out[32])
{
    out[0] = 0;
    if (ts && strlen(ts) == PC_REPORT_TS_LEN)
        snprintf(out, 32, "%.4s-%.2s-%.2sT%.2s:%.2s:%.2s", ts, ts + 4, ts + 6, ts + 8, ts + 10,
                 ts + 12);
}

pc_status pc_report_junit_write(const char *run_csv, const char *path, bool warning_fails)
{
    char dir[4200], ts[PC_REPORT_TS_LEN + 1];
    const char *slash = strrchr(run_csv, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - run_csv) : 1, slash ? run_csv : ".");
    if (slash && slash == run_csv)
        snprintf(dir, sizeof dir, "/");
    const char *base = slash ? slash + 1 : run_csv;
    bool compare = strncmp(base, "api_precision_compare_", 22) == 0;
    const char *digits = base + strcspn(base, "0123456789");
    if (strspn(digits, "0123456789") < PC_REPORT_TS_LEN)
        return pc_error_set(PC_ERR_INVALID,
                            "--junit: %s is not a CSV of run_ut or api_precision_compare (its "
                            "name has no time stamp)",
                            run_csv);
    snprintf(ts, sizeof ts, "%.14s", digits);
    pc_report_options ro = {.dir = dir, .run = ts};
    rep_model m;
    pc_status st = pc_rep_model_load(&m, &ro);
    rep_junit_case *cases = NULL;
    size_t n = 0;
    if (st == PC_OK) {
        cases = calloc(m.n_apis ? m.n_apis : 1, sizeof *cases);
        if (!cases)
            st = pc_error_set(PC_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; st == PC_OK && i < m.n_apis; i++) {
        const rep_api *api = &m.apis[i];
        if (compare ? api->cfwd == RV_NONE && !api->n_crows : api->fwd == RV_NONE)
            continue;
        pc_rep_junit_api(&m.arena, api, compare, warning_fails, &cases[n++]);
    }
    if (st == PC_OK) {
        char stamp[32], title[64];
        pc_rep_junit_timestamp(ts, stamp);
        snprintf(title, sizeof title, "precheck %s %s",
                 compare ? "api_precision_compare" : "run_ut", ts);
        st = pc_rep_junit_write(path, title, cases, n, compare ? m.cinfo.seconds : m.info.seconds,
                                stamp);
    }
    free(cases);
    pc_rep_model_free(&m);
    return st;
}
