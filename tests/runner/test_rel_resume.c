/*
 * Resume without loss (issue #29): one writer per run (a resume while the run, or another
 * resume, is alive is refused, naming its PID, and changes nothing; once it is killed the resume
 * finishes the run), result CSVs re-saved with LF or CR line endings resume to the bytes of an
 * uninterrupted run, a file that is not a run to resume is refused untouched (bytes and mtime),
 * a full disk says once how many APIs were written and how to resume, and a killed run's record
 * holds its resume command, which --resume DIR runs.
 */
#include "pc_run_ut_test.h"
#include "pc_test.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DUMP PC_TEST_FIXTURES "/msprobe/dumps/gpt_stats/step0/rank/dump.json"

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, ms % 1000 * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static int count_rows(const char *path)
{
    static pc_test_status_row rows[512];
    return pc_test_read_results(path, rows, 512);
}

/* An uninterrupted run of the dump into a fresh folder: its two CSVs, and the name of its last
 * API in last. */
static void full_run(char *rf, char *tf, size_t size, char *last, size_t last_size, int *all)
{
    char dir[512], args[2048];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --no-progress", DUMP, dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, NULL), 0);
    pc_test_find_file(dir, "accuracy_checking_result_", rf, size);
    pc_test_find_file(dir, "accuracy_checking_details_", tf, size);
    static pc_test_status_row rows[512];
    *all = pc_test_read_results(rf, rows, 512);
    assert_true(*all > 2);
    snprintf(last, last_size, "%s", rows[*all - 1].name);
}

/* A run into dir whose last API hangs: returns once every other API is written (the run is alive,
 * the last API in flight in a worker); its result CSV in r. */
static pid_t hung_run(const char *dir, const char *last, int all, const char *log, char *r,
                      size_t size)
{
    char env[320];
    PC_TEST_FMT(env, "hang:%s", last);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (!freopen(log, "w", stdout))
            _exit(126);
        dup2(fileno(stdout), 2);
        setenv("PRECHECK_TEST_FAULT", env, 1);
        execl(PC_TEST_BINARY, PC_TEST_BINARY, "run_ut", "-api_info", DUMP, "-o", dir,
              "--no-progress", "--jobs", "2", (char *)NULL);
        _exit(127);
    }
    r[0] = 0;
    for (int tries = 0; tries < 1200; tries++) {
        sleep_ms(50);
        DIR *d = opendir(dir);
        struct dirent *e;
        while (d && (e = readdir(d)))
            if (strncmp(e->d_name, "accuracy_checking_result_", 25) == 0)
                snprintf(r, size, "%s/%s", dir, e->d_name);
        if (d)
            closedir(d);
        if (r[0] && count_rows(r) == all - 1)
            break;
    }
    assert_int_equal(count_rows(r), all - 1);
    sleep_ms(100); /* the hung API is in flight */
    return pid;
}

/* A resume of the run whose result CSV is r, its last API hanging again: returns once it holds
 * the run (its log says where it writes, which it does after taking the lock). */
static pid_t resume_hung(const char *r, const char *last, const char *log)
{
    char env[320];
    PC_TEST_FMT(env, "hang:%s", last);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (!freopen(log, "w", stdout))
            _exit(126);
        dup2(fileno(stdout), 2);
        setenv("PRECHECK_TEST_FAULT", env, 1);
        execl(PC_TEST_BINARY, PC_TEST_BINARY, "run_ut", "-api_info", DUMP, "-csv_path", r,
              "--no-progress", (char *)NULL);
        _exit(127);
    }
    for (int tries = 0; tries < 1200; tries++) {
        sleep_ms(50);
        if (pc_test_file_contains(log, "UT task result will be saved in"))
            return pid;
    }
    kill(pid, SIGKILL);
    fail_msg("the resume did not start");
    return -1;
}

static void kill_run(pid_t pid)
{
    kill(pid, SIGKILL);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
}

/* The details CSV beside a result CSV. */
static void details_of(const char *r, char *t, size_t size)
{
    const char *base = strrchr(r, '/') + 1;
    int n = snprintf(t, size, "%.*saccuracy_checking_details_%s", (int)(base - r), r,
                     base + strlen("accuracy_checking_result_"));
    assert_true(n > 0 && (size_t)n < size);
}

typedef struct snapshot {
    char *bytes;
    size_t len;
    struct timespec mtime;
} snapshot;

static snapshot snap(const char *path)
{
    snapshot s;
    s.bytes = pc_test_slurp(path, &s.len);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    s.mtime = st.st_mtim;
    return s;
}

/* Fails unless the file at path still has the snapshot's bytes and mtime; frees it. */
static void assert_untouched(const char *path, snapshot *s)
{
    snapshot now = snap(path);
    if (now.len != s->len || memcmp(now.bytes, s->bytes, s->len) != 0)
        fail_msg("%s was changed (%zu bytes, was %zu)", path, now.len, s->len);
    if (now.mtime.tv_sec != s->mtime.tv_sec || now.mtime.tv_nsec != s->mtime.tv_nsec)
        fail_msg("%s has a new mtime", path);
    free(now.bytes);
    free(s->bytes);
}

/* Whether a process among pid's children has a descriptor of a locked open file (fdinfo's
 * "lock:" lines name the locks on that descriptor's file). */
static bool a_child_holds_a_lock(pid_t pid)
{
    char path[128];
    PC_TEST_FMT(path, "/proc/%ld/task/%ld/children", (long)pid, (long)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    long child;
    bool found = false;
    while (!found && fscanf(f, "%ld", &child) == 1) {
        char dir[128];
        PC_TEST_FMT(dir, "/proc/%ld/fdinfo", child);
        DIR *d = opendir(dir);
        struct dirent *e;
        while (d && !found && (e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char info[400], line[512];
            PC_TEST_FMT(info, "%s/%s", dir, e->d_name);
            FILE *fi = fopen(info, "r"); /* a /proc file: read it, its size says 0 */
            while (fi && !found && fgets(line, sizeof line, fi))
                found = strstr(line, "FLOCK") != NULL;
            if (fi)
                fclose(fi);
        }
        if (d)
            closedir(d);
    }
    fclose(f);
    return found;
}

/* ---- one writer per run ---- */

static void test_resume_of_a_live_run_refused(void **state)
{
    (void)state;
    char rf[1024], tf[1024], last[256], dir[512], log[600], log2[600], r[1024], t[1024];
    char args[4096], pid_text[64];
    int all = 0;
    full_run(rf, tf, sizeof rf, last, sizeof last, &all);
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    PC_TEST_FMT(log, "%s.log", dir);
    PC_TEST_FMT(log2, "%s.resume.log", dir);
    pid_t pid = hung_run(dir, last, all, log, r, sizeof r);
    details_of(r, t, sizeof t);
    snapshot sr = snap(r), st = snap(t);
    /* the pool's workers inherit the run's descriptors, but not its lock */
    if (a_child_holds_a_lock(pid)) {
        kill_run(pid);
        fail_msg("a worker of the run holds its lock (it would outlive the run)");
    }
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s -csv_path %s --no-progress", DUMP, dir, r);
    int rc = pc_test_run_precheck(NULL, args, log2);
    PC_TEST_FMT(pid_text, "is being written by process %ld", (long)pid);
    if (rc != 1 || !pc_test_file_contains(log2, pid_text)) {
        kill_run(pid);
        pc_test_expect_in_log(log2, pid_text);
        assert_int_equal(rc, 1);
    }
    assert_untouched(r, &sr);
    assert_untouched(t, &st);
    /* a scheduler's restart of the same command: refused the same way */
    rc = pc_test_run_precheck(NULL, args, log2);
    assert_int_equal(rc, 1);
    assert_int_equal(count_rows(r), all - 1);
    /* the run killed: a resume takes the run over (its last API hangs again), and a second
     * resume at the same time is refused naming the first */
    kill_run(pid);
    pid = resume_hung(r, last, log);
    PC_TEST_FMT(pid_text, "is being written by process %ld", (long)pid);
    rc = pc_test_run_precheck(NULL, args, log2);
    kill_run(pid);
    assert_int_equal(rc, 1);
    pc_test_expect_in_log(log2, pid_text);
    assert_int_equal(count_rows(r), all - 1);
    /* the resume killed too: the next one finishes the run, every API once */
    assert_int_equal(pc_test_run_precheck(NULL, args, log2), 0);
    pc_test_assert_same_file(r, rf);
    pc_test_assert_same_file(t, tf);
}

/* ---- line endings ---- */

/* Rewrites path with every CRLF turned into with (dos2unix: "\n"; old Mac: "\r"); CR or LF
 * inside quoted fields stay as they are, as dos2unix leaves a lone LF. */
static void convert_endings(const char *path, const char *with)
{
    size_t n;
    char *b = pc_test_slurp(path, &n);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    for (size_t i = 0; i < n; i++) {
        if (b[i] == '\r' && i + 1 < n && b[i + 1] == '\n') {
            fputs(with, f);
            i++;
        } else {
            fputc(b[i], f);
        }
    }
    assert_int_equal(fclose(f), 0);
    free(b);
}

static void copy_file(const char *from, const char *to)
{
    size_t n;
    char *b = pc_test_slurp(from, &n);
    FILE *f = fopen(to, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
    free(b);
}

static void test_lf_and_cr_endings_resume(void **state)
{
    (void)state;
    char rf[1024], tf[1024], last[256], dir[512], log[600], r[1024], t[1024], args[4096];
    int all = 0;
    full_run(rf, tf, sizeof rf, last, sizeof last, &all);
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    PC_TEST_FMT(log, "%s.log", dir);
    kill_run(hung_run(dir, last, all, log, r, sizeof r));
    details_of(r, t, sizeof t);
    const char *endings[] = {"\n", "\r"};
    for (int k = 0; k < 2; k++) {
        char d2[512], r2[1100], t2[1100], log2[600];
        assert_non_null(pc_test_tmpdir(d2, sizeof d2));
        PC_TEST_FMT(r2, "%s/%s", d2, strrchr(r, '/') + 1);
        PC_TEST_FMT(t2, "%s/%s", d2, strrchr(t, '/') + 1);
        copy_file(r, r2);
        copy_file(t, t2);
        convert_endings(r2, endings[k]);
        convert_endings(t2, endings[k]);
        PC_TEST_FMT(log2, "%s.log", d2);
        PC_TEST_FMT(args, "run_ut -api_info %s -o %s -csv_path %s --no-progress", DUMP, d2, r2);
        int rc = pc_test_run_precheck(NULL, args, log2);
        if (rc != 0)
            pc_test_expect_in_log(log2, "(exit 0 expected)");
        pc_test_expect_in_log(log2, "line endings other than run_ut's CRLF");
        /* every API once; the rows the run had, as an uninterrupted run wrote them */
        pc_test_assert_same_file(r2, rf);
        pc_test_assert_same_file(t2, tf);
    }
}

/* ---- a file that is not a run to resume is left as it is ---- */

static void expect_refused_untouched(const char *dir, const char *r, const char *t,
                                     const char *message)
{
    char args[4096], log[600];
    PC_TEST_FMT(log, "%s.refused.log", dir);
    snapshot sr = snap(r), st = snap(t);
    sleep_ms(20); /* a write now would give another mtime */
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s -csv_path %s --no-progress", DUMP, dir, r);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    pc_test_expect_in_log(log, message);
    assert_untouched(r, &sr);
    assert_untouched(t, &st);
}

static void test_not_a_run_left_untouched(void **state)
{
    (void)state;
    char rf[1024], tf[1024], last[256], dir[512], r[1100], t[1100];
    int all = 0;
    full_run(rf, tf, sizeof rf, last, sizeof last, &all);
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    PC_TEST_FMT(r, "%s/accuracy_checking_result_20260101000000.csv", dir);
    PC_TEST_FMT(t, "%s/accuracy_checking_details_20260101000000.csv", dir);

    /* the details CSV given by mistake (under the result's name): said what it is */
    copy_file(tf, r);
    copy_file(tf, t);
    expect_refused_untouched(dir, r, t, "is a details CSV");

    /* another header, with a cut last line: not even the tail is cut off */
    static const char other[] = "\xEF\xBB\xBFname,value\r\na,1\r\nb,";
    pc_test_write_bytes(r, other, sizeof other - 1);
    copy_file(tf, t);
    expect_refused_untouched(dir, r, t, "its header starts with \"name\"");

    /* the result CSV fine, its details twin not a details CSV: the result's cut tail stays */
    size_t n;
    char *b = pc_test_slurp(rf, &n);
    pc_test_write_bytes(r, b, n - 5);
    free(b);
    pc_test_write_bytes(t, other, sizeof other - 1);
    expect_refused_untouched(dir, r, t, "its header starts with \"name\"");

    /* the result CSV given twice (as its own details twin) */
    copy_file(rf, t);
    expect_refused_untouched(dir, r, t, "is a result CSV");

    /* an empty one: a run killed before it wrote its header */
    pc_test_write_bytes(r, "\xEF\xBB\xBF", 3);
    copy_file(tf, t);
    expect_refused_untouched(dir, r, t, "is empty");
}

/* ---- a full disk, and a run killed with SIGKILL ---- */

/* The command after "To resume: " in the log, with precheck's path for "precheck". */
static void resume_command_in(const char *log, char *cmd, size_t size)
{
    char *text = pc_test_slurp(log, NULL);
    const char *at = strstr(text, "To resume: ");
    if (!at)
        fail_msg("no resume command in the log:\n%s", text);
    at += strlen("To resume: ");
    assert_true(strncmp(at, "precheck ", 9) == 0);
    size_t len = strcspn(at, "\n");
    int n = snprintf(cmd, size, "'%s' %.*s", PC_TEST_BINARY, (int)(len - 9), at + 9);
    assert_true(n > 0 && (size_t)n < size);
    free(text);
}

static int occurrences(const char *path, const char *what)
{
    char *text = pc_test_slurp(path, NULL);
    int n = 0;
    for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
        n++;
    free(text);
    return n;
}

/* A run into <parent>/<name> (relative -o, started in parent) that the file size limit stops
 * (RLIMIT_FSIZE, SIGXFSZ ignored: write() fails with EFBIG as on a full disk). */
static void run_out_of_space(const char *parent, const char *name, const char *log)
{
    char env[1200], args[2048];
    PC_TEST_FMT(env, "cd '%s' && ulimit -f 24 && trap '' XFSZ &&", parent);
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --no-progress", DUMP, name);
    assert_int_equal(pc_test_run_precheck(env, args, log), 1);
}

static void test_disk_full_says_once_and_resumes(void **state)
{
    (void)state;
    char rf[1024], tf[1024], last[256], parent[512], dir[600], log[700], r[1024], t[1024];
    char cmd[8192], shell[9000], expect[128];
    int all = 0;
    full_run(rf, tf, sizeof rf, last, sizeof last, &all);
    assert_non_null(pc_test_tmpdir(parent, sizeof parent));
    PC_TEST_FMT(dir, "%s/out", parent);
    PC_TEST_FMT(log, "%s/run.log", parent);
    run_out_of_space(parent, "out", log);
    /* one message, saying how far the run got, and the resume command */
    if (occurrences(log, "File too large") != 1)
        pc_test_expect_in_log(log, "(the cause exactly once)");
    PC_TEST_FMT(expect, " of %d APIs were written", all);
    pc_test_expect_in_log(log, expect);
    pc_test_find_file(dir, "accuracy_checking_result_", r, sizeof r);
    pc_test_find_file(dir, "accuracy_checking_details_", t, sizeof t);
    int written = count_rows(r);
    assert_true(written > 0 && written < all);
    PC_TEST_FMT(expect, "%d of %d APIs were written", written, all);
    pc_test_expect_in_log(log, expect);
    /* the printed command, the limit lifted, finishes the run */
    resume_command_in(log, cmd, sizeof cmd);
    PC_TEST_FMT(shell, "cd '%s' && %s >'%s.resume' 2>&1", parent, cmd, log);
    int st = system(shell);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    pc_test_assert_same_file(r, rf);
    pc_test_assert_same_file(t, tf);
}

static void test_resume_dir_after_sigkill_and_disk_full(void **state)
{
    (void)state;
    char rf[1024], tf[1024], last[256], dir[512], log[600], r[1024], t[1024], args[2048];
    char record[1100];
    int all = 0;
    full_run(rf, tf, sizeof rf, last, sizeof last, &all);

    /* killed with SIGKILL: nothing printed, the record holds the resume command */
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    PC_TEST_FMT(log, "%s.log", dir);
    kill_run(hung_run(dir, last, all, log, r, sizeof r));
    details_of(r, t, sizeof t);
    pc_test_find_file(dir, "precheck_run_", record, sizeof record);
    pc_test_expect_in_log(record, "\"resume\": {");
    pc_test_expect_in_log(record, "-csv_path");
    PC_TEST_FMT(args, "run_ut --resume %s", dir);
    assert_int_equal(pc_test_run_precheck("cd / &&", args, log), 0);
    pc_test_assert_same_file(r, rf);
    pc_test_assert_same_file(t, tf);
    /* nothing left to resume there: a clear error */
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    pc_test_expect_in_log(log, "holds no unfinished run to resume");
    /* other options with it: a usage error */
    PC_TEST_FMT(args, "multi_run_ut --resume %s -n 2", dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 2);

    /* a full disk, a relative -o: resumed from elsewhere, in the folder the run started in */
    char parent[512], out[600];
    assert_non_null(pc_test_tmpdir(parent, sizeof parent));
    PC_TEST_FMT(out, "%s/out", parent);
    PC_TEST_FMT(log, "%s/run.log", parent);
    run_out_of_space(parent, "out", log);
    PC_TEST_FMT(args, "multi_run_ut --resume %s", out);
    assert_int_equal(pc_test_run_precheck("cd / &&", args, log), 0);
    pc_test_find_file(out, "accuracy_checking_result_", r, sizeof r);
    pc_test_find_file(out, "accuracy_checking_details_", t, sizeof t);
    pc_test_assert_same_file(r, rf);
    pc_test_assert_same_file(t, tf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resume_of_a_live_run_refused),
        cmocka_unit_test(test_lf_and_cr_endings_resume),
        cmocka_unit_test(test_not_a_run_left_untouched),
        cmocka_unit_test(test_disk_full_says_once_and_resumes),
        cmocka_unit_test(test_resume_dir_after_sigkill_and_disk_full),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
