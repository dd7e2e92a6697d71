/* Messages longer than PC_ERROR_MESSAGE_MAX keep their cause: the long path in them is cut in
 * the middle, not the end of the message (issue #29 item 13). */
#include "pc_test.h"

#include "precheck/core/status.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A path of n bytes: "/start/" + 'a'... + "/the-end.csv". */
static char *long_path(size_t n)
{
    char *p = malloc(n + 1);
    assert_non_null(p);
    memset(p, 'a', n);
    memcpy(p, "/start/", 7);
    memcpy(p + n - 12, "/the-end.csv", 12);
    p[n] = 0;
    return p;
}

static bool ends_with(const char *s, const char *end)
{
    size_t a = strlen(s), b = strlen(end);
    return a >= b && strcmp(s + a - b, end) == 0;
}

static void test_short_message_unchanged(void **state)
{
    (void)state;
    assert_int_equal(pc_error_set(PC_ERR_IO, "%s: cannot create: %s", "/tmp/x", "No space"),
                     PC_ERR_IO);
    assert_string_equal(pc_error_message(), "/tmp/x: cannot create: No space");
    pc_error_prefix(PC_ERR_IO, "run_ut");
    assert_string_equal(pc_error_message(), "run_ut: /tmp/x: cannot create: No space");
}

/* The 4,069-character -o of the issue: the cause at the end survives, and so do the start and
 * the end of the path. */
static void test_long_path_cut_in_the_middle(void **state)
{
    (void)state;
    char *p = long_path(4069);
    pc_error_set(PC_ERR_IO, "%s: cannot create the output folder: %s", p, "File name too long");
    const char *m = pc_error_message();
    assert_true(strlen(m) < PC_ERROR_MESSAGE_MAX);
    assert_true(strlen(m) > PC_ERROR_MESSAGE_MAX - 8); /* uses the room it has */
    assert_true(ends_with(m, ": cannot create the output folder: File name too long"));
    assert_true(strncmp(m, "/start/aaa", 10) == 0);
    assert_non_null(strstr(m, "a...a"));
    assert_non_null(strstr(m, "/the-end.csv: cannot create"));
    /* a prefix on a long message: still the cause at the end */
    pc_error_prefix(PC_ERR_IO, "precheck run_ut -o %s", p);
    m = pc_error_message();
    assert_true(strlen(m) < PC_ERROR_MESSAGE_MAX);
    assert_true(strncmp(m, "precheck run_ut -o /start/", 26) == 0);
    assert_true(ends_with(m, "File name too long"));
    free(p);
}

/* An argument that is the current message itself (a common way to add context). */
static void test_argument_is_the_message(void **state)
{
    (void)state;
    char *p = long_path(3000);
    pc_error_set(PC_ERR_IO, "%s: cannot open: %s", p, "Permission denied");
    pc_error_set(PC_ERR_IO, "reading the dump: %s (check its mode)", pc_error_message());
    const char *m = pc_error_message();
    assert_true(strlen(m) < PC_ERROR_MESSAGE_MAX);
    assert_true(strncmp(m, "reading the dump: /start/", 25) == 0);
    assert_true(ends_with(m, ": cannot open: Permission denied (check its mode)"));
    free(p);
}

/* Several long words: each is cut, none below its start and end; no word long: the end is cut,
 * marked "...". UTF-8 is never cut inside a character. */
static void test_many_words_and_utf8(void **state)
{
    (void)state;
    char *a = long_path(900), *b = long_path(900);
    pc_error_set(PC_ERR_INVALID, "%s and %s differ: the cause", a, b);
    const char *m = pc_error_message();
    assert_true(strlen(m) < PC_ERROR_MESSAGE_MAX);
    assert_true(ends_with(m, "/the-end.csv differ: the cause"));
    free(a);
    free(b);
    /* 400 words of 4 bytes: nothing to cut in the middle */
    char words[2001];
    for (int i = 0; i < 400; i++)
        memcpy(words + 5 * i, "word ", 5);
    words[2000] = 0;
    pc_error_set(PC_ERR_INVALID, "%s", words);
    m = pc_error_message();
    assert_int_equal(strlen(m), PC_ERROR_MESSAGE_MAX - 1);
    assert_true(ends_with(m, "..."));
    /* a path of two-byte characters (é): the cut keeps whole characters */
    char u[3001];
    for (int i = 0; i < 1500; i++)
        memcpy(u + 2 * i, "\xc3\xa9", 2);
    u[3000] = 0;
    pc_error_set(PC_ERR_IO, "/%s: gone", u);
    m = pc_error_message();
    assert_true(ends_with(m, ": gone"));
    const char *dots = strstr(m, "...");
    assert_non_null(dots);
    assert_true(((dots - m - 1) % 2) == 0);                      /* whole é before the cut */
    assert_true((strlen(dots + 3) - strlen(": gone")) % 2 == 0); /* and after it */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_short_message_unchanged),
        cmocka_unit_test(test_long_path_cut_in_the_middle),
        cmocka_unit_test(test_argument_is_the_message),
        cmocka_unit_test(test_many_words_and_utf8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
