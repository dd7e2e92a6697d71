/*
 * precheck diff OLD NEW through the binary: real runs of one dump on the reference device and
 * on the faulty backend (a NEW that fails where OLD passed), its classes, JSON and exit codes;
 * the refusals (runs of different dumps or seeds, of different commands); folders without a
 * run record (msprobe's) accepted with a WARNING; a folder with several runs; the factor rule
 * on 0, NaN and inf, on hand-made CSVs.
 */
#include "pc_run_ut_test.h"
#include "pc_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "precheck/io/json.h"

#define DUMP(name) PC_TEST_FIXTURES "/msprobe/dumps/" name "/step0/rank/dump.json"
#define FAULTS     "--backend faulty:swap_block:*,eps:layer_norm"

/* A run_ut run of dump into a fresh folder (extra: more options); dir receives the folder. */
static void run_ut(char *dir, size_t size, const char *dump, const char *extra)
{
    char args[2048], log[600];
    assert_non_null(pc_test_tmpdir(dir, size));
    PC_TEST_FMT(log, "%s.log", dir);
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --no-progress %s", dump, dir, extra ? extra : "");
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
}

static int diff(const char *args, const char *log)
{
    char cmd[4096];
    PC_TEST_FMT(cmd, "diff %s", args);
    return pc_test_run_precheck(NULL, cmd, log);
}

static double jnum(const pc_json_doc *doc, pc_json_ref obj, const char *key)
{
    pc_json_ref v = pc_json_object_get(doc, obj, key);
    assert_true(v != PC_JSON_NONE);
    return pc_json_number(doc, v);
}

/* APIs failing (error forward or backward) in a result CSV: which, by index of a. */
static bool failing(const pc_test_status_row *r)
{
    return strcmp(r->fwd, "error") == 0 || strcmp(r->bwd, "error") == 0;
}

static void test_new_errors_fixed_and_exit_codes(void **state)
{
    (void)state;
    char a[512], b[512], log[600], args[2048], json[600], ra[1024], rb[1024];
    run_ut(a, sizeof a, DUMP("gpt_tensor"), NULL);
    run_ut(b, sizeof b, DUMP("gpt_tensor"), FAULTS);
    /* the expected classes, from the two result CSVs */
    static pc_test_status_row rows_a[64], rows_b[64];
    pc_test_find_file(a, "accuracy_checking_result_", ra, sizeof ra);
    pc_test_find_file(b, "accuracy_checking_result_", rb, sizeof rb);
    int na = pc_test_read_results(ra, rows_a, 64), nb = pc_test_read_results(rb, rows_b, 64);
    assert_int_equal(na, nb);
    int new_error = 0, still = 0;
    for (int i = 0; i < nb; i++) {
        const pc_test_status_row *o = pc_test_find_row(rows_a, na, rows_b[i].name);
        assert_non_null(o);
        new_error += failing(&rows_b[i]) && !failing(o);
        still += failing(&rows_b[i]) && failing(o);
    }
    assert_true(new_error > 0);

    PC_TEST_FMT(log, "%s.diff.log", b);
    PC_TEST_FMT(json, "%s.diff.json", b);
    PC_TEST_FMT(args, "%s %s --json %s", a, b, json);
    assert_int_equal(diff(args, log), 0); /* no --fail-on: 0 */
    char head[128];
    PC_TEST_FMT(head, "%d newly failing, 0 fixed, %d still failing", new_error, still);
    pc_test_expect_in_log(log, head);
    pc_test_expect_in_log(log, "newly failing (");
    pc_test_expect_in_log(log, "Torch.matmul.1");
    pc_test_expect_in_log(log, "must be > 0.99");
    pc_test_expect_in_log(log, "metrics moved more than 10 times");
    pc_json_doc *doc = NULL;
    assert_int_equal(pc_json_parse_file(&doc, json), PC_OK);
    pc_json_ref counts = pc_json_object_get(doc, 0, "counts");
    assert_true(jnum(doc, counts, "new_error") == new_error);
    assert_true(jnum(doc, counts, "still_failing") == still);
    assert_true(jnum(doc, counts, "fixed") == 0);
    assert_true(jnum(doc, counts, "only_old") == 0 && jnum(doc, counts, "only_new") == 0);
    assert_true(jnum(doc, counts, "moved_rows") > 0);
    assert_string_equal(pc_json_string(doc, pc_json_object_get(doc, 0, "command"), NULL), "run_ut");
    pc_json_ref moved = pc_json_object_get(doc, 0, "moved");
    assert_true(pc_json_count(doc, moved) == (size_t)jnum(doc, counts, "moved_rows"));
    pc_json_ref first = pc_json_first(doc, moved);
    assert_true(jnum(doc, first, "factor") > 10);
    pc_json_ref apis = pc_json_object_get(doc, 0, "apis");
    size_t listed_new = 0;
    for (pc_json_ref x = pc_json_first(doc, apis); x != PC_JSON_NONE; x = pc_json_next(doc, x))
        listed_new += strcmp(pc_json_string(doc, pc_json_object_get(doc, x, "change"), NULL),
                             "new_error") == 0;
    assert_int_equal(listed_new, new_error);
    pc_json_free(doc);

    /* --fail-on: 3 when NEW has new errors, 0 the other way round (all of them fixed) */
    PC_TEST_FMT(args, "%s %s --fail-on new-error", a, b);
    assert_int_equal(diff(args, log), 3);
    pc_test_expect_in_log(log, "exit status 3");
    PC_TEST_FMT(args, "%s %s --fail-on new-error,missing", b, a);
    assert_int_equal(diff(args, log), 0);
    PC_TEST_FMT(head, "0 newly failing, %d fixed", new_error);
    pc_test_expect_in_log(log, head);
    PC_TEST_FMT(args, "%s %s --fail-on moved", a, b); /* metrics moved for the worse */
    assert_int_equal(diff(args, log), 3);
    PC_TEST_FMT(args, "%s %s --fail-on any", b, a);
    assert_int_equal(diff(args, log), 3);
    /* one run against itself: nothing changed, whatever --fail-on names */
    PC_TEST_FMT(args, "%s %s --fail-on any", a, a);
    assert_int_equal(diff(args, log), 0);
    int failing_a = 0;
    for (int i = 0; i < na; i++)
        failing_a += failing(&rows_a[i]);
    PC_TEST_FMT(head,
                "0 newly failing, 0 fixed, %d still failing, 0 other verdict changes, 0 with "
                "metrics moved",
                failing_a);
    pc_test_expect_in_log(log, head);
    /* a larger factor lists fewer moves */
    PC_TEST_FMT(args, "%s %s --factor 1e9 --json %s", a, b, json);
    assert_int_equal(diff(args, log), 0);
    assert_int_equal(pc_json_parse_file(&doc, json), PC_OK);
    double few = jnum(doc, pc_json_object_get(doc, 0, "counts"), "moved_rows");
    assert_true(jnum(doc, 0, "factor") == 1e9);
    pc_json_free(doc);
    PC_TEST_FMT(args, "%s %s --factor 10 --json %s", a, b, json);
    assert_int_equal(diff(args, log), 0);
    assert_int_equal(pc_json_parse_file(&doc, json), PC_OK);
    assert_true(few < jnum(doc, pc_json_object_get(doc, 0, "counts"), "moved_rows"));
    pc_json_free(doc);
}

static void test_refused_pairs(void **state)
{
    (void)state;
    char a[512], b[512], s[512], log[600], args[2048], json[600];
    run_ut(a, sizeof a, DUMP("gpt_tensor"), NULL);
    run_ut(b, sizeof b, DUMP("cnn_tensor"), NULL);
    run_ut(s, sizeof s, DUMP("gpt_tensor"), "--seed 7");
    PC_TEST_FMT(log, "%s.diff.log", a);
    /* different dumps: refused, naming both, unless --allow-different-dumps */
    PC_TEST_FMT(args, "%s %s", a, b);
    assert_int_equal(diff(args, log), 1);
    pc_test_expect_in_log(log, "Refused: OLD and NEW are runs of different inputs");
    pc_test_expect_in_log(log, "--allow-different-dumps");
    pc_test_expect_in_log(log, "cnn_tensor");
    /* a different seed: other inputs */
    PC_TEST_FMT(args, "%s %s", a, s);
    assert_int_equal(diff(args, log), 1);
    pc_test_expect_in_log(log, "seed: '");
    PC_TEST_FMT(json, "%s.json", a);
    PC_TEST_FMT(args, "%s %s --allow-different-dumps --json %s --fail-on missing", a, b, json);
    assert_int_equal(diff(args, log), 3); /* gpt's APIs are missing from cnn's run */
    pc_test_expect_in_log(log, "--allow-different-dumps: comparing runs of different inputs");
    pc_json_doc *doc = NULL;
    assert_int_equal(pc_json_parse_file(&doc, json), PC_OK);
    pc_json_ref counts = pc_json_object_get(doc, 0, "counts");
    assert_true(jnum(doc, counts, "only_old") > 0 && jnum(doc, counts, "only_new") > 0);
    pc_json_free(doc);

    /* run_ut against api_precision_compare: refused */
    char c[512], da[1024], db[1024];
    assert_non_null(pc_test_tmpdir(c, sizeof c));
    run_ut(b, sizeof b, DUMP("gpt_tensor"), FAULTS);
    pc_test_find_file(a, "accuracy_checking_details_", da, sizeof da);
    pc_test_find_file(b, "accuracy_checking_details_", db, sizeof db);
    PC_TEST_FMT(args, "api_precision_compare -npu %s -gpu %s -o %s", db, da, c);
    assert_int_equal(pc_test_run_precheck(NULL, args, NULL), 0);
    PC_TEST_FMT(args, "%s %s", a, c);
    assert_int_equal(diff(args, log), 1);
    pc_test_expect_in_log(log, "precheck diff compares two run_ut runs or two "
                               "api_precision_compare runs");
    /* not there */
    PC_TEST_FMT(args, "%s %s/nowhere", a, c);
    assert_int_equal(diff(args, log), 1);
    pc_test_expect_in_log(log, "no such folder or file");
    /* usage errors */
    PC_TEST_FMT(args, "%s %s --factor 1", a, a);
    assert_int_equal(diff(args, log), 2);
    PC_TEST_FMT(args, "%s %s --fail-on sometimes", a, a);
    assert_int_equal(diff(args, log), 2);
    PC_TEST_FMT(args, "%s", a);
    assert_int_equal(diff(args, log), 2);
    assert_int_equal(diff("--help", log), 0);
    pc_test_expect_in_log(log, "exit status: 0 compared, 1 failure, 2 usage error, 3");
}

/* Two api_precision_compare folders: NPU = the faulty run, then NPU = another reference run. */
static void test_precision_compare_folders(void **state)
{
    (void)state;
    char a[512], a2[512], b[512], c1[512], c2[512], log[600], args[4096], json[600];
    char da[1024], da2[1024], db[1024];
    run_ut(a, sizeof a, DUMP("gpt_tensor"), NULL);
    run_ut(a2, sizeof a2, DUMP("gpt_tensor"), "--jobs 0");
    run_ut(b, sizeof b, DUMP("gpt_tensor"), FAULTS);
    pc_test_find_file(a, "accuracy_checking_details_", da, sizeof da);
    pc_test_find_file(a2, "accuracy_checking_details_", da2, sizeof da2);
    pc_test_find_file(b, "accuracy_checking_details_", db, sizeof db);
    assert_non_null(pc_test_tmpdir(c1, sizeof c1));
    assert_non_null(pc_test_tmpdir(c2, sizeof c2));
    PC_TEST_FMT(args, "api_precision_compare -npu %s -gpu %s -o %s", da2, da, c1);
    assert_int_equal(pc_test_run_precheck(NULL, args, NULL), 0);
    PC_TEST_FMT(args, "api_precision_compare -npu %s -gpu %s -o %s", db, da, c2);
    assert_int_equal(pc_test_run_precheck(NULL, args, NULL), 0);
    char rc1[1024], rc2[1024];
    pc_test_find_file(c1, "api_precision_compare_result_", rc1, sizeof rc1);
    pc_test_find_file(c2, "api_precision_compare_result_", rc2, sizeof rc2);
    static pc_test_status_row rows1[64], rows2[64];
    int n1 = pc_test_read_results(rc1, rows1, 64), n2 = pc_test_read_results(rc2, rows2, 64);
    int errors = 0;
    for (int i = 0; i < n2; i++) {
        const pc_test_status_row *o = pc_test_find_row(rows1, n1, rows2[i].name);
        assert_non_null(o);
        errors += failing(&rows2[i]) && !failing(o);
    }
    assert_true(errors > 0);
    PC_TEST_FMT(log, "%s.log", c2);
    PC_TEST_FMT(json, "%s.json", c2);
    PC_TEST_FMT(args, "%s %s --json %s --fail-on new-error", c1, c2, json);
    assert_int_equal(diff(args, log), 3);
    pc_test_expect_in_log(log, "precheck diff of api_precision_compare runs");
    pc_json_doc *doc = NULL;
    assert_int_equal(pc_json_parse_file(&doc, json), PC_OK);
    assert_true(jnum(doc, pc_json_object_get(doc, 0, "counts"), "new_error") == errors);
    assert_string_equal(pc_json_string(doc, pc_json_object_get(doc, 0, "command"), NULL),
                        "api_precision_compare");
    pc_json_free(doc);
}

/* ---- hand-made CSVs: msprobe's folders (no run record), several runs, the factor rule ---- */

static const char details_header[] =
    "\xef\xbb\xbf"
    "API Name,Bench Dtype,DEVICE Dtype,Shape,余弦相似度,最大绝对误差,双百指标,双千指标,双万指标,"
    "二进制一致错误率,误差均衡性,均方根误差,小值域错误占比,相对误差最大值,相对误差平均值,"
    "inf/nan错误率,相对误差错误率,绝对误差错误率,ULP误差最大值,ULP误差平均值,ULP误差大于阈值占"
    "比,Status,Message\n";

/* A run of five APIs in dir under time stamp ts: API k's forward output has cosine cos[k] and
 * max absolute error abs[k] (cells as written), status pass. */
static void write_run(const char *dir, const char *ts, const char *const cos[5],
                      const char *const abs[5])
{
    char path[1024];
    PC_TEST_FMT(path, "%s/accuracy_checking_details_%s.csv", dir, ts);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(details_header, f);
    for (int k = 0; k < 5; k++)
        fprintf(f,
                "Torch.op%d.0.forward.output.0,torch.float32,torch.float32,\"(4,)\",%s,%s, , , , , "
                ", , , , , , , , , , ,pass,\n",
                k, cos[k], abs[k]);
    fclose(f);
    PC_TEST_FMT(path, "%s/accuracy_checking_result_%s.csv", dir, ts);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("\xef\xbb\xbf"
          "API name,Forward Test Success,Backward Test Success,Message\n",
          f);
    for (int k = 0; k < 5; k++)
        fprintf(f, "Torch.op%d.0,pass, ,\n", k);
    fclose(f);
}

static void test_factor_rule_and_msprobe_folders(void **state)
{
    (void)state;
    char o[512], n[512], log[600], args[2048], json[600], csv[1024];
    assert_non_null(pc_test_tmpdir(o, sizeof o));
    assert_non_null(pc_test_tmpdir(n, sizeof n));
    /* op0: 0 -> 1e-12 (below the floor: no move); op1: 0 -> 1e-6 (x1000, worse); op2: NaN ->
     * NaN (no move), and max abs NaN -> 0.5 (x inf, better); op3: 0.1 -> inf (x inf, worse);
     * op4: text and blank cells (not compared) */
    const char *cos_o[5] = {"1.0", "1.0", "nan", "1.0", "N/A"};
    const char *abs_o[5] = {"0.0", "0.0", "nan", "0.1", " "};
    const char *cos_n[5] = {"1.0", "1.0", "nan", "1.0", "0.5"};
    const char *abs_n[5] = {"1e-12", "1e-6", "0.5", "inf", "N/A"};
    write_run(o, "20260101000000", cos_o, abs_o);
    write_run(n, "20260101000000", cos_n, abs_n);
    write_run(n, "20250101000000", cos_o, abs_o); /* an older run in NEW */
    PC_TEST_FMT(log, "%s.log", n);
    PC_TEST_FMT(json, "%s.json", n);
    PC_TEST_FMT(args, "%s %s --json %s --fail-on moved", o, n, json);
    assert_int_equal(diff(args, log), 3);
    pc_test_expect_in_log(log, "could not be verified"); /* no run records: msprobe's */
    pc_test_expect_in_log(log, "holds 2 run_ut runs: diff takes the newest, 20260101000000");
    pc_json_doc *doc = NULL;
    assert_int_equal(pc_json_parse_file(&doc, json), PC_OK);
    pc_json_ref moved = pc_json_object_get(doc, 0, "moved");
    assert_int_equal(pc_json_count(doc, moved), 3);
    bool seen[5] = {false};
    for (pc_json_ref m = pc_json_first(doc, moved); m != PC_JSON_NONE; m = pc_json_next(doc, m)) {
        const char *api = pc_json_string(doc, pc_json_object_get(doc, m, "api"), NULL);
        int k = api[8] - '0';
        assert_true(k >= 0 && k < 5);
        seen[k] = true;
        bool worse = pc_json_truthy(doc, pc_json_object_get(doc, m, "worse"));
        pc_json_ref f = pc_json_object_get(doc, m, "factor");
        if (k == 1) {
            assert_true(worse);
            assert_true(fabs(pc_json_number(doc, f) - 1000) < 1e-6);
        } else {
            assert_true(pc_json_is_null(doc, f)); /* inf */
            assert_true(worse == (k == 3));
        }
    }
    assert_true(!seen[0] && seen[1] && seen[2] && seen[3] && !seen[4]);
    pc_json_free(doc);
    /* naming the older CSV takes that run: the same cells as OLD, nothing moved */
    PC_TEST_FMT(csv, "%s/accuracy_checking_result_20250101000000.csv", n);
    PC_TEST_FMT(args, "%s %s --fail-on any", o, csv);
    assert_int_equal(diff(args, log), 0);
    pc_test_expect_in_log(log, "run 20250101000000");
}

/* report --baseline OLD: the section of the changes and a mark on each changed API's row. */
static void test_report_baseline(void **state)
{
    (void)state;
    char a[512], b[512], c[512], log[600], args[4096], page[600], head[256];
    run_ut(a, sizeof a, DUMP("gpt_tensor"), NULL);
    run_ut(b, sizeof b, DUMP("gpt_tensor"), FAULTS);
    run_ut(c, sizeof c, DUMP("cnn_tensor"), NULL);
    char json[600];
    PC_TEST_FMT(log, "%s.log", b);
    PC_TEST_FMT(json, "%s.json", b);
    PC_TEST_FMT(args, "%s %s --json %s", a, b, json);
    assert_int_equal(diff(args, log), 0);
    pc_json_doc *doc = NULL;
    assert_int_equal(pc_json_parse_file(&doc, json), PC_OK);
    pc_json_ref counts = pc_json_object_get(doc, 0, "counts");
    int new_error = (int)jnum(doc, counts, "new_error");
    int changed = (int)jnum(doc, counts, "verdict_changed");
    pc_json_free(doc);
    PC_TEST_FMT(page, "%s/page.html", b);
    PC_TEST_FMT(args, "report %s -o %s --baseline %s", b, page, a);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    char *html = pc_test_slurp(page, NULL);
    assert_non_null(strstr(html, "<section class=\"card\" id=\"changes\">"));
    assert_non_null(strstr(html, "<a href=\"#changes\">Changes</a>"));
    PC_TEST_FMT(head, "<b>%d</b> newly failing, <b>0</b> fixed", new_error);
    assert_non_null(strstr(html, head));
    int marks = 0, changed_marks = 0;
    for (const char *p = strstr(html, "\">new error</span>"); p;
         p = strstr(p + 1, "\">new error</span>"))
        marks++;
    for (const char *p = strstr(html, "\">changed</span>"); p;
         p = strstr(p + 1, "\">changed</span>"))
        changed_marks++;
    assert_int_equal(marks, new_error);
    assert_int_equal(changed_marks, changed);
    free(html);
    /* without --baseline: no section, no marks */
    PC_TEST_FMT(args, "report %s -o %s", b, page);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    html = pc_test_slurp(page, NULL);
    assert_null(strstr(html, "id=\"changes\""));
    assert_null(strstr(html, "\">new error</span>"));
    free(html);
    /* a baseline of another dump: refused, the page not written */
    PC_TEST_FMT(page, "%s/other.html", b);
    PC_TEST_FMT(args, "report %s -o %s --baseline %s", b, page, c);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    pc_test_expect_in_log(log, "--baseline");
    pc_test_expect_in_log(log, "Refused: OLD and NEW are runs of different inputs");
    assert_int_equal(access(page, F_OK), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_errors_fixed_and_exit_codes),
        cmocka_unit_test(test_refused_pairs),
        cmocka_unit_test(test_precision_compare_folders),
        cmocka_unit_test(test_factor_rule_and_msprobe_folders),
        cmocka_unit_test(test_report_baseline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
