#include "numpy_sum.h"

/* Every product and sum is rounded on its own, as numpy does; GCC never fuses a*b+c in ISO C
 * mode, clang would (and its AVX-512 target has FMA). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#include <stdlib.h>
#include <string.h>

/*
 * numpy's pairwise summation (numpy/core/src/umath/loops_utils.h, "pairwise_sum"), restated:
 * below 8 elements a plain loop; up to 128 elements eight running sums r[j] over a[j], a[j+8],
 * ..., combined as ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)), then the n mod 8 leftovers one by one;
 * above 128 the array is cut at half its length rounded down to a multiple of 8. The eight
 * running sums are independent, so the compiler may keep them in one vector register without
 * changing a bit of the result.
 */
#define DEFINE_PAIRWISE(name, T)                                                                   \
    T name(const T *a, size_t n)                                                                   \
    {                                                                                              \
        if (n < 8) {                                                                               \
            T res = 0;                                                                             \
            for (size_t i = 0; i < n; i++)                                                         \
                res = res + a[i];                                                                  \
            return res;                                                                            \
        }                                                                                          \
        if (n <= 128) {                                                                            \
            T r[8];                                                                                \
            for (int j = 0; j < 8; j++)                                                            \
                r[j] = a[j];                                                                       \
            size_t body = n - n % 8;                                                               \
            for (size_t i = 8; i < body; i += 8)                                                   \
                for (size_t j = 0; j < 8; j++)                                                     \
                    r[j] = r[j] + a[i + j];                                                        \
            T res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));             \
            for (size_t i = body; i < n; i++)                                                      \
                res = res + a[i];                                                                  \
            return res;                                                                            \
        }                                                                                          \
        size_t n2 = n / 2;                                                                         \
        n2 -= n2 % 8;                                                                              \
        return name(a, n2) + name(a + n2, n - n2);                                                 \
    }

DEFINE_PAIRWISE(pc_np_pairwise_f32, float)
DEFINE_PAIRWISE(pc_np_pairwise_f64, double)

float pc_np_sum_f32(const float *a, size_t n)
{
    float s = 0;
    for (size_t i = 0; i < n; i += NP_BLOCK)
        s = s + pc_np_pairwise_f32(a + i, n - i < NP_BLOCK ? n - i : NP_BLOCK);
    return s;
}

double pc_np_sum_f64(const double *a, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i += NP_BLOCK)
        s = s + pc_np_pairwise_f64(a + i, n - i < NP_BLOCK ? n - i : NP_BLOCK);
    return s;
}

static size_t type_size(np_type t)
{
    return t == NP_F64 ? sizeof(double) : sizeof(float);
}

pc_status pc_np_stream_init(np_stream *s, np_type type)
{
    s->type = type == NP_F64 ? NP_F64 : NP_F32;
    s->fill = 0;
    s->total = 0;
    s->count = 0;
    s->block = malloc(NP_BLOCK * type_size(s->type));
    if (!s->block)
        return pc_error_set(PC_ERR_NOMEM, "metrics: cannot allocate a summation block");
    return PC_OK;
}

void pc_np_stream_free(np_stream *s)
{
    free(s->block);
    s->block = NULL;
}

static void flush_block(np_stream *s)
{
    if (s->type == NP_F64)
        s->total = s->total + pc_np_pairwise_f64(s->block, s->fill);
    else
        s->total = (double)((float)s->total + pc_np_pairwise_f32(s->block, s->fill));
    s->fill = 0;
}

void pc_np_stream_append(np_stream *s, const void *values, size_t n)
{
    size_t width = type_size(s->type);
    const char *src = values;
    s->count += (int64_t)n;
    while (n > 0) {
        size_t k = NP_BLOCK - s->fill;
        if (k > n)
            k = n;
        memcpy((char *)s->block + s->fill * width, src, k * width);
        s->fill += k;
        src += k * width;
        n -= k;
        if (s->fill == NP_BLOCK)
            flush_block(s);
    }
}

double pc_np_stream_sum(np_stream *s)
{
    if (s->fill > 0)
        flush_block(s);
    return s->total;
}
