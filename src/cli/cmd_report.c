/*
 * precheck report DIR [-o FILE] [--run TS] [--error-data DIR] [--max-plots N]: the HTML page of
 * a run_ut or api_precision_compare output folder (report/report.h). Exit codes: 0 written, 1 a
 * failure (nothing to report on, a file that is not one of these commands' CSVs, I/O), 2 a
 * usage error.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "precheck/core/log.h"
#include "precheck/report/report.h"

static const char usage[] = "usage: precheck report [-h] DIR [-o FILE] [--run TS] "
                            "[--error-data DIR] [--max-plots N]\n"
                            "                       [--baseline OLD] "
                            "[--allow-different-dumps]\n";

static void print_help(void)
{
    printf("%s\n"
           "Writes one self-contained HTML page (no network, opens from file://) of what a\n"
           "run_ut or api_precision_compare run wrote into DIR: the device and settings, the\n"
           "counts, every API worst first (sortable, filterable), the error metrics against\n"
           "their limits, the -save_error_data tensors of the failing APIs, and what was\n"
           "skipped and why.\n"
           "\narguments:\n"
           "  DIR                   the folder run_ut's -o or api_precision_compare's -o named\n"
           "                        (or one holding both; not a soft link to it: inside it,\n"
           "                        files that are links are skipped with a warning)\n"
           "\noptions:\n"
           "  -h, --help            show this help message and exit\n"
           "  -o FILE, --output FILE\n"
           "                        the page (default DIR/precheck_report_<ts>.html, or\n"
           "                        _1.html, _2.html, ... when taken: nothing is overwritten)\n"
           "  --run TS              the run of that time stamp (YYYYmmddHHMMSS) when DIR holds\n"
           "                        several (default: the newest of each command)\n"
           "  --error-data DIR      where the run's ut_error_data<ts> folder is, when it moved\n"
           "                        (default: where the run record says, then DIR)\n"
           "  --max-plots N         APIs whose error data is drawn, worst first (default 24)\n"
           "  --baseline OLD        an earlier run of the same dump (its folder, or a CSV):\n"
           "                        a section of what changed since, and a mark on each\n"
           "                        changed API's row (as precheck diff OLD DIR tells it)\n"
           "  --allow-different-dumps\n"
           "                        a --baseline run of another dump or seed (refused\n"
           "                        otherwise)\n"
           "\nexit status: 0 written, 1 failure, 2 usage error\n",
           usage);
}

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "%sprecheck report: error: %s%s\n", usage, what, arg ? arg : "");
    return 2;
}

int pc_cli_report(int argc, char **argv)
{
    pc_report_options opt = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **dst = NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            print_help();
            return 0;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            dst = &opt.out_path;
        } else if (strcmp(a, "--run") == 0) {
            dst = &opt.run;
        } else if (strcmp(a, "--error-data") == 0) {
            dst = &opt.error_data;
        } else if (strcmp(a, "--baseline") == 0) {
            dst = &opt.baseline;
        } else if (strcmp(a, "--allow-different-dumps") == 0) {
            opt.allow_different_dumps = true;
            continue;
        } else if (strcmp(a, "--max-plots") == 0) {
            if (i + 1 >= argc)
                return usage_error("argument --max-plots: expected one argument", NULL);
            char *end;
            long n = strtol(argv[++i], &end, 10);
            if (*end || end == argv[i] || n < 1 || n > 100000)
                return usage_error("--max-plots must be a number from 1 to 100000: ", argv[i]);
            opt.max_error_apis = (size_t)n;
            continue;
        } else if (a[0] == '-' && a[1]) {
            static const char *const names[] = {"--output",    "--run",  "--error-data",
                                                "--max-plots", "--help", NULL};
            const char *meant = pc_args_suggest(a, names);
            if (meant) {
                fprintf(stderr,
                        "%sprecheck report: error: unrecognized arguments: %s (did you "
                        "mean %s?)\n",
                        usage, a, meant);
                return 2;
            }
            return usage_error("unrecognized arguments: ", a);
        } else if (!opt.dir) {
            opt.dir = a;
            continue;
        } else {
            return usage_error("one folder only; unrecognized arguments: ", a);
        }
        if (i + 1 >= argc)
            return usage_error("this option expects one argument: ", a);
        *dst = argv[++i];
    }
    if (!opt.dir)
        return usage_error("the following arguments are required: DIR", NULL);
    if (opt.run) {
        size_t n = strlen(opt.run);
        if (n != PC_REPORT_TS_LEN || strspn(opt.run, "0123456789") != n)
            return usage_error("--run takes the 14 digits of a run's file names, e.g. "
                               "20261203082757, not ",
                               opt.run);
    }
    /* a folder that is not there is an error, not a report without plots (a link is refused
     * where the report looks for the error data) */
    struct stat est;
    if (opt.error_data && lstat(opt.error_data, &est) != 0) {
        bool missing = errno == ENOENT || errno == ENOTDIR;
        pc_log_error("--error-data %s: %s%s%s. --error-data expects the run's ut_error_data<ts> "
                     "folder (run_ut -save_error_data), or the folder holding it.",
                     opt.error_data, missing ? "the folder does not exist" : "cannot be read (",
                     missing ? "" : strerror(errno), missing ? "" : ")");
        return 1;
    }
    if (opt.error_data && !S_ISLNK(est.st_mode) && !S_ISDIR(est.st_mode)) {
        pc_log_error("--error-data %s: not a folder. --error-data expects the run's "
                     "ut_error_data<ts> folder (run_ut -save_error_data), or the folder holding "
                     "it.",
                     opt.error_data);
        return 1;
    }
    pc_report_info info;
    if (pc_report_write(&opt, &info) != PC_OK) {
        pc_log_error("%s", pc_error_message());
        return 1;
    }
    if (info.run_ut_runs > 1 || info.compare_runs > 1)
        pc_log_warning("%s holds %zu run_ut and %zu api_precision_compare runs; the report shows "
                       "%s%s%s (--run TS for another)",
                       opt.dir, info.run_ut_runs, info.compare_runs,
                       info.run_ut_ts[0] ? info.run_ut_ts : "",
                       info.run_ut_ts[0] && info.compare_ts[0] ? " and " : "", info.compare_ts);
    pc_log_info("report of %s%s%s%s%s: %zu APIs, %zu with error-data plots: %s",
                info.run_ut_ts[0] ? "run_ut " : "", info.run_ut_ts,
                info.run_ut_ts[0] && info.compare_ts[0] ? " and " : "",
                info.compare_ts[0] ? "api_precision_compare " : "", info.compare_ts, info.apis,
                info.error_data_apis, info.out_path);
    return 0;
}
