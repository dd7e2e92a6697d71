/*
 * A catalogue of bad inputs across the commands, as a user meets them: for each, the exit
 * status, the message that says what and where, and that no output is left looking complete.
 * (Usage errors of each command are in test_cli.c and the commands' own tests; records that
 * make single APIs fail are in tests/runner/test_run_ut.c.)
 */
#include "pc_test.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DUMPS PC_TEST_FIXTURES "/msprobe/dumps"
#define GPT   DUMPS "/gpt_tensor/step0/rank"

static char dir[512], log_path[600];

static int setup(void **state)
{
    (void)state;
    if (!pc_test_tmpdir(dir, sizeof dir))
        return -1;
    PC_TEST_FMT(log_path, "%s/log.txt", dir);
    return 0;
}

/* Runs precheck with args (a %s in args stands for the test's folder); checks the exit status
 * and that the log holds text. */
static void expect(const char *args_fmt, int status, const char *text)
{
    char args[4096];
    PC_TEST_FMT(args, args_fmt, dir, dir, dir);
    int got = pc_test_run_precheck(NULL, args, log_path);
    if (got != status || !pc_test_file_contains(log_path, text)) {
        char *l = pc_test_slurp(log_path, NULL);
        fail_msg("precheck %s: exit %d (want %d); log lacks '%s':\n%s", args, got, status, text, l);
    }
}

static bool exists(const char *name)
{
    char p[1100];
    PC_TEST_FMT(p, "%s/%s", dir, name);
    return access(p, F_OK) == 0;
}

static void test_dump_files(void **state)
{
    (void)state;
    char p[700];
    /* truncated in the middle of a string */
    PC_TEST_FMT(p, "%s/truncated.json", dir);
    char *whole = pc_test_slurp(GPT "/dump.json", NULL);
    whole[3000] = 0;
    pc_test_write_file(p, whole);
    free(whole);
    expect("run_ut -api_info %s/truncated.json -o %s/out1 --no-progress", 1,
           "truncated.json:156:6: unterminated string starting here");
    assert_false(exists("out1")); /* nothing created before the dump is read */
    /* not JSON */
    PC_TEST_FMT(p, "%s/text.json", dir);
    pc_test_write_file(p, "hello\n");
    expect("run_ut -api_info %s/text.json -o %s/out2 --no-progress", 1, "text.json:1:1");
    /* no "data" */
    PC_TEST_FMT(p, "%s/nodata.json", dir);
    pc_test_write_file(p, "{\"task\": \"tensor\"}");
    expect("run_ut -api_info %s/nodata.json -o %s/out3 --no-progress", 1,
           "[msprobe] Invalid dump.json format: something wrong with dump, no data found in "
           "dump.json");
    /* not a .json path; a folder */
    expect("run_ut -api_info %s/log.txt -o %s/out4 --no-progress", 1, "should be a .json file");
    expect("check_dump -api_info %s", 1, "should be a file");
    /* an output path that is a file */
    expect("run_ut -api_info " GPT "/dump.json -o %s/text.json --no-progress", 1,
           "[Errno 17] File exists");
}

static void test_records_and_tensor_files(void **state)
{
    (void)state;
    char p[700];
    /* unknown dtype, negative shape, NaN statistics: SKIP rows that say why, exit 0 */
    PC_TEST_FMT(p, "%s/records.json", dir);
    pc_test_write_file(p,
                       "{\"task\":\"statistics\",\"dump_data_dir\":null,\"data\":{"
                       "\"Torch.add.0.forward\":{\"input_args\":[{\"type\":\"torch.Tensor\","
                       "\"dtype\":\"torch.weird\",\"shape\":[2],\"Max\":1,\"Min\":0},"
                       "{\"type\":\"float\",\"value\":1.0}],\"input_kwargs\":{},\"output\":[]},"
                       "\"Torch.add.1.forward\":{\"input_args\":[{\"type\":\"torch.Tensor\","
                       "\"dtype\":\"torch.float32\",\"shape\":[-2],\"Max\":1,\"Min\":0},"
                       "{\"type\":\"float\",\"value\":1.0}],\"input_kwargs\":{},\"output\":[]},"
                       "\"Torch.add.2.forward\":{\"input_args\":[{\"type\":\"torch.Tensor\","
                       "\"dtype\":\"torch.float32\",\"shape\":[4],\"Max\":NaN,\"Min\":0},"
                       "{\"type\":\"float\",\"value\":1.0}],\"input_kwargs\":{},\"output\":[]}}}");
    expect("run_ut -api_info %s/records.json -o %s/rec --no-progress", 0, "UT task completed.");
    char out[700], result[1100];
    PC_TEST_FMT(out, "%s/rec", dir);
    pc_test_find_file(out, "accuracy_checking_result_", result, sizeof result);
    assert_true(pc_test_file_contains(result, "Torch.add.0,SKIP,SKIP,Torch.add.0: argument "
                                              "'input': Dtype is not supported: torch.weird"));
    assert_true(pc_test_file_contains(result, "Torch.add.1,SKIP,SKIP"));
    assert_true(pc_test_file_contains(result, "negative"));
    /* Max NaN: an all-NaN tensor, compared (cosine NaN: error), not a crash */
    assert_true(pc_test_file_contains(result, "Torch.add.2,error"));

    /* a missing and a corrupt tensor file in a tensor-mode dump */
    char cmd[2048];
    PC_TEST_FMT(cmd,
                "mkdir -p '%s/copy/dump_tensor_data' && cp " GPT "/dump.json '%s/copy/' && "
                "cp " GPT "/dump_tensor_data/*.pt '%s/copy/dump_tensor_data/' && "
                "rm '%s/copy/dump_tensor_data/Functional.linear.0.forward.input.0.pt' && "
                "echo garbage > '%s/copy/dump_tensor_data/Torch.matmul.0.forward.input.0.pt'",
                dir, dir, dir, dir, dir);
    assert_int_equal(system(cmd), 0);
    expect("run_ut -api_info %s/copy/dump.json -o %s/files --no-progress", 0, "UT task completed.");
    PC_TEST_FMT(out, "%s/files", dir);
    pc_test_find_file(out, "accuracy_checking_result_", result, sizeof result);
    assert_true(pc_test_file_contains(
        result, "Functional.linear.0,SKIP,SKIP,Functional.linear.0: argument 'input': "
                "input_args[0]: The file path "));
    assert_true(pc_test_file_contains(result, "Functional.linear.0.forward.input.0.pt does not "
                                              "exist."));
    assert_true(pc_test_file_contains(result, "Torch.matmul.0.forward.input.0.pt: not a .pt file: "
                                              "it is not a zip archive"));
    /* check_dump names both and fails */
    expect("check_dump -api_info %s/copy/dump.json", 1, "does not exist");
}

static void test_resume_files(void **state)
{
    (void)state;
    char p[700];
    /* the right name, but empty; then another CSV's content */
    PC_TEST_FMT(p, "%s/accuracy_checking_result_20260101000000.csv", dir);
    pc_test_write_file(p, "");
    char d[700];
    PC_TEST_FMT(d, "%s/accuracy_checking_details_20260101000000.csv", dir);
    pc_test_write_file(d, "");
    expect("run_ut -api_info " GPT "/dump.json -csv_path %s/accuracy_checking_result_"
           "20260101000000.csv --no-progress",
           1, "is empty: the accuracy_checking_result CSV of a run starts with its header");
    pc_test_write_file(p, "name,value\r\nx,1\r\n");
    expect("run_ut -api_info " GPT "/dump.json -csv_path %s/accuracy_checking_result_"
           "20260101000000.csv --no-progress",
           1, "is not an accuracy_checking_result CSV of run_ut: its header starts with \"name\"");
    /* the result file without its details twin */
    unlink(d);
    pc_test_write_file(p, "API name,Forward Test Success,Backward Test Success,Message\r\n");
    expect("run_ut -api_info " GPT "/dump.json -csv_path %s/accuracy_checking_result_"
           "20260101000000.csv --no-progress",
           1, "accuracy_checking_details_20260101000000.csv does not exist.");
}

static void test_precision_compare_inputs(void **state)
{
    (void)state;
    char out[700];
    PC_TEST_FMT(out, "%s/pc", dir);
    mkdir(out, 0750);
    /* a result CSV where a details CSV belongs: the message says which file to pass */
    expect("api_precision_compare -npu " PC_TEST_FIXTURES "/msprobe/run_ut/gpt_tensor/"
           "accuracy_checking_result_20261202102100.csv -gpu " PC_TEST_FIXTURES
           "/msprobe/run_ut/gpt_tensor/accuracy_checking_details_20261202102100.csv -o %s/pc",
           1, "pass the accuracy_checking_details CSV of the same run");
    expect("api_precision_compare -npu %s/nothing.csv -gpu %s/nothing.csv -o %s/pc", 1,
           "does not exist");
    /* nothing written that looks complete */
    char cmd[800];
    PC_TEST_FMT(cmd, "test -z \"$(ls -A '%s')\"", out);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dump_files),
        cmocka_unit_test(test_records_and_tensor_files),
        cmocka_unit_test(test_resume_files),
        cmocka_unit_test(test_precision_compare_inputs),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
