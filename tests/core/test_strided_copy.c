/* core/strided_copy.h against an element-by-element reference: random shapes with negative,
 * zero and transposed strides, every pair of a few dtypes (conversions through
 * pc_convert_buffer), the tiled path, the threaded path, add-zero, and an in-place copy. */
#include "pc_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/core/convert.h"
#include "precheck/core/strided_copy.h"

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* The reference: each element on its own, in row-major order, converted one at a time. */
static void reference(unsigned char *dst, pc_dtype dd, const int64_t *ds, const unsigned char *src,
                      pc_dtype sd, const int64_t *ss, const int64_t *shape, int rank)
{
    int64_t n = 1, idx[PC_STRIDED_MAX_DIMS] = {0};
    for (int i = 0; i < rank; i++)
        n *= shape[i];
    for (int64_t e = 0; e < n; e++) {
        int64_t doff = 0, soff = 0;
        for (int i = 0; i < rank; i++) {
            doff += idx[i] * ds[i];
            soff += idx[i] * ss[i];
        }
        assert_int_equal(pc_convert_buffer(dst + doff * (int64_t)pc_dtype_size(dd), dd,
                                           src + soff * (int64_t)pc_dtype_size(sd), sd, 1),
                         PC_OK);
        for (int i = rank - 1; i >= 0; i--) {
            if (++idx[i] < shape[i])
                break;
            idx[i] = 0;
        }
    }
}

/* Row-major strides of shape, then some of them negated, zeroed (source only) or swapped;
 * returns the element offset of [0, ..., 0] in a buffer of prod(shape) elements. */
static int64_t make_layout(uint64_t *rng, const int64_t *shape, int rank, int64_t *strides,
                           bool source)
{
    int64_t perm[PC_STRIDED_MAX_DIMS], step = 1;
    for (int i = 0; i < rank; i++)
        perm[i] = i;
    for (int i = rank - 1; i > 0; i--) { /* a random dimension order in memory */
        int j = (int)(next(rng) % (uint64_t)(i + 1));
        int64_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int k = rank - 1; k >= 0; k--) {
        strides[perm[k]] = step;
        step *= shape[perm[k]];
    }
    int64_t origin = 0;
    for (int i = 0; i < rank; i++) {
        uint64_t r = next(rng) % 6;
        if (r == 0) { /* flipped */
            origin += (shape[i] - 1) * strides[i];
            strides[i] = -strides[i];
        } else if (r == 1 && source) { /* broadcast */
            strides[i] = 0;
        }
    }
    return origin;
}

static void check_case(uint64_t *rng, pc_dtype dd, pc_dtype sd, const int64_t *shape, int rank)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= shape[i];
    size_t dsz = pc_dtype_size(dd), ssz = pc_dtype_size(sd);
    unsigned char *src = malloc((size_t)n * ssz + 1), *a = calloc((size_t)n + 1, dsz),
                  *b = calloc((size_t)n + 1, dsz);
    assert_true(src && a && b);
    for (int64_t i = 0; i < n; i++) /* small integers and fractions every dtype holds */
        pc_element_store(src + i * (int64_t)ssz, sd, (double)(int)(next(rng) % 200) / 4 - 25, 0);
    int64_t ds[PC_STRIDED_MAX_DIMS], ss[PC_STRIDED_MAX_DIMS];
    int64_t d0 = make_layout(rng, shape, rank, ds, false);
    int64_t s0 = make_layout(rng, shape, rank, ss, true);
    pc_strided_copy(a + d0 * (int64_t)dsz, dd, ds, src + s0 * (int64_t)ssz, sd, ss, shape, rank, 0);
    reference(b + d0 * (int64_t)dsz, dd, ds, src + s0 * (int64_t)ssz, sd, ss, shape, rank);
    assert_memory_equal(a, b, (size_t)n * dsz);
    free(src);
    free(a);
    free(b);
}

static void test_random_layouts(void **state)
{
    (void)state;
    static const pc_dtype dts[] = {PC_DTYPE_F32, PC_DTYPE_F16, PC_DTYPE_BF16, PC_DTYPE_F64,
                                   PC_DTYPE_I64, PC_DTYPE_U8,  PC_DTYPE_C64};
    const size_t nd = sizeof dts / sizeof dts[0];
    uint64_t rng = 88172645463325252u;
    for (int it = 0; it < 600; it++) {
        int rank = (int)(next(&rng) % 5);
        int64_t shape[PC_STRIDED_MAX_DIMS];
        for (int i = 0; i < rank; i++)
            shape[i] = 1 + (int64_t)(next(&rng) % (i == rank - 1 ? 70 : 6));
        check_case(&rng, dts[next(&rng) % nd], dts[next(&rng) % nd], shape, rank);
    }
}

/* Transposes wider than a tile (the tiled walk) and copies past PC_STRIDED_PARALLEL_MIN (the
 * threaded one), converted and not. */
static void test_tiled_and_threaded(void **state)
{
    (void)state;
    uint64_t rng = 7;
    const int64_t planes[] = {3, 67, 45}, big[] = {600, 300}, one[] = {PC_STRIDED_PARALLEL_MIN + 3};
    for (int k = 0; k < 4; k++) {
        check_case(&rng, PC_DTYPE_F32, PC_DTYPE_F32, planes, 3);
        check_case(&rng, PC_DTYPE_F16, PC_DTYPE_F32, planes, 3);
        check_case(&rng, PC_DTYPE_F32, PC_DTYPE_F32, big, 2);
        check_case(&rng, PC_DTYPE_BF16, PC_DTYPE_F64, big, 2);
        check_case(&rng, PC_DTYPE_I64, PC_DTYPE_I64, one, 1);
    }
}

static void test_add_zero_and_in_place(void **state)
{
    (void)state;
    float x[4] = {-0.0f, 1.5f, 0, 0}, y[4];
    uint32_t snan = 0x7f800001u, qnan = 0x7fc00001u;
    memcpy(&x[2], &snan, 4);
    x[3] = -2.0f;
    const int64_t shape[] = {4}, st[] = {1};
    pc_strided_copy(y, PC_DTYPE_F32, st, x, PC_DTYPE_F32, st, shape, 1, PC_STRIDED_ADD_ZERO);
    assert_false(signbit(y[0])); /* 0.0 + -0.0 */
    assert_true(y[1] == 1.5f && y[3] == -2.0f);
    uint32_t bits;
    memcpy(&bits, &y[2], 4);
    assert_int_equal(bits, qnan); /* quieted, payload kept */
    pc_strided_copy(y, PC_DTYPE_F32, st, x, PC_DTYPE_F32, st, shape, 1, 0);
    assert_memory_equal(x, y, sizeof x); /* without the flag: the bits as they are */
    /* an integer dtype ignores the flag */
    int32_t i[2] = {-1, 5}, j[2];
    const int64_t two[] = {2};
    pc_strided_copy(j, PC_DTYPE_I32, st, i, PC_DTYPE_I32, st, two, 1, PC_STRIDED_ADD_ZERO);
    assert_memory_equal(i, j, sizeof i);
    /* the same memory and layout on both sides: nothing changes */
    pc_strided_copy(x, PC_DTYPE_F32, st, x, PC_DTYPE_F32, st, shape, 1, 0);
    assert_true(x[1] == 1.5f && signbit(x[0]));
    /* zero elements: nothing is touched */
    const int64_t empty[] = {3, 0}, st2[] = {0, 1};
    pc_strided_copy(NULL, PC_DTYPE_F32, st2, NULL, PC_DTYPE_F16, st2, empty, 2, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_layouts),
        cmocka_unit_test(test_tiled_and_threaded),
        cmocka_unit_test(test_add_zero_and_in_place),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
