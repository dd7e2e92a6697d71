/* Unit tests of pc_tensor: allocation limits, views and their bounds, copies and casts, the
 * storage ownership rule, and the error paths under injected allocation failures. Every test
 * checks in its teardown that it freed every block it allocated. */
#include "pc_test.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "precheck/core/convert.h"
#include "precheck/core/tensor.h"

static long live_at_start;

static int setup(void **state)
{
    live_at_start = pc_alloc_live();
    pc_alloc_fail_after(-1);
    pc_error_clear();
    return 0;
}

static int teardown(void **state)
{
    pc_alloc_fail_after(-1);
    if (pc_alloc_live() != live_at_start) {
        print_error("leak: %ld blocks allocated and not freed\n", pc_alloc_live() - live_at_start);
        return -1;
    }
    return 0;
}

#define SHAPE(...) ((const int64_t[]){__VA_ARGS__})
#define INDEX(...) ((const int64_t[]){__VA_ARGS__})

/* Fills t (any layout) with 0, 1, 2, ... in row-major order of its indexes. */
static void fill_iota(pc_tensor *t)
{
    int64_t n = pc_tensor_numel(t);
    int64_t index[PC_TENSOR_MAX_DIMS] = {0};
    for (int64_t k = 0; k < n; k++) {
        pc_tensor_set(t, index, (double)k);
        for (int i = t->rank - 1; i >= 0; i--) {
            if (++index[i] < t->shape[i])
                break;
            index[i] = 0;
        }
    }
}

static void assert_message_is(const char *expected)
{
    assert_string_equal(pc_error_message(), expected);
}

static void assert_message_has(const char *part)
{
    if (!strstr(pc_error_message(), part)) {
        print_error("message \"%s\" lacks \"%s\"\n", pc_error_message(), part);
        fail();
    }
}

static uint16_t u16_at(const pc_tensor *t, int64_t i)
{
    uint16_t v;
    memcpy(&v, (const uint16_t *)pc_tensor_data(t) + i, 2);
    return v;
}

/* ---- shapes ---- */

static void shape_format_like_torch_size(void **state)
{
    char buf[PC_SHAPE_FORMAT_MAX];
    assert_int_equal(pc_shape_format(buf, sizeof buf, SHAPE(2, 3, 4), 3), 9);
    assert_string_equal(buf, "[2, 3, 4]");
    assert_int_equal(pc_shape_format(buf, sizeof buf, NULL, 0), 2);
    assert_string_equal(buf, "[]");
    pc_shape_format(buf, sizeof buf, SHAPE(0), 1);
    assert_string_equal(buf, "[0]");
    pc_shape_format(buf, sizeof buf, SHAPE(INT64_MIN, INT64_MAX), 2);
    assert_string_equal(buf, "[-9223372036854775808, 9223372036854775807]");

    int64_t worst[PC_TENSOR_MAX_DIMS];
    for (int i = 0; i < PC_TENSOR_MAX_DIMS; i++)
        worst[i] = INT64_MIN;
    int n = pc_shape_format(buf, sizeof buf, worst, PC_TENSOR_MAX_DIMS);
    assert_true(n < (int)sizeof buf);
    assert_int_equal(strlen(buf), n);

    /* cut like snprintf: returns the whole length, writes what fits */
    char small[5];
    assert_int_equal(pc_shape_format(small, sizeof small, SHAPE(2, 3, 4), 3), 9);
    assert_string_equal(small, "[2, ");
    assert_int_equal(pc_shape_format(NULL, 0, SHAPE(7), 1), 3);
    assert_int_equal(pc_shape_format(buf, sizeof buf, NULL, -1), 2);
    assert_string_equal(buf, "[]");
}

static void contiguous_strides_count_zero_as_one(void **state)
{
    int64_t s[3];
    pc_shape_contiguous_strides(SHAPE(2, 3, 4), 3, s);
    assert_int_equal(s[0], 12);
    assert_int_equal(s[1], 4);
    assert_int_equal(s[2], 1);
    pc_shape_contiguous_strides(SHAPE(2, 0, 3), 3, s);
    assert_int_equal(s[0], 3);
    assert_int_equal(s[1], 3);
    assert_int_equal(s[2], 1);
}

/* ---- allocation ---- */

static void alloc_every_dtype_and_shape_zeroed(void **state)
{
    static const struct {
        int rank;
        int64_t shape[4];
        int64_t numel;
    } shapes[] = {
        {0, {0}, 1},
        {1, {0}, 0},
        {1, {3}, 3},
        {2, {2, 3}, 6},
        {3, {2, 0, 4}, 0},
        {3, {1, 1, 1}, 1},
        {4, {2, 3, 4, 5}, 120},
    };
    for (int d = 0; d < PC_DTYPE_COUNT; d++) {
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
            pc_tensor t = PC_TENSOR_NULL;
            assert_int_equal(pc_tensor_alloc(&t, (pc_dtype)d, shapes[k].shape, shapes[k].rank),
                             PC_OK);
            assert_false(pc_tensor_is_null(&t));
            assert_int_equal(t.dtype, d);
            assert_int_equal(t.rank, shapes[k].rank);
            assert_int_equal(t.offset, 0);
            assert_int_equal(pc_tensor_numel(&t), shapes[k].numel);
            size_t nbytes = (size_t)shapes[k].numel * pc_dtype_size((pc_dtype)d);
            assert_int_equal(pc_tensor_nbytes(&t), nbytes);
            assert_int_equal(pc_storage_nbytes(t.storage), nbytes);
            assert_true(pc_tensor_is_contiguous(&t));
            assert_int_equal(pc_storage_refcount(t.storage), 1);
            const unsigned char *p = pc_tensor_data(&t);
            assert_non_null(p);
            assert_int_equal((uintptr_t)p % PC_STORAGE_ALIGN, 0);
            for (size_t b = 0; b < nbytes; b++)
                assert_int_equal(p[b], 0);
            for (int i = shapes[k].rank; i < PC_TENSOR_MAX_DIMS; i++)
                assert_int_equal(t.shape[i], 0);
            pc_tensor_free(&t);
            assert_true(pc_tensor_is_null(&t));
            pc_tensor_free(&t); /* a second free is harmless */
        }
    }
}

static void alloc_values_read_back_by_index(void **state)
{
    pc_tensor t;
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_F32, SHAPE(2, 3, 4), 3), PC_OK);
    assert_int_equal(t.strides[0], 12);
    assert_int_equal(t.strides[1], 4);
    assert_int_equal(t.strides[2], 1);
    fill_iota(&t);
    const float *f = pc_tensor_data(&t);
    for (int i = 0; i < 24; i++)
        assert_true(f[i] == (float)i);
    assert_true(pc_tensor_get(&t, INDEX(1, 2, 3)) == 23.0);
    assert_ptr_equal(pc_tensor_element_ptr(&t, INDEX(1, 0, 2)), f + 14);
    assert_null(pc_tensor_element_ptr(&t, INDEX(2, 0, 0)));
    assert_null(pc_tensor_element_ptr(&t, INDEX(0, -1, 0)));
    assert_null(pc_tensor_element_ptr(&t, NULL));
    pc_tensor_free(&t);
}

static void alloc_rank_16_ok_rank_17_refused(void **state)
{
    int64_t shape[PC_TENSOR_MAX_DIMS + 1];
    for (int i = 0; i <= PC_TENSOR_MAX_DIMS; i++)
        shape[i] = 2;
    pc_tensor t;
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_U8, shape, 16), PC_OK);
    assert_int_equal(pc_tensor_numel(&t), 65536);
    assert_int_equal(t.strides[0], 32768);
    pc_tensor_set(&t, INDEX(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1), 7);
    assert_int_equal(((uint8_t *)pc_tensor_data(&t))[65535], 7);
    pc_tensor_free(&t);

    pc_tensor untouched = PC_TENSOR_NULL;
    untouched.rank = 99; /* proves that a failing call leaves *out alone */
    assert_int_equal(pc_tensor_alloc(&untouched, PC_DTYPE_F32, shape, 17), PC_ERR_UNSUPPORTED);
    assert_message_is("tensor rank 17 exceeds precheck's limit of 16 dimensions");
    assert_int_equal(untouched.rank, 99);
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_F32, shape, -1), PC_ERR_INVALID);
    assert_int_equal(pc_tensor_check_shape(PC_DTYPE_F32, shape, 17, NULL, NULL),
                     PC_ERR_UNSUPPORTED);
}

static void alloc_overflowing_shapes_refused(void **state)
{
    pc_tensor t = PC_TENSOR_NULL;
    const int64_t two40 = (int64_t)1 << 40;

    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_F32, SHAPE(two40, two40), 2), PC_ERR_RANGE);
    assert_message_is("tensor of shape [1099511627776, 1099511627776] dtype float32 has more "
                      "elements than fit in 64 bits");

    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_U8, SHAPE(INT64_MAX), 1), PC_ERR_RANGE);
    assert_message_is("tensor of shape [9223372036854775807] dtype uint8 needs "
                      "9223372036854775807 bytes, more than precheck's limit of "
                      "281474976710656 bytes");

    /* the element count fits, count x 16 does not */
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_C128, SHAPE(INT64_MAX / 2), 1), PC_ERR_RANGE);
    assert_message_has("needs more than 2^64 bytes");
    assert_message_has("dtype complex128");

    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_F64, SHAPE(two40, 3, 70), 3), PC_ERR_RANGE);
    assert_message_has("tensor of shape [1099511627776, 3, 70] dtype float64 needs");

    /* the limit itself, both ways (checked, not allocated) */
    int64_t numel;
    size_t nbytes;
    assert_int_equal(
        pc_tensor_check_shape(PC_DTYPE_U8, SHAPE(PC_TENSOR_MAX_BYTES), 1, &numel, &nbytes), PC_OK);
    assert_int_equal(numel, PC_TENSOR_MAX_BYTES);
    assert_int_equal(nbytes, (size_t)PC_TENSOR_MAX_BYTES);
    assert_int_equal(
        pc_tensor_check_shape(PC_DTYPE_U8, SHAPE(PC_TENSOR_MAX_BYTES + 1), 1, NULL, NULL),
        PC_ERR_RANGE);
    assert_int_equal(
        pc_tensor_check_shape(PC_DTYPE_F32, SHAPE(PC_TENSOR_MAX_BYTES / 4), 1, NULL, NULL), PC_OK);
    assert_int_equal(
        pc_tensor_check_shape(PC_DTYPE_F32, SHAPE(PC_TENSOR_MAX_BYTES / 4 + 1), 1, NULL, NULL),
        PC_ERR_RANGE);

    /* zero-size: fine while the other dimensions' product fits */
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_F32, SHAPE(0, (int64_t)1 << 62), 2), PC_OK);
    assert_int_equal(pc_tensor_numel(&t), 0);
    assert_int_equal(t.strides[0], (int64_t)1 << 62);
    pc_tensor_free(&t);
    assert_int_equal(
        pc_tensor_alloc(&t, PC_DTYPE_F32, SHAPE(0, (int64_t)1 << 62, (int64_t)1 << 62), 3),
        PC_ERR_RANGE);
    assert_true(pc_tensor_is_null(&t));

    pc_storage *s = NULL;
    assert_int_equal(pc_storage_alloc(&s, (size_t)PC_TENSOR_MAX_BYTES + 1), PC_ERR_RANGE);
    assert_null(s);
}

static void alloc_negative_dims_and_bad_dtype_refused(void **state)
{
    pc_tensor t = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_F32, SHAPE(2, -1), 2), PC_ERR_INVALID);
    assert_message_is("tensor of shape [2, -1] dtype float32 has a negative dimension -1");
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_BF16, SHAPE(INT64_MIN), 1), PC_ERR_INVALID);
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_INVALID, SHAPE(2), 1), PC_ERR_INVALID);
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_COUNT, SHAPE(2), 1), PC_ERR_INVALID);
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_F32, NULL, 2), PC_ERR_INVALID);
    assert_true(pc_tensor_is_null(&t));
}

static void alloc_failure_is_an_error_not_a_crash(void **state)
{
    pc_tensor t = PC_TENSOR_NULL;
    t.rank = 42;
    pc_alloc_fail_after(0);
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_F16, SHAPE(2, 3), 2), PC_ERR_NOMEM);
    assert_message_is("out of memory allocating 12 bytes for a tensor of shape [2, 3] dtype "
                      "float16");
    assert_int_equal(t.rank, 42);
    assert_null(t.storage);

    /* the hook fails once, then allocations succeed again */
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_F16, SHAPE(2, 3), 2), PC_OK);
    pc_tensor_free(&t);

    /* every later allocation point of the operations that allocate */
    pc_tensor base, tr;
    assert_int_equal(pc_tensor_alloc(&base, PC_DTYPE_F32, SHAPE(3, 4), 2), PC_OK);
    fill_iota(&base);
    assert_int_equal(pc_tensor_transpose(&tr, &base, 0, 1), PC_OK);
    long live = pc_alloc_live();

    pc_tensor out = PC_TENSOR_NULL;
    pc_alloc_fail_after(0);
    assert_int_equal(pc_tensor_contiguous(&out, &tr), PC_ERR_NOMEM);
    assert_true(pc_tensor_is_null(&out));
    pc_alloc_fail_after(0);
    assert_int_equal(pc_tensor_cast(&out, &tr, PC_DTYPE_F64), PC_ERR_NOMEM);
    assert_true(pc_tensor_is_null(&out));
    pc_alloc_fail_after(0);
    assert_int_equal(pc_tensor_alloc_like(&out, &tr, PC_DTYPE_I8), PC_ERR_NOMEM);
    /* out == src: the source survives a failure unchanged */
    pc_alloc_fail_after(0);
    assert_int_equal(pc_tensor_cast(&tr, &tr, PC_DTYPE_F64), PC_ERR_NOMEM);
    assert_int_equal(tr.dtype, PC_DTYPE_F32);
    assert_int_equal(pc_storage_refcount(base.storage), 2);
    assert_true(pc_tensor_get(&tr, INDEX(3, 2)) == 11.0);
    assert_int_equal(pc_alloc_live(), live);

    /* views never allocate, so they succeed with the hook armed */
    pc_alloc_fail_after(0);
    pc_tensor v;
    assert_int_equal(pc_tensor_select(&v, &base, 0, 1), PC_OK);
    pc_alloc_fail_after(-1);
    pc_tensor_free(&v);
    pc_tensor_free(&tr);
    pc_tensor_free(&base);
}

/* ---- views and the ownership rule ---- */

static void views_share_storage_and_keep_it_alive(void **state)
{
    pc_tensor base, tr, row;
    assert_int_equal(pc_tensor_alloc(&base, PC_DTYPE_F64, SHAPE(2, 3), 2), PC_OK);
    fill_iota(&base);
    assert_int_equal(pc_tensor_transpose(&tr, &base, 0, 1), PC_OK);
    assert_ptr_equal(tr.storage, base.storage);
    assert_int_equal(pc_storage_refcount(base.storage), 2);
    assert_int_equal(tr.shape[0], 3);
    assert_int_equal(tr.shape[1], 2);
    assert_int_equal(tr.strides[0], 1);
    assert_int_equal(tr.strides[1], 3);
    assert_false(pc_tensor_is_contiguous(&tr));

    /* write through the view, read through the base, and back */
    pc_tensor_set(&tr, INDEX(2, 1), -5.0);
    assert_true(pc_tensor_get(&base, INDEX(1, 2)) == -5.0);
    pc_tensor_set(&base, INDEX(0, 1), 9.0);
    assert_true(pc_tensor_get(&tr, INDEX(1, 0)) == 9.0);

    assert_int_equal(pc_tensor_select(&row, &base, 0, 1), PC_OK);
    assert_int_equal(pc_storage_refcount(base.storage), 3);

    /* the base goes; the views keep the storage and its values */
    pc_storage *s = base.storage;
    pc_tensor_free(&base);
    assert_int_equal(pc_storage_refcount(s), 2);
    assert_true(pc_tensor_get(&row, INDEX(2)) == -5.0);
    assert_true(pc_tensor_get(&tr, INDEX(0, 1)) == 3.0);

    pc_tensor second;
    pc_tensor_share(&second, &row);
    assert_int_equal(pc_storage_refcount(s), 3);
    pc_tensor_free(&row);
    pc_tensor_free(&tr);
    assert_int_equal(pc_storage_refcount(s), 1);
    assert_true(pc_tensor_get(&second, INDEX(0)) == 3.0);
    pc_tensor_free(&second);
}

static void view_onto_self_keeps_one_reference(void **state)
{
    pc_tensor t;
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_I32, SHAPE(2, 3, 4), 3), PC_OK);
    fill_iota(&t);
    assert_int_equal(pc_tensor_permute(&t, &t, (const int[]){2, 0, 1}), PC_OK);
    assert_int_equal(pc_storage_refcount(t.storage), 1);
    assert_int_equal(t.shape[0], 4);
    assert_true(pc_tensor_get(&t, INDEX(3, 1, 2)) == 1 * 12 + 2 * 4 + 3);
    assert_int_equal(pc_tensor_contiguous(&t, &t), PC_OK);
    assert_int_equal(pc_storage_refcount(t.storage), 1);
    assert_true(pc_tensor_is_contiguous(&t));
    assert_true(pc_tensor_get(&t, INDEX(3, 1, 2)) == 23.0);
    pc_tensor_share(&t, &t);
    assert_int_equal(pc_storage_refcount(t.storage), 1);
    /* failure with out == src leaves src as it was */
    assert_int_equal(pc_tensor_transpose(&t, &t, 0, 3), PC_ERR_RANGE);
    assert_int_equal(t.shape[0], 4);
    assert_int_equal(pc_storage_refcount(t.storage), 1);
    pc_tensor_free(&t);
}

static void transpose_then_contiguous_orders_elements(void **state)
{
    pc_tensor base, tr, c;
    assert_int_equal(pc_tensor_alloc(&base, PC_DTYPE_F32, SHAPE(2, 3), 2), PC_OK);
    fill_iota(&base);
    assert_int_equal(pc_tensor_transpose(&tr, &base, -1, -2), PC_OK);
    assert_int_equal(pc_tensor_contiguous(&c, &tr), PC_OK);
    assert_ptr_not_equal(c.storage, base.storage);
    assert_true(pc_tensor_is_contiguous(&c));
    assert_int_equal(c.shape[0], 3);
    assert_int_equal(c.shape[1], 2);
    const float expected[6] = {0, 3, 1, 4, 2, 5};
    assert_memory_equal(pc_tensor_data(&c), expected, sizeof expected);

    /* contiguous of a contiguous tensor is the same storage, one more reference */
    pc_tensor again;
    assert_int_equal(pc_tensor_contiguous(&again, &c), PC_OK);
    assert_ptr_equal(again.storage, c.storage);
    assert_int_equal(pc_storage_refcount(c.storage), 2);
    pc_tensor_free(&again);

    /* a 3-d permutation, element by element */
    pc_tensor t3, p, pc;
    assert_int_equal(pc_tensor_alloc(&t3, PC_DTYPE_I16, SHAPE(2, 3, 4), 3), PC_OK);
    fill_iota(&t3);
    assert_int_equal(pc_tensor_permute(&p, &t3, (const int[]){1, -1, 0}), PC_OK);
    assert_int_equal(pc_tensor_contiguous(&pc, &p), PC_OK);
    const int16_t *d = pc_tensor_data(&pc);
    int k = 0;
    for (int j = 0; j < 3; j++)
        for (int l = 0; l < 4; l++)
            for (int i = 0; i < 2; i++)
                assert_int_equal(d[k++], i * 12 + j * 4 + l);

    assert_int_equal(pc_tensor_permute(&p, &p, (const int[]){0, 0, 1}), PC_ERR_INVALID);
    assert_int_equal(pc_tensor_permute(&p, &p, (const int[]){0, 1, 3}), PC_ERR_RANGE);
    pc_tensor_free(&pc);
    pc_tensor_free(&p);
    pc_tensor_free(&t3);
    pc_tensor_free(&c);
    pc_tensor_free(&tr);
    pc_tensor_free(&base);
}

/* Transposing copies go in tiles; sizes that are no multiple of the tile, both directions. */
static void tiled_transposes_keep_every_element(void **state)
{
    pc_tensor t, p, c, f, back, tr;
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_I32, SHAPE(3, 45, 70), 3), PC_OK);
    fill_iota(&t);
    assert_int_equal(pc_tensor_permute(&p, &t, (const int[]){0, 2, 1}), PC_OK);
    assert_int_equal(pc_tensor_contiguous(&c, &p), PC_OK);
    assert_int_equal(pc_tensor_cast(&f, &p, PC_DTYPE_F64), PC_OK);
    const int32_t *ci = pc_tensor_data(&c);
    const double *fd = pc_tensor_data(&f);
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 70; k++)
            for (int j = 0; j < 45; j++) {
                int at = (i * 70 + k) * 45 + j;
                assert_int_equal(ci[at], i * 45 * 70 + j * 70 + k);
                assert_true(fd[at] == (double)(i * 45 * 70 + j * 70 + k));
            }

    /* strided destination, contiguous source: write c back through a transposed view */
    assert_int_equal(pc_tensor_alloc(&back, PC_DTYPE_I64, SHAPE(3, 45, 70), 3), PC_OK);
    assert_int_equal(pc_tensor_transpose(&tr, &back, 1, 2), PC_OK);
    assert_int_equal(pc_tensor_copy(&tr, &c), PC_OK);
    const int64_t *bd = pc_tensor_data(&back);
    for (int k = 0; k < 3 * 45 * 70; k++)
        assert_int_equal(bd[k], k);
    pc_tensor_free(&tr);
    pc_tensor_free(&back);
    pc_tensor_free(&f);
    pc_tensor_free(&c);
    pc_tensor_free(&p);
    pc_tensor_free(&t);
}

static void view_bounds_checked(void **state)
{
    pc_tensor base, v = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_alloc(&base, PC_DTYPE_F32, SHAPE(6), 1), PC_OK);
    fill_iota(&base);

    assert_int_equal(pc_tensor_view(&v, &base, SHAPE(2, 3), NULL, 2, 1), PC_ERR_RANGE);
    assert_message_is("tensor of shape [2, 3] dtype float32 with strides [3, 1] and offset 1 "
                      "needs 28 bytes of storage, which has 24");
    assert_true(pc_tensor_is_null(&v));

    assert_int_equal(pc_tensor_view(&v, &base, SHAPE(3), SHAPE(2), 1, 1), PC_OK); /* 1 3 5 */
    assert_true(pc_tensor_get(&v, INDEX(2)) == 5.0);
    pc_tensor_free(&v);
    assert_int_equal(pc_tensor_view(&v, &base, SHAPE(3), SHAPE(3), 1, 0), PC_ERR_RANGE);
    assert_int_equal(pc_tensor_view(&v, &base, SHAPE(3), SHAPE(-1), 1, 5), PC_ERR_UNSUPPORTED);
    assert_message_has("negative stride -1 in dimension 0");
    assert_int_equal(pc_tensor_view(&v, &base, SHAPE(1), NULL, 1, -1), PC_ERR_RANGE);
    assert_message_has("negative storage offset -1");
    assert_int_equal(pc_tensor_view(&v, &base, SHAPE(3), SHAPE(INT64_MAX), 1, 0), PC_ERR_RANGE);
    assert_int_equal(
        pc_tensor_view(&v, &base, SHAPE(2, 2), SHAPE(INT64_MAX / 2, INT64_MAX / 2), 2, INT64_MAX),
        PC_ERR_RANGE);
    assert_int_equal(pc_tensor_view(&v, &base, SHAPE(1), NULL, 1, INT64_MAX), PC_ERR_RANGE);
    assert_true(pc_tensor_is_null(&v));

    /* strides of dimensions of size 1 reach nothing */
    assert_int_equal(pc_tensor_view(&v, &base, SHAPE(1, 6), SHAPE(INT64_MAX, 1), 2, 0), PC_OK);
    assert_true(pc_tensor_is_contiguous(&v));
    pc_tensor_free(&v);

    /* broadcast: a million elements over one */
    assert_int_equal(pc_tensor_view(&v, &base, SHAPE(1000, 1000), SHAPE(0, 0), 2, 5), PC_OK);
    assert_true(pc_tensor_get(&v, INDEX(999, 999)) == 5.0);
    pc_tensor_free(&v);

    /* zero-size views: the offset may point just past the end, no further */
    assert_int_equal(pc_tensor_view(&v, &base, SHAPE(0, 4), NULL, 2, 6), PC_OK);
    pc_tensor_free(&v);
    assert_int_equal(pc_tensor_view(&v, &base, SHAPE(0, 4), NULL, 2, 7), PC_ERR_RANGE);

    pc_tensor null = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_view(&v, &null, SHAPE(1), NULL, 1, 0), PC_ERR_INVALID);
    pc_tensor_free(&base);
}

static void reshape_of_contiguous_tensors(void **state)
{
    pc_tensor t, r, tr;
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_F32, SHAPE(2, 3), 2), PC_OK);
    fill_iota(&t);
    assert_int_equal(pc_tensor_reshape(&r, &t, SHAPE(3, -1), 2), PC_OK);
    assert_int_equal(r.shape[1], 2);
    assert_true(pc_tensor_get(&r, INDEX(2, 0)) == 4.0);
    assert_int_equal(pc_tensor_reshape(&r, &r, SHAPE(6), 1), PC_OK);
    assert_int_equal(pc_tensor_reshape(&r, &r, SHAPE(1, 2, 1, 3), 4), PC_OK);
    assert_true(pc_tensor_get(&r, INDEX(0, 1, 0, 2)) == 5.0);
    pc_tensor_free(&r);

    assert_int_equal(pc_tensor_reshape(&r, &t, SHAPE(4), 1), PC_ERR_INVALID);
    assert_message_is("shape [4] is invalid for input of size 6");
    assert_int_equal(pc_tensor_reshape(&r, &t, SHAPE(-1, -1), 2), PC_ERR_INVALID);
    assert_int_equal(pc_tensor_reshape(&r, &t, SHAPE(-2, -3), 2), PC_ERR_INVALID);
    assert_int_equal(
        pc_tensor_reshape(&r, &t, SHAPE(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 6), 17),
        PC_ERR_UNSUPPORTED);

    assert_int_equal(pc_tensor_transpose(&tr, &t, 0, 1), PC_OK);
    assert_int_equal(pc_tensor_reshape(&r, &tr, SHAPE(6), 1), PC_ERR_INVALID);
    assert_message_has("is not contiguous");

    /* a narrowed contiguous tensor keeps its offset */
    pc_tensor row;
    assert_int_equal(pc_tensor_select(&row, &t, 0, 1), PC_OK);
    assert_int_equal(pc_tensor_reshape(&r, &row, SHAPE(3, 1), 2), PC_OK);
    assert_int_equal(r.offset, 3);
    assert_true(pc_tensor_get(&r, INDEX(2, 0)) == 5.0);
    pc_tensor_free(&r);
    pc_tensor_free(&row);
    pc_tensor_free(&tr);
    pc_tensor_free(&t);
}

static void select_and_narrow(void **state)
{
    pc_tensor t, s, n;
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_I64, SHAPE(3, 4), 2), PC_OK);
    fill_iota(&t);

    assert_int_equal(pc_tensor_select(&s, &t, 1, -1), PC_OK); /* column 3 */
    assert_int_equal(s.rank, 1);
    assert_int_equal(s.shape[0], 3);
    assert_int_equal(s.strides[0], 4);
    assert_int_equal(s.offset, 3);
    assert_true(pc_tensor_get(&s, INDEX(2)) == 11.0);
    pc_tensor_free(&s);
    assert_int_equal(pc_tensor_select(&s, &t, 0, 3), PC_ERR_RANGE);
    assert_message_is("select(): index 3 out of range for tensor of size 3 at dimension 0");
    assert_int_equal(pc_tensor_select(&s, &t, 2, 0), PC_ERR_RANGE);
    assert_int_equal(pc_tensor_select(&s, &t, -3, 0), PC_ERR_RANGE);

    assert_int_equal(pc_tensor_narrow(&n, &t, 1, 1, 2), PC_OK);
    assert_int_equal(n.shape[1], 2);
    assert_false(pc_tensor_is_contiguous(&n));
    assert_true(pc_tensor_get(&n, INDEX(2, 1)) == 10.0);
    pc_tensor_free(&n);
    assert_int_equal(pc_tensor_narrow(&n, &t, 0, -1, 1), PC_OK); /* the last row */
    assert_true(pc_tensor_is_contiguous(&n));
    assert_true(pc_tensor_get(&n, INDEX(0, 0)) == 8.0);
    pc_tensor_free(&n);
    assert_int_equal(pc_tensor_narrow(&n, &t, 0, 3, 0), PC_OK); /* empty, at the end */
    assert_int_equal(pc_tensor_numel(&n), 0);
    pc_tensor_free(&n);
    assert_int_equal(pc_tensor_narrow(&n, &t, 0, 2, 2), PC_ERR_RANGE);
    assert_message_is("narrow(): start (2) + length (2) exceeds dimension size (3)");
    assert_int_equal(pc_tensor_narrow(&n, &t, 0, 4, 0), PC_ERR_RANGE);
    assert_int_equal(pc_tensor_narrow(&n, &t, 0, 0, -1), PC_ERR_RANGE);
    pc_tensor_free(&t);
}

static void expand_broadcasts_with_stride_zero(void **state)
{
    pc_tensor t, e, c;
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_F32, SHAPE(3, 1), 2), PC_OK);
    fill_iota(&t);
    assert_int_equal(pc_tensor_expand(&e, &t, SHAPE(2, -1, 4), 3), PC_OK);
    assert_int_equal(e.shape[0], 2);
    assert_int_equal(e.shape[1], 3);
    assert_int_equal(e.shape[2], 4);
    assert_int_equal(e.strides[0], 0);
    assert_int_equal(e.strides[1], 1);
    assert_int_equal(e.strides[2], 0);
    assert_int_equal(pc_tensor_numel(&e), 24);
    assert_int_equal(pc_tensor_contiguous(&c, &e), PC_OK);
    const float *d = pc_tensor_data(&c);
    for (int k = 0; k < 24; k++)
        assert_true(d[k] == (float)((k / 4) % 3));
    pc_tensor_free(&c);

    /* filling the broadcast view writes the base's three elements */
    pc_tensor_fill(&e, 7.5);
    assert_true(pc_tensor_get(&t, INDEX(2, 0)) == 7.5);

    assert_int_equal(pc_tensor_expand(&c, &t, SHAPE(3, 0), 2), PC_OK);
    assert_int_equal(pc_tensor_numel(&c), 0);
    pc_tensor_free(&c);
    assert_int_equal(pc_tensor_expand(&c, &t, SHAPE(4, 2), 2), PC_ERR_INVALID);
    assert_message_has("the expanded size 4 must match the existing size 3");
    assert_int_equal(pc_tensor_expand(&c, &t, SHAPE(3), 1), PC_ERR_INVALID);
    assert_int_equal(pc_tensor_expand(&c, &t, SHAPE(-1, 3, 1), 3), PC_ERR_INVALID);
    /* a broadcast view is held to the same byte limit as an allocation */
    assert_int_equal(pc_tensor_expand(&c, &t, SHAPE((int64_t)1 << 40, 3, 1 << 20), 3),
                     PC_ERR_RANGE);
    pc_tensor_free(&e);
    pc_tensor_free(&t);
}

/* ---- 0-dim and zero-size tensors through every operation ---- */

static void zero_dim_tensors_everywhere(void **state)
{
    pc_tensor t, v, c;
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_F32, NULL, 0), PC_OK);
    assert_int_equal(t.rank, 0);
    assert_int_equal(pc_tensor_numel(&t), 1);
    assert_int_equal(pc_tensor_nbytes(&t), 4);
    assert_true(pc_tensor_is_contiguous(&t));
    assert_true(pc_tensor_get(&t, NULL) == 0.0);
    pc_tensor_fill(&t, 2.75);
    assert_true(pc_tensor_get(&t, NULL) == 2.75);
    assert_ptr_equal(pc_tensor_element_ptr(&t, NULL), pc_tensor_data(&t));
    pc_tensor_set(&t, NULL, -3.5);

    assert_int_equal(pc_tensor_cast(&c, &t, PC_DTYPE_I32), PC_OK);
    assert_int_equal(c.rank, 0);
    assert_true(pc_tensor_get(&c, NULL) == -3.0);
    pc_tensor_free(&c);
    assert_int_equal(pc_tensor_cast(&c, &t, PC_DTYPE_C64), PC_OK);
    double re, im;
    pc_tensor_get_complex(&c, NULL, &re, &im);
    assert_true(re == -3.5 && im == 0.0);
    pc_tensor_free(&c);

    assert_int_equal(pc_tensor_contiguous(&c, &t), PC_OK);
    assert_ptr_equal(c.storage, t.storage);
    pc_tensor_free(&c);

    assert_int_equal(pc_tensor_transpose(&v, &t, 0, -1), PC_OK);
    assert_int_equal(v.rank, 0);
    pc_tensor_free(&v);
    assert_int_equal(pc_tensor_transpose(&v, &t, 0, 1), PC_ERR_RANGE);
    assert_int_equal(pc_tensor_permute(&v, &t, NULL), PC_OK);
    pc_tensor_free(&v);
    assert_int_equal(pc_tensor_reshape(&v, &t, SHAPE(1, 1), 2), PC_OK);
    assert_int_equal(pc_tensor_reshape(&v, &v, NULL, 0), PC_OK);
    assert_int_equal(v.rank, 0);
    pc_tensor_free(&v);
    assert_int_equal(pc_tensor_reshape(&v, &t, SHAPE(-1), 1), PC_OK);
    assert_int_equal(v.shape[0], 1);
    pc_tensor_free(&v);
    assert_int_equal(pc_tensor_expand(&v, &t, SHAPE(3), 1), PC_OK);
    assert_int_equal(v.strides[0], 0);
    assert_true(pc_tensor_get(&v, INDEX(2)) == -3.5);
    pc_tensor_free(&v);
    assert_int_equal(pc_tensor_select(&v, &t, 0, 0), PC_ERR_INVALID);
    assert_message_is("select() cannot be applied to a 0-dim tensor");
    assert_int_equal(pc_tensor_narrow(&v, &t, 0, 0, 1), PC_ERR_INVALID);

    /* a 0-dim view into the middle of a vector */
    pc_tensor vec;
    assert_int_equal(pc_tensor_alloc(&vec, PC_DTYPE_F64, SHAPE(4), 1), PC_OK);
    fill_iota(&vec);
    assert_int_equal(pc_tensor_select(&v, &vec, 0, 2), PC_OK);
    assert_int_equal(v.rank, 0);
    assert_true(pc_tensor_get(&v, NULL) == 2.0);
    assert_int_equal(pc_tensor_copy(&v, &t), PC_OK);
    assert_true(pc_tensor_get(&vec, INDEX(2)) == -3.5);
    pc_tensor_free(&v);
    assert_int_equal(pc_tensor_view(&v, &vec, NULL, NULL, 0, 3), PC_OK);
    assert_true(pc_tensor_get(&v, NULL) == 3.0);
    pc_tensor_free(&v);
    assert_int_equal(pc_tensor_view(&v, &vec, NULL, NULL, 0, 4), PC_ERR_RANGE);
    pc_tensor_free(&vec);
    pc_tensor_free(&t);
}

static void zero_size_tensors_everywhere(void **state)
{
    pc_tensor t, v, c;
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_BF16, SHAPE(2, 0, 3), 3), PC_OK);
    assert_int_equal(pc_tensor_numel(&t), 0);
    assert_int_equal(pc_tensor_nbytes(&t), 0);
    assert_non_null(pc_tensor_data(&t));
    assert_true(pc_tensor_is_contiguous(&t));
    assert_null(pc_tensor_element_ptr(&t, INDEX(0, 0, 0)));
    pc_tensor_fill(&t, 1.0);
    assert_int_equal(pc_tensor_fill_complex(&t, 1.0, 0.0), PC_OK);

    for (int d = 0; d < PC_DTYPE_COUNT; d++) {
        assert_int_equal(pc_tensor_cast(&c, &t, (pc_dtype)d), PC_OK);
        assert_int_equal(c.rank, 3);
        assert_int_equal(c.shape[1], 0);
        assert_int_equal(pc_tensor_numel(&c), 0);
        pc_tensor_free(&c);
    }
    assert_int_equal(pc_tensor_contiguous(&c, &t), PC_OK);
    pc_tensor_free(&c);

    assert_int_equal(pc_tensor_transpose(&v, &t, 0, 2), PC_OK);
    assert_int_equal(v.shape[0], 3);
    assert_true(pc_tensor_is_contiguous(&v)); /* no elements: contiguous by torch's rule */
    assert_int_equal(pc_tensor_contiguous(&c, &v), PC_OK);
    pc_tensor_free(&c);
    assert_int_equal(pc_tensor_cast(&c, &v, PC_DTYPE_F32), PC_OK);
    assert_int_equal(c.shape[0], 3);
    assert_int_equal(c.strides[0], 2);
    assert_int_equal(pc_tensor_copy(&c, &v), PC_OK);
    pc_tensor_free(&c);
    pc_tensor_free(&v);

    assert_int_equal(pc_tensor_reshape(&v, &t, SHAPE(0), 1), PC_OK);
    pc_tensor_free(&v);
    assert_int_equal(pc_tensor_reshape(&v, &t, SHAPE(-1, 3), 2), PC_OK);
    assert_int_equal(v.shape[0], 0);
    pc_tensor_free(&v);
    assert_int_equal(pc_tensor_reshape(&v, &t, SHAPE(0, -1), 2), PC_ERR_INVALID);
    assert_message_has("ambiguous");
    assert_int_equal(pc_tensor_reshape(&v, &t, SHAPE(5, 0, -1), 3), PC_ERR_INVALID);
    assert_int_equal(pc_tensor_select(&v, &t, 0, 1), PC_OK);
    assert_int_equal(v.rank, 2);
    assert_int_equal(pc_tensor_numel(&v), 0);
    pc_tensor_free(&v);
    assert_int_equal(pc_tensor_select(&v, &t, 1, 0), PC_ERR_RANGE);
    assert_int_equal(pc_tensor_narrow(&v, &t, 2, 1, 2), PC_OK);
    pc_tensor_free(&v);
    assert_int_equal(pc_tensor_expand(&v, &t, SHAPE(4, 2, 0, 3), 4), PC_OK);
    assert_int_equal(pc_tensor_numel(&v), 0);
    pc_tensor_free(&v);
    assert_int_equal(pc_tensor_permute(&v, &t, (const int[]){1, 2, 0}), PC_OK);
    pc_tensor_free(&v);
    pc_tensor_free(&t);

    /* an empty vector, and a storage of 0 bytes */
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_C128, SHAPE(0), 1), PC_OK);
    assert_int_equal(pc_storage_nbytes(t.storage), 0);
    assert_int_equal(pc_tensor_fill_complex(&t, 1.0, 2.0), PC_OK);
    assert_int_equal(pc_tensor_view(&v, &t, SHAPE(0, 5), NULL, 2, 0), PC_OK);
    pc_tensor_free(&v);
    assert_int_equal(pc_tensor_view(&v, &t, SHAPE(1), NULL, 1, 0), PC_ERR_RANGE);
    pc_tensor_free(&t);
}

/* ---- casts ---- */

static void cast_f32_to_f16_and_bf16_bits(void **state)
{
    pc_tensor t, h, b;
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_F32, SHAPE(4), 1), PC_OK);
    float *f = pc_tensor_data(&t);
    f[0] = 1.0f / 3.0f;
    f[1] = 1.0f;
    f[2] = -2.0f;
    f[3] = 65536.0f; /* beyond float16: infinity */
    assert_int_equal(pc_tensor_cast(&h, &t, PC_DTYPE_F16), PC_OK);
    assert_int_equal(pc_tensor_cast(&b, &t, PC_DTYPE_BF16), PC_OK);
    assert_int_equal(u16_at(&h, 0), 0x3555);
    assert_int_equal(u16_at(&b, 0), 0x3eab);
    assert_int_equal(u16_at(&h, 1), 0x3c00);
    assert_int_equal(u16_at(&b, 1), 0x3f80);
    assert_int_equal(u16_at(&h, 2), 0xc000);
    assert_int_equal(u16_at(&b, 2), 0xc000);
    assert_int_equal(u16_at(&h, 3), 0x7c00);
    assert_int_equal(u16_at(&b, 3), 0x4780);

    /* and back: the rounded values, exactly */
    pc_tensor back;
    assert_int_equal(pc_tensor_cast(&back, &h, PC_DTYPE_F64), PC_OK);
    assert_true(pc_tensor_get(&back, INDEX(0)) == 0x1.554p-2);
    assert_true(isinf(pc_tensor_get(&back, INDEX(3))));
    pc_tensor_free(&back);
    assert_int_equal(pc_tensor_cast(&back, &b, PC_DTYPE_F32), PC_OK);
    assert_true(pc_tensor_get(&back, INDEX(0)) == 0x1.56p-2);
    pc_tensor_free(&back);
    pc_tensor_free(&b);
    pc_tensor_free(&h);
    pc_tensor_free(&t);
}

static void cast_float_to_int_truncates(void **state)
{
    static const double in[] = {-2.7, -0.5, 0.5, 2.7, 127.9, -128.9, 1e6};
    static const int32_t want_i32[] = {-2, 0, 0, 2, 127, -128, 1000000};
    static const int8_t want_i8[] = {-2, 0, 0, 2, 127, -128, 64}; /* 1e6 wraps: 0xF4240 */
    pc_tensor t, i32, i8;
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_F64, SHAPE(7), 1), PC_OK);
    memcpy(pc_tensor_data(&t), in, sizeof in);
    assert_int_equal(pc_tensor_cast(&i32, &t, PC_DTYPE_I32), PC_OK);
    assert_memory_equal(pc_tensor_data(&i32), want_i32, sizeof want_i32);
    assert_int_equal(pc_tensor_cast(&i8, &t, PC_DTYPE_I8), PC_OK);
    assert_memory_equal(pc_tensor_data(&i8), want_i8, sizeof want_i8);
    pc_tensor_free(&i8);
    pc_tensor_free(&i32);
    pc_tensor_free(&t);
}

static void cast_int64_exact_beyond_2_53(void **state)
{
    static const int64_t in[] = {((int64_t)1 << 53) + 1, INT64_MAX, INT64_MIN,
                                 -((int64_t)1 << 60) - 3};
    pc_tensor t, c, tr, trc;
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_I64, SHAPE(2, 2), 2), PC_OK);
    memcpy(pc_tensor_data(&t), in, sizeof in);
    assert_int_equal(pc_tensor_cast(&c, &t, PC_DTYPE_I64), PC_OK);
    assert_ptr_not_equal(c.storage, t.storage); /* a cast is always a copy */
    assert_memory_equal(pc_tensor_data(&c), in, sizeof in);
    pc_tensor_free(&c);

    /* through a strided view too (same-dtype gather) */
    assert_int_equal(pc_tensor_transpose(&tr, &t, 0, 1), PC_OK);
    assert_int_equal(pc_tensor_cast(&trc, &tr, PC_DTYPE_I64), PC_OK);
    const int64_t want_tr[] = {in[0], in[2], in[1], in[3]};
    assert_memory_equal(pc_tensor_data(&trc), want_tr, sizeof want_tr);
    pc_tensor_free(&trc);

    /* int32 -> int64 of the transposed view: the chunked conversion path */
    pc_tensor i32, i32t, back;
    assert_int_equal(pc_tensor_alloc(&i32, PC_DTYPE_I32, SHAPE(2, 2), 2), PC_OK);
    const int32_t v32[] = {INT32_MIN, -1, INT32_MAX, 7};
    memcpy(pc_tensor_data(&i32), v32, sizeof v32);
    assert_int_equal(pc_tensor_transpose(&i32t, &i32, 0, 1), PC_OK);
    assert_int_equal(pc_tensor_cast(&back, &i32t, PC_DTYPE_I64), PC_OK);
    const int64_t want64[] = {INT32_MIN, INT32_MAX, -1, 7};
    assert_memory_equal(pc_tensor_data(&back), want64, sizeof want64);
    pc_tensor_free(&back);
    pc_tensor_free(&i32t);
    pc_tensor_free(&i32);
    pc_tensor_free(&tr);
    pc_tensor_free(&t);
}

static void cast_to_and_from_bool(void **state)
{
    pc_tensor t, b, f;
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_F32, SHAPE(6), 1), PC_OK);
    const float in[] = {0.0f, -0.0f, 0.5f, NAN, -3.0f, INFINITY};
    memcpy(pc_tensor_data(&t), in, sizeof in);
    assert_int_equal(pc_tensor_cast(&b, &t, PC_DTYPE_BOOL), PC_OK);
    const uint8_t want[] = {0, 0, 1, 1, 1, 1};
    assert_memory_equal(pc_tensor_data(&b), want, sizeof want);

    assert_int_equal(pc_tensor_cast(&f, &b, PC_DTYPE_F64), PC_OK);
    const double wantf[] = {0, 0, 1, 1, 1, 1};
    assert_memory_equal(pc_tensor_data(&f), wantf, sizeof wantf);
    pc_tensor_free(&f);

    pc_tensor_free(&t);
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_I64, SHAPE(3), 1), PC_OK);
    const int64_t ints[] = {0, (int64_t)1 << 40, -1}; /* 2^40 has no low byte set */
    memcpy(pc_tensor_data(&t), ints, sizeof ints);
    pc_tensor_free(&b);
    assert_int_equal(pc_tensor_cast(&b, &t, PC_DTYPE_BOOL), PC_OK);
    const uint8_t wantb[] = {0, 1, 1};
    assert_memory_equal(pc_tensor_data(&b), wantb, sizeof wantb);

    pc_tensor_fill(&b, 0.25);
    assert_int_equal(((uint8_t *)pc_tensor_data(&b))[2], 1);
    pc_tensor_free(&b);
    pc_tensor_free(&t);
}

static void cast_between_complex_and_real(void **state)
{
    pc_tensor z, r, z2;
    assert_int_equal(pc_tensor_alloc(&z, PC_DTYPE_C64, SHAPE(2, 2), 2), PC_OK);
    assert_int_equal(pc_tensor_fill_complex(&z, 1.5, -2.0), PC_OK);
    pc_tensor_set_complex(&z, INDEX(1, 1), -0.25, 8.0);
    double re, im;
    pc_tensor_get_complex(&z, INDEX(0, 1), &re, &im);
    assert_true(re == 1.5 && im == -2.0);

    assert_int_equal(pc_tensor_cast(&r, &z, PC_DTYPE_F32), PC_OK);
    assert_true(pc_tensor_get(&r, INDEX(0, 0)) == 1.5);
    assert_true(pc_tensor_get(&r, INDEX(1, 1)) == -0.25);

    assert_int_equal(pc_tensor_cast(&z2, &r, PC_DTYPE_C128), PC_OK);
    pc_tensor_get_complex(&z2, INDEX(1, 1), &re, &im);
    assert_true(re == -0.25 && im == 0.0);
    pc_tensor_free(&z2);

    /* complex64 -> complex128 keeps both parts, through a transposed view */
    pc_tensor zt;
    assert_int_equal(pc_tensor_transpose(&zt, &z, 0, 1), PC_OK);
    assert_int_equal(pc_tensor_cast(&z2, &zt, PC_DTYPE_C128), PC_OK);
    const double *d = pc_tensor_data(&z2);
    assert_true(d[6] == -0.25 && d[7] == 8.0);
    assert_true(d[2] == 1.5 && d[3] == -2.0);
    pc_tensor_free(&z2);
    pc_tensor_free(&zt);

    /* a complex value does not fit a real tensor */
    assert_int_equal(pc_tensor_fill_complex(&r, 1.0, 2.0), PC_ERR_INVALID);
    assert_message_has("cannot be converted to type float32");
    assert_int_equal(pc_tensor_fill_complex(&r, 4.0, 0.0), PC_OK);
    assert_true(pc_tensor_get(&r, INDEX(1, 0)) == 4.0);
    pc_tensor_free(&r);
    pc_tensor_free(&z);
}

/* A strided conversion must give the bits of the contiguous one, across chunk boundaries. */
static void cast_of_views_matches_elementwise_conversion(void **state)
{
    pc_tensor t, tr, h, bf;
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_F32, SHAPE(300, 7), 2), PC_OK);
    float *f = pc_tensor_data(&t);
    for (int k = 0; k < 300 * 7; k++)
        f[k] = (float)(k - 1000) / 7.0f;
    /* [7, 300] with strides [1, 7]: rows of 300 strided elements, longer than one chunk */
    assert_int_equal(pc_tensor_transpose(&tr, &t, 0, 1), PC_OK);
    assert_int_equal(pc_tensor_cast(&h, &tr, PC_DTYPE_F16), PC_OK);
    assert_int_equal(pc_tensor_cast(&bf, &tr, PC_DTYPE_BF16), PC_OK);
    for (int i = 0; i < 7; i++) {
        for (int j = 0; j < 300; j++) {
            float x = f[j * 7 + i];
            assert_int_equal(u16_at(&h, i * 300 + j), pc_f32_to_f16(x));
            assert_int_equal(u16_at(&bf, i * 300 + j), pc_f32_to_bf16(x));
        }
    }
    pc_tensor_free(&bf);
    pc_tensor_free(&h);

    /* strided source and destination: a column of t into a column of a wider tensor */
    pc_tensor wide, col, col_src;
    assert_int_equal(pc_tensor_alloc(&wide, PC_DTYPE_F64, SHAPE(300, 3), 2), PC_OK);
    pc_tensor_fill(&wide, -1.0);
    assert_int_equal(pc_tensor_select(&col, &wide, 1, 1), PC_OK);
    assert_int_equal(pc_tensor_select(&col_src, &t, 1, 4), PC_OK);
    assert_int_equal(pc_tensor_copy(&col, &col_src), PC_OK);
    for (int i = 0; i < 300; i++) {
        assert_true(pc_tensor_get(&wide, INDEX(i, 0)) == -1.0);
        assert_true(pc_tensor_get(&wide, INDEX(i, 1)) == (double)f[i * 7 + 4]);
        assert_true(pc_tensor_get(&wide, INDEX(i, 2)) == -1.0);
    }
    assert_int_equal(pc_tensor_copy(&wide, &wide), PC_OK); /* the same view: a no-op */
    assert_true(pc_tensor_get(&wide, INDEX(299, 2)) == -1.0);
    assert_int_equal(pc_tensor_copy(&col, &t), PC_ERR_INVALID);
    assert_message_is("pc_tensor_copy: source shape [300, 7] differs from [300]");
    pc_tensor_free(&col_src);
    pc_tensor_free(&col);
    pc_tensor_free(&wide);
    pc_tensor_free(&tr);
    pc_tensor_free(&t);
}

static void cast_refuses_bad_dtype_and_null(void **state)
{
    pc_tensor t, c = PC_TENSOR_NULL, null = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_F32, SHAPE(2), 1), PC_OK);
    assert_int_equal(pc_tensor_cast(&c, &t, PC_DTYPE_INVALID), PC_ERR_INVALID);
    assert_int_equal(pc_tensor_cast(&c, &null, PC_DTYPE_F32), PC_ERR_INVALID);
    assert_message_has("null");
    assert_int_equal(pc_tensor_contiguous(&c, &null), PC_ERR_INVALID);
    assert_int_equal(pc_tensor_copy(&null, &t), PC_ERR_INVALID);
    assert_int_equal(pc_tensor_numel(&null), 0);
    assert_null(pc_tensor_data(&null));
    pc_tensor_fill(&null, 1.0); /* nothing to do */
    assert_true(pc_tensor_is_null(&c));
    pc_tensor_free(&t);
}

static void fill_writes_every_reachable_element(void **state)
{
    pc_tensor t, n;
    for (int d = 0; d < PC_DTYPE_COUNT; d++) {
        assert_int_equal(pc_tensor_alloc(&t, (pc_dtype)d, SHAPE(3, 5), 2), PC_OK);
        pc_tensor_fill(&t, 1.0);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 5; j++)
                assert_true(pc_tensor_get(&t, INDEX(i, j)) == 1.0);
        assert_int_equal(pc_tensor_narrow(&n, &t, 1, 1, 3), PC_OK);
        pc_tensor_fill(&n, 0.0);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 5; j++)
                assert_true(pc_tensor_get(&t, INDEX(i, j)) == (j >= 1 && j <= 3 ? 0.0 : 1.0));
        pc_tensor_free(&n);
        pc_tensor_free(&t);
    }
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_I16, SHAPE(2), 1), PC_OK);
    pc_tensor_fill(&t, -7.9); /* converted as a cast: truncated */
    assert_true(pc_tensor_get(&t, INDEX(1)) == -7.0);
    pc_tensor_free(&t);
}

/* ---- wrapping memory ---- */

typedef struct release_log {
    int calls;
    void *data;
    size_t nbytes;
} release_log;

static void log_and_free(void *ctx, void *data, size_t nbytes)
{
    release_log *log = ctx;
    log->calls++;
    log->data = data;
    log->nbytes = nbytes;
    free(data);
}

static void wrap_calls_release_exactly_once(void **state)
{
    release_log log = {0};
    float *buf = malloc(6 * sizeof(float));
    assert_non_null(buf);
    for (int i = 0; i < 6; i++)
        buf[i] = (float)i * 10.0f;
    pc_tensor t, v;
    assert_int_equal(pc_tensor_wrap(&t, PC_DTYPE_F32, SHAPE(2, 3), 2, buf, 6 * sizeof(float),
                                    log_and_free, &log),
                     PC_OK);
    assert_ptr_equal(pc_tensor_data(&t), buf);
    assert_int_equal(pc_storage_refcount(t.storage), 1);
    assert_true(pc_tensor_get(&t, INDEX(1, 2)) == 50.0);
    assert_int_equal(pc_tensor_transpose(&v, &t, 0, 1), PC_OK);
    pc_tensor_free(&t);
    assert_int_equal(log.calls, 0);
    assert_true(pc_tensor_get(&v, INDEX(2, 1)) == 50.0);
    pc_tensor_free(&v);
    assert_int_equal(log.calls, 1);
    assert_ptr_equal(log.data, buf);
    assert_int_equal(log.nbytes, 6 * sizeof(float));
    pc_tensor_free(&v);
    assert_int_equal(log.calls, 1);

    /* the storage takes the memory over even when wrapping fails */
    release_log fail_log = {0};
    buf = malloc(16);
    assert_non_null(buf);
    pc_alloc_fail_after(0);
    assert_int_equal(
        pc_tensor_wrap(&t, PC_DTYPE_F32, SHAPE(4), 1, buf, 16, log_and_free, &fail_log),
        PC_ERR_NOMEM);
    assert_int_equal(fail_log.calls, 1);

    release_log small_log = {0};
    buf = malloc(16);
    assert_non_null(buf);
    assert_int_equal(
        pc_tensor_wrap(&t, PC_DTYPE_F32, SHAPE(5), 1, buf, 16, log_and_free, &small_log),
        PC_ERR_RANGE);
    assert_message_is("tensor of shape [5] dtype float32 with strides [1] and offset 0 needs 20 "
                      "bytes of storage, which has 16");
    assert_int_equal(small_log.calls, 1);

    release_log null_log = {0};
    assert_int_equal(
        pc_tensor_wrap(&t, PC_DTYPE_F32, SHAPE(1), 1, NULL, 4, log_and_free, &null_log),
        PC_ERR_INVALID);
    assert_int_equal(null_log.calls, 1);
}

static void wrap_borrowed_and_empty_memory(void **state)
{
    /* borrowed: no release, writes land in the caller's array */
    int32_t arr[4] = {1, 2, 3, 4};
    pc_tensor t, v;
    assert_int_equal(pc_tensor_wrap(&t, PC_DTYPE_I32, SHAPE(4), 1, arr, sizeof arr, NULL, NULL),
                     PC_OK);
    pc_tensor_set(&t, INDEX(3), 40.0);
    assert_int_equal(arr[3], 40);
    pc_tensor_free(&t);

    /* NULL with 0 bytes is a valid empty storage */
    release_log log = {0};
    assert_int_equal(pc_tensor_wrap(&t, PC_DTYPE_F16, SHAPE(0, 8), 2, NULL, 0, log_and_free, &log),
                     PC_OK);
    assert_non_null(pc_tensor_data(&t));
    assert_int_equal(pc_tensor_cast(&v, &t, PC_DTYPE_F32), PC_OK);
    pc_tensor_free(&v);
    pc_tensor_free(&t);
    assert_int_equal(log.calls, 1);
    assert_null(log.data);

    /* a storage shared by tensors of its own making */
    pc_storage *s;
    assert_int_equal(pc_storage_wrap(&s, arr, sizeof arr, NULL, NULL), PC_OK);
    assert_int_equal(pc_tensor_from_storage(&t, s, PC_DTYPE_I32, SHAPE(2), SHAPE(2), 1, 1), PC_OK);
    assert_int_equal(pc_storage_refcount(s), 2);
    assert_true(pc_tensor_get(&t, INDEX(1)) == 40.0);
    assert_int_equal(pc_tensor_from_storage(&v, s, PC_DTYPE_I64, SHAPE(3), NULL, 1, 0),
                     PC_ERR_RANGE);
    assert_int_equal(pc_tensor_from_storage(&v, NULL, PC_DTYPE_I64, SHAPE(1), NULL, 1, 0),
                     PC_ERR_INVALID);
    pc_storage_unref(s);
    assert_true(pc_tensor_get(&t, INDEX(0)) == 2.0);
    pc_tensor_free(&t);
}

/* ---- threads ---- */

/* Views made and freed on several threads at once: the count must come back to 1. Plain
 * pthreads rather than OpenMP, whose pool outlives the test and shows up under valgrind. */
enum { SHARE_THREADS = 8, SHARES_PER_THREAD = 5000 };

static void *share_and_free(void *arg)
{
    const pc_tensor *base = arg;
    for (int i = 0; i < SHARES_PER_THREAD; i++) {
        pc_tensor v;
        if (pc_tensor_select(&v, base, 0, i % 8) != PC_OK)
            return (void *)1;
        pc_tensor_free(&v);
    }
    return NULL;
}

static void refcounts_survive_threads(void **state)
{
    pc_tensor base;
    assert_int_equal(pc_tensor_alloc(&base, PC_DTYPE_F32, SHAPE(8, 8), 2), PC_OK);
    pthread_t threads[SHARE_THREADS];
    for (int i = 0; i < SHARE_THREADS; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, share_and_free, &base), 0);
    for (int i = 0; i < SHARE_THREADS; i++) {
        void *result;
        assert_int_equal(pthread_join(threads[i], &result), 0);
        assert_null(result);
    }
    assert_int_equal(pc_storage_refcount(base.storage), 1);
    pc_tensor_free(&base);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(shape_format_like_torch_size),
        T(contiguous_strides_count_zero_as_one),
        T(alloc_every_dtype_and_shape_zeroed),
        T(alloc_values_read_back_by_index),
        T(alloc_rank_16_ok_rank_17_refused),
        T(alloc_overflowing_shapes_refused),
        T(alloc_negative_dims_and_bad_dtype_refused),
        T(alloc_failure_is_an_error_not_a_crash),
        T(views_share_storage_and_keep_it_alive),
        T(view_onto_self_keeps_one_reference),
        T(transpose_then_contiguous_orders_elements),
        T(tiled_transposes_keep_every_element),
        T(view_bounds_checked),
        T(reshape_of_contiguous_tensors),
        T(select_and_narrow),
        T(expand_broadcasts_with_stride_zero),
        T(zero_dim_tensors_everywhere),
        T(zero_size_tensors_everywhere),
        T(cast_f32_to_f16_and_bf16_bits),
        T(cast_float_to_int_truncates),
        T(cast_int64_exact_beyond_2_53),
        T(cast_to_and_from_bool),
        T(cast_between_complex_and_real),
        T(cast_of_views_matches_elementwise_conversion),
        T(cast_refuses_bad_dtype_and_null),
        T(fill_writes_every_reachable_element),
        T(wrap_calls_release_exactly_once),
        T(wrap_borrowed_and_empty_memory),
        T(refcounts_survive_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
