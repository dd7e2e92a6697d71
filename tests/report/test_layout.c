/*
 * The report's layout in a real browser at the two widths people use (1400 and 800 px):
 * Debian's chromium, headless, renders the page of the README's quick start (the bundled bf16
 * GPT dump: --backend replay with -save_error_data, the reference device, api_precision_compare)
 * with every API's rows opened, and a measuring script (added to a copy of the page, whose
 * Content-Security-Policy is taken out for it) writes what it measured into the DOM:
 *   - nothing is wider than the page, no cell of the API table is wider than its column;
 *   - at 1400 px the API table fits without scrolling sideways; at 800 px its four verdict
 *     columns are in view;
 *   - an API's rows (opened under its name) span the row, not the name's column;
 *   - the metric panels all have one width (so one font size);
 *   - a limit of exactly 0 on a log axis is not drawn on the first decade's tick;
 *   - no two texts of a plot overlap.
 * The screenshots at both widths are kept as build/report_1400.png and build/report_800.png.
 * Without chromium the test is skipped, unless PRECHECK_REQUIRE_CHROMIUM=1 (tests/run.sh).
 */
#include "pc_test.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define FIXTURES PC_TEST_FIXTURES "/msprobe"

static const char measure_js[] =
    "addEventListener('load', function () {\n"
    "  document.querySelectorAll('#api-table details').forEach(function (d) { d.open = true; });\n"
    "  (function () {\n"
    "    var o = [];\n"
    "    var de = document.documentElement;\n"
    "    o.push('page_over=' + (de.scrollWidth - innerWidth));\n"
    "    var sc = document.querySelector('#apis .scroll');\n"
    "    o.push('table_over=' + (sc.scrollWidth - sc.clientWidth));\n"
    "    var r = sc.getBoundingClientRect(), cut = 0;\n"
    "    document.querySelectorAll('#api-table > thead > tr > th.vcol').forEach(function (th) {\n"
    "      if (th.getBoundingClientRect().right > r.right + 1) { cut++; }\n"
    "    });\n"
    "    o.push('verdicts_cut=' + cut);\n"
    "    o.push('verdicts=' + document.querySelectorAll('#api-table > thead > tr > "
    "th.vcol').length);\n"
    "    var wide = 0;\n"
    "    document.querySelectorAll('#api-table td').forEach(function (td) {\n"
    "      if (td.offsetParent && !td.classList.contains('msg1') &&\n"
    "          td.scrollWidth > td.clientWidth + 1) { wide++; }\n"
    "    });\n"
    "    o.push('wide_cells=' + wide);\n"
    "    var subs = document.querySelectorAll('#api-table tr.sub .sub-in'), narrow = 0;\n"
    "    subs.forEach(function (s) {\n"
    "      if (s.getBoundingClientRect().width < 0.6 * sc.clientWidth) { narrow++; }\n"
    "    });\n"
    "    o.push('subs=' + subs.length + ' narrow_subs=' + narrow);\n"
    "    var ws = [];\n"
    "    document.querySelectorAll('#plots figure.plot svg').forEach(function (s) {\n"
    "      ws.push(Math.round(s.getBoundingClientRect().width));\n"
    "    });\n"
    "    o.push('panels=' + ws.length + ' panel_widths=' + (Math.max.apply(null, ws) - "
    "Math.min.apply(null, ws)));\n"
    "    var on_tick = 0, overlaps = 0;\n"
    "    document.querySelectorAll('svg').forEach(function (s) {\n"
    "      var ticks = [];\n"
    "      s.querySelectorAll('line.grid').forEach(function (g) {\n"
    "        if (g.getAttribute('x1') === g.getAttribute('x2')) { "
    "ticks.push(+g.getAttribute('x1')); }\n"
    "      });\n"
    "      s.querySelectorAll('line.limit').forEach(function (l) {\n"
    "        var label = l.nextElementSibling;\n"
    "        if (!label || label.textContent !== '= 0') { return; }\n"
    "        if (l.getAttribute('x1') !== l.getAttribute('x2')) { return; }\n"
    "        var x = +l.getAttribute('x1');\n"
    "        ticks.forEach(function (t) { if (Math.abs(t - x) < 2) { on_tick++; } });\n"
    "      });\n"
    "      var boxes = [];\n"
    "      s.querySelectorAll('text:not([transform])').forEach(function (t) {\n"
    "        var b = t.getBBox(); if (b.width > 0) { boxes.push(b); }\n"
    "      });\n"
    "      for (var i = 0; i < boxes.length; i++) {\n"
    "        for (var j = i + 1; j < boxes.length; j++) {\n"
    "          var a = boxes[i], b = boxes[j];\n"
    "          if (a.x < b.x + b.width - 1 && b.x < a.x + a.width - 1 &&\n"
    "              a.y < b.y + b.height - 1 && b.y < a.y + a.height - 1) { overlaps++; }\n"
    "        }\n"
    "      }\n"
    "    });\n"
    "    o.push('limits_on_ticks=' + on_tick + ' text_overlaps=' + overlaps);\n"
    "    var p = document.createElement('pre');\n"
    "    p.id = 'layout';\n"
    "    p.textContent = o.join(' ');\n"
    "    document.body.appendChild(p);\n"
    "  })();\n"
    "});\n";

static const char *chromium; /* pc_test_chromium() */

static bool have_chromium(void)
{
    chromium = pc_test_chromium();
    return chromium != NULL;
}

/* The page with its policy taken out and the measuring script put in. */
static void write_measured_copy(const char *page, const char *out)
{
    char *html = pc_test_slurp(page, NULL);
    const char *meta = strstr(html, "<meta http-equiv=\"Content-Security-Policy\"");
    assert_non_null(meta);
    const char *meta_end = strchr(meta, '>');
    const char *head_end = strstr(html, "</head>");
    assert_non_null(meta_end);
    assert_non_null(head_end);
    assert_true(head_end > meta_end);
    FILE *f = fopen(out, "wb");
    assert_non_null(f);
    fwrite(html, 1, (size_t)(meta - html), f);
    fwrite(meta_end + 1, 1, (size_t)(head_end - meta_end - 1), f);
    fprintf(f, "<script>%s</script>", measure_js);
    fputs(head_end, f);
    fclose(f);
    free(html);
}

/* The measurements at one width, as "key=value ..." (malloc'd); the screenshot kept. */
static char *measure(const char *work, const char *page, int width, const char *shot)
{
    char cmd[8192], dom[1024], profile[1024], log[1024];
    PC_TEST_FMT(dom, "%s/dom_%d.html", work, width);
    PC_TEST_FMT(log, "%s/chromium_%d.log", work, width);
    PC_TEST_FMT(profile, "%s/profile", work);
    PC_TEST_FMT(cmd,
                "rm -rf '%s' && timeout 120 '%s' --headless --no-sandbox --disable-gpu "
                "--hide-scrollbars --no-first-run --disable-background-networking "
                "--disable-component-update --disable-sync --disable-extensions "
                "--user-data-dir='%s' --window-size=%d,1400 --dump-dom 'file://%s' >'%s' 2>'%s' "
                "&& timeout 120 '%s' --headless --no-sandbox --disable-gpu --hide-scrollbars "
                "--no-first-run --user-data-dir='%s' --window-size=%d,2400 --screenshot='%s' "
                "'file://%s' >/dev/null 2>>'%s'",
                profile, chromium, profile, width, page, dom, log, chromium, profile, width, shot,
                page, log);
    int st = system(cmd);
    if (st != 0) {
        char *text = pc_test_slurp(log, NULL);
        fail_msg("chromium failed (%d): %.2000s", st, text);
    }
    char *text = pc_test_slurp(dom, NULL);
    const char *m = strstr(text, "<pre id=\"layout\">");
    if (!m)
        fail_msg("the measuring script wrote nothing at %d px", width);
    m += strlen("<pre id=\"layout\">");
    size_t n = strcspn(m, "<");
    char *out = malloc(n + 1);
    assert_non_null(out);
    memcpy(out, m, n);
    out[n] = 0;
    free(text);
    return out;
}

static long value(const char *m, const char *key)
{
    char k[64];
    PC_TEST_FMT(k, "%s=", key);
    const char *p = strstr(m, k);
    if (!p)
        fail_msg("no %s in the measurements: %s", key, m);
    return strtol(p + strlen(k), NULL, 10);
}

static void test_layout_at_two_widths(void **state)
{
    (void)state;
    if (!have_chromium()) {
        skip();
        return;
    }
    char work[512], page[700], copy[700];
    assert_non_null(pc_test_tmpdir(work, sizeof work));
    PC_TEST_FMT(page, "%s/report.html", work);
    pc_test_quick_start(work, page);
    PC_TEST_FMT(copy, "%s/measured.html", work);
    write_measured_copy(page, copy);

    const int widths[2] = {1400, 800};
    for (int i = 0; i < 2; i++) {
        char shot[1024];
        PC_TEST_FMT(shot, "%s/report_%d.png", PC_TEST_BUILD_DIR, widths[i]);
        remove(shot);
        char *m = measure(work, copy, widths[i], shot);
        print_message("at %d px: %s\n", widths[i], m);
        assert_true(value(m, "page_over") <= 0);
        assert_int_equal(value(m, "wide_cells"), 0);
        assert_int_equal(value(m, "verdicts"), 4);
        assert_int_equal(value(m, "verdicts_cut"), 0);
        if (widths[i] == 1400)
            assert_true(value(m, "table_over") <= 0);
        assert_true(value(m, "subs") >= 40);
        assert_int_equal(value(m, "narrow_subs"), 0);
        assert_true(value(m, "panels") >= 10);
        assert_true(value(m, "panel_widths") <= 1);
        assert_int_equal(value(m, "limits_on_ticks"), 0);
        assert_int_equal(value(m, "text_overlaps"), 0);
        free(m);
        struct stat st;
        assert_int_equal(stat(shot, &st), 0);
        assert_true(st.st_size > 20000);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout_at_two_widths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
