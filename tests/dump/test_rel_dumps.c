/* Dumps read without losing anything and without slowing down (issue #29): positions of many
 * bad records (each message's file:line:column, linear in the records); msprobe 1.0's
 * backward keys (grad_output, grad_input); no SKIP row without a reason. */
#include "pc_run_ut_test.h"
#include "pc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "precheck/compare/compare.h"
#include "precheck/core/tensor.h"
#include "precheck/dump/dump.h"
#include "precheck/io/json.h"

#define DUMPS   PC_TEST_FIXTURES "/msprobe/dumps"
#define V1_0_1  PC_TEST_FIXTURES "/msprobe/versions/1.0.1_tensor/dump.json"
#define NO_DROP PC_TEST_FIXTURES "/msprobe/versions/8.3.3_dropout_removed/dump.json"

/* ---- positions of many bad records ---- */

enum { BAD_RECORDS = 40000 };

typedef struct text {
    char *s;
    size_t n, cap;
} text;

static void put(text *t, const char *s)
{
    size_t k = strlen(s);
    if (t->n + k + 1 > t->cap) {
        t->cap = (t->n + k + 1) * 2;
        t->s = realloc(t->s, t->cap);
        assert_non_null(t->s);
    }
    memcpy(t->s + t->n, s, k + 1);
    t->n += k;
}

/* Characters (not bytes) in s: UTF-8 continuation bytes do not count. */
static size_t chars(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

/* A dump of BAD_RECORDS forward entries, each with a tensor whose shape holds a string, and
 * two non-ASCII characters before it on its line, so that columns (characters) differ from
 * bytes. one_line: the whole file on one line (json.dump without indent). The expected line
 * and column of each bad element are in line[i], col[i]. */
static text bad_dump(bool one_line, size_t *line, size_t *col)
{
    text t = {0};
    put(&t, "{\"task\": \"statistics\", \"data\": {");
    size_t ln = 1, counted = 0, column = 1; /* column of byte `counted` */
    for (int i = 0; i < BAD_RECORDS; i++) {
        if (!one_line) {
            put(&t, "\n");
            ln++;
            counted = t.n;
            column = 1;
        }
        char entry[256];
        snprintf(
            entry, sizeof entry,
            "%s\"Functional.relu.%d.forward\": {\"input_args\": [{\"type\": "
            "\"torch.Tensor\", \"dtype\": \"torch.float32\", \"note\": \"\xC3\xA9\xE2\x82\xAC\", "
            "\"shape\": [4, ",
            i ? ", " : "", i);
        put(&t, entry);
        column += chars(t.s + counted, t.n - counted);
        counted = t.n;
        line[i] = ln;
        col[i] = column;
        put(&t, "\"x\"]}], \"input_kwargs\": {}}");
        column += chars(t.s + counted, t.n - counted);
        counted = t.n;
    }
    put(&t, one_line ? "}}" : "\n}}\n");
    return t;
}

static void check_positions(bool one_line)
{
    size_t *line = calloc(BAD_RECORDS, sizeof *line), *col = calloc(BAD_RECORDS, sizeof *col);
    assert_non_null(line);
    assert_non_null(col);
    text t = bad_dump(one_line, line, col);
    pc_dump *d = NULL;
    if (pc_dump_parse(&d, t.s, t.n, "dump.json") != PC_OK)
        fail_msg("%s", pc_error_message());
    assert_int_equal(d->api_count, BAD_RECORDS);
    for (size_t i = 0; i < d->api_count; i++) {
        const pc_dump_entry *e = &d->apis[i].forward;
        assert_null(e->error);
        assert_int_equal(e->input_args.u.list.count, 1);
        const char *err = e->input_args.u.list.items[0].error;
        char want[160];
        PC_TEST_FMT(want,
                    "input_args[0]: \"shape\" must be a list of integers, found string at index "
                    "1 (dump.json:%zu:%zu)",
                    line[i], col[i]);
        if (!err || strcmp(err, want) != 0)
            fail_msg("record %zu: got %s, expected %s", i + 1, err ? err : "no error", want);
    }
    /* the first and the last, spelled out */
    assert_int_equal(line[0], one_line ? 1 : 2);
    assert_int_equal(line[BAD_RECORDS - 1], one_line ? 1 : BAD_RECORDS + 1);
    pc_dump_free(d);
    free(t.s);
    free(line);
    free(col);
}

static void test_bad_record_positions_indented(void **state)
{
    (void)state;
    check_positions(false);
}

static void test_bad_record_positions_one_line(void **state)
{
    (void)state;
    check_positions(true);
}

/* The document's locator (marks every 8 KiB, last position) against counting from the start,
 * at token positions asked in random order: backward jumps, long lines, UTF-8. */
static void test_locations_any_order(void **state)
{
    (void)state;
    text t = {0};
    put(&t, "[");
    uint64_t x = 88172645463325252ULL;
    int items = 60000;
    for (int i = 0; i < items; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        put(&t, i ? "," : "");
        put(&t, (x & 7) == 0 ? "\n" : ((x & 7) == 1 ? "\n\n " : " "));
        put(&t, (x >> 8) & 1 ? "\"\xE6\x97\xA5\xC3\xA9x\"" : "12345");
    }
    put(&t, "]");
    pc_json_doc *doc = NULL;
    if (pc_json_parse(&doc, t.s, t.n, "a.json") != PC_OK)
        fail_msg("%s", pc_error_message());
    pc_json_ref root = pc_json_root(doc);
    assert_int_equal(pc_json_count(doc, root), (size_t)items);
    pc_json_ref *refs = calloc((size_t)items, sizeof *refs);
    assert_non_null(refs);
    int k = 0;
    for (pc_json_ref e = pc_json_first(doc, root); e != PC_JSON_NONE; e = pc_json_next(doc, e))
        refs[k++] = e;
    for (int i = 0; i < 3000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        pc_json_ref v = refs[x % (uint64_t)items];
        size_t l1, c1, l2, c2;
        pc_json_location(doc, v, &l1, &c1);
        pc_json_offset_location(t.s, t.n, pc_json_offset(doc, v), &l2, &c2);
        if (l1 != l2 || c1 != c2)
            fail_msg("offset %zu: %zu:%zu, expected %zu:%zu", pc_json_offset(doc, v), l1, c1, l2,
                     c2);
    }
    /* the end of the input, then the start again */
    size_t l, c, le, ce;
    pc_json_doc_offset_location(doc, t.n + 10, &l, &c);
    pc_json_offset_location(t.s, t.n, t.n, &le, &ce);
    assert_int_equal(l, le);
    assert_int_equal(c, ce);
    pc_json_doc_offset_location(doc, 0, &l, &c);
    assert_int_equal(l, 1);
    assert_int_equal(c, 1);
    free(refs);
    pc_json_free(doc);
    free(t.s);
}

/* ---- msprobe 1.0.x backward keys ---- */

static const pc_dump_arg *item(const pc_dump_arg *list, size_t i)
{
    assert_int_equal(list->kind, PC_DUMP_ARG_LIST);
    assert_true(i < list->u.list.count);
    return &list->u.list.items[i];
}

static void assert_same_shape(const pc_dump_arg *a, const pc_dump_arg *b)
{
    assert_int_equal(a->kind, PC_DUMP_ARG_TENSOR);
    assert_int_equal(b->kind, PC_DUMP_ARG_TENSOR);
    assert_int_equal(a->u.tensor->rank, b->u.tensor->rank);
    for (int64_t d = 0; d < a->u.tensor->rank; d++)
        assert_int_equal(a->u.tensor->shape[d], b->u.tensor->shape[d]);
}

/* grad_output is what backward takes (the gradients of the forward outputs: files
 * .backward.input.<i>.pt, shapes of the outputs), grad_input what it gives (files
 * .backward.output.<i>.pt, shapes of the inputs). */
static void test_msprobe_1_0_backward_keys(void **state)
{
    (void)state;
    pc_dump *d = NULL;
    if (pc_dump_open(&d, V1_0_1) != PC_OK)
        fail_msg("%s", pc_error_message());
    assert_int_equal(d->api_count, 3);
    const pc_dump_api *ln = &d->apis[1];
    assert_string_equal(ln->full_name, "Functional.layer_norm.0");
    assert_non_null(ln->backward);
    assert_null(ln->backward->error);
    const pc_dump_arg *dy = item(&ln->backward->input, 0);
    assert_string_equal(dy->u.tensor->data_name, "Functional.layer_norm.0.backward.input.0.pt");
    assert_same_shape(dy, item(&ln->forward.output, 0));
    assert_int_equal(ln->backward->output.u.list.count, 3);
    for (size_t i = 0; i < 3; i++) {
        const pc_dump_arg *g = item(&ln->backward->output, i);
        char want[96];
        PC_TEST_FMT(want, "Functional.layer_norm.0.backward.output.%zu.pt", i);
        assert_string_equal(g->u.tensor->data_name, want);
    }
    assert_same_shape(item(&ln->backward->output, 0), item(&ln->forward.input_args, 0));
    /* layer_norm(x, normalized_shape, weight, bias): the weight's gradient is the weight's shape */
    assert_same_shape(item(&ln->backward->output, 1), item(&ln->forward.input_args, 2));
    pc_dump_free(d);

    /* the new spelling wins where an entry has both; a bad legacy list names its key */
    const char *both = "{\"data\": {\"Functional.relu.0.forward\": {\"input_args\": [], "
                       "\"input_kwargs\": {}}, \"Functional.relu.0.backward\": "
                       "{\"grad_output\": [null, null], \"input\": [null]}}}";
    assert_int_equal(pc_dump_parse(&d, both, strlen(both), "both.json"), PC_OK);
    assert_int_equal(d->apis[0].backward->input.u.list.count, 1);
    pc_dump_free(d);
    const char *bad = "{\"data\": {\"Functional.relu.0.forward\": {\"input_args\": [], "
                      "\"input_kwargs\": {}}, \"Functional.relu.0.backward\": "
                      "{\"grad_output\": 3}}}";
    assert_int_equal(pc_dump_parse(&d, bad, strlen(bad), "bad.json"), PC_OK);
    assert_non_null(d->apis[0].backward->error);
    assert_non_null(strstr(d->apis[0].backward->error,
                           "\"grad_output\" must be a list, found integer (bad.json:1:"));
    pc_dump_free(d);
}

/* check_dump loads all 13 files the cut-down 1.0.1 dump names (it loaded the 7 forward ones),
 * and run_ut runs every backward (it wrote SKIP,SKIP with an empty message). */
static void test_msprobe_1_0_runs(void **state)
{
    (void)state;
    char dir[256], log[400], args[1024], csv[600];
    pc_test_tmpdir(dir, sizeof dir);
    PC_TEST_FMT(log, "%s/check.log", dir);
    PC_TEST_FMT(args, "check_dump -api_info %s", V1_0_1);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    pc_test_expect_in_log(log, "13 tensor records");
    pc_test_expect_in_log(log, "13 tensor files loaded: 13 match their records, 0 do not");

    PC_TEST_FMT(log, "%s/run.log", dir);
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --no-progress", V1_0_1, dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    pc_test_find_file(dir, "accuracy_checking_result_", csv, sizeof csv);
    pc_test_status_row rows[8];
    assert_int_equal(pc_test_read_results(csv, rows, 8), 3);
    assert_string_equal(rows[0].fwd, "pass");
    assert_string_equal(rows[0].bwd, " "); /* Torch.arange.0: no backward entry */
    for (int i = 1; i < 3; i++) {
        if (strcmp(rows[i].fwd, "pass") != 0 || strcmp(rows[i].bwd, "pass") != 0)
            fail_msg("%s: %s,%s,%s", rows[i].name, rows[i].fwd, rows[i].bwd, rows[i].msg);
    }
}

/* ---- check_dump accounts for every file a dump names ---- */

/* A tensor record naming file, in buf. */
static const char *t_rec(char *buf, size_t size, const char *file)
{
    snprintf(buf, size,
             "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2], "
             "\"Max\": 1.0, \"Min\": 0.0, \"Mean\": 0.5, \"Norm\": 1.0, \"requires_grad\": "
             "false, \"data_name\": \"%s\"}",
             file);
    return buf;
}

/* The cut-down 1.0.1 dump plus files run_ut never reads: one in a Module entry, one in a
 * backward entry without its forward, one under a key run_ut does not read, one in the first
 * body of a key written twice. */
static void test_check_dump_accounts_for_every_file(void **state)
{
    (void)state;
    char dir[256], path[600], log[600], args[1024];
    pc_test_tmpdir(dir, sizeof dir);
    PC_TEST_FMT(path, "%s/dump_tensor_data", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    PC_TEST_FMT(args, "cp %s/msprobe/versions/1.0.1_tensor/dump_tensor_data/*.pt %s/",
                PC_TEST_FIXTURES, path);
    assert_int_equal(system(args), 0);
    size_t n;
    char *orig = pc_test_slurp(V1_0_1, &n);
    const char *end = "\n }\n}";
    assert_true(n > strlen(end) && strcmp(orig + n - strlen(end), end) == 0);
    orig[n - strlen(end)] = '\0';
    PC_TEST_FMT(path, "%s/dump.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    char r1[256], r2[256], r3[256], r4[256];
    fprintf(f,
            "%s,\n  \"Module.fc.Linear.forward.0\": {\"input_args\": [%s]},\n"
            "  \"Functional.relu.9.backward\": {\"input\": [%s]},\n"
            "  \"Functional.relu.0.forward\": {\"input_args\": [%s], \"input_kwargs\": {}},\n"
            "  \"Functional.relu.0.forward\": {\"input_args\": [], \"input_kwargs\": {}, "
            "\"parameters\": {\"weight\": %s}}%s",
            orig, t_rec(r1, sizeof r1, "m.pt"), t_rec(r2, sizeof r2, "orphan.pt"),
            t_rec(r3, sizeof r3, "first.pt"), t_rec(r4, sizeof r4, "param.pt"), end);
    assert_int_equal(fclose(f), 0);
    free(orig);
    PC_TEST_FMT(log, "%s/check.log", dir);
    PC_TEST_FMT(args, "check_dump -api_info %s", path);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    pc_test_expect_in_log(log, "dump.json names 17 tensor files: 13 loaded and checked, 4 not");
    pc_test_expect_in_log(log, "1 in Module entries, not checked: run_ut replays APIs");
    pc_test_expect_in_log(log, "1 in backward entries without a forward entry (the first: "
                               "Functional.relu.9.backward), not checked");
    pc_test_expect_in_log(log, "2 under keys run_ut does not read, in records it cannot rebuild "
                               "or in the earlier body of a key written twice (the first: "
                               "Functional.relu.0.forward), not checked");
    assert_false(pc_test_file_contains(log, "not accounted for"));
}

/* ---- a dump of backward records only ---- */

/* data_mode ["backward"]: no forward record, so nothing runs; run_ut and check_dump say so
 * (they wrote empty CSVs and "0 APIs" without a word). */
static void test_backward_only_dump_says_why(void **state)
{
    (void)state;
    char dir[256], path[600], log[600], args[1024], r1[256], r2[256];
    pc_test_tmpdir(dir, sizeof dir);
    PC_TEST_FMT(path, "%s/dump.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f,
            "{\"task\": \"tensor\", \"level\": \"L1\", \"dump_data_dir\": \"x\", \"data\": {\n"
            "\"Functional.relu.0.backward\": {\"input\": [%s], \"output\": [%s]}}}",
            t_rec(r1, sizeof r1, "Functional.relu.0.backward.input.0.pt"),
            t_rec(r2, sizeof r2, "Functional.relu.0.backward.output.0.pt"));
    assert_int_equal(fclose(f), 0);
    const char *why = "The dump holds 1 backward record and no forward record (written with "
                      "data_mode [\"backward\"]): run_ut runs each API from its forward record";
    PC_TEST_FMT(log, "%s/run.log", dir);
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --no-progress", path, dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    pc_test_expect_in_log(log, why);
    PC_TEST_FMT(log, "%s/check.log", dir);
    PC_TEST_FMT(args, "check_dump -api_info %s", path);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    pc_test_expect_in_log(log, why);
    pc_test_expect_in_log(log, "dump.json names 2 tensor files: 0 loaded and checked, 2 not");
    pc_test_expect_in_log(log, "2 in backward entries without a forward entry");
}

/* ---- a verdict comes with its row and its reason ---- */

/* Replay of a dropout dumped with dropout removed: the recorded gradient is softmax's, and the
 * backward was "error" with no row and no message; now SKIP saying why, in its row. */
static void test_replay_dropout_removed(void **state)
{
    (void)state;
    char dir[256], args[1024], csv[600];
    pc_test_tmpdir(dir, sizeof dir);
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --backend replay --no-progress", NO_DROP, dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, NULL), 0);
    pc_test_find_file(dir, "accuracy_checking_result_", csv, sizeof csv);
    pc_test_status_row rows[4];
    assert_int_equal(pc_test_read_results(csv, rows, 4), 1);
    assert_string_equal(rows[0].fwd, "pass");
    assert_string_equal(rows[0].bwd, "SKIP");
    assert_non_null(strstr(rows[0].msg, "Functional.dropout.0 was dumped with dropout removed: its "
                                        "recorded output equals its input"));
    pc_test_find_file(dir, "accuracy_checking_details_", csv, sizeof csv);
    assert_true(pc_test_file_contains(csv, "Functional.dropout.0.backward.output.0,"));
    assert_true(pc_test_file_contains(csv, ",SKIP,\"Functional.dropout.0 was dumped with dropout "
                                           "removed"));
}

/* msprobe's dropout rule gives a status without a row; an error now has its row and says what
 * the rule saw (a pass still has none, as in msprobe's CSVs). */
static void test_dropout_error_has_its_row(void **state)
{
    (void)state;
    int64_t shape[1] = {200};
    pc_tensor b = PC_TENSOR_NULL, d = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_alloc(&b, PC_DTYPE_F64, shape, 1), PC_OK);
    assert_int_equal(pc_tensor_alloc(&d, PC_DTYPE_F32, shape, 1), PC_OK);
    for (int64_t i = 0; i < 200; i++) {
        pc_tensor_set(&b, &i, i % 10 ? 1.0 : 0.0); /* 20 zeros */
        pc_tensor_set(&d, &i, i % 2 ? 1.0 : 0.0);  /* 100 zeros */
    }
    pc_cmp_value bv = pc_cmp_tensor(&b), dv = pc_cmp_tensor(&d);
    pc_api_outputs outs = {&bv, &dv, NULL, NULL, NULL};
    pc_compare_options opt = {.threads = 1};
    pc_api_result res = PC_API_RESULT_INIT;
    assert_int_equal(pc_compare_api(&res, "Functional.dropout.0", &outs, &opt), PC_OK);
    assert_int_equal(res.forward, PC_VERDICT_ERROR);
    assert_int_equal(res.n_fwd, 1);
    assert_int_equal(res.fwd_rows[0].status, PC_VERDICT_ERROR);
    assert_string_equal(res.fwd_rows[0].message,
                        "dropout rule: 20 of 200 elements are zero on the bench (10.0%), 100 on "
                        "the device (50.0%); the fractions must differ by less than 10%.");
    assert_string_equal(res.fwd_rows[0].shape, "(200,)");
    /* the same zeros: pass, and no row */
    pc_cmp_value same = pc_cmp_tensor(&b);
    outs.device_output = &same;
    assert_int_equal(pc_compare_api(&res, "Functional.dropout.0", &outs, &opt), PC_OK);
    assert_int_equal(res.forward, PC_VERDICT_PASS);
    assert_int_equal(res.n_fwd, 0);
    pc_api_result_free(&res);
    pc_tensor_free(&b);
    pc_tensor_free(&d);
}

/* ---- no SKIP row without a reason ---- */

static void assert_skips_say_why(const char *csv)
{
    static pc_test_status_row rows[512];
    int n = pc_test_read_results(csv, rows, 512);
    int skips = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(rows[i].fwd, "SKIP") != 0 && strcmp(rows[i].bwd, "SKIP") != 0)
            continue;
        skips++;
        const char *m = rows[i].msg;
        while (*m == ' ')
            m++;
        if (!*m)
            fail_msg("%s: %s is %s,%s with no message", csv, rows[i].name, rows[i].fwd,
                     rows[i].bwd);
    }
    printf("%s: %d rows, %d with a SKIP, each with its reason\n", csv, n, skips);
}

static void test_every_skip_has_a_reason(void **state)
{
    (void)state;
    const char *dumps[] = {DUMPS "/gpt_stats/step0/rank/dump.json",
                           DUMPS "/gpt_tensor/step0/rank/dump.json",
                           DUMPS "/gpt_bf16_tensor/step0/rank/dump.json",
                           DUMPS "/cnn_tensor/step0/rank/dump.json",
                           DUMPS "/ew_fp16_tensor/step0/rank/dump.json",
                           V1_0_1,
                           NULL};
    char base[256];
    pc_test_tmpdir(base, sizeof base);
    for (int i = 0; dumps[i]; i++) {
        char dir[400], args[1024], csv[600];
        PC_TEST_FMT(dir, "%s/%d", base, i);
        PC_TEST_FMT(args, "run_ut -api_info %s -o %s --no-progress", dumps[i], dir);
        assert_int_equal(mkdir(dir, 0700), 0);
        assert_int_equal(pc_test_run_precheck(NULL, args, NULL), 0);
        pc_test_find_file(dir, "accuracy_checking_result_", csv, sizeof csv);
        assert_skips_say_why(csv);
    }
    /* a backward entry without its gradient list: SKIP with why (it was empty) */
    char dump[400], dir[400], args[1024], csv[600];
    PC_TEST_FMT(dump, "%s/nograd.json", base);
    FILE *f = fopen(dump, "w");
    assert_non_null(f);
    fputs("{\"task\": \"statistics\", \"dump_data_dir\": null, \"data\": {\"Functional.relu.0."
          "forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": "
          "\"torch.float32\", \"shape\": [4], \"Max\": 1.0, \"Min\": 0.0, \"Mean\": 0.5, "
          "\"Norm\": 1.0, \"requires_grad\": true}], \"input_kwargs\": {}, \"output\": "
          "[{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [4], \"Max\": "
          "1.0, \"Min\": 0.0, \"Mean\": 0.5, \"Norm\": 1.0, \"requires_grad\": true}]}, "
          "\"Functional.relu.0.backward\": {\"output\": []}}}",
          f);
    assert_int_equal(fclose(f), 0);
    PC_TEST_FMT(dir, "%s/nograd", base);
    assert_int_equal(mkdir(dir, 0700), 0);
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --no-progress", dump, dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, NULL), 0);
    pc_test_find_file(dir, "accuracy_checking_result_", csv, sizeof csv);
    assert_skips_say_why(csv);
    assert_true(pc_test_file_contains(
        csv, "the backward entry Functional.relu.0.backward has no \"\"input\"\""));

    /* the one place SKIP records are made never leaves the reason empty */
    pc_api_result res = {0};
    assert_int_equal(pc_api_result_skip(&res, "Functional.relu.0", ""), PC_OK);
    assert_true(res.n_fwd == 1 && res.fwd_rows[0].message[0] != '\0');
    assert_int_equal(pc_api_result_skip(&res, "Functional.relu.0", NULL), PC_OK);
    assert_true(res.fwd_rows[0].message[0] != '\0');
    pc_api_result_free(&res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_record_positions_indented),
        cmocka_unit_test(test_bad_record_positions_one_line),
        cmocka_unit_test(test_locations_any_order),
        cmocka_unit_test(test_msprobe_1_0_backward_keys),
        cmocka_unit_test(test_msprobe_1_0_runs),
        cmocka_unit_test(test_check_dump_accounts_for_every_file),
        cmocka_unit_test(test_every_skip_has_a_reason),
        cmocka_unit_test(test_backward_only_dump_says_why),
        cmocka_unit_test(test_replay_dropout_removed),
        cmocka_unit_test(test_dropout_error_has_its_row),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
