/*
 * precheck api_precision_compare -npu NPU.csv -gpu GPU.csv [-o DIR]: msprobe's flags, its path
 * checks, the pair's run records (pc_pcmp_check_pair), then the comparison and its summary. Exit
 * codes: 0 done (NPU rows without a GPU match are warned about and skipped, as msprobe does), 1 a
 * failure (nothing written), 2 a usage error, 3 --fail-on.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "precheck/core/clock.h"
#include "precheck/core/log.h"
#include "precheck/io/path_check.h"
#include "precheck/precision_compare/precision_compare.h"
#include "precheck/report/diff.h"
#include "precheck/report/pcmp_report.h"
#include "precheck/runner/runner.h"

static void print_usage(FILE *out, const pc_args_command *cmd)
{
    (void)cmd;
    fprintf(out, "usage: precheck api_precision_compare [-h] -npu NPU_CSV_PATH -gpu GPU_CSV_PATH "
                 "[-o OUT_PATH]\n"
                 "                                      [--fail-on error|warning] "
                 "[--allow-different-dumps]\n"
                 "                                      [--junit FILE]\n");
}

static void print_help(FILE *out, const pc_args_command *cmd)
{
    print_usage(out, cmd);
    fprintf(out,
            "\n"
            "Judges the NPU's run_ut errors against the GPU's with msprobe's precision standards.\n"
            "\noptions:\n"
            "  -h, --help            show this help message and exit\n"
            "  -npu NPU_CSV_PATH, --npu_csv_path NPU_CSV_PATH\n"
            "                        the accuracy_checking_details CSV of the NPU run\n"
            "  -gpu GPU_CSV_PATH, --gpu_csv_path GPU_CSV_PATH\n"
            "                        the accuracy_checking_details CSV of the GPU run\n"
            "  -o OUT_PATH, --out_path OUT_PATH\n"
            "                        output directory (default ./)\n"
            "  --fail-on error|warning\n"
            "                        exit 3 when an API's verdict is error (warning: error or "
            "warning):\n"
            "                        a CI gate (default off: msprobe's exit codes)\n"
            "  --allow-different-dumps\n"
            "                        judge CSVs of run_ut runs of different dumps (or seeds) on\n"
            "                        purpose; without it they are refused, as are one file given\n"
            "                        twice and two copies of one run (the run records beside the\n"
            "                        CSVs, precheck_run_<ts>.json, say which dump each side ran)\n"
            "  --junit FILE          also write JUnit XML for Jenkins and GitLab: one testcase "
            "per\n"
            "                        API, error a failure with the standard's message, SKIP "
            "skipped\n"
            "                        with the reason (replaced if there)\n"
            "\nAt the end the log has a summary (counts, each row in error with the standard and "
            "the\nchecks that failed, NPU and GPU figures side by side) and\n"
            "api_precision_compare_summary_<ts>.json is written beside the outputs\n"
            "(docs/summary-json.md). No output ever overwrites an existing file.\n"
            "\nexit status: 0 done, 1 failure (no output written), 2 usage error, 3 --fail-on\n");
}

typedef struct paths {
    const char *npu, *gpu, *out;
    pc_fail_level fail_on;
    bool allow_different_dumps;
    const char *junit; /* --junit FILE, NULL: none */
} paths;

static int take(void *ctx, const pc_args_command *cmd, int id, char **values, int count)
{
    (void)count;
    paths *p = ctx;
    if (id == PC_FLAG_NPU_CSV_PATH)
        p->npu = values[0];
    else if (id == PC_FLAG_GPU_CSV_PATH)
        p->gpu = values[0];
    else if (id == PC_FLAG_OUT_PATH)
        p->out = values[0];
    else if (id == PC_FLAG_JUNIT)
        p->junit = values[0];
    else if (id == PC_FLAG_ALLOW_DIFFERENT_DUMPS)
        p->allow_different_dumps = true;
    else if (id == PC_FLAG_FAIL_ON && strcmp(values[0], "error") == 0)
        p->fail_on = PC_FAIL_ERROR;
    else if (id == PC_FLAG_FAIL_ON && strcmp(values[0], "warning") == 0)
        p->fail_on = PC_FAIL_WARNING;
    else if (id == PC_FLAG_FAIL_ON)
        return pc_args_usage_error(cmd,
                                   "argument --fail-on: invalid choice: '%s' (choose from "
                                   "'error', 'warning')",
                                   values[0]);
    return PC_ARGS_RUN;
}

/* msprobe's _api_precision_compare_parser: -npu and -gpu required */
static const pc_args_command command = {
    .prog = "precheck api_precision_compare",
    .table = pc_flags,
    .options =
        (const int[]){PC_FLAG_HELP, PC_FLAG_NPU_CSV_PATH, PC_FLAG_GPU_CSV_PATH, PC_FLAG_OUT_PATH,
                      PC_FLAG_FAIL_ON, PC_FLAG_ALLOW_DIFFERENT_DUMPS, PC_FLAG_JUNIT, -1},
    .required = (const int[]){PC_FLAG_NPU_CSV_PATH, PC_FLAG_GPU_CSV_PATH, -1},
    .print_usage = print_usage,
    .print_help = print_help,
};

static int newest_first(const void *a, const void *b)
{
    return strcmp(*(char *const *)b, *(char *const *)a);
}

/* A folder given as -npu or -gpu (flag): the path check's error (pc_path_check's "should be a
 * file!") becomes one naming the details CSVs of run_ut in it, newest first, as run_ut names
 * the dump.json of a rank folder given as -api_info. Nothing changes when path is no folder or
 * holds no accuracy_checking_details_*.csv. */
static void folder_hint(const char *flag, const char *path)
{
    static const char prefix[] = "accuracy_checking_details_";
    struct stat st;
    if (!strstr(pc_error_message(), "should be a file!"))
        return; /* another check failed first (a link, a name): its message stands */
    DIR *d = stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? opendir(path) : NULL;
    if (!d)
        return;
    char *names[4];
    size_t n = 0, total = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, prefix, sizeof prefix - 1) != 0 || len < 4 ||
            strcmp(e->d_name + len - 4, ".csv") != 0)
            continue;
        total++;
        char *copy = strdup(e->d_name);
        if (!copy)
            continue;
        if (n < 4) {
            names[n++] = copy;
            continue;
        }
        /* keep the 4 newest (the names end in their run's time stamp) */
        qsort(names, n, sizeof *names, newest_first);
        if (strcmp(copy, names[n - 1]) > 0) {
            free(names[n - 1]);
            names[n - 1] = copy;
        } else {
            free(copy);
        }
    }
    closedir(d);
    if (n == 0)
        return;
    qsort(names, n, sizeof *names, newest_first);
    bool slash = path[0] && path[strlen(path) - 1] == '/';
    char list[4 * 320] = "";
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        int w = snprintf(list + used, sizeof list - used, "%s%s%s%s", i ? ", " : "", path,
                         slash ? "" : "/", names[i]);
        if (w > 0 && (size_t)w < sizeof list - used)
            used += (size_t)w;
        free(names[i]);
    }
    pc_error_set(PC_ERR_INVALID,
                 "The %s should be a file! It is a folder: did you mean %s%s%s%s? (%s takes the "
                 "accuracy_checking_details CSV of a run_ut run)",
                 path, total > 1 ? "one of " : "", list, total > n ? ", ..." : "",
                 total > 1 ? " (newest first)" : "", flag);
}

int pc_cli_api_precision_compare(int argc, char **argv)
{
    paths p = {.out = "./"};
    /* when it started and how long it takes, for its summary (and the report's card) */
    double t0 = pc_clock_seconds();
    time_t start = time(NULL);
    struct tm lt;
    char started[32] = "";
    if (localtime_r(&start, &lt))
        strftime(started, sizeof started, "%Y-%m-%d %H:%M:%S", &lt);
    int rc = pc_args_parse(&command, argc, argv, take, &p, NULL);
    if (rc != PC_ARGS_RUN)
        return rc;
    const char *npu = p.npu, *gpu = p.gpu, *out = p.out;
    char npu_r[PC_PATH_BUFFER_SIZE], gpu_r[PC_PATH_BUFFER_SIZE], out_r[PC_PATH_BUFFER_SIZE];
    pc_status st =
        pc_path_check(npu, PC_PATH_FILE, PC_PATH_READ | PC_PATH_WRITE, ".csv", npu_r, sizeof npu_r);
    if (st != PC_OK)
        folder_hint("-npu", npu);
    if (st == PC_OK) {
        st = pc_path_check(gpu, PC_PATH_FILE, PC_PATH_READ | PC_PATH_WRITE, ".csv", gpu_r,
                           sizeof gpu_r);
        if (st != PC_OK)
            folder_hint("-gpu", gpu);
    }
    if (st == PC_OK)
        st = pc_path_make_dir(out);
    if (st == PC_OK)
        st = pc_path_check(out, PC_PATH_DIR, PC_PATH_WRITE, NULL, out_r, sizeof out_r);
    if (st != PC_OK) {
        pc_log_error("%s", pc_error_message());
        return 1;
    }
    pc_pcmp_options opt = {.npu_path = npu_r,
                           .gpu_path = gpu_r,
                           .out_dir = out_r,
                           .allow_different_dumps = p.allow_different_dumps};
    pc_pcmp_summary sum;
    st = pc_pcmp_check_pair(npu_r, gpu_r, p.allow_different_dumps);
    if (st == PC_OK)
        st = pc_pcmp_run(&opt, &sum);
    if (st != PC_OK) {
        pc_log_error("%s", pc_error_message());
        pc_log_error("api_precision_compare failed; no output was written.");
        return 1;
    }
    pc_log_info("api_precision_compare: %zu NPU rows, %zu details rows, %zu APIs; wrote %s and %s",
                sum.npu_rows, sum.details_rows, sum.result_rows, sum.details_path, sum.result_path);
    /* the summary, and summary.json beside the outputs (their time stamp) */
    char json[PC_PATH_BUFFER_SIZE + 64], line[4096];
    const char *ts = strrchr(sum.result_path, '_');
    snprintf(json, sizeof json, "%s/api_precision_compare_summary_%.14s.json", out_r,
             ts ? ts + 1 : "run");
    size_t used = (size_t)snprintf(line, sizeof line, "precheck");
    for (int i = 0; i < argc && used < sizeof line; i++)
        used += (size_t)snprintf(line + used, sizeof line - used, " %s", argv[i]);
    pc_pcmp_report_in rin = {sum.result_path,
                             sum.details_path,
                             npu_r,
                             gpu_r,
                             json,
                             line,
                             started[0] ? started : NULL,
                             pc_clock_seconds() - t0};
    bool fails = false;
    if (pc_pcmp_report(&rin, p.fail_on, &fails) != PC_OK)
        pc_log_warning("no summary: %s", pc_error_message());
    if (p.junit &&
        pc_report_junit_write(sum.result_path, p.junit, p.fail_on == PC_FAIL_WARNING) != PC_OK) {
        pc_log_error("%s", pc_error_message());
        return 1;
    }
    if (p.junit)
        pc_log_info("JUnit XML: %s", p.junit);
    pc_run_log_next_step(out);
    if (fails) {
        pc_log_warning("--fail-on %s: an API's verdict is %s; exit status %d.",
                       p.fail_on == PC_FAIL_WARNING ? "warning" : "error",
                       p.fail_on == PC_FAIL_WARNING ? "error or warning" : "error",
                       PC_EXIT_FAILED_CHECK);
        return PC_EXIT_FAILED_CHECK;
    }
    return 0;
}
