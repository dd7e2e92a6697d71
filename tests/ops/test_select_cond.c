/*
 * The conditions of where and masked_fill (src/ops/pointwise/select.c) are gathered as bytes,
 * 0/1, one per element (pc_ew_loop_cond), not widened to the compute type: a bool or 8-bit
 * condition of stride 1 is read as bytes in a vectorised loop, others element by element. The
 * results and gradients must be, bit for bit, what an element-by-element reference written here
 * gives (the value where the condition is not 0, the other where it is 0; a gradient of dy + 0
 * or +0): for conditions that hit the byte loop (a [64, 64] bool mask broadcast over
 * [2, 8, 64, 64], a full one) and miss it (a mask broadcast along its rows, a transposed one,
 * uint8 values 2 and 255, int32 values whose low byte is 0), shapes that end inside a chunk,
 * NaN and -0.0 in the values, float32, bfloat16, int64 and bool operands, on the device and
 * the bench.
 */
#include "pc_op_test.h"
#include "pc_test.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "precheck/core/convert.h"
#include "precheck/ops/exec.h"

static uint32_t rng = 31;

static pc_tensor make(pc_dtype dtype, const int64_t *shape, int rank)
{
    pc_tensor t = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_alloc(&t, dtype, shape, rank), PC_OK);
    pc_test_fill_varied(&t, &rng);
    return t;
}

/* Some elements of a float tensor (contiguous) made NaN, -NaN, -0.0 and +0.0. */
static void add_specials(pc_tensor *t)
{
    if (!pc_dtype_is_float(t->dtype))
        return;
    char *p = pc_tensor_data(t);
    size_t sz = pc_dtype_size(t->dtype);
    const double sp[4] = {(double)NAN, -(double)NAN, -0.0, 0.0};
    for (int64_t i = 3; i < pc_tensor_numel(t); i += 97)
        pc_element_store(p + (size_t)i * sz, t->dtype, sp[(i / 97) % 4], 0.0);
}

/* The kinds of condition: how it is laid out and what values it holds. */
typedef enum cond_kind {
    COND_BOOL_ROWS,  /* bool [R, C] broadcast over the leading dimensions: the byte loop */
    COND_BOOL_FULL,  /* bool of the result's shape */
    COND_BOOL_COL,   /* bool [R, 1]: stride 0 along the inner dimension */
    COND_BOOL_TRANS, /* bool [C, R] transposed to [R, C]: stride C */
    COND_U8_FULL,    /* uint8 with 0, 1, 2 and 255 */
    COND_I32_ROWS,   /* int32 with 0, 1, -1, 256 and 65536 (low bytes 0) */
    COND_KINDS
} cond_kind;

/* The condition of kind k for a result of shape [.., R, C] (rank >= 2). */
static pc_tensor make_cond(cond_kind k, const int64_t *shape, int rank)
{
    int64_t R = shape[rank - 2], C = shape[rank - 1];
    int64_t rc[2] = {R, C}, cr[2] = {C, R}, r1[2] = {R, 1};
    pc_tensor m = PC_TENSOR_NULL, base = PC_TENSOR_NULL;
    switch (k) {
    case COND_BOOL_ROWS:
        assert_int_equal(pc_tensor_alloc(&m, PC_DTYPE_BOOL, rc, 2), PC_OK);
        break;
    case COND_BOOL_FULL:
        assert_int_equal(pc_tensor_alloc(&m, PC_DTYPE_BOOL, shape, rank), PC_OK);
        break;
    case COND_BOOL_COL:
        assert_int_equal(pc_tensor_alloc(&m, PC_DTYPE_BOOL, r1, 2), PC_OK);
        break;
    case COND_BOOL_TRANS:
        assert_int_equal(pc_tensor_alloc(&base, PC_DTYPE_BOOL, cr, 2), PC_OK);
        break;
    case COND_U8_FULL:
        assert_int_equal(pc_tensor_alloc(&m, PC_DTYPE_U8, shape, rank), PC_OK);
        break;
    case COND_I32_ROWS:
        assert_int_equal(pc_tensor_alloc(&m, PC_DTYPE_I32, rc, 2), PC_OK);
        break;
    default:
        fail();
    }
    pc_tensor *fill = k == COND_BOOL_TRANS ? &base : &m;
    static const int64_t u8v[5] = {0, 1, 2, 255, 0}, i32v[6] = {0, 1, -1, 256, 65536, 0};
    char *p = pc_tensor_data(fill);
    size_t sz = pc_dtype_size(fill->dtype);
    for (int64_t i = 0; i < pc_tensor_numel(fill); i++) {
        rng = rng * 1664525u + 1013904223u;
        uint32_t r = rng >> 16;
        int64_t v = (r % 3) != 0; /* bool: a causal-like mix of runs would do as well */
        if (fill->dtype == PC_DTYPE_U8)
            v = u8v[r % 5];
        else if (fill->dtype == PC_DTYPE_I32)
            v = i32v[r % 6];
        pc_element_store_i64(p + (size_t)i * sz, fill->dtype, v);
    }
    if (k == COND_BOOL_TRANS) {
        assert_int_equal(pc_tensor_transpose(&m, &base, 0, 1), PC_OK);
        pc_tensor_free(&base);
    }
    return m;
}

/* Whether the condition holds at the result's multi-index idx (broadcast from the right). */
static bool cond_at(const pc_tensor *m, const int64_t *idx, int rank)
{
    int64_t mi[PC_TENSOR_MAX_DIMS];
    for (int d = 0; d < m->rank; d++) {
        int rd = rank - m->rank + d;
        mi[d] = m->shape[d] == 1 ? 0 : idx[rd];
    }
    return pc_element_load_i64(pc_tensor_element_ptr(m, mi), m->dtype) != 0;
}

/* idx moved on to the next multi-index of shape (row-major). */
static void next_index(int64_t *idx, const int64_t *shape, int rank)
{
    for (int d = rank - 1; d >= 0; d--) {
        if (++idx[d] < shape[d])
            return;
        idx[d] = 0;
    }
}

/* The bytes of v + 0 in dtype (a gradient as one term of a sum gives it: -0 becomes +0). */
static void grad_bytes(const char *v, pc_dtype dtype, char *out)
{
    size_t sz = pc_dtype_size(dtype);
    double x;
    pc_element_load(v, dtype, &x, NULL);
    if (x == 0)
        memset(out, 0, sz);
    else
        memcpy(out, v, sz);
}

static pc_op_call make_call(const char *op, pc_tensor *const *ts, const bool *grad, int n)
{
    pc_op_call c;
    pc_test_op_call(&c, op, op);
    for (int i = 0; i < n; i++) {
        pc_tensor shared = PC_TENSOR_NULL;
        pc_tensor_share(&shared, ts[i]);
        pc_test_op_tensor_arg(&c, i, shared, grad[i]);
    }
    return c;
}

/* masked_fill(x, m, v) of x [.., R, C] and its gradients against the reference. */
static void check_masked_fill(pc_dtype xd, cond_kind k, const int64_t *shape, int rank,
                              pc_compute compute, bool specials)
{
    pc_tensor x = make(xd, shape, rank), dy = make(xd, shape, rank), m = make_cond(k, shape, rank);
    pc_tensor v = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_alloc(&v, PC_DTYPE_F32, NULL, 0), PC_OK);
    double fill = pc_dtype_is_float(xd) ? -(double)INFINITY : 5.0;
    pc_tensor_fill(&v, fill);
    if (specials) {
        add_specials(&x);
        add_specials(&dy);
    }
    bool fl = pc_dtype_is_float(xd);
    /* the value's gradient (a sum in index order) only where dy has no NaN */
    pc_tensor *ts[3] = {&x, &m, &v};
    bool grad[3] = {fl, false, fl && !specials};
    pc_op_call c = make_call("masked_fill", ts, grad, 3);
    pc_op_result r;
    pc_op_grads g;
    memset(&r, 0, sizeof r);
    memset(&g, 0, sizeof g);
    assert_int_equal(pc_op_forward(&c, compute, &r), PC_OK);
    assert_int_equal(r.count, 1);
    const pc_tensor *y = &r.tensors[0];
    assert_int_equal(y->dtype, xd);
    assert_true(pc_tensor_same_shape(y, &x));
    if (fl)
        assert_int_equal(pc_op_backward(&c, compute, &dy, &g), PC_OK);

    size_t sz = pc_dtype_size(xd);
    char fillb[16] = {0}, want[16];
    if (fl)
        pc_element_store(fillb, xd, fill, 0.0);
    else
        pc_element_store_i64(fillb, xd, xd == PC_DTYPE_BOOL ? 1 : (int64_t)fill);
    int64_t idx[PC_TENSOR_MAX_DIMS] = {0}, n = pc_tensor_numel(&x), hits = 0;
    double vsum = 0;
    const char *xp = pc_tensor_data(&x), *dp = pc_tensor_data(&dy), *yp = pc_tensor_data(y);
    for (int64_t i = 0; i < n; i++, next_index(idx, shape, rank)) {
        bool on = cond_at(&m, idx, rank);
        hits += on;
        memcpy(want, on ? fillb : xp + (size_t)i * sz, sz);
        if (memcmp(yp + (size_t)i * sz, want, sz) != 0) {
            print_error("masked_fill forward, element %lld (cond %d)\n", (long long)i, on);
            fail();
        }
        if (!fl)
            continue;
        const char *gp = (const char *)pc_tensor_data(&g.grads[0]) + (size_t)i * sz;
        if (on)
            memset(want, 0, sz);
        else
            grad_bytes(dp + (size_t)i * sz, xd, want);
        if (memcmp(gp, want, sz) != 0) {
            print_error("masked_fill self gradient, element %lld (cond %d)\n", (long long)i, on);
            fail();
        }
        if (on) {
            double t;
            pc_element_load(dp + (size_t)i * sz, xd, &t, NULL);
            vsum += t;
        }
    }
    assert_true(hits > 0 && hits < n); /* both sides of the selection seen */
    if (fl && !specials) {
        /* the sum in double, rounded on the device to the computation dtype (x's), stored */
        const pc_tensor *gv = &g.grads[2];
        assert_false(pc_tensor_is_null(gv));
        char cell[16] = {0}, wantv[16] = {0};
        double sum = vsum;
        if (compute == PC_COMPUTE_DEVICE) {
            pc_element_store(cell, xd, vsum, 0.0);
            pc_element_load(cell, xd, &sum, NULL);
        }
        pc_element_store(wantv, gv->dtype, sum, 0.0);
        assert_memory_equal(pc_tensor_data(gv), wantv, pc_dtype_size(gv->dtype));
    }
    pc_op_result_free(&r);
    pc_op_grads_free(&g);
    pc_op_call_free(&c);
    pc_tensor_free(&x);
    pc_tensor_free(&dy);
    pc_tensor_free(&m);
    pc_tensor_free(&v);
}

/* where(cond, a, b) of a, b [.., R, C] (dtype d) and the gradients of a and b. */
static void check_where(pc_dtype d, cond_kind k, const int64_t *shape, int rank, pc_compute compute,
                        bool specials)
{
    pc_tensor a = make(d, shape, rank), b = make(d, shape, rank), dy = make(d, shape, rank);
    pc_tensor m0 = make_cond(k, shape, rank), m = PC_TENSOR_NULL;
    if (m0.dtype != PC_DTYPE_BOOL) { /* where takes bool conditions only */
        assert_int_equal(pc_tensor_cast(&m, &m0, PC_DTYPE_BOOL), PC_OK);
        pc_tensor_free(&m0);
    } else {
        m = m0;
    }
    if (specials) {
        add_specials(&a);
        add_specials(&b);
        add_specials(&dy);
    }
    bool fl = pc_dtype_is_float(d);
    pc_tensor *ts[3] = {&m, &a, &b};
    bool grad[3] = {false, fl, fl};
    pc_op_call c = make_call("where", ts, grad, 3);
    pc_op_result r;
    pc_op_grads g;
    memset(&r, 0, sizeof r);
    memset(&g, 0, sizeof g);
    assert_int_equal(pc_op_forward(&c, compute, &r), PC_OK);
    const pc_tensor *y = &r.tensors[0];
    assert_int_equal(y->dtype, d);
    if (fl)
        assert_int_equal(pc_op_backward(&c, compute, &dy, &g), PC_OK);
    size_t sz = pc_dtype_size(d);
    char want[16];
    int64_t idx[PC_TENSOR_MAX_DIMS] = {0}, n = pc_tensor_numel(&a), hits = 0;
    const char *ap = pc_tensor_data(&a), *bp = pc_tensor_data(&b), *dp = pc_tensor_data(&dy),
               *yp = pc_tensor_data(y);
    for (int64_t i = 0; i < n; i++, next_index(idx, shape, rank)) {
        bool on = cond_at(&m, idx, rank);
        hits += on;
        if (memcmp(yp + (size_t)i * sz, (on ? ap : bp) + (size_t)i * sz, sz) != 0) {
            print_error("where forward, element %lld (cond %d)\n", (long long)i, on);
            fail();
        }
        if (!fl)
            continue;
        for (int side = 0; side < 2; side++) {
            const char *gp = (const char *)pc_tensor_data(&g.grads[1 + side]) + (size_t)i * sz;
            if (on == (side == 0))
                grad_bytes(dp + (size_t)i * sz, d, want);
            else
                memset(want, 0, sz);
            if (memcmp(gp, want, sz) != 0) {
                print_error("where gradient %d, element %lld (cond %d)\n", 1 + side, (long long)i,
                            on);
                fail();
            }
        }
    }
    assert_true(hits > 0 && hits < n);
    pc_op_result_free(&r);
    pc_op_grads_free(&g);
    pc_op_call_free(&c);
    pc_tensor_free(&a);
    pc_tensor_free(&b);
    pc_tensor_free(&dy);
    pc_tensor_free(&m);
}

/* The GPT attention's shape (16 chunks) and one that ends inside a chunk. */
static const int64_t shape_even[4] = {2, 8, 64, 64}, shape_odd[4] = {3, 5, 37, 41};

static void test_masked_fill_float(void **state)
{
    (void)state;
    const pc_dtype dts[2] = {PC_DTYPE_F32, PC_DTYPE_BF16};
    for (int di = 0; di < 2; di++)
        for (int k = 0; k < COND_KINDS; k++)
            for (int s = 0; s < 2; s++)
                for (int sp = 0; sp < 2; sp++) {
                    const int64_t *shape = s ? shape_odd : shape_even;
                    check_masked_fill(dts[di], (cond_kind)k, shape, 4, PC_COMPUTE_DEVICE, sp);
                    check_masked_fill(dts[di], (cond_kind)k, shape, 4, PC_COMPUTE_BENCH, sp);
                }
}

static void test_masked_fill_integer(void **state)
{
    (void)state;
    const pc_dtype dts[2] = {PC_DTYPE_I64, PC_DTYPE_BOOL};
    for (int di = 0; di < 2; di++)
        for (int k = 0; k < COND_KINDS; k++) {
            check_masked_fill(dts[di], (cond_kind)k, shape_odd, 4, PC_COMPUTE_DEVICE, false);
            check_masked_fill(dts[di], (cond_kind)k, shape_even, 4, PC_COMPUTE_BENCH, false);
        }
}

static void test_where(void **state)
{
    (void)state;
    const pc_dtype dts[4] = {PC_DTYPE_F32, PC_DTYPE_BF16, PC_DTYPE_I64, PC_DTYPE_BOOL};
    for (int di = 0; di < 4; di++)
        for (int k = 0; k < COND_KINDS; k++)
            for (int s = 0; s < 2; s++) {
                const int64_t *shape = s ? shape_odd : shape_even;
                bool sp = pc_dtype_is_float(dts[di]);
                check_where(dts[di], (cond_kind)k, shape, 4, PC_COMPUTE_DEVICE, sp);
                check_where(dts[di], (cond_kind)k, shape, 4, PC_COMPUTE_BENCH, sp);
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_masked_fill_float),
        cmocka_unit_test(test_masked_fill_integer),
        cmocka_unit_test(test_where),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
