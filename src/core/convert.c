/*
 * Scalar conversions, the generic buffer converter and the SIMD dispatcher. The AVX2/F16C
 * kernels are in convert_x86.c; they must give the same bits as the portable code here.
 */
#include "precheck/core/convert.h"

#include <math.h>
#include <string.h>

#include "core/convert_impl.h"

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint64_t f64_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/* ---------------------------------------------------------------------------------------- */
/* float16                                                                                   */
/* ---------------------------------------------------------------------------------------- */

float pc_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    if (exp == 0x1f) /* inf, or NaN made quiet with its payload kept (as F16C does) */
        return f32_from_bits(sign | 0x7f800000u | (mant ? 0x400000u | (mant << 13) : 0));
    if (exp == 0) {
        /* zero or subnormal: mant * 2^-24 is exact in float */
        float v = (float)mant * 0x1p-24f;
        return f32_from_bits(sign | f32_bits(v));
    }
    return f32_from_bits(sign | ((exp + 112) << 23) | (mant << 13));
}

uint16_t pc_f32_to_f16(float f)
{
    uint32_t x = f32_bits(f);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    x &= 0x7fffffffu;
    if (x >= 0x7f800000u) {
        if (x == 0x7f800000u)
            return sign | 0x7c00u;
        return (uint16_t)(sign | 0x7e00u | ((x >> 13) & 0x3ffu)); /* quiet, leading payload */
    }
    if (x >= 0x477ff000u) /* >= 65520 = 65504 + half an ulp: rounds to infinity */
        return sign | 0x7c00u;
    if (x >= 0x38800000u) { /* >= 2^-14: a float16 normal */
        uint32_t v = ((x >> 23) - 112) << 10 | ((x >> 13) & 0x3ffu);
        uint32_t rem = x & 0x1fffu;
        if (rem > 0x1000u || (rem == 0x1000u && (v & 1u)))
            v++; /* a carry into the exponent is the right answer */
        return (uint16_t)(sign | v);
    }
    if (x <= 0x33000000u) /* <= 2^-25, half the smallest subnormal: ties to even zero */
        return sign;
    /* subnormal: value = mant * 2^(e - 150); in units of 2^-24 that is mant >> (126 - e) */
    uint32_t e = x >> 23;
    uint32_t mant = (x & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126 - e;
    uint32_t v = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (v & 1u)))
        v++;
    return (uint16_t)(sign | v);
}

/* ---------------------------------------------------------------------------------------- */
/* bfloat16                                                                                  */
/* ---------------------------------------------------------------------------------------- */

float pc_bf16_to_f32(uint16_t b)
{
    return f32_from_bits((uint32_t)b << 16);
}

uint16_t pc_f32_to_bf16(float f)
{
    uint32_t x = f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x0040u);
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

/* ---------------------------------------------------------------------------------------- */
/* Rounding a double once into any small binary format                                       */
/* ---------------------------------------------------------------------------------------- */

const pc_small_format pc_format_f16 = {16, 10, -14, 15, 0x7bffu, 0x7c00u, false};
const pc_small_format pc_format_bf16 = {16, 7, -126, 127, 0x7f7fu, 0x7f80u, false};
const pc_small_format pc_format_e4m3fn = {8, 3, -6, 7, 0x7eu, 0, true};
const pc_small_format pc_format_e5m2 = {8, 2, -14, 15, 0x7bu, 0x7cu, false};

uint32_t pc_round_f64_to_format(double d, const pc_small_format *fmt)
{
    uint64_t b = f64_bits(d);
    uint32_t sign = (b >> 63) ? 1u << (fmt->total_bits - 1) : 0;
    uint64_t ab = b & 0x7fffffffffffffffull;
    uint32_t mant_mask = (1u << fmt->mant) - 1;

    if (ab > 0x7ff0000000000000ull) { /* NaN */
        if (fmt->only_one_nan)
            return sign | (fmt->max_finite_bits | mant_mask);
        uint32_t quiet = 1u << (fmt->mant - 1);
        uint32_t payload = (uint32_t)(ab >> (52 - fmt->mant)) & mant_mask;
        return sign | fmt->inf_bits | quiet | payload;
    }
    if (ab == 0x7ff0000000000000ull) /* infinity; saturates where the format has none */
        return sign | (fmt->inf_bits ? fmt->inf_bits : fmt->max_finite_bits);
    if (ab == 0)
        return sign;

    /* value = sig * 2^lsb_exp, with sig < 2^53 */
    uint64_t exp_field = ab >> 52;
    uint64_t sig = ab & 0xfffffffffffffull;
    int lsb_exp;
    if (exp_field) {
        sig |= 1ull << 52;
        lsb_exp = (int)exp_field - 1075;
    } else {
        lsb_exp = -1074;
    }
    int top_exp = lsb_exp + 63 - __builtin_clzll(sig); /* floor(log2(value)) */
    int quantum_exp = (top_exp > fmt->emin ? top_exp : fmt->emin) - fmt->mant;
    int shift = quantum_exp - lsb_exp; /* > 0: the target has fewer bits than a double */
    uint64_t r;
    if (shift >= 64) {
        r = 0; /* below half the smallest subnormal (sig < 2^53 <= 2^(shift-1)) */
    } else {
        r = sig >> shift;
        uint64_t rem = sig & ((1ull << shift) - 1);
        uint64_t half = 1ull << (shift - 1);
        if (rem > half || (rem == half && (r & 1u)))
            r++;
    }
    if (r >> (fmt->mant + 1)) { /* rounding carried into the next binade */
        r >>= 1;
        quantum_exp++;
    }
    if (r == 0)
        return sign;
    uint64_t enc;
    if (r < (1ull << fmt->mant))
        enc = r; /* subnormal: exponent field 0 */
    else
        enc = ((uint64_t)(quantum_exp + fmt->mant + fmt->bias) << fmt->mant) | (r & mant_mask);
    if (enc > fmt->max_finite_bits)
        enc = fmt->inf_bits ? fmt->inf_bits : fmt->max_finite_bits;
    return sign | (uint32_t)enc;
}

uint16_t pc_f64_to_f16(double d)
{
    return (uint16_t)pc_round_f64_to_format(d, &pc_format_f16);
}

uint16_t pc_f64_to_bf16(double d)
{
    return (uint16_t)pc_round_f64_to_format(d, &pc_format_bf16);
}

uint8_t pc_f64_to_f8e4m3fn(double d)
{
    return (uint8_t)pc_round_f64_to_format(d, &pc_format_e4m3fn);
}

uint8_t pc_f64_to_f8e5m2(double d)
{
    return (uint8_t)pc_round_f64_to_format(d, &pc_format_e5m2);
}

float pc_f8e4m3fn_to_f32(uint8_t x)
{
    float sign = (x & 0x80u) ? -1.0f : 1.0f;
    unsigned exp = (x >> 3) & 0xfu;
    unsigned mant = x & 0x7u;
    if (exp == 0xf && mant == 0x7)
        return f32_from_bits((x & 0x80u ? 0x80000000u : 0) | 0x7fc00000u);
    if (exp == 0)
        return sign * ldexpf((float)mant, -9);
    return sign * ldexpf((float)(8 + mant), (int)exp - 10);
}

float pc_f8e5m2_to_f32(uint8_t x)
{
    return pc_f16_to_f32((uint16_t)(x << 8)); /* e5m2 is the top byte of a float16 */
}

/* ---------------------------------------------------------------------------------------- */
/* HF32                                                                                      */
/* ---------------------------------------------------------------------------------------- */

/* msprobe does ((i >> 11) + 1) >> 1 << 12 on the int32 view; on the low 32 bits that is the
 * same as the unsigned computation below, which avoids shifting negative numbers in C. */
double pc_round_to_dtype(double v, pc_dtype dtype)
{
    switch (dtype) {
    case PC_DTYPE_F16:
        return (double)pc_f16_to_f32(pc_f64_to_f16(v));
    case PC_DTYPE_BF16:
        return (double)pc_bf16_to_f32(pc_f64_to_bf16(v));
    case PC_DTYPE_F32:
        return (double)(float)v;
    case PC_DTYPE_F8E4M3FN:
        return (double)pc_f8e4m3fn_to_f32(pc_f64_to_f8e4m3fn(v));
    case PC_DTYPE_F8E5M2:
        return (double)pc_f8e5m2_to_f32(pc_f64_to_f8e5m2(v));
    default:
        return v;
    }
}

float pc_hf32_round(float f)
{
    uint32_t u = f32_bits(f);
    u = (((u >> 11) + 1u) >> 1) << 12;
    return f32_from_bits(u);
}

void pc_hf32_round_buffer(float *data, size_t n)
{
    for (size_t i = 0; i < n; i++)
        data[i] = pc_hf32_round(data[i]);
}

/* ---------------------------------------------------------------------------------------- */
/* Portable buffers and the dispatcher                                                       */
/* ---------------------------------------------------------------------------------------- */

void pc_convert_f32_to_f16_portable(uint16_t *dst, const float *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = pc_f32_to_f16(src[i]);
}

void pc_convert_f16_to_f32_portable(float *dst, const uint16_t *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = pc_f16_to_f32(src[i]);
}

void pc_convert_f32_to_bf16_portable(uint16_t *dst, const float *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = pc_f32_to_bf16(src[i]);
}

void pc_convert_bf16_to_f32_portable(float *dst, const uint16_t *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = pc_bf16_to_f32(src[i]);
}

static int isa_in_use = -1; /* -1: not chosen yet */

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

/* AVX2 and F16C, and the OS saving the YMM registers (XCR0 bits 1 and 2). Done with cpuid
 * rather than __builtin_cpu_supports, which not every compiler knows "f16c" for. */
static int cpu_has_avx2_f16c(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    const unsigned osxsave = 1u << 27, avx = 1u << 28, f16c = 1u << 29;
    if ((c & (osxsave | avx | f16c)) != (osxsave | avx | f16c))
        return 0;
    unsigned xcr0_lo, xcr0_hi;
    __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
    (void)xcr0_hi;
    if ((xcr0_lo & 6u) != 6u)
        return 0;
    if (__get_cpuid_max(0, NULL) < 7)
        return 0;
    __cpuid_count(7, 0, a, b, c, d);
    return (b & (1u << 5)) != 0; /* AVX2 */
}
#endif

pc_isa pc_convert_best_isa(void)
{
#if defined(__x86_64__) || defined(__i386__)
    if (cpu_has_avx2_f16c())
        return PC_ISA_AVX2_F16C;
#endif
    return PC_ISA_PORTABLE;
}

pc_isa pc_convert_isa(void)
{
    int isa = __atomic_load_n(&isa_in_use, __ATOMIC_RELAXED);
    if (isa < 0) {
        isa = (int)pc_convert_best_isa();
        __atomic_store_n(&isa_in_use, isa, __ATOMIC_RELAXED);
    }
    return (pc_isa)isa;
}

pc_isa pc_convert_set_isa(pc_isa isa)
{
    if (isa != PC_ISA_PORTABLE && pc_convert_best_isa() != isa)
        isa = PC_ISA_PORTABLE;
    __atomic_store_n(&isa_in_use, (int)isa, __ATOMIC_RELAXED);
    return isa;
}

void pc_convert_f32_to_f16(uint16_t *dst, const float *src, size_t n)
{
    if (pc_convert_isa() == PC_ISA_AVX2_F16C)
        pc_convert_f32_to_f16_avx2(dst, src, n);
    else
        pc_convert_f32_to_f16_portable(dst, src, n);
}

void pc_convert_f16_to_f32(float *dst, const uint16_t *src, size_t n)
{
    if (pc_convert_isa() == PC_ISA_AVX2_F16C)
        pc_convert_f16_to_f32_avx2(dst, src, n);
    else
        pc_convert_f16_to_f32_portable(dst, src, n);
}

void pc_convert_f32_to_bf16(uint16_t *dst, const float *src, size_t n)
{
    if (pc_convert_isa() == PC_ISA_AVX2_F16C)
        pc_convert_f32_to_bf16_avx2(dst, src, n);
    else
        pc_convert_f32_to_bf16_portable(dst, src, n);
}

void pc_convert_bf16_to_f32(float *dst, const uint16_t *src, size_t n)
{
    if (pc_convert_isa() == PC_ISA_AVX2_F16C)
        pc_convert_bf16_to_f32_avx2(dst, src, n);
    else
        pc_convert_bf16_to_f32_portable(dst, src, n);
}

/* ---------------------------------------------------------------------------------------- */
/* Element access and the generic converter                                                  */
/* ---------------------------------------------------------------------------------------- */

/* float -> int64 as torch's CPU code behaves on x86: truncation toward zero, and the
 * "integer indefinite" minimum for NaN, infinities and values out of range. */
static int64_t f64_to_i64_torchlike(double d, pc_dtype dtype)
{
    /* torch casts to int64 with a 64-bit truncating conversion and to every narrower integer
     * type with a 32-bit one (then keeps the low bits), each giving its "integer indefinite"
     * minimum for NaN, infinities and values out of its range */
    if (dtype == PC_DTYPE_I64) {
        if (isnan(d) || d >= 0x1p63 || d < -0x1p63)
            return INT64_MIN;
        return (int64_t)d;
    }
    if (isnan(d) || d >= 0x1p31 || d <= -0x1p31 - 1.0)
        return INT32_MIN;
    return (int64_t)d;
}

/* Stores the low bytes of v (two's complement) into an integer of the given dtype. */
static void store_i64_wrapped(void *p, pc_dtype dtype, int64_t v)
{
    uint64_t u = (uint64_t)v;
    switch (dtype) {
    case PC_DTYPE_BOOL:
        *(uint8_t *)p = v != 0;
        break;
    case PC_DTYPE_U8:
    case PC_DTYPE_I8: {
        uint8_t b = (uint8_t)u;
        memcpy(p, &b, 1);
        break;
    }
    case PC_DTYPE_I16: {
        uint16_t w = (uint16_t)u;
        memcpy(p, &w, 2);
        break;
    }
    case PC_DTYPE_I32: {
        uint32_t w = (uint32_t)u;
        memcpy(p, &w, 4);
        break;
    }
    case PC_DTYPE_I64:
        memcpy(p, &u, 8);
        break;
    default:
        break;
    }
}

static int64_t load_i64(const void *p, pc_dtype dtype)
{
    switch (dtype) {
    case PC_DTYPE_BOOL:
        return *(const uint8_t *)p != 0;
    case PC_DTYPE_U8:
        return *(const uint8_t *)p;
    case PC_DTYPE_I8:
        return *(const int8_t *)p;
    case PC_DTYPE_I16: {
        int16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case PC_DTYPE_I32: {
        int32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    case PC_DTYPE_I64: {
        int64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    default:
        return 0;
    }
}

int64_t pc_element_load_i64(const void *p, pc_dtype dtype)
{
    if (pc_dtype_is_integral(dtype))
        return load_i64(p, dtype);
    double re, im;
    pc_element_load(p, dtype, &re, &im);
    return f64_to_i64_torchlike(re, PC_DTYPE_I64);
}

void pc_element_store_i64(void *p, pc_dtype dtype, int64_t v)
{
    if (pc_dtype_is_integral(dtype))
        store_i64_wrapped(p, dtype, v);
    else
        pc_element_store(p, dtype, (double)v, 0.0);
}

void pc_element_load(const void *p, pc_dtype dtype, double *re, double *im)
{
    double r = 0.0, i = 0.0;
    switch (dtype) {
    case PC_DTYPE_F16: {
        uint16_t h;
        memcpy(&h, p, 2);
        r = (double)pc_f16_to_f32(h);
        break;
    }
    case PC_DTYPE_BF16: {
        uint16_t h;
        memcpy(&h, p, 2);
        r = (double)pc_bf16_to_f32(h);
        break;
    }
    case PC_DTYPE_F32: {
        float f;
        memcpy(&f, p, 4);
        r = (double)f;
        break;
    }
    case PC_DTYPE_F64:
        memcpy(&r, p, 8);
        break;
    case PC_DTYPE_C64: {
        float f[2];
        memcpy(f, p, 8);
        r = (double)f[0];
        i = (double)f[1];
        break;
    }
    case PC_DTYPE_C128: {
        double d[2];
        memcpy(d, p, 16);
        r = d[0];
        i = d[1];
        break;
    }
    case PC_DTYPE_F8E4M3FN:
        r = (double)pc_f8e4m3fn_to_f32(*(const uint8_t *)p);
        break;
    case PC_DTYPE_F8E5M2:
        r = (double)pc_f8e5m2_to_f32(*(const uint8_t *)p);
        break;
    default:
        r = (double)load_i64(p, dtype);
        break;
    }
    *re = r;
    if (im)
        *im = i;
}

void pc_element_store(void *p, pc_dtype dtype, double re, double im)
{
    switch (dtype) {
    case PC_DTYPE_BOOL:
        *(uint8_t *)p = (re != 0.0 || im != 0.0); /* NaN != 0 is true */
        break;
    case PC_DTYPE_U8:
    case PC_DTYPE_I8:
    case PC_DTYPE_I16:
    case PC_DTYPE_I32:
    case PC_DTYPE_I64:
        store_i64_wrapped(p, dtype, f64_to_i64_torchlike(re, dtype));
        break;
    case PC_DTYPE_F16: {
        uint16_t h = pc_f64_to_f16(re);
        memcpy(p, &h, 2);
        break;
    }
    case PC_DTYPE_BF16: {
        uint16_t h = pc_f64_to_bf16(re);
        memcpy(p, &h, 2);
        break;
    }
    case PC_DTYPE_F32: {
        float f = (float)re;
        memcpy(p, &f, 4);
        break;
    }
    case PC_DTYPE_F64:
        memcpy(p, &re, 8);
        break;
    case PC_DTYPE_C64: {
        float f[2] = {(float)re, (float)im};
        memcpy(p, f, 8);
        break;
    }
    case PC_DTYPE_C128: {
        double d[2] = {re, im};
        memcpy(p, d, 16);
        break;
    }
    case PC_DTYPE_F8E4M3FN:
        *(uint8_t *)p = pc_f64_to_f8e4m3fn(re);
        break;
    case PC_DTYPE_F8E5M2:
        *(uint8_t *)p = pc_f64_to_f8e5m2(re);
        break;
    default:
        break;
    }
}

/* pc_convert_buffer on one thread (the dtypes checked). */
static void convert_serial(void *dst, pc_dtype dst_dtype, const void *src, pc_dtype src_dtype,
                           size_t n)
{
    if (dst_dtype == src_dtype) {
        memmove(dst, src, n * pc_dtype_size(src_dtype));
        return;
    }
    if (src_dtype == PC_DTYPE_F32 && dst_dtype == PC_DTYPE_F16) {
        pc_convert_f32_to_f16(dst, src, n);
        return;
    }
    if (src_dtype == PC_DTYPE_F16 && dst_dtype == PC_DTYPE_F32) {
        pc_convert_f16_to_f32(dst, src, n);
        return;
    }
    if (src_dtype == PC_DTYPE_F32 && dst_dtype == PC_DTYPE_BF16) {
        pc_convert_f32_to_bf16(dst, src, n);
        return;
    }
    if (src_dtype == PC_DTYPE_BF16 && dst_dtype == PC_DTYPE_F32) {
        pc_convert_bf16_to_f32(dst, src, n);
        return;
    }

    /* direct loops for the float pairs the bench uses all the time */
    if (src_dtype == PC_DTYPE_F32 && dst_dtype == PC_DTYPE_F64) {
        const float *s = src;
        double *d = dst;
        for (size_t i = 0; i < n; i++)
            d[i] = (double)s[i];
        return;
    }
    if (src_dtype == PC_DTYPE_F64 && dst_dtype == PC_DTYPE_F32) {
        const double *s = src;
        float *d = dst;
        for (size_t i = 0; i < n; i++)
            d[i] = (float)s[i];
        return;
    }

    if ((src_dtype == PC_DTYPE_BF16 || src_dtype == PC_DTYPE_F16) && dst_dtype == PC_DTYPE_F64) {
        /* the bench reading half-precision inputs: exact in two steps, through float (the SIMD
         * paths above) in blocks that stay in the L1 cache, then widened */
        enum { STAGE = 256 };
        float stage[STAGE];
        const uint16_t *s = src;
        double *d = dst;
        for (size_t i = 0; i < n; i += STAGE) {
            size_t m = n - i < STAGE ? n - i : STAGE;
            if (src_dtype == PC_DTYPE_BF16)
                pc_convert_bf16_to_f32(stage, s + i, m);
            else
                pc_convert_f16_to_f32(stage, s + i, m);
            for (size_t j = 0; j < m; j++)
                d[i + j] = (double)stage[j];
        }
        return;
    }

    size_t ssz = pc_dtype_size(src_dtype), dsz = pc_dtype_size(dst_dtype);
    const unsigned char *s = src;
    unsigned char *d = dst;
    if (pc_dtype_is_integral(src_dtype) && pc_dtype_is_integral(dst_dtype)) {
        /* exact: no trip through double, which would lose int64 values beyond 2^53 */
        for (size_t i = 0; i < n; i++)
            store_i64_wrapped(d + i * dsz, dst_dtype, load_i64(s + i * ssz, src_dtype));
        return;
    }
    if (pc_dtype_is_integral(src_dtype) && dst_dtype == PC_DTYPE_F32) {
        /* one rounding, int64 -> float, rather than two through double */
        for (size_t i = 0; i < n; i++) {
            float f = (float)load_i64(s + i * ssz, src_dtype);
            memcpy(d + i * dsz, &f, sizeof f);
        }
        return;
    }
    for (size_t i = 0; i < n; i++) {
        double re, im;
        pc_element_load(s + i * ssz, src_dtype, &re, &im);
        pc_element_store(d + i * dsz, dst_dtype, re, im);
    }
}

/* Large conversions run in blocks on the OpenMP threads. Every element is converted on its own
 * (no state carries from one to the next), so any split gives the same bytes on any number of
 * threads; the blocks also spread the first touch of a new buffer's pages over the threads.
 * Overlapping buffers (memmove, or a conversion in place) stay on one thread, in order. */
#define CONVERT_PARALLEL_MIN ((size_t)1 << 21)
#define CONVERT_BLOCK        ((size_t)1 << 16)

pc_status pc_convert_buffer(void *dst, pc_dtype dst_dtype, const void *src, pc_dtype src_dtype,
                            size_t n)
{
    if ((unsigned)dst_dtype >= PC_DTYPE_COUNT || (unsigned)src_dtype >= PC_DTYPE_COUNT)
        return pc_error_set(PC_ERR_INVALID, "conversion between invalid dtypes (%d -> %d)",
                            (int)src_dtype, (int)dst_dtype);
    if (n == 0)
        return PC_OK;
    size_t ssz = pc_dtype_size(src_dtype), dsz = pc_dtype_size(dst_dtype);
    uintptr_t s0 = (uintptr_t)src, d0 = (uintptr_t)dst;
    bool disjoint = d0 + n * dsz <= s0 || s0 + n * ssz <= d0;
    if (n < CONVERT_PARALLEL_MIN || !disjoint) {
        convert_serial(dst, dst_dtype, src, src_dtype, n);
        return PC_OK;
    }
    const unsigned char *s = src;
    unsigned char *d = dst;
    size_t blocks = (n + CONVERT_BLOCK - 1) / CONVERT_BLOCK;
#pragma omp parallel for schedule(static)
    for (size_t b = 0; b < blocks; b++) {
        size_t i0 = b * CONVERT_BLOCK, m = n - i0 < CONVERT_BLOCK ? n - i0 : CONVERT_BLOCK;
        convert_serial(d + i0 * dsz, dst_dtype, s + i0 * ssz, src_dtype, m);
    }
    return PC_OK;
}
