/*
 * The one way precheck writes a whole file (docs/RELIABILITY.md, "Files"): every output that is
 * not appended row by row (summaries, run records, reports, error-data tensors, merged and
 * compared CSVs, repaired CSVs, caches) goes through here.
 *
 *   1. The final name is looked at without following links: a symbolic link (or anything but a
 *      regular file) there is refused, so a link planted at a predictable name in a shared
 *      results folder never makes precheck write through it.
 *   2. The bytes go to a fresh temporary beside the final name, `<final>.XXXXXX.partial`, made
 *      with O_CREAT|O_EXCL (mkostemps: never an existing file, never through a link), mode
 *      PC_PATH_FILE_MODE.
 *   3. pc_file_out_commit() flushes, fsyncs and closes it, then puts it in place in one step:
 *      - by default only where the final name is free (renameat2's RENAME_NOREPLACE, or link()
 *        then unlink() where the file system lacks it): an existing output is never
 *        overwritten, PC_ERR_INVALID "... already exists";
 *      - PC_FILE_OUT_UNIQUE: a taken name is given the first free suffix `_1`, `_2`, ...
 *        before its extension (`precheck_report_<ts>_1.html`); the name used is in o->path;
 *      - PC_FILE_OUT_REPLACE: an existing regular file is replaced atomically (rename), for files
 *        precheck owns and rewrites whole (a repaired CSV, a cache entry).
 *      Readers see the old file or the whole new one, never a part; a crash leaves at most a
 *      `.partial` temporary, never a truncated output under the final name.
 *   4. pc_file_out_abort() (or any failure) removes the temporary.
 *
 * Errors (with the message set, pc_error_set): PC_ERR_INVALID for a link or a non-file at the
 * final name and for a taken name; PC_ERR_IO for a failed create, write, fsync or rename (the
 * message names the final path and strerror, e.g. "No space left on device"); PC_ERR_NOMEM.
 *
 * Ownership: a pc_file_out owns its stream and both path strings until commit or abort, after
 * which only o->path stays valid (the caller frees it with pc_file_out_free). Not thread-safe
 * per object; distinct objects may be used on distinct threads.
 */
#ifndef PC_IO_FILE_OUT_H
#define PC_IO_FILE_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "precheck/core/status.h"

enum {
    PC_FILE_OUT_REPLACE = 1u << 0, /* replace an existing regular file at the final name */
    PC_FILE_OUT_UNIQUE = 1u << 1,  /* a taken final name gets the first free _N suffix */
    PC_FILE_OUT_NO_SYNC = 1u << 2, /* skip fsync (bulk files that are no record of the run) */
};

typedef struct pc_file_out {
    FILE *f;    /* write here between open and commit (fprintf, fwrite, ...) */
    char *path; /* the final name; with PC_FILE_OUT_UNIQUE the one actually used */
    char *tmp;  /* the temporary, NULL once committed or aborted */
    unsigned flags;
} pc_file_out;

/* Creates the temporary for `path` (whose folder must exist) and opens o->f on it. On failure
 * nothing is left on disk and *o needs no pc_file_out_free. */
pc_status pc_file_out_open(pc_file_out *o, const char *path, unsigned flags);

/* Finishes the file: a write error seen on o->f (ferror), or a failing fflush, fsync or close,
 * fails the commit; then the temporary takes the final name as the flags say. On failure the
 * temporary is removed. o->path stays valid either way. */
pc_status pc_file_out_commit(pc_file_out *o);

/* Closes and removes the temporary (nothing happens to the final name). Safe after commit. */
void pc_file_out_abort(pc_file_out *o);

/* Aborts if still open, then frees o->path. */
void pc_file_out_free(pc_file_out *o);

/* Writes n bytes as one whole file at `path` (open, fwrite, commit, free). When used_path is not
 * NULL it receives a malloc'd copy of the name used (PC_FILE_OUT_UNIQUE); free() it. */
pc_status pc_file_write_whole(const char *path, const void *data, size_t n, unsigned flags,
                              char **used_path);

/* The check pc_file_out_open() makes of the final name, alone, for a command that wants to refuse
 * before it starts writing several files: a link or a non-file is refused and, without
 * PC_FILE_OUT_REPLACE or PC_FILE_OUT_UNIQUE, so is an existing file. */
pc_status pc_file_out_check(const char *path, unsigned flags);

#endif
