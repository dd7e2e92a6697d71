/* The precheck binary as a user runs it: help, version, the dtypes table, usage errors. */
#include "pc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* Runs the binary with args; returns its exit code and its stdout (stderr merged if asked). */
static int run(const char *args, int merge_stderr, char *out, size_t size)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' %s %s", PC_TEST_BINARY, args,
             merge_stderr ? "2>&1" : "2>/dev/null");
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, size - 1, p);
    out[n] = '\0';
    int status = pclose(p);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static void test_help(void **state)
{
    (void)state;
    static char out[8192];
    assert_int_equal(run("--help", 0, out, sizeof out), 0);
    assert_non_null(strstr(out, "usage: precheck <command>"));
    assert_non_null(strstr(out, "dtypes"));
    assert_int_equal(run("dtypes --help", 0, out, sizeof out), 0);
    assert_non_null(strstr(out, "usage: precheck dtypes"));
}

static void test_version(void **state)
{
    (void)state;
    static char out[256];
    assert_int_equal(run("--version", 0, out, sizeof out), 0);
    assert_true(strncmp(out, "precheck ", 9) == 0);
    /* the msprobe release whose behaviour it follows */
    assert_non_null(strstr(out, "(follows msprobe 8.3.3)"));
}

static void test_dtypes_table(void **state)
{
    (void)state;
    static char out[8192];
    assert_int_equal(run("dtypes", 0, out, sizeof out), 0);
    assert_non_null(strstr(out, "torch.bfloat16"));
    assert_non_null(strstr(out, "torch.float8_e4m3fn"));
    /* bf16: rtol 2^-8, small value 2^-10, min error 2^-8 */
    const char *row = strstr(out, "torch.bfloat16");
    assert_non_null(strstr(row, "0.00390625"));
    assert_non_null(strstr(row, "0.0009765625"));
}

static void test_usage_errors(void **state)
{
    (void)state;
    static char out[8192];
    assert_int_equal(run("", 1, out, sizeof out), 2);
    assert_non_null(strstr(out, "usage:"));
    assert_int_equal(run("no_such_command", 1, out, sizeof out), 2);
    assert_non_null(strstr(out, "unknown command 'no_such_command'"));
    assert_int_equal(run("dtypes --bogus", 1, out, sizeof out), 2);
    assert_non_null(strstr(out, "precheck dtypes: error: unrecognized arguments: --bogus"));
}

static void test_check_dump(void **state)
{
    (void)state;
    static char out[16384];
    char args[1024];
    snprintf(args, sizeof args,
             "check_dump -api_info '%s/msprobe/dumps/cnn_tensor/step0/rank/"
             "dump.json'",
             PC_TEST_FIXTURES);
    assert_int_equal(run(args, 1, out, sizeof out), 0);
    assert_non_null(strstr(out, "tensor-mode dump, 14 APIs (11 with a backward entry"));
    assert_non_null(strstr(out, "74 tensor files loaded: 74 match their records, 0 do not"));
    assert_non_null(strstr(out, "[INFO]"));
    snprintf(args, sizeof args,
             "check_dump -api_info '%s/msprobe/dumps/gpt_stats/step0/rank/"
             "dump.json'",
             PC_TEST_FIXTURES);
    assert_int_equal(run(args, 1, out, sizeof out), 0);
    assert_non_null(strstr(out, "statistics-mode dump, 43 APIs"));
    assert_non_null(strstr(out, "209 tensor records without files"));

    assert_int_equal(run("check_dump -api_info /nonexistent/dump.json", 1, out, sizeof out), 1);
    assert_non_null(strstr(out, "[ERROR] The file path /nonexistent/dump.json does not exist."));
    assert_int_equal(run("check_dump", 1, out, sizeof out), 2);
    assert_non_null(strstr(out, "-api_info DUMP_JSON is required"));
    assert_int_equal(run("check_dump --help", 0, out, sizeof out), 0);
    assert_non_null(strstr(out, "usage: precheck check_dump"));
}

/* Reads a whole small file into buf (NUL-terminated); returns its length. */

/* The msprobe spelling through the binary, on a real pair: both outputs byte-identical. */
static void test_api_precision_compare(void **state)
{
    (void)state;
    static char out[16384];
    char dir[512], args[2048], cmd[1200];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    const char *f = PC_TEST_FIXTURES "/msprobe";
    snprintf(args, sizeof args,
             "-f pytorch api_precision_compare -npu '%s/run_ut/gpt_bf16_tensor/"
             "accuracy_checking_details_20261202102156.csv' -gpu '%s/run_ut/gpt_tensor/"
             "accuracy_checking_details_20261202102100.csv' -o '%s'",
             f, f, dir);
    assert_int_equal(run(args, 1, out, sizeof out), 0);
    const char *kinds[] = {"details", "result"};
    for (int k = 0; k < 2; k++) {
        snprintf(cmd, sizeof cmd, "ls '%s'/api_precision_compare_%s_*.csv", dir, kinds[k]);
        FILE *p = popen(cmd, "r");
        char path[1024] = "";
        assert_non_null(fgets(path, sizeof path, p));
        pclose(p);
        path[strcspn(path, "\n")] = '\0';
        size_t n = 0;
        char *got = pc_test_slurp(path, &n);
        snprintf(cmd, sizeof cmd,
                 "ls '%s'/precision_compare/gpt_bf16_vs_fp32/"
                 "api_precision_compare_%s_*.csv",
                 f, kinds[k]);
        p = popen(cmd, "r");
        assert_non_null(fgets(path, sizeof path, p));
        pclose(p);
        path[strcspn(path, "\n")] = '\0';
        size_t m = 0;
        char *want = pc_test_slurp(path, &m);
        assert_int_equal(n, m);
        assert_memory_equal(got, want, n);
        free(got);
        free(want);
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(run("-f tensorflow dtypes", 1, out, sizeof out), 2);
    assert_non_null(strstr(out, "only the pytorch framework is supported"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help),         cmocka_unit_test(test_version),
        cmocka_unit_test(test_dtypes_table), cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_check_dump),   cmocka_unit_test(test_api_precision_compare),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
