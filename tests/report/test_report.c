/*
 * precheck report (src/report/html*.c, report_load.c, error_data.c):
 *   - the escaping rule, character by character (markup, quotes, ampersands, bytes that are not
 *     UTF-8, controls, bidirectional overrides);
 *   - a folder crafted to break the page (API names, messages, cells, JSON strings holding
 *     </script>, <img onerror>, quotes, ampersands and non-UTF-8 bytes): the page is valid
 *     UTF-8, every tag and attribute in it is one the program writes, its only script is the
 *     program's, and the crafted texts are there, escaped;
 *   - a real run (run_ut -save_error_data on the bundled bf16 GPT dump): every API of the result
 *     CSV is a row, the counts are the CSV's, the metric that decided each API's worst row is
 *     the one summary.json names, and the error data is drawn;
 *   - msprobe's own folders (CSVs only, with error data written by torch.save; an
 *     api_precision_compare folder), several runs in one folder (--run), and the command's
 *     errors.
 */
#include "pc_test.h"
#include "pc_run_ut_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "precheck/io/json.h"
#include "precheck/report/report.h"
#include "report/report_impl.h"

#define FIXTURES PC_TEST_FIXTURES "/msprobe"

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[1024];
    PC_TEST_FMT(path, "%s/%s", dir, name);
    pc_test_write_file(path, text);
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* ---- the escaping rule ---- */

static const char *escaped(html_buf *b, const char *text, size_t len)
{
    pc_strbuf_truncate(b, 0);
    pc_hb_textn(b, text, len);
    assert_int_equal(pc_strbuf_error(b), PC_STRBUF_OK);
    return pc_strbuf_str(b);
}

static void test_escaping(void **state)
{
    (void)state;
    html_buf b = PC_STRBUF_INIT;
#define ESC(in, out) assert_string_equal(escaped(&b, in, sizeof(in) - 1), out)
    ESC("Torch.matmul.0", "Torch.matmul.0");
    ESC("</script><script>alert(1)</script>",
        "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;");
    ESC("\"><img src=x onerror='alert(1)'>",
        "&quot;&gt;&lt;img src=x onerror=&#39;alert(1)&#39;&gt;");
    ESC("a&amp;b & c", "a&amp;amp;b &amp; c");
    ESC("line\nnext\ttab", "line\nnext\ttab");
    ESC("cr\r bell\a del\x7f", "cr\xef\xbf\xbd bell\xef\xbf\xbd del\xef\xbf\xbd");
    ESC("余弦相似度", "余弦相似度");
    ESC("bad \xff\xfe end", "bad \xef\xbf\xbd\xef\xbf\xbd end");
    ESC("overlong \xc0\xaf", "overlong \xef\xbf\xbd\xef\xbf\xbd");
    ESC("surrogate \xed\xa0\x80", "surrogate \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    ESC("cut \xe4\xbd", "cut \xef\xbf\xbd\xef\xbf\xbd");
    ESC("too big \xf4\x90\x80\x80", "too big \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    ESC("rtl \xe2\x80\xae txt", "rtl \xef\xbf\xbd txt"); /* U+202E, the right-to-left override */
    ESC("c1 \xc2\x85", "c1 \xef\xbf\xbd");
    ESC("emoji \xf0\x9f\x98\x80", "emoji \xf0\x9f\x98\x80");
#undef ESC
    /* a cut text ends on a character boundary */
    pc_strbuf_truncate(&b, 0);
    pc_hb_text_cut(&b, "ab\xe4\xbd\x99\xe5\xbc\xa6", 4);
    assert_string_equal(pc_strbuf_str(&b), "ab\xe2\x80\xa6");
    pc_strbuf_reset(&b);
}

/* ---- what a page may hold ---- */

static bool valid_utf8(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : 4;
        if ((c & 0xc0) == 0x80 || c >= 0xf8 || i + len > n)
            return false;
        for (size_t k = 1; k < len; k++)
            if ((s[i + k] & 0xc0) != 0x80)
                return false;
        i += len;
    }
    return true;
}

static bool listed(const char *const *list, const char *s, size_t n)
{
    for (; *list; list++)
        if (strlen(*list) == n && strncmp(*list, s, n) == 0)
            return true;
    return false;
}

/*
 * Walks the page as markup: every '<' opens a tag the program writes, with attributes the
 * program writes, each value in double quotes; every '&' starts a reference the escaping makes.
 * Text from a file that escaped its escaping would show up as an unknown tag or attribute, a
 * stray quote, or a second script.
 */
static void assert_page_is_ours(const char *page)
{
    static const char *const tags[] = {
        "html",       "head", "meta",   "title",  "style",  "body",    "header",  "h1",    "h2",
        "h3",         "h4",   "p",      "nav",    "a",      "main",    "section", "ul",    "li",
        "div",        "dl",   "dt",     "dd",     "code",   "span",    "b",       "i",     "svg",
        "rect",       "g",    "line",   "text",   "circle", "details", "summary", "table", "thead",
        "tbody",      "tr",   "th",     "td",     "label",  "select",  "option",  "input", "figure",
        "figcaption", "q",    "footer", "script", NULL};
    static const char *const attrs[] = {"lang",
                                        "charset",
                                        "http-equiv",
                                        "content",
                                        "name",
                                        "href",
                                        "class",
                                        "id",
                                        "data-name",
                                        "data-type",
                                        "data-fwd",
                                        "data-bwd",
                                        "data-dtypes",
                                        "data-k",
                                        "data-sort",
                                        "scope",
                                        "title",
                                        "viewBox",
                                        "preserveAspectRatio",
                                        "role",
                                        "aria-label",
                                        "x",
                                        "y",
                                        "width",
                                        "height",
                                        "x1",
                                        "y1",
                                        "x2",
                                        "y2",
                                        "cx",
                                        "cy",
                                        "r",
                                        "text-anchor",
                                        "transform",
                                        "value",
                                        "type",
                                        "placeholder",
                                        "colspan",
                                        NULL};
    static const char *const refs[] = {"&amp;", "&lt;",     "&gt;", "&quot;",
                                       "&#39;", "&middot;", NULL};
    assert_true(valid_utf8((const unsigned char *)page, strlen(page)));
    assert_int_equal(count(page, "<script"), 1);
    assert_int_equal(count(page, "</script>"), 1);
    assert_int_equal(count(page, "<style"), 1);
    /* the one script and the one style sheet are the program's, byte for byte */
    const char *script = strstr(page, "<script>");
    assert_non_null(script);
    assert_memory_equal(script + 8, pc_report_js, strlen(pc_report_js));
    assert_true(strncmp(script + 8 + strlen(pc_report_js), "</script>", 9) == 0);
    const char *style = strstr(page, "<style>");
    assert_memory_equal(style + 7, pc_report_css, strlen(pc_report_css));
    for (const char *p = page; *p; p++) {
        if (p == script + 8 || p == style + 7) { /* skip the program's own script and style */
            p += (p == script + 8 ? strlen(pc_report_js) : strlen(pc_report_css)) - 1;
            continue;
        }
        if (*p == '&') {
            bool ok = false;
            for (const char *const *r = refs; *r && !ok; r++)
                ok = strncmp(p, *r, strlen(*r)) == 0;
            if (!ok)
                fail_msg("a bare '&' at byte %zu: %.40s", (size_t)(p - page), p);
            continue;
        }
        if (*p == '>')
            fail_msg("a bare '>' at byte %zu: %.40s", (size_t)(p - page), p - 20);
        if (*p != '<')
            continue;
        p++;
        if (strncmp(p, "!DOCTYPE html>", 14) == 0) {
            p += 13;
            continue;
        }
        bool closing = *p == '/';
        p += closing;
        size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789");
        if (!listed(tags, p, n))
            fail_msg("an unknown tag at byte %zu: <%.40s", (size_t)(p - page), p);
        p += n;
        for (;;) {
            p += strspn(p, " \n");
            if (*p == '>')
                break;
            if (*p == '/' && p[1] == '>') {
                p++;
                break;
            }
            assert_false(closing);
            size_t an =
                strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-");
            if (!listed(attrs, p, an))
                fail_msg("an unknown attribute at byte %zu: %.40s", (size_t)(p - page), p);
            p += an;
            if (*p != '=')
                continue; /* a boolean attribute */
            if (p[1] != '"')
                fail_msg("an unquoted value at byte %zu: %.40s", (size_t)(p - page), p);
            const char *end = strchr(p + 2, '"');
            assert_non_null(end);
            for (const char *q = p + 2; q < end; q++)
                if (*q == '<' || *q == '>')
                    fail_msg("markup inside a value at byte %zu: %.40s", (size_t)(q - page), q);
            p = end + 1;
        }
    }
}

/* ---- a folder made to break the page ---- */

static const char crafted_result[] =
    "\xef\xbb\xbf"
    "API name,Forward Test Success,Backward Test Success,Message\r\n"
    "Torch.add.0,pass,pass\r\n"
    "Tensor.</script><script>alert(1)</script>.0,error,pass\r\n"
    "\"Functional.\"\"><img src=x onerror=alert(1)>.0\",Warning, \r\n"
    "\"NPU.a&amp;b'q.0\",SKIP,SKIP,\"msg <b>bold</b> & \xff\xfe bad\"\r\n"
    "Torch.\xc0\xaf\xed\xa0\x80\xe2\x80\xae.0,<i>odd</i>,pass\r\n";

static const char crafted_details[] =
    "\xef\xbb\xbf"
    "API Name,Bench Dtype,DEVICE Dtype,Shape,余弦相似度,最大绝对误差,Status,Message\r\n"
    "Torch.add.0.forward.output.0,torch.float32,torch.float32,\"(2, 3)\",1.0,0.0,pass,\r\n"
    "Tensor.</script><script>alert(1)</script>.0.forward.output.0,torch.float32,"
    "\"<svg onload=alert(1)>\",\"(2, 3)'><x>\",nan, ,error,\"Cosine </td></tr></table> &\"\r\n"
    "\"Functional.\"\"><img src=x onerror=alert(1)>.0.forward.output.0\",torch.float32,"
    "torch.bfloat16,\"(4,)\",0.5,0.25,Warning,\"\xff message\"\r\n"
    "\"NPU.a&amp;b'q.0.forward.output.0\", , , , , ,SKIP,\"msg <b>bold</b> & \xff\xfe bad\"\r\n";

static const char crafted_summary[] =
    "{\"schema\": \"precheck-summary\", \"version\": 1, \"kind\": \"run_ut\", \"run\": "
    "{\"command\": \"precheck run_ut </script><script>alert(3)</script>\", "
    "\"device\": \"device under test: <img src=x onerror=alert(2)> & co\", "
    "\"dump\": \"/data/\\\"quoted\\\"/d\\u0000ump.json\", \"started\": \"2026-12-03 08:16:38\", "
    "\"seconds\": 1.5, \"interrupted\": false, \"apis_planned\": 5, \"apis_done\": 5, "
    "\"apis_from_earlier_run\": 0}}";

static const char crafted_record[] =
    "{\"precheck_run\": 1, \"command\": \"x\", \"identity\": {\"<b>key</b>\": \"<i>v</i>\"}, "
    "\"about\": {\"save_error_data\": \"yes\", \"error_data\": \"/nowhere/<b>\"}}";

static const char crafted_compare_result[] =
    "\xef\xbb\xbf"
    "API Name,Forward Test Success,Backward Test Success,Message\r\n"
    "Tensor.</script><script>alert(1)</script>.0,error,pass,<script>alert(4)</script>\r\n";

static void make_crafted(const char *dir)
{
    write_file(dir, "accuracy_checking_result_20261203081638.csv", crafted_result);
    write_file(dir, "accuracy_checking_details_20261203081638.csv", crafted_details);
    write_file(dir, "precheck_summary_20261203081638.json", crafted_summary);
    write_file(dir, "precheck_run_20261203081638.json", crafted_record);
    write_file(dir, "api_precision_compare_result_20261203090000.csv", crafted_compare_result);
    char details[4096];
    const char *const *h = pc_pcmp_details_header();
    size_t used = (size_t)snprintf(details, sizeof details, "\xef\xbb\xbf");
    for (int i = 0; i < PC_PCMP_DETAILS_COLUMNS; i++)
        used += (size_t)snprintf(details + used, sizeof details - used, "%s%s", i ? "," : "", h[i]);
    used += (size_t)snprintf(details + used, sizeof details - used,
                             "\r\nTensor.</script><script>alert(1)</script>.0.forward.output.0");
    for (int i = 1; i < PC_PCMP_DETAILS_COLUMNS; i++)
        used += (size_t)snprintf(details + used, sizeof details - used, ",%s",
                                 i == CC_RESULT       ? "error"
                                 : i == CC_ALGORITHM  ? "<b>标</b>"
                                 : i == CC_MESSAGE    ? "\"'\"\"><img src=x>\xff\""
                                 : i == CC_RMSE_RATIO ? "2.5"
                                                      : " ");
    snprintf(details + used, sizeof details - used, "\r\n");
    write_file(dir, "api_precision_compare_details_20261203090000.csv", details);
}

static void test_crafted_folder(void **state)
{
    (void)state;
    char dir[512], out[700];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    make_crafted(dir);
    PC_TEST_FMT(out, "%s/page.html", dir);
    pc_report_options opt = {.dir = dir, .out_path = out, .generated = "a <b>time</b>"};
    pc_report_info info;
    assert_int_equal(pc_report_write(&opt, &info), PC_OK);
    assert_int_equal(info.apis, 5);
    assert_string_equal(info.run_ut_ts, "20261203081638");
    assert_string_equal(info.compare_ts, "20261203090000");
    char *page = pc_test_slurp(out, NULL);
    assert_page_is_ours(page);
    /* the crafted texts are on the page, as text */
    assert_non_null(strstr(page, "Tensor.&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;.0"));
    assert_non_null(strstr(page, "Functional.&quot;&gt;&lt;img src=x onerror=alert(1)&gt;.0"));
    assert_non_null(strstr(page, "NPU.a&amp;amp;b&#39;q.0"));
    assert_non_null(strstr(page, "msg &lt;b&gt;bold&lt;/b&gt; &amp; \xef\xbf\xbd\xef\xbf\xbd bad"));
    assert_non_null(strstr(page, "&lt;svg onload=alert(1)&gt;"));
    assert_non_null(strstr(page, "&lt;img src=x onerror=alert(2)&gt; &amp; co"));
    assert_non_null(strstr(page, "precheck run_ut &lt;/script&gt;&lt;script&gt;alert(3)"));
    assert_non_null(strstr(page, "&lt;script&gt;alert(4)&lt;/script&gt;"));
    assert_non_null(strstr(page, "&lt;b&gt;key&lt;/b&gt;"));
    assert_non_null(strstr(page, "a &lt;b&gt;time&lt;/b&gt;"));
    /* an unknown verdict word is shown as text, not as markup */
    assert_non_null(strstr(page, "&lt;i&gt;odd&lt;/i&gt;"));
    /* the record's error-data folder is gone: said, escaped */
    assert_non_null(strstr(page, "/nowhere/&lt;b&gt;"));
    /* and the page forbids anything but its own script and style */
    assert_non_null(strstr(page, "Content-Security-Policy\" content=\"default-src 'none'; "
                                 "script-src 'sha256-"));
    free(page);
}

/* ---- a real run ---- */

static void assert_count(const char *page, const char *id, size_t n)
{
    char want[160];
    PC_TEST_FMT(want, "id=\"%s\">%zu<", id, n);
    if (!strstr(page, want))
        fail_msg("the page has no %s", want);
}

static void test_real_run(void **state)
{
    (void)state;
    char dir[512], env[700], args[2048], log[700];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    PC_TEST_FMT(env, "cd '%s' &&", dir); /* error_data_path ./ is the run's folder */
    PC_TEST_FMT(log, "%s/log", dir);
    PC_TEST_FMT(args,
                "run_ut -api_info '%s/dumps/gpt_bf16_tensor/step0/rank/dump.json' -o '%s' "
                "-save_error_data --no-progress",
                FIXTURES, dir);
    assert_int_equal(pc_test_run_precheck(env, args, log), 0);
    PC_TEST_FMT(args, "report '%s'", dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    char path[1024];
    pc_test_find_file(dir, "precheck_report_", path, sizeof path);
    char *page = pc_test_slurp(path, NULL);
    assert_page_is_ours(page);
    pc_test_status_row r[64];
    pc_test_find_file(dir, "accuracy_checking_result_", path, sizeof path);
    int nr = pc_test_read_results(path, r, 64);
    assert_int_equal(nr, 43);
    size_t c[2][5] = {{0}};
    static const char *const words[5] = {"pass", "Warning", "error", "SKIP", " "};
    static const char *const ids[5] = {"pass", "warning", "error", "skip", "none"};
    for (int i = 0; i < nr; i++) {
        char want[200];
        PC_TEST_FMT(want, "<tr data-name=\"%s\"", r[i].name);
        if (count(page, want) != 1)
            fail_msg("API %s is not one row of the page", r[i].name);
        for (int v = 0; v < 5; v++) {
            c[0][v] += strcmp(r[i].fwd, words[v]) == 0;
            c[1][v] += strcmp(r[i].bwd, words[v]) == 0;
        }
    }
    for (int v = 0; v < 4; v++) {
        char id[80];
        PC_TEST_FMT(id, "count-run_ut-forward-%s", ids[v]);
        assert_count(page, id, c[0][v]);
        PC_TEST_FMT(id, "count-run_ut-backward-%s", ids[v]);
        assert_count(page, id, c[1][v]);
    }
    assert_count(page, "count-run_ut-backward-none", c[1][4]);
    /* the worst API first: the NaN cosine of masked_fill */
    const char *first = strstr(page, "<tbody><tr data-name=\"");
    assert_non_null(first);
    assert_true(strncmp(first + 22, "Tensor.masked_fill.0\"", 21) == 0);
    /* error data drawn, device and settings from the JSON files */
    assert_true(count(page, "<section class=\"ed\">") >= 10);
    assert_non_null(strstr(page, "precheck&#39;s reference device"));
    assert_non_null(strstr(page, "dump_content"));
    free(page);

    /* the metric that decided each API's worst row, read back from the CSV, is summary.json's */
    rep_model m;
    pc_report_options opt = {.dir = dir};
    assert_int_equal(pc_rep_model_load(&m, &opt), PC_OK);
    pc_test_find_file(dir, "precheck_summary_", path, sizeof path);
    pc_json_doc *doc = NULL;
    assert_int_equal(pc_json_parse_file(&doc, path), PC_OK);
    pc_json_ref apis = pc_json_object_get(doc, pc_json_root(doc), "apis");
    assert_int_equal(pc_json_count(doc, apis), 43);
    size_t checked = 0;
    for (pc_json_ref a = pc_json_first(doc, apis); a != PC_JSON_NONE; a = pc_json_next(doc, a)) {
        const char *name = pc_json_string(doc, pc_json_object_get(doc, a, "name"), NULL);
        pc_json_ref w = pc_json_object_get(doc, a, "worst");
        const rep_api *api = NULL;
        for (size_t i = 0; i < m.n_apis; i++)
            if (strcmp(m.apis[i].name, name) == 0)
                api = &m.apis[i];
        assert_non_null(api);
        if (pc_json_is_null(doc, w)) {
            assert_true(api->worst < 0);
            continue;
        }
        const rep_row *row = &api->rows[api->worst];
        const char *metric = pc_json_string(doc, pc_json_object_get(doc, w, "metric"), NULL);
        if (!metric) {
            assert_int_equal(row->decision.metric, -1);
            continue;
        }
        if (row->decision.metric < 0 ||
            strcmp(pc_metric_name((pc_metric)row->decision.metric), metric) != 0)
            fail_msg("%s: the page says %s, summary.json %s", name,
                     row->decision.metric < 0 ? "none"
                                              : pc_metric_name((pc_metric)row->decision.metric),
                     metric);
        const char *dir_text = pc_json_string(doc, pc_json_object_get(doc, w, "direction"), NULL);
        assert_int_equal(row->backward, strcmp(dir_text, "backward") == 0);
        assert_true(row->output == (int)pc_json_number(doc, pc_json_object_get(doc, w, "output")));
        double v = pc_json_number(doc, pc_json_object_get(doc, w, "value"));
        if (pc_json_is_null(doc, pc_json_object_get(doc, w, "value")))
            assert_true(!isfinite(row->decision.value));
        else
            /* the CSV holds float32 values in their shortest digits */
            assert_true(fabs(row->decision.value - v) <= 1e-7 * fmax(1e-30, fabs(v)));
        checked++;
    }
    assert_true(checked >= 40);
    pc_json_free(doc);
    pc_rep_model_free(&m);
}

/* ---- msprobe's folders ---- */

static void test_msprobe_folders(void **state)
{
    (void)state;
    char dir[512], out[700];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    /* run_ut CSVs written by msprobe, with its ut_error_data folder of torch.save files */
    PC_TEST_FMT(out, "%s/msprobe.html", dir);
    pc_report_options opt = {.dir = FIXTURES "/run_ut/gpt_bf16_tensor_save_error_data",
                             .out_path = out};
    pc_report_info info;
    assert_int_equal(pc_report_write(&opt, &info), PC_OK);
    assert_int_equal(info.apis, 43);
    assert_true(info.error_data_apis > 10);
    char *page = pc_test_slurp(out, NULL);
    assert_page_is_ours(page);
    assert_non_null(strstr(page, "these CSVs come from msprobe or an older precheck"));
    assert_non_null(strstr(page, "(from the files&#39; times"));
    free(page);
    /* an api_precision_compare folder */
    PC_TEST_FMT(out, "%s/compare.html", dir);
    opt =
        (pc_report_options){.dir = FIXTURES "/precision_compare/gpt_bf16_vs_fp32", .out_path = out};
    assert_int_equal(pc_report_write(&opt, &info), PC_OK);
    assert_string_equal(info.run_ut_ts, "");
    assert_string_equal(info.compare_ts, "20261202102358");
    page = pc_test_slurp(out, NULL);
    assert_page_is_ours(page);
    assert_non_null(strstr(page, "id=\"count-compare-forward-error\">10<"));
    assert_non_null(strstr(page, "标杆比对法"));
    assert_null(strstr(page, "id=\"count-run_ut-"));
    free(page);
}

/* ---- several runs, and the command's errors ---- */

static void copy_file(const char *from, const char *to)
{
    char *text = pc_test_slurp(from, NULL);
    FILE *f = fopen(to, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    free(text);
}

static void test_runs_and_errors(void **state)
{
    (void)state;
    char dir[512], args[2048], log[700], from[1024], to[1024];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    PC_TEST_FMT(log, "%s/log", dir);
    /* nothing to report on */
    PC_TEST_FMT(args, "report '%s'", dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    assert_true(pc_test_file_contains(log, "holds no CSV of run_ut"));
    /* two runs: msprobe's gpt_tensor twice under two times */
    const char *src = FIXTURES "/run_ut/gpt_tensor";
    pc_test_find_file(src, "accuracy_checking_result_", from, sizeof from);
    PC_TEST_FMT(to, "%s/accuracy_checking_result_20260101000000.csv", dir);
    copy_file(from, to);
    PC_TEST_FMT(to, "%s/accuracy_checking_result_20260102000000.csv", dir);
    copy_file(from, to);
    pc_test_find_file(src, "accuracy_checking_details_", from, sizeof from);
    PC_TEST_FMT(to, "%s/accuracy_checking_details_20260101000000.csv", dir);
    copy_file(from, to);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    assert_true(pc_test_file_contains(log, "holds 2 run_ut and 0 api_precision_compare runs"));
    char page_path[1024];
    PC_TEST_FMT(page_path, "%s/precheck_report_20260102000000.html", dir);
    char *page = pc_test_slurp(page_path, NULL);
    assert_non_null(strstr(page, "This folder holds 2 run_ut runs; this page shows "
                                 "20260102000000, the newest"));
    assert_non_null(strstr(page, "has no details CSV")); /* the newer one has none */
    free(page);
    PC_TEST_FMT(args, "report '%s' --run 20260101000000 -o '%s/older.html'", dir, dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    PC_TEST_FMT(page_path, "%s/older.html", dir);
    page = pc_test_slurp(page_path, NULL);
    assert_page_is_ours(page);
    assert_null(strstr(page, "has no details CSV"));
    free(page);
    PC_TEST_FMT(args, "report '%s' --run 20250101000000", dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    assert_true(pc_test_file_contains(log, "its run_ut runs are"));
    /* a details CSV alone (msprobe killed before its result rows): verdicts and counts from
     * the rows, equal to what the result CSV says */
    char alone[600];
    PC_TEST_FMT(alone, "%s/alone", dir);
    assert_int_equal(mkdir(alone, 0755), 0);
    pc_test_find_file(src, "accuracy_checking_details_", from, sizeof from);
    PC_TEST_FMT(to, "%s/accuracy_checking_details_20260101000000.csv", alone);
    copy_file(from, to);
    PC_TEST_FMT(args, "report '%s'", alone);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    PC_TEST_FMT(page_path, "%s/precheck_report_20260101000000.html", alone);
    page = pc_test_slurp(page_path, NULL);
    assert_page_is_ours(page);
    assert_non_null(strstr(page, "has no result CSV"));
    static pc_test_status_row rows[64];
    pc_test_find_file(src, "accuracy_checking_result_", from, sizeof from);
    int nr = pc_test_read_results(from, rows, 64);
    /* the APIs with details rows (dropout's have none: they are not on that page) */
    char *details = pc_test_slurp(to, NULL);
    size_t fwd_pass = 0, bwd_skip = 0, bwd_pass = 0;
    for (int i = 0; i < nr; i++) {
        char row[200];
        PC_TEST_FMT(row, "\n%s.forward.output.", rows[i].name);
        if (!strstr(details, row))
            continue;
        fwd_pass += strcmp(rows[i].fwd, "pass") == 0;
        bwd_skip += strcmp(rows[i].bwd, "SKIP") == 0;
        bwd_pass += strcmp(rows[i].bwd, "pass") == 0;
    }
    free(details);
    char want[128];
    PC_TEST_FMT(want, "id=\"count-run_ut-forward-pass\">%zu<", fwd_pass);
    assert_non_null(strstr(page, want));
    PC_TEST_FMT(want, "id=\"count-run_ut-backward-skip\">%zu<", bwd_skip);
    assert_non_null(strstr(page, want));
    PC_TEST_FMT(want, "id=\"count-run_ut-backward-pass\">%zu<", bwd_pass);
    assert_non_null(strstr(page, want));
    free(page);
    /* a CSV of the right name and the wrong kind */
    PC_TEST_FMT(to, "%s/accuracy_checking_result_20270101000000.csv", dir);
    FILE *f = fopen(to, "w");
    fputs("a,b\r\n1,2\r\n", f);
    fclose(f);
    PC_TEST_FMT(args, "report '%s'", dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    assert_true(pc_test_file_contains(log, "is not an accuracy_checking_result CSV"));
    /* usage */
    assert_int_equal(pc_test_run_precheck(NULL, "report", log), 2);
    PC_TEST_FMT(args, "report '%s' --run 2026", dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 2);
    PC_TEST_FMT(args, "report '%s' --bogus", dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 2);
    assert_int_equal(pc_test_run_precheck(NULL, "report --help", log), 0);
    assert_true(pc_test_file_contains(log, "self-contained HTML page"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escaping),        cmocka_unit_test(test_crafted_folder),
        cmocka_unit_test(test_real_run),        cmocka_unit_test(test_msprobe_folders),
        cmocka_unit_test(test_runs_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
