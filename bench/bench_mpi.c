/*
 * mpirun -np N precheck run_ut: how well rank 0's schedule (runner/worker_pool.c) shares a large
 * dump, and what two ranks give on this machine.
 *
 * The schedule, simulated with the cost model (runner/cost.h) taken as each API's true time,
 * for the LLaMA-7B training step (32 decoder layers plus embedding, head and cross_entropy,
 * sequence 2048, bfloat16, torch_npu fused ops; llama_dump.h) on 1..64 ranks of one worker
 * each: rank 0 hands out the APIs heaviest first; its own worker takes one at a time, every
 * other rank two (the second waits there, so that a rank never waits for rank 0); a rank gets
 * the next API when it sends a result. (Rank 0 turns to dump order while the results waiting
 * for their turn hold 64 MB; this step's results are a few hundred kB in all, so that never
 * happens here.) Prints per N the makespan against the ideal (total / N) -- the efficiency,
 * target >= 0.90 at 32 -- and the same schedule in dump order, which is what heaviest first
 * buys.
 *
 * With --real, on a dump of many medium APIs (hidden 512, 4 layers, float32, eager; bench_e2e
 * --medium's), best of 3 each in turns: `precheck run_ut --jobs 1` on one core against
 * `mpirun -np 2` with one core per rank (what a second machine's rank adds), and run_ut with
 * its default workers on the whole machine (what mpirun's launch costs on one machine); and
 * whether all wrote the same CSVs.
 *
 * usage: bench_mpi [--layers N] [--seq N] [--real]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "llama_dump.h"
#include "precheck/core/clock.h"
#include "precheck/core/log.h"
#include "precheck/dump/dump.h"
#include "precheck/runner/cost.h"

#define MAX_RANKS 64

/* The makespan of cost[0..n) handed out in that order to `ranks` ranks: rank 0 holds one at
 * a time, the others two. */
static double schedule(const uint64_t *cost, size_t n, int ranks)
{
    double done[MAX_RANKS][2]; /* the finish times of each rank's APIs in hand */
    int held[MAX_RANKS] = {0};
    double last[MAX_RANKS] = {0}; /* when each rank's last API in hand finishes */
    size_t next = 0;
    double makespan = 0;
    for (int r = 0; r < ranks; r++)
        for (int s = 0; s < (r == 0 ? 1 : 2) && next < n; s++) {
            last[r] += (double)cost[next++];
            done[r][held[r]++] = last[r];
        }
    for (;;) {
        int rr = -1, ss = 0;
        for (int r = 0; r < ranks; r++)
            for (int s = 0; s < held[r]; s++)
                if (rr < 0 || done[r][s] < done[rr][ss])
                    rr = r, ss = s;
        if (rr < 0)
            break;
        double t = done[rr][ss];
        makespan = t > makespan ? t : makespan;
        done[rr][ss] = done[rr][--held[rr]];
        if (next < n) {
            last[rr] = (last[rr] > t ? last[rr] : t) + (double)cost[next++];
            done[rr][held[rr]++] = last[rr];
        }
    }
    return makespan;
}

static int by_cost_desc(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

static int simulate(const llama_cfg *c)
{
    char path[] = "/tmp/bench_mpi_XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f)
        return 1;
    llama_dump_write(f, c);
    if (fclose(f) != 0)
        return 1;
    pc_dump *dump = NULL;
    pc_status st = pc_dump_open(&dump, path);
    unlink(path);
    if (st != PC_OK) {
        fprintf(stderr, "bench_mpi: %s\n", pc_error_message());
        return 1;
    }
    size_t n = dump->api_count;
    uint64_t *in_order = malloc((n + 1) * sizeof *in_order);
    uint64_t *heavy = malloc((n + 1) * sizeof *heavy);
    if (!in_order || !heavy)
        return 1;
    double total = 0, largest = 0;
    for (size_t i = 0; i < n; i++) {
        in_order[i] = heavy[i] = pc_api_cost_of(&dump->apis[i]).ps;
        total += (double)in_order[i];
        largest = (double)in_order[i] > largest ? (double)in_order[i] : largest;
    }
    qsort(heavy, n, sizeof *heavy, by_cost_desc);
    printf("LLaMA-7B step: %d layers, sequence %ld, %s: %zu APIs, estimate %.1f s on one "
           "worker; heaviest API %.2f s\n\n",
           c->layers, c->seq, c->fp32 ? "float32" : "bfloat16", n, total * 1e-12, largest * 1e-12);
    printf("%6s %12s %12s %10s %20s\n", "ranks", "makespan s", "ideal s", "efficiency",
           "in dump order: eff.");
    static const int ns[] = {1, 2, 4, 8, 16, 32, 48, 64};
    for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
        int r = ns[t];
        double m = schedule(heavy, n, r), m_order = schedule(in_order, n, r);
        double ideal = total / r;
        printf("%6d %12.2f %12.2f %10.3f %20.3f%s\n", r, m * 1e-12, ideal * 1e-12, ideal / m,
               ideal / m_order, largest > ideal ? "  (the heaviest API is above the ideal)" : "");
    }
    free(in_order);
    free(heavy);
    pc_dump_free(dump);
    return 0;
}

#if defined(PC_BENCH_MPIEXEC)
static double run_once(const char *cmd)
{
    double t = pc_clock_seconds();
    if (system(cmd) != 0) {
        fprintf(stderr, "bench_mpi: failed: %s\n", cmd);
        exit(1);
    }
    return pc_clock_seconds() - t;
}

static int real(void)
{
    char dir[] = "/tmp/bench_mpi_real_XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    char dump[128], cmd[2048];
    snprintf(dump, sizeof dump, "%s/dump.json", dir);
    llama_cfg c = {512, 8, 64, 1376, 2048, 256, 2, 4, 1, 1, 0}; /* bench_e2e --medium's */
    llama_cfg small = {64, 2, 32, 128, 256, 8, 1, 1, 1, 1, 0};  /* a tiny one */
    char tiny[128];
    snprintf(tiny, sizeof tiny, "%s/tiny.json", dir);
    FILE *f = fopen(dump, "w"), *g = fopen(tiny, "w");
    if (!f || !g)
        return 1;
    llama_dump_write(f, &c);
    llama_dump_write(g, &small);
    if (fclose(f) != 0 || fclose(g) != 0)
        return 1;
    /* one process on one core, two ranks on one core each (what a second machine adds), and
     * one process with run_ut's default workers on the whole machine */
    double one = 1e30, two = 1e30, whole = 1e30, launch = 1e30;
    for (int round = 0; round < 3; round++) {
        /* the start of a job: a tiny dump under mpirun, less the same alone */
        snprintf(cmd, sizeof cmd,
                 "rm -rf %s/t1 %s/t2 && OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
                 "OMPI_MCA_btl_vader_single_copy_mechanism=none '%s' --bind-to core -np 2 "
                 "'%s' run_ut -api_info %s -o %s/t2 --jobs 1 --no-progress >/dev/null 2>&1",
                 dir, dir, PC_BENCH_MPIEXEC, PC_BENCH_PRECHECK, tiny, dir);
        double l = run_once(cmd);
        snprintf(cmd, sizeof cmd,
                 "'%s' run_ut -api_info %s -o %s/t1 --jobs 1 --no-progress >/dev/null 2>&1",
                 PC_BENCH_PRECHECK, tiny, dir);
        l -= run_once(cmd);
        launch = l < launch ? l : launch;
        snprintf(cmd, sizeof cmd,
                 "rm -rf %s/one %s/two %s/whole && taskset -c 0 '%s' run_ut -api_info %s -o "
                 "%s/one --jobs 1 --no-progress >/dev/null 2>&1",
                 dir, dir, dir, PC_BENCH_PRECHECK, dump, dir);
        double t = run_once(cmd);
        one = t < one ? t : one;
        snprintf(cmd, sizeof cmd,
                 "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
                 "OMPI_MCA_btl_vader_single_copy_mechanism=none '%s' --bind-to core -np 2 "
                 "'%s' run_ut -api_info %s -o %s/two --jobs 1 --no-progress >/dev/null 2>&1",
                 PC_BENCH_MPIEXEC, PC_BENCH_PRECHECK, dump, dir);
        t = run_once(cmd);
        two = t < two ? t : two;
        snprintf(cmd, sizeof cmd,
                 "'%s' run_ut -api_info %s -o %s/whole --no-progress >/dev/null 2>&1",
                 PC_BENCH_PRECHECK, dump, dir);
        t = run_once(cmd);
        whole = t < whole ? t : whole;
    }
    snprintf(cmd, sizeof cmd,
             "cmp -s %s/one/accuracy_checking_result_*.csv %s/two/accuracy_checking_result_*.csv "
             "&& cmp -s %s/one/accuracy_checking_details_*.csv "
             "%s/two/accuracy_checking_details_*.csv && cmp -s "
             "%s/one/accuracy_checking_details_*.csv %s/whole/accuracy_checking_details_*.csv",
             dir, dir, dir, dir, dir, dir);
    int same = system(cmd) == 0;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    printf("\nthis machine (%ld cores), a dump of many medium APIs (hidden 512, 4 layers, "
           "float32, eager), best of 3 each, in turns:\n",
           cores);
    printf("  one process on one core (--jobs 1)        %.2f s\n", one);
    printf("  mpirun -np 2, one core per rank (--jobs 1) %.2f s: speed-up %.2f; %.2f without "
           "the %.2f s a job takes to start (a tiny dump under mpirun, less alone)\n",
           two, one / two, one / (two - launch), launch);
    printf("  one process, run_ut's default workers      %.2f s (mpirun's launch and ranks cost "
           "%.2f s on one machine)\n",
           whole, two - whole);
    printf("  CSVs %s\n", same ? "identical" : "DIFFERENT");
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        return 1;
    return same ? 0 : 1;
}
#endif

int main(int argc, char **argv)
{
    llama_cfg c = llama_7b();
    c.layers = 32;
    int want_real = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--layers") == 0 && i + 1 < argc)
            c.layers = atoi(argv[++i]);
        else if (strcmp(argv[i], "--seq") == 0 && i + 1 < argc)
            c.seq = atol(argv[++i]);
        else if (strcmp(argv[i], "--real") == 0)
            want_real = 1;
        else {
            fprintf(stderr, "usage: bench_mpi [--layers N] [--seq N] [--real]\n");
            return 2;
        }
    }
    if (c.layers < 1 || c.seq < 1)
        return 2;
    pc_log_set_level(PC_LOG_WARNING);
    int rc = simulate(&c);
    if (rc != 0 || !want_real)
        return rc;
#if defined(PC_BENCH_MPIEXEC)
    return real();
#else
    fprintf(stderr, "bench_mpi: --real needs a build with MPI and mpirun (Debian: "
                    "libopenmpi-dev, openmpi-bin)\n");
    return 2;
#endif
}
