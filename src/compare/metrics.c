/*
 * pc_metrics_compute: the plan (docs/metrics.md) for one pair, the chunk driver (threads over
 * fixed chunks, merged in chunk order inside an OpenMP ordered section), and the final cells.
 */
#include <float.h>
#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metrics_impl.h"
#include "precheck/core/convert.h"
#include "precheck/io/msprobe_csv.h"

/* Every product and sum is rounded on its own, as numpy does; GCC never fuses a*b+c in ISO C
 * mode, clang would (and its AVX-512 target has FMA). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* msprobe's column of each metric: the details CSV's columns from 余弦相似度 on, in the order of
 * pc_metric (io/msprobe_csv.h). */
_Static_assert(PC_MCSV_DET_COSINE + PC_METRIC_COUNT == PC_MCSV_DET_STATUS,
               "one details column per metric");
_Static_assert(PC_MCSV_DET_COSINE + PC_METRIC_ULP_ERR_PROPORTION == PC_MCSV_DET_ULP_PROP &&
                   PC_MCSV_DET_COSINE + PC_METRIC_SMALL_VALUE_ERR_RATIO == PC_MCSV_DET_SMALL_VALUE,
               "the metrics in the details CSV's order");

/* The same columns in English, for people (summaries, the report, docs/glossary.md). */
static const char *const metric_names[PC_METRIC_COUNT] = {
    [PC_METRIC_COSINE] = "cosine similarity",
    [PC_METRIC_MAX_ABS_ERR] = "max absolute error",
    [PC_METRIC_REL_ERR_HUNDREDTH] = "share of relative errors within 1%",
    [PC_METRIC_REL_ERR_THOUSANDTH] = "share of relative errors within 0.1%",
    [PC_METRIC_REL_ERR_TEN_THOUSANDTH] = "share of relative errors within 0.01%",
    [PC_METRIC_ERROR_RATE] = "binary mismatch rate",
    [PC_METRIC_EB] = "error balance",
    [PC_METRIC_RMSE] = "root mean square error",
    [PC_METRIC_SMALL_VALUE_ERR_RATIO] = "small-value error ratio",
    [PC_METRIC_MAX_REL_ERR] = "max relative error",
    [PC_METRIC_MEAN_REL_ERR] = "mean relative error",
    [PC_METRIC_INF_NAN_ERR_RATIO] = "inf/nan mismatch rate",
    [PC_METRIC_REL_ERR_RATIO] = "relative error rate",
    [PC_METRIC_ABS_ERR_RATIO] = "absolute error rate",
    [PC_METRIC_ULP_ERR_MAX] = "max ULP error",
    [PC_METRIC_ULP_ERR_MEAN] = "mean ULP error",
    [PC_METRIC_ULP_ERR_PROPORTION] = "share of ULP errors above the threshold",
};
_Static_assert(sizeof metric_names / sizeof metric_names[0] == PC_METRIC_COUNT,
               "one English name per metric");

const char *pc_metric_column(pc_metric m)
{
    return (unsigned)m < PC_METRIC_COUNT
               ? pc_mcsv_column(PC_MCSV_DETAILS, PC_MCSV_DET_COSINE + (size_t)m)
               : "";
}

const char *pc_metric_name(pc_metric m)
{
    return (unsigned)m < PC_METRIC_COUNT ? metric_names[m] : "";
}

_Static_assert(PC_METRICS_CHUNK == NP_BLOCK, "chunks are numpy's blocks");

/* msprobe's CompareConst.BFLOAT16_MAX: the largest bfloat16, used to clip bfloat16 outputs. */
#define BFLOAT16_MAX 3.3895313892515355e+38

static bool np_type_of(pc_dtype storage, np_type *out)
{
    switch (storage) {
    case PC_DTYPE_F16:
        *out = NP_F16;
        return true;
    case PC_DTYPE_BF16: /* msprobe converts bfloat16 outputs to float32 before numpy */
    case PC_DTYPE_F32:
        *out = NP_F32;
        return true;
    case PC_DTYPE_F64:
        *out = NP_F64;
        return true;
    default:
        return false;
    }
}

static double np_eps(np_type t)
{
    return t == NP_F16 ? 0x1p-10 : t == NP_F32 ? 0x1p-23 : 0x1p-52;
}

static double np_max_finite(np_type t)
{
    return t == NP_F16 ? 65504.0 : t == NP_F32 ? (double)FLT_MAX : DBL_MAX;
}

double pc_cmp_load_value(const void *data, pc_dtype dtype, int64_t i)
{
    switch (dtype) {
    case PC_DTYPE_F16:
        return (double)pc_f16_to_f32(((const uint16_t *)data)[i]);
    case PC_DTYPE_BF16:
        return (double)pc_bf16_to_f32(((const uint16_t *)data)[i]);
    case PC_DTYPE_F32:
        return (double)((const float *)data)[i];
    case PC_DTYPE_F64:
        return ((const double *)data)[i];
    default:
        return (double)NAN;
    }
}

void pc_cmp_chunk_acc_init(chunk_acc *a)
{
    memset(a, 0, sizeof *a);
    a->max_ae = a->max_ad = a->max_ab = a->max_relb = a->max_ulp = -HUGE_VAL;
}

double pc_np_floor_log2(np_type t, double x)
{
    double l = log2(x);
    if (t == NP_F32)
        l = (double)(float)l; /* numpy's float32 log2 */
    else if (t == NP_F16)
        l = np_round(NP_F16, (double)(float)l); /* float16 log2 goes through float32 */
    return floor(l);
}

bool pc_cmp_inf_nan_pass(const metrics_plan *p, double b, double d, double bc, double abe)
{
    double gc = bc, dc = d; /* np.clip keeps NaN */
    if (gc < p->clip_lo)
        gc = p->clip_lo;
    else if (gc > p->clip_hi)
        gc = p->clip_hi;
    if (dc < p->clip_lo)
        dc = p->clip_lo;
    else if (dc > p->clip_hi)
        dc = p->clip_hi;
    double ae = fabs(np_round(p->t_clip, dc - gc));
    double re = np_round(p->t_re, ae / abe);
    (void)b;
    return re <= p->c_rtol_re || (isnan(d) && isnan(gc));
}

double pc_cmp_ulp_fp8(double b, double d)
{
    double ex = log2(fabs(b) + 0x1p-1000);
    if (ex < -22)
        ex = -22;
    double e = floor(ex);
    double ae = fabs(e);
    int w = ae <= 3 ? 3 : ae <= 7 ? 2 : ae <= 15 ? 1 : 0;
    if (w >= 1)
        return (d - b) * exp2((double)w - e);
    double sd = d >= 0 ? 1.0 : -1.0, sb = b >= 0 ? 1.0 : -1.0;
    return sd * log2(fabs(d) + 0x1p-1000) - sb * ex;
}

/* ---- the plan ---- */

static pc_status plan_init(metrics_plan *p, const pc_metrics_input *in)
{
    memset(p, 0, sizeof *p);
    if (!in || !in->bench || !in->device || in->n < 1)
        return pc_error_set(PC_ERR_INVALID, "metrics: no data to compare");
    if (!np_type_of(in->bench_dtype, &p->tb) || in->bench_dtype == PC_DTYPE_BF16)
        return pc_error_set(PC_ERR_INVALID, "metrics: bench arrays of %s are not supported",
                            pc_dtype_name(in->bench_dtype));
    if (!np_type_of(in->device_dtype, &p->td))
        return pc_error_set(PC_ERR_INVALID, "metrics: device arrays of %s are not supported",
                            pc_dtype_name(in->device_dtype));
    if (!pc_dtype_is_float(in->output_dtype))
        return pc_error_set(PC_ERR_INVALID, "metrics: output dtype %s is not a float type",
                            pc_dtype_name(in->output_dtype));
    pc_dtype D = in->output_dtype;
    const pc_msprobe_thresholds *th = pc_dtype_traits_of(D)->thresholds;
    bool zd = in->zero_dim;
    p->n = in->n;
    p->output_dtype = D;
    p->standard = in->standard;
    p->zero_dim = zd;
    p->tp = np_promote(p->tb, p->td);

    /* eps is numpy's finfo(bench).eps, a numpy scalar, except bfloat16's 2^-8, a Python float:
     * with a 0-d bench, |b| + 2^-8 is then a float64 (value-based promotion of scalars). */
    bool eps_is_python = th->bench_eps_override != 0;
    p->eps = eps_is_python ? th->bench_eps_override : np_eps(p->tb);
    p->t_abe = zd && eps_is_python ? NP_F64 : p->tb;
    p->t_rel = np_promote(p->tp, p->t_abe);
    p->t_relb = zd ? NP_F64 : p->t_rel;
    p->t_e = zd ? NP_F64 : p->tp;
    p->t_clip = zd && D == PC_DTYPE_BF16 ? NP_F64 : p->td;
    p->t_re = np_promote(p->t_clip, p->t_abe);
    p->t_ulp = D == PC_DTYPE_F32 ? NP_F64 : NP_F32;
    p->t_ulp_e = zd ? NP_F64 : p->tb;

/* A Python float compared with an array is rounded to the array's type; with a numpy scalar
 * (0-d outputs) the comparison is done in float64. */
#define CONST_IN(t, x) (zd ? (x) : np_round((t), (x)))
    static const double ratio_thresholds[3] = {0.01, 0.001, 0.0001};
    for (int k = 0; k < 3; k++)
        p->c_ratio[k] = CONST_IN(p->t_rel, ratio_thresholds[k]);

    double rtol = th->rtol;
    switch (in->standard) {
    case PC_STANDARD_BENCHMARK:
        p->groups = GROUP_BENCHMARK | GROUP_EB;
        break;
    case PC_STANDARD_ABSOLUTE:
        p->groups = GROUP_ABSOLUTE;
        break;
    case PC_STANDARD_ACCUMULATIVE:
        p->groups = GROUP_ABSOLUTE | GROUP_EB;
        rtol = th->accum_bound;
        break;
    case PC_STANDARD_ULP:
        p->groups = GROUP_ULP;
        break;
    case PC_STANDARD_BINARY:
        p->groups = GROUP_BINARY;
        break;
    case PC_STANDARD_THOUSANDTH:
    case PC_STANDARD_COUNT:
        p->groups = 0;
        break;
    default:
        return pc_error_set(PC_ERR_INVALID, "metrics: unknown standard %d", (int)in->standard);
    }
    p->c_small_b = CONST_IN(p->tb, th->small_value);
    p->c_atol_b = CONST_IN(p->tp, th->small_value_atol_bench);
    if (in->standard == PC_STANDARD_ACCUMULATIVE) {
        p->c_small_a = CONST_IN(p->tb, th->accum_small_value);
        p->c_atol_a = CONST_IN(p->tp, th->accum_bound);
    } else {
        p->c_small_a = CONST_IN(p->tb, th->small_value);
        p->c_atol_a = CONST_IN(p->tp, th->small_value_atol_abs);
    }
    p->c_rtol_rel = CONST_IN(p->t_rel, rtol);
    p->c_rtol_re = CONST_IN(p->t_re, rtol);
#undef CONST_IN
    p->td_max = np_max_finite(p->td);
    p->clip_hi = D == PC_DTYPE_BF16 ? BFLOAT16_MAX : p->td_max;
    p->clip_lo = -p->clip_hi;

    if (p->groups & GROUP_ULP) {
        if (D == PC_DTYPE_F8E4M3FN || D == PC_DTYPE_F8E5M2) {
            p->pc_cmp_ulp_fp8 = true;
            p->t_ulp = NP_F64;
            p->ulp_threshold = th->ulp_elem_threshold;
        } else if (th->has_ulp) {
            p->ulp_mantissa = th->ulp_mantissa_bits;
            p->ulp_min_exp = th->ulp_min_exp;
            p->ulp_threshold = th->ulp_elem_threshold;
        } else {
            return pc_error_set(PC_ERR_INVALID,
                                "metrics: the ULP standard has no parameters for %s",
                                pc_dtype_torch_name(D));
        }
    }
    return PC_OK;
}

/* ---- the driver ---- */

typedef struct totals {
    chunk_acc acc;  /* counts and maxima of all chunks */
    double s_sq;    /* numpy's running block sum of the squared errors */
    double s_ulp;   /* the same for the ULP errors */
    np_stream relb; /* the compacted relative errors */
} totals;

static double round_sum(np_type t, double x)
{
    return np_sum_type(t) == NP_F64 ? x : (double)(float)x;
}

static void merge_chunk(const metrics_plan *p, totals *t, const chunk_acc *a, const void *relb)
{
    chunk_acc *m = &t->acc;
    m->max_ae = max_nan(m->max_ae, a->max_ae);
    m->max_ad = max_nan(m->max_ad, a->max_ad);
    m->max_ab = max_nan(m->max_ab, a->max_ab);
    m->max_relb = max_nan(m->max_relb, a->max_relb);
    m->max_ulp = max_nan(m->max_ulp, a->max_ulp);
    m->dot_db += a->dot_db;
    m->dot_dd += a->dot_dd;
    m->dot_bb += a->dot_bb;
    for (int k = 0; k < 3; k++)
        m->lt[k] += a->lt[k];
    m->neq += a->neq;
    m->eb += a->eb;
    m->sm_b += a->sm_b;
    m->sm_err_b += a->sm_err_b;
    m->mask_b += a->mask_b;
    m->im += a->im;
    m->im_fail += a->im_fail;
    m->nm += a->nm;
    m->nm_err += a->nm_err;
    m->sm_a += a->sm_a;
    m->sm_err_a += a->sm_err_a;
    m->ulp_gt += a->ulp_gt;
    if (p->groups & GROUP_BENCHMARK) {
        t->s_sq = round_sum(p->t_e, t->s_sq + a->psum_sq);
        pc_np_stream_append(&t->relb, relb, a->n_relb);
    }
    if (p->groups & GROUP_ULP)
        t->s_ulp = round_sum(p->t_ulp, t->s_ulp + a->psum_ulp);
}

static void scratch_free(chunk_scratch *s, int count)
{
    if (!s)
        return;
    for (int i = 0; i < count; i++) {
        free(s[i].sq);
        free(s[i].ulp);
        free(s[i].dev);
        free(s[i].cast);
        free(s[i].half);
        free(s[i].flags);
    }
    free(s);
}

/* Elements of a chunk buffer for n elements: a chunk's, or fewer for a smaller tensor (rounded up
 * to whole 64-byte lines: no kernel reads past its chunk, but a buffer's size stays a multiple
 * of every vector width). Most compared tensors are small, and NP_BLOCK elements each time
 * took 221 kB a thread and 64 kB a slot of the ring: a process comparing many small tensors
 * under ASan, whose allocator hands out fresh pages while freed ones sit in its quarantine,
 * faulted them in again at every comparison. */
static size_t chunk_elems(int64_t n)
{
    return n < NP_BLOCK ? ((size_t)n + 63) / 64 * 64 : NP_BLOCK;
}

static chunk_scratch *scratch_alloc(int count, size_t elems)
{
    chunk_scratch *s = calloc((size_t)count, sizeof *s);
    if (!s)
        return NULL;
    for (int i = 0; i < count; i++) {
        s[i].sq = malloc(elems * sizeof(double));
        s[i].ulp = malloc(elems * sizeof(double));
        s[i].dev = malloc(elems * sizeof(float));
        s[i].cast = malloc(elems * sizeof(float));
        s[i].half = malloc(elems * sizeof(uint16_t));
        s[i].flags = malloc(elems);
        if (!s[i].sq || !s[i].ulp || !s[i].dev || !s[i].cast || !s[i].half || !s[i].flags) {
            scratch_free(s, count);
            return NULL;
        }
    }
    return s;
}

/* Slots per thread: how far the threads may run ahead of the in-order merge. */
enum { SLOTS_PER_THREAD = 8 };

typedef struct slot_ring {
    int64_t count;          /* slots */
    chunk_acc *accs;        /* per slot */
    void **relb;            /* per slot: the chunk's compacted relative errors, or NULL */
    _Atomic int64_t *ready; /* per slot: the chunk it holds, once computed; -1: free */
    _Atomic int64_t next;   /* the next chunk to merge */
    omp_lock_t merge_lock;  /* held by the thread merging */
} slot_ring;

/* Merges every computed chunk that is next in line, if no other thread is merging. */
static void merge_ready(const metrics_plan *p, totals *t, slot_ring *r)
{
    if (!omp_test_lock(&r->merge_lock))
        return;
    for (;;) {
        int64_t k = atomic_load_explicit(&r->next, memory_order_relaxed);
        int64_t slot = k % r->count;
        if (atomic_load_explicit(&r->ready[slot], memory_order_acquire) != k)
            break;
        merge_chunk(p, t, &r->accs[slot], r->relb ? r->relb[slot] : NULL);
        atomic_store_explicit(&r->ready[slot], -1, memory_order_relaxed);
        atomic_store_explicit(&r->next, k + 1, memory_order_release);
    }
    omp_unset_lock(&r->merge_lock);
}

/*
 * The chunks are handed out to the threads one by one; each is computed into a slot of a ring
 * and merged in chunk order by whichever thread finds it next in line (a thread that cannot
 * take the merge lock just goes on). A thread waits only when it is a whole ring ahead of the
 * merge, so one thread the system slows down holds the others up for a bounded time, and
 * nobody spins at a barrier. What a chunk computes does not depend on the thread computing
 * it, and the merge order is fixed: the result is the same for any number of threads.
 */
static pc_status run_chunks(const metrics_plan *p, const pc_metrics_input *in, chunk_fn fn,
                            totals *t)
{
    int64_t nchunks = (p->n + NP_BLOCK - 1) / NP_BLOCK;
    int threads = in->threads > 0 ? in->threads : omp_get_max_threads();
    if (threads < 1)
        threads = 1;
    if ((int64_t)threads > nchunks)
        threads = (int)nchunks;
    bool keep_relb = (p->groups & GROUP_BENCHMARK) != 0;

    slot_ring r = {.count = (int64_t)threads * SLOTS_PER_THREAD};
    if (r.count > nchunks)
        r.count = nchunks;
    size_t elems = chunk_elems(p->n);
    chunk_scratch *scratch = scratch_alloc(threads, elems);
    r.accs = calloc((size_t)r.count, sizeof *r.accs);
    r.ready = calloc((size_t)r.count, sizeof *r.ready);
    r.relb = keep_relb ? calloc((size_t)r.count, sizeof *r.relb) : NULL;
    bool ok = scratch && r.accs && r.ready && (!keep_relb || r.relb);
    for (int64_t k = 0; ok && keep_relb && k < r.count; k++)
        ok = (r.relb[k] = malloc(elems * sizeof(double))) != NULL;
    pc_status st = ok ? pc_np_stream_init(&t->relb, np_sum_type(p->t_relb))
                      : pc_error_set(PC_ERR_NOMEM, "metrics: cannot allocate chunk buffers");
    if (st == PC_OK) {
        pc_cmp_chunk_acc_init(&t->acc);
        t->s_sq = 0;
        t->s_ulp = 0;
        for (int64_t k = 0; k < r.count; k++)
            atomic_init(&r.ready[k], -1);
        atomic_init(&r.next, 0);
        omp_init_lock(&r.merge_lock);
#pragma omp parallel num_threads(threads) if (threads > 1)
        {
            chunk_scratch *s = &scratch[omp_get_thread_num()];
#pragma omp for schedule(dynamic, 1) nowait
            for (int64_t k = 0; k < nchunks; k++) {
                /* wait for the slot: chunk k - count must have been merged */
                while (k - atomic_load_explicit(&r.next, memory_order_acquire) >= r.count) {
                    merge_ready(p, t, &r);
                    if (k - atomic_load_explicit(&r.next, memory_order_acquire) >= r.count)
                        sched_yield();
                }
                int64_t slot = k % r.count;
                int64_t start = k * NP_BLOCK;
                int64_t len = p->n - start < NP_BLOCK ? p->n - start : NP_BLOCK;
                s->relb = keep_relb ? r.relb[slot] : NULL;
                pc_cmp_chunk_acc_init(&r.accs[slot]);
                fn(p, in, start, len, s, &r.accs[slot]);
                atomic_store_explicit(&r.ready[slot], k, memory_order_release);
                merge_ready(p, t, &r);
            }
        }
        /* every chunk is computed now; merge what is left */
        merge_ready(p, t, &r);
        omp_destroy_lock(&r.merge_lock);
    }
    for (int64_t k = 0; r.relb && k < r.count; k++)
        free(r.relb[k]);
    free(r.relb);
    free((void *)(uintptr_t)r.ready); /* (no thread uses the ring any more) */
    free(r.accs);
    scratch_free(scratch, threads);
    return st;
}

/* ---- the cells ---- */

static pc_csv_cell cell_of(np_type t, double x)
{
    switch (t) {
    case NP_F16:
        return pc_csv_f16(pc_f64_to_f16(x));
    case NP_F32:
        return pc_csv_f32((float)x);
    case NP_F64:
        break;
    }
    return pc_csv_f64(x);
}

static pc_csv_cell ratio_cell(int64_t num, int64_t den)
{
    return den == 0 ? pc_csv_int(0) : pc_csv_f64((double)num / (double)den);
}

/* numpy's mean from its block sum: the sum divided by the count in float64, then rounded back
 * to the array's type. */
static double np_mean(np_type t, double sum, int64_t count)
{
    return np_round(t, sum / (double)count);
}

/* The cosine exactly as numpy computes it when linked with the reference (netlib) BLAS: both
 * arrays divided by their maxima, then each dot product summed from left to right. A second,
 * single-threaded pass; used on request, and for float64 data whose squares would leave the
 * float64 range in the fused sums. */
static double cosine_sequential(const pc_metrics_input *in, double md, double mb)
{
    double sdb = 0, sdd = 0, sbb = 0;
    for (int64_t i = 0; i < in->n; i++) {
        double u = pc_cmp_load_value(in->device, in->device_dtype, i) / md;
        double v = pc_cmp_load_value(in->bench, in->bench_dtype, i) / mb;
        sdb += u * v;
        sdd += u * u;
        sbb += v * v;
    }
    return sdb / (sqrt(sdd) * sqrt(sbb));
}

static void finish_cosine(const pc_metrics_input *in, const chunk_acc *m, pc_metrics_result *out)
{
    out->cosine = pc_csv_space();
    if (in->n == 1) {
        out->cosine_pass = true;
        out->cosine_message =
            "All the data in device dump data is scalar. Please refer to other compare algorithms.";
        return;
    }
    double md = m->max_ad, mb = m->max_ab, e = DBL_EPSILON;
    if (md <= e && mb <= e) {
        out->cosine_pass = true;
        out->cosine_message = "All the data in device and bench outputs are zero.";
        return;
    }
    if (md <= e) {
        out->cosine_pass = false;
        out->cosine_message = "All the data is zero in device dump data.";
        return;
    }
    if (mb <= e) {
        out->cosine_pass = false;
        out->cosine_message = "All the data is zero in bench dump data.";
        return;
    }
    double cos;
    if (!isfinite(md) || !isfinite(mb))
        cos = (double)NAN; /* an inf or NaN anywhere makes numpy's scaled vectors hold NaN */
    else if (!in->cosine_blas_order && md >= 0x1p-400 && md <= 0x1p400 && mb >= 0x1p-400 &&
             mb <= 0x1p400)
        cos = m->dot_db / (sqrt(m->dot_dd) * sqrt(m->dot_bb));
    else
        cos = cosine_sequential(in, md, mb);
    out->cosine_message = "";
    if (isnan(cos))
        out->cosine_message = "Dump data has NaN when comparing with Cosine Similarity.";
    else if (cos < -1)
        cos = -1;
    else if (cos > 1)
        cos = 1;
    out->cosine = pc_csv_f64(cos);
    out->cosine_pass = cos > 0.99;
}

static void finish(const metrics_plan *p, const pc_metrics_input *in, totals *t,
                   pc_metrics_result *out)
{
    const chunk_acc *m = &t->acc;
    double n = (double)p->n;
    for (int i = 0; i < PC_METRIC_COUNT; i++)
        out->cells[i] = pc_csv_space();
    finish_cosine(in, m, out);
    out->max_abs_err = cell_of(p->tp, m->max_ae);
    out->max_abs_err_value = m->max_ae;
    for (int k = 0; k < 3; k++)
        out->rel_err_ratio[k] = (double)m->lt[k] / n;

    pc_csv_cell *c = out->cells;
    if (p->groups & GROUP_BENCHMARK) {
        c[PC_METRIC_SMALL_VALUE_ERR_RATIO] = ratio_cell(m->sm_err_b, m->sm_b);
        double mse = np_mean(p->t_e, t->s_sq, p->n);
        double factor = n / ((double)(p->n - m->mask_b) + 0.0001) + 0.0001;
        c[PC_METRIC_RMSE] = pc_csv_f64(sqrt(mse * factor));
        c[PC_METRIC_MAX_REL_ERR] =
            m->max_relb >= 0 ? cell_of(p->t_relb, m->max_relb) : pc_csv_int(0);
        int64_t count = t->relb.count;
        double sum = pc_np_stream_sum(&t->relb);
        c[PC_METRIC_MEAN_REL_ERR] =
            count > 0 ? cell_of(p->t_relb, np_mean(p->t_relb, sum, count)) : pc_csv_int(0);
    }
    if (p->groups & GROUP_EB)
        c[PC_METRIC_EB] = pc_csv_f64((double)(m->eb < 0 ? -m->eb : m->eb) / n);
    if (p->groups & GROUP_ABSOLUTE) {
        c[PC_METRIC_INF_NAN_ERR_RATIO] = ratio_cell(m->im_fail, m->im);
        c[PC_METRIC_REL_ERR_RATIO] = ratio_cell(m->nm_err, m->nm);
        c[PC_METRIC_ABS_ERR_RATIO] = ratio_cell(m->sm_err_a, m->sm_a);
    }
    if (p->groups & GROUP_ULP) {
        c[PC_METRIC_ULP_ERR_MAX] = cell_of(p->t_ulp, m->max_ulp);
        c[PC_METRIC_ULP_ERR_MEAN] = cell_of(p->t_ulp, np_mean(p->t_ulp, t->s_ulp, p->n));
        c[PC_METRIC_ULP_ERR_PROPORTION] = pc_csv_f64((double)m->ulp_gt / n);
    }
    if (p->groups & GROUP_BINARY)
        c[PC_METRIC_ERROR_RATE] = pc_csv_f64((double)m->neq / n);
    if (p->standard == PC_STANDARD_THOUSANDTH)
        c[PC_METRIC_REL_ERR_THOUSANDTH] = pc_csv_f64(out->rel_err_ratio[1]);
}

static pc_status compute_with(const pc_metrics_input *in, pc_metrics_result *out, bool fast)
{
    metrics_plan p;
    pc_status st = plan_init(&p, in);
    if (st != PC_OK)
        return st;
    chunk_fn fn = fast ? pc_cmp_fast_chunk_for(&p, in) : NULL;
    if (!fn)
        fn = pc_cmp_reference_chunk;
    totals t;
    st = run_chunks(&p, in, fn, &t);
    if (st != PC_OK)
        return st;
    finish(&p, in, &t, out);
    pc_np_stream_free(&t.relb);
    return PC_OK;
}

pc_status pc_metrics_compute(const pc_metrics_input *in, pc_metrics_result *out)
{
    return compute_with(in, out, true);
}

pc_status pc_metrics_compute_reference(const pc_metrics_input *in, pc_metrics_result *out)
{
    return compute_with(in, out, false);
}

bool pc_metrics_has_fast_kernel(const pc_metrics_input *in)
{
    metrics_plan p;
    if (plan_init(&p, in) != PC_OK) {
        pc_error_clear();
        return false;
    }
    return pc_cmp_fast_chunk_for(&p, in) != NULL;
}
