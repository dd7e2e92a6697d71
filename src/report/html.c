/*
 * precheck report: the page. Sections, in order: notes (what a reader must know: which run of
 * several, a file that could not be read), overview (device, dump, settings, counts, time), the
 * per-API table (worst first, sortable, filterable), the metric plots, the error-data plots,
 * coverage (what ran, what was skipped and why), and the files read.
 *
 * The escaping rule (report_impl.h): markup is the program's own literals (pc_hb_raw, pc_hb_fmt
 * with numbers); every text from a file goes through pc_hb_text. The page's Content-Security-Policy
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
#include "precheck/io/file_out.h"
#include "precheck/report/diff.h"
#include "pc_version.h"
#include "report_impl.h"
#include "tally.h"

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
    pc_hb_raw(b, "<dt>");
    pc_hb_raw(b, what);
    pc_hb_raw(b, code ? "</dt><dd><code>" : "</dt><dd>");
    if (value && *value)
        pc_hb_text(b, value);
    else
        pc_hb_raw(b, "<span class=\"muted\">not recorded</span>");
    pc_hb_raw(b, code ? "</code></dd>" : "</dd>");
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
            segs[n++] = (plot_segment){order[i].label, pc_rep_verdict_token(order[i].v),
                                       c[dir][order[i].v]};
        }
        char id[64];
        snprintf(id, sizeof id, "count-%s-%s", kind, dir ? "backward" : "forward");
        pc_plot_stacked_bar(
            b,
            dir ? (run_ut ? "Backward Test Success (input gradients)"
                          : "Backward (NPU against GPU)")
                : (run_ut ? "Forward Test Success (outputs)" : "Forward (NPU against GPU)"),
            segs, n, id);
    }
}

/* "12.5 s" from a record, else "about 12 s (from the files' times: ...)", else "" */
static void took_text(char *buf, size_t size, double recorded, double from_files, const char *csv)
{
    if (recorded >= 0) {
        fmt_seconds(buf, size, recorded);
    } else if (from_files >= 0) {
        char s[32];
        fmt_seconds(s, sizeof s, from_files);
        snprintf(buf, size,
                 "about %s (from the files' times: the %s CSV's last change after the start its "
                 "name gives; meaningless when the files were copied)",
                 s, csv);
    } else {
        buf[0] = 0;
    }
}

static void overview_run_ut(html_buf *b, const rep_model *m)
{
    const rep_run_info *in = &m->info;
    pc_hb_raw(b, "<div><h3>run_ut: the device against the bench <span class=\"muted\">");
    pc_hb_text(b, m->run_ut_ts);
    pc_hb_raw(b, "</span></h3><dl class=\"facts\">");
    const char *device = in->device;
    if (device && strncmp(device, "device under test: ", 19) == 0)
        device += 19;
    fact(b, "Device tested", device, false);
    fact(b, "Dump", in->dump, false);
    char started[32], took[256];
    ts_text(started, sizeof started, m->run_ut_ts);
    const char *first = in->started;
    for (size_t i = 0; i < in->n_shards; i++) /* a merged folder: the first shard's start */
        if (in->shards[i].started && (i == 0 || !first || strcmp(in->shards[i].started, first) < 0))
            first = in->shards[i].started;
    fact(b, "Started", first ? first : started, false);
    took_text(took, sizeof took, in->seconds, m->run_ut_seconds_from_files,
              m->result_csv ? "result" : "details");
    if (in->n_shards) {
        /* a merged folder: the shards' runs took the time, the merge none to speak of */
        double total = 0, longest = 0;
        bool known = true;
        for (size_t i = 0; i < in->n_shards; i++) {
            known = known && in->shards[i].seconds >= 0;
            total += in->shards[i].seconds;
            longest = in->shards[i].seconds > longest ? in->shards[i].seconds : longest;
        }
        char t[32], l[32];
        fmt_seconds(t, sizeof t, total);
        fmt_seconds(l, sizeof l, longest);
        if (known)
            snprintf(took, sizeof took, "%s in %zu shard runs (the longest %s), then merged", t,
                     in->n_shards, l);
    }
    fact(b, "Time taken", took, false);
    for (size_t i = 0; i < in->n_shards; i++) {
        char what[32], line[64];
        snprintf(what, sizeof what, "Shard run %zu", i + 1);
        fmt_seconds(line, sizeof line, in->shards[i].seconds);
        pc_hb_raw(b, "<dt>");
        pc_hb_text(b, what);
        pc_hb_raw(b, "</dt><dd>");
        pc_hb_text(b, in->shards[i].started ? in->shards[i].started : "");
        pc_hb_raw(b, ", ");
        pc_hb_text(b, in->shards[i].seconds >= 0 ? line : "time unknown");
        pc_hb_raw(b, ": <code>");
        pc_hb_text_cut(b, in->shards[i].command ? in->shards[i].command : "", 600);
        pc_hb_raw(b, "</code></dd>");
    }
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
    fact(b, in->n_shards ? "Merged by" : "Command", in->command, true);
    pc_hb_raw(b, "</dl>");
    counts_bars(b, m->counts, "run_ut", true);
    if (in->n_settings) {
        pc_hb_raw(b, "<details><summary>Settings (the run record, precheck_run_");
        pc_hb_text(b, m->run_ut_ts);
        pc_hb_raw(b,
                  ".json)</summary><table class=\"rows\"><thead><tr><th>setting</th><th>value</th>"
                  "<th></th></tr></thead><tbody>");
        for (size_t i = 0; i < in->n_settings; i++) {
            pc_hb_raw(b, "<tr><td class=\"mono\">");
            pc_hb_text(b, in->settings[i].key);
            pc_hb_raw(b, "</td><td class=\"mono\">");
            pc_hb_text(b, in->settings[i].value);
            pc_hb_raw(b, in->settings[i].decides
                             ? "</td><td class=\"muted\">decides the rows: a resume must match</td>"
                             : "</td><td></td>");
            pc_hb_raw(b, "</tr>");
        }
        pc_hb_raw(b, "</tbody></table></details>");
    } else if (!in->has_summary) {
        pc_hb_raw(b, "<p class=\"muted\">No precheck_summary or precheck_run file: these CSVs come "
                     "from msprobe or an older precheck, so the device, the dump and the settings "
                     "are not known.</p>");
    }
    pc_hb_raw(b, "</div>");
}

static void overview_compare(html_buf *b, const rep_model *m)
{
    pc_hb_raw(b, "<div><h3>api_precision_compare: the NPU against the GPU <span class=\"muted\">");
    pc_hb_text(b, m->compare_ts);
    const rep_compare_info *in = &m->cinfo;
    pc_hb_raw(b, "</span></h3><p class=\"muted\">Each NPU row judged against the GPU row of the "
                 "same name with its API's precision standard (比对算法).");
    if (!in->has_summary)
        pc_hb_raw(b, " The CSVs do not name the two runs they compared, and this run left no "
                     "summary that would.");
    pc_hb_raw(b, "</p><dl class=\"facts\">");
    if (in->has_summary) {
        fact(b, "NPU run (-npu)", in->npu_csv, true);
        fact(b, "GPU run (-gpu)", in->gpu_csv, true);
    }
    char started[32], took[256];
    ts_text(started, sizeof started, m->compare_ts);
    fact(b, "Started", in->started ? in->started : started, false);
    took_text(took, sizeof took, in->seconds, m->compare_seconds_from_files,
              m->cresult_csv ? "result" : "details");
    fact(b, "Time taken", took, false);
    fact(b, "Command", in->command, true);
    pc_hb_raw(b, "</dl>");
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
        pc_hb_raw(b,
                  "<table class=\"rows\"><thead><tr><th>standard <span class=\"zh\">比对算法</span>"
                  "</th><th>rows</th><th>pass</th><th>error</th><th>SKIP</th></tr></thead><tbody>");
        for (size_t j = 0; j < na; j++) {
            pc_hb_raw(b, "<tr><td>");
            if (strcmp(algos[j], " ") == 0 || !*algos[j])
                pc_hb_raw(b, "<span class=\"muted\">none (SKIP rows)</span>");
            else
                pc_hb_text(b, algos[j]);
            pc_hb_fmt(b,
                      "</td><td class=\"num\">%zu</td><td class=\"num\">%zu</td>"
                      "<td class=\"num\">%zu</td><td class=\"num\">%zu</td></tr>",
                      counts[j][0] + counts[j][1] + counts[j][2], counts[j][0], counts[j][1],
                      counts[j][2]);
        }
        pc_hb_raw(b, "</tbody></table>");
    }
    pc_hb_raw(b, "</div>");
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
    pc_hb_raw(b, "<section class=\"card\" id=\"files\"><h2>Files read</h2><ul>");
    const char *files[] = {m->result_csv,  m->details_csv,  m->summary_json, m->record_json,
                           m->cresult_csv, m->cdetails_csv, m->csummary_json};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        if (files[i]) {
            pc_hb_raw(b, "<li><code>");
            pc_hb_text(b, base_name(files[i]));
            pc_hb_raw(b, "</code></li>");
        }
    if (m->error_dir) {
        pc_hb_raw(b, "<li>error data: <code>");
        pc_hb_text(b, m->error_dir);
        pc_hb_raw(b, "</code></li>");
    }
    pc_hb_raw(b, "</ul><p class=\"muted\">in <code>");
    pc_hb_text(b, m->dir);
    pc_hb_raw(b, "</code></p></section>");
}

static void page(html_buf *b, const rep_model *m, const pc_report_options *opt, const size_t *order,
                 size_t *error_apis, const pc_report_diff *diff)
{
    char css_hash[64], js_hash[64], when[64];
    csp_hash(css_hash, pc_report_css);
    csp_hash(js_hash, pc_report_js);
    if (opt->generated) {
        snprintf(when, sizeof when, "%s", opt->generated);
    } else {
        time_t now = time(NULL);
        struct tm lt;
        localtime_r(&now, &lt);
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &lt);
    }
    pc_hb_raw(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                 "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                 "script-src 'sha256-");
    pc_hb_raw(b, js_hash);
    pc_hb_raw(b, "'; style-src 'sha256-");
    pc_hb_raw(b, css_hash);
    pc_hb_raw(b, "'; img-src 'none'; base-uri 'none'; form-action 'none'\">\n"
                 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                 "<meta name=\"generator\" content=\"precheck " PC_VERSION_STRING "\">\n"
                 "<title>precheck report: ");
    pc_hb_text(b, base_name(m->dir) && *base_name(m->dir) ? base_name(m->dir) : m->dir);
    pc_hb_raw(b, "</title>\n<style>");
    pc_hb_raw(b, pc_report_css);
    pc_hb_raw(b, "</style></head>\n<body>\n<header><h1>precheck report</h1><p class=\"sub\">");
    char where[PATH_MAX];
    pc_hb_text(b, realpath(m->dir, where) ? where : m->dir);
    pc_hb_raw(b, " &middot; generated ");
    pc_hb_text(b, when);
    pc_hb_raw(b, " by precheck " PC_VERSION_STRING "</p><nav><a href=\"#overview\">Overview</a>"
                 "<a href=\"#apis\">APIs</a><a href=\"#plots\">Metrics</a>");
    if (diff)
        pc_hb_raw(b, "<a href=\"#changes\">Changes</a>");
    if (m->error_dir)
        pc_hb_raw(b, "<a href=\"#error-data\">Error data</a>");
    pc_hb_raw(b, "<a href=\"#coverage\">Coverage</a><a href=\"#files\">Files</a></nav></header>\n"
                 "<main>\n");
    if (m->n_notes) {
        pc_hb_raw(b, "<section class=\"card notes\" id=\"notes\"><ul>");
        for (size_t i = 0; i < m->n_notes; i++) {
            pc_hb_raw(b, "<li>");
            pc_hb_text(b, m->notes[i]);
            pc_hb_raw(b, "</li>");
        }
        pc_hb_raw(b, "</ul></section>\n");
    }
    pc_hb_raw(b, "<section class=\"card\" id=\"overview\"><h2>Overview</h2><div class=\"grid2\">");
    if (m->run_ut_ts[0])
        overview_run_ut(b, m);
    if (m->compare_ts[0])
        overview_compare(b, m);
    pc_hb_raw(b, "</div></section>\n");
    if (diff)
        pc_rep_diff_section(b, diff);
    pc_html_api_table(b, m, order);
    pc_hb_raw(b, "\n");
    pc_html_metrics_section(b, m);
    pc_hb_raw(b, "\n");
    if (m->error_dir) {
        pc_hb_raw(b,
                  "<section class=\"card\" id=\"error-data\"><h2>Error data "
                  "<span class=\"muted\">(-save_error_data)</span></h2><p class=\"muted\">Per "
                  "failing output, the element-wise error |device - bench| of the tensors run_ut "
                  "saved in <code>");
        pc_hb_text(b, base_name(m->error_dir));
        pc_hb_raw(b, "</code>: its histogram over every element, and against |bench| on a sample "
                     "(orange beyond the Warning's relative limit, red beyond the error's; points "
                     "below the absolute limit pass whatever their relative error).</p>");
        *error_apis =
            pc_rep_error_data_section(b, m, order, opt->max_error_apis ? opt->max_error_apis : 24);
        if (!*error_apis)
            pc_hb_raw(b, "<p>No failing output has its tensors in the folder.</p>");
        pc_hb_raw(b, "</section>\n");
    }
    pc_html_coverage_section(b, m);
    pc_html_time_section(b, m);
    pc_hb_raw(b, "\n");
    files_section(b, m);
    pc_hb_raw(b, "\n</main>\n<footer>This page asks for nothing outside itself "
                 "(Content-Security-Policy default-src 'none'): it works offline and from any "
                 "folder. The verdicts are msprobe's; docs/glossary.md explains every column."
                 "</footer>\n<script>");
    pc_hb_raw(b, pc_report_js);
    pc_hb_raw(b, "</script>\n</body></html>\n");
}

pc_status pc_report_write(const pc_report_options *opt, pc_report_info *info)
{
    rep_model m;
    html_buf b = PC_STRBUF_INIT;
    size_t *order = NULL, error_apis = 0;
    pc_report_diff *diff = NULL;
    pc_status st = pc_rep_model_load(&m, opt);
    if (st != PC_OK)
        goto out;
    if (opt->baseline) { /* the changes since an earlier run of the same dump */
        pc_diff_options dopt = {.old_path = opt->baseline,
                                .new_path = opt->dir,
                                .new_run = opt->run,
                                .allow_different_dumps = opt->allow_different_dumps};
        st = pc_report_diff_load(&dopt, &diff);
        if (st != PC_OK) {
            st = pc_error_prefix(st, "--baseline %s", opt->baseline);
            goto out;
        }
        st = pc_rep_diff_mark(diff, &m);
        if (st != PC_OK)
            goto out;
    }
    order = malloc((m.n_apis ? m.n_apis : 1) * sizeof *order);
    if (!order) {
        st = pc_error_set(PC_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < m.n_apis; i++)
        order[i] = i;
    sort_order(order, m.n_apis, &m);
    page(&b, &m, opt, order, &error_apis, diff);
    if (pc_strbuf_error(&b)) {
        st = pc_error_set(PC_ERR_NOMEM, "out of memory while making the page");
        goto out;
    }
    char path[4200];
    if (opt->out_path)
        snprintf(path, sizeof path, "%s", opt->out_path);
    else
        snprintf(path, sizeof path, "%s/precheck_report_%s.html", opt->dir,
                 m.run_ut_ts[0] ? m.run_ut_ts : m.compare_ts);
    /* the default name takes a free _N when a page for the same run is there already (a second
     * `report` of the same folder); a file named with -o is the user's choice and is replaced
     * (as cc -o does); never through a link at either (file_out.h) */
    pc_file_out out;
    st = pc_file_out_open(&out, path, opt->out_path ? PC_FILE_OUT_REPLACE : PC_FILE_OUT_UNIQUE);
    if (st != PC_OK)
        goto out;
    if (b.len && fwrite(b.data, 1, b.len, out.f) != b.len) {
        st = pc_error_set(PC_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
        pc_file_out_free(&out);
        goto out;
    }
    st = pc_file_out_commit(&out);
    if (st == PC_OK)
        snprintf(path, sizeof path, "%s", out.path);
    pc_file_out_free(&out);
    if (st != PC_OK)
        goto out;
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
    pc_report_diff_free(diff);
    free(order);
    pc_strbuf_reset(&b);
    pc_rep_model_free(&m);
    return st;
}
