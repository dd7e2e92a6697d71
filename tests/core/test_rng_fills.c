/*
 * Every instruction-set copy of the generator's fills that this CPU runs (rng_impl.h), and the
 * public one-pass affine fills, against the element-wise functions bit for bit: the 64-bit
 * words, the uniforms of each float width, and U * scale + low rounded after each operation.
 * The runs cross the places where the SIMD copies take other paths: the 32-element steps, the
 * tails, a multiple of 2^32 in the index (the high word is folded into a scalar elsewhere) and
 * the 2^64 wrap.
 */
#include "pc_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng_impl.h"
#include "precheck/core/rng.h"

enum { MAX_N = 1200 };

/* (first index, count): aligned and not, short and long, across 2^32 and across 2^64 */
static const struct {
    uint64_t first;
    size_t n;
} runs[] = {
    {0, 1000},
    {12345, 77},
    {7, 31},
    {0, 33},
    {(UINT64_C(1) << 32) - 40, 100},
    {(UINT64_C(1) << 32) - 31, 64},
    {(UINT64_C(5) << 32) - 1, 65},
    {UINT64_MAX - 5, 12},
    {UINT64_MAX - 40, 90},
    {0x0123456789abcdefull, 1},
};

static const pc_dtype half_dtypes[] = {PC_DTYPE_F32, PC_DTYPE_F16, PC_DTYPE_BF16, PC_DTYPE_F8E4M3FN,
                                       PC_DTYPE_F8E5M2};

/* the uniform's random bits for the dtypes above: their mantissa bits + 1 */
static int bits_of(pc_dtype dt)
{
    switch (dt) {
    case PC_DTYPE_F16:
        return 11;
    case PC_DTYPE_BF16:
        return 8;
    case PC_DTYPE_F8E4M3FN:
        return 4;
    case PC_DTYPE_F8E5M2:
        return 3;
    default:
        return 24;
    }
}

/* U * scale + low, each operation rounded: volatile keeps the compiler from fusing them */
static float affine_f32(double u, float scale, float low)
{
    volatile float p = (float)u * scale;
    volatile float r = p + low;
    return r;
}

static double affine_f64(double u, double scale, double low)
{
    volatile double p = u * scale;
    volatile double r = p + low;
    return r;
}

static bool same_f32(float a, float b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static bool same_f64(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static const float scales32[][2] = {
    {1.0f, 0.0f},       {9.75f, -2.5f},
    {3.0e-3f, 1.0e6f},  {-4.0f, 4.0f},
    {1.0e38f, 1.0e38f}, /* overflows to inf */ {0x1p-140f, 0x1p-149f}, /* subnormals */
    {INFINITY, -1.0f},  /* 0 * inf is NaN */ {NAN, 0.0f},
};

static const double scales64[][2] = {
    {1.0, 0.0},         {9.75, -2.5},           {3.0e-3, 1.0e6},  {-4.0, 4.0},
    {1.0e308, 1.0e308}, {0x1p-1060, 0x1p-1074}, {HUGE_VAL, -1.0}, {(double)NAN, 0.0},
};

static void check_isa(pc_rng_isa isa)
{
    static uint64_t u[MAX_N];
    static float f[MAX_N];
    static double d[MAX_N];
    pc_rng_stream s;
    pc_rng_stream_init(&s, 20251205, "Functional.linear.0.forward/input_args[0]");
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        uint64_t first = runs[r].first;
        size_t n = runs[r].n;
        pc_rng_fill_u64_isa(isa, &s, first, u, n);
        for (size_t i = 0; i < n; i++)
            assert_true(u[i] == pc_rng_u64(&s, first + i, 0));

        pc_rng_fill_uniform_f64_isa(isa, &s, first, d, n);
        for (size_t i = 0; i < n; i++)
            assert_true(same_f64(d[i], pc_rng_uniform(&s, first + i, PC_DTYPE_F64)));

        for (size_t k = 0; k < sizeof half_dtypes / sizeof half_dtypes[0]; k++) {
            pc_dtype dt = half_dtypes[k];
            pc_rng_fill_uniform_bits_isa(isa, &s, first, bits_of(dt), f, n);
            for (size_t i = 0; i < n; i++)
                assert_true(same_f32(f[i], (float)pc_rng_uniform(&s, first + i, dt)));
        }

        for (size_t k = 0; k < sizeof scales32 / sizeof scales32[0]; k++) {
            float sc = scales32[k][0], lo = scales32[k][1];
            pc_rng_fill_affine_f32_isa(isa, &s, first, f, n, sc, lo);
            for (size_t i = 0; i < n; i++) {
                float want = affine_f32(pc_rng_uniform(&s, first + i, PC_DTYPE_F32), sc, lo);
                assert_true(same_f32(f[i], want));
            }
        }
        for (size_t k = 0; k < sizeof scales64 / sizeof scales64[0]; k++) {
            double sc = scales64[k][0], lo = scales64[k][1];
            pc_rng_fill_affine_f64_isa(isa, &s, first, d, n, sc, lo);
            for (size_t i = 0; i < n; i++) {
                double want = affine_f64(pc_rng_uniform(&s, first + i, PC_DTYPE_F64), sc, lo);
                assert_true(same_f64(d[i], want));
            }
        }
    }
}

static void test_portable_copy(void **state)
{
    (void)state;
    assert_true(pc_rng_isa_supported(PC_RNG_ISA_PORTABLE));
    check_isa(PC_RNG_ISA_PORTABLE);
}

static void test_avx2_copy(void **state)
{
    (void)state;
    if (!pc_rng_isa_supported(PC_RNG_ISA_AVX2))
        skip();
    check_isa(PC_RNG_ISA_AVX2);
}

static void test_avx512_copy(void **state)
{
    (void)state;
    if (!pc_rng_isa_supported(PC_RNG_ISA_AVX512))
        skip();
    check_isa(PC_RNG_ISA_AVX512);
}

/* The public fills (the best copy) equal the element-wise functions and write exactly n
 * elements; a fill in pieces equals one fill. */
static void test_public_affine_fills(void **state)
{
    (void)state;
    enum { N = 777 };
    static float f[N + 1], g[N];
    static double d[N + 1], e[N];
    pc_rng_stream s;
    pc_rng_stream_init(&s, 7, "Tensor.__add__.3.backward/grad");
    f[N] = 42.0f;
    d[N] = 42.0;
    pc_rng_fill_affine_f32(&s, 100, f, N, 6.5f, -3.25f);
    pc_rng_fill_affine_f64(&s, 100, d, N, 6.5, -3.25);
    assert_true(f[N] == 42.0f && d[N] == 42.0);
    for (size_t i = 0; i < N; i++) {
        assert_true(
            same_f32(f[i], affine_f32(pc_rng_uniform(&s, 100 + i, PC_DTYPE_F32), 6.5f, -3.25f)));
        assert_true(
            same_f64(d[i], affine_f64(pc_rng_uniform(&s, 100 + i, PC_DTYPE_F64), 6.5, -3.25)));
    }
    pc_rng_fill_affine_f32(&s, 100, g, 45, 6.5f, -3.25f);
    pc_rng_fill_affine_f32(&s, 145, g + 45, N - 45, 6.5f, -3.25f);
    pc_rng_fill_affine_f64(&s, 100, e, 333, 6.5, -3.25);
    pc_rng_fill_affine_f64(&s, 433, e + 333, N - 333, 6.5, -3.25);
    assert_memory_equal(f, g, sizeof g);
    assert_memory_equal(d, e, sizeof e);
    pc_rng_fill_affine_f32(&s, 0, f + N, 0, 1.0f, 0.0f); /* n == 0 writes nothing */
    pc_rng_fill_affine_f64(&s, 0, d + N, 0, 1.0, 0.0);
    assert_true(f[N] == 42.0f && d[N] == 42.0);
}

/* pc_rng_fill_int_range against pc_rng_int_range: spans that reject often (3 * 2^61: a
 * quarter of the first draws), a single value, the full int64 range (no rejection, an offset),
 * swapped bounds, small and negative ranges; across 2^32 and 2^64. */
static void test_int_range_fill(void **state)
{
    (void)state;
    static const int64_t ranges[][2] = {
        {0, 3 * (INT64_C(1) << 61)},
        {-100, 100},
        {7, 7},
        {INT64_MIN, INT64_MAX},
        {100, -100},
        {0, 1},
        {-1, 0},
        {INT64_MIN, INT64_MIN + 5},
        {INT64_MAX - 2, INT64_MAX},
        {0, (INT64_C(1) << 62) + 1},
    };
    static int64_t v[MAX_N + 1];
    pc_rng_stream s;
    pc_rng_stream_init(&s, 99, "Functional.embedding.0.forward/input_args[0]");
    int rejected = 0;
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++)
        for (size_t k = 0; k < sizeof ranges / sizeof ranges[0]; k++) {
            uint64_t first = runs[r].first;
            size_t n = runs[r].n;
            int64_t lo = ranges[k][0], hi = ranges[k][1];
            v[n] = 12345;
            pc_rng_fill_int_range(&s, first, lo, hi, v, n);
            assert_int_equal(v[n], 12345);
            for (size_t i = 0; i < n; i++) {
                assert_int_equal(v[i], pc_rng_int_range(&s, first + i, lo, hi));
                /* a value the first draw could not give: it came from a later draw */
                if (k == 0 && v[i] != (int64_t)(((unsigned __int128)pc_rng_u64(&s, first + i, 0) *
                                                 (uint64_t)(hi - lo + 1)) >>
                                                64))
                    rejected++;
            }
        }
    assert_true(rejected > 0); /* the rejection path was taken */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_portable_copy),  cmocka_unit_test(test_avx2_copy),
        cmocka_unit_test(test_avx512_copy),    cmocka_unit_test(test_public_affine_fills),
        cmocka_unit_test(test_int_range_fill),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
