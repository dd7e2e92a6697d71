/*
 * The fast chunk kernels: metrics_kernel.inc instantiated for the dtype pairs run_ut meets
 * every day, each for three instruction sets (AVX-512, AVX2, the x86-64 baseline; other
 * machines get the portable one), chosen once at run time. The kernels are written with the
 * compiler's generic vector types (GCC/Clang vector_size), which each instruction set maps to
 * its own registers; none of the sets enables FMA, so a*b+c is never fused and every set
 * computes the same bits as the reference.
 *
 *   bench  device    promote  ULP type   lanes   when
 *   f32    f16       f32      f32        16      float16 outputs
 *   f32    bf16      f32      f32        16      bfloat16 outputs (read as float32)
 *   f32    f32       f32      f64        8       float32 outputs with a float32 bench (conv)
 *   f64    f32       f64      f64        8       float32 outputs
 *   f64    f64       f64      f64        8       float64 outputs
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "metrics_impl.h"
#include "precheck/core/convert.h"

/* Every product and sum is rounded on its own, as numpy does; GCC never fuses a*b+c in ISO C
 * mode, clang would (and its AVX-512 target has FMA). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

typedef double v8d __attribute__((vector_size(64)));
typedef float v8f __attribute__((vector_size(32)));
typedef int64_t v8l __attribute__((vector_size(64)));
typedef int32_t v8i __attribute__((vector_size(32)));
typedef float v16f __attribute__((vector_size(64)));
typedef double v16d __attribute__((vector_size(128)));
typedef int32_t v16i __attribute__((vector_size(64)));
typedef int64_t v16l __attribute__((vector_size(128)));
typedef uint8_t v8b __attribute__((vector_size(8)));
typedef uint8_t v16b __attribute__((vector_size(16)));

/* x broadcast to every lane of a vector of type T */
#define VSPLAT(T, x) ((T){0} + (__typeof__(((T){0})[0]))(x))
/* lane-wise m ? a : b, for masks of all ones / all zeros; V is the value type, M the mask's */
#define VSEL(V, M, m, a, b) ((V)((((M)(a)) & (m)) | (((M)(b)) & ~(m))))
#define VSEL_INT(m, a, b)   (((a) & (m)) | ((b) & ~(m)))
/* |x| by clearing the sign bits */
#define VABS(V, M, x)                                                                              \
    ((V)(((M)(x)) & VSPLAT(M, sizeof(((M){0})[0]) == 4 ? (int64_t)INT32_MAX : INT64_MAX)))
#define CVT(x, T) __builtin_convertvector((x), T)

/* dst = eight values of a float or double array, as a vector of doubles */
#define LOAD8_F64_FROM_F32(dst, p)                                                                 \
    do {                                                                                           \
        v8f v_;                                                                                    \
        memcpy(&v_, (p), sizeof v_);                                                               \
        (dst) = __builtin_convertvector(v_, v8d);                                                  \
    } while (0)
#define LOAD8_F64_FROM_F64(dst, p) memcpy(&(dst), (p), sizeof(dst))

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_X86_SETS 1
#else
#define HAVE_X86_SETS 0
#endif

#define TARGET_AVX512 __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq")))
#define TARGET_AVX2   __attribute__((target("avx2")))
#define TARGET_BASE

#if HAVE_X86_SETS
#include <immintrin.h>

/* Sixteen floats rounded to float16 and back (round to nearest even; NaN payloads as the
 * project's converters keep them). */
static inline TARGET_AVX512 v16f cast_f16_ps16(v16f v)
{
    /* (the zero-masking form with every lane kept: the plain one's macro, which gcc uses when not
     * optimising, passes its mask as -1 and trips -Wsign-conversion) */
    const __mmask16 all = 0xFFFF;
    return (v16f)_mm512_cvtph_ps(_mm512_maskz_cvtps_ph(all, (__m512)v, _MM_FROUND_TO_NEAREST_INT));
}

/* Sixteen float16 or bfloat16 values from their storage, widened to float in registers (exact,
 * as the scalar converters are). */
static inline TARGET_AVX512 v16f load_f16_ps16(const uint16_t *p)
{
    return (v16f)_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)p));
}

static inline TARGET_AVX512 v16f load_bf16_ps16(const uint16_t *p)
{
    __m512i w = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)p));
    return (v16f)_mm512_castsi512_ps(_mm512_slli_epi32(w, 16));
}

/* Half h (0: lanes 0-7, 1: lanes 8-15) of sixteen floats, as eight floats or widened to eight
 * doubles. */
static inline TARGET_AVX512 v8f half_ps_ps16(v16f v, int h)
{
    return (v8f)(h ? _mm512_extractf32x8_ps((__m512)v, 1) : _mm512_castps512_ps256((__m512)v));
}

static inline TARGET_AVX512 v8d half_pd_ps16(v16f v, int h)
{
    return (v8d)_mm512_cvtps_pd((__m256)half_ps_ps16(v, h));
}

/* c + 1 in the lanes where a < b (ordered: NaN compares false, as C's < does). */
static inline TARGET_AVX512 v16i count_lt_ps16(v16i c, v16f a, v16f b)
{
    __mmask16 k = _mm512_cmp_ps_mask((__m512)a, (__m512)b, _CMP_LT_OQ);
    return (v16i)_mm512_mask_sub_epi32((__m512i)c, k, (__m512i)c, _mm512_set1_epi32(-1));
}

/* Eight floats widened to doubles, and eight 32-bit lane masks to 64-bit ones, each in one
 * instruction (vcvtps2pd, vpmovsxdq): GCC lowers __builtin_convertvector of these 256 -> 512-bit
 * conversions to two halves and an insert. Exact, so the same values. */
static inline TARGET_AVX512 v8d widen_ps8(v8f v)
{
    return (v8d)_mm512_cvtps_pd((__m256)v);
}

static inline TARGET_AVX512 v8l widen_mask8(v8i m)
{
    return (v8l)_mm512_cvtepi32_epi64((__m256i)m);
}

/* x > m ? x : m per lane in one instruction: vmaxpd/vmaxps return their second operand unless
 * the first is greater (so a NaN x, or equal zeros, keep m), the kernel's compare-and-select. */
static inline TARGET_AVX512 v8d max_pd8(v8d x, v8d m)
{
    return (v8d)_mm512_max_pd((__m512d)x, (__m512d)m);
}

static inline TARGET_AVX512 v8f max_ps8(v8f x, v8f m)
{
    return (v8f)_mm256_max_ps((__m256)x, (__m256)m);
}

/* The maxima of |d - b|, |d| and |b| over a chunk of float64 bench b and float32 device d as
 * max_nan's running loop gives them, eight lanes at a time: the loop's result is the plain
 * maximum when no NaN occurs, else the last NaN in element order (a NaN replaces the running
 * value; nothing replaces a NaN but a later NaN). So each lane keeps its plain maximum (vmaxpd
 * skips a NaN x), its last NaN and that NaN's index; the lane with the latest NaN, if any,
 * gives the result, and the tail continues the loop element by element. */
static TARGET_AVX512 void nan_maxima_f64_f32(const double *bch, const float *dev, int64_t len,
                                             chunk_acc *a)
{
    __m512d mx[3], nan_v[3];
    __m512i nan_i[3];
    for (int k = 0; k < 3; k++) {
        mx[k] = _mm512_set1_pd(-HUGE_VAL);
        nan_v[k] = _mm512_setzero_pd();
        nan_i[k] = _mm512_set1_epi64(-1);
    }
    __m512i idx = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    const __m512i eight = _mm512_set1_epi64(8);
    int64_t i = 0;
    for (; i + 8 <= len; i += 8) {
        __m512d b = _mm512_loadu_pd(bch + i), d = _mm512_cvtps_pd(_mm256_loadu_ps(dev + i));
        __m512d x[3] = {_mm512_abs_pd(_mm512_sub_pd(d, b)), _mm512_abs_pd(d), _mm512_abs_pd(b)};
        for (int k = 0; k < 3; k++) {
            __mmask8 nan = _mm512_cmp_pd_mask(x[k], x[k], _CMP_UNORD_Q);
            mx[k] = _mm512_max_pd(x[k], mx[k]);
            nan_v[k] = _mm512_mask_mov_pd(nan_v[k], nan, x[k]);
            nan_i[k] = _mm512_mask_mov_epi64(nan_i[k], nan, idx);
        }
        idx = _mm512_add_epi64(idx, eight);
    }
    double r[3];
    for (int k = 0; k < 3; k++) {
        double m[8], v[8];
        int64_t at[8];
        _mm512_storeu_pd(m, mx[k]);
        _mm512_storeu_pd(v, nan_v[k]);
        _mm512_storeu_si512((void *)at, nan_i[k]);
        int last = -1;
        r[k] = -HUGE_VAL;
        for (int j = 0; j < 8; j++) {
            r[k] = max_nan(r[k], m[j]); /* no NaN among the plain maxima */
            if (at[j] >= 0 && (last < 0 || at[j] > at[last]))
                last = j;
        }
        if (last >= 0)
            r[k] = v[last];
    }
    for (; i < len; i++) {
        double b = bch[i], d = (double)dev[i];
        r[0] = max_nan(r[0], fabs(d - b));
        r[1] = max_nan(r[1], fabs(d));
        r[2] = max_nan(r[2], fabs(b));
    }
    a->max_ae = r[0];
    a->max_ad = r[1];
    a->max_ab = r[2];
}

#define LOAD8_F64_WIDEN(dst, p)                                                                    \
    do {                                                                                           \
        v8f v_;                                                                                    \
        memcpy(&v_, (p), sizeof v_);                                                               \
        (dst) = widen_ps8(v_);                                                                     \
    } while (0)

/* The same for eight doubles and 64-bit counters (k_f64_f32): one compare into a mask register
 * and one masked subtraction, where the vector comparison would be widened to a vector of
 * -1/0 before being subtracted. */
static inline TARGET_AVX512 v8l count_lt_pd8(v8l c, v8d a, v8d b)
{
    __mmask8 k = _mm512_cmp_pd_mask((__m512d)a, (__m512d)b, _CMP_LT_OQ);
    return (v8l)_mm512_mask_sub_epi64((__m512i)c, k, (__m512i)c, _mm512_set1_epi64(-1));
}

/* Compress-stores for the AVX-512 kernels: the lanes of v whose keep lane is all ones, packed
 * to dst in order; returns how many. They are packed in a register and stored as a whole vector
 * (a masked compress-store to memory is several times slower), so dst needs room for all the
 * lanes; those past the packed ones hold nothing and are overwritten by the next store. */
static inline TARGET_AVX512 size_t compress_ps16(float *dst, v16i keep, v16f v)
{
    __mmask16 m = _mm512_movepi32_mask((__m512i)keep);
    _mm512_storeu_ps(dst, _mm512_maskz_compress_ps(m, (__m512)v));
    return (size_t)__builtin_popcount(m);
}

static inline TARGET_AVX512 size_t compress_ps8(float *dst, v8i keep, v8f v)
{
    __mmask8 m = _mm256_movepi32_mask((__m256i)keep);
    _mm256_storeu_ps(dst, _mm256_maskz_compress_ps(m, (__m256)v));
    return (size_t)__builtin_popcount(m);
}

static inline TARGET_AVX512 size_t compress_pd8(double *dst, v8l keep, v8d v)
{
    __mmask8 m = _mm512_movepi64_mask((__m512i)keep);
    _mm512_storeu_pd(dst, _mm512_maskz_compress_pd(m, (__m512d)v));
    return (size_t)__builtin_popcount(m);
}
#endif

/* ---- k_f32_f16: bench float, device float (from float16), promote float, ULP float ---- */
#define KW                  16
#define KFLAGS              v16b
#define TB                  float
#define TD                  float
#define TP                  float
#define TU                  float
#define VB                  v16f
#define VD                  v16f
#define VP                  v16f
#define VU                  v16f
#define MB                  v16i
#define MD                  v16i
#define MP                  v16i
#define MU                  v16i
#define VSEL_B(m, a, b)     VSEL(v16f, v16i, m, a, b)
#define VABS_B(x)           VABS(v16f, v16i, x)
#define VSEL_D(m, a, b)     VSEL(v16f, v16i, m, a, b)
#define VABS_D(x)           VABS(v16f, v16i, x)
#define VSEL_P(m, a, b)     VSEL(v16f, v16i, m, a, b)
#define VABS_P(x)           VABS(v16f, v16i, x)
#define VSEL_U(m, a, b)     VSEL(v16f, v16i, m, a, b)
#define VABS_U(x)           VABS(v16f, v16i, x)
#define VSEL_MB(m, a, b)    VSEL_INT(m, a, b)
#define KB_TO_P(x)          (x)
#define KD_TO_P(x)          (x)
#define KB_TO_D(x)          (x)
#define KB_TO_U(x)          (x)
#define KD_TO_U(x)          (x)
#define KD_MASK_TO_P(x)     (x)
#define KB_MASK_TO_P(x)     (x)
#define KB_INT_TO_P(x)      (x)
#define KB_MASK_TO_U(x)     (x)
#define KB_LOAD_F64(dst, p) LOAD8_F64_FROM_F32(dst, p)
#define KD_LOAD_F64(dst, p) LOAD8_F64_FROM_F32(dst, p)
#define KB_UINT             uint32_t
#define KB_MANT             23
#define KB_BIAS             127
#define KB_EXPMAX           255
#define KB_MAX              FLT_MAX
#define KPAIRWISE_TP        pc_np_pairwise_f32
#define KPAIRWISE_TU        pc_np_pairwise_f32
#define DEV_CONVERT         1
#define DEV_LOAD            pc_convert_f16_to_f32
#define CAST_F16            1
#define KPAIR               k_f32_f16
#define K512_KCOMPRESS      compress_ps16
#define K512_KCAST_F16      cast_f16_ps16
#define K512_KDEV_VLOAD     load_f16_ps16
#define K512_KHALF_F64      half_pd_ps16
#define K512_KHALF_F32      half_ps_ps16
#define K512_KCOUNT_LT      count_lt_ps16
#define K512_KDEV_SCALAR    pc_f16_to_f32
#include "metrics_kernel_isas.inc"

/* ---- k_f32_bf16: bench float, device float (from float16), promote float, ULP float ---- */
#define KW                  16
#define KFLAGS              v16b
#define TB                  float
#define TD                  float
#define TP                  float
#define TU                  float
#define VB                  v16f
#define VD                  v16f
#define VP                  v16f
#define VU                  v16f
#define MB                  v16i
#define MD                  v16i
#define MP                  v16i
#define MU                  v16i
#define VSEL_B(m, a, b)     VSEL(v16f, v16i, m, a, b)
#define VABS_B(x)           VABS(v16f, v16i, x)
#define VSEL_D(m, a, b)     VSEL(v16f, v16i, m, a, b)
#define VABS_D(x)           VABS(v16f, v16i, x)
#define VSEL_P(m, a, b)     VSEL(v16f, v16i, m, a, b)
#define VABS_P(x)           VABS(v16f, v16i, x)
#define VSEL_U(m, a, b)     VSEL(v16f, v16i, m, a, b)
#define VABS_U(x)           VABS(v16f, v16i, x)
#define VSEL_MB(m, a, b)    VSEL_INT(m, a, b)
#define KB_TO_P(x)          (x)
#define KD_TO_P(x)          (x)
#define KB_TO_D(x)          (x)
#define KB_TO_U(x)          (x)
#define KD_TO_U(x)          (x)
#define KD_MASK_TO_P(x)     (x)
#define KB_MASK_TO_P(x)     (x)
#define KB_INT_TO_P(x)      (x)
#define KB_MASK_TO_U(x)     (x)
#define KB_LOAD_F64(dst, p) LOAD8_F64_FROM_F32(dst, p)
#define KD_LOAD_F64(dst, p) LOAD8_F64_FROM_F32(dst, p)
#define KB_UINT             uint32_t
#define KB_MANT             23
#define KB_BIAS             127
#define KB_EXPMAX           255
#define KB_MAX              FLT_MAX
#define KPAIRWISE_TP        pc_np_pairwise_f32
#define KPAIRWISE_TU        pc_np_pairwise_f32
#define DEV_CONVERT         1
#define DEV_LOAD            pc_convert_bf16_to_f32
#define CAST_F16            0
#define KPAIR               k_f32_bf16
#define K512_KCOMPRESS      compress_ps16
#define K512_KDEV_VLOAD     load_bf16_ps16
#define K512_KHALF_F64      half_pd_ps16
#define K512_KHALF_F32      half_ps_ps16
#define K512_KCOUNT_LT      count_lt_ps16
#define K512_KDEV_SCALAR    pc_bf16_to_f32
#include "metrics_kernel_isas.inc"

/* ---- k_f32_f32: bench float, device float, promote float, ULP double ---- */
#define KW                  8
#define KFLAGS              v8b
#define TB                  float
#define TD                  float
#define TP                  float
#define TU                  double
#define VB                  v8f
#define VD                  v8f
#define VP                  v8f
#define VU                  v8d
#define MB                  v8i
#define MD                  v8i
#define MP                  v8i
#define MU                  v8l
#define VSEL_B(m, a, b)     VSEL(v8f, v8i, m, a, b)
#define VABS_B(x)           VABS(v8f, v8i, x)
#define VSEL_D(m, a, b)     VSEL(v8f, v8i, m, a, b)
#define VABS_D(x)           VABS(v8f, v8i, x)
#define VSEL_P(m, a, b)     VSEL(v8f, v8i, m, a, b)
#define VABS_P(x)           VABS(v8f, v8i, x)
#define VSEL_U(m, a, b)     VSEL(v8d, v8l, m, a, b)
#define VABS_U(x)           VABS(v8d, v8l, x)
#define VSEL_MB(m, a, b)    VSEL_INT(m, a, b)
#define KB_TO_P(x)          (x)
#define KD_TO_P(x)          (x)
#define KB_TO_D(x)          (x)
#define KB_TO_U(x)          CVT(x, v8d)
#define KD_TO_U(x)          CVT(x, v8d)
#define KD_MASK_TO_P(x)     (x)
#define KB_MASK_TO_P(x)     (x)
#define KB_INT_TO_P(x)      (x)
#define KB_MASK_TO_U(x)     CVT(x, v8l)
#define KB_LOAD_F64(dst, p) LOAD8_F64_FROM_F32(dst, p)
#define KD_LOAD_F64(dst, p) LOAD8_F64_FROM_F32(dst, p)
#define KB_UINT             uint32_t
#define KB_MANT             23
#define KB_BIAS             127
#define KB_EXPMAX           255
#define KB_MAX              FLT_MAX
#define KPAIRWISE_TP        pc_np_pairwise_f32
#define KPAIRWISE_TU        pc_np_pairwise_f64
#define DEV_CONVERT         0
#define CAST_F16            0
#define KPAIR               k_f32_f32
#define K512_KCOMPRESS      compress_ps8
#include "metrics_kernel_isas.inc"

/* ---- k_f64_f32: bench double, device float, promote double, ULP double ---- */
#define KW                  8
#define KFLAGS              v8b
#define TB                  double
#define TD                  float
#define TP                  double
#define TU                  double
#define VB                  v8d
#define VD                  v8f
#define VP                  v8d
#define VU                  v8d
#define MB                  v8l
#define MD                  v8i
#define MP                  v8l
#define MU                  v8l
#define VSEL_B(m, a, b)     VSEL(v8d, v8l, m, a, b)
#define VABS_B(x)           VABS(v8d, v8l, x)
#define VSEL_D(m, a, b)     VSEL(v8f, v8i, m, a, b)
#define VABS_D(x)           VABS(v8f, v8i, x)
#define VSEL_P(m, a, b)     VSEL(v8d, v8l, m, a, b)
#define VABS_P(x)           VABS(v8d, v8l, x)
#define VSEL_U(m, a, b)     VSEL(v8d, v8l, m, a, b)
#define VABS_U(x)           VABS(v8d, v8l, x)
#define VSEL_MB(m, a, b)    VSEL_INT(m, a, b)
#define KB_TO_P(x)          (x)
#define KD_TO_P(x)          CVT(x, v8d)
#define KB_TO_D(x)          CVT(x, v8f)
#define KB_TO_U(x)          (x)
#define KD_TO_U(x)          CVT(x, v8d)
#define KD_MASK_TO_P(x)     CVT(x, v8l)
#define KB_MASK_TO_P(x)     (x)
#define KB_INT_TO_P(x)      (x)
#define KB_MASK_TO_U(x)     (x)
#define KB_LOAD_F64(dst, p) LOAD8_F64_FROM_F64(dst, p)
#define KD_LOAD_F64(dst, p) LOAD8_F64_FROM_F32(dst, p)
#define KB_UINT             uint64_t
#define KB_MANT             52
#define KB_BIAS             1023
#define KB_EXPMAX           2047
#define KB_MAX              DBL_MAX
#define KPAIRWISE_TP        pc_np_pairwise_f64
#define KPAIRWISE_TU        pc_np_pairwise_f64
#define DEV_CONVERT         0
#define CAST_F16            0
#define KPAIR               k_f64_f32
#define K512_KCOMPRESS      compress_pd8
#define K512_KCOUNT_LT      count_lt_pd8
#define K512_KD_TO_P        widen_ps8
#define K512_KD_TO_U        widen_ps8
#define K512_KD_MASK_TO_P   widen_mask8
#define K512_KD_LOAD_F64    LOAD8_F64_WIDEN
#define K512_KMAX_P         max_pd8
#define K512_KMAXIMA_NAN    nan_maxima_f64_f32
#define K512_KMAX_D         max_ps8
#define K512_KMAX_B         max_pd8
#define K512_KMAX_U         max_pd8
#include "metrics_kernel_isas.inc"

/* ---- k_f64_f64: bench double, device double, promote double, ULP double ---- */
#define KW                  8
#define KFLAGS              v8b
#define TB                  double
#define TD                  double
#define TP                  double
#define TU                  double
#define VB                  v8d
#define VD                  v8d
#define VP                  v8d
#define VU                  v8d
#define MB                  v8l
#define MD                  v8l
#define MP                  v8l
#define MU                  v8l
#define VSEL_B(m, a, b)     VSEL(v8d, v8l, m, a, b)
#define VABS_B(x)           VABS(v8d, v8l, x)
#define VSEL_D(m, a, b)     VSEL(v8d, v8l, m, a, b)
#define VABS_D(x)           VABS(v8d, v8l, x)
#define VSEL_P(m, a, b)     VSEL(v8d, v8l, m, a, b)
#define VABS_P(x)           VABS(v8d, v8l, x)
#define VSEL_U(m, a, b)     VSEL(v8d, v8l, m, a, b)
#define VABS_U(x)           VABS(v8d, v8l, x)
#define VSEL_MB(m, a, b)    VSEL_INT(m, a, b)
#define KB_TO_P(x)          (x)
#define KD_TO_P(x)          (x)
#define KB_TO_D(x)          (x)
#define KB_TO_U(x)          (x)
#define KD_TO_U(x)          (x)
#define KD_MASK_TO_P(x)     (x)
#define KB_MASK_TO_P(x)     (x)
#define KB_INT_TO_P(x)      (x)
#define KB_MASK_TO_U(x)     (x)
#define KB_LOAD_F64(dst, p) LOAD8_F64_FROM_F64(dst, p)
#define KD_LOAD_F64(dst, p) LOAD8_F64_FROM_F64(dst, p)
#define KB_UINT             uint64_t
#define KB_MANT             52
#define KB_BIAS             1023
#define KB_EXPMAX           2047
#define KB_MAX              DBL_MAX
#define KPAIRWISE_TP        pc_np_pairwise_f64
#define KPAIRWISE_TU        pc_np_pairwise_f64
#define DEV_CONVERT         0
#define CAST_F16            0
#define KPAIR               k_f64_f64
#define K512_KCOMPRESS      compress_pd8
#include "metrics_kernel_isas.inc"

typedef struct kernel_row {
    pc_dtype bench, device;
    np_type ulp;    /* the ULP computation type the kernel uses */
    chunk_fn fn[3]; /* baseline, AVX2, AVX-512 */
} kernel_row;

#if HAVE_X86_SETS
#define KROW(b, d, u, name)                                                                        \
    {                                                                                              \
        b, d, u,                                                                                   \
        {                                                                                          \
            name##_base_chunk, name##_avx2_chunk, name##_avx512_chunk                              \
        }                                                                                          \
    }
#else
#define KROW(b, d, u, name)                                                                        \
    {                                                                                              \
        b, d, u,                                                                                   \
        {                                                                                          \
            name##_base_chunk, name##_base_chunk, name##_base_chunk                                \
        }                                                                                          \
    }
#endif

static const kernel_row kernels[] = {
    KROW(PC_DTYPE_F32, PC_DTYPE_F16, NP_F32, k_f32_f16),
    KROW(PC_DTYPE_F32, PC_DTYPE_BF16, NP_F32, k_f32_bf16),
    KROW(PC_DTYPE_F32, PC_DTYPE_F32, NP_F64, k_f32_f32),
    KROW(PC_DTYPE_F64, PC_DTYPE_F32, NP_F64, k_f64_f32),
    KROW(PC_DTYPE_F64, PC_DTYPE_F64, NP_F64, k_f64_f64),
};

static int cpu_level(void)
{
#if HAVE_X86_SETS
    static int level = -1;
    if (level < 0) {
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
            __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq"))
            level = 2;
        else if (__builtin_cpu_supports("avx2"))
            level = 1;
        else
            level = 0;
    }
    return level;
#else
    return 0;
#endif
}

static int level_cap = -1;

int pc_cmp_metrics_fast_set_isa(int level)
{
    level_cap = level;
    return level < 0 ? cpu_level() : level;
}

chunk_fn pc_cmp_fast_chunk_for(const metrics_plan *p, const pc_metrics_input *in)
{
    if (p->zero_dim || p->pc_cmp_ulp_fp8)
        return NULL;
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        const kernel_row *k = &kernels[i];
        if (k->bench != in->bench_dtype || k->device != in->device_dtype)
            continue;
        if ((p->groups & GROUP_ULP) && k->ulp != p->t_ulp)
            return NULL;
        int level = cpu_level();
        if (level_cap >= 0 && level_cap < level)
            level = level_cap;
        return k->fn[level];
    }
    return NULL;
}
