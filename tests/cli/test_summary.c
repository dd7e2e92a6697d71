/*
 * What a run tells a person and a program at its end, through the binary: the summary in the
 * log, summary.json beside the CSVs (its counts are the result CSV's), and --fail-on as a CI
 * gate (off by default: msprobe's exit codes).
 */
#include "pc_run_ut_test.h"
#include "pc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/io/json.h"

#define DUMP(name) PC_TEST_FIXTURES "/msprobe/dumps/" name "/step0/rank/dump.json"

static double count_of(const pc_json_doc *doc, const char *dir, const char *verdict)
{
    pc_json_ref c = pc_json_object_get(doc, pc_json_object_get(doc, 0, "counts"), dir);
    return pc_json_number(doc, pc_json_object_get(doc, c, verdict));
}

static void test_summary_and_json(void **state)
{
    (void)state;
    const char *cmds[] = {"run_ut", "multi_run_ut -n 2"};
    for (int k = 0; k < 2; k++) {
        char dir[512], log[600], args[2048], result[1024], json[1024];
        assert_non_null(pc_test_tmpdir(dir, sizeof dir));
        PC_TEST_FMT(log, "%s.log", dir);
        PC_TEST_FMT(args, "%s -api_info %s -o %s --no-progress", cmds[k], DUMP("gpt_bf16_tensor"),
                    dir);
        assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
        assert_true(pc_test_file_contains(log, "Summary of this run: 43 API(s)"));
        assert_true(pc_test_file_contains(log, "  to look at first:"));
        assert_true(pc_test_file_contains(log, "must be > 0.99"));
        pc_test_find_file(dir, "accuracy_checking_result_", result, sizeof result);
        pc_test_find_file(dir, "precheck_summary_", json, sizeof json);
        static pc_test_status_row rows[64];
        int n = pc_test_read_results(result, rows, 64);
        int fwd[4] = {0}, bwd_error = 0;
        const char *names[4] = {"pass", "Warning", "error", "SKIP"};
        for (int i = 0; i < n; i++) {
            for (int v = 0; v < 4; v++)
                fwd[v] += strcmp(rows[i].fwd, names[v]) == 0;
            bwd_error += strcmp(rows[i].bwd, "error") == 0;
        }
        pc_json_doc *doc = NULL;
        assert_int_equal(pc_json_parse_file(&doc, json), PC_OK);
        for (int v = 0; v < 4; v++)
            assert_true(count_of(doc, "forward", names[v]) == fwd[v]);
        assert_true(count_of(doc, "backward", "error") == bwd_error);
        pc_json_ref apis = pc_json_object_get(doc, 0, "apis");
        assert_int_equal(pc_json_count(doc, apis), 43);
        pc_json_ref run = pc_json_object_get(doc, 0, "run");
        assert_string_equal(pc_json_string(doc, pc_json_object_get(doc, run, "result_csv"), NULL),
                            result);
        pc_json_free(doc);
    }
}

static void test_fail_on(void **state)
{
    (void)state;
    struct {
        const char *dump, *flag;
        int rc;
    } cases[] = {
        {DUMP("gpt_bf16_tensor"), "", 0},
        {DUMP("gpt_bf16_tensor"), "--fail-on error", 3}, /* it has an error */
        {DUMP("gpt_bf16_tensor"), "--fail-on warning", 3},
        {DUMP("ew_fp16_tensor"), "--fail-on warning", 0}, /* every API passes */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char dir[512], log[600], args[2048];
        assert_non_null(pc_test_tmpdir(dir, sizeof dir));
        PC_TEST_FMT(log, "%s.log", dir);
        PC_TEST_FMT(args, "run_ut -api_info %s -o %s %s --no-progress", cases[i].dump, dir,
                    cases[i].flag);
        assert_int_equal(pc_test_run_precheck(NULL, args, log), cases[i].rc);
        if (cases[i].rc)
            assert_true(pc_test_file_contains(log, "exit status 3"));
    }
    char args[600];
    PC_TEST_FMT(args, "run_ut -api_info %s --fail-on often", DUMP("ew_fp16_tensor"));
    assert_int_equal(pc_test_run_precheck(NULL, args, NULL), 2);
}

/* api_precision_compare on msprobe's own CSVs of one dump run twice: identical rows that
 * msprobe's rules still call error are said to be identical; summary.json and --fail-on. */
static void test_precision_compare_summary(void **state)
{
    (void)state;
    char dir[512], log[600], args[2048], json[1024];
    const char *runs = PC_TEST_FIXTURES "/msprobe/run_ut";
    for (int k = 0; k < 2; k++) {
        assert_non_null(pc_test_tmpdir(dir, sizeof dir));
        PC_TEST_FMT(log, "%s.log", dir);
        PC_TEST_FMT(args,
                    "api_precision_compare -npu %s/gpt_tensor/accuracy_checking_details_"
                    "20261202102100.csv -gpu %s/gpt_tensor_rerun/accuracy_checking_details_"
                    "20261202102119.csv -o %s %s",
                    runs, runs, dir, k ? "--fail-on error" : "");
        assert_int_equal(pc_test_run_precheck(NULL, args, log), k ? 3 : 0);
    }
    assert_true(pc_test_file_contains(log, "Summary of api_precision_compare: 40 API(s)"));
    assert_true(pc_test_file_contains(log, "backward: pass 34, warning 0, error 2"));
    assert_true(pc_test_file_contains(
        log, "the NPU and GPU rows of Functional.linear.0.backward.output.2 are identical, and "
             "msprobe's rule still says error"));
    pc_test_find_file(dir, "api_precision_compare_summary_", json, sizeof json);
    pc_json_doc *doc = NULL;
    assert_int_equal(pc_json_parse_file(&doc, json), PC_OK);
    assert_string_equal(pc_json_string(doc, pc_json_object_get(doc, 0, "kind"), NULL),
                        "api_precision_compare");
    pc_json_ref failed = pc_json_object_get(doc, 0, "rows_failed");
    assert_int_equal(pc_json_count(doc, failed), 2);
    pc_json_ref first = pc_json_array_at(doc, failed, 0);
    assert_true(pc_json_truthy(doc, pc_json_object_get(doc, first, "npu_gpu_identical")));
    assert_int_equal(pc_json_count(doc, pc_json_object_get(doc, 0, "apis")), 40);
    assert_true(count_of(doc, "backward", "error") == 2);
    pc_json_free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary_and_json),
        cmocka_unit_test(test_fail_on),
        cmocka_unit_test(test_precision_compare_summary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
