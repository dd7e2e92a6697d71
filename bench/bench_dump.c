/*
 * dump.json -> all api records: throughput (MB/s) and peak memory / file size, against a
 * plain read of the same file measured in the same run, and (when <jsmn.h> is installed, the
 * Debian package libjsmn-dev) against the jsmn tokenizer with parent links over an mmap of the
 * file, which builds no records at all.
 *
 * usage: bench_dump FILE.json [repeats=3]
 *        bench_dump --pairs N [repeats=3]   generate a synthetic dump of N linear
 *                                           forward+backward pairs first (dump_synth.h;
 *                                           100000 pairs ~ 240 MB; e.g. 200 for a CI smoke run)
 *
 * "precheck tokens" is precheck's own tokenizer over the whole file as one document, the same
 * job as jsmn's (plus string decoding, number conversion, validation); "all records" is the
 * dump reader, which tokenises entry by entry and builds every record.
 *
 * Every measurement runs in a child process of its own, so that its peak resident set
 * (getrusage ru_maxrss) is its own; the best time of the repeats is printed, as wall time and
 * as the child's CPU time (user + system), which a busy machine disturbs less. Items: bytes
 * read, jsmn tokens, precheck entries (forward + backward).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dump_synth.h"
#include "precheck/dump/dump.h"
#include "precheck/io/json.h"

#if defined(__has_include)
#if __has_include(<jsmn.h>)
#define HAVE_JSMN 1
#define JSMN_PARENT_LINKS
#define JSMN_STATIC
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wunused-function"
#include <jsmn.h>
#pragma GCC diagnostic pop
#endif
#endif

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct result {
    double seconds;
    double cpu_seconds; /* user + system time of the child: less noisy on a busy machine */
    long maxrss_kb;
    long long items; /* what the parser produced: records or tokens */
    int ok;
} result;

typedef int (*work_fn)(const char *path, size_t size, long long *items);

static int work_read(const char *path, size_t size, long long *items)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    char *buf = malloc(size ? size : 1);
    size_t got = 0;
    while (buf && got < size) {
        ssize_t n = read(fd, buf + got, size - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    long long sum = 0;
    for (size_t i = 0; buf && i < got; i += 4096)
        sum += buf[i];
    *items = (long long)got + (sum & 0);
    free(buf);
    return got == size ? 0 : -1;
}

static int work_precheck(const char *path, size_t size, long long *items)
{
    pc_dump *d;
    if (pc_dump_open(&d, path) != PC_OK) {
        fprintf(stderr, "bench_dump: %s\n", pc_error_message());
        return -1;
    }
    *items = (long long)(d->api_count + d->backward_count);
    pc_dump_free(d);
    return 0;
}

/* precheck's tokenizer alone over the whole file as one document: the same work as jsmn plus
 * string decoding, number conversion and full validation, but no records. */
static int work_pc_tokens(const char *path, size_t size, long long *items)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    char *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return -1;
    pc_json_doc *doc;
    int rc = pc_json_parse(&doc, map, size, path) == PC_OK ? 0 : -1;
    if (rc == 0) {
        /* every value and key is one token, numbered from 0 */
        long long n = 0;
        while (pc_json_type_of(doc, (pc_json_ref)n) != PC_JSON_INVALID)
            n++;
        *items = n;
        pc_json_free(doc);
    }
    munmap(map, size);
    return rc;
}

#ifdef HAVE_JSMN
static int work_jsmn(const char *path, size_t size, long long *items)
{
    if (size > 0x7fffffff) {
        fprintf(stderr, "bench_dump: jsmn takes at most 2 GiB (int offsets)\n");
        return -1;
    }
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    char *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return -1;
    jsmn_parser p;
    jsmn_init(&p);
    int n = jsmn_parse(&p, map, size, NULL, 0); /* counting pass */
    int rc = -1;
    if (n > 0) {
        jsmntok_t *tok = malloc((size_t)n * sizeof *tok);
        if (tok) {
            jsmn_init(&p);
            int m = jsmn_parse(&p, map, size, tok, (unsigned)n);
            *items = m;
            rc = m == n ? 0 : -1;
            free(tok);
        }
    }
    munmap(map, size);
    return rc;
}
#endif

static result measure(work_fn fn, const char *path, size_t size)
{
    result r = {0};
    int fds[2];
    if (pipe(fds) != 0)
        return r;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        result c = {0};
        double t0 = now_s();
        c.ok = fn(path, size, &c.items) == 0;
        c.seconds = now_s() - t0;
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        c.maxrss_kb = ru.ru_maxrss;
        c.cpu_seconds = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
                        (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
        ssize_t w = write(fds[1], &c, sizeof c);
        _exit(w == (ssize_t)sizeof c ? 0 : 1);
    }
    close(fds[1]);
    if (pid > 0) {
        ssize_t got = read(fds[0], &r, sizeof r);
        if (got != (ssize_t)sizeof r)
            r.ok = 0;
        int status;
        waitpid(pid, &status, 0);
    }
    close(fds[0]);
    return r;
}

static result best_of(work_fn fn, const char *path, size_t size, int repeats)
{
    result best = {0};
    for (int i = 0; i < repeats; i++) {
        result r = measure(fn, path, size);
        if (!r.ok)
            return r;
        if (!best.ok || r.seconds < best.seconds)
            best = r;
    }
    return best;
}

static void report(const char *what, result r, size_t size, double read_s)
{
    if (!r.ok) {
        printf("%-26s failed\n", what);
        return;
    }
    double mb = (double)size / 1e6;
    printf("%-26s %7.3f s %7.1f MB/s  cpu %7.3f s %7.1f MB/s  peak %7.1f MB = %4.2f x file  "
           "(%.2f x read)  %lld\n",
           what, r.seconds, mb / r.seconds, r.cpu_seconds,
           r.cpu_seconds > 0 ? mb / r.cpu_seconds : 0.0, (double)r.maxrss_kb / 1024.0,
           (double)r.maxrss_kb * 1024.0 / (double)size, r.seconds / read_s, r.items);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE.json [repeats] | %s --pairs N [repeats]\n", argv[0],
                argv[0]);
        return 2;
    }
    char tmp[] = "/tmp/bench_dump_XXXXXX";
    const char *path = argv[1];
    int argi = 2;
    int generated = 0;
    if (strcmp(argv[1], "--pairs") == 0) {
        if (argc < 3)
            return 2;
        long pairs = strtol(argv[2], NULL, 10);
        argi = 3;
        int fd = mkstemp(tmp);
        if (fd < 0) {
            perror("mkstemp");
            return 1;
        }
        FILE *f = fdopen(fd, "wb");
        if (!f || synth_dump_write(f, pairs, 1) != 0 || fclose(f) != 0) {
            perror(tmp);
            unlink(tmp);
            return 1;
        }
        path = tmp;
        generated = 1;
    }
    int repeats = argc > argi ? atoi(argv[argi]) : 3;
    if (repeats < 1)
        repeats = 1;
    struct stat sb;
    if (stat(path, &sb) != 0) {
        perror(path);
        return 1;
    }
    size_t size = (size_t)sb.st_size;
    printf("file %s: %.1f MB, best of %d\n", generated ? "(synthetic)" : path, (double)size / 1e6,
           repeats);
    result rd = best_of(work_read, path, size, repeats);
    double read_s = rd.ok && rd.seconds > 0 ? rd.seconds : 1;
    report("read() whole file", rd, size, read_s);
#ifdef HAVE_JSMN
    report("jsmn, parent links, mmap", best_of(work_jsmn, path, size, repeats), size, read_s);
#else
    printf("jsmn: <jsmn.h> not installed, not measured\n");
#endif
    report("precheck tokens, whole doc", best_of(work_pc_tokens, path, size, repeats), size,
           read_s);
    result pc = best_of(work_precheck, path, size, repeats);
    report("precheck: all records", pc, size, read_s);
    if (generated)
        unlink(tmp);
    return pc.ok ? 0 : 1;
}
