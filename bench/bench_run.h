/* run_ut from a benchmark, in its own process (one worker: all threads for each API), and the
 * statuses of what it wrote. Header-only: each benchmark is one executable. */
#ifndef PC_BENCH_RUN_H
#define PC_BENCH_RUN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/core/clock.h"
#include "precheck/runner/runner.h"

/* Wall seconds of run_ut on dump into out (made) with backend (--python python, may be NULL)
 * and --bench-cache cache (NULL: none), the stages in tm (may be NULL); -1 when it failed. */
static inline double bench_run_ut(const char *dump, const char *out, const char *backend,
                                  const char *python, const char *cache, pc_run_timing *tm)
{
    char mk[1300];
    snprintf(mk, sizeof mk, "mkdir -p '%s'", out);
    if (system(mk) != 0)
        return -1;
    pc_run_options o = {
        .api_info = dump,
        .out_path = out,
        .backend = backend,
        .python = python,
        .bench_policy = "msprobe",
        .seed = 1234,
        .workers = 0,
        .bench_cache = cache,
        .timing = tm,
    };
    double t = pc_clock_seconds();
    int rc = pc_run_ut(&o);
    return rc == 0 ? pc_clock_seconds() - t : -1;
}

/* Whether the result and details CSVs of run directories a and b are the same bytes. */
static inline int bench_same_csvs(const char *a, const char *b)
{
    char cmd[6000];
    snprintf(cmd, sizeof cmd,
             "cmp -s \"$(ls '%s'/accuracy_checking_result_*.csv)\" \"$(ls "
             "'%s'/accuracy_checking_result_*.csv)\" && "
             "cmp -s \"$(ls '%s'/accuracy_checking_details_*.csv)\" \"$(ls "
             "'%s'/accuracy_checking_details_*.csv)\"",
             a, b, a, b);
    fflush(NULL);
    return system(cmd) == 0;
}

/* The statuses of the result CSV in dir (forward column counts) and the first SKIP rows: a
 * SKIP for a missing op would make a run look faster than it is. */
static inline void bench_report_statuses(const char *dir, const char *label)
{
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "cat '%s'/accuracy_checking_result_*.csv", dir);
    FILE *p = popen(cmd, "r");
    if (!p)
        return;
    char line[8192];
    int rows = 0, pass = 0, warn = 0, err = 0, skip = 0;
    while (fgets(line, sizeof line, p)) {
        char *c1 = strchr(line, ',');
        if (rows++ == 0 || !c1)
            continue; /* the header */
        pass += strncmp(c1 + 1, "pass", 4) == 0;
        warn += strncmp(c1 + 1, "Warning", 7) == 0;
        err += strncmp(c1 + 1, "error", 5) == 0;
        if (strncmp(c1 + 1, "SKIP", 4) == 0 && skip++ < 8) {
            line[strcspn(line, "\n")] = 0;
            printf("      SKIP %.160s\n", line);
        }
    }
    pclose(p);
    printf("    %sresult rows: %d: forward pass %d, Warning %d, error %d, SKIP %d\n", label,
           rows - 1, pass, warn, err, skip);
}

#endif
