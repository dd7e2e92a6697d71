#include "precheck/core/rng.h"

#include "precheck/core/hashmap.h"
#include "core/rng_impl.h"

#include <stdatomic.h>

/* Random123's constants for Philox4x32: round multipliers and the Weyl sequence of key bumps
 * (golden ratio and sqrt(3) - 1, scaled to 32 bits). */
static const uint32_t PHILOX_M0 = 0xD2511F53u;
static const uint32_t PHILOX_M1 = 0xCD9E8D57u;
static const uint32_t PHILOX_W0 = 0x9E3779B9u;
static const uint32_t PHILOX_W1 = 0xBB67AE85u;

/* Everything below builds on philox_block(); keeping it static inline lets the fills unroll and
 * vectorise it instead of paying a call per element. */
static inline void philox_round(uint32_t c[4], uint32_t k0, uint32_t k1)
{
    uint64_t p0 = (uint64_t)PHILOX_M0 * c[0];
    uint64_t p1 = (uint64_t)PHILOX_M1 * c[2];
    uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
    uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
    uint32_t c1 = c[1], c3 = c[3];
    c[0] = hi1 ^ c1 ^ k0;
    c[1] = lo1;
    c[2] = hi0 ^ c3 ^ k1;
    c[3] = lo0;
}

static inline void philox_block(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
    uint32_t c[4] = {ctr[0], ctr[1], ctr[2], ctr[3]};
    uint32_t k0 = key[0], k1 = key[1];
    for (int r = 0; r < 10; r++) {
        philox_round(c, k0, k1);
        k0 += PHILOX_W0;
        k1 += PHILOX_W1;
    }
    out[0] = c[0];
    out[1] = c[1];
    out[2] = c[2];
    out[3] = c[3];
}

void pc_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
    philox_block(ctr, key, out);
}

/* splitmix64's finaliser (Stafford's Mix13): a bijection in which every input bit affects every
 * output bit, so nearby seeds and keys that differ in one byte give unrelated streams. */
static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9u;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBu;
    x ^= x >> 31;
    return x;
}

void pc_rng_stream_init(pc_rng_stream *s, uint64_t seed, const char *key)
{
    uint64_t h = pc_hash_fnv1a64_str(key); /* NULL hashes as "" */
    uint64_t k = mix64(h ^ mix64(seed ^ 0x9E3779B97F4A7C15u));
    uint64_t t = mix64(k + 0x6A09E667F3BCC909u);
    s->key[0] = (uint32_t)k;
    s->key[1] = (uint32_t)(k >> 32);
    s->salt = (uint32_t)(t >> 32);
}

static inline uint64_t stream_u64(const pc_rng_stream *s, uint64_t index, uint32_t draw)
{
    uint32_t ctr[4] = {(uint32_t)index, (uint32_t)(index >> 32), draw, s->salt};
    uint32_t out[4];
    philox_block(ctr, s->key, out);
    return (uint64_t)out[1] << 32 | out[0];
}

void pc_rng_block(const pc_rng_stream *s, uint64_t index, uint32_t draw, uint32_t out[4])
{
    uint32_t ctr[4] = {(uint32_t)index, (uint32_t)(index >> 32), draw, s->salt};
    philox_block(ctr, s->key, out);
}

uint64_t pc_rng_u64(const pc_rng_stream *s, uint64_t index, uint32_t draw)
{
    return stream_u64(s, index, draw);
}

/* Random bits of a uniform for a dtype: m + 1, so that the grid k * 2^-(m+1) has the dtype's
 * spacing in [0.5, 1); below 0.5 the dtype is finer still, so every grid point is exact. */
static int uniform_bits(pc_dtype dtype)
{
    if ((unsigned)dtype >= PC_DTYPE_COUNT)
        return 53;
    const pc_dtype_traits *t = pc_dtype_traits_of(dtype);
    if (t->kind != PC_KIND_FLOAT && t->kind != PC_KIND_COMPLEX)
        return 53;
    return t->mantissa_bits + 1;
}

double pc_rng_uniform(const pc_rng_stream *s, uint64_t index, pc_dtype dtype)
{
    int bits = uniform_bits(dtype);
    uint64_t k = stream_u64(s, index, 0) >> (64 - bits);
    /* k < 2^bits <= 2^53 converts exactly, and scaling by a power of two is exact. */
    return (double)k / (double)(UINT64_C(1) << bits);
}

/* Sixteen counters at once: the same rounds as philox_block on the compiler's vector types.
 * A round's 32x32 -> 64-bit products are formed in 64-bit lanes, even and odd counters apart,
 * and their halves put back into the 32-bit lanes with masks and shifts (no narrowing), which
 * every x86-64 and ARM target maps to its SIMD registers. Lane j is index first + j, draw 0;
 * out gets u64 of each lane. */
typedef uint32_t v16u32 __attribute__((vector_size(64)));
typedef uint64_t v8u64 __attribute__((vector_size(64)));

/* hi:lo = a * m per 32-bit lane (a macro: vectors passed by value would change the ABI of
 * the baseline clone) */
#define MULHILO16(a, m, hi, lo)                                                                    \
    do {                                                                                           \
        v8u64 a64_ = (v8u64)(a);                                                                   \
        v8u64 even_ = (a64_ & 0xFFFFFFFFu) * (uint64_t)(m); /* lanes 0, 2, ... (little endian) */  \
        v8u64 odd_ = (a64_ >> 32) * (uint64_t)(m);          /* lanes 1, 3, ... */                  \
        (lo) = (v16u32)((even_ & 0xFFFFFFFFu) | (odd_ << 32));                                     \
        (hi) = (v16u32)((even_ >> 32) | (odd_ & 0xFFFFFFFF00000000u));                             \
    } while (0)

static inline __attribute__((always_inline)) void philox16_u64(const pc_rng_stream *s,
                                                               uint64_t first, uint64_t out[16])
{
    v16u32 c0, c1, c2 = {0}, c3;
    for (int j = 0; j < 16; j++) {
        uint64_t idx = first + (uint64_t)j;
        c0[j] = (uint32_t)idx;
        c1[j] = (uint32_t)(idx >> 32);
        c3[j] = s->salt;
    }
    uint32_t k0 = s->key[0], k1 = s->key[1];
    for (int r = 0; r < 10; r++) {
        v16u32 hi0, lo0, hi1, lo1;
        MULHILO16(c0, PHILOX_M0, hi0, lo0);
        MULHILO16(c2, PHILOX_M1, hi1, lo1);
        v16u32 n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
        c1 = lo1;
        c3 = lo0;
        c0 = n0;
        c2 = n2;
        k0 += PHILOX_W0;
        k1 += PHILOX_W1;
    }
    for (int j = 0; j < 16; j++)
        out[j] = (uint64_t)c1[j] << 32 | c0[j];
}

/* The portable fill (128-bit registers on x86-64, NEON on ARM); x86 CPUs with AVX2 or
 * AVX-512 get the intrinsics copies below, chosen once from the CPU. Integer operations only,
 * so every copy gives the same bits. (GCC's target_clones would do the choosing, but clang 14
 * does not export the cloned symbol from a static library.) */
static void fill_u64_base(const pc_rng_stream *s, uint64_t first, uint64_t *out, size_t n)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        philox16_u64(s, first + i, out + i);
    for (; i < n; i++)
        out[i] = stream_u64(s, first + i, 0);
}

/* A uniform fill in float: k = u64 >> (64 - bits), U = (float)k * unit (unit = 2^-bits, bits
 * <= 24, so both are exact), and when affine U * scale then + low, each rounded to float. */
typedef struct uniform_f32_spec {
    int bits;
    float unit, scale, low;
    bool affine;
} uniform_f32_spec;

/* The same in double: k = u64 >> 11, U = (double)k * 2^-53, then U * scale and + low. */
typedef struct uniform_f64_spec {
    double scale, low;
    bool affine;
} uniform_f64_spec;

static inline float uniform_f32_of(uint64_t x, const uniform_f32_spec *sp)
{
    float u = (float)(int32_t)(x >> (64 - sp->bits)) * sp->unit; /* exact: < 2^24 */
    if (sp->affine) {
        u *= sp->scale; /* two statements: never contracted into a fused multiply-add */
        u += sp->low;
    }
    return u;
}

static inline double uniform_f64_of(uint64_t x, const uniform_f64_spec *sp)
{
    double u = (double)(x >> 11) * 0x1p-53;
    if (sp->affine) {
        u *= sp->scale;
        u += sp->low;
    }
    return u;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* one element of the x86 copies' tails (the portable fill has its own) */
static float uniform_f32_one(const pc_rng_stream *s, uint64_t index, const uniform_f32_spec *sp)
{
    return uniform_f32_of(stream_u64(s, index, 0), sp);
}

static double uniform_f64_one(const pc_rng_stream *s, uint64_t index, const uniform_f64_spec *sp)
{
    return uniform_f64_of(stream_u64(s, index, 0), sp);
}

/*
 * The x86 fills hold one counter per 64-bit lane, each 32-bit word zero-extended (or with
 * garbage above it, see below), because the unsigned 32x32 -> 64-bit multiply (pmuludq) reads
 * only the low half of each 64-bit lane: one instruction gives a round's whole product, hi and
 * lo. The compiler cannot prove that of the generic code above and emits a full 64x64 multiply
 * (three pmuludq and shifts) per half. Same integer operations, so the same bits:
 *   lo(p) is the low half of the product lane, hi(p) = p >> 32 (clean);
 *   c1' = lo(p1) and c3' = lo(p0) are kept as the whole product lane: their upper halves are
 *   garbage, which the next round's xors carry into c0' and c2' -- whose upper halves only the
 *   next multiply sees, and pmuludq ignores them. The output masks them off.
 * PHILOX_BLOCKS vectors of lanes per step keep the multiplier busy across the rounds'
 * dependency chain.
 */
#include <immintrin.h>

#define PHILOX_BLOCKS 4

#define AVX512_TARGET __attribute__((target("avx512f,avx512dq")))

/* The round keys, zero-extended into 64-bit lanes: key + r * Weyl constant (mod 2^32). */
typedef struct round_keys {
    uint64_t k0[10], k1[10];
} round_keys;

static void round_keys_of(const pc_rng_stream *s, round_keys *rk)
{
    uint32_t k0 = s->key[0], k1 = s->key[1];
    for (int r = 0; r < 10; r++) {
        rk->k0[r] = k0;
        rk->k1[r] = k1;
        k0 += PHILOX_W0;
        k1 += PHILOX_W1;
    }
}

/*
 * PHILOX_BLOCKS x 8 consecutive indices from idx0, draw 0: w0[b] and w1[b] get out[0] and out[1]
 * of lanes idx0 + 8b .. idx0 + 8b + 7, each in the low half of its 64-bit lane (the upper halves
 * are garbage). want_w0 false skips the last round's work that only out[0] needs.
 *
 * Beyond the generic rounds, what the counter layout makes constant is folded: the first round
 * multiplies ctr[2] = draw = 0 (its product is 0, so c1 becomes 0 and c0 = ctr[1] ^ k0); when
 * the PHILOX_BLOCKS x 8 indices share their high word (hi_same: every step but the one that
 * crosses a multiple of 2^32), that c0 is one number for all lanes, and the second round's
 * product of it is computed once as a scalar. Same integer operations, so the same bits.
 */
static inline __attribute__((always_inline)) AVX512_TARGET void
philox_avx512(const pc_rng_stream *s, const round_keys *rk, uint64_t idx0, bool hi_same,
              bool want_w0, __m512i w0[PHILOX_BLOCKS], __m512i w1[PHILOX_BLOCKS])
{
    enum { W = 8 };
    const __m512i m0 = _mm512_set1_epi64(PHILOX_M0), m1 = _mm512_set1_epi64(PHILOX_M1);
    const __m512i lanes = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    __m512i c0[PHILOX_BLOCKS], c1[PHILOX_BLOCKS], c2[PHILOX_BLOCKS], c3[PHILOX_BLOCKS];
    if (hi_same) {
        /* round 1: c0 = hi32(idx) ^ k0 (a scalar), c1 = 0, c2 = hi(idx * M0) ^ salt ^ k1,
         * c3 = lo(idx * M0); round 2's c0 * M0 is that scalar's product */
        uint32_t h = (uint32_t)(idx0 >> 32) ^ (uint32_t)rk->k0[0];
        uint64_t ph = (uint64_t)h * PHILOX_M0;
        const __m512i x2 = _mm512_set1_epi64((long long)(s->salt ^ rk->k1[0]));
        const __m512i k0r1 = _mm512_set1_epi64((long long)rk->k0[1]);
        const __m512i hk1r1 = _mm512_set1_epi64((long long)((uint32_t)(ph >> 32) ^ rk->k1[1]));
        const __m512i lo_ph = _mm512_set1_epi64((long long)(uint32_t)ph);
        for (int b = 0; b < PHILOX_BLOCKS; b++) {
            __m512i idx =
                _mm512_add_epi64(_mm512_set1_epi64((long long)(idx0 + (uint64_t)b * W)), lanes);
            __m512i p0 = _mm512_mul_epu32(idx, m0);
            __m512i r1c2 = _mm512_xor_si512(_mm512_srli_epi64(p0, 32), x2);
            /* round 2 */
            __m512i p1 = _mm512_mul_epu32(r1c2, m1);
            c0[b] = _mm512_xor_si512(_mm512_srli_epi64(p1, 32), k0r1); /* c1 was 0 */
            c1[b] = p1;
            c2[b] = _mm512_xor_si512(p0, hk1r1); /* hi(ph) ^ c3 ^ k1, c3 = lo(idx * M0) */
            c3[b] = lo_ph;
        }
    } else {
        const __m512i x2 = _mm512_set1_epi64((long long)(s->salt ^ rk->k1[0]));
        const __m512i k0r0 = _mm512_set1_epi64((long long)rk->k0[0]);
        const __m512i k0r1 = _mm512_set1_epi64((long long)rk->k0[1]);
        const __m512i k1r1 = _mm512_set1_epi64((long long)rk->k1[1]);
        for (int b = 0; b < PHILOX_BLOCKS; b++) {
            __m512i idx =
                _mm512_add_epi64(_mm512_set1_epi64((long long)(idx0 + (uint64_t)b * W)), lanes);
            __m512i p0 = _mm512_mul_epu32(idx, m0);
            __m512i r1c0 = _mm512_xor_si512(_mm512_srli_epi64(idx, 32), k0r0);
            __m512i r1c2 = _mm512_xor_si512(_mm512_srli_epi64(p0, 32), x2);
            /* round 2 */
            __m512i q0 = _mm512_mul_epu32(r1c0, m0), p1 = _mm512_mul_epu32(r1c2, m1);
            c0[b] = _mm512_xor_si512(_mm512_srli_epi64(p1, 32), k0r1);
            c1[b] = p1;
            /* 0x96: a ^ b ^ c */
            c2[b] = _mm512_ternarylogic_epi64(_mm512_srli_epi64(q0, 32), p0, k1r1, 0x96);
            c3[b] = q0;
        }
    }
    for (int r = 2; r < 9; r++) {
        const __m512i vk0 = _mm512_set1_epi64((long long)rk->k0[r]);
        const __m512i vk1 = _mm512_set1_epi64((long long)rk->k1[r]);
        for (int b = 0; b < PHILOX_BLOCKS; b++) {
            __m512i p0 = _mm512_mul_epu32(c0[b], m0), p1 = _mm512_mul_epu32(c2[b], m1);
            c0[b] = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p1, 32), c1[b], vk0, 0x96);
            c2[b] = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p0, 32), c3[b], vk1, 0x96);
            c1[b] = p1;
            c3[b] = p0;
        }
    }
    /* round 10: out[0] and out[1] only need c2 * M1 */
    const __m512i vk0 = _mm512_set1_epi64((long long)rk->k0[9]);
    for (int b = 0; b < PHILOX_BLOCKS; b++) {
        __m512i p1 = _mm512_mul_epu32(c2[b], m1);
        if (want_w0)
            w0[b] = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p1, 32), c1[b], vk0, 0x96);
        w1[b] = p1;
    }
}

/* Whether the PHILOX_BLOCKS x 8 indices from idx0 share their high 32 bits (they may wrap). */
static inline bool step_hi_same(uint64_t idx0)
{
    return (idx0 >> 32) == ((idx0 + PHILOX_BLOCKS * 8 - 1) >> 32);
}

static AVX512_TARGET void fill_u64_avx512(const pc_rng_stream *s, uint64_t first, uint64_t *out,
                                          size_t n)
{
    enum { STEP = 8 * PHILOX_BLOCKS };
    round_keys rk;
    round_keys_of(s, &rk);
    size_t i = 0;
    for (; i + STEP <= n; i += STEP) {
        __m512i w0[PHILOX_BLOCKS], w1[PHILOX_BLOCKS];
        uint64_t idx0 = first + i;
        if (step_hi_same(idx0))
            philox_avx512(s, &rk, idx0, true, true, w0, w1);
        else
            philox_avx512(s, &rk, idx0, false, true, w0, w1);
        for (int b = 0; b < PHILOX_BLOCKS; b++) {
            /* out = out[1] << 32 | out[0]: the odd 32-bit words from w1 shifted up */
            __m512i v = _mm512_mask_blend_epi32(0xAAAA, w0[b], _mm512_slli_epi64(w1[b], 32));
            _mm512_storeu_si512((void *)(out + i + (size_t)b * 8), v);
        }
    }
    for (; i < n; i++)
        out[i] = stream_u64(s, first + i, 0);
}

/* The uniforms as floats straight from the registers: k = out[1] >> (32 - bits) (the top bits
 * of the u64, bits <= 24), U = (float)k * unit, then U * scale and + low, each rounded to float
 * (no fused multiply-add), when affine. */
static AVX512_TARGET void fill_f32_avx512(const pc_rng_stream *s, uint64_t first, float *out,
                                          size_t n, const uniform_f32_spec *sp)
{
    enum { STEP = 8 * PHILOX_BLOCKS };
    round_keys rk;
    round_keys_of(s, &rk);
    const __m256 unit = _mm256_set1_ps(sp->unit), scale = _mm256_set1_ps(sp->scale),
                 low = _mm256_set1_ps(sp->low);
    const __m512i lo32 = _mm512_set1_epi64(0xFFFFFFFF);
    const int shift = 32 - sp->bits;
    size_t i = 0;
    for (; i + STEP <= n; i += STEP) {
        __m512i w0[PHILOX_BLOCKS], w1[PHILOX_BLOCKS];
        uint64_t idx0 = first + i;
        if (step_hi_same(idx0))
            philox_avx512(s, &rk, idx0, true, false, w0, w1);
        else
            philox_avx512(s, &rk, idx0, false, false, w0, w1);
        for (int b = 0; b < PHILOX_BLOCKS; b++) {
            __m512i k = _mm512_srli_epi64(_mm512_and_si512(w1[b], lo32), (unsigned)shift);
            __m256 u = _mm256_mul_ps(_mm512_cvtepi64_ps(k), unit); /* exact: k < 2^24 */
            if (sp->affine) {
                u = _mm256_mul_ps(u, scale);
                u = _mm256_add_ps(u, low);
            }
            _mm256_storeu_ps(out + i + (size_t)b * 8, u);
        }
    }
    for (; i < n; i++)
        out[i] = uniform_f32_one(s, first + i, sp);
}

/* The same in double: k = u64 >> 11, U = (double)k * 2^-53, then U * scale and + low. */
static AVX512_TARGET void fill_f64_avx512(const pc_rng_stream *s, uint64_t first, double *out,
                                          size_t n, const uniform_f64_spec *sp)
{
    enum { STEP = 8 * PHILOX_BLOCKS };
    round_keys rk;
    round_keys_of(s, &rk);
    const __m512d unit = _mm512_set1_pd(0x1p-53), scale = _mm512_set1_pd(sp->scale),
                  low = _mm512_set1_pd(sp->low);
    size_t i = 0;
    for (; i + STEP <= n; i += STEP) {
        __m512i w0[PHILOX_BLOCKS], w1[PHILOX_BLOCKS];
        uint64_t idx0 = first + i;
        if (step_hi_same(idx0))
            philox_avx512(s, &rk, idx0, true, true, w0, w1);
        else
            philox_avx512(s, &rk, idx0, false, true, w0, w1);
        for (int b = 0; b < PHILOX_BLOCKS; b++) {
            __m512i v = _mm512_mask_blend_epi32(0xAAAA, w0[b], _mm512_slli_epi64(w1[b], 32));
            /* exact: k < 2^53 */
            __m512d u = _mm512_mul_pd(_mm512_cvtepu64_pd(_mm512_srli_epi64(v, 11)), unit);
            if (sp->affine) {
                u = _mm512_mul_pd(u, scale);
                u = _mm512_add_pd(u, low);
            }
            _mm512_storeu_pd(out + i + (size_t)b * 8, u);
        }
    }
    for (; i < n; i++)
        out[i] = uniform_f64_one(s, first + i, sp);
}

__attribute__((target("avx2"))) static void fill_u64_avx2(const pc_rng_stream *s, uint64_t first,
                                                          uint64_t *out, size_t n)
{
    enum { W = 4, STEP = W * PHILOX_BLOCKS };
    const __m256i m0 = _mm256_set1_epi64x(PHILOX_M0), m1 = _mm256_set1_epi64x(PHILOX_M1);
    const __m256i lanes = _mm256_set_epi64x(3, 2, 1, 0);
    const __m256i salt = _mm256_set1_epi64x(s->salt);
    size_t i = 0;
    for (; i + STEP <= n; i += STEP) {
        __m256i c0[PHILOX_BLOCKS], c1[PHILOX_BLOCKS], c2[PHILOX_BLOCKS], c3[PHILOX_BLOCKS];
        for (int b = 0; b < PHILOX_BLOCKS; b++) {
            __m256i idx = _mm256_add_epi64(
                _mm256_set1_epi64x((long long)(first + i + (size_t)(b * W))), lanes);
            c0[b] = idx;
            c1[b] = _mm256_srli_epi64(idx, 32);
            c2[b] = _mm256_setzero_si256();
            c3[b] = salt;
        }
        uint32_t k0 = s->key[0], k1 = s->key[1];
        for (int r = 0; r < 10; r++) {
            const __m256i vk0 = _mm256_set1_epi64x(k0), vk1 = _mm256_set1_epi64x(k1);
            for (int b = 0; b < PHILOX_BLOCKS; b++) {
                __m256i p0 = _mm256_mul_epu32(c0[b], m0), p1 = _mm256_mul_epu32(c2[b], m1);
                c0[b] = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p1, 32), c1[b]), vk0);
                c2[b] = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p0, 32), c3[b]), vk1);
                c1[b] = p1;
                c3[b] = p0;
            }
            k0 += PHILOX_W0;
            k1 += PHILOX_W1;
        }
        for (int b = 0; b < PHILOX_BLOCKS; b++) {
            __m256i v = _mm256_blend_epi32(c0[b], _mm256_slli_epi64(c1[b], 32), 0xAA);
            _mm256_storeu_si256((__m256i *)(void *)(out + i + b * W), v);
        }
    }
    for (; i < n; i++)
        out[i] = stream_u64(s, first + i, 0);
}
#endif

/* The fills of the CPU, chosen once. */
typedef void (*fill_fn)(const pc_rng_stream *, uint64_t, uint64_t *, size_t);

static bool isa_supported(pc_rng_isa isa)
{
    switch (isa) {
    case PC_RNG_ISA_PORTABLE:
        return true;
#if defined(__x86_64__) && defined(__GNUC__)
    case PC_RNG_ISA_AVX2:
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2");
    case PC_RNG_ISA_AVX512:
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
#endif
    default:
        return false;
    }
}

static pc_rng_isa best_isa(void)
{
    /* a benign race: every thread computes the same value */
    static _Atomic int best = -1;
    int b = atomic_load_explicit(&best, memory_order_relaxed);
    if (b < 0) {
        b = PC_RNG_ISA_PORTABLE;
        for (int i = PC_RNG_ISA_COUNT - 1; i > PC_RNG_ISA_PORTABLE; i--)
            if (isa_supported((pc_rng_isa)i)) {
                b = i;
                break;
            }
        atomic_store_explicit(&best, b, memory_order_relaxed);
    }
    return (pc_rng_isa)b;
}

bool pc_rng_isa_supported(pc_rng_isa isa)
{
    return isa_supported(isa);
}

static fill_fn fill_of(pc_rng_isa isa)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (isa == PC_RNG_ISA_AVX512)
        return fill_u64_avx512;
    if (isa == PC_RNG_ISA_AVX2)
        return fill_u64_avx2;
#endif
    (void)isa;
    return fill_u64_base;
}

void pc_rng_fill_u64_isa(pc_rng_isa isa, const pc_rng_stream *s, uint64_t first_index,
                         uint64_t *out, size_t n)
{
    fill_of(isa)(s, first_index, out, n);
}

void pc_rng_fill_u64(const pc_rng_stream *s, uint64_t first_index, uint64_t *out, size_t n)
{
    fill_of(best_isa())(s, first_index, out, n);
}

/* The other copies make the u64 in blocks that stay in the L1 cache and turn them into values
 * in the same pass. */
#define FILL_BLOCK 256

static void fill_f32_blocks(fill_fn fill, const pc_rng_stream *s, uint64_t first, float *out,
                            size_t n, const uniform_f32_spec *sp)
{
    uint64_t u[FILL_BLOCK];
    for (size_t i = 0; i < n; i += FILL_BLOCK) {
        size_t m = n - i < FILL_BLOCK ? n - i : FILL_BLOCK;
        fill(s, first + i, u, m);
        for (size_t j = 0; j < m; j++)
            out[i + j] = uniform_f32_of(u[j], sp);
    }
}

static void fill_f64_blocks(fill_fn fill, const pc_rng_stream *s, uint64_t first, double *out,
                            size_t n, const uniform_f64_spec *sp)
{
    uint64_t u[FILL_BLOCK];
    for (size_t i = 0; i < n; i += FILL_BLOCK) {
        size_t m = n - i < FILL_BLOCK ? n - i : FILL_BLOCK;
        fill(s, first + i, u, m);
        for (size_t j = 0; j < m; j++)
            out[i + j] = uniform_f64_of(u[j], sp);
    }
}

static void fill_f32(pc_rng_isa isa, const pc_rng_stream *s, uint64_t first, float *out, size_t n,
                     const uniform_f32_spec *sp)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (isa == PC_RNG_ISA_AVX512) {
        fill_f32_avx512(s, first, out, n, sp);
        return;
    }
#endif
    fill_f32_blocks(fill_of(isa), s, first, out, n, sp);
}

static void fill_f64(pc_rng_isa isa, const pc_rng_stream *s, uint64_t first, double *out, size_t n,
                     const uniform_f64_spec *sp)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (isa == PC_RNG_ISA_AVX512) {
        fill_f64_avx512(s, first, out, n, sp);
        return;
    }
#endif
    fill_f64_blocks(fill_of(isa), s, first, out, n, sp);
}

static uniform_f32_spec f32_spec(int bits, bool affine, float scale, float low)
{
    return (uniform_f32_spec){.bits = bits,
                              .unit = 1.0f / (float)(UINT32_C(1) << bits),
                              .scale = scale,
                              .low = low,
                              .affine = affine};
}

void pc_rng_fill_uniform_f32(const pc_rng_stream *s, uint64_t first_index, float *out, size_t n)
{
    uniform_f32_spec sp = f32_spec(24, false, 0, 0);
    fill_f32(best_isa(), s, first_index, out, n, &sp);
}

void pc_rng_fill_uniform_f64(const pc_rng_stream *s, uint64_t first_index, double *out, size_t n)
{
    uniform_f64_spec sp = {.affine = false};
    fill_f64(best_isa(), s, first_index, out, n, &sp);
}

void pc_rng_fill_uniform(const pc_rng_stream *s, uint64_t first_index, pc_dtype dtype, float *out,
                         size_t n)
{
    int bits = uniform_bits(dtype);
    if (bits > 24)
        bits = 24; /* a float holds 24 bits; callers pass half and single dtypes */
    uniform_f32_spec sp = f32_spec(bits, false, 0, 0);
    fill_f32(best_isa(), s, first_index, out, n, &sp);
}

void pc_rng_fill_affine_f32_isa(pc_rng_isa isa, const pc_rng_stream *s, uint64_t first_index,
                                float *out, size_t n, float scale, float low)
{
    uniform_f32_spec sp = f32_spec(24, true, scale, low);
    fill_f32(isa, s, first_index, out, n, &sp);
}

void pc_rng_fill_affine_f64_isa(pc_rng_isa isa, const pc_rng_stream *s, uint64_t first_index,
                                double *out, size_t n, double scale, double low)
{
    uniform_f64_spec sp = {.scale = scale, .low = low, .affine = true};
    fill_f64(isa, s, first_index, out, n, &sp);
}

void pc_rng_fill_uniform_bits_isa(pc_rng_isa isa, const pc_rng_stream *s, uint64_t first_index,
                                  int bits, float *out, size_t n)
{
    uniform_f32_spec sp = f32_spec(bits, false, 0, 0);
    fill_f32(isa, s, first_index, out, n, &sp);
}

void pc_rng_fill_uniform_f64_isa(pc_rng_isa isa, const pc_rng_stream *s, uint64_t first_index,
                                 double *out, size_t n)
{
    uniform_f64_spec sp = {.affine = false};
    fill_f64(isa, s, first_index, out, n, &sp);
}

void pc_rng_fill_affine_f32(const pc_rng_stream *s, uint64_t first_index, float *out, size_t n,
                            float scale, float low)
{
    pc_rng_fill_affine_f32_isa(best_isa(), s, first_index, out, n, scale, low);
}

void pc_rng_fill_affine_f64(const pc_rng_stream *s, uint64_t first_index, double *out, size_t n,
                            double scale, double low)
{
    pc_rng_fill_affine_f64_isa(best_isa(), s, first_index, out, n, scale, low);
}

/* lo + off in two's complement without signed overflow (off < 2^64 - (lo - INT64_MIN)). */
static int64_t add_offset(int64_t lo, uint64_t off)
{
    uint64_t u = (uint64_t)lo + off;
    if (u <= (uint64_t)INT64_MAX)
        return (int64_t)u;
    return -(int64_t)(UINT64_MAX - u) - 1;
}

int64_t pc_rng_int_range(const pc_rng_stream *s, uint64_t index, int64_t lo, int64_t hi)
{
    if (lo > hi) {
        int64_t t = lo;
        lo = hi;
        hi = t;
    }
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1; /* 0 means all 2^64 values */
    uint64_t x = stream_u64(s, index, 0);
    if (span == 0)
        return add_offset(lo, x);
    /* Lemire, "Fast random integer generation in an interval" (2019): the high word of x * span
     * is uniform once the low words below 2^64 mod span are rejected. */
    unsigned __int128 m = (unsigned __int128)x * span;
    uint64_t low = (uint64_t)m;
    if (low < span) {
        uint64_t threshold = (0 - span) % span;
        for (uint32_t draw = 1; low < threshold; draw++) {
            x = stream_u64(s, index, draw);
            m = (unsigned __int128)x * span;
            low = (uint64_t)m;
            if (draw == UINT32_MAX)
                break; /* the draw word is spent: keep this attempt rather than loop forever */
        }
    }
    return add_offset(lo, (uint64_t)(m >> 64));
}

void pc_rng_fill_int_range(const pc_rng_stream *s, uint64_t first_index, int64_t lo, int64_t hi,
                           int64_t *out, size_t n)
{
    if (lo > hi) {
        int64_t t = lo;
        lo = hi;
        hi = t;
    }
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1; /* 0 means all 2^64 values */
    uint64_t u[FILL_BLOCK];
    for (size_t i = 0; i < n; i += FILL_BLOCK) {
        size_t m = n - i < FILL_BLOCK ? n - i : FILL_BLOCK;
        pc_rng_fill_u64(s, first_index + i, u, m);
        for (size_t j = 0; j < m; j++) {
            if (span == 0) {
                out[i + j] = add_offset(lo, u[j]);
                continue;
            }
            unsigned __int128 p = (unsigned __int128)u[j] * span;
            if ((uint64_t)p < span) /* a draw that may be rejected: the element's own path */
                out[i + j] = pc_rng_int_range(s, first_index + i + j, lo, hi);
            else
                out[i + j] = add_offset(lo, (uint64_t)(p >> 64));
        }
    }
}
