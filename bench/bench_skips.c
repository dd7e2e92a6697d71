/*
 * 100,000 APIs through run_ut when none of them is computed: a 242 MB msprobe-style dump of
 * Functional.linear forward+backward records (dump_synth.h) with linear on the black list, run
 * by the precheck binary beside this benchmark with its default flags (one worker). What it
 * measures is everything around the kernels: reading the dump, deciding the SKIPs, writing
 * 100,000 result and details rows, the summary.
 *
 * It prints the wall time (target <= 3 s), the peak resident memory against the file's size
 * (target <= 2.5x), and the same run with --jobs 0 (everything in one process) beside it.
 *
 * usage: bench_skips [PAIRS=100000]
 */
#define _GNU_SOURCE /* mkdtemp */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dump_synth.h"
#include "precheck/core/clock.h"

/* Runs the binary with args; wall seconds and the child's peak RSS in bytes. */
static int run(const char *binary, char *const extra[], double *wall, double *peak)
{
    double t = pc_clock_seconds();
    pid_t pid = fork();
    if (pid == 0) {
        char *argv[32];
        int n = 0;
        argv[n++] = (char *)(uintptr_t)binary; /* exec writes none of them */
        for (int i = 0; extra[i] && n < 31; i++)
            argv[n++] = extra[i];
        argv[n] = NULL;
        if (!freopen("/dev/null", "w", stdout))
            _exit(126);
        execv(binary, argv);
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid)
        return -1;
    *wall = pc_clock_seconds() - t;
    *peak = (double)ru.ru_maxrss * 1024.0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(int argc, char **argv)
{
    long pairs = argc > 1 ? strtol(argv[1], NULL, 10) : 100000;
    if (pairs < 1)
        return 2;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 32);
    if (n <= 0)
        return 1;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    snprintf(slash ? slash : exe, 32, "/../precheck");
    char dir[] = "/tmp/bench_skips_XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    char dump[600], config[600], out0[600], out1[600];
    snprintf(dump, sizeof dump, "%s/dump.json", dir);
    snprintf(config, sizeof config, "%s/config.yaml", dir);
    snprintf(out0, sizeof out0, "%s/out_default", dir);
    snprintf(out1, sizeof out1, "%s/out_inprocess", dir);
    FILE *f = fopen(dump, "wb");
    if (!f || synth_dump_write(f, pairs, 1) != 0 || fclose(f) != 0)
        return 1;
    f = fopen(config, "w");
    if (!f)
        return 1;
    fputs("white_list: []\nblack_list: [linear]\nerror_data_path: ./\nprecision: 14\n", f);
    fclose(f);
    struct stat st;
    if (stat(dump, &st) != 0)
        return 1;
    double size = (double)st.st_size;

    char *a0[] = {"run_ut", "-api_info",     dump, "-o", out0, "--config_yaml",
                  config,   "--no-progress", NULL};
    char *a1[] = {"run_ut", "-api_info",     dump,     "-o", out1, "--config_yaml",
                  config,   "--no-progress", "--jobs", "0",  NULL};
    double w0, p0, w1, p1;
    int rc0 = run(exe, a0, &w0, &p0), rc1 = run(exe, a1, &w1, &p1);
    if (rc0 != 0 || rc1 != 0) {
        fprintf(stderr, "bench_skips: run_ut failed (%d, %d)\n", rc0, rc1);
        return 1;
    }
    printf("bench_skips: %ld black-listed APIs with backward records, dump %.0f MB\n", pairs,
           size / 1e6);
    printf("  run_ut (default: one worker): wall %.2f s (target <= 3 s), peak RSS %.0f MB = "
           "%.2fx the file (target <= 2.5x)\n",
           w0, p0 / 1e6, p0 / size);
    printf("  run_ut --jobs 0 (one process): wall %.2f s, peak RSS %.0f MB = %.2fx the file\n", w1,
           p1 / 1e6, p1 / size);
    char rm[700];
    snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
    return system(rm) == 0 ? 0 : 1;
}
