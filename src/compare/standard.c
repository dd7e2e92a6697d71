#include "precheck/compare/standard.h"

#include <string.h>

static const char *const standard_names[PC_STANDARD_COUNT] = {
    [PC_STANDARD_BENCHMARK] = "benchmark",   [PC_STANDARD_ABSOLUTE] = "absolute",
    [PC_STANDARD_BINARY] = "binary",         [PC_STANDARD_ULP] = "ulp",
    [PC_STANDARD_THOUSANDTH] = "thousandth", [PC_STANDARD_ACCUMULATIVE] = "accumulative",
};

static const char *const algorithm_names[PC_STANDARD_COUNT] = {
    [PC_STANDARD_BENCHMARK] = "标杆比对法",  [PC_STANDARD_ABSOLUTE] = "绝对阈值法",
    [PC_STANDARD_BINARY] = "二进制一致法",   [PC_STANDARD_ULP] = "ULP误差比对法",
    [PC_STANDARD_THOUSANDTH] = "双千指标法", [PC_STANDARD_ACCUMULATIVE] = "累积误差比对法",
};

/* api_precision_standard.yaml (docs/msprobe-contract.md#comparison), list by list in the order
 * msprobe searches them; within a list, the yaml's order. */
#define A(name)                                                                                    \
    {                                                                                              \
        name, PC_STANDARD_ABSOLUTE                                                                 \
    }
#define B(name)                                                                                    \
    {                                                                                              \
        name, PC_STANDARD_BINARY                                                                   \
    }
#define U(name)                                                                                    \
    {                                                                                              \
        name, PC_STANDARD_ULP                                                                      \
    }
#define T(name)                                                                                    \
    {                                                                                              \
        name, PC_STANDARD_THOUSANDTH                                                               \
    }
#define C(name)                                                                                    \
    {                                                                                              \
        name, PC_STANDARD_ACCUMULATIVE                                                             \
    }
static const pc_standard_api api_table[] = {
    /* AbsoluteThreshStandard (30) */
    A("mul"),
    A("mul_"),
    A("__mul__"),
    A("__imul__"),
    A("__rmul__"),
    A("add"),
    A("add_"),
    A("__add__"),
    A("__iadd__"),
    A("__radd__"),
    A("div"),
    A("div_"),
    A("__div__"),
    A("__idiv__"),
    A("divide"),
    A("divide_"),
    A("leaky_relu"),
    A("leaky_relu_"),
    A("prelu"),
    A("reciprocal"),
    A("reciprocal_"),
    A("rsqrt"),
    A("rsqrt_"),
    A("square"),
    A("square_"),
    A("sub"),
    A("sub_"),
    A("rsub"),
    A("__isub__"),
    A("__sub__"),
    /* BinaryCompareStandard (62) */
    B("abs"),
    B("abs_"),
    B("absolute"),
    B("absolute_"),
    B("argmin"),
    B("bitwise_and"),
    B("bitwise_and_"),
    B("broadcast_to"),
    B("ceil"),
    B("ceil_"),
    B("equal"),
    B("fill_"),
    B("flatten"),
    B("floor"),
    B("floor_"),
    B("gather"),
    B("greater"),
    B("greater_"),
    B("greater_equal"),
    B("greater_equal_"),
    B("histc"),
    B("isfinite"),
    B("isnan"),
    B("less"),
    B("less_"),
    B("less_equal"),
    B("less_equal_"),
    B("logical_and"),
    B("logical_and_"),
    B("logical_not"),
    B("logical_not_"),
    B("logical_or"),
    B("logical_or_"),
    B("masked_fill"),
    B("masked_fill_"),
    B("max_pool3d"),
    B("maximum"),
    B("minimum"),
    B("neg"),
    B("neg_"),
    B("nonzero"),
    B("not_equal"),
    B("not_equal_"),
    B("one_hot"),
    B("pad"),
    B("relu"),
    B("reshape"),
    B("round"),
    B("round_"),
    B("select"),
    B("sign"),
    B("sign_"),
    B("sort"),
    B("tile"),
    B("topk"),
    B("transpose"),
    B("transpose_"),
    B("tril"),
    B("tril_"),
    B("triu"),
    B("triu_"),
    B("type_as"),
    /* ULPStandard (17) */
    U("__matmul__"),
    U("addbmm"),
    U("addbmm_"),
    U("addmm"),
    U("addmm_"),
    U("baddbmm"),
    U("baddbmm_"),
    U("bilinear"),
    U("bmm"),
    U("chain_matmul"),
    U("hspmm"),
    U("linear"),
    U("matmul"),
    U("mm"),
    U("mv"),
    U("smm"),
    U("sspaddmm"),
    /* ThousandthStandard (2) */
    T("conv1d"),
    T("conv2d"),
    /* AccumulativeErrorStandard (1) */
    C("test_api"),
};
#undef A
#undef B
#undef U
#undef T
#undef C
enum { API_TABLE_COUNT = sizeof api_table / sizeof api_table[0] };
_Static_assert(API_TABLE_COUNT == 30 + 62 + 17 + 2 + 1, "the yaml's lists have 112 names");

const char *pc_standard_name(pc_standard s)
{
    return (unsigned)s < PC_STANDARD_COUNT ? standard_names[s] : "invalid";
}

const char *pc_standard_algorithm_name(pc_standard s)
{
    return (unsigned)s < PC_STANDARD_COUNT ? algorithm_names[s] : "";
}

size_t pc_standard_api_count(void)
{
    return API_TABLE_COUNT;
}

const pc_standard_api *pc_standard_api_at(size_t i)
{
    return i < API_TABLE_COUNT ? &api_table[i] : NULL;
}

pc_standard pc_standard_of_api(const char *api_name)
{
    if (!api_name)
        return PC_STANDARD_BENCHMARK;
    /* The table is in search order, so the first hit is msprobe's. */
    for (size_t i = 0; i < API_TABLE_COUNT; i++)
        if (strcmp(api_table[i].api_name, api_name) == 0)
            return api_table[i].standard;
    return PC_STANDARD_BENCHMARK;
}

static bool is_fp8_or_hif8(const char *dtype)
{
    static const char *const names[] = {
        "torch.float8_e4m3fn",
        "torch.float8_e5m2",
        "torch_npu.HiFloat8Tensor",
        "<class 'torch_npu.utils.hif8_tensor.HiFloat8Tensor'>",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(dtype, names[i]) == 0)
            return true;
    return false;
}

/* The dtypes msprobe treats as floating point when it picks a standard. */
static bool is_standard_float(const char *dtype)
{
    static const char *const names[] = {
        "torch.float16",     "torch.bfloat16", "torch.float32",   "torch.float8_e4m3fn",
        "torch.float8_e5m2", "torch.float64",  "torch.complex64", "torch.complex128",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(dtype, names[i]) == 0)
            return true;
    return false;
}

pc_standard pc_standard_select(const char *api_name, const char *device_dtype, const char *in_dtype)
{
    if (!device_dtype)
        device_dtype = "";
    if (!in_dtype)
        in_dtype = "";
    if (is_fp8_or_hif8(device_dtype))
        return PC_STANDARD_ULP;
    if (is_fp8_or_hif8(in_dtype))
        return PC_STANDARD_ABSOLUTE;
    if (!is_standard_float(device_dtype))
        return PC_STANDARD_BINARY;
    return pc_standard_of_api(api_name);
}

pc_standard pc_standard_select_dtype(const char *api_name, pc_dtype device_dtype, bool inputs_fp8)
{
    return pc_standard_select(api_name, pc_dtype_torch_name(device_dtype),
                              inputs_fp8 ? "torch.float8_e4m3fn" : "torch.float32");
}
