/*
 * The op table as an X-macro list: X(id, schema, exact, forward, backward, param,
 * scalar_args). Included by op_table.c only. Adding an op = one line here, its kernels, a
 * name row in op_table.c and a golden case in tests/golden/make_op_goldens.py.
 * exact: the result is an input's value or a cast of it, with no rounding of the op's own
 * (casts, neg, abs, relu, max/min, clamp, where, masked_fill). Which comparison standard
 * applies is not the op's business: msprobe picks it by API name (compare/standard.h).
 * scalar_args: bit i lets schema argument i (a Tensor) be a Python number.
 */
/* clang-format off */
#define PC_FAM_UNARY(id, schema, exact, p) \
    X(id, schema, exact, pc_k_unary_forward, pc_k_unary_backward, p, 0)
#define PC_FAM_BINARY(id, schema, exact, p, wrap) \
    X(id, schema, exact, pc_k_binary_forward, pc_k_binary_backward, p, wrap)
#define PC_FAM_CAST(id, schema, p, bwd) \
    X(id, schema, true, pc_k_cast_forward, bwd, p, 0)

PC_FAM_BINARY(ADD, "add(Tensor input, Tensor other, *, Scalar alpha=1) -> Tensor", false, PC_BINARY_ADD, 3u)
PC_FAM_BINARY(SUB, "sub(Tensor input, Tensor other, *, Scalar alpha=1) -> Tensor", false, PC_BINARY_SUB, 3u)
PC_FAM_BINARY(RSUB, "rsub(Tensor input, Tensor other, *, Scalar alpha=1) -> Tensor", false, PC_BINARY_RSUB, 3u)
PC_FAM_BINARY(MUL, "mul(Tensor input, Tensor other) -> Tensor", false, PC_BINARY_MUL, 3u)
PC_FAM_BINARY(DIV, "div(Tensor input, Tensor other, *, str? rounding_mode=None) -> Tensor", false, PC_BINARY_DIV, 3u)
PC_FAM_BINARY(POW, "pow(Tensor input, Tensor exponent) -> Tensor", false, PC_BINARY_POW, 3u)
PC_FAM_BINARY(MAXIMUM, "maximum(Tensor input, Tensor other) -> Tensor", true, PC_BINARY_MAXIMUM, 0u)
PC_FAM_BINARY(MINIMUM, "minimum(Tensor input, Tensor other) -> Tensor", true, PC_BINARY_MINIMUM, 0u)
PC_FAM_UNARY(NEG, "neg(Tensor input) -> Tensor", true, PC_UNARY_NEG)
PC_FAM_UNARY(ABS, "abs(Tensor input) -> Tensor", true, PC_UNARY_ABS)
PC_FAM_UNARY(EXP, "exp(Tensor input) -> Tensor", false, PC_UNARY_EXP)
PC_FAM_UNARY(LOG, "log(Tensor input) -> Tensor", false, PC_UNARY_LOG)
PC_FAM_UNARY(SQRT, "sqrt(Tensor input) -> Tensor", false, PC_UNARY_SQRT)
PC_FAM_UNARY(RSQRT, "rsqrt(Tensor input) -> Tensor", false, PC_UNARY_RSQRT)
PC_FAM_UNARY(SQUARE, "square(Tensor input) -> Tensor", false, PC_UNARY_SQUARE)
PC_FAM_UNARY(RECIPROCAL, "reciprocal(Tensor input) -> Tensor", false, PC_UNARY_RECIPROCAL)
PC_FAM_UNARY(SIGMOID, "sigmoid(Tensor input) -> Tensor", false, PC_UNARY_SIGMOID)
PC_FAM_UNARY(TANH, "tanh(Tensor input) -> Tensor", false, PC_UNARY_TANH)
PC_FAM_UNARY(RELU, "relu(Tensor input, bool inplace=False) -> Tensor", true, PC_UNARY_RELU)
PC_FAM_UNARY(SILU, "silu(Tensor input, bool inplace=False) -> Tensor", false, PC_UNARY_SILU)
PC_FAM_UNARY(GELU, "gelu(Tensor input, *, str approximate='none') -> Tensor", false, PC_UNARY_GELU)
PC_FAM_UNARY(SIN, "sin(Tensor input) -> Tensor", false, PC_UNARY_SIN)
PC_FAM_UNARY(COS, "cos(Tensor input) -> Tensor", false, PC_UNARY_COS)
PC_FAM_UNARY(ERF, "erf(Tensor input) -> Tensor", false, PC_UNARY_ERF)
PC_FAM_UNARY(SIGN, "sign(Tensor input) -> Tensor", true, PC_UNARY_SIGN)
PC_FAM_UNARY(FLOOR, "floor(Tensor input) -> Tensor", true, PC_UNARY_FLOOR)
PC_FAM_UNARY(CEIL, "ceil(Tensor input) -> Tensor", true, PC_UNARY_CEIL)
PC_FAM_UNARY(ROUND, "round(Tensor input, *, int decimals=0) -> Tensor", true, PC_UNARY_ROUND)
PC_FAM_UNARY(TRUNC, "trunc(Tensor input) -> Tensor", true, PC_UNARY_TRUNC)
PC_FAM_UNARY(FRAC, "frac(Tensor input) -> Tensor", false, PC_UNARY_FRAC)
PC_FAM_UNARY(EXP2, "exp2(Tensor input) -> Tensor", false, PC_UNARY_EXP2)
PC_FAM_UNARY(EXPM1, "expm1(Tensor input) -> Tensor", false, PC_UNARY_EXPM1)
PC_FAM_UNARY(LOG2, "log2(Tensor input) -> Tensor", false, PC_UNARY_LOG2)
PC_FAM_UNARY(LOG10, "log10(Tensor input) -> Tensor", false, PC_UNARY_LOG10)
PC_FAM_UNARY(LOG1P, "log1p(Tensor input) -> Tensor", false, PC_UNARY_LOG1P)
PC_FAM_UNARY(SINH, "sinh(Tensor input) -> Tensor", false, PC_UNARY_SINH)
PC_FAM_UNARY(COSH, "cosh(Tensor input) -> Tensor", false, PC_UNARY_COSH)
PC_FAM_UNARY(ASIN, "asin(Tensor input) -> Tensor", false, PC_UNARY_ASIN)
PC_FAM_UNARY(ACOS, "acos(Tensor input) -> Tensor", false, PC_UNARY_ACOS)
PC_FAM_UNARY(ATAN, "atan(Tensor input) -> Tensor", false, PC_UNARY_ATAN)
PC_FAM_UNARY(TAN, "tan(Tensor input) -> Tensor", false, PC_UNARY_TAN)
PC_FAM_UNARY(ERFINV, "erfinv(Tensor input) -> Tensor", false, PC_UNARY_ERFINV)
PC_FAM_UNARY(SOFTPLUS, "softplus(Tensor input, Scalar beta=1, Scalar threshold=20) -> Tensor", false, PC_UNARY_SOFTPLUS)
PC_FAM_UNARY(HARDSWISH, "hardswish(Tensor input, bool inplace=False) -> Tensor", false, PC_UNARY_HARDSWISH)
PC_FAM_UNARY(HARDSIGMOID, "hardsigmoid(Tensor input, bool inplace=False) -> Tensor", false, PC_UNARY_HARDSIGMOID)
PC_FAM_UNARY(MISH, "mish(Tensor input, bool inplace=False) -> Tensor", false, PC_UNARY_MISH)
PC_FAM_UNARY(ELU, "elu(Tensor input, float alpha=1.0, bool inplace=False) -> Tensor", false, PC_UNARY_ELU)
PC_FAM_UNARY(SELU, "selu(Tensor input, bool inplace=False) -> Tensor", false, PC_UNARY_SELU)
PC_FAM_UNARY(LOGSIGMOID, "logsigmoid(Tensor input) -> Tensor", false, PC_UNARY_LOGSIGMOID)
PC_FAM_UNARY(HARDTANH, "hardtanh(Tensor input, float min_val=-1.0, float max_val=1.0, bool inplace=False) -> Tensor", true, PC_UNARY_HARDTANH)
PC_FAM_UNARY(RELU6, "relu6(Tensor input, bool inplace=False) -> Tensor", true, PC_UNARY_RELU6)
PC_FAM_UNARY(ISINF, "isinf(Tensor input) -> Tensor", true, PC_UNARY_ISINF)
PC_FAM_UNARY(ISNAN, "isnan(Tensor input) -> Tensor", true, PC_UNARY_ISNAN)
PC_FAM_UNARY(ISFINITE, "isfinite(Tensor input) -> Tensor", true, PC_UNARY_ISFINITE)
PC_FAM_UNARY(LOGICAL_NOT, "logical_not(Tensor input) -> Tensor", true, PC_UNARY_LOGICAL_NOT)
PC_FAM_UNARY(BITWISE_NOT, "bitwise_not(Tensor input) -> Tensor", true, PC_UNARY_BITWISE_NOT)
PC_FAM_UNARY(NAN_TO_NUM, "nan_to_num(Tensor input, float? nan=0.0, float? posinf=None, float? neginf=None) -> Tensor", true, PC_UNARY_NAN_TO_NUM)
PC_FAM_BINARY(ATAN2, "atan2(Tensor input, Tensor other) -> Tensor", false, PC_BINARY_ATAN2, 0u)
X(FLOOR_DIVIDE, "floor_divide(Tensor input, Tensor other) -> Tensor", false, pc_k_binary_forward, NULL, PC_BINARY_FLOOR_DIVIDE, 3u)
PC_FAM_BINARY(REMAINDER, "remainder(Tensor input, Tensor other) -> Tensor", false, PC_BINARY_REMAINDER, 3u)
PC_FAM_BINARY(FMOD, "fmod(Tensor input, Tensor other) -> Tensor", false, PC_BINARY_FMOD, 2u)
PC_FAM_BINARY(EQ, "eq(Tensor input, Tensor other) -> Tensor", true, PC_BINARY_EQ, 3u)
PC_FAM_BINARY(NE, "ne(Tensor input, Tensor other) -> Tensor", true, PC_BINARY_NE, 3u)
PC_FAM_BINARY(LT, "lt(Tensor input, Tensor other) -> Tensor", true, PC_BINARY_LT, 3u)
PC_FAM_BINARY(LE, "le(Tensor input, Tensor other) -> Tensor", true, PC_BINARY_LE, 3u)
PC_FAM_BINARY(GT, "gt(Tensor input, Tensor other) -> Tensor", true, PC_BINARY_GT, 3u)
PC_FAM_BINARY(GE, "ge(Tensor input, Tensor other) -> Tensor", true, PC_BINARY_GE, 3u)
PC_FAM_BINARY(LOGICAL_AND, "logical_and(Tensor input, Tensor other) -> Tensor", true, PC_BINARY_LOGICAL_AND, 0u)
PC_FAM_BINARY(LOGICAL_OR, "logical_or(Tensor input, Tensor other) -> Tensor", true, PC_BINARY_LOGICAL_OR, 0u)
PC_FAM_BINARY(LOGICAL_XOR, "logical_xor(Tensor input, Tensor other) -> Tensor", true, PC_BINARY_LOGICAL_XOR, 0u)
PC_FAM_BINARY(BITWISE_AND, "bitwise_and(Tensor input, Tensor other) -> Tensor", true, PC_BINARY_BITWISE_AND, 3u)
PC_FAM_BINARY(BITWISE_OR, "bitwise_or(Tensor input, Tensor other) -> Tensor", true, PC_BINARY_BITWISE_OR, 3u)
PC_FAM_BINARY(BITWISE_XOR, "bitwise_xor(Tensor input, Tensor other) -> Tensor", true, PC_BINARY_BITWISE_XOR, 3u)
X(ADDCMUL, "addcmul(Tensor input, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor", false, pc_k_ternary_forward, pc_k_ternary_backward, PC_TERNARY_ADDCMUL, 0u)
X(ADDCDIV, "addcdiv(Tensor input, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor", false, pc_k_ternary_forward, pc_k_ternary_backward, PC_TERNARY_ADDCDIV, 0u)
X(LERP, "lerp(Tensor input, Tensor end, Tensor weight) -> Tensor", false, pc_k_ternary_forward, pc_k_ternary_backward, PC_TERNARY_LERP, 4u)
/* torch 1.13: self.reshape({n, 1}) * vec2 (mul's promotion, kernels and gradients); ger is outer */
X(OUTER, "outer(Tensor input, Tensor vec2) -> Tensor", false, pc_k_outer_forward, pc_k_outer_backward, PC_BINARY_MUL, 0u)
X(GER, "ger(Tensor input, Tensor vec2) -> Tensor", false, pc_k_outer_forward, pc_k_outer_backward, PC_BINARY_MUL, 0u)
X(CLAMP, "clamp(Tensor input, Tensor? min=None, Tensor? max=None) -> Tensor", true, pc_k_clamp_forward, pc_k_clamp_backward, PC_CLAMP_BOTH, 6u)
X(CLAMP_MIN, "clamp_min(Tensor input, Tensor min) -> Tensor", true, pc_k_clamp_forward, pc_k_clamp_backward, PC_CLAMP_MIN, 2u)
X(CLAMP_MAX, "clamp_max(Tensor input, Tensor max) -> Tensor", true, pc_k_clamp_forward, pc_k_clamp_backward, PC_CLAMP_MAX, 2u)
X(MASKED_FILL, "masked_fill(Tensor input, Tensor mask, Tensor value) -> Tensor", true, pc_k_masked_fill_forward, pc_k_masked_fill_backward, 0, 4u)
X(WHERE, "where(Tensor condition, Tensor input, Tensor other) -> Tensor", true, pc_k_where_forward, pc_k_where_backward, 0, 6u)
PC_FAM_CAST(FLOAT, "float(Tensor input, MemoryFormat memory_format=preserve_format) -> Tensor", PC_DTYPE_F32, pc_k_cast_backward)
PC_FAM_CAST(HALF, "half(Tensor input, MemoryFormat memory_format=preserve_format) -> Tensor", PC_DTYPE_F16, pc_k_cast_backward)
PC_FAM_CAST(BFLOAT16, "bfloat16(Tensor input, MemoryFormat memory_format=preserve_format) -> Tensor", PC_DTYPE_BF16, pc_k_cast_backward)
PC_FAM_CAST(DOUBLE, "double(Tensor input, MemoryFormat memory_format=preserve_format) -> Tensor", PC_DTYPE_F64, pc_k_cast_backward)
PC_FAM_CAST(LONG, "long(Tensor input, MemoryFormat memory_format=preserve_format) -> Tensor", PC_DTYPE_I64, NULL)
PC_FAM_CAST(INT, "int(Tensor input, MemoryFormat memory_format=preserve_format) -> Tensor", PC_DTYPE_I32, NULL)
PC_FAM_CAST(BOOL, "bool(Tensor input, MemoryFormat memory_format=preserve_format) -> Tensor", PC_DTYPE_BOOL, NULL)
PC_FAM_CAST(BYTE, "byte(Tensor input, MemoryFormat memory_format=preserve_format) -> Tensor", PC_DTYPE_U8, NULL)
PC_FAM_CAST(CHAR, "char(Tensor input, MemoryFormat memory_format=preserve_format) -> Tensor", PC_DTYPE_I8, NULL)
PC_FAM_CAST(SHORT, "short(Tensor input, MemoryFormat memory_format=preserve_format) -> Tensor", PC_DTYPE_I16, NULL)
PC_FAM_CAST(TO, "to(Tensor input, ScalarType dtype, bool non_blocking=False, bool copy=False, *, MemoryFormat? memory_format=None) -> Tensor", PC_CAST_TO_ARG, pc_k_cast_backward)
X(TYPE_AS, "type_as(Tensor input, Tensor other) -> Tensor", true, pc_k_cast_forward, pc_k_cast_backward, PC_CAST_TYPE_AS, 0u)

/* The other groups of ops, one list each (their kernels are declared in <group>_impl.h). */
#include "op_list_shape.h"
#include "op_list_nn.h"
#include "op_list_reduction.h"
#include "op_list_sort.h"
#include "op_list_indexing.h"
#include "op_list_functional.h"
#include "op_list_conv.h"
#include "op_list_npu.h"

#undef PC_FAM_UNARY
#undef PC_FAM_BINARY
#undef PC_FAM_CAST
/* clang-format on */
