/*
 * The report in a real browser: Debian's chromium, headless, renders the page of a real run
 * (the bundled bf16 GPT dump: the NPU side by --backend replay with -save_error_data, the GPU
 * side by the reference device, api_precision_compare of the two into the NPU folder) and
 * dumps the DOM it built, after the page's script ran. Through that DOM the test checks:
 *   - the script ran under the page's Content-Security-Policy (it marks <html data-js="ready">
 *     and counts the rows it shows), so the policy's hashes are right;
 *   - every API of the result CSV is a row, and the counts shown are the result CSVs' counts;
 *   - nothing outside the file is referenced (no src, no href but #fragments, no url(), no
 *     element that loads anything) and the policy forbids anything else.
 * And through the browser's own logs that the page asked for nothing: no console message (a
 * policy violation or a script error is one) and no network request made by a file:// page in
 * chromium's net log. A control page that does ask for something proves both detectors see it.
 * A folder crafted to break the page renders with no element made of its texts.
 *
 * A screenshot of the real run's page is kept as build/report_screenshot.png. Without chromium
 * the test is skipped, unless PRECHECK_REQUIRE_CHROMIUM=1 (tests/run.sh, CI): then it fails.
 */
#include "pc_test.h"
#include "pc_run_ut_test.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define FIXTURES PC_TEST_FIXTURES "/msprobe"

char *realpath(const char *path, char *resolved); /* POSIX; not declared under strict C11 */

static const char *chromium; /* pc_test_chromium() */

/* The browser, or a skip (a failure with PRECHECK_REQUIRE_CHROMIUM=1). */
static bool have_chromium(void)
{
    chromium = pc_test_chromium();
    return chromium != NULL;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

typedef struct rendered {
    char *dom;    /* the DOM after the page's script ran */
    char *log;    /* chromium's stderr (console messages included) */
    char *netlog; /* chromium's network log */
} rendered;

/* Renders page (a file) headless in a fresh profile; screenshot NULL for none. */
static void render(const char *work, const char *page, const char *screenshot, rendered *out)
{
    char abs[PATH_MAX], cmd[8192], dom[1024], log[1024], net[1024], profile[1024];
    assert_non_null(realpath(page, abs));
    PC_TEST_FMT(dom, "%s/dom.html", work);
    PC_TEST_FMT(log, "%s/chromium.log", work);
    PC_TEST_FMT(net, "%s/net.json", work);
    PC_TEST_FMT(profile, "%s/profile", work);
    char shot[1100] = "";
    if (screenshot)
        PC_TEST_FMT(shot, "--window-size=1400,2400 --screenshot='%s'", screenshot);
    PC_TEST_FMT(cmd,
                "rm -rf '%s' && timeout 120 '%s' --headless --no-sandbox --disable-gpu "
                "--disable-quic --no-first-run --disable-background-networking "
                "--disable-component-update --disable-sync --disable-extensions "
                "--user-data-dir='%s' --enable-logging=stderr --v=0 --log-net-log='%s' %s "
                "--dump-dom 'file://%s' >'%s' 2>'%s'",
                profile, chromium, profile, net, shot, abs, dom, log);
    int st = system(cmd);
    if (st != 0) {
        char *text = pc_test_slurp(log, NULL);
        fail_msg("chromium failed (%d): %.2000s", st, text);
    }
    PC_TEST_FMT(cmd, "rm -rf '%s'", profile);
    assert_int_equal(system(cmd), 0);
    out->dom = pc_test_slurp(dom, NULL);
    out->log = pc_test_slurp(log, NULL);
    out->netlog = pc_test_slurp(net, NULL);
}

static void rendered_free(rendered *r)
{
    free(r->dom);
    free(r->log);
    free(r->netlog);
}

/* Requests a file:// page made (chromium's net log names their site). */
static size_t page_requests(const rendered *r)
{
    return count(r->netlog, "site=file://");
}

/* What the browser said about the page: console messages (policy violations, script errors). */
static const char *console_message(const rendered *r)
{
    return strstr(r->log, ":CONSOLE");
}

/* The page asks for nothing: the DOM references nothing outside it, and the browser logged no
 * console message and made no request for it. */
static void assert_self_contained(const rendered *r)
{
    const char *dom = r->dom;
    assert_non_null(strstr(dom, "<meta http-equiv=\"Content-Security-Policy\" "
                                "content=\"default-src 'none'; script-src 'sha256-"));
    static const char *const loaders[] = {
        "<img",    "<link",   "<iframe", "<object", "<embed",     "<video", "<audio",
        "<source", "<base",   "<frame",  "<track",  "<image",     "<use",   "<form",
        " src=",   "srcset=", "url(",    "@import", "xlink:href", NULL};
    for (const char *const *l = loaders; *l; l++)
        if (strstr(dom, *l))
            fail_msg("the page holds %s: %.200s", *l, strstr(dom, *l));
    for (const char *h = strstr(dom, " href=\""); h; h = strstr(h + 1, " href=\""))
        if (h[7] != '#')
            fail_msg("the page links outside itself: %.120s", h);
    if (console_message(r))
        fail_msg("the browser logged: %.600s", console_message(r));
    if (page_requests(r))
        fail_msg("the page made %zu network request(s); see chromium's net log", page_requests(r));
}

static void assert_counts(const char *dom, const char *kind, const char *csv)
{
    static pc_test_status_row rows[512];
    int n = pc_test_read_results(csv, rows, 512);
    assert_true(n > 0);
    static const char *const words[5] = {"pass", "Warning", "error", "SKIP", " "};
    static const char *const ids[5] = {"pass", "warning", "error", "skip", "none"};
    for (int dir = 0; dir < 2; dir++)
        for (int v = 0; v < 5; v++) {
            size_t c = 0;
            for (int i = 0; i < n; i++)
                c += strcmp(dir ? rows[i].bwd : rows[i].fwd, words[v]) == 0;
            char want[160];
            PC_TEST_FMT(want, "id=\"count-%s-%s-%s\">%zu<", kind, dir ? "backward" : "forward",
                        ids[v], c);
            if (!strstr(dom, want) && (c || (v != 4 && strcmp(kind, "run_ut") == 0)))
                fail_msg("the rendered page has no %s", want);
        }
}

static void test_real_run_in_chromium(void **state)
{
    (void)state;
    if (!have_chromium()) {
        skip();
        return;
    }
    char work[512], npu[600], path[1024];
    assert_non_null(pc_test_tmpdir(work, sizeof work));
    PC_TEST_FMT(npu, "%s/npu", work);
    char page[700], shot[1024];
    PC_TEST_FMT(page, "%s/report.html", work);
    pc_test_quick_start(work, page);
    PC_TEST_FMT(shot, "%s/report_screenshot.png", PC_TEST_BUILD_DIR);
    remove(shot);
    rendered r;
    render(work, page, shot, &r);
    /* the script ran under the policy, and counted the rows */
    assert_non_null(strstr(r.dom, "<html lang=\"en\" data-js=\"ready\">"));
    static pc_test_status_row rows[512];
    pc_test_find_file(npu, "accuracy_checking_result_", path, sizeof path);
    int n = pc_test_read_results(path, rows, 512);
    assert_int_equal(n, 43);
    char want[256];
    PC_TEST_FMT(want, "<b id=\"shown\">%d of %d</b>", n, n);
    assert_non_null(strstr(r.dom, want));
    /* every API of the result CSV is one row */
    for (int i = 0; i < n; i++) {
        PC_TEST_FMT(want, "<tr data-name=\"%s\"", rows[i].name);
        if (count(r.dom, want) != 1)
            fail_msg("%s is not one row of the rendered page", rows[i].name);
    }
    assert_int_equal(count(r.dom, "<tr data-name=\""), (size_t)n);
    /* the counts of both commands */
    assert_counts(r.dom, "run_ut", path);
    pc_test_find_file(npu, "api_precision_compare_result_", path, sizeof path);
    assert_counts(r.dom, "compare", path);
    /* the error data drawn */
    assert_true(count(r.dom, "<section class=\"ed\">") >= 5);
    assert_self_contained(&r);
    rendered_free(&r);
    /* the screenshot, for people (build/report_screenshot.png) */
    struct stat st;
    assert_int_equal(stat(shot, &st), 0);
    assert_true(st.st_size > 20000);
    FILE *f = fopen(shot, "rb");
    unsigned char magic[8] = {0};
    assert_int_equal(fread(magic, 1, 8, f), 8);
    fclose(f);
    assert_memory_equal(magic, "\x89PNG\r\n\x1a\n", 8);
}

/* The detectors see a page that asks for something: an image its policy blocks (a console
 * message) and a style sheet it fetches (a request in the net log), from a port where nothing
 * listens. */
static void test_detectors_see_requests(void **state)
{
    (void)state;
    if (!have_chromium()) {
        skip();
        return;
    }
    char work[512], page[700];
    assert_non_null(pc_test_tmpdir(work, sizeof work));
    PC_TEST_FMT(page, "%s/control.html", work);
    FILE *f = fopen(page, "w");
    assert_non_null(f);
    fputs("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><meta "
          "http-equiv=\"Content-Security-Policy\" content=\"img-src 'none'\"></head><body>"
          "<p>control</p><img src=\"http://127.0.0.1:9/a.png\">"
          "<link rel=\"stylesheet\" href=\"http://127.0.0.1:9/b.css\"></body></html>\n",
          f);
    fclose(f);
    rendered r;
    render(work, page, NULL, &r);
    assert_non_null(console_message(&r));
    assert_non_null(strstr(r.log, "Content Security Policy"));
    assert_true(page_requests(&r) >= 1);
    rendered_free(&r);
}

/* A folder whose texts try to become markup renders as text. */
static void test_crafted_folder_in_chromium(void **state)
{
    (void)state;
    if (!have_chromium()) {
        skip();
        return;
    }
    char work[512], path[700], args[2048], log[700];
    assert_non_null(pc_test_tmpdir(work, sizeof work));
    PC_TEST_FMT(path, "%s/accuracy_checking_result_20261203081638.csv", work);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("API name,Forward Test Success,Backward Test Success,Message\r\n"
          "Tensor.</script><script>alert(1)</script>.0,error,pass\r\n"
          "\"Functional.\"\"><img src=x onerror=alert(1)>.0\",SKIP,SKIP,"
          "\"<img src=http://127.0.0.1:9/x.png> & \xff\"\r\n"
          "Torch.<style>body{background:url(http://127.0.0.1:9/y)}</style>.0,pass,pass\r\n",
          f);
    fclose(f);
    PC_TEST_FMT(log, "%s/precheck.log", work);
    PC_TEST_FMT(args, "report '%s' -o '%s/report.html'", work, work);
    pc_test_run_precheck_ok(NULL, args, log);
    PC_TEST_FMT(path, "%s/report.html", work);
    rendered r;
    render(work, path, NULL, &r);
    assert_non_null(strstr(r.dom, "data-js=\"ready\""));
    assert_non_null(strstr(r.dom, "<b id=\"shown\">3 of 3</b>"));
    assert_int_equal(count(r.dom, "<script"), 1);
    assert_int_equal(count(r.dom, "<style"), 1);
    assert_non_null(strstr(r.dom, "Tensor.&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;.0"));
    assert_non_null(strstr(r.dom, "&lt;img src=http://127.0.0.1:9/x.png&gt; &amp; \xef\xbf\xbd"));
    /* the crafted texts carry "url(" and "src=" as text: the element checks still hold */
    static const char *const loaders[] = {"<img", "<link", "<iframe", "<object", NULL};
    for (const char *const *l = loaders; *l; l++)
        assert_null(strstr(r.dom, *l));
    if (console_message(&r))
        fail_msg("the browser logged: %.600s", console_message(&r));
    assert_int_equal(page_requests(&r), 0);
    rendered_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_run_in_chromium),
        cmocka_unit_test(test_detectors_see_requests),
        cmocka_unit_test(test_crafted_folder_in_chromium),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
