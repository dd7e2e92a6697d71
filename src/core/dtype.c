#include "precheck/core/dtype.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* msprobe's StandardConfig columns (docs/msprobe-contract.md#comparison), written as powers of two
 * where they are, so that every constant is exact. */
static const pc_msprobe_thresholds thresholds_f16 = {
    .small_value = 0x1p-10,
    .small_value_atol_abs = 0x1p-16,
    .small_value_atol_bench = 1e-16,
    .rtol = 0x1p-10,
    .accum_small_value = 1.0,
    .accum_bound = 0x1p-8,
    .ulp_min_exp = -14,
    .ulp_mantissa_bits = 10,
    .has_ulp = true,
    .ulp_elem_threshold = 1.0,
    .min_error = 0x1p-11,
    .accum_eb_threshold = 0x1p-20,
    .bench_eps_override = 0.0,
};

static const pc_msprobe_thresholds thresholds_bf16 = {
    .small_value = 0x1p-10,
    .small_value_atol_abs = 1e-16, /* the user guide says 2^-16; the code uses 1e-16 */
    .small_value_atol_bench = 1e-16,
    .rtol = 0x1p-8,
    .accum_small_value = 1.0,
    .accum_bound = 0x1p-7,
    .ulp_min_exp = -126,
    .ulp_mantissa_bits = 7,
    .has_ulp = true,
    .ulp_elem_threshold = 1.0,
    .min_error = 0x1p-8,
    .accum_eb_threshold = 0x1p-7,
    .bench_eps_override = 0x1p-8,
};

static const pc_msprobe_thresholds thresholds_f32 = {
    .small_value = 0x1p-20,
    .small_value_atol_abs = 0x1p-30,
    .small_value_atol_bench = 0x1p-30,
    .rtol = 0x1p-20,
    .accum_small_value = 1.0,
    .accum_bound = 0x1p-11,
    .ulp_min_exp = -126,
    .ulp_mantissa_bits = 23,
    .has_ulp = true,
    .ulp_elem_threshold = 32.0,
    .min_error = 0x1p-14,
    .accum_eb_threshold = 0x1p-14,
    .bench_eps_override = 0.0,
};

/* The "other" column: any dtype msprobe has no entry for. */
static const pc_msprobe_thresholds thresholds_other = {
    .small_value = 0x1p-20,
    .small_value_atol_abs = 0x1p-30,
    .small_value_atol_bench = 0x1p-30,
    .rtol = 0x1p-20,
    .accum_small_value = 1.0,
    .accum_bound = 0x1p-11,
    .ulp_min_exp = 0,
    .ulp_mantissa_bits = 0,
    .has_ulp = false,
    .ulp_elem_threshold = 1.0,
    .min_error = 0x1p-14,
    .accum_eb_threshold = 0x1p-14,
    .bench_eps_override = 0.0,
};

#define INT_ROW(self, nm, np, descr, storage, sz, knd, maxv, minv)                                 \
    {                                                                                              \
        .name = nm, .torch_name = "torch." nm, .numpy_name = np, .npy_descr = descr,               \
        .storage_name = storage, .size = sz, .kind = knd, .component = self, .max_finite = maxv,   \
        .lowest = minv, .thresholds = &thresholds_other,                                           \
    }

static const pc_dtype_traits dtype_table[PC_DTYPE_COUNT] = {
    [PC_DTYPE_BOOL] =
        INT_ROW(PC_DTYPE_BOOL, "bool", "bool", "|b1", "BoolStorage", 1, PC_KIND_BOOL, 1, 0),
    [PC_DTYPE_U8] =
        INT_ROW(PC_DTYPE_U8, "uint8", "uint8", "|u1", "ByteStorage", 1, PC_KIND_UINT, 255, 0),
    [PC_DTYPE_I8] =
        INT_ROW(PC_DTYPE_I8, "int8", "int8", "|i1", "CharStorage", 1, PC_KIND_INT, 127, -128),
    [PC_DTYPE_I16] = INT_ROW(PC_DTYPE_I16, "int16", "int16", "<i2", "ShortStorage", 2, PC_KIND_INT,
                             32767, -32768),
    [PC_DTYPE_I32] = INT_ROW(PC_DTYPE_I32, "int32", "int32", "<i4", "IntStorage", 4, PC_KIND_INT,
                             2147483647.0, -2147483648.0),
    [PC_DTYPE_I64] = INT_ROW(PC_DTYPE_I64, "int64", "int64", "<i8", "LongStorage", 8, PC_KIND_INT,
                             0x1p63, -0x1p63),
    [PC_DTYPE_F16] =
        {
            .name = "float16",
            .torch_name = "torch.float16",
            .numpy_name = "float16",
            .npy_descr = "<f2",
            .storage_name = "HalfStorage",
            .size = 2,
            .kind = PC_KIND_FLOAT,
            .component = PC_DTYPE_F16,
            .mantissa_bits = 10,
            .exponent_bits = 5,
            .min_normal_exp = -14,
            .eps = 0x1p-10,
            .max_finite = 65504.0,
            .lowest = -65504.0,
            .has_inf = true,
            .thresholds = &thresholds_f16,
        },
    [PC_DTYPE_BF16] =
        {
            .name = "bfloat16",
            .torch_name = "torch.bfloat16",
            .numpy_name = NULL,
            .npy_descr = NULL,
            .storage_name = "BFloat16Storage",
            .size = 2,
            .kind = PC_KIND_FLOAT,
            .component = PC_DTYPE_BF16,
            .mantissa_bits = 7,
            .exponent_bits = 8,
            .min_normal_exp = -126,
            .eps = 0x1p-7,
            .max_finite = 0x1.fep127,
            .lowest = -0x1.fep127,
            .has_inf = true,
            .thresholds = &thresholds_bf16,
        },
    [PC_DTYPE_F32] =
        {
            .name = "float32",
            .torch_name = "torch.float32",
            .numpy_name = "float32",
            .npy_descr = "<f4",
            .storage_name = "FloatStorage",
            .size = 4,
            .kind = PC_KIND_FLOAT,
            .component = PC_DTYPE_F32,
            .mantissa_bits = 23,
            .exponent_bits = 8,
            .min_normal_exp = -126,
            .eps = 0x1p-23,
            .max_finite = (double)FLT_MAX,
            .lowest = -(double)FLT_MAX,
            .has_inf = true,
            .thresholds = &thresholds_f32,
        },
    [PC_DTYPE_F64] =
        {
            .name = "float64",
            .torch_name = "torch.float64",
            .numpy_name = "float64",
            .npy_descr = "<f8",
            .storage_name = "DoubleStorage",
            .size = 8,
            .kind = PC_KIND_FLOAT,
            .component = PC_DTYPE_F64,
            .mantissa_bits = 52,
            .exponent_bits = 11,
            .min_normal_exp = -1022,
            .eps = 0x1p-52,
            .max_finite = DBL_MAX,
            .lowest = -DBL_MAX,
            .has_inf = true,
            .thresholds = &thresholds_other,
        },
    [PC_DTYPE_C64] =
        {
            .name = "complex64",
            .torch_name = "torch.complex64",
            .numpy_name = "complex64",
            .npy_descr = "<c8",
            .storage_name = "ComplexFloatStorage",
            .size = 8,
            .kind = PC_KIND_COMPLEX,
            .component = PC_DTYPE_F32,
            .mantissa_bits = 23,
            .exponent_bits = 8,
            .min_normal_exp = -126,
            .eps = 0x1p-23,
            .max_finite = (double)FLT_MAX,
            .lowest = -(double)FLT_MAX,
            .has_inf = true,
            .thresholds = &thresholds_other,
        },
    [PC_DTYPE_C128] =
        {
            .name = "complex128",
            .torch_name = "torch.complex128",
            .numpy_name = "complex128",
            .npy_descr = "<c16",
            .storage_name = "ComplexDoubleStorage",
            .size = 16,
            .kind = PC_KIND_COMPLEX,
            .component = PC_DTYPE_F64,
            .mantissa_bits = 52,
            .exponent_bits = 11,
            .min_normal_exp = -1022,
            .eps = 0x1p-52,
            .max_finite = DBL_MAX,
            .lowest = -DBL_MAX,
            .has_inf = true,
            .thresholds = &thresholds_other,
        },
    [PC_DTYPE_F8E4M3FN] =
        {
            .name = "float8_e4m3fn",
            .torch_name = "torch.float8_e4m3fn",
            .numpy_name = NULL,
            .npy_descr = NULL,
            .storage_name = "Float8_e4m3fnStorage",
            .size = 1,
            .kind = PC_KIND_FLOAT,
            .component = PC_DTYPE_F8E4M3FN,
            .mantissa_bits = 3,
            .exponent_bits = 4,
            .min_normal_exp = -6,
            .eps = 0x1p-3,
            .max_finite = 448.0,
            .lowest = -448.0,
            .has_inf = false,
            .thresholds = &thresholds_other,
        },
    [PC_DTYPE_F8E5M2] =
        {
            .name = "float8_e5m2",
            .torch_name = "torch.float8_e5m2",
            .numpy_name = NULL,
            .npy_descr = NULL,
            .storage_name = "Float8_e5m2Storage",
            .size = 1,
            .kind = PC_KIND_FLOAT,
            .component = PC_DTYPE_F8E5M2,
            .mantissa_bits = 2,
            .exponent_bits = 5,
            .min_normal_exp = -14,
            .eps = 0x1p-2,
            .max_finite = 57344.0,
            .lowest = -57344.0,
            .has_inf = true,
            .thresholds = &thresholds_other,
        },
};
_Static_assert(sizeof dtype_table / sizeof dtype_table[0] == PC_DTYPE_COUNT,
               "one traits row per dtype");

const pc_dtype_traits *pc_dtype_traits_of(pc_dtype dtype)
{
    if ((unsigned)dtype >= PC_DTYPE_COUNT) {
        fprintf(stderr, "precheck: internal error: dtype %d out of range\n", (int)dtype);
        abort();
    }
    return &dtype_table[dtype];
}

const char *pc_dtype_name(pc_dtype dtype)
{
    if ((unsigned)dtype >= PC_DTYPE_COUNT)
        return "invalid";
    return dtype_table[dtype].name;
}

const char *pc_dtype_torch_name(pc_dtype dtype)
{
    if ((unsigned)dtype >= PC_DTYPE_COUNT)
        return "invalid";
    return dtype_table[dtype].torch_name;
}

size_t pc_dtype_size(pc_dtype dtype)
{
    return pc_dtype_traits_of(dtype)->size;
}

bool pc_dtype_is_float(pc_dtype dtype)
{
    return (unsigned)dtype < PC_DTYPE_COUNT && dtype_table[dtype].kind == PC_KIND_FLOAT;
}

bool pc_dtype_is_complex(pc_dtype dtype)
{
    return (unsigned)dtype < PC_DTYPE_COUNT && dtype_table[dtype].kind == PC_KIND_COMPLEX;
}

bool pc_dtype_is_integral(pc_dtype dtype)
{
    if ((unsigned)dtype >= PC_DTYPE_COUNT)
        return false;
    pc_dtype_kind k = dtype_table[dtype].kind;
    return k == PC_KIND_BOOL || k == PC_KIND_UINT || k == PC_KIND_INT;
}

/* torch's other spellings of the same dtypes (torch.half is torch.float16, ...). */
static const struct {
    const char *alias;
    pc_dtype dtype;
} torch_aliases[] = {
    {"torch.half", PC_DTYPE_F16},   {"torch.float", PC_DTYPE_F32},
    {"torch.double", PC_DTYPE_F64}, {"torch.long", PC_DTYPE_I64},
    {"torch.int", PC_DTYPE_I32},    {"torch.short", PC_DTYPE_I16},
    {"torch.cfloat", PC_DTYPE_C64}, {"torch.cdouble", PC_DTYPE_C128},
};

pc_dtype pc_dtype_from_torch_name(const char *name)
{
    if (!name)
        return PC_DTYPE_INVALID;
    for (int i = 0; i < PC_DTYPE_COUNT; i++)
        if (strcmp(name, dtype_table[i].torch_name) == 0)
            return (pc_dtype)i;
    for (size_t i = 0; i < sizeof torch_aliases / sizeof torch_aliases[0]; i++)
        if (strcmp(name, torch_aliases[i].alias) == 0)
            return torch_aliases[i].dtype;
    return PC_DTYPE_INVALID;
}

pc_dtype pc_dtype_from_numpy_name(const char *name)
{
    if (!name)
        return PC_DTYPE_INVALID;
    for (int i = 0; i < PC_DTYPE_COUNT; i++)
        if (dtype_table[i].numpy_name && strcmp(name, dtype_table[i].numpy_name) == 0)
            return (pc_dtype)i;
    return PC_DTYPE_INVALID;
}

pc_dtype pc_dtype_from_storage_name(const char *name)
{
    if (!name)
        return PC_DTYPE_INVALID;
    if (strncmp(name, "torch.", 6) == 0)
        name += 6;
    for (int i = 0; i < PC_DTYPE_COUNT; i++)
        if (strcmp(name, dtype_table[i].storage_name) == 0)
            return (pc_dtype)i;
    return PC_DTYPE_INVALID;
}
