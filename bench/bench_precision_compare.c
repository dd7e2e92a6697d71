/*
 * api_precision_compare on a generated pair of run_ut details CSVs (default 1,000,000 rows
 * each; argv[1] overrides): rows/s and the peak resident set of the run, against a plain read
 * of the same bytes measured in the same process tree.
 *
 * Every measurement runs in a child process, so its ru_maxrss is its own.
 */
#define _DEFAULT_SOURCE /* wait4 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "precheck/core/log.h"
#include "precheck/precision_compare/precision_compare.h"

static const char header[] =
    "\xEF\xBB\xBF"
    "API Name,Bench Dtype,DEVICE Dtype,Shape,余弦相似度,最大绝对误差,双百指标,双千指标,双万指标,"
    "二进制一致错误率,误差均衡性,均方根误差,小值域错误占比,相对误差最大值,相对误差平均值,inf/nan错"
    "误率,相对误差错误率,绝对误差错误率,ULP误差最大值,ULP误差平均值,ULP误差大于阈值占比,Status,"
    "Message\r\n";

/* Four row kinds in turn: benchmark forward, benchmark backward, binary, ULP. */
static void write_csv(const char *path, long rows, double scale)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        exit(1);
    }
    fputs(header, f);
    for (long i = 0; i < rows; i++) {
        long api = i / 4;
        double x = scale * (1 + (double)(i % 97) / 97.0);
        switch (i % 4) {
        case 0:
        case 1:
            fprintf(
                f,
                "Functional.softmax.%ld.%s.output.0,torch.float32,torch.float16,\"(1024,)\","
                "0.99999999956607,0.125,0.71428571428571, , , ,%.14f,%.14f,%.14f,%.14f,%.9g, , , "
                ", , , ,pass,\"\\nMax abs error is less than 0.001, consider as pass.\\n\"\r\n",
                api, i % 4 ? "backward" : "forward", x * 0.4, x * 0.06, x * 0.6, x * 0.001,
                x * 0.0005);
            break;
        case 2:
            fprintf(f,
                    "Torch.argmax.%ld.forward.output.0,torch.int64,torch.int64,\"(8,)\", , , , , "
                    ",0.00000000000000, , , , , , , , , , , ,pass,\r\n",
                    api);
            break;
        default:
            fprintf(f,
                    "Torch.matmul.%ld.forward.output.0,torch.float64,torch.float32,\"(64, 64)\","
                    "1.00000000000000,0.00000013841858, , , , , , , , , , , , ,3.0,%.14f,%.14f,"
                    "pass,\r\n",
                    api, x, x * 0.01);
            break;
        }
    }
    fclose(f);
}

typedef struct measure {
    double seconds;
    long maxrss_kb;
    double cpu_seconds;
    int status;
} measure;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static measure in_child(int (*fn)(void *), void *arg)
{
    measure m = {0};
    double t0 = now();
    pid_t pid = fork();
    if (pid == 0)
        _exit(fn(arg));
    int status;
    struct rusage ru;
    wait4(pid, &status, 0, &ru);
    m.seconds = now() - t0;
    m.maxrss_kb = ru.ru_maxrss;
    m.cpu_seconds = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
                    (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
    m.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return m;
}

typedef struct job {
    const char *npu, *gpu, *dir;
} job;

static int read_both(void *arg)
{
    const job *j = arg;
    static char buf[1 << 16];
    const char *paths[2] = {j->npu, j->gpu};
    unsigned long sum = 0;
    for (int k = 0; k < 2; k++) {
        FILE *f = fopen(paths[k], "rb");
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, f)) > 0)
            sum += (unsigned char)buf[n - 1];
        fclose(f);
    }
    return sum == 1; /* keeps the loop */
}

static int compare(void *arg)
{
    const job *j = arg;
    pc_log_set_level(PC_LOG_ERROR);
    pc_pcmp_options opt = {.npu_path = j->npu, .gpu_path = j->gpu, .out_dir = j->dir};
    pc_status st = pc_pcmp_run(&opt, NULL);
    if (st != PC_OK)
        fprintf(stderr, "%s\n", pc_error_message());
    return st != PC_OK;
}

int main(int argc, char **argv)
{
    long rows = argc > 1 ? atol(argv[1]) : 1000000;
    const char *tmp = getenv("TMPDIR");
    char dir[200];
    snprintf(dir, sizeof dir, "%s/pc_bench_pcmp_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char npu[256], gpu[256], out[256];
    snprintf(npu, sizeof npu, "%s/npu.csv", dir);
    snprintf(gpu, sizeof gpu, "%s/gpu.csv", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    mkdir(out, 0750);
    write_csv(npu, rows, 1.0);
    write_csv(gpu, rows, 0.9);
    struct stat sn, sg;
    stat(npu, &sn);
    stat(gpu, &sg);
    job j = {npu, gpu, out};
    measure base = in_child(read_both, &j);
    measure run = in_child(compare, &j);
    double mb = (double)(sn.st_size + sg.st_size) / 1e6;
    printf("api_precision_compare: %ld NPU rows + %ld GPU rows (%.1f MB of CSV)\n", rows, rows, mb);
    printf("  plain read of both files: %.3f s (%.0f MB/s), peak RSS %.1f MB\n", base.seconds,
           mb / base.seconds, (double)base.maxrss_kb / 1024.0);
    printf("  api_precision_compare:    %.3f s (%.3f s CPU), %.0f rows/s (%.1fx the plain read), "
           "peak RSS %.1f MB%s\n",
           run.seconds, run.cpu_seconds, (double)rows / run.seconds, run.seconds / base.seconds,
           (double)run.maxrss_kb / 1024.0, run.status ? "  FAILED" : "");
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) != 0 || run.status != 0;
}
