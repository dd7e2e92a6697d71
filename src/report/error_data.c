/*
 * The -save_error_data tensors, drawn: for each output of a failing API whose bench and device
 * tensors run_ut saved (<API>.<forward|backward>.output.<bench|device>.<k>.pt,
 * docs/msprobe-contract.md#formats), a histogram of |device - bench| over every element and |error|
 * against |bench| on a sample, with the limits of msprobe's status rule drawn. Tensors are read in
 * chunks, so a large output costs a few chunks of memory, not a copy in double.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/core/convert.h"
#include "precheck/core/dtype.h"
#include "precheck/core/tensor.h"
#include "precheck/core/log.h"
#include "precheck/io/path_check.h"
#include "precheck/io/pt.h"
#include "report_impl.h"

#define SAMPLE_MAX    500
#define CHUNK         65536
#define OUTPUTS_SHOWN 3

/* Only names msprobe allows (letters, digits, _ . -) become file names: a crafted name never
 * leaves the error-data folder. */
static bool safe_name(const char *s)
{
    if (!*s || *s == '.')
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '.' || *s == '-'))
            return false;
    return true;
}

/* A small deterministic generator for the sample's jitter. */
static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

typedef struct pair_stats {
    plot_errors e;
    double max_err, max_bench, max_device;
    int64_t max_at; /* flat index of the largest |error|, -1 none */
} pair_stats;

/* Reads both tensors (same shape) chunk by chunk into the histogram and the sample. */
static pc_status measure(const pc_tensor *bench, const pc_tensor *device, pair_stats *p)
{
    int64_t n = pc_tensor_numel(bench);
    pc_tensor bc = PC_TENSOR_NULL, dc = PC_TENSOR_NULL;
    double *bb = malloc(CHUNK * sizeof *bb), *dd = malloc(CHUNK * sizeof *dd);
    size_t want = n > SAMPLE_MAX ? SAMPLE_MAX : (size_t)n;
    p->e.bench_abs = malloc((want ? want : 1) * sizeof *p->e.bench_abs);
    p->e.err_abs = malloc((want ? want : 1) * sizeof *p->e.err_abs);
    pc_status st = bb && dd && p->e.bench_abs && p->e.err_abs
                       ? PC_OK
                       : pc_error_set(PC_ERR_NOMEM, "out of memory");
    if (st == PC_OK)
        st = pc_tensor_contiguous(&bc, bench);
    if (st == PC_OK)
        st = pc_tensor_contiguous(&dc, device);
    p->e.n = (size_t)n;
    p->max_at = -1;
    p->max_err = -1;
    size_t bsize = pc_dtype_traits_of(bench->dtype)->size;
    size_t dsize = pc_dtype_traits_of(device->dtype)->size;
    /* the sample: element j*n/want plus a jitter inside its stride, in increasing order */
    size_t next = 0;
    int64_t stride = want ? n / (int64_t)want : 0;
    int64_t pick = want ? (int64_t)(mix(0) % (uint64_t)(stride ? stride : 1)) : -1;
    for (int64_t at = 0; st == PC_OK && at < n; at += CHUNK) {
        size_t len = (size_t)(n - at < CHUNK ? n - at : CHUNK);
        st = pc_convert_buffer(bb, PC_DTYPE_F64,
                               (const char *)pc_tensor_data(&bc) + (size_t)at * bsize, bc.dtype,
                               len);
        if (st == PC_OK)
            st = pc_convert_buffer(dd, PC_DTYPE_F64,
                                   (const char *)pc_tensor_data(&dc) + (size_t)at * dsize, dc.dtype,
                                   len);
        for (size_t i = 0; st == PC_OK && i < len; i++) {
            double err = fabs(dd[i] - bb[i]);
            if (!isfinite(err) || !isfinite(bb[i]) || !isfinite(dd[i]))
                p->e.nonfinite++;
            else if (err == 0)
                p->e.zeros++;
            else {
                int k = (int)floor((log10(err) - PLOT_ERR_LO) * PLOT_ERR_PER_DECADE);
                p->e.bins[k < 0 ? 0 : k > 79 ? 79 : k]++;
            }
            if (isfinite(err) && err > p->max_err) {
                p->max_err = err;
                p->max_at = at + (int64_t)i;
                p->max_bench = bb[i];
                p->max_device = dd[i];
            }
            if (at + (int64_t)i == pick && next < want) {
                p->e.bench_abs[next] = (float)fabs(bb[i]);
                p->e.err_abs[next] = (float)err;
                next++;
                pick = next < want ? (int64_t)next * stride +
                                         (int64_t)(mix(next) % (uint64_t)(stride ? stride : 1))
                                   : -1;
            }
        }
    }
    p->e.n_sample = next;
    pc_tensor_free(&bc);
    pc_tensor_free(&dc);
    free(bb);
    free(dd);
    return st;
}

static void index_text(char *buf, size_t size, const pc_tensor *t, int64_t flat)
{
    int64_t idx[PC_TENSOR_MAX_DIMS];
    for (int d = t->rank - 1; d >= 0; d--) {
        idx[d] = t->shape[d] ? flat % t->shape[d] : 0;
        flat = t->shape[d] ? flat / t->shape[d] : 0;
    }
    size_t used = (size_t)snprintf(buf, size, "[");
    for (int d = 0; d < t->rank && used < size; d++)
        used +=
            (size_t)snprintf(buf + used, size - used, "%s%lld", d ? ", " : "", (long long)idx[d]);
    if (used < size)
        snprintf(buf + used, size - used, "]");
}

/* One output: returns true when it wrote something (the plots, or why there are none); false
 * when the tensors were not saved. */
static bool draw_pair(html_buf *b, const rep_model *m, const rep_api *a, const rep_row *r)
{
    const char *dir = r->backward ? "backward" : "forward";
    size_t n = strlen(m->error_dir) + strlen(a->name) + 64;
    char *bp = malloc(n), *dp = malloc(n);
    if (!bp || !dp) {
        free(bp);
        free(dp);
        b->err = PC_STRBUF_NOMEM;
        return false;
    }
    snprintf(bp, n, "%s/%s.%s.output.bench.%d.pt", m->error_dir, a->name, dir, r->output);
    snprintf(dp, n, "%s/%s.%s.output.device.%d.pt", m->error_dir, a->name, dir, r->output);
    pc_tensor bt = PC_TENSOR_NULL, dt = PC_TENSOR_NULL;
    bool drawn = false;
    /* run_ut's link rule: a tensor file that is a soft link is not read (it could be any file) */
    pc_status st = pc_path_check_not_link(bp);
    if (st == PC_OK)
        st = pc_path_check_not_link(dp);
    if (st != PC_OK)
        pc_log_warning("%s; the report skips it.", pc_error_message());
    if (st == PC_OK)
        st = pc_pt_read_file(bp, &bt, NULL);
    if (st == PC_OK)
        st = pc_pt_read_file(dp, &dt, NULL);
    if (st == PC_ERR_NOT_FOUND) {
        goto out; /* not saved: nothing to say */
    }
    pc_hb_fmt(b, "<div class=\"ed-pair\"><h4>%s output %d ", dir, r->output);
    pc_hb_raw(b, "<span class=\"v v-");
    pc_hb_raw(b, pc_rep_verdict_token(r->status));
    pc_hb_raw(b, "\">");
    pc_hb_text(b, r->status_text);
    pc_hb_raw(b, "</span></h4>");
    if (st != PC_OK) {
        pc_hb_raw(b, "<p class=\"problem\">The tensors could not be read: ");
        pc_hb_text(b, pc_error_message());
        pc_hb_raw(b, "</p></div>");
        drawn = true;
        goto out;
    }
    if (!pc_tensor_same_shape(&bt, &dt) || pc_dtype_is_complex(bt.dtype) ||
        pc_dtype_is_complex(dt.dtype)) {
        char s0[PC_SHAPE_TEXT_MAX], s1[PC_SHAPE_TEXT_MAX];
        pc_shape_format(s0, sizeof s0, bt.shape, bt.rank);
        pc_shape_format(s1, sizeof s1, dt.shape, dt.rank);
        pc_hb_raw(b, "<p class=\"problem\">Not drawn: bench ");
        pc_hb_text(b, pc_dtype_traits_of(bt.dtype)->torch_name);
        pc_hb_raw(b, " ");
        pc_hb_text(b, s0);
        pc_hb_raw(b, ", device ");
        pc_hb_text(b, pc_dtype_traits_of(dt.dtype)->torch_name);
        pc_hb_raw(b, " ");
        pc_hb_text(b, s1);
        pc_hb_raw(b,
                  pc_tensor_same_shape(&bt, &dt) ? " (complex values)." : " (the shapes differ).");
        pc_hb_raw(b, "</p></div>");
        drawn = true;
        goto out;
    }
    pair_stats p;
    memset(&p, 0, sizeof p);
    bool half = dt.dtype == PC_DTYPE_F16 || dt.dtype == PC_DTYPE_BF16;
    p.e.rtol[0] = half ? 0.001 : 0.0001; /* the Warning share's relative limit */
    p.e.rtol[1] = half ? 0.01 : 0.001;   /* the error share's */
    p.e.atol = 0.001;                    /* max abs error below it: pass */
    if (pc_dtype_is_integral(dt.dtype))
        p.e.rtol[0] = p.e.rtol[1] = p.e.atol = (double)NAN;
    st = measure(&bt, &dt, &p);
    if (st != PC_OK) {
        pc_hb_raw(b, "<p class=\"problem\">");
        pc_hb_text(b, pc_error_message());
        pc_hb_raw(b, "</p></div>");
        drawn = true;
    } else {
        char shape[PC_SHAPE_TEXT_MAX], at[256];
        pc_shape_format(shape, sizeof shape, dt.shape, dt.rank);
        pc_hb_raw(b, "<p class=\"ed-facts\">bench ");
        pc_hb_text(b, pc_dtype_traits_of(bt.dtype)->torch_name);
        pc_hb_raw(b, ", device ");
        pc_hb_text(b, pc_dtype_traits_of(dt.dtype)->torch_name);
        pc_hb_raw(b, ", shape ");
        pc_hb_text(b, shape);
        pc_hb_fmt(b, "; %zu elements, %zu equal, %zu not finite", p.e.n, p.e.zeros, p.e.nonfinite);
        if (p.max_at >= 0) {
            index_text(at, sizeof at, &dt, p.max_at);
            pc_hb_fmt(b, "; the largest |error| %.6g at ", p.max_err);
            pc_hb_text(b, at);
            pc_hb_fmt(b, " (bench %.8g, device %.8g)", p.max_bench, p.max_device);
        }
        pc_hb_raw(b, ".</p><div class=\"ed-plots\">");
        pc_plot_error_histogram(b, &p.e);
        pc_plot_error_scatter(b, &p.e);
        pc_hb_raw(b, "</div></div>");
        drawn = true;
    }
    free(p.e.bench_abs);
    free(p.e.err_abs);
out:
    pc_tensor_free(&bt);
    pc_tensor_free(&dt);
    free(bp);
    free(dp);
    return drawn;
}

size_t pc_rep_error_data_section(html_buf *b, const rep_model *m, const size_t *order,
                                 size_t max_apis)
{
    size_t done = 0, failing = 0;
    for (size_t i = 0; i < m->n_apis; i++) {
        const rep_api *a = &m->apis[order[i]];
        if (a->worst < 0 || pc_rep_verdict_severity(a->rows[a->worst].status) < 2)
            continue;
        failing++;
        if (done >= max_apis || !safe_name(a->name))
            continue;
        bool opened = false;
        size_t shown = 0;
        for (size_t k = 0; k < a->n_rows && shown < OUTPUTS_SHOWN; k++) {
            const rep_row *r = &a->rows[k];
            if (pc_rep_verdict_severity(r->status) < 2 || r->output < 0)
                continue;
            size_t mark = b->len;
            if (!opened) {
                pc_hb_raw(b, "<section class=\"ed\"><h3>");
                pc_hb_text(b, a->name);
                pc_hb_raw(b, "</h3>");
            }
            if (draw_pair(b, m, a, r)) {
                opened = true;
                shown++;
            } else if (!opened) {
                pc_strbuf_truncate(b, mark); /* nothing for this output: take the heading back */
            }
        }
        if (opened) {
            pc_hb_raw(b, "</section>");
            done++;
        }
    }
    if (failing > done && done == max_apis)
        pc_hb_fmt(b,
                  "<p class=\"muted\">%zu failing APIs; the %zu worst are drawn (precheck report "
                  "--max-plots N draws more).</p>",
                  failing, done);
    return done;
}
