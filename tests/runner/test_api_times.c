/*
 * Each API's wall time on the device and on the bench: carried by its result from a worker to
 * the parent (pack and unpack), in the summary JSON (apis[].device_seconds, bench_seconds),
 * and the 10 slowest APIs in the end-of-run summary, slowest first; never in the CSVs (the same
 * bytes with 1 and 2 workers).
 */
#include "pc_test.h"
#include "pc_run_ut_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/core/log.h"
#include "precheck/io/json.h"
#include "precheck/report/sink.h"

#define GPT_STATS PC_TEST_FIXTURES "/msprobe/dumps/gpt_stats/step0/rank/dump.json"

static void test_pack_keeps_times(void **state)
{
    (void)state;
    pc_api_result a = PC_API_RESULT_INIT, b = PC_API_RESULT_INIT;
    assert_int_equal(pc_api_result_skip(&a, "Torch.matmul.0", "a message"), PC_OK);
    a.device_seconds = 1.25;
    a.bench_seconds = 0.0078125;
    pc_csv_buffer bytes = PC_CSV_BUFFER_INIT;
    assert_int_equal(pc_api_result_pack(&a, &bytes), PC_OK);
    assert_int_equal(pc_api_result_unpack(bytes.data, bytes.len, &b), PC_OK);
    pc_assert_same_f64(b.device_seconds, 1.25);
    pc_assert_same_f64(b.bench_seconds, 0.0078125);
    /* a result cut before its times is damaged */
    assert_int_equal(pc_api_result_unpack(bytes.data, bytes.len - 8, &b), PC_ERR_FORMAT);
    pc_csv_buffer_free(&bytes);
    pc_api_result_free(&a);
    pc_api_result_free(&b);
}

/* The summary's slowest APIs: device plus bench, slowest first, dump order among equals, at
 * most 10, none of the APIs that took no time. */
static void test_slowest_lines(void **state)
{
    (void)state;
    char dir[512], log[600];
    pc_test_tmpdir(dir, sizeof dir);
    PC_TEST_FMT(log, "%s/log", dir);
    FILE *f = fopen(log, "w");
    assert_non_null(f);
    pc_log_set_stream(f);
    pc_sink s;
    assert_int_equal(pc_sink_summary_new(&s), PC_OK);
    /* API i takes (i % 7) seconds on the device and 0.5 on the bench; API 13 and 20 take none */
    for (int i = 0; i < 21; i++) {
        pc_api_result r = PC_API_RESULT_INIT;
        char name[32];
        PC_TEST_FMT(name, "Torch.api%d.0", i);
        assert_int_equal(pc_api_result_skip(&r, name, "x"), PC_OK);
        bool none = i == 13 || i == 20;
        r.device_seconds = none ? 0 : i % 7;
        r.bench_seconds = none ? 0 : 0.5;
        assert_int_equal(pc_sink_api(&s, &r), PC_OK);
        pc_api_result_free(&r);
    }
    pc_run_end end = {.total = 21, .done = 21};
    assert_int_equal(pc_sink_finish(&s, &end), PC_OK);
    pc_sink_free(&s);
    pc_log_set_stream(NULL);
    fclose(f);
    char *text = pc_test_slurp(log, NULL);
    const char *head = strstr(text, "slowest APIs (wall time on the device and on the bench):");
    if (!head)
        fail_msg("no slowest APIs:\n%s", text);
    /* 6.5 s: APIs 6; 5.5 s: 5, 12, 19; 4.5 s: 4, 11, 18; 3.5 s: 3, 10, 17 (the 10th) */
    static const char *const expect[] = {
        " 1. Torch.api6.0  device 6.00 s, bench 500.00 ms",
        " 2. Torch.api5.0  device 5.00 s",
        " 3. Torch.api12.0  device 5.00 s",
        " 4. Torch.api19.0  device 5.00 s",
        " 5. Torch.api4.0  device 4.00 s",
        " 6. Torch.api11.0  device 4.00 s",
        " 7. Torch.api18.0  device 4.00 s",
        " 8. Torch.api3.0  device 3.00 s",
        " 9. Torch.api10.0  device 3.00 s",
        "10. Torch.api17.0  device 3.00 s",
    };
    const char *at = head;
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
        const char *p = strstr(at, expect[i]);
        if (!p)
            fail_msg("line %zu (%s) not found after the one before:\n%s", i + 1, expect[i], text);
        at = p + 1;
    }
    assert_null(strstr(head, "11. "));
    assert_null(strstr(head, "Torch.api13.0"));
    free(text);
}

/* A real run: times from the worker processes in the summary JSON, the slowest in the log in
 * the JSON's order, and the same CSVs with 1 and 2 workers. */
static void test_run_ut_times(void **state)
{
    (void)state;
    char dir[512], args[2048], log[600], json[1024], out1[600], out2[600];
    pc_test_tmpdir(dir, sizeof dir);
    PC_TEST_FMT(out1, "%s/j1", dir);
    PC_TEST_FMT(out2, "%s/j2", dir);
    PC_TEST_FMT(log, "%s/log1.txt", dir);
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --jobs 1", GPT_STATS, out1);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    char log2[600];
    PC_TEST_FMT(log2, "%s/log2.txt", dir);
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --jobs 2", GPT_STATS, out2);
    assert_int_equal(pc_test_run_precheck(NULL, args, log2), 0);
    pc_test_assert_same_csvs(out1, out2);

    pc_test_find_file(out2, "precheck_summary_", json, sizeof json);
    pc_json_doc *doc = NULL;
    assert_int_equal(pc_json_parse_file(&doc, json), PC_OK);
    pc_json_ref apis = pc_json_object_get(doc, pc_json_root(doc), "apis");
    size_t n = pc_json_count(doc, apis), timed = 0;
    assert_true(n > 10);
    const char *slowest = NULL;
    double most = -1;
    for (pc_json_ref a = pc_json_first(doc, apis); a != PC_JSON_NONE; a = pc_json_next(doc, a)) {
        double d = pc_json_number(doc, pc_json_object_get(doc, a, "device_seconds"));
        double b = pc_json_number(doc, pc_json_object_get(doc, a, "bench_seconds"));
        assert_true(d >= 0 && b >= 0 && d < 60 && b < 60);
        timed += d + b > 0;
        if (d + b > most) {
            most = d + b;
            slowest = pc_json_string(doc, pc_json_object_get(doc, a, "name"), NULL);
        }
    }
    /* the APIs that ran (not the SKIPs decided before) have times: they came from the workers */
    assert_true(timed >= n / 2);
    char line[256];
    PC_TEST_FMT(line, " 1. %s  device ", slowest);
    if (!pc_test_file_contains(log2, line))
        fail_msg("the slowest API (%s) is not first in the log:\n%s", slowest,
                 pc_test_slurp(log2, NULL));
    assert_true(pc_test_file_contains(log2, "10. "));
    assert_false(pc_test_file_contains(log2, "    11. "));

    /* the report: the slowest APIs, the same one first, and each API's times on expand */
    char page[600];
    PC_TEST_FMT(page, "%s/page.html", dir);
    PC_TEST_FMT(args, "report %s -o %s", out2, page);
    assert_int_equal(pc_test_run_precheck(NULL, args, NULL), 0);
    char *html = pc_test_slurp(page, NULL);
    PC_TEST_FMT(line, "<tr><td>1</td><td>%s</td>", slowest);
    const char *section = strstr(html, "<h2>Where the time went</h2>");
    assert_true(section && strstr(section, line));
    assert_non_null(strstr(html, "<p class=\"api-times\">wall time: device "));
    free(html);
    pc_json_free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pack_keeps_times),
        cmocka_unit_test(test_slowest_lines),
        cmocka_unit_test(test_run_ut_times),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
