/* The one safe way to write a whole file (include/precheck/io/file_out.h). */
#define _GNU_SOURCE /* mkostemps, renameat2 */

#include "precheck/io/file_out.h"

#include "precheck/io/path_check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* The temporary's suffix: mkostemps replaces the six X. */
static const char tmp_suffix[] = ".XXXXXX.partial";
enum { TMP_SUFFIX_KEEP = sizeof ".partial" - 1 };

/* How many _N suffixes PC_FILE_OUT_UNIQUE tries before it gives up. */
enum { UNIQUE_TRIES = 10000 };

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* Refuses a link or a non-file at `path`; with `must_be_free`, anything at all there. */
static pc_status check_final(const char *path, bool must_be_free)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT)
            return PC_OK;
        return pc_error_set(PC_ERR_IO, "%s: cannot look at the output's name: %s", path,
                            strerror(errno));
    }
    if (S_ISLNK(st.st_mode))
        return pc_error_set(PC_ERR_INVALID,
                            "%s is a symbolic link: precheck does not write through links in its "
                            "output folder; remove the link or choose another -o folder",
                            path);
    if (!S_ISREG(st.st_mode))
        return pc_error_set(PC_ERR_INVALID,
                            "%s exists and is not a regular file: remove it or "
                            "choose another output folder",
                            path);
    if (must_be_free)
        return pc_error_set(PC_ERR_INVALID,
                            "%s already exists: precheck never overwrites an output; move it away "
                            "or choose another output folder",
                            path);
    return PC_OK;
}

pc_status pc_file_out_check(const char *path, unsigned flags)
{
    return check_final(path, !(flags & (PC_FILE_OUT_REPLACE | PC_FILE_OUT_UNIQUE)));
}

pc_status pc_file_out_open(pc_file_out *o, const char *path, unsigned flags)
{
    *o = (pc_file_out){.flags = flags};
    pc_status st = pc_file_out_check(path, flags);
    if (st != PC_OK)
        return st;
    size_t n = strlen(path);
    o->path = dup_str(path);
    o->tmp = malloc(n + sizeof tmp_suffix);
    if (!o->path || !o->tmp) {
        free(o->path);
        free(o->tmp);
        *o = (pc_file_out){0};
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    }
    memcpy(o->tmp, path, n);
    memcpy(o->tmp + n, tmp_suffix, sizeof tmp_suffix);
    int fd = mkostemps(o->tmp, TMP_SUFFIX_KEEP, O_CLOEXEC);
    if (fd < 0) {
        st = pc_error_set(PC_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
        free(o->path);
        free(o->tmp);
        *o = (pc_file_out){0};
        return st;
    }
    /* msprobe's mode for what it writes (mkostemps makes 0600) */
    (void)fchmod(fd, PC_PATH_FILE_MODE);
    o->f = fdopen(fd, "w");
    if (!o->f) {
        st = pc_error_set(PC_ERR_NOMEM, "out of memory");
        close(fd);
        unlink(o->tmp);
        free(o->path);
        free(o->tmp);
        *o = (pc_file_out){0};
        return st;
    }
    return PC_OK;
}

/* Puts tmp at `path` only where that name is free: 0, or -1 with errno (EEXIST when taken). */
static int place_no_replace(const char *tmp, const char *path)
{
#ifdef RENAME_NOREPLACE
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
        return -1;
#endif
    /* file systems without RENAME_NOREPLACE: a hard link fails on a taken name too */
    if (link(tmp, path) == 0) {
        unlink(tmp);
        return 0;
    }
    if (errno != EPERM && errno != ENOTSUP && errno != EOPNOTSUPP)
        return -1;
    /* nor hard links (some FUSE and network file systems): look, then rename */
    struct stat st;
    if (lstat(path, &st) == 0) {
        errno = EEXIST;
        return -1;
    }
    return rename(tmp, path);
}

/* The path with "_<k>" before its extension (the last '.' of its last component). */
static char *with_suffix(const char *path, unsigned k)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t stem = dot && dot != base ? (size_t)(dot - path) : strlen(path);
    size_t n = strlen(path) + 16;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%.*s_%u%s", (int)stem, path, k, path + stem);
    return s;
}

static void sync_dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : dup_str(".");
    if (!dir)
        return;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd); /* best effort: some file systems refuse a directory's fsync */
        close(fd);
    }
    free(dir);
}

pc_status pc_file_out_commit(pc_file_out *o)
{
    if (!o->tmp)
        return pc_error_set(PC_ERR_INVALID, "%s: committed twice", o->path ? o->path : "?");
    int failed_errno = 0;
    if (ferror(o->f))
        failed_errno = errno ? errno : EIO;
    if (fflush(o->f) != 0 && !failed_errno)
        failed_errno = errno;
    if (!(o->flags & PC_FILE_OUT_NO_SYNC) && fsync(fileno(o->f)) != 0 && !failed_errno &&
        errno != EINVAL)
        failed_errno = errno;
    if (fclose(o->f) != 0 && !failed_errno)
        failed_errno = errno;
    o->f = NULL;
    if (failed_errno) {
        pc_status st =
            pc_error_set(PC_ERR_IO, "%s: cannot write: %s", o->path, strerror(failed_errno));
        pc_file_out_abort(o);
        return st;
    }
    pc_status st = PC_OK;
    if (o->flags & PC_FILE_OUT_REPLACE) {
        st = check_final(o->path, false);
        if (st == PC_OK && rename(o->tmp, o->path) != 0)
            st = pc_error_set(PC_ERR_IO, "%s: cannot write: %s", o->path, strerror(errno));
    } else if (place_no_replace(o->tmp, o->path) != 0) {
        if (errno == EEXIST && (o->flags & PC_FILE_OUT_UNIQUE)) {
            st = PC_ERR_INVALID;
            for (unsigned k = 1; k < UNIQUE_TRIES; k++) {
                char *p = with_suffix(o->path, k);
                if (!p) {
                    st = pc_error_set(PC_ERR_NOMEM, "out of memory");
                    break;
                }
                if (place_no_replace(o->tmp, p) == 0) {
                    free(o->path);
                    o->path = p;
                    st = PC_OK;
                    break;
                }
                int e = errno;
                free(p);
                if (e != EEXIST) {
                    st = pc_error_set(PC_ERR_IO, "%s: cannot write: %s", o->path, strerror(e));
                    break;
                }
            }
            if (st == PC_ERR_INVALID)
                st = pc_error_set(PC_ERR_INVALID, "%s: %d names taken, none free", o->path,
                                  UNIQUE_TRIES);
        } else if (errno == EEXIST) {
            st = check_final(o->path, true);
        } else {
            st = pc_error_set(PC_ERR_IO, "%s: cannot write: %s", o->path, strerror(errno));
        }
    }
    if (st != PC_OK) {
        pc_file_out_abort(o);
        return st;
    }
    if (!(o->flags & PC_FILE_OUT_NO_SYNC))
        sync_dir_of(o->path);
    free(o->tmp);
    o->tmp = NULL;
    return PC_OK;
}

void pc_file_out_abort(pc_file_out *o)
{
    if (o->f) {
        fclose(o->f);
        o->f = NULL;
    }
    if (o->tmp) {
        unlink(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
    }
}

void pc_file_out_free(pc_file_out *o)
{
    pc_file_out_abort(o);
    free(o->path);
    o->path = NULL;
}

pc_status pc_file_write_whole(const char *path, const void *data, size_t n, unsigned flags,
                              char **used_path)
{
    pc_file_out o;
    pc_status st = pc_file_out_open(&o, path, flags);
    if (st != PC_OK)
        return st;
    if (n && fwrite(data, 1, n, o.f) != n) {
        int e = errno;
        st = pc_error_set(PC_ERR_IO, "%s: cannot write: %s", path, strerror(e ? e : EIO));
        pc_file_out_free(&o);
        return st;
    }
    st = pc_file_out_commit(&o);
    if (st == PC_OK && used_path) {
        *used_path = o.path;
        o.path = NULL;
    }
    pc_file_out_free(&o);
    return st;
}
