/*
 * The report's coverage section groups skip messages by kind: messages that differ only in
 * the API's name, its op's name, shapes and numbers (replay's "backward record ... reshaped",
 * one per linear and matmul of the bundled bf16 dump) are one line with their count, and each
 * API's own message (with its shapes) is listed on expand.
 */
#include "pc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static void test_reshaped_gradients_one_kind(void **state)
{
    (void)state;
    char work[512], args[4096], log[700], out[700], page[700];
    pc_test_tmpdir(work, sizeof work);
    PC_TEST_FMT(log, "%s/log", work);
    PC_TEST_FMT(out, "%s/npu", work);
    PC_TEST_FMT(page, "%s/report.html", work);
    PC_TEST_FMT(args,
                "run_ut -api_info %s/msprobe/dumps/gpt_bf16_tensor/step0/rank/dump.json -o %s "
                "--backend replay --no-progress",
                PC_TEST_FIXTURES, out);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    PC_TEST_FMT(args, "report %s -o %s", out, page);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    char *html = pc_test_slurp(page, NULL);
    const char *cov = strstr(html, "id=\"coverage\"");
    assert_non_null(cov);
    /* 8 linear and 2 matmul: one kind, counted once */
    assert_non_null(strstr(cov, "<li><b>10</b> <details><summary><q>The backward record of"));
    assert_int_equal(count(cov, "messages of this kind"), 1);
    assert_non_null(strstr(cov, "(10 messages of this kind: each API's)"));
    /* each API's message on expand, with its own shapes */
    assert_non_null(strstr(cov, "<code>Functional.linear.2</code>: The backward record of "
                                "Functional.linear.2 holds one gradient [16, 128]"));
    assert_non_null(strstr(cov, "<code>Torch.matmul.1</code>: The backward record of "
                                "Torch.matmul.1"));
    free(html);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reshaped_gradients_one_kind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
