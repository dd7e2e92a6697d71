/*
 * The command-line parser (src/cli/args.c) on its own, on tables made for each rule of
 * argparse it follows: what every argument is taken as, and the exact error text. The table of
 * precheck's flags (src/cli/flags.c) is checked for consistency; test_spellings.c runs the
 * commands themselves.
 */
#include "pc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/flags.h"

enum {
    OPT_HELP,
    OPT_OUT,
    OPT_SWITCH_F,
    OPT_SWITCH_J,
    OPT_API,
    OPT_IDS,
    OPT_CSV,
    OPT_CONFIG,
    OPT_CONFIG_YAML,
    OPT_NO_PROGRESS,
    OPT_NEG,
    OPT_COUNT
};

/* msprobe-like options, and precheck-like ones (the last argument true) */
static const pc_args_option table[OPT_COUNT] = {
    {OPT_HELP, {"-h", "--help"}, PC_ARGS_HELP, false},
    {OPT_OUT, {"-o", "--out_path"}, PC_ARGS_VALUE, false},
    {OPT_SWITCH_F, {"-f", "--filter_api"}, PC_ARGS_SWITCH, false},
    {OPT_SWITCH_J, {"-j", "--jit_compile"}, PC_ARGS_SWITCH, false},
    {OPT_API, {"-api_info", "--api_info_file"}, PC_ARGS_VALUE, false},
    {OPT_IDS, {"-d", "--device"}, PC_ARGS_VALUES, false},
    {OPT_CSV, {"-csv_path", "--result_csv_path"}, PC_ARGS_VALUE, false},
    {OPT_CONFIG, {"-config", "--config_path"}, PC_ARGS_VALUE, false},
    {OPT_CONFIG_YAML, {"--config_yaml"}, PC_ARGS_VALUE, true},
    {OPT_NO_PROGRESS, {"--no-progress"}, PC_ARGS_SWITCH, true},
    {OPT_NEG, {"-1"}, PC_ARGS_SWITCH, false},
};

static void print_usage(FILE *out, const pc_args_command *cmd)
{
    fprintf(out, "usage: %s [options]\n", cmd->prog);
}

static void print_help(FILE *out, const pc_args_command *cmd)
{
    fprintf(out, "HELP of %s\n", cmd->prog);
}

static const pc_args_command command = {
    .prog = "t",
    .table = table,
    .options = (const int[]){OPT_HELP, OPT_OUT, OPT_SWITCH_F, OPT_SWITCH_J, OPT_API, OPT_IDS,
                             OPT_CSV, OPT_CONFIG, OPT_CONFIG_YAML, OPT_NO_PROGRESS, -1},
    .print_usage = print_usage,
    .print_help = print_help,
};

/* the same with an option that looks like a negative number, and -o required */
static const pc_args_command negative_command = {
    .prog = "n",
    .table = table,
    .options = (const int[]){OPT_HELP, OPT_OUT, OPT_IDS, OPT_NEG, -1},
    .required = (const int[]){OPT_OUT, -1},
    .print_usage = print_usage,
    .print_help = print_help,
};

/* the top level: options up to the first argument */
static const pc_args_command top_command = {
    .prog = "top",
    .table = table,
    .options = (const int[]){OPT_HELP, OPT_OUT, OPT_SWITCH_F, -1},
    .print_usage = print_usage,
    .print_help = print_help,
    .stops_at_argument = true,
};

/* What the parse took, "ID:value,value ID: ..." in order; stderr and stdout. */
static char taken[2048], err_text[4096], out_text[4096];
static int refuse_id = -1; /* take refuses this option with a usage error */

static int take(void *ctx, const pc_args_command *cmd, int id, char **values, int count)
{
    (void)ctx;
    size_t len = strlen(taken);
    snprintf(taken + len, sizeof taken - len, "%s%d:", len ? " " : "", id);
    for (int k = 0; k < count; k++) {
        len = strlen(taken);
        snprintf(taken + len, sizeof taken - len, "%s%s", k ? "," : "", values[k]);
    }
    if (id == refuse_id)
        return pc_args_usage_error(cmd, "argument %d: refused '%s'", id, count ? values[0] : "");
    return PC_ARGS_RUN;
}

/* Reads what fd (redirected to f) got, into buf. */
static void read_back(FILE *f, char *buf, size_t size)
{
    rewind(f);
    size_t n = fread(buf, 1, size - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* Parses "NAME ARG ARG ..." (split at spaces; "" stands for an empty argument) with cmd;
 * returns pc_args_parse's result, with what was taken and printed in taken, err_text and
 * out_text. */
static int parse_with(const pc_args_command *cmd, const char *line, int *next)
{
    static char buf[1024];
    char *argv[64];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *p = strtok(buf, " "); p; p = strtok(NULL, " ")) {
        assert_true(argc < 63);
        argv[argc++] = strcmp(p, "\"\"") == 0 ? p + 2 : p;
    }
    argv[argc] = NULL;
    taken[0] = '\0';
    fflush(stdout);
    fflush(stderr);
    FILE *ferr = tmpfile(), *fout = tmpfile();
    assert_non_null(ferr);
    assert_non_null(fout);
    int saved_err = dup(2), saved_out = dup(1);
    dup2(fileno(ferr), 2);
    dup2(fileno(fout), 1);
    int rc = pc_args_parse(cmd, argc, argv, take, NULL, next);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_err, 2);
    dup2(saved_out, 1);
    close(saved_err);
    close(saved_out);
    read_back(ferr, err_text, sizeof err_text);
    read_back(fout, out_text, sizeof out_text);
    return rc;
}

static int parse(const char *line)
{
    return parse_with(&command, line, NULL);
}

/* The parse of line runs the command with these options taken. */
static void expect_taken(const char *line, const char *want)
{
    int rc = parse(line);
    if (rc != PC_ARGS_RUN || strcmp(taken, want) != 0 || err_text[0])
        fail_msg("'%s': rc %d, took '%s' (want '%s'), stderr '%s'", line, rc, taken, want,
                 err_text);
}

/* The parse of line is a usage error whose last line is "t: error: " + message. */
static void expect_error(const char *line, const char *message)
{
    char want[1024];
    PC_TEST_FMT(want, "usage: t [options]\nt: error: %s\n", message);
    int rc = parse(line);
    if (rc != 2 || strcmp(err_text, want) != 0)
        fail_msg("'%s': rc %d, stderr '%s' (want '%s')", line, rc, err_text, want);
}

static void test_names_and_values(void **state)
{
    (void)state;
    expect_taken("t", "");
    expect_taken("t -o DIR -f --jit_compile", "1:DIR 2: 3:");
    /* NAME=VALUE, single and double dash; the value may be empty or hold '=' */
    expect_taken("t -api_info=a.json --out_path=DIR", "4:a.json 1:DIR");
    expect_taken("t -o= --out_path=a=b", "1: 1:a=b");
    /* values attached to single-character names */
    expect_taken("t -oDIR -d0", "1:DIR 5:0");
    expect_taken("t -o-x", "1:-x");
    /* combined switches, then an option taking the rest */
    expect_taken("t -fj", "2: 3:");
    expect_taken("t -jfoDIR", "3: 2: 1:DIR");
    expect_taken("t -fo DIR", "2: 1:DIR");
    /* the last one counts (the command sees both) */
    expect_taken("t -o A -o B", "1:A 1:B");
}

static void test_values_lists(void **state)
{
    (void)state;
    expect_taken("t -d 0 1 2 -f", "5:0,1,2 2:");
    expect_taken("t -d 0 1 --out_path x", "5:0,1 1:x");
    expect_error("t -d", "argument -d/--device: expected at least one argument");
    expect_error("t -d -f", "argument -d/--device: expected at least one argument");
    /* an attached value is the only one */
    expect_error("t -d0 1", "unrecognized arguments: 1");
    expect_taken("t --device=3", "5:3");
}

static void test_prefixes(void **state)
{
    (void)state;
    expect_taken("t --api_info a --out b", "4:a 1:b");
    expect_taken("t --api=a --o=b", "4:a 1:b");
    expect_taken("t -api_inf a -csv x", "4:a 6:x");
    /* a single-dash prefix takes no "=value" (Python 3.11's rule) */
    expect_error("t -api_inf=a", "unrecognized arguments: -api_inf=a");
    expect_error("t -c x", "ambiguous option: -c could match -csv_path, -config");
    /* msprobe's options first: --c and --conf are --config_path as in msprobe, although
     * precheck's own --config_yaml starts the same way; --config_y is precheck's */
    expect_taken("t --c x --conf y --config_y z", "7:x 7:y 8:z");
    expect_taken("t --no --no-p", "9: 9:");
    assert_int_equal(parse("t --he"), 0);
    assert_string_equal(out_text, "HELP of t\n");
    /* an exact name wins over the longer ones it starts */
    expect_taken("t -config x", "7:x");
}

static void test_missing_values(void **state)
{
    (void)state;
    expect_error("t -o -f", "argument -o/--out_path: expected one argument");
    expect_error("t -o --out_path x", "argument -o/--out_path: expected one argument");
    expect_error("t -o --unknown", "argument -o/--out_path: expected one argument");
    expect_error("t -api_info", "argument -api_info/--api_info_file: expected one argument");
    expect_error("t -o --", "argument -o/--out_path: expected one argument");
    /* what is not an option is a value: "-", a negative number, text with a space */
    expect_taken("t -o -", "1:-");
    expect_taken("t -o -5 --out_path -.5 -d -1 -2.25", "1:-5 1:-.5 5:-1,-2.25");
    expect_error("t -o -5.", "argument -o/--out_path: expected one argument");
    expect_error("t -o -x", "argument -o/--out_path: expected one argument");
    char space[] = "-x y";
    char *argv[] = {"t", "-o", space, NULL};
    taken[0] = '\0';
    assert_int_equal(pc_args_parse(&command, 3, argv, take, NULL, NULL), PC_ARGS_RUN);
    assert_string_equal(taken, "1:-x y");
}

static void test_negative_number_options(void **state)
{
    (void)state;
    /* with an option that looks like a negative number, negative numbers are options */
    int rc = parse_with(&negative_command, "n -o -5", NULL);
    assert_int_equal(rc, 2);
    assert_string_equal(err_text,
                        "usage: n [options]\nn: error: argument -o/--out_path: expected one "
                        "argument\n");
    rc = parse_with(&negative_command, "n -o x -1", NULL);
    assert_int_equal(rc, PC_ARGS_RUN);
    assert_string_equal(taken, "1:x 10:");
    rc = parse_with(&negative_command, "n -d", NULL);
    assert_int_equal(rc, 2);
}

static void test_switches_refuse_values(void **state)
{
    (void)state;
    expect_error("t --filter_api=1", "argument -f/--filter_api: ignored explicit argument '1'");
    expect_error("t --filter_api=", "argument -f/--filter_api: ignored explicit argument ''");
    expect_error("t -f=", "argument -f/--filter_api: ignored explicit argument ''");
    /* -jit: -j, then no option -i */
    expect_error("t -jit", "argument -j/--jit_compile: ignored explicit argument 'it'");
    expect_error("t -fjx", "argument -j/--jit_compile: ignored explicit argument 'x'");
    /* nothing of the argument was taken */
    assert_string_equal(taken, "");
}

static void test_error_order(void **state)
{
    (void)state;
    /* an ambiguous prefix anywhere comes first */
    expect_error("t -o -f --bogus -c", "ambiguous option: -c could match -csv_path, -config");
    /* then the options in order */
    expect_error("t --bogus -o", "argument -o/--out_path: expected one argument");
    refuse_id = OPT_CSV;
    expect_error("t -o a -csv_path x -o", "argument 6: refused 'x'");
    assert_string_equal(taken, "1:a 6:x");
    refuse_id = -1;
    /* then the required options, then what nobody took */
    int rc = parse_with(&negative_command, "n x -- y", NULL);
    assert_int_equal(rc, 2);
    assert_string_equal(err_text, "usage: n [options]\nn: error: the following arguments are "
                                  "required: -o/--out_path\n");
    expect_error("t x -- -o y", "unrecognized arguments: x -- -o y");
    expect_error("t --bogus=1 -f \"\"", "unrecognized arguments: --bogus=1 ");
    /* the help ends the parse where it stands */
    assert_int_equal(parse("t -o a -h --bogus -o"), 0);
    assert_string_equal(out_text, "HELP of t\n");
    assert_string_equal(err_text, "");
    assert_string_equal(taken, "1:a");
    expect_error("t -o -h", "argument -o/--out_path: expected one argument");
}

static void test_top_level(void **state)
{
    (void)state;
    int next = -1;
    assert_int_equal(parse_with(&top_command, "top -o x cmd -c --x -o", &next), PC_ARGS_RUN);
    assert_int_equal(next, 3);
    assert_string_equal(taken, "1:x");
    assert_int_equal(parse_with(&top_command, "top -f", &next), PC_ARGS_RUN);
    assert_int_equal(next, 2);
    assert_int_equal(parse_with(&top_command, "top --bogus cmd", &next), 2);
    assert_non_null(strstr(err_text, "top: error: unrecognized arguments: --bogus\n"));
    assert_int_equal(parse_with(&top_command, "top --he cmd", &next), 0);
    assert_string_equal(out_text, "HELP of top\n");
}

/* precheck's table: every flag at its index, named as an option, msprobe's with one dash
 * first where msprobe has one. */
static void test_flag_table(void **state)
{
    (void)state;
    for (int f = 0; f < PC_FLAG_COUNT; f++) {
        const pc_args_option *o = &pc_flags[f];
        assert_int_equal(o->id, f);
        assert_non_null(o->names[0]);
        for (int k = 0; k < PC_ARGS_MAX_NAMES && o->names[k]; k++)
            assert_true(o->names[k][0] == '-' && o->names[k][1] != '\0');
    }
    assert_string_equal(pc_flags[PC_FLAG_API_INFO].names[0], "-api_info");
    assert_string_equal(pc_flags[PC_FLAG_API_INFO].names[1], "--api_info_file");
    assert_false(pc_flags[PC_FLAG_OUT_PATH].precheck);
    assert_true(pc_flags[PC_FLAG_CONFIG_YAML].precheck);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_and_values),
        cmocka_unit_test(test_values_lists),
        cmocka_unit_test(test_prefixes),
        cmocka_unit_test(test_missing_values),
        cmocka_unit_test(test_negative_number_options),
        cmocka_unit_test(test_switches_refuse_values),
        cmocka_unit_test(test_error_order),
        cmocka_unit_test(test_top_level),
        cmocka_unit_test(test_flag_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
