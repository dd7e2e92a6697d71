/* The fast kernels against the element-by-element reference: bit-identical cells for every
 * dtype pair, standard, instruction set and length (chunk edges included), on data built to
 * hit every branch (small values, zeros, NaN and inf on either side, values just below powers
 * of two, subnormals, float16 overflow); and the same bits with 1, 2 and 3 threads. */
#include "pc_metrics_test.h"
#include "pc_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/metrics_impl.h"
#include "precheck/compare/metrics.h"
#include "precheck/core/convert.h"

static uint64_t rng_state = 88172645463325252ull;

static uint64_t next_u64(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static double uniform(void)
{
    return (double)(next_u64() >> 11) * 0x1p-53;
}

/* A bench value of every kind the metrics branch on. */
static double bench_value(void)
{
    double u = uniform();
    int kind = (int)(next_u64() % 100);
    double sign = (next_u64() & 1) ? -1 : 1;
    if (kind < 55)
        return sign * ldexp(1 + u, (int)(next_u64() % 24) - 12);
    if (kind < 65)
        return sign * ldexp(1 + u, -(int)(next_u64() % 40) - 10); /* small values */
    if (kind < 70)
        return 0;
    if (kind < 78) /* just below a power of two */
        return sign *
               ldexp(1 - ldexp(1 + u, -(int)(next_u64() % 30) - 8), (int)(next_u64() % 40) - 20);
    if (kind < 80)
        return sign * 70000.0 * (1 + u); /* float16 overflow */
    if (kind < 82)
        return sign * ldexp(1 + u, -130); /* float32 subnormal */
    if (kind < 84)
        return (double)NAN;
    if (kind < 86)
        return sign * HUGE_VAL;
    return sign * (double)(next_u64() % 9);
}

static double device_value(double b)
{
    int kind = (int)(next_u64() % 100);
    if (kind < 30)
        return b;
    if (kind < 80)
        return b * (1 + (uniform() - 0.5) * ldexp(1, -(int)(next_u64() % 20)));
    if (kind < 85)
        return b + (uniform() - 0.5) * 1e-6;
    if (kind < 88)
        return (double)NAN;
    if (kind < 90)
        return (next_u64() & 1) ? HUGE_VAL : -HUGE_VAL;
    if (kind < 93)
        return 0;
    return -b;
}

static void store(void *data, pc_dtype dtype, size_t i, double x)
{
    pc_element_store((char *)data + i * pc_dtype_size(dtype), dtype, x, 0);
}

typedef struct pair_case {
    pc_dtype bench, device, output;
} pair_case;

static const pair_case pairs[] = {
    {PC_DTYPE_F32, PC_DTYPE_F16, PC_DTYPE_F16}, {PC_DTYPE_F32, PC_DTYPE_BF16, PC_DTYPE_BF16},
    {PC_DTYPE_F64, PC_DTYPE_F32, PC_DTYPE_F32}, {PC_DTYPE_F32, PC_DTYPE_F32, PC_DTYPE_F32},
    {PC_DTYPE_F64, PC_DTYPE_F64, PC_DTYPE_F64},
};

static const pc_standard standards[] = {
    PC_STANDARD_BENCHMARK, PC_STANDARD_ABSOLUTE,   PC_STANDARD_ACCUMULATIVE, PC_STANDARD_ULP,
    PC_STANDARD_BINARY,    PC_STANDARD_THOUSANDTH, PC_STANDARD_COUNT,
};

static void fill(void *bench, pc_dtype bt, void *device, pc_dtype dt, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double b = bench_value();
        store(bench, bt, i, b);
        store(device, dt, i, device_value(b));
    }
}

static void fast_matches_reference(void **state)
{
    static const size_t sizes[] = {1, 2, 7, 8, 9, 100, 129, 8191, 8192, 8193, 30001};
    size_t max_n = 30001;
    void *bench = malloc(max_n * 8), *device = malloc(max_n * 8);
    assert_non_null(bench);
    assert_non_null(device);
    int compared = 0;
    /* the levels this CPU has: a higher cap runs its best kernel again (aarch64: the portable
     * one, three times as slow under qemu) */
    const int best = pc_cmp_metrics_fast_set_isa(-1);
    for (int isa = 0; isa <= best; isa++) {
        pc_cmp_metrics_fast_set_isa(isa);
        for (size_t pi = 0; pi < sizeof pairs / sizeof pairs[0]; pi++) {
            const pair_case *pc = &pairs[pi];
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
                size_t n = sizes[si];
                fill(bench, pc->bench, device, pc->device, n);
                for (size_t k = 0; k < sizeof standards / sizeof standards[0]; k++) {
                    if (standards[k] == PC_STANDARD_ULP && pc->output == PC_DTYPE_F64)
                        continue;
                    pc_metrics_input in = {
                        .bench = bench,
                        .bench_dtype = pc->bench,
                        .device = device,
                        .device_dtype = pc->device,
                        .n = (int64_t)n,
                        .output_dtype = pc->output,
                        .standard = standards[k],
                        .threads = 1,
                    };
                    assert_true(pc_metrics_has_fast_kernel(&in));
                    pc_metrics_result fast, ref;
                    assert_int_equal(pc_metrics_compute(&in, &fast), PC_OK);
                    assert_int_equal(pc_metrics_compute_reference(&in, &ref), PC_OK);
                    char what[128];
                    snprintf(what, sizeof what, "isa %d, %s vs %s, n %zu, %s", isa,
                             pc_dtype_name(pc->bench), pc_dtype_name(pc->device), n,
                             standards[k] < PC_STANDARD_COUNT ? pc_standard_name(standards[k])
                                                              : "none");
                    pc_test_assert_same_metrics(&fast, &ref, what);
                    compared++;
                }
            }
        }
    }
    pc_cmp_metrics_fast_set_isa(-1);
    print_message("%d fast/reference comparisons, all bit-identical\n", compared);
    free(bench);
    free(device);
}

static void thread_count_does_not_matter(void **state)
{
    size_t n = 5 * 8192 + 1234;
    for (size_t pi = 0; pi < sizeof pairs / sizeof pairs[0]; pi++) {
        const pair_case *pc = &pairs[pi];
        void *bench = malloc(n * 8), *device = malloc(n * 8);
        fill(bench, pc->bench, device, pc->device, n);
        for (size_t k = 0; k < sizeof standards / sizeof standards[0]; k++) {
            if (standards[k] == PC_STANDARD_ULP && pc->output == PC_DTYPE_F64)
                continue;
            pc_metrics_result r[3];
            for (int t = 0; t < 3; t++) {
                pc_metrics_input in = {
                    .bench = bench,
                    .bench_dtype = pc->bench,
                    .device = device,
                    .device_dtype = pc->device,
                    .n = (int64_t)n,
                    .output_dtype = pc->output,
                    .standard = standards[k],
                    .threads = t + 1,
                };
                assert_int_equal(pc_metrics_compute(&in, &r[t]), PC_OK);
            }
            pc_test_assert_same_metrics(&r[0], &r[1], "1 vs 2 threads");
            pc_test_assert_same_metrics(&r[0], &r[2], "1 vs 3 threads");
            /* the reference is threaded the same way */
            pc_metrics_input in = {
                .bench = bench,
                .bench_dtype = pc->bench,
                .device = device,
                .device_dtype = pc->device,
                .n = (int64_t)n,
                .output_dtype = pc->output,
                .standard = standards[k],
                .threads = 3,
            };
            pc_metrics_result ref;
            assert_int_equal(pc_metrics_compute_reference(&in, &ref), PC_OK);
            pc_test_assert_same_metrics(&r[0], &ref, "fast 1 thread vs reference 3 threads");
        }
        free(bench);
        free(device);
    }
}

/* Over two million elements (256 chunks): counts and sums of many chunks, two threads. */
static void huge_n(void **state)
{
    size_t n = ((size_t)1 << 21) + 3;
    for (size_t pi = 0; pi < 3; pi++) {
        const pair_case *pc = &pairs[pi];
        void *bench = malloc(n * 8), *device = malloc(n * 8);
        assert_non_null(bench);
        assert_non_null(device);
        fill(bench, pc->bench, device, pc->device, n);
        pc_standard s[] = {PC_STANDARD_BENCHMARK, PC_STANDARD_ULP};
        for (int k = 0; k < 2; k++) {
            pc_metrics_input in = {
                .bench = bench,
                .bench_dtype = pc->bench,
                .device = device,
                .device_dtype = pc->device,
                .n = (int64_t)n,
                .output_dtype = pc->output,
                .standard = s[k],
                .threads = 2,
            };
            pc_metrics_result fast, ref;
            assert_int_equal(pc_metrics_compute(&in, &fast), PC_OK);
            assert_int_equal(pc_metrics_compute_reference(&in, &ref), PC_OK);
            pc_test_assert_same_metrics(&fast, &ref, "huge n");
        }
        free(bench);
        free(device);
    }
}

/* Full chunks of ordinary values with a single special value inside one of them: the fast
 * paths that handle whole clean chunks must notice it (all-special data hides such bugs). */
static void sparse_special_values(void **state)
{
    (void)state;
    const size_t n = 3 * 8192;
    void *bench = malloc(n * 8), *device = malloc(n * 8);
    assert_non_null(bench);
    assert_non_null(device);
    struct {
        size_t at;
        int on_device;
        double value;
    } specials[] = {
        {8192 + 100, 0, HUGE_VAL}, {2 * 8192 + 5, 1, (double)NAN},  {8192 + 7, 0, 1e30},
        {8192 + 9, 1, -HUGE_VAL},  {2 * 8192 + 77, 0, (double)NAN}, {8192 + 3, 1, 70000.0},
    };
    int compared = 0;
    for (int isa = 0; isa <= 2; isa++) {
        pc_cmp_metrics_fast_set_isa(isa);
        for (size_t pi = 0; pi < sizeof pairs / sizeof pairs[0]; pi++) {
            const pair_case *pc = &pairs[pi];
            for (size_t sp = 0; sp < sizeof specials / sizeof specials[0]; sp++) {
                for (size_t i = 0; i < n; i++) {
                    double b = ldexp(1 + uniform(), (int)(next_u64() % 16) - 8);
                    store(bench, pc->bench, i, b);
                    store(device, pc->device, i, b * (1 + (uniform() - 0.5) * 0x1p-9));
                }
                store(specials[sp].on_device ? device : bench,
                      specials[sp].on_device ? pc->device : pc->bench, specials[sp].at,
                      specials[sp].value);
                for (size_t k = 0; k < sizeof standards / sizeof standards[0]; k++) {
                    if (standards[k] == PC_STANDARD_ULP && pc->output == PC_DTYPE_F64)
                        continue;
                    pc_metrics_input in = {
                        .bench = bench,
                        .bench_dtype = pc->bench,
                        .device = device,
                        .device_dtype = pc->device,
                        .n = (int64_t)n,
                        .output_dtype = pc->output,
                        .standard = standards[k],
                        .threads = 1,
                    };
                    pc_metrics_result fast, ref;
                    assert_int_equal(pc_metrics_compute(&in, &fast), PC_OK);
                    assert_int_equal(pc_metrics_compute_reference(&in, &ref), PC_OK);
                    char what[128];
                    snprintf(what, sizeof what, "isa %d, %s vs %s, special %zu", isa,
                             pc_dtype_name(pc->bench), pc_dtype_name(pc->device), sp);
                    pc_test_assert_same_metrics(&fast, &ref, what);
                    compared++;
                }
            }
        }
    }
    pc_cmp_metrics_fast_set_isa(-1);
    print_message("%d sparse-special comparisons, all bit-identical\n", compared);
    free(bench);
    free(device);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fast_matches_reference),
        cmocka_unit_test(thread_count_does_not_matter),
        cmocka_unit_test(huge_n),
        cmocka_unit_test(sparse_special_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
