/*
 * Reliability of what precheck reads (issue 29, items 5 and 6), with the real binary, real
 * files and real soft links:
 *   - the excerpt of a foreign file in an error message: at most 60 characters, quoted, control
 *     and invisible bytes escaped (core/excerpt.h), in report's, resume's and merge's messages;
 *   - run_ut's link rule in every command that reads: report skips a CSV, a summary or an
 *     error-data folder that is a soft link with one WARNING naming it, and never shows what it
 *     points to; report DIR, report --error-data, merge's input and the files merge finds are
 *     refused when they are links, as api_precision_compare's inputs are;
 *   - two runs in one second: run_ut's and api_precision_compare's summaries of the same stamp,
 *     under the new names and as an older precheck left them (one overwriting the other): the
 *     page shows each run's own command and time.
 */
#include "pc_test.h"
#include "pc_run_ut_test.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "precheck/core/excerpt.h"

#define FIXTURES PC_TEST_FIXTURES "/msprobe"
#define SECRET   "TOPSECRET:x:0:0:must-not-be-printed"

static void copy_file(const char *from, const char *to)
{
    size_t n;
    char *text = pc_test_slurp(from, &n);
    FILE *f = fopen(to, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
    free(text);
}

/* A copy of from with every occurrence of the text a replaced by b (the same length). */
static void copy_replacing(const char *from, const char *to, const char *a, const char *b)
{
    assert_int_equal(strlen(a), strlen(b));
    char *text = pc_test_slurp(from, NULL);
    for (char *p = strstr(text, a); p; p = strstr(p + 1, a))
        memcpy(p, b, strlen(b));
    pc_test_write_file(to, text);
    free(text);
}

/* The msprobe CSVs of run_ut/gpt_tensor (stamp 20261202102100) copied into dir. */
static void msprobe_run(const char *dir)
{
    char from[1024], to[1024];
    static const char *const kinds[] = {"result", "details"};
    for (int i = 0; i < 2; i++) {
        PC_TEST_FMT(from, "%s/run_ut/gpt_tensor/accuracy_checking_%s_20261202102100.csv", FIXTURES,
                    kinds[i]);
        PC_TEST_FMT(to, "%s/accuracy_checking_%s_20261202102100.csv", dir, kinds[i]);
        copy_file(from, to);
    }
}

/* ---- the excerpt ---- */

static void test_excerpt(void **state)
{
    (void)state;
    pc_excerpt e;
    assert_string_equal(pc_excerpt_of(&e, "API name"), "\"API name\"");
    assert_string_equal(pc_excerpt_of(&e, NULL), "\"\"");
    assert_string_equal(pc_excerpt_of(&e, "say \"hi\" \\o/"), "\"say \\\"hi\\\" \\\\o/\"");
    assert_string_equal(pc_excerpt_of(&e, "a\nb\rc\td"), "\"a\\nb\\rc\\td\"");
    assert_string_equal(pc_excerpt_of(&e, "\x1b[31mred\x07\x7f"), "\"\\x1B[31mred\\x07\\x7F\"");
    assert_string_equal(pc_excerpt_quote(&e, "nul\0after", 9), "\"nul\\x00after\"");
    /* UTF-8 kept; bytes that are not UTF-8 and the invisible direction marks escaped */
    assert_string_equal(pc_excerpt_of(&e, "余弦相似度"), "\"余弦相似度\"");
    assert_string_equal(pc_excerpt_of(&e, "bad \xff\xc0\xaf"), "\"bad \\xFF\\xC0\\xAF\"");
    assert_string_equal(pc_excerpt_of(&e, "rtl \xe2\x80\xae c1 \xc2\x85"),
                        "\"rtl \\u{202E} c1 \\u{0085}\"");
    assert_string_equal(pc_excerpt_of(&e, "cut \xe4\xbd"), "\"cut \\xE4\\xBD\"");
    /* at most 60 characters, then ... after the quote */
    char longer[200];
    memset(longer, 'x', sizeof longer - 1);
    longer[sizeof longer - 1] = 0;
    char want[80] = "\"";
    memset(want + 1, 'x', 60);
    strcpy(want + 61, "\"...");
    assert_string_equal(pc_excerpt_of(&e, longer), want);
    longer[60] = 0;
    want[61] = '"';
    want[62] = 0;
    assert_string_equal(pc_excerpt_of(&e, longer), want);
    /* the worst case fits: 60 escaped invisible marks */
    char marks[60 * 3 + 4] = "";
    for (int i = 0; i < 61; i++)
        strcat(marks, i < 60 ? "\xe2\x80\xae" : "z");
    const char *out = pc_excerpt_of(&e, marks);
    assert_int_equal(strlen(out), 2 + 60 * 8 + 3);
    assert_string_equal(out + strlen(out) - 5, "}\"...");
}

/* ---- report and links ---- */

static void test_report_skips_links(void **state)
{
    (void)state;
    char dir[512], run[700], secret[700], link[1024], args[2048], log[700], page[1024];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    PC_TEST_FMT(run, "%s/out", dir);
    assert_int_equal(mkdir(run, 0750), 0);
    PC_TEST_FMT(log, "%s/log", dir);
    msprobe_run(run);
    /* a file outside the folder, and links to it under the names report reads, newer than the
     * real run: the newest stamp would win */
    PC_TEST_FMT(secret, "%s/secret.txt", dir);
    pc_test_write_file(secret, SECRET "\nsecond:line\n");
    PC_TEST_FMT(link, "%s/accuracy_checking_result_20991231000000.csv", run);
    assert_int_equal(symlink(secret, link), 0);
    PC_TEST_FMT(link, "%s/api_precision_compare_details_20991231000000.csv", run);
    assert_int_equal(symlink(secret, link), 0);
    /* a summary of the real run's stamp, as a link to a summary of someone else's */
    char other[700];
    PC_TEST_FMT(other, "%s/other.json", dir);
    pc_test_write_file(other,
                       "{\"schema\": \"precheck-summary\", \"version\": 1, \"kind\": \"run_ut\", "
                       "\"run\": {\"command\": \"precheck run_ut " SECRET "\", \"seconds\": 1}}");
    PC_TEST_FMT(link, "%s/precheck_summary_20261202102100.json", run);
    assert_int_equal(symlink(other, link), 0);
    PC_TEST_FMT(args, "report '%s'", run);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    char *text = pc_test_slurp(log, NULL);
    if (strstr(text, "TOPSECRET"))
        fail_msg("the report printed the linked file:\n%s", text);
    static const char *const linked[] = {"accuracy_checking_result_20991231000000.csv",
                                         "api_precision_compare_details_20991231000000.csv",
                                         "precheck_summary_20261202102100.json"};
    for (size_t i = 0; i < 3; i++) {
        char want[1200];
        PC_TEST_FMT(want, "[WARNING] %s/%s is a soft link: the report skips it", run, linked[i]);
        char *at = strstr(text, want);
        if (!at || strstr(at + 1, want))
            fail_msg("not one WARNING naming %s:\n%s", linked[i], text);
    }
    free(text);
    /* the page is the real run's, and nothing of the linked files is on it */
    PC_TEST_FMT(page, "%s/precheck_report_20261202102100.html", run);
    text = pc_test_slurp(page, NULL);
    assert_null(strstr(text, "TOPSECRET"));
    assert_non_null(strstr(text, "Skipped "));
    assert_null(strstr(text, "id=\"count-compare-"));
    free(text);

    /* DIR and --error-data given as links are refused, as run_ut refuses its paths */
    PC_TEST_FMT(link, "%s/latest", dir);
    assert_int_equal(symlink(run, link), 0);
    PC_TEST_FMT(args, "report '%s'", link);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    pc_test_expect_in_log(log, "is a soft link");
    PC_TEST_FMT(args, "report '%s' --error-data '%s' -o '%s/x.html'", run, link, dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    pc_test_expect_in_log(log, "is a soft link");
}

static void test_report_skips_linked_error_data(void **state)
{
    (void)state;
    char dir[512], from[1024], to[1024], args[2048], log[700], page[1024];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    PC_TEST_FMT(log, "%s/log", dir);
    const char *src = FIXTURES "/run_ut/gpt_bf16_tensor_save_error_data";
    char result[1024], details[1024], data[1024];
    pc_test_find_file(src, "accuracy_checking_result_", result, sizeof result);
    pc_test_find_file(src, "accuracy_checking_details_", details, sizeof details);
    pc_test_find_file(src, "ut_error_data", data, sizeof data);
    const char *ts = strrchr(result, '_') + 1;
    PC_TEST_FMT(to, "%s/%s", dir, strrchr(result, '/') + 1);
    copy_file(result, to);
    PC_TEST_FMT(to, "%s/%s", dir, strrchr(details, '/') + 1);
    copy_file(details, to);
    /* the error data folder a link: skipped, not drawn */
    PC_TEST_FMT(to, "%s/ut_error_data%.14s", dir, ts);
    assert_int_equal(symlink(data, to), 0);
    PC_TEST_FMT(args, "report '%s' -o '%s/page.html'", dir, dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    char want[1200];
    PC_TEST_FMT(want, "[WARNING] %s is a soft link: the report skips it", to);
    pc_test_expect_in_log(log, want);
    pc_test_expect_in_log(log, ", 0 with error-data plots");
    /* the folder itself, holding one tensor file that is a link: that output is not drawn */
    assert_int_equal(unlink(to), 0);
    assert_int_equal(mkdir(to, 0750), 0);
    PC_TEST_FMT(from, "%s/Tensor.masked_fill.0.forward.output.bench.0.pt", data);
    PC_TEST_FMT(args, "cp '%s'/*.pt '%s'/", data, to);
    assert_int_equal(system(args), 0);
    char pt[1200];
    PC_TEST_FMT(pt, "%s/Tensor.masked_fill.0.forward.output.bench.0.pt", to);
    assert_int_equal(unlink(pt), 0);
    assert_int_equal(symlink(from, pt), 0);
    PC_TEST_FMT(args, "report '%s' -o '%s/page.html'", dir, dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    PC_TEST_FMT(want, "The file path %s is a soft link.; the report skips it.", pt);
    pc_test_expect_in_log(log, want);
    PC_TEST_FMT(page, "%s/page.html", dir);
    char *text = pc_test_slurp(page, NULL);
    assert_non_null(strstr(text, "is a soft link."));
    free(text);
}

/* ---- the excerpt in the messages ---- */

static void test_messages_show_an_excerpt(void **state)
{
    (void)state;
    char dir[512], path[1024], args[2048], log[700];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    PC_TEST_FMT(log, "%s/log", dir);
    /* a first line with a terminal escape and 200 characters more */
    char first[400] = "\x1b]0;owned\x07hdr";
    size_t n = strlen(first);
    memset(first + n, 'y', 200);
    strcpy(first + n + 200, ",b\r\n1,2\r\n");
    PC_TEST_FMT(path, "%s/accuracy_checking_result_20270101000000.csv", dir);
    pc_test_write_file(path, first);
    PC_TEST_FMT(args, "report '%s'", dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    char *text = pc_test_slurp(log, NULL);
    if (strchr(text, '\x1b') || strchr(text, '\x07') ||
        strstr(text, "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"))
        fail_msg("the message holds the raw line or more than 60 characters of it:\n%s", text);
    assert_non_null(strstr(text, "its header starts with \"\\x1B]0;owned\\x07hdryyy"));
    assert_non_null(strstr(text, "yyy\"..."));
    free(text);
    /* resume: the same file given to -csv_path */
    char details[1024];
    PC_TEST_FMT(details, "%s/accuracy_checking_details_20270101000000.csv", dir);
    pc_test_write_file(details, "API Name\r\n");
    PC_TEST_FMT(args,
                "run_ut -api_info '%s/dumps/ew_fp16_tensor/step0/rank/dump.json' -csv_path '%s' "
                "--no-progress",
                FIXTURES, path);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    text = pc_test_slurp(log, NULL);
    if (strchr(text, '\x1b') || strchr(text, '\x07'))
        fail_msg("resume printed the raw line:\n%s", text);
    assert_non_null(strstr(text, "its header starts with \"\\x1B]0;owned\\x07hdryyy"));
    free(text);
}

/* ---- the other commands and links ---- */

static void test_commands_refuse_links(void **state)
{
    (void)state;
    char dir[512], real[700], link[700], args[2048], log[700];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    PC_TEST_FMT(log, "%s/log", dir);
    /* a shard's run: merge's input a link to its folder, then its record a link */
    PC_TEST_FMT(real, "%s/shard", dir);
    PC_TEST_FMT(args,
                "run_ut -api_info '%s/dumps/ew_fp16_tensor/step0/rank/dump.json' -o '%s' "
                "--shard 1/1 --no-progress",
                FIXTURES, real);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    PC_TEST_FMT(link, "%s/shard-link", dir);
    assert_int_equal(symlink(real, link), 0);
    PC_TEST_FMT(args, "merge '%s' -o '%s/merged'", link, dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    pc_test_expect_in_log(log, "is a soft link");
    char record[1024], moved[1200];
    pc_test_find_file(real, "precheck_run_", record, sizeof record);
    PC_TEST_FMT(moved, "%s/record.json", dir);
    assert_int_equal(rename(record, moved), 0);
    assert_int_equal(symlink(moved, record), 0);
    PC_TEST_FMT(args, "merge '%s' -o '%s/merged'", real, dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    char want[1400];
    PC_TEST_FMT(want, "The file path %s is a soft link.", record);
    pc_test_expect_in_log(log, want);
    /* api_precision_compare: an input that is a link */
    char npu[700], gpu[700];
    PC_TEST_FMT(npu, "%s/npu.csv", dir);
    PC_TEST_FMT(gpu, "%s/gpu.csv", dir);
    copy_file(FIXTURES "/run_ut/gpt_tensor/accuracy_checking_details_20261202102100.csv", npu);
    PC_TEST_FMT(link, "%s/gpu-link.csv", dir);
    assert_int_equal(symlink(npu, link), 0);
    PC_TEST_FMT(args, "api_precision_compare -npu '%s' -gpu '%s' -o '%s/c'", npu, link, dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    pc_test_expect_in_log(log, "is a soft link");
    /* resume: the run record beside the CSV a link (to a copy of itself) */
    char out[700], result[1024];
    PC_TEST_FMT(out, "%s/whole", dir);
    PC_TEST_FMT(args,
                "run_ut -api_info '%s/dumps/ew_fp16_tensor/step0/rank/dump.json' -o '%s' "
                "--no-progress",
                FIXTURES, out);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    pc_test_find_file(out, "precheck_run_", record, sizeof record);
    pc_test_find_file(out, "accuracy_checking_result_", result, sizeof result);
    PC_TEST_FMT(moved, "%s/whole-record.json", dir);
    assert_int_equal(rename(record, moved), 0);
    assert_int_equal(symlink(moved, record), 0);
    PC_TEST_FMT(args,
                "run_ut -api_info '%s/dumps/ew_fp16_tensor/step0/rank/dump.json' -csv_path '%s' "
                "--no-progress",
                FIXTURES, result);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    PC_TEST_FMT(want, "The file path %s is a soft link.", record);
    pc_test_expect_in_log(log, want);
    /* compare: a tensor file that is a link (it reads the same file fine as itself) */
    const char *pt = FIXTURES "/dumps/ew_fp16_tensor/step0/rank/dump_tensor_data/"
                              "Tensor.__add__.0.backward.input.0.pt";
    PC_TEST_FMT(link, "%s/bench.pt", dir);
    assert_int_equal(symlink(pt, link), 0);
    PC_TEST_FMT(args, "compare -bench '%s' -device '%s'", pt, pt);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    PC_TEST_FMT(args, "compare -bench '%s' -device '%s'", link, pt);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    PC_TEST_FMT(want, "The file path %s is a soft link.", link);
    pc_test_expect_in_log(log, want);
}

/* ---- two runs in one second ---- */

/* The text of the page between the run_ut card and the api_precision_compare card, or after. */
static char *card(const char *page, bool compare)
{
    const char *r = strstr(page, "<h3>run_ut:"), *c = strstr(page, "<h3>api_precision_compare:");
    assert_non_null(r);
    assert_non_null(c);
    assert_true(r < c);
    const char *from = compare ? c : r;
    const char *to = compare ? strstr(c, "</div>") : c;
    if (compare) { /* the card holds tables and lists: to the next section */
        to = strstr(c, "</section>");
        assert_non_null(to);
    }
    char *s = malloc((size_t)(to - from) + 1);
    assert_non_null(s);
    memcpy(s, from, (size_t)(to - from));
    s[to - from] = 0;
    return s;
}

static void fact_is(const char *card_text, const char *what, const char *want)
{
    char key[200];
    PC_TEST_FMT(key, "<dt>%s</dt><dd>", what);
    const char *at = strstr(card_text, key);
    if (!at)
        fail_msg("no %s in:\n%s", what, card_text);
    at += strlen(key);
    if (strncmp(at, "<code>", 6) == 0)
        at += 6;
    if (strncmp(at, want, strlen(want)) != 0)
        fail_msg("%s is not %s but %.200s", what, want, at);
}

static void test_two_runs_one_second(void **state)
{
    (void)state;
    char dir[512], npu[700], cdir[700], args[2048], log[700], path[1024], to[1200];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    PC_TEST_FMT(log, "%s/log", dir);
    PC_TEST_FMT(npu, "%s/npu", dir);
    PC_TEST_FMT(cdir, "%s/c", dir);
    /* the README's quick start: run_ut -o out/npu, then api_precision_compare -o out/npu */
    PC_TEST_FMT(args,
                "run_ut -api_info '%s/dumps/ew_fp16_tensor/step0/rank/dump.json' -o '%s' "
                "--no-progress",
                FIXTURES, npu);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    char result[1024];
    pc_test_find_file(npu, "accuracy_checking_result_", result, sizeof result);
    char ts[15];
    PC_TEST_FMT(ts, "%.14s", strrchr(result, '_') + 1);
    char g[700], n[700];
    PC_TEST_FMT(n, "%s/n.csv", dir);
    PC_TEST_FMT(g, "%s/g.csv", dir);
    copy_file(FIXTURES "/run_ut/gpt_tensor/accuracy_checking_details_20261202102100.csv", n);
    copy_file(FIXTURES "/run_ut/gpt_tensor_rerun/accuracy_checking_details_20261202102119.csv", g);
    PC_TEST_FMT(args, "api_precision_compare -npu '%s' -gpu '%s' -o '%s'", n, g, cdir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    /* the compare's outputs, moved beside run_ut's under run_ut's stamp (the same second) */
    char cresult[1024], cts[15];
    pc_test_find_file(cdir, "api_precision_compare_result_", cresult, sizeof cresult);
    PC_TEST_FMT(cts, "%.14s", strrchr(cresult, '_') + 1);
    static const char *const kinds[] = {"result", "details"};
    for (int i = 0; i < 2; i++) {
        PC_TEST_FMT(path, "%s/api_precision_compare_%s_%s.csv", cdir, kinds[i], cts);
        PC_TEST_FMT(to, "%s/api_precision_compare_%s_%s.csv", npu, kinds[i], ts);
        assert_int_equal(rename(path, to), 0);
    }
    /* its summary, whatever its writer named it (the only JSON file left there) */
    char csummary[1024];
    PC_TEST_FMT(args, "ls '%s'/*.json > '%s/name' 2>/dev/null", cdir, dir);
    assert_int_equal(system(args), 0);
    PC_TEST_FMT(path, "%s/name", dir);
    char *name = pc_test_slurp(path, NULL);
    name[strcspn(name, "\n")] = 0;
    PC_TEST_FMT(csummary, "%s", name);
    free(name);
    /* run_ut's own summary: its command and time */
    char summary[1024];
    PC_TEST_FMT(summary, "%s/precheck_summary_%s.json", npu, ts);
    char *js = pc_test_slurp(summary, NULL);
    const char *sec = strstr(js, "\"seconds\": ");
    assert_non_null(sec);
    char took[32];
    PC_TEST_FMT(took, "%.3g s</dd>", strtod(sec + 11, NULL));
    free(js);

    /* 1. the new names: api_precision_compare_summary_<ts>.json beside run_ut's */
    PC_TEST_FMT(to, "%s/api_precision_compare_summary_%s.json", npu, ts);
    copy_replacing(csummary, to, cts, ts);
    PC_TEST_FMT(args, "report '%s' -o '%s/page1.html'", npu, dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    PC_TEST_FMT(path, "%s/page1.html", dir);
    char *page = pc_test_slurp(path, NULL);
    char *r = card(page, false), *c = card(page, true);
    fact_is(r, "Command", "precheck run_ut -api_info");
    fact_is(r, "Time taken", took);
    fact_is(c, "Command", "precheck api_precision_compare -npu");
    assert_null(strstr(r, "api_precision_compare -npu"));
    assert_null(strstr(c, "run_ut -api_info"));
    fact_is(c, "NPU run (-npu)", n);
    fact_is(c, "GPU run (-gpu)", g);
    free(r);
    free(c);
    free(page);

    /* 2. a folder of an older precheck: the compare's summary took run_ut's name (run_ut's is
     * lost); run_ut's card takes its command from its run record, not the compare's */
    assert_int_equal(unlink(to), 0);
    char kept[1200];
    PC_TEST_FMT(kept, "%s/run_ut_summary.json", dir);
    assert_int_equal(rename(summary, kept), 0);
    copy_replacing(csummary, summary, cts, ts);
    PC_TEST_FMT(args, "report '%s' -o '%s/page2.html'", npu, dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    PC_TEST_FMT(path, "%s/page2.html", dir);
    page = pc_test_slurp(path, NULL);
    r = card(page, false);
    c = card(page, true);
    fact_is(r, "Command", "precheck run_ut -api_info");
    assert_null(strstr(r, "api_precision_compare -npu"));
    fact_is(c, "Command", "precheck api_precision_compare -npu");
    assert_non_null(
        strstr(page, "is not this run_ut run&#39;s summary but api_precision_compare&#39;s"));
    free(r);
    free(c);
    free(page);

    /* 3. both under precheck_summary_<ts>: the old compare's first, run_ut's with a suffix */
    PC_TEST_FMT(to, "%s/precheck_summary_%s_1.json", npu, ts);
    assert_int_equal(rename(kept, to), 0);
    PC_TEST_FMT(args, "report '%s' -o '%s/page3.html'", npu, dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    PC_TEST_FMT(path, "%s/page3.html", dir);
    page = pc_test_slurp(path, NULL);
    r = card(page, false);
    c = card(page, true);
    fact_is(r, "Command", "precheck run_ut -api_info");
    fact_is(r, "Time taken", took);
    fact_is(c, "Command", "precheck api_precision_compare -npu");
    free(r);
    free(c);
    free(page);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_excerpt),
        cmocka_unit_test(test_report_skips_links),
        cmocka_unit_test(test_report_skips_linked_error_data),
        cmocka_unit_test(test_messages_show_an_excerpt),
        cmocka_unit_test(test_commands_refuse_links),
        cmocka_unit_test(test_two_runs_one_second),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
