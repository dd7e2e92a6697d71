/* precheck materialize: a statistics-mode dump rewritten with its generated inputs as files. */
#include "precheck/inputs/materialize.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "precheck/core/log.h"
#include "precheck/dump/data.h"
#include "precheck/io/checksum.h"
#include "precheck/io/file_out.h"
#include "precheck/dump/dump.h"
#include "precheck/dump/dump_write.h"
#include "precheck/io/json_write.h"
#include "precheck/inputs/inputs.h"
#include "precheck/io/path_check.h"
#include "precheck/io/pt.h"

typedef struct mat {
    const pc_materialize_options *o;
    pc_dump *dump;
    const char *src; /* the input's text: the digits of integers beyond int64 */
    size_t src_size;
    char src_data_dir[PC_PATH_BUFFER_SIZE]; /* <folder of dump.json>/dump_tensor_data */
    char out_data_dir[PC_PATH_BUFFER_SIZE]; /* OUT/dump_tensor_data */
    char *out_data_dir_abs;                 /* what dump_data_dir says */
    bool wrote_data_dir;
    unsigned char *forward_done, *backward_done; /* per api: its entry was written */
    /* the index path of the argument being written: "input.0.1", "kwargs.weight" */
    char suffix[PC_PATH_BUFFER_SIZE];
    size_t suffix_len;
    int suffix_overflow;
    pc_materialize_stats stats;
} mat;

/* ---- small helpers ---- */

static bool ends_with(const char *s, size_t len, const char *suffix)
{
    size_t n = strlen(suffix);
    return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

/* Appends to the index path; returns what suffix_pop needs. A path that would not fit is
 * not appended and counted in suffix_overflow (the record's file name is then too long anyway). */
static size_t suffix_push(mat *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static size_t suffix_push(mat *m, const char *fmt, ...)
{
    size_t room = sizeof m->suffix - m->suffix_len;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(m->suffix + m->suffix_len, room, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= room) {
        m->suffix[m->suffix_len] = '\0';
        m->suffix_overflow++;
        return SIZE_MAX;
    }
    size_t saved = m->suffix_len;
    m->suffix_len += (size_t)n;
    return saved;
}

static void suffix_pop(mat *m, size_t saved)
{
    if (saved == SIZE_MAX) {
        m->suffix_overflow--;
        return;
    }
    m->suffix_len = saved;
    m->suffix[saved] = '\0';
}

static bool key_is(const pc_json_doc *doc, pc_json_ref k, const char *name)
{
    size_t len = 0;
    const char *s = pc_json_string(doc, k, &len);
    return s && len == strlen(name) && memcmp(s, name, len) == 0;
}

/* ---- files the input already has ---- */

static pc_status copy_file(mat *m, const char *name)
{
    if (!m->dump->has_real_data)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: a record names the tensor file %s but dump_data_dir is null, so "
                            "run_ut would not read it; give a dump whose dump_data_dir is set",
                            m->o->api_info, name);
    if (!pc_path_chars_valid(name, false) || strchr(name, '/') || strcmp(name, ".") == 0 ||
        strcmp(name, "..") == 0)
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "%s: the tensor file %s is not a plain file name under "
                            "dump_tensor_data; materialize copies files by name only",
                            m->o->api_info, name);
    char src[PC_PATH_BUFFER_SIZE], resolved[PC_PATH_BUFFER_SIZE], dst[PC_PATH_BUFFER_SIZE];
    int n = snprintf(src, sizeof src, "%s/%s", m->src_data_dir, name);
    int k = snprintf(dst, sizeof dst, "%s/%s", m->out_data_dir, name);
    if (n < 0 || (size_t)n >= sizeof src || k < 0 || (size_t)k >= sizeof dst)
        return pc_error_set(PC_ERR_RANGE, "the path of tensor file %s is too long", name);
    if (access(dst, F_OK) == 0)
        return PC_OK; /* named by another record too: one copy */
    pc_status st = pc_path_check(src, PC_PATH_FILE, PC_PATH_READ, NULL, resolved, sizeof resolved);
    if (st)
        return pc_error_prefix(st, "%s: tensor file of the input", m->o->api_info);
    int in = open(resolved, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return pc_error_set(PC_ERR_IO, "cannot open %s: %s", resolved, strerror(errno));
    pc_file_out fo;
    st = pc_file_out_open(&fo, dst, 0);
    if (st != PC_OK) {
        close(in);
        return st;
    }
    int out = fileno(fo.f);
    enum { COPY_CHUNK = 1 << 20 };
    char *buf = malloc(COPY_CHUNK);
    st = buf ? PC_OK : pc_error_set(PC_ERR_NOMEM, "out of memory");
    while (st == PC_OK) {
        ssize_t r = read(in, buf, COPY_CHUNK);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            st = pc_error_set(PC_ERR_IO, "cannot read %s: %s", resolved, strerror(errno));
            break;
        }
        if (r == 0)
            break;
        for (ssize_t off = 0; off < r;) {
            ssize_t w = write(out, buf + off, (size_t)(r - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0) {
                st = pc_error_set(PC_ERR_IO, "cannot write %s: %s", dst, strerror(errno));
                break;
            }
            off += w;
            m->stats.bytes += (uint64_t)w;
        }
    }
    free(buf);
    close(in);
    if (st == PC_OK)
        st = pc_file_out_commit(&fo);
    pc_file_out_free(&fo);
    return st;
}

/* Copies the file of every record inside v that names one (data_name, or the legacy datapath
 * which takes precedence, as in run_ut). */
static pc_status copy_files_in(mat *m, const pc_json_doc *doc, pc_json_ref v)
{
    pc_json_type t = pc_json_type_of(doc, v);
    pc_status st = PC_OK;
    if (t == PC_JSON_OBJECT) {
        pc_json_ref dp = pc_json_object_get(doc, v, "datapath");
        pc_json_ref dn = pc_json_object_get(doc, v, "data_name");
        const char *file = pc_json_string(doc, dp, NULL);
        if (!file)
            file = pc_json_string(doc, dn, NULL);
        if (file) {
            st = copy_file(m, file);
            if (st == PC_OK)
                m->stats.copied++;
            return st;
        }
        for (pc_json_ref k = pc_json_first(doc, v); k != PC_JSON_NONE && !st;
             k = pc_json_next(doc, k))
            st = copy_files_in(m, doc, pc_json_member_value(doc, k));
    } else if (t == PC_JSON_ARRAY) {
        for (pc_json_ref e = pc_json_first(doc, v); e != PC_JSON_NONE && !st;
             e = pc_json_next(doc, e))
            st = copy_files_in(m, doc, e);
    }
    return st;
}

/* A value written as it is (its tensor files copied along). */
static pc_status copy_plain(mat *m, pc_json_writer *w, const pc_json_doc *doc, pc_json_ref v)
{
    pc_status st = copy_files_in(m, doc, v);
    if (st)
        return st;
    pc_json_write_copy(w, doc, v, m->src, m->src_size);
    return w->status;
}

/* ---- one generated tensor ---- */

enum { STAT_MAX, STAT_MIN, STAT_MEAN, STAT_NORM };

static void write_stat(pc_json_writer *w, const pc_tensor_stats *s, int which, bool int_scalar)
{
    double v = which == STAT_MAX    ? s->max
               : which == STAT_MIN  ? s->min
               : which == STAT_MEAN ? s->mean
                                    : s->norm;
    if (!s->present || (s->is_bool && which >= STAT_MEAN) || (which == STAT_NORM && !s->has_norm))
        pc_json_write_null(w);
    else if (s->is_bool)
        pc_json_write_bool(w, v != 0.0);
    else if (int_scalar) /* a 0-dim integer tensor: Python's .item() is an int */
        pc_json_write_int(w, (int64_t)v);
    else
        pc_json_write_double(w, v);
}

static int stat_of_key(const pc_json_doc *doc, pc_json_ref k)
{
    static const char *const names[] = {"Max", "Min", "Mean", "Norm"};
    for (int i = 0; i < 4; i++)
        if (key_is(doc, k, names[i]))
            return i;
    return -1;
}

/* The record v of the tensor argument arg, with its data written to name. */
static pc_status write_filled_record(mat *m, pc_json_writer *w, const pc_json_doc *doc,
                                     pc_json_ref v, const pc_dump_tensor *rec, const pc_tensor *t,
                                     const char *name)
{
    pc_tensor_stats s;
    pc_status st = pc_tensor_stats_compute(t, &s);
    if (st)
        return st;
    char md5[16] = "";
    if (rec->md5) {
        pc_tensor c = PC_TENSOR_NULL;
        st = pc_tensor_contiguous(&c, t);
        if (st)
            return st;
        snprintf(md5, sizeof md5, "%08x",
                 (unsigned)pc_crc32(0, pc_tensor_data(&c), pc_tensor_nbytes(&c)));
        pc_tensor_free(&c);
    }
    bool int_scalar = t->rank == 0 && pc_dtype_is_integral(t->dtype) && t->dtype != PC_DTYPE_BOOL;
    bool named = false;
    pc_json_write_begin_object(w);
    for (pc_json_ref k = pc_json_first(doc, v); k != PC_JSON_NONE; k = pc_json_next(doc, k)) {
        size_t len = 0;
        const char *key = pc_json_string(doc, k, &len);
        pc_json_ref val = pc_json_member_value(doc, k);
        if (!named && key_is(doc, k, "md5")) {
            pc_json_write_key(w, "data_name", 9);
            pc_json_write_string(w, name, strlen(name));
            named = true;
        }
        pc_json_write_key(w, key, len);
        int stat = stat_of_key(doc, k);
        if (stat >= 0) {
            write_stat(w, &s, stat, int_scalar);
        } else if (key_is(doc, k, "dtype") && t->dtype != rec->dtype) {
            /* the provider converted it (cross_entropy int32 -> int64, histc -> float32) */
            const char *dn = pc_dtype_torch_name(t->dtype);
            pc_json_write_string(w, dn, strlen(dn));
        } else if (key_is(doc, k, "md5")) {
            pc_json_write_string(w, md5, strlen(md5));
        } else {
            pc_json_write_copy(w, doc, val, m->src, m->src_size);
        }
    }
    if (!named) {
        pc_json_write_key(w, "data_name", 9);
        pc_json_write_string(w, name, strlen(name));
    }
    pc_json_write_end_object(w);
    return w->status;
}

/* Why a record stays a statistics record: run_ut will meet the same failure on it. */
static pc_status keep(mat *m, pc_json_writer *w, const pc_json_doc *doc, pc_json_ref v,
                      const pc_dump_api *api, const pc_dump_arg *arg, const char *why)
{
    char where[256];
    pc_dump_arg_path(api, arg, where, sizeof where);
    pc_log_warning("%s: %s: kept as a statistics record (run_ut generates it itself): %s",
                   api->full_name, where, why);
    m->stats.kept++;
    return copy_plain(m, w, doc, v);
}

static pc_status fill_tensor(mat *m, pc_json_writer *w, const pc_json_doc *doc, pc_json_ref v,
                             const pc_dump_api *api, const pc_dump_arg *arg, const char *entry_key)
{
    const pc_dump_tensor *rec = arg->u.tensor;
    if (pc_dump_tensor_file(rec))
        return copy_plain(m, w, doc, v); /* it has its data already */
    if (arg->error)
        return keep(m, w, doc, v, api, arg, arg->error);
    char name[PC_PATH_BUFFER_SIZE];
    int n = snprintf(name, sizeof name, "%s.%s.pt", entry_key, m->suffix);
    if (m->suffix_overflow || n < 0 || n > PC_PATH_NAME_LENGTH_MAX)
        return keep(m, w, doc, v, api, arg, "its file name would be longer than 255 characters");
    if (!pc_path_chars_valid(name, false))
        return keep(m, w, doc, v, api, arg,
                    "its file name would hold characters run_ut refuses in paths");
    char path[PC_PATH_BUFFER_SIZE];
    n = snprintf(path, sizeof path, "%s/%s", m->out_data_dir, name);
    if (n < 0 || (size_t)n >= sizeof path)
        return keep(m, w, doc, v, api, arg, "the path of its file would be too long");
    if (access(path, F_OK) == 0)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: two records would be written to %s (the dump is inconsistent)",
                            api->full_name, name);

    /* The file holds the provider's result, the tensor run_ut computes with: after msprobe's
     * preprocessing (cross_entropy's Min floor and int32 -> int64, histc's float32, HF32 for
     * conv). Loading it goes through the same provider, whose steps do nothing the second time
     * (the dtype is no longer the conversion's source, rounded values stay rounded), so the
     * round trip gives the same bits and the same CSV rows. A failure here is run_ut's failure
     * too: the record stays as it is and run_ut meets it again. */
    pc_inputs in = {.max_bytes = m->o->max_bytes};
    pc_inputs_begin(&in, m->dump, m->o->seed, api);
    pc_tensor t = PC_TENSOR_NULL;
    pc_status st = pc_inputs_provide(&in, api, arg, &t);
    if (st) {
        char why[1024];
        snprintf(why, sizeof why, "%s", pc_error_message());
        return keep(m, w, doc, v, api, arg, why);
    }
    /* float8: msprobe's files hold float32 (exact); the loader casts back to the record's */
    pc_tensor file = PC_TENSOR_NULL;
    if (t.dtype == PC_DTYPE_F8E4M3FN || t.dtype == PC_DTYPE_F8E5M2)
        st = pc_tensor_cast(&file, &t, PC_DTYPE_F32);
    else
        pc_tensor_share(&file, &t);
    if (st == PC_OK)
        st = pc_pt_write_file(path, &file, 0);
    if (st == PC_OK)
        st = pc_path_set_file_mode(path);
    if (st == PC_OK) {
        m->stats.generated++;
        m->stats.bytes += pc_tensor_nbytes(&file);
        st = write_filled_record(m, w, doc, v, rec, &t, name);
    }
    pc_tensor_free(&file);
    pc_tensor_free(&t);
    return st;
}

/* ---- argument trees ---- */

static pc_status write_arg(mat *m, pc_json_writer *w, const pc_json_doc *doc, pc_json_ref v,
                           const pc_dump_api *api, const pc_dump_arg *arg, const char *entry_key)
{
    pc_json_type t = pc_json_type_of(doc, v);
    if (arg->kind == PC_DUMP_ARG_TENSOR && t == PC_JSON_OBJECT)
        return fill_tensor(m, w, doc, v, api, arg, entry_key);
    if (arg->kind != PC_DUMP_ARG_LIST || t != PC_JSON_ARRAY ||
        pc_json_count(doc, v) != arg->u.list.count)
        return copy_plain(m, w, doc, v);
    pc_status st = PC_OK;
    pc_json_write_begin_array(w);
    size_t i = 0;
    for (pc_json_ref e = pc_json_first(doc, v); e != PC_JSON_NONE && !st;
         e = pc_json_next(doc, e), i++) {
        size_t saved = suffix_push(m, ".%zu", i);
        st = write_arg(m, w, doc, e, api, &arg->u.list.items[i], entry_key);
        suffix_pop(m, saved);
    }
    pc_json_write_end_array(w);
    return st ? st : w->status;
}

static pc_status write_kwargs(mat *m, pc_json_writer *w, const pc_json_doc *doc, pc_json_ref v,
                              const pc_dump_api *api, const pc_dump_entry *e, const char *entry_key)
{
    pc_status st = PC_OK;
    pc_json_write_begin_object(w);
    for (pc_json_ref k = pc_json_first(doc, v); k != PC_JSON_NONE && !st;
         k = pc_json_next(doc, k)) {
        size_t len = 0;
        const char *key = pc_json_string(doc, k, &len);
        pc_json_ref val = pc_json_member_value(doc, k);
        pc_json_write_key(w, key, len);
        const pc_dump_field *f = NULL;
        for (size_t i = 0; i < e->kwarg_count && !f && strlen(key) == len; i++)
            if (strcmp(e->kwargs[i].key, key) == 0)
                f = &e->kwargs[i];
        if (!f || !pc_json_member_is_last_of_key(doc, k)) {
            st = copy_plain(m, w, doc, val);
            continue;
        }
        size_t saved = suffix_push(m, "kwargs.%s", key);
        st = write_arg(m, w, doc, val, api, &f->value, entry_key);
        suffix_pop(m, saved);
    }
    pc_json_write_end_object(w);
    return st ? st : w->status;
}

/* ---- the hooks of pc_dump_rewrite ---- */

static pc_status on_top_member(void *ctx, pc_json_writer *w, const char *key,
                               const pc_json_doc *doc, pc_json_ref value)
{
    mat *m = ctx;
    if (strcmp(key, "dump_data_dir") != 0) {
        pc_json_write_copy(w, doc, value, m->src, m->src_size);
        return w->status;
    }
    pc_json_write_string(w, m->out_data_dir_abs, strlen(m->out_data_dir_abs));
    m->wrote_data_dir = true;
    return w->status;
}

static pc_status on_before_data(void *ctx, pc_json_writer *w)
{
    mat *m = ctx;
    if (m->wrote_data_dir)
        return PC_OK;
    pc_json_write_key(w, "dump_data_dir", 13);
    pc_json_write_string(w, m->out_data_dir_abs, strlen(m->out_data_dir_abs));
    m->wrote_data_dir = true;
    return w->status;
}

static pc_status on_entry(void *ctx, pc_json_writer *w, const char *key, const pc_json_doc *doc,
                          pc_json_ref body)
{
    mat *m = ctx;
    size_t len = strlen(key);
    bool forward = ends_with(key, len, ".forward"), backward = ends_with(key, len, ".backward");
    const pc_dump_api *api = NULL;
    if (!strstr(key, "Module") && (forward || backward)) {
        char *name = strndup(key, len - (forward ? 8 : 9));
        if (!name)
            return pc_error_set(PC_ERR_NOMEM, "out of memory");
        api = pc_dump_find(m->dump, name);
        free(name);
    }
    const pc_dump_entry *e = api ? (forward ? &api->forward : api->backward) : NULL;
    if (!e || e->error || pc_json_type_of(doc, body) != PC_JSON_OBJECT)
        return copy_plain(m, w, doc, body);
    size_t index = (size_t)(api - m->dump->apis);
    unsigned char *done = forward ? m->forward_done : m->backward_done;
    if (done[index])
        return pc_error_set(PC_ERR_FORMAT,
                            "%s: the key %s appears twice in \"data\"; msprobe never writes that, "
                            "and materialize cannot tell which one run_ut uses",
                            m->o->api_info, key);
    done[index] = 1;

    pc_status st = PC_OK;
    pc_json_write_begin_object(w);
    for (pc_json_ref k = pc_json_first(doc, body); k != PC_JSON_NONE && !st;
         k = pc_json_next(doc, k)) {
        size_t klen = 0;
        const char *mkey = pc_json_string(doc, k, &klen);
        pc_json_ref val = pc_json_member_value(doc, k);
        pc_json_write_key(w, mkey, klen);
        bool last = pc_json_member_is_last_of_key(doc, k);
        if (last && forward && key_is(doc, k, "input_args")) {
            size_t saved = suffix_push(m, "input");
            st = write_arg(m, w, doc, val, api, &e->input_args, key);
            suffix_pop(m, saved);
        } else if (last && forward && key_is(doc, k, "input_kwargs") &&
                   pc_json_type_of(doc, val) == PC_JSON_OBJECT) {
            st = write_kwargs(m, w, doc, val, api, e, key);
        } else if (last && backward &&
                   (key_is(doc, k, "input") ||
                    /* msprobe 1.0's spelling, read as "input" when there is none */
                    (key_is(doc, k, "grad_output") &&
                     pc_json_object_get(doc, body, "input") == PC_JSON_NONE))) {
            size_t saved = suffix_push(m, "input");
            st = write_arg(m, w, doc, val, api, &e->input, key);
            suffix_pop(m, saved);
        } else {
            st = copy_plain(m, w, doc, val);
        }
    }
    pc_json_write_end_object(w);
    return st ? st : w->status;
}

/* ---- the command ---- */

static pc_status read_all(const char *path, char **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return pc_error_set(errno == ENOENT ? PC_ERR_NOT_FOUND : PC_ERR_IO, "cannot open %s: %s",
                            path, strerror(errno));
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0 || sb.st_size < 0) {
        fclose(f);
        return pc_error_set(PC_ERR_IO, "cannot read %s: %s", path, strerror(errno));
    }
    size_t n = (size_t)sb.st_size;
    char *b = malloc(n ? n : 1);
    if (!b) {
        fclose(f);
        return pc_error_set(PC_ERR_NOMEM, "out of memory reading %s", path);
    }
    if (fread(b, 1, n, f) != n) {
        free(b);
        fclose(f);
        return pc_error_set(PC_ERR_IO, "cannot read %s", path);
    }
    fclose(f);
    *data = b;
    *size = n;
    return PC_OK;
}

static pc_status check_empty_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return pc_error_set(PC_ERR_IO, "cannot read the folder %s: %s", dir, strerror(errno));
    struct dirent *e;
    bool empty = true;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            empty = false;
    closedir(d);
    if (!empty)
        return pc_error_set(PC_ERR_INVALID,
                            "%s is not empty: materialize writes into an empty folder, so that no "
                            "stale tensor file stays beside the new dump; remove it or choose "
                            "another -o",
                            dir);
    return PC_OK;
}

static pc_status prepare_output(mat *m, char *json_path, size_t json_size)
{
    const char *out = m->o->out_dir;
    pc_status st = pc_path_make_dir(out);
    if (st)
        return st;
    st = pc_path_check(out, PC_PATH_DIR, PC_PATH_READ | PC_PATH_WRITE, NULL, NULL, 0);
    if (st)
        return st;
    int a = snprintf(json_path, json_size, "%s/dump.json", out);
    int c = snprintf(m->out_data_dir, sizeof m->out_data_dir, "%s/dump_tensor_data", out);
    if (a < 0 || (size_t)a >= json_size || c < 0 || (size_t)c >= sizeof m->out_data_dir)
        return pc_error_set(PC_ERR_RANGE, "the output folder's path is too long: %s", out);
    /* refused before any tensor is written: a link or a non-file at dump.json (the writer's own
     * check), or a dump already there */
    if ((st = pc_file_out_check(json_path, PC_FILE_OUT_REPLACE)) != PC_OK)
        return st;
    if (access(json_path, F_OK) == 0)
        return pc_error_set(PC_ERR_INVALID,
                            "%s exists: materialize does not overwrite a dump; remove it or "
                            "choose another -o",
                            json_path);
    st = pc_path_make_dir(m->out_data_dir);
    if (st == PC_OK)
        st = check_empty_dir(m->out_data_dir);
    if (st == PC_OK)
        st = pc_path_resolve(m->out_data_dir, &m->out_data_dir_abs);
    return st;
}

pc_status pc_materialize(const pc_materialize_options *o, pc_materialize_stats *stats)
{
    mat m = {.o = o};
    char *data = NULL;
    size_t size = 0;
    char json_path[PC_PATH_BUFFER_SIZE + 16];
    FILE *f = NULL;
    pc_status st = read_all(o->api_info, &data, &size);
    if (st == PC_OK)
        st = pc_dump_parse(&m.dump, data, size, o->api_info);
    m.src = data;
    m.src_size = size;
    if (st == PC_OK) {
        const char *slash = strrchr(o->api_info, '/');
        int n = slash ? snprintf(m.src_data_dir, sizeof m.src_data_dir, "%.*s/dump_tensor_data",
                                 (int)(slash - o->api_info), o->api_info)
                      : snprintf(m.src_data_dir, sizeof m.src_data_dir, "./dump_tensor_data");
        if (n < 0 || (size_t)n >= sizeof m.src_data_dir)
            st = pc_error_set(PC_ERR_RANGE, "the path %s is too long", o->api_info);
    }
    if (st == PC_OK) {
        size_t napi = m.dump->api_count ? m.dump->api_count : 1;
        m.forward_done = calloc(napi, 1);
        m.backward_done = calloc(napi, 1);
        if (!m.forward_done || !m.backward_done)
            st = pc_error_set(PC_ERR_NOMEM, "out of memory");
    }
    if (st == PC_OK)
        st = prepare_output(&m, json_path, sizeof json_path);
    /* file_out.h: never through a link at dump.json, never over an existing one */
    pc_file_out out = {0};
    if (st == PC_OK)
        st = pc_file_out_open(&out, json_path, 0);
    if (st == PC_OK) {
        f = out.f;
        setvbuf(f, NULL, _IOFBF, 1 << 20);
        pc_dump_rewrite_hooks hooks = {on_top_member, on_before_data, on_entry, &m};
        st = pc_dump_rewrite(data, size, o->api_info, f, &hooks);
        if (st == PC_OK)
            st = pc_file_out_commit(&out);
    }
    pc_file_out_free(&out);
    if (stats)
        *stats = m.stats;
    free(m.forward_done);
    free(m.backward_done);
    free(m.out_data_dir_abs);
    pc_dump_free(m.dump);
    free(data);
    return st;
}
