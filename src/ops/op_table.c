/*
 * The op table and the API-name table. The op rows come from op_list.h; the enum of ids and
 * the array are generated from the same list, and a static_assert ties the array's length to
 * the id count, so a row cannot be half-added.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/conv/conv_impl.h"
#include "ops/loss/loss_impl.h"
#include "ops/index/index_impl.h"
#include "ops/nn/nn_impl.h"
#include "ops/npu/npu_impl.h"
#include "ops/ops_impl.h"
#include "ops/reduce/reduce_impl.h"
#include "ops/shape/shape_impl.h"
#include "ops/sort/sort_impl.h"

typedef enum pc_op_id {
#define X(id, schema, exact, fwd, bwd, param, wrap) PC_OP_##id,
#include "op_list.h"
#undef X
    PC_OP_COUNT
} pc_op_id;

static pc_schema op_schemas[PC_OP_COUNT];

static pc_op op_table[] = {
#define X(id, schema, exact, fwd, bwd, param, wrap)                                                \
    [PC_OP_##id] = {NULL, schema, exact, fwd, bwd, param, wrap, &op_schemas[PC_OP_##id]},
#include "op_list.h"
#undef X
};
static_assert(sizeof op_table / sizeof op_table[0] == PC_OP_COUNT, "one row per op id");

#define OP(id) (&op_table[PC_OP_##id])

/* Dump names -> ops. Tensor.x passes self first; SWAPPED exchanges the first two positional
 * arguments (reflected dunders: other OP self; Tensor.where: self is the second argument). */
static const pc_api_name api_names[] = {
    {"Torch", "add", OP(ADD), PC_FORM_PLAIN},
    {"Tensor", "add", OP(ADD), PC_FORM_PLAIN},
    {"Tensor", "__add__", OP(ADD), PC_FORM_PLAIN},
    {"Tensor", "__radd__", OP(ADD), PC_FORM_SWAPPED},
    {"Tensor", "add_", OP(ADD), PC_FORM_INPLACE},
    {"Tensor", "__iadd__", OP(ADD), PC_FORM_INPLACE},
    {"Torch", "sub", OP(SUB), PC_FORM_PLAIN},
    {"Torch", "subtract", OP(SUB), PC_FORM_PLAIN},
    {"Tensor", "sub", OP(SUB), PC_FORM_PLAIN},
    {"Tensor", "subtract", OP(SUB), PC_FORM_PLAIN},
    {"Tensor", "__sub__", OP(SUB), PC_FORM_PLAIN},
    {"Tensor", "sub_", OP(SUB), PC_FORM_INPLACE},
    {"Tensor", "subtract_", OP(SUB), PC_FORM_INPLACE},
    {"Tensor", "__isub__", OP(SUB), PC_FORM_INPLACE},
    /* self.__rsub__(other) = other - self = rsub(self, other): no swap */
    {"Torch", "rsub", OP(RSUB), PC_FORM_PLAIN},
    {"Tensor", "__rsub__", OP(RSUB), PC_FORM_PLAIN},
    {"Torch", "mul", OP(MUL), PC_FORM_PLAIN},
    {"Torch", "multiply", OP(MUL), PC_FORM_PLAIN},
    {"Tensor", "mul", OP(MUL), PC_FORM_PLAIN},
    {"Tensor", "multiply", OP(MUL), PC_FORM_PLAIN},
    {"Tensor", "__mul__", OP(MUL), PC_FORM_PLAIN},
    {"Tensor", "__rmul__", OP(MUL), PC_FORM_SWAPPED},
    {"Tensor", "mul_", OP(MUL), PC_FORM_INPLACE},
    {"Tensor", "multiply_", OP(MUL), PC_FORM_INPLACE},
    {"Tensor", "__imul__", OP(MUL), PC_FORM_INPLACE},
    {"Torch", "div", OP(DIV), PC_FORM_PLAIN},
    {"Torch", "divide", OP(DIV), PC_FORM_PLAIN},
    {"Torch", "true_divide", OP(DIV), PC_FORM_PLAIN},
    {"Tensor", "div", OP(DIV), PC_FORM_PLAIN},
    {"Tensor", "divide", OP(DIV), PC_FORM_PLAIN},
    {"Tensor", "true_divide", OP(DIV), PC_FORM_PLAIN},
    {"Tensor", "__div__", OP(DIV), PC_FORM_PLAIN},
    {"Tensor", "__truediv__", OP(DIV), PC_FORM_PLAIN},
    {"Tensor", "__rdiv__", OP(DIV), PC_FORM_SWAPPED},
    {"Tensor", "__rtruediv__", OP(DIV), PC_FORM_SWAPPED},
    {"Tensor", "div_", OP(DIV), PC_FORM_INPLACE},
    {"Tensor", "divide_", OP(DIV), PC_FORM_INPLACE},
    {"Tensor", "true_divide_", OP(DIV), PC_FORM_INPLACE},
    {"Tensor", "__idiv__", OP(DIV), PC_FORM_INPLACE},
    {"Tensor", "__itruediv__", OP(DIV), PC_FORM_INPLACE},
    {"Torch", "pow", OP(POW), PC_FORM_PLAIN},
    {"Tensor", "pow", OP(POW), PC_FORM_PLAIN},
    {"Tensor", "__pow__", OP(POW), PC_FORM_PLAIN},
    {"Tensor", "__rpow__", OP(POW), PC_FORM_SWAPPED},
    {"Tensor", "pow_", OP(POW), PC_FORM_INPLACE},
    {"Tensor", "__ipow__", OP(POW), PC_FORM_INPLACE},
    {"Torch", "maximum", OP(MAXIMUM), PC_FORM_PLAIN},
    {"Tensor", "maximum", OP(MAXIMUM), PC_FORM_PLAIN},
    {"Torch", "minimum", OP(MINIMUM), PC_FORM_PLAIN},
    {"Tensor", "minimum", OP(MINIMUM), PC_FORM_PLAIN},
    {"Torch", "neg", OP(NEG), PC_FORM_PLAIN},
    {"Torch", "negative", OP(NEG), PC_FORM_PLAIN},
    {"Tensor", "neg", OP(NEG), PC_FORM_PLAIN},
    {"Tensor", "negative", OP(NEG), PC_FORM_PLAIN},
    {"Tensor", "__neg__", OP(NEG), PC_FORM_PLAIN},
    {"Tensor", "neg_", OP(NEG), PC_FORM_INPLACE},
    {"Tensor", "negative_", OP(NEG), PC_FORM_INPLACE},
    {"Torch", "abs", OP(ABS), PC_FORM_PLAIN},
    {"Torch", "absolute", OP(ABS), PC_FORM_PLAIN},
    {"Tensor", "abs", OP(ABS), PC_FORM_PLAIN},
    {"Tensor", "absolute", OP(ABS), PC_FORM_PLAIN},
    {"Tensor", "__abs__", OP(ABS), PC_FORM_PLAIN},
    {"Tensor", "abs_", OP(ABS), PC_FORM_INPLACE},
    {"Tensor", "absolute_", OP(ABS), PC_FORM_INPLACE},
    {"Torch", "exp", OP(EXP), PC_FORM_PLAIN},
    {"Tensor", "exp", OP(EXP), PC_FORM_PLAIN},
    {"Tensor", "exp_", OP(EXP), PC_FORM_INPLACE},
    {"Torch", "log", OP(LOG), PC_FORM_PLAIN},
    {"Tensor", "log", OP(LOG), PC_FORM_PLAIN},
    {"Tensor", "log_", OP(LOG), PC_FORM_INPLACE},
    {"Torch", "sqrt", OP(SQRT), PC_FORM_PLAIN},
    {"Tensor", "sqrt", OP(SQRT), PC_FORM_PLAIN},
    {"Tensor", "sqrt_", OP(SQRT), PC_FORM_INPLACE},
    {"Torch", "rsqrt", OP(RSQRT), PC_FORM_PLAIN},
    {"Tensor", "rsqrt", OP(RSQRT), PC_FORM_PLAIN},
    {"Tensor", "rsqrt_", OP(RSQRT), PC_FORM_INPLACE},
    {"Torch", "square", OP(SQUARE), PC_FORM_PLAIN},
    {"Tensor", "square", OP(SQUARE), PC_FORM_PLAIN},
    {"Tensor", "square_", OP(SQUARE), PC_FORM_INPLACE},
    {"Torch", "reciprocal", OP(RECIPROCAL), PC_FORM_PLAIN},
    {"Tensor", "reciprocal", OP(RECIPROCAL), PC_FORM_PLAIN},
    {"Tensor", "reciprocal_", OP(RECIPROCAL), PC_FORM_INPLACE},
    {"Functional", "sigmoid", OP(SIGMOID), PC_FORM_PLAIN},
    {"Torch", "sigmoid", OP(SIGMOID), PC_FORM_PLAIN},
    {"Tensor", "sigmoid", OP(SIGMOID), PC_FORM_PLAIN},
    {"Tensor", "sigmoid_", OP(SIGMOID), PC_FORM_INPLACE},
    {"Functional", "tanh", OP(TANH), PC_FORM_PLAIN},
    {"Torch", "tanh", OP(TANH), PC_FORM_PLAIN},
    {"Tensor", "tanh", OP(TANH), PC_FORM_PLAIN},
    {"Tensor", "tanh_", OP(TANH), PC_FORM_INPLACE},
    {"Functional", "relu", OP(RELU), PC_FORM_PLAIN},
    {"Functional", "relu_", OP(RELU), PC_FORM_INPLACE},
    {"Torch", "relu", OP(RELU), PC_FORM_PLAIN},
    {"Torch", "relu_", OP(RELU), PC_FORM_INPLACE},
    {"Tensor", "relu", OP(RELU), PC_FORM_PLAIN},
    {"Tensor", "relu_", OP(RELU), PC_FORM_INPLACE},
    {"Functional", "silu", OP(SILU), PC_FORM_PLAIN},
    {"Functional", "gelu", OP(GELU), PC_FORM_PLAIN},
    {"Torch", "sin", OP(SIN), PC_FORM_PLAIN},
    {"Tensor", "sin", OP(SIN), PC_FORM_PLAIN},
    {"Tensor", "sin_", OP(SIN), PC_FORM_INPLACE},
    {"Torch", "cos", OP(COS), PC_FORM_PLAIN},
    {"Tensor", "cos", OP(COS), PC_FORM_PLAIN},
    {"Tensor", "cos_", OP(COS), PC_FORM_INPLACE},
    {"Torch", "erf", OP(ERF), PC_FORM_PLAIN},
    {"Tensor", "erf", OP(ERF), PC_FORM_PLAIN},
    {"Tensor", "erf_", OP(ERF), PC_FORM_INPLACE},
    {"Torch", "sign", OP(SIGN), PC_FORM_PLAIN},
    {"Tensor", "sign", OP(SIGN), PC_FORM_PLAIN},
    {"Tensor", "sign_", OP(SIGN), PC_FORM_INPLACE},
    {"Torch", "floor", OP(FLOOR), PC_FORM_PLAIN},
    {"Tensor", "floor", OP(FLOOR), PC_FORM_PLAIN},
    {"Tensor", "floor_", OP(FLOOR), PC_FORM_INPLACE},
    {"Torch", "floor_", OP(FLOOR), PC_FORM_INPLACE},
    {"Torch", "ceil", OP(CEIL), PC_FORM_PLAIN},
    {"Tensor", "ceil", OP(CEIL), PC_FORM_PLAIN},
    {"Tensor", "ceil_", OP(CEIL), PC_FORM_INPLACE},
    {"Torch", "ceil_", OP(CEIL), PC_FORM_INPLACE},
    {"Torch", "round", OP(ROUND), PC_FORM_PLAIN},
    {"Tensor", "round", OP(ROUND), PC_FORM_PLAIN},
    {"Tensor", "round_", OP(ROUND), PC_FORM_INPLACE},
    {"Torch", "round_", OP(ROUND), PC_FORM_INPLACE},
    {"Torch", "trunc", OP(TRUNC), PC_FORM_PLAIN},
    {"Tensor", "trunc", OP(TRUNC), PC_FORM_PLAIN},
    {"Tensor", "trunc_", OP(TRUNC), PC_FORM_INPLACE},
    {"Torch", "trunc_", OP(TRUNC), PC_FORM_INPLACE},
    {"Torch", "fix", OP(TRUNC), PC_FORM_PLAIN},
    {"Tensor", "fix", OP(TRUNC), PC_FORM_PLAIN},
    {"Tensor", "fix_", OP(TRUNC), PC_FORM_INPLACE},
    {"Torch", "fix_", OP(TRUNC), PC_FORM_INPLACE},
    {"Torch", "frac", OP(FRAC), PC_FORM_PLAIN},
    {"Tensor", "frac", OP(FRAC), PC_FORM_PLAIN},
    {"Tensor", "frac_", OP(FRAC), PC_FORM_INPLACE},
    {"Torch", "frac_", OP(FRAC), PC_FORM_INPLACE},
    {"Torch", "exp2", OP(EXP2), PC_FORM_PLAIN},
    {"Tensor", "exp2", OP(EXP2), PC_FORM_PLAIN},
    {"Tensor", "exp2_", OP(EXP2), PC_FORM_INPLACE},
    {"Torch", "exp2_", OP(EXP2), PC_FORM_INPLACE},
    {"Torch", "expm1", OP(EXPM1), PC_FORM_PLAIN},
    {"Tensor", "expm1", OP(EXPM1), PC_FORM_PLAIN},
    {"Tensor", "expm1_", OP(EXPM1), PC_FORM_INPLACE},
    {"Torch", "expm1_", OP(EXPM1), PC_FORM_INPLACE},
    {"Torch", "log2", OP(LOG2), PC_FORM_PLAIN},
    {"Tensor", "log2", OP(LOG2), PC_FORM_PLAIN},
    {"Tensor", "log2_", OP(LOG2), PC_FORM_INPLACE},
    {"Torch", "log2_", OP(LOG2), PC_FORM_INPLACE},
    {"Torch", "log10", OP(LOG10), PC_FORM_PLAIN},
    {"Tensor", "log10", OP(LOG10), PC_FORM_PLAIN},
    {"Tensor", "log10_", OP(LOG10), PC_FORM_INPLACE},
    {"Torch", "log10_", OP(LOG10), PC_FORM_INPLACE},
    {"Torch", "log1p", OP(LOG1P), PC_FORM_PLAIN},
    {"Tensor", "log1p", OP(LOG1P), PC_FORM_PLAIN},
    {"Tensor", "log1p_", OP(LOG1P), PC_FORM_INPLACE},
    {"Torch", "log1p_", OP(LOG1P), PC_FORM_INPLACE},
    {"Torch", "sinh", OP(SINH), PC_FORM_PLAIN},
    {"Tensor", "sinh", OP(SINH), PC_FORM_PLAIN},
    {"Tensor", "sinh_", OP(SINH), PC_FORM_INPLACE},
    {"Torch", "sinh_", OP(SINH), PC_FORM_INPLACE},
    {"Torch", "cosh", OP(COSH), PC_FORM_PLAIN},
    {"Tensor", "cosh", OP(COSH), PC_FORM_PLAIN},
    {"Tensor", "cosh_", OP(COSH), PC_FORM_INPLACE},
    {"Torch", "cosh_", OP(COSH), PC_FORM_INPLACE},
    {"Torch", "asin", OP(ASIN), PC_FORM_PLAIN},
    {"Tensor", "asin", OP(ASIN), PC_FORM_PLAIN},
    {"Tensor", "asin_", OP(ASIN), PC_FORM_INPLACE},
    {"Torch", "asin_", OP(ASIN), PC_FORM_INPLACE},
    {"Torch", "arcsin", OP(ASIN), PC_FORM_PLAIN},
    {"Tensor", "arcsin", OP(ASIN), PC_FORM_PLAIN},
    {"Tensor", "arcsin_", OP(ASIN), PC_FORM_INPLACE},
    {"Torch", "arcsin_", OP(ASIN), PC_FORM_INPLACE},
    {"Torch", "acos", OP(ACOS), PC_FORM_PLAIN},
    {"Tensor", "acos", OP(ACOS), PC_FORM_PLAIN},
    {"Tensor", "acos_", OP(ACOS), PC_FORM_INPLACE},
    {"Torch", "acos_", OP(ACOS), PC_FORM_INPLACE},
    {"Torch", "arccos", OP(ACOS), PC_FORM_PLAIN},
    {"Tensor", "arccos", OP(ACOS), PC_FORM_PLAIN},
    {"Tensor", "arccos_", OP(ACOS), PC_FORM_INPLACE},
    {"Torch", "arccos_", OP(ACOS), PC_FORM_INPLACE},
    {"Torch", "atan", OP(ATAN), PC_FORM_PLAIN},
    {"Tensor", "atan", OP(ATAN), PC_FORM_PLAIN},
    {"Tensor", "atan_", OP(ATAN), PC_FORM_INPLACE},
    {"Torch", "atan_", OP(ATAN), PC_FORM_INPLACE},
    {"Torch", "arctan", OP(ATAN), PC_FORM_PLAIN},
    {"Tensor", "arctan", OP(ATAN), PC_FORM_PLAIN},
    {"Tensor", "arctan_", OP(ATAN), PC_FORM_INPLACE},
    {"Torch", "arctan_", OP(ATAN), PC_FORM_INPLACE},
    {"Torch", "tan", OP(TAN), PC_FORM_PLAIN},
    {"Tensor", "tan", OP(TAN), PC_FORM_PLAIN},
    {"Tensor", "tan_", OP(TAN), PC_FORM_INPLACE},
    {"Torch", "tan_", OP(TAN), PC_FORM_INPLACE},
    {"Torch", "erfinv", OP(ERFINV), PC_FORM_PLAIN},
    {"Tensor", "erfinv", OP(ERFINV), PC_FORM_PLAIN},
    {"Tensor", "erfinv_", OP(ERFINV), PC_FORM_INPLACE},
    {"Torch", "isinf", OP(ISINF), PC_FORM_PLAIN},
    {"Tensor", "isinf", OP(ISINF), PC_FORM_PLAIN},
    {"Torch", "isnan", OP(ISNAN), PC_FORM_PLAIN},
    {"Tensor", "isnan", OP(ISNAN), PC_FORM_PLAIN},
    {"Torch", "isfinite", OP(ISFINITE), PC_FORM_PLAIN},
    {"Tensor", "isfinite", OP(ISFINITE), PC_FORM_PLAIN},
    {"Torch", "logical_not", OP(LOGICAL_NOT), PC_FORM_PLAIN},
    {"Tensor", "logical_not", OP(LOGICAL_NOT), PC_FORM_PLAIN},
    {"Tensor", "logical_not_", OP(LOGICAL_NOT), PC_FORM_INPLACE},
    {"Torch", "bitwise_not", OP(BITWISE_NOT), PC_FORM_PLAIN},
    {"Tensor", "bitwise_not", OP(BITWISE_NOT), PC_FORM_PLAIN},
    {"Tensor", "bitwise_not_", OP(BITWISE_NOT), PC_FORM_INPLACE},
    {"Torch", "nan_to_num", OP(NAN_TO_NUM), PC_FORM_PLAIN},
    {"Tensor", "nan_to_num", OP(NAN_TO_NUM), PC_FORM_PLAIN},
    {"Tensor", "nan_to_num_", OP(NAN_TO_NUM), PC_FORM_INPLACE},
    {"Torch", "nan_to_num_", OP(NAN_TO_NUM), PC_FORM_INPLACE},
    {"Functional", "softplus", OP(SOFTPLUS), PC_FORM_PLAIN},
    {"Functional", "hardswish", OP(HARDSWISH), PC_FORM_PLAIN},
    {"Functional", "hardsigmoid", OP(HARDSIGMOID), PC_FORM_PLAIN},
    {"Functional", "mish", OP(MISH), PC_FORM_PLAIN},
    {"Functional", "elu", OP(ELU), PC_FORM_PLAIN},
    {"Functional", "elu_", OP(ELU), PC_FORM_INPLACE},
    {"Functional", "selu", OP(SELU), PC_FORM_PLAIN},
    {"Functional", "selu_", OP(SELU), PC_FORM_INPLACE},
    {"Functional", "logsigmoid", OP(LOGSIGMOID), PC_FORM_PLAIN},
    {"Functional", "hardtanh", OP(HARDTANH), PC_FORM_PLAIN},
    {"Functional", "hardtanh_", OP(HARDTANH), PC_FORM_INPLACE},
    {"Functional", "relu6", OP(RELU6), PC_FORM_PLAIN},
    {"Torch", "selu", OP(SELU), PC_FORM_PLAIN},
    {"Torch", "selu_", OP(SELU), PC_FORM_INPLACE},
    {"Torch", "atan2", OP(ATAN2), PC_FORM_PLAIN},
    {"Tensor", "atan2", OP(ATAN2), PC_FORM_PLAIN},
    {"Tensor", "atan2_", OP(ATAN2), PC_FORM_INPLACE},
    {"Torch", "arctan2", OP(ATAN2), PC_FORM_PLAIN},
    {"Tensor", "arctan2", OP(ATAN2), PC_FORM_PLAIN},
    {"Tensor", "arctan2_", OP(ATAN2), PC_FORM_INPLACE},
    {"Torch", "floor_divide", OP(FLOOR_DIVIDE), PC_FORM_PLAIN},
    {"Tensor", "floor_divide", OP(FLOOR_DIVIDE), PC_FORM_PLAIN},
    {"Tensor", "floor_divide_", OP(FLOOR_DIVIDE), PC_FORM_INPLACE},
    {"Tensor", "__floordiv__", OP(FLOOR_DIVIDE), PC_FORM_PLAIN},
    {"Torch", "remainder", OP(REMAINDER), PC_FORM_PLAIN},
    {"Tensor", "remainder", OP(REMAINDER), PC_FORM_PLAIN},
    {"Tensor", "remainder_", OP(REMAINDER), PC_FORM_INPLACE},
    {"Tensor", "__mod__", OP(REMAINDER), PC_FORM_PLAIN},
    {"Torch", "fmod", OP(FMOD), PC_FORM_PLAIN},
    {"Tensor", "fmod", OP(FMOD), PC_FORM_PLAIN},
    {"Tensor", "fmod_", OP(FMOD), PC_FORM_INPLACE},
    {"Torch", "eq", OP(EQ), PC_FORM_PLAIN},
    {"Tensor", "eq", OP(EQ), PC_FORM_PLAIN},
    {"Tensor", "eq_", OP(EQ), PC_FORM_INPLACE},
    {"Tensor", "__eq__", OP(EQ), PC_FORM_PLAIN},
    {"Torch", "ne", OP(NE), PC_FORM_PLAIN},
    {"Tensor", "ne", OP(NE), PC_FORM_PLAIN},
    {"Tensor", "ne_", OP(NE), PC_FORM_INPLACE},
    {"Tensor", "__ne__", OP(NE), PC_FORM_PLAIN},
    {"Torch", "not_equal", OP(NE), PC_FORM_PLAIN},
    {"Tensor", "not_equal", OP(NE), PC_FORM_PLAIN},
    {"Tensor", "not_equal_", OP(NE), PC_FORM_INPLACE},
    {"Torch", "lt", OP(LT), PC_FORM_PLAIN},
    {"Tensor", "lt", OP(LT), PC_FORM_PLAIN},
    {"Tensor", "lt_", OP(LT), PC_FORM_INPLACE},
    {"Tensor", "__lt__", OP(LT), PC_FORM_PLAIN},
    {"Torch", "less", OP(LT), PC_FORM_PLAIN},
    {"Tensor", "less", OP(LT), PC_FORM_PLAIN},
    {"Tensor", "less_", OP(LT), PC_FORM_INPLACE},
    {"Torch", "le", OP(LE), PC_FORM_PLAIN},
    {"Tensor", "le", OP(LE), PC_FORM_PLAIN},
    {"Tensor", "le_", OP(LE), PC_FORM_INPLACE},
    {"Tensor", "__le__", OP(LE), PC_FORM_PLAIN},
    {"Torch", "less_equal", OP(LE), PC_FORM_PLAIN},
    {"Tensor", "less_equal", OP(LE), PC_FORM_PLAIN},
    {"Tensor", "less_equal_", OP(LE), PC_FORM_INPLACE},
    {"Torch", "gt", OP(GT), PC_FORM_PLAIN},
    {"Tensor", "gt", OP(GT), PC_FORM_PLAIN},
    {"Tensor", "gt_", OP(GT), PC_FORM_INPLACE},
    {"Tensor", "__gt__", OP(GT), PC_FORM_PLAIN},
    {"Torch", "greater", OP(GT), PC_FORM_PLAIN},
    {"Tensor", "greater", OP(GT), PC_FORM_PLAIN},
    {"Tensor", "greater_", OP(GT), PC_FORM_INPLACE},
    {"Torch", "ge", OP(GE), PC_FORM_PLAIN},
    {"Tensor", "ge", OP(GE), PC_FORM_PLAIN},
    {"Tensor", "ge_", OP(GE), PC_FORM_INPLACE},
    {"Tensor", "__ge__", OP(GE), PC_FORM_PLAIN},
    {"Torch", "greater_equal", OP(GE), PC_FORM_PLAIN},
    {"Tensor", "greater_equal", OP(GE), PC_FORM_PLAIN},
    {"Tensor", "greater_equal_", OP(GE), PC_FORM_INPLACE},
    {"Torch", "logical_and", OP(LOGICAL_AND), PC_FORM_PLAIN},
    {"Tensor", "logical_and", OP(LOGICAL_AND), PC_FORM_PLAIN},
    {"Tensor", "logical_and_", OP(LOGICAL_AND), PC_FORM_INPLACE},
    {"Torch", "logical_or", OP(LOGICAL_OR), PC_FORM_PLAIN},
    {"Tensor", "logical_or", OP(LOGICAL_OR), PC_FORM_PLAIN},
    {"Tensor", "logical_or_", OP(LOGICAL_OR), PC_FORM_INPLACE},
    {"Torch", "logical_xor", OP(LOGICAL_XOR), PC_FORM_PLAIN},
    {"Tensor", "logical_xor", OP(LOGICAL_XOR), PC_FORM_PLAIN},
    {"Tensor", "logical_xor_", OP(LOGICAL_XOR), PC_FORM_INPLACE},
    {"Torch", "bitwise_and", OP(BITWISE_AND), PC_FORM_PLAIN},
    {"Tensor", "bitwise_and", OP(BITWISE_AND), PC_FORM_PLAIN},
    {"Tensor", "bitwise_and_", OP(BITWISE_AND), PC_FORM_INPLACE},
    {"Tensor", "__and__", OP(BITWISE_AND), PC_FORM_PLAIN},
    {"Torch", "bitwise_or", OP(BITWISE_OR), PC_FORM_PLAIN},
    {"Tensor", "bitwise_or", OP(BITWISE_OR), PC_FORM_PLAIN},
    {"Tensor", "bitwise_or_", OP(BITWISE_OR), PC_FORM_INPLACE},
    {"Tensor", "__or__", OP(BITWISE_OR), PC_FORM_PLAIN},
    {"Torch", "bitwise_xor", OP(BITWISE_XOR), PC_FORM_PLAIN},
    {"Tensor", "bitwise_xor", OP(BITWISE_XOR), PC_FORM_PLAIN},
    {"Tensor", "bitwise_xor_", OP(BITWISE_XOR), PC_FORM_INPLACE},
    {"Tensor", "__xor__", OP(BITWISE_XOR), PC_FORM_PLAIN},
    {"Tensor", "__ifloordiv__", OP(FLOOR_DIVIDE), PC_FORM_INPLACE},
    {"Tensor", "__rmod__", OP(REMAINDER), PC_FORM_SWAPPED},
    {"Tensor", "__imod__", OP(REMAINDER), PC_FORM_INPLACE},
    {"Tensor", "__iand__", OP(BITWISE_AND), PC_FORM_INPLACE},
    {"Tensor", "__ior__", OP(BITWISE_OR), PC_FORM_INPLACE},
    {"Tensor", "__ror__", OP(BITWISE_OR), PC_FORM_SWAPPED},
    {"Tensor", "__ixor__", OP(BITWISE_XOR), PC_FORM_INPLACE},
    {"Tensor", "__rxor__", OP(BITWISE_XOR), PC_FORM_SWAPPED},
    {"Torch", "addcmul", OP(ADDCMUL), PC_FORM_PLAIN},
    {"Tensor", "addcmul", OP(ADDCMUL), PC_FORM_PLAIN},
    {"Tensor", "addcmul_", OP(ADDCMUL), PC_FORM_INPLACE},
    {"Torch", "addcdiv", OP(ADDCDIV), PC_FORM_PLAIN},
    {"Tensor", "addcdiv", OP(ADDCDIV), PC_FORM_PLAIN},
    {"Tensor", "addcdiv_", OP(ADDCDIV), PC_FORM_INPLACE},
    {"Torch", "lerp", OP(LERP), PC_FORM_PLAIN},
    {"Tensor", "lerp", OP(LERP), PC_FORM_PLAIN},
    {"Tensor", "lerp_", OP(LERP), PC_FORM_INPLACE},
    {"Torch", "outer", OP(OUTER), PC_FORM_PLAIN},
    {"Tensor", "outer", OP(OUTER), PC_FORM_PLAIN},
    {"Torch", "ger", OP(GER), PC_FORM_PLAIN},
    {"Tensor", "ger", OP(GER), PC_FORM_PLAIN},
    {"Torch", "clamp", OP(CLAMP), PC_FORM_PLAIN},
    {"Torch", "clip", OP(CLAMP), PC_FORM_PLAIN},
    {"Tensor", "clamp", OP(CLAMP), PC_FORM_PLAIN},
    {"Tensor", "clip", OP(CLAMP), PC_FORM_PLAIN},
    {"Tensor", "clamp_", OP(CLAMP), PC_FORM_INPLACE},
    {"Tensor", "clip_", OP(CLAMP), PC_FORM_INPLACE},
    {"Torch", "clamp_min", OP(CLAMP_MIN), PC_FORM_PLAIN},
    {"Tensor", "clamp_min", OP(CLAMP_MIN), PC_FORM_PLAIN},
    {"Tensor", "clamp_min_", OP(CLAMP_MIN), PC_FORM_INPLACE},
    {"Torch", "clamp_max", OP(CLAMP_MAX), PC_FORM_PLAIN},
    {"Tensor", "clamp_max", OP(CLAMP_MAX), PC_FORM_PLAIN},
    {"Tensor", "clamp_max_", OP(CLAMP_MAX), PC_FORM_INPLACE},
    {"Torch", "masked_fill", OP(MASKED_FILL), PC_FORM_PLAIN},
    {"Tensor", "masked_fill", OP(MASKED_FILL), PC_FORM_PLAIN},
    {"Tensor", "masked_fill_", OP(MASKED_FILL), PC_FORM_INPLACE},
    {"Torch", "where", OP(WHERE), PC_FORM_PLAIN},
    {"Tensor", "where", OP(WHERE), PC_FORM_SWAPPED},
    {"Tensor", "float", OP(FLOAT), PC_FORM_PLAIN},
    {"Tensor", "half", OP(HALF), PC_FORM_PLAIN},
    {"Tensor", "bfloat16", OP(BFLOAT16), PC_FORM_PLAIN},
    {"Tensor", "double", OP(DOUBLE), PC_FORM_PLAIN},
    {"Tensor", "long", OP(LONG), PC_FORM_PLAIN},
    {"Tensor", "int", OP(INT), PC_FORM_PLAIN},
    {"Tensor", "bool", OP(BOOL), PC_FORM_PLAIN},
    {"Tensor", "byte", OP(BYTE), PC_FORM_PLAIN},
    {"Tensor", "char", OP(CHAR), PC_FORM_PLAIN},
    {"Tensor", "short", OP(SHORT), PC_FORM_PLAIN},
    /* torch's in-place functions (torch.exp_(x) is x.exp_()) that msprobe's torch list wraps */
    {"Torch", "abs_", OP(ABS), PC_FORM_INPLACE},
    {"Torch", "neg_", OP(NEG), PC_FORM_INPLACE},
    {"Torch", "negative_", OP(NEG), PC_FORM_INPLACE},
    {"Torch", "exp_", OP(EXP), PC_FORM_INPLACE},
    {"Torch", "log_", OP(LOG), PC_FORM_INPLACE},
    {"Torch", "sqrt_", OP(SQRT), PC_FORM_INPLACE},
    {"Torch", "rsqrt_", OP(RSQRT), PC_FORM_INPLACE},
    {"Torch", "square_", OP(SQUARE), PC_FORM_INPLACE},
    {"Torch", "reciprocal_", OP(RECIPROCAL), PC_FORM_INPLACE},
    {"Torch", "sigmoid_", OP(SIGMOID), PC_FORM_INPLACE},
    {"Torch", "tanh_", OP(TANH), PC_FORM_INPLACE},
    {"Torch", "sin_", OP(SIN), PC_FORM_INPLACE},
    {"Torch", "cos_", OP(COS), PC_FORM_INPLACE},
    {"Torch", "erf_", OP(ERF), PC_FORM_INPLACE},
    {"Torch", "clamp_", OP(CLAMP), PC_FORM_INPLACE},
    {"Torch", "clip_", OP(CLAMP), PC_FORM_INPLACE},
    {"Torch", "clamp_min_", OP(CLAMP_MIN), PC_FORM_INPLACE},
    {"Torch", "clamp_max_", OP(CLAMP_MAX), PC_FORM_INPLACE},
    {"Tensor", "to", OP(TO), PC_FORM_PLAIN},
    {"Tensor", "type_as", OP(TYPE_AS), PC_FORM_PLAIN},
#include "op_names_shape.inc"
#include "op_names_nn.inc"
#include "op_names_reduction.inc"
#include "op_names_sort.inc"
#include "op_names_indexing.inc"
#include "op_names_functional.inc"
#include "op_names_conv.inc"
#include "op_names_npu.inc"
};

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void table_init(void)
{
    for (size_t i = 0; i < PC_OP_COUNT; i++) {
        if (pc_schema_parse(op_table[i].schema_text, &op_schemas[i]) != PC_OK) {
            fprintf(stderr, "precheck: op table: schema of row %zu does not parse: %s\n", i,
                    pc_error_message());
            abort();
        }
        op_table[i].name = op_schemas[i].name;
    }
}

static void ensure_init(void)
{
    pthread_once(&init_once, table_init);
}

size_t pc_op_count(void)
{
    return PC_OP_COUNT;
}

const pc_op *pc_op_at(size_t i)
{
    ensure_init();
    return i < PC_OP_COUNT ? &op_table[i] : NULL;
}

const pc_op *pc_op_find(const char *name)
{
    ensure_init();
    for (size_t i = 0; i < PC_OP_COUNT; i++)
        if (name && strcmp(op_table[i].name, name) == 0)
            return &op_table[i];
    return NULL;
}

size_t pc_api_name_count(void)
{
    return sizeof api_names / sizeof api_names[0];
}

const pc_api_name *pc_api_name_at(size_t i)
{
    ensure_init();
    return i < pc_api_name_count() ? &api_names[i] : NULL;
}

const pc_api_name *pc_api_lookup(const char *api_type, const char *api_name)
{
    if (!api_type || !api_name)
        return NULL;
    ensure_init();
    for (size_t i = 0; i < pc_api_name_count(); i++)
        if (strcmp(api_names[i].api_type, api_type) == 0 &&
            strcmp(api_names[i].api_name, api_name) == 0)
            return &api_names[i];
    return NULL;
}

const pc_api_name *pc_api_lookup_next(const pc_api_name *prev)
{
    if (!prev || prev < api_names || prev >= api_names + pc_api_name_count())
        return NULL;
    for (const pc_api_name *n = prev + 1; n < api_names + pc_api_name_count(); n++)
        if (strcmp(n->api_type, prev->api_type) == 0 && strcmp(n->api_name, prev->api_name) == 0)
            return n;
    return NULL;
}

bool pc_api_supported(const char *api_type, const char *api_name, char *why, size_t size)
{
    if (pc_api_lookup(api_type, api_name))
        return true;
    if (why && size > 0)
        snprintf(why, size, "API %s.%s is not supported by precheck yet", api_type ? api_type : "?",
                 api_name ? api_name : "?");
    return false;
}

const char *pc_api_form_name(pc_api_form form)
{
    switch (form) {
    case PC_FORM_PLAIN:
        return "plain";
    case PC_FORM_SWAPPED:
        return "swapped";
    case PC_FORM_INPLACE:
        return "inplace";
    }
    return "?";
}
