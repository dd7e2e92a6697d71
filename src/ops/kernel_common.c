/*
 * Kernel support (ops/kernel.h) that the kernels of every family use: a dimension wrapped as
 * torch wraps it, whether an argument wants a gradient, the element offsets of a strided shape,
 * a tensor made from doubles, and torch's short name of a dtype for its messages.
 */
#include <stdlib.h>

#include "ops/kernel.h"
#include "precheck/core/convert.h"

pc_status pc_shape_wrap_dim(const pc_op_call *call, int64_t dim, int rank, int *out)
{
    int64_t r = rank > 0 ? rank : 1;
    *out = 0;
    if (dim < -r || dim >= r)
        return pc_error_set(PC_ERR_RANGE,
                            "%s: Dimension out of range (expected to be in range of [%lld, "
                            "%lld], but got %lld)",
                            call->full_name, (long long)-r, (long long)(r - 1), (long long)dim);
    *out = (int)(dim < 0 ? dim + r : dim);
    return PC_OK;
}

bool pc_shape_wants_grad(const pc_op_call *call, int i)
{
    const pc_value *v = &call->args[i];
    return v->kind == PC_VALUE_TENSOR && !v->wrapped && v->requires_grad &&
           pc_dtype_is_float(v->tensor.dtype);
}

int64_t *pc_shape_offsets(const int64_t *shape, const int64_t *strides, int rank, int64_t base,
                          int64_t n)
{
    int64_t *offs = malloc((size_t)(n > 0 ? n : 1) * sizeof *offs);
    if (!offs)
        return NULL;
    int64_t idx[PC_TENSOR_MAX_DIMS] = {0};
    int64_t off = base;
    for (int64_t i = 0; i < n; i++) {
        offs[i] = off;
        for (int d = rank - 1; d >= 0; d--) {
            off += strides[d];
            if (++idx[d] < shape[d])
                break;
            off -= strides[d] * idx[d];
            idx[d] = 0;
        }
    }
    return offs;
}

pc_status pc_shape_store(pc_tensor *out, pc_dtype dtype, const int64_t *shape, int rank,
                         const double *v)
{
    pc_tensor t = PC_TENSOR_NULL;
    pc_status st = pc_tensor_alloc(&t, dtype, shape, rank);
    if (st != PC_OK)
        return st;
    char *p = pc_tensor_data(&t);
    size_t sz = pc_dtype_size(dtype);
    int64_t n = pc_tensor_numel(&t);
    for (int64_t i = 0; i < n; i++)
        pc_element_store(p + (size_t)i * sz, dtype, v[i], 0.0);
    *out = t;
    return PC_OK;
}

const char *pc_torch_type_name(pc_dtype dtype)
{
    static const char *names[PC_DTYPE_COUNT] = {
        [PC_DTYPE_BOOL] = "Bool",
        [PC_DTYPE_U8] = "Byte",
        [PC_DTYPE_I8] = "Char",
        [PC_DTYPE_I16] = "Short",
        [PC_DTYPE_I32] = "Int",
        [PC_DTYPE_I64] = "Long",
        [PC_DTYPE_F16] = "Half",
        [PC_DTYPE_BF16] = "BFloat16",
        [PC_DTYPE_F32] = "Float",
        [PC_DTYPE_F64] = "Double",
        [PC_DTYPE_C64] = "ComplexFloat",
        [PC_DTYPE_C128] = "ComplexDouble",
        [PC_DTYPE_F8E4M3FN] = "Float8_e4m3fn",
        [PC_DTYPE_F8E5M2] = "Float8_e5m2",
    };
    return (dtype >= 0 && dtype < PC_DTYPE_COUNT) ? names[dtype] : "Undefined";
}
