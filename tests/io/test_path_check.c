#include "pc_test.h"

#include "io/path_check_impl.h"
#include "precheck/core/log.h"
#include "precheck/io/path_check.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

char *realpath(const char *path, char *resolved); /* POSIX; hidden by strict C11 headers */

/* ---------------------------------------------------------------------------------------------
 * Fixture: a fresh temporary directory (its real path in `root`), a log captured to a file, and
 * the testing hooks reset.
 * ------------------------------------------------------------------------------------------- */

typedef struct fixture {
    char root[PATH_MAX];
    FILE *log;
    char path[8192]; /* scratch for building paths */
    char expect[8192];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    char tmp[PATH_MAX];
    assert_non_null(pc_test_tmpdir(tmp, sizeof tmp));
    assert_non_null(realpath(tmp, f->root));
    f->log = tmpfile();
    assert_non_null(f->log);
    pc_log_set_level(PC_LOG_INFO);
    pc_log_set_stream(f->log);
    pc_path_testing_set_uid(-1);
    pc_path_testing_set_access(NULL);
    pc_path_testing_forget_warnings();
    umask(022);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    pc_log_set_stream(NULL);
    fclose(f->log);
    pc_path_testing_set_uid(-1);
    pc_path_testing_set_access(NULL);
    char cmd[2 * PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "chmod -R u+rwx '%s'; rm -rf '%s'", f->root, f->root);
    assert_int_equal(system(cmd), 0);
    free(f);
    return 0;
}

/* f->path = root + "/" + name (printf format). */
__attribute__((format(printf, 2, 3))) static const char *at(fixture *f, const char *fmt, ...)
{
    char name[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    snprintf(f->path, sizeof f->path, "%s/%s", f->root, name);
    return f->path;
}

/* printf into f->expect. */
__attribute__((format(printf, 2, 3))) static const char *expect(fixture *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->expect, sizeof f->expect, fmt, ap);
    va_end(ap);
    return f->expect;
}

static void write_file(const char *path, const char *text, mode_t mode)
{
    pc_test_write_file(path, text);
    assert_int_equal(chmod(path, mode), 0);
}

static void sparse_file(const char *path, off_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, size), 0);
    close(fd);
}

static void make_dir(const char *path, mode_t mode)
{
    assert_int_equal(mkdir(path, mode), 0);
    assert_int_equal(chmod(path, mode), 0);
}

/* Everything logged since the last call (the log file is emptied). */
static char *take_log(fixture *f)
{
    fflush(f->log);
    long size = ftell(f->log);
    assert_true(size >= 0);
    char *text = malloc((size_t)size + 1);
    assert_non_null(text);
    rewind(f->log);
    size_t got = fread(text, 1, (size_t)size, f->log);
    text[got] = '\0';
    assert_int_equal(ftruncate(fileno(f->log), 0), 0);
    rewind(f->log);
    return text;
}

static int count_substr(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* Asserts that the log holds exactly these warnings (each once, in any order) and nothing else. */
static void assert_warnings(fixture *f, const char *const *messages, int count)
{
    char *text = take_log(f);
    int lines = count_substr(text, "\n");
    assert_int_equal(lines, count);
    for (int i = 0; i < count; i++) {
        char needle[8300];
        snprintf(needle, sizeof needle, "[WARNING] %s\n", messages[i]);
        if (count_substr(text, needle) != 1)
            fail_msg("warning not logged once: %s\nlog:\n%s", messages[i], text);
    }
    free(text);
}

static void assert_no_log(fixture *f)
{
    assert_warnings(f, NULL, 0);
}

/* Runs pc_path_check and asserts its status and (for failures) its exact message. */
static void check_fails(const char *path, pc_path_kind kind, unsigned access, const char *suffix,
                        pc_status status, const char *message)
{
    pc_error_clear();
    pc_status s = pc_path_check(path, kind, access, suffix, NULL, 0);
    if (s != status || strcmp(pc_error_message(), message) != 0)
        fail_msg("pc_path_check(%s)\n  got      %d \"%s\"\n  expected %d \"%s\"", path, s,
                 pc_error_message(), status, message);
}

static void check_ok(const char *path, pc_path_kind kind, unsigned access, const char *suffix)
{
    pc_status s = pc_path_check(path, kind, access, suffix, NULL, 0);
    if (s != PC_OK)
        fail_msg("pc_path_check(%s): %s", path, pc_error_message());
}

/* ---------------------------------------------------------------------------------------------
 * pc_path_check, one check at a time
 * ------------------------------------------------------------------------------------------- */

static void test_good_file_and_dir(void **state)
{
    fixture *f = *state;
    write_file(at(f, "dump.json"), "{}", 0640);
    char resolved[PC_PATH_BUFFER_SIZE];
    assert_int_equal(
        pc_path_check(f->path, PC_PATH_FILE, PC_PATH_READ, ".json", resolved, sizeof resolved),
        PC_OK);
    assert_string_equal(resolved, f->path);
    assert_int_equal(
        pc_path_check(f->root, PC_PATH_DIR, PC_PATH_READ | PC_PATH_WRITE, NULL, resolved, 4096),
        PC_OK);
    assert_string_equal(resolved, f->root);
    assert_no_log(f);

    /* A relative path, with "." and ".." and doubled slashes, resolves to the real path. */
    char cwd[PATH_MAX];
    assert_non_null(getcwd(cwd, sizeof cwd));
    make_dir(at(f, "sub"), 0750);
    assert_int_equal(chdir(f->path), 0);
    assert_int_equal(
        pc_path_check(".././/sub/../dump.json", PC_PATH_FILE, 0, "", resolved, sizeof resolved),
        PC_OK);
    assert_int_equal(chdir(cwd), 0);
    assert_string_equal(resolved, at(f, "dump.json"));

    /* The resolved buffer must fit the path and its NUL. */
    size_t n = strlen(f->path);
    assert_int_equal(pc_path_check(f->path, PC_PATH_FILE, 0, NULL, resolved, n), PC_ERR_RANGE);
    assert_int_equal(pc_path_check(f->path, PC_PATH_FILE, 0, NULL, resolved, n + 1), PC_OK);
    assert_int_equal(pc_path_check(NULL, PC_PATH_FILE, 0, NULL, NULL, 0), PC_ERR_INVALID);
}

static void test_does_not_exist(void **state)
{
    fixture *f = *state;
    at(f, "missing.json");
    check_fails(f->path, PC_PATH_FILE, PC_PATH_READ, ".json", PC_ERR_NOT_FOUND,
                expect(f, "The file path %s does not exist.", f->path));
    /* The given path is named as given, relative or not. */
    check_fails("no/such/file", PC_PATH_FILE, 0, NULL, PC_ERR_NOT_FOUND,
                "The file path no/such/file does not exist.");
    check_fails("", PC_PATH_DIR, 0, NULL, PC_ERR_NOT_FOUND, "The file path  does not exist.");
    /* A dangling symlink does not exist (existence follows links). */
    assert_int_equal(symlink("nowhere", at(f, "dangling")), 0);
    check_fails(f->path, PC_PATH_FILE, 0, NULL, PC_ERR_NOT_FOUND,
                expect(f, "The file path %s does not exist.", f->path));
    /* A file followed by a slash does not exist either. */
    write_file(at(f, "plain"), "", 0600);
    at(f, "plain/");
    check_fails(f->path, PC_PATH_FILE, 0, NULL, PC_ERR_NOT_FOUND,
                expect(f, "The file path %s does not exist.", f->path));
}

static void test_soft_link(void **state)
{
    fixture *f = *state;
    write_file(at(f, "target.json"), "{}", 0600);
    char target[sizeof f->path];
    snprintf(target, sizeof target, "%s", f->path);
    assert_int_equal(symlink(target, at(f, "link.json")), 0);
    check_fails(f->path, PC_PATH_FILE, PC_PATH_READ, ".json", PC_ERR_INVALID,
                expect(f, "The file path %s is a soft link.", f->path));

    /* A symlink to a directory, even written with a trailing slash or "/.", is refused: the
     * check looks at the path made absolute lexically, as os.path.abspath does. */
    make_dir(at(f, "realdir"), 0750);
    assert_int_equal(symlink("realdir", at(f, "dirlink")), 0);
    at(f, "dirlink/");
    check_fails(f->path, PC_PATH_DIR, 0, NULL, PC_ERR_INVALID,
                expect(f, "The file path %s is a soft link.", f->path));
    at(f, "dirlink/.");
    check_fails(f->path, PC_PATH_DIR, 0, NULL, PC_ERR_INVALID,
                expect(f, "The file path %s is a soft link.", f->path));

    /* ... but "dirlink/.." is the root again lexically, and symlinks above the last component
     * are followed. */
    at(f, "dirlink/..");
    check_ok(f->path, PC_PATH_DIR, 0, NULL);
    write_file(at(f, "realdir/inner.json"), "{}", 0600);
    char resolved[PC_PATH_BUFFER_SIZE];
    assert_int_equal(pc_path_check(at(f, "dirlink/inner.json"), PC_PATH_FILE, PC_PATH_READ, ".json",
                                   resolved, sizeof resolved),
                     PC_OK);
    assert_string_equal(resolved, at(f, "realdir/inner.json"));
}

/* Builds root/c1/.../cN (components of 200 'c's), using directory fds so that no single
 * system call sees a path longer than PATH_MAX. Returns an fd of the deepest directory. */
static int make_deep(const char *root, int levels)
{
    char name[201];
    memset(name, 'c', 200);
    name[200] = '\0';
    int fd = open(root, O_RDONLY | O_DIRECTORY);
    assert_true(fd >= 0);
    for (int i = 0; i < levels; i++) {
        assert_int_equal(mkdirat(fd, name, 0750), 0);
        int next = openat(fd, name, O_RDONLY | O_DIRECTORY);
        assert_true(next >= 0);
        close(fd);
        fd = next;
    }
    return fd;
}

static void test_length_limit(void **state)
{
    fixture *f = *state;
    /* 21 levels of 201 characters: the real path is over 4096 characters, but reached through
     * a symlink to level 10 the given path is short enough for the kernel. */
    int deep = make_deep(f->root, 21);
    int file = openat(deep, "f.json", O_WRONLY | O_CREAT, 0600);
    assert_true(file >= 0);
    close(file);
    close(deep);
    char c200[201];
    memset(c200, 'c', 200);
    c200[200] = '\0';
    char target[PATH_MAX];
    int n = snprintf(target, sizeof target, "%s", f->root);
    for (int i = 0; i < 10; i++)
        n += snprintf(target + n, sizeof target - (size_t)n, "/%s", c200);
    assert_int_equal(symlink(target, at(f, "short")), 0);
    n = snprintf(f->path, sizeof f->path, "%s/short", f->root);
    for (int i = 10; i < 21; i++)
        n += snprintf(f->path + n, sizeof f->path - (size_t)n, "/%s", c200);
    snprintf(f->path + n, sizeof f->path - (size_t)n, "/f.json");
    assert_true(strlen(f->path) < PATH_MAX);
    check_fails(f->path, PC_PATH_FILE, PC_PATH_READ, ".json", PC_ERR_INVALID,
                "The file path length exceeds limit.");

    /* A last component of 255 characters is fine (and the kernel allows no longer one). */
    char name[256];
    memset(name, 'n', 250);
    memcpy(name + 250, ".json", 6);
    write_file(at(f, "%s", name), "{}", 0600);
    check_ok(f->path, PC_PATH_FILE, PC_PATH_READ, ".json");
}

static void test_type(void **state)
{
    fixture *f = *state;
    write_file(at(f, "file.json"), "{}", 0600);
    check_fails(f->path, PC_PATH_DIR, 0, NULL, PC_ERR_INVALID,
                expect(f, "The %s should be a dictionary!", f->path));
    check_fails(f->root, PC_PATH_FILE, 0, NULL, PC_ERR_INVALID,
                expect(f, "The %s should be a file!", f->root));
    /* The message names the resolved path. */
    char cwd[PATH_MAX];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(f->root), 0);
    check_fails("./file.json", PC_PATH_DIR, 0, NULL, PC_ERR_INVALID,
                expect(f, "The %s/file.json should be a dictionary!", f->root));
    assert_int_equal(chdir(cwd), 0);
    /* A FIFO is not a regular file. */
    assert_int_equal(mkfifo(at(f, "fifo"), 0600), 0);
    check_fails(f->path, PC_PATH_FILE, PC_PATH_READ, NULL, PC_ERR_INVALID,
                expect(f, "The %s should be a file!", f->path));
}

static int deny_read(const char *path, int mode)
{
    return (mode & R_OK) ? -1 : 0;
}

static int deny_write(const char *path, int mode)
{
    return (mode & W_OK) ? -1 : 0;
}

static void test_access(void **state)
{
    fixture *f = *state;
    write_file(at(f, "a.json"), "{}", 0600);
    /* Root passes access() for any mode bits, so the denials come from the hook. */
    pc_path_testing_set_access(deny_read);
    check_fails(f->path, PC_PATH_FILE, PC_PATH_READ, ".json", PC_ERR_INVALID,
                expect(f, "The file path %s is not readable.", f->path));
    check_ok(f->path, PC_PATH_FILE, PC_PATH_WRITE, ".json");
    check_ok(f->path, PC_PATH_FILE, 0, ".json");
    pc_path_testing_set_access(deny_write);
    check_fails(f->root, PC_PATH_DIR, PC_PATH_WRITE, NULL, PC_ERR_INVALID,
                expect(f, "The file path %s is not writable.", f->root));
    check_fails(f->root, PC_PATH_DIR, PC_PATH_READ | PC_PATH_WRITE, NULL, PC_ERR_INVALID,
                expect(f, "The file path %s is not writable.", f->root));
    check_ok(f->root, PC_PATH_DIR, PC_PATH_READ, NULL);
    /* Read is checked before write. */
    pc_path_testing_set_access(deny_read);
    check_fails(f->root, PC_PATH_DIR, PC_PATH_READ | PC_PATH_WRITE, NULL, PC_ERR_INVALID,
                expect(f, "The file path %s is not readable.", f->root));
    pc_path_testing_set_access(NULL);

    /* For a user other than root, the real access() says no. */
    if (geteuid() != 0) {
        assert_int_equal(chmod(at(f, "a.json"), 0200), 0);
        check_fails(f->path, PC_PATH_FILE, PC_PATH_READ, ".json", PC_ERR_INVALID,
                    expect(f, "The file path %s is not readable.", f->path));
        assert_int_equal(chmod(f->path, 0400), 0);
        check_fails(f->path, PC_PATH_FILE, PC_PATH_WRITE, ".json", PC_ERR_INVALID,
                    expect(f, "The file path %s is not writable.", f->path));
    }
}

static void test_owner(void **state)
{
    fixture *f = *state;
    write_file(at(f, "mine.json"), "{}", 0600);
    struct stat st;
    assert_int_equal(stat(f->path, &st), 0);

    /* As root (uid 0) a file of anybody passes. */
    pc_path_testing_set_uid(0);
    check_ok(f->path, PC_PATH_FILE, PC_PATH_READ, ".json");
    if (geteuid() == 0) {
        pc_path_testing_set_uid(-1);
        assert_int_equal(chown(f->path, 4242, 4242), 0);
        check_ok(f->path, PC_PATH_FILE, PC_PATH_READ, ".json");
        assert_int_equal(stat(f->path, &st), 0);
    }

    /* Anybody else must own it. */
    long other = (long)st.st_uid + 1;
    pc_path_testing_set_uid(other);
    check_fails(
        f->path, PC_PATH_FILE, PC_PATH_READ, ".json", PC_ERR_INVALID,
        expect(f, "The file path %s may be insecure because is does not belong to you.", f->path));
    pc_path_testing_set_uid((long)st.st_uid == 0 ? -1 : (long)st.st_uid);
    if ((long)st.st_uid != 0 || geteuid() == 0)
        check_ok(f->path, PC_PATH_FILE, PC_PATH_READ, ".json");
}

static void test_special_characters(void **state)
{
    fixture *f = *state;
    static const char *const bad[] = {
        "with space.json", "tab\t.json", "quote'.json",    "caf\xc3\xa9.json",
        "semi;.json",      "star*.json", "new\nline.json", "trailing-newline.json\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_file(at(f, "%s", bad[i]), "{}", 0600);
        check_fails(
            f->path, PC_PATH_FILE, PC_PATH_READ, ".json", PC_ERR_INVALID,
            expect(f, "The file path %s contains special characters." PC_PATH_CHARS_HINT, f->path));
    }
    /* Colons, dots, dashes and underscores are allowed for reading. */
    write_file(at(f, "ok:name-1_2.v3.json"), "{}", 0600);
    check_ok(f->path, PC_PATH_FILE, PC_PATH_READ, ".json");

    assert_true(pc_path_chars_valid("/a/B/0_.-", false));
    assert_false(pc_path_chars_valid("/a:b", false));
    assert_true(pc_path_chars_valid("/a:b", true));
    assert_false(pc_path_chars_valid("", true));
    assert_false(pc_path_chars_valid(NULL, true));
    assert_false(pc_path_chars_valid("/a b", true));
}

static void test_size_limits(void **state)
{
    fixture *f = *state;
    const uint64_t mib = 1024 * 1024, gib = 1024 * mib;
    static const struct {
        const char *name;
        uint64_t limit_gib; /* 0: 1 MiB */
    } table[] = {
        {"a.json", 10}, {"a.pt", 10}, {"a.npy", 10}, {"a.zip", 10}, {"a.log", 10},
        {"a.db", 10},   {"a.csv", 1}, {"a.yaml", 1}, {"a.pkl", 1},  {"a.xlsx", 1},
        {"a.ir", 1},    {"a.txt", 0}, {"a.yml", 0},  {"json", 0},   {"a.JSON", 0},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        assert_int_equal(pc_path_size_limit(table[i].name),
                         table[i].limit_gib ? table[i].limit_gib * gib : mib);

    /* Strictly below the limit: one byte less passes, the limit itself does not. */
    sparse_file(at(f, "small.txt"), (off_t)(mib - 1));
    check_ok(f->path, PC_PATH_FILE, PC_PATH_READ, NULL);
    sparse_file(at(f, "big.txt"), (off_t)mib);
    check_fails(
        f->path, PC_PATH_FILE, PC_PATH_READ, NULL, PC_ERR_RANGE,
        expect(f, "The size (1048576) of %s exceeds (1048576) bytes, tools not support.", f->path));
    sparse_file(at(f, "huge.yaml"), (off_t)gib);
    check_fails(f->path, PC_PATH_FILE, PC_PATH_READ, ".yaml", PC_ERR_RANGE,
                expect(f,
                       "The size (1073741824) of %s exceeds (1073741824) bytes, tools not "
                       "support.",
                       f->path));
    sparse_file(at(f, "huge.json"), (off_t)(10 * gib));
    check_fails(f->path, PC_PATH_FILE, PC_PATH_READ, ".json", PC_ERR_RANGE,
                expect(f,
                       "The size (10737418240) of %s exceeds (10737418240) bytes, tools not "
                       "support.",
                       f->path));
    sparse_file(at(f, "fine.json"), (off_t)(10 * gib - 1));
    check_ok(f->path, PC_PATH_FILE, PC_PATH_READ, ".json");
    /* The size of a directory is never checked. */
    check_ok(f->root, PC_PATH_DIR, 0, NULL);
}

static void test_suffix(void **state)
{
    fixture *f = *state;
    write_file(at(f, "dump.txt"), "{}", 0600);
    check_fails(f->path, PC_PATH_FILE, PC_PATH_READ, ".json", PC_ERR_INVALID,
                expect(f, "The %s should be a .json file!", f->path));
    /* The suffix is checked on the resolved path: a symlinked parent does not change it. */
    write_file(at(f, "x.json"), "{}", 0600);
    check_ok(f->path, PC_PATH_FILE, PC_PATH_READ, ".json");
    check_ok(f->path, PC_PATH_FILE, PC_PATH_READ, "");
    check_ok(f->path, PC_PATH_FILE, PC_PATH_READ, "json");
    check_fails(f->path, PC_PATH_FILE, PC_PATH_READ, ".JSON", PC_ERR_INVALID,
                expect(f, "The %s should be a .JSON file!", f->path));
}

static void test_others_and_group_writable(void **state)
{
    fixture *f = *state;
    write_file(at(f, "o.json"), "{}", 0602);
    check_fails(f->path, PC_PATH_FILE, PC_PATH_READ, ".json", PC_ERR_INVALID,
                expect(f,
                       "The directory/file must not allow write access to others. "
                       "Directory/File path: %s",
                       f->path));
    assert_no_log(f);

    /* Group-writable is a warning, logged once per path. */
    write_file(at(f, "g.json"), "{}", 0620);
    check_ok(f->path, PC_PATH_FILE, PC_PATH_READ, ".json");
    const char *warning = expect(f, "The directory/file path is writable by group: %s.", f->path);
    assert_warnings(f, &warning, 1);
    check_ok(f->path, PC_PATH_FILE, PC_PATH_READ, ".json");
    assert_no_log(f);

    /* Both: warned, then refused. */
    write_file(at(f, "go.json"), "{}", 0622);
    check_fails(f->path, PC_PATH_FILE, PC_PATH_READ, ".json", PC_ERR_INVALID,
                expect(f,
                       "The directory/file must not allow write access to others. "
                       "Directory/File path: %s",
                       f->path));
    warning = expect(f, "The directory/file path is writable by group: %s.", f->path);
    assert_warnings(f, &warning, 1);

    /* The same for directories. */
    make_dir(at(f, "odir"), 0757);
    check_fails(f->path, PC_PATH_DIR, PC_PATH_WRITE, NULL, PC_ERR_INVALID,
                expect(f,
                       "The directory/file must not allow write access to others. "
                       "Directory/File path: %s",
                       f->path));
}

static void test_parent_warnings(void **state)
{
    fixture *f = *state;
    make_dir(at(f, "open"), 0777);
    char dir[sizeof f->path];
    snprintf(dir, sizeof dir, "%s", f->path);
    write_file(at(f, "open/a.json"), "{}", 0600);
    check_ok(f->path, PC_PATH_FILE, PC_PATH_READ, ".json");
    const char *warning = expect(f, "The directory is writable by others: %s.", dir);
    assert_warnings(f, &warning, 1);
    /* Once per directory. */
    write_file(at(f, "open/b.json"), "{}", 0600);
    check_ok(f->path, PC_PATH_FILE, PC_PATH_READ, ".json");
    assert_no_log(f);
    /* Directories are not checked for their parent. */
    make_dir(at(f, "open/sub"), 0750);
    check_ok(f->path, PC_PATH_DIR, 0, NULL);
    assert_no_log(f);

    /* A parent owned by someone else: only testable where a file can be given away. */
    if (geteuid() == 0) {
        make_dir(at(f, "theirs"), 0755);
        snprintf(dir, sizeof dir, "%s", f->path);
        write_file(at(f, "theirs/c.json"), "{}", 0600);
        assert_int_equal(chown(f->path, 4242, 4242), 0);
        pc_path_testing_set_uid(4242);
        check_ok(f->path, PC_PATH_FILE, PC_PATH_READ, ".json");
        warning = expect(f, "The directory %s is not yours.", dir);
        assert_warnings(f, &warning, 1);
        pc_path_testing_set_uid(-1);
    }
}

static void test_check_order(void **state)
{
    fixture *f = *state;
    /* Wrong type beats the others-writable and suffix checks. */
    write_file(at(f, "all_wrong.txt"), "{}", 0666);
    check_fails(f->path, PC_PATH_DIR, PC_PATH_READ, ".json", PC_ERR_INVALID,
                expect(f, "The %s should be a dictionary!", f->path));
    /* Access before owner, owner before characters. */
    write_file(at(f, "bad name.txt"), "{}", 0666);
    pc_path_testing_set_access(deny_read);
    check_fails(f->path, PC_PATH_FILE, PC_PATH_READ, ".json", PC_ERR_INVALID,
                expect(f, "The file path %s is not readable.", f->path));
    pc_path_testing_set_access(NULL);
    struct stat st;
    assert_int_equal(stat(f->path, &st), 0);
    pc_path_testing_set_uid((long)st.st_uid + 1);
    check_fails(
        f->path, PC_PATH_FILE, PC_PATH_READ, ".json", PC_ERR_INVALID,
        expect(f, "The file path %s may be insecure because is does not belong to you.", f->path));
    pc_path_testing_set_uid(-1);
    /* Characters before size, size before suffix, suffix before others-writable. */
    check_fails(
        f->path, PC_PATH_FILE, PC_PATH_READ, ".json", PC_ERR_INVALID,
        expect(f, "The file path %s contains special characters." PC_PATH_CHARS_HINT, f->path));
    sparse_file(at(f, "big.txt"), 2 * 1024 * 1024);
    assert_int_equal(chmod(f->path, 0666), 0);
    check_fails(
        f->path, PC_PATH_FILE, PC_PATH_READ, ".json", PC_ERR_RANGE,
        expect(f, "The size (2097152) of %s exceeds (1048576) bytes, tools not support.", f->path));
    at(f, "all_wrong.txt");
    check_fails(f->path, PC_PATH_FILE, PC_PATH_READ, ".json", PC_ERR_INVALID,
                expect(f, "The %s should be a .json file!", f->path));
    /* Existence before the symlink check, the symlink check before everything else. */
    assert_int_equal(symlink("all_wrong.txt", at(f, "link")), 0);
    check_fails(f->path, PC_PATH_DIR, PC_PATH_READ, ".json", PC_ERR_INVALID,
                expect(f, "The file path %s is a soft link.", f->path));
}

/* ---------------------------------------------------------------------------------------------
 * pc_path_resolve
 * ------------------------------------------------------------------------------------------- */

static void assert_resolves(const char *path, const char *expected)
{
    char *got = NULL;
    assert_int_equal(pc_path_resolve(path, &got), PC_OK);
    if (strcmp(got, expected) != 0)
        fail_msg("pc_path_resolve(%s) = %s, expected %s", path, got, expected);
    free(got);
}

static void test_resolve_like_python(void **state)
{
    fixture *f = *state;
    char cwd[PATH_MAX];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(f->root), 0);
    assert_int_equal(mkdir("a", 0750), 0);
    assert_int_equal(mkdir("a/b", 0750), 0);
    assert_int_equal(mkdir("a/b/c", 0750), 0);
    assert_int_equal(mkdir("d", 0750), 0);
    write_file("a/b/c/f", "", 0600);
    assert_int_equal(symlink("a/b", "l1"), 0);
    assert_int_equal(symlink("../d", "a/b/up"), 0);
    assert_int_equal(symlink("loop2", "loop1"), 0);
    assert_int_equal(symlink("loop1", "loop2"), 0);
    assert_int_equal(symlink("nonexist", "dang"), 0);
    assert_int_equal(symlink("l1/c", "l2"), 0);
    assert_int_equal(symlink(".", "self"), 0);
    char abs_target[PATH_MAX + 8];
    snprintf(abs_target, sizeof abs_target, "%s/a", f->root);
    assert_int_equal(symlink(abs_target, "abs"), 0);

    /* Expected values are what Python 3.11's os.path.realpath gives in the same tree. */
    static const struct {
        const char *path, *expected; /* expected relative to the root, "" for the root */
    } cases[] = {
        {".", ""},
        {"a", "/a"},
        {"a/", "/a"},
        {"a//b/./c", "/a/b/c"},
        {"l1", "/a/b"},
        {"l1/c/f", "/a/b/c/f"},
        {"l1/up", "/a/d"}, /* "../d" is relative to a/b, the link's own directory */
        {"l1/up/..", "/a"},
        {"l1/../x", "/a/x"},
        {"loop1", "/loop1"}, /* loops are left unresolved */
        {"loop1/x", "/loop1/x"},
        {"loop1/../a", "/a"},
        {"abs/b", "/a/b"},
        {"abs/b/../..", ""},
        {"dang", "/nonexist"},
        {"dang/x/../y", "/nonexist/y"},
        {"l2/f/", "/a/b/c/f"},
        {"nonexist/../a", "/a"},
        {"self/self/a", "/a"},
        {"a/b/c/f/..", "/a/b/c"},
    };
    char expected[PATH_MAX + 64];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(expected, sizeof expected, "%s%s", f->root, cases[i].expected);
        assert_resolves(cases[i].path, expected);
    }
    assert_resolves("///a", "/a");
    assert_resolves("//a", "/a");
    assert_resolves("/..", "/");
    assert_resolves("/", "/");

    /* Where everything exists it agrees with realpath(3). */
    char real[PATH_MAX];
    assert_non_null(realpath("l2/f", real));
    assert_resolves("l2/f", real);
    assert_int_equal(chdir(cwd), 0);
}

/* ---------------------------------------------------------------------------------------------
 * Before creating, creating directories, file modes
 * ------------------------------------------------------------------------------------------- */

static void before_create_fails(const char *path, const char *message)
{
    pc_error_clear();
    pc_status s = pc_path_check_before_create(path);
    if (s != PC_ERR_INVALID || strcmp(pc_error_message(), message) != 0)
        fail_msg("pc_path_check_before_create(%s)\n  got      %d \"%s\"\n  expected \"%s\"", path,
                 s, pc_error_message(), message);
}

static void test_before_create(void **state)
{
    fixture *f = *state;
    assert_int_equal(pc_path_check_before_create(at(f, "new/deeper/file.csv")), PC_OK);
    /* No colon here, unlike for reading; the message names the path as given. */
    at(f, "a:b.csv");
    before_create_fails(
        f->path,
        expect(f, "The file path %s contains special characters." PC_PATH_DIR_CHARS_HINT, f->path));
    before_create_fails(
        "rel ative.csv",
        "The file path rel ative.csv contains special characters." PC_PATH_DIR_CHARS_HINT);
    /* The symlink check. */
    write_file(at(f, "t.csv"), "", 0600);
    assert_int_equal(symlink("t.csv", at(f, "l.csv")), 0);
    before_create_fails(f->path, expect(f, "The file path %s is a soft link.", f->path));
    /* A last component over 255 characters, counted as given. */
    char name[300];
    memset(name, 'x', 256);
    name[256] = '\0';
    at(f, "%s", name);
    before_create_fails(f->path, "The file path length exceeds limit.");
    name[255] = '\0';
    assert_int_equal(pc_path_check_before_create(at(f, "%s", name)), PC_OK);
    /* Characters, not bytes: 255 two-byte characters fit the name limit (and then fail the
     * character check). */
    char wide[600] = {0};
    for (int i = 0; i < 255; i++)
        memcpy(wide + 2 * i, "\xc3\xa9", 2);
    at(f, "%s", wide);
    before_create_fails(
        f->path,
        expect(f, "The file path %s contains special characters." PC_PATH_DIR_CHARS_HINT, f->path));
    memcpy(wide + 510, "\xc3\xa9", 2);
    at(f, "%s", wide);
    before_create_fails(f->path, "The file path length exceeds limit.");
    /* A whole resolved path over 4096 characters. */
    int n = snprintf(f->path, sizeof f->path, "%s", f->root);
    while (n < 4100)
        n += snprintf(f->path + n, sizeof f->path - (size_t)n, "/%s", "dddddddddd");
    before_create_fails(f->path, "The file path length exceeds limit.");
    assert_int_equal(pc_path_check_before_create(NULL), PC_ERR_INVALID);
}

static void test_make_dir(void **state)
{
    fixture *f = *state;
    assert_int_equal(pc_path_make_dir(at(f, "out/a/b")), PC_OK);
    static const char *const made[] = {"out", "out/a", "out/a/b"};
    for (size_t i = 0; i < 3; i++) {
        struct stat st;
        assert_int_equal(stat(at(f, "%s", made[i]), &st), 0);
        assert_true(S_ISDIR(st.st_mode));
        assert_int_equal(st.st_mode & 07777, PC_PATH_DIR_MODE);
    }
    /* An existing directory is fine; its mode is left alone. */
    make_dir(at(f, "existing"), 0700);
    assert_int_equal(pc_path_make_dir(f->path), PC_OK);
    struct stat st;
    assert_int_equal(stat(f->path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0700);
    /* The umask applies, as with os.makedirs. */
    umask(077);
    assert_int_equal(pc_path_make_dir(at(f, "masked")), PC_OK);
    assert_int_equal(stat(f->path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0700);
    umask(022);

    /* Relative paths, through a symlinked parent. */
    char cwd[PATH_MAX];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(f->root), 0);
    assert_int_equal(symlink("out", "outlink"), 0);
    assert_int_equal(pc_path_make_dir("outlink/c/./d/"), PC_OK);
    assert_int_equal(stat("out/c/d", &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    /* The path itself may not be a symlink. */
    pc_error_clear();
    assert_int_equal(pc_path_make_dir("outlink"), PC_ERR_INVALID);
    assert_string_equal(pc_error_message(), "The file path outlink is a soft link.");
    /* No colon. */
    assert_int_equal(pc_path_make_dir("with:colon"), PC_ERR_INVALID);
    assert_string_equal(
        pc_error_message(),
        "The file path with:colon contains special characters." PC_PATH_DIR_CHARS_HINT);
    assert_int_equal(chdir(cwd), 0);

    /* A file in the way. */
    write_file(at(f, "file"), "", 0600);
    char file[sizeof f->path];
    snprintf(file, sizeof file, "%s", f->path);
    assert_int_equal(pc_path_make_dir(at(f, "file/sub")), PC_ERR_IO);
    assert_string_equal(
        pc_error_message(),
        expect(f,
               "Failed to create %s. Please check the path permission or disk space. [Errno "
               "17] File exists: '%s'",
               file, file));

    /* Sixteen missing levels are made, seventeen are too many. */
    int n = snprintf(f->path, sizeof f->path, "%s/deep", f->root);
    for (int i = 1; i < 16; i++)
        n += snprintf(f->path + n, sizeof f->path - (size_t)n, "/l%d", i);
    assert_int_equal(pc_path_make_dir(f->path), PC_OK);
    n = snprintf(f->path, sizeof f->path, "%s/deeper", f->root);
    for (int i = 1; i < 17; i++)
        n += snprintf(f->path + n, sizeof f->path - (size_t)n, "/l%d", i);
    assert_int_equal(pc_path_make_dir(f->path), PC_ERR_INVALID);
    assert_string_equal(pc_error_message(), "call msprobe.core.common.file_utils."
                                            "create_directory exceeds the recursion limit.");
    assert_int_equal(stat(at(f, "deeper"), &st), -1);

    /* With no umask at all a made directory is 0750, which passes the check made after it. */
    umask(0);
    assert_int_equal(pc_path_make_dir(at(f, "nomask")), PC_OK);
    assert_int_equal(stat(f->path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0750);
    umask(022);
    assert_int_equal(pc_path_make_dir(NULL), PC_ERR_INVALID);
}

static void test_set_file_mode(void **state)
{
    fixture *f = *state;
    write_file(at(f, "out.csv"), "x", 0666);
    assert_int_equal(pc_path_set_file_mode(f->path), PC_OK);
    struct stat st;
    assert_int_equal(stat(f->path, &st), 0);
    assert_int_equal(st.st_mode & 07777, PC_PATH_FILE_MODE);
    /* Missing files and symlinks are left alone. */
    assert_int_equal(pc_path_set_file_mode(at(f, "missing.csv")), PC_OK);
    assert_int_equal(chmod(at(f, "out.csv"), 0600), 0);
    assert_int_equal(symlink("out.csv", at(f, "link.csv")), 0);
    assert_int_equal(pc_path_set_file_mode(f->path), PC_OK);
    assert_int_equal(stat(at(f, "out.csv"), &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    assert_int_equal(pc_path_set_file_mode(NULL), PC_ERR_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_good_file_and_dir, setup, teardown),
        cmocka_unit_test_setup_teardown(test_does_not_exist, setup, teardown),
        cmocka_unit_test_setup_teardown(test_soft_link, setup, teardown),
        cmocka_unit_test_setup_teardown(test_length_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_type, setup, teardown),
        cmocka_unit_test_setup_teardown(test_access, setup, teardown),
        cmocka_unit_test_setup_teardown(test_owner, setup, teardown),
        cmocka_unit_test_setup_teardown(test_special_characters, setup, teardown),
        cmocka_unit_test_setup_teardown(test_size_limits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_suffix, setup, teardown),
        cmocka_unit_test_setup_teardown(test_others_and_group_writable, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parent_warnings, setup, teardown),
        cmocka_unit_test_setup_teardown(test_check_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resolve_like_python, setup, teardown),
        cmocka_unit_test_setup_teardown(test_before_create, setup, teardown),
        cmocka_unit_test_setup_teardown(test_make_dir, setup, teardown),
        cmocka_unit_test_setup_teardown(test_set_file_mode, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
