/*
 * run_ut --bench-cache DIR: the first run stores the bench's results, a second run (a "second
 * machine" on the same dump) reads them, and both write the same CSVs as a run without the
 * cache; another bench policy does not reuse them; a damaged entry is recomputed with a
 * warning; a cache path that is a file is an error of the run.
 */
#include "pc_test.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const dumps[] = {"gpt_tensor", "gpt_stats"};

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len > 4 && strcmp(e->d_name + len - 4, ".pcb") == 0)
            n++;
    }
    closedir(d);
    return n;
}

static void first_entry(const char *dir, char *out, size_t size)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    out[0] = 0;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len > 4 && strcmp(e->d_name + len - 4, ".pcb") == 0) {
            assert_true(snprintf(out, size, "%s/%s", dir, e->d_name) < (int)size);
            break;
        }
    }
    closedir(d);
    assert_true(out[0] != 0);
}

/* Runs run_ut on the fixture dump into out (made), with the extra arguments. */
static void run_env(const char *env, const char *dump, const char *out, const char *extra,
                    const char *log)
{
    char args[4096];
    assert_int_equal(mkdir(out, 0755), 0);
    PC_TEST_FMT(args,
                "run_ut -api_info %s/msprobe/dumps/%s/step0/rank/dump.json -o %s --no-progress %s",
                PC_TEST_FIXTURES, dump, out, extra ? extra : "");
    assert_int_equal(pc_test_run_precheck(env, args, log), 0);
}

static void run(const char *dump, const char *out, const char *extra, const char *log)
{
    run_env(NULL, dump, out, extra, log);
}

static void assert_same_csvs(const char *a, const char *b)
{
    const char *prefixes[] = {"accuracy_checking_result_", "accuracy_checking_details_"};
    for (int i = 0; i < 2; i++) {
        char pa[1200], pb[1200];
        pc_test_find_file(a, prefixes[i], pa, sizeof pa);
        pc_test_find_file(b, prefixes[i], pb, sizeof pb);
        size_t la, lb;
        char *x = pc_test_slurp(pa, &la), *y = pc_test_slurp(pb, &lb);
        assert_true(la > 100);
        assert_int_equal(la, lb);
        assert_memory_equal(x, y, la);
        free(x);
        free(y);
    }
}

static void test_reuse(void **state)
{
    (void)state;
    for (size_t d = 0; d < sizeof dumps / sizeof dumps[0]; d++) {
        char tmp[512], cache[700], plain[700], first[700], second[700], fp64[700], extra[800];
        pc_test_tmpdir(tmp, sizeof tmp);
        PC_TEST_FMT(cache, "%s/cache", tmp);
        PC_TEST_FMT(plain, "%s/plain", tmp);
        PC_TEST_FMT(first, "%s/first", tmp);
        PC_TEST_FMT(second, "%s/second", tmp);
        PC_TEST_FMT(fp64, "%s/fp64", tmp);
        PC_TEST_FMT(extra, "--bench-cache %s", cache);
        run(dumps[d], plain, NULL, NULL);
        char log1[800], log[800];
        PC_TEST_FMT(log1, "%s/first.log", tmp);
        PC_TEST_FMT(log, "%s/second.log", tmp);
        run_env("MSPROBE_LOG_LEVEL=0", dumps[d], first, extra, log1);
        int stored = count_entries(cache);
        assert_true(stored > 10); /* forward and backward entries of the APIs that ran */
        assert_false(pc_test_file_contains(log1, "from the bench cache"));
        run_env("MSPROBE_LOG_LEVEL=0", dumps[d], second, extra, log);
        assert_int_equal(count_entries(cache), stored); /* nothing new */
        assert_true(pc_test_file_contains(log, "bench outputs from the bench cache"));
        assert_true(pc_test_file_contains(log, "bench gradients from the bench cache"));
        assert_same_csvs(plain, first);
        assert_same_csvs(plain, second);
        /* another policy: its own entries, and its results differ from msprobe's policy */
        char extra64[900];
        PC_TEST_FMT(extra64, "%s --bench fp64", extra);
        run(dumps[d], fp64, extra64, NULL);
        assert_true(count_entries(cache) > stored);
    }
}

static void test_damaged_entry(void **state)
{
    (void)state;
    char tmp[512], cache[700], a[700], b[700], extra[800], log[800], entry[1200];
    pc_test_tmpdir(tmp, sizeof tmp);
    PC_TEST_FMT(cache, "%s/cache", tmp);
    PC_TEST_FMT(a, "%s/a", tmp);
    PC_TEST_FMT(b, "%s/b", tmp);
    PC_TEST_FMT(log, "%s/b.log", tmp);
    PC_TEST_FMT(extra, "--bench-cache %s", cache);
    run("gpt_tensor", a, extra, NULL);
    first_entry(cache, entry, sizeof entry);
    /* flip a byte in the middle of the entry */
    size_t len;
    char *bytes = pc_test_slurp(entry, &len);
    assert_true(len > 40);
    bytes[len / 2] ^= 0x5a;
    FILE *f = fopen(entry, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    free(bytes);
    run("gpt_tensor", b, extra, log);
    assert_true(pc_test_file_contains(log, "does not read back whole; computing again"));
    assert_same_csvs(a, b);
    /* recomputed and stored whole again */
    char c[700];
    PC_TEST_FMT(c, "%s/c", tmp);
    PC_TEST_FMT(log, "%s/c.log", tmp);
    run("gpt_tensor", c, extra, log);
    assert_false(pc_test_file_contains(log, "does not read back whole"));
    assert_same_csvs(a, c);
}

static void test_cache_not_a_directory(void **state)
{
    (void)state;
    char tmp[512], file[700], out[700], args[2048], log[800];
    pc_test_tmpdir(tmp, sizeof tmp);
    PC_TEST_FMT(file, "%s/plain_file", tmp);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    PC_TEST_FMT(out, "%s/out", tmp);
    PC_TEST_FMT(log, "%s/log", tmp);
    assert_int_equal(mkdir(out, 0755), 0);
    PC_TEST_FMT(args,
                "run_ut -api_info %s/msprobe/dumps/gpt_tensor/step0/rank/dump.json -o %s "
                "--no-progress --bench-cache %s",
                PC_TEST_FIXTURES, out, file);
    assert_int_not_equal(pc_test_run_precheck(NULL, args, log), 0);
    assert_true(pc_test_file_contains(log, "not a directory"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reuse),
        cmocka_unit_test(test_damaged_entry),
        cmocka_unit_test(test_cache_not_a_directory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
