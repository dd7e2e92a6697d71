/*
 * The bench cache (run_ut --bench-cache DIR): the bench's outputs and input gradients of an
 * API, stored under a key made of what determines them, so that the second machine's run_ut
 * on the same dump, a resumed run or a rerun reads them instead of computing them again.
 *
 * The key is a 128-bit hash of: the cache format, the bench's name and policy, the op's name,
 * every bound argument (its kind and value; a tensor's dtype, shape and bytes in index order),
 * and, for the backward, the forward's key and the incoming gradient. It is a hash of the
 * inputs themselves, not of where they came from, so random and real inputs alike hit when the
 * data is the same, and nothing else does. The hash (two 64-bit lanes of multiply-xorshift
 * mixing over 8-byte words, each lane with its own constants, folded together at the end) is
 * not cryptographic: the cache directory is trusted like the dump.
 *
 * A file <32 hex digits>.pcb holds: the magic "PCBENCH1", the key, a count, then per tensor
 * its slot (-1 for output i = index; for gradients the argument number, index -1 or the item
 * of a Tensor[] argument), dtype, rank, shape and contiguous bytes; a CRC-32 of everything
 * before it closes the file. It is written to a temporary name and renamed into place, so
 * readers (other workers, other runs) see whole files or none. A file that does not read back
 * (short, wrong magic or key, bad CRC) is ignored and recomputed, with a warning.
 *
 * Only the APIs whose bench is worth keeping are keyed: those with products (GEMMs,
 * convolutions, attention: pc_api_cost_of's flops). An element-wise or data-movement API's
 * bench costs about what reading its float64 results back would, and such results are most of
 * a dump's bytes. An entry read is touched (its mtime set to now), so --bench-cache-max
 * deletes the least recently used entries first. The counts of the run (hits, misses, entries
 * written and their bytes) live in a shared anonymous mapping made before the workers fork,
 * so that the parent can log them at the end.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "precheck/core/log.h"
#include "precheck/io/checksum.h"
#include "precheck/io/file_out.h"
#include "precheck/io/path_check.h"
#include "precheck/runner/cost.h"
#include "runner_impl.h"

#define MAGIC "PCBENCH1"

/* ---- the run's counts ---- */

typedef struct cache_counts {
    atomic_ullong hits, misses, written, written_bytes;
} cache_counts;

static cache_counts local_counts;            /* when the shared mapping could not be made */
static cache_counts *counts = &local_counts; /* shared with the workers (pc_cache_dir_check) */

/* ---- the key ---- */

static uint64_t mix(uint64_t h, uint64_t v, uint64_t m)
{
    h ^= v * m;
    h = (h << 31) | (h >> 33);
    h *= 0x9e3779b97f4a7c15ULL;
    return h ^ (h >> 29);
}

static void key_bytes(pc_cache_key *k, const void *data, size_t n)
{
    const unsigned char *p = data;
    uint64_t a = k->h[0], b = k->h[1];
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t v;
        memcpy(&v, p + i, 8);
        a = mix(a, v, 0x87c37b91114253d5ULL);
        b = mix(b, v, 0x4cf5ad432745937fULL);
    }
    uint64_t tail = 0;
    memcpy(&tail, p + i, n - i);
    tail ^= (uint64_t)n << 56;
    k->h[0] = mix(a, tail, 0x87c37b91114253d5ULL);
    k->h[1] = mix(b, tail, 0x4cf5ad432745937fULL);
}

static void key_u64(pc_cache_key *k, uint64_t v)
{
    key_bytes(k, &v, sizeof v);
}

static void key_str(pc_cache_key *k, const char *s)
{
    key_bytes(k, s ? s : "", s ? strlen(s) + 1 : 1);
}

static pc_status key_tensor(pc_cache_key *k, const pc_tensor *t)
{
    key_u64(k, pc_tensor_is_null(t) ? 0xffffffffu : (uint64_t)t->dtype);
    if (pc_tensor_is_null(t))
        return PC_OK;
    key_u64(k, (uint64_t)t->rank);
    for (int i = 0; i < t->rank; i++)
        key_u64(k, (uint64_t)t->shape[i]);
    if (pc_tensor_is_contiguous(t)) {
        key_bytes(k, pc_tensor_data(t), pc_tensor_nbytes(t));
        return PC_OK;
    }
    pc_tensor c = PC_TENSOR_NULL;
    pc_status st = pc_tensor_contiguous(&c, t);
    if (st == PC_OK)
        key_bytes(k, pc_tensor_data(&c), pc_tensor_nbytes(&c));
    pc_tensor_free(&c);
    return st;
}

pc_status pc_cache_key_call(pc_cache_key *k, const char *bench_name, const char *policy,
                            const pc_op_call *call)
{
    k->h[0] = 0x243f6a8885a308d3ULL;
    k->h[1] = 0x13198a2e03707344ULL;
    key_str(k, MAGIC);
    key_str(k, bench_name);
    key_str(k, policy);
    key_str(k, call->op->name);
    key_u64(k, (uint64_t)call->form);
    key_u64(k, call->seed);
    key_str(k, call->full_name); /* dropout's masks depend on it (with the seed) */
    key_u64(k, (uint64_t)call->nargs);
    pc_status st = PC_OK;
    for (int i = 0; i < call->nargs && st == PC_OK; i++) {
        const pc_value *v = &call->args[i];
        key_u64(k, (uint64_t)v->kind);
        key_u64(k, (uint64_t)v->src_pos + 1);
        key_u64(k, (uint64_t)v->requires_grad | (uint64_t)v->wrapped << 1);
        switch (v->kind) {
        case PC_VALUE_TENSOR:
            st = key_tensor(k, &v->tensor);
            break;
        case PC_VALUE_TENSOR_LIST:
        case PC_VALUE_INDEX:
            key_u64(k, (uint64_t)v->tensors.count);
            for (int j = 0; j < v->tensors.count && st == PC_OK; j++)
                st = key_tensor(k, &v->tensors.items[j]);
            if (v->kind == PC_VALUE_INDEX) {
                key_u64(k, (uint64_t)v->index.count | (uint64_t)v->index.lone_tensor << 32);
                for (int j = 0; j < v->index.count; j++) {
                    const pc_index_item *it = &v->index.items[j];
                    int64_t w[5] = {it->kind, it->i, it->start, it->stop, it->step};
                    key_bytes(k, w, sizeof w);
                    key_u64(k, (uint64_t)it->has_start | (uint64_t)it->has_stop << 1 |
                                   (uint64_t)it->has_step << 2);
                }
            }
            break;
        case PC_VALUE_INT:
        case PC_VALUE_BOOL:
        case PC_VALUE_FLOAT: {
            uint64_t bits;
            memcpy(&bits, &v->f, 8);
            key_u64(k, (uint64_t)v->i);
            key_u64(k, bits);
            key_u64(k, v->b);
            break;
        }
        case PC_VALUE_INT_LIST:
            key_u64(k, (uint64_t)v->nints);
            key_bytes(k, v->ints, (size_t)v->nints * sizeof v->ints[0]);
            break;
        case PC_VALUE_STR:
            key_str(k, v->s);
            break;
        case PC_VALUE_DTYPE:
            key_u64(k, (uint64_t)v->dtype);
            break;
        case PC_VALUE_NONE:
        case PC_VALUE_IGNORED:
            break;
        }
    }
    return st;
}

pc_status pc_cache_key_grad(pc_cache_key *k, const pc_cache_key *forward, const pc_tensor *grad)
{
    *k = *forward;
    key_str(k, "backward");
    return key_tensor(k, grad);
}

/* ---- the files ---- */

static void cache_path(char *buf, size_t size, const char *dir, const pc_cache_key *k)
{
    snprintf(buf, size, "%s/%016" PRIx64 "%016" PRIx64 ".pcb", dir, k->h[0], k->h[1]);
}

typedef struct entry {
    int32_t slot, index;
    const pc_tensor *t;
} entry;

static bool put(FILE *f, uint32_t *crc, const void *p, size_t n)
{
    *crc = pc_crc32(*crc, p, n);
    return fwrite(p, 1, n, f) == n;
}

static pc_status store(const char *dir, const pc_cache_key *k, const entry *e, int n)
{
    char path[PC_PATH_LENGTH_MAX];
    cache_path(path, sizeof path, dir, k);
    /* an entry is rewritten whole in place of an older one (file_out.h: a fresh temporary,
     * never through a link planted at the entry's name); no fsync: a lost entry is recomputed */
    pc_file_out out;
    pc_status st = pc_file_out_open(&out, path, PC_FILE_OUT_REPLACE | PC_FILE_OUT_NO_SYNC);
    if (st != PC_OK)
        return pc_error_prefix(st, "bench cache");
    FILE *f = out.f;
    uint32_t crc = 0;
    bool ok = put(f, &crc, MAGIC, 8) && put(f, &crc, k->h, sizeof k->h);
    int32_t count = n;
    ok = ok && put(f, &crc, &count, sizeof count);
    for (int i = 0; ok && i < n; i++) {
        const pc_tensor *t = e[i].t;
        pc_tensor c = PC_TENSOR_NULL;
        if (!pc_tensor_is_contiguous(t)) {
            if (pc_tensor_contiguous(&c, t) != PC_OK) {
                ok = false;
                break;
            }
            t = &c;
        }
        int32_t head[4] = {e[i].slot, e[i].index, (int32_t)t->dtype, t->rank};
        ok = put(f, &crc, head, sizeof head) &&
             put(f, &crc, t->shape, (size_t)t->rank * sizeof t->shape[0]) &&
             put(f, &crc, pc_tensor_data(t), pc_tensor_nbytes(t));
        pc_tensor_free(&c);
    }
    ok = ok && fwrite(&crc, 1, sizeof crc, f) == sizeof crc;
    if (!ok) {
        st = pc_error_set(PC_ERR_IO, "bench cache: cannot write %s: %s", path,
                          errno ? strerror(errno) : "write failed");
        pc_file_out_free(&out);
        return st;
    }
    long bytes = ftell(f);
    st = pc_file_out_commit(&out);
    pc_file_out_free(&out);
    if (st != PC_OK)
        return pc_error_prefix(st, "bench cache");
    atomic_fetch_add(&counts->written, 1);
    atomic_fetch_add(&counts->written_bytes, bytes > 0 ? (unsigned long long)bytes : 0);
    return PC_OK;
}

static bool get(FILE *f, uint32_t *crc, void *p, size_t n)
{
    if (fread(p, 1, n, f) != n)
        return false;
    *crc = pc_crc32(*crc, p, n);
    return true;
}

/* Reads the entries of key k: calls take(ctx, slot, index, tensor) for each (tensor owned by
 * the callee). PC_ERR_NOT_FOUND when there is no usable file. */
typedef pc_status (*take_fn)(void *ctx, int32_t slot, int32_t index, pc_tensor *t);

static pc_status load(const char *dir, const pc_cache_key *k, take_fn take, void *ctx)
{
    char path[PC_PATH_LENGTH_MAX];
    cache_path(path, sizeof path, dir, k);
    FILE *f = fopen(path, "rb");
    if (!f) {
        atomic_fetch_add(&counts->misses, 1);
        return PC_ERR_NOT_FOUND;
    }
    uint32_t crc = 0, want;
    char magic[8];
    uint64_t h[2];
    int32_t count = 0;
    bool ok = get(f, &crc, magic, 8) && memcmp(magic, MAGIC, 8) == 0 && get(f, &crc, h, sizeof h) &&
              h[0] == k->h[0] && h[1] == k->h[1] && get(f, &crc, &count, sizeof count) &&
              count >= 0 && count <= PC_OP_MAX_OUTPUTS + PC_SCHEMA_MAX_ARGS * PC_VALUE_MAX_TENSORS;
    pc_status st = PC_OK;
    for (int i = 0; ok && st == PC_OK && i < count; i++) {
        int32_t head[4];
        int64_t shape[PC_TENSOR_MAX_DIMS];
        ok = get(f, &crc, head, sizeof head) && head[3] >= 0 && head[3] <= PC_TENSOR_MAX_DIMS &&
             pc_dtype_size((pc_dtype)head[2]) > 0 &&
             get(f, &crc, shape, (size_t)head[3] * sizeof shape[0]);
        if (!ok)
            break;
        int64_t numel;
        if (pc_tensor_check_shape((pc_dtype)head[2], shape, head[3], &numel, NULL) != PC_OK) {
            ok = false;
            break;
        }
        pc_tensor t = PC_TENSOR_NULL;
        if ((st = pc_tensor_alloc(&t, (pc_dtype)head[2], shape, head[3])) != PC_OK)
            break;
        ok = get(f, &crc, pc_tensor_data(&t), pc_tensor_nbytes(&t));
        if (ok)
            st = take(ctx, head[0], head[1], &t);
        pc_tensor_free(&t);
    }
    ok = ok && fread(&want, 1, sizeof want, f) == sizeof want && want == crc && fgetc(f) == EOF;
    fclose(f);
    if (st != PC_OK)
        return st;
    if (!ok) {
        pc_log_warning("bench cache: %s does not read back whole; computing again", path);
        atomic_fetch_add(&counts->misses, 1);
        return PC_ERR_NOT_FOUND;
    }
    atomic_fetch_add(&counts->hits, 1);
    (void)utimensat(AT_FDCWD, path, NULL, 0); /* used now: the last to go (--bench-cache-max) */
    return PC_OK;
}

/* ---- outputs and gradients ---- */

static pc_status take_output(void *ctx, int32_t slot, int32_t index, pc_tensor *t)
{
    pc_op_result *r = ctx;
    if (slot != -1 || index != r->count || r->count >= PC_OP_MAX_OUTPUTS)
        return PC_ERR_NOT_FOUND;
    r->tensors[r->count++] = *t;
    *t = PC_TENSOR_NULL;
    return PC_OK;
}

pc_status pc_cache_load_outputs(const char *dir, const pc_cache_key *k, pc_op_result *out)
{
    pc_op_result r = {0};
    pc_status st = load(dir, k, take_output, &r);
    if (st != PC_OK) {
        pc_op_result_free(&r);
        return st;
    }
    *out = r;
    return PC_OK;
}

pc_status pc_cache_store_outputs(const char *dir, const pc_cache_key *k, const pc_op_result *r)
{
    entry e[PC_OP_MAX_OUTPUTS];
    for (int i = 0; i < r->count; i++)
        e[i] = (entry){-1, i, &r->tensors[i]};
    return store(dir, k, e, r->count);
}

typedef struct grads_ctx {
    pc_op_grads *g;
    const pc_op_call *call;
} grads_ctx;

static pc_status take_grad(void *ctx, int32_t slot, int32_t index, pc_tensor *t)
{
    grads_ctx *c = ctx;
    if (slot < 0 || slot >= c->call->nargs)
        return PC_ERR_NOT_FOUND;
    if (index < 0) {
        pc_tensor_free(&c->g->grads[slot]);
        c->g->grads[slot] = *t;
        *t = PC_TENSOR_NULL;
        return PC_OK;
    }
    int n = c->call->args[slot].tensors.count;
    if (index >= n)
        return PC_ERR_NOT_FOUND;
    if (!c->g->lists[slot].items) {
        c->g->lists[slot].items = calloc((size_t)n, sizeof(pc_tensor));
        if (!c->g->lists[slot].items)
            return pc_error_set(PC_ERR_NOMEM, "out of memory");
        for (int i = 0; i < n; i++)
            c->g->lists[slot].items[i] = PC_TENSOR_NULL;
        c->g->lists[slot].count = n;
    }
    pc_tensor_free(&c->g->lists[slot].items[index]);
    c->g->lists[slot].items[index] = *t;
    *t = PC_TENSOR_NULL;
    return PC_OK;
}

pc_status pc_cache_load_grads(const char *dir, const pc_cache_key *k, const pc_op_call *call,
                              pc_op_grads *out)
{
    pc_op_grads g;
    memset(&g, 0, sizeof g);
    for (int i = 0; i < PC_SCHEMA_MAX_ARGS; i++)
        g.grads[i] = PC_TENSOR_NULL;
    grads_ctx c = {&g, call};
    pc_status st = load(dir, k, take_grad, &c);
    if (st != PC_OK) {
        pc_op_grads_free(&g);
        return st;
    }
    *out = g;
    return PC_OK;
}

pc_status pc_cache_store_grads(const char *dir, const pc_cache_key *k, const pc_op_call *call,
                               const pc_op_grads *g)
{
    static _Thread_local entry e[PC_SCHEMA_MAX_ARGS * (PC_VALUE_MAX_TENSORS + 1)];
    int n = 0;
    for (int i = 0; i < call->nargs; i++) {
        if (!pc_tensor_is_null(&g->grads[i]))
            e[n++] = (entry){i, -1, &g->grads[i]};
        for (int j = 0; g->lists[i].items && j < g->lists[i].count; j++)
            if (!pc_tensor_is_null(&g->lists[i].items[j]))
                e[n++] = (entry){i, j, &g->lists[i].items[j]};
    }
    return store(dir, k, e, n);
}

pc_status pc_cache_dir_check(const char *dir)
{
    if (counts == &local_counts) {
        void *m =
            mmap(NULL, sizeof *counts, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (m != MAP_FAILED)
            counts = m; /* zeroed by the kernel; kept until exit */
    }
    struct stat sb;
    if (stat(dir, &sb) != 0) {
        if (errno != ENOENT || mkdir(dir, 0750) != 0)
            return pc_error_set(PC_ERR_IO, "--bench-cache %s: %s", dir, strerror(errno));
        return PC_OK;
    }
    if (!S_ISDIR(sb.st_mode))
        return pc_error_set(PC_ERR_INVALID, "--bench-cache %s: not a directory", dir);
    if (access(dir, W_OK | R_OK | X_OK) != 0)
        return pc_error_set(PC_ERR_IO, "--bench-cache %s: %s", dir, strerror(errno));
    return PC_OK;
}

bool pc_cache_worth_keeping(const pc_dump_api *api)
{
    return pc_api_cost_of(api).flops > 0;
}

/* ---- the end of a run: the counts, and the bound on the directory's size ---- */

typedef struct cache_file {
    char name[40];
    struct timespec used;
    uint64_t bytes;
} cache_file;

static int older_first(const void *pa, const void *pb)
{
    const cache_file *a = pa, *b = pb;
    if (a->used.tv_sec != b->used.tv_sec)
        return a->used.tv_sec < b->used.tv_sec ? -1 : 1;
    if (a->used.tv_nsec != b->used.tv_nsec)
        return a->used.tv_nsec < b->used.tv_nsec ? -1 : 1;
    return strcmp(a->name, b->name);
}

static bool is_entry_name(const char *n)
{
    size_t len = strlen(n);
    if (len != 32 + 4 || strcmp(n + 32, ".pcb") != 0)
        return false;
    for (size_t i = 0; i < 32; i++)
        if (!((n[i] >= '0' && n[i] <= '9') || (n[i] >= 'a' && n[i] <= 'f')))
            return false;
    return true;
}

/* The entries of dir (regular files named like entries), in *files (malloc'd), their count in
 * *n and their bytes in *total. */
static pc_status list_entries(const char *dir, cache_file **files, size_t *n, uint64_t *total)
{
    *files = NULL;
    *n = 0;
    *total = 0;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return pc_error_set(PC_ERR_IO, "--bench-cache %s: %s", dir, strerror(errno));
    }
    size_t cap = 0;
    struct dirent *e;
    pc_status st = PC_OK;
    while ((e = readdir(d)) != NULL) {
        struct stat sb;
        if (!is_entry_name(e->d_name) || fstatat(dfd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(sb.st_mode))
            continue;
        if (*n == cap) {
            size_t c = cap ? cap * 2 : 256;
            cache_file *f = realloc(*files, c * sizeof *f);
            if (!f) {
                st = pc_error_set(PC_ERR_NOMEM, "out of memory");
                break;
            }
            *files = f;
            cap = c;
        }
        cache_file *f = &(*files)[(*n)++];
        memcpy(f->name, e->d_name, 37);
        f->used = sb.st_mtim;
        f->bytes = (uint64_t)sb.st_size;
        *total += f->bytes;
    }
    closedir(d);
    if (st != PC_OK) {
        free(*files);
        *files = NULL;
        *n = 0;
    }
    return st;
}

static void format_bytes(char *buf, size_t size, uint64_t b)
{
    if (b >= (1ull << 30))
        snprintf(buf, size, "%.1f GiB", (double)b / (double)(1ull << 30));
    else if (b >= (1ull << 20))
        snprintf(buf, size, "%.1f MiB", (double)b / (double)(1ull << 20));
    else
        snprintf(buf, size, "%.1f KiB", (double)b / 1024.0);
}

void pc_cache_finish(const char *dir, uint64_t max_bytes)
{
    cache_file *files;
    size_t n;
    uint64_t total;
    char held[32], written[32];
    format_bytes(written, sizeof written, (uint64_t)atomic_load(&counts->written_bytes));
    if (list_entries(dir, &files, &n, &total) != PC_OK) {
        pc_log_warning("%s", pc_error_message());
        return;
    }
    size_t removed = 0;
    uint64_t removed_bytes = 0;
    if (max_bytes && total > max_bytes) {
        qsort(files, n, sizeof *files, older_first);
        char path[PC_PATH_LENGTH_MAX];
        for (size_t i = 0; i < n && total - removed_bytes > max_bytes; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
            if (unlink(path) == 0) {
                removed++;
                removed_bytes += files[i].bytes;
            }
        }
    }
    free(files);
    format_bytes(held, sizeof held, total - removed_bytes);
    unsigned long long hits = atomic_load(&counts->hits), misses = atomic_load(&counts->misses),
                       nw = atomic_load(&counts->written);
    pc_log_info("bench cache %s: %llu of %llu lookups hit, %llu computed; %llu entr%s written "
                "(%s); it holds %zu entr%s (%s). APIs without products (element-wise, data "
                "movement) are not cached: computing them costs about what reading them would.",
                dir, hits, hits + misses, misses, nw, nw == 1 ? "y" : "ies", written, n - removed,
                n - removed == 1 ? "y" : "ies", held);
    if (removed) {
        char gone[32], max[32];
        format_bytes(gone, sizeof gone, removed_bytes);
        format_bytes(max, sizeof max, max_bytes);
        pc_log_info("bench cache %s: deleted the %zu least recently used entr%s (%s) to stay "
                    "within --bench-cache-max %s",
                    dir, removed, removed == 1 ? "y" : "ies", gone, max);
    }
}
