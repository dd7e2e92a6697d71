/* The run lock (io/run_lock.h), between real processes: a second taker is refused and told the
 * holder's PID, the lock ends with its holder (SIGKILL included), a forked child of the holder
 * never keeps it, and it follows the file when the holder replaces the file by a rename. */
#include "pc_test.h"

#include "precheck/core/status.h"
#include "precheck/io/run_lock.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Whether this process can take the lock of path now (released again at once); the message
 * of a refusal in why. */
static bool can_take(const char *path, char *why, size_t size)
{
    pc_run_lock l = PC_RUN_LOCK_INIT;
    pc_status st = pc_run_lock_take(&l, path);
    if (why)
        snprintf(why, size, "%s", st == PC_OK ? "" : pc_error_message());
    pc_run_lock_release(&l);
    return st == PC_OK;
}

/* A child that takes the lock of path, says so on the pipe, and waits to be killed; with
 * grandchild, it first forks a child of its own (which does not wait for the lock: it only
 * lives on) and then exits, leaving the grandchild behind. */
static pid_t holder(const char *path, bool grandchild, pid_t *grand)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        pc_run_lock l = PC_RUN_LOCK_INIT;
        if (pc_run_lock_take(&l, path) != PC_OK)
            _exit(2);
        pid_t g = 0;
        if (grandchild) {
            g = fork();
            if (g == 0) { /* running: what fork does in a child is done */
                g = getpid();
                if (write(p[1], &g, sizeof g) != (ssize_t)sizeof g)
                    _exit(3);
                close(p[1]);
                for (;;)
                    pause();
            }
            _exit(0); /* the holder ends; its child lives on */
        }
        if (write(p[1], &g, sizeof g) != (ssize_t)sizeof g)
            _exit(3);
        for (;;)
            pause();
    }
    close(p[1]);
    pid_t g = -1;
    assert_int_equal(read(p[0], &g, sizeof g), (ssize_t)sizeof g);
    close(p[0]);
    if (grand)
        *grand = g;
    return pid;
}

static void test_second_taker_refused_with_pid(void **state)
{
    (void)state;
    char dir[256], path[512], why[1024], pid_text[64];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    PC_TEST_FMT(path, "%s/accuracy_checking_result_20260101000000.csv", dir);
    pc_test_write_file(path, "API name\r\n");
    pid_t pid = holder(path, false, NULL);
    assert_false(can_take(path, why, sizeof why));
    PC_TEST_FMT(pid_text, "process %ld", (long)pid);
    if (!strstr(why, pid_text))
        fail_msg("the refusal does not name %s: %s", pid_text, why);
    assert_int_equal(pc_run_lock_holder(path), pid);
    /* SIGKILL: the kernel drops the lock, no file to clean */
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    assert_true(can_take(path, NULL, 0));
    assert_int_equal(pc_run_lock_holder(path), 0);
}

/* A child forked by the holder (the pool's workers) inherits the descriptor; the lock must not
 * outlive the holder in it. */
static void test_forked_child_does_not_keep_it(void **state)
{
    (void)state;
    char dir[256], path[512], why[1024];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    PC_TEST_FMT(path, "%s/accuracy_checking_result_20260101000000.csv", dir);
    pc_test_write_file(path, "API name\r\n");
    pid_t grand = 0;
    pid_t pid = holder(path, true, &grand);
    waitpid(pid, NULL, 0);
    assert_true(grand > 0 && kill(grand, 0) == 0); /* still alive, with the inherited fds */
    bool free_now = can_take(path, why, sizeof why);
    kill(grand, SIGKILL);
    if (!free_now)
        fail_msg("the holder's forked child kept the lock after the holder ended: %s", why);
}

/* The holder replaces the file (a rename over it): the lock is on the new file at the name. */
static void test_lock_follows_a_replacement(void **state)
{
    (void)state;
    char dir[256], path[512], tmp[600], why[1024];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    PC_TEST_FMT(path, "%s/r.csv", dir);
    PC_TEST_FMT(tmp, "%s/r.csv.new", dir);
    pc_test_write_file(path, "old\n");
    pc_test_write_file(tmp, "new\r\n");
    pc_run_lock l = PC_RUN_LOCK_INIT;
    assert_int_equal(pc_run_lock_take(&l, path), PC_OK);
    assert_int_equal(pc_run_lock_adopt(&l, tmp), PC_OK);
    assert_int_equal(rename(tmp, path), 0);
    pc_run_lock_adopt_done(&l, true);
    /* another process opening the name now meets the lock */
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(can_take(path, why, sizeof why) ? 0 : strstr(why, "is being written by") ? 1 : 2);
    int st;
    waitpid(pid, &st, 0);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 1);
    pc_run_lock_release(&l);
    assert_true(can_take(path, NULL, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_second_taker_refused_with_pid),
        cmocka_unit_test(test_forked_child_does_not_keep_it),
        cmocka_unit_test(test_lock_follows_a_replacement),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
