/*
 * The float32-device / float64-bench kernel (k_f64_f32) on every instruction set this CPU runs,
 * against the element-by-element reference, bit for bit, on data placed at the edges of what
 * its AVX-512 copy does in single instructions: the widened device values and masks (a device
 * at +-FLT_MAX, infinite or NaN; a bench beyond FLT_MAX, whose float32 rounding is infinite, or
 * just above it, which rounds back to FLT_MAX), the ordered ratio counts (relative errors that
 * are NaN, or on the thresholds' float64 neighbours), the maxima (NaN, equal zeros of both
 * signs, all-negative data) and the error balance's ties (device == bench rounded to float32).
 */
#include "pc_metrics_test.h"
#include "pc_test.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/metrics_impl.h"
#include "precheck/compare/metrics.h"

static uint64_t state64 = 0x9E3779B97F4A7C15ull;

static uint64_t next_u64(void)
{
    state64 ^= state64 << 13;
    state64 ^= state64 >> 7;
    state64 ^= state64 << 17;
    return state64;
}

static double uniform(void)
{
    return (double)(next_u64() >> 11) * 0x1p-53;
}

/* One (bench, device) pair of the kind k (0..15). */
static void edge_pair(int k, double *b, float *d)
{
    double sign = (next_u64() & 1) ? -1 : 1;
    double x = sign * ldexp(1 + uniform(), (int)(next_u64() % 16) - 8);
    switch (k) {
    case 0: /* device == bench rounded: an error-balance tie */
        *b = x;
        *d = (float)x;
        break;
    case 1: /* one float32 step either way */
        *b = x;
        *d = nextafterf((float)x, (next_u64() & 1) ? INFINITY : -INFINITY);
        break;
    case 2: /* relative error on a threshold's neighbours: |d - b| / (|b| + eps) ~ 10^-k */
    {
        static const double t[] = {0.01, 0.001, 0.0001};
        double r = t[next_u64() % 3];
        *d = (float)x;
        *b = (double)*d / (1 + r);
        if (next_u64() & 1)
            *b = nextafter(*b, (next_u64() & 1) ? HUGE_VAL : -HUGE_VAL);
        break;
    }
    case 3:
        *b = sign * (double)FLT_MAX;
        *d = (float)(sign * (double)FLT_MAX);
        break;
    case 4: /* beyond float32: the bench rounded to float32 is infinite */
        *b = sign * 1e39;
        *d = (float)(sign * (double)FLT_MAX);
        break;
    case 5: /* just above FLT_MAX, rounding back to it */
        *b = nextafter((double)FLT_MAX, HUGE_VAL) * sign;
        *d = (float)(sign * (double)FLT_MAX);
        break;
    case 6:
        *b = x;
        *d = (float)(sign * HUGE_VAL);
        break;
    case 7:
        *b = x;
        *d = NAN;
        break;
    case 8:
        *b = (double)NAN;
        *d = (float)x;
        break;
    case 9: /* zeros of both signs */
        *b = (next_u64() & 1) ? 0.0 : -0.0;
        *d = (next_u64() & 1) ? 0.0f : -0.0f;
        break;
    case 10: /* small values (the small-value masks) */
        *b = sign * ldexp(1 + uniform(), -(int)(next_u64() % 30) - 10);
        *d = (float)(*b * (1 + (uniform() - 0.5) * 1e-3));
        break;
    case 11:
        *b = sign * HUGE_VAL;
        *d = (float)(sign * HUGE_VAL);
        break;
    default: /* ordinary values with a relative error */
        *b = x;
        *d = (float)(x * (1 + (uniform() - 0.5) * ldexp(1, -(int)(next_u64() % 20))));
        break;
    }
}

static const pc_standard standards[] = {
    PC_STANDARD_BENCHMARK, PC_STANDARD_ABSOLUTE,   PC_STANDARD_ACCUMULATIVE, PC_STANDARD_ULP,
    PC_STANDARD_BINARY,    PC_STANDARD_THOUSANDTH, PC_STANDARD_COUNT,
};

/* n elements: the edge kinds in `kinds` (a bit set), the rest ordinary; then every standard on
 * every instruction set against the reference. Returns the comparisons made. */
static int check(size_t n, unsigned kinds, double scale, const char *label)
{
    double *b = malloc(n * sizeof *b);
    float *d = malloc(n * sizeof *d);
    assert_non_null(b);
    assert_non_null(d);
    for (size_t i = 0; i < n; i++) {
        int k = (int)(next_u64() % 16);
        if (k < 12 && !(kinds & (1u << k)))
            k = 12;
        edge_pair(k, &b[i], &d[i]);
        b[i] *= scale;
        d[i] = (float)((double)d[i] * scale);
    }
    int compared = 0;
    const int best = pc_cmp_metrics_fast_set_isa(-1);
    for (int isa = 0; isa <= best; isa++) {
        pc_cmp_metrics_fast_set_isa(isa);
        for (size_t s = 0; s < sizeof standards / sizeof standards[0]; s++) {
            pc_metrics_input in = {
                .bench = b,
                .bench_dtype = PC_DTYPE_F64,
                .device = d,
                .device_dtype = PC_DTYPE_F32,
                .n = (int64_t)n,
                .output_dtype = PC_DTYPE_F32,
                .standard = standards[s],
                .threads = 1,
            };
            assert_true(pc_metrics_has_fast_kernel(&in));
            pc_metrics_result fast, ref;
            assert_int_equal(pc_metrics_compute(&in, &fast), PC_OK);
            assert_int_equal(pc_metrics_compute_reference(&in, &ref), PC_OK);
            char what[160];
            snprintf(what, sizeof what, "%s, n %zu, isa %d, %s", label, n, isa,
                     standards[s] < PC_STANDARD_COUNT ? pc_standard_name(standards[s]) : "none");
            pc_test_assert_same_metrics(&fast, &ref, what);
            compared++;
        }
    }
    pc_cmp_metrics_fast_set_isa(-1);
    free(b);
    free(d);
    return compared;
}

static const size_t sizes[] = {8, 16, 9, 8192, 8193, 3 * 8192 + 5};

/* Each edge kind alone among ordinary values (a chunk with one kind of special value), then
 * all of them mixed. */
static void edges_one_at_a_time(void **state)
{
    (void)state;
    int compared = 0;
    for (int k = 0; k < 12; k++)
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            char label[32];
            snprintf(label, sizeof label, "edge kind %d", k);
            compared += check(sizes[si], 1u << k, 1.0, label);
        }
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        compared += check(sizes[si], 0xFFFu, 1.0, "all edge kinds");
    print_message("%d comparisons, all bit-identical\n", compared);
}

/* The maxima and cosine messages on data that is all negative, all zero or tiny. */
static void maxima_and_cosine_edges(void **state)
{
    (void)state;
    check(8193, 1u << 9, 0.0, "all zeros"); /* the scale makes every value a zero */
    check(8193, 0, -1e-300, "tiny, sign-flipped");
    enum { N = 1000 };
    static double b[N];
    static float d[N];
    for (size_t i = 0; i < N; i++) {
        b[i] = -1.0 - (double)i;
        d[i] = (float)b[i] * 1.001f;
    }
    const int best = pc_cmp_metrics_fast_set_isa(-1);
    for (int isa = 0; isa <= best; isa++) {
        pc_cmp_metrics_fast_set_isa(isa);
        for (size_t s = 0; s < sizeof standards / sizeof standards[0]; s++) {
            pc_metrics_input in = {.bench = b,
                                   .bench_dtype = PC_DTYPE_F64,
                                   .device = d,
                                   .device_dtype = PC_DTYPE_F32,
                                   .n = N,
                                   .output_dtype = PC_DTYPE_F32,
                                   .standard = standards[s],
                                   .threads = 1};
            pc_metrics_result fast, ref;
            assert_int_equal(pc_metrics_compute(&in, &fast), PC_OK);
            assert_int_equal(pc_metrics_compute_reference(&in, &ref), PC_OK);
            pc_test_assert_same_metrics(&fast, &ref, "all negative");
        }
    }
    pc_cmp_metrics_fast_set_isa(-1);
}

/* The recount of a chunk that holds an infinity or a NaN (max_nan's loop: the plain maximum,
 * or the last NaN), with the special values in the vector part, in the tail, or both. */
static void recount_cases(void **state)
{
    (void)state;
    static const struct {
        size_t n;
        double bench_fill;
        size_t at[2];
        float dev[2];
    } cases[] = {
        {9, 1.0, {0, 8}, {INFINITY, NAN}},      /* NaN in the tail after an inf */
        {9, 1.0, {8, 0}, {NAN, INFINITY}},      /* the same, placed the other way round */
        {17, 2.0, {16, 16}, {NAN, NAN}},        /* a NaN in the tail only */
        {16, 2.0, {3, 12}, {NAN, -INFINITY}},   /* NaN, then inf, in vectors */
        {9, 0.0, {3, 3}, {INFINITY, INFINITY}}, /* all-zero bench: the cosine's message */
        {8195, 0.0, {8194, 8194}, {-INFINITY, -INFINITY}}, /* its inf in a tail */
        {8195, 0.0, {5, 8193}, {INFINITY, NAN}},
    };
    const int best = pc_cmp_metrics_fast_set_isa(-1);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t n = cases[c].n;
        double *b = malloc(n * sizeof *b);
        float *d = malloc(n * sizeof *d);
        assert_non_null(b);
        assert_non_null(d);
        for (size_t i = 0; i < n; i++) {
            b[i] = cases[c].bench_fill;
            d[i] = (float)cases[c].bench_fill;
        }
        for (int k = 0; k < 2; k++)
            d[cases[c].at[k]] = cases[c].dev[k];
        for (int isa = 0; isa <= best; isa++) {
            pc_cmp_metrics_fast_set_isa(isa);
            for (size_t s = 0; s < sizeof standards / sizeof standards[0]; s++) {
                pc_metrics_input in = {.bench = b,
                                       .bench_dtype = PC_DTYPE_F64,
                                       .device = d,
                                       .device_dtype = PC_DTYPE_F32,
                                       .n = (int64_t)n,
                                       .output_dtype = PC_DTYPE_F32,
                                       .standard = standards[s],
                                       .threads = 1};
                pc_metrics_result fast, ref;
                assert_int_equal(pc_metrics_compute(&in, &fast), PC_OK);
                assert_int_equal(pc_metrics_compute_reference(&in, &ref), PC_OK);
                char what[64];
                snprintf(what, sizeof what, "recount case %zu, isa %d", c, isa);
                pc_test_assert_same_metrics(&fast, &ref, what);
            }
        }
        free(b);
        free(d);
    }
    pc_cmp_metrics_fast_set_isa(-1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(edges_one_at_a_time),
        cmocka_unit_test(maxima_and_cosine_edges),
        cmocka_unit_test(recount_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
