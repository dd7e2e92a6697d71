/*
 * The page's metric plots: for each metric that decides run_ut's Status, each precision
 * standard's key metric on one side, and each api_precision_compare ratio per standard, the
 * distribution of the APIs' worst values against the limit (html_plot.c draws them).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_impl.h"
#include "tally.h"

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
    bool high = pc_tally_higher_is_better((int)metric);
    s->n = 0;
    for (size_t i = 0; i < m->n_apis; i++) {
        const rep_api *a = &m->apis[i];
        bool any = false;
        double worst = 0;
        for (size_t k = 0; k < a->n_rows; k++) {
            double v;
            if (half >= 0 && is_half(a->rows[k].dtype) != (half == 1))
                continue;
            if (!pc_rep_number(a->rows[k].cell[metric], &v))
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
                !pc_rep_number(a->crows[k].cell[col], &v))
                continue;
            if (!any || isnan(v) || (!isnan(worst) && (high ? v < worst : v > worst)))
                worst = v;
            any = true;
        }
        if (any) {
            s->v[s->n] = worst;
            s->limit[s->n] = isnan(worst) ? (double)NAN : limit_value;
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
    plot_metric spec = {
        title, column, high, {limit, (double)NAN, (double)NAN}, {limit_label, NULL, NULL}, note};
    pc_plot_metric_histogram(b, &spec, s->v, s->limit, s->label, s->n);
}

void pc_html_metrics_section(html_buf *b, const rep_model *m)
{
    series s;
    if (!series_init(&s, m->n_apis)) {
        b->err = PC_STRBUF_NOMEM;
        return;
    }
    pc_hb_raw(b, "<section class=\"card\" id=\"plots\"><h2>Error metrics across APIs</h2>"
                 "<p class=\"muted\">One mark per API: its worst value over its outputs. Bars "
                 "beyond the dashed limit are red; hover a bar for its APIs.</p>");
    if (m->details_csv) {
        pc_hb_raw(b, "<h3>What decided run_ut's Status (msprobe's rule)</h3><div class=\"plots\">");
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
        pc_hb_raw(b,
                  "</div><h3>Precision standards, this side alone</h3><p class=\"muted\">The "
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
                                            {0.001, 0.05, (double)NAN},
                                            {"0.001 (fp16, bf16)", "0.05 (fp32)", NULL},
                                            "ULP误差比对法 (matmul, linear, ...): float32 also "
                                            "passes with a mean ULP error below 64, any dtype "
                                            "with a share below the GPU's."};
                        pc_plot_metric_histogram(b, &spec, h.v, h.limit, h.label, h.n);
                    }
                    series_free(&f);
                }
                series_free(&h);
            }
        }
        pc_hb_raw(b, "</div>");
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
        pc_hb_raw(b, "<h3>NPU against GPU, per standard (api_precision_compare)</h3>");
        for (size_t i = 0; i < sizeof cplots / sizeof cplots[0]; i++) {
            compare_series(m, &s, cplots[i].col, cplots[i].algorithm, cplots[i].high,
                           cplots[i].limit);
            if (!s.n)
                continue;
            if (!last || strcmp(last, cplots[i].algorithm) != 0) {
                if (last)
                    pc_hb_raw(b, "</div>");
                pc_hb_raw(b, "<h4>");
                pc_hb_text(b, cplots[i].algorithm);
                pc_hb_raw(b, "</h4><div class=\"plots\">");
                last = cplots[i].algorithm;
            }
            histogram_of(b, &s, cplots[i].title, h[cplots[i].col], cplots[i].high, cplots[i].limit,
                         cplots[i].limit_label, cplots[i].note);
        }
        if (last)
            pc_hb_raw(b, "</div>");
    }
    pc_hb_raw(b, "</section>");
    series_free(&s);
}
