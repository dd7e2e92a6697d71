/*
 * The page's parts from the summaries beyond the CSVs (report_extra.c): in an API's expanded
 * row its wall time on the device and on the bench, where it sits in the model (its first frame
 * in the user's code, its calling modules, the whole stack one click further) and its compare
 * rows the rule fails although the NPU and GPU rows are identical ("rule, not device") with
 * both sides' figures; the mark of such a row in the table; and the slowest APIs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_impl.h"

#define SLOWEST_ON_PAGE 20

/* "0.09 ms", "512.30 ms", "6.02 s" */
static void duration(html_buf *b, double s)
{
    if (s < 1)
        pc_hb_fmt(b, "%.2f ms", s * 1000);
    else
        pc_hb_fmt(b, "%.2f s", s);
}

void pc_html_crow_mark(html_buf *b, const rep_crow *r)
{
    if (r && r->rule && r->status == RV_ERROR)
        pc_hb_raw(b, " <span class=\"muted rule-not-device\" title=\"the NPU and GPU rows are "
                     "identical; msprobe's rule still says error (glossary: rule, not "
                     "device)\">rule, not device</span>");
}

void pc_html_api_extras(html_buf *b, const rep_api *a)
{
    if (a->has_times) {
        pc_hb_raw(b, "<p class=\"api-times\">wall time: device ");
        duration(b, a->device_seconds);
        pc_hb_raw(b, ", bench ");
        duration(b, a->bench_seconds);
        pc_hb_raw(b, "</p>");
    }
    if (a->where || a->module_path || a->stack) {
        pc_hb_raw(b, "<div class=\"where\"><p>in the model: ");
        if (a->where) {
            pc_hb_raw(b, "<code>");
            pc_hb_text(b, a->where);
            pc_hb_raw(b, "</code>");
        } else {
            pc_hb_raw(b, "<span class=\"muted\">no frame of the stack is in your code</span>");
        }
        if (a->module_path) {
            pc_hb_raw(b, "<br>module: <code>");
            pc_hb_text(b, a->module_path);
            pc_hb_raw(b, "</code>");
        }
        pc_hb_raw(b, "</p>");
        if (a->stack) {
            pc_hb_raw(b, "<details class=\"stack\"><summary>whole stack (stack.json, innermost "
                         "first)</summary><pre class=\"mono\">");
            pc_hb_text(b, a->stack);
            pc_hb_raw(b, "</pre></details>");
        }
        pc_hb_raw(b, "</div>");
    }
    for (size_t i = 0; i < a->n_crows; i++) {
        const rep_crow *r = &a->crows[i];
        if (!r->sides)
            continue;
        pc_hb_raw(b, "<p class=\"sides\">");
        pc_hb_text(b, r->name);
        pc_hb_raw(b, r->rule ? ": <b>rule, not device</b> (the NPU and GPU rows are identical): "
                             : ": NPU against GPU: ");
        pc_hb_text(b, r->sides);
        pc_hb_raw(b, "</p>");
    }
}

typedef struct timed {
    double seconds; /* device plus bench */
    size_t order, api;
} timed;

/* slowest first, then dump order */
static int by_time(const void *x, const void *y)
{
    const timed *a = x, *b = y;
    if (a->seconds != b->seconds)
        return a->seconds < b->seconds ? 1 : -1;
    return a->order < b->order ? -1 : a->order > b->order;
}

void pc_html_time_section(html_buf *b, const rep_model *m)
{
    size_t n = 0;
    double device = 0, bench = 0;
    for (size_t i = 0; i < m->n_apis; i++)
        if (m->apis[i].has_times) {
            n++;
            device += m->apis[i].device_seconds;
            bench += m->apis[i].bench_seconds;
        }
    if (!n)
        return;
    timed *idx = malloc(n * sizeof *idx);
    if (!idx) {
        b->err = PC_STRBUF_NOMEM;
        return;
    }
    n = 0;
    for (size_t i = 0; i < m->n_apis; i++) {
        const rep_api *a = &m->apis[i];
        if (a->has_times)
            idx[n++] = (timed){a->device_seconds + a->bench_seconds, a->order, i};
    }
    qsort(idx, n, sizeof *idx, by_time);
    pc_hb_raw(b, "<section class=\"card\" id=\"time\"><h2>Where the time went</h2><p>Wall time "
                 "of the APIs' forward and backward: on the device ");
    duration(b, device);
    pc_hb_raw(b, ", on the bench ");
    duration(b, bench);
    pc_hb_fmt(b, " (%zu APIs; run_ut's summary JSON). The slowest:</p>", n);
    pc_hb_raw(b, "<table class=\"rows\" id=\"slowest\"><thead><tr><th>#</th><th>API</th>"
                 "<th>device</th><th>bench</th></tr></thead><tbody>");
    for (size_t k = 0; k < n && k < SLOWEST_ON_PAGE; k++) {
        const rep_api *a = &m->apis[idx[k].api];
        pc_hb_fmt(b, "<tr><td>%zu</td><td>", k + 1);
        pc_hb_text(b, a->name);
        pc_hb_raw(b, "</td><td class=\"num\">");
        duration(b, a->device_seconds);
        pc_hb_raw(b, "</td><td class=\"num\">");
        duration(b, a->bench_seconds);
        pc_hb_raw(b, "</td></tr>");
    }
    pc_hb_raw(b, "</tbody></table></section>");
    free(idx);
}
