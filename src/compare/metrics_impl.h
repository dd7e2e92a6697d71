/*
 * Private to compare/: what the metric kernels share.
 *
 * A metrics_plan is everything about one pair that does not depend on the data: the numpy
 * type of every intermediate (docs/metrics.md, with its 0-d rules), the constants of the
 * comparisons already rounded to the type of the array they are compared with, the standard's
 * parameters, and which metric groups to compute.
 *
 * The data is cut into chunks of NP_BLOCK elements. A chunk function (a fast kernel for one
 * dtype pair, or the element-by-element reference) fills a chunk_acc; the driver merges the
 * chunk_accs in chunk order, so sums that are order-dependent (the block sums of numpy, the
 * dot products of the cosine) come out the same with any number of threads.
 */
#ifndef PC_COMPARE_METRICS_IMPL_H
#define PC_COMPARE_METRICS_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "numpy_sum.h"
#include "precheck/compare/metrics.h"

enum {
    GROUP_BENCHMARK = 1u << 0, /* small-value ratio, RMSE, max/mean relative error */
    GROUP_EB = 1u << 1,        /* error balance */
    GROUP_ABSOLUTE = 1u << 2,  /* inf/nan, relative and absolute error ratios */
    GROUP_ULP = 1u << 3,
    GROUP_BINARY = 1u << 4,
};

typedef struct metrics_plan {
    int64_t n;
    pc_dtype output_dtype; /* D */
    pc_standard standard;  /* PC_STANDARD_COUNT: none */
    unsigned groups;
    bool zero_dim;

    /* numpy types ("0-d" marks where scalars differ from arrays) */
    np_type tb, td, tp; /* bench, device, promote(bench, device) */
    np_type t_abe;      /* |b| + eps: tb; float64 for 0-d bfloat16 */
    np_type t_rel;      /* abs_err / (|b| + eps) */
    np_type t_relb;     /* the benchmark's masked relative error: t_rel; 0-d float64 */
    np_type t_e;        /* RMSE's masked abs_err: tp; 0-d float64 */
    np_type t_clip;     /* inf/nan check clipping: td; 0-d bfloat16 float64 */
    np_type t_re;       /* clipped |d - b| / (|b| + eps) */
    np_type t_ulp_e;    /* ULP exponent and scale: tb; 0-d float64 */
    np_type t_ulp;      /* ULP computation type C: float64 for fp32 outputs, else float32 */

    double eps;
    /* comparison constants, each rounded to the type of the array it is compared with */
    double c_ratio[3]; /* rel < c: 0.01, 0.001, 0.0001 in t_rel */
    double c_small_b;  /* |b| <= c (benchmark small value), in tb */
    double c_atol_b;   /* abs_err > c (benchmark), in tp */
    double c_small_a;  /* |b| <= c (absolute / accumulative small value), in tb */
    double c_atol_a;   /* abs_err > c, in tp */
    double c_rtol_rel; /* rel > c, in t_rel */
    double c_rtol_re;  /* clipped re <= c, in t_re */
    double clip_lo, clip_hi;
    double td_max; /* largest finite value of td */

    int ulp_mantissa; /* p */
    int ulp_min_exp;  /* min_eb */
    double ulp_threshold;
    bool pc_cmp_ulp_fp8; /* msprobe's fp8 ULP formula */
} metrics_plan;

/* What one chunk contributes. Maxima are NaN-propagating and start at -inf; psum_* are the
 * numpy pairwise sums of the chunk (one block), in np_sum_type of the array's type. */
typedef struct chunk_acc {
    double max_ae, max_ad, max_ab, max_relb, max_ulp;
    double dot_db, dot_dd, dot_bb;
    double psum_sq, psum_ulp;
    int64_t lt[3];
    int64_t neq, eb, sm_b, sm_err_b, mask_b;
    int64_t im, im_fail, nm, nm_err, sm_a, sm_err_a, ulp_gt;
    size_t n_relb; /* compacted relative errors left in the scratch's relb buffer */
} chunk_acc;

/* Per-thread buffers of NP_BLOCK elements each, 8 bytes wide (float arrays use half). */
typedef struct chunk_scratch {
    void *sq;    /* RMSE's squared masked errors */
    void *ulp;   /* ULP errors */
    void *relb;  /* the chunk's compacted relative errors: its slot, set by the driver */
    float *dev;  /* device values converted to float (float16 / bfloat16 storage) */
    float *cast; /* bench rounded to float16, as float */
    uint16_t *half;
    uint8_t *flags; /* per element: the ULP kernels' "exponent may round up" marks */
} chunk_scratch;

typedef void (*chunk_fn)(const metrics_plan *p, const pc_metrics_input *in, int64_t start,
                         int64_t len, chunk_scratch *s, chunk_acc *a);

void pc_cmp_chunk_acc_init(chunk_acc *a);

/* NaN-propagating maximum, numpy's np.max. */
static inline double max_nan(double m, double x)
{
    return (x > m || x != x) ? x : m;
}

/* numpy's floor(log2(x)) of a positive value of type t (log2 evaluated in t). */
double pc_np_floor_log2(np_type t, double x);

/* The inf/nan check of one element that is not finite in both (the inf/nan error ratio,
 * docs/metrics.md): does it pass? b, d are the exact values, bc the bench rounded to td, abe |b| +
 * eps. */
bool pc_cmp_inf_nan_pass(const metrics_plan *p, double b, double d, double bc, double abe);

/* The ULP error of one element for fp16 / bf16 / fp32 outputs. */
double pc_cmp_ulp_element(const metrics_plan *p, double b, double d);

/* The fp8 ULP error of one element (msprobe's fp8 formula). */
double pc_cmp_ulp_fp8(double b, double d);

/* One element of the reference into a's counts and maxima, lane of the dot products, and the
 * chunk arrays at index i (relb: at a->n_relb, kept only if not masked, when compact; at i,
 * -1 when masked, otherwise). bc is b rounded to the device type. */
void pc_cmp_element_into(const metrics_plan *p, double b, double d, double bc, chunk_acc *a,
                         int lane, double *l_db, double *l_dd, double *l_bb, size_t i, void *sq,
                         void *relb, void *ulp, bool compact);

/* The element-by-element reference chunk function. */
void pc_cmp_reference_chunk(const metrics_plan *p, const pc_metrics_input *in, int64_t start,
                            int64_t len, chunk_scratch *s, chunk_acc *a);

/* The fast kernel for this plan and input, or NULL. */
chunk_fn pc_cmp_fast_chunk_for(const metrics_plan *p, const pc_metrics_input *in);

/* Test hook: caps the instruction set the fast kernels use (0 baseline, 1 AVX2, 2 AVX-512;
 * -1 removes the cap). Returns the level asked for, or the CPU's best for -1. Not thread-safe. */
int pc_cmp_metrics_fast_set_isa(int level);

/* Loads element i of an F16 / BF16 / F32 / F64 array as a double. */
double pc_cmp_load_value(const void *data, pc_dtype dtype, int64_t i);

#endif
