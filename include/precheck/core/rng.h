/*
 * The deterministic, counter-based random generator: Philox4x32-10 (Salmon et al., "Parallel
 * random numbers: as easy as 1, 2, 3", SC'11; the Random123 library) driven by streams keyed by
 * (seed, string key).
 *
 * A generated value depends ONLY on (seed, key, element index) -- never on call order, on which
 * other values were computed, or on the number of threads -- so the same dump gives the same
 * inputs on every machine, and a tensor may be filled in any order or in parallel chunks.
 *
 * Nothing here allocates, fails or keeps global state; a pc_rng_stream is a small value that
 * the caller owns (copy it freely) and that is only read after pc_rng_stream_init(). All
 * functions are thread-safe.
 *
 * COMPATIBILITY PROMISE. The derivation below is part of the output format: changing any of it
 * (the hash, the constants, the counter layout, which output words are used, how a uniform or an
 * integer is formed from them) changes every generated input of every API, and old results can
 * no longer be reproduced. tests/core/test_rng.c pins golden values; do not update them lightly.
 *
 *   Stream key. h = FNV-1a-64 over the bytes of the key string (NULL is the empty string), then
 *   s = mix64(seed ^ 0x9E3779B97F4A7C15), k = mix64(h ^ s), t = mix64(k + 0x6A09E667F3BCC909),
 *   where mix64 is the splitmix64 finaliser (xor-shift 30, * 0xBF58476D1CE4E5B9, xor-shift 27,
 *   * 0x94D049BB133111EB, xor-shift 31). The Philox key is {low32(k), high32(k)} and the stream
 *   salt is high32(t).
 *
 *   Counter of one Philox block: ctr[0] = low32(index), ctr[1] = high32(index), ctr[2] = draw,
 *   ctr[3] = salt. "index" is the element index (64 bits); "draw" is the attempt number within
 *   that element (0 for the first value, 1, 2, ... for rejection sampling).
 *
 *   u64 of a block: (uint64_t)out[1] << 32 | out[0].
 *   Uniform: k = u64(index, draw 0) >> (64 - (m + 1)), value k * 2^-(m + 1).
 *   Integer in [lo, hi], span = hi - lo + 1: Lemire's method, x = u64(index, draw) for draw 0,
 *   1, 2, ... until low64(x * span) >= 2^64 mod span, value lo + high64(x * span); the full int64
 *   range (span 2^64) takes lo + u64(index, 0) directly.
 */
#ifndef PC_CORE_RNG_H
#define PC_CORE_RNG_H

#include <stddef.h>
#include <stdint.h>

#include "precheck/core/dtype.h"

/* One Philox4x32-10 block: out = Philox(ctr, key). out may not alias ctr or key. */
void pc_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

/* A stream: the Philox key and the counter salt derived from (seed, key string). */
typedef struct pc_rng_stream {
    uint32_t key[2];
    uint32_t salt;
} pc_rng_stream;

/* Derives the stream of (seed, key), e.g. key "Functional.linear.0.forward/args/0". The string
 * is only read during the call; NULL is treated as "". */
void pc_rng_stream_init(pc_rng_stream *s, uint64_t seed, const char *key);

/* Raw access: the Philox block of (index, draw), and its first two words as one u64. */
void pc_rng_block(const pc_rng_stream *s, uint64_t index, uint32_t draw, uint32_t out[4]);
uint64_t pc_rng_u64(const pc_rng_stream *s, uint64_t index, uint32_t draw);

/*
 * A uniform value in [0, 1) generated directly for a float dtype: k * 2^-(m+1) with k uniform in
 * [0, 2^(m+1)), m = the dtype's explicit mantissa bits (float16: 11 random bits, bfloat16 8,
 * float32 24, float64 53, float8_e4m3fn 4, float8_e5m2 3). The value is exactly representable in
 * that dtype, so converting it can never round up to 1.0. Complex dtypes use their component's
 * bits. Any other dtype (bool, integers, PC_DTYPE_INVALID or out-of-range values) is treated as
 * float64; this never fails.
 */
double pc_rng_uniform(const pc_rng_stream *s, uint64_t index, pc_dtype dtype);

/* out[i] = pc_rng_u64(s, first_index + i, 0), sixteen elements at a time in SIMD lanes. */
void pc_rng_fill_u64(const pc_rng_stream *s, uint64_t first_index, uint64_t *out, size_t n);

/* out[i] = pc_rng_uniform(s, first_index + i, dtype) for a dtype of at most 23 explicit
 * mantissa bits (float16, bfloat16, float32, float8), as floats. */
void pc_rng_fill_uniform(const pc_rng_stream *s, uint64_t first_index, pc_dtype dtype, float *out,
                         size_t n);

/* Buffer fills: out[i] is pc_rng_uniform(s, first_index + i, PC_DTYPE_F32 / PC_DTYPE_F64) bit
 * for bit. out must hold n elements; n == 0 writes nothing. Indices wrap modulo 2^64. */
void pc_rng_fill_uniform_f32(const pc_rng_stream *s, uint64_t first_index, float *out, size_t n);
void pc_rng_fill_uniform_f64(const pc_rng_stream *s, uint64_t first_index, double *out, size_t n);

/* Affine fills in one pass: out[i] = U * scale + low with U = pc_rng_uniform(s, first_index + i,
 * PC_DTYPE_F32 / PC_DTYPE_F64), the product and the sum each rounded to the output's type (never
 * a fused multiply-add): the bits of pc_rng_fill_uniform_f32 / _f64 followed by
 * out[i] = out[i] * scale, out[i] = out[i] + low. Same buffer rules as those. */
void pc_rng_fill_affine_f32(const pc_rng_stream *s, uint64_t first_index, float *out, size_t n,
                            float scale, float low);
void pc_rng_fill_affine_f64(const pc_rng_stream *s, uint64_t first_index, double *out, size_t n,
                            double scale, double low);

/*
 * An integer uniform in the closed range [lo, hi], without modulo bias (Lemire's method; the
 * full int64 range works). lo > hi is not an error: the bounds are swapped, as msprobe swaps
 * low/high. Rejected attempts take further draws of the same index, so the value depends only on
 * (seed, key, index); each attempt is accepted with probability above 1/2, and once all 2^32
 * draws are spent (never seen in practice) the last attempt is kept as is.
 */
int64_t pc_rng_int_range(const pc_rng_stream *s, uint64_t index, int64_t lo, int64_t hi);

/* out[i] = pc_rng_int_range(s, first_index + i, lo, hi) bit for bit, the first draws made by the
 * SIMD fill (only an element whose first draw may be rejected takes the element-wise path).
 * out must hold n elements; n == 0 writes nothing. */
void pc_rng_fill_int_range(const pc_rng_stream *s, uint64_t first_index, int64_t lo, int64_t hi,
                           int64_t *out, size_t n);

#endif
