/*
 * One answer to "why does run_ut not run this API" (runner.h, pc_api_why_not_run): `precheck
 * ops --json --dump D` and `precheck run_ut -api_info D` must agree on every API of D. Each row
 * of the run's result CSV says which reason (if any) the run found -- by its message, the one
 * msprobe writes for that reason -- and the ops row of the same API must give that reason; an
 * API whose name stops the run has an ops reason and no row. The dumps: one written here with an
 * API for each reason (and VF.to, both of a type msprobe executes nothing for and black-listed:
 * the run checks the lists first), and msprobe's own dumps in tests/fixtures/msprobe/dumps/.
 */
#include "pc_test.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/io/csv_read.h"
#include "precheck/io/msprobe_csv.h"
#include "precheck/runner/runner.h"

#define MAX_ROWS 4096

typedef struct ops_row {
    char api[256];
    long calls;
    char why[256]; /* "" when run_ut runs it */
    long rows;     /* result rows of the run found for it */
} ops_row;

typedef struct ops_table {
    ops_row rows[MAX_ROWS];
    size_t n;
} ops_table;

/* The JSON string after key on the line at s into out ("" when the line has no key). */
static void json_str(const char *s, const char *key, char *out, size_t size)
{
    out[0] = '\0';
    const char *eol = strchr(s, '\n');
    const char *p = strstr(s, key);
    if (!p || (eol && p > eol))
        return;
    p += strlen(key);
    size_t len = 0;
    for (; p[len] && p[len] != '"'; len++)
        assert_true(p[len] != '\\'); /* the names and reasons here have no escapes */
    assert_true(len < size);
    memcpy(out, p, len);
    out[len] = '\0';
}

static void read_ops(const char *dump, const char *tmp, ops_table *t)
{
    char args[2048], log[1024];
    PC_TEST_FMT(args, "ops --json --dump %s", dump);
    PC_TEST_FMT(log, "%s/ops.json", tmp);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    char *text = pc_test_slurp(log, NULL);
    t->n = 0;
    for (const char *l = strstr(text, "{\"api\": "); l; l = strstr(l + 1, "{\"api\": ")) {
        assert_true(t->n < MAX_ROWS);
        ops_row *r = &t->rows[t->n++];
        json_str(l, "{\"api\": \"", r->api, sizeof r->api);
        const char *c = strstr(l, "\"calls\": ");
        assert_non_null(c);
        r->calls = strtol(c + strlen("\"calls\": "), NULL, 10);
        json_str(l, "\"why\": \"", r->why, sizeof r->why);
        r->rows = 0;
    }
    assert_true(t->n > 0);
    free(text);
}

/* The ops row of a run_ut row's API: the whole name (a name that does not split), else the
 * name less its call index. */
static ops_row *ops_of(ops_table *t, const char *call)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->rows[i].api, call) == 0)
            return &t->rows[i];
    const char *dot = strrchr(call, '.');
    size_t len = dot ? (size_t)(dot - call) : strlen(call);
    for (size_t i = 0; i < t->n; i++)
        if (strlen(t->rows[i].api) == len && strncmp(t->rows[i].api, call, len) == 0)
            return &t->rows[i];
    fail_msg("run_ut row %s has no API in `precheck ops --dump`", call);
    return NULL;
}

/* The message of each API's first forward details row, by the API's full name. */
typedef struct first_rows {
    char api[MAX_ROWS][256];
    char message[MAX_ROWS][256];
    size_t n;
} first_rows;

static void read_details(const char *path, first_rows *d)
{
    pc_csv_reader *r = NULL;
    assert_int_equal(pc_csv_reader_open(path, &r), PC_OK);
    bool has = true;
    assert_int_equal(pc_csv_reader_next(r, &has), PC_OK); /* the header */
    d->n = 0;
    while (pc_csv_reader_next(r, &has) == PC_OK && has) {
        size_t len;
        const char *name = pc_csv_reader_field(r, PC_MCSV_DET_API_NAME, &len);
        const char *msg = pc_csv_reader_field(r, PC_MCSV_DET_MESSAGE, NULL);
        pc_mcsv_row row;
        if (!pc_mcsv_row_parse(name, len, &row) || row.backward || row.output != 0)
            continue;
        assert_true(d->n < MAX_ROWS && row.api_len < sizeof d->api[0]);
        snprintf(d->api[d->n], sizeof d->api[0], "%.*s", (int)row.api_len, name);
        snprintf(d->message[d->n], sizeof d->message[0], "%s", msg ? msg : "");
        d->n++;
    }
    pc_csv_reader_free(r);
}

static const char *first_message(const first_rows *d, const char *api)
{
    for (size_t i = 0; i < d->n; i++)
        if (strcmp(d->api[i], api) == 0)
            return d->message[i];
    return "";
}

/* The reason a result row shows, as `precheck ops` words it ("" when the API ran). whole: ops
 * names the API by the call's whole name (it does not split into type, api and index). */
static const char *reason_of_row(const char *dump, const char *name, bool whole, const char *fwd,
                                 const char *msg, const char *first_msg)
{
    char refused[512];
    PC_TEST_FMT(refused, "API %s not support for run ut. SKIP.", name);
    if (strcmp(msg, refused) == 0) /* the same message for both */
        return pc_no_run_text(whole ? PC_NO_RUN_NAME_UNSPLIT : PC_NO_RUN_TYPE_REFUSED);
    if (strstr(msg, " in black list or not in white list. SKIP."))
        return pc_no_run_text(PC_NO_RUN_LISTED);
    if (strstr(msg, "is not supported by precheck yet") ||
        strncmp(msg, "There is not bench function", 27) == 0)
        return pc_no_run_text(PC_NO_RUN_NO_OP);
    if (strcmp(fwd, "pass") == 0 && strcmp(first_msg, "Bench output is None, skip this test.") == 0)
        return pc_no_run_text(PC_NO_RUN_NOT_EXECUTED);
    if (strcmp(fwd, "SKIP") == 0 && strstr(msg, dump)) /* a record's error names the dump */
        return pc_no_run_text(PC_NO_RUN_BAD_RECORD);
    return "";
}

/* Runs both on dump and checks that they agree; returns how many APIs do not run. */
static size_t check_dump(const char *dump, const char *tmp, bool stops)
{
    static ops_table ops;
    static first_rows first;
    read_ops(dump, tmp, &ops);

    char args[4096], out[1024], log[1024], csv[1024];
    PC_TEST_FMT(out, "%s/run", tmp);
    PC_TEST_FMT(log, "%s/run.log", tmp);
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --jobs 0", dump, out);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), stops ? 1 : 0);
    pc_test_find_file(out, "accuracy_checking_details_", csv, sizeof csv);
    read_details(csv, &first);
    pc_test_find_file(out, "accuracy_checking_result_", csv, sizeof csv);

    pc_csv_reader *r = NULL;
    assert_int_equal(pc_csv_reader_open(csv, &r), PC_OK);
    bool has = true;
    assert_int_equal(pc_csv_reader_next(r, &has), PC_OK); /* the header */
    while (pc_csv_reader_next(r, &has) == PC_OK && has) {
        const char *name = pc_csv_reader_field(r, PC_MCSV_RES_API_NAME, NULL);
        const char *fwd = pc_csv_reader_field(r, PC_MCSV_RES_FORWARD, NULL);
        const char *msg = pc_csv_reader_field(r, PC_MCSV_RES_MESSAGE, NULL);
        ops_row *o = ops_of(&ops, name);
        const char *want = reason_of_row(dump, name, strcmp(o->api, name) == 0, fwd ? fwd : "",
                                         msg ? msg : "", first_message(&first, name));
        if (strcmp(o->why, want) != 0)
            fail_msg("%s: run_ut's row of %s says \"%s\" (message \"%s\"), precheck ops says "
                     "\"%s\" for %s",
                     dump, name, *want ? want : "runs", msg ? msg : "", *o->why ? o->why : "runs",
                     o->api);
        o->rows++;
    }
    pc_csv_reader_free(r);

    size_t not_run = 0;
    for (size_t i = 0; i < ops.n; i++) {
        const ops_row *o = &ops.rows[i];
        not_run += *o->why != '\0';
        if (strcmp(o->why, pc_no_run_text(PC_NO_RUN_UNSAFE_NAME)) == 0) {
            assert_true(stops);
            if (o->rows != 0)
                fail_msg("%s: %s stops the run, yet it has %ld rows", dump, o->api, o->rows);
        } else if (stops ? o->rows > o->calls : o->rows != o->calls) {
            fail_msg("%s: %s: %ld calls in precheck ops, %ld rows in run_ut's result CSV", dump,
                     o->api, o->calls, o->rows);
        }
    }
    return not_run;
}

static const char SYNTHETIC[] =
    "{\"task\": \"statistics\", \"level\": \"L1\", \"framework\": \"pytorch\", "
    "\"dump_data_dir\": null, \"data\": {\n"
    "\"Torch.add.0.forward\": {\"input_args\": [\n"
    "  {\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [3], \"Max\": 1.0, "
    "\"Min\": -1.0, \"requires_grad\": false},\n"
    "  {\"type\": \"float\", \"value\": 1.0}], \"input_kwargs\": {}, \"output\": []},\n"
    "\"Distributed.all_reduce.0.forward\": {\"input_args\": [], \"input_kwargs\": {}, "
    "\"output\": []},\n"
    "\"Torch.a.b.c.0.forward\": {\"input_args\": [], \"input_kwargs\": {}, \"output\": []},\n"
    "\"Tensor.to.0.forward\": {\"input_args\": [], \"input_kwargs\": {}, \"output\": []},\n"
    "\"VF.to.0.forward\": {\"input_args\": [], \"input_kwargs\": {}, \"output\": []},\n"
    "\"VF.lstm.0.forward\": {\"input_args\": [], \"input_kwargs\": {}, \"output\": []},\n"
    "\"Torch.frobnicate.0.forward\": {\"input_args\": [], \"input_kwargs\": {}, \"output\": []},\n"
    "\"Torch.mul.0.forward\": {\"input_args\": [\n"
    "  {\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [3], \"Max\": 1.0, "
    "\"Min\": -1.0, \"requires_grad\": false},\n"
    "  {\"type\": \"int\", \"value\": \"seven\"}], \"input_kwargs\": {}, \"output\": []},\n"
    "\"-Torch.add.5.forward\": {\"input_args\": [], \"input_kwargs\": {}, \"output\": []},\n"
    "\"Torch.add.6.forward\": {\"input_args\": [], \"input_kwargs\": {}, \"output\": []}\n"
    "}}\n";

static void test_every_reason(void **state)
{
    (void)state;
    char tmp[512], dump[600];
    assert_non_null(pc_test_tmpdir(tmp, sizeof tmp));
    PC_TEST_FMT(dump, "%s/dump.json", tmp);
    FILE *f = fopen(dump, "w");
    assert_non_null(f);
    fputs(SYNTHETIC, f);
    fclose(f);
    /* all but Torch.add: refused type, unsplit name, two black-listed, not executed, no op, a
     * bad record, a forbidden name */
    assert_int_equal(check_dump(dump, tmp, true), 8);
}

static void test_msprobe_dumps(void **state)
{
    (void)state;
    static const char *const dumps[] = {"gpt_stats", "gpt_tensor", "gpt_bf16_tensor", "cnn_tensor",
                                        "ew_fp16_tensor"};
    for (size_t i = 0; i < sizeof dumps / sizeof dumps[0]; i++) {
        char tmp[512], dump[1024];
        assert_non_null(pc_test_tmpdir(tmp, sizeof tmp));
        PC_TEST_FMT(dump, "%s/msprobe/dumps/%s/step0/rank/dump.json", PC_TEST_FIXTURES, dumps[i]);
        size_t not_run = check_dump(dump, tmp, false);
        printf("%s: %zu APIs that run_ut does not run, agreed\n", dumps[i], not_run);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_reason),
        cmocka_unit_test(test_msprobe_dumps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
