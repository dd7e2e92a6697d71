#include "pc_test.h"

#include "precheck/core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------------------------- */

/* A fixed local time, so that the expected text does not depend on the time zone. */
static time_t local_time(int year, int mon, int day, int hour, int min, int sec)
{
    struct tm tm = {0};
    tm.tm_year = year - 1900;
    tm.tm_mon = mon - 1;
    tm.tm_mday = day;
    tm.tm_hour = hour;
    tm.tm_min = min;
    tm.tm_sec = sec;
    tm.tm_isdst = -1;
    time_t t = mktime(&tm);
    assert_true(t != (time_t)-1);
    return t;
}

/* Everything written to f so far, as a malloc'd string. */

static FILE *log_to_tmpfile(void)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    pc_log_set_stream(f);
    return f;
}

/* Stops logging to f and returns what was logged. */
static char *log_collect(FILE *f)
{
    pc_log_set_stream(NULL);
    char *text = pc_test_read_stream(f);
    fclose(f);
    return text;
}

/* Points a file descriptor (1 or 2) at a temporary file for a while. */
typedef struct fd_capture {
    int fd;
    int saved;
    FILE *file;
} fd_capture;

static void capture_begin(fd_capture *c, int fd)
{
    fflush(stdout);
    fflush(stderr);
    c->fd = fd;
    c->file = tmpfile();
    assert_non_null(c->file);
    c->saved = dup(fd);
    assert_true(c->saved >= 0);
    assert_true(dup2(fileno(c->file), fd) >= 0);
}

static char *capture_end(fd_capture *c)
{
    fflush(stdout);
    fflush(stderr);
    assert_true(dup2(c->saved, c->fd) >= 0);
    close(c->saved);
    fseek(c->file, 0, SEEK_END);
    char *text = pc_test_read_stream(c->file);
    fclose(c->file);
    return text;
}

static int count_lines(const char *text)
{
    int n = 0;
    for (; *text; text++)
        n += *text == '\n';
    return n;
}

static int reset(void **state)
{
    pc_log_set_level(PC_LOG_INFO);
    pc_log_set_stream(NULL);
    pc_log_testing_fail_alloc(-1);
    unsetenv("MSPROBE_LOG_LEVEL");
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Line format
 * ------------------------------------------------------------------------------------------- */

static void test_format_line_exact(void **state)
{
    time_t t = local_time(2025, 1, 2, 3, 4, 5);
    char line[256];
    static const struct {
        pc_log_level level;
        const char *expected;
    } cases[] = {
        {PC_LOG_DEBUG, "2025-01-02 03:04:05 (12345) [DEBUG] hello world\n"},
        {PC_LOG_INFO, "2025-01-02 03:04:05 (12345) [INFO] hello world\n"},
        {PC_LOG_WARNING, "2025-01-02 03:04:05 (12345) [WARNING] hello world\n"},
        {PC_LOG_ERROR, "2025-01-02 03:04:05 (12345) [ERROR] hello world\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int n = pc_log_format_line(line, sizeof line, t, 12345, cases[i].level, "hello world");
        assert_string_equal(line, cases[i].expected);
        assert_int_equal(n, (int)strlen(cases[i].expected));
    }

    /* Two-digit fields are zero-padded; the message is sanitised; an empty one is allowed. */
    t = local_time(2024, 12, 31, 23, 59, 58);
    pc_log_format_line(line, sizeof line, t, 7, PC_LOG_INFO, "a\nb%0ac");
    assert_string_equal(line, "2024-12-31 23:59:58 (7) [INFO] a_b_c\n");
    pc_log_format_line(line, sizeof line, t, 7, PC_LOG_INFO, "");
    assert_string_equal(line, "2024-12-31 23:59:58 (7) [INFO] \n");
}

static void test_format_line_small_buffer(void **state)
{
    time_t t = local_time(2025, 6, 7, 8, 9, 10);
    const char *full = "2025-06-07 08:09:10 (42) [ERROR] boom\n";
    int len = (int)strlen(full);

    assert_int_equal(pc_log_format_line(NULL, 0, t, 42, PC_LOG_ERROR, "boom"), len);

    /* Every cut keeps a NUL-terminated prefix of the full line and reports the full length. */
    for (size_t size = 1; size <= (size_t)len + 1; size++) {
        char buf[64];
        memset(buf, '#', sizeof buf);
        assert_int_equal(pc_log_format_line(buf, size, t, 42, PC_LOG_ERROR, "boom"), len);
        assert_int_equal(strlen(buf), size - 1);
        assert_memory_equal(buf, full, size - 1);
        assert_int_equal(buf[size], '#');
    }
}

static void test_format_line_rejects(void **state)
{
    char line[128];
    time_t t = local_time(2025, 1, 1, 0, 0, 0);
    assert_int_equal(pc_log_format_line(line, sizeof line, t, 1, PC_LOG_OFF, "x"), -1);
    assert_int_equal(pc_log_format_line(line, sizeof line, t, 1, (pc_log_level)-1, "x"), -1);
    assert_int_equal(pc_log_format_line(line, sizeof line, t, 1, PC_LOG_INFO, NULL), -1);
    assert_int_equal(pc_log_format_line(NULL, sizeof line, t, 1, PC_LOG_INFO, "x"), -1);
}

static void test_level_names(void **state)
{
    assert_string_equal(pc_log_level_name(PC_LOG_DEBUG), "DEBUG");
    assert_string_equal(pc_log_level_name(PC_LOG_INFO), "INFO");
    assert_string_equal(pc_log_level_name(PC_LOG_WARNING), "WARNING");
    assert_string_equal(pc_log_level_name(PC_LOG_ERROR), "ERROR");
    assert_string_equal(pc_log_level_name(PC_LOG_OFF), "OFF");
    assert_string_equal(pc_log_level_name((pc_log_level)99), "UNKNOWN");
}

/* ---------------------------------------------------------------------------------------------
 * Sanitising
 * ------------------------------------------------------------------------------------------- */

static void check_sanitize(const char *in, const char *expected)
{
    char out[128];
    size_t n = pc_log_sanitize(out, sizeof out, in);
    assert_string_equal(out, expected);
    assert_int_equal(n, strlen(expected));

    /* In place gives the same. */
    char copy[128];
    strcpy(copy, in);
    assert_int_equal(pc_log_sanitize(copy, sizeof copy, copy), strlen(expected));
    assert_string_equal(copy, expected);
}

static void test_sanitize_characters(void **state)
{
    check_sanitize("a\nb", "a_b");
    check_sanitize("a\rb", "a_b");
    check_sanitize("a\x7f"
                   "b",
                   "a_b");
    check_sanitize("a\bb", "a_b");
    check_sanitize("a\fb", "a_b");
    check_sanitize("a\tb", "a_b");
    check_sanitize("a\vb", "a_b");
    /* One '_' per character, at either end too. */
    check_sanitize("\r\n", "__");
    check_sanitize("\nMax abs error\n", "_Max abs error_");
    /* Other control characters and bytes >= 0x80 pass untouched, as in msprobe. */
    check_sanitize("\x01\x1b[0m", "\x01\x1b[0m");
    check_sanitize("\xe4\xb8\xad", "\xe4\xb8\xad");
    check_sanitize("", "");
}

static void test_sanitize_strings(void **state)
{
    /* Each literal string becomes a single '_' (msprobe: msg.replace(s, '_')). */
    check_sanitize("x%08y", "x_y");
    check_sanitize("x%0ay", "x_y");
    check_sanitize("x%0by", "x_y");
    check_sanitize("x%0cy", "x_y");
    check_sanitize("x%0dy", "x_y");
    check_sanitize("x%7fy", "x_y");
    check_sanitize("%0a%0b", "__");
    check_sanitize("%%0a", "%_");
    check_sanitize("%0%0a", "%0_");
    check_sanitize("%0a\n%0d", "___");
    /* Case-sensitive, and only these six: */
    check_sanitize("%0A %0D %7F", "%0A %0D %7F");
    check_sanitize("%09 %0e %20 %7e", "%09 %0e %20 %7e");
    /* Incomplete at the end of the message. */
    check_sanitize("50%", "50%");
    check_sanitize("ab%0", "ab%0");
    check_sanitize("%7", "%7");
}

static void test_sanitize_small_buffer(void **state)
{
    char out[4] = "###";
    assert_int_equal(pc_log_sanitize(out, sizeof out, "a\nbcdef"), 7);
    assert_string_equal(out, "a_b");
    assert_int_equal(pc_log_sanitize(out, 1, "abc"), 3);
    assert_string_equal(out, "");
    assert_int_equal(pc_log_sanitize(NULL, 0, "%0aabc"), 4);
}

/* ---------------------------------------------------------------------------------------------
 * Writing and filtering
 * ------------------------------------------------------------------------------------------- */

static void test_log_writes_one_line(void **state)
{
    FILE *f = log_to_tmpfile();
    time_t before = time(NULL);
    pc_log_info("start UT test %d", 42);
    time_t after = time(NULL);
    char *text = log_collect(f);

    int y, mo, d, h, mi, s;
    char rest[128];
    assert_int_equal(
        sscanf(text, "%4d-%2d-%2d %2d:%2d:%2d%127[^\n]", &y, &mo, &d, &h, &mi, &s, rest), 7);
    assert_int_equal(text[4], '-');
    assert_int_equal(text[10], ' ');
    assert_int_equal(text[19], ' ');
    time_t stamp = local_time(y, mo, d, h, mi, s);
    assert_true(stamp >= before && stamp <= after);

    char expected[128];
    snprintf(expected, sizeof expected, " (%ld) [INFO] start UT test 42\n", (long)getpid());
    assert_string_equal(text + 19, expected);
    free(text);
}

static void test_log_default_stream_is_stdout(void **state)
{
    fd_capture c;
    capture_begin(&c, STDOUT_FILENO);
    pc_log_warning("to stdout");
    char *text = capture_end(&c);
    char expected[64];
    snprintf(expected, sizeof expected, " (%ld) [WARNING] to stdout\n", (long)getpid());
    assert_true(strlen(text) > 19);
    assert_string_equal(text + 19, expected);
    free(text);
}

static void test_log_sanitizes_messages(void **state)
{
    FILE *f = log_to_tmpfile();
    pc_log_error("%s", "bad\tname%0d\n");
    char *text = log_collect(f);
    const char *tail = strstr(text, "[ERROR] ");
    assert_non_null(tail);
    assert_string_equal(tail, "[ERROR] bad_name__\n");
    free(text);
}

/* Logs one message per level and returns which came out, as a string like "IWE". */
static void levels_written(char out[8])
{
    FILE *f = log_to_tmpfile();
    pc_log_debug("m");
    pc_log_info("m");
    pc_log_warning("m");
    pc_log_error("m");
    char *text = log_collect(f);
    size_t n = 0;
    if (strstr(text, "[DEBUG] m\n"))
        out[n++] = 'D';
    if (strstr(text, "[INFO] m\n"))
        out[n++] = 'I';
    if (strstr(text, "[WARNING] m\n"))
        out[n++] = 'W';
    if (strstr(text, "[ERROR] m\n"))
        out[n++] = 'E';
    out[n] = '\0';
    assert_int_equal(count_lines(text), (int)n);
    free(text);
}

static void test_level_filter(void **state)
{
    static const struct {
        pc_log_level level;
        const char *written;
    } cases[] = {
        {PC_LOG_DEBUG, "DIWE"}, {PC_LOG_INFO, "IWE"}, {PC_LOG_WARNING, "WE"},
        {PC_LOG_ERROR, "E"},    {PC_LOG_OFF, ""},
    };
    char written[8];

    /* Before anything sets it, the minimum is INFO. */
    assert_int_equal(pc_log_get_level(), PC_LOG_INFO);
    levels_written(written);
    assert_string_equal(written, "IWE");

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pc_log_set_level(cases[i].level);
        assert_int_equal(pc_log_get_level(), cases[i].level);
        levels_written(written);
        assert_string_equal(written, cases[i].written);
        assert_int_equal(pc_log_enabled(PC_LOG_ERROR), cases[i].level <= PC_LOG_ERROR);
    }

    /* Out-of-range levels are ignored. */
    pc_log_set_level(PC_LOG_WARNING);
    pc_log_set_level((pc_log_level)42);
    pc_log_set_level((pc_log_level)-1);
    assert_int_equal(pc_log_get_level(), PC_LOG_WARNING);
}

static void test_message_levels_off_and_invalid_dropped(void **state)
{
    pc_log_set_level(PC_LOG_DEBUG);
    FILE *f = log_to_tmpfile();
    pc_log(PC_LOG_OFF, "never");
    pc_log((pc_log_level)17, "never");
    pc_log((pc_log_level)-3, "never");
    pc_log(PC_LOG_INFO, "%s", "kept");
    char *text = log_collect(f);
    assert_int_equal(count_lines(text), 1);
    assert_non_null(strstr(text, "[INFO] kept\n"));
    assert_false(pc_log_enabled(PC_LOG_OFF));
    free(text);
}

static void test_env_levels(void **state)
{
    static const struct {
        const char *value;
        pc_log_level level;
        const char *written;
    } cases[] = {
        {"0", PC_LOG_DEBUG, "DIWE"}, {"1", PC_LOG_INFO, "IWE"}, {"2", PC_LOG_WARNING, "WE"},
        {"3", PC_LOG_ERROR, "E"},    {"4", PC_LOG_OFF, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pc_log_set_level(PC_LOG_INFO);
        setenv("MSPROBE_LOG_LEVEL", cases[i].value, 1);
        pc_log_init_from_env();
        assert_int_equal(pc_log_get_level(), cases[i].level);
        char written[8];
        levels_written(written);
        assert_string_equal(written, cases[i].written);
    }

    /* Unset and empty mean INFO, without a warning. */
    fd_capture c;
    capture_begin(&c, STDERR_FILENO);
    pc_log_set_level(PC_LOG_ERROR);
    unsetenv("MSPROBE_LOG_LEVEL");
    pc_log_init_from_env();
    assert_int_equal(pc_log_get_level(), PC_LOG_INFO);
    pc_log_set_level(PC_LOG_ERROR);
    setenv("MSPROBE_LOG_LEVEL", "", 1);
    pc_log_init_from_env();
    assert_int_equal(pc_log_get_level(), PC_LOG_INFO);
    char *err = capture_end(&c);
    assert_string_equal(err, "");
    free(err);
}

/* The only test that gives MSPROBE_LOG_LEVEL an invalid value: the warning is once per
 * process. */
static void test_env_invalid(void **state)
{
    static const char *const invalid[] = {"abc", "5", "-1", "01", " 1", "1 ", "1\n", "10", "4x"};

    fd_capture c;
    capture_begin(&c, STDERR_FILENO);
    FILE *out = log_to_tmpfile();
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        pc_log_set_level(PC_LOG_OFF);
        setenv("MSPROBE_LOG_LEVEL", invalid[i], 1);
        pc_log_init_from_env();
        assert_int_equal(pc_log_get_level(), PC_LOG_INFO);
    }
    char *logged = log_collect(out);
    char *err = capture_end(&c);

    /* Nothing on the log stream; one WARNING line on stderr, for the first bad value. */
    assert_string_equal(logged, "");
    assert_int_equal(count_lines(err), 1);
    char expected[160];
    snprintf(expected, sizeof expected,
             " (%ld) [WARNING] MSPROBE_LOG_LEVEL=\"abc\" is not one of 0, 1, 2, 3, 4; using 1 "
             "(INFO)\n",
             (long)getpid());
    assert_true(strlen(err) > 19);
    assert_string_equal(err + 19, expected);
    free(logged);
    free(err);
}

static void test_level_parse(void **state)
{
    static const char *const values[] = {"0", "1", "2", "3", "4"};
    for (int i = 0; i < 5; i++) {
        pc_log_level level = PC_LOG_ERROR;
        assert_int_equal(pc_log_level_parse(values[i], &level), PC_OK);
        assert_int_equal(level, (pc_log_level)i);
    }
    pc_log_level level = PC_LOG_WARNING;
    assert_int_equal(pc_log_level_parse("07", &level), PC_ERR_INVALID);
    assert_string_equal(pc_error_message(), "MSPROBE_LOG_LEVEL=\"07\" is not one of 0, 1, 2, 3, 4");
    assert_int_equal(pc_log_level_parse("", &level), PC_ERR_INVALID);
    assert_int_equal(pc_log_level_parse(NULL, &level), PC_ERR_INVALID);
    assert_int_equal(level, PC_LOG_WARNING);
    pc_error_clear();
}

/* Several processes logging to one file: every line arrives whole. */
static void test_lines_from_processes_do_not_mix(void **state)
{
    enum { WORKERS = 4, LINES = 300 };
    FILE *f = log_to_tmpfile();
    pid_t pids[WORKERS];
    for (int w = 0; w < WORKERS; w++) {
        pids[w] = fork();
        assert_true(pids[w] >= 0);
        if (pids[w] == 0) {
            for (int i = 0; i < LINES; i++)
                pc_log_info("worker %d line %d %.*s end", w, i, 1 + (i * 37) % 400,
                            "................................................................"
                            "................................................................"
                            "................................................................"
                            "................................................................"
                            "................................................................"
                            "................................................................"
                            "................");
            _exit(0);
        }
    }
    for (int w = 0; w < WORKERS; w++) {
        int status;
        assert_int_equal(waitpid(pids[w], &status, 0), pids[w]);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    fseek(f, 0, SEEK_END);
    char *text = log_collect(f);
    assert_int_equal(count_lines(text), WORKERS * LINES);
    int seen[WORKERS] = {0};
    for (char *line = text, *next; *line; line = next) {
        next = strchr(line, '\n');
        assert_non_null(next);
        *next++ = '\0';
        int w, i, dots;
        assert_int_equal(sscanf(line + 19, " (%*d) [INFO] worker %d line %d %n", &w, &i, &dots), 2);
        assert_true(w >= 0 && w < WORKERS);
        size_t want = (size_t)(1 + (i * 37) % 400);
        assert_int_equal(strspn(line + 19 + dots, "."), want);
        assert_string_equal(line + 19 + dots + want, " end");
        seen[w]++;
    }
    for (int w = 0; w < WORKERS; w++)
        assert_int_equal(seen[w], LINES);
    free(text);
}

/* ---------------------------------------------------------------------------------------------
 * Long messages
 * ------------------------------------------------------------------------------------------- */

static char *make_message(size_t len, char fill)
{
    char *msg = malloc(len + 1);
    assert_non_null(msg);
    memset(msg, fill, len);
    msg[len] = '\0';
    return msg;
}

/* The message part of a logged line, without its newline. */
static char *logged_message(char *text)
{
    char *msg = strstr(text, "] ");
    assert_non_null(msg);
    msg += 2;
    size_t len = strlen(msg);
    assert_true(len > 0 && msg[len - 1] == '\n');
    msg[len - 1] = '\0';
    return msg;
}

static void test_long_message_is_whole(void **state)
{
    static const size_t lengths[] = {1022, 1023, 1024, 1100, 5000, 100000};
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
        char *msg = make_message(lengths[i], 'x');
        msg[lengths[i] - 1] = '\n'; /* sanitised even at the far end */
        FILE *f = log_to_tmpfile();
        pc_log_info("%s", msg);
        char *text = log_collect(f);
        assert_int_equal(count_lines(text), 1);
        msg[lengths[i] - 1] = '_';
        assert_string_equal(logged_message(text), msg);
        free(text);
        free(msg);
    }
}

static void test_long_message_without_memory(void **state)
{
    pc_log_testing_fail_alloc(0);

    /* Plain ASCII: cut to PC_LOG_FALLBACK_MAX bytes, the last three being "...". */
    char *msg = make_message(5000, 'y');
    FILE *f = log_to_tmpfile();
    pc_log_info("%s", msg);
    char *text = log_collect(f);
    char *got = logged_message(text);
    assert_int_equal(strlen(got), PC_LOG_FALLBACK_MAX);
    assert_memory_equal(got, msg, PC_LOG_FALLBACK_MAX - 3);
    assert_string_equal(got + PC_LOG_FALLBACK_MAX - 3, "...");
    free(text);
    free(msg);

    /* A message that fits the stack is unaffected. */
    f = log_to_tmpfile();
    pc_log_info("short %d", 1);
    text = log_collect(f);
    assert_string_equal(logged_message(text), "short 1");
    free(text);

    /* A three-byte UTF-8 character is not split: 1 + 3k bytes puts a boundary just before the
     * cut at byte PC_LOG_FALLBACK_MAX - 3 = 1020 (1 + 3 * 339 = 1018 < 1020 < 1021). */
    char *utf8 = malloc(1 + 3 * 2000 + 1);
    assert_non_null(utf8);
    utf8[0] = 'a';
    for (int i = 0; i < 2000; i++)
        memcpy(utf8 + 1 + 3 * i, "\xe4\xb8\xad", 3);
    utf8[1 + 3 * 2000] = '\0';
    f = log_to_tmpfile();
    pc_log_info("%s", utf8);
    text = log_collect(f);
    got = logged_message(text);
    assert_int_equal(strlen(got), 1018 + 3);
    assert_memory_equal(got, utf8, 1018);
    assert_string_equal(got + 1018, "...");
    free(text);
    free(utf8);

    /* The message fits the heap but the line does not: the same cut. */
    pc_log_testing_fail_alloc(1);
    msg = make_message(5000, 'z');
    f = log_to_tmpfile();
    pc_log_info("%s", msg);
    text = log_collect(f);
    got = logged_message(text);
    assert_int_equal(strlen(got), PC_LOG_FALLBACK_MAX);
    assert_memory_equal(got, msg, PC_LOG_FALLBACK_MAX - 3);
    assert_string_equal(got + PC_LOG_FALLBACK_MAX - 3, "...");
    free(text);
    free(msg);

    pc_log_testing_fail_alloc(-1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_format_line_exact, reset, reset),
        cmocka_unit_test_setup_teardown(test_format_line_small_buffer, reset, reset),
        cmocka_unit_test_setup_teardown(test_format_line_rejects, reset, reset),
        cmocka_unit_test_setup_teardown(test_level_names, reset, reset),
        cmocka_unit_test_setup_teardown(test_sanitize_characters, reset, reset),
        cmocka_unit_test_setup_teardown(test_sanitize_strings, reset, reset),
        cmocka_unit_test_setup_teardown(test_sanitize_small_buffer, reset, reset),
        cmocka_unit_test_setup_teardown(test_log_writes_one_line, reset, reset),
        cmocka_unit_test_setup_teardown(test_log_default_stream_is_stdout, reset, reset),
        cmocka_unit_test_setup_teardown(test_log_sanitizes_messages, reset, reset),
        cmocka_unit_test_setup_teardown(test_level_filter, reset, reset),
        cmocka_unit_test_setup_teardown(test_message_levels_off_and_invalid_dropped, reset, reset),
        cmocka_unit_test_setup_teardown(test_env_levels, reset, reset),
        cmocka_unit_test_setup_teardown(test_env_invalid, reset, reset),
        cmocka_unit_test_setup_teardown(test_level_parse, reset, reset),
        cmocka_unit_test_setup_teardown(test_lines_from_processes_do_not_mix, reset, reset),
        cmocka_unit_test_setup_teardown(test_long_message_is_whole, reset, reset),
        cmocka_unit_test_setup_teardown(test_long_message_without_memory, reset, reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
