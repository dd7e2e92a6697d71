/*
 * pc_kernel_sum_to's reduction of leading dimensions (the bias gradient of linear, a broadcast
 * operand's gradient) sums a block of columns together; each column must still get torch's
 * cascade, the additions of the column summed alone: rows in groups of four into four
 * accumulators, level 0 moved up into level 1 every 2^p groups (and on up), the rows left over,
 * the levels folded down, the four accumulators added in order. The reference here is that
 * cascade written for one column; the sums must have its bits for row counts below, at and
 * across the level steps, and for column counts below, at and across a block (with a partial
 * last block), in float32 and float64.
 */
#include "pc_op_test.h"
#include "pc_test.h"

#include <string.h>

#include "ops/kernel.h"

/* The cascade of column c of x [R, C], alone, in double or (f32) rounded to float each step. */
static double cascade(const void *x, bool f32, int64_t R, int64_t C, int64_t c)
{
    enum { ILP = 4, LEVELS = 4 };
    double accd[16] = {0};
    float accf[16] = {0};
    int64_t groups = R / ILP, lp = 0;
    while (((int64_t)1 << lp) < groups)
        lp++;
    lp = lp / LEVELS > 4 ? lp / LEVELS : 4;
    int64_t step = (int64_t)1 << lp, mask = step - 1;
#define ADD(k, r)                                                                                  \
    do {                                                                                           \
        if (f32)                                                                                   \
            accf[k] += ((const float *)x)[(r)*C + c];                                              \
        else                                                                                       \
            accd[k] += ((const double *)x)[(r)*C + c];                                             \
    } while (0)
#define MOVE(to, from)                                                                             \
    do {                                                                                           \
        if (f32) {                                                                                 \
            accf[to] += accf[from];                                                                \
            accf[from] = 0;                                                                        \
        } else {                                                                                   \
            accd[to] += accd[from];                                                                \
            accd[from] = 0;                                                                        \
        }                                                                                          \
    } while (0)
    int64_t i = 0;
    while (i + step <= groups) {
        for (int64_t j = 0; j < step; j++, i++)
            for (int a = 0; a < ILP; a++)
                ADD(a, i * ILP + a);
        for (int j = 1; j < LEVELS; j++) {
            for (int a = 0; a < ILP; a++)
                MOVE(j * ILP + a, (j - 1) * ILP + a);
            if ((i & (mask << (j * lp))) != 0)
                break;
        }
    }
    for (; i < groups; i++)
        for (int a = 0; a < ILP; a++)
            ADD(a, i * ILP + a);
    for (int64_t r = groups * ILP; r < R; r++)
        ADD(r % ILP, r);
    for (int j = 1; j < LEVELS; j++)
        for (int a = 0; a < ILP; a++) {
            if (f32)
                accf[a] += accf[j * ILP + a];
            else
                accd[a] += accd[j * ILP + a];
        }
    if (f32) {
        float t = accf[0];
        for (int a = 1; a < ILP; a++)
            t += accf[a];
        return (double)t; /* (exact: the float32 sum, held in a double) */
    }
    double t = accd[0];
    for (int a = 1; a < ILP; a++)
        t += accd[a];
    return t;
#undef ADD
#undef MOVE
}

static void check_sum(pc_dtype dt, int64_t R, int64_t C, uint32_t *rng)
{
    pc_op_call c;
    pc_test_op_call(&c, "add", "Tensor.__add__.0");
    int64_t shape[2] = {R, C};
    pc_tensor x = PC_TENSOR_NULL, s = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_alloc(&x, dt, shape, 2), PC_OK);
    pc_test_fill_varied(&x, rng);
    /* to [C] and to [1, C]: the leading dimension summed */
    for (int form = 0; form < 2; form++) {
        int64_t to[2] = {1, C};
        assert_int_equal(pc_kernel_sum_to(&c, &x, form ? to : to + 1, form ? 2 : 1, &s), PC_OK);
        assert_int_equal(s.dtype, dt);
        assert_int_equal(pc_tensor_numel(&s), C);
        bool f32 = dt == PC_DTYPE_F32;
        for (int64_t k = 0; k < C; k++) {
            double want = cascade(pc_tensor_data(&x), f32, R, C, k);
            double got = f32 ? (double)((const float *)pc_tensor_data(&s))[k]
                             : ((const double *)pc_tensor_data(&s))[k];
            if (memcmp(&want, &got, sizeof want) != 0)
                fail_msg("%s [%lld, %lld] column %lld: %.17g, the column alone %.17g",
                         f32 ? "float32" : "float64", (long long)R, (long long)C, (long long)k, got,
                         want);
        }
        pc_tensor_free(&s);
    }
    pc_tensor_free(&x);
    pc_op_call_free(&c);
}

static void test_columns_sum_as_alone(void **state)
{
    (void)state;
    uint32_t rng = 7;
    static const int64_t rows[] = {1, 3, 4, 5, 63, 64, 65, 67, 257, 1024, 1031, 4100, 16400};
    static const int64_t cols[] = {1, 7, 31, 32, 33, 64, 70, 100};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
        for (size_t j = 0; j < sizeof cols / sizeof *cols; j++) {
            check_sum(PC_DTYPE_F32, rows[i], cols[j], &rng);
            check_sum(PC_DTYPE_F64, rows[i], cols[j], &rng);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_columns_sum_as_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
