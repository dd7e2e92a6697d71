/*
 * msprobe's precision standards and the choice of one for an output
 * (docs/msprobe-contract.md#comparison): the API-name lists of api_precision_standard.yaml are a
 * data table here, and the selection rule is the same for run_ut and api_precision_compare.
 *
 * Everything here is static data or a pure function; returned strings live for the program.
 */
#ifndef PC_COMPARE_STANDARD_H
#define PC_COMPARE_STANDARD_H

#include <stdbool.h>
#include <stddef.h>

#include "precheck/core/dtype.h"

typedef enum pc_standard {
    PC_STANDARD_BENCHMARK = 0, /* 标杆比对法 */
    PC_STANDARD_ABSOLUTE,      /* 绝对阈值法 */
    PC_STANDARD_BINARY,        /* 二进制一致法 */
    PC_STANDARD_ULP,           /* ULP误差比对法 */
    PC_STANDARD_THOUSANDTH,    /* 双千指标法 */
    PC_STANDARD_ACCUMULATIVE,  /* 累积误差比对法 */
    PC_STANDARD_COUNT
} pc_standard;

/* "benchmark", "absolute", "binary", "ulp", "thousandth", "accumulative". */
const char *pc_standard_name(pc_standard s);
/* The 比对算法 text api_precision_compare writes, e.g. "标杆比对法". */
const char *pc_standard_algorithm_name(pc_standard s);

/*
 * msprobe's selection, on msprobe's strings: device_dtype is str() of the output's
 * dtype as it appears in the DEVICE Dtype column ("torch.float16", "torch.int64",
 * "<class 'int'>", "torch_npu.HiFloat8Tensor", ...), in_dtype "torch.float32" or an fp8 name,
 * api_name the basic API name ("matmul", "__add__", "linalg.inv"). NULL strings count as "".
 */
pc_standard pc_standard_select(const char *api_name, const char *device_dtype,
                               const char *in_dtype);

/* The same for run_ut, on a device dtype and whether any input was fp8 / HiFloat8. */
pc_standard pc_standard_select_dtype(const char *api_name, pc_dtype device_dtype, bool inputs_fp8);

/* The standard whose list holds api_name, searched in msprobe's order (absolute, binary, ULP,
 * thousandth, accumulative); PC_STANDARD_BENCHMARK when it is in none. */
pc_standard pc_standard_of_api(const char *api_name);

/* The list table itself, for tests and documentation: entry i of n (NULL past the end). */
typedef struct pc_standard_api {
    const char *api_name;
    pc_standard standard;
} pc_standard_api;
size_t pc_standard_api_count(void);
const pc_standard_api *pc_standard_api_at(size_t i);

#endif
