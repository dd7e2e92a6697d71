/*
 * Every bit pattern, every path: all 2^32 float32 patterns through float32 -> float16 and
 * float32 -> bfloat16 (portable scalar, the float64 entry point, and the AVX2/F16C kernels when
 * the CPU has them), and all 2^16 float16 and bfloat16 patterns through the decoders and back.
 *
 * The reference is deliberately written another way than the code under test: it rounds with
 * floating-point arithmetic from libm (ilogb, ldexp, floor) instead of bit manipulation, and
 * decodes with ldexp. In the walk of 2^32 patterns it is computed where it changes, found by
 * bisection in each chunk of 2^16 patterns (fill_ref: rounding is monotone), and the decoded
 * values come from a table of all 2^16 patterns: the same reference for every pattern, at 62
 * CPU-seconds for the whole walk instead of 154 (2 cores, 2026-12-05).
 *
 * PRECHECK_EXHAUSTIVE_SAMPLE=1 (tests/aarch64.sh: 2^32 patterns take hours under qemu) walks a
 * sample of the float32 patterns instead: every value of the upper 16 bits (sign, exponent, top
 * 7 mantissa bits) with the lower 16 bits at every rounding boundary of both 16-bit formats
 * (sample_lows) and at a few pseudo-random values; the 16-bit walks stay whole.
 */
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

/* Nearest value with `mant` fraction bits and minimum normal exponent `emin`, ties to even;
 * +-inf beyond max_finite. x must be finite. */
static double ref_round(double x, int mant, int emin, double max_finite)
{
    double a = fabs(x);
    if (a == 0.0)
        return x;
    int e = ilogb(a);
    if (e < emin)
        e = emin;
    double q = ldexp(1.0, e - mant);
    double t = a / q; /* exact: division by a power of two, no underflow here */
    double k = floor(t);
    double frac = t - k; /* exact: t has at most 24 significant bits */
    if (frac > 0.5 || (frac == 0.5 && fmod(k, 2.0) != 0.0))
        k += 1.0;
    double r = k * q;
    if (r > max_finite)
        r = HUGE_VAL;
    return copysign(r, x);
}

/* Decoders: value of an IEEE binary16 / bfloat16 pattern (NaN for a NaN pattern). */
static double ref_decode(uint32_t bits, int total, int mant, int bias)
{
    int expbits = total - 1 - mant;
    uint32_t sign = bits >> (total - 1);
    uint32_t e = (bits >> mant) & ((1u << expbits) - 1);
    uint32_t m = bits & ((1u << mant) - 1);
    double v;
    if (e == (1u << expbits) - 1)
        v = m ? (double)NAN : HUGE_VAL; /* a NaN pattern is no number: it equals no reference */
    else if (e == 0)
        v = ldexp((double)m, 1 - bias - mant);
    else
        v = ldexp((double)(m | (1u << mant)), (int)e - bias - mant);
    return sign ? -v : v;
}

typedef struct mismatch_log {
    unsigned long long count;
    char first[8][160];
} mismatch_log;

static void note(mismatch_log *log, const char *what, uint32_t in, uint32_t got)
{
#pragma omp critical(exhaustive_note)
    {
        if (log->count < 8)
            snprintf(log->first[log->count], sizeof log->first[0], "%s: input 0x%08x gave 0x%04x",
                     what, in, got);
        log->count++;
    }
}

/* The reference decoding of every 16-bit pattern of each format, filled by ref_decode once
 * (decoded_init) for the walk of the 2^32 patterns. */
static double decoded_f16[65536], decoded_bf16[65536];

static void decoded_init(void)
{
    for (uint32_t i = 0; i < 65536; i++) {
        decoded_f16[i] = ref_decode(i, 16, 10, 15);
        decoded_bf16[i] = ref_decode(i, 16, 7, 127);
    }
}

/* A 16-bit target format: its fraction bits, minimum normal exponent, largest finite value and
 * table of decoded patterns. */
typedef struct format16 {
    int mant;
    int emin;
    double max_finite;
    const double *decoded;
} format16;

/* The reference result of a float32 pattern that is not a NaN. */
static double ref_of(uint32_t in, const format16 *fmt)
{
    float f = from_bits32(in);
    return isinf(f) ? (double)f : ref_round((double)f, fmt->mant, fmt->emin, fmt->max_finite);
}

/* The NaN rule: a float32 NaN becomes a quiet NaN of the same sign, its payload's top bits kept. */
static int same_bits(double a, double b) /* pc_test_same_f64, inlined in the walk */
{
    uint64_t x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    return x == y;
}

static int nan_kept(uint32_t in, uint32_t got, int mant)
{
    uint32_t expmask = ((1u << (15 - mant)) - 1) << mant;
    uint32_t quiet = 1u << (mant - 1);
    uint32_t payload = (in >> (23 - mant)) & ((1u << mant) - 1);
    return (got & expmask) == expmask && (got >> 15) == (in >> 31) && (got & quiet) &&
           (got & ((1u << mant) - 1)) == (payload | quiet);
}

/* want[i] = ref_of(base | i) for lo < i < hi, want[lo] and want[hi] given. Rounding to nearest
 * is monotone in the magnitude, and base | i grows in magnitude with i inside a chunk (one sign,
 * no NaN): where the two ends have the same reference, so has every pattern between them.
 * So the reference is computed where it changes (a few times per chunk, each found by bisection),
 * not 2^16 times, and is the value ref_round gives for every pattern all the same. */
static void fill_ref(double *want, uint32_t base, uint32_t lo, uint32_t hi, const format16 *fmt)
{
    while (hi - lo > 1 && !same_bits(want[lo], want[hi])) {
        uint32_t mid = lo + (hi - lo) / 2;
        want[mid] = ref_of(base | mid, fmt);
        fill_ref(want, base, lo, mid, fmt);
        lo = mid;
    }
    for (uint32_t i = lo + 1; i < hi; i++)
        want[i] = want[lo];
}

#define CHUNK (1u << 16)
enum { SAMPLE_BOUNDARIES = 48, SAMPLE_RANDOM = 16 };

/* The lower 16 bits of the sampled patterns: float16 drops 13 bits of a normal float32
 * (and 14 or more of a subnormal's: ties at bits 13..15 here, higher ones in the upper half),
 * bfloat16 16; so each tie, its neighbours and an even or odd kept bit, for every value of
 * bits 13..15. */
static unsigned sample_lows(uint32_t chunk, uint32_t *lows)
{
    static const uint32_t tails[] = {0, 1, 0x0fff, 0x1000, 0x1001, 0x1fff};
    unsigned n = 0;
    for (uint32_t top = 0; top < 8; top++)
        for (size_t t = 0; t < sizeof tails / sizeof tails[0]; t++)
            lows[n++] = top << 13 | tails[t];
    uint32_t x = chunk * 2654435761u + 12345u; /* a few others, different in every chunk */
    for (unsigned r = 0; r < SAMPLE_RANDOM; r++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        lows[n++] = x & 0xffffu;
    }
    return n;
}

static void test_all_float32_patterns(void **state)
{
    (void)state;
    const int simd = pc_convert_best_isa() == PC_ISA_AVX2_F16C;
    const char *sample_env = getenv("PRECHECK_EXHAUSTIVE_SAMPLE");
    const int sample = sample_env && *sample_env && strcmp(sample_env, "0") != 0;
    mismatch_log log = {0};
    unsigned long long checked = 0;
    const unsigned nchunks = (unsigned)((1ull << 32) / CHUNK);
    decoded_init();

    const format16 f16 = {10, -14, 65504.0, decoded_f16};
    const format16 bf16 = {7, -126, 0x1.fep127, decoded_bf16};

#pragma omp parallel reduction(+ : checked)
    {
        float *src = malloc(CHUNK * sizeof *src);
        uint16_t *h_simd = malloc(CHUNK * sizeof *h_simd);
        uint16_t *b_simd = malloc(CHUNK * sizeof *b_simd);
        uint16_t *h_port = malloc(CHUNK * sizeof *h_port);
        uint16_t *b_port = malloc(CHUNK * sizeof *b_port);
        double *want_h = malloc(CHUNK * sizeof *want_h);
        double *want_b = malloc(CHUNK * sizeof *want_b);
        uint32_t lows[SAMPLE_BOUNDARIES + SAMPLE_RANDOM];
#pragma omp for schedule(dynamic, 64)
        for (unsigned c = 0; c < nchunks; c++) {
            uint32_t base = c * CHUNK;
            uint32_t n = sample ? sample_lows(c, lows) : CHUNK;
            for (uint32_t i = 0; i < n; i++)
                src[i] = from_bits32(base + (sample ? lows[i] : i));
            pc_convert_f32_to_f16_portable(h_port, src, n);
            pc_convert_f32_to_bf16_portable(b_port, src, n);
            if (simd) {
                pc_convert_f32_to_f16_avx2(h_simd, src, n);
                pc_convert_f32_to_bf16_avx2(b_simd, src, n);
            }
            /* the reference of every pattern: bisected in a whole chunk of numbers, one by one
             * in a sample and where the exponent is all ones (infinities and NaNs) */
            if (!sample && ((base >> 23) & 0xffu) != 0xffu) {
                want_h[0] = ref_of(base, &f16);
                want_h[CHUNK - 1] = ref_of(base | (CHUNK - 1), &f16);
                fill_ref(want_h, base, 0, CHUNK - 1, &f16);
                want_b[0] = ref_of(base, &bf16);
                want_b[CHUNK - 1] = ref_of(base | (CHUNK - 1), &bf16);
                fill_ref(want_b, base, 0, CHUNK - 1, &bf16);
            } else {
                for (uint32_t i = 0; i < n; i++) {
                    if (isnan(src[i]))
                        continue;
                    want_h[i] = ref_of(base + (sample ? lows[i] : i), &f16);
                    want_b[i] = ref_of(base + (sample ? lows[i] : i), &bf16);
                }
            }
            checked += n;
            for (uint32_t i = 0; i < n; i++) {
                uint32_t in = base + (sample ? lows[i] : i);
                double d = (double)src[i];
                int nan = isnan(src[i]);
                if (nan ? !nan_kept(in, h_port[i], f16.mant)
                        : !same_bits(want_h[i], decoded_f16[h_port[i]]))
                    note(&log, "f32->f16 portable", in, h_port[i]);
                if (nan ? !nan_kept(in, b_port[i], bf16.mant)
                        : !same_bits(want_b[i], decoded_bf16[b_port[i]]))
                    note(&log, "f32->bf16 portable", in, b_port[i]);
                if (pc_f64_to_f16(d) != h_port[i])
                    note(&log, "f64->f16 differs from f32->f16", in, pc_f64_to_f16(d));
                if (pc_f64_to_bf16(d) != b_port[i])
                    note(&log, "f64->bf16 differs from f32->bf16", in, pc_f64_to_bf16(d));
                if (simd && h_simd[i] != h_port[i])
                    note(&log, "f32->f16 avx2 differs from portable", in, h_simd[i]);
                if (simd && b_simd[i] != b_port[i])
                    note(&log, "f32->bf16 avx2 differs from portable", in, b_simd[i]);
            }
        }
        free(src);
        free(h_simd);
        free(b_simd);
        free(h_port);
        free(b_port);
        free(want_h);
        free(want_b);
    }
    for (unsigned long long i = 0; i < log.count && i < 8; i++)
        fprintf(stderr, "mismatch: %s\n", log.first[i]);
    printf("checked %llu float32 patterns%s (%s), %llu mismatches\n", checked,
           sample ? " (a sample: PRECHECK_EXHAUSTIVE_SAMPLE)" : "",
           simd ? "portable, float64 and AVX2/F16C paths" : "portable and float64 paths",
           log.count);
    assert_true(
        checked ==
        (sample ? (unsigned long long)nchunks * (SAMPLE_BOUNDARIES + SAMPLE_RANDOM) : 1ull << 32));
    assert_int_equal(log.count, 0);
}

/* Every 16-bit pattern decodes to the reference value and encodes back to itself. NaNs come
 * back quiet with their payload; float16 NaNs are made quiet by the decoder already (as F16C
 * does), bfloat16 ones are widened bit for bit (as torch does). */
static void check_16bit_roundtrip(int mant, int bias, int quiet_on_decode, const char *name,
                                  void (*dec)(float *, const uint16_t *, size_t),
                                  void (*enc)(uint16_t *, const float *, size_t),
                                  float (*dec1)(uint16_t))
{
    static uint16_t in[65536], back[65536];
    static float out[65536];
    for (uint32_t i = 0; i < 65536; i++)
        in[i] = (uint16_t)i;
    dec(out, in, 65536);
    enc(back, out, 65536);
    unsigned bad = 0;
    uint32_t expmask = ((1u << (15 - mant)) - 1) << mant;
    uint32_t mmask = (1u << mant) - 1;
    uint32_t quiet = 1u << (mant - 1);
    for (uint32_t i = 0; i < 65536; i++) {
        int is_nan = (i & expmask) == expmask && (i & mmask);
        int ok;
        if (is_nan) {
            uint32_t f = bits32(out[i]);
            uint32_t want_payload = quiet_on_decode ? (i & mmask) | quiet : i & mmask;
            ok = isnan(out[i]) && (f >> 31) == (i >> 15) &&
                 ((f >> (23 - mant)) & mmask) == want_payload &&
                 (f & ((1u << (23 - mant)) - 1)) == 0 && back[i] == (i | quiet);
        } else {
            ok = pc_test_same_f64((double)out[i], ref_decode(i, 16, mant, bias)) && back[i] == i;
        }
        ok = ok && bits32(dec1((uint16_t)i)) == bits32(out[i]);
        if (!ok && bad++ < 8)
            fprintf(stderr, "%s pattern 0x%04x: decoded %a (0x%08x), back 0x%04x\n", name, i,
                    (double)out[i], bits32(out[i]), back[i]);
    }
    assert_int_equal(bad, 0);
}

static void test_all_float16_patterns(void **state)
{
    (void)state;
    check_16bit_roundtrip(10, 15, 1, "f16 portable", pc_convert_f16_to_f32_portable,
                          pc_convert_f32_to_f16_portable, pc_f16_to_f32);
    if (pc_convert_best_isa() == PC_ISA_AVX2_F16C)
        check_16bit_roundtrip(10, 15, 1, "f16 avx2", pc_convert_f16_to_f32_avx2,
                              pc_convert_f32_to_f16_avx2, pc_f16_to_f32);
}

static void test_all_bfloat16_patterns(void **state)
{
    (void)state;
    check_16bit_roundtrip(7, 127, 0, "bf16 portable", pc_convert_bf16_to_f32_portable,
                          pc_convert_f32_to_bf16_portable, pc_bf16_to_f32);
    if (pc_convert_best_isa() == PC_ISA_AVX2_F16C)
        check_16bit_roundtrip(7, 127, 0, "bf16 avx2", pc_convert_bf16_to_f32_avx2,
                              pc_convert_f32_to_bf16_avx2, pc_bf16_to_f32);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_float16_patterns),
        cmocka_unit_test(test_all_bfloat16_patterns),
        cmocka_unit_test(test_all_float32_patterns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
