/*
 * The worker pool: forked processes run APIs, the parent collects their structured results
 * (pc_api_result, packed) and hands them on in dump order to the run's result sinks. A worker
 * that dies or overruns the timeout is replaced and its API becomes a SKIP record.
 *
 * Protocol, over two pipes per worker: the parent sends a uint64 position; the worker answers
 * with a header {position, length} and the packed result. The parent never runs OpenMP or BLAS
 * code, so forking it (also later, for replacements) is safe.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <cblas.h> /* openblas_set_num_threads */
#include <omp.h>
#endif

#include "precheck/core/clock.h"
#include "precheck/core/log.h"
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
} pool;

static void worker_loop(const pc_pool_job *job, int cmd_fd, int res_fd, int nworkers, int index)
{
    signal(SIGINT, SIG_IGN); /* the parent decides what an interrupt does */
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_IGN); /* a closed log stream must not kill an API; a closed pipe to the
                                 parent fails write_all and ends the worker */
#ifdef _OPENMP
    /* the cores shared among the workers: OpenMP's threads, which also share precheck's GEMMs
     * (ops/blas.h runs OpenBLAS on one thread); OpenBLAS's count is what a torch backend's
     * CPU GEMMs get (torch's set_num_threads does not reach a pthread OpenBLAS) */
    int threads = omp_get_num_procs() / (nworkers > 0 ? nworkers : 1);
    omp_set_num_threads(threads > 0 ? threads : 1);
    openblas_set_num_threads(threads > 0 ? threads : 1);
#else
    (void)nworkers;
#endif
    pc_backend_worker_start(job->runner->device, index);
    pc_backend_worker_start(job->runner->bench, index);
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
    pid_t pid = fork();
    if (pid < 0) {
        close(cmd[0]);
        close(cmd[1]);
        close(res[0]);
        close(res[1]);
        return -1;
    }
    if (pid == 0) {
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
            w->pos = -1;
            return PC_OK;
        }
        pc_csv_buffer_free(&t->bytes);
    }
    int status = 0;
    reap(p, i, true, &status);
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

pc_status pc_pool_run(const pc_pool_job *job, pc_pool_sink sink, void *ctx, size_t *written)
{
    *written = 0;
    if (job->opt->workers <= 0)
        return run_in_process(job, sink, ctx, written);
    pool p = {.job = job};
    p.n = job->opt->workers < PC_RUN_MAX_WORKERS ? job->opt->workers : PC_RUN_MAX_WORKERS;
    if ((size_t)p.n > job->count)
        p.n = job->count > 0 ? (int)job->count : 1;
    p.texts = calloc(job->count + 1, sizeof *p.texts);
    if (!p.texts)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN);
    pc_status st = PC_OK;
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
            st = pc_api_run_early(job->runner, &job->dump->apis[job->apis[next_send]], &t->res,
                                  &decided);
            if (st == PC_OK && decided) {
                t->direct = t->ready = true;
                next_send++;
            }
        }
        if (st != PC_OK)
            break;
        /* hand out work */
        for (int i = 0; i < p.n && next_send < job->count; i++) {
            if (p.w[i].pos >= 0)
                continue;
            uint64_t pos = next_send;
            if (write_all(p.w[i].cmd_fd, &pos, sizeof pos) != 0) {
                reap(&p, i, true, NULL);
                if (spawn(&p, i) != 0) {
                    st = pc_error_set(PC_ERR_IO, "cannot start a worker process: %s",
                                      strerror(errno));
                    break;
                }
                continue;
            }
            p.w[i].pos = (long)next_send++;
            p.w[i].started = pc_clock_seconds();
        }
        if (st != PC_OK)
            break;
        /* wait for answers (or a timeout, or a signal) */
        struct pollfd fds[PC_RUN_MAX_WORKERS];
        int idx[PC_RUN_MAX_WORKERS], nf = 0;
        double wait = 1.0, t = pc_clock_seconds();
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
        int ready = nf > 0 ? poll(fds, (nfds_t)nf, (int)(wait * 1000) + 1) : 0;
        if (ready < 0 && errno != EINTR) {
            st = pc_error_set(PC_ERR_IO, "poll: %s", strerror(errno));
            break;
        }
        for (int k = 0; k < nf && ready > 0 && st == PC_OK; k++)
            if (fds[k].revents & (POLLIN | POLLHUP | POLLERR))
                st = collect(&p, idx[k]);
        if (timeout > 0) {
            t = pc_clock_seconds();
            for (int i = 0; i < p.n && st == PC_OK; i++) {
                if (p.w[i].pos < 0 || t - p.w[i].started < timeout)
                    continue;
                char why[256];
                snprintf(why, sizeof why,
                         "The API did not finish within %g s (--timeout); precheck stopped its "
                         "worker process and went on.",
                         timeout);
                reap(&p, i, true, NULL);
                st = worker_failed(&p, i, why);
            }
        }
        /* write what is complete, in order */
        while (st == PC_OK && next_write < job->count && p.texts[next_write].ready) {
            pending *tx = &p.texts[next_write];
            pc_api_result res = PC_API_RESULT_INIT;
            if (!tx->direct)
                st = pc_api_result_unpack(tx->bytes.data, tx->bytes.len, &res);
            int stop = st == PC_OK ? sink(ctx, next_write, tx->direct ? &tx->res : &res) : 1;
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
    for (size_t i = 0; i < job->count; i++) {
        pc_csv_buffer_free(&p.texts[i].bytes);
        pc_api_result_free(&p.texts[i].res);
    }
    free(p.texts);
    signal(SIGPIPE, old_pipe);
    return st;
}
