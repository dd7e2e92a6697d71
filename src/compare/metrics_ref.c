/*
 * The reference chunk function: every element on its own, every intermediate held in a double
 * and rounded to its numpy type (np_round) after each operation (docs/metrics.md). It handles every
 * dtype combination and the 0-d rules; it is also the oracle the fast kernels are tested against,
 * bit for bit.
 */
#include <math.h>

#include "metrics_impl.h"

/* Every product and sum is rounded on its own, as numpy does; GCC never fuses a*b+c in ISO C
 * mode, clang would (and its AVX-512 target has FMA). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

static void store_as(void *buf, np_type t, size_t i, double x)
{
    if (np_sum_type(t) == NP_F64)
        ((double *)buf)[i] = x;
    else
        ((float *)buf)[i] = (float)x;
}

static double pairwise_as(const void *buf, np_type t, size_t n)
{
    if (np_sum_type(t) == NP_F64)
        return pc_np_pairwise_f64(buf, n);
    return (double)pc_np_pairwise_f32(buf, n);
}

static double lanes_sum(const double l[8])
{
    return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
}

/* numpy's ULP error of one element for fp16 / bf16 / fp32 outputs. */
double pc_cmp_ulp_element(const metrics_plan *p, double b, double d)
{
    double ab = fabs(b);
    double e = ab == 0 ? 0 : pc_np_floor_log2(p->tb, ab);
    double min_e = (double)p->ulp_min_exp;
    if (!isnan(e) && e < min_e) /* np.maximum keeps NaN */
        e = min_e;
    e = np_round(p->t_ulp_e, e);
    double scale = np_round(p->t_ulp, np_round(p->t_ulp_e, exp2((double)p->ulp_mantissa - e)));
    double dc = np_round(p->t_ulp, d);
    double diff = np_round(p->t_ulp, np_round(np_promote(p->t_ulp, p->tb), dc - b));
    return fabs(np_round(p->t_ulp, diff * scale));
}

void pc_cmp_element_into(const metrics_plan *p, double b, double d, double bc, chunk_acc *a,
                         int lane, double *l_db, double *l_dd, double *l_bb, size_t i, void *sq,
                         void *relb, void *ulp, bool compact)
{
    double ab = fabs(b);
    double abe = np_round(p->t_abe, ab + p->eps);
    double ae = fabs(np_round(p->tp, d - b));
    double rel = np_round(p->t_rel, ae / abe);

    a->max_ae = max_nan(a->max_ae, ae);
    a->max_ad = max_nan(a->max_ad, fabs(d));
    a->max_ab = max_nan(a->max_ab, ab);
    l_db[lane] += d * b;
    l_dd[lane] += d * d;
    l_bb[lane] += b * b;
    for (int k = 0; k < 3; k++)
        a->lt[k] += rel < p->c_ratio[k];

    bool finite = isfinite(d) && isfinite(bc);
    if (p->groups & GROUP_BENCHMARK) {
        bool small = finite && ab <= p->c_small_b;
        a->sm_b += small;
        a->sm_err_b += small && ae > p->c_atol_b;
        bool masked = small || !finite;
        a->mask_b += masked;
        double e = masked ? 0 : ae;
        store_as(sq, p->t_e, i, np_round(p->t_e, e * e));
        double relb_i = masked ? -1 : rel;
        a->max_relb = max_nan(a->max_relb, relb_i);
        if (!compact)
            store_as(relb, p->t_relb, i, relb_i);
        else if (relb_i >= 0)
            store_as(relb, p->t_relb, a->n_relb++, relb_i);
    }
    if (p->groups & GROUP_EB) {
        double diff = np_round(p->td, d - bc);
        a->eb += (diff > 0) - (diff < 0);
    }
    if (p->groups & GROUP_ABSOLUTE) {
        bool small = finite && ab <= p->c_small_a;
        bool normal = finite && !small;
        a->sm_a += small;
        a->sm_err_a += small && ae > p->c_atol_a;
        a->nm += normal;
        a->nm_err += normal && rel > p->c_rtol_rel;
        if (!finite) {
            a->im++;
            a->im_fail += !pc_cmp_inf_nan_pass(p, b, d, bc, abe);
        }
    }
    if (p->groups & GROUP_ULP) {
        double u = p->pc_cmp_ulp_fp8 ? pc_cmp_ulp_fp8(b, d) : pc_cmp_ulp_element(p, b, d);
        store_as(ulp, p->t_ulp, i, u);
        a->max_ulp = max_nan(a->max_ulp, u);
        a->ulp_gt += u > p->ulp_threshold;
    }
    if (p->groups & GROUP_BINARY)
        a->neq += b != d;
}

void pc_cmp_reference_chunk(const metrics_plan *p, const pc_metrics_input *in, int64_t start,
                            int64_t len, chunk_scratch *s, chunk_acc *a)
{
    double l_db[8] = {0}, l_dd[8] = {0}, l_bb[8] = {0};
    for (int64_t i = 0; i < len; i++) {
        double b = pc_cmp_load_value(in->bench, in->bench_dtype, start + i);
        double d = pc_cmp_load_value(in->device, in->device_dtype, start + i);
        pc_cmp_element_into(p, b, d, np_round(p->td, b), a, (int)(i & 7), l_db, l_dd, l_bb,
                            (size_t)i, s->sq, s->relb, s->ulp, true);
    }
    a->dot_db = lanes_sum(l_db);
    a->dot_dd = lanes_sum(l_dd);
    a->dot_bb = lanes_sum(l_bb);
    if (p->groups & GROUP_BENCHMARK)
        a->psum_sq = pairwise_as(s->sq, p->t_e, (size_t)len);
    if (p->groups & GROUP_ULP)
        a->psum_ulp = pairwise_as(s->ulp, p->t_ulp, (size_t)len);
}
