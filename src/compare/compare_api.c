/*
 * msprobe's output structure rules and per-API flow (docs/msprobe-contract.md#comparison):
 * _compare_core, _compare_core_wrapper, compare_output, the dropout rule, and the CSV rows they
 * produce.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_impl.h"
#include "precheck/core/convert.h"
#include "precheck/core/log.h"
#include "precheck/io/msprobe_csv.h"

/* ---- values ---- */

pc_cmp_value pc_cmp_none(void)
{
    return (pc_cmp_value){.kind = PC_CMP_NONE};
}

pc_cmp_value pc_cmp_tensor(const pc_tensor *t)
{
    return (pc_cmp_value){.kind = PC_CMP_TENSOR, .tensor = t};
}

pc_cmp_value pc_cmp_bool(bool b)
{
    return (pc_cmp_value){.kind = PC_CMP_BOOL, .i = b ? 1 : 0};
}

pc_cmp_value pc_cmp_int(int64_t i)
{
    return (pc_cmp_value){.kind = PC_CMP_INT, .i = i};
}

pc_cmp_value pc_cmp_float(double f)
{
    return (pc_cmp_value){.kind = PC_CMP_FLOAT, .f = f};
}

pc_cmp_value pc_cmp_str(const char *s)
{
    return (pc_cmp_value){.kind = PC_CMP_STR, .s = s};
}

pc_cmp_value pc_cmp_list(const pc_cmp_value *items, size_t count)
{
    return (pc_cmp_value){.kind = PC_CMP_LIST, .items = items, .count = count};
}

pc_cmp_value pc_cmp_tuple(const pc_cmp_value *items, size_t count)
{
    return (pc_cmp_value){.kind = PC_CMP_TUPLE, .items = items, .count = count};
}

static const char *const verdict_texts[] = {
    [PC_VERDICT_PASS] = "pass", [PC_VERDICT_WARNING] = "Warning", [PC_VERDICT_ERROR] = "error",
    [PC_VERDICT_SKIP] = "SKIP", [PC_VERDICT_SPACE] = " ",
};

const char *pc_verdict_text(pc_verdict v)
{
    return (unsigned)v <= PC_VERDICT_SPACE ? verdict_texts[v] : " ";
}

/* msprobe's user guide says: any error makes the API an error, else any Warning a Warning.
 * Its code lets the last non-pass item win instead ([error, Warning] gives Warning); precheck
 * follows the guide (docs/COMPATIBILITY.md). */
pc_verdict pc_verdict_aggregate(const pc_verdict *items, size_t n)
{
    pc_verdict total = PC_VERDICT_PASS;
    for (size_t i = 0; i < n; i++) {
        if (items[i] == PC_VERDICT_ERROR)
            return PC_VERDICT_ERROR;
        if (items[i] == PC_VERDICT_WARNING)
            total = PC_VERDICT_WARNING;
    }
    return total;
}

void pc_cmp_row_init(pc_detail_row *row)
{
    row->bench_dtype[0] = '\0';
    row->device_dtype[0] = '\0';
    row->shape[0] = '\0';
    for (int i = 0; i < PC_METRIC_COUNT; i++)
        row->metrics[i] = pc_csv_space();
    row->status = PC_VERDICT_PASS;
    row->message[0] = '\0';
    row->decision = (pc_row_decision){-1, 0, 0};
}

/* ---- one item: _compare_core ---- */

/* Python's type(x).__name__. */
static const char *type_name(const pc_cmp_value *v)
{
    switch (v->kind) {
    case PC_CMP_NONE:
        return "NoneType";
    case PC_CMP_TENSOR:
        return "Tensor";
    case PC_CMP_BOOL:
        return "bool";
    case PC_CMP_INT:
        return "int";
    case PC_CMP_FLOAT:
        return "float";
    case PC_CMP_STR:
        return "str";
    case PC_CMP_LIST:
        return "list";
    case PC_CMP_TUPLE:
        return "tuple";
    case PC_CMP_DICT:
        return "dict";
    case PC_CMP_OTHER:
        break;
    }
    return "object";
}

/* Python's repr of type(x): "<class 'int'>", "<class 'torch.Tensor'>". */
static void type_repr(char *dst, size_t size, const pc_cmp_value *v)
{
    if ((v->kind == PC_CMP_OTHER || v->kind == PC_CMP_TUPLE) && v->type_repr)
        snprintf(dst, size, "%s", v->type_repr);
    else if (v->kind == PC_CMP_TENSOR)
        snprintf(dst, size, "<class 'torch.Tensor'>");
    else
        snprintf(dst, size, "<class '%s'>", type_name(v));
}

/* isinstance(bench, type(device)). */
static bool is_instance(const pc_cmp_value *bench, const pc_cmp_value *device)
{
    if (device->kind == PC_CMP_INT) /* bool is a subclass of int */
        return bench->kind == PC_CMP_INT || bench->kind == PC_CMP_BOOL;
    if (bench->kind != device->kind)
        return false;
    if (device->kind == PC_CMP_OTHER || device->kind == PC_CMP_TUPLE) {
        const char *a = bench->type_repr ? bench->type_repr : "";
        const char *b = device->type_repr ? device->type_repr : "";
        return strcmp(a, b) == 0;
    }
    return true;
}

static bool same_key_sets(const pc_cmp_value *a, const pc_cmp_value *b)
{
    for (int pass = 0; pass < 2; pass++) {
        const pc_cmp_value *x = pass ? b : a, *y = pass ? a : b;
        for (size_t i = 0; i < x->count; i++) {
            bool found = false;
            for (size_t j = 0; j < y->count && !found; j++)
                found = strcmp(x->keys[i], y->keys[j]) == 0;
            if (!found)
                return false;
        }
    }
    return true;
}

static bool builtin_equal(const pc_cmp_value *b, const pc_cmp_value *d)
{
    switch (b->kind) {
    case PC_CMP_BOOL:
    case PC_CMP_INT:
        return b->i == d->i;
    case PC_CMP_FLOAT:
        return b->f == d->f;
    case PC_CMP_STR:
        return strcmp(b->s ? b->s : "", d->s ? d->s : "") == 0;
    default:
        return false;
    }
}

pc_status pc_compare_item(pc_detail_row *row, const char *api_name, const pc_cmp_value *bench,
                          const pc_cmp_value *device, const pc_compare_options *opt)
{
    pc_cmp_row_init(row);
    if (!is_instance(bench, device)) {
        row->status = PC_VERDICT_ERROR;
        pc_cmp_row_append(row, "bench and npu output type is different.");
        return PC_OK;
    }
    char repr[PC_DTYPE_TEXT_MAX];
    switch (bench->kind) {
    case PC_CMP_DICT:
        row->status = PC_VERDICT_ERROR;
        if (!same_key_sets(bench, device))
            pc_cmp_row_append(row, "bench and npu output dict keys are different.");
        else /* msprobe passes the values on as a list, which _compare_core does not take */
            pc_cmp_row_append(row, "Unexpected output type in compare_core: <class 'list'>");
        return PC_OK;
    case PC_CMP_TENSOR:
        return pc_cmp_compare_tensor(row, api_name, bench->tensor, device->tensor, opt);
    case PC_CMP_BOOL:
    case PC_CMP_INT:
    case PC_CMP_FLOAT:
    case PC_CMP_STR:
        type_repr(row->bench_dtype, sizeof row->bench_dtype, bench);
        type_repr(row->device_dtype, sizeof row->device_dtype, device);
        if (builtin_equal(bench, device)) {
            row->metrics[PC_METRIC_ERROR_RATE] = pc_csv_int(0);
            row->status = PC_VERDICT_PASS;
        } else {
            row->status = PC_VERDICT_ERROR;
        }
        row->decision =
            (pc_row_decision){PC_METRIC_ERROR_RATE, row->status == PC_VERDICT_PASS ? 0.0 : 1.0, 0};
        return PC_OK;
    case PC_CMP_NONE:
        row->status = PC_VERDICT_SKIP;
        pc_cmp_row_append(row, "Bench output is None, skip this test.");
        return PC_OK;
    case PC_CMP_LIST:
    case PC_CMP_TUPLE:
    case PC_CMP_OTHER:
        break;
    }
    type_repr(repr, sizeof repr, bench);
    row->status = PC_VERDICT_ERROR;
    pc_cmp_row_append(row, "Unexpected output type in compare_core: %s", repr);
    return PC_OK;
}

/* ---- the dropout rule ---- */

static int64_t count_zeros(const pc_tensor *t)
{
    int64_t n = pc_tensor_numel(t), zeros = 0;
    if (n == 0)
        return 0;
    if (pc_tensor_is_contiguous(t)) { /* the usual case, without the element-wise walk */
        const void *data = pc_tensor_data(t);
        switch (t->dtype) {
        case PC_DTYPE_F32:
            for (int64_t k = 0; k < n; k++)
                zeros += ((const float *)data)[k] == 0.0f;
            return zeros;
        case PC_DTYPE_F64:
            for (int64_t k = 0; k < n; k++)
                zeros += ((const double *)data)[k] == 0.0;
            return zeros;
        case PC_DTYPE_F16:
        case PC_DTYPE_BF16: /* +0 and -0: every bit but the sign clear */
            for (int64_t k = 0; k < n; k++)
                zeros += (((const uint16_t *)data)[k] & 0x7FFFu) == 0;
            return zeros;
        default:
            break;
        }
    }
    int64_t index[PC_TENSOR_MAX_DIMS] = {0};
    for (int64_t k = 0; k < n; k++) {
        double re, im;
        pc_element_load(pc_tensor_element_ptr(t, t->rank ? index : NULL), t->dtype, &re, &im);
        zeros += re == 0 && im == 0;
        for (int i = t->rank - 1; i >= 0; i--) {
            if (++index[i] < t->shape[i])
                break;
            index[i] = 0;
        }
    }
    return zeros;
}

pc_verdict pc_compare_dropout(const pc_tensor *bench, const pc_tensor *device)
{
    int64_t n = pc_tensor_numel(bench);
    if (n < 100)
        return PC_VERDICT_PASS;
    int64_t diff = count_zeros(bench) - count_zeros(device);
    if (diff < 0)
        diff = -diff;
    return (double)diff / (double)n < 0.1 ? PC_VERDICT_PASS : PC_VERDICT_ERROR;
}

/* ---- structure: _compare_core_wrapper ---- */

typedef struct direction {
    pc_verdict status;
    pc_detail_row *rows;
    size_t count;
    /* msprobe raised: the API is a SKIP record with this message */
    bool raised;
    char message[PC_MESSAGE_MAX];
} direction;

static void raise_msg(direction *dir, const char *fmt, const char *arg)
{
    dir->raised = true;
    snprintf(dir->message, sizeof dir->message, fmt, arg);
}

static pc_status compare_wrapper(direction *dir, const char *api_name, const pc_cmp_value *bench,
                                 const pc_cmp_value *device, const pc_compare_options *opt)
{
    bool seq = bench->kind == PC_CMP_LIST || bench->kind == PC_CMP_TUPLE;
    size_t n = 1;
    if (seq) {
        if (device->kind != PC_CMP_LIST && device->kind != PC_CMP_TUPLE) {
            raise_msg(dir, "%s", "bench and npu output structure is different.");
            return PC_OK;
        }
        if (bench->count > device->count) {
            /* msprobe means to write an error row here but indexes past its lists */
            raise_msg(dir, "%s", "list index out of range");
            return PC_OK;
        }
        n = bench->count;
    }
    dir->rows = n ? calloc(n, sizeof *dir->rows) : NULL;
    if (n && !dir->rows)
        return pc_error_set(PC_ERR_NOMEM, "compare: cannot allocate %zu rows", n);
    dir->count = n;
    pc_verdict *statuses = n ? malloc(n * sizeof *statuses) : NULL;
    if (n && !statuses)
        return pc_error_set(PC_ERR_NOMEM, "compare: cannot allocate %zu rows", n);
    pc_status st = PC_OK;
    for (size_t i = 0; i < n && st == PC_OK; i++) {
        const pc_cmp_value *b = seq ? &bench->items[i] : bench;
        const pc_cmp_value *d = seq ? &device->items[i] : device;
        st = pc_compare_item(&dir->rows[i], api_name, b, d, opt);
        if (st == PC_ERR_UNSUPPORTED) {
            raise_msg(dir, "%s", pc_error_message());
            pc_error_clear();
            st = PC_OK;
            break;
        }
        statuses[i] = dir->rows[i].status;
    }
    if (st == PC_OK && !dir->raised)
        dir->status = pc_verdict_aggregate(statuses, n);
    free(statuses);
    return st;
}

/* The dropout rule as msprobe calls it, with the exceptions its Python raises on non-tensors. */
static void compare_dropout_values(direction *dir, const pc_cmp_value *bench,
                                   const pc_cmp_value *device)
{
    if (bench->kind != PC_CMP_TENSOR) {
        raise_msg(dir, "'%s' object has no attribute 'numel'", type_name(bench));
        return;
    }
    if (pc_tensor_numel(bench->tensor) >= 100 && device->kind != PC_CMP_TENSOR) {
        /* (device == 0) is a plain bool for anything but a tensor */
        raise_msg(dir, "%s", "'bool' object has no attribute 'cpu'");
        return;
    }
    dir->status = device->kind == PC_CMP_TENSOR ? pc_compare_dropout(bench->tensor, device->tensor)
                                                : PC_VERDICT_PASS;
    if (dir->status == PC_VERDICT_PASS)
        return; /* msprobe writes no row for dropout; a pass needs no reason */
    /* an error says what the rule saw, in the one row a verdict always comes with */
    dir->rows = calloc(1, sizeof *dir->rows);
    if (!dir->rows)
        return; /* the result row still has the verdict */
    pc_detail_row *row = &dir->rows[0];
    pc_cmp_row_init(row);
    const pc_tensor *b = bench->tensor, *d = device->tensor;
    snprintf(row->bench_dtype, sizeof row->bench_dtype, "%s", pc_dtype_torch_name(b->dtype));
    snprintf(row->device_dtype, sizeof row->device_dtype, "%s", pc_dtype_torch_name(d->dtype));
    pc_cmp_shape_tuple_text(row->shape, sizeof row->shape, d);
    row->status = dir->status;
    int64_t n = pc_tensor_numel(b), zb = count_zeros(b), zd = count_zeros(d);
    pc_cmp_row_append(row,
                      "dropout rule: %lld of %lld elements are zero on the bench (%.1f%%), %lld "
                      "on the device (%.1f%%); the fractions must differ by less than 10%%.",
                      (long long)zb, (long long)n, 100.0 * (double)zb / (double)n, (long long)zd,
                      100.0 * (double)zd / (double)n);
    dir->count = 1;
}

static void direction_free(direction *dir)
{
    free(dir->rows);
    dir->rows = NULL;
    dir->count = 0;
}

/* ---- one API: compare_output ---- */

void pc_api_result_free(pc_api_result *res)
{
    free(res->full_name);
    free(res->fwd_rows);
    free(res->bwd_rows);
    free(res->error_data_error);
    for (char *t = res->owned_text; t;) {
        char *next;
        memcpy(&next, t, sizeof next);
        free(t);
        t = next;
    }
    *res = PC_API_RESULT_INIT;
}

static char *copy_text(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

pc_status pc_api_result_skip(pc_api_result *res, const char *full_api_name, const char *message)
{
    pc_api_result_free(res);
    res->full_name = copy_text(full_api_name);
    res->fwd_rows = calloc(1, sizeof *res->fwd_rows);
    if (!res->full_name || !res->fwd_rows) {
        pc_api_result_free(res);
        return pc_error_set(PC_ERR_NOMEM, "compare: cannot allocate the SKIP record of %s",
                            full_api_name);
    }
    pc_cmp_row_init(&res->fwd_rows[0]);
    res->fwd_rows[0].status = PC_VERDICT_SKIP;
    if (!message || !*message) {
        /* every SKIP says why: an empty reason is a bug of ours, said as such */
        message = "precheck gave no reason for this SKIP (a bug: please report it with the API's "
                  "dump entry)";
        pc_log_warning("%s: %s", full_api_name, message);
    }
    snprintf(res->fwd_rows[0].message, sizeof res->fwd_rows[0].message, "%s", message);
    res->n_fwd = 1;
    res->forward = PC_VERDICT_SKIP;
    res->backward = PC_VERDICT_SKIP;
    return PC_OK;
}

/* The basic API name of "Type.name.idx" or "Type.pre.name.idx"; false for any other shape. */
static bool basic_api_name(const char *full, char *dst, size_t size)
{
    const char *parts[5];
    size_t lens[5];
    int count = 0;
    const char *p = full;
    while (count < 5) {
        const char *dot = strchr(p, '.');
        parts[count] = p;
        lens[count] = dot ? (size_t)(dot - p) : strlen(p);
        count++;
        if (!dot)
            break;
        p = dot + 1;
    }
    if (count == 5)
        return false;
    if (count == 3)
        snprintf(dst, size, "%.*s", (int)lens[1], parts[1]);
    else if (count == 4)
        snprintf(dst, size, "%.*s.%.*s", (int)lens[1], parts[1], (int)lens[2], parts[2]);
    else
        return false;
    return true;
}

static bool has_items(const pc_cmp_value *v)
{
    return v && (v->kind == PC_CMP_LIST || v->kind == PC_CMP_TUPLE) && v->count > 0;
}

pc_status pc_compare_api(pc_api_result *res, const char *full_api_name,
                         const pc_api_outputs *outputs, const pc_compare_options *opt)
{
    char api_name[256];
    if (!basic_api_name(full_api_name, api_name, sizeof api_name)) {
        char msg[PC_MESSAGE_MAX];
        snprintf(msg, sizeof msg, "API name %s has not been adapted.", full_api_name);
        return pc_api_result_skip(res, full_api_name, msg);
    }
    bool dropout = strstr(full_api_name, "dropout") != NULL;
    direction fwd = {0}, bwd = {0};
    pc_cmp_value none = pc_cmp_none();
    const pc_cmp_value *bo = outputs->bench_output ? outputs->bench_output : &none;
    const pc_cmp_value *dv = outputs->device_output ? outputs->device_output : &none;
    pc_status st = PC_OK;
    if (dropout)
        compare_dropout_values(&fwd, bo, dv);
    else
        st = compare_wrapper(&fwd, api_name, bo, dv, opt);

    bool grads = has_items(outputs->bench_grads) && has_items(outputs->device_grads);
    if (st == PC_OK && !fwd.raised && grads) {
        if (dropout)
            compare_dropout_values(&bwd, &outputs->bench_grads->items[0],
                                   &outputs->device_grads->items[0]);
        else
            st = compare_wrapper(&bwd, api_name, outputs->bench_grads, outputs->device_grads, opt);
    }
    if (st != PC_OK) {
        direction_free(&fwd);
        direction_free(&bwd);
        pc_api_result_free(res);
        return st;
    }
    if (fwd.raised || bwd.raised) {
        st = pc_api_result_skip(res, full_api_name, fwd.raised ? fwd.message : bwd.message);
        direction_free(&fwd);
        direction_free(&bwd);
        return st;
    }

    pc_api_result_free(res);
    res->full_name = copy_text(full_api_name);
    if (!res->full_name) {
        direction_free(&fwd);
        direction_free(&bwd);
        return pc_error_set(PC_ERR_NOMEM, "compare: cannot allocate a name");
    }
    res->forward = fwd.status;
    if (!dropout || fwd.rows) {
        res->fwd_rows = fwd.rows;
        res->n_fwd = fwd.count;
        fwd.rows = NULL;
    }
    const char *bmsg = outputs->backward_message;
    if (bmsg && *bmsg) {
        direction_free(&bwd);
        res->bwd_rows = calloc(1, sizeof *res->bwd_rows);
        if (!res->bwd_rows) {
            direction_free(&fwd);
            pc_api_result_free(res);
            return pc_error_set(PC_ERR_NOMEM, "compare: cannot allocate a row");
        }
        pc_cmp_row_init(&res->bwd_rows[0]);
        res->bwd_rows[0].status = PC_VERDICT_SKIP;
        snprintf(res->bwd_rows[0].message, sizeof res->bwd_rows[0].message, "%s", bmsg);
        res->n_bwd = 1;
        res->backward = PC_VERDICT_SKIP;
    } else if (grads) {
        res->backward = bwd.status;
        if (!dropout || bwd.rows) {
            res->bwd_rows = bwd.rows;
            res->n_bwd = bwd.count;
            bwd.rows = NULL;
        }
    } else {
        res->backward = PC_VERDICT_SPACE;
    }
    direction_free(&fwd);
    direction_free(&bwd);
    return PC_OK;
}

/* ---- CSV ---- */

/* The headers are msprobe's (io/msprobe_csv.h). */
_Static_assert(PC_DETAILS_COLUMNS == PC_MCSV_DETAILS_COLUMNS, "run_ut's details columns");
_Static_assert(PC_RESULT_COLUMNS == PC_MCSV_RESULT_COLUMNS, "run_ut's result columns");

const char *pc_details_column(size_t i)
{
    return pc_mcsv_column(PC_MCSV_DETAILS, i);
}

const char *pc_result_column(size_t i)
{
    return pc_mcsv_column(PC_MCSV_RESULT, i);
}

pc_status pc_details_header_append(pc_csv_buffer *buf)
{
    return pc_csv_append_text_row(buf, pc_mcsv_header(PC_MCSV_DETAILS, NULL), PC_DETAILS_COLUMNS);
}

pc_status pc_result_header_append(pc_csv_buffer *buf)
{
    return pc_csv_append_text_row(buf, pc_mcsv_header(PC_MCSV_RESULT, NULL), PC_RESULT_COLUMNS);
}

static pc_csv_cell text_or_space(const char *s)
{
    return *s ? pc_csv_text(s) : pc_csv_space();
}

void pc_detail_row_cells(const pc_detail_row *row, const char *name,
                         pc_csv_cell cells[PC_DETAILS_COLUMNS])
{
    cells[0] = pc_csv_text(name);
    cells[1] = text_or_space(row->bench_dtype);
    cells[2] = text_or_space(row->device_dtype);
    cells[3] = text_or_space(row->shape);
    for (int i = 0; i < PC_METRIC_COUNT; i++)
        cells[4 + i] = row->metrics[i];
    cells[21] = pc_csv_text(pc_verdict_text(row->status));
    cells[22] = pc_csv_text(row->message);
}

static pc_status append_rows(pc_csv_buffer *buf, const char *full, bool backward,
                             const pc_detail_row *rows, size_t n, int precision)
{
    size_t size = strlen(full) + 48;
    char *name = malloc(size);
    if (!name)
        return pc_error_set(PC_ERR_NOMEM, "compare: cannot allocate a row name");
    pc_status st = PC_OK;
    for (size_t i = 0; i < n && st == PC_OK; i++) {
        pc_mcsv_row_name(name, size, full, backward, i);
        pc_csv_cell cells[PC_DETAILS_COLUMNS];
        pc_detail_row_cells(&rows[i], name, cells);
        st = pc_csv_append_row(buf, cells, PC_DETAILS_COLUMNS, precision);
    }
    free(name);
    return st;
}

pc_status pc_api_result_append_csv(const pc_api_result *res, pc_csv_buffer *details,
                                   pc_csv_buffer *result, int precision)
{
    const char *full = res->full_name ? res->full_name : "";
    pc_status st = PC_OK;
    if (details) {
        size_t mark = details->len;
        st = append_rows(details, full, false, res->fwd_rows, res->n_fwd, precision);
        if (st == PC_OK)
            st = append_rows(details, full, true, res->bwd_rows, res->n_bwd, precision);
        if (st != PC_OK) {
            details->len = mark;
            if (details->data)
                details->data[mark] = '\0';
            return st;
        }
    }
    if (result) {
        pc_csv_cell cells[4] = {pc_csv_text(full), pc_csv_text(pc_verdict_text(res->forward)),
                                pc_csv_text(pc_verdict_text(res->backward))};
        size_t n = 3;
        if (res->forward == PC_VERDICT_SKIP && res->n_fwd > 0) {
            cells[n++] = pc_csv_text(res->fwd_rows[0].message);
        } else if (res->backward == PC_VERDICT_SKIP && res->n_bwd > 0) {
            cells[n++] = pc_csv_text(res->bwd_rows[0].message);
        }
        st = pc_csv_append_row(result, cells, n, precision);
    }
    return st;
}
