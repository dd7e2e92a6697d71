/*
 * run_ut end to end.
 *
 * (a) The bundled gpt dump (tests/fixtures/msprobe/dumps/gpt_tensor, 43 APIs, real tensors),
 *     as a user runs it (one worker process): wall time per run, against the target of 0.2 s
 *     (msprobe's own run_ut needs about 20 s for it on this kind of machine: 3 s of start-up
 *     plus 0.4 s per API, as measured when the fixtures were made; msprobe is not run here).
 * (b) A generated LLaMA-shaped statistics dump (hidden 2048, sequence 1024, 16 heads, MLP 5504,
 *     bfloat16, 2 decoder layers with their backward records), run in this process: seconds
 *     per stage (parse, inputs, device, bench, compare, write) and the peak resident memory
 *     against the target of 3 x the largest API's input+output bytes in the bench dtype
 *     (float32) + 64 MB.
 * (c) With (b), the peak-RSS growth of each API of one decoder layer of that dump (the second
 *     layer repeats the first's shapes), the top N printed (--top N, default 3; --skip-c
 *     leaves it out). Each API runs alone: a dump of that one record (and its backward, with
 *     its name and index, hence the same generated inputs) goes through run_ut in a forked
 *     child. Linux starts a child's high-water mark at its resident size at the fork, and
 *     wait4() reports the child's peak, so peak - the parent's VmRSS just before the fork is
 *     what the API itself needed: its inputs, both runs' outputs and gradients, the incoming
 *     gradient, the comparison, every kernel's scratch and the first-use buffers of OpenBLAS
 *     and OpenMP, i.e. the API's share of (b)'s peak.
 *     The floor printed beside it is the API's input+output bytes in the bench dtype. The
 *     children run before (b), while this process has not yet run OpenMP or BLAS (a process
 *     that has must not fork workers; DESIGN "Workers are forked...").
 *
 * usage: bench_run_ut [REPO_DIR] [--layers N] [--skip-a] [--skip-b] [--skip-c] [--top N]
 */
#define _DEFAULT_SOURCE /* wait4 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "precheck/core/log.h"
#include "precheck/runner/runner.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- the LLaMA-shaped dump ---- */

enum { SEQ = 1024, HID = 2048, HEADS = 16, HDIM = 128, MLP = 5504 };

typedef struct gen {
    FILE *f;
    int first;
    double largest_bytes; /* input + output bytes of one API in the bench dtype */
    char largest_name[128];
    int counters[64];
    const char *names[64];
    int nnames;
    int only; /* the one API record to write (by its order in the dump), or -1: all */
    int seq;  /* records seen so far */
    /* per record, when names_out: "Torch.matmul.0" and the input+output bench bytes */
    char (*names_out)[64];
    double *bytes_out;
    int cap_out;
} gen;

typedef struct tdesc {
    const char *dtype;
    int rank;
    long shape[4];
    double min, max;
    int grad;
} tdesc;

static double numel(const tdesc *t)
{
    double n = 1;
    for (int i = 0; i < t->rank; i++)
        n *= (double)t->shape[i];
    return n;
}

static double bench_bytes(const tdesc *t)
{
    if (strcmp(t->dtype, "torch.bool") == 0)
        return numel(t);
    if (strcmp(t->dtype, "torch.int64") == 0)
        return numel(t) * 8;
    return numel(t) * 4; /* bf16 -> float32 on the bench */
}

static void put_tensor(FILE *f, const tdesc *t)
{
    fprintf(f, "{\"type\": \"torch.Tensor\", \"dtype\": \"%s\", \"shape\": [", t->dtype);
    for (int i = 0; i < t->rank; i++)
        fprintf(f, "%s%ld", i ? ", " : "", t->shape[i]);
    if (strcmp(t->dtype, "torch.bool") == 0)
        fprintf(f, "], \"Max\": true, \"Min\": false, \"requires_grad\": false}");
    else
        fprintf(f,
                "], \"Max\": %.6g, \"Min\": %.6g, \"Mean\": 0.0, \"Norm\": 1.0, "
                "\"requires_grad\": %s}",
                t->max, t->min, t->grad ? "true" : "false");
}

static int next_index(gen *g, const char *name)
{
    for (int i = 0; i < g->nnames; i++)
        if (strcmp(g->names[i], name) == 0)
            return g->counters[i]++;
    g->names[g->nnames] = name;
    g->counters[g->nnames++] = 1;
    return 0;
}

/* One API record: tensors and extra scalar args ("int:-1", "float:1e-6", "bool:true") in
 * order (NULL-terminated extra list), output tensor, backward record when the output needs
 * grad. */
static void api(gen *g, const char *name, const tdesc *const *ins, int nin, const char *extra,
                const char *kwargs, const tdesc *out)
{
    int idx = next_index(g, name);
    int seq = g->seq++;
    double bytes = bench_bytes(out);
    for (int i = 0; i < nin; i++)
        bytes += bench_bytes(ins[i]);
    if (g->names_out && seq < g->cap_out) {
        snprintf(g->names_out[seq], sizeof g->names_out[seq], "%s.%d", name, idx);
        g->bytes_out[seq] = bytes;
    }
    if (g->only >= 0 && seq != g->only)
        return;
    FILE *f = g->f;
    fprintf(f, "%s\n\"%s.%d.forward\": {\"input_args\": [", g->first ? "" : ",", name, idx);
    g->first = 0;
    for (int i = 0; i < nin; i++) {
        if (i)
            fprintf(f, ", ");
        put_tensor(f, ins[i]);
    }
    if (extra)
        fprintf(f, "%s%s", nin ? ", " : "", extra);
    fprintf(f, "], \"input_kwargs\": {%s}, \"output\": [", kwargs ? kwargs : "");
    put_tensor(f, out);
    fprintf(f, "]}");
    if (out->grad) {
        tdesc gr = *out;
        gr.min = -1e-3;
        gr.max = 1e-3;
        gr.grad = 0;
        fprintf(f, ",\n\"%s.%d.backward\": {\"input\": [", name, idx);
        put_tensor(f, &gr);
        fprintf(f, "], \"output\": []}");
    }
    if (bytes > g->largest_bytes) {
        g->largest_bytes = bytes;
        snprintf(g->largest_name, sizeof g->largest_name, "%s.%d", name, idx);
    }
}

#define T(dt, r, a, b, c, d, lo, hi, gr) ((tdesc){dt, r, {a, b, c, d}, lo, hi, gr})
#define BF                               "torch.bfloat16"

static void rms_norm(gen *g, const tdesc *x)
{
    tdesc sq = *x, var = T(BF, 3, 1, SEQ, 1, 0, 0.0, 4.0, 1), rstd = var,
          w = T(BF, 1, HID, 0, 0, 0, 0.8, 1.2, 1);
    const tdesc *a[] = {x};
    api(g, "Tensor.pow", a, 1, "{\"type\": \"int\", \"value\": 2}", NULL, &sq);
    const tdesc *b[] = {&sq};
    api(g, "Tensor.mean", b, 1, "{\"type\": \"int\", \"value\": -1}",
        "\"keepdim\": {\"type\": \"bool\", \"value\": true}", &var);
    const tdesc *c[] = {&var};
    api(g, "Tensor.__add__", c, 1, "{\"type\": \"float\", \"value\": 1e-06}", NULL, &var);
    api(g, "Torch.rsqrt", c, 1, NULL, NULL, &rstd);
    const tdesc *d[] = {x, &rstd};
    api(g, "Tensor.__mul__", d, 2, NULL, NULL, x);
    const tdesc *e[] = {&w, x};
    api(g, "Tensor.__mul__", e, 2, NULL, NULL, x);
}

static void layer(gen *g)
{
    tdesc x = T(BF, 3, 1, SEQ, HID, 0, -4.0, 4.0, 1);
    tdesc wq = T(BF, 2, HID, HID, 0, 0, -0.05, 0.05, 1);
    tdesc q = T(BF, 3, 1, SEQ, HID, 0, -3.0, 3.0, 1);
    tdesc q4 = T(BF, 4, 1, SEQ, HEADS, HDIM, -3.0, 3.0, 1);
    tdesc qh = T(BF, 4, 1, HEADS, SEQ, HDIM, -3.0, 3.0, 1);
    tdesc kt = T(BF, 4, 1, HEADS, HDIM, SEQ, -3.0, 3.0, 1);
    tdesc sc = T(BF, 4, 1, HEADS, SEQ, SEQ, -20.0, 20.0, 1);
    tdesc mask = T("torch.bool", 2, SEQ, SEQ, 0, 0, 0, 1, 0);
    tdesc pr = T(BF, 4, 1, HEADS, SEQ, SEQ, 0.0, 1.0, 1);
    tdesc wg = T(BF, 2, MLP, HID, 0, 0, -0.05, 0.05, 1);
    tdesc wd = T(BF, 2, HID, MLP, 0, 0, -0.05, 0.05, 1);
    tdesc h = T(BF, 3, 1, SEQ, MLP, 0, -3.0, 3.0, 1);
    rms_norm(g, &x);
    for (int i = 0; i < 3; i++) {
        const tdesc *a[] = {&x, &wq};
        api(g, "Functional.linear", a, 2, "null", NULL, &q);
    }
    for (int i = 0; i < 3; i++) {
        const tdesc *a[] = {&q4};
        api(g, "Tensor.transpose", a, 1,
            "{\"type\": \"int\", \"value\": 1}, {\"type\": \"int\", \"value\": 2}", NULL, &qh);
    }
    const tdesc *m1[] = {&qh, &kt};
    api(g, "Torch.matmul", m1, 2, NULL, NULL, &sc);
    const tdesc *dv[] = {&sc};
    api(g, "Tensor.__truediv__", dv, 1, "{\"type\": \"float\", \"value\": 11.313708498984761}",
        NULL, &sc);
    const tdesc *mf[] = {&sc, &mask};
    api(g, "Tensor.masked_fill", mf, 2, "{\"type\": \"float\", \"value\": -10000.0}", NULL, &sc);
    api(g, "Functional.softmax", dv, 1, NULL, "\"dim\": {\"type\": \"int\", \"value\": -1}", &pr);
    const tdesc *m2[] = {&pr, &qh};
    api(g, "Torch.matmul", m2, 2, NULL, NULL, &qh);
    const tdesc *o[] = {&x, &wq};
    api(g, "Functional.linear", o, 2, "null", NULL, &x);
    const tdesc *res[] = {&x, &x};
    api(g, "Tensor.__add__", res, 2, NULL, NULL, &x);
    rms_norm(g, &x);
    const tdesc *gu[] = {&x, &wg};
    api(g, "Functional.linear", gu, 2, "null", NULL, &h);
    api(g, "Functional.linear", gu, 2, "null", NULL, &h);
    const tdesc *si[] = {&h};
    api(g, "Functional.silu", si, 1, NULL, NULL, &h);
    const tdesc *mu[] = {&h, &h};
    api(g, "Tensor.__mul__", mu, 2, NULL, NULL, &h);
    const tdesc *dn[] = {&h, &wd};
    api(g, "Functional.linear", dn, 2, "null", NULL, &x);
    api(g, "Tensor.__add__", res, 2, NULL, NULL, &x);
}

/* Writes the dump of `layers` decoder layers, or only its record number `only` (>= 0). */
static int write_llama_dump(const char *path, int layers, int only, gen *g)
{
    char(*names_out)[64] = g->names_out;
    double *bytes_out = g->bytes_out;
    int cap_out = g->cap_out;
    memset(g, 0, sizeof *g);
    g->only = only;
    g->names_out = names_out;
    g->bytes_out = bytes_out;
    g->cap_out = cap_out;
    g->f = fopen(path, "w");
    if (!g->f)
        return -1;
    g->first = 1;
    fprintf(g->f, "{\"task\": \"statistics\", \"level\": \"L1\", \"framework\": \"pytorch\", "
                  "\"dump_data_dir\": null, \"data\": {");
    for (int l = 0; l < layers; l++)
        layer(g);
    fprintf(g->f, "\n}}\n");
    return fclose(g->f);
}

/* ---- runs ---- */

static double run_once(const char *dump, const char *out, int workers, pc_run_timing *timing)
{
    pc_run_options o = {
        .api_info = dump,
        .out_path = out,
        .backend = "cpu",
        .bench_policy = "msprobe",
        .seed = 1234,
        .workers = workers,
        .timing = timing,
    };
    double t = now_s();
    int rc = pc_run_ut(&o);
    t = now_s() - t;
    if (rc != 0) {
        fprintf(stderr, "bench_run_ut: run_ut failed (%d)\n", rc);
        exit(1);
    }
    return t;
}

/* ---- (c) per API ---- */

static double vm_rss_bytes(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0)
            kb = atof(line + 6);
    if (f)
        fclose(f);
    return kb * 1024.0;
}

typedef struct api_growth {
    int seq;
    double growth, floor;
} api_growth;

static int cmp_growth(const void *a, const void *b)
{
    double x = ((const api_growth *)a)->growth, y = ((const api_growth *)b)->growth;
    return (x < y) - (x > y);
}

/* The peak-RSS growth of record `seq` of a one-layer dump run alone in a forked child. */
static double api_growth_of(const char *tmp, int seq)
{
    char dump[1100], out[1100];
    snprintf(dump, sizeof dump, "%s/one%d.json", tmp, seq);
    snprintf(out, sizeof out, "%s/one%d", tmp, seq);
    gen g = {0};
    if (write_llama_dump(dump, 1, seq, &g) != 0)
        return -1;
    fflush(stdout);
    double before = vm_rss_bytes();
    pid_t pid = fork();
    if (pid == 0) {
        run_once(dump, out, 0, NULL);
        _exit(0);
    }
    int status = 0;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        return -1;
    return (double)ru.ru_maxrss * 1024.0 - before;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    const char *repo = ".";
    int layers = 2, skip_a = 0, skip_b = 0, skip_c = 0, top = 3;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--layers") == 0 && i + 1 < argc)
            layers = atoi(argv[++i]);
        else if (strcmp(argv[i], "--skip-a") == 0)
            skip_a = 1;
        else if (strcmp(argv[i], "--skip-b") == 0)
            skip_b = 1;
        else if (strcmp(argv[i], "--skip-c") == 0)
            skip_c = 1;
        else if (strcmp(argv[i], "--top") == 0 && i + 1 < argc)
            top = atoi(argv[++i]);
        else
            repo = argv[i];
    }
    pc_log_set_level(PC_LOG_WARNING);
    char tmp[] = "/tmp/bench_run_ut_XXXXXX";
    if (!mkdtemp(tmp))
        return 1;
    /* (c) first: the children must be forked before this process runs any kernel */
    enum { MAX_RECORDS = 256 };
    static char names[MAX_RECORDS][64];
    static double floors[MAX_RECORDS];
    api_growth growth[MAX_RECORDS];
    int nrec = 0;
    if (!skip_b && !skip_c) {
        gen g = {.names_out = names, .bytes_out = floors, .cap_out = MAX_RECORDS};
        char dump[1100];
        snprintf(dump, sizeof dump, "%s/layer.json", tmp);
        if (write_llama_dump(dump, 1, -1, &g) != 0)
            return 1;
        nrec = g.seq < MAX_RECORDS ? g.seq : MAX_RECORDS;
        for (int i = 0; i < nrec; i++) {
            growth[i] = (api_growth){i, api_growth_of(tmp, i), floors[i]};
            if (growth[i].growth < 0) {
                fprintf(stderr, "bench_run_ut: %s alone failed\n", names[i]);
                return 1;
            }
        }
        qsort(growth, (size_t)nrec, sizeof growth[0], cmp_growth);
    }
    if (!skip_a) {
        char dump[1024], out[1100];
        snprintf(dump, sizeof dump,
                 "%s/tests/fixtures/msprobe/dumps/gpt_tensor/step0/rank/dump.json", repo);
        double t[7];
        for (int i = 0; i < 7; i++) {
            snprintf(out, sizeof out, "%s/a%d", tmp, i);
            t[i] = run_once(dump, out, 1, NULL);
        }
        qsort(t, 7, sizeof t[0], cmp_double);
        printf("(a) gpt_tensor, 43 APIs, 1 worker: median %.3f s (min %.3f, max %.3f) of 7 runs; "
               "target 0.200 s: %.2f of the target; msprobe's 20 s / precheck = %.0fx\n",
               t[3], t[0], t[6], t[3] / 0.2, 20.0 / t[3]);
    }
    if (!skip_b) {
        char dump[1100], out[1100];
        snprintf(dump, sizeof dump, "%s/llama.json", tmp);
        gen g = {0};
        if (write_llama_dump(dump, layers, -1, &g) != 0)
            return 1;
        snprintf(out, sizeof out, "%s/b", tmp);
        pc_run_timing tm = {0};
        double wall = run_once(dump, out, 0, &tm);
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        double peak = (double)ru.ru_maxrss * 1024.0;
        double limit = 3.0 * g.largest_bytes + 64.0 * 1024 * 1024;
        printf("(b) LLaMA-shaped statistics dump, %d layers, %zu APIs: %.2f s wall\n", layers,
               tm.apis, wall);
        printf("    parse %.3f s, inputs %.2f s, device %.2f s, bench %.2f s, compare %.2f s, "
               "write %.3f s\n",
               tm.parse, tm.inputs, tm.device, tm.bench, tm.compare, tm.write);
        printf("    peak RSS %.0f MB; largest API %s: %.0f MB in+out in float32; target 3x + 64 MB "
               "= %.0f MB: peak/target %.2f\n",
               peak / 1048576, g.largest_name, g.largest_bytes / 1048576, limit / 1048576,
               peak / limit);
        if (nrec > 0)
            printf("(c) peak-RSS growth of each API of one layer run alone (in a forked child), "
                   "the %d largest:\n",
                   top < nrec ? top : nrec);
        for (int i = 0; i < nrec && i < top; i++)
            printf("    %-28s %6.0f MB  (in+out in float32 %4.0f MB: %.2fx)\n",
                   names[growth[i].seq], growth[i].growth / 1048576, growth[i].floor / 1048576,
                   growth[i].growth / growth[i].floor);
    }
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    return system(cmd) == 0 ? 0 : 1;
}
