/*
 * AVX2 + F16C conversion kernels. Compiled with per-function target attributes so that the
 * rest of the program stays baseline x86-64; the dispatcher in convert.c only calls these
 * after checking the CPU. Each gives exactly the bits of the portable path (tests check every
 * input pattern), including NaN payloads.
 */
#include "core/convert_impl.h"

#if defined(__x86_64__) || defined(__i386__)

#include <immintrin.h>

#define PC_TARGET_AVX2 __attribute__((target("avx2,f16c")))

PC_TARGET_AVX2 void pc_convert_f32_to_f16_avx2(uint16_t *dst, const float *src, size_t n)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i a = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);
        __m128i b = _mm256_cvtps_ph(_mm256_loadu_ps(src + i + 8), _MM_FROUND_TO_NEAREST_INT);
        _mm_storeu_si128((__m128i *)(dst + i), a);
        _mm_storeu_si128((__m128i *)(dst + i + 8), b);
    }
    if (i < n)
        pc_convert_f32_to_f16_portable(dst + i, src + i, n - i);
}

PC_TARGET_AVX2 void pc_convert_f16_to_f32_avx2(float *dst, const uint16_t *src, size_t n)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256 a = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(src + i)));
        __m256 b = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(src + i + 8)));
        _mm256_storeu_ps(dst + i, a);
        _mm256_storeu_ps(dst + i + 8, b);
    }
    if (i < n)
        pc_convert_f16_to_f32_portable(dst + i, src + i, n - i);
}

/* Eight float32 -> eight bfloat16 in the low halves of 32-bit lanes: round to nearest even by
 * adding 0x7fff plus the kept lowest bit; NaN keeps its leading payload with the quiet bit. */
PC_TARGET_AVX2 static inline __m256i bf16_round8(__m256i x)
{
    const __m256i one = _mm256_set1_epi32(1);
    const __m256i bias = _mm256_set1_epi32(0x7fff);
    const __m256i abs_mask = _mm256_set1_epi32(0x7fffffff);
    const __m256i inf = _mm256_set1_epi32(0x7f800000);
    const __m256i quiet = _mm256_set1_epi32(0x00400000);
    __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(x, 16), one);
    __m256i rounded = _mm256_add_epi32(x, _mm256_add_epi32(bias, lsb));
    __m256i is_nan = _mm256_cmpgt_epi32(_mm256_and_si256(x, abs_mask), inf);
    __m256i nan = _mm256_or_si256(x, quiet);
    return _mm256_srli_epi32(_mm256_blendv_epi8(rounded, nan, is_nan), 16);
}

PC_TARGET_AVX2 void pc_convert_f32_to_bf16_avx2(uint16_t *dst, const float *src, size_t n)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256i a = bf16_round8(_mm256_loadu_si256((const __m256i *)(src + i)));
        __m256i b = bf16_round8(_mm256_loadu_si256((const __m256i *)(src + i + 8)));
        /* packus works per 128-bit lane: a0-3 b0-3 a4-7 b4-7; put the quarters in order */
        __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xd8);
        _mm256_storeu_si256((__m256i *)(dst + i), packed);
    }
    if (i < n)
        pc_convert_f32_to_bf16_portable(dst + i, src + i, n - i);
}

PC_TARGET_AVX2 void pc_convert_bf16_to_f32_avx2(float *dst, const uint16_t *src, size_t n)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256i a = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(src + i)));
        __m256i b = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(src + i + 8)));
        _mm256_storeu_si256((__m256i *)(dst + i), _mm256_slli_epi32(a, 16));
        _mm256_storeu_si256((__m256i *)(dst + i + 8), _mm256_slli_epi32(b, 16));
    }
    if (i < n)
        pc_convert_bf16_to_f32_portable(dst + i, src + i, n - i);
}

#else /* not x86: the dispatcher never selects these, but keep the symbols */

void pc_convert_f32_to_f16_avx2(uint16_t *dst, const float *src, size_t n)
{
    pc_convert_f32_to_f16_portable(dst, src, n);
}

void pc_convert_f16_to_f32_avx2(float *dst, const uint16_t *src, size_t n)
{
    pc_convert_f16_to_f32_portable(dst, src, n);
}

void pc_convert_f32_to_bf16_avx2(uint16_t *dst, const float *src, size_t n)
{
    pc_convert_f32_to_bf16_portable(dst, src, n);
}

void pc_convert_bf16_to_f32_avx2(float *dst, const uint16_t *src, size_t n)
{
    pc_convert_bf16_to_f32_portable(dst, src, n);
}

#endif
