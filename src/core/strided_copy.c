#include "precheck/core/strided_copy.h"

#include <omp.h>
#include <stdbool.h>
#include <string.h>

#include "precheck/core/convert.h"

/* The copy after simplification: rank >= 1 dims, strides in elements of each side. */
typedef struct copy_plan {
    int rank;
    int64_t shape[PC_STRIDED_MAX_DIMS];
    int64_t dst[PC_STRIDED_MAX_DIMS];
    int64_t src[PC_STRIDED_MAX_DIMS];
    pc_dtype dd, sd;
    size_t dsz, ssz;
    pc_dtype add_zero; /* a float dtype (PC_STRIDED_ADD_ZERO), else PC_DTYPE_INVALID */
} copy_plan;

int pc_strided_simplify(const int64_t *shape, const int64_t *dst_strides,
                        const int64_t *src_strides, int rank, int64_t *out_shape, int64_t *out_dst,
                        int64_t *out_src)
{
    int r = 0;
    for (int i = 0; i < rank; i++) {
        if (shape[i] == 1)
            continue;
        if (r > 0 && out_dst[r - 1] == dst_strides[i] * shape[i] &&
            out_src[r - 1] == src_strides[i] * shape[i]) {
            out_shape[r - 1] *= shape[i];
            out_dst[r - 1] = dst_strides[i];
            out_src[r - 1] = src_strides[i];
            continue;
        }
        out_shape[r] = shape[i];
        out_dst[r] = dst_strides[i];
        out_src[r] = src_strides[i];
        r++;
    }
    if (r == 0) { /* one element */
        out_shape[0] = 1;
        out_dst[0] = out_src[0] = 1;
        r = 1;
    }
    return r;
}

/* 0.0 + v on the bits v of a float16, bfloat16, float32 or float64 (as the unsigned T): -0
 * becomes +0, a signalling NaN gets its quiet bit (sign and payload kept). */
#define ADD_ZERO(T, SIGN, INF, QUIET)                                                              \
    do {                                                                                           \
        T mag_ = (T)(v & (T) ~(T)(SIGN));                                                          \
        v = mag_ == 0 ? 0 : mag_ > (INF) ? (T)(v | (QUIET)) : v;                                   \
    } while (0)

/* (the contiguous case spelt out, so that the compiler vectorises it) */
#define ROW_LOOP(T, BODY)                                                                          \
    if (ds == 1 && ss == 1) {                                                                      \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T v;                                                                                   \
            memcpy(&v, s + i * (int64_t)sizeof v, sizeof v);                                       \
            BODY;                                                                                  \
            memcpy(d + i * (int64_t)sizeof v, &v, sizeof v);                                       \
        }                                                                                          \
    } else {                                                                                       \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T v;                                                                                   \
            memcpy(&v, s + i * ss * (int64_t)sizeof v, sizeof v);                                  \
            BODY;                                                                                  \
            memcpy(d + i * ds * (int64_t)sizeof v, &v, sizeof v);                                  \
        }                                                                                          \
    }

/* n elements of size sz (one dtype), strides ds and ss. */
static void row_same(unsigned char *d, int64_t ds, const unsigned char *s, int64_t ss, int64_t n,
                     size_t sz, pc_dtype add_zero)
{
    switch (add_zero) {
    case PC_DTYPE_F16:
        ROW_LOOP(uint16_t, ADD_ZERO(uint16_t, 0x8000u, 0x7c00u, 0x0200u))
        return;
    case PC_DTYPE_BF16:
        ROW_LOOP(uint16_t, ADD_ZERO(uint16_t, 0x8000u, 0x7f80u, 0x0040u))
        return;
    case PC_DTYPE_F32:
        ROW_LOOP(uint32_t, ADD_ZERO(uint32_t, 0x80000000u, 0x7f800000u, 0x00400000u))
        return;
    case PC_DTYPE_F64:
        ROW_LOOP(uint64_t, ADD_ZERO(uint64_t, 0x8000000000000000ull, 0x7ff0000000000000ull,
                                    0x0008000000000000ull))
        return;
    default:
        break;
    }
    if (ds == 1 && ss == 1) {
        memmove(d, s, (size_t)n * sz); /* pc_tensor_copy(&t, &t) hands in d == s */
        return;
    }
    switch (sz) { /* a fixed-size memcpy is one load and one store */
    case 1:
        ROW_LOOP(uint8_t, (void)0)
        return;
    case 2:
        ROW_LOOP(uint16_t, (void)0)
        return;
    case 4:
        ROW_LOOP(uint32_t, (void)0)
        return;
    case 8:
        ROW_LOOP(uint64_t, (void)0)
        return;
    default:
        for (int64_t i = 0; i < n; i++)
            memcpy(d + i * ds * (int64_t)sz, s + i * ss * (int64_t)sz, sz);
    }
}

#undef ROW_LOOP
#undef ADD_ZERO

/* Elements per chunk when a strided row is converted through contiguous stack buffers. */
enum { CHUNK = 256, MAX_ELEM = 16 };

/* n elements converted from p->sd to p->dd, strides ds and ss. */
static void row_convert(const copy_plan *p, unsigned char *d, int64_t ds, const unsigned char *s,
                        int64_t ss, int64_t n)
{
    if (ds == 1 && ss == 1) {
        pc_convert_buffer(d, p->dd, s, p->sd, (size_t)n); /* valid dtypes: cannot fail */
        return;
    }
    _Alignas(64) unsigned char sbuf[CHUNK * MAX_ELEM];
    _Alignas(64) unsigned char dbuf[CHUNK * MAX_ELEM];
    for (int64_t done = 0; done < n; done += CHUNK) {
        int64_t k = n - done < CHUNK ? n - done : CHUNK;
        const unsigned char *sp = s + done * ss * (int64_t)p->ssz;
        unsigned char *dp = d + done * ds * (int64_t)p->dsz;
        const unsigned char *from = sp;
        if (ss != 1) { /* gather */
            row_same(sbuf, 1, sp, ss, k, p->ssz, PC_DTYPE_INVALID);
            from = sbuf;
        }
        if (ds == 1) {
            pc_convert_buffer(dp, p->dd, from, p->sd, (size_t)k);
        } else { /* scatter */
            pc_convert_buffer(dbuf, p->dd, from, p->sd, (size_t)k);
            row_same(dp, ds, dbuf, 1, k, p->dsz, PC_DTYPE_INVALID);
        }
    }
}

/* n elements at element offsets doff and soff, strides ds and ss. */
static void row(const copy_plan *p, unsigned char *dst, int64_t doff, int64_t ds,
                const unsigned char *src, int64_t soff, int64_t ss, int64_t n)
{
    unsigned char *d = dst + doff * (int64_t)p->dsz;
    const unsigned char *s = src + soff * (int64_t)p->ssz;
    if (p->dd == p->sd)
        row_same(d, ds, s, ss, n, p->dsz, p->add_zero);
    else
        row_convert(p, d, ds, s, ss, n);
}

/* Elements [begin, end) of the plan's row-major order. */
static void run_range(const copy_plan *p, unsigned char *dst, const unsigned char *src,
                      int64_t begin, int64_t end)
{
    int last = p->rank - 1;
    int64_t len = p->shape[last];
    int64_t idx[PC_STRIDED_MAX_DIMS] = {0};
    int64_t j = begin % len, rest = begin / len;
    int64_t doff = j * p->dst[last], soff = j * p->src[last];
    for (int d = last - 1; d >= 0; d--) {
        idx[d] = rest % p->shape[d];
        rest /= p->shape[d];
        doff += idx[d] * p->dst[d];
        soff += idx[d] * p->src[d];
    }
    for (int64_t i = begin; i < end;) {
        int64_t k = len - j < end - i ? len - j : end - i;
        row(p, dst, doff, p->dst[last], src, soff, p->src[last], k);
        i += k;
        doff -= j * p->dst[last];
        soff -= j * p->src[last];
        j = 0;
        for (int d = last - 1; d >= 0; d--) {
            doff += p->dst[d];
            soff += p->src[d];
            if (++idx[d] < p->shape[d])
                break;
            doff -= p->dst[d] * p->shape[d];
            soff -= p->src[d] * p->shape[d];
            idx[d] = 0;
        }
    }
}

/* Side of the square tiles a transposing copy walks in (32 x 32 elements of up to 16 bytes
 * stay in L1 on both sides). */
enum { TILE = 32 };

static int64_t abs64(int64_t v)
{
    return v < 0 ? -v : v;
}

/* The last two dims form planes of m rows of len elements where, on one side, elements of a
 * row lie further apart than rows (a transpose): row by row would touch a new cache line per
 * element on that side. Bands of TILE rows, walked TILE columns at a time, keep both sides in
 * cache; the bands of all planes are shared among the threads. */
static void run_tiled(const copy_plan *p, unsigned char *dst, const unsigned char *src, int64_t n,
                      int nt)
{
    int a = p->rank - 2, b = p->rank - 1;
    int64_t m = p->shape[a], len = p->shape[b];
    int64_t bands = (m + TILE - 1) / TILE, items = n / (m * len) * bands;
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
    for (int64_t it = 0; it < items; it++) {
        int64_t rest = it / bands, i0 = it % bands * TILE;
        int64_t i1 = m - i0 < TILE ? m : i0 + TILE;
        int64_t doff = 0, soff = 0;
        for (int d = a - 1; d >= 0; d--) {
            int64_t k = rest % p->shape[d];
            rest /= p->shape[d];
            doff += k * p->dst[d];
            soff += k * p->src[d];
        }
        for (int64_t j0 = 0; j0 < len; j0 += TILE) {
            int64_t k = len - j0 < TILE ? len - j0 : TILE;
            for (int64_t i = i0; i < i1; i++)
                row(p, dst, doff + i * p->dst[a] + j0 * p->dst[b], p->dst[b], src,
                    soff + i * p->src[a] + j0 * p->src[b], p->src[b], k);
        }
    }
}

void pc_strided_copy(void *dst, pc_dtype dst_dtype, const int64_t *dst_strides, const void *src,
                     pc_dtype src_dtype, const int64_t *src_strides, const int64_t *shape, int rank,
                     unsigned flags)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= shape[i];
    if (n <= 0)
        return;
    copy_plan p;
    p.rank = pc_strided_simplify(shape, dst_strides, src_strides, rank, p.shape, p.dst, p.src);
    p.dd = dst_dtype;
    p.sd = src_dtype;
    p.dsz = pc_dtype_size(dst_dtype);
    p.ssz = pc_dtype_size(src_dtype);
    bool floating = dst_dtype == PC_DTYPE_F16 || dst_dtype == PC_DTYPE_BF16 ||
                    dst_dtype == PC_DTYPE_F32 || dst_dtype == PC_DTYPE_F64;
    p.add_zero = (flags & PC_STRIDED_ADD_ZERO) && floating && dst_dtype == src_dtype
                     ? dst_dtype
                     : PC_DTYPE_INVALID;
    unsigned char *d = dst;
    const unsigned char *s = src;
    int nt = n >= PC_STRIDED_PARALLEL_MIN ? omp_get_max_threads() : 1;
    int a = p.rank - 2, b = p.rank - 1;
    if (p.rank >= 2 && p.shape[b] > TILE &&
        (abs64(p.src[b]) > abs64(p.src[a]) || abs64(p.dst[b]) > abs64(p.dst[a]))) {
        run_tiled(&p, d, s, n, nt);
        return;
    }
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
    for (int t = 0; t < nt; t++)
        run_range(&p, d, s, n * t / nt, n * (t + 1) / nt);
}
