/* The run lock (io/run_lock.h): flock(2) on the run's result CSV, the holder named from
 * /proc/locks. */
#define _GNU_SOURCE
#include "precheck/io/run_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* ---- the descriptors this process holds, closed in every forked child ---- */

enum { HELD_MAX = 8 };
static int held[HELD_MAX] = {-1, -1, -1, -1, -1, -1, -1, -1};
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* In a child of fork(): the lock stays the parent's alone. Closing our copy of the descriptor
 * does not release it (the parent's copy still refers to the locked open file). */
static void close_in_child(void)
{
    for (int i = 0; i < HELD_MAX; i++)
        if (held[i] >= 0) {
            close(held[i]);
            held[i] = -1;
        }
}

static void register_atfork(void)
{
    pthread_atfork(NULL, NULL, close_in_child);
}

static void hold(int fd)
{
    pthread_once(&atfork_once, register_atfork);
    for (int i = 0; i < HELD_MAX; i++)
        if (held[i] < 0) {
            held[i] = fd;
            return;
        }
}

static void drop(int fd)
{
    if (fd < 0)
        return;
    for (int i = 0; i < HELD_MAX; i++)
        if (held[i] == fd)
            held[i] = -1;
    close(fd);
}

/* ---- who holds it ---- */

pid_t pc_run_lock_holder(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return 0;
    FILE *f = fopen("/proc/locks", "re");
    if (!f)
        return 0;
    char line[512];
    pid_t found = 0;
    /* "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; waiters' lines have "->" */
    while (!found && fgets(line, sizeof line, f)) {
        char kind[16], mode[16], access[16];
        long pid;
        unsigned maj, min;
        unsigned long long ino;
        if (strstr(line, "->"))
            continue;
        if (sscanf(line, "%*d: %15s %15s %15s %ld %x:%x:%llu", kind, mode, access, &pid, &maj, &min,
                   &ino) != 7)
            continue;
        if (strcmp(kind, "FLOCK") != 0 || pid <= 0)
            continue;
        if (maj == major(st.st_dev) && min == minor(st.st_dev) &&
            ino == (unsigned long long)st.st_ino)
            found = (pid_t)pid;
    }
    fclose(f);
    return found;
}

/* ---- taking and giving back ---- */

static pc_status busy(const char *path)
{
    pid_t pid = pc_run_lock_holder(path);
    char who[64];
    if (pid > 0)
        snprintf(who, sizeof who, "process %ld", (long)pid);
    else
        snprintf(who, sizeof who, "another process");
    return pc_error_set(PC_ERR_INVALID,
                        "%s is being written by %s (a run_ut of this run is still running, or "
                        "another resume of it): one run has one writer. Wait for it to end, or "
                        "stop it (its interrupted log gives the resume command), then resume; "
                        "nothing was changed.",
                        path, who);
}

pc_status pc_run_lock_take(pc_run_lock *l, const char *path)
{
    l->fd = l->next_fd = -1;
    /* a writer that replaces the file moves its lock to the new one first: retry when the name
     * changed hands between our open and our lock */
    for (int tries = 0; tries < 100; tries++) {
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
            return pc_error_set(PC_ERR_IO, "%s: cannot open to lock: %s", path, strerror(errno));
        int r;
        while ((r = flock(fd, LOCK_EX | LOCK_NB)) != 0 && errno == EINTR)
            ;
        if (r != 0) {
            int e = errno;
            close(fd);
            if (e == EWOULDBLOCK)
                return busy(path);
            return pc_error_set(PC_ERR_IO, "%s: cannot lock: %s", path, strerror(e));
        }
        struct stat a, b;
        if (fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
            a.st_ino == b.st_ino) {
            l->fd = fd;
            hold(fd);
            return PC_OK;
        }
        close(fd);
    }
    return pc_error_set(PC_ERR_IO, "%s: cannot lock: the file keeps being replaced", path);
}

pc_status pc_run_lock_adopt(pc_run_lock *l, const char *new_path)
{
    int fd = open(new_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return pc_error_set(PC_ERR_IO, "%s: cannot open to lock: %s", new_path, strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        pc_status st = pc_error_set(PC_ERR_IO, "%s: cannot lock: %s", new_path, strerror(errno));
        close(fd);
        return st;
    }
    hold(fd);
    l->next_fd = fd;
    return PC_OK;
}

void pc_run_lock_adopt_done(pc_run_lock *l, bool renamed)
{
    if (l->next_fd < 0)
        return;
    if (renamed) {
        drop(l->fd);
        l->fd = l->next_fd;
    } else {
        drop(l->next_fd);
    }
    l->next_fd = -1;
}

void pc_run_lock_release(pc_run_lock *l)
{
    drop(l->next_fd);
    drop(l->fd);
    l->fd = l->next_fd = -1;
}
