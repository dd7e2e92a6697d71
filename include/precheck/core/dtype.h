/*
 * The dtype traits table: one row per element type precheck knows, with its names in torch,
 * numpy and the .pt storage classes, its size and floating-point format, and the msprobe
 * thresholds that depend on it (docs/msprobe-contract.md#comparison).
 *
 * Everything here is static data: the pointers returned stay valid for the whole program and
 * are never freed.
 */
#ifndef PC_CORE_DTYPE_H
#define PC_CORE_DTYPE_H

#include <stdbool.h>
#include <stddef.h>

typedef enum pc_dtype {
    PC_DTYPE_INVALID = -1,
    PC_DTYPE_BOOL = 0,
    PC_DTYPE_U8,
    PC_DTYPE_I8,
    PC_DTYPE_I16,
    PC_DTYPE_I32,
    PC_DTYPE_I64,
    PC_DTYPE_F16,
    PC_DTYPE_BF16,
    PC_DTYPE_F32,
    PC_DTYPE_F64,
    PC_DTYPE_C64,
    PC_DTYPE_C128,
    PC_DTYPE_F8E4M3FN,
    PC_DTYPE_F8E5M2,
    PC_DTYPE_COUNT
} pc_dtype;

typedef enum pc_dtype_kind {
    PC_KIND_BOOL,
    PC_KIND_UINT,
    PC_KIND_INT,
    PC_KIND_FLOAT,
    PC_KIND_COMPLEX,
} pc_dtype_kind;

/*
 * The msprobe parameters keyed by the device output dtype (docs/msprobe-contract.md#comparison).
 * Dtypes other than float16, bfloat16 and float32 carry the "other" column. A value of 0 means "not
 * used for this dtype".
 */
typedef struct pc_msprobe_thresholds {
    double small_value;            /* small-value threshold: benchmark and absolute threshold */
    double small_value_atol_abs;   /* small-value atol of the absolute-threshold standard */
    double small_value_atol_bench; /* small-value atol of the benchmark standard */
    double rtol;                   /* rtol of the absolute-threshold standard */
    double accum_small_value;      /* small-value threshold of the accumulative standard */
    double accum_bound;            /* error bound of the accumulative standard */
    int ulp_min_exp;               /* ULP standard: minimum exponent (0 with has_ulp false) */
    int ulp_mantissa_bits;         /* ULP standard: mantissa bits */
    bool has_ulp;                  /* ULP parameters exist for this dtype */
    double ulp_elem_threshold;     /* ULP error above which an element counts as bad */
    double min_error;              /* api_precision_compare: minimum error m(D) */
    double accum_eb_threshold;     /* api_precision_compare: accumulative EB threshold */
    double bench_eps_override;     /* eps of |bench| + eps when this is D (bf16: 2^-8), else 0 */
} pc_msprobe_thresholds;

typedef struct pc_dtype_traits {
    const char *name;         /* short name, as in torch without the prefix: "bfloat16" */
    const char *torch_name;   /* str(dtype) in torch: "torch.bfloat16" */
    const char *numpy_name;   /* numpy's name, NULL when numpy has no such type */
    const char *npy_descr;    /* little-endian .npy descr ("<f2", "|b1"), NULL if none */
    const char *storage_name; /* torch storage class: "BFloat16Storage" */
    size_t size;              /* bytes per element */
    pc_dtype_kind kind;
    pc_dtype component; /* complex: the dtype of each part; otherwise the dtype itself */
    /* Floating-point format (of each component, for complex); 0 for integers and bool. */
    int mantissa_bits; /* explicit fraction bits */
    int exponent_bits;
    int min_normal_exp; /* unbiased exponent of the smallest normal number */
    double eps;         /* machine epsilon: 2^-mantissa_bits */
    double max_finite;  /* largest finite value (integers: the type's maximum) */
    double lowest;      /* most negative finite value (integers: the type's minimum) */
    bool has_inf;       /* the format can hold infinities */
    const pc_msprobe_thresholds *thresholds;
} pc_dtype_traits;

/* Traits of a dtype; aborts on a value outside [0, PC_DTYPE_COUNT) (a broken invariant). */
const pc_dtype_traits *pc_dtype_traits_of(pc_dtype dtype);

/* Short helpers over the table. */
const char *pc_dtype_name(pc_dtype dtype);       /* "bfloat16"; "invalid" for bad values */
const char *pc_dtype_torch_name(pc_dtype dtype); /* "torch.bfloat16"; "invalid" for bad values */
size_t pc_dtype_size(pc_dtype dtype);
bool pc_dtype_is_float(pc_dtype dtype); /* real floating point (incl. fp8) */
bool pc_dtype_is_complex(pc_dtype dtype);
bool pc_dtype_is_integral(pc_dtype dtype); /* bool, signed and unsigned integers */

/* Look-ups; PC_DTYPE_INVALID when the name is unknown. */
pc_dtype pc_dtype_from_torch_name(const char *name);   /* "torch.float16", aliases "torch.half" */
pc_dtype pc_dtype_from_numpy_name(const char *name);   /* "float16", "int64", "bool" */
pc_dtype pc_dtype_from_storage_name(const char *name); /* "HalfStorage", "torch.HalfStorage" */

#endif
