/*
 * The one strided copy: for each index of a shape (row-major), dst element = src element,
 * converted from src's dtype to dst's, each side with its own element strides (any sign; 0 on
 * the source side repeats an element). pc_tensor_copy/_cast/_contiguous/_fill and the shape
 * ops' views, splits, joins and their backwards all go through it.
 *
 * The shape is simplified first (dimensions of size 1 dropped, neighbours that step as one
 * dimension on both sides merged), so a contiguous pair is one row: a memmove for one dtype,
 * one pc_convert_buffer call for two. Where one side steps through memory faster along rows
 * than along a row (a transpose), the last two dimensions are walked in 32 x 32 tiles so both
 * sides stay in cache. A copy of PC_STRIDED_PARALLEL_MIN elements or more is shared among the
 * OpenMP threads by ranges of elements (or bands of tiles); no element's value depends on who
 * copies it, so the result is the same for any thread count.
 *
 * Conversions are pc_convert_buffer's, also for strided rows (gathered into and scattered from
 * stack buffers), so a view converts bit for bit as its contiguous copy would.
 *
 * dst and src address element [0, ..., 0]; they may be the same memory only when both layouts
 * are the same (pc_tensor_copy(&t, &t)). The dtypes must be valid (pc_convert_buffer cannot
 * fail then); nothing is allocated and nothing fails.
 */
#ifndef PC_CORE_STRIDED_COPY_H
#define PC_CORE_STRIDED_COPY_H

#include <stdint.h>

#include "precheck/core/dtype.h"
#include "precheck/core/tensor.h"

enum {
    /* dimensions a copy may walk: twice a tensor's (repeat's view walks the input's twice) */
    PC_STRIDED_MAX_DIMS = 2 * PC_TENSOR_MAX_DIMS,
    /* elements from which a copy is shared among threads (a few hundred KiB) */
    PC_STRIDED_PARALLEL_MIN = 1 << 17,
};

/* pc_strided_copy's flags. */
enum {
    /* same dtype only: each float16/bfloat16/float32/float64 element is written as 0.0 + itself
     * (-0 becomes +0, a signalling NaN comes out quiet), what summing one gradient element into
     * a zero gives; other dtypes are copied as they are */
    PC_STRIDED_ADD_ZERO = 1,
};

void pc_strided_copy(void *dst, pc_dtype dst_dtype, const int64_t *dst_strides, const void *src,
                     pc_dtype src_dtype, const int64_t *src_strides, const int64_t *shape, int rank,
                     unsigned flags);

/* The simplification pc_strided_copy walks: dimensions of size 1 dropped, neighbours that step
 * as one dimension on both sides merged (the row-major order of the elements unchanged); one
 * dimension of one element when nothing is left. Writes out_shape/out_dst/out_src (room for
 * PC_STRIDED_MAX_DIMS each) and returns their rank (>= 1). For walks of one's own (a
 * scatter-add) that should step like the copy. */
int pc_strided_simplify(const int64_t *shape, const int64_t *dst_strides,
                        const int64_t *src_strides, int rank, int64_t *out_shape, int64_t *out_dst,
                        int64_t *out_src);

#endif
