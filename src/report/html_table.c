/*
 * The page's per-API table: one row per API, worst first, with the verdicts, the row to look at
 * (its dtype, shape, the metric that decided it against its limit, the legacy metrics, the
 * message) and, from api_precision_compare, the standard and the NPU/GPU ratios; the filters
 * the page's script applies; each API's rows under its name. Every cell from a file is escaped.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/io/msprobe_csv.h"
#include "report_impl.h"
#include "tally.h"

#define ROWS_LISTED 64 /* rows of one API listed under its name */

void pc_html_badge(html_buf *b, rep_verdict v, const char *text)
{
    pc_hb_raw(b, "<span class=\"v v-");
    pc_hb_raw(b, pc_rep_verdict_token(v));
    pc_hb_raw(b, "\">");
    if (v == RV_OTHER)
        pc_hb_text_cut(b, text, 40);
    else
        pc_hb_raw(b, pc_rep_verdict_word(v));
    pc_hb_raw(b, "</span>");
}

/* A header cell of class cls (NULL: none): English name, msprobe's name under it; sort "num",
 * "text" or NULL. */
static void th_of(html_buf *b, const char *cls, const char *english, const char *msprobe,
                  const char *sort)
{
    pc_hb_raw(b, "<th");
    if (cls)
        pc_hb_fmt(b, " class=\"%s\"", cls);
    if (sort)
        pc_hb_fmt(b, " data-sort=\"%s\"", sort);
    pc_hb_raw(b, " scope=\"col\">");
    pc_hb_text(b, english);
    if (msprobe && *msprobe) {
        pc_hb_raw(b, "<span class=\"zh\">");
        pc_hb_text(b, msprobe);
        pc_hb_raw(b, "</span>");
    }
    pc_hb_raw(b, "</th>");
}

static void th(html_buf *b, const char *english, const char *msprobe, const char *sort)
{
    th_of(b, NULL, english, msprobe, sort);
}

/* A number cell from a CSV cell: the value to 6 digits, the whole text in its title, data-k
 * for sorting; "bad" marks a value its standard judged an error. A NaN sorts as the worst
 * value of its column (nan_worst: -1 where lower is worse, +1 where higher is worse), or last
 * (0: a NaN that is not an error). */
static void td_num(html_buf *b, const char *cell, bool bad, int nan_worst)
{
    double v;
    /* the metric columns are among the "more" columns, shown on demand (the style sheet) */
    if (pc_rep_number(cell, &v)) {
        double k = isnan(v) && nan_worst ? nan_worst * 1e308 : v;
        if (isnan(k))
            pc_hb_fmt(b, "<td class=\"num more%s\" data-k=\"\" title=\"", bad ? " bad" : "");
        else
            pc_hb_fmt(b, "<td class=\"num more%s\" data-k=\"%.17g\" title=\"", bad ? " bad" : "",
                      k);
        pc_hb_text(b, cell);
        pc_hb_fmt(b, "\">%.6g</td>", v);
    } else {
        pc_hb_raw(b, "<td class=\"num more\" data-k=\"\">");
        pc_hb_text_cut(b, cell, 40);
        pc_hb_raw(b, "</td>");
    }
}

static void td_text(html_buf *b, const char *text, const char *cls, size_t max)
{
    pc_hb_raw(b, cls ? "<td class=\"" : "<td");
    if (cls) {
        pc_hb_raw(b, cls);
        pc_hb_raw(b, "\"");
    }
    pc_hb_raw(b, " data-k=\"");
    pc_hb_text_cut(b, text, 200);
    pc_hb_raw(b, "\">");
    pc_hb_text_cut(b, text, max);
    pc_hb_raw(b, "</td>");
}

/* A message on one line (cut with an ellipsis by the style sheet), the whole of it in the title;
 * msprobe's messages start with a line break. */
static void td_msg(html_buf *b, const char *first, const char *second)
{
    first = first ? first + strspn(first, " \n") : "";
    second = second ? second + strspn(second, " \n") : "";
    pc_hb_raw(b, "<td class=\"msg1\" data-k=\"");
    pc_hb_text_cut(b, *first ? first : second, 200);
    pc_hb_raw(b, "\" title=\"");
    pc_hb_text_cut(b, first, 1000);
    if (*first && *second)
        pc_hb_raw(b, "\n");
    pc_hb_text_cut(b, second, 1000);
    pc_hb_raw(b, "\">");
    pc_hb_text_cut(b, first, 300);
    if (*first && *second)
        pc_hb_raw(b, " ");
    pc_hb_text_cut(b, second, 300);
    pc_hb_raw(b, "</td>");
}

static void td_verdict(html_buf *b, rep_verdict v, const char *text)
{
    pc_hb_fmt(b, "<td data-k=\"%d\">",
              8 - (v == RV_ERROR     ? 0
                   : v == RV_WARNING ? 1
                   : v == RV_SKIP    ? 2
                   : v == RV_OTHER   ? 3
                   : v == RV_PASS    ? 4
                                     : 5));
    pc_html_badge(b, v, text);
    pc_hb_raw(b, "</td>");
}

/* "cosine similarity 余弦相似度: nan, must be > 0.99" as markup. */
static void decision_text(html_buf *b, const rep_row *r)
{
    const pc_row_decision *d = &r->decision;
    if (d->metric < 0) {
        pc_hb_raw(b, "<span class=\"muted\">");
        pc_hb_raw(b, r->status == RV_SKIP ? "skipped" : "the message says why");
        pc_hb_raw(b, "</span>");
        return;
    }
    pc_hb_text(b, pc_metric_name((pc_metric)d->metric));
    pc_hb_raw(b, " <span class=\"zh\">");
    pc_hb_text(b, pc_metric_column((pc_metric)d->metric));
    pc_hb_fmt(b, "</span>: %.6g, ", d->value);
    if (d->metric == PC_METRIC_ERROR_RATE)
        pc_hb_fmt(b, "must be %g", d->limit);
    else
        pc_hb_fmt(b, "must be %s %g", pc_tally_higher_is_better(d->metric) ? "&gt;" : "&lt;",
                  d->limit);
}

static void output_text(html_buf *b, bool backward, int output)
{
    if (output < 0)
        pc_hb_raw(b, "(unnamed row)");
    else
        pc_hb_fmt(b, "%s output %d", backward ? "backward" : "forward", output);
}

void pc_rep_choice_add(rep_choice *c, const char *v)
{
    if (!v || !*v || strcmp(v, " ") == 0)
        return;
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->v[i], v) == 0)
            return;
    if (c->n < 64)
        c->v[c->n++] = v;
}

/* ---- the per-API table ---- */

static void select_of(html_buf *b, const char *id, const char *label, const rep_choice *c)
{
    pc_hb_fmt(b, "<label>%s <select id=\"%s\"><option value=\"\">any</option>", label, id);
    for (size_t i = 0; i < c->n; i++) {
        pc_hb_raw(b, "<option value=\"");
        pc_hb_text(b, c->v[i]);
        pc_hb_raw(b, "\">");
        pc_hb_text(b, c->v[i]);
        pc_hb_raw(b, "</option>");
    }
    pc_hb_raw(b, "</select></label>");
}

static void rows_listing(html_buf *b, const rep_api *a)
{
    if (a->n_rows) {
        pc_hb_raw(b, "<table class=\"rows\"><thead><tr><th>row</th><th>Status</th><th>DEVICE "
                     "Dtype</th><th>Shape</th><th>decided by</th><th>Message</th></tr></thead>"
                     "<tbody>");
        for (size_t k = 0; k < a->n_rows && k < ROWS_LISTED; k++) {
            const rep_row *r = &a->rows[k];
            pc_hb_raw(b, "<tr><td>");
            if (r->output < 0)
                pc_hb_text(b, r->name);
            else
                output_text(b, r->backward, r->output);
            pc_hb_raw(b, "</td><td>");
            pc_html_badge(b, r->status, r->status_text);
            pc_hb_raw(b, "</td><td>");
            pc_hb_text(b, r->dtype);
            pc_hb_raw(b, "</td><td>");
            pc_hb_text(b, r->shape);
            pc_hb_raw(b, "</td><td>");
            decision_text(b, r);
            pc_hb_raw(b, "</td><td class=\"msg\">");
            pc_hb_text_cut(b, r->message + strspn(r->message, " \n"), 400);
            pc_hb_raw(b, "</td></tr>");
        }
        pc_hb_raw(b, "</tbody></table>");
        if (a->n_rows > ROWS_LISTED)
            pc_hb_fmt(b, "<p class=\"muted\">%zu more rows in the details CSV.</p>",
                      a->n_rows - ROWS_LISTED);
    }
    if (a->n_crows) {
        pc_hb_raw(b,
                  "<table class=\"rows\"><thead><tr><th>row</th><th>比对结果</th><th>比对算法</th>"
                  "<th>Message</th></tr></thead><tbody>");
        for (size_t k = 0; k < a->n_crows && k < ROWS_LISTED; k++) {
            const rep_crow *r = &a->crows[k];
            pc_hb_raw(b, "<tr><td>");
            if (r->output < 0)
                pc_hb_text(b, r->name);
            else
                output_text(b, r->backward, r->output);
            pc_hb_raw(b, "</td><td>");
            pc_html_badge(b, r->status, r->cell[CC_RESULT]);
            pc_hb_raw(b, "</td><td>");
            pc_hb_text(b, r->cell[CC_ALGORITHM]);
            pc_hb_raw(b, "</td><td class=\"msg\">");
            pc_hb_text_cut(b, r->cell[CC_MESSAGE], 400);
            pc_hb_raw(b, "</td></tr>");
        }
        pc_hb_raw(b, "</tbody></table>");
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

void pc_html_api_table(html_buf *b, const rep_model *m, const size_t *order)
{
    bool run_ut = m->run_ut_ts[0] != 0, compare = m->compare_ts[0] != 0;
    rep_choice types = {0}, dtypes = {0};
    for (size_t i = 0; i < m->n_apis; i++) {
        pc_rep_choice_add(&types, m->apis[order[i]].type);
        for (size_t k = 0; k < m->apis[order[i]].n_rows; k++)
            pc_rep_choice_add(&dtypes, m->apis[order[i]].rows[k].dtype);
    }
    pc_hb_raw(b, "<section class=\"card\" id=\"apis\"><h2>APIs, worst first</h2>");
    pc_hb_raw(b,
              "<p class=\"muted\">Click a column to sort, a name for its rows. Verdicts: run_ut's "
              "Status of the device against the bench");
    if (compare)
        pc_hb_raw(b, "; api_precision_compare's 比对结果 of the NPU against the GPU");
    pc_hb_raw(b, ".</p><div class=\"filters\">"
                 "<label>status <select id=\"f-status\"><option value=\"\">any</option>"
                 "<option value=\"error\">error</option><option value=\"warning\">Warning</option>"
                 "<option value=\"skip\">SKIP</option><option value=\"pass\">pass</option>"
                 "<option value=\"none\">not compared</option></select></label>"
                 "<label>in <select id=\"f-dir\"><option value=\"\">forward or backward</option>"
                 "<option value=\"forward\">forward</option>"
                 "<option value=\"backward\">backward</option></select></label>");
    select_of(b, "f-type", "API type", &types);
    select_of(b, "f-dtype", "dtype", &dtypes);
    pc_hb_fmt(b,
              "<label>name <input id=\"f-name\" type=\"search\" placeholder=\"contains\"></label>"
              "<label><input id=\"f-cols\" type=\"checkbox\"> every metric column</label>"
              "<span><b id=\"shown\">%zu of %zu</b> APIs shown</span></div>",
              m->n_apis, m->n_apis);
    const char *const *h = pc_mcsv_header(PC_MCSV_PCMP_DETAILS, NULL);
    pc_hb_raw(b, "<div class=\"scroll\"><table id=\"api-table\"><thead><tr>");
    int columns = 0;
    th(b, "#", NULL, "num");
    th(b, "API", pc_mcsv_column(PC_MCSV_RESULT, PC_MCSV_RES_API_NAME), "text");
    th_of(b, "more", "type", NULL, "text");
    columns += 3;
    if (run_ut) {
        th_of(b, "vcol", "forward", pc_mcsv_column(PC_MCSV_RESULT, PC_MCSV_RES_FORWARD), "num");
        th_of(b, "vcol", "backward", pc_mcsv_column(PC_MCSV_RESULT, PC_MCSV_RES_BACKWARD), "num");
        columns += 2;
    }
    if (compare) {
        th_of(b, "vcol", "NPU vs GPU forward", h[PC_MCSV_PCMP_DET_RESULT], "num");
        th_of(b, "vcol", "NPU vs GPU backward", h[PC_MCSV_PCMP_DET_RESULT], "num");
        columns += 2;
    }
    if (run_ut) {
        char dtype_shape[128];
        snprintf(dtype_shape, sizeof dtype_shape, "%s, %s",
                 pc_mcsv_column(PC_MCSV_DETAILS, PC_MCSV_DET_DEVICE_DTYPE),
                 pc_mcsv_column(PC_MCSV_DETAILS, PC_MCSV_DET_SHAPE));
        th(b, "output to look at: decided by", NULL, "num");
        th(b, "dtype, shape", dtype_shape, "text");
        for (size_t j = 0; j < SHOWN_METRICS; j++)
            th_of(b, "more", pc_metric_name(shown_metrics[j]), pc_metric_column(shown_metrics[j]),
                  "num");
        th(b, "message", pc_mcsv_column(PC_MCSV_DETAILS, PC_MCSV_DET_MESSAGE), "text");
        columns += 3 + SHOWN_METRICS;
    }
    if (compare) {
        th(b, "compared output, standard", h[PC_MCSV_PCMP_DET_ALGORITHM], "text");
        for (size_t j = 0; j < COMPARE_COLS; j++)
            th_of(b, "more", compare_cols[j].english, h[compare_cols[j].col], "num");
        th(b, "compare message", h[PC_MCSV_PCMP_DETAILS_COLUMNS - 1], "text");
        columns += 2 + COMPARE_COLS;
    }
    pc_hb_raw(b, "</tr></thead><tbody>");
    for (size_t i = 0; i < m->n_apis; i++) {
        const rep_api *a = &m->apis[order[i]];
        const rep_row *w = a->worst >= 0 ? &a->rows[a->worst] : NULL;
        const rep_crow *cw = a->cworst >= 0 ? &a->crows[a->cworst] : NULL;
        pc_hb_raw(b, "<tr data-name=\"");
        pc_hb_text(b, a->name);
        pc_hb_raw(b, "\" data-type=\"");
        pc_hb_text(b, a->type);
        pc_hb_fmt(b, "\" data-fwd=\"%s|%s\" data-bwd=\"%s|%s\" data-dtypes=\"|",
                  pc_rep_verdict_token(a->fwd), pc_rep_verdict_token(a->cfwd),
                  pc_rep_verdict_token(a->bwd), pc_rep_verdict_token(a->cbwd));
        for (size_t k = 0; k < a->n_rows; k++) {
            pc_hb_text(b, a->rows[k].dtype);
            pc_hb_raw(b, "|");
        }
        pc_hb_fmt(b, "\"><td class=\"num\" data-k=\"%zu\">%zu</td><td class=\"name\" data-k=\"",
                  i + 1, i + 1);
        pc_hb_text(b, a->name);
        pc_hb_raw(b, "\">");
        /* the name opens the API's rows, in a row of their own under it that spans the table
         * (tr.sub, shown by the style sheet while the <details> is open) */
        bool listed = a->n_rows || a->n_crows;
        if (listed) {
            pc_hb_raw(b, "<details><summary>");
            pc_hb_text(b, a->name);
            pc_hb_raw(b, "</summary></details>");
        } else {
            pc_hb_text(b, a->name);
        }
        if (a->mark_word) { /* report --baseline: what changed since */
            pc_hb_raw(b, " <span class=\"v v-");
            pc_hb_text(b, a->mark_token);
            pc_hb_raw(b, "\" title=\"");
            pc_hb_text(b, a->mark_title);
            pc_hb_raw(b, "\">");
            pc_hb_text(b, a->mark_word);
            pc_hb_raw(b, "</span>");
        }
        pc_hb_raw(b, "</td>");
        td_text(b, a->type, "more", 40);
        if (run_ut) {
            td_verdict(b, a->fwd, a->fwd_text);
            td_verdict(b, a->bwd, a->bwd_text);
        }
        if (compare) {
            td_verdict(b, a->cfwd, a->cfwd_text);
            td_verdict(b, a->cbwd, a->cbwd_text);
        }
        if (run_ut) {
            /* the output to look at, over what decided its Status */
            if (w && w->decision.metric >= 0)
                pc_hb_fmt(b, "<td class=\"why\" data-k=\"%.6g\">", w->badness);
            else
                pc_hb_raw(b, "<td class=\"why\" data-k=\"\">");
            if (w) {
                pc_hb_raw(b, "<div class=\"muted\">");
                output_text(b, w->backward, w->output);
                pc_hb_raw(b, "</div>");
                if (w->decision.metric >= 0)
                    decision_text(b, w);
            }
            pc_hb_raw(b, "</td>");
            /* its dtype over its shape */
            pc_hb_raw(b, "<td data-k=\"");
            pc_hb_text_cut(b, w ? w->dtype : "", 40);
            pc_hb_raw(b, "\">");
            if (w) {
                pc_hb_text_cut(b, w->dtype, 40);
                pc_hb_raw(b, "<div class=\"mono\">");
                pc_hb_text_cut(b, w->shape, 60);
                pc_hb_raw(b, "</div>");
            }
            pc_hb_raw(b, "</td>");
            for (size_t j = 0; j < SHOWN_METRICS; j++) {
                bool bad = w && w->decision.metric == (int)shown_metrics[j] &&
                           pc_rep_verdict_severity(w->status) >= 2;
                td_num(b, w ? w->cell[shown_metrics[j]] : "", bad,
                       pc_tally_higher_is_better((int)shown_metrics[j]) ? -1 : 1);
            }
            const char *msg = a->fwd == RV_SKIP && a->message[0] ? a->message : w ? w->message : "";
            td_msg(b, msg, NULL);
        }
        if (compare) {
            /* the compared output over its standard */
            pc_hb_raw(b, "<td data-k=\"");
            pc_hb_text_cut(b, cw ? cw->cell[CC_ALGORITHM] : "", 40);
            pc_hb_raw(b, "\">");
            if (cw) {
                pc_hb_raw(b, "<div class=\"muted\">");
                output_text(b, cw->backward, cw->output);
                pc_hb_raw(b, "</div>");
                pc_html_crow_mark(b, cw);
                pc_hb_text_cut(b, cw->cell[CC_ALGORITHM], 40);
            }
            pc_hb_raw(b, "</td>");
            for (size_t j = 0; j < COMPARE_COLS; j++) {
                bool bad = cw && compare_cols[j].status_col >= 0 &&
                           strcmp(cw->cell[compare_cols[j].status_col], "error") == 0;
                td_num(b, cw ? cw->cell[compare_cols[j].col] : "", bad,
                       compare_cols[j].col == CC_THOUSANDTH ? -1 : 0);
            }
            /* the result row's message (topk's note, a SKIP's reason), then the row's */
            td_msg(b, a->cmessage, cw ? cw->cell[CC_MESSAGE] : NULL);
        }
        pc_hb_raw(b, "</tr>");
        if (listed) {
            /* the listing stays in view when the table is scrolled sideways */
            pc_hb_fmt(b, "<tr class=\"sub\"><td colspan=\"%d\"><div class=\"sub-in\">", columns);
            rows_listing(b, a);
            pc_html_api_extras(b, a);
            if (m->info.dump &&
                (pc_rep_verdict_severity(a->fwd) >= 2 || pc_rep_verdict_severity(a->bwd) >= 2)) {
                /* the bundle that reproduces this API elsewhere (precheck repro) */
                pc_hb_raw(b, "<p class=\"repro\">reproduce it on the device: <code>precheck "
                             "repro -api_info ");
                pc_hb_text(b, m->info.dump);
                pc_hb_raw(b, " ");
                pc_hb_text(b, a->name);
                pc_hb_raw(b, " -o repro/</code></p>");
            }
            pc_hb_raw(b, "</div></td></tr>");
        }
    }
    pc_hb_raw(b, "</tbody></table></div></section>");
}
