/* Targeted conversion cases: double rounding, overflow, NaN, the float8 formats, HF32, the
 * generic buffer converter and the SIMD dispatcher. The exhaustive walks are in
 * test_exhaustive_convert.c. */
#include "pc_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/convert_impl.h"
#include "precheck/core/convert.h"

static uint32_t bits32(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float from_bits32(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* float64 -> float16 must round once: each input here rounds differently through float32. */
static void test_f64_to_f16_single_rounding(void **state)
{
    (void)state;
    /* just above a tie: the float32 intermediate would land exactly on the tie */
    double above_tie = 1.0 + 0x1p-11 + 0x1p-40;
    assert_int_equal(pc_f32_to_f16((float)above_tie), 0x3c00); /* the double-rounded answer */
    assert_int_equal(pc_f64_to_f16(above_tie), 0x3c01);
    /* just below a tie whose even neighbour is above */
    double below_tie = 1.0 + 3 * 0x1p-11 - 0x1p-40;
    assert_int_equal(pc_f32_to_f16((float)below_tie), 0x3c02);
    assert_int_equal(pc_f64_to_f16(below_tie), 0x3c01);
    /* subnormal range: just above half the smallest subnormal */
    assert_int_equal(pc_f64_to_f16(0x1p-25 + 0x1p-60), 0x0001);
    assert_int_equal(pc_f64_to_f16(0x1p-25), 0x0000);
    assert_int_equal(pc_f64_to_f16(-0x1p-25), 0x8000);
    assert_int_equal(pc_f64_to_f16(3 * 0x1p-25), 0x0002); /* 1.5 ulps: tie to even 2 */
    /* overflow boundary: 65520 is the tie between 65504 and 65536 (-> infinity) */
    assert_int_equal(pc_f64_to_f16(65520.0 - 0x1p-30), 0x7bff);
    assert_int_equal(pc_f32_to_f16((float)(65520.0 - 0x1p-30)), 0x7c00);
    assert_int_equal(pc_f64_to_f16(65520.0), 0x7c00);
    assert_int_equal(pc_f64_to_f16(-1e300), 0xfc00);
    assert_int_equal(pc_f64_to_f16(1e-300), 0x0000);
    assert_int_equal(pc_f64_to_f16(0x1p-1074), 0x0000); /* double subnormal input */
    assert_int_equal(pc_f64_to_f16(HUGE_VAL), 0x7c00);
    assert_int_equal(pc_f64_to_f16(-0.0), 0x8000);
    assert_int_equal(pc_f64_to_f16(1.0 / 3.0), 0x3555);
    assert_int_equal(pc_f64_to_f16(0x1p-14), 0x0400);           /* smallest normal */
    assert_int_equal(pc_f64_to_f16(0x1p-14 - 0x1p-25), 0x0400); /* rounds up into normals */
    uint16_t nan = pc_f64_to_f16((double)NAN);
    assert_true((nan & 0x7c00) == 0x7c00 && (nan & 0x0200));
    assert_int_equal(pc_f64_to_f16(-(double)NAN) & 0x8000, 0x8000);
}

static void test_f64_to_bf16_single_rounding(void **state)
{
    (void)state;
    double above_tie = 1.0 + 0x1p-8 + 0x1p-40;
    assert_int_equal(pc_f32_to_bf16((float)above_tie), 0x3f80);
    assert_int_equal(pc_f64_to_bf16(above_tie), 0x3f81);
    assert_int_equal(pc_f64_to_bf16(1.0 + 0x1p-8), 0x3f80); /* exact tie: even */
    assert_int_equal(pc_f64_to_bf16(1.0 + 3 * 0x1p-8), 0x3f82);
    assert_int_equal(pc_f64_to_bf16(1.0 / 3.0), 0x3eab);
    assert_int_equal(pc_f64_to_bf16(1e39), 0x7f80);
    assert_int_equal(pc_f64_to_bf16(0x1.fep127), 0x7f7f);
    assert_int_equal(pc_f64_to_bf16(0x1p-133), 0x0001); /* smallest bf16 subnormal */
    assert_int_equal(pc_f64_to_bf16(0x1p-134), 0x0000);
    assert_int_equal(pc_f64_to_bf16(0x1p-134 + 0x1p-170), 0x0001);
    uint16_t nan = pc_f64_to_bf16(-(double)NAN);
    assert_true((nan & 0x7f80) == 0x7f80 && (nan & 0x0040) && (nan & 0x8000));
    /* float32 path: NaN payload kept, quiet bit set */
    assert_int_equal(pc_f32_to_bf16(from_bits32(0x7f810000u)), 0x7fc1);
    assert_int_equal(pc_f32_to_f16(from_bits32(0x7f802000u)), 0x7e01);
}

static double ref_round_small(double x, int mant, int emin, double max_finite, int saturate)
{
    if (isinf(x))
        return saturate ? copysign(max_finite, x) : x;
    double a = fabs(x);
    if (a == 0.0)
        return x;
    int e = ilogb(a);
    if (e < emin)
        e = emin;
    double q = ldexp(1.0, e - mant);
    double t = a / q, k = floor(t), frac = t - k;
    if (frac > 0.5 || (frac == 0.5 && fmod(k, 2.0) != 0.0))
        k += 1.0;
    double r = k * q;
    if (r > max_finite)
        r = saturate ? max_finite : HUGE_VAL;
    return copysign(r, x);
}

static void check_f8(const char *name, uint8_t (*enc)(double), float (*dec)(uint8_t), int mant,
                     int emin, double max_finite, int saturate, double x)
{
    uint8_t got = enc(x);
    double want = ref_round_small(x, mant, emin, max_finite, saturate);
    double have = (double)dec(got);
    if (!pc_test_same_f64(want, have)) {
        fprintf(stderr, "%s(%a) = 0x%02x (%a), want %a\n", name, x, got, have, want);
        fail();
    }
}

static void test_float8(void **state)
{
    (void)state;
    /* e4m3fn: saturating, one NaN per sign */
    assert_int_equal(pc_f64_to_f8e4m3fn(448.0), 0x7e);
    assert_int_equal(pc_f64_to_f8e4m3fn(464.0), 0x7e); /* tie: even mantissa is 448 */
    assert_int_equal(pc_f64_to_f8e4m3fn(465.0), 0x7e); /* saturates */
    assert_int_equal(pc_f64_to_f8e4m3fn(1e9), 0x7e);
    assert_int_equal(pc_f64_to_f8e4m3fn(HUGE_VAL), 0x7e);
    assert_int_equal(pc_f64_to_f8e4m3fn(-HUGE_VAL), 0xfe);
    assert_int_equal(pc_f64_to_f8e4m3fn((double)NAN), 0x7f);
    assert_int_equal(pc_f64_to_f8e4m3fn(-(double)NAN), 0xff);
    assert_int_equal(pc_f64_to_f8e4m3fn(1.0), 0x38);
    assert_int_equal(pc_f64_to_f8e4m3fn(0x1p-9), 0x01);
    assert_int_equal(pc_f64_to_f8e4m3fn(0x1p-10), 0x00);
    assert_int_equal(pc_f64_to_f8e4m3fn(1.5 * 0x1p-10), 0x01);
    assert_true(isnan(pc_f8e4m3fn_to_f32(0x7f)) && isnan(pc_f8e4m3fn_to_f32(0xff)));
    assert_true(pc_f8e4m3fn_to_f32(0x7e) == 448.0f);
    /* e5m2: IEEE-like with infinities */
    assert_int_equal(pc_f64_to_f8e5m2(57344.0), 0x7b);
    assert_int_equal(pc_f64_to_f8e5m2(60000.0), 0x7b);
    assert_int_equal(pc_f64_to_f8e5m2(61440.0), 0x7c); /* tie rounds to even = overflow */
    assert_int_equal(pc_f64_to_f8e5m2(-HUGE_VAL), 0xfc);
    assert_int_equal(pc_f64_to_f8e5m2((double)NAN) & 0x7e, 0x7e);
    assert_true(pc_f8e5m2_to_f32(0x7b) == 57344.0f && isinf(pc_f8e5m2_to_f32(0x7c)));

    /* every pattern decodes and encodes back */
    for (unsigned x = 0; x < 256; x++) {
        float v = pc_f8e4m3fn_to_f32((uint8_t)x);
        if ((x & 0x7f) == 0x7f)
            assert_true(isnan(v));
        else
            assert_int_equal(pc_f64_to_f8e4m3fn((double)v), x);
        float w = pc_f8e5m2_to_f32((uint8_t)x);
        if ((x & 0x7c) == 0x7c && (x & 3))
            assert_true(isnan(w) && (pc_f64_to_f8e5m2((double)w) == (x | 2u)));
        else
            assert_int_equal(pc_f64_to_f8e5m2((double)w), x);
    }
    /* every float16 value, and a spread of float32 ones, against the reference */
    for (unsigned h = 0; h < 65536; h++) {
        float v = pc_f16_to_f32((uint16_t)h);
        if (isnan(v))
            continue;
        check_f8("e4m3fn", pc_f64_to_f8e4m3fn, pc_f8e4m3fn_to_f32, 3, -6, 448.0, 1, (double)v);
        check_f8("e5m2", pc_f64_to_f8e5m2, pc_f8e5m2_to_f32, 2, -14, 57344.0, 0, (double)v);
    }
    uint32_t s = 12345;
    for (int i = 0; i < 1000000; i++) {
        s = s * 1664525u + 1013904223u;
        float v = from_bits32(s);
        if (isnan(v))
            continue;
        check_f8("e4m3fn", pc_f64_to_f8e4m3fn, pc_f8e4m3fn_to_f32, 3, -6, 448.0, 1, (double)v);
        check_f8("e5m2", pc_f64_to_f8e5m2, pc_f8e5m2_to_f32, 2, -14, 57344.0, 0, (double)v);
    }
}

/* msprobe's formula on the int32 view, with floor division written out in int64. */
static uint32_t hf32_ref(uint32_t u)
{
    int64_t i = u >= 0x80000000u ? (int64_t)u - 0x100000000ll : (int64_t)u;
    int64_t a = i >= 0 ? i / 2048 : -((-i + 2047) / 2048);          /* i >> 11 */
    int64_t b = (a + 1) >= 0 ? (a + 1) / 2 : -((-(a + 1) + 1) / 2); /* (.. + 1) >> 1 */
    int64_t c = b * 4096;                                           /* << 12 */
    return (uint32_t)((uint64_t)c & 0xffffffffu);
}

static void test_hf32(void **state)
{
    (void)state;
    assert_int_equal(bits32(pc_hf32_round(1.0f)), 0x3f800000u);
    assert_int_equal(bits32(pc_hf32_round(from_bits32(0x3f800800u))), 0x3f801000u); /* tie up */
    assert_int_equal(bits32(pc_hf32_round(from_bits32(0x3f8007ffu))), 0x3f800000u);
    assert_int_equal(bits32(pc_hf32_round(from_bits32(0xbf800800u))), 0xbf801000u); /* away */
    assert_int_equal(bits32(pc_hf32_round(from_bits32(0x7f7fffffu))), 0x7f800000u);
    assert_int_equal(bits32(pc_hf32_round(INFINITY)), 0x7f800000u);
    uint32_t s = 99;
    for (int i = 0; i < 2000000; i++) {
        s = s * 1664525u + 1013904223u;
        assert_int_equal(bits32(pc_hf32_round(from_bits32(s))), hf32_ref(s));
    }
    float buf[3] = {1.0f, from_bits32(0x3f800800u), -2.5f};
    pc_hf32_round_buffer(buf, 3);
    assert_int_equal(bits32(buf[1]), 0x3f801000u);
    assert_true(buf[2] == -2.5f);
}

static void test_convert_buffer_casts(void **state)
{
    (void)state;
    int64_t big[3] = {(1ll << 53) + 1, INT64_MIN, INT64_MAX};
    int64_t big_out[3];
    assert_int_equal(pc_convert_buffer(big_out, PC_DTYPE_I64, big, PC_DTYPE_I64, 3), PC_OK);
    assert_memory_equal(big, big_out, sizeof big);
    int32_t i32[3];
    assert_int_equal(pc_convert_buffer(i32, PC_DTYPE_I32, big, PC_DTYPE_I64, 3), PC_OK);
    assert_int_equal(i32[0], 1);
    assert_int_equal(i32[1], 0);
    assert_int_equal(i32[2], -1);
    float f32[3];
    assert_int_equal(pc_convert_buffer(f32, PC_DTYPE_F32, big, PC_DTYPE_I64, 1), PC_OK);
    assert_true(f32[0] == 0x1p53f);

    double d[6] = {2.9, -2.9, -1.0, 300.0, (double)NAN, 1e30};
    uint8_t u8[6];
    int64_t i64[6];
    uint8_t b[6];
    assert_int_equal(pc_convert_buffer(u8, PC_DTYPE_U8, d, PC_DTYPE_F64, 6), PC_OK);
    assert_int_equal(pc_convert_buffer(i64, PC_DTYPE_I64, d, PC_DTYPE_F64, 6), PC_OK);
    assert_int_equal(pc_convert_buffer(b, PC_DTYPE_BOOL, d, PC_DTYPE_F64, 6), PC_OK);
    assert_int_equal(u8[0], 2);
    assert_int_equal(u8[1], 254); /* -2 wraps */
    assert_int_equal(u8[2], 255);
    assert_int_equal(u8[3], 44);
    assert_int_equal(i64[0], 2);
    assert_int_equal(i64[1], -2);
    assert_true(i64[4] == INT64_MIN && i64[5] == INT64_MIN);
    /* narrower targets go through a 32-bit conversion, as torch's do on x86 */
    double huge[4] = {HUGE_VAL, 3e9, -0x1p31, (double)NAN};
    int32_t w32[4];
    assert_int_equal(pc_convert_buffer(w32, PC_DTYPE_I32, huge, PC_DTYPE_F64, 4), PC_OK);
    assert_true(w32[0] == INT32_MIN && w32[1] == INT32_MIN && w32[2] == INT32_MIN &&
                w32[3] == INT32_MIN);
    int16_t w16[4];
    assert_int_equal(pc_convert_buffer(w16, PC_DTYPE_I16, huge, PC_DTYPE_F64, 4), PC_OK);
    assert_true(w16[0] == 0 && w16[3] == 0); /* low bits of INT32_MIN */
    for (int i = 0; i < 6; i++)
        assert_int_equal(b[i], 1);
    double zero = 0.0;
    assert_int_equal(pc_convert_buffer(b, PC_DTYPE_BOOL, &zero, PC_DTYPE_F64, 1), PC_OK);
    assert_int_equal(b[0], 0);

    float c64[4] = {1.5f, -2.0f, 0.0f, 3.0f};
    double re[2];
    assert_int_equal(pc_convert_buffer(re, PC_DTYPE_F64, c64, PC_DTYPE_C64, 2), PC_OK);
    assert_true(re[0] == 1.5 && re[1] == 0.0);
    uint8_t cb[2];
    assert_int_equal(pc_convert_buffer(cb, PC_DTYPE_BOOL, c64, PC_DTYPE_C64, 2), PC_OK);
    assert_true(cb[0] == 1 && cb[1] == 1); /* 0 + 3i is not zero */
    double c128[4];
    float two[2] = {2.0f, -4.0f};
    assert_int_equal(pc_convert_buffer(c128, PC_DTYPE_C128, two, PC_DTYPE_F32, 2), PC_OK);
    assert_true(c128[0] == 2.0 && c128[1] == 0.0 && c128[2] == -4.0 && c128[3] == 0.0);

    uint16_t h[2];
    double third[2] = {1.0 / 3.0, 65520.0};
    assert_int_equal(pc_convert_buffer(h, PC_DTYPE_F16, third, PC_DTYPE_F64, 2), PC_OK);
    assert_int_equal(h[0], 0x3555);
    assert_int_equal(h[1], 0x7c00);
    uint16_t bf[1];
    assert_int_equal(pc_convert_buffer(bf, PC_DTYPE_BF16, h, PC_DTYPE_F16, 1), PC_OK);
    assert_int_equal(bf[0], pc_f32_to_bf16(pc_f16_to_f32(0x3555)));
    uint8_t bools[3] = {0, 1, 1};
    float fb[3];
    assert_int_equal(pc_convert_buffer(fb, PC_DTYPE_F32, bools, PC_DTYPE_BOOL, 3), PC_OK);
    assert_true(fb[0] == 0.0f && fb[1] == 1.0f);
    int8_t neg = -5;
    int16_t wide;
    assert_int_equal(pc_convert_buffer(&wide, PC_DTYPE_I16, &neg, PC_DTYPE_I8, 1), PC_OK);
    assert_int_equal(wide, -5);

    float fs[4] = {0x1p-149f, -INFINITY, 3.5f, -0.0f};
    double fd[4];
    float fback[4];
    assert_int_equal(pc_convert_buffer(fd, PC_DTYPE_F64, fs, PC_DTYPE_F32, 4), PC_OK);
    assert_true(fd[0] == 0x1p-149 && fd[1] == -HUGE_VAL && fd[2] == 3.5 && signbit(fd[3]));
    assert_int_equal(pc_convert_buffer(fback, PC_DTYPE_F32, fd, PC_DTYPE_F64, 4), PC_OK);
    assert_memory_equal(fs, fback, sizeof fs);
    double rounds[2] = {1.0 + 0x1p-24, 1e39};
    assert_int_equal(pc_convert_buffer(fback, PC_DTYPE_F32, rounds, PC_DTYPE_F64, 2), PC_OK);
    assert_true(fback[0] == 1.0f && isinf(fback[1])); /* tie to even; overflow */

    assert_int_equal(pc_convert_buffer(h, PC_DTYPE_COUNT, d, PC_DTYPE_F64, 1), PC_ERR_INVALID);
    assert_non_null(strstr(pc_error_message(), "invalid dtypes"));
    assert_int_equal(pc_convert_buffer(h, PC_DTYPE_F16, d, PC_DTYPE_F64, 0), PC_OK);
}

static void test_element_access(void **state)
{
    (void)state;
    unsigned char buf[16];
    for (int dt = 0; dt < PC_DTYPE_COUNT; dt++) {
        double re = 0, im = 0;
        pc_element_store(buf, (pc_dtype)dt, 1.0, pc_dtype_is_complex((pc_dtype)dt) ? -1.0 : 0);
        pc_element_load(buf, (pc_dtype)dt, &re, &im);
        assert_true(re == 1.0);
        assert_true(im == (pc_dtype_is_complex((pc_dtype)dt) ? -1.0 : 0.0));
        pc_element_load(buf, (pc_dtype)dt, &re, NULL);
    }
}

static void test_dispatch_paths_agree(void **state)
{
    (void)state;
    enum { N = 1003 }; /* not a multiple of the vector width: the tails run too */
    static float src[N], back_a[N], back_b[N];
    static uint16_t a[N], bb[N];
    uint32_t s = 7;
    for (int i = 0; i < N; i++) {
        s = s * 1664525u + 1013904223u;
        src[i] = from_bits32(s);
    }
    pc_isa best = pc_convert_best_isa();
    assert_int_equal(pc_convert_set_isa(PC_ISA_PORTABLE), PC_ISA_PORTABLE);
    assert_int_equal(pc_convert_isa(), PC_ISA_PORTABLE);
    pc_convert_f32_to_f16(a, src, N);
    pc_convert_f16_to_f32(back_a, a, N);
    assert_int_equal(pc_convert_set_isa(best), best);
    pc_convert_f32_to_f16(bb, src, N);
    pc_convert_f16_to_f32(back_b, bb, N);
    assert_memory_equal(a, bb, sizeof a);
    assert_memory_equal(back_a, back_b, sizeof back_a);

    pc_convert_set_isa(PC_ISA_PORTABLE);
    pc_convert_f32_to_bf16(a, src, N);
    pc_convert_bf16_to_f32(back_a, a, N);
    pc_convert_set_isa(best);
    pc_convert_f32_to_bf16(bb, src, N);
    pc_convert_bf16_to_f32(back_b, bb, N);
    assert_memory_equal(a, bb, sizeof a);
    assert_memory_equal(back_a, back_b, sizeof back_a);
    printf("best conversion path on this CPU: %s\n",
           best == PC_ISA_AVX2_F16C ? "AVX2+F16C" : "portable");
}

/* Half-precision buffers into float64 (the bench reading its inputs) give what the element
 * path gives, for every bit pattern (NaN payloads included), on each conversion path, in a
 * buffer large enough for the threaded blocks too. */
static void test_half_to_f64_buffer(void **state)
{
    (void)state;
    enum { PATTERNS = 65536, N = 3 * 1048576 + 5 };
    uint16_t *h = malloc(N * sizeof *h);
    double *got = malloc(N * sizeof *got);
    assert_non_null(h);
    assert_non_null(got);
    for (size_t i = 0; i < N; i++)
        h[i] = (uint16_t)(i * 40503u % PATTERNS);
    pc_isa best = pc_convert_best_isa();
    pc_dtype half[2] = {PC_DTYPE_BF16, PC_DTYPE_F16};
    pc_isa isas[2] = {PC_ISA_PORTABLE, best};
    for (int t = 0; t < 2; t++)
        for (int k = 0; k < 2; k++) {
            pc_convert_set_isa(isas[k]);
            assert_int_equal(pc_convert_buffer(got, PC_DTYPE_F64, h, half[t], N), PC_OK);
            for (size_t i = 0; i < N; i++) {
                double want;
                pc_element_load(&h[i], half[t], &want, NULL);
                assert_memory_equal(&got[i], &want, sizeof want);
            }
        }
    pc_convert_set_isa(best);
    free(h);
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f64_to_f16_single_rounding),
        cmocka_unit_test(test_f64_to_bf16_single_rounding),
        cmocka_unit_test(test_float8),
        cmocka_unit_test(test_hf32),
        cmocka_unit_test(test_convert_buffer_casts),
        cmocka_unit_test(test_element_access),
        cmocka_unit_test(test_dispatch_paths_agree),
        cmocka_unit_test(test_half_to_f64_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
