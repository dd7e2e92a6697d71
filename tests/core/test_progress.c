#include "pc_test.h"

#include "precheck/core/progress.h"

#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------------------------
 * pc_progress_format: expected strings come from tqdm 4.x format_meter(ascii=True) with
 * msprobe's bar_format, run on the same arguments.
 * ------------------------------------------------------------------------------------------- */

typedef struct format_case {
    const char *label;
    uint64_t done;
    uint64_t total;
    double elapsed;
    int width;
    const char *expected;
} format_case;

static const format_case format_cases[] = {
    /* Nothing done yet: no rate, remaining unknown. */
    {"Running UT", 0, 100, 0.0, 75,
     "Running UT:   0%|                                  | 0/100 [00:00<?, ?it/s]"},
    {"Processing", 0, 100, 5.0, 75,
     "Processing:   0%|                                  | 0/100 [00:05<?, ?it/s]"},
    /* Half way, exactly. */
    {"Running UT", 50, 100, 4.0, 75,
     "Running UT:  50%|############5            | 50/100 [00:04<00:04, 12.50it/s]"},
    {"Running UT", 42, 100, 3.4, 75,
     "Running UT:  42%|##########5              | 42/100 [00:03<00:04, 12.35it/s]"},
    /* Done. */
    {"Running UT", 100, 100, 8.0, 75,
     "Running UT: 100%|########################| 100/100 [00:08<00:00, 12.50it/s]"},
    /* Percentages round as "%3.0f" does; the bar does not. */
    {"", 999, 1000, 10.0, 40, "100%|9| 999/1000 [00:10<00:00, 99.90it/s]"},
    /* Unknown total (0), or done past the total: count, elapsed and rate only. */
    {"Processing", 7, 0, 2.0, 75, "Processing: 7it [00:02,  3.50it/s]"},
    {"Processing", 0, 0, 0.0, 75, "Processing: 0it [00:00, ?it/s]"},
    {"Processing", 120, 100, 3.0, 75, "Processing: 120it [00:03, 40.00it/s]"},
    /* Hours, and more than a second per item. */
    {"Processing", 1, 10000, 3725.0, 75,
     "Processing:   0%|              | 1/10000 [1:02:05<10346:11:15, 3725.00s/it]"},
    {"Processing", 5000, 10000, 90061.9, 75,
     "Processing:  50%|#######5       | 5000/10000 [25:01:01<25:01:01, 18.01s/it]"},
    {"Processing", 1, 4, 2.5, 75,
     "Processing:  25%|#######                     | 1/4 [00:02<00:07,  2.50s/it]"},
    /* Exactly one item per second is still shown as a rate. */
    {NULL, 1, 3, 1.0, 0, " 33%|###3      | 1/3 [00:01<00:02,  1.00it/s]"},
    /* No width: a 10-cell bar. No label: no ": ". */
    {"Running UT", 42, 100, 3.4, 0, "Running UT:  42%|####2     | 42/100 [00:03<00:04, 12.35it/s]"},
    {"", 42, 100, 3.4, -1, " 42%|####2     | 42/100 [00:03<00:04, 12.35it/s]"},
    {NULL, 2, 3, 1.0, 0, " 67%|######6   | 2/3 [00:01<00:00,  2.00it/s]"},
    /* Too narrow: the bar keeps one cell. */
    {"Processing", 3, 7, 1.0, 20, "Processing:  43%|4| 3/7 [00:01<00:01,  3.00it/s]"},
    /* A label ending in ": " gets no second one. */
    {"Done: ", 3, 7, 1.0, 60, "Done:  43%|########1          | 3/7 [00:01<00:01,  3.00it/s]"},
    {"L", 20, 0, 0.2, 0, "L: 20it [00:00, 100.00it/s]"},
};

static void test_format_cases(void **state)
{
    for (size_t i = 0; i < sizeof format_cases / sizeof format_cases[0]; i++) {
        const format_case *c = &format_cases[i];
        char line[256];
        int n = pc_progress_format(line, sizeof line, c->label, c->done, c->total, c->elapsed,
                                   c->width);
        if (strcmp(line, c->expected) != 0)
            print_error("case %zu: got \"%s\"\n", i, line);
        assert_string_equal(line, c->expected);
        assert_int_equal(n, (int)strlen(c->expected));
        if (c->width > 0 && c->total > 0 && c->done <= c->total && n > c->width)
            assert_int_equal(strstr(line, "|") + 2, strstr(line, "| ")); /* one cell left */
        else if (c->width > 0 && c->total > 0 && c->done <= c->total)
            assert_int_equal(n, c->width);
    }
}

static void test_format_utf8_label(void **state)
{
    /* Width counts characters, not bytes: "精度预检" is 4 columns, 12 bytes. */
    char line[256];
    int n = pc_progress_format(line, sizeof line,
                               "\xe7\xb2\xbe\xe5\xba\xa6\xe9\xa2\x84\xe6\xa3\x80", 1, 2, 1.0, 50);
    assert_string_equal(line, "\xe7\xb2\xbe\xe5\xba\xa6\xe9\xa2\x84\xe6\xa3\x80"
                              ":  50%|####5    | 1/2 [00:01<00:01,  1.00it/s]");
    assert_int_equal(n, 50 - 4 + 12);
}

static void test_format_odd_elapsed(void **state)
{
    char line[128];
    /* Negative or NaN elapsed time counts as none. */
    pc_progress_format(line, sizeof line, "P", 3, 10, -2.0, 0);
    assert_string_equal(line, "P:  30%|###       | 3/10 [00:00<?, ?it/s]");
    pc_progress_format(line, sizeof line, "P", 3, 10, (double)NAN, 0);
    assert_string_equal(line, "P:  30%|###       | 3/10 [00:00<?, ?it/s]");
    /* Huge totals and times stay well defined. */
    pc_progress_format(line, sizeof line, NULL, 1, UINT64_MAX, 1e300, 0);
    assert_non_null(strstr(line, "| 1/18446744073709551615 ["));
}

static void test_format_small_buffer(void **state)
{
    const char *full = "Processing: 7it [00:02,  3.50it/s]";
    int len = (int)strlen(full);
    assert_int_equal(pc_progress_format(NULL, 0, "Processing", 7, 0, 2.0, 75), len);
    for (size_t size = 1; size <= (size_t)len + 1; size++) {
        char buf[64];
        memset(buf, '@', sizeof buf);
        assert_int_equal(pc_progress_format(buf, size, "Processing", 7, 0, 2.0, 75), len);
        assert_int_equal(strlen(buf), size - 1);
        assert_memory_equal(buf, full, size - 1);
        assert_int_equal(buf[size], '@');
    }
    assert_int_equal(pc_progress_format(NULL, 10, "x", 1, 2, 1.0, 0), -1);
}

/* ---------------------------------------------------------------------------------------------
 * Drawing
 * ------------------------------------------------------------------------------------------- */

typedef struct fake_clock {
    double now;
} fake_clock;

static double fake_now(void *ctx)
{
    return ((fake_clock *)ctx)->now;
}

static void test_non_tty_draws_nothing(void **state)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    pc_progress *p = pc_progress_new("Processing", 10, f);
    assert_non_null(p);
    for (uint64_t i = 1; i <= 10; i++)
        pc_progress_update(p, i);
    pc_progress_finish(p);
    pc_progress_free(p);
    char *text = pc_test_read_stream(f);
    assert_string_equal(text, "");
    free(text);
    fclose(f);
}

static void test_null_stream_is_stderr(void **state)
{
    /* Point stderr at a file: the bar goes there, sees no terminal, and stays silent. */
    fflush(stderr);
    FILE *f = tmpfile();
    assert_non_null(f);
    int saved = dup(STDERR_FILENO);
    assert_true(saved >= 0);
    assert_true(dup2(fileno(f), STDERR_FILENO) >= 0);
    pc_progress *p = pc_progress_new("Processing", 3, NULL);
    pc_progress_update(p, 3);
    pc_progress_free(p);
    fflush(stderr);
    assert_true(dup2(saved, STDERR_FILENO) >= 0);
    close(saved);
    fseek(f, 0, SEEK_END);
    char *text = pc_test_read_stream(f);
    assert_string_equal(text, "");
    free(text);
    fclose(f);
}

static void test_forced_draws_and_rate_limit(void **state)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    fake_clock clock = {100.0};
    pc_progress_options options = {
        .force = true, .width = 60, .clock = fake_now, .clock_ctx = &clock};
    pc_progress *p = pc_progress_new_with("Processing", 4, f, &options);
    assert_non_null(p);
    clock.now = 100.05; /* within the interval: held back */
    pc_progress_update(p, 1);
    clock.now = 100.5;
    pc_progress_update(p, 2);
    clock.now = 100.55; /* held back */
    pc_progress_update(p, 3);
    clock.now = 101.0;
    pc_progress_update(p, 4);
    clock.now = 101.01; /* within the interval, but the final draw is never held back */
    pc_progress_finish(p);
    pc_progress_update(p, 4); /* after the finish: nothing */
    pc_progress_finish(p);
    pc_progress_free(p);

    char *text = pc_test_read_stream(f);
    assert_string_equal(text, "\rProcessing:   0%|                     | 0/4 [00:00<?, ?it/s]"
                              "\rProcessing:  50%|######5      | 2/4 [00:00<00:00,  4.00it/s]"
                              "\rProcessing: 100%|#############| 4/4 [00:01<00:00,  4.00it/s]"
                              "\rProcessing: 100%|#############| 4/4 [00:01<00:00,  3.96it/s]\n");
    free(text);
    fclose(f);
}

static void test_shorter_redraw_is_padded(void **state)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    fake_clock clock = {0.0};
    pc_progress_options options = {.force = true, .clock = fake_now, .clock_ctx = &clock};
    pc_progress *p = pc_progress_new_with("L", 0, f, &options);
    clock.now = 0.2;
    pc_progress_update(p, 20);
    clock.now = 0.4;
    pc_progress_update(p, 20);
    clock.now = 0.8;
    pc_progress_free(p); /* finishes */
    char *text = pc_test_read_stream(f);
    assert_string_equal(text, "\rL: 0it [00:00, ?it/s]"
                              "\rL: 20it [00:00, 100.00it/s]"
                              "\rL: 20it [00:00, 50.00it/s] "
                              "\rL: 20it [00:00, 25.00it/s]\n");
    free(text);
    fclose(f);
}

static void test_real_clock_limits_redraws(void **state)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    pc_progress_options options = {.force = true, .width = 70};
    pc_progress *p = pc_progress_new_with("Running UT", 100000, f, &options);
    for (uint64_t i = 1; i <= 100000; i++)
        pc_progress_update(p, i);
    pc_progress_finish(p);
    pc_progress_free(p);
    char *text = pc_test_read_stream(f);
    size_t draws = 0;
    for (const char *c = text; *c; c++)
        draws += *c == '\r';
    /* The initial and final draws, and not one per update. */
    assert_true(draws >= 2);
    assert_true(draws < 1000);
    size_t len = strlen(text);
    assert_int_equal(text[len - 1], '\n');
    const char *last = strrchr(text, '\r');
    assert_memory_equal(last, "\rRunning UT: 100%|", 18);
    assert_non_null(strstr(last, "| 100000/100000 ["));
    free(text);
    fclose(f);
}

static void test_null_bar_is_ignored(void **state)
{
    pc_progress_update(NULL, 1);
    pc_progress_finish(NULL);
    pc_progress_free(NULL);
}

/* POSIX (XSI) pseudo-terminals; not declared under strict C11 headers. */
int posix_openpt(int flags);
int grantpt(int fd);
int unlockpt(int fd);
char *ptsname(int fd);

static void test_terminal_draws_without_force(void **state)
{
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0 || !ptsname(master)) {
        if (master >= 0)
            close(master);
        skip();
    }
    FILE *tty = fopen(ptsname(master), "w");
    if (!tty) {
        close(master);
        skip();
    }
    pc_progress *p = pc_progress_new("Processing", 2, tty);
    pc_progress_update(p, 2);
    pc_progress_free(p);
    fclose(tty);

    char buf[4096];
    size_t got = 0;
    struct pollfd pfd = {.fd = master, .events = POLLIN};
    while (got < sizeof buf - 1 && poll(&pfd, 1, 200) > 0) {
        ssize_t n = read(master, buf + got, sizeof buf - 1 - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    buf[got] = '\0';
    close(master);
    assert_true(got > 0);
    assert_int_equal(buf[0], '\r');
    assert_non_null(strstr(buf, "Processing:   0%|"));
    assert_non_null(strstr(buf, "Processing: 100%|"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_cases),
        cmocka_unit_test(test_format_utf8_label),
        cmocka_unit_test(test_format_odd_elapsed),
        cmocka_unit_test(test_format_small_buffer),
        cmocka_unit_test(test_non_tty_draws_nothing),
        cmocka_unit_test(test_null_stream_is_stderr),
        cmocka_unit_test(test_forced_draws_and_rate_limit),
        cmocka_unit_test(test_shorter_redraw_is_padded),
        cmocka_unit_test(test_real_clock_limits_redraws),
        cmocka_unit_test(test_null_bar_is_ignored),
        cmocka_unit_test(test_terminal_draws_without_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
