/* pc_threads_prefer_passive: the wait settings of libgomp and OpenBLAS are set where the user
 * has not set them, by executing the program once more (each start of the child below prints a
 * line), and a user's own settings are kept, with no second start when nothing is missing. */
#define _POSIX_C_SOURCE 200809L
#include "pc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "precheck/core/threads.h"

static char self_path[4096];

/* The child's side: one line per start, then the call, then the settings it ends with. */
static int child_main(char **argv)
{
    printf("start\n");
    fflush(stdout);
    pc_threads_prefer_passive(argv);
    const char *names[] = {"OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "OPENBLAS_THREAD_TIMEOUT",
                           "GOTO_THREAD_TIMEOUT"};
    for (int i = 0; i < 4; i++) {
        const char *v = getenv(names[i]);
        printf("%s=%s\n", names[i], v ? v : "-");
    }
    return 0;
}

/* Runs this program as the child with env (NAME=VALUE strings, NULL-ended) as its whole
 * environment and returns what it printed. */
static char *run_child(char **env)
{
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        char *argv[] = {self_path, "--child", NULL};
        execve(self_path, argv, env);
        _exit(127);
    }
    close(fd[1]);
    static char buf[4096];
    size_t n = 0;
    ssize_t k;
    while (n + 1 < sizeof buf && (k = read(fd[0], buf + n, sizeof buf - 1 - n)) > 0)
        n += (size_t)k;
    buf[n] = 0;
    close(fd[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    return buf;
}

static int starts(const char *out)
{
    int n = 0;
    for (const char *p = out; (p = strstr(p, "start\n")); p++)
        n++;
    return n;
}

static void unset_variables_are_set_once(void **state)
{
    (void)state;
    char *env[] = {"PATH=/usr/bin:/bin", NULL};
    char *out = run_child(env);
    assert_int_equal(starts(out), 2); /* once more, with the settings */
    assert_non_null(strstr(out, "OMP_WAIT_POLICY=PASSIVE\n"));
    assert_non_null(strstr(out, "OPENBLAS_THREAD_TIMEOUT=" PC_OPENBLAS_THREAD_TIMEOUT "\n"));
}

static void user_settings_are_kept(void **state)
{
    (void)state;
    char *env[] = {"OMP_WAIT_POLICY=ACTIVE", "OPENBLAS_THREAD_TIMEOUT=20", NULL};
    char *out = run_child(env);
    assert_int_equal(starts(out), 1); /* nothing missing: no second start */
    assert_non_null(strstr(out, "OMP_WAIT_POLICY=ACTIVE\n"));
    assert_non_null(strstr(out, "OPENBLAS_THREAD_TIMEOUT=20\n"));
    /* the other spelling of each counts as a setting */
    char *env2[] = {"GOMP_SPINCOUNT=1000", "GOTO_THREAD_TIMEOUT=8", NULL};
    out = run_child(env2);
    assert_int_equal(starts(out), 1);
    assert_non_null(strstr(out, "OMP_WAIT_POLICY=-\n"));
    assert_non_null(strstr(out, "OPENBLAS_THREAD_TIMEOUT=-\n"));
    /* one missing: only it is added */
    char *env3[] = {"OMP_WAIT_POLICY=ACTIVE", NULL};
    out = run_child(env3);
    assert_int_equal(starts(out), 2);
    assert_non_null(strstr(out, "OMP_WAIT_POLICY=ACTIVE\n"));
    assert_non_null(strstr(out, "OPENBLAS_THREAD_TIMEOUT=" PC_OPENBLAS_THREAD_TIMEOUT "\n"));
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--child") == 0)
        return child_main(argv);
    ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    if (n <= 0)
        return 1;
    self_path[n] = 0;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unset_variables_are_set_once),
        cmocka_unit_test(user_settings_are_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
