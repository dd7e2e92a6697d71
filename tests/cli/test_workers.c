/*
 * run_ut's default number of workers (runner/run_ut.c, auto_workers): chosen from the dump and
 * said in the log; the CSVs equal --jobs 1's; a dump whose largest API fits the memory limit
 * fewer times than there are cores gets fewer workers; --jobs and multi_run_ut keep theirs.
 */
#define _GNU_SOURCE /* sched_getaffinity */
#include "pc_run_ut_test.h"
#include "pc_test.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DUMP(name) PC_TEST_FIXTURES "/msprobe/dumps/" name "/step0/rank/dump.json"

static int cores(void)
{
    cpu_set_t set;
    int n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    return n > 64 ? 64 : n;
}

static void test_default_workers_same_csvs(void **state)
{
    (void)state;
    char root[512], args[2048], log[700], want[64];
    assert_non_null(pc_test_tmpdir(root, sizeof root));
    PC_TEST_FMT(log, "%s/log", root);
    /* gpt_tensor: 43 small APIs, none dominating: one worker per core */
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s/auto --no-progress", DUMP("gpt_tensor"), root);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    int n = cores();
    PC_TEST_FMT(want, "] %d worker process%s (--jobs N to choose).", n, n == 1 ? "" : "es");
    assert_true(pc_test_file_contains(log, want));
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s/one --jobs 1 --no-progress", DUMP("gpt_tensor"),
                root);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    assert_false(pc_test_file_contains(log, "(--jobs N to choose)"));
    char a[600], b[600];
    PC_TEST_FMT(a, "%s/auto", root);
    PC_TEST_FMT(b, "%s/one", root);
    pc_test_assert_same_csvs(a, b);
}

/* --max-memory 0.3 MB: the largest APIs of gpt_tensor fit it once, not twice, so one worker is
 * chosen, and its CSVs are --jobs 1's (with --jobs 2 each worker's half makes more memory
 * SKIPs: the choice is what keeps them away); --jobs and multi_run_ut keep their count */
static void test_memory_bounds_the_workers(void **state)
{
    (void)state;
    char root[512], args[2048], log[700], dir[3][600];
    assert_non_null(pc_test_tmpdir(root, sizeof root));
    PC_TEST_FMT(log, "%s/log", root);
    const char *jobs[] = {"", "--jobs 1", "--jobs 2"};
    for (int i = 0; i < 3; i++) {
        PC_TEST_FMT(dir[i], "%s/o%d", root, i);
        PC_TEST_FMT(args, "run_ut -api_info %s -o %s --max-memory 0.3 %s --no-progress",
                    DUMP("gpt_tensor"), dir[i], jobs[i]);
        assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
        if (i == 0)
            assert_true(pc_test_file_contains(log, "] 1 worker process (--jobs N to choose)."));
    }
    pc_test_assert_same_csvs(dir[0], dir[1]);
    char r1[1024], r2[1024];
    pc_test_find_file(dir[1], "accuracy_checking_result_", r1, sizeof r1);
    pc_test_find_file(dir[2], "accuracy_checking_result_", r2, sizeof r2);
    char *a = pc_test_slurp(r1, NULL), *b = pc_test_slurp(r2, NULL);
    assert_string_not_equal(a, b); /* the guard at work: two workers' halves SKIP more */
    free(a);
    free(b);
    PC_TEST_FMT(args, "multi_run_ut -api_info %s -o %s/m -n 2 --no-progress", DUMP("gpt_tensor"),
                root);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    assert_false(pc_test_file_contains(log, "(--jobs N to choose)"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_workers_same_csvs),
        cmocka_unit_test(test_memory_bounds_the_workers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
