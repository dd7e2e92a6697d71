/*
 * Issue #29, the writers: real processes, real files and real links.
 *   - item 4: a symbolic link planted in an output folder, at an output's final name or at the
 *     temporary name older versions used, is never written through: its target stays as it was
 *     and precheck says why -- for each kind of writer (run_ut's summary, api_precision_compare's
 *     CSVs and summary, the report page, error-data tensors, the bench cache, materialize's
 *     dump.json); a merge killed midway leaves no CSV under a final name;
 *   - item 6: the README's quick start into one folder leaves run_ut's and api_precision_compare's
 *     summaries side by side, each with its own kind and command, and overwrites nothing;
 *   - item 3: run_ut started with stdin, stdout and stderr closed writes the same CSVs as a
 *     normal run and no log line into any file;
 *   - item 13: a 4,069-character -o: the message still ends with the cause.
 * PC_REL_BINARY names another precheck to run these against (an older build, to see them fail).
 */
#include "pc_run_ut_test.h"
#include "pc_test.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
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

/* How many seconds ahead links are planted at time-stamped names. */
enum { AHEAD = 20 };

static const char victim_text[] = "precious: must never be written through a link\n";

static const char *bin(void)
{
    const char *b = getenv("PC_REL_BINARY");
    return b && *b ? b : PC_TEST_BINARY;
}

/* Runs a shell command (printf format); returns its exit status. */
__attribute__((format(printf, 1, 2))) static int sh(const char *fmt, ...)
{
    char cmd[16384];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    assert_true(n > 0 && (size_t)n < sizeof cmd);
    int st = system(cmd);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

/* precheck <args> in folder cwd, its output in log. */
static int run_in(const char *cwd, const char *args, const char *log)
{
    return sh("cd '%s' && '%s' %s >'%s' 2>&1", cwd, bin(), args, log);
}

static void make_victim(const char *root, char *victim, size_t size)
{
    snprintf(victim, size, "%s/victim.txt", root);
    FILE *f = fopen(victim, "w");
    assert_non_null(f);
    fputs(victim_text, f);
    fclose(f);
}

static void assert_victim_untouched(const char *victim)
{
    char *t = pc_test_slurp(victim, NULL);
    if (strcmp(t, victim_text) != 0)
        fail_msg("precheck wrote through a planted link: %s now holds \"%.80s\"", victim, t);
    free(t);
}

/* The local time stamp of base + k seconds, as precheck names files. */
static void stamp(time_t base, int k, char ts[16])
{
    time_t t = base + k;
    struct tm lt;
    localtime_r(&t, &lt);
    strftime(ts, 16, "%Y%m%d%H%M%S", &lt);
}

/* Plants links to victim at dir/<before><ts><after> for every second from now to AHEAD. */
static void plant(const char *dir, const char *before, const char *after, const char *victim)
{
    time_t now = time(NULL);
    for (int k = -1; k <= AHEAD; k++) {
        char ts[16], p[1200];
        stamp(now, k, ts);
        PC_TEST_FMT(p, "%s/%s%s%s", dir, before, ts, after);
        if (symlink(victim, p) != 0)
            assert_int_equal(errno, EEXIST);
    }
}

static int count_names(const char *dir, const char *prefix, const char *suffix)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t a = strlen(e->d_name), b = strlen(suffix);
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0 && a >= b &&
             strcmp(e->d_name + a - b, suffix) == 0;
    }
    closedir(d);
    return n;
}

/* ---- item 4: run_ut's summary ---- */

static void test_summary_json_link(void **state)
{
    (void)state;
    char root[512], out[600], log[600], victim[600];
    assert_non_null(pc_test_tmpdir(root, sizeof root));
    make_victim(root, victim, sizeof victim);
    PC_TEST_FMT(out, "%s/out", root);
    assert_int_equal(mkdir(out, 0750), 0);
    plant(out, "precheck_summary_", ".json", victim);
    plant(out, "precheck_summary_", ".json.tmp", victim); /* older versions' temporary */
    PC_TEST_FMT(log, "%s/log.txt", root);
    char args[1200];
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --no-progress", DUMP("gpt_tensor"), out);
    assert_int_equal(run_in(root, args, log), 0); /* the CSVs are what the run is for */
    assert_victim_untouched(victim);
    pc_test_expect_in_log(log, "is a symbolic link");
}

/* ---- item 4: api_precision_compare's CSVs and its summary ---- */

/* The details CSVs of two runs of one dump: the NPU side replayed, the GPU side on the
 * reference device (api_precision_compare refuses one file as both sides). */
static void compare_inputs(const char *root, char *npu, char *gpu, size_t size)
{
    char args[1200], log[600], dir[600];
    PC_TEST_FMT(log, "%s/in.log", root);
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s/npu --no-progress --backend replay",
                DUMP("gpt_tensor"), root);
    assert_int_equal(run_in(root, args, log), 0);
    PC_TEST_FMT(dir, "%s/npu", root);
    pc_test_find_file(dir, "accuracy_checking_details_", npu, size);
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s/gpu --no-progress", DUMP("gpt_tensor"), root);
    assert_int_equal(run_in(root, args, log), 0);
    PC_TEST_FMT(dir, "%s/gpu", root);
    pc_test_find_file(dir, "accuracy_checking_details_", gpu, size);
}

static void test_compare_csv_link(void **state)
{
    (void)state;
    char root[512], out[600], log[600], victim[600], npu[1024], gpu[1024], args[4096];
    assert_non_null(pc_test_tmpdir(root, sizeof root));
    make_victim(root, victim, sizeof victim);
    compare_inputs(root, npu, gpu, sizeof npu);
    PC_TEST_FMT(out, "%s/out", root);
    assert_int_equal(mkdir(out, 0750), 0);
    plant(out, "api_precision_compare_result_", ".csv", victim);
    plant(out, "api_precision_compare_details_", ".csv", victim);
    PC_TEST_FMT(log, "%s/log.txt", root);
    PC_TEST_FMT(args, "api_precision_compare -npu %s -gpu %s -o %s", npu, gpu, out);
    assert_int_equal(run_in(root, args, log), 1);
    assert_victim_untouched(victim);
    pc_test_expect_in_log(log, "is a symbolic link");
    assert_int_equal(count_names(out, "", ".partial"), 0);
}

static void test_compare_summary_link(void **state)
{
    (void)state;
    char root[512], out[600], log[600], victim[600], npu[1024], gpu[1024], args[4096];
    assert_non_null(pc_test_tmpdir(root, sizeof root));
    make_victim(root, victim, sizeof victim);
    compare_inputs(root, npu, gpu, sizeof npu);
    PC_TEST_FMT(out, "%s/out", root);
    assert_int_equal(mkdir(out, 0750), 0);
    plant(out, "precheck_summary_", ".json.tmp", victim); /* older versions' temporary */
    plant(out, "api_precision_compare_summary_", ".json", victim);
    PC_TEST_FMT(log, "%s/log.txt", root);
    PC_TEST_FMT(args, "api_precision_compare -npu %s -gpu %s -o %s", npu, gpu, out);
    assert_int_equal(run_in(root, args, log), 0);
    assert_victim_untouched(victim);
    pc_test_expect_in_log(log, "is a symbolic link");
}

/* ---- item 4: the report page ---- */

static void test_report_link(void **state)
{
    (void)state;
    char root[512], out[600], log[600], victim[600], args[1200], csv[1024];
    assert_non_null(pc_test_tmpdir(root, sizeof root));
    make_victim(root, victim, sizeof victim);
    PC_TEST_FMT(out, "%s/out", root);
    PC_TEST_FMT(log, "%s/log.txt", root);
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --no-progress", DUMP("gpt_tensor"), out);
    assert_int_equal(run_in(root, args, log), 0);
    pc_test_find_file(out, "accuracy_checking_result_", csv, sizeof csv);
    const char *ts = strrchr(csv, '_') + 1; /* <ts>.csv */
    char page[1200], partial[1300];
    PC_TEST_FMT(page, "%s/precheck_report_%.14s.html", out, ts);
    PC_TEST_FMT(partial, "%s.partial", page); /* older versions' temporary */
    assert_int_equal(symlink(victim, page), 0);
    assert_int_equal(symlink(victim, partial), 0);
    PC_TEST_FMT(args, "report %s", out);
    assert_int_equal(run_in(root, args, log), 1);
    assert_victim_untouched(victim);
    pc_test_expect_in_log(log, "is a symbolic link");
    /* a page named with -o is replaced when it is a file, never through a link */
    PC_TEST_FMT(page, "%s/named.html", root);
    assert_int_equal(symlink(victim, page), 0);
    PC_TEST_FMT(args, "report %s -o %s", out, page);
    assert_int_equal(run_in(root, args, log), 1);
    assert_victim_untouched(victim);
    pc_test_expect_in_log(log, "is a symbolic link");
    assert_int_equal(unlink(page), 0);
    assert_int_equal(run_in(root, args, log), 0);
    assert_int_equal(run_in(root, args, log), 0);
    assert_true(pc_test_file_contains(page, "<html"));
}

/* The default page name is never overwritten: a second report takes _1. */
static void test_report_twice_keeps_both(void **state)
{
    (void)state;
    char root[512], out[600], log[600], args[1200];
    assert_non_null(pc_test_tmpdir(root, sizeof root));
    PC_TEST_FMT(out, "%s/out", root);
    PC_TEST_FMT(log, "%s/log.txt", root);
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --no-progress", DUMP("gpt_tensor"), out);
    assert_int_equal(run_in(root, args, log), 0);
    PC_TEST_FMT(args, "report %s", out);
    assert_int_equal(run_in(root, args, log), 0);
    assert_int_equal(run_in(root, args, log), 0);
    assert_int_equal(count_names(out, "precheck_report_", ".html"), 2);
    assert_int_equal(count_names(out, "precheck_report_", "_1.html"), 1);
}

/* ---- item 4: error-data tensors ---- */

static void test_error_data_link(void **state)
{
    (void)state;
    char root[512], first[600], second[600], log[600], victim[600], args[1200];
    assert_non_null(pc_test_tmpdir(root, sizeof root));
    make_victim(root, victim, sizeof victim);
    /* a first run shows the names of the error-data files */
    PC_TEST_FMT(first, "%s/first", root);
    assert_int_equal(mkdir(first, 0750), 0);
    PC_TEST_FMT(log, "%s/log.txt", root);
    PC_TEST_FMT(args, "run_ut -api_info %s -o out --backend replay -save_error_data --no-progress",
                DUMP("gpt_bf16_tensor"));
    assert_int_equal(run_in(first, args, log), 0);
    /* the second run's folder: ut_error_data<ts> for the coming seconds, links at those names */
    PC_TEST_FMT(second, "%s/second", root);
    assert_int_equal(mkdir(second, 0750), 0);
    assert_int_equal(sh("cd '%s' && d=$(ls -d ut_error_data*) && b=$(date +%%s) && "
                        "for k in $(seq -1 %d); do "
                        "t=$(date -d \"@$(( b + k ))\" +%%Y%%m%%d%%H%%M%%S); "
                        "mkdir -p ../second/ut_error_data$t; for f in $(ls $d | head -8); do "
                        "ln -s '%s' ../second/ut_error_data$t/$f; done; done",
                        first, AHEAD, victim),
                     0);
    /* the refused files are error data not saved: counted, said at the end, exit 1 (item 7) */
    assert_int_equal(run_in(second, args, log), 1);
    assert_victim_untouched(victim);
    pc_test_expect_in_log(log, "is a symbolic link");
    pc_test_expect_in_log(log, "error data files of this run could not be saved in");
}

/* ---- item 4: the bench cache ---- */

static void test_bench_cache_link(void **state)
{
    (void)state;
    char root[512], log[600], victim[600], args[1200];
    assert_non_null(pc_test_tmpdir(root, sizeof root));
    make_victim(root, victim, sizeof victim);
    PC_TEST_FMT(log, "%s/log.txt", root);
    PC_TEST_FMT(args, "run_ut -api_info %s -o a --bench-cache cache --no-progress",
                DUMP("gpt_tensor"));
    assert_int_equal(run_in(root, args, log), 0);
    /* every entry becomes a link to the victim */
    assert_int_equal(
        sh("cd '%s/cache' && n=0 && for f in *.pcb; do rm \"$f\" && ln -s '%s' \"$f\" && "
           "n=$((n+1)); done && test $n -gt 0",
           root, victim),
        0);
    PC_TEST_FMT(args, "run_ut -api_info %s -o b --bench-cache cache --no-progress",
                DUMP("gpt_tensor"));
    assert_int_equal(run_in(root, args, log), 0);
    assert_victim_untouched(victim);
    pc_test_expect_in_log(log, "is a symbolic link");
    char a[600], b[600];
    PC_TEST_FMT(a, "%s/a", root);
    PC_TEST_FMT(b, "%s/b", root);
    pc_test_assert_same_csvs(a, b);
}

/* ---- item 4: materialize's dump.json ---- */

static void test_materialize_links(void **state)
{
    (void)state;
    char root[512], log[600], victim[600], args[1200], p[700];
    assert_non_null(pc_test_tmpdir(root, sizeof root));
    make_victim(root, victim, sizeof victim);
    PC_TEST_FMT(log, "%s/log.txt", root);
    /* the temporary name older versions used: not followed, the dump is written */
    assert_int_equal(
        sh("mkdir '%s/m1' && ln -s '%s' '%s/m1/dump.json.partial'", root, victim, root), 0);
    PC_TEST_FMT(args, "materialize -api_info %s -o m1", DUMP("gpt_stats"));
    assert_int_equal(run_in(root, args, log), 0);
    assert_victim_untouched(victim);
    PC_TEST_FMT(p, "%s/m1/dump.json", root);
    assert_true(pc_test_file_contains(p, "\"data\""));
    /* a link at dump.json itself: refused, saying why */
    assert_int_equal(sh("mkdir '%s/m2' && ln -s '%s' '%s/m2/dump.json'", root, victim, root), 0);
    PC_TEST_FMT(args, "materialize -api_info %s -o m2", DUMP("gpt_stats"));
    assert_int_equal(run_in(root, args, log), 1);
    assert_victim_untouched(victim);
    pc_test_expect_in_log(log, "is a symbolic link");
}

/* ---- item 4: merge killed midway ---- */

static void test_merge_killed_leaves_no_csv(void **state)
{
    (void)state;
    char root[512], log[600], args[2400], merged[600];
    assert_non_null(pc_test_tmpdir(root, sizeof root));
    PC_TEST_FMT(log, "%s/log.txt", root);
    for (int k = 1; k <= 2; k++) {
        PC_TEST_FMT(args, "run_ut -api_info %s -o s%d --shard %d/2 --no-progress",
                    DUMP("gpt_tensor"), k, k);
        assert_int_equal(run_in(root, args, log), 0);
    }
    /* a file-size limit kills the merge (SIGXFSZ) while it writes the merged CSVs */
    PC_TEST_FMT(merged, "%s/merged", root);
    int rc = sh("cd '%s' && (ulimit -f 8 && exec '%s' merge s1 s2 -o merged >/dev/null 2>&1) "
                "2>/dev/null",
                root, bin());
    assert_int_not_equal(rc, 0);
    assert_int_equal(count_names(merged, "accuracy_checking_", ".csv"), 0);
    /* and without the limit it merges */
    PC_TEST_FMT(args, "merge s1 s2 -o m2");
    assert_int_equal(run_in(root, args, log), 0);
    PC_TEST_FMT(merged, "%s/m2", root);
    assert_int_equal(count_names(merged, "accuracy_checking_", ".csv"), 2);
}

/* ---- item 6: the README's quick start into one folder ---- */

static void test_quick_start_two_summaries(void **state)
{
    (void)state;
    char root[512], log[600], args[4096], npu[600], gpu[1024], ncsv[1024];
    assert_non_null(pc_test_tmpdir(root, sizeof root));
    PC_TEST_FMT(log, "%s/log.txt", root);
    PC_TEST_FMT(npu, "%s/out/npu", root);
    PC_TEST_FMT(args,
                "run_ut -api_info %s -o out/npu --backend replay --no-progress && '%s' run_ut "
                "-api_info %s -o out/gpu --backend cpu --no-progress",
                DUMP("gpt_bf16_tensor"), bin(), DUMP("gpt_bf16_tensor"));
    assert_int_equal(run_in(root, args, log), 0);
    char run_summary[1024];
    pc_test_find_file(npu, "precheck_summary_", run_summary, sizeof run_summary);
    char *before = pc_test_slurp(run_summary, NULL);
    /* whatever second the compare runs in, a run_ut summary of that second is never touched:
     * copies of run_ut's summary at the names of the coming seconds */
    time_t now = time(NULL);
    for (int k = -1; k <= AHEAD; k++) {
        char ts[16], p[1200];
        stamp(now, k, ts);
        PC_TEST_FMT(p, "%s/precheck_summary_%s.json", npu, ts);
        if (access(p, F_OK) != 0)
            assert_int_equal(sh("cp '%s' '%s'", run_summary, p), 0);
    }
    pc_test_find_file(npu, "accuracy_checking_details_", ncsv, sizeof ncsv);
    char gdir[700];
    PC_TEST_FMT(gdir, "%s/out/gpu", root);
    pc_test_find_file(gdir, "accuracy_checking_details_", gpu, sizeof gpu);
    PC_TEST_FMT(args, "api_precision_compare -npu %s -gpu %s -o out/npu", ncsv, gpu);
    assert_int_equal(run_in(root, args, log), 0);
    /* every run_ut summary as it was */
    assert_int_equal(sh("cd '%s' && for f in precheck_summary_*.json; do cmp -s \"$f\" '%s' || "
                        "exit 1; done",
                        npu, run_summary),
                     0);
    char *after = pc_test_slurp(run_summary, NULL);
    assert_string_equal(before, after);
    assert_true(strstr(after, "\"kind\": \"run_ut\"") != NULL);
    assert_true(strstr(after, " run_ut ") != NULL);
    /* the compare's own, with its kind and its command */
    char cmp_summary[1024];
    pc_test_find_file(npu, "api_precision_compare_summary_", cmp_summary, sizeof cmp_summary);
    assert_true(pc_test_file_contains(cmp_summary, "\"kind\": \"api_precision_compare\""));
    assert_true(pc_test_file_contains(cmp_summary, " api_precision_compare -npu "));
    free(before);
    free(after);
}

/* ---- item 3: closed standard descriptors ---- */

static void assert_no_log_text(const char *dir)
{
    /* any line of precheck's log has " [INFO] ", " [WARNING] " or " [ERROR] " */
    int rc = sh("grep -rlE '\\[(INFO|WARNING|ERROR|DEBUG)\\]' '%s' >/dev/null", dir);
    if (rc == 0) {
        sh("grep -rlE '\\[(INFO|WARNING|ERROR|DEBUG)\\]' '%s' >&2", dir);
        fail_msg("log lines in an output file under %s", dir);
    }
}

static void test_closed_std_fds(void **state)
{
    (void)state;
    char root[512], a[600], b[600], c[600], log[600], args[1200];
    assert_non_null(pc_test_tmpdir(root, sizeof root));
    PC_TEST_FMT(a, "%s/normal", root);
    PC_TEST_FMT(b, "%s/closed", root);
    PC_TEST_FMT(c, "%s/closed_multi", root);
    PC_TEST_FMT(log, "%s/log.txt", root);
    PC_TEST_FMT(args, "run_ut -api_info %s -o normal --no-progress", DUMP("gpt_tensor"));
    assert_int_equal(run_in(root, args, log), 0);
    assert_int_equal(sh("cd '%s' && '%s' run_ut -api_info %s -o closed --no-progress "
                        "<&- >&- 2>&-",
                        root, bin(), DUMP("gpt_tensor")),
                     0);
    assert_int_equal(sh("cd '%s' && '%s' multi_run_ut -api_info %s -o closed_multi -n 2 "
                        "--no-progress <&- >&- 2>&-",
                        root, bin(), DUMP("gpt_tensor")),
                     0);
    pc_test_assert_same_csvs(a, b);
    pc_test_assert_same_csvs(a, c);
    assert_no_log_text(b);
    assert_no_log_text(c);
    /* the summary is whole JSON, not log lines */
    char json[1024];
    pc_test_find_file(b, "precheck_summary_", json, sizeof json);
    char *t = pc_test_slurp(json, NULL);
    assert_true(t[0] == '{');
    free(t);
}

/* ---- item 13: a long -o keeps the cause ---- */

static void test_long_output_path_keeps_cause(void **state)
{
    (void)state;
    char root[512], log[600];
    assert_non_null(pc_test_tmpdir(root, sizeof root));
    PC_TEST_FMT(log, "%s/log.txt", root);
    /* 15 folders of 252 characters made beforehand, then one more: 4,069 characters in all */
    char *out = malloc(8192);
    assert_non_null(out);
    int n = snprintf(out, 8192, "%s", root);
    for (int i = 0; i < 15; i++)
        n += snprintf(out + n, 8192 - (size_t)n, "/%0252d", i);
    assert_int_equal(sh("mkdir -p '%s'", out), 0);
    int pad = 4069 - n - 1;
    assert_true(pad > 0 && pad < 256);
    out[n++] = '/';
    memset(out + n, 'z', (size_t)pad);
    out[n + pad] = 0;
    assert_int_equal(strlen(out), 4069);
    char *args = malloc(12000);
    assert_non_null(args);
    snprintf(args, 12000, "run_ut -api_info %s -o %s --no-progress", DUMP("gpt_tensor"), out);
    assert_int_equal(run_in(root, args, log), 1);
    /* the last line: the error, with its cause at the end */
    assert_int_equal(sh("grep ERROR '%s' | tail -1 | grep -q 'File name too long$'", log), 0);
    free(args);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary_json_link),
        cmocka_unit_test(test_compare_csv_link),
        cmocka_unit_test(test_compare_summary_link),
        cmocka_unit_test(test_report_link),
        cmocka_unit_test(test_report_twice_keeps_both),
        cmocka_unit_test(test_error_data_link),
        cmocka_unit_test(test_bench_cache_link),
        cmocka_unit_test(test_materialize_links),
        cmocka_unit_test(test_merge_killed_leaves_no_csv),
        cmocka_unit_test(test_quick_start_two_summaries),
        cmocka_unit_test(test_closed_std_fds),
        cmocka_unit_test(test_long_output_path_keeps_cause),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
