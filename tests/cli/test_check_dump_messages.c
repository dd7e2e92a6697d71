/*
 * check_dump's messages on the everyday mistakes: a tensor-mode dump.json copied without
 * dump_tensor_data/ is one ERROR (not one per file) with the hint to copy the whole rank
 * folder, as run_ut says it; a few missing files are listed and the rest counted; the loose
 * matches of a healthy bf16 dump are one WARNING line a kind with a count (each at debug level).
 */
#include "pc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Lines of the file containing text. */
static int count_lines(const char *path, const char *text)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[8192];
    int n = 0;
    while (fgets(line, sizeof line, f))
        n += strstr(line, text) != NULL;
    fclose(f);
    return n;
}

static void copy_rank(const char *dump, const char *to, int with_tensors)
{
    char cmd[4096];
    if (with_tensors)
        PC_TEST_FMT(cmd, "cp -r '%s/msprobe/dumps/%s/step0/rank' '%s'", PC_TEST_FIXTURES, dump, to);
    else
        PC_TEST_FMT(cmd, "mkdir -p '%s' && cp '%s/msprobe/dumps/%s/step0/rank/dump.json' '%s/'", to,
                    PC_TEST_FIXTURES, dump, to);
    assert_int_equal(system(cmd), 0);
}

static void test_dump_json_alone(void **state)
{
    (void)state;
    char tmp[512], rank[700], args[2048], log[800], out[800];
    pc_test_tmpdir(tmp, sizeof tmp);
    PC_TEST_FMT(rank, "%s/rank", tmp);
    PC_TEST_FMT(log, "%s/log", tmp);
    copy_rank("gpt_tensor", rank, 0);
    PC_TEST_FMT(args, "check_dump -api_info %s/dump.json", rank);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    assert_int_equal(count_lines(log, "[ERROR]"), 1);
    assert_true(pc_test_file_contains(log, "dump_tensor_data does not exist"));
    assert_true(pc_test_file_contains(log, "(209 files)"));
    assert_true(pc_test_file_contains(log, "copy the whole rank folder"));
    assert_true(pc_test_file_contains(log, "209 tensor files named, none checked"));
    /* run_ut says the same, once, from the same function */
    PC_TEST_FMT(out, "%s/out", tmp);
    PC_TEST_FMT(log, "%s/log_ut", tmp);
    PC_TEST_FMT(args, "run_ut -api_info %s/dump.json -o %s --no-progress", rank, out);
    assert_int_not_equal(pc_test_run_precheck(NULL, args, log), 0);
    assert_int_equal(count_lines(log, "The dump's tensor files are missing"), 1);
    assert_true(pc_test_file_contains(log, "(209 files)"));
}

static void test_some_files_missing(void **state)
{
    (void)state;
    char tmp[512], rank[700], args[2048], log[800], cmd[2048];
    pc_test_tmpdir(tmp, sizeof tmp);
    PC_TEST_FMT(rank, "%s/rank", tmp);
    PC_TEST_FMT(log, "%s/log", tmp);
    copy_rank("gpt_tensor", rank, 1);
    PC_TEST_FMT(cmd, "cd '%s/dump_tensor_data' && ls | head -12 | xargs rm", rank);
    assert_int_equal(system(cmd), 0);
    PC_TEST_FMT(args, "check_dump -api_info %s/dump.json", rank);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    assert_int_equal(count_lines(log, "does not exist"), 5); /* the first five */
    assert_true(pc_test_file_contains(log, "12 tensor files that dump.json names are missing"));
    assert_true(pc_test_file_contains(log, "197 match their records, 12 do not (12 of them "
                                           "missing)"));
    /* at debug level each one */
    PC_TEST_FMT(log, "%s/log_debug", tmp);
    assert_int_equal(pc_test_run_precheck("MSPROBE_LOG_LEVEL=0", args, log), 1);
    assert_int_equal(count_lines(log, "does not exist"), 12);
}

static void test_loose_grouped(void **state)
{
    (void)state;
    char tmp[512], args[2048], log[800];
    pc_test_tmpdir(tmp, sizeof tmp);
    PC_TEST_FMT(log, "%s/log", tmp);
    PC_TEST_FMT(args, "check_dump -api_info %s/msprobe/dumps/gpt_bf16_tensor/step0/rank/dump.json",
                PC_TEST_FIXTURES);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    assert_int_equal(count_lines(log, "[WARNING]"), 1);
    assert_true(pc_test_file_contains(log, "[WARNING] 14 tensors match their records only "
                                           "within the error of a sum accumulated"));
    assert_true(pc_test_file_contains(log, "The first: Tensor.split.0: output[0]: Norm"));
    PC_TEST_FMT(log, "%s/log_debug", tmp);
    assert_int_equal(pc_test_run_precheck("MSPROBE_LOG_LEVEL=0", args, log), 0);
    assert_int_equal(count_lines(log, "equal only within the error of a sum"), 14 + 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dump_json_alone),
        cmocka_unit_test(test_some_files_missing),
        cmocka_unit_test(test_loose_grouped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
