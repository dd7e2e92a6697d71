/*
 * precheck report: the page. Sections, in order: notes (what a reader must know: which run of
 * several, a file that could not be read), overview (device, dump, settings, counts, time), the
 * per-API table (worst first, sortable, filterable), the metric plots, the error-data plots,
 * coverage (what ran, what was skipped and why), and the files read.
 *
 * The escaping rule (report_impl.h): markup is the program's own literals (hb_raw, hb_fmt with
 * numbers); every text from a file goes through hb_text. The page's Content-Security-Policy
 * allows only its own script and style (by hash) and nothing from anywhere, so a mistake in
 * escaping could still not load or run anything.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "precheck/io/checksum.h"
#include "report_impl.h"
#include "tally.h"

#define ROWS_LISTED 64 /* rows of one API listed under its name */

char *realpath(const char *path, char *resolved); /* POSIX; not declared under strict C11 */

/* ---- small pieces ---- */

static void csp_hash(char out[64], const char *text)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    uint8_t d[33] = {0};
    pc_sha256(text, strlen(text), d);
    size_t o = 0;
    for (size_t i = 0; i < 33; i += 3) { /* 32 bytes: ten groups of three, then two and "=" */
        uint32_t v = (uint32_t)d[i] << 16 | (uint32_t)d[i + 1] << 8 | d[i + 2];
        out[o++] = b64[v >> 18 & 63];
        out[o++] = b64[v >> 12 & 63];
        out[o++] = i + 1 < 32 ? b64[v >> 6 & 63] : '=';
        out[o++] = i + 2 < 32 ? b64[v & 63] : '=';
    }
    out[o] = 0;
}

static void badge(html_buf *b, rep_verdict v, const char *text)
{
    hb_raw(b, "<span class=\"v v-");
    hb_raw(b, rep_verdict_token(v));
    hb_raw(b, "\">");
    if (v == RV_OTHER)
        hb_text_cut(b, text, 40);
    else
        hb_raw(b, rep_verdict_word(v));
    hb_raw(b, "</span>");
}

/* A header cell: English name, msprobe's name under it; sort "num", "text" or NULL. */
static void th(html_buf *b, const char *english, const char *msprobe, const char *sort)
{
    if (sort)
        hb_fmt(b, "<th data-sort=\"%s\" scope=\"col\">", sort);
    else
        hb_raw(b, "<th scope=\"col\">");
    hb_text(b, english);
    if (msprobe && *msprobe) {
        hb_raw(b, "<span class=\"zh\">");
        hb_text(b, msprobe);
        hb_raw(b, "</span>");
    }
    hb_raw(b, "</th>");
}

/* A number cell from a CSV cell: the value to 6 digits, the whole text in its title, data-k
 * for sorting; "bad" marks a value its standard judged an error. A NaN sorts as the worst
 * value of its column (nan_worst: -1 where lower is worse, +1 where higher is worse), or last
 * (0: a NaN that is not an error). */
static void td_num(html_buf *b, const char *cell, bool bad, int nan_worst)
{
    double v;
    if (rep_number(cell, &v)) {
        double k = isnan(v) && nan_worst ? nan_worst * 1e308 : v;
        if (isnan(k))
            hb_fmt(b, "<td class=\"num%s\" data-k=\"\" title=\"", bad ? " bad" : "");
        else
            hb_fmt(b, "<td class=\"num%s\" data-k=\"%.17g\" title=\"", bad ? " bad" : "", k);
        hb_text(b, cell);
        hb_fmt(b, "\">%.6g</td>", v);
    } else {
        hb_raw(b, "<td class=\"num\" data-k=\"\">");
        hb_text_cut(b, cell, 40);
        hb_raw(b, "</td>");
    }
}

static void td_text(html_buf *b, const char *text, const char *cls, size_t max)
{
    hb_raw(b, cls ? "<td class=\"" : "<td");
    if (cls) {
        hb_raw(b, cls);
        hb_raw(b, "\"");
    }
    hb_raw(b, " data-k=\"");
    hb_text_cut(b, text, 200);
    hb_raw(b, "\">");
    hb_text_cut(b, text, max);
    hb_raw(b, "</td>");
}

/* A message on one line (cut with an ellipsis by the style sheet), the whole of it in the title;
 * msprobe's messages start with a line break. */
static void td_msg(html_buf *b, const char *first, const char *second)
{
    first = first ? first + strspn(first, " \n") : "";
    second = second ? second + strspn(second, " \n") : "";
    hb_raw(b, "<td class=\"msg1\" data-k=\"");
    hb_text_cut(b, *first ? first : second, 200);
    hb_raw(b, "\" title=\"");
    hb_text_cut(b, first, 1000);
    if (*first && *second)
        hb_raw(b, "\n");
    hb_text_cut(b, second, 1000);
    hb_raw(b, "\">");
    hb_text_cut(b, first, 300);
    if (*first && *second)
        hb_raw(b, " ");
    hb_text_cut(b, second, 300);
    hb_raw(b, "</td>");
}

static void td_verdict(html_buf *b, rep_verdict v, const char *text)
{
    hb_fmt(b, "<td data-k=\"%d\">",
           8 - (v == RV_ERROR     ? 0
                : v == RV_WARNING ? 1
                : v == RV_SKIP    ? 2
                : v == RV_OTHER   ? 3
                : v == RV_PASS    ? 4
                                  : 5));
    badge(b, v, text);
    hb_raw(b, "</td>");
}

/* "cosine similarity 余弦相似度: nan, must be > 0.99" as markup. */
static void decision_text(html_buf *b, const rep_row *r)
{
    const pc_row_decision *d = &r->decision;
    if (d->metric < 0) {
        hb_raw(b, "<span class=\"muted\">");
        hb_raw(b, r->status == RV_SKIP ? "skipped" : "the message says why");
        hb_raw(b, "</span>");
        return;
    }
    hb_text(b, pc_metric_name((pc_metric)d->metric));
    hb_raw(b, " <span class=\"zh\">");
    hb_text(b, pc_metric_column((pc_metric)d->metric));
    hb_fmt(b, "</span>: %.6g, ", d->value);
    if (d->metric == PC_METRIC_ERROR_RATE)
        hb_fmt(b, "must be %g", d->limit);
    else
        hb_fmt(b, "must be %s %g", tally_higher_is_better(d->metric) ? "&gt;" : "&lt;", d->limit);
}

static void output_text(html_buf *b, bool backward, int output)
{
    if (output < 0)
        hb_raw(b, "(unnamed row)");
    else
        hb_fmt(b, "%s output %d", backward ? "backward" : "forward", output);
}

static void fmt_seconds(char *buf, size_t size, double s)
{
    if (s < 60)
        snprintf(buf, size, "%.3g s", s);
    else if (s < 3600)
        snprintf(buf, size, "%d min %02d s", (int)(s / 60), (int)fmod(s, 60));
    else
        snprintf(buf, size, "%d h %02d min", (int)(s / 3600), (int)fmod(s / 60, 60));
}

static void ts_text(char *buf, size_t size, const char *ts)
{
    snprintf(buf, size, "%.4s-%.2s-%.2s %.2s:%.2s:%.2s", ts, ts + 4, ts + 6, ts + 8, ts + 10,
             ts + 12);
}

static const char *base_name(const char *path)
{
    const char *s = path ? strrchr(path, '/') : NULL;
    return s ? s + 1 : path;
}

/* ---- overview ---- */

static void fact(html_buf *b, const char *what, const char *value, bool code)
{
    hb_raw(b, "<dt>");
    hb_raw(b, what);
    hb_raw(b, code ? "</dt><dd><code>" : "</dt><dd>");
    if (value && *value)
        hb_text(b, value);
    else
        hb_raw(b, "<span class=\"muted\">not recorded</span>");
    hb_raw(b, code ? "</code></dd>" : "</dd>");
}

static void counts_bars(html_buf *b, const size_t c[2][RV_COUNT], const char *kind, bool run_ut)
{
    static const struct {
        rep_verdict v;
        const char *label;
    } order[] = {{RV_PASS, "pass"}, {RV_WARNING, "Warning"},    {RV_ERROR, "error"},
                 {RV_SKIP, "SKIP"}, {RV_SPACE, "not compared"}, {RV_OTHER, "other"}};
    for (int dir = 0; dir < 2; dir++) {
        plot_segment segs[6];
        size_t n = 0;
        for (size_t i = 0; i < 6; i++) {
            if (order[i].v == RV_WARNING && !run_ut && !c[dir][RV_WARNING])
                continue; /* api_precision_compare writes no Warning */
            if (order[i].v == RV_OTHER && !c[dir][RV_OTHER])
                continue;
            if (order[i].v == RV_SPACE && dir == 0 && !c[dir][RV_SPACE])
                continue;
            segs[n++] =
                (plot_segment){order[i].label, rep_verdict_token(order[i].v), c[dir][order[i].v]};
        }
        char id[64];
        snprintf(id, sizeof id, "count-%s-%s", kind, dir ? "backward" : "forward");
        plot_stacked_bar(
            b,
            dir ? (run_ut ? "Backward Test Success (input gradients)"
                          : "Backward (NPU against GPU)")
                : (run_ut ? "Forward Test Success (outputs)" : "Forward (NPU against GPU)"),
            segs, n, id);
    }
}

static void overview_run_ut(html_buf *b, const rep_model *m)
{
    const rep_run_info *in = &m->info;
    hb_raw(b, "<div><h3>run_ut: the device against the bench <span class=\"muted\">");
    hb_text(b, m->run_ut_ts);
    hb_raw(b, "</span></h3><dl class=\"facts\">");
    const char *device = in->device;
    if (device && strncmp(device, "device under test: ", 19) == 0)
        device += 19;
    fact(b, "Device tested", device, false);
    fact(b, "Dump", in->dump, false);
    char started[32], took[256];
    ts_text(started, sizeof started, m->run_ut_ts);
    fact(b, "Started", in->started ? in->started : started, false);
    if (in->seconds >= 0)
        fmt_seconds(took, sizeof took, in->seconds);
    else if (m->run_ut_seconds_from_files >= 0) {
        char s[32];
        fmt_seconds(s, sizeof s, m->run_ut_seconds_from_files);
        snprintf(took, sizeof took,
                 "about %s (from the files' times: the result CSV's last change after the start "
                 "its name gives; meaningless when the files were copied)",
                 s);
    } else
        took[0] = 0;
    fact(b, "Time taken", took, false);
    char apis[160];
    size_t listed = 0;
    for (size_t i = 0; i < m->n_apis; i++)
        listed += m->apis[i].fwd != RV_NONE;
    if (in->planned >= 0 && in->done >= 0)
        snprintf(apis, sizeof apis, "%zu in the CSVs; this run did %ld of the %ld it planned%s",
                 listed, in->done, in->planned, in->interrupted ? " (interrupted)" : "");
    else
        snprintf(apis, sizeof apis, "%zu", listed);
    fact(b, "APIs", apis, false);
    if (in->earlier > 0) {
        char e[96];
        snprintf(e, sizeof e, "%ld APIs came from the run it resumed", in->earlier);
        fact(b, "Resumed", e, false);
    }
    fact(b, "Command", in->command, true);
    hb_raw(b, "</dl>");
    counts_bars(b, m->counts, "run_ut", true);
    if (in->n_settings) {
        hb_raw(b, "<details><summary>Settings (the run record, precheck_run_");
        hb_text(b, m->run_ut_ts);
        hb_raw(b, ".json)</summary><table class=\"rows\"><thead><tr><th>setting</th><th>value</th>"
                  "<th></th></tr></thead><tbody>");
        for (size_t i = 0; i < in->n_settings; i++) {
            hb_raw(b, "<tr><td class=\"mono\">");
            hb_text(b, in->settings[i].key);
            hb_raw(b, "</td><td class=\"mono\">");
            hb_text(b, in->settings[i].value);
            hb_raw(b, in->settings[i].decides
                          ? "</td><td class=\"muted\">decides the rows: a resume must match</td>"
                          : "</td><td></td>");
            hb_raw(b, "</tr>");
        }
        hb_raw(b, "</tbody></table></details>");
    } else if (!in->has_summary) {
        hb_raw(b, "<p class=\"muted\">No precheck_summary or precheck_run file: these CSVs come "
                  "from msprobe or an older precheck, so the device, the dump and the settings "
                  "are not known.</p>");
    }
    hb_raw(b, "</div>");
}

static void overview_compare(html_buf *b, const rep_model *m)
{
    hb_raw(b, "<div><h3>api_precision_compare: the NPU against the GPU <span class=\"muted\">");
    hb_text(b, m->compare_ts);
    hb_raw(b, "</span></h3><p class=\"muted\">Each NPU row judged against the GPU row of the same "
              "name with its API's precision standard (比对算法). The CSVs do not name the two "
              "runs they compared.</p>");
    counts_bars(b, m->ccounts, "compare", false);
    /* rows per standard */
    const char *algos[16];
    size_t counts[16][3], na = 0;
    memset(counts, 0, sizeof counts);
    for (size_t i = 0; i < m->n_apis; i++)
        for (size_t k = 0; k < m->apis[i].n_crows; k++) {
            const rep_crow *r = &m->apis[i].crows[k];
            const char *al = r->cell[CC_ALGORITHM];
            size_t j = 0;
            while (j < na && strcmp(algos[j], al) != 0)
                j++;
            if (j == na) {
                if (na == 16)
                    continue;
                algos[na++] = al;
            }
            counts[j][r->status == RV_PASS ? 0 : r->status == RV_ERROR ? 1 : 2]++;
        }
    if (na) {
        hb_raw(b, "<table class=\"rows\"><thead><tr><th>standard <span class=\"zh\">比对算法</span>"
                  "</th><th>rows</th><th>pass</th><th>error</th><th>SKIP</th></tr></thead><tbody>");
        for (size_t j = 0; j < na; j++) {
            hb_raw(b, "<tr><td>");
            if (strcmp(algos[j], " ") == 0 || !*algos[j])
                hb_raw(b, "<span class=\"muted\">none (SKIP rows)</span>");
            else
                hb_text(b, algos[j]);
            hb_fmt(b,
                   "</td><td class=\"num\">%zu</td><td class=\"num\">%zu</td>"
                   "<td class=\"num\">%zu</td><td class=\"num\">%zu</td></tr>",
                   counts[j][0] + counts[j][1] + counts[j][2], counts[j][0], counts[j][1],
                   counts[j][2]);
        }
        hb_raw(b, "</tbody></table>");
    }
    hb_raw(b, "</div>");
}

/* ---- the per-API table ---- */

typedef struct choice {
    const char *v[64];
    size_t n;
} choice;

static void choice_add(choice *c, const char *v)
{
    if (!v || !*v || strcmp(v, " ") == 0)
        return;
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->v[i], v) == 0)
            return;
    if (c->n < 64)
        c->v[c->n++] = v;
}

static void select_of(html_buf *b, const char *id, const char *label, const choice *c)
{
    hb_fmt(b, "<label>%s <select id=\"%s\"><option value=\"\">any</option>", label, id);
    for (size_t i = 0; i < c->n; i++) {
        hb_raw(b, "<option value=\"");
        hb_text(b, c->v[i]);
        hb_raw(b, "\">");
        hb_text(b, c->v[i]);
        hb_raw(b, "</option>");
    }
    hb_raw(b, "</select></label>");
}

static void rows_listing(html_buf *b, const rep_api *a)
{
    if (a->n_rows) {
        hb_raw(b, "<table class=\"rows\"><thead><tr><th>row</th><th>Status</th><th>DEVICE "
                  "Dtype</th><th>Shape</th><th>decided by</th><th>Message</th></tr></thead>"
                  "<tbody>");
        for (size_t k = 0; k < a->n_rows && k < ROWS_LISTED; k++) {
            const rep_row *r = &a->rows[k];
            hb_raw(b, "<tr><td>");
            if (r->output < 0)
                hb_text(b, r->name);
            else
                output_text(b, r->backward, r->output);
            hb_raw(b, "</td><td>");
            badge(b, r->status, r->status_text);
            hb_raw(b, "</td><td>");
            hb_text(b, r->dtype);
            hb_raw(b, "</td><td>");
            hb_text(b, r->shape);
            hb_raw(b, "</td><td>");
            decision_text(b, r);
            hb_raw(b, "</td><td class=\"msg\">");
            hb_text_cut(b, r->message, 400);
            hb_raw(b, "</td></tr>");
        }
        hb_raw(b, "</tbody></table>");
        if (a->n_rows > ROWS_LISTED)
            hb_fmt(b, "<p class=\"muted\">%zu more rows in the details CSV.</p>",
                   a->n_rows - ROWS_LISTED);
    }
    if (a->n_crows) {
        hb_raw(b, "<table class=\"rows\"><thead><tr><th>row</th><th>比对结果</th><th>比对算法</th>"
                  "<th>Message</th></tr></thead><tbody>");
        for (size_t k = 0; k < a->n_crows && k < ROWS_LISTED; k++) {
            const rep_crow *r = &a->crows[k];
            hb_raw(b, "<tr><td>");
            if (r->output < 0)
                hb_text(b, r->name);
            else
                output_text(b, r->backward, r->output);
            hb_raw(b, "</td><td>");
            badge(b, r->status, r->cell[CC_RESULT]);
            hb_raw(b, "</td><td>");
            hb_text(b, r->cell[CC_ALGORITHM]);
            hb_raw(b, "</td><td class=\"msg\">");
            hb_text_cut(b, r->cell[CC_MESSAGE], 400);
            hb_raw(b, "</td></tr>");
        }
        hb_raw(b, "</tbody></table>");
    }
}

/* The compare details columns shown, with the status column that marks them bad (-1 none). */
static const struct {
    int col, status_col;
    const char *english;
} compare_cols[] = {
    {CC_SMALL_RATIO, CC_SMALL_RATIO + 1, "small-value error ratio"},
    {CC_RMSE_RATIO, CC_RMSE_RATIO + 1, "RMSE ratio"},
    {CC_MAX_REL_RATIO, CC_MAX_REL_RATIO + 1, "max relative error ratio"},
    {CC_MEAN_REL_RATIO, CC_MEAN_REL_RATIO + 1, "mean relative error ratio"},
    {CC_EB_RATIO, CC_EB_RATIO + 1, "error balance ratio"},
    {CC_ULP_MEAN, -1, "mean ULP error (NPU)"},
    {CC_ULP_PROP, -1, "share of ULP errors over the limit (NPU)"},
    {CC_ULP_PROP_RATIO, CC_ULP_STATUS, "ULP share ratio"},
    {CC_INF_NAN, CC_INF_NAN + 1, "inf/nan error rate"},
    {CC_REL_ERR, CC_REL_ERR + 1, "relative error rate"},
    {CC_ABS_ERR, CC_ABS_ERR + 1, "absolute error rate"},
    {CC_BINARY, CC_BINARY + 1, "binary mismatch rate (NPU)"},
    {CC_THOUSANDTH, CC_THOUSANDTH_STATUS, "share within 0.1% (NPU)"},
};
enum { COMPARE_COLS = sizeof compare_cols / sizeof compare_cols[0] };

static const pc_metric shown_metrics[] = {
    PC_METRIC_COSINE,
    PC_METRIC_MAX_ABS_ERR,
    PC_METRIC_REL_ERR_HUNDREDTH,
    PC_METRIC_REL_ERR_THOUSANDTH,
    PC_METRIC_REL_ERR_TEN_THOUSANDTH,
    PC_METRIC_ERROR_RATE,
};
enum { SHOWN_METRICS = sizeof shown_metrics / sizeof shown_metrics[0] };

static void api_table(html_buf *b, const rep_model *m, const size_t *order)
{
    bool run_ut = m->run_ut_ts[0] != 0, compare = m->compare_ts[0] != 0;
    choice types = {0}, dtypes = {0};
    for (size_t i = 0; i < m->n_apis; i++) {
        choice_add(&types, m->apis[order[i]].type);
        for (size_t k = 0; k < m->apis[order[i]].n_rows; k++)
            choice_add(&dtypes, m->apis[order[i]].rows[k].dtype);
    }
    hb_raw(b, "<section class=\"card\" id=\"apis\"><h2>APIs, worst first</h2>");
    hb_raw(b, "<p class=\"muted\">Click a column to sort, a name for its rows. Verdicts: run_ut's "
              "Status of the device against the bench");
    if (compare)
        hb_raw(b, "; api_precision_compare's 比对结果 of the NPU against the GPU");
    hb_raw(b, ".</p><div class=\"filters\">"
              "<label>status <select id=\"f-status\"><option value=\"\">any</option>"
              "<option value=\"error\">error</option><option value=\"warning\">Warning</option>"
              "<option value=\"skip\">SKIP</option><option value=\"pass\">pass</option>"
              "<option value=\"none\">not compared</option></select></label>"
              "<label>in <select id=\"f-dir\"><option value=\"\">forward or backward</option>"
              "<option value=\"forward\">forward</option>"
              "<option value=\"backward\">backward</option></select></label>");
    select_of(b, "f-type", "API type", &types);
    select_of(b, "f-dtype", "dtype", &dtypes);
    hb_fmt(b,
           "<label>name <input id=\"f-name\" type=\"search\" placeholder=\"contains\"></label>"
           "<span><b id=\"shown\">%zu of %zu</b> APIs shown</span></div>",
           m->n_apis, m->n_apis);
    hb_raw(b, "<div class=\"scroll\"><table id=\"api-table\"><thead><tr>");
    th(b, "#", NULL, "num");
    th(b, "API", "API name", "text");
    th(b, "type", NULL, "text");
    if (run_ut) {
        th(b, "forward", "Forward Test Success", "num");
        th(b, "backward", "Backward Test Success", "num");
    }
    if (compare) {
        th(b, "NPU vs GPU forward", "比对结果", "num");
        th(b, "NPU vs GPU backward", "比对结果", "num");
    }
    if (run_ut) {
        th(b, "output to look at", NULL, "text");
        th(b, "dtype", "DEVICE Dtype", "text");
        th(b, "shape", "Shape", "text");
        th(b, "decided by", NULL, "num");
        for (size_t j = 0; j < SHOWN_METRICS; j++)
            th(b, pc_metric_name(shown_metrics[j]), pc_metric_column(shown_metrics[j]), "num");
        th(b, "message", "Message", "text");
    }
    if (compare) {
        const char *const *h = pc_pcmp_details_header();
        th(b, "compared output", NULL, "text");
        th(b, "standard", "比对算法", "text");
        for (size_t j = 0; j < COMPARE_COLS; j++)
            th(b, compare_cols[j].english, h[compare_cols[j].col], "num");
        th(b, "compare message", "Message", "text");
    }
    hb_raw(b, "</tr></thead><tbody>");
    for (size_t i = 0; i < m->n_apis; i++) {
        const rep_api *a = &m->apis[order[i]];
        const rep_row *w = a->worst >= 0 ? &a->rows[a->worst] : NULL;
        const rep_crow *cw = a->cworst >= 0 ? &a->crows[a->cworst] : NULL;
        hb_raw(b, "<tr data-name=\"");
        hb_text(b, a->name);
        hb_raw(b, "\" data-type=\"");
        hb_text(b, a->type);
        hb_fmt(b, "\" data-fwd=\"%s|%s\" data-bwd=\"%s|%s\" data-dtypes=\"|",
               rep_verdict_token(a->fwd), rep_verdict_token(a->cfwd), rep_verdict_token(a->bwd),
               rep_verdict_token(a->cbwd));
        for (size_t k = 0; k < a->n_rows; k++) {
            hb_text(b, a->rows[k].dtype);
            hb_raw(b, "|");
        }
        hb_fmt(b, "\"><td class=\"num\" data-k=\"%zu\">%zu</td><td class=\"name\" data-k=\"", i + 1,
               i + 1);
        hb_text(b, a->name);
        hb_raw(b, "\">");
        if (a->n_rows || a->n_crows) {
            hb_raw(b, "<details><summary>");
            hb_text(b, a->name);
            hb_raw(b, "</summary>");
            rows_listing(b, a);
            hb_raw(b, "</details>");
        } else {
            hb_text(b, a->name);
        }
        hb_raw(b, "</td>");
        td_text(b, a->type, NULL, 40);
        if (run_ut) {
            td_verdict(b, a->fwd, a->fwd_text);
            td_verdict(b, a->bwd, a->bwd_text);
        }
        if (compare) {
            td_verdict(b, a->cfwd, a->cfwd_text);
            td_verdict(b, a->cbwd, a->cbwd_text);
        }
        if (run_ut) {
            if (w) {
                hb_raw(b, "<td>");
                output_text(b, w->backward, w->output);
                hb_raw(b, "</td>");
            } else {
                hb_raw(b, "<td></td>");
            }
            td_text(b, w ? w->dtype : "", NULL, 40);
            td_text(b, w ? w->shape : "", "mono", 60);
            if (w && w->decision.metric >= 0) {
                hb_fmt(b, "<td class=\"why\" data-k=\"%.6g\">", w->badness);
                decision_text(b, w);
                hb_raw(b, "</td>");
            } else {
                hb_raw(b, "<td data-k=\"\"></td>");
            }
            for (size_t j = 0; j < SHOWN_METRICS; j++) {
                bool bad = w && w->decision.metric == (int)shown_metrics[j] &&
                           rep_verdict_severity(w->status) >= 2;
                td_num(b, w ? w->cell[shown_metrics[j]] : "", bad,
                       tally_higher_is_better(shown_metrics[j]) ? -1 : 1);
            }
            const char *msg = a->fwd == RV_SKIP && a->message[0] ? a->message : w ? w->message : "";
            td_msg(b, msg, NULL);
        }
        if (compare) {
            if (cw) {
                hb_raw(b, "<td>");
                output_text(b, cw->backward, cw->output);
                hb_raw(b, "</td>");
            } else {
                hb_raw(b, "<td></td>");
            }
            td_text(b, cw ? cw->cell[CC_ALGORITHM] : "", "mono", 40);
            for (size_t j = 0; j < COMPARE_COLS; j++) {
                bool bad = cw && compare_cols[j].status_col >= 0 &&
                           strcmp(cw->cell[compare_cols[j].status_col], "error") == 0;
                td_num(b, cw ? cw->cell[compare_cols[j].col] : "", bad,
                       compare_cols[j].col == CC_THOUSANDTH ? -1 : 0);
            }
            /* the result row's message (topk's note, a SKIP's reason), then the row's */
            td_msg(b, a->cmessage, cw ? cw->cell[CC_MESSAGE] : NULL);
        }
        hb_raw(b, "</tr>");
    }
    hb_raw(b, "</tbody></table></div></section>");
}

/* ---- plots of the metrics ---- */

typedef struct series {
    double *v, *limit;
    const char **label;
    size_t n;
} series;

static bool series_init(series *s, size_t cap)
{
    s->v = malloc((cap ? cap : 1) * sizeof *s->v);
    s->limit = malloc((cap ? cap : 1) * sizeof *s->limit);
    s->label = malloc((cap ? cap : 1) * sizeof *s->label);
    s->n = 0;
    return s->v && s->limit && s->label;
}

static void series_free(series *s)
{
    free(s->v);
    free(s->limit);
    free(s->label);
}

static bool is_half(const char *dtype)
{
    return strcmp(dtype, "torch.float16") == 0 || strcmp(dtype, "torch.bfloat16") == 0;
}

/* The worst value of run_ut metric per API over its rows (of half-precision dtypes only when
 * half is 1, of others only when it is 0, all when -1). */
static void run_ut_series(const rep_model *m, series *s, pc_metric metric, int half,
                          double limit_value)
{
    bool high = tally_higher_is_better(metric);
    s->n = 0;
    for (size_t i = 0; i < m->n_apis; i++) {
        const rep_api *a = &m->apis[i];
        bool any = false;
        double worst = 0;
        for (size_t k = 0; k < a->n_rows; k++) {
            double v;
            if (half >= 0 && is_half(a->rows[k].dtype) != (half == 1))
                continue;
            if (!rep_number(a->rows[k].cell[metric], &v))
                continue;
            if (!any || isnan(v) || (!isnan(worst) && (high ? v < worst : v > worst)))
                worst = v;
            any = true;
        }
        if (any) {
            s->v[s->n] = worst;
            s->limit[s->n] = limit_value;
            s->label[s->n] = a->name;
            s->n++;
        }
    }
}

/* The worst value of a compare column per API over its rows judged by algorithm. NaN ratios of
 * the benchmark and ULP rules mean "the same inf or nan on both sides": no limit applies. */
static void compare_series(const rep_model *m, series *s, int col, const char *algorithm, bool high,
                           double limit_value)
{
    s->n = 0;
    for (size_t i = 0; i < m->n_apis; i++) {
        const rep_api *a = &m->apis[i];
        bool any = false;
        double worst = 0;
        for (size_t k = 0; k < a->n_crows; k++) {
            double v;
            if (strcmp(a->crows[k].cell[CC_ALGORITHM], algorithm) != 0 ||
                !rep_number(a->crows[k].cell[col], &v))
                continue;
            if (!any || isnan(v) || (!isnan(worst) && (high ? v < worst : v > worst)))
                worst = v;
            any = true;
        }
        if (any) {
            s->v[s->n] = worst;
            s->limit[s->n] = isnan(worst) ? NAN : limit_value;
            s->label[s->n] = a->name;
            s->n++;
        }
    }
}

static void histogram_of(html_buf *b, const series *s, const char *title, const char *column,
                         bool high, double limit, const char *limit_label, const char *note)
{
    if (!s->n)
        return;
    plot_metric spec = {title, column, high, {limit, NAN, NAN}, {limit_label, NULL, NULL}, note};
    plot_metric_histogram(b, &spec, s->v, s->limit, s->label, s->n);
}

static void plots_section(html_buf *b, const rep_model *m)
{
    series s;
    if (!series_init(&s, m->n_apis)) {
        b->failed = true;
        return;
    }
    hb_raw(b, "<section class=\"card\" id=\"plots\"><h2>Error metrics across APIs</h2>"
              "<p class=\"muted\">One mark per API: its worst value over its outputs. Bars "
              "beyond the dashed limit are red; hover a bar for its APIs.</p>");
    if (m->details_csv) {
        hb_raw(b, "<h3>What decided run_ut's Status (msprobe's rule)</h3><div class=\"plots\">");
        run_ut_series(m, &s, PC_METRIC_COSINE, -1, 0.99);
        histogram_of(b, &s, "cosine similarity", "余弦相似度", true, 0.99, "> 0.99",
                     "Below 0.99 (or nan) the output is an error; nothing else is checked.");
        run_ut_series(m, &s, PC_METRIC_MAX_ABS_ERR, -1, 0.001);
        histogram_of(b, &s, "max absolute error", "最大绝对误差", false, 0.001, "< 0.001",
                     "Below 0.001 the output passes; above it the shares of relative errors "
                     "decide.");
        run_ut_series(m, &s, PC_METRIC_REL_ERR_HUNDREDTH, 1, 0.99);
        histogram_of(b, &s, "share of relative errors within 1%", "双百指标", true, 0.99, "> 0.99",
                     "float16 and bfloat16 outputs: an error below 0.99.");
        run_ut_series(m, &s, PC_METRIC_REL_ERR_THOUSANDTH, -1, 0.999);
        histogram_of(b, &s, "share of relative errors within 0.1%", "双千指标", true, 0.999,
                     "> 0.999",
                     "float16 and bfloat16 outputs: a Warning below 0.999; float32: an error.");
        run_ut_series(m, &s, PC_METRIC_REL_ERR_TEN_THOUSANDTH, 0, 0.9999);
        histogram_of(b, &s, "share of relative errors within 0.01%", "双万指标", true, 0.9999,
                     "> 0.9999", "float32 and float64 outputs: a Warning below 0.9999.");
        hb_raw(b, "</div><h3>Precision standards, this side alone</h3><p class=\"muted\">The "
                  "metrics api_precision_compare will judge; the benchmark standard's (标杆比对法) "
                  "are judged only as ratios to the GPU's.</p><div class=\"plots\">");
        run_ut_series(m, &s, PC_METRIC_ERROR_RATE, -1, 0);
        histogram_of(b, &s, "binary mismatch rate", "二进制一致错误率", false, 0, "= 0",
                     "二进制一致法 (integer and bool outputs, and the APIs that move data): "
                     "any mismatch is an error.");
        run_ut_series(m, &s, PC_METRIC_REL_ERR_RATIO, -1, 0);
        histogram_of(b, &s, "relative error rate", "相对误差错误率", false, 0, "= 0",
                     "绝对阈值法 (add, mul, div, ...): any element beyond rtol is an error.");
        {
            /* its limit depends on the dtype: float32 0.05, float16 / bfloat16 0.001 */
            series h;
            if (series_init(&h, m->n_apis)) {
                run_ut_series(m, &h, PC_METRIC_ULP_ERR_PROPORTION, 1, 0.001);
                series f;
                if (series_init(&f, m->n_apis)) {
                    run_ut_series(m, &f, PC_METRIC_ULP_ERR_PROPORTION, 0, 0.05);
                    for (size_t i = 0; i < f.n && h.n < m->n_apis; i++) {
                        h.v[h.n] = f.v[i];
                        h.limit[h.n] = f.limit[i];
                        h.label[h.n] = f.label[i];
                        h.n++;
                    }
                    if (h.n) {
                        plot_metric spec = {"share of ULP errors over the limit",
                                            "ULP误差大于阈值占比",
                                            false,
                                            {0.001, 0.05, NAN},
                                            {"0.001 (fp16, bf16)", "0.05 (fp32)", NULL},
                                            "ULP误差比对法 (matmul, linear, ...): float32 also "
                                            "passes with a mean ULP error below 64, any dtype "
                                            "with a share below the GPU's."};
                        plot_metric_histogram(b, &spec, h.v, h.limit, h.label, h.n);
                    }
                    series_free(&f);
                }
                series_free(&h);
            }
        }
        hb_raw(b, "</div>");
    }
    if (m->cdetails_csv) {
        static const struct {
            const char *algorithm;
            int col;
            bool high;
            double limit;
            const char *limit_label, *title, *note;
        } cplots[] = {
            {"标杆比对法", CC_SMALL_RATIO, false, 2, "2", "small-value error ratio",
             "NPU / GPU share of small values with large errors."},
            {"标杆比对法", CC_RMSE_RATIO, false, 2, "2", "RMSE ratio", NULL},
            {"标杆比对法", CC_MAX_REL_RATIO, false, 10, "10", "max relative error ratio", NULL},
            {"标杆比对法", CC_MEAN_REL_RATIO, false, 2, "2", "mean relative error ratio", NULL},
            {"标杆比对法", CC_EB_RATIO, false, 2, "2", "error balance ratio",
             "Reported, not counted in the verdict."},
            {"绝对阈值法", CC_REL_ERR, false, 0, "= 0", "relative error rate", NULL},
            {"绝对阈值法", CC_INF_NAN, false, 0, "= 0", "inf/nan error rate", NULL},
            {"绝对阈值法", CC_ABS_ERR, false, 0, "= 0", "absolute error rate", NULL},
            {"二进制一致法", CC_BINARY, false, 0, "= 0", "binary mismatch rate", NULL},
            {"ULP误差比对法", CC_ULP_PROP_RATIO, false, 1, "< 1", "ULP share ratio",
             "NPU / GPU share of ULP errors over the limit; a ratio below 1 passes, so does a "
             "small enough share or (float32) mean."},
            {"双千指标法", CC_THOUSANDTH, true, 0.999, ">= 0.999", "share within 0.1%", NULL},
        };
        const char *const *h = pc_pcmp_details_header();
        const char *last = NULL;
        hb_raw(b, "<h3>NPU against GPU, per standard (api_precision_compare)</h3>");
        for (size_t i = 0; i < sizeof cplots / sizeof cplots[0]; i++) {
            compare_series(m, &s, cplots[i].col, cplots[i].algorithm, cplots[i].high,
                           cplots[i].limit);
            if (!s.n)
                continue;
            if (!last || strcmp(last, cplots[i].algorithm) != 0) {
                if (last)
                    hb_raw(b, "</div>");
                hb_raw(b, "<h4>");
                hb_text(b, cplots[i].algorithm);
                hb_raw(b, "</h4><div class=\"plots\">");
                last = cplots[i].algorithm;
            }
            histogram_of(b, &s, cplots[i].title, h[cplots[i].col], cplots[i].high, cplots[i].limit,
                         cplots[i].limit_label, cplots[i].note);
        }
        if (last)
            hb_raw(b, "</div>");
    }
    hb_raw(b, "</section>");
    series_free(&s);
}

/* ---- coverage ---- */

typedef struct group {
    const char *key; /* the message */
    int reason;      /* a skip_reason, or -1 */
    const char *apis[8];
    size_t n;
} group;

static size_t group_add(group *g, size_t n, size_t cap, const char *key, int reason,
                        const char *api)
{
    size_t j = 0;
    while (j < n && strcmp(g[j].key, key) != 0)
        j++;
    if (j == n) {
        if (n == cap)
            return n;
        g[n++] = (group){key, reason, {0}, 0};
    }
    if (g[j].n < 8)
        g[j].apis[g[j].n] = api;
    g[j].n++;
    return n;
}

static void group_list(html_buf *b, const group *g, size_t n)
{
    hb_raw(b, "<ul class=\"skips\">");
    for (size_t j = 0; j < n; j++) {
        hb_fmt(b, "<li><b>%zu</b> ", g[j].n);
        if (g[j].reason >= 0) {
            hb_raw(b, "<span class=\"v v-skip\">");
            hb_text(b, tally_reason_name((skip_reason)g[j].reason));
            hb_raw(b, "</span> ");
        }
        hb_raw(b, "<q>");
        hb_text_cut(b, g[j].key, 500);
        hb_raw(b, "</q>: ");
        for (size_t k = 0; k < g[j].n && k < 8; k++) {
            hb_raw(b, k ? ", <code>" : "<code>");
            hb_text_cut(b, g[j].apis[k], 120);
            hb_raw(b, "</code>");
        }
        if (g[j].n > 8)
            hb_fmt(b, " and %zu more", g[j].n - 8);
        hb_raw(b, "</li>");
    }
    hb_raw(b, "</ul>");
}

static void coverage_section(html_buf *b, const rep_model *m)
{
    hb_raw(b, "<section class=\"card\" id=\"coverage\"><h2>Coverage</h2>");
    if (m->run_ut_ts[0]) {
        choice types = {0};
        for (size_t i = 0; i < m->n_apis; i++)
            if (m->apis[i].fwd != RV_NONE)
                choice_add(&types, m->apis[i].type);
        hb_raw(b, "<h3>What run_ut ran</h3><table class=\"rows\"><thead><tr><th>API type</th>"
                  "<th>APIs</th><th>forward compared</th><th>forward SKIP</th><th>backward "
                  "compared</th><th>backward SKIP</th><th>no backward</th></tr></thead><tbody>");
        for (size_t t = 0; t < types.n; t++) {
            size_t c[6] = {0};
            for (size_t i = 0; i < m->n_apis; i++) {
                const rep_api *a = &m->apis[i];
                if (a->fwd == RV_NONE || strcmp(a->type, types.v[t]) != 0)
                    continue;
                c[0]++;
                c[a->fwd == RV_SKIP ? 2 : 1]++;
                c[a->bwd == RV_SKIP ? 4 : a->bwd == RV_SPACE || a->bwd == RV_NONE ? 5 : 3]++;
            }
            hb_raw(b, "<tr><td>");
            hb_text(b, types.v[t]);
            hb_fmt(b,
                   "</td><td class=\"num\">%zu</td><td class=\"num\">%zu</td><td "
                   "class=\"num\">%zu</td><td class=\"num\">%zu</td><td class=\"num\">%zu</td><td "
                   "class=\"num\">%zu</td></tr>",
                   c[0], c[1], c[2], c[3], c[4], c[5]);
        }
        hb_raw(b, "</tbody></table>");
        group g[64];
        size_t n = 0;
        for (size_t i = 0; i < m->n_apis; i++) {
            const rep_api *a = &m->apis[i];
            if (a->fwd != RV_SKIP)
                continue;
            const char *msg = a->message[0]                                ? a->message
                              : a->n_rows && a->rows[0].message[0] != '\0' ? a->rows[0].message
                                                                           : "(no message)";
            n = group_add(g, n, 64, msg, (int)tally_skip_reason(msg), a->name);
        }
        hb_raw(b, "<h3>Skipped APIs, by reason</h3>");
        if (n)
            group_list(b, g, n);
        else
            hb_raw(b, "<p class=\"muted\">None: every API ran.</p>");
        n = 0;
        for (size_t i = 0; i < m->n_apis; i++) {
            const rep_api *a = &m->apis[i];
            if (a->bwd != RV_SKIP || a->fwd == RV_SKIP)
                continue;
            const char *msg = a->message[0] ? a->message : "(no message)";
            for (size_t k = 0; k < a->n_rows; k++)
                if (a->rows[k].backward && a->rows[k].status == RV_SKIP && a->rows[k].message[0])
                    msg = a->rows[k].message;
            n = group_add(g, n, 64, msg, -1, a->name);
        }
        hb_raw(b, "<h3>Backward skipped (the forward ran)</h3>");
        if (n)
            group_list(b, g, n);
        else
            hb_raw(b, "<p class=\"muted\">None.</p>");
        size_t nb = 0;
        for (size_t i = 0; i < m->n_apis; i++)
            nb += m->apis[i].fwd != RV_NONE && m->apis[i].fwd != RV_SKIP &&
                  m->apis[i].bwd == RV_SPACE;
        hb_fmt(b,
               "<p>%zu API%s had no backward to compare (no backward record in the dump, or "
               "none of their inputs needs a gradient).</p>",
               nb, nb == 1 ? "" : "s");
    }
    if (m->compare_ts[0]) {
        group g[64];
        size_t n = 0;
        for (size_t i = 0; i < m->n_apis; i++)
            for (size_t k = 0; k < m->apis[i].n_crows; k++) {
                const rep_crow *r = &m->apis[i].crows[k];
                if (r->status == RV_SKIP)
                    n = group_add(g, n, 64, r->cell[CC_MESSAGE][0] ? r->cell[CC_MESSAGE] : "nan",
                                  -1, r->name);
            }
        hb_raw(b, "<h3>Rows api_precision_compare skipped</h3>");
        if (n)
            group_list(b, g, n);
        else
            hb_raw(b, "<p class=\"muted\">None.</p>");
    }
    hb_raw(b, "</section>");
}

/* ---- the page ---- */

static int by_rank(const void *pa, const void *pb, const rep_model *m)
{
    const rep_api *a = &m->apis[*(const size_t *)pa], *b = &m->apis[*(const size_t *)pb];
    if (a->severity != b->severity)
        return a->severity > b->severity ? -1 : 1;
    if (a->badness != b->badness && !(isnan(a->badness) && isnan(b->badness)))
        return a->badness > b->badness || isnan(a->badness) ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

/* qsort has no context argument: a stable insertion-merge over the indexes instead. */
static void sort_order(size_t *order, size_t n, const rep_model *m)
{
    size_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (!tmp) { /* insertion sort in place */
        for (size_t i = 1; i < n; i++)
            for (size_t j = i; j > 0 && by_rank(&order[j], &order[j - 1], m) < 0; j--) {
                size_t t = order[j];
                order[j] = order[j - 1];
                order[j - 1] = t;
            }
        return;
    }
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n,
                   hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = by_rank(&order[j], &order[i], m) < 0 ? order[j++] : order[i++];
            while (i < mid)
                tmp[k++] = order[i++];
            while (j < hi)
                tmp[k++] = order[j++];
        }
        memcpy(order, tmp, n * sizeof *order);
    }
    free(tmp);
}

static void files_section(html_buf *b, const rep_model *m)
{
    hb_raw(b, "<section class=\"card\" id=\"files\"><h2>Files read</h2><ul>");
    const char *files[] = {m->result_csv,  m->details_csv, m->summary_json,
                           m->record_json, m->cresult_csv, m->cdetails_csv};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        if (files[i]) {
            hb_raw(b, "<li><code>");
            hb_text(b, base_name(files[i]));
            hb_raw(b, "</code></li>");
        }
    if (m->error_dir) {
        hb_raw(b, "<li>error data: <code>");
        hb_text(b, m->error_dir);
        hb_raw(b, "</code></li>");
    }
    hb_raw(b, "</ul><p class=\"muted\">in <code>");
    hb_text(b, m->dir);
    hb_raw(b, "</code></p></section>");
}

static void page(html_buf *b, const rep_model *m, const pc_report_options *opt, const size_t *order,
                 size_t *error_apis)
{
    char css_hash[64], js_hash[64], when[64];
    csp_hash(css_hash, report_css);
    csp_hash(js_hash, report_js);
    if (opt->generated) {
        snprintf(when, sizeof when, "%s", opt->generated);
    } else {
        time_t now = time(NULL);
        struct tm lt;
        localtime_r(&now, &lt);
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &lt);
    }
    hb_raw(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
              "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
              "script-src 'sha256-");
    hb_raw(b, js_hash);
    hb_raw(b, "'; style-src 'sha256-");
    hb_raw(b, css_hash);
    hb_raw(b, "'; img-src 'none'; base-uri 'none'; form-action 'none'\">\n"
              "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
              "<meta name=\"generator\" content=\"precheck " PC_VERSION_STRING "\">\n"
              "<title>precheck report: ");
    hb_text(b, base_name(m->dir) && *base_name(m->dir) ? base_name(m->dir) : m->dir);
    hb_raw(b, "</title>\n<style>");
    hb_raw(b, report_css);
    hb_raw(b, "</style></head>\n<body>\n<header><h1>precheck report</h1><p class=\"sub\">");
    char where[PATH_MAX];
    hb_text(b, realpath(m->dir, where) ? where : m->dir);
    hb_raw(b, " &middot; generated ");
    hb_text(b, when);
    hb_raw(b, " by precheck " PC_VERSION_STRING "</p><nav><a href=\"#overview\">Overview</a>"
              "<a href=\"#apis\">APIs</a><a href=\"#plots\">Metrics</a>");
    if (m->error_dir)
        hb_raw(b, "<a href=\"#error-data\">Error data</a>");
    hb_raw(b, "<a href=\"#coverage\">Coverage</a><a href=\"#files\">Files</a></nav></header>\n"
              "<main>\n");
    if (m->n_notes) {
        hb_raw(b, "<section class=\"card notes\" id=\"notes\"><ul>");
        for (size_t i = 0; i < m->n_notes; i++) {
            hb_raw(b, "<li>");
            hb_text(b, m->notes[i]);
            hb_raw(b, "</li>");
        }
        hb_raw(b, "</ul></section>\n");
    }
    hb_raw(b, "<section class=\"card\" id=\"overview\"><h2>Overview</h2><div class=\"grid2\">");
    if (m->run_ut_ts[0])
        overview_run_ut(b, m);
    if (m->compare_ts[0])
        overview_compare(b, m);
    hb_raw(b, "</div></section>\n");
    api_table(b, m, order);
    hb_raw(b, "\n");
    plots_section(b, m);
    hb_raw(b, "\n");
    if (m->error_dir) {
        hb_raw(b, "<section class=\"card\" id=\"error-data\"><h2>Error data "
                  "<span class=\"muted\">(-save_error_data)</span></h2><p class=\"muted\">Per "
                  "failing output, the element-wise error |device - bench| of the tensors run_ut "
                  "saved in <code>");
        hb_text(b, base_name(m->error_dir));
        hb_raw(b, "</code>: its histogram over every element, and against |bench| on a sample "
                  "(orange beyond the Warning's relative limit, red beyond the error's; points "
                  "below the absolute limit pass whatever their relative error).</p>");
        *error_apis =
            error_data_section(b, m, order, opt->max_error_apis ? opt->max_error_apis : 24);
        if (!*error_apis)
            hb_raw(b, "<p>No failing output has its tensors in the folder.</p>");
        hb_raw(b, "</section>\n");
    }
    coverage_section(b, m);
    hb_raw(b, "\n");
    files_section(b, m);
    hb_raw(b, "\n</main>\n<footer>This page asks for nothing outside itself "
              "(Content-Security-Policy default-src 'none'): it works offline and from any "
              "folder. The verdicts are msprobe's; docs/glossary.md explains every column."
              "</footer>\n<script>");
    hb_raw(b, report_js);
    hb_raw(b, "</script>\n</body></html>\n");
}

pc_status pc_report_write(const pc_report_options *opt, pc_report_info *info)
{
    rep_model m;
    html_buf b = {0};
    size_t *order = NULL, error_apis = 0;
    char *tmp = NULL;
    pc_status st = rep_model_load(&m, opt);
    if (st != PC_OK)
        goto out;
    order = malloc((m.n_apis ? m.n_apis : 1) * sizeof *order);
    if (!order) {
        st = pc_error_set(PC_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < m.n_apis; i++)
        order[i] = i;
    sort_order(order, m.n_apis, &m);
    page(&b, &m, opt, order, &error_apis);
    if (b.failed) {
        st = pc_error_set(PC_ERR_NOMEM, "out of memory while making the page");
        goto out;
    }
    char path[4200];
    if (opt->out_path)
        snprintf(path, sizeof path, "%s", opt->out_path);
    else
        snprintf(path, sizeof path, "%s/precheck_report_%s.html", opt->dir,
                 m.run_ut_ts[0] ? m.run_ut_ts : m.compare_ts);
    size_t n = strlen(path) + 16;
    tmp = malloc(n);
    if (!tmp) {
        st = pc_error_set(PC_ERR_NOMEM, "out of memory");
        goto out;
    }
    snprintf(tmp, n, "%s.partial", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        st = pc_error_set(PC_ERR_IO, "%s: cannot create: %s", tmp, strerror(errno));
        goto out;
    }
    bool ok = fwrite(b.data, 1, b.len, f) == b.len;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        st = pc_error_set(PC_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
        unlink(tmp);
        goto out;
    }
    if (info) {
        memset(info, 0, sizeof *info);
        snprintf(info->out_path, sizeof info->out_path, "%s", path);
        snprintf(info->run_ut_ts, sizeof info->run_ut_ts, "%s", m.run_ut_ts);
        snprintf(info->compare_ts, sizeof info->compare_ts, "%s", m.compare_ts);
        info->run_ut_runs = m.run_ut_runs;
        info->compare_runs = m.compare_runs;
        info->apis = m.n_apis;
        info->error_data_apis = error_apis;
    }
out:
    free(tmp);
    free(order);
    hb_free(&b);
    rep_model_free(&m);
    return st;
}
