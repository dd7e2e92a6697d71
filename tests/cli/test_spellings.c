/*
 * msprobe's spellings (issue #18): users type msprobe's argparse spellings, so every command
 * takes them, from one flag table: --opt=value and -opt=value, values attached to a
 * single-character option (-oDIR, -d0), unique prefixes of long options (--api_info,
 * --out), argparse's errors for ambiguous prefixes and missing values, its rule for values
 * that look like negative numbers, the command names acc_check and multi_acc_check, and
 * `precheck -f pytorch` alone. Each case runs the built binary as a user does.
 */
#include "pc_test.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[512], dump[600], out_log[600], err_log[600];

/* One API of a statistics dump: run_ut replays it in milliseconds. */
static const char tiny_dump[] =
    "{\"task\":\"statistics\",\"dump_data_dir\":null,\"data\":{\"Torch.add.0.forward\":{"
    "\"input_args\":[{\"type\":\"torch.Tensor\",\"dtype\":\"torch.float32\",\"shape\":[4],"
    "\"Max\":1,\"Min\":0,\"requires_grad\":false},{\"type\":\"float\",\"value\":1.0}],"
    "\"input_kwargs\":{},\"output\":[{\"type\":\"torch.Tensor\",\"dtype\":\"torch.float32\","
    "\"shape\":[4],\"Max\":2,\"Min\":1,\"requires_grad\":false}]}}}";

static int setup(void **state)
{
    (void)state;
    if (!pc_test_tmpdir(dir, sizeof dir))
        return -1;
    snprintf(dump, sizeof dump, "%s/dump.json", dir);
    snprintf(out_log, sizeof out_log, "%s/stdout.txt", dir);
    snprintf(err_log, sizeof err_log, "%s/stderr.txt", dir);
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

/* Runs precheck with args, where every %s stands for the test's folder (D in the texts below);
 * stdout and stderr go to their own files. Returns the exit status. */
static int run(const char *args_fmt, char *args, size_t size)
{
    int n = snprintf(args, size, args_fmt, dir, dir, dir, dir);
    assert_true(n > 0 && (size_t)n < size);
    char line[4096];
    PC_TEST_FMT(line, "'%s' %s >'%s' 2>'%s'", PC_TEST_BINARY, args, out_log, err_log);
    int st = system(line);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

/* Runs args and checks the exit status and that stream ("out" or "err") holds text (text NULL:
 * nothing to check). */
static void expect(const char *args_fmt, int status, const char *stream, const char *text)
{
    char args[2048];
    int got = run(args_fmt, args, sizeof args);
    const char *path = stream && strcmp(stream, "out") == 0 ? out_log : err_log;
    if (got != status || (text && !pc_test_file_contains(path, text))) {
        char *o = pc_test_slurp(out_log, NULL), *e = pc_test_slurp(err_log, NULL);
        fail_msg("precheck %s: exit %d (want %d)%s%s%s\nstdout:\n%s\nstderr:\n%s", args, got,
                 status, text ? "; std" : "", text ? stream : "",
                 text ? " should hold the text given" : "", o, e);
    }
}

/* The run wrote its CSVs into D/sub. */
static void expect_csvs(const char *sub)
{
    char out[700], path[1100];
    PC_TEST_FMT(out, "%s/%s", dir, sub);
    pc_test_find_file(out, "accuracy_checking_result_", path, sizeof path);
    assert_true(pc_test_file_contains(path, "Torch.add.0,pass"));
    pc_test_find_file(out, "accuracy_checking_details_", path, sizeof path);
}

static bool exists(const char *sub)
{
    char p[700];
    PC_TEST_FMT(p, "%s/%s", dir, sub);
    return access(p, F_OK) == 0;
}

/* --opt=value and -opt=value: argparse splits an option at its first '='. */
static void test_option_equals_value(void **state)
{
    (void)state;
    expect("run_ut -api_info=%s/dump.json -o %s/eq1 --no-progress", 0, "out", "UT task completed.");
    expect_csvs("eq1");
    expect("run_ut --api_info_file=%s/dump.json --out_path=%s/eq2 --no-progress", 0, NULL, NULL);
    expect_csvs("eq2");
    /* an empty value is a value */
    expect("run_ut -api_info %s/dump.json -o %s/eq3 -csv_path= --no-progress", 0, NULL, NULL);
    expect_csvs("eq3");
    expect("check_dump --api_info_file=%s/dump.json", 0, "out", "statistics-mode dump, 1 APIs");
    expect("api_precision_compare -npu=%s/none.csv --gpu_csv_path=%s/none.csv -o=%s/pc", 1, "out",
           "none.csv does not exist.");
    expect("compare -bench=%s/b.pt --device_path=%s/d.pt", 1, "err", "b.pt");
    expect("ops --dump=%s/dump.json", 0, "out", "Torch.add");
}

/* A single-character option takes its value attached (-oDIR, -d0, -n2), and single-character
 * switches combine (-fo DIR is -f -o DIR). */
static void test_attached_short_values(void **state)
{
    (void)state;
    expect("run_ut -api_info %s/dump.json -o%s/short1 -d0 --no-progress", 0, NULL, NULL);
    expect_csvs("short1");
    expect("multi_run_ut -api_info %s/dump.json -o%s/short2 -n2 --no-progress", 0, NULL, NULL);
    expect_csvs("short2");
    expect("run_ut -api_info %s/dump.json -fo %s/short3 --no-progress", 0, "out",
           "Start filtering the api in the api_info_file.");
    expect_csvs("short3");
    /* -d0 is one id; a second one stays outside it, as in argparse */
    expect("run_ut -api_info %s/dump.json -d0 1", 2, "err",
           "precheck run_ut: error: unrecognized arguments: 1");
    expect("multi_run_ut -api_info %s/dump.json -n65", 2, "err",
           "argument -n/--num_splits: invalid choice: '65'");
}

/* Unique prefixes of long options, as argparse (allow_abbrev) takes them. */
static void test_unique_prefixes(void **state)
{
    (void)state;
    expect("run_ut --api_info %s/dump.json --out %s/pre1 --no-progress", 0, NULL, NULL);
    expect_csvs("pre1");
    expect("run_ut --api %s/dump.json --out=%s/pre2 --no-prog", 0, NULL, NULL);
    expect_csvs("pre2");
    /* single-dash long options abbreviate too */
    expect("run_ut -api_inf %s/dump.json -o %s/pre3 --no-progress", 0, NULL, NULL);
    expect_csvs("pre3");
    expect("check_dump -api %s/dump.json", 0, "out", "statistics-mode dump, 1 APIs");
    /* a prefix msprobe's parser resolves means what it means in msprobe, also where precheck
     * has an option of its own that starts the same way (--config_yaml) */
    expect("run_ut --api_info %s/dump.json --conf %s/nothing.json", 1, "out",
           "nothing.json does not exist.");
    expect("multi_run_ut --api_info %s/dump.json --n 65", 2, "err",
           "argument -n/--num_splits: invalid choice: '65'");
    expect("run_ut --he", 0, "out", "usage: precheck run_ut");
    expect("ops --js", 0, "out", "\"api\": \"Torch.add\"");
    expect("compare --bench_p %s/b.pt --device_p %s/d.pt", 1, "err", "b.pt");
}

/* An ambiguous prefix is argparse's error, naming the candidates. */
static void test_ambiguous_prefixes(void **state)
{
    (void)state;
    expect("run_ut -api_info %s/dump.json -c x", 2, "err",
           "precheck run_ut: error: ambiguous option: -c could match -csv_path, -config");
    expect("run_ut -api_info %s/dump.json --b x", 2, "err",
           "ambiguous option: --b could match --backend, --bench, --bench-cache");
    expect("compare --b x -device y", 2, "err",
           "precheck compare: error: ambiguous option: --b could match --bench_path, --bench");
}

/* A missing value does not swallow the next option. */
static void test_missing_value(void **state)
{
    (void)state;
    /* (a dump that is not there: a parser that took -save_error_data for the folder stops at
     * the dump instead of making that folder) */
    expect("run_ut -o -save_error_data -api_info %s/none.json", 2, "err",
           "precheck run_ut: error: argument -o/--out_path: expected one argument");
    expect("run_ut -o %s/mv -api_info", 2, "err",
           "argument -api_info/--api_info_file: expected one argument");
    assert_false(exists("mv"));
    expect("api_precision_compare -npu -gpu %s/g.csv", 2, "err",
           "argument -npu/--npu_csv_path: expected one argument");
    expect("check_dump -api_info --help", 2, "err",
           "argument -api_info/--api_info_file: expected one argument");
    expect("materialize -api_info %s/dump.json -o --seed 3", 2, "err",
           "argument -o/--out_path: expected one argument");
    expect("run_ut -api_info %s/dump.json -d -j", 2, "err",
           "argument -d/--device: expected at least one argument");
    /* "--" ends the options: what follows is no option's value */
    expect("run_ut -api_info %s/dump.json -o -- x", 2, "err",
           "argument -o/--out_path: expected one argument");
    /* a switch takes no value */
    expect("run_ut -api_info %s/dump.json -save_error_data=1", 2, "err",
           "argument -save_error_data: ignored explicit argument '1'");
}

/* Values that look like negative numbers are values (no option of precheck looks like one). */
static void test_negative_numbers(void **state)
{
    (void)state;
    expect("run_ut -api_info %s/dump.json -d -.5", 2, "err",
           "argument -d/--device: invalid int value: '-.5'");
    expect("run_ut -api_info %s/dump.json -d 0 -1", 2, "err",
           "device id must be greater than or equal to 0");
    expect("run_ut -api_info %s/dump.json -o %s/neg --timeout -2.5", 2, "err",
           "argument --timeout: invalid value: '-2.5'");
    assert_false(exists("neg"));
    /* what looks like neither an option nor a number is an option */
    expect("run_ut -api_info %s/dump.json --seed -x", 2, "err",
           "argument --seed: expected one argument");
}

/* msprobe's current command names. */
static void test_command_aliases(void **state)
{
    (void)state;
    expect("acc_check -api_info %s/dump.json -o %s/alias1 --no-progress", 0, NULL, NULL);
    expect_csvs("alias1");
    expect("-f pytorch multi_acc_check -api_info %s/dump.json -o %s/alias2 -n 1 --no-progress", 0,
           NULL, NULL);
    expect_csvs("alias2");
    expect("multi_acc_check --help", 0, "out", "--num_splits");
    expect("--help", 0, "out", "acc_check");
    expect("--help", 0, "out", "multi_acc_check");
}

/* msprobe prints its help and exits 0 when it has fewer than 4 argv entries. */
static void test_framework_alone(void **state)
{
    (void)state;
    expect("-f pytorch", 0, "out", "usage: precheck <command>");
    expect("--framework pytorch", 0, "out", "usage: precheck <command>");
    expect("-f", 2, "err", "precheck: error: argument -f/--framework: expected one argument");
    expect("-f tensorflow", 2, "err", "only the pytorch framework is supported");
}

/* An unknown backend is a usage error found before the run starts. */
static void test_unknown_backend(void **state)
{
    (void)state;
    expect("run_ut -api_info %s/dump.json -o %s/nb --backend nosuch", 2, "err",
           "precheck run_ut: error: argument --backend: invalid choice: 'nosuch' (choose from cpu, "
           "torch:DEVICE, replay, faulty:FAULT:OP)");
    assert_false(exists("nb"));
    expect("multi_run_ut -api_info %s/dump.json -o %s/nb --backend=", 2, "err",
           "argument --backend: invalid choice: ''");
    assert_false(exists("nb"));
    /* a known backend with bad options is the backend's to judge, when it opens */
    expect("run_ut -api_info %s/dump.json -o %s/nb --backend faulty:bogus:x", 1, "out",
           "'bogus:x' is not FAULT:OP");
}

/* Usage errors: the usage, then "precheck CMD: error: ...", on stderr, exit 2; help on stdout,
 * exit 0. */
static void test_usage_error_text(void **state)
{
    (void)state;
    expect("run_ut --bogus", 2, "err", "precheck run_ut: error: unrecognized arguments: --bogus");
    char *e = pc_test_slurp(err_log, NULL), *o = pc_test_slurp(out_log, NULL);
    assert_true(strncmp(e, "usage: precheck run_ut ", 23) == 0);
    assert_string_equal(o, "");
    free(e);
    free(o);
    expect("check_dump -api_info %s/dump.json --bogus", 2, "err",
           "usage: precheck check_dump -api_info DUMP_JSON\nprecheck check_dump: error: "
           "unrecognized arguments: --bogus\n");
    expect("materialize --seed 1 extra -x", 2, "err",
           "precheck materialize: error: unrecognized arguments: extra -x");
    expect("run_ut --help --bogus", 0, "out", "--bench-cache DIR");
    e = pc_test_slurp(err_log, NULL);
    assert_string_equal(e, "");
    free(e);
}

/* The same flag has the same spellings in every command that takes it. */
static void test_same_spellings_everywhere(void **state)
{
    (void)state;
    static const char *const commands[] = {"run_ut", "multi_run_ut", "acc_check", "check_dump",
                                           "materialize"};
    static const char *const spellings[] = {
        "-api_info %s/none.json",       "-api_info=%s/none.json",       "--api_info %s/none.json",
        "--api_info_file %s/none.json", "--api_info_file=%s/none.json", "-api %s/none.json"};
    for (size_t c = 0; c < sizeof commands / sizeof *commands; c++)
        for (size_t s = 0; s < sizeof spellings / sizeof *spellings; s++) {
            char fmt[256];
            /* check_dump takes no -o */
            PC_TEST_FMT(fmt, "%s %s%s", commands[c], spellings[s],
                        strcmp(commands[c], "check_dump") == 0 ? "" : " --out_path=%s/same");
            expect(fmt, 1, "out", "none.json does not exist.");
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_option_equals_value),
        cmocka_unit_test(test_attached_short_values),
        cmocka_unit_test(test_unique_prefixes),
        cmocka_unit_test(test_ambiguous_prefixes),
        cmocka_unit_test(test_missing_value),
        cmocka_unit_test(test_negative_numbers),
        cmocka_unit_test(test_command_aliases),
        cmocka_unit_test(test_framework_alone),
        cmocka_unit_test(test_unknown_backend),
        cmocka_unit_test(test_usage_error_text),
        cmocka_unit_test(test_same_spellings_everywhere),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
