/* Type promotion and broadcasting as torch defines them (facts from torch's documentation of
 * torch.result_type and its observed behaviour; docs/msprobe-contract.md#replay). */
#include "precheck/ops/promote.h"

#include <stdio.h>

/* Category order used by the combination rule. */
static int category(pc_dtype d)
{
    if (d == PC_DTYPE_BOOL)
        return 0;
    if (pc_dtype_is_complex(d))
        return 3;
    if (pc_dtype_is_float(d))
        return 2;
    return 1;
}

static int int_bits(pc_dtype d)
{
    return (int)pc_dtype_size(d) * 8;
}

static pc_dtype signed_of_bits(int bits)
{
    switch (bits) {
    case 8:
        return PC_DTYPE_I8;
    case 16:
        return PC_DTYPE_I16;
    case 32:
        return PC_DTYPE_I32;
    default:
        return PC_DTYPE_I64;
    }
}

static pc_dtype float_promote(pc_dtype a, pc_dtype b)
{
    if (a == b)
        return a;
    /* the float8s and the two halves meet in float32; otherwise the wider wins */
    if (pc_dtype_size(a) == pc_dtype_size(b))
        return PC_DTYPE_F32;
    pc_dtype w = pc_dtype_size(a) > pc_dtype_size(b) ? a : b;
    return pc_dtype_size(w) < 4 ? PC_DTYPE_F32 : w;
}

pc_dtype pc_promote_types(pc_dtype a, pc_dtype b)
{
    if (a == PC_DTYPE_INVALID)
        return b;
    if (b == PC_DTYPE_INVALID || a == b)
        return a;
    int ca = category(a), cb = category(b);
    if (ca != cb) {
        pc_dtype hi = ca > cb ? a : b, lo = ca > cb ? b : a;
        if (category(hi) == 3 && category(lo) == 2)
            return pc_dtype_size(lo) > 4 ? PC_DTYPE_C128
                                         : (hi == PC_DTYPE_C128 ? PC_DTYPE_C128 : PC_DTYPE_C64);
        return hi;
    }
    switch (ca) {
    case 0:
        return PC_DTYPE_BOOL;
    case 1: {
        bool ua = a == PC_DTYPE_U8, ub = b == PC_DTYPE_U8;
        if (ua || ub) {
            pc_dtype other = ua ? b : a; /* uint8 with a signed type */
            return other == PC_DTYPE_I8 ? PC_DTYPE_I16 : other;
        }
        return signed_of_bits(int_bits(a) > int_bits(b) ? int_bits(a) : int_bits(b));
    }
    case 2:
        return float_promote(a, b);
    default:
        return (a == PC_DTYPE_C128 || b == PC_DTYPE_C128) ? PC_DTYPE_C128 : PC_DTYPE_C64;
    }
}

void pc_result_type_add(pc_result_type *r, pc_dtype dtype, pc_operand_rank rank)
{
    switch (rank) {
    case PC_OPERAND_DIM:
        r->dim = pc_promote_types(r->dim, dtype);
        break;
    case PC_OPERAND_ZERO_DIM:
        r->zero = pc_promote_types(r->zero, dtype);
        break;
    case PC_OPERAND_WRAPPED:
        /* a Python float counts as the default dtype, a complex as the default complex */
        if (pc_dtype_is_complex(dtype))
            dtype = PC_DTYPE_C64;
        else if (pc_dtype_is_float(dtype))
            dtype = PC_DTYPE_F32;
        r->wrapped = pc_promote_types(r->wrapped, dtype);
        break;
    }
}

void pc_result_type_add_tensor(pc_result_type *r, const pc_tensor *t, bool wrapped)
{
    pc_result_type_add_tensor_as(r, t, t->dtype, wrapped);
}

void pc_result_type_add_tensor_as(pc_result_type *r, const pc_tensor *t, pc_dtype dtype,
                                  bool wrapped)
{
    pc_result_type_add(r, dtype,
                       wrapped ? PC_OPERAND_WRAPPED
                               : (t->rank == 0 ? PC_OPERAND_ZERO_DIM : PC_OPERAND_DIM));
}

/* higher: the result so far of the higher-priority operands, lower: the next class. */
static pc_dtype combine(pc_dtype higher, pc_dtype lower)
{
    if (higher == PC_DTYPE_INVALID)
        return lower;
    if (lower == PC_DTYPE_INVALID)
        return higher;
    if (pc_dtype_is_complex(higher))
        return higher;
    if (pc_dtype_is_complex(lower)) {
        if (pc_dtype_is_float(higher))
            return pc_promote_types(higher, PC_DTYPE_C64) == PC_DTYPE_C128 ? PC_DTYPE_C128
                                                                           : PC_DTYPE_C64;
        return lower;
    }
    if (pc_dtype_is_float(higher))
        return higher;
    if (higher == PC_DTYPE_BOOL || pc_dtype_is_float(lower))
        return pc_promote_types(higher, lower);
    return higher;
}

pc_dtype pc_result_type_get(const pc_result_type *r)
{
    return combine(combine(r->dim, r->zero), r->wrapped);
}

bool pc_can_cast(pc_dtype from, pc_dtype to)
{
    return category(from) <= category(to);
}

pc_status pc_broadcast_shapes(const int64_t *a, int ra, const int64_t *b, int rb, int64_t *out,
                              int *rank_out)
{
    int r = ra > rb ? ra : rb;
    for (int i = 0; i < r; i++) {
        int ia = ra - r + i, ib = rb - r + i;
        int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
        if (da != db && da != 1 && db != 1)
            return pc_error_set(PC_ERR_INVALID,
                                "The size of tensor a (%lld) must match the size of tensor b "
                                "(%lld) at non-singleton dimension %d",
                                (long long)da, (long long)db, i);
        out[i] = da == 1 ? db : da;
    }
    *rank_out = r;
    return PC_OK;
}
