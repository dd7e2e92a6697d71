/*
 * What a newcomer sees in the terminal (issue #28, "The terminal"): the end of run_ut,
 * multi_run_ut and api_precision_compare names the next step (precheck report DIR); report
 * refuses an --error-data folder that is not there; api_precision_compare's log shows its
 * figures with 6 significant digits (its CSVs keep msprobe's: tests/precision_compare/
 * test_conformance.c); mistyped flags get a "did you mean". Each case runs the built binary
 * as a user does.
 */
#include "pc_run_ut_test.h"
#include "pc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[512], dump[600], log_path[600];

/* One API of a statistics dump: run_ut replays it in milliseconds. */
static const char tiny_dump[] =
    "{\"task\":\"statistics\",\"dump_data_dir\":null,\"data\":{\"Torch.add.0.forward\":{"
    "\"input_args\":[{\"type\":\"torch.Tensor\",\"dtype\":\"torch.float32\",\"shape\":[4],"
    "\"Max\":1,\"Min\":0,\"requires_grad\":false},{\"type\":\"float\",\"value\":1.0}],"
    "\"input_kwargs\":{},\"output\":[{\"type\":\"torch.Tensor\",\"dtype\":\"torch.float32\","
    "\"shape\":[4],\"Max\":2,\"Min\":1,\"requires_grad\":false}]}}}";

/* msprobe's own details CSVs of two runs of one model (bf16 and fp32): rows in error by ULP. */
#define RUNS     PC_TEST_FIXTURES "/msprobe/run_ut"
#define BF16_CSV RUNS "/gpt_bf16_tensor/accuracy_checking_details_20261202102156.csv"
#define FP32_CSV RUNS "/gpt_tensor/accuracy_checking_details_20261202102100.csv"

static int setup(void **state)
{
    (void)state;
    if (!pc_test_tmpdir(dir, sizeof dir))
        return -1;
    snprintf(dump, sizeof dump, "%s/dump.json", dir);
    snprintf(log_path, sizeof log_path, "%s/log.txt", dir);
    FILE *f = fopen(dump, "wb");
    if (!f)
        return -1;
    fputs(tiny_dump, f);
    fclose(f);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void expect_not_in_log(const char *text)
{
    if (pc_test_file_contains(log_path, text)) {
        char *l = pc_test_slurp(log_path, NULL);
        fail_msg("the log says \"%s\", which it should not:\n%s", text, l);
    }
}

/* 1. run_ut, multi_run_ut and api_precision_compare end with "next: precheck report DIR",
 * DIR the -o folder as given; a failed run does not. */
static void test_next_step(void **state)
{
    (void)state;
    char args[2048], want[1024];
    PC_TEST_FMT(args, "run_ut -api_info '%s' -o '%s/ut'", dump, dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log_path), 0);
    PC_TEST_FMT(want, "[INFO] next: precheck report %s/ut\n", dir);
    pc_test_expect_in_log(log_path, want);

    PC_TEST_FMT(args, "multi_run_ut -api_info '%s' -o '%s/multi-dir' -n 2", dump, dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log_path), 0);
    PC_TEST_FMT(want, "[INFO] next: precheck report %s/multi-dir\n", dir);
    pc_test_expect_in_log(log_path, want);

    PC_TEST_FMT(args, "api_precision_compare -npu %s -gpu %s -o '%s/pcmp'", BF16_CSV, FP32_CSV,
                dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log_path), 0);
    PC_TEST_FMT(want, "[INFO] next: precheck report %s/pcmp\n", dir);
    pc_test_expect_in_log(log_path, want);

    /* failures name no next step */
    PC_TEST_FMT(args, "run_ut -api_info '%s/none.json' -o '%s/ut2'", dir, dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log_path), 1);
    expect_not_in_log("next:");
    PC_TEST_FMT(args, "api_precision_compare -npu %s -gpu '%s/none.csv' -o '%s/pcmp2'", BF16_CSV,
                dir, dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log_path), 1);
    expect_not_in_log("next:");
}

/* 2. report --error-data with a folder that is not there: exit 1, saying so and what it
 * expects, and no page written. */
static void test_error_data_missing(void **state)
{
    (void)state;
    char args[2048], want[1024], page[700];
    PC_TEST_FMT(args, "run_ut -api_info '%s' -o '%s/rep'", dump, dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log_path), 0);
    PC_TEST_FMT(page, "%s/page.html", dir);
    PC_TEST_FMT(args, "report '%s/rep' -o '%s' --error-data '%s/nonexist'", dir, page, dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log_path), 1);
    PC_TEST_FMT(want, "[ERROR] --error-data %s/nonexist: the folder does not exist", dir);
    pc_test_expect_in_log(log_path, want);
    pc_test_expect_in_log(log_path, "--error-data expects the run's ut_error_data<ts> folder");
    FILE *f = fopen(page, "rb");
    assert_null(f);
    /* a file is no folder either */
    PC_TEST_FMT(args, "report '%s/rep' -o '%s' --error-data '%s'", dir, page, dump);
    assert_int_equal(pc_test_run_precheck(NULL, args, log_path), 1);
    PC_TEST_FMT(want, "[ERROR] --error-data %s: not a folder.", dump);
    pc_test_expect_in_log(log_path, want);
    /* a folder that is there still makes the page */
    PC_TEST_FMT(args, "report '%s/rep' -o '%s' --error-data '%s'", dir, page, dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log_path), 0);
}

/* 3. the log's figures have 6 significant digits, not the CSV's 14 decimals */
static void test_log_figures(void **state)
{
    (void)state;
    char args[2048];
    PC_TEST_FMT(args, "api_precision_compare -npu %s -gpu %s -o '%s/figures'", BF16_CSV, FP32_CSV,
                dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log_path), 0);
    pc_test_expect_in_log(log_path,
                          "Functional.linear.0.backward.output.0  error  ULP error: share of ULP "
                          "errors above the threshold, NPU/GPU 29.0909 (ULP误差大于阈值占比: NPU "
                          "0.625, GPU 0.0214844)");
    expect_not_in_log("0.62500000000000");
    expect_not_in_log("29.09090909090909");
}

/* 4. mistyped flags: the usage error (exit 2) says what was meant */
static void test_did_you_mean(void **state)
{
    (void)state;
    char args[2048], want[1024];
    PC_TEST_FMT(args, "run_ut -api_info '%s' --save_error_data", dump);
    assert_int_equal(pc_test_run_precheck(NULL, args, log_path), 2);
    pc_test_expect_in_log(log_path, "usage: precheck run_ut");
    pc_test_expect_in_log(log_path, "\nprecheck run_ut: error: unrecognized arguments: "
                                    "--save_error_data (did you mean -save_error_data?)\n");
    PC_TEST_FMT(args, "multi_run_ut -api_info '%s' --save_error_data --nonsense", dump);
    assert_int_equal(pc_test_run_precheck(NULL, args, log_path), 2);
    pc_test_expect_in_log(log_path, "precheck multi_run_ut: error: unrecognized arguments: "
                                    "--save_error_data --nonsense (did you mean "
                                    "-save_error_data for --save_error_data?)\n");
    PC_TEST_FMT(args, "run_ut -api_info '%s' -config_path=c.json", dump);
    assert_int_equal(pc_test_run_precheck(NULL, args, log_path), 2);
    pc_test_expect_in_log(log_path, "precheck run_ut: error: unrecognized arguments: "
                                    "-config_path=c.json (did you mean --config_path?)\n");

    static const char *const backends[][2] = {
        {"npu", "torch:npu"}, {"cuda", "torch:cuda"}, {"gpu", "torch:cuda"}};
    for (int i = 0; i < 3; i++) {
        PC_TEST_FMT(args, "run_ut -api_info '%s' --backend %s", dump, backends[i][0]);
        assert_int_equal(pc_test_run_precheck(NULL, args, log_path), 2);
        PC_TEST_FMT(want, "precheck run_ut: error: argument --backend: invalid choice: '%s' ",
                    backends[i][0]);
        pc_test_expect_in_log(log_path, want);
        PC_TEST_FMT(want, "; did you mean %s?\n", backends[i][1]);
        pc_test_expect_in_log(log_path, want);
    }
    /* run_overflow_check judges --backend when it opens it: the same hint */
    PC_TEST_FMT(args, "run_overflow_check -api_info '%s' --backend npu", dump);
    assert_int_equal(pc_test_run_precheck(NULL, args, log_path), 1);
    pc_test_expect_in_log(log_path, "precheck has no backend 'npu'");
    pc_test_expect_in_log(log_path, "(did you mean torch:npu?)");

    /* a run_ut output folder as -npu: its details CSV(s), newest first */
    PC_TEST_FMT(args, "run_ut -api_info '%s' -o '%s/npu'", dump, dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log_path), 0);
    char npu_dir[600], details[1024];
    PC_TEST_FMT(npu_dir, "%s/npu", dir);
    pc_test_find_file(npu_dir, "accuracy_checking_details_", details, sizeof details);
    PC_TEST_FMT(args, "api_precision_compare -npu '%s/npu' -gpu %s -o '%s/x'", dir, FP32_CSV, dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log_path), 1);
    PC_TEST_FMT(want,
                "It is a folder: did you mean %s? (-npu takes the accuracy_checking_details "
                "CSV of a run_ut run)",
                details);
    pc_test_expect_in_log(log_path, want);
}

/* report and merge, whose parsers are their own, suggest the option meant too. */
static void test_did_you_mean_report_merge(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"report out --error_data x", "--error_data (did you mean --error-data?)"},
        {"report out --max_plots 3", "--max_plots (did you mean --max-plots?)"},
        {"report --out x out", "--out (did you mean --output?)"},
        {"merge a b --out x", "--out (did you mean --out_path?)"},
        {"merge a b -api-info d.json", "-api-info (did you mean --api_info_file?)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(pc_test_run_precheck(NULL, cases[i][0], log_path), 2);
        pc_test_expect_in_log(log_path, cases[i][1]);
    }
    /* nothing close: no suggestion */
    assert_int_equal(pc_test_run_precheck(NULL, "report out --zzz", log_path), 2);
    char *text = pc_test_slurp(log_path, NULL);
    assert_non_null(strstr(text, "unrecognized arguments: --zzz\n"));
    assert_null(strstr(text, "did you mean"));
    free(text);
}

/* The run record (and so the report's settings) names the workers the run used, the number
 * the log announced, not the option's default before --jobs was worked out. */
static void test_record_workers(void **state)
{
    (void)state;
    char work[512], out[700], log[700], args[2048], path[1024];
    pc_test_tmpdir(work, sizeof work);
    PC_TEST_FMT(out, "%s/out", work);
    PC_TEST_FMT(log, "%s/log", work);
    PC_TEST_FMT(args,
                "run_ut -api_info %s/msprobe/dumps/gpt_stats/step0/rank/dump.json -o %s "
                "--no-progress",
                PC_TEST_FIXTURES, out);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    char *text = pc_test_slurp(log, NULL);
    const char *w = strstr(text, " worker process");
    assert_non_null(w);
    while (w > text && w[-1] >= '0' && w[-1] <= '9')
        w--;
    int workers = atoi(w);
    assert_true(workers >= 1);
    free(text);
    pc_test_find_file(out, "precheck_run_", path, sizeof path);
    text = pc_test_slurp(path, NULL);
    char want[64];
    PC_TEST_FMT(want, "\"workers\": \"%d\"", workers);
    if (!strstr(text, want))
        fail_msg("the record does not say %s: %.600s", want, strstr(text, "workers"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_next_step),      cmocka_unit_test(test_error_data_missing),
        cmocka_unit_test(test_log_figures),    cmocka_unit_test(test_did_you_mean),
        cmocka_unit_test(test_record_workers), cmocka_unit_test(test_did_you_mean_report_merge),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
