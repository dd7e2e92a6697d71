/* Run_ut end-to-end helpers shared by the runner tests (pc_run_ut_test.h). */
#include "pc_run_ut_test.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pc_test.h"
#include "precheck/io/csv_read.h"

void pc_test_assert_same_file(const char *a, const char *b)
{
    size_t la, lb;
    char *x = pc_test_slurp(a, &la), *y = pc_test_slurp(b, &lb);
    if (la != lb || memcmp(x, y, la) != 0) {
        size_t i = 0;
        while (i < la && i < lb && x[i] == y[i])
            i++;
        fail_msg("%s and %s differ at byte %zu", a, b, i);
    }
    free(x);
    free(y);
}

int pc_test_read_results(const char *path, pc_test_status_row *rows, int max)
{
    pc_csv_reader *r = NULL;
    assert_int_equal(pc_csv_reader_open(path, &r), PC_OK);
    bool has = false;
    int n = 0;
    assert_int_equal(pc_csv_reader_next(r, &has), PC_OK); /* header */
    while (pc_csv_reader_next(r, &has) == PC_OK && has) {
        assert_true(n < max);
        pc_test_status_row *s = &rows[n++];
        size_t nf = pc_csv_reader_field_count(r);
        snprintf(s->name, sizeof s->name, "%s", pc_csv_reader_field(r, 0, NULL));
        snprintf(s->fwd, sizeof s->fwd, "%s", nf > 1 ? pc_csv_reader_field(r, 1, NULL) : "");
        snprintf(s->bwd, sizeof s->bwd, "%s", nf > 2 ? pc_csv_reader_field(r, 2, NULL) : "");
        snprintf(s->msg, sizeof s->msg, "%s", nf > 3 ? pc_csv_reader_field(r, 3, NULL) : "");
    }
    pc_csv_reader_free(r);
    return n;
}

const pc_test_status_row *pc_test_find_row(const pc_test_status_row *rows, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(rows[i].name, name) == 0)
            return &rows[i];
    return NULL;
}

static bool api_matches(const char *pattern, const char *api)
{
    size_t n = strlen(pattern);
    if (n > 0 && pattern[n - 1] == '*')
        return strncmp(pattern, api, n - 1) == 0;
    return strcmp(pattern, api) == 0;
}

static const pc_test_known_diff *find_known(const pc_test_known_diff *table, const char *dump,
                                            const char *api)
{
    for (size_t i = 0; table[i].dump; i++)
        if (strcmp(table[i].dump, dump) == 0 && api_matches(table[i].api, api))
            return &table[i];
    return NULL;
}

int pc_test_conformance(const char *env, const char *dump, const char *extra,
                        const pc_test_known_diff *table, int *total)
{
    char dir[512];
    return pc_test_conformance_in(env, dump, extra, table, total, dir, sizeof dir);
}

int pc_test_conformance_in(const char *env, const char *dump, const char *extra,
                           const pc_test_known_diff *table, int *total, char *dir, size_t size)
{
    char args[2048], ours[1024], theirs_dir[512], theirs[1024];
    assert_non_null(pc_test_tmpdir(dir, size));
    PC_TEST_FMT(args, "run_ut -api_info %s/%s/step0/rank/dump.json -o %s %s",
                PC_TEST_FIXTURES "/msprobe/dumps", dump, dir, extra);
    assert_int_equal(pc_test_run_precheck(env, args, NULL), 0);
    pc_test_find_file(dir, "accuracy_checking_result_", ours, sizeof ours);
    PC_TEST_FMT(theirs_dir, "%s/%s", PC_TEST_FIXTURES "/msprobe/run_ut", dump);
    pc_test_find_file(theirs_dir, "accuracy_checking_result_", theirs, sizeof theirs);
    static pc_test_status_row a[512], b[512];
    int na = pc_test_read_results(ours, a, 512), nb = pc_test_read_results(theirs, b, 512);
    assert_int_equal(na, nb);
    int same = 0, bad = 0;
    for (int i = 0; i < nb; i++) {
        assert_string_equal(a[i].name, b[i].name); /* dump order */
        bool eq = strcmp(a[i].fwd, b[i].fwd) == 0 && strcmp(a[i].bwd, b[i].bwd) == 0;
        const pc_test_known_diff *k = find_known(table, dump, b[i].name);
        if (eq && !k) {
            same++;
        } else if (k && !eq && strcmp(a[i].fwd, k->fwd ? k->fwd : b[i].fwd) == 0 &&
                   strcmp(a[i].bwd, k->bwd) == 0) {
            printf("known difference %s %s: precheck %s/%s, msprobe %s/%s: %s\n", dump, b[i].name,
                   a[i].fwd, a[i].bwd, b[i].fwd, b[i].bwd, k->why);
        } else {
            printf("FAIL %s %s: precheck %s/%s (%s), msprobe %s/%s%s\n", dump, b[i].name, a[i].fwd,
                   a[i].bwd, a[i].msg, b[i].fwd, b[i].bwd,
                   k ? " (listed as a known difference that did not happen)" : "");
            bad++;
        }
    }
    printf("%s %s: %d of %d APIs have msprobe's statuses\n", dump, extra, same, nb);
    assert_int_equal(bad, 0);
    if (total)
        *total = nb;
    return same;
}

void pc_test_assert_same_csvs(const char *dir_a, const char *dir_b)
{
    const char *kinds[] = {"accuracy_checking_result_", "accuracy_checking_details_"};
    for (int i = 0; i < 2; i++) {
        char pa[1024], pb[1024];
        pc_test_find_file(dir_a, kinds[i], pa, sizeof pa);
        pc_test_find_file(dir_b, kinds[i], pb, sizeof pb);
        pc_test_assert_same_file(pa, pb);
    }
}

void pc_test_expect_in_log(const char *log, const char *text)
{
    if (!pc_test_file_contains(log, text)) {
        char *l = pc_test_slurp(log, NULL);
        fail_msg("the log does not say \"%s\":\n%s", text, l);
    }
}
