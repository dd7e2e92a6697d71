/*
 * precheck materialize: the Python-compatible JSON writer (float repr, escapes, json.dump's
 * indent=1 layout, byte-identical re-serialisation of msprobe's files, records that parse back
 * the same), and the materialised dump end to end: run_ut on it writes the same CSV rows as
 * run_ut on the statistics dump with the same seed, check_dump accepts it, files are named as
 * msprobe names them, and msprobe's preprocessing (cross_entropy, histc, HF32 for conv2d,
 * float8) survives the round trip.
 */
#include "pc_run_ut_test.h"
#include "pc_test.h"

#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "precheck/dump/data.h"
#include "precheck/dump/dump.h"
#include "precheck/dump/dump_write.h"
#include "precheck/io/json_write.h"
#include "precheck/io/pt.h"

#define DUMPS PC_TEST_FIXTURES "/msprobe/dumps"

#define run(args, log) pc_test_run_precheck(NULL, args, log)
#define slurp          pc_test_slurp
#define find_file      pc_test_find_file

static const char TRICKY[] =
    "{\"task\":\"statistics\",\"level\":\"L1\",\"dump_data_dir\":null,\"extra\":{\"a\":[],\"b\":{},"
    "\"c\":[[]],\"u\":\"caf\\u00e9 \\ud83d\\ude00 \xc3\xa9\\t\\\"q\\\"\\\\ \\u007f \\u0001\"},\n"
    "\"data\":{\"Torch.add.0.forward\":{\"input_args\":[{\"type\":\"torch.Tensor\",\"dtype\":"
    "\"torch.float32\",\"shape\":[2,3],\"Max\":1.50,\"Min\":-5E3,\"Mean\":1e-5,\"Norm\":1e16,"
    "\"requires_grad\":true},{\"type\":\"int\",\"value\":123456789012345678901234567890},{\"type\":"
    "\"float\",\"value\":NaN},{\"type\":\"float\",\"value\":-Infinity},{\"type\":\"float\","
    "\"value\":-0.0}],\n"
    "\"input_kwargs\":{\"alpha\":{\"type\":\"int\",\"value\":-9223372036854775808},\"memory_"
    "format\":{\"type\":\"torch.memory_format\",\"format\":\"contiguous_format\"}},\"is_"
    "recompute\":false,\"output\":[null,{}]},\n"
    "\"Module.layer.Linear.forward.0\":{\"input_args\":[1,2.5,\"x\",true,false,null]},\n"
    "\"Torch.add.0.backward\":{\"input\":[{\"type\":\"torch.Tensor\",\"dtype\":\"torch.float32\","
    "\"shape\":[],\"Max\":0.1,\"Min\":0.1,\"Mean\":0.1,\"Norm\":0.1,\"requires_grad\":false}],"
    "\"output\":[null]}}}";

static const char TRICKY_EXPECTED[] =
    "{\n"
    " \"task\": \"statistics\",\n"
    " \"level\": \"L1\",\n"
    " \"dump_data_dir\": null,\n"
    " \"extra\": {\n"
    "  \"a\": [],\n"
    "  \"b\": {},\n"
    "  \"c\": [\n"
    "   []\n"
    "  ],\n"
    "  \"u\": \"caf\\u00e9 \\ud83d\\ude00 \\u00e9\\t\\\"q\\\"\\\\ \\u007f \\u0001\"\n"
    " },\n"
    " \"data\": {\n"
    "  \"Torch.add.0.forward\": {\n"
    "   \"input_args\": [\n"
    "    {\n"
    "     \"type\": \"torch.Tensor\",\n"
    "     \"dtype\": \"torch.float32\",\n"
    "     \"shape\": [\n"
    "      2,\n"
    "      3\n"
    "     ],\n"
    "     \"Max\": 1.5,\n"
    "     \"Min\": -5000.0,\n"
    "     \"Mean\": 1e-05,\n"
    "     \"Norm\": 1e+16,\n"
    "     \"requires_grad\": true\n"
    "    },\n"
    "    {\n"
    "     \"type\": \"int\",\n"
    "     \"value\": 123456789012345678901234567890\n"
    "    },\n"
    "    {\n"
    "     \"type\": \"float\",\n"
    "     \"value\": NaN\n"
    "    },\n"
    "    {\n"
    "     \"type\": \"float\",\n"
    "     \"value\": -Infinity\n"
    "    },\n"
    "    {\n"
    "     \"type\": \"float\",\n"
    "     \"value\": -0.0\n"
    "    }\n"
    "   ],\n"
    "   \"input_kwargs\": {\n"
    "    \"alpha\": {\n"
    "     \"type\": \"int\",\n"
    "     \"value\": -9223372036854775808\n"
    "    },\n"
    "    \"memory_format\": {\n"
    "     \"type\": \"torch.memory_format\",\n"
    "     \"format\": \"contiguous_format\"\n"
    "    }\n"
    "   },\n"
    "   \"is_recompute\": false,\n"
    "   \"output\": [\n"
    "    null,\n"
    "    {}\n"
    "   ]\n"
    "  },\n"
    "  \"Module.layer.Linear.forward.0\": {\n"
    "   \"input_args\": [\n"
    "    1,\n"
    "    2.5,\n"
    "    \"x\",\n"
    "    true,\n"
    "    false,\n"
    "    null\n"
    "   ]\n"
    "  },\n"
    "  \"Torch.add.0.backward\": {\n"
    "   \"input\": [\n"
    "    {\n"
    "     \"type\": \"torch.Tensor\",\n"
    "     \"dtype\": \"torch.float32\",\n"
    "     \"shape\": [],\n"
    "     \"Max\": 0.1,\n"
    "     \"Min\": 0.1,\n"
    "     \"Mean\": 0.1,\n"
    "     \"Norm\": 0.1,\n"
    "     \"requires_grad\": false\n"
    "    }\n"
    "   ],\n"
    "   \"output\": [\n"
    "    null\n"
    "   ]\n"
    "  }\n"
    " }\n"
    "}";
static const char PREPROCESS_DUMP[] =
    "{\"task\":\"statistics\",\"level\":\"L1\",\"framework\":\"pytorch\",\"dump_data_dir\":null,"
    "\"data\":{\"Functional.conv2d.0.forward\":{\"input_args\":[{\"type\":\"torch.Tensor\","
    "\"dtype\":\"torch.float32\",\"shape\":[2,3,8,8],\"Max\":2.5,\"Min\":-2.25,\"Mean\":0.0,"
    "\"Norm\":1.0,\"requires_grad\":true},{\"type\":\"torch.Tensor\",\"dtype\":\"torch.float32\","
    "\"shape\":[4,3,3,3],\"Max\":0.3,\"Min\":-0.3,\"Mean\":0.0,\"Norm\":1.0,\"requires_grad\":true}"
    ","
    "{\"type\":\"torch.Tensor\",\"dtype\":\"torch.float32\",\"shape\":[4],\"Max\":0.1,\"Min\":-0.1,"
    "\"Mean\":0.0,\"Norm\":1.0,\"requires_grad\":true},[{\"type\":\"int\",\"value\":1},{\"type\":"
    "\"int\","
    "\"value\":1}],[{\"type\":\"int\",\"value\":1},{\"type\":\"int\",\"value\":1}],[{\"type\":"
    "\"int\","
    "\"value\":1},{\"type\":\"int\",\"value\":1}],{\"type\":\"int\",\"value\":1}],\"input_kwargs\":"
    "{},"
    "\"is_recompute\":false,\"output\":[{\"type\":\"torch.Tensor\",\"dtype\":\"torch.float32\","
    "\"shape\":[2,4,8,8],\"Max\":3.0,\"Min\":-3.0,\"Mean\":0.0,\"Norm\":1.0,\"requires_grad\":true}"
    "]},"
    "\"Functional.cross_entropy.0.forward\":{\"input_args\":[{\"type\":\"torch.Tensor\",\"dtype\":"
    "\"torch.float32\","
    "\"shape\":[4,5],\"Max\":3.0,\"Min\":-3.0,\"Mean\":0.0,\"Norm\":1.0,\"requires_grad\":true},"
    "{\"type\":\"torch.Tensor\",\"dtype\":\"torch.int32\",\"shape\":[4],\"Max\":4.0,\"Min\":-2.0,"
    "\"Mean\":0.0,\"Norm\":1.0,\"requires_grad\":false}],\"input_kwargs\":{\"reduction\":{\"type\":"
    "\"str\","
    "\"value\":\"mean\"}},\"output\":[{\"type\":\"torch.Tensor\",\"dtype\":\"torch.float32\","
    "\"shape\":[],\"Max\":2.0,\"Min\":2.0,\"Mean\":0.0,\"Norm\":1.0,\"requires_grad\":true}]},"
    "\"Torch.histc.0.forward\":{\"input_args\":[{\"type\":\"torch.Tensor\",\"dtype\":\"torch."
    "int64\","
    "\"shape\":[10],\"Max\":9.0,\"Min\":0.0,\"Mean\":0.0,\"Norm\":1.0,\"requires_grad\":false}],"
    "\"input_kwargs\":{\"bins\":{\"type\":\"int\",\"value\":4}},"
    "\"note\":{\"value\":123456789012345678901234567890},"
    "\"output\":[{\"type\":\"torch."
    "Tensor\","
    "\"dtype\":\"torch.float32\",\"shape\":[4],\"Max\":4.0,\"Min\":1.0,\"Mean\":0.0,\"Norm\":1.0,"
    "\"requires_grad\":false}]},\"Torch.cat.0.forward\":{\"input_args\":[[{\"type\":\"torch."
    "Tensor\","
    "\"dtype\":\"torch.float16\",\"shape\":[2,3],\"Max\":1.0,\"Min\":-1.0,\"Mean\":0.0,\"Norm\":1."
    "0,"
    "\"requires_grad\":true},{\"type\":\"torch.Tensor\",\"dtype\":\"torch.float16\",\"shape\":[1,"
    "3],\"Max\":2.0,\"Min\":-2.0,\"Mean\":0.0,\"Norm\":1.0,\"requires_grad\":true}]],\"input_"
    "kwargs\":{\"dim\":{\"type\":\"int\","
    "\"value\":0}},\"output\":[{\"type\":\"torch.Tensor\",\"dtype\":\"torch.float16\",\"shape\":[3,"
    "3],\"Max\":2.0,\"Min\":-2.0,\"Mean\":0.0,\"Norm\":1.0,\"requires_grad\":true}]},\"Functional."
    "layer_norm.0.forward\":{\"input_args\":[{\"type\":\"torch.Tensor\","
    "\"dtype\":\"torch.float32\",\"shape\":[2,4],\"Max\":1.0,\"Min\":-1.0,\"Mean\":0.0,\"Norm\":1."
    "0,"
    "\"requires_grad\":true},[{\"type\":\"int\",\"value\":4}]],\"input_kwargs\":{\"weight\":{"
    "\"type\":\"torch.Tensor\","
    "\"dtype\":\"torch.float32\",\"shape\":[4],\"Max\":1.5,\"Min\":0.5,\"Mean\":0.0,\"Norm\":1.0,"
    "\"requires_grad\":true},\"bias\":{\"type\":\"torch.Tensor\",\"dtype\":\"torch.float32\","
    "\"shape\":[4],\"Max\":0.25,\"Min\":-0.25,\"Mean\":0.0,\"Norm\":1.0,\"requires_grad\":true},"
    "\"eps\":{\"type\":\"float\",\"value\":1e-05}},\"output\":[{\"type\":\"torch.Tensor\","
    "\"dtype\":\"torch.float32\","
    "\"shape\":[2,4],\"Max\":2.0,\"Min\":-2.0,\"Mean\":0.0,\"Norm\":1.0,\"requires_grad\":true}]},"
    "\"Tensor.__add__.0.forward\":{\"input_args\":[{\"type\":\"torch.Tensor\",\"dtype\":\"torch."
    "float16\","
    "\"shape\":[3],\"Max\":null,\"Min\":null,\"Mean\":null,\"Norm\":null,\"requires_grad\":true},"
    "{\"type\":\"float\",\"value\":1.0}],\"input_kwargs\":{},\"output\":[{\"type\":\"torch."
    "Tensor\","
    "\"dtype\":\"torch.float16\",\"shape\":[3],\"Max\":1.0,\"Min\":1.0,\"Mean\":0.0,\"Norm\":1.0,"
    "\"requires_grad\":true}]},\"Tensor.__add__.1.forward\":{\"input_args\":[{\"type\":\"torch."
    "Tensor\","
    "\"dtype\":\"torch.int64\",\"shape\":[],\"Max\":3.0,\"Min\":3.0,\"Mean\":0.0,\"Norm\":1.0,"
    "\"requires_grad\":false},{\"type\":\"int\",\"value\":2}],\"input_kwargs\":{},\"output\":[{"
    "\"type\":\"torch.Tensor\","
    "\"dtype\":\"torch.int64\",\"shape\":[],\"Max\":5,\"Min\":5,\"Mean\":0.0,\"Norm\":1.0,"
    "\"requires_grad\":false}]},"
    "\"Tensor.__mul__.0.forward\":{\"input_args\":[{\"type\":\"torch.Tensor\",\"dtype\":\"torch."
    "float32\","
    "\"shape\":[3],\"Max\":1.0,\"Min\":-1.0,\"Mean\":0.0,\"Norm\":1.0,\"requires_grad\":true},"
    "{\"type\":\"torch.Tensor\",\"dtype\":\"torch.float8_e4m3fn\",\"shape\":[3],\"Max\":2.0,"
    "\"Min\":-2.0,\"Mean\":0.0,\"Norm\":1.0,\"requires_grad\":false,\"md5\":\"00000000\"}],"
    "\"input_kwargs\":{},\"output\":[{\"type\":\"torch.Tensor\",\"dtype\":\"torch.float32\","
    "\"shape\":[3],\"Max\":2.0,\"Min\":-2.0,\"Mean\":0.0,\"Norm\":1.0,\"requires_grad\":true}]},"
    "\"Module.conv.Conv2d.forward.0\":{\"input_args\":[{\"type\":\"torch.Tensor\",\"dtype\":"
    "\"torch.float32\","
    "\"shape\":[2,3,8,8],\"Max\":2.5,\"Min\":-2.25,\"Mean\":0.0,\"Norm\":1.0,\"requires_grad\":"
    "true}],"
    "\"input_kwargs\":{},\"output\":[{\"type\":\"torch.Tensor\",\"dtype\":\"torch.float32\","
    "\"shape\":[2,4,8,8],\"Max\":3.0,\"Min\":-3.0,\"Mean\":0.0,\"Norm\":1.0,\"requires_grad\":true}"
    "]},"
    "\"Functional.cross_entropy.0.backward\":{\"input\":[{\"type\":\"torch.Tensor\",\"dtype\":"
    "\"torch.float32\","
    "\"shape\":[],\"Max\":1.0,\"Min\":1.0,\"Mean\":0.0,\"Norm\":1.0,\"requires_grad\":false}],"
    "\"output\":[{\"type\":\"torch.Tensor\",\"dtype\":\"torch.float32\",\"shape\":[4,5],\"Max\":0."
    "1,"
    "\"Min\":-0.1,\"Mean\":0.0,\"Norm\":1.0,\"requires_grad\":false},null]},\"Functional.layer_"
    "norm.0.backward\":{\"input\":[{\"type\":\"torch.Tensor\","
    "\"dtype\":\"torch.float32\",\"shape\":[2,4],\"Max\":0.5,\"Min\":-0.5,\"Mean\":0.0,\"Norm\":1."
    "0,"
    "\"requires_grad\":false}],\"output\":[{\"type\":\"torch.Tensor\",\"dtype\":\"torch.float32\","
    "\"shape\":[2,4],\"Max\":0.1,\"Min\":-0.1,\"Mean\":0.0,\"Norm\":1.0,\"requires_grad\":false},"
    "null,null]},\"Torch.cat.0.backward\":{\"input\":[{\"type\":\"torch.Tensor\",\"dtype\":\"torch."
    "float16\","
    "\"shape\":[3,3],\"Max\":0.5,\"Min\":-0.5,\"Mean\":0.0,\"Norm\":1.0,\"requires_grad\":false}],"
    "\"output\":[{\"type\":\"torch.Tensor\",\"dtype\":\"torch.float16\",\"shape\":[2,3],\"Max\":0."
    "5,"
    "\"Min\":-0.5,\"Mean\":0.0,\"Norm\":1.0,\"requires_grad\":false},{\"type\":\"torch.Tensor\","
    "\"dtype\":\"torch.float16\",\"shape\":[1,3],\"Max\":0.5,\"Min\":-0.5,\"Mean\":0.0,\"Norm\":1."
    "0,"
    "\"requires_grad\":false}]},\"Functional.conv2d.0.backward\":{\"input\":[{\"type\":\"torch."
    "Tensor\","
    "\"dtype\":\"torch.float32\",\"shape\":[2,4,8,8],\"Max\":0.01,\"Min\":-0.01,\"Mean\":0.0,"
    "\"Norm\":1.0,\"requires_grad\":false}],\"output\":[null,null,null]}}}";

/* ---- helpers ---- */

static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* pc_dump_rewrite without hooks into memory. */
static char *rewrite(const char *text, size_t size, size_t *out_len)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    pc_status st = pc_dump_rewrite(text, size, "<test>", f, NULL);
    if (st)
        fail_msg("rewrite: %s", pc_error_message());
    assert_int_equal(fclose(f), 0);
    *out_len = len;
    return buf;
}

/* ---- the float format and the writer ---- */

static void test_float_repr(void **state)
{
    (void)state;
    static const struct {
        double x;
        const char *text;
    } cases[] = {
        {0.1, "0.1"},
        {1e-05, "1e-05"},
        {1e+16, "1e+16"},
        {1000000000000000.0, "1000000000000000.0"},
        {100.0, "100.0"},
        {-0.0, "-0.0"},
        {0.0, "0.0"},
        {5e-324, "5e-324"},
        {1.7976931348623157e+308, "1.7976931348623157e+308"},
        {0.0001, "0.0001"},
        {1.2345678901234568e+16, "1.2345678901234568e+16"},
        /* a power of two whose correctly rounded 16 digits do not read back, 16 others do */
        {7.120236347223045e-307, "7.120236347223045e-307"},
        {0.3333333333333333, "0.3333333333333333"},
        {-2.5e-07, "-2.5e-07"},
        {123456.789, "123456.789"},
        {1.152921504606847e+18, "1.152921504606847e+18"},
        {1e+22, "1e+22"},
        {1e+23, "1e+23"},
        {11.832159996032715, "11.832159996032715"},
        {-5000.0, "-5000.0"},
    };
    char buf[PC_JSON_DOUBLE_MAX];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pc_json_format_double(buf, sizeof buf, cases[i].x);
        assert_string_equal(buf, cases[i].text);
    }
    pc_json_format_double(buf, sizeof buf, (double)NAN);
    assert_string_equal(buf, "NaN");
    pc_json_format_double(buf, sizeof buf, -HUGE_VAL);
    assert_string_equal(buf, "-Infinity");
    /* every power of two reads back from its text */
    for (int k = -1074; k < 1024; k++) {
        double x = ldexp(1.0, k);
        pc_json_format_double(buf, sizeof buf, x);
        assert_true(strtod(buf, NULL) == x);
    }
}

static void test_writer_misuse(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    pc_json_writer w;
    pc_json_writer_init(&w, f, 1, PC_JSON_ENSURE_ASCII);
    pc_json_write_begin_object(&w);
    pc_json_write_int(&w, 1); /* a value without a key */
    assert_int_equal(pc_json_writer_finish(&w), PC_ERR_INVALID);
    fclose(f);
    free(buf);

    f = open_memstream(&buf, &len);
    pc_json_writer_init(&w, f, 1, PC_JSON_ENSURE_ASCII);
    pc_json_write_begin_array(&w);
    assert_int_equal(pc_json_writer_finish(&w), PC_ERR_INVALID); /* left open */
    fclose(f);
    free(buf);
}

/* ---- re-serialisation ---- */

/* msprobe's files (json.dump, indent=1) come back byte for byte. */
static void test_rewrite_fixtures_identical(void **state)
{
    (void)state;
    static const char *const dumps[] = {"gpt_stats", "gpt_tensor", "gpt_bf16_tensor", "cnn_tensor",
                                        "ew_fp16_tensor"};
    for (size_t i = 0; i < sizeof dumps / sizeof dumps[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s/step0/rank/dump.json", DUMPS, dumps[i]);
        size_t n, m;
        char *in = slurp(path, &n);
        char *out = rewrite(in, n, &m);
        if (m != n || memcmp(in, out, n) != 0)
            fail_msg("%s is not written back byte for byte", path);
        free(in);
        free(out);
    }
}

/* Text that is not json.dump's (compact, "1.50", "5E3", raw UTF-8, big integers, NaN) comes out
 * as json.dump(json.load(text), indent=1) does (the expected text is Python's). */
static void test_rewrite_python_layout(void **state)
{
    (void)state;
    size_t m;
    char *out = rewrite(TRICKY, strlen(TRICKY), &m);
    assert_int_equal(m, strlen(TRICKY_EXPECTED));
    assert_memory_equal(out, TRICKY_EXPECTED, m);
    free(out);
}

/* ---- the same records ---- */

static void same_value(const pc_dump_value *a, const pc_dump_value *b)
{
    assert_int_equal(a->kind, b->kind);
    assert_int_equal(a->big_int, b->big_int);
    assert_int_equal(a->count, b->count);
    switch (a->kind) {
    case PC_DUMP_VALUE_BOOL:
        assert_int_equal(a->u.b, b->u.b);
        break;
    case PC_DUMP_VALUE_INT:
        assert_true(a->u.i == b->u.i);
        break;
    case PC_DUMP_VALUE_FLOAT:
        assert_true(pc_test_same_f64(a->u.f, b->u.f) || (isnan(a->u.f) && isnan(b->u.f)));
        break;
    case PC_DUMP_VALUE_STR:
        assert_memory_equal(a->u.s, b->u.s, a->count);
        break;
    case PC_DUMP_VALUE_LIST:
        for (uint32_t i = 0; i < a->count; i++)
            same_value(&a->u.items[i], &b->u.items[i]);
        break;
    case PC_DUMP_VALUE_OBJECT:
        for (uint32_t i = 0; i < a->count; i++) {
            assert_string_equal(a->u.members[i].key, b->u.members[i].key);
            same_value(&a->u.members[i].value, &b->u.members[i].value);
        }
        break;
    default:
        break;
    }
}

static void same_str(const char *a, const char *b)
{
    assert_int_equal(a == NULL, b == NULL);
    if (a)
        assert_string_equal(a, b);
}

static void same_arg(const pc_dump_arg *a, const pc_dump_arg *b)
{
    assert_int_equal(a->kind, b->kind);
    same_str(a->type, b->type);
    /* messages name lines and columns, which the layout changes */
    assert_int_equal(a->error == NULL, b->error == NULL);
    same_value(&a->value, &b->value);
    switch (a->kind) {
    case PC_DUMP_ARG_LIST:
        assert_int_equal(a->u.list.count, b->u.list.count);
        for (size_t i = 0; i < a->u.list.count; i++)
            same_arg(&a->u.list.items[i], &b->u.list.items[i]);
        break;
    case PC_DUMP_ARG_OBJECT:
        assert_int_equal(a->u.object.count, b->u.object.count);
        for (size_t i = 0; i < a->u.object.count; i++) {
            assert_string_equal(a->u.object.fields[i].key, b->u.object.fields[i].key);
            same_arg(&a->u.object.fields[i].value, &b->u.object.fields[i].value);
        }
        break;
    case PC_DUMP_ARG_TENSOR: {
        const pc_dump_tensor *x = a->u.tensor, *y = b->u.tensor;
        same_str(x->dtype_name, y->dtype_name);
        assert_int_equal(x->dtype, y->dtype);
        assert_int_equal(x->has_shape, y->has_shape);
        assert_int_equal(x->rank, y->rank);
        for (int64_t i = 0; i < x->rank; i++)
            assert_true(x->shape[i] == y->shape[i]);
        same_value(&x->max, &y->max);
        same_value(&x->min, &y->min);
        same_value(&x->mean, &y->mean);
        same_value(&x->norm, &y->norm);
        same_value(&x->max_except_inf_nan, &y->max_except_inf_nan);
        same_value(&x->min_except_inf_nan, &y->min_except_inf_nan);
        assert_int_equal(x->requires_grad, y->requires_grad);
        same_str(x->data_name, y->data_name);
        same_str(x->datapath, y->datapath);
        same_str(x->md5, y->md5);
        break;
    }
    case PC_DUMP_ARG_SLICE:
        assert_memory_equal(&a->u.slice, &b->u.slice, sizeof a->u.slice);
        break;
    case PC_DUMP_ARG_SIZE:
        assert_int_equal(a->u.size.rank, b->u.size.rank);
        for (size_t i = 0; i < a->u.size.rank; i++)
            assert_true(a->u.size.dims[i] == b->u.size.dims[i]);
        break;
    case PC_DUMP_ARG_DTYPE:
        assert_int_equal(a->u.dtype, b->u.dtype);
        break;
    case PC_DUMP_ARG_NUMPY:
        assert_int_equal(a->u.numpy_prefixed, b->u.numpy_prefixed);
        break;
    default:
        break;
    }
}

static void same_entry(const pc_dump_entry *a, const pc_dump_entry *b)
{
    assert_string_equal(a->key, b->key);
    assert_int_equal(a->error == NULL, b->error == NULL);
    same_arg(&a->input_args, &b->input_args);
    assert_int_equal(a->has_kwargs, b->has_kwargs);
    assert_int_equal(a->kwarg_count, b->kwarg_count);
    for (size_t i = 0; i < a->kwarg_count; i++) {
        assert_string_equal(a->kwargs[i].key, b->kwargs[i].key);
        same_arg(&a->kwargs[i].value, &b->kwargs[i].value);
    }
    same_arg(&a->output, &b->output);
    same_arg(&a->input, &b->input);
    same_value(&a->is_recompute, &b->is_recompute);
    assert_memory_equal(a->signature, b->signature, sizeof a->signature);
    assert_int_equal(a->filter_error == NULL, b->filter_error == NULL);
}

static void same_dump(const pc_dump *a, const pc_dump *b)
{
    same_str(a->task, b->task);
    same_str(a->level, b->level);
    same_str(a->framework, b->framework);
    same_str(a->dump_data_dir, b->dump_data_dir);
    assert_int_equal(a->has_real_data, b->has_real_data);
    assert_int_equal(a->data_empty, b->data_empty);
    assert_int_equal(a->api_count, b->api_count);
    assert_int_equal(a->backward_count, b->backward_count);
    assert_int_equal(a->module_count, b->module_count);
    for (size_t i = 0; i < a->api_count; i++) {
        const pc_dump_api *x = &a->apis[i], *y = &b->apis[i];
        assert_string_equal(x->full_name, y->full_name);
        same_str(x->api_type, y->api_type);
        same_str(x->api_name, y->api_name);
        assert_int_equal(x->unsafe_name, y->unsafe_name);
        same_entry(&x->forward, &y->forward);
        assert_int_equal(x->backward == NULL, y->backward == NULL);
        if (x->backward)
            same_entry(x->backward, y->backward);
    }
    for (size_t i = 0; i < a->backward_count; i++) {
        assert_string_equal(a->backwards[i].full_name, b->backwards[i].full_name);
        same_entry(&a->backwards[i].entry, &b->backwards[i].entry);
    }
}

static void assert_parses_back(const char *text, size_t size)
{
    size_t m;
    char *out = rewrite(text, size, &m);
    pc_dump *a = NULL, *b = NULL;
    assert_int_equal(pc_dump_parse(&a, text, size, "in.json"), PC_OK);
    assert_int_equal(pc_dump_parse(&b, out, m, "out.json"), PC_OK);
    same_dump(a, b);
    pc_dump_free(a);
    pc_dump_free(b);
    free(out);
}

static void test_rewrite_same_records(void **state)
{
    (void)state;
    assert_parses_back(TRICKY, strlen(TRICKY));
    assert_parses_back(PREPROCESS_DUMP, strlen(PREPROCESS_DUMP));
    size_t n;
    char *in = slurp(DUMPS "/cnn_tensor/step0/rank/dump.json", &n);
    assert_parses_back(in, n);
    free(in);
}

/* ---- materialize end to end ---- */

/* run_ut on dump a and on dump b (with extra options) writes the same two CSVs. */
static void assert_same_run_ut(const char *a, const char *b, const char *extra)
{
    char d1[512], d2[512], args[4096], x[1024], y[1024];
    assert_non_null(pc_test_tmpdir(d1, sizeof d1));
    assert_non_null(pc_test_tmpdir(d2, sizeof d2));
    snprintf(args, sizeof args, "run_ut -api_info %s -o %s --no-progress %s", a, d1, extra);
    assert_int_equal(run(args, NULL), 0);
    snprintf(args, sizeof args, "run_ut -api_info %s -o %s --no-progress %s", b, d2, extra);
    assert_int_equal(run(args, NULL), 0);
    find_file(d1, "accuracy_checking_details_", x, sizeof x);
    find_file(d2, "accuracy_checking_details_", y, sizeof y);
    pc_test_assert_same_file(x, y);
    find_file(d1, "accuracy_checking_result_", x, sizeof x);
    find_file(d2, "accuracy_checking_result_", y, sizeof y);
    pc_test_assert_same_file(x, y);
}

/* A materialised gpt_stats: same CSVs with the default seed and with another one, check_dump
 * accepts it, files carry msprobe's names (those of the same model's tensor-mode dump), only
 * inputs have files. */
static void test_materialize_gpt_stats(void **state)
{
    (void)state;
    const char *src = DUMPS "/gpt_stats/step0/rank/dump.json";
    char out[512], out7[512], json[1024], json7[1024], args[4096];
    assert_non_null(pc_test_tmpdir(out, sizeof out));
    assert_non_null(pc_test_tmpdir(out7, sizeof out7));
    snprintf(args, sizeof args, "materialize -api_info %s -o %s", src, out);
    assert_int_equal(run(args, NULL), 0);
    snprintf(args, sizeof args, "materialize -api_info %s -o %s --seed 7", src, out7);
    assert_int_equal(run(args, NULL), 0);
    snprintf(json, sizeof json, "%s/dump.json", out);
    snprintf(json7, sizeof json7, "%s/dump.json", out7);

    assert_same_run_ut(src, json, "");
    assert_same_run_ut(src, json7, "--seed 7");
    snprintf(args, sizeof args, "check_dump -api_info %s", json);
    assert_int_equal(run(args, NULL), 0);

    pc_dump *d = NULL, *orig = NULL;
    assert_int_equal(pc_dump_open(&d, json), PC_OK);
    assert_int_equal(pc_dump_open(&orig, src), PC_OK);
    assert_true(d->has_real_data);
    assert_int_equal(d->api_count, orig->api_count);
    /* the names of the tensor-mode dump of the same model */
    const pc_dump_api *lin = pc_dump_find(d, "Functional.linear.0");
    assert_non_null(lin);
    assert_string_equal(lin->forward.input_args.u.list.items[0].u.tensor->data_name,
                        "Functional.linear.0.forward.input.0.pt");
    assert_null(lin->forward.output.u.list.items[0].u.tensor->data_name);
    assert_string_equal(lin->backward->input.u.list.items[0].u.tensor->data_name,
                        "Functional.linear.0.backward.input.0.pt");
    assert_null(lin->backward->output.u.list.items[0].u.tensor->data_name);
    char dir[1024], ref[1024];
    snprintf(dir, sizeof dir, "%s/dump_tensor_data", out);
    assert_int_equal(count_files(dir), 113);
    /* the same name set as the tensor dump's input files */
    snprintf(ref, sizeof ref, "%s/gpt_tensor/step0/rank/dump_tensor_data", DUMPS);
    DIR *rd = opendir(ref);
    assert_non_null(rd);
    struct dirent *e;
    int inputs = 0;
    while ((e = readdir(rd))) {
        if (!strstr(e->d_name, ".forward.input.") && !strstr(e->d_name, ".forward.kwargs.") &&
            !strstr(e->d_name, ".backward.input."))
            continue;
        inputs++;
        char p[2048];
        struct stat sb;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (stat(p, &sb) != 0)
            fail_msg("%s is missing", p);
    }
    closedir(rd);
    assert_int_equal(inputs, 113);
    /* seeds give other data */
    char p1[2048], p7[2048];
    snprintf(p1, sizeof p1, "%s/dump_tensor_data/Functional.linear.0.forward.input.0.pt", out);
    snprintf(p7, sizeof p7, "%s/dump_tensor_data/Functional.linear.0.forward.input.0.pt", out7);
    size_t l1, l7;
    char *b1 = slurp(p1, &l1), *b7 = slurp(p7, &l7);
    assert_int_equal(l1, l7);
    assert_true(memcmp(b1, b7, l1) != 0);
    free(b1);
    free(b7);
    pc_dump_free(d);
    pc_dump_free(orig);
}

static const pc_dump_arg *arg_at(const pc_dump_arg *list, size_t i)
{
    assert_int_equal(list->kind, PC_DUMP_ARG_LIST);
    assert_true(i < list->u.list.count);
    return &list->u.list.items[i];
}

/* msprobe's preprocessing goes into the files and the round trip holds. */
static void test_materialize_preprocessing(void **state)
{
    (void)state;
    char in[512], out[512], src[1024], json[1024], args[4096], log[1024];
    assert_non_null(pc_test_tmpdir(in, sizeof in));
    assert_non_null(pc_test_tmpdir(out, sizeof out));
    snprintf(src, sizeof src, "%s/dump.json", in);
    pc_test_write_file(src, PREPROCESS_DUMP);
    snprintf(log, sizeof log, "%s/log.txt", in);
    snprintf(args, sizeof args, "materialize -api_info %s -o %s", src, out);
    assert_int_equal(run(args, log), 0);
    snprintf(json, sizeof json, "%s/dump.json", out);
    assert_same_run_ut(src, json, "");
    char *text = slurp(log, NULL);
    assert_non_null(strstr(text, "Tensor.__add__.0: input_args[0]: kept as a statistics record"));
    free(text);
    /* an integer beyond int64 keeps its digits */
    text = slurp(json, NULL);
    assert_non_null(strstr(text, "\"value\": 123456789012345678901234567890\n"));
    free(text);

    pc_dump *d = NULL;
    assert_int_equal(pc_dump_open(&d, json), PC_OK);
    pc_tensor t = PC_TENSOR_NULL;

    /* cross_entropy: the int32 target written as int64 with Min floored to 0 */
    const pc_dump_api *ce = pc_dump_find(d, "Functional.cross_entropy.0");
    const pc_dump_arg *target = arg_at(&ce->forward.input_args, 1);
    assert_int_equal(target->u.tensor->dtype, PC_DTYPE_I64);
    assert_int_equal(pc_dump_load_tensor(d, ce, target, &t), PC_OK);
    assert_int_equal(t.dtype, PC_DTYPE_I64);
    const int64_t *iv = pc_tensor_data(&t);
    assert_true(iv[0] == 0 && iv[3] == 4);
    assert_true(target->u.tensor->min.u.f == 0.0);
    pc_tensor_free(&t);
    /* its 0-dim backward input */
    const pc_dump_arg *g = arg_at(&ce->backward->input, 0);
    assert_string_equal(g->u.tensor->data_name, "Functional.cross_entropy.0.backward.input.0.pt");

    /* conv2d: the float32 inputs already HF32-rounded */
    const pc_dump_api *conv = pc_dump_find(d, "Functional.conv2d.0");
    assert_int_equal(pc_dump_load_tensor(d, conv, arg_at(&conv->forward.input_args, 0), &t), PC_OK);
    const uint32_t *bits = pc_tensor_data(&t);
    for (int64_t i = 0; i < pc_tensor_numel(&t); i++)
        assert_int_equal(bits[i] & 0xFFFu, 0);
    pc_tensor_free(&t);

    /* histc: the int64 input is float32 data and says so */
    const pc_dump_api *histc = pc_dump_find(d, "Torch.histc.0");
    assert_int_equal(arg_at(&histc->forward.input_args, 0)->u.tensor->dtype, PC_DTYPE_F32);

    /* nested lists and kwargs get msprobe's names */
    const pc_dump_api *cat = pc_dump_find(d, "Torch.cat.0");
    assert_string_equal(arg_at(arg_at(&cat->forward.input_args, 0), 1)->u.tensor->data_name,
                        "Torch.cat.0.forward.input.0.1.pt");
    const pc_dump_api *ln = pc_dump_find(d, "Functional.layer_norm.0");
    assert_string_equal(ln->forward.kwargs[0].key, "weight");
    assert_string_equal(ln->forward.kwargs[0].value.u.tensor->data_name,
                        "Functional.layer_norm.0.forward.kwargs.weight.pt");

    /* a record that cannot be generated stays as it was */
    const pc_dump_api *add = pc_dump_find(d, "Tensor.__add__.0");
    assert_null(arg_at(&add->forward.input_args, 0)->u.tensor->data_name);
    /* a 0-dim integer tensor's statistics are ints, as .item() gives them */
    const pc_dump_api *add1 = pc_dump_find(d, "Tensor.__add__.1");
    assert_int_equal(arg_at(&add1->forward.input_args, 0)->u.tensor->max.kind, PC_DUMP_VALUE_INT);

    /* float8: a float32 file under a float8 record, md5 recomputed */
    const pc_dump_api *mul = pc_dump_find(d, "Tensor.__mul__.0");
    const pc_dump_tensor *f8 = arg_at(&mul->forward.input_args, 1)->u.tensor;
    assert_int_equal(f8->dtype, PC_DTYPE_F8E4M3FN);
    assert_string_not_equal(f8->md5, "00000000");
    char p[2048];
    snprintf(p, sizeof p, "%s/dump_tensor_data/%s", out, f8->data_name);
    assert_int_equal(pc_pt_read_file(p, &t, NULL), PC_OK);
    assert_int_equal(t.dtype, PC_DTYPE_F32);
    pc_tensor_free(&t);
    assert_int_equal(pc_dump_load_tensor(d, mul, arg_at(&mul->forward.input_args, 1), &t), PC_OK);
    assert_int_equal(t.dtype, PC_DTYPE_F8E4M3FN);
    pc_tensor_free(&t);
    assert_int_equal(d->module_count, 1);
    pc_dump_free(d);
    /* check_dump accepts the files; the record left as statistics is allocatable, which is
     * all it checks of those */
    snprintf(args, sizeof args, "check_dump -api_info %s", json);
    assert_int_equal(run(args, NULL), 0);
}

/* A tensor-mode dump as input: every record is kept and its file copied. */
static void test_materialize_tensor_input(void **state)
{
    (void)state;
    const char *src = DUMPS "/ew_fp16_tensor/step0/rank/dump.json";
    char out[512], json[1024], args[4096], dir[1024];
    assert_non_null(pc_test_tmpdir(out, sizeof out));
    snprintf(args, sizeof args, "materialize -api_info %s -o %s", src, out);
    assert_int_equal(run(args, NULL), 0);
    snprintf(json, sizeof json, "%s/dump.json", out);
    assert_same_run_ut(src, json, "");
    snprintf(args, sizeof args, "check_dump -api_info %s", json);
    assert_int_equal(run(args, NULL), 0);
    snprintf(dir, sizeof dir, "%s/dump_tensor_data", out);
    char ref[1024];
    snprintf(ref, sizeof ref, "%s/ew_fp16_tensor/step0/rank/dump_tensor_data", DUMPS);
    assert_int_equal(count_files(dir), count_files(ref));
}

static void test_materialize_refusals(void **state)
{
    (void)state;
    const char *src = DUMPS "/gpt_stats/step0/rank/dump.json";
    char out[512], args[4096], in[512], dup[1024], log[1024];
    assert_non_null(pc_test_tmpdir(out, sizeof out));
    assert_int_equal(run("materialize", NULL), 2);
    snprintf(args, sizeof args, "materialize -api_info %s", src);
    assert_int_equal(run(args, NULL), 2);
    snprintf(args, sizeof args, "materialize -api_info %s -o %s --seed -3", src, out);
    assert_int_equal(run(args, NULL), 2);
    assert_int_equal(run("materialize --help", NULL), 0);
    /* no overwriting */
    snprintf(args, sizeof args, "materialize -api_info %s -o %s", src, out);
    assert_int_equal(run(args, NULL), 0);
    assert_int_equal(run(args, NULL), 1);
    /* duplicate entry keys */
    assert_non_null(pc_test_tmpdir(in, sizeof in));
    snprintf(dup, sizeof dup, "%s/dump.json", in);
    pc_test_write_file(dup,
                       "{\"task\": \"statistics\", \"dump_data_dir\": null, \"data\": {"
                       "\"Torch.abs.0.forward\": {\"input_args\": [], \"input_kwargs\": {}},"
                       "\"Torch.abs.0.forward\": {\"input_args\": [], \"input_kwargs\": {}}}}");
    snprintf(log, sizeof log, "%s/log.txt", in);
    snprintf(args, sizeof args, "materialize -api_info %s -o %s/out", dup, in);
    assert_int_equal(run(args, log), 1);
    char *text = slurp(log, NULL);
    assert_non_null(strstr(text, "appears twice"));
    free(text);
    char partial[1024];
    struct stat sb;
    snprintf(partial, sizeof partial, "%s/out/dump.json", in);
    assert_int_not_equal(stat(partial, &sb), 0);
    /* nor a temporary (io/file_out.h: dump.json.XXXXXX.partial) */
    snprintf(partial, sizeof partial, "%s/out", in);
    DIR *d = opendir(partial);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));)
        if (strstr(e->d_name, ".partial"))
            fail_msg("%s/%s was left behind", partial, e->d_name);
    closedir(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float_repr),
        cmocka_unit_test(test_writer_misuse),
        cmocka_unit_test(test_rewrite_fixtures_identical),
        cmocka_unit_test(test_rewrite_python_layout),
        cmocka_unit_test(test_rewrite_same_records),
        cmocka_unit_test(test_materialize_gpt_stats),
        cmocka_unit_test(test_materialize_preprocessing),
        cmocka_unit_test(test_materialize_tensor_input),
        cmocka_unit_test(test_materialize_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
