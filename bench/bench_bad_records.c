/*
 * Dumps full of bad records: the time of check_dump and run_ut per bad record must not grow
 * with their number. Each record is an msprobe-style statistics entry of Functional.relu laid
 * out as json.dump(indent=1) writes it, whose tensor "shape" holds a string (every record
 * gets an error message with its file:line:column). The precheck binary beside this benchmark
 * reads N and 10 N bad records and 10 N good ones; it prints the time per record at each size
 * and their ratio (1.0 when linear; counting each message's line from the start of the file
 * made it grow with N: 21,120 bad records took 153 s against 0.33 s clean).
 *
 * usage: bench_bad_records [N=4000]   (the target: 40,000 bad records in <= 2 s)
 */
#define _GNU_SOURCE /* mkdtemp */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "precheck/core/clock.h"

/* Runs the binary with args, output discarded; wall seconds, -1 when it did not run. */
static double run(const char *binary, char *const extra[])
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
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
            _exit(126);
        execv(binary, argv);
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) >= 126)
        return -1;
    return pc_clock_seconds() - t;
}

static int write_dump(const char *path, long records, int bad)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs("{\n \"task\": \"statistics\",\n \"level\": \"L1\",\n \"framework\": \"pytorch\",\n"
          " \"dump_data_dir\": null,\n \"data\": {",
          f);
    for (long i = 0; i < records; i++)
        fprintf(f,
                "%s\n  \"Functional.relu.%ld.forward\": {\n   \"input_args\": [\n    {\n"
                "     \"type\": \"torch.Tensor\",\n     \"dtype\": \"torch.float32\",\n"
                "     \"shape\": [\n      4,\n      %s\n     ],\n     \"Max\": 1.0,\n"
                "     \"Min\": -1.0,\n     \"Mean\": 0.0,\n     \"Norm\": 2.0,\n"
                "     \"requires_grad\": false\n    }\n   ],\n   \"input_kwargs\": {},\n"
                "   \"output\": [\n    {\n     \"type\": \"torch.Tensor\",\n"
                "     \"dtype\": \"torch.float32\",\n     \"shape\": [\n      4,\n      8\n"
                "     ],\n     \"Max\": 1.0,\n     \"Min\": 0.0,\n     \"Mean\": 0.5,\n"
                "     \"Norm\": 2.0,\n     \"requires_grad\": false\n    }\n   ]\n  }",
                i ? "," : "", i, bad ? "\"x\"" : "8");
    fputs("\n }\n}", f);
    return fclose(f) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? strtol(argv[1], NULL, 10) : 4000;
    if (n < 1)
        return 2;
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 32);
    if (len <= 0)
        return 1;
    exe[len] = 0;
    char *slash = strrchr(exe, '/');
    snprintf(slash ? slash : exe, 32, "/../precheck");
    char dir[] = "/tmp/bench_bad_records_XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    struct {
        long records;
        int bad;
        char dump[600];
        double check, run;
    } c[3] = {{n, 1, "", 0, 0}, {10 * n, 1, "", 0, 0}, {10 * n, 0, "", 0, 0}};
    for (int i = 0; i < 3; i++) {
        snprintf(c[i].dump, sizeof c[i].dump, "%s/dump%d.json", dir, i);
        if (write_dump(c[i].dump, c[i].records, c[i].bad) != 0)
            return 1;
        char out[640];
        snprintf(out, sizeof out, "%s/out%d", dir, i);
        char *check[] = {"check_dump", "-api_info", c[i].dump, NULL};
        char *runut[] = {"run_ut", "-api_info", c[i].dump, "-o", out, "--no-progress", NULL};
        c[i].check = run(exe, check);
        c[i].run = run(exe, runut);
        if (c[i].check < 0 || c[i].run < 0) {
            fprintf(stderr, "bench_bad_records: precheck did not run (%s)\n", exe);
            return 1;
        }
    }
    printf("bench_bad_records: Functional.relu statistics records, %ld and %ld bad, %ld good\n",
           c[0].records, c[1].records, c[2].records);
    for (int k = 0; k < 2; k++) {
        const char *what = k ? "run_ut" : "check_dump";
        double t0 = k ? c[0].run : c[0].check, t1 = k ? c[1].run : c[1].check,
               tg = k ? c[2].run : c[2].check;
        printf("  %-10s %6ld bad %7.2f s (%5.1f us each) | %6ld bad %7.2f s (%5.1f us each) | "
               "per-record ratio %.2f (1.0: linear) | %ld good %.2f s, bad/good %.2f\n",
               what, c[0].records, t0, 1e6 * t0 / (double)c[0].records, c[1].records, t1,
               1e6 * t1 / (double)c[1].records,
               (t1 / (double)c[1].records) / (t0 / (double)c[0].records), c[2].records, tg,
               t1 / tg);
    }
    char rm[700];
    snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
    return system(rm) == 0 ? 0 : 1;
}
