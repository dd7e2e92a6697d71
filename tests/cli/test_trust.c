/*
 * Runs a user can trust (scenarios, as a user runs the binary): ordinary actions that used to
 * give wrong results with exit 0 -- two runs into one folder within a second, a closed
 * stdout, a resume with other settings or of another dump's CSV, a tensor dump copied without
 * its tensors, CSVs of different dumps compared -- and the messages and progress a user sees.
 */
#include "pc_run_ut_test.h"
#include "pc_test.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DUMPS      PC_TEST_FIXTURES "/msprobe/dumps"
#define DUMP(name) DUMPS "/" name "/step0/rank/dump.json"

static int result_rows(const char *dir)
{
    char path[1024];
    pc_test_find_file(dir, "accuracy_checking_result_", path, sizeof path);
    static pc_test_status_row rows[256];
    return pc_test_read_results(path, rows, 256);
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* ---- no silent loss ---- */

/* Another run's CSVs under the names this run would take: this run writes its own, and the
 * other run's files stay as they were. */
static void test_names_taken_are_never_merged(void **state)
{
    (void)state;
    char dir[512], log[600], args[2048], fake[8][700];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    PC_TEST_FMT(log, "%s/../trust-names.log", dir);
    time_t now = time(NULL);
    for (int k = 0; k < 4; k++) { /* this second and the next three */
        char ts[16];
        time_t t = now + k;
        struct tm lt;
        localtime_r(&t, &lt);
        strftime(ts, sizeof ts, "%Y%m%d%H%M%S", &lt);
        PC_TEST_FMT(fake[2 * k], "%s/accuracy_checking_result_%s.csv", dir, ts);
        PC_TEST_FMT(fake[2 * k + 1], "%s/accuracy_checking_details_%s.csv", dir, ts);
        pc_test_write_file(fake[2 * k],
                           "API name,Forward Test Success,Backward Test Success,Message\n"
                           "Torch.matmul.0,pass,pass,\n");
        pc_test_write_file(fake[2 * k + 1], "API Name\nTorch.matmul.0.forward.output.0\n");
    }
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --no-progress", DUMP("gpt_tensor"), dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    pc_test_expect_in_log(log, "this run writes its own under the next free time stamp");
    /* its own CSVs hold every API, Torch.matmul.0 included; the others are untouched */
    int mine = 0;
    for (int k = 0; k < 8; k += 2) {
        char *text = pc_test_slurp(fake[k], NULL);
        assert_string_equal(text, "API name,Forward Test Success,Backward Test Success,Message\n"
                                  "Torch.matmul.0,pass,pass,\n");
        free(text);
    }
    char cmd[1200];
    PC_TEST_FMT(cmd, "ls %s/accuracy_checking_result_*.csv | wc -l > %s/count", dir, dir);
    assert_int_equal(system(cmd), 0);
    PC_TEST_FMT(cmd, "%s/count", dir);
    char *count = pc_test_slurp(cmd, NULL);
    mine = atoi(count) - 4;
    free(count);
    assert_int_equal(mine, 1);
}

/* Three dumps, one after another, without -o: three pairs of CSVs with every API of each. */
static void test_three_dumps_into_one_folder(void **state)
{
    (void)state;
    char dir[512], cmd[4096];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    PC_TEST_FMT(cmd,
                "cd %s && for d in gpt_tensor cnn_tensor ew_fp16_tensor; do '%s' run_ut -api_info "
                "%s/$d/step0/rank/dump.json --no-progress >/dev/null 2>&1 || exit 1; done; "
                "for f in accuracy_checking_result_*.csv; do echo $(($(wc -l < $f) - 1)); done "
                "| sort -n | tr '\\n' ' ' > rows",
                dir, PC_TEST_BINARY, DUMPS);
    assert_int_equal(system(cmd), 0);
    PC_TEST_FMT(cmd, "%s/rows", dir);
    char *rows = pc_test_slurp(cmd, NULL);
    assert_string_equal(rows, "12 14 43 "); /* ew_fp16, cnn, gpt */
    free(rows);
}

/* A reader of the log that goes away must change nothing: every row is written. */
static void test_closed_stdout(void **state)
{
    (void)state;
    const char *cmds[] = {"run_ut", "multi_run_ut -n 2"};
    for (int i = 0; i < 2; i++) {
        char dir[512], cmd[4096];
        assert_non_null(pc_test_tmpdir(dir, sizeof dir));
        PC_TEST_FMT(cmd,
                    "bash -c \"set -o pipefail; '%s' %s -api_info %s -o %s --no-progress | head "
                    "-c 10 >/dev/null\"",
                    PC_TEST_BINARY, cmds[i], DUMP("gpt_tensor"), dir);
        int st = system(cmd);
        assert_true(WIFEXITED(st));
        assert_int_equal(WEXITSTATUS(st), 0);
        assert_int_equal(result_rows(dir), 43);
        char path[1024];
        pc_test_find_file(dir, "accuracy_checking_result_", path, sizeof path);
        assert_false(pc_test_file_contains(path, "killed by signal"));
    }
}

/* ---- resume keeps the run's identity ---- */

/* The command printed at Ctrl-C finishes the same run: the same bytes as an uninterrupted one. */
static void test_resume_command_keeps_the_flags(void **state)
{
    (void)state;
    char dir[512], whole[512], log[600], args[2048], line[4096];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    assert_non_null(pc_test_tmpdir(whole, sizeof whole));
    PC_TEST_FMT(log, "%s.log", dir);
    const char *flags = "--seed 7 --bench fp64 --jobs 2 --no-progress";
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s %s", DUMP("gpt_stats"), whole, flags);
    assert_int_equal(pc_test_run_precheck(NULL, args, NULL), 0);

    char cmd[4096];
    PC_TEST_FMT(cmd,
                "PRECHECK_TEST_FAULT=delay:150 '%s' run_ut -api_info %s -o %s %s > %s 2>&1 & "
                "pid=$!; sleep 2; kill -INT $pid; wait $pid; echo $? > %s.rc",
                PC_TEST_BINARY, DUMP("gpt_stats"), dir, flags, log, dir);
    assert_int_equal(system(cmd), 0);
    PC_TEST_FMT(cmd, "%s.rc", dir);
    char *rc = pc_test_slurp(cmd, NULL);
    assert_int_equal(atoi(rc), 130);
    free(rc);
    /* the printed command, as printed */
    char *text = pc_test_slurp(log, NULL);
    const char *p = strstr(text, "To resume: ");
    assert_non_null(p);
    p += strlen("To resume: ");
    size_t n = strcspn(p, "\n");
    PC_TEST_FMT(line, "%.*s", (int)n, p);
    free(text);
    assert_non_null(strstr(line, "--seed 7 --bench fp64 --jobs 2"));
    assert_non_null(strstr(line, "-csv_path "));
    assert_true(strncmp(line, "precheck run_ut ", 16) == 0);
    PC_TEST_FMT(cmd, "'%s' %s >/dev/null 2>&1", PC_TEST_BINARY, line + strlen("precheck "));
    assert_int_equal(system(cmd), 0);
    char a[1024], b[1024];
    const char *kinds[] = {"accuracy_checking_result_", "accuracy_checking_details_"};
    for (int k = 0; k < 2; k++) {
        pc_test_find_file(dir, kinds[k], a, sizeof a);
        pc_test_find_file(whole, kinds[k], b, sizeof b);
        pc_test_assert_same_file(a, b);
    }
}

/* A resume with another seed, or of another dump's CSV, is refused and changes nothing; a
 * CSV without a run record (msprobe's) resumes with a warning. */
static void test_resume_refused_when_the_run_differs(void **state)
{
    (void)state;
    char dir[512], log[600], args[2048], result[1024], before[1024];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    PC_TEST_FMT(log, "%s.log", dir);
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --seed 7 --no-progress", DUMP("gpt_stats"), dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, NULL), 0);
    pc_test_find_file(dir, "accuracy_checking_result_", result, sizeof result);
    PC_TEST_FMT(before, "%s.copy", dir);
    char cmd[2200];
    PC_TEST_FMT(cmd, "cp %s %s", result, before);
    assert_int_equal(system(cmd), 0);

    PC_TEST_FMT(args, "run_ut -api_info %s -csv_path %s --no-progress", DUMP("gpt_stats"), result);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    pc_test_expect_in_log(log, "Refused to resume");
    pc_test_expect_in_log(log, "seed: \"7\" then, \"1234\" now");
    PC_TEST_FMT(args, "run_ut -api_info %s -csv_path %s --seed 7 --no-progress", DUMP("cnn_tensor"),
                result);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    pc_test_expect_in_log(log, "gpt_stats/step0/rank/dump.json then,");
    pc_test_expect_in_log(log, "cnn_tensor/step0/rank/dump.json now, with other content");
    pc_test_assert_same_file(result, before);

    /* msprobe's own CSVs have no record: resumed as msprobe resumes, with a warning */
    char mdir[512];
    assert_non_null(pc_test_tmpdir(mdir, sizeof mdir));
    PC_TEST_FMT(cmd, "cp %s/msprobe/run_ut/gpt_tensor/accuracy_checking_*.csv %s/",
                PC_TEST_FIXTURES, mdir);
    assert_int_equal(system(cmd), 0);
    pc_test_find_file(mdir, "accuracy_checking_result_", result, sizeof result);
    PC_TEST_FMT(args, "run_ut -api_info %s -csv_path %s --no-progress", DUMP("gpt_tensor"), result);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    pc_test_expect_in_log(log, "has no precheck run record beside it");
}

/* ---- one clear error for a wrong input, up front ---- */

static void test_dump_without_its_tensors(void **state)
{
    (void)state;
    char dir[512], out[600], log[600], args[2048], cmd[1400];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    PC_TEST_FMT(cmd, "cp %s %s/dump.json", DUMP("gpt_tensor"), dir);
    assert_int_equal(system(cmd), 0);
    PC_TEST_FMT(out, "%s/out", dir);
    PC_TEST_FMT(log, "%s/log", dir);
    PC_TEST_FMT(args, "run_ut -api_info %s/dump.json -o %s", dir, out);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    pc_test_expect_in_log(log, "The dump's tensor files are missing:");
    pc_test_expect_in_log(log, "copy the whole rank folder (dump.json with dump_tensor_data/)");
    assert_false(exists(out));
}

static void test_modules_only_dump(void **state)
{
    (void)state;
    char dir[512], dump[600], log[600], args[2048], out[600];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    PC_TEST_FMT(dump, "%s/dump.json", dir);
    PC_TEST_FMT(log, "%s/log", dir);
    PC_TEST_FMT(out, "%s/out", dir);
    pc_test_write_file(dump,
                       "{\"task\": \"statistics\", \"level\": \"L0\", \"dump_data_dir\": null, "
                       "\"data\": {\"Module.fc.Linear.forward.0\": {\"input_args\": [], "
                       "\"input_kwargs\": {}, \"output\": []}}}");
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s", dump, out);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    pc_test_expect_in_log(log, "The dump holds 1 module records and no API record (level \"L0\")");
    pc_test_expect_in_log(log, "Dump with level \"L1\" (or \"mix\") for run_ut.");
    assert_int_equal(result_rows(out), 0);
}

static void test_precision_compare_of_different_dumps(void **state)
{
    (void)state;
    char a[512], b[512], out[512], log[600], args[4096], da[1024], db[1024];
    assert_non_null(pc_test_tmpdir(a, sizeof a));
    assert_non_null(pc_test_tmpdir(b, sizeof b));
    assert_non_null(pc_test_tmpdir(out, sizeof out));
    PC_TEST_FMT(log, "%s.log", out);
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --no-progress", DUMP("gpt_tensor"), a);
    assert_int_equal(pc_test_run_precheck(NULL, args, NULL), 0);
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --no-progress", DUMP("cnn_tensor"), b);
    assert_int_equal(pc_test_run_precheck(NULL, args, NULL), 0);
    pc_test_find_file(a, "accuracy_checking_details_", da, sizeof da);
    pc_test_find_file(b, "accuracy_checking_details_", db, sizeof db);
    PC_TEST_FMT(args, "api_precision_compare -npu %s -gpu %s -o %s", da, db, out);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    /* the run records beside the CSVs name the two dumps */
    pc_test_expect_in_log(log, "run_ut runs of different inputs");
    pc_test_expect_in_log(log, "cnn_tensor/step0/rank/dump.json (-gpu)");
    char cmd[1400];
    PC_TEST_FMT(cmd, "test -z \"$(ls -A %s)\"", out); /* nothing written */
    assert_int_equal(system(cmd), 0);
    /* without the records (as msprobe's CSVs): the API names still show it */
    PC_TEST_FMT(cmd, "rm %s/precheck_run_*.json %s/precheck_run_*.json", a, b);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    pc_test_expect_in_log(log,
                          "do not look like run_ut runs of the same dump: 100 of 108 NPU rows");
    PC_TEST_FMT(cmd, "test -z \"$(ls -A %s)\"", out);
    assert_int_equal(system(cmd), 0);
}

static void test_messages_say_what_to_do(void **state)
{
    (void)state;
    char dir[512], log[600], args[2048], cmd[1400];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    PC_TEST_FMT(log, "%s.log", dir);
    /* the rank folder instead of its dump.json */
    PC_TEST_FMT(args, "run_ut -api_info %s/gpt_stats/step0/rank -o %s/o1", DUMPS, dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    pc_test_expect_in_log(log, "It is a folder: did you mean ");
    pc_test_expect_in_log(log, "gpt_stats/step0/rank/dump.json?");
    /* a space in the dump's path */
    PC_TEST_FMT(cmd, "mkdir -p '%s/with space' && cp %s '%s/with space/dump.json'", dir,
                DUMP("gpt_stats"), dir);
    assert_int_equal(system(cmd), 0);
    PC_TEST_FMT(args, "run_ut -api_info '%s/with space/dump.json' -o %s/o2", dir, dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    pc_test_expect_in_log(log,
                          "contains special characters. Only letters, digits and _ . : / - are "
                          "allowed (no spaces or other characters): rename or move it.");
    /* materialize into a folder that already holds a dump, or tensor files */
    PC_TEST_FMT(args, "materialize -api_info %s -o %s/full", DUMP("gpt_stats"), dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    pc_test_expect_in_log(log, "exists: materialize does not overwrite a dump; remove it or choose "
                               "another -o");
    PC_TEST_FMT(cmd, "rm %s/full/dump.json", dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    pc_test_expect_in_log(log, "is not empty: materialize writes into an empty folder");
    pc_test_expect_in_log(log, "remove it or choose another -o");
}

/* ---- progress where no bar can be seen ---- */

static void test_progress_lines_in_the_log(void **state)
{
    (void)state;
    char dir[512], log[600], args[2048];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    PC_TEST_FMT(log, "%s.log", dir);
    /* stderr is a file here, not a terminal: no bar, a line in the log instead */
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s/a --progress-interval 0.000001", DUMP("gpt_stats"),
                dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    pc_test_expect_in_log(log, "[INFO] Progress: 1 of 43 APIs done (2.3%), ");
    pc_test_expect_in_log(log, " left\n");
    assert_false(pc_test_file_contains(log, "Processing:"));
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s/b --progress-interval 0.000001 --no-progress",
                DUMP("gpt_stats"), dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    assert_false(pc_test_file_contains(log, "Progress:"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_taken_are_never_merged),
        cmocka_unit_test(test_three_dumps_into_one_folder),
        cmocka_unit_test(test_closed_stdout),
        cmocka_unit_test(test_resume_command_keeps_the_flags),
        cmocka_unit_test(test_resume_refused_when_the_run_differs),
        cmocka_unit_test(test_dump_without_its_tensors),
        cmocka_unit_test(test_modules_only_dump),
        cmocka_unit_test(test_precision_compare_of_different_dumps),
        cmocka_unit_test(test_messages_say_what_to_do),
        cmocka_unit_test(test_progress_lines_in_the_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
