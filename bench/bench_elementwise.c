/*
 * Element-wise op throughput and memory, measured in the same run:
 *   - binary: Tensor.__mul__ (tensor x Python scalar), Torch.add (tensor + tensor of the same
 *     shape), Torch.add with broadcasting ([N, 1] + [1, M]); unary: Torch.exp, Functional.silu;
 *   - bfloat16 and float32 tensors of 2^24 elements ([16, 1024, 1024]; the broadcast case
 *     [4096, 1] + [1, 4096]);
 *   - forward and backward, on the reference device (the dtype, float opmath) and on the bench
 *     (PC_COMPUTE_BENCH on the inputs raised as msprobe's policy raises them: bfloat16 ->
 *     float32, float32 -> float64; the raising is not timed).
 *
 * Throughput is GB/s of the bytes the kernel touches: every tensor it reads (inputs, and dy
 * for backward) plus every tensor it writes (the output, the gradients). ratio = the time of a
 * streaming memcpy that moves as many bytes (copying half of them: each byte read once and
 * written once; run on all threads) / the op's time; 1.0 means the op runs at memcpy speed.
 *
 * Peak memory: each case runs once more in a fresh process (fork before any OpenMP region of
 * this one). There the peak resident set is reset (/proc/self/clear_refs, "5") after the inputs
 * exist, then forward and backward run, keeping their results; "rss+" is VmHWM afterwards minus
 * VmRSS before (from /proc/self/status), and "extra" is that minus the bytes of the results
 * (what the kernels needed beyond their outputs). Where the reset is refused the child's
 * getrusage ru_maxrss is used instead (an upper bound: it includes making the inputs).
 *
 * usage: bench_elementwise [log2_elements=24] [repeats=3]; best of the repeats. The threads are
 * OpenMP's (OMP_NUM_THREADS).
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "precheck/core/convert.h"
#include "precheck/ops/exec.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef enum bench_op { OP_MUL_SCALAR, OP_ADD, OP_ADD_BCAST, OP_EXP, OP_SILU, OP_COUNT } bench_op;

static const char *const op_names[OP_COUNT] = {
    [OP_MUL_SCALAR] = "x * 2.5", [OP_ADD] = "x + y",    [OP_ADD_BCAST] = "[N,1]+[1,M]",
    [OP_EXP] = "exp(x)",         [OP_SILU] = "silu(x)",
};

static uint32_t rng = 12345;

/* Values in [-4, 4). */
static void fill(pc_tensor *t)
{
    char *p = pc_tensor_data(t);
    size_t sz = pc_dtype_size(t->dtype);
    for (int64_t i = 0; i < pc_tensor_numel(t); i++) {
        rng = rng * 1664525u + 1013904223u;
        pc_element_store(p + (size_t)i * sz, t->dtype, (double)(rng >> 8) * 0x1p-21 - 4.0, 0.0);
    }
}

/* One case: a bound call with its tensors and the incoming gradient. */
typedef struct bench_case {
    pc_op_call call;
    pc_tensor grad;
    pc_compute compute;
} bench_case;

static void value_none(pc_value *v)
{
    memset(v, 0, sizeof *v);
    v->src_pos = -1;
    v->tensor = PC_TENSOR_NULL;
    v->kind = PC_VALUE_NONE;
}

static void value_tensor(pc_value *v, pc_tensor *t, int pos)
{
    v->kind = PC_VALUE_TENSOR;
    v->src_pos = pos;
    v->requires_grad = true;
    v->tensor = *t; /* takes the reference */
    *t = PC_TENSOR_NULL;
}

static void case_make(bench_case *bc, bench_op op, pc_dtype dtype, int lg, pc_compute compute)
{
    static const char *const ops[OP_COUNT] = {"mul", "add", "add", "exp", "silu"};
    static const char *const full[OP_COUNT] = {"Tensor.__mul__.0", "Torch.add.0", "Torch.add.1",
                                               "Torch.exp.0", "Functional.silu.0"};
    pc_op_call *c = &bc->call;
    memset(c, 0, sizeof *c);
    c->op = pc_op_find(ops[op]);
    c->full_name = full[op];
    c->nargs = c->op->schema->nargs;
    for (int i = 0; i < c->nargs; i++)
        value_none(&c->args[i]);
    int64_t n = (int64_t)1 << lg, side = (int64_t)1 << (lg / 2);
    int64_t big[3] = {n >> 20 ? n >> 20 : 1, n >= 1024 ? 1024 : n, n >= (1 << 20) ? 1024 : 1};
    int64_t col[2] = {n / side, 1}, row[2] = {1, side};
    pc_tensor a = PC_TENSOR_NULL, b = PC_TENSOR_NULL;
    if (op == OP_ADD_BCAST) {
        pc_tensor_alloc(&a, dtype, col, 2);
        pc_tensor_alloc(&b, dtype, row, 2);
    } else {
        pc_tensor_alloc(&a, dtype, big, 3);
        if (op == OP_ADD)
            pc_tensor_alloc(&b, dtype, big, 3);
    }
    fill(&a);
    value_tensor(&c->args[0], &a, 0);
    if (op == OP_MUL_SCALAR) {
        pc_tensor s = PC_TENSOR_NULL;
        pc_tensor_alloc(&s, PC_DTYPE_F64, NULL, 0);
        pc_tensor_fill(&s, 2.5);
        value_tensor(&c->args[1], &s, 1);
        c->args[1].wrapped = true;
        c->args[1].requires_grad = false;
    } else if (op == OP_ADD || op == OP_ADD_BCAST) {
        fill(&b);
        value_tensor(&c->args[1], &b, 1);
        c->args[2].kind = PC_VALUE_INT; /* alpha=1 */
        c->args[2].i = 1;
        c->args[2].f = 1.0;
    }
    int64_t oshape[3];
    int orank = op == OP_ADD_BCAST ? 2 : 3;
    if (op == OP_ADD_BCAST) {
        oshape[0] = col[0];
        oshape[1] = row[1];
    } else {
        memcpy(oshape, big, sizeof big);
    }
    bc->grad = PC_TENSOR_NULL;
    pc_tensor_alloc(&bc->grad, dtype, oshape, orank);
    fill(&bc->grad);
    bc->compute = compute;
    if (compute == PC_COMPUTE_BENCH) {
        pc_op_call raised;
        pc_tensor g = PC_TENSOR_NULL;
        if (pc_bench_prepare(c, PC_BENCH_MSPROBE, &raised) != PC_OK ||
            pc_bench_prepare_grad(c, PC_BENCH_MSPROBE, &bc->grad, &g) != PC_OK) {
            fprintf(stderr, "bench_elementwise: %s\n", pc_error_message());
            exit(1);
        }
        pc_op_call_free(c);
        *c = raised;
        pc_tensor_free(&bc->grad);
        bc->grad = g;
    }
}

static void case_free(bench_case *bc)
{
    pc_op_call_free(&bc->call);
    pc_tensor_free(&bc->grad);
}

static size_t bytes_in(const bench_case *bc)
{
    size_t b = 0;
    for (int i = 0; i < bc->call.nargs; i++)
        if (bc->call.args[i].kind == PC_VALUE_TENSOR && !bc->call.args[i].wrapped)
            b += pc_tensor_nbytes(&bc->call.args[i].tensor);
    return b;
}

static size_t bytes_grads(const pc_op_grads *g)
{
    size_t b = 0;
    for (int i = 0; i < PC_SCHEMA_MAX_ARGS; i++)
        if (!pc_tensor_is_null(&g->grads[i]))
            b += pc_tensor_nbytes(&g->grads[i]);
    return b;
}

static void run_forward(const bench_case *bc, pc_op_result *r)
{
    if (pc_op_forward(&bc->call, bc->compute, r) != PC_OK) {
        fprintf(stderr, "bench_elementwise: %s\n", pc_error_message());
        exit(1);
    }
}

static void run_backward(const bench_case *bc, pc_op_grads *g)
{
    if (pc_op_backward(&bc->call, bc->compute, &bc->grad, g) != PC_OK) {
        fprintf(stderr, "bench_elementwise: %s\n", pc_error_message());
        exit(1);
    }
}

/* A field of /proc/self/status in KiB ("VmRSS", "VmHWM"); -1 when missing. */
static long status_kib(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    long v = -1;
    size_t kl = strlen(key);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, kl) == 0 && line[kl] == ':') {
            v = atol(line + kl + 1);
            break;
        }
    fclose(f);
    return v;
}

static bool reset_peak(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f)
        return false;
    bool ok = fputs("5", f) >= 0;
    return fclose(f) == 0 && ok;
}

typedef struct rss_result {
    double grow_mb, outputs_mb;
    int exact; /* 1: peak reset worked; 0: ru_maxrss fallback */
} rss_result;

/* In a child process: peak RSS growth of one forward + backward of the case. */
static rss_result rss_of_case(bench_op op, pc_dtype dtype, int lg, pc_compute compute)
{
    rss_result res = {0};
    int fd[2];
    if (pipe(fd) != 0)
        return res;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        bench_case bc;
        case_make(&bc, op, dtype, lg, compute);
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        long before_max = ru.ru_maxrss, rss0 = status_kib("VmRSS");
        int exact = reset_peak() && rss0 >= 0;
        pc_op_result r = {0};
        pc_op_grads g = {0};
        run_forward(&bc, &r);
        run_backward(&bc, &g);
        long grow;
        if (exact) {
            grow = status_kib("VmHWM") - rss0;
        } else {
            getrusage(RUSAGE_SELF, &ru);
            grow = ru.ru_maxrss - before_max;
        }
        rss_result out = {.grow_mb = (double)grow / 1024.0,
                          .outputs_mb =
                              (double)(pc_tensor_nbytes(&r.tensors[0]) + bytes_grads(&g)) /
                              (1024.0 * 1024.0),
                          .exact = exact};
        if (write(fd[1], &out, sizeof out) != (ssize_t)sizeof out)
            _exit(1);
        _exit(0);
    }
    close(fd[1]);
    if (pid > 0) {
        if (read(fd[0], &res, sizeof res) != (ssize_t)sizeof res)
            memset(&res, 0, sizeof res);
        waitpid(pid, NULL, 0);
    }
    close(fd[0]);
    return res;
}

/* Copies n bytes on all threads (blocks of 1 MiB); the reference for "streaming". */
static void copy_parallel(char *dst, const char *src, size_t n)
{
    const size_t blk = (size_t)1 << 20;
    int64_t nb = (int64_t)((n + blk - 1) / blk);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < nb; i++) {
        size_t o = (size_t)i * blk, m = n - o < blk ? n - o : blk;
        memcpy(dst + o, src + o, m);
    }
}

static double time_memcpy(size_t bytes, int reps)
{
    size_t half = bytes / 2;
    char *a = malloc(half), *b = malloc(half);
    if (!a || !b) {
        fprintf(stderr, "bench_elementwise: out of memory\n");
        exit(1);
    }
    memset(a, 1, half);
    memset(b, 2, half);
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        double t0 = now_s();
        copy_parallel(b, a, half);
        double t = now_s() - t0;
        if (t < best)
            best = t;
    }
    free(a);
    free(b);
    return best;
}

int main(int argc, char **argv)
{
    int lg = argc > 1 ? atoi(argv[1]) : 24;
    int reps = argc > 2 ? atoi(argv[2]) : 3;
    if (lg < 12 || lg > 28 || reps < 1) {
        fprintf(stderr, "usage: bench_elementwise [log2_elements 12..28] [repeats >= 1]\n");
        return 2;
    }
    const pc_dtype dtypes[2] = {PC_DTYPE_BF16, PC_DTYPE_F32};
    const char *const modes[2] = {"device", "bench"};
    /* peak memory first, in children forked before this process starts any thread */
    rss_result rss[OP_COUNT][2][2];
    for (int o = 0; o < OP_COUNT; o++)
        for (int d = 0; d < 2; d++)
            for (int m = 0; m < 2; m++)
                rss[o][d][m] = rss_of_case((bench_op)o, dtypes[d], lg, (pc_compute)m);
    printf("bench_elementwise: 2^%d elements, best of %d, %d threads; ratio = memcpy of the "
           "same bytes / op\n",
           lg, reps, omp_get_max_threads());
    printf("%-12s %-5s %-6s | %8s %7s %6s | %8s %7s %6s | %8s %8s\n", "op", "dtype", "mode",
           "fwd ms", "GB/s", "ratio", "bwd ms", "GB/s", "ratio", "rss+ MB", "extra MB");
    bool all_exact = true;
    for (int o = 0; o < OP_COUNT; o++)
        for (int d = 0; d < 2; d++)
            for (int m = 0; m < 2; m++) {
                bench_case bc;
                case_make(&bc, (bench_op)o, dtypes[d], lg, (pc_compute)m);
                double tf = 1e30, tb = 1e30;
                size_t fbytes = 0, bbytes = 0;
                for (int r = 0; r < reps; r++) {
                    pc_op_result res = {0};
                    pc_op_grads g = {0};
                    double t0 = now_s();
                    run_forward(&bc, &res);
                    double t1 = now_s();
                    run_backward(&bc, &g);
                    double t2 = now_s();
                    fbytes = bytes_in(&bc) + pc_tensor_nbytes(&res.tensors[0]);
                    bbytes = bytes_in(&bc) + pc_tensor_nbytes(&bc.grad) + bytes_grads(&g);
                    pc_op_result_free(&res);
                    pc_op_grads_free(&g);
                    if (t1 - t0 < tf)
                        tf = t1 - t0;
                    if (t2 - t1 < tb)
                        tb = t2 - t1;
                }
                double mf = time_memcpy(fbytes, reps), mb = time_memcpy(bbytes, reps);
                const rss_result *rr = &rss[o][d][m];
                all_exact = all_exact && rr->exact;
                printf("%-12s %-5s %-6s | %8.1f %7.2f %6.3f | %8.1f %7.2f %6.3f | %8.1f %8.1f\n",
                       op_names[o], pc_dtype_name(dtypes[d]), modes[m], tf * 1e3,
                       (double)fbytes / tf * 1e-9, mf / tf, tb * 1e3, (double)bbytes / tb * 1e-9,
                       mb / tb, rr->grow_mb, rr->grow_mb - rr->outputs_mb);
                fflush(stdout);
                case_free(&bc);
            }
    printf("peak memory: %s\n", all_exact ? "VmHWM after the call - VmRSS before (peak reset)"
                                          : "ru_maxrss growth (peak reset refused somewhere)");
    return 0;
}
