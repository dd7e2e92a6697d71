/* The whole run_ut / multi_run_ut run (docs/msprobe-contract.md#command-line;
 * docs/msprobe-contract.md#formats). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "precheck/core/clock.h"
#include "precheck/core/log.h"
#include "precheck/inputs/inputs.h"
#include "precheck/core/progress.h"
#include "precheck/dump/data.h"
#include "precheck/io/config.h"
#include "precheck/io/path_check.h"
#include "precheck/report/diff.h"
#include "precheck/report/sink.h"
#include "precheck/runner/cost.h"
#include "runner_impl.h"

static volatile sig_atomic_t interrupted;

/* How long a run may take to end after SIGINT or SIGTERM (write what is done, say how to
 * resume: well under a second) before it ends at once: a signal always ends a run, also one
 * whose parent is stuck (fork() waiting for a library's thread, a write to a pipe nobody reads,
 * a worker that cannot die). */
#define RUN_END_GRACE_S 10

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "precheck: the run did not end within 10 s of the signal to stop "
                              "it (something it waits for is stuck): it ends now. The CSVs hold "
                              "the APIs written so far; -csv_path resumes the run.\n";
    /* never block here: stderr may be the very pipe that is full */
    int fl = fcntl(STDERR_FILENO, F_GETFL);
    if (fl >= 0)
        fcntl(STDERR_FILENO, F_SETFL, fl | O_NONBLOCK);
    ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)w;
    _exit(130);
}

/* SIGINT or SIGTERM asks the run to end (interrupted) and gives it RUN_END_GRACE_S from the
 * first one (a second, from a launcher that forwards the first, changes nothing: the run still
 * writes what is done and says how to resume). */
static void on_signal(int sig)
{
    if (!interrupted)
        alarm(RUN_END_GRACE_S);
    interrupted = sig;
}

/* SIGINT and SIGTERM set interrupted from now on (the old handlers in *old_int, *old_term;
 * end_interrupts puts them back). */
static void catch_interrupts(struct sigaction *old_int, struct sigaction *old_term)
{
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    interrupted = 0;
    sigaction(SIGINT, &sa, old_int);
    sigaction(SIGTERM, &sa, old_term);
    struct sigaction al = {0};
    al.sa_handler = on_alarm;
    sigemptyset(&al.sa_mask);
    sigaction(SIGALRM, &al, NULL);
}

/* Puts back the handlers catch_interrupts replaced; the grace after a signal goes on until the
 * run ends (the last words may be stuck too). */
static void end_interrupts(const struct sigaction *old_int, const struct sigaction *old_term)
{
    sigaction(SIGINT, old_int, NULL);
    sigaction(SIGTERM, old_term, NULL);
}

/* A folder or file the run writes into, and which one it was (device and inode): one deleted
 * during the run, or deleted and made again, no longer holds what the run wrote. */
typedef struct kept_path {
    const char *path;
    const char *what; /* "output folder", "result CSV", ... */
    dev_t dev;
    ino_t ino;
} kept_path;

typedef struct run_state {
    const pc_run_options *opt;
    /* a checked directory plus a file name of ours always fits */
    char result_path[PC_PATH_BUFFER_SIZE + 64];
    char details_path[PC_PATH_BUFFER_SIZE + 64];
    char error_dir[PC_PATH_BUFFER_SIZE + 64];
    pc_progress *progress;
    size_t done_before, total;
    /* progress as log lines (stderr is not a terminal) */
    bool log_progress;
    double interval, started, last;
    /* where results go (report/sink.h): the CSVs, the summary, summary.json */
    pc_sink sinks[3];
    int nsinks;
    /* APIs whose rows every sink took; the first sink failure (a full disk), said once */
    size_t written_ok;
    char write_error[PC_ERROR_MESSAGE_MAX];
    /* what the run writes into, as it was when the APIs started (note_outputs) */
    char folder[PC_PATH_BUFFER_SIZE + 64];
    kept_path kept[4];
    int nkept;
    /* -save_error_data: the files of this run's APIs, those not saved, the first error */
    size_t error_files, error_unsaved;
    char error_first[1024];
    /* the dump's stack.json and construct.json, for the failing APIs' places in the model */
    pc_locations *locations;
} run_state;

/* "1 h 02 min", "3 min 05 s", "12 s" */
static void format_duration(char *buf, size_t size, double s)
{
    long t = s > 0 && s < 1e9 ? (long)(s + 0.5) : 0;
    if (t >= 3600)
        snprintf(buf, size, "%ld h %02ld min", t / 3600, t / 60 % 60);
    else if (t >= 60)
        snprintf(buf, size, "%ld min %02ld s", t / 60, t % 60);
    else
        snprintf(buf, size, "%ld s", t);
}

/* The periodic progress line where no bar can be seen (nohup, CI, a log file). */
static void log_progress(run_state *s, size_t done)
{
    double now = pc_clock_seconds();
    if (now - s->last < s->interval || done == s->total)
        return;
    s->last = now;
    double rate = (double)done / (now - s->started > 1e-9 ? now - s->started : 1e-9);
    char left[32] = "?";
    if (rate > 0)
        format_duration(left, sizeof left, (double)(s->total - done) / rate);
    pc_log_info("Progress: %zu of %zu APIs done (%.1f%%), %.2f APIs/s, about %s left", done,
                s->total, s->total ? 100.0 * (double)done / (double)s->total : 100.0, rate, left);
}

/* One finished API, in dump order: to every result sink (the CSVs first). */
static int on_result(void *ctx, size_t pos, const pc_api_result *res)
{
    run_state *s = ctx;
    double t0 = s->opt->timing ? pc_clock_seconds() : 0;
    for (int i = 0; i < s->nsinks; i++)
        if (pc_sink_api(&s->sinks[i], res) != PC_OK) {
            /* the run stops; run_main says it once, with what was written and the resume */
            snprintf(s->write_error, sizeof s->write_error, "%s", pc_error_message());
            return 1;
        }
    s->written_ok++;
    s->error_files += res->error_data_files;
    if (res->error_data_unsaved && !s->error_unsaved) {
        snprintf(s->error_first, sizeof s->error_first, "%s",
                 res->error_data_error ? res->error_data_error : "?");
        pc_log_warning("Error data of %s could not be saved: %s. The run goes on; how many "
                       "files were not saved is said at its end.",
                       res->full_name, s->error_first);
    }
    s->error_unsaved += res->error_data_unsaved;
    if (s->progress)
        pc_progress_update(s->progress, s->done_before + pos + 1);
    if (s->log_progress)
        log_progress(s, pos + 1);
    if (s->opt->timing)
        s->opt->timing->write += pc_clock_seconds() - t0;
    return 0;
}

/* The end of the run for every sink; a sink that fails (summary.json cannot be written) only
 * warns: the CSVs are what the run is for. Without json, summary.json (the last sink) is not
 * written: its folder is gone, or is another one. */
static void finish_sinks(run_state *s, const pc_run_end *end, bool json)
{
    for (int i = 0; i < (json ? s->nsinks : s->nsinks - 1); i++)
        if (pc_sink_finish(&s->sinks[i], end) != PC_OK)
            pc_log_warning("%s", pc_error_message());
}

static void keep_path(run_state *s, const char *path, const char *what)
{
    struct stat st;
    if (!path[0] || stat(path, &st) != 0 || s->nkept == (int)(sizeof s->kept / sizeof *s->kept))
        return;
    s->kept[s->nkept++] = (kept_path){path, what, st.st_dev, st.st_ino};
}

/* Notes the folder of the CSVs, the two CSVs and the error-data folder as they are now. */
static void note_outputs(run_state *s)
{
    const char *slash = strrchr(s->result_path, '/');
    snprintf(s->folder, sizeof s->folder, "%.*s", slash ? (int)(slash - s->result_path) : 1,
             slash ? s->result_path : ".");
    s->nkept = 0;
    keep_path(s, s->folder, "output folder");
    keep_path(s, s->result_path, "result CSV");
    keep_path(s, s->details_path, "details CSV");
    keep_path(s, s->error_dir, "error data folder"); /* the last: see check_outputs */
}

/* At the end: one ERROR for each noted folder or file that is gone or is another one now;
 * returns how many of the CSVs and their folder (the error data folder lost counts among the
 * error data not saved: *error_dir_lost). */
static int check_outputs(const run_state *s, bool *error_dir_lost)
{
    int lost = 0;
    *error_dir_lost = false;
    for (int i = 0; i < s->nkept; i++) {
        const kept_path *k = &s->kept[i];
        struct stat st;
        if (stat(k->path, &st) != 0)
            pc_log_error("The run's %s %s is gone (%s): it was deleted during the run, and what "
                         "the run wrote there is lost.",
                         k->what, k->path, strerror(errno));
        else if (st.st_dev != k->dev || st.st_ino != k->ino)
            pc_log_error("The run's %s %s was replaced during the run (deleted and made again, "
                         "or moved): it is not the one the run wrote to, and what the run wrote "
                         "there is lost.",
                         k->what, k->path);
        else
            continue;
        if (k->path == s->error_dir)
            *error_dir_lost = true;
        else
            lost++;
    }
    return lost;
}

/* -save_error_data: whether files could not be saved, said once (how many, the first error),
 * or the folder they were saved in is gone (check_outputs said so). */
static bool error_data_lost(const run_state *s, bool dir_lost)
{
    if (dir_lost && !s->error_unsaved)
        pc_log_error("-save_error_data: the error data of this run (%zu files) is lost with its "
                     "folder; run again to save it.",
                     s->error_files);
    if (!s->error_unsaved)
        return dir_lost;
    pc_log_error("-save_error_data: %zu of the %zu error data files of this run could not be "
                 "saved in %s (the first: %s). The CSVs are complete; once that is mended (a full "
                 "disk: free space, or set another error_data_path) run again to save them.",
                 s->error_unsaved, s->error_files, s->error_dir, s->error_first);
    return true;
}

/* The header rows of a new run's two CSVs (created empty by claim_names). */
static pc_status write_headers(const run_state *s)
{
    pc_csv_buffer b = PC_CSV_BUFFER_INIT;
    pc_status st = pc_result_header_append(&b);
    if (st == PC_OK)
        st = pc_csv_append_file(s->result_path, &b);
    pc_csv_buffer_clear(&b);
    if (st == PC_OK)
        st = pc_details_header_append(&b);
    if (st == PC_OK)
        st = pc_csv_append_file(s->details_path, &b);
    pc_csv_buffer_free(&b);
    return st;
}

/* Creates path, which must not exist (O_EXCL); false with errno when it cannot. */
static bool create_new(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
    if (fd < 0)
        return false;
    close(fd);
    return true;
}

/*
 * A new run's two CSVs: msprobe's names with the run's start time, created empty here so that
 * no other run can take them. When either name is taken (two runs into one folder within the
 * same second), the next second's names are tried, so the names keep msprobe's pattern and a
 * new run never reads or appends to a file it did not create (msprobe would resume the other
 * run's files and lose this run's rows). *ts becomes the timestamp used.
 */
pc_status pc_run_claim_names(const char *out_dir, time_t start, char *ts, char *result,
                             size_t result_size, char *details, size_t details_size)
{
    for (int k = 0; k < 3600; k++) {
        time_t t = start + k;
        struct tm lt;
        localtime_r(&t, &lt);
        strftime(ts, 16, "%Y%m%d%H%M%S", &lt);
        snprintf(result, result_size, "%s/accuracy_checking_result_%s.csv", out_dir, ts);
        snprintf(details, details_size, "%s/accuracy_checking_details_%s.csv", out_dir, ts);
        if (!create_new(result)) {
            if (errno == EEXIST)
                continue;
            return pc_error_set(PC_ERR_IO, "%s: cannot create: %s", result, strerror(errno));
        }
        if (create_new(details)) {
            if (k > 0)
                pc_log_warning("%s already holds run_ut CSVs named for this run's start time: "
                               "this run writes its own under the next free time stamp, %s.",
                               out_dir, ts);
            return PC_OK;
        }
        int e = errno;
        unlink(result);
        if (e != EEXIST)
            return pc_error_set(PC_ERR_IO, "%s: cannot create: %s", details, strerror(e));
    }
    return pc_error_set(PC_ERR_IO,
                        "%s holds run_ut CSVs for every second of the hour after this run's "
                        "start; choose another -o",
                        out_dir);
}

/* -csv_path: the result file, its details twin, and the timestamp of its name. */
static pc_status resume_paths(run_state *s, const char *csv_path, char *ts)
{
    char resolved[PC_PATH_BUFFER_SIZE];
    pc_status st = pc_path_check(csv_path, PC_PATH_FILE, PC_PATH_READ | PC_PATH_WRITE, ".csv",
                                 resolved, sizeof resolved);
    if (st != PC_OK)
        return st;
    const char *base = strrchr(resolved, '/');
    base = base ? base + 1 : resolved;
    regex_t re;
    regcomp(&re, "^accuracy_checking_result_[0-9]{14}\\.csv$", REG_EXTENDED | REG_NOSUB);
    bool ok = regexec(&re, base, 0, NULL, 0) == 0;
    regfree(&re);
    if (!ok)
        return pc_error_set(PC_ERR_INVALID,
                            "When continue run ut, please do not modify the result csv name.");
    memcpy(ts, base + strlen("accuracy_checking_result_"), 14);
    ts[14] = 0;
    snprintf(s->result_path, sizeof s->result_path, "%s", resolved);
    size_t dir_len = (size_t)(base - resolved);
    snprintf(s->details_path, sizeof s->details_path, "%.*saccuracy_checking_details_%s.csv",
             (int)dir_len, resolved, ts);
    return pc_path_check(s->details_path, PC_PATH_FILE, PC_PATH_READ | PC_PATH_WRITE, ".csv", NULL,
                         0);
}

static pc_status error_data_dir(run_state *s, const char *base, const char *ts)
{
    pc_status st = pc_path_make_dir(base);
    char resolved[PC_PATH_BUFFER_SIZE];
    if (st == PC_OK)
        st = pc_path_check(base, PC_PATH_DIR, PC_PATH_WRITE, NULL, resolved, sizeof resolved);
    if (st != PC_OK)
        return st;
    snprintf(s->error_dir, sizeof s->error_dir, "%s/ut_error_data%s", resolved, ts);
    return pc_path_make_dir(s->error_dir);
}

/*
 * What is wrong with the whole dump rather than with its APIs, said once before anything is
 * written (otherwise every API would get the same SKIP row, and the run exit 0): a tensor-mode
 * dump.json copied without its dump_tensor_data folder, replay of a dump that recorded no
 * tensors. A dump of modules only (level L0) has nothing for run_ut: a warning.
 */
static pc_status check_dump_whole(const pc_dump *dump, bool replay)
{
    size_t files = 0;
    if (pc_dump_check_tensor_dir(dump, &files) != PC_OK)
        return PC_ERR_NOT_FOUND;
    if (replay && !files && dump->api_count > 0)
        return pc_error_set(PC_ERR_INVALID,
                            "--backend replay needs what the device computed, and %s recorded "
                            "no tensors (task \"%s\": statistics only). Dump with task "
                            "\"tensor\" and data_mode [\"all\"], or choose another backend "
                            "(docs/devices.md).",
                            dump->path, dump->task ? dump->task : "?");
    if (dump->api_count == 0 && dump->backward_count > 0)
        pc_log_warning("The dump holds %zu backward record%s%s and no forward record (written "
                       "with data_mode [\"backward\"]): run_ut runs each API from its forward "
                       "record (the inputs it was called with), so there is nothing to run. Dump "
                       "with data_mode [\"all\"] (or [\"forward\", \"backward\"]) for run_ut.",
                       dump->backward_count, dump->backward_count == 1 ? "" : "s",
                       dump->module_count ? " (and module records)" : "");
    else if (dump->api_count == 0 && dump->module_count > 0)
        pc_log_warning("The dump holds %zu module records and no API record (level \"%s\"): "
                       "run_ut checks APIs, so there is nothing to check. Dump with level "
                       "\"L1\" (or \"mix\") for run_ut.",
                       dump->module_count, dump->level ? dump->level : "?");
    return PC_OK;
}

static pc_status load_config(const pc_run_options *o, pc_config *cfg)
{
    cfg->precision = PC_CONFIG_DEFAULT_PRECISION;
    pc_status st = PC_OK;
    if (o->config_yaml)
        st = pc_config_load_yaml(cfg, o->config_yaml, pc_api_is_wrappable);
    if (st == PC_OK && o->config_path)
        st = pc_config_load_json(cfg, o->config_path, pc_api_is_wrappable);
    return st;
}

/* Which APIs run, in order: -f's dedup, minus the done set; the first unsafe name ends the
 * list (msprobe aborts the run there). *unsafe: that API, or NULL. */
static pc_status work_list(const pc_dump *dump, const bool *keep, const pc_name_set *done,
                           size_t **out, size_t *count, const pc_dump_api **unsafe)
{
    size_t *list = malloc((dump->api_count + 1) * sizeof *list);
    if (!list)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    size_t n = 0;
    *unsafe = NULL;
    for (size_t i = 0; i < dump->api_count; i++) {
        const pc_dump_api *api = &dump->apis[i];
        if (keep && !keep[i])
            continue;
        if (api->unsafe_name) {
            *unsafe = api;
            break;
        }
        if (pc_name_set_has(done, api->full_name, strlen(api->full_name)))
            continue;
        list[n++] = i;
    }
    *out = list;
    *count = n;
    return PC_OK;
}

/* --shard K/N: keep (allocated when NULL) narrowed to the APIs of shard K. The split is over
 * the APIs the run would take (-f's choice), whatever a resume has done already, so a resumed
 * shard is the same shard. An API whose name stops the run stays in every shard, so each
 * shard stops there as the whole run would. */
static pc_status shard_keep(const pc_dump *dump, const pc_run_options *o, bool **keep)
{
    uint32_t *shard_of = malloc((dump->api_count + 1) * sizeof *shard_of);
    if (!*keep) {
        *keep = malloc((dump->api_count + 1) * sizeof **keep);
        for (size_t i = 0; *keep && i < dump->api_count; i++)
            (*keep)[i] = true;
    }
    if (!shard_of || !*keep) {
        free(shard_of);
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    }
    pc_status st = pc_shard_assign(dump, *keep, o->shard_count, shard_of, NULL);
    size_t mine = 0;
    for (size_t i = 0; st == PC_OK && i < dump->api_count; i++) {
        bool stop = dump->apis[i].unsafe_name && (*keep)[i];
        (*keep)[i] = stop || shard_of[i] == o->shard_index - 1;
        mine += (*keep)[i];
    }
    free(shard_of);
    if (st == PC_OK)
        pc_log_info("Shard %u/%u: %zu of the dump's %zu APIs.", o->shard_index, o->shard_count,
                    mine, dump->api_count);
    return st;
}

/* run_ut's default number of workers for the reference device: one per core, since the CSVs
 * are the same with any number (docs/PERFORMANCE.md, "Threads") and a dump of many medium APIs
 * keeps one core busy per worker (kernels on small tensors gain little from threads) -- but
 * one worker with every core when a single API is more than half of a worker's share of the
 * dump's cost (runner/cost.h: its own threads then matter more), and no more workers than the
 * memory the APIs in flight may use together holds the largest API's estimate, so that no API
 * becomes a memory SKIP that one worker would have run. */
static int auto_workers(const pc_dump *dump, const size_t *list, size_t count, size_t mem_limit,
                        int cores)
{
    if (cores > PC_RUN_MAX_WORKERS)
        cores = PC_RUN_MAX_WORKERS;
    if ((size_t)cores > count)
        cores = count > 0 ? (int)count : 1;
    uint64_t total = 0, heaviest = 0;
    size_t largest = 0;
    for (size_t k = 0; k < count; k++) {
        const pc_dump_api *api = &dump->apis[list[k]];
        uint64_t ps = pc_api_cost_of(api).ps;
        total = total + ps < total ? UINT64_MAX : total + ps;
        heaviest = ps > heaviest ? ps : heaviest;
        size_t need = pc_api_memory_estimate(api);
        largest = need > largest ? need : largest;
    }
    int n = cores;
    if (n > 1 && (double)heaviest * 2.0 * n > (double)total)
        n = 1;
    if (n > 1 && mem_limit > 0 && largest > 0 && mem_limit / largest < (size_t)n)
        n = mem_limit / largest > 1 ? (int)(mem_limit / largest) : 1;
    return n;
}

/* The cores this process may use: those it is bound to; under mpirun without binding (each
 * rank may use every core), its share of them among the ranks on this machine. */
static int rank_cores(const pc_mpi *mpi)
{
    cpu_set_t set;
    int cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (mpi->active && mpi->local_size > 1 && cores >= online)
        cores /= mpi->local_size;
    return cores > 0 ? cores : 1;
}

/* The devices of this rank's workers under mpirun (host's ids; *base: the first worker's
 * index among them): without -d, the device of the rank's place on its machine (local rank
 * k: device k); with -d, the ids in turn across the machine's ranks and their workers. */
static void rank_devices(const pc_mpi *mpi, const pc_run_options *o, pc_backend_host *host,
                         int *local_ids, int *base)
{
    *base = 0;
    if (!mpi->active)
        return;
    if (o->device_count == 0) {
        local_ids[0] = mpi->local_rank;
        host->device_ids = local_ids;
        host->device_count = 1;
        return;
    }
    *base = mpi->local_rank * (o->workers > 0 ? o->workers : 1);
}

/* What the APIs in flight may use together: --max-memory, else 90% of the memory available
 * now (the caller shares it among the workers). */
static size_t api_limit(double max_memory_mb)
{
    if (max_memory_mb > 0)
        return (size_t)(max_memory_mb * 1048576.0);
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            break;
    fclose(f);
    return (size_t)((double)kb * 1024.0 * 0.9);
}

static int fail(const char *what)
{
    pc_log_error("%s", what);
    return 1;
}

/* The device under test (--backend NAME[:OPTIONS], on this rank's devices; *worker_base: its
 * first worker's index among them) and the bench. */
static pc_status open_backends(const pc_mpi *mpi, const pc_run_options *o, pc_backend *device,
                               pc_backend *bench, int *worker_base)
{
    pc_backend_host host = {
        .device_ids = o->device_ids,
        .device_count = o->device_count,
        .workers = o->workers,
        .jit_compile = o->jit_compile,
        .python = o->python,
    };
    int local_ids[1];
    rank_devices(mpi, o, &host, local_ids, worker_base);
    pc_status st = pc_backend_open_spec(device, o->backend ? o->backend : "cpu", &host);
    if (st == PC_OK)
        st = pc_backend_open(bench, pc_backend_find("bench"), o->bench_policy, NULL);
    return st;
}

/* What runs each API (api.c), as o says: memory per worker from mem_limit, error data into
 * error_dir (NULL: none), the bench policy and cache. */
static pc_api_runner runner_of(const pc_run_options *o, const pc_dump *dump, pc_backend *device,
                               pc_backend *bench, const pc_api_lists *lists, const char *error_dir,
                               size_t mem_limit)
{
    pc_api_runner r = {
        .dump = dump,
        .device = device,
        .bench = bench,
        .policy = PC_BENCH_MSPROBE,
        .seed = o->seed,
        .lists = lists,
        .error_data_dir = error_dir,
        .timing = o->workers == 0 ? o->timing : NULL,
        .max_tensor_bytes = pc_inputs_default_max_bytes(),
        .max_api_bytes = mem_limit / (size_t)(o->workers > 1 ? o->workers : 1),
    };
    if (o->bench_policy)
        pc_bench_policy_from_name(o->bench_policy, &r.policy);
    if (o->bench_cache) {
        r.bench_cache = o->bench_cache;
        r.bench_key = o->bench_policy ? o->bench_policy : "msprobe";
    }
    return r;
}

/* The command that resumes the run: its whole command with -csv_path <result CSV>. */
static void resume_command_of(const pc_run_options *o, const char *result, char *command,
                              size_t size)
{
    if (o->argc > 0) {
        pc_run_command_line(command, size, o->argc, o->argv, result);
    } else {
        char *const argv[] = {o->multi ? "multi_run_ut" : "run_ut", "-api_info",
                              (char *)(uintptr_t)o->api_info};
        pc_run_command_line(command, size, 3, argv, result);
    }
}

/* The lines that tell how to go on with an unfinished run (command is overwritten). */
static void log_resume_command(const pc_run_options *o, const pc_mpi *mpi, const char *result,
                               char *command, size_t size)
{
    pc_log_warning("The UT task has not been completed. The parameter '-csv_path' along with "
                   "the path to the result CSV file will be utilized to resume the UT task.");
    resume_command_of(o, result, command, size);
    pc_log_warning("To resume: %s%s", mpi->active ? "mpirun ... " : "", command);
}

/* ---- run_main: rank 0's run (or the only one) in its phases ----
 * inputs -> claim (or resume) -> plan (with the other ranks under mpirun) -> run -> finish,
 * each on one run_ctx that run_free alone releases. A phase returns false when the run
 * stops, having said why; run_main then ends with r->rc (1 unless a phase set another). */

/* The error message of a phase that stops the run: logged; false. */
static bool stop(const char *what)
{
    pc_log_error("%s", what);
    return false;
}

typedef struct run_ctx {
    pc_run_options opts; /* the options as given; workers settled once the dump is read */
    pc_mpi *mpi;
    int rc; /* the exit status when a phase stops the run */
    double wall0;
    time_t start;
    char ts[16]; /* the run's timestamp in its file names */
    /* inputs */
    pc_config cfg;
    pc_backend device, bench;
    int worker_base; /* this rank's first worker among its devices */
    char device_line[1024];
    char dump_path[PC_PATH_BUFFER_SIZE];
    pc_dump *dump;
    bool *keep; /* -filter_api and --shard: the APIs kept (NULL: all) */
    char out_dir[PC_PATH_BUFFER_SIZE];
    pc_api_lists lists;
    pc_run_identity *ident;
    /* claim or resume */
    run_state s;
    bool resume;
    bool created; /* this run made its CSVs (removed again if it fails before a row) */
    pc_run_lock lock;
    char command[4096];
    char record[PC_PATH_BUFFER_SIZE + 80];
    char record_path[PC_PATH_BUFFER_SIZE + 80]; /* the record this run wrote ("": none) */
    pc_name_set done;
    size_t *list, count; /* the APIs to run, in dump order */
    const pc_dump_api *unsafe;
    /* plan */
    int cores;
    size_t mem_limit;
    pc_api_runner runner;
    pc_pool_job job;
    int *slots;   /* under mpirun: the positions each rank takes at once */
    bool planned; /* under mpirun: the other ranks know the plan */
    char summary_path[PC_PATH_BUFFER_SIZE + 80];
    /* run */
    bool ran; /* the APIs started running */
    size_t written;
} run_ctx;

/* The settings, the backends (opened before anything is written: a backend that cannot run
 * leaves no half-made CSVs behind; what must not cross fork starts in the workers), the dump
 * and its checks, -filter_api and --shard, the output folder and the run's identity. */
static bool run_inputs(run_ctx *r)
{
    const pc_run_options *o = &r->opts;
    if (load_config(o, &r->cfg) != PC_OK)
        return stop(pc_error_message());
    if (r->mpi->active && r->opts.workers <= 0 && !r->opts.workers_auto) {
        pc_log_warning("Under mpirun every rank runs its APIs in worker processes: --jobs 0 "
                       "is taken as 1.");
        r->opts.workers = 1;
    }
    if (!o->api_info || !*o->api_info) {
        pc_log_error("Please provide api_info_file for offline run ut.");
        return false;
    }
    if (open_backends(r->mpi, o, &r->device, &r->bench, &r->worker_base) != PC_OK)
        return stop(pc_error_message());
    pc_backend_describe(&r->device, r->device_line, sizeof r->device_line);
    pc_log_info("%s", r->device_line);
    double t0 = pc_clock_seconds();
    if (pc_path_check(o->api_info, PC_PATH_FILE, PC_PATH_READ, ".json", r->dump_path,
                      sizeof r->dump_path) != PC_OK ||
        pc_dump_open(&r->dump, r->dump_path) != PC_OK)
        return stop(pc_error_message());
    if (o->timing)
        o->timing->parse += pc_clock_seconds() - t0;
    if (r->dump->data_empty)
        pc_log_warning("data field is empty, no overflow data found.");
    if (check_dump_whole(r->dump, r->device.vt == &pc_backend_replay) != PC_OK)
        return stop(pc_error_message());
    if (o->filter_api) {
        pc_log_info("Start filtering the api in the api_info_file.");
        r->keep = calloc(r->dump->api_count + 1, sizeof *r->keep);
        if (!r->keep || pc_dump_filter_dedup(r->dump, r->keep, NULL) != PC_OK)
            return stop(r->keep ? pc_error_message() : "out of memory");
        pc_log_info("Finish filtering the api in the api_info_file.");
    }
    if (o->shard_count > 1 && shard_keep(r->dump, o, &r->keep) != PC_OK)
        return stop(pc_error_message());
    const char *out_path = o->out_path && *o->out_path ? o->out_path : "./";
    if (pc_path_make_dir(out_path) != PC_OK ||
        pc_path_check(out_path, PC_PATH_DIR, PC_PATH_WRITE, NULL, r->out_dir, sizeof r->out_dir) !=
            PC_OK)
        return stop(pc_error_message());
    r->lists =
        (pc_api_lists){(const char *const *)r->cfg.white_list.items, r->cfg.white_list.count,
                       (const char *const *)r->cfg.black_list.items, r->cfg.black_list.count};
    r->ident = malloc(sizeof *r->ident);
    if (!r->ident ||
        pc_run_identity_make(r->ident, o, r->dump_path, &r->lists, r->cfg.precision) != PC_OK)
        return stop(r->ident ? pc_error_message() : "out of memory");
    return true;
}

/* The run's files: a new run claims its names (and the error-data folder), takes the run's
 * lock and writes the headers; -csv_path takes the lock of the run it resumes and checks its
 * record. Then both repair what an interrupted run left, list the APIs still to run and (a new
 * run) write the record that resumes it. */
static bool run_claim(run_ctx *r)
{
    const pc_run_options *o = &r->opts;
    run_state *s = &r->s;
    pc_run_command_line(r->command, sizeof r->command, o->argc, o->argv, NULL);
    const char *error_base = r->cfg.error_data_path ? r->cfg.error_data_path : "./";
    r->resume = o->csv_path && *o->csv_path;
    if (r->resume) {
        bool found = false;
        /* the run's lock before a byte is read: a live run or another resume appends to it */
        if (resume_paths(s, o->csv_path, r->ts) != PC_OK ||
            pc_run_lock_take(&r->lock, s->result_path) != PC_OK)
            return stop(pc_error_message());
        const char *slash = strrchr(s->result_path, '/');
        char dir[PC_PATH_BUFFER_SIZE + 64];
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - s->result_path) : 1,
                 slash ? s->result_path : ".");
        pc_run_identity_path(r->record, sizeof r->record, dir, r->ts);
        if (pc_run_identity_check(r->ident, r->record, s->result_path, &found) != PC_OK)
            return stop(pc_error_message());
        if (!found)
            pc_log_warning("%s has no precheck run record beside it (a CSV msprobe wrote, or an "
                           "older precheck): resuming as msprobe does, without checking that "
                           "the dump and the settings are the run's.",
                           s->result_path);
        if (o->save_error_data && error_data_dir(s, error_base, r->ts) != PC_OK)
            return stop(pc_error_message());
    } else {
        if (pc_run_claim_names(r->out_dir, r->start, r->ts, s->result_path, sizeof s->result_path,
                               s->details_path, sizeof s->details_path) != PC_OK)
            return stop(pc_error_message());
        r->created = true;
        if (pc_run_lock_take(&r->lock, s->result_path) != PC_OK)
            return stop(pc_error_message());
        /* the error-data folder first, so that the record says where it is (precheck report
         * finds the tensors there) */
        if (o->save_error_data && error_data_dir(s, error_base, r->ts) != PC_OK)
            return stop(pc_error_message());
        if (o->save_error_data)
            pc_run_identity_note(r->ident, "error_data", s->error_dir);
        pc_run_identity_path(r->record, sizeof r->record, r->out_dir, r->ts);
    }
    if (!o->multi)
        pc_log_info("start UT test");
    pc_log_info("UT task result will be saved in %s", s->result_path);
    pc_log_info("UT task details will be saved in %s", s->details_path);
    if (o->save_error_data)
        pc_log_info("UT task error_data will be saved in %s", s->error_dir);
    if (!r->resume && write_headers(s) != PC_OK)
        return stop(pc_error_message());
    size_t repaired = 0;
    if (pc_resume_prepare(s->result_path, s->details_path, &r->done, &repaired, &r->lock) != PC_OK)
        return stop(pc_error_message());
    if (repaired)
        pc_log_warning("%zu record(s) that an interrupted run left incomplete were removed from "
                       "%s and %s; those APIs run again.",
                       repaired, s->result_path, s->details_path);
    if (work_list(r->dump, r->keep, &r->done, &r->list, &r->count, &r->unsafe) != PC_OK)
        return stop(pc_error_message());
    /* the workers for the work list (--jobs auto from the dump), decided before the record is
     * written: it says how many ran */
    r->cores = rank_cores(r->mpi);
    r->mem_limit = api_limit(o->max_memory_mb) / (size_t)r->mpi->local_size;
    if (o->workers_auto) {
        r->opts.workers = auto_workers(r->dump, r->list, r->count, r->mem_limit, r->cores);
        pc_log_info("%d worker process%s%s (--jobs N to choose).", o->workers,
                    o->workers == 1 ? "" : "es", r->mpi->active ? " on each rank" : "");
    }
    char workers[16];
    snprintf(workers, sizeof workers, "%d", o->workers);
    pc_run_identity_note(r->ident, "workers", workers);
    if (r->created) {
        /* the record, with the command that resumes the run and how many APIs it writes: a run
         * killed with SIGKILL leaves both (run_ut --resume DIR reads them) */
        char resume_command[4096];
        resume_command_of(o, s->result_path, resume_command, sizeof resume_command);
        pc_run_record_resume rr = {resume_command, o->argc, o->argv, r->count};
        snprintf(r->record_path, sizeof r->record_path, "%s", r->record);
        if (pc_run_record_write(r->ident, r->record, r->command, &rr) != PC_OK)
            return stop(pc_error_message());
    }
    return true;
}

/* Under mpirun: the other ranks learn the plan and say whether they can take part; false
 * when the run does not begin (the reason said). */
static bool run_plan_ranks(run_ctx *r)
{
    pc_mpi *mpi = r->mpi;
    int go = 1;
    r->slots = calloc((size_t)mpi->size, sizeof *r->slots);
    if (!r->slots)
        return stop("out of memory");
    r->planned = true;
    if (pc_mpi_plan_share(mpi, &go, &r->list, &r->count, r->s.error_dir, sizeof r->s.error_dir) !=
        PC_OK) {
        fail(pc_error_message());
        go = 0;
    }
    pc_mpi_slots_gather(mpi, 0, r->slots);
    for (int k = 1; k < mpi->size; k++)
        if (r->slots[k] < 0) {
            pc_log_error("Rank %d of the MPI job could not start (its message is above): "
                         "the run stops before it begins.",
                         k);
            go = 0;
        }
    pc_mpi_go_share(mpi, &go);
    if (!go)
        return false;
    pc_log_info("MPI: %d ranks on %s; rank 0 writes the CSVs.", mpi->size,
                mpi->size == mpi->local_size ? "this machine" : "several machines");
    r->job.mpi = mpi;
    r->job.slots = r->slots;
    r->job.cores = r->cores;
    r->job.worker_base = r->worker_base;
    return true;
}

/* How the APIs run: the workers (--jobs auto from the dump), the memory per API, the runner
 * and its bench cache, the ranks under mpirun, the sinks the results go to and the progress. */
static bool run_plan(run_ctx *r)
{
    const pc_run_options *o = &r->opts;
    run_state *s = &r->s;
    r->runner = runner_of(o, r->dump, &r->device, &r->bench, &r->lists,
                          o->save_error_data ? s->error_dir : NULL, r->mem_limit);
    if (o->bench_cache && pc_cache_dir_check(o->bench_cache) != PC_OK)
        return stop(pc_error_message());
    r->job = (pc_pool_job){.runner = &r->runner,
                           .opt = o,
                           .dump = r->dump,
                           .apis = r->list,
                           .count = r->count,
                           .interrupted = &interrupted};
    if (r->mpi->active && !run_plan_ranks(r))
        return false;
    const char *slash = strrchr(s->result_path, '/');
    snprintf(r->summary_path, sizeof r->summary_path, "%.*s/precheck_summary_%s.json",
             slash ? (int)(slash - s->result_path) : 1, slash ? s->result_path : ".", r->ts);
    if (pc_sink_csv_open(&s->sinks[0], s->result_path, s->details_path, r->cfg.precision) !=
            PC_OK ||
        pc_sink_summary_new(&s->sinks[1]) != PC_OK ||
        pc_sink_json_new(&s->sinks[2], r->summary_path, r->resume) != PC_OK)
        return stop(pc_error_message());
    s->nsinks = 3;
    s->done_before = 0;
    s->total = r->count;
    if (o->multi) {
        if (o->save_error_data)
            pc_log_info("UT task error data will be saved");
        pc_log_info("Starting parallel UT with %d processes", o->workers);
    }
    if (o->progress && isatty(STDERR_FILENO)) {
        s->progress = pc_progress_new(o->multi ? "Total items" : "Processing", r->count, stderr);
    } else if (o->progress) {
        s->log_progress = true;
        s->interval = o->progress_interval_s > 0 ? o->progress_interval_s : 30.0;
        s->started = s->last = pc_clock_seconds();
    }
    return true;
}

/* The APIs, in the worker pool, with SIGINT and SIGTERM caught (an interrupted run ends its
 * files and says how to resume). False when a write failed (a full disk) or the pool did. */
static bool run_apis(run_ctx *r)
{
    run_state *s = &r->s;
    struct sigaction old_int, old_term;
    catch_interrupts(&old_int, &old_term);
    r->ran = true;
    note_outputs(s);
    pc_status st = pc_pool_run(&r->job, on_result, s, &r->written);
    free(r->slots);
    r->slots = NULL;
    end_interrupts(&old_int, &old_term);
    if (s->progress)
        pc_progress_finish(s->progress);
    pc_path_set_file_mode(s->result_path);
    pc_path_set_file_mode(s->details_path);
    if (s->write_error[0]) { /* a full disk: said once, with what was written and how to go on */
        pc_log_error("%s: %zu of %zu APIs were written; the run stops here.", s->write_error,
                     s->written_ok, r->count);
        log_resume_command(&r->opts, r->mpi, s->result_path, r->command, sizeof r->command);
        return false;
    }
    if (st != PC_OK)
        return stop(pc_error_message());
    return true;
}

/* The sinks' end (the summary in the log, summary.json) for a finished or interrupted run,
 * what went missing meanwhile, and the exit status: 0, 130 (interrupted), 1 or
 * PC_EXIT_FAILED_CHECK (--fail-on). */
static int run_finish(run_ctx *r)
{
    const pc_run_options *o = &r->opts;
    run_state *s = &r->s;
    char started[32];
    struct tm slt;
    localtime_r(&r->start, &slt);
    strftime(started, sizeof started, "%Y-%m-%d %H:%M:%S", &slt);
    size_t written = r->written, count = r->count;
    if (pc_locations_load_for_dump(&s->locations, r->dump_path) != PC_OK)
        s->locations = NULL; /* out of memory: the summaries go without places */
    pc_run_end end = {
        .locations = s->locations,
        .command = r->command,
        .device = r->device_line,
        .dump = r->dump_path,
        .result_csv = s->result_path,
        .details_csv = s->details_path,
        .summary_json = r->summary_path,
        .identity_json = r->record,
        .started = started,
        .seconds = pc_clock_seconds() - r->wall0,
        .total = count,
        .done = written,
        .done_before = r->done.count,
        .interrupted = written < count,
        .error_data_dir = o->save_error_data ? s->error_dir : NULL,
        .error_data_files = s->error_files,
        .error_data_unsaved = s->error_unsaved,
        .error_data_error = s->error_unsaved ? s->error_first : NULL,
    };
    bool error_dir_lost = false;
    int lost = check_outputs(s, &error_dir_lost);
    if (written < count) {
        finish_sinks(s, &end, lost == 0);
        pc_log_warning("Interrupted by %s: %zu of %zu APIs were written.",
                       interrupted == SIGTERM ? "SIGTERM" : "user", written, count);
        log_resume_command(o, r->mpi, s->result_path, r->command, sizeof r->command);
        error_data_lost(s, error_dir_lost);
        return 130;
    }
    if (r->unsafe) {
        pc_log_error("api name contains special characters, please check!");
        return 1;
    }
    if (lost) {
        finish_sinks(s, &end, false);
        pc_log_error("The run's results are lost: %zu API(s) were written into the folder or "
                     "files named above, which are gone now. Run again with -o a folder that "
                     "nothing deletes or moves during the run.",
                     written);
        return 1;
    }
    pc_log_info("UT task result csv is saved in %s", s->result_path);
    pc_log_info("UT task details csv is saved in %s", s->details_path);
    finish_sinks(s, &end, true);
    if (error_data_lost(s, error_dir_lost))
        return 1;
    if (o->bench_cache)
        pc_cache_finish(o->bench_cache, o->bench_cache_max);
    pc_log_info("Successfully completed run_ut/multi_run_ut.");
    if (!o->multi)
        pc_log_info("UT task completed.");
    pc_run_log_next_step(o->out_path);
    if (o->junit) {
        if (pc_report_junit_write(s->result_path, o->junit, o->fail_on == PC_FAIL_WARNING) !=
            PC_OK) {
            pc_log_error("%s", pc_error_message());
            return 1;
        }
        pc_log_info("JUnit XML: %s", o->junit);
    }
    if (pc_sink_summary_fails(&s->sinks[1], (pc_fail_level)o->fail_on)) {
        pc_log_warning("--fail-on %s: the run found APIs with %s; exit status %d.",
                       o->fail_on == PC_FAIL_WARNING ? "warning" : "error",
                       o->fail_on == PC_FAIL_WARNING ? "an error or a Warning" : "an error",
                       PC_EXIT_FAILED_CHECK);
        return PC_EXIT_FAILED_CHECK;
    }
    return 0;
}

/* The one cleanup, whatever phase the run reached (rc: its exit status). */
static void run_free(run_ctx *r, int rc)
{
    if (r->mpi->active && !r->planned) { /* the other ranks wait for the plan: there is none */
        int go = 0;
        pc_mpi_plan_share(r->mpi, &go, NULL, NULL, NULL, 0);
    }
    for (int i = 0; i < r->s.nsinks; i++)
        pc_sink_free(&r->s.sinks[i]);
    pc_locations_free(r->s.locations);
    if (r->created && !r->ran && rc != 0) { /* nothing half-made left behind */
        unlink(r->s.result_path);
        unlink(r->s.details_path);
        if (r->record_path[0])
            unlink(r->record_path);
    }
    pc_run_lock_release(&r->lock);
    free(r->ident);
    free(r->slots);
    pc_progress_free(r->s.progress);
    pc_backend_close(&r->device);
    pc_backend_close(&r->bench);
    pc_name_set_free(&r->done);
    free(r->list);
    free(r->keep);
    pc_dump_free(r->dump);
    pc_config_free(&r->cfg);
}

static int run_main(const pc_run_options *given, pc_mpi *mpi)
{
    run_ctx r = {.opts = *given, .mpi = mpi, .rc = 1, .lock = PC_RUN_LOCK_INIT};
    r.wall0 = pc_clock_seconds();
    r.start = time(NULL);
    struct tm lt;
    localtime_r(&r.start, &lt);
    strftime(r.ts, sizeof r.ts, "%Y%m%d%H%M%S", &lt);
    r.s.opt = &r.opts;
    if (run_inputs(&r) && run_claim(&r) && run_plan(&r) && run_apis(&r))
        r.rc = run_finish(&r);
    run_free(&r, r.rc);
    return r.rc;
}

/* A rank other than 0 under mpirun: the same settings, dump and backends as rank 0, and the
 * APIs rank 0 hands out, run in workers of its own (pc_pool_serve); rank 0 writes everything.
 * The run's messages are rank 0's: this rank says only what goes wrong on it, with its
 * rank. */
static int run_rank(const pc_run_options *given, pc_mpi *mpi)
{
    pc_run_options opts = *given;
    const pc_run_options *o = &opts;
    if (opts.workers <= 0 && !opts.workers_auto)
        opts.workers = 1;
    pc_log_level level = pc_log_get_level();
    pc_log_set_level(level > PC_LOG_ERROR ? level : PC_LOG_ERROR);
    pc_config cfg = {0};
    pc_dump *dump = NULL;
    pc_backend device = {0}, bench = {0};
    size_t *list = NULL, count = 0;
    char error_dir[PC_PATH_BUFFER_SIZE + 64] = "";
    char dump_path[PC_PATH_BUFFER_SIZE];
    int worker_base = 0;
    bool ok = load_config(o, &cfg) == PC_OK &&
              open_backends(mpi, o, &device, &bench, &worker_base) == PC_OK &&
              pc_path_check(o->api_info, PC_PATH_FILE, PC_PATH_READ, ".json", dump_path,
                            sizeof dump_path) == PC_OK &&
              pc_dump_open(&dump, dump_path) == PC_OK;
    char why[1024] = "";
    if (!ok)
        snprintf(why, sizeof why, "%s", pc_error_message());
    int go = 1;
    if (pc_mpi_plan_share(mpi, &go, &list, &count, error_dir, sizeof error_dir) != PC_OK) {
        snprintf(why, sizeof why, "%s", pc_error_message());
        ok = false;
    }
    if (!go) /* rank 0 could not start the run; it said why (most likely the same) */
        goto out;
    if (!ok)
        pc_log_error("Rank %d: %s", mpi->rank, why);
    for (size_t k = 0; ok && k < count; k++)
        if (list[k] >= dump->api_count) {
            pc_log_error("Rank %d: %s holds %zu APIs, fewer than rank 0's copy of the dump: "
                         "every rank must read the same dump.json (a shared file system).",
                         mpi->rank, dump_path, dump->api_count);
            ok = false;
        }
    int cores = rank_cores(mpi);
    size_t mem_limit = api_limit(o->max_memory_mb) / (size_t)mpi->local_size;
    if (ok && o->workers_auto)
        opts.workers = auto_workers(dump, list, count, mem_limit, cores);
    pc_api_lists lists = {(const char *const *)cfg.white_list.items, cfg.white_list.count,
                          (const char *const *)cfg.black_list.items, cfg.black_list.count};
    pc_api_runner runner =
        runner_of(o, dump, &device, &bench, &lists, error_dir[0] ? error_dir : NULL, mem_limit);
    /* as many positions at once as two per worker: the next is here when one finishes */
    pc_mpi_slots_gather(mpi, ok ? 2 * (o->workers > 1 ? o->workers : 1) : -1, NULL);
    pc_mpi_go_share(mpi, &go);
    if (!go)
        goto out;
    pc_log_set_level(level);
    struct sigaction old_int, old_term;
    catch_interrupts(&old_int, &old_term);
    pc_pool_job job = {&runner, o, dump, list, count, &interrupted, mpi, NULL, cores, worker_base};
    if (pc_pool_serve(&job) != PC_OK) {
        pc_log_error("Rank %d: %s", mpi->rank, pc_error_message());
        mpi->broken = true;
    }
    end_interrupts(&old_int, &old_term);
out:
    pc_log_set_level(level);
    pc_backend_close(&device);
    pc_backend_close(&bench);
    free(list);
    pc_dump_free(dump);
    pc_config_free(&cfg);
    return 1; /* every rank ends with rank 0's status (pc_mpi_finish) */
}

int pc_run_ut(const pc_run_options *o)
{
    pc_mpi mpi;
    if (pc_mpi_start(&mpi) != PC_OK)
        return fail(pc_error_message());
    struct sigaction old_alarm;
    sigaction(SIGALRM, NULL, &old_alarm);
    int rc = mpi.rank == 0 ? run_main(o, &mpi) : run_rank(o, &mpi);
    alarm(0); /* the run ended within the grace after a signal (on_signal) */
    sigaction(SIGALRM, &old_alarm, NULL);
    return pc_mpi_finish(&mpi, rc);
}
