/* Bad dump.json input: wrong JSON types in every field of every record kind (kept, with an
 * error the runner uses as the SKIP message), negative and absurd shapes (refused where data
 * would be made, with a message naming the API and the argument), and truncated and corrupted
 * real dumps (a clean error, never a crash). */
#include "pc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/core/tensor.h"
#include "precheck/dump/dump.h"

#define DUMPS PC_TEST_FIXTURES "/msprobe/dumps/"

/* A dump with one forward entry whose only positional argument is arg, on line 3 from
 * column 1; the caller frees *out. */
static const pc_dump_arg *one_arg(pc_dump **out, const char *arg)
{
    char text[8192];
    snprintf(text, sizeof text,
             "{\"data\": {\n\"Functional.f.0.forward\": {\"input_args\": [\n%s\n], "
             "\"input_kwargs\": {}}}}",
             arg);
    *out = NULL;
    if (pc_dump_parse(out, text, strlen(text), "dump.json") != PC_OK)
        fail_msg("%s: %s", arg, pc_error_message());
    const pc_dump_api *api = &(*out)->apis[0];
    assert_null(api->forward.error);
    assert_int_equal(api->forward.input_args.u.list.count, 1);
    return &api->forward.input_args.u.list.items[0];
}

typedef struct bad_case {
    const char *arg;
    pc_dump_arg_kind kind;
    const char *error; /* NULL: no error expected */
} bad_case;

static void run_cases(const bad_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        pc_dump *d;
        const pc_dump_arg *a = one_arg(&d, cases[i].arg);
        if (a->kind != cases[i].kind)
            fail_msg("%s: kind %s, expected %s", cases[i].arg, pc_dump_arg_kind_name(a->kind),
                     pc_dump_arg_kind_name(cases[i].kind));
        if (cases[i].error) {
            if (!a->error)
                fail_msg("%s: no error, expected %s", cases[i].arg, cases[i].error);
            assert_string_equal(a->error, cases[i].error);
        } else if (a->error) {
            fail_msg("%s: unexpected error %s", cases[i].arg, a->error);
        }
        pc_dump_free(d);
    }
}

static void test_wrong_value_types(void **state)
{
    (void)state;
    static const bad_case cases[] = {
        {"{\"type\": \"int\", \"value\": \"x\"}", PC_DUMP_ARG_INT,
         "input_args[0]: \"value\" of an int record must be an integer, found string "
         "(dump.json:3:26)"},
        {"{\"type\": \"int\", \"value\": 1.5}", PC_DUMP_ARG_INT,
         "input_args[0]: \"value\" of an int record must be an integer, found number "
         "(dump.json:3:26)"},
        {"{\"type\": \"int\", \"value\": 99999999999999999999}", PC_DUMP_ARG_INT,
         "input_args[0]: \"value\" of an int record must be an integer, found an integer "
         "outside the 64-bit range (dump.json:3:26)"},
        {"{\"type\": \"int\", \"value\": true}", PC_DUMP_ARG_INT,
         "input_args[0]: \"value\" of an int record must be an integer, found boolean "
         "(dump.json:3:26)"},
        {"{\"type\": \"int\"}", PC_DUMP_ARG_INT,
         "input_args[0]: a \"int\" record without \"value\" (dump.json:3:1)"},
        {"{\"type\": \"int\", \"value\": -9223372036854775808}", PC_DUMP_ARG_INT, NULL},
        {"{\"type\": \"float\", \"value\": \"1.0\"}", PC_DUMP_ARG_FLOAT,
         "input_args[0]: \"value\" of a float record must be a number, found string "
         "(dump.json:3:28)"},
        {"{\"type\": \"float\", \"value\": NaN}", PC_DUMP_ARG_FLOAT, NULL},
        {"{\"type\": \"float\", \"value\": 3}", PC_DUMP_ARG_FLOAT, NULL},
        {"{\"type\": \"bool\", \"value\": 1}", PC_DUMP_ARG_BOOL,
         "input_args[0]: \"value\" of a bool record must be true or false, found integer "
         "(dump.json:3:27)"},
        {"{\"type\": \"str\", \"value\": null}", PC_DUMP_ARG_STR,
         "input_args[0]: \"value\" of a str record must be a string, found null "
         "(dump.json:3:26)"},
        {"{\"type\": \"slice\", \"value\": [1, 2]}", PC_DUMP_ARG_SLICE,
         "input_args[0]: \"value\" of a slice record must be [start, stop, step], found a list "
         "of length < 3 (dump.json:3:28)"},
        {"{\"type\": \"slice\", \"value\": [1, \"a\", null]}", PC_DUMP_ARG_SLICE,
         "input_args[0]: \"value\" of a slice record must be [start, stop, step] of integers or "
         "null, found string at index 1 (dump.json:3:32)"},
        {"{\"type\": \"slice\", \"value\": \"1:2\"}", PC_DUMP_ARG_SLICE,
         "input_args[0]: \"value\" of a slice record must be [start, stop, step], found string "
         "(dump.json:3:28)"},
        {"{\"type\": \"slice\", \"value\": [-1, null, 2]}", PC_DUMP_ARG_SLICE, NULL},
        {"{\"type\": \"ellipsis\"}", PC_DUMP_ARG_ELLIPSIS, NULL},
        {"{\"type\": \"torch.Size\", \"value\": [2, 2.5]}", PC_DUMP_ARG_SIZE,
         "input_args[0]: \"value\" of a torch.Size record must be a list of integers, found "
         "number at index 1 (dump.json:3:37)"},
        {"{\"type\": \"torch.Size\", \"value\": {}}", PC_DUMP_ARG_SIZE,
         "input_args[0]: \"value\" of a torch.Size record must be a list of integers, found "
         "object (dump.json:3:33)"},
        {"{\"type\": \"torch.Size\", \"value\": []}", PC_DUMP_ARG_SIZE, NULL},
        {"{\"type\": \"torch.dtype\", \"value\": 5}", PC_DUMP_ARG_DTYPE,
         "input_args[0]: \"value\" of a torch.dtype record must be a string, found integer "
         "(dump.json:3:34)"},
        {"{\"type\": \"torch.dtype\", \"value\": \"torch.quint8\"}", PC_DUMP_ARG_DTYPE, NULL},
        {"{\"type\": \"torch.device\", \"value\": [0]}", PC_DUMP_ARG_DEVICE,
         "input_args[0]: \"value\" of a torch.device record must be a string or an integer, "
         "found array (dump.json:3:35)"},
        {"{\"type\": \"torch.device\", \"value\": 0}", PC_DUMP_ARG_DEVICE, NULL},
        {"{\"type\": 5, \"value\": 1}", PC_DUMP_ARG_OTHER,
         "input_args[0]: \"type\" must be a string, found integer (dump.json:3:10)"},
        {"{\"type\": \"numpy.ndarray\", \"dtype\": \"float32\", \"shape\": [2]}", PC_DUMP_ARG_NUMPY,
         "input_args[0]: numpy.ndarray is not supported now (dump.json:3:10)"},
        {"{\"type\": \"numpy.float32\", \"value\": 1.5}", PC_DUMP_ARG_NUMPY, NULL},
        {"{\"type\": \"float32\", \"value\": 1.5}", PC_DUMP_ARG_NUMPY, NULL},
        {"{\"type\": \"bool_\", \"value\": true}", PC_DUMP_ARG_NUMPY, NULL},
        {"{\"type\": \"torch.ProcessGroup\", \"group_ranks\": [0, 1]}", PC_DUMP_ARG_OTHER, NULL},
        {"{\"type\": \"torch.distributed.tensor.DTensor\", \"dtype\": \"torch.float32\"}",
         PC_DUMP_ARG_OTHER, NULL},
        {"{}", PC_DUMP_ARG_OBJECT, NULL},
        {"{\"a\": {\"type\": \"int\", \"value\": \"q\"}}", PC_DUMP_ARG_OBJECT, NULL},
        {"5", PC_DUMP_ARG_RAW,
         "input_args[0]: a bare integer where an argument record was expected (dump.json:3:1)"},
        {"\"abc\"", PC_DUMP_ARG_RAW,
         "input_args[0]: a bare string where an argument record was expected (dump.json:3:1)"},
        {"[1, {\"type\": \"bool\", \"value\": false}]", PC_DUMP_ARG_LIST, NULL},
    };
    run_cases(cases, sizeof cases / sizeof cases[0]);

    /* errors deeper down carry their own path */
    pc_dump *d;
    const pc_dump_arg *a = one_arg(&d, "[0, [{\"x\": {\"type\": \"bool\", \"value\": 1}}]]");
    const pc_dump_arg *inner = &a->u.list.items[1].u.list.items[0].u.object.fields[0].value;
    assert_string_equal(inner->error,
                        "input_args[0][1][0].x: \"value\" of a bool record must be true or false, "
                        "found integer (dump.json:3:38)");
    assert_string_equal(a->u.list.items[0].error,
                        "input_args[0][0]: a bare integer where an argument record was expected "
                        "(dump.json:3:2)");
    char path[128];
    pc_dump_arg_path(&d->apis[0], inner, path, sizeof path);
    assert_string_equal(path, "input_args[0][1][0].x");
    pc_dump_free(d);
}

static void test_wrong_tensor_fields(void **state)
{
    (void)state;
#define T(extra) "{\"type\": \"torch.Tensor\", " extra "}"
    static const bad_case cases[] = {
        {T("\"dtype\": 5, \"shape\": [1]"), PC_DUMP_ARG_TENSOR,
         "input_args[0]: \"dtype\" must be a string, found integer (dump.json:3:35)"},
        {T("\"dtype\": \"torch.float32\", \"shape\": \"2x3\""), PC_DUMP_ARG_TENSOR,
         "input_args[0]: \"shape\" must be a list of integers, found string (dump.json:3:61)"},
        {T("\"dtype\": \"torch.float32\", \"shape\": [2, \"3\"]"), PC_DUMP_ARG_TENSOR,
         "input_args[0]: \"shape\" must be a list of integers, found string at index 1 "
         "(dump.json:3:65)"},
        {T("\"dtype\": \"torch.float32\", \"shape\": [2, 3.0]"), PC_DUMP_ARG_TENSOR,
         "input_args[0]: \"shape\" must be a list of integers, found number at index 1 "
         "(dump.json:3:65)"},
        {T("\"dtype\": \"torch.float32\", \"shape\": [2], \"data_name\": 7"), PC_DUMP_ARG_TENSOR,
         "input_args[0]: \"data_name\" must be a string, found integer (dump.json:3:79)"},
        {T("\"dtype\": \"torch.float32\", \"shape\": [2], \"datapath\": []"), PC_DUMP_ARG_TENSOR,
         "input_args[0]: \"datapath\" must be a string, found array (dump.json:3:78)"},
        {T("\"dtype\": \"torch.float32\", \"shape\": [2], \"md5\": false"), PC_DUMP_ARG_TENSOR,
         "input_args[0]: \"md5\" must be a string, found boolean (dump.json:3:73)"},
        /* kept as they are: the runner decides (msprobe: "Data info Min: ..., Max: ..., info
         * type must be int or float." for non-numbers, "Dtype is not supported" ...) */
        {T("\"dtype\": \"torch_npu.HiFloat8Tensor\", \"shape\": [2], \"Max\": \"big\""),
         PC_DUMP_ARG_TENSOR, NULL},
        {T("\"dtype\": null, \"shape\": [2], \"Max\": [1], \"Min\": {\"a\": 1}"),
         PC_DUMP_ARG_TENSOR, NULL},
        {T("\"shape\": [-1, 3], \"requires_grad\": \"yes\""), PC_DUMP_ARG_TENSOR, NULL},
        {T("\"dtype\": \"torch.float32\""), PC_DUMP_ARG_TENSOR, NULL},
    };
#undef T
    run_cases(cases, sizeof cases / sizeof cases[0]);

    pc_dump *d;
    const pc_dump_arg *a = one_arg(&d, "{\"type\": \"torch.nn.parameter.Parameter\", \"dtype\": "
                                       "\"torch_npu.HiFloat8Tensor\", \"shape\": [2], \"Max\": "
                                       "\"big\", \"requires_grad\": \"yes\", \"datapath\": "
                                       "\"a.npy\", \"data_name\": \"b.pt\"}");
    const pc_dump_tensor *t = a->u.tensor;
    assert_string_equal(a->type, "torch.nn.parameter.Parameter");
    assert_int_equal(t->dtype, PC_DTYPE_INVALID);
    assert_string_equal(t->dtype_name, "torch_npu.HiFloat8Tensor");
    assert_int_equal(t->max.kind, PC_DUMP_VALUE_STR);
    assert_string_equal(t->max.u.s, "big");
    assert_false(pc_dump_value_is_number(&t->max));
    assert_int_equal(t->min.kind, PC_DUMP_VALUE_ABSENT);
    assert_true(t->requires_grad);                        /* Python truthiness */
    assert_string_equal(pc_dump_tensor_file(t), "a.npy"); /* the legacy key wins */
    pc_dump_free(d);

    /* legacy statistics and aliases */
    a = one_arg(&d, "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.half\", \"shape\": [3], "
                    "\"Max\": Infinity, \"Min\": 1, \"Max_except_inf_nan\": 7.5, "
                    "\"Min_except_inf_nan\": -2, \"requires_grad\": 0}");
    t = a->u.tensor;
    assert_int_equal(t->dtype, PC_DTYPE_F16);
    assert_string_equal(t->dtype_name, "torch.half");
    pc_assert_same_f64(t->max_except_inf_nan.u.f, 7.5);
    assert_int_equal(t->min_except_inf_nan.u.i, -2);
    assert_int_equal(t->min.kind, PC_DUMP_VALUE_INT);
    assert_false(t->requires_grad);
    pc_dump_free(d);
}

static void test_deep_nesting(void **state)
{
    (void)state;
    char text[4096];
    size_t n = 0;
    for (int i = 0; i < 402; i++)
        text[n++] = '[';
    for (int i = 0; i < 402; i++)
        text[n++] = ']';
    text[n] = '\0';
    pc_dump *d;
    const pc_dump_arg *a = one_arg(&d, text);
    for (int depth = 0; depth < 400; depth++) {
        assert_int_equal(a->kind, PC_DUMP_ARG_LIST);
        assert_null(a->error);
        a = &a->u.list.items[0];
    }
    /* input_args is depth 0, its element depth 1: depth 401 is one too deep */
    assert_int_equal(a->kind, PC_DUMP_ARG_NULL);
    assert_non_null(strstr(a->error, ": arguments nested deeper than 400 levels (dump.json:3:"));
    pc_dump_free(d);
}

static void test_entry_errors(void **state)
{
    (void)state;
    static const struct {
        const char *body;
        bool forward;
        const char *error;
    } cases[] = {
        {"5", true, "the entry must be an object, found integer (dump.json:2:"},
        {"{\"input_args\": {\"a\": 1}}", true,
         "\"input_args\" must be a list, found object (dump.json:2:"},
        {"{\"input_args\": [], \"input_kwargs\": []}", true,
         "\"input_kwargs\" must be an object, found array (dump.json:2:"},
        {"{\"input\": 5}", false, "\"input\" must be a list, found integer (dump.json:2:"},
        {"[]", false, "the entry must be an object, found array (dump.json:2:"},
        /* falsy input_args mean "no args" for msprobe: not an error */
        {"{\"input_args\": null}", true, NULL},
        {"{\"input_args\": 0}", true, NULL},
        {"{\"input_args\": {}}", true, NULL},
        {"{}", true, NULL},
        {"{\"input\": null}", false, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, "{\"data\": {\n\"Functional.f.0.%s\": %s}}",
                 cases[i].forward ? "forward" : "backward", cases[i].body);
        pc_dump *d = NULL;
        if (pc_dump_parse(&d, text, strlen(text), "dump.json") != PC_OK)
            fail_msg("%s: %s", text, pc_error_message());
        const pc_dump_entry *e = cases[i].forward ? &d->apis[0].forward : &d->backwards[0].entry;
        if (cases[i].error) {
            assert_non_null(e->error);
            if (strncmp(e->error, cases[i].error, strlen(cases[i].error)) != 0)
                fail_msg("%s: %s", cases[i].body, e->error);
        } else {
            assert_null(e->error);
        }
        pc_dump_free(d);
    }
    /* the entry itself keeps its name and place when its body is unusable */
    const char *text = "{\"data\": {\n\"Functional.f.0.forward\": \"oops\"}}";
    pc_dump *d = NULL;
    assert_int_equal(pc_dump_parse(&d, text, strlen(text), "dump.json"), PC_OK);
    assert_string_equal(d->apis[0].full_name, "Functional.f.0");
    assert_int_equal(d->apis[0].forward.line, 2);
    assert_string_equal(d->apis[0].forward.error,
                        "the entry must be an object, found string (dump.json:2:27)");
    assert_int_equal(d->apis[0].forward.input_args.kind, PC_DUMP_ARG_ABSENT);
    pc_dump_free(d);
}

/* A tensor argument with the given shape and dtype, checked for allocation. */
static pc_status check_shape(const char *shape, const char *dtype, size_t max_bytes, int64_t *numel,
                             size_t *nbytes)
{
    char arg[512];
    snprintf(arg, sizeof arg,
             "{\"type\": \"torch.Tensor\", \"dtype\": \"%s\", \"shape\": %s, \"Max\": 1.0, "
             "\"Min\": 0.0}",
             dtype, shape);
    pc_dump *d;
    const pc_dump_arg *a = one_arg(&d, arg);
    assert_null(a->error); /* the record itself is fine: statistics mode can describe it */
    pc_status st = pc_dump_tensor_check(&d->apis[0], a, max_bytes, numel, nbytes);
    pc_dump_free(d);
    return st;
}

static void test_shapes_checked_where_data_is_made(void **state)
{
    (void)state;
    int64_t numel = -7;
    size_t nbytes = 7;
    assert_int_equal(check_shape("[2, 3]", "torch.float32", 0, &numel, &nbytes), PC_OK);
    assert_true(numel == 6 && nbytes == 24);
    assert_int_equal(check_shape("[]", "torch.float16", 0, &numel, &nbytes), PC_OK);
    assert_true(numel == 1 && nbytes == 2);
    assert_int_equal(check_shape("[0, 4096]", "torch.bfloat16", 0, &numel, &nbytes), PC_OK);
    assert_true(numel == 0 && nbytes == 0);

    assert_int_equal(check_shape("[-1, 3]", "torch.float32", 0, NULL, NULL), PC_ERR_INVALID);
    assert_string_equal(pc_error_message(),
                        "Functional.f.0: input_args[0]: tensor of shape [-1, 3] dtype float32 has "
                        "a negative dimension -1");
    /* 10^15 elements: described fine, refused before anything is allocated */
    assert_int_equal(check_shape("[1000000, 1000000000]", "torch.float32", 0, NULL, NULL),
                     PC_ERR_RANGE);
    assert_string_equal(pc_error_message(),
                        "Functional.f.0: input_args[0]: tensor of shape [1000000, 1000000000] "
                        "dtype float32 needs 4000000000000000 bytes, more than precheck's limit "
                        "of 281474976710656 bytes");
    assert_int_equal(check_shape("[10000000000, 10000000000]", "torch.int8", 0, NULL, NULL),
                     PC_ERR_RANGE);
    assert_string_equal(pc_error_message(),
                        "Functional.f.0: input_args[0]: tensor of shape [10000000000, "
                        "10000000000] dtype int8 has more elements than fit in 64 bits");
    assert_int_equal(check_shape("[1024, 1024]", "torch.float32", 1 << 20, NULL, NULL),
                     PC_ERR_RANGE);
    assert_string_equal(pc_error_message(),
                        "Functional.f.0: input_args[0]: a tensor of shape [1024, 1024] "
                        "(torch.float32) has 1048576 elements, 4194304 bytes, more than the "
                        "limit of 1048576 bytes");
    assert_int_equal(
        check_shape("[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]", "torch.float32", 0, NULL, NULL),
        PC_ERR_UNSUPPORTED);
    assert_string_equal(pc_error_message(),
                        "Functional.f.0: input_args[0]: a tensor of 17 dimensions, more than the "
                        "16 precheck supports");
    assert_int_equal(check_shape("[4, -2]", "torch_npu.HiFloat8Tensor", 0, NULL, NULL),
                     PC_ERR_INVALID);
    assert_string_equal(pc_error_message(),
                        "Functional.f.0: input_args[0]: tensor of shape [4, -2] "
                        "(torch_npu.HiFloat8Tensor) has a negative dimension -2");

    pc_dump *d;
    const pc_dump_arg *a =
        one_arg(&d, "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\"}");
    assert_int_equal(pc_dump_tensor_check(&d->apis[0], a, 0, NULL, NULL), PC_ERR_INVALID);
    assert_string_equal(pc_error_message(),
                        "Functional.f.0: input_args[0]: the tensor record has no valid \"shape\"");
    pc_dump_free(d);
    a = one_arg(&d, "{\"type\": \"int\", \"value\": 3}");
    assert_int_equal(pc_dump_tensor_check(&d->apis[0], a, 0, NULL, NULL), PC_ERR_INVALID);
    assert_string_equal(pc_error_message(), "Functional.f.0: input_args[0]: not a tensor record");
    assert_int_equal(pc_dump_tensor_check(NULL, a, 0, NULL, NULL), PC_ERR_INVALID);
    assert_string_equal(pc_error_message(), "tensor argument: not a tensor record");
    pc_dump_free(d);

    /* kwargs and outputs are named too */
    const char *text =
        "{\"data\": {\"Torch.f.0.forward\": {\"input_args\": [], \"input_kwargs\": {\"weight\": "
        "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [-3]}}, "
        "\"output\": [null, {\"type\": \"torch.Tensor\", \"dtype\": \"torch.int64\", \"shape\": "
        "[-4]}]}}}";
    assert_int_equal(pc_dump_parse(&d, text, strlen(text), "dump.json"), PC_OK);
    const pc_dump_api *api = &d->apis[0];
    assert_int_equal(pc_dump_tensor_check(api, &api->forward.kwargs[0].value, 0, NULL, NULL),
                     PC_ERR_INVALID);
    assert_string_equal(pc_error_message(),
                        "Torch.f.0: input_kwargs[\"weight\"]: tensor of shape [-3] dtype float32 "
                        "has a negative dimension -3");
    assert_int_equal(pc_dump_tensor_check(api, &api->forward.output.u.list.items[1], 0, NULL, NULL),
                     PC_ERR_INVALID);
    assert_string_equal(pc_error_message(),
                        "Torch.f.0: output[1]: tensor of shape [-4] dtype int64 has a negative "
                        "dimension -4");
    pc_dump_free(d);
}

/* Every prefix cut (sampled densely near both ends) is a clean error with a position. */
static void test_truncated_real_dump(void **state)
{
    (void)state;
    size_t size;
    char *full = pc_test_slurp(DUMPS "cnn_tensor/step0/rank/dump.json", &size);
    size_t last = size;
    while (last > 0 && full[last - 1] != '}')
        last--;
    size_t tried = 0;
    for (size_t k = 0; k < last; k += (k < 300 || k + 300 > last) ? 1 : 37) {
        char *copy = malloc(k ? k : 1); /* exact size: ASan sees any read past the end */
        memcpy(copy, full, k);
        pc_dump *d = NULL;
        pc_status st = pc_dump_parse(&d, copy, k, "dump.json");
        if (st != PC_ERR_FORMAT)
            fail_msg("prefix %zu: status %d (%s)", k, st, pc_error_message());
        assert_null(d);
        if (strncmp(pc_error_message(), "dump.json:", 10) != 0)
            fail_msg("prefix %zu: %s", k, pc_error_message());
        free(copy);
        tried++;
    }
    assert_true(tried > 1000);
    free(full);
}

/* Random byte corruptions of a real dump: parsed or a clean error, never a crash. */
static void test_corrupted_real_dump(void **state)
{
    (void)state;
    size_t size;
    char *full = pc_test_slurp(DUMPS "ew_fp16_tensor/step0/rank/dump.json", &size);
    char *copy = malloc(size);
    uint64_t s = 0x9e3779b97f4a7c15ULL;
    const char bytes[] = "{}[]\",:\\0123456789.-eENIaftn \n\t\x01\x80\xff";
    size_t ok = 0, bad = 0;
    for (int it = 0; it < 600; it++) {
        memcpy(copy, full, size);
        for (int k = 0; k < 1 + it % 3; k++) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            copy[s % size] = bytes[(s >> 32) % (sizeof bytes - 1)];
        }
        pc_dump *d = NULL;
        pc_status st = pc_dump_parse(&d, copy, size, "dump.json");
        if (st == PC_OK) {
            ok++;
            assert_non_null(d);
            pc_dump_free(d);
        } else {
            bad++;
            assert_int_equal(st, PC_ERR_FORMAT);
            assert_null(d);
            assert_true(strlen(pc_error_message()) > 10);
        }
    }
    assert_true(ok > 0 && bad > 0);
    free(copy);
    free(full);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wrong_value_types),
        cmocka_unit_test(test_wrong_tensor_fields),
        cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test(test_entry_errors),
        cmocka_unit_test(test_shapes_checked_where_data_is_made),
        cmocka_unit_test(test_truncated_real_dump),
        cmocka_unit_test(test_corrupted_real_dump),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
