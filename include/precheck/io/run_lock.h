/*
 * The run lock: one writer per run (docs/run_ut.md, "One writer per run"). The process that
 * appends to a run's CSVs -- a new run, a resume (-csv_path), rank 0 under mpirun -- holds an
 * exclusive flock(2) on the run's result CSV until it exits. A second writer (a resume while the
 * run is alive, two resumes at once, a scheduler's restart) cannot take it and is refused before
 * it reads or changes a byte, with the PID of the holder where the system says it.
 *
 *   - There is no lock file: the kernel drops the lock when the holder's last descriptor of it
 *     closes, so a run killed with SIGKILL leaves nothing to clean up.
 *   - Processes forked by the holder (the pool's workers, a backend's helpers) would share the
 *     lock through the inherited descriptor and could keep it after the writer died: a fork
 *     handler closes every held lock descriptor in each child, so only the writer holds it.
 *   - A writer that replaces the result CSV (a resume normalising line endings writes a new file
 *     and renames it over the old one) moves the lock to the new file before the rename
 *     (pc_run_lock_adopt); pc_run_lock_take checks after locking that the path still names the
 *     locked file, so it never holds the lock of a file that was replaced meanwhile.
 *
 * Errors (with the message set): PC_ERR_INVALID when another process holds the lock
 * ("... is being written by process 1234 ..."), PC_ERR_IO when the file cannot be opened or
 * locked. Ownership: a pc_run_lock owns its descriptor until pc_run_lock_release. Not
 * thread-safe per object.
 */
#ifndef PC_IO_RUN_LOCK_H
#define PC_IO_RUN_LOCK_H

#include <stdbool.h>
#include <sys/types.h>

#include "precheck/core/status.h"

typedef struct pc_run_lock {
    int fd;      /* -1: not held */
    int next_fd; /* between pc_run_lock_adopt and pc_run_lock_adopt_done, else -1 */
} pc_run_lock;

#define PC_RUN_LOCK_INIT                                                                           \
    {                                                                                              \
        -1, -1                                                                                     \
    }

/* Takes the exclusive lock of the file at path (which must exist) without waiting. */
pc_status pc_run_lock_take(pc_run_lock *l, const char *path);

/* The lock moves to the file at new_path (a fresh file of the caller's, about to be renamed over
 * the locked one): it is locked now, and the old file's lock is released once
 * pc_run_lock_adopt_done is called after the rename. Call pc_run_lock_adopt_done(l, false) when
 * the rename failed (the new lock is dropped, the old one kept). */
pc_status pc_run_lock_adopt(pc_run_lock *l, const char *new_path);
void pc_run_lock_adopt_done(pc_run_lock *l, bool renamed);

/* Releases the lock (nothing happens when it is not held). */
void pc_run_lock_release(pc_run_lock *l);

/* The PID of a process that holds a flock on the file at path, from /proc/locks (its device and
 * inode); 0 when none is found or the system does not say. */
pid_t pc_run_lock_holder(const char *path);

#endif
