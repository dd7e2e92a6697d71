/*
 * Private to compare/: numpy 1.x's float arithmetic where msprobe's numbers depend on it.
 *
 *   - np_type and np_round: the numpy float types and rounding a double to one of them;
 *   - pairwise summation (numpy's pairwise_sum: 8 accumulators up to 128 elements, halves
 *     above), in float or in double;
 *   - np_sum_*: numpy's sum of a contiguous array, one pairwise sum per 8192-element block
 *     added to an accumulator of the array's type (float16 arrays: float32);
 *   - np_stream: the same sum fed a few values at a time, for the mean of a boolean-indexed
 *     (compacted) array whose blocks do not line up with anything the caller has.
 *
 * Nothing here allocates except pc_np_stream_init (one block of buffer), freed by
 * pc_np_stream_free.
 */
#ifndef PC_COMPARE_NUMPY_SUM_H
#define PC_COMPARE_NUMPY_SUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "precheck/core/convert.h"
#include "precheck/core/status.h"

/* numpy's reduction block (NPY_BUFSIZE). */
#define NP_BLOCK 8192

typedef enum np_type { NP_F16 = 0, NP_F32 = 1, NP_F64 = 2 } np_type;

static inline np_type np_promote(np_type a, np_type b)
{
    return a > b ? a : b;
}

/* x rounded to nearest-even in t (overflow to +-inf, NaN stays NaN). */
static inline double np_round(np_type t, double x)
{
    switch (t) {
    case NP_F16:
        return (double)pc_f16_to_f32(pc_f64_to_f16(x));
    case NP_F32:
        return (double)(float)x;
    case NP_F64:
        break;
    }
    return x;
}

/* The type numpy sums an array of t in: float16 arrays are summed in float32. */
static inline np_type np_sum_type(np_type t)
{
    return t == NP_F16 ? NP_F32 : t;
}

/* numpy's pairwise_sum of a[0, n). */
float pc_np_pairwise_f32(const float *a, size_t n);
double pc_np_pairwise_f64(const double *a, size_t n);

/* numpy's np.sum of a contiguous array (blocks of NP_BLOCK). */
float pc_np_sum_f32(const float *a, size_t n);
double pc_np_sum_f64(const double *a, size_t n);

/* A running numpy sum in float (NP_F32) or double (NP_F64): values are appended in order;
 * every full block is pairwise-summed into the total. */
typedef struct np_stream {
    np_type type; /* NP_F32 or NP_F64 */
    void *block;  /* NP_BLOCK values of type */
    size_t fill;  /* values in block */
    double total; /* the accumulator, a value of type */
    int64_t count;
} np_stream;

pc_status pc_np_stream_init(np_stream *s, np_type type);
void pc_np_stream_free(np_stream *s);
/* Appends n values (float for NP_F32, double for NP_F64). */
void pc_np_stream_append(np_stream *s, const void *values, size_t n);
/* The sum of everything appended (the last, partial block included). */
double pc_np_stream_sum(np_stream *s);

#endif
