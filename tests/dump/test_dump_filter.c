/* Which dumped APIs run_ut runs: the -filter_api dedup against what msprobe's
 * preprocess_forward_content keeps (the expected vector was computed by running that Python
 * function on the same document), the white and black lists, and the wrappable API names. */
#include "pc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/dump/dump.h"
#include "precheck/dump/filter.h"

/* Python semantics on purpose: dict order ignored, Max/Min dropped from top-level argument
 * dicts only, 1 == 1.0 == true, -0.0 == 0, NaN == NaN (json's one NaN object), inf from 1e400
 * == Infinity, distinct big integers distinct, non-dict arguments ignored, strings and dicts
 * as input_args give an empty list, a later variant compared with every kept one. */
static const char dedup_doc[] =
    "{\"data\": {\n"
    "\"Torch.cat.0.forward\": {\"input_args\": [[{\"type\": \"torch.Tensor\", \"dtype\": "
    "\"torch.float32\", \"shape\": [2], \"Max\": 1.0, \"Min\": 0.0, \"Mean\": 0.5, \"Norm\": "
    "1.0}]], \"input_kwargs\": {\"dim\": {\"type\": \"int\", \"value\": 0}}},\n"
    "\"Torch.cat.1.forward\": {\"input_args\": [[{\"type\": \"torch.Tensor\", \"dtype\": "
    "\"torch.float16\", \"shape\": [9], \"Max\": 5.0}]], \"input_kwargs\": {\"dim\": {\"type\": "
    "\"int\", \"value\": 0}}},\n"
    "\"Torch.cat.2.forward\": {\"input_args\": [[]], \"input_kwargs\": {\"dim\": {\"type\": "
    "\"int\", \"value\": 1}}},\n"
    "\"Tensor.add.0.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": "
    "\"torch.float32\", \"shape\": [2], \"Max\": 1.0, \"Min\": 0.0, \"Mean\": 0.5, \"Norm\": 1.0, "
    "\"requires_grad\": true}, {\"type\": \"int\", \"value\": 1}], \"input_kwargs\": {}},\n"
    "\"Tensor.add.1.forward\": {\"input_args\": [{\"requires_grad\": true, \"Norm\": 1.0, "
    "\"Mean\": 0.5, \"Min\": -7.0, \"Max\": 9.0, \"shape\": [2], \"dtype\": \"torch.float32\", "
    "\"type\": \"torch.Tensor\"}, {\"type\": \"int\", \"value\": 1.0}], \"input_kwargs\": {}},\n"
    "\"Tensor.add.2.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": "
    "\"torch.float32\", \"shape\": [2], \"Max\": 1.0, \"Min\": 0.0, \"Mean\": 0.25, \"Norm\": 1.0, "
    "\"requires_grad\": true}, {\"type\": \"int\", \"value\": true}], \"input_kwargs\": {}},\n"
    "\"Tensor.add.3.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": "
    "\"torch.float32\", \"shape\": [2], \"Max\": 3.0, \"Min\": 0.0, \"Mean\": 0.25, \"Norm\": 1.0, "
    "\"requires_grad\": true}, {\"type\": \"int\", \"value\": 1}], \"input_kwargs\": {}},\n"
    "\"Tensor.add.4.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": "
    "\"torch.float32\", \"shape\": [2], \"Max\": 1.0, \"Min\": 0.0, \"Mean\": 0.5, \"Norm\": 1.0, "
    "\"requires_grad\": true}, {\"type\": \"int\", \"value\": 1}], \"input_kwargs\": {\"alpha\": "
    "{\"type\": \"float\", \"value\": NaN}}},\n"
    "\"Tensor.add.5.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": "
    "\"torch.float32\", \"shape\": [2], \"Max\": 1.0, \"Min\": 0.0, \"Mean\": 0.5, \"Norm\": 1.0, "
    "\"requires_grad\": true}, {\"type\": \"int\", \"value\": 1}], \"input_kwargs\": {\"alpha\": "
    "{\"value\": NaN, \"type\": \"float\"}}},\n"
    "\"Tensor.add.6.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": "
    "\"torch.float32\", \"shape\": [2], \"Max\": 1.0, \"Min\": 0.0, \"Mean\": 0.5, \"Norm\": 1.0, "
    "\"requires_grad\": true}, {\"type\": \"int\", \"value\": 1}], \"input_kwargs\": {\"alpha\": "
    "{\"value\": -0.0, \"type\": \"float\"}}},\n"
    "\"Tensor.add.7.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": "
    "\"torch.float32\", \"shape\": [2], \"Max\": 1.0, \"Min\": 0.0, \"Mean\": 0.5, \"Norm\": 1.0, "
    "\"requires_grad\": true}, {\"type\": \"int\", \"value\": 1}], \"input_kwargs\": {\"alpha\": "
    "{\"value\": 0, \"type\": \"float\"}}},\n"
    "\"Functional.relu.0.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": "
    "\"torch.float32\", \"shape\": [2], \"Max\": 1.0, \"Min\": 0.0}], \"input_kwargs\": {\"w\": "
    "{\"type\": \"torch.Tensor\", \"Max\": 1.0}}},\n"
    "\"Functional.relu.1.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": "
    "\"torch.float32\", \"shape\": [2], \"Max\": 2.0, \"Min\": 0.0}], \"input_kwargs\": {\"w\": "
    "{\"type\": \"torch.Tensor\", \"Max\": 2.0}}},\n"
    "\"Functional.relu.2.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": "
    "\"torch.float32\", \"shape\": [2], \"Max\": 3.0, \"Min\": 1.0}, null, [1, 2]], "
    "\"input_kwargs\": {\"w\": {\"type\": \"torch.Tensor\", \"Max\": 1.0}}},\n"
    "\"Functional.relu.3.forward\": {\"input_args\": \"abc\", \"input_kwargs\": {\"w\": {\"type\": "
    "\"torch.Tensor\", \"Max\": 1.0}}},\n"
    "\"Functional.relu.4.forward\": {\"input_args\": {\"k\": 1}, \"input_kwargs\": {\"w\": "
    "{\"type\": \"torch.Tensor\", \"Max\": 1.0}}},\n"
    "\"Functional.gelu.0.forward\": {\"input_args\": [], \"input_kwargs\": {\"a\": [1, {\"b\": 2, "
    "\"c\": [true]}]}},\n"
    "\"Functional.gelu.1.forward\": {\"input_args\": [], \"input_kwargs\": {\"a\": [1, {\"c\": "
    "[1.0], \"b\": 2.0}]}},\n"
    "\"Functional.gelu.2.forward\": {\"input_args\": [], \"input_kwargs\": {\"a\": [{\"c\": [1.0], "
    "\"b\": 2.0}, 1]}},\n"
    "\"Functional.gelu.3.forward\": {\"input_args\": [{\"type\": \"str\", \"value\": \"x\", "
    "\"type\": \"str\"}], \"input_kwargs\": {}},\n"
    "\"Functional.gelu.4.forward\": {\"input_args\": [{\"type\": \"str\", \"value\": \"x\"}], "
    "\"input_kwargs\": {}},\n"
    "\"Functional.gelu.5.forward\": {\"input_args\": [{\"type\": \"str\", \"value\": "
    "\"x\\u00e9\"}], \"input_kwargs\": {}},\n"
    "\"Functional.gelu.6.forward\": {\"input_args\": [{\"type\": \"str\", \"value\": "
    "\"x\\u00e9\"}], \"input_kwargs\": {}},\n"
    "\"Other.gelu.0.forward\": {\"input_args\": [{\"type\": \"str\", \"value\": \"x\"}], "
    "\"input_kwargs\": {}},\n"
    "\"Functional.silu.0.forward\": {\"input_args\": [{\"type\": \"float\", \"value\": 1e400}], "
    "\"input_kwargs\": {}},\n"
    "\"Functional.silu.1.forward\": {\"input_args\": [{\"type\": \"float\", \"value\": Infinity}], "
    "\"input_kwargs\": {}},\n"
    "\"Functional.silu.2.forward\": {\"input_args\": [{\"type\": \"int\", \"value\": "
    "12345678901234567890123}], \"input_kwargs\": {}},\n"
    "\"Functional.silu.3.forward\": {\"input_args\": [{\"type\": \"int\", \"value\": "
    "12345678901234567890124}], \"input_kwargs\": {}}\n"
    "}}\n";

/* msprobe keeps these (python3, preprocess_forward_content on dedup_doc). */
static const bool dedup_expected[] = {1, 0, 1, 1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 0,
                                      1, 0, 1, 0, 1, 1, 0, 1, 0, 1, 1, 0, 1, 1};

static pc_dump *parse(const char *text)
{
    pc_dump *d = NULL;
    if (pc_dump_parse(&d, text, strlen(text), "dump.json") != PC_OK)
        fail_msg("%s", pc_error_message());
    return d;
}

static void test_dedup_matches_msprobe(void **state)
{
    (void)state;
    pc_dump *d = parse(dedup_doc);
    size_t n = sizeof dedup_expected / sizeof dedup_expected[0];
    assert_int_equal(d->api_count, n);
    bool keep[sizeof dedup_expected / sizeof dedup_expected[0]];
    size_t kept = 0;
    assert_int_equal(pc_dump_filter_dedup(d, keep, &kept), PC_OK);
    size_t want = 0;
    for (size_t i = 0; i < n; i++) {
        if (keep[i] != dedup_expected[i])
            fail_msg("%s: keep %d, msprobe %d", d->apis[i].full_name, keep[i], dedup_expected[i]);
        want += dedup_expected[i];
    }
    assert_int_equal(kept, want);
    pc_dump_free(d);
}

static void test_dedup_real_dumps_keep_all(void **state)
{
    (void)state;
    /* msprobe keeps every API of these dumps (no two calls look alike) */
    const char *cases[] = {"gpt_stats", "cnn_tensor", "ew_fp16_tensor"};
    for (size_t c = 0; c < 3; c++) {
        char path[512];
        snprintf(path, sizeof path, PC_TEST_FIXTURES "/msprobe/dumps/%s/step0/rank/dump.json",
                 cases[c]);
        pc_dump *d = NULL;
        assert_int_equal(pc_dump_open(&d, path), PC_OK);
        bool *keep = calloc(d->api_count, sizeof *keep);
        size_t kept = 0;
        assert_int_equal(pc_dump_filter_dedup(d, keep, &kept), PC_OK);
        assert_int_equal(kept, d->api_count);
        free(keep);
        pc_dump_free(d);
    }
}

static void test_dedup_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        pc_status status;
        const char *message;
    } cases[] = {
        {"{\"data\": {\"A.b.0.forward\": {\"input_args\": [], \"input_kwargs\": {}},\n"
         "\"@x.0.forward\": {}}}",
         PC_ERR_INVALID, "api name contains special characters, please check!"},
        {"{\"data\": {\"A.b.0.forward\": {\"input_args\": []}}}", PC_ERR_FORMAT,
         "-filter_api: the entry A.b.0.forward has no \"input_kwargs\" (dump.json:1:28)"},
        {"{\"data\": {\"A.b.0.forward\": {\"input_kwargs\": {}}}}", PC_ERR_FORMAT,
         "-filter_api: the entry A.b.0.forward has no \"input_args\" (dump.json:1:28)"},
        {"{\"data\": {\"A.b.0.forward\": {\"input_args\": null, \"input_kwargs\": {}}}}",
         PC_ERR_FORMAT,
         "-filter_api: \"input_args\" of A.b.0.forward must be a list, found null "
         "(dump.json:1:43)"},
        {"{\"data\": {\"A.b.0.forward\": 3}}", PC_ERR_FORMAT,
         "-filter_api: the entry A.b.0.forward is not an object (dump.json:1:28)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pc_dump *d = parse(cases[i].text);
        bool keep[4];
        assert_int_equal(pc_dump_filter_dedup(d, keep, NULL), cases[i].status);
        assert_string_equal(pc_error_message(), cases[i].message);
        pc_dump_free(d);
    }
    /* an empty dump filters to nothing */
    pc_dump *d = parse("{\"data\": {}}");
    size_t kept = 9;
    assert_int_equal(pc_dump_filter_dedup(d, NULL, &kept), PC_OK);
    assert_int_equal(kept, 0);
    pc_dump_free(d);
}

static void test_lists(void **state)
{
    (void)state;
    char msg[128];
    /* the built-in black list applies with or without configured lists */
    for (size_t i = 0; i < pc_api_builtin_black_list_count; i++) {
        assert_true(pc_api_lists_skip(NULL, pc_api_builtin_black_list[i]));
        pc_api_lists empty = {0};
        assert_true(pc_api_lists_skip(&empty, pc_api_builtin_black_list[i]));
    }
    assert_int_equal(pc_api_builtin_black_list_count, 7);
    assert_false(pc_api_lists_skip(NULL, "conv2d"));
    assert_false(pc_api_lists_skip(NULL, NULL));
    const char *white[] = {"conv2d", "matmul", "to"};
    const char *black[] = {"matmul", "__add__"};
    pc_api_lists l = {white, 3, black, 2};
    assert_false(pc_api_lists_skip(&l, "conv2d"));
    assert_true(pc_api_lists_skip(&l, "matmul")); /* black wins over white */
    assert_true(pc_api_lists_skip(&l, "__add__"));
    assert_true(pc_api_lists_skip(&l, "relu")); /* not in a non-empty white list */
    assert_true(pc_api_lists_skip(&l, "to"));   /* built-in black wins over white */
    pc_api_lists only_black = {NULL, 0, black, 2};
    assert_false(pc_api_lists_skip(&only_black, "relu"));
    assert_true(pc_api_lists_skip(&only_black, "__add__"));
    /* matching is on the bare api name: "linalg.norm", not "Torch.linalg.norm" */
    const char *w2[] = {"linalg.norm"};
    pc_api_lists l2 = {w2, 1, NULL, 0};
    assert_false(pc_api_lists_skip(&l2, "linalg.norm"));
    assert_true(pc_api_lists_skip(&l2, "norm"));
    assert_int_equal(pc_api_lists_skip_message("conv2d", msg, sizeof msg), 52);
    assert_string_equal(msg, "API conv2d in black list or not in white list. SKIP.");
}

static void test_wrappable_names(void **state)
{
    (void)state;
    const size_t want[PC_API_WRAP_LIST_COUNT] = {126, 491, 509, 115};
    size_t total = 0;
    for (int l = 0; l < PC_API_WRAP_LIST_COUNT; l++) {
        size_t n = 0;
        const char *const *names = pc_api_wrap_list_names((pc_api_wrap_list)l, &n);
        assert_int_equal(n, want[l]);
        for (size_t i = 0; i < n; i++)
            if (!pc_api_is_wrappable(names[i]))
                fail_msg("list %d: %s is not found", l, names[i]);
        total += n;
    }
    assert_int_equal(total, 1241);
    size_t n = 9;
    assert_null(pc_api_wrap_list_names(PC_API_WRAP_LIST_COUNT, &n));
    assert_int_equal(n, 0);
    /* the union has 858 distinct names: count them by look-up of every name once */
    size_t distinct = 0;
    for (int l = 0; l < PC_API_WRAP_LIST_COUNT; l++) {
        size_t m;
        const char *const *names = pc_api_wrap_list_names((pc_api_wrap_list)l, &m);
        for (size_t i = 0; i < m; i++) {
            bool seen = false;
            for (int l2 = 0; l2 <= l && !seen; l2++) {
                size_t m2;
                const char *const *other = pc_api_wrap_list_names((pc_api_wrap_list)l2, &m2);
                size_t upto = l2 == l ? i : m2;
                for (size_t j = 0; j < upto; j++)
                    if (strcmp(other[j], names[i]) == 0) {
                        seen = true;
                        break;
                    }
            }
            distinct += !seen;
        }
    }
    assert_int_equal(distinct, 858);
    const char *yes[] = {"conv2d",
                         "__add__",
                         "linalg.norm",
                         "npu_fusion_attention",
                         "npu_grouped_matmu",
                         "scaled_dot_product_attention",
                         "empty_like",
                         "to",
                         "xlogy_",
                         "one_",
                         "matmul",
                         "_foreach_norm"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        if (!pc_api_is_wrappable(yes[i]))
            fail_msg("%s should be wrappable", yes[i]);
    const char *no[] = {
        "",        "Conv2d", "Functional.conv2d", "mul.Tensor",  "all_reduce", "__doc__", "lstm_",
        "npu_gmm", "view",   "conv2d ",           "gmm.npu_gmm", NULL};
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        if (pc_api_is_wrappable(no[i]))
            fail_msg("%s should not be wrappable", no[i] ? no[i] : "NULL");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dedup_matches_msprobe),
        cmocka_unit_test(test_dedup_real_dumps_keep_all),
        cmocka_unit_test(test_dedup_errors),
        cmocka_unit_test(test_lists),
        cmocka_unit_test(test_wrappable_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
