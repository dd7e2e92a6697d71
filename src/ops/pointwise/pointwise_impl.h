/* Private to src/ops: the kernels of the pointwise family (rows in pointwise/pointwise.def):
 * unary math and activations, binary arithmetic and comparisons, the ternary ops, clamp, where,
 * masked_fill, outer and the casts (pointwise/unary.c, binary.c, ternary.c, select.c, cast.c, all
 * on the element-wise engine of elementwise.h). */
#ifndef PC_OPS_POINTWISE_IMPL_H
#define PC_OPS_POINTWISE_IMPL_H

#include "ops/ops_impl.h"

/* Unary element-wise functions (op param of the unary family). */
typedef enum pc_unary {
    PC_UNARY_NEG,
    PC_UNARY_ABS,
    PC_UNARY_EXP,
    PC_UNARY_LOG,
    PC_UNARY_SQRT,
    PC_UNARY_RSQRT,
    PC_UNARY_SQUARE,
    PC_UNARY_RECIPROCAL,
    PC_UNARY_SIGMOID,
    PC_UNARY_TANH,
    PC_UNARY_RELU,
    PC_UNARY_SILU,
    PC_UNARY_GELU, /* approximate from the call: 'none' or 'tanh' */
    PC_UNARY_SIN,
    PC_UNARY_COS,
    PC_UNARY_ERF,
    PC_UNARY_SIGN,
    PC_UNARY_FLOOR,
    PC_UNARY_CEIL,
    PC_UNARY_ROUND, /* decimals from the call */
    PC_UNARY_TRUNC,
    PC_UNARY_FRAC,
    PC_UNARY_EXP2,
    PC_UNARY_EXPM1,
    PC_UNARY_LOG2,
    PC_UNARY_LOG10,
    PC_UNARY_LOG1P,
    PC_UNARY_SINH,
    PC_UNARY_COSH,
    PC_UNARY_ASIN,
    PC_UNARY_ACOS,
    PC_UNARY_ATAN,
    PC_UNARY_TAN,
    PC_UNARY_ERFINV,
    PC_UNARY_SOFTPLUS, /* beta, threshold from the call */
    PC_UNARY_HARDSWISH,
    PC_UNARY_HARDSIGMOID,
    PC_UNARY_MISH,
    PC_UNARY_ELU, /* alpha from the call */
    PC_UNARY_SELU,
    PC_UNARY_LOGSIGMOID,
    PC_UNARY_HARDTANH, /* min_val, max_val from the call */
    PC_UNARY_RELU6,
    PC_UNARY_ISINF, /* bool results from here on */
    PC_UNARY_ISNAN,
    PC_UNARY_ISFINITE,
    PC_UNARY_LOGICAL_NOT,
    PC_UNARY_BITWISE_NOT,
    PC_UNARY_NAN_TO_NUM, /* nan, posinf, neginf from the call */
    PC_UNARY_COUNT
} pc_unary;

/* Binary element-wise functions (op param of the binary family). */
typedef enum pc_binary {
    PC_BINARY_ADD,
    PC_BINARY_SUB,
    PC_BINARY_RSUB,
    PC_BINARY_MUL,
    PC_BINARY_DIV, /* rounding_mode from the call */
    PC_BINARY_POW,
    PC_BINARY_MAXIMUM,
    PC_BINARY_MINIMUM,
    PC_BINARY_ATAN2,
    PC_BINARY_FLOOR_DIVIDE,
    PC_BINARY_REMAINDER,
    PC_BINARY_FMOD,
    PC_BINARY_EQ, /* comparisons and logical ops: bool results */
    PC_BINARY_NE,
    PC_BINARY_LT,
    PC_BINARY_LE,
    PC_BINARY_GT,
    PC_BINARY_GE,
    PC_BINARY_LOGICAL_AND,
    PC_BINARY_LOGICAL_OR,
    PC_BINARY_LOGICAL_XOR,
    PC_BINARY_BITWISE_AND, /* integers and bool only */
    PC_BINARY_BITWISE_OR,
    PC_BINARY_BITWISE_XOR,
    PC_BINARY_COUNT
} pc_binary;

/* Ternary element-wise functions (op param of the ternary family). */
typedef enum pc_ternary {
    PC_TERNARY_ADDCMUL, /* input + value * t1 * t2 */
    PC_TERNARY_ADDCDIV, /* input + value * t1 / t2 */
    PC_TERNARY_LERP,    /* input + weight * (end - input); weight a tensor or a number */
    PC_TERNARY_COUNT
} pc_ternary;

/* Clamp variants (op param). */
enum { PC_CLAMP_BOTH, PC_CLAMP_MIN, PC_CLAMP_MAX };
/* Cast targets beyond dtypes (op param of the cast family; otherwise a pc_dtype). */
enum { PC_CAST_TO_ARG = -2, PC_CAST_TYPE_AS = -3 };

PC_KERNELS(unary);
PC_KERNELS(binary);
PC_KERNELS(ternary);
PC_KERNELS(clamp);
PC_KERNELS(where);
PC_KERNELS(masked_fill);
/* outer(self, vec2) = self.reshape(n, 1) * vec2: mul's kernels (op param PC_BINARY_MUL) */
PC_KERNELS(outer);
PC_KERNELS(cast);

#endif
