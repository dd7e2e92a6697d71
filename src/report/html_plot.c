/*
 * The report's pictures, as inline SVG (no image files, no script): stacked bars of verdict
 * counts, the distribution of a metric across APIs on log bins with its limits drawn, and the
 * per-element errors of one output. Colours come from the page's style sheet by class, so the
 * SVG carries no style attributes. Texts from files (API names) reach only <title> elements,
 * through pc_hb_text.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_impl.h"

/* ---- counts ---- */

void pc_plot_stacked_bar(html_buf *b, const char *title, const plot_segment *segs, size_t n,
                         const char *id_prefix)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += segs[i].count;
    pc_hb_raw(b, "<div class=\"bar\"><div class=\"bar-title\">");
    pc_hb_text(b, title);
    pc_hb_fmt(b, " <span class=\"muted\">(%zu)</span></div>", total);
    pc_hb_raw(b, "<svg class=\"bar-svg\" viewBox=\"0 0 600 22\" preserveAspectRatio=\"none\" "
                 "role=\"img\" aria-label=\"");
    pc_hb_text(b, title);
    pc_hb_raw(b, "\">");
    double x = 0;
    for (size_t i = 0; i < n; i++) {
        if (!segs[i].count || !total)
            continue;
        double w = 600.0 * (double)segs[i].count / (double)total;
        pc_hb_fmt(b, "<rect class=\"f-%s\" x=\"%.2f\" y=\"0\" width=\"%.2f\" height=\"22\">",
                  segs[i].css, x, w);
        pc_hb_fmt(b, "<title>%s: %zu</title></rect>", segs[i].label, segs[i].count);
        x += w;
    }
    if (!total)
        pc_hb_raw(b, "<rect class=\"f-empty\" x=\"0\" y=\"0\" width=\"600\" height=\"22\"/>");
    pc_hb_raw(b, "</svg><div class=\"legend\">");
    for (size_t i = 0; i < n; i++)
        pc_hb_fmt(b,
                  "<span class=\"lg\"><i class=\"sw f-%s\"></i>%s <b id=\"%s-%s\">%zu</b></span>",
                  segs[i].css, segs[i].label, id_prefix, segs[i].css, segs[i].count);
    pc_hb_raw(b, "</div></div>");
}

/* ---- a metric across APIs ---- */

#define PLOT_W      600.0
#define PLOT_LEFT   44.0
#define PLOT_RIGHT  590.0
#define PLOT_TOP    18.0
#define PLOT_BOTTOM 132.0
#define PER_DECADE  4
#define MAX_BINS    48 /* 12 decades */

static double transform(const plot_metric *s, double v)
{
    return s->higher_is_better ? 1.0 - v : v;
}

/* The text of a bin edge at x (transformed units) in the metric's own units: 1 - x as 0.999
 * while it is short, 1-1e-06 beyond. */
static void edge_text(char *buf, size_t size, const plot_metric *s, double x)
{
    if (!s->higher_is_better)
        snprintf(buf, size, "%.3g", x);
    else if (x >= 1e-4 || x <= 0)
        snprintf(buf, size, "%.*f", x > 0 && x < 1 ? (int)ceil(-log10(x) - 1e-9) : 2, 1 - x);
    else
        snprintf(buf, size, "1-%.2g", x);
}

typedef struct bin {
    size_t pass, fail;
    size_t names; /* how many names went into its title so far */
} bin;

void pc_plot_metric_histogram(html_buf *b, const plot_metric *s, const double *values,
                              const double *limit, const char *const *labels, size_t n)
{
    /* the anchor: bin edges fall on the first limit, so that a bin is wholly within or beyond */
    double anchor = 1;
    for (int i = 0; i < 3; i++)
        if (isfinite(s->limits[i]) && transform(s, s->limits[i]) > 0) {
            anchor = transform(s, s->limits[i]);
            break;
        }
    long kmin = 0, kmax = 0;
    bool any_pos = false;
    size_t zeros = 0, bad = 0;
    for (size_t i = 0; i < n; i++) {
        double x = transform(s, values[i]);
        if (!isfinite(x)) {
            bad++;
        } else if (x <= 0) {
            zeros++;
        } else {
            long k = (long)floor(PER_DECADE * log10(x / anchor) + 1e-9);
            kmin = any_pos && kmin < k ? kmin : k;
            kmax = any_pos && kmax > k ? kmax : k;
            any_pos = true;
        }
    }
    /* the limits' edges inside the axis */
    for (int i = 0; i < 3; i++) {
        if (!isfinite(s->limits[i]) || transform(s, s->limits[i]) <= 0)
            continue;
        long k = (long)floor(PER_DECADE * log10(transform(s, s->limits[i]) / anchor) + 0.5);
        if (!any_pos) {
            kmin = k - PER_DECADE;
            kmax = k + PER_DECADE - 1;
            any_pos = true;
        }
        kmin = kmin < k - 1 ? kmin : k - 1;
        kmax = kmax > k ? kmax : k;
    }
    if (!any_pos)
        kmin = kmax = 0;
    bool lumped = kmax - kmin + 1 > MAX_BINS;
    if (lumped)
        kmin = kmax - MAX_BINS + 1; /* smaller values go into the first bin */
    size_t nlog = (size_t)(kmax - kmin + 1);
    size_t first = zeros ? 1 : 0; /* bar index of the first log bin */
    size_t nbars = first + nlog + (bad ? 1 : 0);
    bin *bins = calloc(nbars, sizeof *bins);
    size_t *which = calloc(n ? n : 1, sizeof *which);
    if (!bins || !which) {
        free(bins);
        free(which);
        b->err = PC_STRBUF_NOMEM;
        return;
    }
    size_t beyond = 0;
    for (size_t i = 0; i < n; i++) {
        double x = transform(s, values[i]);
        size_t at;
        if (!isfinite(x))
            at = nbars - 1;
        else if (x <= 0)
            at = 0;
        else {
            long k = (long)floor(PER_DECADE * log10(x / anchor) + 1e-9);
            k = k < kmin ? kmin : k > kmax ? kmax : k;
            at = first + (size_t)(k - kmin);
        }
        which[i] = at;
        bool fails = false;
        if (limit && isfinite(limit[i])) {
            double xl = transform(s, limit[i]);
            fails = !isfinite(x) || x > xl;
        }
        if (fails) {
            bins[at].fail++;
            beyond++;
        } else {
            bins[at].pass++;
        }
    }
    size_t top = 1;
    for (size_t i = 0; i < nbars; i++)
        if (bins[i].pass + bins[i].fail > top)
            top = bins[i].pass + bins[i].fail;

    pc_hb_raw(b, "<figure class=\"plot\"><figcaption><b>");
    pc_hb_text(b, s->title);
    pc_hb_raw(b, "</b> <span class=\"zh\">");
    pc_hb_text(b, s->column);
    pc_hb_fmt(b, "</span> <span class=\"muted\">%zu API%s", n, n == 1 ? "" : "s");
    if (limit)
        pc_hb_fmt(b, ", %zu beyond the limit", beyond);
    pc_hb_raw(b, "</span></figcaption>");
    pc_hb_raw(b, "<svg viewBox=\"0 0 600 168\" role=\"img\" aria-label=\"");
    pc_hb_text(b, s->title);
    pc_hb_raw(b, "\">");
    /* the bar of exact values stands apart from the log bins, a bar's width away: its tick
     * and the first decade's do not collide, and a limit of exactly 0 (or 1) is drawn in the
     * gap, not on the first decade's tick */
    double gap = zeros ? 1.0 : 0.0;
    double bw = (PLOT_RIGHT - PLOT_LEFT) / ((double)nbars + gap);
    pc_hb_fmt(b,
              "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
              "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%zu</text>"
              "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">0</text>",
              PLOT_LEFT, PLOT_BOTTOM, PLOT_RIGHT, PLOT_BOTTOM, PLOT_LEFT - 4, PLOT_TOP + 4, top,
              PLOT_LEFT - 4, PLOT_BOTTOM);
    for (size_t i = 0; i < nbars; i++) {
        size_t c = bins[i].pass + bins[i].fail;
        double x = PLOT_LEFT + ((double)i + (i >= first ? gap : 0.0)) * bw;
        char lo[32], hi[32], range[96];
        if (zeros && i == 0) {
            snprintf(range, sizeof range, "%s", s->higher_is_better ? "1 (exactly)" : "0");
        } else if (bad && i == nbars - 1) {
            snprintf(range, sizeof range, "nan or inf");
        } else {
            long k = kmin + (long)(i - first);
            double e0 = anchor * pow(10, (double)k / PER_DECADE);
            double e1 = anchor * pow(10, (double)(k + 1) / PER_DECADE);
            edge_text(lo, sizeof lo, s, s->higher_is_better ? e1 : e0);
            edge_text(hi, sizeof hi, s, s->higher_is_better ? e0 : e1);
            if (k == kmin && lumped)
                snprintf(range, sizeof range, "%s or %s", s->higher_is_better ? lo : hi,
                         s->higher_is_better ? "above" : "below");
            else
                snprintf(range, sizeof range, "%s to %s", lo, hi);
            /* a tick at every decade edge */
            if (((k % PER_DECADE) + PER_DECADE) % PER_DECADE == 0) {
                char t[32];
                edge_text(t, sizeof t, s, e0);
                pc_hb_fmt(b,
                          "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                          "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
                          x, PLOT_BOTTOM, x, PLOT_BOTTOM + 4, x, PLOT_BOTTOM + 15);
                pc_hb_text(b, t);
                pc_hb_raw(b, "</text>");
            }
        }
        if (zeros && i == 0)
            pc_hb_fmt(b,
                      "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>",
                      x + bw / 2, PLOT_BOTTOM + 15, s->higher_is_better ? "1" : "0");
        if (bad && i == nbars - 1)
            pc_hb_fmt(
                b, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">nan</text>",
                x + bw / 2, PLOT_BOTTOM + 15);
        if (!c)
            continue;
        double hp = (PLOT_BOTTOM - PLOT_TOP) * (double)bins[i].pass / (double)top;
        double hf = (PLOT_BOTTOM - PLOT_TOP) * (double)bins[i].fail / (double)top;
        pc_hb_fmt(b, "<g><title>%zu API%s with ", c, c == 1 ? "" : "s");
        pc_hb_text(b, range);
        if (bins[i].fail)
            pc_hb_fmt(b, " (%zu beyond the limit)", bins[i].fail);
        pc_hb_raw(b, ":");
        size_t shown = 0;
        for (size_t j = 0; j < n && shown < 12; j++)
            if (which[j] == i) {
                pc_hb_raw(b, shown ? ", " : " ");
                pc_hb_text_cut(b, labels[j], 80);
                shown++;
            }
        if (c > shown)
            pc_hb_fmt(b, " and %zu more", c - shown);
        pc_hb_raw(b, "</title>");
        if (bins[i].pass)
            pc_hb_fmt(b,
                      "<rect class=\"f-pass\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                      "height=\"%.2f\"/>",
                      x + 0.5, PLOT_BOTTOM - hp, bw - 1, hp);
        if (bins[i].fail)
            pc_hb_fmt(b,
                      "<rect class=\"f-error\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                      "height=\"%.2f\"/>",
                      x + 0.5, PLOT_BOTTOM - hp - hf, bw - 1, hf);
        pc_hb_raw(b, "</g>");
    }
    /* the limits */
    for (int l = 0; l < 3; l++) {
        if (!isfinite(s->limits[l]))
            continue;
        double xl = transform(s, s->limits[l]);
        double pos = xl <= 0 ? (double)first + gap / 2
                             : (double)first + gap + PER_DECADE * log10(xl / anchor) - (double)kmin;
        if (pos < 0 || pos > (double)(first + nlog) + gap)
            continue;
        double x = PLOT_LEFT + pos * bw;
        pc_hb_fmt(b,
                  "<line class=\"limit\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                  "<text class=\"limit-text\" x=\"%.1f\" y=\"%.1f\">",
                  x, PLOT_TOP - 6, x, PLOT_BOTTOM, x + 3, PLOT_TOP - 8 + 11.0 * l + 8);
        pc_hb_text(b, s->limit_labels[l] ? s->limit_labels[l] : "limit");
        pc_hb_raw(b, "</text>");
    }
    pc_hb_fmt(b, "<text class=\"axis-label\" x=\"%.1f\" y=\"162\" text-anchor=\"middle\">",
              (PLOT_LEFT + PLOT_RIGHT) / 2);
    pc_hb_text(b, s->title);
    pc_hb_raw(b, s->higher_is_better ? " (log scale of 1 - value)" : " (log scale)");
    pc_hb_raw(b, "</text></svg>");
    if (s->note) {
        pc_hb_raw(b, "<p class=\"plot-note\">");
        pc_hb_text(b, s->note);
        pc_hb_raw(b, "</p>");
    }
    pc_hb_raw(b, "</figure>");
    free(bins);
    free(which);
}

/* ---- the errors of one output ---- */

void pc_plot_error_histogram(html_buf *b, const plot_errors *e)
{
    int lo = 80, hi = -1;
    for (int i = 0; i < 80; i++)
        if (e->bins[i]) {
            lo = i < lo ? i : lo;
            hi = i;
        }
    if (hi < 0)
        lo = hi = 0;
    lo -= lo % PLOT_ERR_PER_DECADE;
    hi += PLOT_ERR_PER_DECADE - 1 - hi % PLOT_ERR_PER_DECADE;
    if (hi > 79)
        hi = 79;
    size_t zbar = e->zeros ? 1 : 0, nbar = e->nonfinite ? 1 : 0; /* zeros first, non-finite last */
    size_t nbars = (size_t)(hi - lo + 1) + zbar + nbar;
    size_t top = e->zeros > e->nonfinite ? e->zeros : e->nonfinite;
    for (int i = lo; i <= hi; i++)
        top = e->bins[i] > top ? e->bins[i] : top;
    top = top ? top : 1;
    double gap = zbar ? 1.0 : 0.0; /* the bar of exact zeros stands apart, as above */
    double bw = (PLOT_RIGHT - PLOT_LEFT) / ((double)nbars + gap);
    pc_hb_raw(b, "<svg class=\"ed-svg\" viewBox=\"0 0 600 168\" role=\"img\" "
                 "aria-label=\"histogram of the errors\">");
    pc_hb_fmt(b,
              "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
              "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%zu</text>",
              PLOT_LEFT, PLOT_BOTTOM, PLOT_RIGHT, PLOT_BOTTOM, PLOT_LEFT - 4, PLOT_TOP + 4, top);
    for (size_t i = 0; i < nbars; i++) {
        size_t c;
        double x = PLOT_LEFT + ((double)i + (i >= zbar ? gap : 0.0)) * bw;
        char what[64];
        if (zbar && i == 0) {
            c = e->zeros;
            snprintf(what, sizeof what, "exactly 0");
            pc_hb_fmt(b,
                      "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">0</text>",
                      x + bw / 2, PLOT_BOTTOM + 15);
        } else if (nbar && i == nbars - 1) {
            c = e->nonfinite;
            snprintf(what, sizeof what, "nan or inf");
            pc_hb_fmt(
                b, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">nan</text>",
                x + bw / 2, PLOT_BOTTOM + 15);
        } else {
            int k = lo + (int)(i - zbar);
            c = e->bins[k];
            double e0 = (double)PLOT_ERR_LO + (double)k / PLOT_ERR_PER_DECADE;
            snprintf(what, sizeof what, "from 1e%.2f to 1e%.2f", e0,
                     e0 + 1.0 / PLOT_ERR_PER_DECADE);
            if (k % PLOT_ERR_PER_DECADE == 0)
                pc_hb_fmt(b,
                          "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                          "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" "
                          "text-anchor=\"middle\">1e%d</text>",
                          x, PLOT_BOTTOM, x, PLOT_BOTTOM + 4, x, PLOT_BOTTOM + 15,
                          PLOT_ERR_LO + k / PLOT_ERR_PER_DECADE);
        }
        if (!c)
            continue;
        double h = (PLOT_BOTTOM - PLOT_TOP) * (double)c / (double)top;
        pc_hb_fmt(b,
                  "<rect class=\"%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\">"
                  "<title>%zu element%s with |error| %s</title></rect>",
                  nbar && i == nbars - 1 ? "f-error" : "f-data", x + 0.5, PLOT_BOTTOM - h, bw - 1,
                  h, c, c == 1 ? "" : "s", what);
    }
    if (isfinite(e->atol) && e->atol > 0) {
        double pos = (log10(e->atol) - PLOT_ERR_LO) * PLOT_ERR_PER_DECADE - lo + (double)zbar + gap;
        if (pos >= (double)zbar + gap && pos <= (double)(nbars - nbar) + gap) {
            double x = PLOT_LEFT + pos * bw;
            pc_hb_fmt(b,
                      "<line class=\"limit\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                      "<text class=\"limit-text\" x=\"%.1f\" y=\"%.1f\">max abs error %g</text>",
                      x, PLOT_TOP - 6, x, PLOT_BOTTOM, x + 3, PLOT_TOP + 2, e->atol);
        }
    }
    pc_hb_fmt(b,
              "<text class=\"axis-label\" x=\"%.1f\" y=\"162\" text-anchor=\"middle\">|device - "
              "bench| per element (log scale), %zu elements</text></svg>",
              (PLOT_LEFT + PLOT_RIGHT) / 2, e->n);
}

#define SC_LEFT   50.0
#define SC_RIGHT  410.0
#define SC_TOP    12.0
#define SC_BOTTOM 262.0

void pc_plot_error_scatter(html_buf *b, const plot_errors *e)
{
    /* axis ranges over the sample's non-zero finite values, whole decades */
    double xlo = HUGE_VAL, xhi = -HUGE_VAL, ylo = HUGE_VAL, yhi = -HUGE_VAL;
    for (size_t i = 0; i < e->n_sample; i++) {
        double x = (double)e->bench_abs[i], y = (double)e->err_abs[i];
        if (isfinite(x) && x > 0) {
            xlo = fmin(xlo, log10(x));
            xhi = fmax(xhi, log10(x));
        }
        if (isfinite(y) && y > 0) {
            ylo = fmin(ylo, log10(y));
            yhi = fmax(yhi, log10(y));
        }
    }
    if (!isfinite(xlo))
        xlo = -1, xhi = 1;
    if (!isfinite(ylo))
        ylo = -8, yhi = -1;
    xlo = floor(xlo);
    xhi = ceil(xhi) > xlo ? ceil(xhi) : xlo + 1;
    ylo = floor(ylo) - 1; /* a row below for exact zeros */
    yhi = ceil(yhi) > ylo + 1 ? ceil(yhi) : ylo + 2;
    double sx = (SC_RIGHT - SC_LEFT) / (xhi - xlo), sy = (SC_BOTTOM - SC_TOP) / (yhi - ylo);
    pc_hb_raw(b, "<div><svg class=\"ed-svg sc\" viewBox=\"0 0 420 300\" role=\"img\" "
                 "aria-label=\"|error| against |bench|\">");
    pc_hb_fmt(b, "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>",
              SC_LEFT, SC_TOP, SC_RIGHT - SC_LEFT, SC_BOTTOM - SC_TOP);
    for (double d = xlo; d <= xhi + 1e-9; d += 1)
        pc_hb_fmt(b,
                  "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                  "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">1e%.0f</text>",
                  SC_LEFT + (d - xlo) * sx, SC_TOP, SC_LEFT + (d - xlo) * sx, SC_BOTTOM,
                  SC_LEFT + (d - xlo) * sx, SC_BOTTOM + 13, d);
    for (double d = ylo + 1; d <= yhi + 1e-9; d += 1)
        pc_hb_fmt(b,
                  "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                  "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">1e%.0f</text>",
                  SC_LEFT, SC_BOTTOM - (d - ylo) * sy, SC_RIGHT, SC_BOTTOM - (d - ylo) * sy,
                  SC_LEFT - 3, SC_BOTTOM - (d - ylo) * sy + 3, d);
    pc_hb_fmt(b, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">0</text>",
              SC_LEFT - 3, SC_BOTTOM - 0.5 * sy + 3);
    /* the limits: |error| = rtol |bench| (slope 1), |error| = atol */
    for (int r = 0; r < 2; r++) {
        if (!isfinite(e->rtol[r]))
            continue;
        /* log|error| = log|bench| + c, cut to the frame (above the row of zeros) */
        double c = log10(e->rtol[r]);
        double x0 = fmax(xlo, ylo + 1 - c), x1 = fmin(xhi, yhi - c);
        if (x0 >= x1)
            continue;
        /* named in the legend under the plot: two parallel lines' labels would collide */
        pc_hb_fmt(b,
                  "<line class=\"limit%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\">"
                  "<title>relative %g</title></line>",
                  r ? " limit2" : "", SC_LEFT + (x0 - xlo) * sx, SC_BOTTOM - (x0 + c - ylo) * sy,
                  SC_LEFT + (x1 - xlo) * sx, SC_BOTTOM - (x1 + c - ylo) * sy, e->rtol[r]);
    }
    if (isfinite(e->atol) && e->atol > 0 && log10(e->atol) >= ylo && log10(e->atol) <= yhi)
        pc_hb_fmt(b,
                  "<line class=\"limit abs\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                  "<text class=\"limit-text\" x=\"%.1f\" y=\"%.1f\">absolute %g</text>",
                  SC_LEFT, SC_BOTTOM - (log10(e->atol) - ylo) * sy, SC_RIGHT,
                  SC_BOTTOM - (log10(e->atol) - ylo) * sy, SC_LEFT + 4,
                  SC_BOTTOM - (log10(e->atol) - ylo) * sy - 3, e->atol);
    pc_hb_raw(b, "<g class=\"pts\">");
    for (size_t i = 0; i < e->n_sample; i++) {
        double bx = (double)e->bench_abs[i], ey = (double)e->err_abs[i];
        if (!isfinite(bx) || !isfinite(ey))
            continue;
        double x = bx > 0 ? log10(bx) : xlo, y = ey > 0 ? log10(ey) : ylo + 0.5;
        x = fmin(fmax(x, xlo), xhi);
        y = fmin(fmax(y, ylo), yhi);
        const char *cls = "p-ok";
        bool past_abs = !(isfinite(e->atol) && ey < e->atol);
        if (past_abs && isfinite(e->rtol[1]) && ey > e->rtol[1] * bx)
            cls = "p-err";
        else if (past_abs && isfinite(e->rtol[0]) && ey > e->rtol[0] * bx)
            cls = "p-warn";
        if (ey == 0)
            cls = "p-zero";
        pc_hb_fmt(b, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"1.6\"/>", cls,
                  SC_LEFT + (x - xlo) * sx, SC_BOTTOM - (y - ylo) * sy);
    }
    pc_hb_fmt(b,
              "</g><text class=\"axis-label\" x=\"%.1f\" y=\"293\" text-anchor=\"middle\">|bench| "
              "(log scale); %zu elements shown</text>"
              "<text class=\"axis-label\" x=\"12\" y=\"%.1f\" text-anchor=\"middle\" "
              "transform=\"rotate(-90 12 %.1f)\">|error|</text></svg>",
              (SC_LEFT + SC_RIGHT) / 2, e->n_sample, (SC_TOP + SC_BOTTOM) / 2,
              (SC_TOP + SC_BOTTOM) / 2);
    /* the legend of the limit lines */
    pc_hb_raw(b, "<p class=\"plot-note sc-legend\">");
    for (int r = 0; r < 2; r++)
        if (isfinite(e->rtol[r]))
            pc_hb_fmt(b,
                      "<span class=\"lg\"><span class=\"ln ln-%s\"></span>relative %g: %s</span>",
                      r ? "err" : "warn", e->rtol[r], r ? "error above it" : "Warning above it");
    if (isfinite(e->atol) && e->atol > 0)
        pc_hb_fmt(b, "<span class=\"lg\"><span class=\"ln ln-abs\"></span>absolute %g</span>",
                  e->atol);
    pc_hb_raw(b, "</p></div>");
}
