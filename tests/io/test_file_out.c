/* The one safe way to write a file (io/file_out.h): links refused, never an overwrite unless
 * asked, a unique name when asked, nothing under the final name when a write fails. */
#include "pc_test.h"

#include "precheck/io/file_out.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

static void test_whole_file_mode_and_no_temporary(void **state)
{
    (void)state;
    char dir[256], path[512];
    pc_test_tmpdir(dir, sizeof dir);
    PC_TEST_FMT(path, "%s/out.json", dir);
    pc_file_out o;
    assert_int_equal(pc_file_out_open(&o, path, 0), PC_OK);
    fprintf(o.f, "{\"a\": %d}\n", 1);
    /* before the commit the final name does not exist, only the temporary */
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(entries(dir), 1);
    assert_int_equal(pc_file_out_commit(&o), PC_OK);
    assert_string_equal(o.path, path);
    pc_file_out_free(&o);
    char *text = pc_test_slurp(path, NULL);
    assert_string_equal(text, "{\"a\": 1}\n");
    free(text);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0640);
    assert_int_equal(entries(dir), 1);
}

static void test_link_at_final_name_refused(void **state)
{
    (void)state;
    char dir[256], path[512], victim[512];
    pc_test_tmpdir(dir, sizeof dir);
    PC_TEST_FMT(victim, "%s/victim.txt", dir);
    PC_TEST_FMT(path, "%s/precheck_summary_20260101000000.json", dir);
    pc_test_write_file(victim, "precious\n");
    assert_int_equal(symlink(victim, path), 0);
    for (unsigned flags = 0; flags < 4; flags++) {
        pc_file_out o;
        assert_int_equal(pc_file_out_open(&o, path, flags), PC_ERR_INVALID);
        assert_non_null(strstr(pc_error_message(), "symbolic link"));
        assert_int_equal(pc_file_write_whole(path, "x", 1, flags, NULL), PC_ERR_INVALID);
    }
    char *text = pc_test_slurp(victim, NULL);
    assert_string_equal(text, "precious\n");
    free(text);
    assert_int_equal(entries(dir), 2);
    /* a dangling link too: it would create its target */
    char dangling[512], target[512];
    PC_TEST_FMT(target, "%s/created-through-link", dir);
    PC_TEST_FMT(dangling, "%s/report.html", dir);
    assert_int_equal(symlink(target, dangling), 0);
    assert_int_equal(pc_file_write_whole(dangling, "x", 1, 0, NULL), PC_ERR_INVALID);
    assert_int_equal(access(target, F_OK), -1);
}

static void test_link_planted_between_open_and_commit(void **state)
{
    (void)state;
    char dir[256], path[512], victim[512];
    pc_test_tmpdir(dir, sizeof dir);
    PC_TEST_FMT(victim, "%s/victim.txt", dir);
    PC_TEST_FMT(path, "%s/out.csv", dir);
    pc_test_write_file(victim, "precious\n");
    for (unsigned flags = 0; flags <= PC_FILE_OUT_REPLACE; flags++) {
        pc_file_out o;
        assert_int_equal(pc_file_out_open(&o, path, flags), PC_OK);
        fputs("new\n", o.f);
        assert_int_equal(symlink(victim, path), 0);
        assert_int_not_equal(pc_file_out_commit(&o), PC_OK);
        pc_file_out_free(&o);
        assert_true(unlink(path) == 0);
    }
    char *text = pc_test_slurp(victim, NULL);
    assert_string_equal(text, "precious\n");
    free(text);
    assert_int_equal(entries(dir), 1); /* no temporary left */
}

static void test_existing_output_never_overwritten(void **state)
{
    (void)state;
    char dir[256], path[512], other[512];
    pc_test_tmpdir(dir, sizeof dir);
    PC_TEST_FMT(path, "%s/precheck_report_20260101000000.html", dir);
    pc_test_write_file(path, "first\n");
    assert_int_equal(pc_file_write_whole(path, "second\n", 7, 0, NULL), PC_ERR_INVALID);
    assert_non_null(strstr(pc_error_message(), "already exists"));
    char *text = pc_test_slurp(path, NULL);
    assert_string_equal(text, "first\n");
    free(text);
    /* taken at commit time (another process won the race): still refused */
    pc_file_out o;
    PC_TEST_FMT(other, "%s/late.json", dir);
    assert_int_equal(pc_file_out_open(&o, other, 0), PC_OK);
    fputs("mine\n", o.f);
    pc_test_write_file(other, "theirs\n");
    assert_int_equal(pc_file_out_commit(&o), PC_ERR_INVALID);
    pc_file_out_free(&o);
    text = pc_test_slurp(other, NULL);
    assert_string_equal(text, "theirs\n");
    free(text);
    assert_int_equal(entries(dir), 2);
}

static void test_unique_suffix(void **state)
{
    (void)state;
    char dir[256], path[512], want[512];
    pc_test_tmpdir(dir, sizeof dir);
    PC_TEST_FMT(path, "%s/precheck_report_20260101000000.html", dir);
    pc_test_write_file(path, "first\n");
    char *used = NULL;
    assert_int_equal(pc_file_write_whole(path, "2\n", 2, PC_FILE_OUT_UNIQUE, &used), PC_OK);
    PC_TEST_FMT(want, "%s/precheck_report_20260101000000_1.html", dir);
    assert_string_equal(used, want);
    free(used);
    assert_int_equal(pc_file_write_whole(path, "3\n", 2, PC_FILE_OUT_UNIQUE, &used), PC_OK);
    PC_TEST_FMT(want, "%s/precheck_report_20260101000000_2.html", dir);
    assert_string_equal(used, want);
    free(used);
    char *text = pc_test_slurp(path, NULL);
    assert_string_equal(text, "first\n");
    free(text);
    /* a free name is used as given */
    PC_TEST_FMT(path, "%s/noext", dir);
    assert_int_equal(pc_file_write_whole(path, "", 0, PC_FILE_OUT_UNIQUE, &used), PC_OK);
    assert_string_equal(used, path);
    free(used);
    assert_int_equal(pc_file_write_whole(path, "", 0, PC_FILE_OUT_UNIQUE, &used), PC_OK);
    PC_TEST_FMT(want, "%s/noext_1", dir);
    assert_string_equal(used, want);
    free(used);
    assert_int_equal(entries(dir), 5);
}

static void test_replace(void **state)
{
    (void)state;
    char dir[256], path[512];
    pc_test_tmpdir(dir, sizeof dir);
    PC_TEST_FMT(path, "%s/result.csv", dir);
    pc_test_write_file(path, "old\n");
    assert_int_equal(pc_file_write_whole(path, "new\n", 4, PC_FILE_OUT_REPLACE, NULL), PC_OK);
    char *text = pc_test_slurp(path, NULL);
    assert_string_equal(text, "new\n");
    free(text);
    assert_int_equal(entries(dir), 1);
}

static void test_abort_leaves_nothing(void **state)
{
    (void)state;
    char dir[256], path[512];
    pc_test_tmpdir(dir, sizeof dir);
    PC_TEST_FMT(path, "%s/merged.csv", dir);
    pc_file_out o;
    assert_int_equal(pc_file_out_open(&o, path, 0), PC_OK);
    fputs("half a row", o.f);
    pc_file_out_free(&o);
    assert_int_equal(entries(dir), 0);
    /* a missing folder: an error naming the file, nothing created */
    PC_TEST_FMT(path, "%s/no/such/folder/x.json", dir);
    assert_int_equal(pc_file_out_open(&o, path, 0), PC_ERR_IO);
    assert_non_null(strstr(pc_error_message(), "x.json"));
}

/* A write that fails (here the file-size limit, as a full disk would) fails the commit, and
 * neither the final name nor the temporary is left. In a child: the limit is per process. */
static void test_write_error_leaves_nothing(void **state)
{
    (void)state;
    char dir[256], path[512];
    pc_test_tmpdir(dir, sizeof dir);
    PC_TEST_FMT(path, "%s/big.pt", dir);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {4096, 4096};
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
            _exit(10);
        static char block[65536];
        memset(block, 'x', sizeof block);
        pc_status st = pc_file_write_whole(path, block, sizeof block, 0, NULL);
        if (st != PC_ERR_IO)
            _exit(11);
        if (!strstr(pc_error_message(), "big.pt") || !strstr(pc_error_message(), strerror(EFBIG)))
            _exit(12);
        _exit(0);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(entries(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole_file_mode_and_no_temporary),
        cmocka_unit_test(test_link_at_final_name_refused),
        cmocka_unit_test(test_link_planted_between_open_and_commit),
        cmocka_unit_test(test_existing_output_never_overwritten),
        cmocka_unit_test(test_unique_suffix),
        cmocka_unit_test(test_replace),
        cmocka_unit_test(test_abort_leaves_nothing),
        cmocka_unit_test(test_write_error_leaves_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
