/* numpy's summation as compare/numpy_sum.h emulates it, against np.sum / np.mean of numpy 1.24
 * (tests/fixtures/compare/numpy_sums.txt, from tests/golden/gen_compare_golden.py), and the
 * streaming sum against the one-shot sum for every way of cutting the input. */
#include "pc_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/numpy_sum.h"

#ifndef PC_TEST_FIXTURES
#error "PC_TEST_FIXTURES must name the fixtures directory"
#endif

/* The generator of gen_compare_golden.py. */
static double lcg_value(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    double mant = (double)(*state >> 8) / 16777216.0;
    int e = (int)(*state & 0xF) - 8;
    double sign = (*state & 0x10) ? -1.0 : 1.0;
    return sign * (1.0 + mant) * ldexp(1.0, e);
}

static void sums_match_numpy(void **state)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/compare/numpy_sums.txt", PC_TEST_FIXTURES);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char dtype[16];
    unsigned long n;
    unsigned seed;
    unsigned long long sum_bits, mean_bits;
    int lines = 0;
    while (fscanf(f, "%15s %lu %u %llx %llx", dtype, &n, &seed, &sum_bits, &mean_bits) == 5) {
        uint32_t st = seed;
        if (strcmp(dtype, "float32") == 0) {
            float *a = malloc(n * sizeof *a);
            for (unsigned long i = 0; i < n; i++)
                a[i] = (float)lcg_value(&st);
            float s = pc_np_sum_f32(a, n);
            float m = (float)((double)s / (double)n);
            uint32_t sb, mb;
            memcpy(&sb, &s, 4);
            memcpy(&mb, &m, 4);
            if (sb != sum_bits || mb != mean_bits)
                print_error("float32 n=%lu: sum %08x (numpy %08llx), mean %08x (numpy %08llx)\n", n,
                            sb, sum_bits, mb, mean_bits);
            assert_true(sb == sum_bits && mb == mean_bits);
            free(a);
        } else {
            double *a = malloc(n * sizeof *a);
            for (unsigned long i = 0; i < n; i++)
                a[i] = lcg_value(&st);
            double s = pc_np_sum_f64(a, n);
            double m = s / (double)n;
            uint64_t sb, mb;
            memcpy(&sb, &s, 8);
            memcpy(&mb, &m, 8);
            assert_true(sb == sum_bits && mb == mean_bits);
            free(a);
        }
        lines++;
    }
    fclose(f);
    assert_int_equal(lines, 50);
}

static void stream_equals_one_shot(void **state)
{
    size_t n = 3 * NP_BLOCK + 777;
    float *a = malloc(n * sizeof *a);
    double *d = malloc(n * sizeof *d);
    uint32_t st = 7;
    for (size_t i = 0; i < n; i++) {
        d[i] = lcg_value(&st);
        a[i] = (float)d[i];
    }
    float want32 = pc_np_sum_f32(a, n);
    double want64 = pc_np_sum_f64(d, n);
    static const size_t pieces[] = {1, 7, 100, 1000, 8191, 8192, 8193, 20000};
    for (size_t k = 0; k < sizeof pieces / sizeof pieces[0]; k++) {
        np_stream s32, s64;
        assert_int_equal(pc_np_stream_init(&s32, NP_F32), PC_OK);
        assert_int_equal(pc_np_stream_init(&s64, NP_F64), PC_OK);
        for (size_t i = 0; i < n; i += pieces[k]) {
            size_t m = n - i < pieces[k] ? n - i : pieces[k];
            pc_np_stream_append(&s32, a + i, m);
            pc_np_stream_append(&s64, d + i, m);
        }
        assert_int_equal(s32.count, (int64_t)n);
        assert_true((float)pc_np_stream_sum(&s32) == want32);
        assert_true(pc_np_stream_sum(&s64) == want64);
        pc_np_stream_free(&s32);
        pc_np_stream_free(&s64);
    }
    /* a naive left-to-right sum is not numpy's */
    float naive = 0;
    for (size_t i = 0; i < n; i++)
        naive += a[i];
    assert_true(naive != want32);
    free(a);
    free(d);
}

static void small_cases(void **state)
{
    /* below 8 elements: left to right from 0 (so -0.0 sums to +0.0, as np.sum gives) */
    float z[] = {-0.0f};
    float s = pc_np_pairwise_f32(z, 1);
    assert_false(signbit(s));
    assert_true(pc_np_pairwise_f32(NULL, 0) == 0);
    float nan_in[] = {1, 2, NAN, 4, 5, 6, 7, 8, 9};
    assert_true(isnan(pc_np_pairwise_f32(nan_in, 9)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sums_match_numpy),
        cmocka_unit_test(stream_equals_one_shot),
        cmocka_unit_test(small_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
