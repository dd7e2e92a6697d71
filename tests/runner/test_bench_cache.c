/*
 * run_ut --bench-cache DIR: the first run stores the bench's results, a second run (a "second
 * machine" on the same dump) reads them, and both write the same CSVs as a run without the
 * cache; another bench policy does not reuse them; a damaged entry is recomputed with a
 * warning; a cache path that is a file is an error of the run. Only APIs with products are
 * cached; the run logs its hits and misses; --bench-cache-max deletes the least recently used
 * entries beyond the bound.
 */
#include "pc_test.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

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
        /* the counts of each run */
        char line[200];
        PC_TEST_FMT(line, "0 of %d lookups hit, %d computed; %d entries written", stored, stored,
                    stored);
        assert_true(pc_test_file_contains(log1, line));
        PC_TEST_FMT(line, "%d of %d lookups hit, 0 computed; 0 entries written", stored, stored);
        assert_true(pc_test_file_contains(log, line));
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

/* Only the APIs with products are cached: on gpt_stats, the 8 linear, 2 matmul and the
 * cross_entropy... of which those with products: linear and matmul, forward and backward. */
static void test_only_products(void **state)
{
    (void)state;
    char tmp[512], cache[700], out[700], extra[800];
    pc_test_tmpdir(tmp, sizeof tmp);
    PC_TEST_FMT(cache, "%s/cache", tmp);
    PC_TEST_FMT(out, "%s/out", tmp);
    PC_TEST_FMT(extra, "--bench-cache %s", cache);
    run("gpt_stats", out, extra, NULL);
    /* 8 Functional.linear and 2 Torch.matmul, each with a backward: 20 entries (the 43 APIs
     * with 39 backward runs would make 82) */
    assert_int_equal(count_entries(cache), 20);
}

static void touch_all_old(const char *dir, time_t when)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char p[1200];
        PC_TEST_FMT(p, "%s/%s", dir, e->d_name);
        struct timespec ts[2] = {{when, 0}, {when, 0}};
        assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
    }
    closedir(d);
}

static long long dir_bytes(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    long long total = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char p[1200];
        PC_TEST_FMT(p, "%s/%s", dir, e->d_name);
        struct stat sb;
        assert_int_equal(stat(p, &sb), 0);
        total += sb.st_size;
    }
    closedir(d);
    return total;
}

/* --bench-cache-max: the entries of gpt_stats (old) then of gpt_tensor (new, other inputs:
 * other keys) under a bound that holds about one dump's worth: gpt_stats's go first, and a
 * rerun of gpt_tensor still hits every entry. */
static void test_max_size(void **state)
{
    (void)state;
    char tmp[512], cache[700], a[700], b[700], c[700], extra[800], log[800];
    pc_test_tmpdir(tmp, sizeof tmp);
    PC_TEST_FMT(cache, "%s/cache", tmp);
    PC_TEST_FMT(a, "%s/a", tmp);
    PC_TEST_FMT(b, "%s/b", tmp);
    PC_TEST_FMT(c, "%s/c", tmp);
    PC_TEST_FMT(extra, "--bench-cache %s", cache);
    run("gpt_stats", a, extra, NULL);
    int old = count_entries(cache);
    long long old_bytes = dir_bytes(cache);
    touch_all_old(cache, time(NULL) - 3600);
    /* a bound a little above the old entries' bytes: the new run's entries (as many, as
     * large: the same shapes) make it overflow, and the old ones must go */
    PC_TEST_FMT(extra, "--bench-cache %s --bench-cache-max %lld", cache, old_bytes + 1000);
    PC_TEST_FMT(log, "%s/b.log", tmp);
    run_env(NULL, "gpt_tensor", b, extra, log);
    assert_true(pc_test_file_contains(log, "least recently used entries"));
    assert_true(dir_bytes(cache) <= old_bytes + 1000);
    assert_int_equal(count_entries(cache), old); /* gpt_tensor's, all of them */
    PC_TEST_FMT(log, "%s/c.log", tmp);
    run_env(NULL, "gpt_tensor", c, extra, log);
    char line[200];
    PC_TEST_FMT(line, "%d of %d lookups hit, 0 computed", old, old);
    assert_true(pc_test_file_contains(log, line));
    assert_same_csvs(b, c);
}

static void test_max_size_bad_value(void **state)
{
    (void)state;
    const char *bad[] = {"0", "-5", "12X", "G", "20GiBs", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char tmp[512], out[700], args[2048], log[800];
        pc_test_tmpdir(tmp, sizeof tmp);
        PC_TEST_FMT(out, "%s/out", tmp);
        PC_TEST_FMT(log, "%s/log", tmp);
        PC_TEST_FMT(args,
                    "run_ut -api_info %s/msprobe/dumps/gpt_stats/step0/rank/dump.json -o %s "
                    "--bench-cache %s/c --bench-cache-max '%s'",
                    PC_TEST_FIXTURES, out, tmp, bad[i]);
        assert_int_equal(pc_test_run_precheck(NULL, args, log), 2);
        assert_true(pc_test_file_contains(log, "argument --bench-cache-max: invalid value"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reuse),
        cmocka_unit_test(test_damaged_entry),
        cmocka_unit_test(test_cache_not_a_directory),
        cmocka_unit_test(test_only_products),
        cmocka_unit_test(test_max_size),
        cmocka_unit_test(test_max_size_bad_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
