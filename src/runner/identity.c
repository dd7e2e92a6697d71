/*
 * A run's identity: what decides its rows (the dump's content, the seed, the bench policy, the
 * device, the filter and lists, the CSV precision, the timeout and memory limit), written as
 * precheck_run_<ts>.json beside the run's CSVs and checked when -csv_path resumes them, so
 * that a resume can only finish the run it continues. Also the command that resumes a run,
 * which is the original command line with -csv_path added.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "precheck/core/excerpt.h"
#include "precheck/core/hashmap.h"
#include "precheck/core/log.h"
#include "precheck/io/file_out.h"
#include "precheck/io/json.h"
#include "precheck/io/json_write.h"
#include "precheck/io/path_check.h"
#include "pc_version.h"
#include "runner_impl.h"

/* ---- the fields ---- */

static void put(pc_run_identity *id, const char *key, bool decides, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void put(pc_run_identity *id, const char *key, bool decides, const char *fmt, ...)
{
    if (id->count == PC_RUN_IDENTITY_MAX)
        return;
    pc_run_identity_field *f = &id->fields[id->count++];
    snprintf(f->key, sizeof f->key, "%s", key);
    f->decides = decides;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->value, sizeof f->value, fmt, ap);
    va_end(ap);
}

/* A 64-bit FNV-1a over 8-byte words (and the tail bytes) of the file, with its size. */
pc_status pc_run_file_digest(const char *path, char *out, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return pc_error_set(PC_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    enum { CHUNK = 1 << 20 };
    unsigned char *buf = malloc(CHUNK);
    if (!buf) {
        close(fd);
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    }
    uint64_t h = PC_HASH_FNV1A64_BASIS, total = 0;
    ssize_t n;
    while ((n = read(fd, buf, CHUNK)) > 0 || (n < 0 && errno == EINTR)) {
        if (n < 0)
            continue;
        size_t i = 0;
        for (; i + 8 <= (size_t)n; i += 8) {
            uint64_t w;
            memcpy(&w, buf + i, 8);
            h = (h ^ w) * PC_HASH_FNV1A64_PRIME; /* a word at a time: 8x fewer multiplies */
        }
        h = pc_hash_fnv1a64_more(h, buf + i, (size_t)n - i);
        total += (uint64_t)n;
    }
    int e = errno;
    free(buf);
    close(fd);
    if (n < 0)
        return pc_error_set(PC_ERR_IO, "%s: cannot read: %s", path, strerror(e));
    snprintf(out, size, "%016llx-%llu", (unsigned long long)h, (unsigned long long)total);
    return PC_OK;
}

static void join_list(char *out, size_t size, const char *const *items, size_t count)
{
    size_t used = 0;
    out[0] = 0;
    for (size_t i = 0; i < count && used < size; i++)
        used += (size_t)snprintf(out + used, size - used, "%s%s", i ? "," : "", items[i]);
}

/* The device kind a backend spec names: the name, and for torch the device without its index
 * and options (a resume may run on another GPU of the same kind, with other threads). */
static void backend_kind(const char *spec, char *out, size_t size)
{
    if (strncmp(spec, "torch:", 6) == 0)
        snprintf(out, size, "torch:%.*s", (int)strcspn(spec + 6, ":,"), spec + 6);
    else
        snprintf(out, size, "%s", spec);
}

pc_status pc_run_identity_make(pc_run_identity *id, const pc_run_options *o, const char *dump_path,
                               const pc_api_lists *lists, int precision)
{
    memset(id, 0, sizeof *id);
    char digest[64], buf[PC_RUN_IDENTITY_VALUE];
    pc_status st = pc_run_file_digest(dump_path, digest, sizeof digest);
    if (st != PC_OK)
        return st;
    put(id, "dump_content", true, "%s", digest);
    put(id, "dump", false, "%s", dump_path);
    put(id, "seed", true, "%llu", (unsigned long long)o->seed);
    put(id, "bench", true, "%s", o->bench_policy ? o->bench_policy : "msprobe");
    backend_kind(o->backend ? o->backend : "cpu", buf, sizeof buf);
    put(id, "device", true, "%s", buf);
    put(id, "backend", false, "%s", o->backend ? o->backend : "cpu");
    put(id, "filter_api", true, "%s", o->filter_api ? "yes" : "no");
    join_list(buf, sizeof buf, lists->white, lists->white_count);
    put(id, "white_list", true, "%s", buf);
    join_list(buf, sizeof buf, lists->black, lists->black_count);
    put(id, "black_list", true, "%s", buf);
    put(id, "precision", true, "%d", precision);
    put(id, "timeout", true, "%g", o->timeout_s);
    put(id, "max_memory_mb", true, "%g", o->max_memory_mb);
    put(id, "shard", true, "%u/%u", o->shard_count > 1 ? o->shard_index : 1u,
        o->shard_count > 1 ? o->shard_count : 1u);
    put(id, "precheck_version", false, "%s", PC_VERSION_STRING);
    put(id, "msprobe_version", false, "%s", PC_MSPROBE_VERSION);
    put(id, "save_error_data", false, "%s", o->save_error_data ? "yes" : "no");
    put(id, "workers", false, "%d", o->workers);
    return PC_OK;
}

void pc_run_identity_note(pc_run_identity *id, const char *key, const char *value)
{
    for (int i = 0; i < id->count; i++)
        if (strcmp(id->fields[i].key, key) == 0) {
            snprintf(id->fields[i].value, sizeof id->fields[i].value, "%s", value);
            return;
        }
    put(id, key, false, "%s", value);
}

/* ---- the record file ---- */

void pc_run_identity_path(char *out, size_t size, const char *dir, const char *ts)
{
    snprintf(out, size, "%s/precheck_run_%s.json", dir, ts);
}

pc_status pc_run_record_write(const pc_run_identity *id, const char *path, const char *command,
                              const pc_run_record_resume *resume)
{
    /* the safe writer: a fresh temporary beside it, renamed into place (a record of an earlier
     * run under this name is one whose CSVs are gone: the names were claimed by this run) */
    pc_file_out o;
    pc_status st = pc_file_out_open(&o, path, PC_FILE_OUT_REPLACE);
    if (st != PC_OK)
        return st;
    pc_json_writer w;
    pc_json_writer_init(&w, o.f, 2, PC_JSON_FINAL_NEWLINE);
    pc_json_write_begin_object(&w);
    pc_json_write_keyz(&w, "precheck_run");
    pc_json_write_int(&w, 1);
    pc_json_write_keyz(&w, "command");
    pc_json_write_stringz(&w, command);
    for (int pass = 0; pass < 2; pass++) {
        pc_json_write_keyz(&w, pass == 0 ? "identity" : "about");
        pc_json_write_begin_object(&w);
        for (int i = 0; i < id->count; i++) {
            if (id->fields[i].decides != (pass == 0))
                continue;
            pc_json_write_keyz(&w, id->fields[i].key);
            pc_json_write_stringz(&w, id->fields[i].value);
        }
        pc_json_write_end_object(&w);
    }
    if (resume) {
        char cwd[PC_PATH_BUFFER_SIZE];
        if (!getcwd(cwd, sizeof cwd))
            cwd[0] = 0;
        pc_json_write_keyz(&w, "resume");
        pc_json_write_begin_object(&w);
        pc_json_write_keyz(&w, "command");
        pc_json_write_stringz(&w, resume->command);
        pc_json_write_keyz(&w, "cwd");
        pc_json_write_stringz(&w, cwd);
        pc_json_write_keyz(&w, "argv");
        pc_json_write_begin_array_inline(&w);
        for (int i = 0; i < resume->argc; i++)
            pc_json_write_stringz(&w, resume->argv[i]);
        pc_json_write_end_array(&w);
        pc_json_write_keyz(&w, "planned_apis");
        pc_json_write_int(&w, (int64_t)resume->planned);
        pc_json_write_end_object(&w);
    }
    pc_json_write_end_object(&w);
    st = pc_json_writer_finish(&w);
    if (st != PC_OK) {
        pc_file_out_free(&o);
        return st;
    }
    st = pc_file_out_commit(&o);
    pc_file_out_free(&o);
    if (st == PC_OK)
        pc_path_set_file_mode(path);
    return st;
}

pc_status pc_run_identity_write(const pc_run_identity *id, const char *path, const char *command)
{
    return pc_run_record_write(id, path, command, NULL);
}

pc_status pc_run_identity_check(const pc_run_identity *id, const char *path, const char *csv,
                                bool *found)
{
    *found = false;
    struct stat st;
    if (stat(path, &st) != 0)
        return PC_OK;
    *found = true;
    /* run_ut's link rule: a record that is a link could be any file */
    pc_status s = pc_path_check_not_link(path);
    if (s != PC_OK)
        return pc_error_prefix(s, "the run record beside %s", csv);
    pc_json_doc *doc = NULL;
    s = pc_json_parse_file(&doc, path);
    if (s != PC_OK)
        return pc_error_prefix(s, "the run record beside %s is damaged", csv);
    pc_json_ref rec = pc_json_object_get(doc, 0, "identity");
    char diff[PC_ERROR_MESSAGE_MAX] = "";
    size_t used = 0;
    int differences = 0;
    for (int i = 0; i < id->count; i++) {
        const pc_run_identity_field *f = &id->fields[i];
        if (!f->decides)
            continue;
        const char *was = pc_json_string(doc, pc_json_object_get(doc, rec, f->key), NULL);
        if (!was && strcmp(f->key, "shard") == 0)
            was = "1/1"; /* a record from before shards: the whole dump */
        if (was && strcmp(was, f->value) == 0)
            continue;
        differences++;
        if (used >= sizeof diff)
            continue;
        if (strcmp(f->key, "dump_content") == 0) { /* name the dumps, not their digests */
            pc_json_ref about = pc_json_object_get(doc, 0, "about");
            const char *then = pc_json_string(doc, pc_json_object_get(doc, about, "dump"), NULL);
            const char *now = "?";
            for (int k = 0; k < id->count; k++)
                if (strcmp(id->fields[k].key, "dump") == 0)
                    now = id->fields[k].value;
            used += (size_t)snprintf(diff + used, sizeof diff - used,
                                     "%sthe dump: %s then, %s now, with other content",
                                     differences > 1 ? "; " : "", then ? then : "?", now);
            continue;
        }
        pc_excerpt then, now;
        used += (size_t)snprintf(
            diff + used, sizeof diff - used, "%s%s: %s then, %s now", differences > 1 ? "; " : "",
            f->key, was ? pc_excerpt_of(&then, was) : "(none)", pc_excerpt_of(&now, f->value));
    }
    if (differences > 0) {
        const char *cmd = pc_json_string(doc, pc_json_object_get(doc, 0, "command"), NULL);
        char command[1024];
        snprintf(command, sizeof command, "%s", cmd ? cmd : "");
        pc_json_free(doc);
        return pc_error_set(PC_ERR_INVALID,
                            "Refused to resume %s: it belongs to a run of another dump or with "
                            "other settings (%s). Resume with that run's command (%s), or start a "
                            "new run without -csv_path.",
                            csv, diff, command);
    }
    pc_json_free(doc);
    return PC_OK;
}

/* ---- the command line ---- */

static bool plain_word(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=,+-@%", *s))
            return false;
    return true;
}

static void append(char *out, size_t size, size_t *used, const char *word)
{
    if (*used >= size)
        return;
    const char *sep = *used ? " " : "";
    if (plain_word(word)) {
        *used += (size_t)snprintf(out + *used, size - *used, "%s%s", sep, word);
        return;
    }
    *used += (size_t)snprintf(out + *used, size - *used, "%s'", sep);
    for (const char *p = word; *p && *used < size; p++)
        *used += (size_t)snprintf(out + *used, size - *used, *p == '\'' ? "'\\''" : "%c", *p);
    if (*used < size)
        *used += (size_t)snprintf(out + *used, size - *used, "'");
}

static bool is_csv_path_flag(const char *a, bool *with_value)
{
    const char *names[] = {"-csv_path", "--result_csv_path"};
    for (int i = 0; i < 2; i++) {
        size_t n = strlen(names[i]);
        if (strncmp(a, names[i], n) == 0 && (a[n] == 0 || a[n] == '=')) {
            *with_value = a[n] == '=';
            return true;
        }
    }
    return false;
}

void pc_run_command_line(char *out, size_t size, int argc, char *const *argv, const char *csv)
{
    size_t used = 0;
    out[0] = 0;
    append(out, size, &used, "precheck");
    for (int i = 0; i < argc; i++) {
        bool attached = false;
        if (csv && is_csv_path_flag(argv[i], &attached)) {
            if (!attached)
                i++; /* its value */
            continue;
        }
        append(out, size, &used, argv[i]);
    }
    if (csv) {
        append(out, size, &used, "-csv_path");
        append(out, size, &used, csv);
    }
    if (used >= size && size > 4)
        memcpy(out + size - 4, "...", 4);
}

void pc_run_log_next_step(const char *dir)
{
    char line[PC_PATH_BUFFER_SIZE + 64];
    size_t used = 0;
    line[0] = 0;
    append(line, sizeof line, &used, "precheck");
    append(line, sizeof line, &used, "report");
    append(line, sizeof line, &used, dir && *dir ? dir : "./");
    pc_log_info("next: %s", line);
}

/* ---- run_ut --resume DIR ---- */

static int compare_desc(const void *a, const void *b)
{
    return strcmp(*(char *const *)b, *(char *const *)a);
}

/* The rows of the result CSV at path (its complete records after the header); -1 when it cannot
 * be read or is not a result CSV. */
static long result_rows(const char *path)
{
    char *data = NULL;
    size_t n = 0, count = 0, end = 0;
    pc_csv_record *r = NULL;
    if (pc_csv_file_read(path, &data, &n) != PC_OK)
        return -1;
    long rows = -1;
    if (pc_csv_records_split(data, n, &r, &count, &end) == PC_OK && count > 0 &&
        strcmp(r[0].first, PC_MCSV_RESULT_FIRST) == 0)
        rows = (long)count - 1;
    pc_csv_records_free(r, count);
    free(data);
    return rows;
}

/* The newest run in dir whose result CSV has fewer rows than its record plans: its record
 * (parsed, in *doc) and result CSV. */
static pc_status newest_unfinished(const char *dir, pc_json_doc **doc, char *result, size_t size,
                                   long *rows, int64_t *planned)
{
    DIR *d = opendir(dir);
    if (!d)
        return pc_error_set(PC_ERR_IO, "%s: cannot read the folder: %s", dir, strerror(errno));
    char **ts = NULL;
    size_t count = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d));) {
        const char *name = e->d_name;
        size_t len = strlen(name);
        if (len != strlen("precheck_run_") + 14 + 5 || strncmp(name, "precheck_run_", 13) != 0 ||
            strcmp(name + len - 5, ".json") != 0 || strspn(name + 13, "0123456789") != 14)
            continue;
        if (count == cap) {
            char **g = realloc(ts, (cap = cap ? cap * 2 : 16) * sizeof *ts);
            if (!g)
                break;
            ts = g;
        }
        ts[count] = malloc(15);
        if (!ts[count])
            break;
        memcpy(ts[count], name + 13, 14);
        ts[count++][14] = 0;
    }
    closedir(d);
    qsort(ts, count, sizeof *ts, compare_desc);
    size_t finished = 0, older = 0, unusable = 0;
    bool found = false;
    for (size_t i = 0; i < count && !found; i++) {
        char record[PC_PATH_BUFFER_SIZE + 80];
        pc_run_identity_path(record, sizeof record, dir, ts[i]);
        snprintf(result, size, "%s/accuracy_checking_result_%s.csv", dir, ts[i]);
        pc_json_doc *j = NULL;
        if (pc_json_parse_file(&j, record) != PC_OK) {
            unusable++;
            continue;
        }
        pc_json_ref resume = pc_json_object_get(j, 0, "resume");
        int64_t plan = -1;
        if (!resume || pc_json_object_get_int64(j, resume, "planned_apis", &plan) != PC_OK) {
            older++;
            pc_json_free(j);
            continue;
        }
        *rows = result_rows(result);
        if (*rows < 0) {
            unusable++;
            pc_json_free(j);
            continue;
        }
        if (*rows >= plan) {
            finished++;
            pc_json_free(j);
            continue;
        }
        *doc = j;
        *planned = plan;
        found = true;
    }
    for (size_t i = 0; i < count; i++)
        free(ts[i]);
    free(ts);
    if (found)
        return PC_OK;
    return pc_error_set(PC_ERR_NOT_FOUND,
                        "%s holds no unfinished run to resume (run records "
                        "precheck_run_<ts>.json: %zu; of finished runs: %zu; unreadable, or "
                        "without their result CSV: %zu; from an older precheck, without a resume "
                        "command: %zu -- resume those with -csv_path <result CSV>).",
                        dir, count, finished, unusable, older);
}

int pc_run_resume_dir(const char *dir)
{
    char resolved[PC_PATH_BUFFER_SIZE], result[PC_PATH_BUFFER_SIZE + 80];
    pc_json_doc *doc = NULL;
    long rows = 0;
    int64_t planned = 0;
    if (pc_path_check(dir, PC_PATH_DIR, PC_PATH_READ, NULL, resolved, sizeof resolved) != PC_OK ||
        newest_unfinished(resolved, &doc, result, sizeof result, &rows, &planned) != PC_OK) {
        pc_log_error("%s", pc_error_message());
        return 1;
    }
    pc_json_ref resume = pc_json_object_get(doc, 0, "resume");
    pc_json_ref args = pc_json_object_get(doc, resume, "argv");
    const char *cwd = pc_json_string(doc, pc_json_object_get(doc, resume, "cwd"), NULL);
    const char *command = pc_json_string(doc, pc_json_object_get(doc, resume, "command"), NULL);
    size_t argc = pc_json_type_of(doc, args) == PC_JSON_ARRAY ? pc_json_count(doc, args) : 0;
    char **argv = calloc(argc + 4, sizeof *argv);
    bool ok = argv && argc > 0;
    for (size_t i = 0; ok && i < argc; i++)
        ok = (argv[i + 1] =
                  (char *)(uintptr_t)pc_json_string(doc, pc_json_array_at(doc, args, i), NULL));
    if (!ok) {
        pc_log_error("The run record of %s has no command to resume it with (damaged?): resume "
                     "it with -csv_path %s and the run's options.",
                     result, result);
        free(argv);
        pc_json_free(doc);
        return 1;
    }
    argv[0] = "precheck";
    argv[argc + 1] = "-csv_path";
    argv[argc + 2] = result;
    pc_log_info("Resuming the newest unfinished run in %s: %ld of %lld APIs written to %s.",
                resolved, rows, (long long)planned, result);
    pc_log_info("Its command, run in %s: %s", cwd && *cwd ? cwd : ".", command ? command : "?");
    if (cwd && *cwd && chdir(cwd) != 0) {
        pc_log_error("The run was started in %s, which cannot be entered now (%s): resume it "
                     "from a folder where its paths hold with: %s",
                     cwd, strerror(errno), command ? command : "?");
        free(argv);
        pc_json_free(doc);
        return 1;
    }
    fflush(NULL);
    execv("/proc/self/exe", argv);
    pc_log_error("cannot start precheck again (/proc/self/exe): %s; resume with: %s",
                 strerror(errno), command ? command : "?");
    free(argv);
    pc_json_free(doc);
    return 1;
}
