/*
 * The result sinks: a packed result comes back as the same result (the CSV bytes prove it),
 * the summary's order of the APIs to look at first, summary.json that any JSON reader takes
 * (also for names and messages crafted to break it), and --fail-on's levels.
 */
#include "pc_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/core/log.h"
#include "precheck/io/json.h"
#include "precheck/report/sink.h"

static pc_detail_row row(pc_verdict status, int metric, double value, double limit,
                         const char *message)
{
    pc_detail_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.bench_dtype, sizeof r.bench_dtype, "torch.float32");
    snprintf(r.device_dtype, sizeof r.device_dtype, "torch.bfloat16");
    snprintf(r.shape, sizeof r.shape, "(2, 3)");
    for (int i = 0; i < PC_METRIC_COUNT; i++)
        r.metrics[i] = pc_csv_space();
    r.metrics[PC_METRIC_COSINE] = pc_csv_f64(metric == PC_METRIC_COSINE ? value : 0.999999);
    r.metrics[PC_METRIC_MAX_ABS_ERR] = pc_csv_f32(0.25f);
    r.metrics[PC_METRIC_ERROR_RATE] = pc_csv_int(0);
    r.metrics[PC_METRIC_EB] = pc_csv_text("text cell");
    r.status = status;
    snprintf(r.message, sizeof r.message, "%s", message);
    r.decision = (pc_row_decision){metric, value, limit};
    return r;
}

/* A result of name with one forward row and, when bwd, one backward row. */
static void make(pc_api_result *res, const char *name, pc_detail_row fwd, const pc_detail_row *bwd)
{
    memset(res, 0, sizeof *res);
    res->full_name = strdup(name);
    res->fwd_rows = calloc(1, sizeof *res->fwd_rows);
    res->fwd_rows[0] = fwd;
    res->n_fwd = 1;
    res->forward = fwd.status;
    res->backward = PC_VERDICT_SPACE;
    if (bwd) {
        res->bwd_rows = calloc(1, sizeof *res->bwd_rows);
        res->bwd_rows[0] = *bwd;
        res->n_bwd = 1;
        res->backward = bwd->status;
    }
}

static void csv_of(const pc_api_result *res, pc_csv_buffer *d, pc_csv_buffer *r)
{
    assert_int_equal(pc_api_result_append_csv(res, d, r, 14), PC_OK);
}

static void test_pack_round_trip(void **state)
{
    (void)state;
    pc_detail_row b = row(PC_VERDICT_ERROR, PC_METRIC_COSINE, 0.5, 0.99, "line one\nline two");
    pc_api_result a;
    make(&a, "Functional.linear.0",
         row(PC_VERDICT_WARNING, PC_METRIC_REL_ERR_THOUSANDTH, 0.9, 0.999, ""), &b);
    pc_csv_buffer bytes = PC_CSV_BUFFER_INIT;
    assert_int_equal(pc_api_result_pack(&a, &bytes), PC_OK);
    pc_api_result c = PC_API_RESULT_INIT;
    assert_int_equal(pc_api_result_unpack(bytes.data, bytes.len, &c), PC_OK);
    assert_string_equal(c.full_name, "Functional.linear.0");
    assert_int_equal(c.n_fwd, 1);
    assert_int_equal(c.n_bwd, 1);
    assert_int_equal(c.bwd_rows[0].decision.metric, PC_METRIC_COSINE);
    pc_assert_same_f64(c.bwd_rows[0].decision.value, 0.5);
    assert_string_equal(c.bwd_rows[0].metrics[PC_METRIC_EB].v.text, "text cell");
    pc_csv_buffer d1 = PC_CSV_BUFFER_INIT, r1 = PC_CSV_BUFFER_INIT;
    pc_csv_buffer d2 = PC_CSV_BUFFER_INIT, r2 = PC_CSV_BUFFER_INIT;
    csv_of(&a, &d1, &r1);
    csv_of(&c, &d2, &r2);
    assert_int_equal(d1.len, d2.len);
    assert_memory_equal(d1.data, d2.data, d1.len);
    assert_int_equal(r1.len, r2.len);
    assert_memory_equal(r1.data, r2.data, r1.len);
    /* cut or damaged bytes are refused, never half read */
    for (size_t cut = 0; cut < bytes.len; cut += 7)
        assert_int_equal(pc_api_result_unpack(bytes.data, cut, &c), PC_ERR_FORMAT);
    bytes.data[0] ^= 1;
    assert_int_equal(pc_api_result_unpack(bytes.data, bytes.len, &c), PC_ERR_FORMAT);
    pc_api_result_free(&a);
    pc_api_result_free(&c);
    pc_csv_buffer_free(&bytes);
    pc_csv_buffer_free(&d1);
    pc_csv_buffer_free(&r1);
    pc_csv_buffer_free(&d2);
    pc_csv_buffer_free(&r2);
}

/* Feeds the same four APIs to a sink. */
static void feed(pc_sink *s, const char *crafted)
{
    pc_api_result r;
    make(&r, "Torch.add.0", row(PC_VERDICT_PASS, PC_METRIC_MAX_ABS_ERR, 0.0001, 0.001, ""), NULL);
    assert_int_equal(pc_sink_api(s, &r), PC_OK);
    pc_api_result_free(&r);
    make(&r, "Torch.mul.0", row(PC_VERDICT_WARNING, PC_METRIC_REL_ERR_THOUSANDTH, 0.99, 0.999, ""),
         NULL);
    assert_int_equal(pc_sink_api(s, &r), PC_OK);
    pc_api_result_free(&r);
    pc_detail_row bad = row(PC_VERDICT_ERROR, PC_METRIC_COSINE, (double)NAN, 0.99, "");
    make(&r, crafted, row(PC_VERDICT_PASS, PC_METRIC_COSINE, 0.9999, 0.99, ""), &bad);
    assert_int_equal(pc_sink_api(s, &r), PC_OK);
    pc_api_result_free(&r);
    make(&r, "Distributed.all_reduce.0",
         row(PC_VERDICT_SKIP, -1, 0, 0,
             "API Distributed.all_reduce.0 not support for run ut. SKIP."),
         NULL);
    r.backward = PC_VERDICT_SKIP;
    assert_int_equal(pc_sink_api(s, &r), PC_OK);
    pc_api_result_free(&r);
}

static void test_fail_on_levels(void **state)
{
    (void)state;
    pc_sink s;
    assert_int_equal(pc_sink_summary_new(&s), PC_OK);
    pc_api_result r;
    make(&r, "Torch.mul.0", row(PC_VERDICT_WARNING, PC_METRIC_REL_ERR_THOUSANDTH, 0.99, 0.999, ""),
         NULL);
    assert_int_equal(pc_sink_api(&s, &r), PC_OK);
    pc_api_result_free(&r);
    assert_false(pc_sink_summary_fails(&s, PC_FAIL_NEVER));
    assert_false(pc_sink_summary_fails(&s, PC_FAIL_ERROR));
    assert_true(pc_sink_summary_fails(&s, PC_FAIL_WARNING));
    feed(&s, "Torch.sub.0");
    assert_true(pc_sink_summary_fails(&s, PC_FAIL_ERROR));
    pc_sink_free(&s);
}

static void test_summary_lines(void **state)
{
    (void)state;
    char dir[512], log[600];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    snprintf(log, sizeof log, "%s/log", dir);
    FILE *f = fopen(log, "w");
    assert_non_null(f);
    pc_log_set_stream(f);
    pc_sink s;
    assert_int_equal(pc_sink_summary_new(&s), PC_OK);
    feed(&s, "Torch.sub.0");
    pc_run_end end = {.device = "device under test: a test",
                      .result_csv = "r.csv",
                      .details_csv = "d.csv",
                      .total = 4,
                      .done = 4};
    assert_int_equal(pc_sink_finish(&s, &end), PC_OK);
    pc_sink_free(&s);
    pc_log_set_stream(NULL);
    fclose(f);
    char *text = pc_test_slurp(log, NULL);
    assert_non_null(strstr(text, "Summary of this run: 4 API(s)"));
    assert_non_null(strstr(text, "forward:  pass 2, Warning 1, error 0, SKIP 1"));
    assert_non_null(strstr(text, "backward: pass 0, Warning 0, error 1, SKIP 1, not compared 2"));
    assert_non_null(strstr(text, "SKIP, by reason: not supported 1"));
    /* the error first (a NaN cosine is as far past its limit as can be), then the Warning */
    const char *one = strstr(text, " 1. Torch.sub.0  error  backward output 0 (torch.bfloat16 "
                                   "(2, 3)): cosine similarity nan, must be > 0.99");
    const char *two = strstr(text, " 2. Torch.mul.0  Warning  forward output 0");
    assert_non_null(one);
    assert_non_null(two);
    assert_true(one < two);
    assert_null(strstr(text, "Torch.add.0  pass"));
    free(text);
}

static void test_summary_json(void **state)
{
    (void)state;
    char dir[512], path[600];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    snprintf(path, sizeof path, "%s/summary.json", dir);
    pc_sink s;
    assert_int_equal(pc_sink_json_new(&s, path, false), PC_OK);
    /* a name made to break JSON or a page: quotes, a backslash, a newline, markup */
    const char *crafted = "Torch.x\"},{\"name\": \"</script><script>alert(1)</script>\\\n.0";
    feed(&s, crafted);
    pc_run_end end = {.command = "precheck run_ut -api_info 'a b'/dump.json",
                      .total = 4,
                      .done = 4,
                      .seconds = 1.5};
    assert_int_equal(pc_sink_finish(&s, &end), PC_OK);
    pc_sink_free(&s);
    pc_json_doc *doc = NULL;
    assert_int_equal(pc_json_parse_file(&doc, path), PC_OK);
    assert_string_equal(pc_json_string(doc, pc_json_object_get(doc, 0, "schema"), NULL),
                        "precheck-summary");
    assert_true(pc_json_number(doc, pc_json_object_get(doc, 0, "version")) == 1);
    pc_json_ref apis = pc_json_object_get(doc, 0, "apis");
    assert_int_equal(pc_json_count(doc, apis), 4);
    pc_json_ref third = pc_json_array_at(doc, apis, 2);
    assert_string_equal(pc_json_string(doc, pc_json_object_get(doc, third, "name"), NULL), crafted);
    pc_json_ref w = pc_json_object_get(doc, third, "worst");
    assert_string_equal(pc_json_string(doc, pc_json_object_get(doc, w, "metric"), NULL),
                        "cosine similarity");
    assert_true(pc_json_is_null(doc, pc_json_object_get(doc, w, "value")));
    assert_string_equal(pc_json_string(doc, pc_json_object_get(doc, w, "value_text"), NULL), "nan");
    pc_json_ref counts = pc_json_object_get(doc, pc_json_object_get(doc, 0, "counts"), "forward");
    assert_true(pc_json_number(doc, pc_json_object_get(doc, counts, "pass")) == 2);
    assert_true(pc_json_number(doc, pc_json_object_get(doc, counts, "SKIP")) == 1);
    pc_json_free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pack_round_trip),
        cmocka_unit_test(test_fail_on_levels),
        cmocka_unit_test(test_summary_lines),
        cmocka_unit_test(test_summary_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
