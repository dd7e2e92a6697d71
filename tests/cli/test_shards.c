/*
 * run_ut --shard K/N and precheck merge, as a user runs them: the shards of a dump merged give
 * the two CSVs of one run of the whole dump, byte for byte (dumps with forward and backward
 * rows, several N, a resumed shard); merge refuses shards of another dump, a missing, repeated
 * or unfinished shard, and leaves nothing behind when it refuses; --shard's usage errors.
 */
#include "pc_run_ut_test.h"
#include "pc_test.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DUMPS      PC_TEST_FIXTURES "/msprobe/dumps"
#define DUMP(name) DUMPS "/" name "/step0/rank/dump.json"

/* The whole dump in one run, and in n shards merged: the same bytes. */
static void whole_and_shards(const char *dump, int n, const char *root)
{
    char args[4096], log[700], whole[600], merged[600];
    PC_TEST_FMT(log, "%s/log", root);
    PC_TEST_FMT(whole, "%s/whole", root);
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --no-progress", dump, whole);
    pc_test_run_precheck_ok(NULL, args, log);
    size_t used = (size_t)snprintf(args, sizeof args, "merge");
    for (int k = 1; k <= n; k++) {
        char run[2048];
        PC_TEST_FMT(run, "run_ut -api_info %s -o %s/s%d --shard %d/%d --no-progress", dump, root, k,
                    k, n);
        pc_test_run_precheck_ok(NULL, run, log);
        char line[64];
        PC_TEST_FMT(line, "Shard %d/%d: ", k, n);
        pc_test_expect_in_log(log, line);
        used += (size_t)snprintf(args + used, sizeof args - used, " %s/s%d", root, k);
    }
    PC_TEST_FMT(merged, "%s/merged", root);
    snprintf(args + used, sizeof args - used, " -o %s", merged);
    pc_test_run_precheck_ok(NULL, args, log);
    pc_test_expect_in_log(log, "Merged ");
    pc_test_assert_same_csvs(whole, merged);
}

static void test_shards_merge_to_the_whole_run(void **state)
{
    (void)state;
    const char *dumps[] = {DUMP("gpt_tensor"), DUMP("cnn_tensor"), DUMP("gpt_stats")};
    const int ns[] = {3, 2, 5};
    for (int i = 0; i < 3; i++) {
        char root[512];
        assert_non_null(pc_test_tmpdir(root, sizeof root));
        whole_and_shards(dumps[i], ns[i], root);
    }
}

/* An interrupted shard (its last rows lost) is named with the command that resumes it; after
 * the resume, the merge equals the whole run. A resume as another shard is refused. */
static void test_unfinished_shard_named_then_resumed(void **state)
{
    (void)state;
    char root[512], args[4096], log[700], s1[600], s2[600], whole[600], merged[600];
    assert_non_null(pc_test_tmpdir(root, sizeof root));
    PC_TEST_FMT(log, "%s/log", root);
    PC_TEST_FMT(s1, "%s/s1", root);
    PC_TEST_FMT(s2, "%s/s2", root);
    PC_TEST_FMT(whole, "%s/whole", root);
    PC_TEST_FMT(merged, "%s/merged", root);
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --no-progress", DUMP("gpt_tensor"), whole);
    pc_test_run_precheck_ok(NULL, args, log);
    for (int k = 1; k <= 2; k++) {
        PC_TEST_FMT(args, "run_ut -api_info %s -o %s/s%d --shard %d/2 --no-progress",
                    DUMP("gpt_tensor"), root, k, k);
        pc_test_run_precheck_ok(NULL, args, log);
    }
    /* shard 2 loses its last result row (as a kill between rows leaves it) */
    char result[1024];
    pc_test_find_file(s2, "accuracy_checking_result_", result, sizeof result);
    size_t len = 0;
    char *text = pc_test_slurp(result, &len);
    assert_true(len > 2);
    size_t cut = len - 2;
    while (cut > 0 && text[cut - 1] != '\n')
        cut--;
    assert_int_equal(truncate(result, (off_t)cut), 0);
    free(text);
    PC_TEST_FMT(args, "merge %s %s -o %s", s1, s2, merged);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    pc_test_expect_in_log(log, "shard 2/2");
    pc_test_expect_in_log(log, "did not finish");
    pc_test_expect_in_log(log, "-csv_path");
    /* nothing half-made in the output folder */
    char leftover[1024];
    PC_TEST_FMT(leftover, "ls %s 2>/dev/null | grep -q accuracy_checking", merged);
    assert_int_not_equal(system(leftover), 0);
    /* resumed as another shard: refused, naming the shard */
    PC_TEST_FMT(args, "run_ut -api_info %s --shard 1/2 -csv_path %s --no-progress",
                DUMP("gpt_tensor"), result);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    pc_test_expect_in_log(log, "shard: \"2/2\" then, \"1/2\" now");
    /* resumed as itself: the merge is the whole run */
    PC_TEST_FMT(args, "run_ut -api_info %s --shard 2/2 -csv_path %s --no-progress",
                DUMP("gpt_tensor"), result);
    pc_test_run_precheck_ok(NULL, args, log);
    PC_TEST_FMT(args, "merge %s %s -o %s", s1, s2, merged);
    pc_test_run_precheck_ok(NULL, args, log);
    pc_test_assert_same_csvs(whole, merged);
}

static void test_merge_refuses_what_is_not_one_split(void **state)
{
    (void)state;
    char root[512], args[4096], log[700], out[600];
    assert_non_null(pc_test_tmpdir(root, sizeof root));
    PC_TEST_FMT(log, "%s/log", root);
    PC_TEST_FMT(out, "%s/out", root);
    for (int k = 1; k <= 3; k++) {
        PC_TEST_FMT(args, "run_ut -api_info %s -o %s/a%d --shard %d/3 --no-progress",
                    DUMP("gpt_stats"), root, k, k);
        pc_test_run_precheck_ok(NULL, args, log);
    }
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s/b2 --shard 2/3 --no-progress", DUMP("cnn_tensor"),
                root);
    pc_test_run_precheck_ok(NULL, args, log);
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s/c2 --shard 2/3 --seed 7 --no-progress",
                DUMP("gpt_stats"), root);
    pc_test_run_precheck_ok(NULL, args, log);
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s/whole --no-progress", DUMP("gpt_stats"), root);
    pc_test_run_precheck_ok(NULL, args, log);

    PC_TEST_FMT(args, "merge %s/a1 %s/a3 -o %s", root, root, out);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    pc_test_expect_in_log(log, "1 of the 3 shards are missing: 2/3");
    PC_TEST_FMT(args, "merge %s/a1 %s/b2 %s/a3 -o %s", root, root, root, out);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    pc_test_expect_in_log(log, "are shards of different runs");
    pc_test_expect_in_log(log, "the dumps' contents differ");
    PC_TEST_FMT(args, "merge %s/a1 %s/c2 %s/a3 -o %s", root, root, root, out);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    pc_test_expect_in_log(log, "\"seed\" is \"1234\" in the first and \"7\" in the second");
    PC_TEST_FMT(args, "merge %s/a1 %s/a2 %s/a2 %s/a3 -o %s", root, root, root, root, out);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    pc_test_expect_in_log(log, "shard 2/3 is given twice");
    PC_TEST_FMT(args, "merge %s/whole -o %s", root, out);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    pc_test_expect_in_log(log, "is a run of the whole dump, not a shard");
    PC_TEST_FMT(args, "merge %s -o %s", root, out);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    pc_test_expect_in_log(log, "holds no precheck run record");
    PC_TEST_FMT(args, "merge %s/a1 %s/nowhere -o %s", root, root, out);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    pc_test_expect_in_log(log,
                          "nowhere: No such file or directory (give the -o folder of each run_ut");
    /* a folder of two runs: its record files name them */
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s/a2 --shard 2/3 --no-progress", DUMP("gpt_stats"),
                root);
    sleep(1);
    pc_test_run_precheck_ok(NULL, args, log);
    PC_TEST_FMT(args, "merge %s/a1 %s/a2 %s/a3 -o %s", root, root, root, out);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    pc_test_expect_in_log(log, "holds 2 runs");
    assert_int_equal(pc_test_run_precheck(NULL, "merge", log), 2);
    pc_test_expect_in_log(log, "the following arguments are required: DIR");
}

static void test_shard_usage_errors(void **state)
{
    (void)state;
    char root[512], args[2048], log[700];
    assert_non_null(pc_test_tmpdir(root, sizeof root));
    PC_TEST_FMT(log, "%s/log", root);
    const char *bad[] = {"0/3", "4/3", "3", "1/0", "a/b", "1/2x"};
    for (int i = 0; i < 6; i++) {
        PC_TEST_FMT(args, "run_ut -api_info %s -o %s/o --shard %s", DUMP("gpt_stats"), root,
                    bad[i]);
        assert_int_equal(pc_test_run_precheck(NULL, args, log), 2);
        pc_test_expect_in_log(log, "argument --shard");
    }
    pc_test_expect_in_log(log, "invalid value: '1/2x'");
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s/o --shard 0/3", DUMP("gpt_stats"), root);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 2);
    pc_test_expect_in_log(log, "shards are numbered 1 to 3");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shards_merge_to_the_whole_run),
        cmocka_unit_test(test_unfinished_shard_named_then_resumed),
        cmocka_unit_test(test_merge_refuses_what_is_not_one_split),
        cmocka_unit_test(test_shard_usage_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
