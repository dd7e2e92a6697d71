/*
 * One bench/device tensor pair into a details row: msprobe's _compare_torch_tensor and
 * _compare_float_tensor (docs/msprobe-contract.md#comparison).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "compare_impl.h"
#include "precheck/core/convert.h"

void pc_cmp_row_append(pc_detail_row *row, const char *fmt, ...)
{
    size_t len = strlen(row->message);
    if (len >= sizeof row->message - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(row->message + len, sizeof row->message - len, fmt, ap);
    va_end(ap);
}

/* Python's repr of tuple(shape): "(2, 3)", "(7,)", "()". */
void pc_cmp_shape_tuple_text(char *dst, size_t size, const pc_tensor *t)
{
    size_t k = 0;
    k += (size_t)snprintf(dst + k, size - k, "(");
    for (int i = 0; i < t->rank && k < size; i++)
        k += (size_t)snprintf(dst + k, size - k, i ? ", %lld" : "%lld", (long long)t->shape[i]);
    if (k < size)
        snprintf(dst + k, size - k, t->rank == 1 ? ",)" : ")");
}

/* numpy's dtype name of the array msprobe makes of a tensor of dtype (after its bfloat16
 * conversion; fp8 tensors are decoded to float32 here, see docs/COMPATIBILITY.md). */
static const char *numpy_name_of(pc_dtype dtype)
{
    if (dtype == PC_DTYPE_BF16 || dtype == PC_DTYPE_F8E4M3FN || dtype == PC_DTYPE_F8E5M2)
        return "float32";
    const char *name = pc_dtype_traits_of(dtype)->numpy_name;
    return name ? name : pc_dtype_name(dtype);
}

static bool is_np_float(pc_dtype t)
{
    return t == PC_DTYPE_F16 || t == PC_DTYPE_F32 || t == PC_DTYPE_F64 || t == PC_DTYPE_BF16 ||
           t == PC_DTYPE_F8E4M3FN || t == PC_DTYPE_F8E5M2;
}

/* msprobe's check_dtype_comparable on the numpy arrays. */
static bool dtype_comparable(pc_dtype b, pc_dtype d)
{
    if (is_np_float(b) && is_np_float(d))
        return true;
    bool b_bool = b == PC_DTYPE_BOOL || b == PC_DTYPE_U8;
    bool d_bool = d == PC_DTYPE_BOOL || d == PC_DTYPE_U8;
    if (b_bool && d_bool)
        return true;
    bool b_int = b == PC_DTYPE_I32 || b == PC_DTYPE_I64;
    bool d_int = d == PC_DTYPE_I32 || d == PC_DTYPE_I64;
    return b_int && d_int;
}

static int64_t load_integer(const void *data, pc_dtype dtype, int64_t i)
{
    switch (dtype) {
    case PC_DTYPE_BOOL:
    case PC_DTYPE_U8:
        return ((const uint8_t *)data)[i];
    case PC_DTYPE_I32:
        return ((const int32_t *)data)[i];
    case PC_DTYPE_I64:
        return ((const int64_t *)data)[i];
    default:
        return 0;
    }
}

static void decide(pc_detail_row *row, pc_metric metric, double value, double limit)
{
    row->decision = (pc_row_decision){(int)metric, value, limit};
}

static void legacy_status(pc_detail_row *row, pc_dtype D, const pc_metrics_result *m)
{
    pc_csv_cell *c = row->metrics;
    c[PC_METRIC_COSINE] = m->cosine;
    pc_cmp_row_append(row, "%s\n", m->cosine_message);
    if (m->cosine.kind == PC_CSV_F64)
        decide(row, PC_METRIC_COSINE, m->cosine.v.f64, 0.99);
    if (!m->cosine_pass) {
        pc_cmp_row_append(row, "Cosine similarity is less than 0.99, consider as error, skip other "
                               "check and set to SPACE.\n");
        row->status = PC_VERDICT_ERROR;
        return;
    }
    c[PC_METRIC_MAX_ABS_ERR] = m->max_abs_err;
    decide(row, PC_METRIC_MAX_ABS_ERR, m->max_abs_err_value, 0.001);
    if (m->max_abs_err_value < 0.001) {
        pc_cmp_row_append(row,
                          "Max abs error is less than 0.001, consider as pass, skip other check "
                          "and set to SPACE.\n");
        row->status = PC_VERDICT_PASS;
        return;
    }
    bool half = D == PC_DTYPE_F16 || D == PC_DTYPE_BF16;
    const double *ratio = m->rel_err_ratio;
    if (half) {
        c[PC_METRIC_REL_ERR_HUNDREDTH] = pc_csv_f64(ratio[0]);
        decide(row, PC_METRIC_REL_ERR_HUNDREDTH, ratio[0], 0.99);
        if (!(ratio[0] > 1.0 - 0.01)) {
            pc_cmp_row_append(row,
                              "Relative error is greater than 0.01, consider as error, skip other "
                              "check and set to SPACE.\n");
            row->status = PC_VERDICT_ERROR;
            return;
        }
    }
    c[PC_METRIC_REL_ERR_THOUSANDTH] = pc_csv_f64(ratio[1]);
    decide(row, PC_METRIC_REL_ERR_THOUSANDTH, ratio[1], 0.999);
    bool thousandth_pass = ratio[1] > 1.0 - 0.001;
    if (half) {
        if (thousandth_pass) {
            pc_cmp_row_append(row,
                              "Relative error is less than 0.001, consider as pass, skip other "
                              "check and set to SPACE.\n");
            row->status = PC_VERDICT_PASS;
        } else {
            pc_cmp_row_append(row,
                              "Relative error is greater than 0.001, consider as warning, skip "
                              "other check and set to SPACE.\n");
            row->status = PC_VERDICT_WARNING;
        }
        return;
    }
    c[PC_METRIC_REL_ERR_TEN_THOUSANDTH] = pc_csv_f64(ratio[2]);
    if (D == PC_DTYPE_F32 || D == PC_DTYPE_F64) {
        if (thousandth_pass)
            decide(row, PC_METRIC_REL_ERR_TEN_THOUSANDTH, ratio[2], 0.9999);
        if (!thousandth_pass) {
            pc_cmp_row_append(row, "Relative error is greater than 0.001, consider as error, skip "
                                   "other check and set to SPACE.\n");
            row->status = PC_VERDICT_ERROR;
        } else if (!(ratio[2] > 1.0 - 0.0001)) {
            pc_cmp_row_append(row,
                              "Relative error is greater than 0.0001, consider as warning, skip "
                              "other check and set to SPACE.\n");
            row->status = PC_VERDICT_WARNING;
        } else {
            pc_cmp_row_append(row, "Relative error is less than 0.0001, consider as pass.\n");
            row->status = PC_VERDICT_PASS;
        }
        return;
    }
    row->status = PC_VERDICT_PASS;
}

static bool has_new_standard(pc_dtype D)
{
    return D == PC_DTYPE_F16 || D == PC_DTYPE_BF16 || D == PC_DTYPE_F32 || D == PC_DTYPE_F8E4M3FN ||
           D == PC_DTYPE_F8E5M2;
}

static pc_status float_path(pc_detail_row *row, const char *api_name, const pc_tensor *b,
                            const pc_tensor *d, pc_dtype D, const pc_compare_options *opt)
{
    pc_metrics_input in = {
        .bench = pc_tensor_data(b),
        .bench_dtype = b->dtype,
        .device = pc_tensor_data(d),
        .device_dtype = d->dtype,
        .n = pc_tensor_numel(d),
        .output_dtype = D,
        .zero_dim = d->rank == 0,
        .standard = PC_STANDARD_COUNT,
        .threads = opt ? opt->threads : 0,
        .cosine_blas_order = opt && opt->cosine_blas_order,
    };
    if (has_new_standard(D))
        in.standard = pc_standard_select_dtype(api_name, D, opt && opt->inputs_fp8);
    else
        pc_cmp_row_append(row, "The data type %s is not supported for new precision standard.",
                          pc_dtype_torch_name(D));
    pc_metrics_result m;
    pc_status st = pc_metrics_compute(&in, &m);
    if (st != PC_OK)
        return st;
    for (int i = 0; i < PC_METRIC_COUNT; i++)
        if (m.cells[i].kind != PC_CSV_SPACE)
            row->metrics[i] = m.cells[i];
    legacy_status(row, D, &m);
    return PC_OK;
}

static void binary_path(pc_detail_row *row, const pc_tensor *b, const pc_tensor *d)
{
    int64_t n = pc_tensor_numel(b), neq = 0;
    const void *bd = pc_tensor_data(b), *dd = pc_tensor_data(d);
    for (int64_t i = 0; i < n; i++)
        neq += load_integer(bd, b->dtype, i) != load_integer(dd, d->dtype, i);
    double rate = (double)neq / (double)n;
    row->metrics[PC_METRIC_ERROR_RATE] = pc_csv_f64(rate);
    row->status = rate == 0 ? PC_VERDICT_PASS : PC_VERDICT_ERROR;
    decide(row, PC_METRIC_ERROR_RATE, rate, 0);
    pc_cmp_row_append(
        row, "Compare algorithm is not supported for %s data. Only judged by Error Rate.\n",
        numpy_name_of(b->dtype));
}

/* The arrays numpy would hold: contiguous, bfloat16 outputs as float32 (the bench converted,
 * the device read as float32 by the kernels), fp8 decoded to float32. */
static pc_status numpy_arrays(pc_tensor *b, pc_tensor *d, const pc_tensor *bench,
                              const pc_tensor *device)
{
    pc_status st;
    if (device->dtype == PC_DTYPE_BF16) {
        st = bench->dtype == PC_DTYPE_F32 ? pc_tensor_contiguous(b, bench)
                                          : pc_tensor_cast(b, bench, PC_DTYPE_F32);
        if (st == PC_OK)
            st = pc_tensor_contiguous(d, device);
        return st;
    }
    if (bench->dtype == PC_DTYPE_BF16)
        return pc_error_set(PC_ERR_UNSUPPORTED, "Got unsupported ScalarType BFloat16");
    bool b8 = bench->dtype == PC_DTYPE_F8E4M3FN || bench->dtype == PC_DTYPE_F8E5M2;
    bool d8 = device->dtype == PC_DTYPE_F8E4M3FN || device->dtype == PC_DTYPE_F8E5M2;
    st = b8 ? pc_tensor_cast(b, bench, PC_DTYPE_F32) : pc_tensor_contiguous(b, bench);
    if (st == PC_OK)
        st = d8 ? pc_tensor_cast(d, device, PC_DTYPE_F32) : pc_tensor_contiguous(d, device);
    return st;
}

pc_status pc_cmp_compare_tensor(pc_detail_row *row, const char *api_name, const pc_tensor *bench,
                                const pc_tensor *device_in, const pc_compare_options *opt)
{
    pc_tensor fp16_device = PC_TENSOR_NULL;
    const pc_tensor *device = device_in;
    pc_status st = PC_OK;
    if (opt && opt->inputs_fp8 && device_in->dtype == PC_DTYPE_F32) {
        st = pc_tensor_cast(&fp16_device, device_in, PC_DTYPE_F16);
        if (st != PC_OK)
            return st;
        device = &fp16_device;
    }
    snprintf(row->bench_dtype, sizeof row->bench_dtype, "%s", pc_dtype_torch_name(bench->dtype));
    snprintf(row->device_dtype, sizeof row->device_dtype, "%s", pc_dtype_torch_name(device->dtype));
    pc_cmp_shape_tuple_text(row->shape, sizeof row->shape, device);

    pc_tensor b = PC_TENSOR_NULL, d = PC_TENSOR_NULL;
    st = numpy_arrays(&b, &d, bench, device);
    if (st != PC_OK)
        goto done;
    if (!pc_tensor_same_shape(bench, device)) {
        char sb[PC_SHAPE_FORMAT_MAX], sd[PC_SHAPE_FORMAT_MAX];
        pc_shape_format(sb, sizeof sb, bench->shape, bench->rank);
        pc_shape_format(sd, sizeof sd, device->shape, device->rank);
        row->status = PC_VERDICT_ERROR;
        pc_cmp_row_append(row, "The shape of benchtorch.Size(%s) and nputorch.Size(%s) not equal.",
                          sb, sd);
        goto done;
    }
    if (!dtype_comparable(b.dtype, d.dtype)) {
        row->status = PC_VERDICT_ERROR;
        pc_cmp_row_append(row, "Bench out dtype is %s but npu output dtype is %s, cannot compare.",
                          numpy_name_of(b.dtype), numpy_name_of(d.dtype));
        goto done;
    }
    if (pc_tensor_numel(&d) == 0) {
        row->status = PC_VERDICT_ERROR;
        pc_cmp_row_append(row, "There is not bench calculation result.");
        goto done;
    }
    if (pc_dtype_is_integral(b.dtype))
        binary_path(row, &b, &d);
    else
        st = float_path(row, api_name, &b, &d, device->dtype, opt);
done:
    pc_tensor_free(&b);
    pc_tensor_free(&d);
    pc_tensor_free(&fp16_device);
    return st;
}
