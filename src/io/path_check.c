#include "precheck/io/path_check.h"

#include "io/path_check_impl.h"
#include "precheck/core/hashmap.h"
#include "precheck/core/log.h"
#include "precheck/core/strbuf.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* msprobe's create_directory gives up past this many nested calls (one per missing level). */
enum { CREATE_DEPTH_MAX = 16 };

/* Symlinks followed inside one another before a path counts as a loop. Python has no such limit
 * but runs out of recursion; the kernel stops at 40. */
enum { RESOLVE_DEPTH_MAX = 256 };

/* ---------------------------------------------------------------------------------------------
 * Testing hooks (path_check_impl.h)
 * ------------------------------------------------------------------------------------------- */

static long testing_uid = -1;
static int (*testing_access)(const char *path, int mode);

void pc_path_testing_set_uid(long uid)
{
    testing_uid = uid;
}

void pc_path_testing_set_access(int (*access_fn)(const char *path, int mode))
{
    testing_access = access_fn;
}

static long current_uid(void)
{
    return testing_uid >= 0 ? testing_uid : (long)getuid();
}

static bool can_access(const char *path, int mode)
{
    return (testing_access ? testing_access(path, mode) : access(path, mode)) == 0;
}

/* ---------------------------------------------------------------------------------------------
 * Warnings logged once per (kind, path), like msprobe's dedup_log: the keys "kind\xffpath" in a
 * map that owns them.
 * ------------------------------------------------------------------------------------------- */

static pthread_mutex_t warned_lock = PTHREAD_MUTEX_INITIALIZER;
static pc_strmap warned = {.own_keys = true};

void pc_path_testing_forget_warnings(void)
{
    pthread_mutex_lock(&warned_lock);
    pc_strmap_free(&warned);
    pthread_mutex_unlock(&warned_lock);
}

/* True the first time it is asked about (kind, path); also true when memory runs out, since a
 * repeated warning is better than a lost one. */
static bool warn_first_time(const char *kind, const char *path)
{
    char fixed[256];
    pc_strbuf key;
    pc_strbuf_init(&key, fixed, sizeof fixed, 0);
    pc_strbuf_appends(&key, kind);
    pc_strbuf_appendc(&key, '\xff');
    pc_strbuf_appends(&key, path);
    bool first = true;
    if (!pc_strbuf_error(&key)) {
        pthread_mutex_lock(&warned_lock);
        pc_strmap_entry *e = pc_strmap_put(&warned, key.data, key.len, &first);
        if (!e)
            first = true;
        pthread_mutex_unlock(&warned_lock);
    }
    pc_strbuf_reset(&key);
    return first;
}

/* ---------------------------------------------------------------------------------------------
 * Path text in core's pc_strbuf
 * ------------------------------------------------------------------------------------------- */

static void sb_set(pc_strbuf *b, const char *s, size_t n)
{
    pc_strbuf_truncate(b, 0);
    pc_strbuf_append(b, s, n);
}

/* The contents as a C string ("" when empty); NULL only after a failed allocation. */
static const char *sb_str(pc_strbuf *b)
{
    return pc_strbuf_error(b) ? NULL : pc_strbuf_str(b);
}

/* posixpath.join(path, name) for a name without slashes. */
static void sb_join(pc_strbuf *b, const char *name, size_t n)
{
    if (b->len > 0 && b->data[b->len - 1] != '/')
        pc_strbuf_append(b, "/", 1);
    pc_strbuf_append(b, name, n);
}

/* posixpath.split(): leaves the head in b (trailing slashes removed unless it is all slashes)
 * and returns the tail's offset in the old contents, which stay in place past the new end. */
static size_t sb_split(pc_strbuf *b, size_t *tail_len)
{
    size_t cut = b->len;
    while (cut > 0 && b->data[cut - 1] != '/')
        cut--;
    *tail_len = b->len - cut;
    size_t head = cut;
    while (head > 0 && b->data[head - 1] == '/')
        head--;
    if (head == 0)
        head = cut; /* all slashes (or empty): keep them */
    b->len = head;  /* no NUL yet: the tail is still read by the caller */
    return cut;
}

/* ---------------------------------------------------------------------------------------------
 * Python's path arithmetic: normpath/abspath (lexical) and realpath (non-strict)
 * ------------------------------------------------------------------------------------------- */

/* Appends posixpath.normpath(path) to out (which must be empty). */
static void normpath_into(pc_strbuf *out, const char *path)
{
    size_t initial = 0;
    if (path[0] == '/')
        initial = (path[1] == '/' && path[2] != '/') ? 2 : 1;
    pc_strbuf_append(out, "//", initial);
    const char *p = path;
    while (*p) {
        while (*p == '/')
            p++;
        const char *start = p;
        while (*p && *p != '/')
            p++;
        size_t n = (size_t)(p - start);
        if (n == 0 || (n == 1 && start[0] == '.'))
            continue;
        bool dotdot = n == 2 && start[0] == '.' && start[1] == '.';
        if (pc_strbuf_error(out))
            return;
        bool empty = out->len == initial;
        size_t last = out->len; /* start of the last component */
        while (last > initial && out->data[last - 1] != '/')
            last--;
        bool top_dotdot =
            !empty && out->len - last == 2 && out->data[last] == '.' && out->data[last + 1] == '.';
        if (!dotdot || (initial == 0 && empty) || top_dotdot) {
            if (!empty)
                pc_strbuf_append(out, "/", 1);
            pc_strbuf_append(out, start, n);
        } else if (!empty) {
            pc_strbuf_truncate(out, last > initial ? last - 1 : initial);
        }
    }
    if (!pc_strbuf_error(out) && out->len == 0)
        pc_strbuf_append(out, ".", 1);
}

static pc_status getcwd_into(pc_strbuf *out)
{
    size_t size = 256;
    for (;;) {
        size_t len = out->len;
        char *room = pc_strbuf_extend(out, size);
        if (!room)
            return PC_ERR_NOMEM;
        pc_strbuf_truncate(out, len);
        if (getcwd(room, size))
            break;
        if (errno != ERANGE)
            return pc_error_set(PC_ERR_IO, "cannot read the current directory: %s",
                                strerror(errno));
        size *= 2;
    }
    out->len += strlen(out->data + out->len); /* what getcwd wrote past the end */
    return PC_OK;
}

/* posixpath.abspath(path): *result is malloc'd. */
static pc_status abspath(const char *path, char **result)
{
    pc_strbuf joined = PC_STRBUF_INIT;
    if (path[0] != '/') {
        pc_status s = getcwd_into(&joined);
        if (s != PC_OK) {
            pc_strbuf_reset(&joined);
            return s;
        }
        if (path[0])
            pc_strbuf_append(&joined, "/", 1);
    }
    pc_strbuf_append(&joined, path, strlen(path));
    pc_strbuf out = PC_STRBUF_INIT;
    bool failed = pc_strbuf_error(&joined) != PC_STRBUF_OK;
    if (!failed)
        normpath_into(&out, pc_strbuf_str(&joined));
    pc_strbuf_reset(&joined);
    if (failed || !sb_str(&out)) {
        pc_strbuf_reset(&out);
        return pc_error_set(PC_ERR_NOMEM, "out of memory while resolving %s", path);
    }
    *result = pc_strbuf_finish(&out, NULL); /* not NULL: out holds at least "." on the heap */
    return PC_OK;
}

typedef struct seen_link {
    char *link;
    char *resolved; /* NULL while the link is being resolved */
} seen_link;

typedef struct seen_set {
    seen_link *items;
    size_t count, cap;
    bool failed;
} seen_set;

static seen_link *seen_find(seen_set *seen, const char *link)
{
    for (size_t i = 0; i < seen->count; i++)
        if (strcmp(seen->items[i].link, link) == 0)
            return &seen->items[i];
    return NULL;
}

static seen_link *seen_add(seen_set *seen, const char *link)
{
    if (seen->count == seen->cap) {
        size_t cap = seen->cap ? seen->cap * 2 : 8;
        seen_link *items = realloc(seen->items, cap * sizeof *items);
        if (!items)
            return NULL;
        seen->items = items;
        seen->cap = cap;
    }
    char *copy = strdup(link);
    if (!copy)
        return NULL;
    seen->items[seen->count] = (seen_link){copy, NULL};
    return &seen->items[seen->count++];
}

static void seen_free(seen_set *seen)
{
    for (size_t i = 0; i < seen->count; i++) {
        free(seen->items[i].link);
        free(seen->items[i].resolved);
    }
    free(seen->items);
}

/* readlink() into a malloc'd string, or NULL. */
static char *read_link(const char *path)
{
    size_t size = 256;
    for (;;) {
        char *buf = malloc(size);
        if (!buf)
            return NULL;
        ssize_t n = readlink(path, buf, size);
        if (n < 0) {
            free(buf);
            return NULL;
        }
        if ((size_t)n < size) {
            buf[n] = '\0';
            return buf;
        }
        free(buf);
        size *= 2;
    }
}

/* posixpath._joinrealpath: resolves `rest` on top of the already resolved `path`. Returns false
 * when a symlink loop stopped it (path then holds the unresolved remainder appended), or when
 * memory ran out (seen->failed or pc_strbuf_error(path)). */
static bool join_real(pc_strbuf *path, const char *rest, seen_set *seen, int depth)
{
    if (rest[0] == '/') {
        sb_set(path, "/", 1);
        rest++;
    }
    pc_strbuf newpath = PC_STRBUF_INIT;
    bool ok = true;
    while (*rest && !pc_strbuf_error(path)) {
        const char *name = rest;
        while (*rest && *rest != '/')
            rest++;
        size_t n = (size_t)(rest - name);
        if (*rest == '/')
            rest++;
        if (n == 0 || (n == 1 && name[0] == '.'))
            continue;
        if (n == 2 && name[0] == '.' && name[1] == '.') {
            if (path->len > 0) {
                size_t tail_len;
                size_t tail = sb_split(path, &tail_len);
                bool was_dotdot =
                    tail_len == 2 && path->data[tail] == '.' && path->data[tail + 1] == '.';
                if (path->data)
                    path->data[path->len] = '\0'; /* the tail is read: end the head */
                if (was_dotdot) {
                    sb_join(path, "..", 2);
                    sb_join(path, "..", 2);
                }
            } else {
                sb_set(path, "..", 2);
            }
            continue;
        }
        sb_set(&newpath, path->data ? path->data : "", path->len);
        sb_join(&newpath, name, n);
        if (!sb_str(&newpath)) {
            path->err = PC_STRBUF_NOMEM;
            break;
        }
        struct stat st;
        bool is_link = lstat(newpath.data, &st) == 0 && S_ISLNK(st.st_mode);
        char *target = is_link ? read_link(newpath.data) : NULL;
        if (!target) {
            sb_set(path, newpath.data, newpath.len);
            continue;
        }
        seen_link *known = seen_find(seen, newpath.data);
        if (known && known->resolved) {
            sb_set(path, known->resolved, strlen(known->resolved));
            free(target);
            continue;
        }
        if (known || depth >= RESOLVE_DEPTH_MAX) {
            /* A loop: give the rest back unresolved, as Python does. */
            free(target);
            sb_set(path, newpath.data, newpath.len);
            if (*rest)
                sb_join(path, rest, strlen(rest));
            ok = false;
            break;
        }
        if (!seen_add(seen, newpath.data)) {
            free(target);
            seen->failed = true;
            ok = false;
            break;
        }
        size_t index = seen->count - 1; /* items may move when the set grows */
        bool inner = join_real(path, target, seen, depth + 1);
        free(target);
        if (!inner) {
            if (*rest && !seen->failed)
                sb_join(path, rest, strlen(rest));
            ok = false;
            break;
        }
        if (!sb_str(path))
            break;
        seen->items[index].resolved = strdup(path->data);
        if (!seen->items[index].resolved) {
            seen->failed = true;
            ok = false;
            break;
        }
    }
    pc_strbuf_reset(&newpath);
    return ok && !pc_strbuf_error(path);
}

pc_status pc_path_resolve(const char *path, char **resolved)
{
    *resolved = NULL;
    pc_strbuf joined = PC_STRBUF_INIT;
    seen_set seen = {0};
    pc_strbuf_append(&joined, "", 0);
    join_real(&joined, path, &seen, 0);
    bool failed = pc_strbuf_error(&joined) || seen.failed;
    seen_free(&seen);
    if (failed) {
        pc_strbuf_reset(&joined);
        return pc_error_set(PC_ERR_NOMEM, "out of memory while resolving %s", path);
    }
    pc_status s = abspath(pc_strbuf_str(&joined), resolved);
    pc_strbuf_reset(&joined);
    return s;
}

/* ---------------------------------------------------------------------------------------------
 * Small predicates
 * ------------------------------------------------------------------------------------------- */

/* Characters as Python counts them in a path decoded with surrogateescape: one per valid UTF-8
 * sequence, one per byte of anything else. */
static size_t count_chars(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t count = 0, i = 0;
    while (i < n) {
        unsigned c = p[i];
        size_t len = 1;
        unsigned min = 0, cp = 0;
        if (c >= 0xc2 && c <= 0xdf) {
            len = 2, cp = c & 0x1f, min = 0x80;
        } else if (c >= 0xe0 && c <= 0xef) {
            len = 3, cp = c & 0x0f, min = 0x800;
        } else if (c >= 0xf0 && c <= 0xf4) {
            len = 4, cp = c & 0x07, min = 0x10000;
        }
        bool valid = len > 1 && i + len <= n;
        for (size_t k = 1; valid && k < len; k++) {
            if ((p[i + k] & 0xc0) != 0x80)
                valid = false;
            else
                cp = (cp << 6) | (p[i + k] & 0x3f);
        }
        if (valid && (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)))
            valid = false;
        i += valid ? len : 1;
        count++;
    }
    return count;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* posixpath.dirname() of a resolved (absolute, normalised) path, malloc'd. */
static char *dir_name(const char *path)
{
    size_t cut = (size_t)(base_name(path) - path);
    size_t head = cut;
    while (head > 0 && path[head - 1] == '/')
        head--;
    if (head == 0)
        head = cut;
    char *dir = malloc(head + 1);
    if (dir) {
        memcpy(dir, path, head);
        dir[head] = '\0';
    }
    return dir;
}

static bool too_long(const char *whole, const char *name)
{
    return count_chars(whole, strlen(whole)) > PC_PATH_LENGTH_MAX ||
           count_chars(name, strlen(name)) > PC_PATH_NAME_LENGTH_MAX;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool pc_path_chars_valid(const char *path, bool allow_colon)
{
    if (!path || !*path)
        return false;
    for (const char *p = path; *p; p++) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '.' || c == '/' || c == '-' || (allow_colon && c == ':');
        if (!ok)
            return false;
    }
    return true;
}

#define GIB (1024ull * 1024 * 1024)

static const struct {
    const char *suffix;
    uint64_t limit;
} size_limits[] = {
    {".pkl", 1 * GIB},  {".npy", 10 * GIB}, {".json", 10 * GIB}, {".pt", 10 * GIB},
    {".csv", 1 * GIB},  {".xlsx", 1 * GIB}, {".yaml", 1 * GIB},  {".ir", 1 * GIB},
    {".zip", 10 * GIB}, {".log", 10 * GIB}, {".db", 10 * GIB},
};

uint64_t pc_path_size_limit(const char *path)
{
    for (size_t i = 0; i < sizeof size_limits / sizeof size_limits[0]; i++)
        if (ends_with(path, size_limits[i].suffix))
            return size_limits[i].limit;
    return 1024 * 1024;
}

/* ---------------------------------------------------------------------------------------------
 * The checks
 * ------------------------------------------------------------------------------------------- */

/* msprobe's check_link: the given path made absolute lexically must not be a symlink. */
static pc_status check_not_link(const char *path)
{
    char *abs;
    pc_status s = abspath(path, &abs);
    if (s != PC_OK)
        return s;
    struct stat st;
    bool link = lstat(abs, &st) == 0 && S_ISLNK(st.st_mode);
    free(abs);
    if (link)
        return pc_error_set(PC_ERR_INVALID, "The file path %s is a soft link.", path);
    return PC_OK;
}

pc_status pc_path_check_not_link(const char *path)
{
    if (!path)
        return pc_error_set(PC_ERR_INVALID, "no path given");
    return check_not_link(path);
}

static pc_status check_owner(const char *real, const struct stat *st)
{
    long uid = current_uid();
    if (uid != 0 && (long)st->st_uid != uid)
        return pc_error_set(PC_ERR_INVALID,
                            "The file path %s may be insecure because is does not belong to you.",
                            real);
    return PC_OK;
}

static void warn_about_parent(const char *real)
{
    char *dir = dir_name(real);
    if (!dir)
        return;
    struct stat st;
    if (warn_first_time("check_dirpath_before_read", dir) && stat(dir, &st) == 0) {
        if (st.st_mode & S_IWOTH)
            pc_log_warning("The directory is writable by others: %s.", dir);
        long uid = current_uid();
        if (uid != 0 && (long)st.st_uid != uid)
            pc_log_warning("The directory %s is not yours.", dir);
    }
    free(dir);
}

/* Checks 3-11 on the resolved path. */
static pc_status check_resolved(const char *real, pc_path_kind kind, unsigned access,
                                const char *suffix)
{
    if (too_long(real, base_name(real)))
        return pc_error_set(PC_ERR_INVALID, "The file path length exceeds limit.");
    struct stat st;
    bool found = stat(real, &st) == 0;
    if (kind == PC_PATH_FILE && !(found && S_ISREG(st.st_mode))) {
        /* a rank folder given where its dump.json was meant */
        char inner[PC_PATH_BUFFER_SIZE + 16];
        struct stat ist;
        if (found && S_ISDIR(st.st_mode) &&
            snprintf(inner, sizeof inner, "%s/dump.json", real) < (int)sizeof inner &&
            stat(inner, &ist) == 0 && S_ISREG(ist.st_mode))
            return pc_error_set(PC_ERR_INVALID,
                                "The %s should be a file! It is a folder: did you mean %s?", real,
                                inner);
        return pc_error_set(PC_ERR_INVALID, "The %s should be a file!", real);
    }
    if (kind == PC_PATH_DIR && !(found && S_ISDIR(st.st_mode)))
        return pc_error_set(PC_ERR_INVALID, "The %s should be a dictionary!", real);
    if ((access & PC_PATH_READ) && !can_access(real, R_OK))
        return pc_error_set(PC_ERR_INVALID, "The file path %s is not readable.", real);
    if ((access & PC_PATH_WRITE) && !can_access(real, W_OK))
        return pc_error_set(PC_ERR_INVALID, "The file path %s is not writable.", real);
    pc_status s = check_owner(real, &st);
    if (s != PC_OK)
        return s;
    if (!pc_path_chars_valid(real, true))
        return pc_error_set(PC_ERR_INVALID,
                            "The file path %s contains special characters." PC_PATH_CHARS_HINT,
                            real);
    if (S_ISREG(st.st_mode)) {
        uint64_t limit = pc_path_size_limit(real);
        if ((uint64_t)st.st_size >= limit)
            return pc_error_set(PC_ERR_RANGE,
                                "The size (%lld) of %s exceeds (%llu) bytes, tools not support.",
                                (long long)st.st_size, real, (unsigned long long)limit);
    }
    if (suffix && *suffix && !ends_with(real, suffix))
        return pc_error_set(PC_ERR_INVALID, "The %s should be a %s file!", real, suffix);
    /* As in msprobe, the first check of a path uses up its warning, group-writable or not. */
    if (warn_first_time("check_path_no_others_write", real) && (st.st_mode & S_IWGRP))
        pc_log_warning("The directory/file path is writable by group: %s.", real);
    if (st.st_mode & S_IWOTH)
        return pc_error_set(PC_ERR_INVALID,
                            "The directory/file must not allow write access to others. "
                            "Directory/File path: %s",
                            real);
    if (kind == PC_PATH_FILE)
        warn_about_parent(real);
    return PC_OK;
}

pc_status pc_path_check(const char *path, pc_path_kind kind, unsigned access,
                        const char *required_suffix, char *resolved, size_t resolved_size)
{
    if (!path)
        return pc_error_set(PC_ERR_INVALID, "no path given");
    struct stat st;
    if (stat(path, &st) != 0)
        return pc_error_set(PC_ERR_NOT_FOUND, "The file path %s does not exist.", path);
    pc_status s = check_not_link(path);
    if (s != PC_OK)
        return s;
    char *real;
    s = pc_path_resolve(path, &real);
    if (s != PC_OK)
        return s;
    s = check_resolved(real, kind, access, required_suffix);
    if (s == PC_OK && resolved) {
        size_t n = strlen(real);
        if (n + 1 > resolved_size)
            s = pc_error_set(PC_ERR_RANGE, "The resolved path of %s does not fit in %zu bytes.",
                             path, resolved_size);
        else
            memcpy(resolved, real, n + 1);
    }
    free(real);
    return s;
}

pc_status pc_path_check_before_create(const char *path)
{
    if (!path)
        return pc_error_set(PC_ERR_INVALID, "no path given");
    pc_status s = check_not_link(path);
    if (s != PC_OK)
        return s;
    char *real;
    s = pc_path_resolve(path, &real);
    if (s != PC_OK)
        return s;
    if (too_long(real, base_name(path)))
        s = pc_error_set(PC_ERR_INVALID, "The file path length exceeds limit.");
    else if (!pc_path_chars_valid(real, false))
        s = pc_error_set(PC_ERR_INVALID,
                         "The file path %s contains special characters." PC_PATH_DIR_CHARS_HINT,
                         path);
    free(real);
    return s;
}

/* msprobe's make_dir, on a path create_directory() has resolved. */
static pc_status make_one_dir(const char *path)
{
    pc_status s = pc_path_check_before_create(path);
    if (s != PC_OK)
        return s;
    char *real;
    s = pc_path_resolve(path, &real);
    if (s != PC_OK)
        return s;
    if (is_dir(real)) {
        free(real);
        return PC_OK;
    }
    if (mkdir(real, PC_PATH_DIR_MODE) != 0 && !(errno == EEXIST && is_dir(real))) {
        int err = errno;
        s = pc_error_set(PC_ERR_IO,
                         "Failed to create %s. Please check the path permission or disk space. "
                         "[Errno %d] %s: '%s'",
                         real, err, strerror(err), real);
    } else {
        s = pc_path_check(real, PC_PATH_DIR, 0, NULL, NULL, 0);
    }
    free(real);
    return s;
}

static pc_status create_directory(const char *path, int depth)
{
    if (depth > CREATE_DEPTH_MAX)
        return pc_error_set(PC_ERR_INVALID, "call msprobe.core.common.file_utils."
                                            "create_directory exceeds the recursion limit.");
    pc_status s = pc_path_check_before_create(path);
    if (s != PC_OK)
        return s;
    char *real;
    s = pc_path_resolve(path, &real);
    if (s != PC_OK)
        return s;
    char *parent = dir_name(real);
    if (!parent) {
        free(real);
        return pc_error_set(PC_ERR_NOMEM, "out of memory while creating %s", path);
    }
    if (!is_dir(parent))
        s = create_directory(parent, depth + 1);
    free(parent);
    if (s == PC_OK)
        s = make_one_dir(real);
    free(real);
    return s;
}

pc_status pc_path_make_dir(const char *path)
{
    if (!path)
        return pc_error_set(PC_ERR_INVALID, "no path given");
    return create_directory(path, 1);
}

pc_status pc_path_set_file_mode(const char *path)
{
    if (!path)
        return pc_error_set(PC_ERR_INVALID, "no path given");
    struct stat st;
    if (stat(path, &st) != 0 || (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)))
        return PC_OK;
    if (chmod(path, PC_PATH_FILE_MODE) != 0) {
        int err = errno;
        return pc_error_set(PC_ERR_IO, "Failed to change %s authority. [Errno %d] %s: '%s'", path,
                            err, strerror(err), path);
    }
    return PC_OK;
}
