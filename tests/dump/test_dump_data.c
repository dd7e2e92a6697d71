/* The real tensors of the real dumps against their records: every file loads with the dtype
 * and shape the record states, and its Max and Min equal the record's exactly (Mean and Norm
 * within float rounding, or loosely where torch's reduction cannot be reproduced). Plus the
 * errors a broken or tampered dump gives. */
#include "pc_test.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "precheck/io/file_out.h"
#include "precheck/core/convert.h"
#include "precheck/dump/data.h"
#include "precheck/io/pt.h"

typedef struct tally {
    int tensors, with_file, failures, loose_count;
    const pc_dump *dump;
    char loose[2048];
} tally;

/* "L" for a low-precision reduction, "O" for an overflowed float32 sum */
static const char *loose_letters(unsigned loose)
{
    static const char *const letters[] = {"", "L", "O", "LO"};
    return letters[loose & 3u];
}

static int check_one(void *ctx, const pc_dump_api *api, const pc_dump_arg *arg)
{
    tally *t = ctx;
    t->tensors++;
    if (!pc_dump_tensor_file(arg->u.tensor))
        return 0;
    t->with_file++;
    unsigned loose = 0;
    pc_status st = pc_dump_check_tensor_file(t->dump, api, arg, &loose);
    if (!st && loose) {
        char where[128];
        pc_dump_arg_path(api, arg, where, sizeof where);
        size_t n = strlen(t->loose);
        snprintf(t->loose + n, sizeof t->loose - n, "%s %s %s;", api->full_name, where,
                 loose_letters(loose));
        t->loose_count++;
    }
    if (st) {
        fprintf(stderr, "%s\n", pc_error_message());
        t->failures++;
    }
    return 0;
}

static void check_path(const char *path, const char *name, int want_files, const char *want_loose)
{
    pc_dump *dump = NULL;
    assert_int_equal(pc_dump_open(&dump, path), PC_OK);
    tally t = {.dump = dump};
    for (size_t i = 0; i < dump->api_count; i++)
        assert_int_equal(pc_dump_visit_tensors(&dump->apis[i], check_one, &t), 0);
    printf("%s: %d tensor records, %d with files, %d failures\n", name, t.tensors, t.with_file,
           t.failures);
    assert_int_equal(t.failures, 0);
    assert_int_equal(t.with_file, want_files);
    assert_string_equal(t.loose, want_loose);
    pc_dump_free(dump);
}

static void check_dump(const char *name, int want_files, const char *want_loose)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/msprobe/dumps/%s/step0/rank/dump.json", PC_TEST_FIXTURES, name);
    check_path(path, name, want_files, want_loose);
}

/* Norms equal only within a bfloat16 reduction's error (L). The q/k/v split outputs and their
 * transposes were strided views of the qkv projection when msprobe took their statistics:
 * torch 1.13 reduces those in bfloat16 (the real gpt_bf16_tensor: 12.6875 where the saved
 * contiguous copy gives 13.3125, checked with torch). */
#define SPLIT_VIEWS_LOOSE                                                                          \
    "Tensor.split.0 output[0] L;Tensor.split.0 output[1] L;Tensor.split.0 output[2] L;"            \
    "Tensor.transpose.0 input_args[0] L;Tensor.transpose.0 output[0] L;"                           \
    "Tensor.transpose.1 input_args[0] L;Tensor.transpose.1 output[0] L;"                           \
    "Tensor.transpose.2 input_args[0] L;Tensor.transpose.2 output[0] L;"                           \
    "Tensor.transpose.3 input_args[0] L;Tensor.transpose.3 output[0] L;"                           \
    "Torch.matmul.0 input_args[0] L;Torch.matmul.0 input_args[1] L;"                               \
    "Torch.matmul.1 input_args[1] L;"

/* Numbers of records with files = the .pt files in each dump_tensor_data folder. */
static void test_real_dumps(void **state)
{
    (void)state;
    check_dump("gpt_tensor", 209, "");
    check_dump("gpt_bf16_tensor", 209, SPLIT_VIEWS_LOOSE);
    check_dump("cnn_tensor", 74, "");
    /* torch's float16 norm of these gradients is 0.2548828125, float64 gives 0.25406 */
    check_dump("ew_fp16_tensor", 54,
               "Tensor.pow.0 backward input[0] L;Tensor.mean.0 backward output[0] L;");
    check_dump("gpt_stats", 0, "");
}

/*
 * Dumps of one attention layer written by tools/trace_dump.py --tensor as msprobe's dumper
 * writes them (fixtures/check_dump/README.md). attn_mask_fp32: transformers' causal mask holds
 * finfo(float32).min, torch's float32 sums of it overflow, and msprobe records Mean -inf for
 * every tensor holding it (17 of them): a float32 sum of these values must overflow, so that
 * is a match, not even a warning. attn_bf16: torch 1.13 reduces the q/k/v split views (and
 * their transposes) in bfloat16 and records a Norm 10 % low (15.75 where the data give 17.5):
 * loose, warned. Before the rules of pc_dump_verify_stats, these were 17 and 31 errors.
 */
static void test_traced_dumps(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/check_dump/attn_mask_fp32/dump.json", PC_TEST_FIXTURES);
    check_path(path, "attn_mask_fp32", 108, "");
    snprintf(path, sizeof path, "%s/check_dump/attn_bf16/dump.json", PC_TEST_FIXTURES);
    check_path(path, "attn_bf16", 108, SPLIT_VIEWS_LOOSE);
}

/* ---- tampered copies of the traced dumps: still errors ---- */

typedef struct find_file {
    const char *file;
    const pc_dump_arg *arg;
} find_file;

static int find_arg(void *ctx, const pc_dump_api *api, const pc_dump_arg *arg)
{
    (void)api;
    find_file *f = ctx;
    const char *name = pc_dump_tensor_file(arg->u.tensor);
    if (name && strcmp(name, f->file) == 0) {
        f->arg = arg;
        return 1;
    }
    return 0;
}

/* Checks the argument of api whose file is file in the dump at dir; the message stays in
 * pc_error_message(). */
static pc_status check_file_of(const char *dir, const char *api_name, const char *file,
                               unsigned *loose)
{
    char path[1024];
    PC_TEST_FMT(path, "%s/dump.json", dir);
    pc_dump *dump = NULL;
    assert_int_equal(pc_dump_open(&dump, path), PC_OK);
    const pc_dump_api *api = pc_dump_find(dump, api_name);
    assert_non_null(api);
    find_file f = {.file = file};
    assert_int_equal(pc_dump_visit_tensors(api, find_arg, &f), 1);
    pc_status st = pc_dump_check_tensor_file(dump, api, f.arg, loose);
    pc_dump_free(dump);
    return st;
}

/* The values of a tensor file as doubles (a fresh float64 tensor) */
static void load_f64(const char *path, pc_tensor *out, pc_dtype *dtype)
{
    pc_tensor t = PC_TENSOR_NULL;
    assert_int_equal(pc_pt_read_file(path, &t, NULL), PC_OK);
    *dtype = t.dtype;
    assert_int_equal(pc_tensor_cast(out, &t, PC_DTYPE_F64), PC_OK);
    pc_tensor_free(&t);
}

/* Writes the doubles v (exact in dtype) as the tensor file at path */
static void store(const char *path, const pc_tensor *v, pc_dtype dtype)
{
    pc_tensor t = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_cast(&t, v, dtype), PC_OK);
    assert_int_equal(pc_pt_write_file(path, &t, PC_FILE_OUT_REPLACE), PC_OK);
    pc_tensor_free(&t);
}

static void expect_error(pc_status st, const char *want)
{
    assert_int_not_equal(st, PC_OK);
    if (!strstr(pc_error_message(), want)) {
        print_error("message \"%s\" lacks \"%s\"\n", pc_error_message(), want);
        fail();
    }
}

static void test_tampered_files(void **state)
{
    (void)state;
    char tmp[512], dir[600], data[700], src[1024], dst[1024], cmd[2048];
    assert_non_null(pc_test_tmpdir(tmp, sizeof tmp));
    pc_tensor v = PC_TENSOR_NULL;
    pc_dtype dtype;
    unsigned loose = 0;

    /* The mask after masked_fill (Max 0, Min finfo.min, Mean -inf): all but one finfo.min
     * turned into 0. Max and Min stay; a float32 sum of one finfo.min cannot overflow. */
    PC_TEST_FMT(dir, "%s/mask", tmp);
    PC_TEST_FMT(cmd, "cp -r '%s/check_dump/attn_mask_fp32' '%s'", PC_TEST_FIXTURES, dir);
    assert_int_equal(system(cmd), 0);
    PC_TEST_FMT(data, "%s/dump_tensor_data", dir);
    const char *mask = "Tensor.masked_fill.0.forward.output.0.pt";
    assert_int_equal(check_file_of(dir, "Tensor.masked_fill.0", mask, &loose), PC_OK);
    assert_int_equal(loose, 0);
    PC_TEST_FMT(dst, "%s/%s", data, mask);
    load_f64(dst, &v, &dtype);
    double *x = pc_tensor_data(&v);
    int64_t n = pc_tensor_numel(&v), kept = 0;
    for (int64_t i = 0; i < n; i++)
        if (x[i] == -(double)FLT_MAX && kept++)
            x[i] = 0.0;
    assert_true(kept > 1);
    store(dst, &v, dtype);
    pc_tensor_free(&v);
    expect_error(check_file_of(dir, "Tensor.masked_fill.0", mask, NULL),
                 "Mean: the record says -inf");

    /* One value of a float32 linear output changed: Max */
    const char *lin = "Functional.linear.0.forward.output.0.pt";
    PC_TEST_FMT(dst, "%s/%s", data, lin);
    load_f64(dst, &v, &dtype);
    ((double *)pc_tensor_data(&v))[5] = 100.0;
    store(dst, &v, dtype);
    pc_tensor_free(&v);
    expect_error(check_file_of(dir, "Functional.linear.0", lin, NULL), "Max: the record says");

    /* A truncated file */
    PC_TEST_FMT(dst, "%s/Functional.linear.1.forward.output.0.pt", data);
    assert_int_equal(truncate(dst, 300), 0);
    expect_error(
        check_file_of(dir, "Functional.linear.1", "Functional.linear.1.forward.output.0.pt", NULL),
        "Functional.linear.1: output[0]");

    /* The bfloat16 q view (Norm 15.75 loosely): q's file swapped with k's */
    PC_TEST_FMT(dir, "%s/bf16", tmp);
    PC_TEST_FMT(cmd, "cp -r '%s/check_dump/attn_bf16' '%s'", PC_TEST_FIXTURES, dir);
    assert_int_equal(system(cmd), 0);
    PC_TEST_FMT(data, "%s/dump_tensor_data", dir);
    const char *q = "Tensor.split.0.forward.output.0.pt";
    assert_int_equal(check_file_of(dir, "Tensor.split.0", q, &loose), PC_OK);
    assert_int_equal(loose, PC_STATS_LOOSE_LOW_PRECISION);
    PC_TEST_FMT(src, "%s/Tensor.split.0.forward.output.1.pt", data);
    PC_TEST_FMT(dst, "%s/%s", data, q);
    PC_TEST_FMT(cmd, "cp '%s' '%s.orig' && cp '%s' '%s'", dst, dst, src, dst);
    assert_int_equal(system(cmd), 0);
    expect_error(check_file_of(dir, "Tensor.split.0", q, NULL), "the record says");

    /* ... and q with every value but its largest and its smallest divided by 8: Max and Min
     * stay, the Norm falls below what even a bfloat16 reduction gives */
    PC_TEST_FMT(src, "%s.orig", dst);
    load_f64(src, &v, &dtype);
    x = pc_tensor_data(&v);
    n = pc_tensor_numel(&v);
    int64_t imax = 0, imin = 0;
    for (int64_t i = 1; i < n; i++) {
        imax = x[i] > x[imax] ? i : imax;
        imin = x[i] < x[imin] ? i : imin;
    }
    for (int64_t i = 0; i < n; i++)
        if (i != imax && i != imin)
            x[i] = pc_round_to_dtype(x[i] / 8.0, dtype);
    store(dst, &v, dtype);
    pc_tensor_free(&v);
    expect_error(check_file_of(dir, "Tensor.split.0", q, NULL), "Norm: the record says 15.75");

    PC_TEST_FMT(cmd, "rm -rf '%s'", tmp);
    assert_int_equal(system(cmd), 0);
}

/* A dump with one record changed: Max off by one ulp, a wrong shape, a missing file. */
static void test_broken_records(void **state)
{
    (void)state;
    char dir[512], sub[600], path[700], src[1024];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    snprintf(sub, sizeof sub, "%s/dump_tensor_data", dir);
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s' && cp '%s/msprobe/dumps/ew_fp16_tensor/step0/rank/"
             "dump_tensor_data/Tensor.__add__.0.forward.input.0.pt' '%s/'",
             sub, PC_TEST_FIXTURES, sub);
    assert_int_equal(system(cmd), 0);
    snprintf(src, sizeof src, "%s/msprobe/dumps/ew_fp16_tensor/step0/rank/dump.json",
             PC_TEST_FIXTURES);
    pc_dump *orig = NULL;
    assert_int_equal(pc_dump_open(&orig, src), PC_OK);
    const pc_dump_api *api = pc_dump_find(orig, "Tensor.__add__.0");
    assert_non_null(api);
    const pc_dump_tensor *rec = api->forward.input_args.u.list.items[0].u.tensor;
    char shape[128];
    pc_shape_format(shape, sizeof shape, rec->shape, (int)rec->rank);
    double max = pc_dump_value_as_double(&rec->max), min = pc_dump_value_as_double(&rec->min);
    double mean = pc_dump_value_as_double(&rec->mean), norm = pc_dump_value_as_double(&rec->norm);
    pc_dump_free(orig);

    const char *name = "Tensor.__add__.0.forward.input.0.pt";
    struct {
        const char *shape, *data_name;
        double max, norm_scale;
        const char *want;
    } cases[] = {
        {shape, name, max + 0.5, 1.0, "Max: the record says"},
        {shape, name, max, 1.25, "Norm: the record says"}, /* beyond half-precision error */
        {"[1, 2, 3]", name, max, 1.0, "the record says [1, 2, 3]"},
        {shape, "missing.pt", max, 1.0, "does not exist"},
        {shape, "../dump_tensor_data/x;y.pt", max, 1.0, "does not exist"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char shape_json[128];
        snprintf(shape_json, sizeof shape_json, "%s", cases[c].shape);
        char json[2048];
        snprintf(json, sizeof json,
                 "{\"task\": \"tensor\", \"dump_data_dir\": \"x\", \"data\": {"
                 "\"Tensor.__add__.0.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", "
                 "\"dtype\": \"torch.float16\", \"shape\": %s, \"Max\": %.17g, \"Min\": %.17g, "
                 "\"Mean\": %.17g, \"Norm\": %.17g, \"requires_grad\": false, "
                 "\"data_name\": \"%s\"}], \"input_kwargs\": {}, \"output\": []}}}",
                 shape_json, cases[c].max, min, mean, norm * cases[c].norm_scale,
                 cases[c].data_name);
        snprintf(path, sizeof path, "%s/dump.json", dir);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(json, f);
        fclose(f);
        pc_dump *dump = NULL;
        assert_int_equal(pc_dump_open(&dump, path), PC_OK);
        const pc_dump_arg *arg = &dump->apis[0].forward.input_args.u.list.items[0];
        pc_status st = pc_dump_check_tensor_file(dump, &dump->apis[0], arg, NULL);
        assert_int_not_equal(st, PC_OK);
        if (!strstr(pc_error_message(), cases[c].want) ||
            !strstr(pc_error_message(), "Tensor.__add__.0: input_args[0]")) {
            print_error("case %zu: message \"%s\" lacks \"%s\"\n", c, pc_error_message(),
                        cases[c].want);
            fail();
        }
        pc_dump_free(dump);
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* ---- the reduction rules on small synthetic tensors (pc_dump_verify_stats) ---- */

static void json_number(char *buf, size_t size, double v)
{
    if (isnan(v))
        snprintf(buf, size, "NaN");
    else if (isinf(v))
        snprintf(buf, size, v > 0 ? "Infinity" : "-Infinity");
    else
        snprintf(buf, size, "%.17g", v);
}

/* Checks a one-tensor dump in dir whose file holds t and whose record has t's Max and Min and
 * the given Mean and Norm (JSON text). Returns the status, *loose its bits. */
static pc_status check_synthetic(const char *dir, const pc_tensor *t, const char *mean,
                                 const char *norm, unsigned *loose)
{
    char path[1024], shape[128], max[32], min[32];
    PC_TEST_FMT(path, "%s/dump_tensor_data", dir);
    PC_TEST_FMT(shape, "mkdir -p '%s'", path);
    assert_int_equal(system(shape), 0);
    PC_TEST_FMT(path, "%s/dump_tensor_data/x.pt", dir);
    assert_int_equal(pc_pt_write_file(path, t, PC_FILE_OUT_REPLACE), PC_OK);
    pc_tensor_stats s;
    assert_int_equal(pc_tensor_stats_compute(t, &s), PC_OK);
    json_number(max, sizeof max, s.max);
    json_number(min, sizeof min, s.min);
    pc_shape_format(shape, sizeof shape, t->shape, t->rank);
    PC_TEST_FMT(path, "%s/dump.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f,
            "{\"task\": \"tensor\", \"dump_data_dir\": \"x\", \"data\": {"
            "\"Tensor.__add__.0.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", "
            "\"dtype\": \"%s\", \"shape\": %s, \"Max\": %s, \"Min\": %s, \"Mean\": %s, "
            "\"Norm\": %s, \"requires_grad\": false, \"data_name\": \"x.pt\"}], "
            "\"input_kwargs\": {}, \"output\": []}}}",
            pc_dtype_torch_name(t->dtype), shape, max, min, mean, norm);
    fclose(f);
    pc_dump *dump = NULL;
    assert_int_equal(pc_dump_open(&dump, path), PC_OK);
    const pc_dump_arg *arg = &dump->apis[0].forward.input_args.u.list.items[0];
    pc_status st = pc_dump_check_tensor_file(dump, &dump->apis[0], arg, loose);
    pc_dump_free(dump);
    return st;
}

/* A tensor of n elements of dtype, all v, except the first k which are w */
static void filled(pc_tensor *t, pc_dtype dtype, int64_t n, double v, int64_t k, double w)
{
    assert_int_equal(pc_tensor_alloc(t, dtype, &n, 1), PC_OK);
    pc_tensor_fill(t, v);
    for (int64_t i = 0; i < k; i++)
        pc_tensor_set(t, &i, w);
}

static void test_reduction_rules(void **state)
{
    (void)state;
    char dir[512];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    const double lowest = -(double)FLT_MAX;
    struct {
        pc_dtype dtype;
        int64_t n;
        double v;  /* every value ... */
        int64_t k; /* ... but the first k */
        double w;  /* which are w */
        const char *mean, *norm;
        int want; /* -1 an error, else the loose bits */
        const char *message;
    } cases[] = {
        /* a mask full of finfo(float32).min: every float32 sum overflows; a match */
        {PC_DTYPE_F32, 64, lowest, 0, 0, "-Infinity", "Infinity", 0, ""},
        /* one finfo.min among zeros: no sum overflows */
        {PC_DTYPE_F32, 64, 0.0, 1, lowest, "-Infinity", "Infinity", -1,
         "Mean: the record says -inf"},
        /* +max and -max: a float32 partial sum may overflow either way, or not */
        {PC_DTYPE_F32, 4, (double)FLT_MAX, 2, lowest, "NaN", "Infinity", PC_STATS_LOOSE_OVERFLOW,
         "may overflow"},
        {PC_DTYPE_F32, 4, (double)FLT_MAX, 2, lowest, "Infinity", "Infinity",
         PC_STATS_LOOSE_OVERFLOW, "may overflow"},
        {PC_DTYPE_F32, 4, (double)FLT_MAX, 2, lowest, "0.0", "Infinity", 0, ""},
        /* a float32 mean that no sum gives */
        {PC_DTYPE_F32, 1000, 1.0, 0, 0, "1.01", "31.622776601683793", -1,
         "Mean: the record says 1.01"},
        /* 65536 float16 ones: torch 1.13 on the CPU gives Mean 0 (N is inf in float16) or NaN
         * (the sum overflows too), and a Norm anywhere from 1 (stalled) */
        {PC_DTYPE_F16, 65536, 1.0, 0, 0, "0.0", "256.0", PC_STATS_LOOSE_LOW_PRECISION,
         "is inf for 65536"},
        {PC_DTYPE_F16, 65536, 1.0, 0, 0, "NaN", "256.0", PC_STATS_LOOSE_LOW_PRECISION,
         "is inf for 65536"},
        {PC_DTYPE_F16, 65536, 1.0, 0, 0, "-1.0", "256.0", -1, "Mean: the record says -1"},
        {PC_DTYPE_F16, 65536, 1.0, 0, 0, "1.0", "16.0", PC_STATS_LOOSE_LOW_PRECISION,
         "accumulated in float16"},
        {PC_DTYPE_F16, 65536, 1.0, 0, 0, "1.0", "0.5", -1, "Norm: the record says 0.5"},
        /* 4096 bfloat16 ones: a Norm between 1 and sqrt(3) 64 */
        {PC_DTYPE_BF16, 4096, 1.0, 0, 0, "1.0", "32.0", PC_STATS_LOOSE_LOW_PRECISION,
         "accumulated in bfloat16"},
        {PC_DTYPE_BF16, 4096, 1.0, 0, 0, "1.0", "128.0", -1, "Norm: the record says 128"},
        /* 16 bfloat16 ones: (N - 1) u < 1, so within gamma(15) of the exact sum */
        {PC_DTYPE_BF16, 16, 1.0, 0, 0, "1.0", "3.90625", PC_STATS_LOOSE_LOW_PRECISION, "3.90625"},
        {PC_DTYPE_BF16, 16, 1.0, 0, 0, "1.0", "3.5", -1, "Norm: the record says 3.5"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        pc_tensor t = PC_TENSOR_NULL;
        filled(&t, cases[c].dtype, cases[c].n, cases[c].v, cases[c].k, cases[c].w);
        unsigned loose = 99;
        pc_status st = check_synthetic(dir, &t, cases[c].mean, cases[c].norm, &loose);
        pc_tensor_free(&t);
        int got = st ? -1 : (int)loose;
        if (got != cases[c].want || !strstr(pc_error_message(), cases[c].message)) {
            print_error("case %zu: got %d (want %d), message \"%s\" (want \"%s\")\n", c, got,
                        cases[c].want, pc_error_message(), cases[c].message);
            fail();
        }
    }
    char cmd[600];
    PC_TEST_FMT(cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_stats_rules(void **state)
{
    (void)state;
    int64_t shape[1] = {4};
    pc_tensor t = PC_TENSOR_NULL;
    pc_tensor_stats s;
    /* bool: any / all */
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_BOOL, shape, 1), PC_OK);
    ((uint8_t *)pc_tensor_data(&t))[2] = 1;
    assert_int_equal(pc_tensor_stats_compute(&t, &s), PC_OK);
    assert_true(s.is_bool && s.max == 1.0 && s.min == 0.0);
    pc_tensor_free(&t);
    /* int64 beyond 2^24: cast to float32 first */
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_I64, shape, 1), PC_OK);
    ((int64_t *)pc_tensor_data(&t))[0] = 16777217;
    assert_int_equal(pc_tensor_stats_compute(&t, &s), PC_OK);
    assert_true(s.max == 16777216.0 && s.dtype == PC_DTYPE_F32);
    pc_tensor_free(&t);
    /* float16 norm overflows to inf on the float16 grid */
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_F16, shape, 1), PC_OK);
    for (int i = 0; i < 4; i++)
        ((uint16_t *)pc_tensor_data(&t))[i] = 0x7bff; /* 65504 */
    assert_int_equal(pc_tensor_stats_compute(&t, &s), PC_OK);
    assert_true(s.max == 65504.0 && s.mean == 65504.0 && s.norm > 65504.0);
    pc_tensor_free(&t);
    /* empty: no statistics; 0-dim: the value */
    int64_t zero[1] = {0};
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_F32, zero, 1), PC_OK);
    assert_int_equal(pc_tensor_stats_compute(&t, &s), PC_OK);
    assert_false(s.present);
    pc_tensor_free(&t);
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_F32, NULL, 0), PC_OK);
    *(float *)pc_tensor_data(&t) = -2.5f;
    assert_int_equal(pc_tensor_stats_compute(&t, &s), PC_OK);
    assert_true(s.max == -2.5 && s.min == -2.5 && s.mean == -2.5 && s.norm == -2.5);
    pc_tensor_free(&t);
    /* 0-dim float64 and large int64: the exact value (.item()), not a float32 rounding */
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_F64, NULL, 0), PC_OK);
    *(double *)pc_tensor_data(&t) = 0.1;
    assert_int_equal(pc_tensor_stats_compute(&t, &s), PC_OK);
    assert_true(s.max == 0.1 && s.norm == 0.1);
    pc_tensor_free(&t);
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_I64, NULL, 0), PC_OK);
    *(int64_t *)pc_tensor_data(&t) = 16777217;
    assert_int_equal(pc_tensor_stats_compute(&t, &s), PC_OK);
    assert_true(s.max == 16777217.0 && s.mean == 16777217.0);
    pc_tensor_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_dumps),     cmocka_unit_test(test_traced_dumps),
        cmocka_unit_test(test_tampered_files), cmocka_unit_test(test_broken_records),
        cmocka_unit_test(test_stats_rules),    cmocka_unit_test(test_reduction_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
