/* Helpers shared by the compare tests: tensors from decimal literals and the CSV text of
 * one compared API. Header-only (static functions), included by each test file. */
#ifndef PC_COMPARE_TEST_SUPPORT_H
#define PC_COMPARE_TEST_SUPPORT_H

#include "pc_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/compare/compare.h"
#include "precheck/core/tensor.h"

/* A 1-D tensor of dtype with values rounded once from the doubles (rank 0 when n0d). */
static inline pc_tensor make_tensor(pc_dtype dtype, const double *values, int64_t n)
{
    pc_tensor t = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_alloc(&t, dtype, &n, 1), PC_OK);
    for (int64_t i = 0; i < n; i++)
        pc_tensor_set(&t, &i, values[i]);
    return t;
}

static inline pc_tensor make_scalar(pc_dtype dtype, double value)
{
    pc_tensor t = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_alloc(&t, dtype, NULL, 0), PC_OK);
    pc_tensor_set(&t, NULL, value);
    return t;
}

#define VALUES(...)                                                                                \
    ((const double[]){__VA_ARGS__}), (sizeof((const double[]){__VA_ARGS__}) / sizeof(double))

/* The details CSV text (all rows, CRLF included) and result row of one API whose forward
 * output is the single tensor pair (bench, device). Caller frees both strings. */
static inline void api_csv(const char *full_name, const pc_tensor *bench, const pc_tensor *device,
                           char **details, char **result)
{
    pc_cmp_value b = pc_cmp_tensor(bench), d = pc_cmp_tensor(device);
    pc_api_outputs outs = {.bench_output = &b, .device_output = &d};
    pc_api_result res = PC_API_RESULT_INIT;
    pc_compare_options opt = {.threads = 1};
    assert_int_equal(pc_compare_api(&res, full_name, &outs, &opt), PC_OK);
    pc_csv_buffer det = PC_CSV_BUFFER_INIT, sum = PC_CSV_BUFFER_INIT;
    assert_int_equal(pc_api_result_append_csv(&res, &det, &sum, 14), PC_OK);
    *details = det.data ? det.data : calloc(1, 1);
    *result = sum.data ? sum.data : calloc(1, 1);
    pc_api_result_free(&res);
}

static inline void assert_text(const char *got, const char *want)
{
    if (strcmp(got, want) != 0) {
        print_error("got:  %s\nwant: %s\n", got, want);
        fail();
    }
}

#endif
