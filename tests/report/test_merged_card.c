/*
 * The report of a merged folder shows the shards' runs: when the first started, the time the
 * shard runs took (their sum and the longest), each shard's command, and the merge as what
 * merged them, not as a run of "about 0 s". The report of an api_precision_compare folder
 * shows the comparison's own start and duration (its summary records both).
 */
#include "pc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_merged_folder(void **state)
{
    (void)state;
    char work[512], env[700], args[4096], log[700], page[700];
    pc_test_tmpdir(work, sizeof work);
    PC_TEST_FMT(env, "cd '%s' &&", work);
    PC_TEST_FMT(log, "%s/log", work);
    PC_TEST_FMT(page, "%s/report.html", work);
    const char *dump = PC_TEST_FIXTURES "/msprobe/dumps/gpt_stats/step0/rank/dump.json";
    for (int k = 1; k <= 2; k++) {
        PC_TEST_FMT(args, "run_ut -api_info '%s' -o s%d --shard %d/2 --no-progress", dump, k, k);
        pc_test_run_precheck_ok(env, args, log);
    }
    pc_test_run_precheck_ok(env, "merge s1 s2 -o merged", log);
    /* the report from another folder: the record names the shards by absolute paths */
    PC_TEST_FMT(args, "report '%s/merged' -o '%s'", work, page);
    pc_test_run_precheck_ok(NULL, args, log);
    char *html = pc_test_slurp(page, NULL);
    assert_non_null(strstr(html, " in 2 shard runs (the longest "));
    assert_null(strstr(html, "about 0"));
    assert_non_null(strstr(html, "<dt>Shard run 1</dt>"));
    assert_non_null(strstr(html, "<dt>Shard run 2</dt>"));
    assert_non_null(strstr(html, "-o s1 --shard 1/2 --no-progress</code>"));
    assert_non_null(strstr(html, "-o s2 --shard 2/2 --no-progress</code>"));
    assert_non_null(strstr(html, "<dt>Merged by</dt><dd><code>precheck merge s1 s2 -o merged"));
    free(html);
}

static void test_compare_card_time(void **state)
{
    (void)state;
    char work[512], env[700], args[4096], log[700], page[700];
    pc_test_tmpdir(work, sizeof work);
    PC_TEST_FMT(env, "cd '%s' &&", work);
    PC_TEST_FMT(log, "%s/log", work);
    PC_TEST_FMT(page, "%s/report.html", work);
    const char *dump = PC_TEST_FIXTURES "/msprobe/dumps/gpt_stats/step0/rank/dump.json";
    PC_TEST_FMT(args, "run_ut -api_info '%s' -o a --no-progress", dump);
    pc_test_run_precheck_ok(env, args, log);
    PC_TEST_FMT(args, "run_ut -api_info '%s' -o b --no-progress --seed 7", dump);
    pc_test_run_precheck_ok(env, args, log);
    pc_test_run_precheck_ok(env,
                            "api_precision_compare -npu a/accuracy_checking_details_*.csv -gpu "
                            "b/accuracy_checking_details_*.csv -o c --allow-different-dumps",
                            log);
    PC_TEST_FMT(args, "report '%s/c' -o '%s'", work, page);
    pc_test_run_precheck_ok(NULL, args, log);
    char *html = pc_test_slurp(page, NULL);
    const char *card = strstr(html, "api_precision_compare: the NPU against the GPU");
    assert_non_null(card);
    const char *took = strstr(card, "<dt>Time taken</dt><dd>");
    assert_non_null(took);
    took += strlen("<dt>Time taken</dt><dd>");
    assert_true(took[0] >= '0' && took[0] <= '9'); /* a recorded figure, not "about ..." */
    free(html);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merged_folder),
        cmocka_unit_test(test_compare_card_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
