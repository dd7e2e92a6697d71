/*
 * precheck diff OLD NEW [--factor F] [--json FILE] [--junit FILE] [--fail-on LIST]
 * [--allow-different-dumps] [--all]: what changed between two runs of one dump (report/diff.h,
 * docs/diff.md). Exit codes: 0 compared (and nothing --fail-on names), 1 a failure (a folder
 * without a run, runs of different dumps or commands, I/O), 2 a usage error, 3 (run_ut's
 * PC_EXIT_FAILED_CHECK) --fail-on found what it names.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "precheck/core/log.h"
#include "precheck/report/diff.h"
#include "precheck/runner/runner.h"

static const char usage[] = "usage: precheck diff [-h] OLD NEW [--factor F] [--json FILE] "
                            "[--junit FILE]\n"
                            "                     [--fail-on LIST] [--allow-different-dumps] "
                            "[--all]\n";

static void print_help(void)
{
    printf("%s\n"
           "Tells what changed between two runs of the same dump (after a CANN, torch_npu or\n"
           "driver upgrade, a fix, another machine): the APIs newly failing, fixed, still\n"
           "failing, other verdict changes, the metrics that moved more than F times, and the\n"
           "APIs present on one side only. Counts first, then the lists.\n"
           "\narguments:\n"
           "  OLD, NEW              run_ut or api_precision_compare output folders (-o) of the\n"
           "                        same command, or one CSV of a run (a folder with several\n"
           "                        runs: the newest; name the CSV for another)\n"
           "\noptions:\n"
           "  -h, --help            show this help message and exit\n"
           "  --factor F            a metric moved when it changed more than F times (F > 1,\n"
           "                        default %g; see below)\n"
           "  --json FILE           write the changes as JSON (docs/diff.md; replaced if there)\n"
           "  --junit FILE          write JUnit XML: one testcase per API, a failure for each\n"
           "                        API newly failing (and for what --fail-on names), skipped\n"
           "                        for an API only in OLD\n"
           "  --fail-on LIST        exit 3 when the diff holds one of these (comma-separated):\n"
           "                        new-error (an API fails in NEW and did not in OLD),\n"
           "                        new-warning (the same, or newly Warning), moved (a metric\n"
           "                        moved for the worse more than F times), missing (an API of\n"
           "                        OLD is not in NEW), any (any change at all)\n"
           "  --allow-different-dumps\n"
           "                        compare runs whose records say they ran different dumps\n"
           "                        or seeds (refused by default)\n"
           "  --all                 print every API of each list (default: the first 50)\n"
           "\nA metric is compared as its distance from a perfect result: 1 - value for the\n"
           "cosine, the shares within a relative error and 双千指标, |value| otherwise. A\n"
           "distance below 1e-9 counts as 1e-9: 0 against 1e-12 did not move, 0 against 1e-6\n"
           "moved 1000 times. A number against NaN or inf moved (factor inf); NaN against NaN\n"
           "did not; a cell that is no number (N/A, blank) on either side is not compared.\n"
           "\nRuns without a precheck run record (msprobe's own folders) are accepted with a\n"
           "WARNING: only the API names then show that both ran the same dump.\n"
           "\nexit status: 0 compared, 1 failure, 2 usage error, %d --fail-on found what it "
           "names\n",
           usage, PC_DIFF_DEFAULT_FACTOR, PC_EXIT_FAILED_CHECK);
}

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "%sprecheck diff: error: %s%s\n", usage, what, arg ? arg : "");
    return 2;
}

int pc_cli_diff(int argc, char **argv)
{
    pc_diff_options opt = {.factor = PC_DIFF_DEFAULT_FACTOR};
    const char *json = NULL, *junit = NULL;
    unsigned fail_on = 0;
    bool all = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool value = strcmp(a, "--factor") == 0 || strcmp(a, "--json") == 0 ||
                     strcmp(a, "--junit") == 0 || strcmp(a, "--fail-on") == 0;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            print_help();
            return 0;
        }
        if (value && i + 1 >= argc)
            return usage_error("this option expects one argument: ", a);
        if (strcmp(a, "--factor") == 0) {
            char *end;
            double f = strtod(argv[++i], &end);
            if (*end || end == argv[i] || !(f > 1) || !isfinite(f))
                return usage_error("--factor must be a number above 1, not ", argv[i]);
            opt.factor = f;
        } else if (strcmp(a, "--json") == 0) {
            json = argv[++i];
        } else if (strcmp(a, "--junit") == 0) {
            junit = argv[++i];
        } else if (strcmp(a, "--fail-on") == 0) {
            if (!pc_report_diff_parse_fail_on(argv[++i], &fail_on))
                return usage_error("argument --fail-on: choose from new-error, new-warning, "
                                   "moved, missing, any (comma-separated), not ",
                                   argv[i]);
        } else if (strcmp(a, "--allow-different-dumps") == 0) {
            opt.allow_different_dumps = true;
        } else if (strcmp(a, "--all") == 0) {
            all = true;
        } else if (a[0] == '-' && a[1]) {
            return usage_error("unrecognized arguments: ", a);
        } else if (!opt.old_path) {
            opt.old_path = a;
        } else if (!opt.new_path) {
            opt.new_path = a;
        } else {
            return usage_error("two runs only (OLD NEW); unrecognized arguments: ", a);
        }
    }
    if (!opt.new_path)
        return usage_error("the following arguments are required: ",
                           opt.old_path ? "NEW" : "OLD, NEW");
    pc_report_diff *d;
    if (pc_report_diff_load(&opt, &d) != PC_OK) {
        pc_log_error("%s", pc_error_message());
        return 1;
    }
    pc_report_diff_print(d, stdout, all ? 0 : 50);
    fflush(stdout);
    int rc = 0;
    if (json && pc_report_diff_write_json(d, json, fail_on) != PC_OK) {
        pc_log_error("%s", pc_error_message());
        rc = 1;
    } else if (json) {
        pc_log_info("the changes as JSON: %s", json);
    }
    if (junit && pc_report_diff_write_junit(d, junit, fail_on) != PC_OK) {
        pc_log_error("%s", pc_error_message());
        rc = 1;
    } else if (junit) {
        pc_log_info("JUnit XML: %s", junit);
    }
    if (rc == 0 && fail_on && pc_report_diff_fails(d, fail_on)) {
        pc_log_warning("--fail-on: the diff holds what it names; exit status %d.",
                       PC_EXIT_FAILED_CHECK);
        rc = PC_EXIT_FAILED_CHECK;
    }
    pc_report_diff_free(d);
    return rc;
}
