/* precheck ops: the table and the JSON list of the supported API names, as a user runs it. */
#include "pc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "precheck/ops/op.h"

static char out[1 << 19];

static int run(const char *args, int merge_stderr)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' %s %s", PC_TEST_BINARY, args,
             merge_stderr ? "2>&1" : "2>/dev/null");
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    int status = pclose(p);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

/* The line of the table that starts with api followed by a space, after the line from (NULL:
 * the first such line); NULL when none. */
static const char *row_after(const char *api, const char *from)
{
    size_t n = strlen(api);
    const char *l = from ? (strchr(from, '\n') ? strchr(from, '\n') + 1 : NULL) : out;
    for (; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (strncmp(l, api, n) == 0 && l[n] == ' ')
            return l;
    return NULL;
}

static const char *row_of(const char *api)
{
    return row_after(api, NULL);
}

static void test_table(void **state)
{
    (void)state;
    assert_int_equal(run("ops", 0), 0);
    const char *head = row_of("api");
    assert_non_null(head);
    /* every API name has its row, and the columns line up under the header's */
    size_t op_col = (size_t)(strstr(head, " op ") + 1 - head);
    size_t bwd_col = (size_t)(strstr(head, "backward") - head);
    for (size_t i = 0; i < pc_api_name_count(); i++) {
        const pc_api_name *a = pc_api_name_at(i);
        char api[160];
        snprintf(api, sizeof api, "%s.%s", a->api_type, a->api_name);
        /* an overload (Torch.where twice) has a row of its own, after the earlier one's */
        const char *row = row_of(api);
        for (const pc_api_name *o = pc_api_lookup(a->api_type, a->api_name); row && o && o != a;
             o = pc_api_lookup_next(o))
            row = row_after(api, row);
        if (!row)
            fail_msg("no row for %s", api);
        assert_int_equal(strncmp(row + op_col, a->op->name, strlen(a->op->name)), 0);
        assert_int_equal(
            strncmp(row + bwd_col, a->op->backward ? "yes" : "no", a->op->backward ? 3 : 2), 0);
    }
    const char *sum = row_of("Torch.sum");
    assert_non_null(sum);
    assert_non_null(strstr(row_of("Tensor.__radd__"), "swapped"));
    assert_non_null(strstr(row_of("Tensor.add_"), "inplace"));
    /* msprobe's name lists: add is absolute-threshold, transpose binary, split no backward */
    assert_non_null(strstr(row_of("Torch.add"), "absolute"));
    assert_non_null(strstr(row_of("Torch.transpose"), "binary"));
    assert_non_null(strstr(row_of("Torch.split"), " no"));
    char total[64];
    snprintf(total, sizeof total, "%zu API names, %zu ops", pc_api_name_count(), pc_op_count());
    assert_non_null(strstr(out, total));
}

static void test_json(void **state)
{
    (void)state;
    assert_int_equal(run("ops --json", 0), 0);
    assert_int_equal(out[0], '[');
    assert_non_null(strstr(out, "{\"api\": \"Tensor.__radd__\", \"api_type\": \"Tensor\", "
                                "\"api_name\": \"__radd__\", \"op\": \"add\", \"form\": "
                                "\"swapped\", \"standard\": \"absolute\", \"backward\": true}"));
    assert_non_null(strstr(out, "\"api\": \"Torch.chunk\""));
    size_t objects = 0;
    for (const char *p = out; (p = strchr(p, '{')); p++)
        objects++;
    assert_int_equal(objects, pc_api_name_count());
    size_t len = strlen(out);
    assert_true(len >= 2 && strcmp(out + len - 2, "]\n") == 0);
}

/* --dump: a dump's distinct APIs, their calls, whether run_ut runs them and why not */
static void test_dump_coverage(void **state)
{
    (void)state;
    char args[1024];
    PC_TEST_FMT(args, "ops --dump %s/runner/odd_dump.json", PC_TEST_FIXTURES);
    assert_int_equal(run(args, 0), 0);
    const char *add = strstr(out, "Torch.add ");
    assert_non_null(add);
    assert_non_null(strstr(out, "     6  Torch.add"));
    assert_non_null(strstr(out, "Torch.frobnicate"));
    assert_non_null(strstr(out, "not supported by precheck yet"));
    assert_non_null(strstr(out, "msprobe forbids"));
    assert_non_null(strstr(out, "run_ut does not run this type"));
    assert_non_null(strstr(out, "6 of 11 forward calls (54.5%) run, 6 distinct APIs"));
    /* msprobe's own refusals (a forbidden name, an unrun type, a name that does not split)
     * left out: what is precheck's to close */
    assert_non_null(strstr(out, "6 of the 7 forward calls msprobe's run_ut runs (85.7%) run, 1 not "
                                "supported by precheck yet"));
    PC_TEST_FMT(args, "ops --json --dump %s/msprobe/dumps/cnn_tensor/step0/rank/dump.json",
                PC_TEST_FIXTURES);
    assert_int_equal(run(args, 0), 0);
    assert_non_null(
        strstr(out, "{\"api\": \"Functional.conv2d\", \"calls\": 2, \"supported\": true}"));
    assert_null(strstr(out, "false"));
    assert_int_equal(run("ops --dump /nonexistent.json", 1), 1);
}

static void test_usage(void **state)
{
    (void)state;
    assert_int_equal(run("ops --help", 0), 0);
    assert_non_null(strstr(out, "usage: precheck ops [--json]"));
    assert_int_equal(run("ops --bogus", 1), 2);
    assert_non_null(strstr(out, "precheck ops: error: unrecognized arguments: --bogus"));
    assert_int_equal(run("--help", 0), 0);
    assert_non_null(strstr(out, "  ops "));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_dump_coverage),
        cmocka_unit_test(test_usage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
