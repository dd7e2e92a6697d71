/*
 * The worker pool: forked processes run APIs, the parent collects their structured results
 * (pc_api_result, packed) and hands them on in dump order to the run's result sinks. A worker
 * that dies or overruns the timeout is replaced and its API becomes a SKIP record.
 *
 * Protocol, over two pipes per worker: the parent sends a uint64 position; the worker answers
 * with a header {position, length} and the packed result. The parent never runs OpenMP or BLAS
 * code, so forking it (also later, for replacements) is safe.
 *
 * Under mpirun (mpi.c) rank 0 is this parent with the other ranks as remote slots beside its
 * own workers: it hands out the heaviest APIs first (runner/cost.h) while the results waiting
 * for their turn hold less than POOL_HOLD_MAX, and the writer's next ones in dump order
 * otherwise, so memory stays bounded whatever one slow API does. The other ranks run
 * pc_pool_serve: the positions rank 0 sends, in workers of their own, each result sent back.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <cblas.h> /* openblas_set_num_threads */
#include <omp.h>
#endif

#include "precheck/core/clock.h"
#include "precheck/core/log.h"
#include "precheck/core/threads.h"
#include "precheck/runner/cost.h"
#include "runner_impl.h"

/* The result of one API, computed here (what a worker does); only running out of memory even
 * for a SKIP record fails. */
static pc_status api_result_make(const pc_api_runner *r, const pc_dump_api *api, pc_api_result *res)
{
    pc_status st = pc_api_run(r, api, res);
    if (st == PC_ERR_NOMEM) {
        pc_log_error("Run %s UT Error: out of memory", api->full_name);
        st = pc_api_result_skip(res, api->full_name, "out of memory");
    }
    return st;
}

static int write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_all(int fd, void *p, size_t n)
{
    char *c = p;
    while (n > 0) {
        ssize_t r = read(fd, c, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        c += r;
        n -= (size_t)r;
    }
    return 0;
}

typedef struct msg_header {
    uint64_t pos;
    uint64_t len; /* of the packed result that follows */
} msg_header;

/* A result waiting for its turn to be handed on: packed (from a worker) or, for one the
 * parent decided itself, as it is. */
typedef struct pending {
    pc_csv_buffer bytes;
    pc_api_result res; /* used when direct */
    bool direct;
    bool ready;
    bool sent;    /* handed out (or decided) */
    bool checked; /* pc_api_run_early said it must run */
} pending;

typedef struct worker {
    pid_t pid;
    int cmd_fd; /* parent writes positions */
    int res_fd; /* parent reads answers */
    long pos;   /* in flight, -1 when idle */
    double started;
} worker;

typedef struct pool {
    const pc_pool_job *job;
    worker w[PC_RUN_MAX_WORKERS];
    int n;
    pending *texts;
    /* under mpirun, on rank 0: the positions by cost, heaviest first, and the first of them
     * not yet handed out; each rank's positions in flight */
    size_t *order, oi;
    int *busy;
    size_t held; /* bytes of the results waiting for their turn */
    /* the clock --timeout counts (pool_now): the last reading, the wait the parent allowed
     * itself since (poll), the time the run was stopped, and the SIGCONTs seen */
    double tick, expect, stopped;
    sig_atomic_t conts;
} pool;

/* ---- the clock of --timeout ----
 *
 * Time the run was stopped (SIGSTOP to its process group, ^Z, a scheduler's suspend, a paused
 * virtual machine) does not count against --timeout: an API that was running when the group
 * was stopped is not one that hangs, and a SKIP row would never run again on resume. The pool's
 * clock is the monotonic clock less the stops, seen from the parent (in the process group with
 * its workers): a SIGCONT since the last reading makes all the time since it a stop (at most the
 * parent's own wait of one second, counted in the API's favour); a reading that comes more than
 * POOL_STOP_SLACK s later than the parent's wait allowed makes the excess a stop (no SIGCONT: a
 * paused machine). A worker that hangs without using the processor (a deadlock in a device call)
 * still times out: the clock runs while the parent waits for it. */
#define POOL_STOP_SLACK 2.0

static volatile sig_atomic_t pool_conts; /* SIGCONTs received */

static void on_cont(int sig)
{
    (void)sig;
    pool_conts = pool_conts + 1;
}

/* Counts SIGCONTs from now on (the old action in *old). */
static void watch_stops(pool *p, struct sigaction *old)
{
    struct sigaction sa = {0};
    sa.sa_handler = on_cont;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCONT, &sa, old);
    p->conts = pool_conts;
    p->tick = pc_clock_seconds();
}

/* The pool's clock, in seconds: see above. */
static double pool_now(pool *p)
{
    double t = pc_clock_seconds(), step = t - p->tick;
    sig_atomic_t conts = pool_conts;
    if (conts != p->conts && step > 0)
        p->stopped += step;
    else if (step > p->expect + POOL_STOP_SLACK)
        p->stopped += step - p->expect;
    p->conts = conts;
    p->tick = t;
    p->expect = 0;
    return t - p->stopped;
}

/* What the results waiting for their turn may hold before the writer's next APIs go first;
 * a result decided in the parent counts POOL_DIRECT_BYTES (what a SKIP result takes in memory:
 * measured 2.7 kB with bench_skips). */
#define POOL_HOLD_MAX     ((size_t)64 << 20)
#define POOL_DIRECT_BYTES 4096

#ifdef _OPENMP
/* Under an address-space limit: one product on each of the worker's threads first, so that
 * OpenBLAS's buffers (kept for the process's later products) are reserved before any API's
 * tensors take the room, and an API too large for what is left fails to allocate (a SKIP
 * "out of memory") instead of OpenBLAS retrying its buffer forever (core/threads.h). The size
 * is above OpenBLAS's small-matrix path, which takes no buffer. */
static void reserve_blas_buffers(int threads)
{
    enum { N = 128 };
    int saved = openblas_get_num_threads();
    openblas_set_num_threads(1);
#pragma omp parallel num_threads(threads)
    {
        float *m = calloc(3 * N * N, sizeof *m);
        if (m)
            cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0f, m, N, m + N * N,
                        N, 0.0f, m + 2 * N * N, N);
        free(m);
    }
    openblas_set_num_threads(saved);
}
#endif

static void worker_loop(const pc_pool_job *job, int cmd_fd, int res_fd, int nworkers, int index)
{
    signal(SIGINT, SIG_IGN); /* the parent decides what an interrupt does */
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_IGN); /* a closed log stream must not kill an API; a closed pipe to the
                                 parent fails write_all and ends the worker */
    signal(SIGCONT, SIG_DFL); /* the parent counts the stops (pool_now) */
#ifdef _OPENMP
    /* the cores shared among the workers: OpenMP's threads, which also share precheck's GEMMs
     * (ops/blas.h runs OpenBLAS on one thread); OpenBLAS's count is what a torch backend's
     * CPU GEMMs get (torch's set_num_threads does not reach a pthread OpenBLAS) */
    int threads =
        (job->cores > 0 ? job->cores : omp_get_num_procs()) / (nworkers > 0 ? nworkers : 1);
    int cap = pc_threads_cap(); /* an address-space limit (core/threads.h) */
    if (cap > 0 && threads > cap)
        threads = cap;
    omp_set_num_threads(threads > 0 ? threads : 1);
    openblas_set_num_threads(threads > 0 ? threads : 1);
    if (cap > 0)
        reserve_blas_buffers(threads > 0 ? threads : 1);
#else
    (void)nworkers;
#endif
    pc_backend_worker_start(job->runner->device, job->worker_base + index);
    pc_backend_worker_start(job->runner->bench, job->worker_base + index);
    uint64_t pos;
    pc_csv_buffer bytes = PC_CSV_BUFFER_INIT;
    while (read_all(cmd_fd, &pos, sizeof pos) == 0) {
        const pc_dump_api *api = &job->dump->apis[job->apis[pos]];
        pc_api_result res = PC_API_RESULT_INIT;
        pc_csv_buffer_clear(&bytes);
        pc_status st = api_result_make(job->runner, api, &res);
        if (st == PC_OK)
            st = pc_api_result_pack(&res, &bytes);
        pc_api_result_free(&res);
        if (st != PC_OK)
            _exit(3); /* out of memory even for a SKIP row: the parent records it */
        msg_header h = {pos, bytes.len};
        if (write_all(res_fd, &h, sizeof h) || write_all(res_fd, bytes.data, bytes.len))
            _exit(4);
    }
    _exit(0);
}

static int spawn(pool *p, int i)
{
    int cmd[2], res[2];
    if (pipe(cmd) != 0)
        return -1;
    if (pipe(res) != 0) {
        close(cmd[0]);
        close(cmd[1]);
        return -1;
    }
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(cmd[0]);
        close(cmd[1]);
        close(res[0]);
        close(res[1]);
        return -1;
    }
    if (pid == 0) {
#ifdef __linux__
        /* a worker ends with its parent, even one that hangs (a killed rank or run must not
         * leave workers behind) */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(0);
#else
        (void)parent;
#endif
        for (int k = 0; k < p->n; k++)
            if (k != i && p->w[k].pid > 0) {
                close(p->w[k].cmd_fd);
                close(p->w[k].res_fd);
            }
        close(cmd[1]);
        close(res[0]);
        worker_loop(p->job, cmd[0], res[1], p->n, i);
    }
    close(cmd[0]);
    close(res[1]);
    p->w[i] = (worker){pid, cmd[1], res[0], -1, 0};
    return 0;
}

static void reap(pool *p, int i, bool kill_it, int *status)
{
    worker *w = &p->w[i];
    if (w->pid <= 0)
        return;
    if (kill_it)
        kill(w->pid, SIGKILL);
    close(w->cmd_fd);
    close(w->res_fd);
    int st = 0;
    while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (status)
        *status = st;
    w->pid = -1;
}

/* The API in flight on worker i failed: its SKIP record, and a new worker. */
static pc_status worker_failed(pool *p, int i, const char *why)
{
    long pos = p->w[i].pos;
    const pc_dump_api *api = &p->job->dump->apis[p->job->apis[pos]];
    pc_log_error("Run %s UT Error: %s", api->full_name, why);
    pc_api_result res = PC_API_RESULT_INIT;
    pc_status st = pc_api_result_skip(&res, api->full_name, why);
    if (st == PC_OK)
        st = pc_api_result_pack(&res, &p->texts[pos].bytes);
    pc_api_result_free(&res);
    if (st != PC_OK)
        return st;
    p->texts[pos].ready = true;
    p->held += p->texts[pos].bytes.len;
    if (spawn(p, i) != 0)
        return pc_error_set(PC_ERR_IO, "cannot start a worker process: %s", strerror(errno));
    return PC_OK;
}

static pc_status collect(pool *p, int i)
{
    worker *w = &p->w[i];
    msg_header h;
    char why[256];
    if (read_all(w->res_fd, &h, sizeof h) == 0 && h.pos == (uint64_t)w->pos &&
        h.len < ((uint64_t)1 << 40)) {
        pending *t = &p->texts[w->pos];
        t->bytes.data = malloc(h.len + 1);
        if (!t->bytes.data)
            return pc_error_set(PC_ERR_NOMEM, "out of memory");
        if (read_all(w->res_fd, t->bytes.data, h.len) == 0) {
            t->bytes.len = t->bytes.cap = h.len;
            t->ready = true;
            p->held += h.len;
            w->pos = -1;
            return PC_OK;
        }
        pc_csv_buffer_free(&t->bytes);
    }
    int status = 0;
    long pos = w->pos;
    reap(p, i, true, &status);
    /* a worker stopped by the signals that stop a run (sent to the whole process group: ^C, a
     * scheduler, mpirun ending the job) was not failed by its API: the run is being
     * interrupted, and the API runs again on resume rather than becoming a SKIP row */
    int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP)
        *p->job->interrupted = sig;
    if (*p->job->interrupted) { /* no new worker: the run ends */
        p->texts[pos].sent = false;
        w->pos = -1;
        return PC_OK;
    }
    if (WIFSIGNALED(status))
        snprintf(why, sizeof why,
                 "The worker process running this API was killed by signal %d (%s); precheck "
                 "started a new worker and went on.",
                 WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        snprintf(why, sizeof why,
                 "The worker process running this API exited with status %d%s; precheck "
                 "started a new worker and went on.",
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                 WIFEXITED(status) && WEXITSTATUS(status) == 3 ? " (out of memory)" : "");
    return worker_failed(p, i, why);
}

static void pool_close(pool *p)
{
    for (int i = 0; i < p->n; i++)
        if (p->w[i].pid > 0)
            reap(p, i, p->w[i].pos >= 0, NULL);
}

static pc_status run_in_process(const pc_pool_job *job, pc_pool_sink sink, void *ctx,
                                size_t *written)
{
    pc_backend_worker_start(job->runner->device, 0);
    pc_backend_worker_start(job->runner->bench, 0);
    for (size_t pos = 0; pos < job->count && !*job->interrupted; pos++) {
        pc_api_result res = PC_API_RESULT_INIT;
        pc_status st = api_result_make(job->runner, &job->dump->apis[job->apis[pos]], &res);
        int stop = st == PC_OK ? sink(ctx, pos, &res) : 1;
        pc_api_result_free(&res);
        if (st != PC_OK)
            return st;
        *written = pos + 1;
        if (stop)
            break;
    }
    return PC_OK;
}

/* A rank other than 0 (pc_pool_serve): sends position pos's result to rank 0 once it is
 * ready. */
static pc_status serve_send(pool *p, long pos)
{
    pending *t = &p->texts[pos];
    if (pos < 0 || !t->ready)
        return PC_OK;
    pc_status st = pc_mpi_send_result(p->job->mpi, (uint64_t)pos, t->bytes.data, t->bytes.len);
    p->held -= t->bytes.len;
    pc_csv_buffer_free(&t->bytes);
    t->ready = false;
    return st;
}

/* The workers past --timeout: stopped, their APIs SKIP records (sent to rank 0 with send). */
static pc_status expire(pool *p, bool send)
{
    double timeout = p->job->opt->timeout_s, t = pool_now(p);
    pc_status st = PC_OK;
    for (int i = 0; timeout > 0 && i < p->n && st == PC_OK; i++) {
        if (p->w[i].pos < 0 || t - p->w[i].started < timeout)
            continue;
        char why[256];
        snprintf(why, sizeof why,
                 "The API did not finish within %g s (--timeout); precheck stopped its worker "
                 "process and went on.",
                 timeout);
        long pos = p->w[i].pos;
        reap(p, i, true, NULL);
        st = worker_failed(p, i, why);
        if (st == PC_OK && send)
            st = serve_send(p, pos);
    }
    return st;
}

/* Whether position pos is decided without running anything (pc_api_run_early: lists, refused
 * types, the memory guard); then its result is ready here and it counts as handed out. */
static pc_status decide_early(pool *p, size_t pos, bool *decided)
{
    pending *t = &p->texts[pos];
    t->checked = true;
    pc_status st =
        pc_api_run_early(p->job->runner, &p->job->dump->apis[p->job->apis[pos]], &t->res, decided);
    if (st == PC_OK && *decided) {
        t->direct = t->ready = t->sent = true;
        p->held += POOL_DIRECT_BYTES;
    }
    return st;
}

/* The next position to hand out (-1: none now): the first in dump order; under mpirun the
 * heaviest not handed out yet, unless the results waiting for their turn hold POOL_HOLD_MAX.
 * One that pc_api_run_early decides (lists, refused types, the memory guard) becomes ready on
 * the way -- in dump order only before window_end (so that the results decided here do not
 * grow with the dump: past it a worker decides, as it runs the API). */
static pc_status pick(pool *p, size_t *next_send, size_t window_end, long *out)
{
    const pc_pool_job *job = p->job;
    *out = -1;
    for (;;) {
        size_t pos;
        bool heavy = p->order && p->held < POOL_HOLD_MAX;
        if (heavy) {
            while (p->oi < job->count && p->texts[p->order[p->oi]].sent)
                p->oi++;
            if (p->oi == job->count)
                return PC_OK;
            pos = p->order[p->oi];
        } else {
            while (*next_send < job->count && p->texts[*next_send].sent)
                (*next_send)++;
            if (*next_send == job->count)
                return PC_OK;
            pos = *next_send;
            /* while the results waiting for their turn hold POOL_HOLD_MAX, nothing past the
             * writer's window (the API it waits for is in it): memory stays bounded whatever
             * one slow API does */
            if (p->held >= POOL_HOLD_MAX && pos >= window_end)
                return PC_OK;
        }
        p->texts[pos].sent = true;
        if (!p->texts[pos].checked && (heavy || pos < window_end)) {
            bool decided = false;
            pc_status st = decide_early(p, pos, &decided);
            if (st != PC_OK)
                return st;
            if (decided)
                continue;
        }
        *out = (long)pos;
        return PC_OK;
    }
}

/* Positions to the free local workers. */
static pc_status hand_out(pool *p, size_t *next_send, size_t window_end)
{
    for (int i = 0; i < p->n; i++) {
        if (p->w[i].pos >= 0 || p->w[i].pid <= 0)
            continue;
        long pos;
        pc_status st = pick(p, next_send, window_end, &pos);
        if (st != PC_OK || pos < 0)
            return st;
        uint64_t u = (uint64_t)pos;
        if (write_all(p->w[i].cmd_fd, &u, sizeof u) != 0) {
            p->texts[pos].sent = false; /* for the next worker */
            reap(p, i, true, NULL);
            if (spawn(p, i) != 0)
                return pc_error_set(PC_ERR_IO, "cannot start a worker process: %s",
                                    strerror(errno));
            continue;
        }
        p->w[i].pos = pos;
        p->w[i].started = pool_now(p);
    }
    return PC_OK;
}

/* Rank 0: positions to the other ranks' free slots, and their answers in. */
static pc_status remote_exchange(pool *p, size_t *next_send, size_t window_end)
{
    const pc_pool_job *job = p->job;
    pc_status st = PC_OK;
    for (int r = 1; r < job->mpi->size && st == PC_OK; r++)
        while (st == PC_OK && p->busy[r] < job->slots[r]) {
            long pos;
            st = pick(p, next_send, window_end, &pos);
            if (st != PC_OK || pos < 0)
                break;
            st = pc_mpi_send(job->mpi, r, PC_MPI_WORK, (uint64_t)pos);
            p->busy[r]++;
        }
    while (st == PC_OK) {
        int kind = 0, from = 0;
        uint64_t pos = 0;
        pc_csv_buffer b = PC_CSV_BUFFER_INIT;
        st = pc_mpi_poll(job->mpi, -1, &kind, &from, &pos, &b);
        if (st != PC_OK || kind == 0)
            break;
        if (kind == PC_MPI_RESULT && pos < job->count && p->texts[pos].sent &&
            !p->texts[pos].ready && p->busy[from] > 0) {
            p->texts[pos].bytes = b;
            p->texts[pos].ready = true;
            p->held += b.len;
            p->busy[from]--;
        } else if (kind == PC_MPI_QUIT) {
            pc_log_warning("Rank %d was interrupted: the run stops.", from);
            *job->interrupted = SIGTERM;
        } else {
            pc_csv_buffer_free(&b);
            st = pc_error_set(PC_ERR_FORMAT, "MPI: rank %d sent an unexpected message (%d)", from,
                              kind);
        }
    }
    return st;
}

/* Rank 0 at the end: every other rank stops (its workers in flight are killed) and says so;
 * results still on the way are dropped. A rank that does not answer within 10 s (it died),
 * or within 0.3 s of an interrupt (the launcher ends the job soon after its signal: the run's
 * last words, the resume command, come first), marks the job broken: it ends with MPI_Abort,
 * after the CSVs are complete up to here. */
static void remote_stop(pool *p)
{
    const pc_pool_job *job = p->job;
    int waiting = 0;
    for (int r = 1; r < job->mpi->size; r++)
        if (pc_mpi_send(job->mpi, r, PC_MPI_STOP, 0) == PC_OK)
            waiting++;
    double deadline = pc_clock_seconds() + (*job->interrupted ? 0.3 : 10.0);
    while (waiting > 0 && pc_clock_seconds() < deadline) {
        int kind = 0, from = 0;
        uint64_t pos = 0;
        pc_csv_buffer b = PC_CSV_BUFFER_INIT;
        if (pc_mpi_poll(job->mpi, -1, &kind, &from, &pos, &b) != PC_OK)
            break;
        pc_csv_buffer_free(&b);
        if (kind == PC_MPI_DONE)
            waiting--;
        else if (kind == 0)
            poll(NULL, 0, 1);
    }
    if (waiting > 0) {
        pc_log_warning("%d rank(s) did not answer the end of the run: ending the MPI job.",
                       waiting);
        job->mpi->broken = true;
    }
}

/* Under mpirun: the positions heaviest first (runner/cost.h), and each rank's count in flight. */
static pc_status order_by_cost(pool *p)
{
    const pc_pool_job *job = p->job;
    p->order = malloc((job->count + 1) * sizeof *p->order);
    p->busy = calloc((size_t)job->mpi->size, sizeof *p->busy);
    if (!p->order || !p->busy)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    return pc_api_order_by_cost(job->dump, job->apis, job->count, p->order, NULL);
}

pc_status pc_pool_run(const pc_pool_job *job, pc_pool_sink sink, void *ctx, size_t *written)
{
    *written = 0;
    bool ranks = job->mpi && job->mpi->active && job->mpi->size > 1;
    if (job->opt->workers <= 0 && !ranks)
        return run_in_process(job, sink, ctx, written);
    pool p = {.job = job};
    p.n = job->opt->workers < PC_RUN_MAX_WORKERS ? job->opt->workers : PC_RUN_MAX_WORKERS;
    if ((size_t)p.n > job->count)
        p.n = job->count > 0 ? (int)job->count : 1;
    if (p.n < 0)
        p.n = 0;
    p.texts = calloc(job->count + 1, sizeof *p.texts);
    if (!p.texts)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    pc_status st = ranks ? order_by_cost(&p) : PC_OK;
    void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN);
    struct sigaction old_cont;
    watch_stops(&p, &old_cont);
    for (int i = 0; i < p.n; i++)
        p.w[i].pid = -1;
    for (int i = 0; i < p.n && st == PC_OK; i++)
        if (spawn(&p, i) != 0)
            st = pc_error_set(PC_ERR_IO, "cannot start a worker process: %s", strerror(errno));
    size_t next_send = 0, next_write = 0;
    double timeout = job->opt->timeout_s;
    while (st == PC_OK && next_write < job->count && !*job->interrupted) {
        /* the APIs decided without running anything (lists, refused types): here, at once
         * (a window ahead of the writer, so that memory does not grow with the dump) */
        for (bool decided = true;
             st == PC_OK && decided && next_send < job->count && next_send < next_write + 256;) {
            pending *t = &p.texts[next_send];
            if (t->sent) { /* handed out already, heaviest first */
                next_send++;
                continue;
            }
            if (t->checked)
                break;
            st = decide_early(&p, next_send, &decided);
            if (st == PC_OK && decided)
                next_send++;
        }
        /* hand out work, here and to the other ranks */
        if (st == PC_OK)
            st = hand_out(&p, &next_send, next_write + 256);
        int remote = 0;
        if (st == PC_OK && ranks) {
            st = remote_exchange(&p, &next_send, next_write + 256);
            for (int r = 1; r < job->mpi->size; r++)
                remote += p.busy[r];
        }
        if (st != PC_OK)
            break;
        /* wait for answers (or a timeout, or a signal); briefly while other ranks work */
        struct pollfd fds[PC_RUN_MAX_WORKERS];
        int idx[PC_RUN_MAX_WORKERS], nf = 0;
        double wait = remote > 0 ? 0.0005 : 1.0, t = pool_now(&p);
        for (int i = 0; i < p.n; i++) {
            if (p.w[i].pos < 0)
                continue;
            fds[nf] = (struct pollfd){.fd = p.w[i].res_fd, .events = POLLIN};
            idx[nf++] = i;
            if (timeout > 0) {
                double left = p.w[i].started + timeout - t;
                if (left < wait)
                    wait = left > 0 ? left : 0;
            }
        }
        p.expect = wait;
        int ready = nf > 0 || remote > 0 ? poll(fds, (nfds_t)nf, (int)(wait * 1000) + 1) : 0;
        if (ready < 0 && errno != EINTR) {
            st = pc_error_set(PC_ERR_IO, "poll: %s", strerror(errno));
            break;
        }
        for (int k = 0; k < nf && ready > 0 && st == PC_OK; k++)
            if (fds[k].revents & (POLLIN | POLLHUP | POLLERR))
                st = collect(&p, idx[k]);
        if (st == PC_OK)
            st = expire(&p, false);
        /* write what is complete, in order */
        while (st == PC_OK && next_write < job->count && p.texts[next_write].ready) {
            pending *tx = &p.texts[next_write];
            pc_api_result res = PC_API_RESULT_INIT;
            if (!tx->direct)
                st = pc_api_result_unpack(tx->bytes.data, tx->bytes.len, &res);
            int stop = st == PC_OK ? sink(ctx, next_write, tx->direct ? &tx->res : &res) : 1;
            size_t bytes = tx->direct ? POOL_DIRECT_BYTES : tx->bytes.len;
            if (bytes > p.held && st == PC_OK) /* an accounting slip would unbound memory */
                st = pc_error_set(PC_ERR_INVALID,
                                  "internal error: the pool holds %zu bytes "
                                  "and writes a result of %zu",
                                  p.held, bytes);
            p.held -= bytes <= p.held ? bytes : p.held;
            pc_api_result_free(&res);
            pc_api_result_free(&tx->res);
            pc_csv_buffer_free(&tx->bytes);
            tx->ready = tx->direct = false;
            if (st != PC_OK)
                break;
            *written = ++next_write;
            if (stop) {
                st = PC_ERR_IO;
                break;
            }
        }
    }
    pool_close(&p);
    if (ranks)
        remote_stop(&p);
    for (size_t i = 0; i < job->count; i++) {
        pc_csv_buffer_free(&p.texts[i].bytes);
        pc_api_result_free(&p.texts[i].res);
    }
    free(p.texts);
    free(p.order);
    free(p.busy);
    signal(SIGPIPE, old_pipe);
    sigaction(SIGCONT, &old_cont, NULL);
    return st;
}

pc_status pc_pool_serve(const pc_pool_job *job)
{
    pool p = {.job = job};
    p.n = job->opt->workers < 1                    ? 1
          : job->opt->workers < PC_RUN_MAX_WORKERS ? job->opt->workers
                                                   : PC_RUN_MAX_WORKERS;
    /* rank 0 sends at most the slots this rank gave (run_ut.c: two per worker) */
    size_t cap = (size_t)p.n * 2 + 2, head = 0, queued = 0;
    size_t *queue = malloc(cap * sizeof *queue);
    p.texts = calloc(job->count + 1, sizeof *p.texts);
    if (!queue || !p.texts) {
        free(queue);
        free(p.texts);
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    }
    void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN);
    struct sigaction old_cont;
    watch_stops(&p, &old_cont);
    pc_status st = PC_OK;
    for (int i = 0; i < p.n; i++)
        p.w[i].pid = -1;
    for (int i = 0; i < p.n && st == PC_OK; i++)
        if (spawn(&p, i) != 0)
            st = pc_error_set(PC_ERR_IO, "cannot start a worker process: %s", strerror(errno));
    bool stop = false, quit_sent = false;
    while (st == PC_OK && !stop) {
        /* what rank 0 says */
        for (;;) {
            int kind = 0, from = 0;
            uint64_t pos = 0;
            pc_csv_buffer b = PC_CSV_BUFFER_INIT;
            st = pc_mpi_poll(job->mpi, 0, &kind, &from, &pos, &b);
            pc_csv_buffer_free(&b);
            if (st != PC_OK || kind == 0)
                break;
            if (kind == PC_MPI_STOP) {
                stop = true;
                break;
            }
            if (kind != PC_MPI_WORK || pos >= job->count || queued == cap) {
                st = pc_error_set(PC_ERR_FORMAT, "MPI: rank 0 sent an unexpected message (%d)",
                                  kind);
                break;
            }
            queue[(head + queued++) % cap] = (size_t)pos;
        }
        if (st != PC_OK || stop)
            break;
        if (*job->interrupted && !quit_sent) {
            st = pc_mpi_send(job->mpi, 0, PC_MPI_QUIT, 0);
            quit_sent = true;
        }
        /* to the free workers, in the order they came */
        int busy = 0;
        for (int i = 0; i < p.n && st == PC_OK; i++) {
            if (p.w[i].pos < 0 && p.w[i].pid > 0 && queued > 0 && !*job->interrupted) {
                uint64_t u = queue[head];
                if (write_all(p.w[i].cmd_fd, &u, sizeof u) != 0) {
                    reap(&p, i, true, NULL);
                    if (spawn(&p, i) != 0)
                        st = pc_error_set(PC_ERR_IO, "cannot start a worker process: %s",
                                          strerror(errno));
                    continue;
                }
                head = (head + 1) % cap;
                queued--;
                p.w[i].pos = (long)u;
                p.w[i].started = pool_now(&p);
            }
            busy += p.w[i].pos >= 0;
        }
        if (st != PC_OK)
            break;
        struct pollfd fds[PC_RUN_MAX_WORKERS];
        int idx[PC_RUN_MAX_WORKERS], nf = 0;
        for (int i = 0; i < p.n; i++)
            if (p.w[i].pos >= 0) {
                fds[nf] = (struct pollfd){.fd = p.w[i].res_fd, .events = POLLIN};
                idx[nf++] = i;
            }
        p.expect = 0.001;
        int ready = poll(fds, (nfds_t)nf, 1);
        if (ready < 0 && errno != EINTR) {
            st = pc_error_set(PC_ERR_IO, "poll: %s", strerror(errno));
            break;
        }
        for (int k = 0; k < nf && ready > 0 && st == PC_OK; k++)
            if (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) {
                long pos = p.w[idx[k]].pos;
                st = collect(&p, idx[k]);
                if (st == PC_OK)
                    st = serve_send(&p, pos);
            }
        if (st == PC_OK && busy > 0)
            st = expire(&p, true);
    }
    pool_close(&p); /* at STOP: what is in flight is not needed any more */
    if (st == PC_OK)
        st = pc_mpi_send(job->mpi, 0, PC_MPI_DONE, 0);
    for (size_t i = 0; i < job->count; i++) {
        pc_csv_buffer_free(&p.texts[i].bytes);
        pc_api_result_free(&p.texts[i].res);
    }
    free(p.texts);
    free(queue);
    signal(SIGPIPE, old_pipe);
    sigaction(SIGCONT, &old_cont, NULL);
    return st;
}
