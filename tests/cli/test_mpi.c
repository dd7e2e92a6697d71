/*
 * mpirun -np N precheck run_ut, as a user runs it (a build with MPI): the ranks share the
 * dump's APIs and rank 0 writes the two CSVs, byte for byte what one run_ut writes (three
 * dumps, multi_run_ut, a shard); a rank killed mid-run ends the job, and the CSVs written so
 * far resume under mpirun to the same bytes. A build without MPI started by a launcher says
 * so instead of running the whole dump once per rank.
 */
#include "pc_run_ut_test.h"
#include "pc_test.h"
#include "pc_mpi_config.h"

#include <dirent.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DUMPS      PC_TEST_FIXTURES "/msprobe/dumps"
#define DUMP(name) DUMPS "/" name "/step0/rank/dump.json"

/* run_overflow_check is one process's work: as one of several ranks it refuses, whatever the
 * build (the launcher's environment is all it reads). */
static void test_overflow_check_refuses_ranks(void **state)
{
    (void)state;
    char root[512], args[4096], log[700];
    assert_non_null(pc_test_tmpdir(root, sizeof root));
    PC_TEST_FMT(log, "%s/log", root);
    PC_TEST_FMT(args, "run_overflow_check -api_info %s", DUMP("gpt_stats"));
    assert_int_equal(pc_test_run_precheck("OMPI_COMM_WORLD_SIZE=2", args, log), 1);
    pc_test_expect_in_log(log, "start it without mpirun");
    pc_test_run_precheck_ok("OMPI_COMM_WORLD_SIZE=1", args, log);
}

#ifdef PC_TEST_MPIEXEC

/* Open MPI as CI runs it: as root, more ranks than cores, no shared-memory single copy (a
 * container may forbid it); under ASan, Open MPI's own allocations are not ours to report. */
#define MPI_ENV                                                                                    \
    "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "                                   \
    "OMPI_MCA_btl_vader_single_copy_mechanism=none ASAN_OPTIONS=detect_leaks=0"

/* "<launcher> -np n precheck <args>" with its output in log; its exit status. */
static int mpirun(const char *env, int n, const char *args, const char *log)
{
    char cmd[8192];
    PC_TEST_FMT(cmd, "%s %s %s --oversubscribe -np %d '%s' %s >%s 2>&1", MPI_ENV, env ? env : "",
                PC_TEST_MPIEXEC, n, PC_TEST_BINARY, args, log);
    int st = system(cmd);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

static void mpirun_ok(int n, const char *args, const char *log)
{
    if (mpirun(NULL, n, args, log) != 0) {
        char *l = pc_test_slurp(log, NULL);
        fail_msg("mpirun -np %d precheck %s failed:\n%s", n, args, l);
    }
}

/* One run_ut, and the same under mpirun with n ranks: the same bytes; the log says MPI. */
static void alone_and_ranks(const char *command, const char *dump, const char *extra, int n)
{
    char root[512], args[4096], log[700], alone[600], ranks[600];
    assert_non_null(pc_test_tmpdir(root, sizeof root));
    PC_TEST_FMT(log, "%s/log", root);
    PC_TEST_FMT(alone, "%s/alone", root);
    PC_TEST_FMT(ranks, "%s/ranks", root);
    PC_TEST_FMT(args, "%s -api_info %s -o %s --no-progress %s", command, dump, alone, extra);
    pc_test_run_precheck_ok(NULL, args, log);
    PC_TEST_FMT(args, "%s -api_info %s -o %s --no-progress %s", command, dump, ranks, extra);
    mpirun_ok(n, args, log);
    char line[64];
    PC_TEST_FMT(line, "MPI: %d ranks on this machine; rank 0 writes the CSVs.", n);
    pc_test_expect_in_log(log, line);
    pc_test_assert_same_csvs(alone, ranks);
}

static void test_ranks_write_what_one_run_writes(void **state)
{
    (void)state;
    /* light (pc_test_light: the ASan+UBSan stage), each path of the ranks once: workers in each
     * rank, multi_run_ut and a shard; the transformer's and the statistics dump's ranks share
     * those paths and run whole in the Release stage */
    if (!pc_test_light())
        alone_and_ranks("run_ut", DUMP("gpt_tensor"), "", 3);
    alone_and_ranks("run_ut", DUMP("cnn_tensor"), "--jobs 2", 2);
    if (!pc_test_light())
        alone_and_ranks("run_ut", DUMP("gpt_stats"), "", 3);
    alone_and_ranks("multi_run_ut", DUMP("gpt_bf16_tensor"), "-n 2", 2);
    /* a shard under mpirun is that shard */
    alone_and_ranks("run_ut", DUMP("gpt_tensor"), "--shard 2/3", 3);
}

/* The torch backend's ranks (Debian's PyTorch on the CPU): each rank's workers start their own
 * Python; the CSVs are those of one run with the same backend. */
static void test_torch_backend_ranks(void **state)
{
    (void)state;
    const char *python = pc_test_torch_python();
    if (!python)
        skip();
    char extra[600];
    PC_TEST_FMT(extra, "--backend torch:cpu --python %s", python);
    alone_and_ranks("run_ut", DUMP("gpt_stats"), extra, 2);
}

/* The pid of rank `rank`'s own process among those whose command line holds tag (not one of
 * its workers, whose parent is the rank); 0 when there is none yet. */
static pid_t rank_pid(const char *tag, int rank)
{
    DIR *d = opendir("/proc");
    assert_non_null(d);
    char want[64];
    PC_TEST_FMT(want, "OMPI_COMM_WORLD_RANK=%d", rank);
    pid_t found = 0;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        pid_t pid = (pid_t)atol(e->d_name);
        if (pid <= 0)
            continue;
        char path[64], buf[65536];
        PC_TEST_FMT(path, "/proc/%d/cmdline", (int)pid);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        bool tagged = false;
        for (size_t k = 0; k < n; k += strlen(buf + k) + 1)
            tagged |= strstr(buf + k, tag) != NULL;
        if (!tagged)
            continue;
        PC_TEST_FMT(path, "/proc/%d/environ", (int)pid);
        f = fopen(path, "r");
        if (!f)
            continue;
        n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = 0;
        bool ranked = false;
        for (size_t k = 0; k < n; k += strlen(buf + k) + 1)
            ranked |= strcmp(buf + k, want) == 0;
        if (!ranked)
            continue;
        /* the rank itself: its parent is the launcher, not a precheck process */
        PC_TEST_FMT(path, "/proc/%d/stat", (int)pid);
        f = fopen(path, "r");
        if (!f)
            continue;
        int ppid = 0;
        char comm[256];
        if (fscanf(f, "%*d (%255[^)]) %*c %d", comm, &ppid) != 2)
            ppid = 0;
        fclose(f);
        PC_TEST_FMT(path, "/proc/%d/cmdline", ppid);
        f = fopen(path, "r");
        n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
        if (f)
            fclose(f);
        buf[n] = 0;
        if (!strstr(buf, "precheck"))
            found = pid;
    }
    closedir(d);
    return found;
}

static int count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int n = 0, c;
    while ((c = fgetc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

/* The first field of the last line of a CSV (the last API of a result file). */
static void last_api(const char *path, char *out, size_t size)
{
    size_t n = 0;
    char *text = pc_test_slurp(path, &n);
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r'))
        text[--n] = 0;
    char *line = strrchr(text, '\n');
    line = line ? line + 1 : text;
    line[strcspn(line, ",")] = 0;
    snprintf(out, size, "%s", line);
    free(text);
}

/* Rank 1 killed while the run is under way: the job ends, the CSVs hold part of the run, and
 * the same mpirun with -csv_path finishes them to the bytes of one whole run. The dump's last
 * API hangs in the killed run (the isolation tests' trigger), so the kill always comes before
 * the end: when every other API is written. */
static void test_killed_rank_then_resume(void **state)
{
    (void)state;
    char root[512], args[4096], log[700], killed[700], alone[600], ranks[600];
    assert_non_null(pc_test_tmpdir(root, sizeof root));
    PC_TEST_FMT(log, "%s/log", root);
    PC_TEST_FMT(killed, "%s/killed.log", root);
    PC_TEST_FMT(alone, "%s/alone", root);
    PC_TEST_FMT(ranks, "%s/ranks", root);
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --no-progress", DUMP("gpt_tensor"), alone);
    pc_test_run_precheck_ok(NULL, args, log);
    char whole[1024], hang[256], env[320];
    pc_test_find_file(alone, "accuracy_checking_result_", whole, sizeof whole);
    int all = count_lines(whole);
    last_api(whole, hang, sizeof hang);
    PC_TEST_FMT(env, "PRECHECK_TEST_FAULT=hang:%s", hang);

    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --no-progress", DUMP("gpt_tensor"), ranks);
    pid_t job = fork();
    assert_true(job >= 0);
    if (job == 0)
        _exit(mpirun(env, 3, args, killed));
    char result[1024] = "";
    pid_t victim = 0;
    for (int tries = 0; tries < 1200 && !victim; tries++) {
        struct timespec ts = {0, 50 * 1000000L};
        nanosleep(&ts, NULL);
        DIR *d = opendir(ranks);
        struct dirent *e;
        while (d && (e = readdir(d)))
            if (strncmp(e->d_name, "accuracy_checking_result_", 25) == 0)
                PC_TEST_FMT(result, "%s/%s", ranks, e->d_name);
        if (d)
            closedir(d);
        if (result[0] && count_lines(result) == all - 1)
            victim = rank_pid(ranks, 1);
    }
    if (!victim) {
        kill(job, SIGKILL);
        char *l = pc_test_slurp(killed, NULL);
        fail_msg("the run under mpirun did not get to its last API within a minute:\n%s", l);
    }
    assert_int_equal(kill(victim, SIGKILL), 0);
    int st = 0;
    assert_int_equal(waitpid(job, &st, 0), job);
    assert_true(WIFEXITED(st));
    assert_int_not_equal(WEXITSTATUS(st), 0);
    /* the launcher names the rank that died; the CSVs lack the API that was running */
    pc_test_expect_in_log(killed, "signal 9");
    assert_int_equal(count_lines(result), all - 1);
    /* no worker outlives its rank (the hung one included) */
    struct timespec ts = {0, 300 * 1000000L};
    nanosleep(&ts, NULL);
    assert_int_equal(rank_pid(ranks, 1) + rank_pid(ranks, 0) + rank_pid(ranks, 2), 0);

    PC_TEST_FMT(args, "run_ut -api_info %s -csv_path %s --no-progress", DUMP("gpt_tensor"), result);
    mpirun_ok(3, args, log);
    pc_test_assert_same_csvs(alone, ranks);
}

/* Without a launcher the MPI build runs as any build: one process, its own CSVs. */
static void test_without_mpirun_as_before(void **state)
{
    (void)state;
    char root[512], args[4096], log[700], out[600];
    assert_non_null(pc_test_tmpdir(root, sizeof root));
    PC_TEST_FMT(log, "%s/log", root);
    PC_TEST_FMT(out, "%s/out", root);
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --no-progress", DUMP("gpt_stats"), out);
    pc_test_run_precheck_ok(NULL, args, log);
    assert_false(pc_test_file_contains(log, "MPI"));
    pc_test_expect_in_log(log, "UT task completed.");
}

/* Whether dir holds a file whose name starts with prefix. */
static bool has_file(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    bool found = false;
    struct dirent *e;
    while (d && (e = readdir(d)))
        found |= strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    if (d)
        closedir(d);
    return found;
}

/* A run that cannot start stops every rank before anything is written, and says why once:
 * rank 0's dump missing (every rank's), then only rank 1's (an MPMD line gives rank 1 other
 * arguments), which rank 1 names and rank 0 reports. */
static void test_rank_failure_leaves_nothing(void **state)
{
    (void)state;
    char root[512], args[4096], log[700], out[600];
    assert_non_null(pc_test_tmpdir(root, sizeof root));
    PC_TEST_FMT(log, "%s/log", root);
    PC_TEST_FMT(out, "%s/out", root);
    PC_TEST_FMT(args, "run_ut -api_info %s/missing/dump.json -o %s --no-progress", root, out);
    assert_int_not_equal(mpirun(NULL, 2, args, log), 0);
    pc_test_expect_in_log(log, "missing/dump.json does not exist");
    assert_false(pc_test_file_contains(log, "Rank 1:"));
    assert_false(has_file(out, "accuracy_checking_"));

    char cmd[8192];
    PC_TEST_FMT(cmd,
                "%s %s --oversubscribe -np 1 '%s' run_ut -api_info %s -o %s --no-progress : "
                "-np 1 '%s' run_ut -api_info %s/missing/dump.json -o %s --no-progress >%s 2>&1",
                MPI_ENV, PC_TEST_MPIEXEC, PC_TEST_BINARY, DUMP("gpt_stats"), out, PC_TEST_BINARY,
                root, out, log);
    int st = system(cmd);
    assert_true(WIFEXITED(st));
    assert_int_not_equal(WEXITSTATUS(st), 0);
    pc_test_expect_in_log(log, "Rank 1: The file path");
    pc_test_expect_in_log(log, "Rank 1 of the MPI job could not start");
    assert_false(has_file(out, "accuracy_checking_"));
    assert_false(has_file(out, "precheck_run_"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ranks_write_what_one_run_writes),
        cmocka_unit_test(test_torch_backend_ranks),
        cmocka_unit_test(test_killed_rank_then_resume),
        cmocka_unit_test(test_without_mpirun_as_before),
        cmocka_unit_test(test_rank_failure_leaves_nothing),
        cmocka_unit_test(test_overflow_check_refuses_ranks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#elif defined(PC_HAVE_MPI) /* built with MPI, but no launcher was found to test it with */

static void test_mpirun_found(void **state)
{
    (void)state;
    fail_msg("precheck was built with MPI but CMake found no mpirun to test it with: install "
             "Debian's openmpi-bin (tools/install-deps.sh does) and configure again");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mpirun_found),
        cmocka_unit_test(test_overflow_check_refuses_ranks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* a build without MPI */

/* Started as one of several ranks (a launcher's environment), it refuses and says what to do;
 * nothing is written. */
static void test_launcher_without_mpi_refused(void **state)
{
    (void)state;
    char root[512], args[4096], log[700], out[600];
    assert_non_null(pc_test_tmpdir(root, sizeof root));
    PC_TEST_FMT(log, "%s/log", root);
    PC_TEST_FMT(out, "%s/out", root);
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --no-progress", DUMP("gpt_stats"), out);
    assert_int_not_equal(pc_test_run_precheck("OMPI_COMM_WORLD_SIZE=3", args, log), 0);
    pc_test_expect_in_log(log, "built without MPI");
    pc_test_expect_in_log(log, "--shard K/N");
    assert_int_not_equal(access(out, F_OK), 0);
    /* one rank of one is a plain run */
    pc_test_run_precheck_ok("OMPI_COMM_WORLD_SIZE=1", args, log);
    pc_test_expect_in_log(log, "UT task completed.");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_launcher_without_mpi_refused),
        cmocka_unit_test(test_overflow_check_refuses_ranks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif
