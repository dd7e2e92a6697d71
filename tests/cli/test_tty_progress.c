/*
 * On a terminal, multi_run_ut's progress bar (stderr) and its log lines (stdout) share the
 * screen: a log line written while the bar is drawn must start on a line of its own (the bar
 * is cleared first and drawn again below it). The run is made on a real pseudo-terminal with
 * util-linux's script(1); a crashing API gives an ERROR line in the middle of the run.
 */
#include "pc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Whether s starts a log line: "YYYY-mm-dd HH:MM:SS (". */
static int log_prefix_at(const char *s)
{
    return is_digit(s[0]) && is_digit(s[1]) && is_digit(s[2]) && is_digit(s[3]) && s[4] == '-' &&
           is_digit(s[5]) && is_digit(s[6]) && s[7] == '-' && s[10] == ' ' && s[13] == ':' &&
           s[16] == ':' && s[19] == ' ' && s[20] == '(';
}

static void test_log_lines_clear_the_bar(void **state)
{
    (void)state;
    if (system("command -v script >/dev/null 2>&1") != 0)
        fail_msg("script(1) (util-linux) is needed for this test");
    char tmp[512], cmd[4096], typescript[700];
    pc_test_tmpdir(tmp, sizeof tmp);
    PC_TEST_FMT(typescript, "%s/typescript", tmp);
    PC_TEST_FMT(cmd,
                "cd '%s' && PRECHECK_TEST_FAULT=crash:Functional.linear.3 script -qec \"'%s' "
                "multi_run_ut -api_info '%s/msprobe/dumps/gpt_tensor/step0/rank/dump.json' -o "
                "out -n 2\" '%s' >/dev/null 2>&1",
                tmp, PC_TEST_BINARY, PC_TEST_FIXTURES, typescript);
    assert_int_equal(system(cmd), 0);
    size_t len;
    char *text = pc_test_slurp(typescript, &len);
    /* the bar was drawn (a terminal), the crash was logged during the run */
    assert_non_null(strstr(text, "Total items:"));
    assert_non_null(strstr(text, "[ERROR] Run Functional.linear.3 UT Error"));
    int lines = 0;
    for (size_t i = 1; i + 21 < len; i++) {
        if (!log_prefix_at(text + i))
            continue;
        lines++;
        /* a log line starts after a newline, or after the carriage return that ends the
         * blanks clearing the bar: never right after the bar's text */
        char before = text[i - 1];
        if (before != '\n' && before != '\r')
            fail_msg("a log line runs into the progress bar: ...%.60s",
                     text + (i > 60 ? i - 60 : 0));
        if (before == '\r' && i >= 2 && text[i - 2] != ' ' && text[i - 2] != '\n')
            fail_msg("a log line follows the bar without clearing it: ...%.60s",
                     text + (i > 60 ? i - 60 : 0));
    }
    assert_true(lines > 5);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_log_lines_clear_the_bar),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
